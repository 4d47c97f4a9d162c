"""Findings of the voting stage: the paper's claims checked on table7 (SE: paired bootstrap over test instances)."""

from fmeasure.experiments.findings import write_findings
from fmeasure.experiments.voting import run_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp = snakemake.input  # noqa: F821
rows = write_findings(run_findings(inp.table7, list(inp.instances)), snakemake.output[0])  # noqa: F821
log.info("%d findings written", len(rows))
