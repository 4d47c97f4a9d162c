"""Findings of Section 6 (claims with margin and SE, Figures 2-4) for the report."""

from fmeasure.experiments.simulations import write_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
rows = write_findings(
    snakemake.input.claims,
    snakemake.input.figure4,
    snakemake.output[0],  # noqa: F821
    z=snakemake.params.z,
)  # noqa: F821
log.info("%d findings written", len(rows))
