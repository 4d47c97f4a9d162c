"""Findings of Sections 3-4 (theorems, Figure 1, examples) from this run's theory tables."""

from fmeasure.experiments.theory import write_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
rows = write_findings(dict(snakemake.input.items()), snakemake.output[0])  # noqa: F821
log.info("%d findings written", len(rows))
