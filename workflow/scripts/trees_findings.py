"""Findings of the trees stage: the paper's claims by paired bootstrap over test instances."""

from fmeasure.experiments.findings import write_findings
from fmeasure.experiments.trees import run_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, par = snakemake.input, snakemake.params  # noqa: F821
rows = write_findings(
    run_findings(inp.instances, z=par.z, n_boot=par.n_boot, seed=par.seed),
    snakemake.output[0],  # noqa: F821
)
log.info("%d findings written", len(rows))
