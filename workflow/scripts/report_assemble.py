"""Assemble results/report.md from every enabled stage's tables and figures."""

from fmeasure.experiments.report import write_report
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
write_report(
    snakemake.params.sections,  # noqa: F821
    snakemake.output[0],  # noqa: F821
    title=snakemake.params.title,  # noqa: F821
    skipped=snakemake.params.skipped,  # noqa: F821
    captions_dir=snakemake.params.captions,  # noqa: F821
    notes=list(snakemake.input.notes),  # noqa: F821
)
log.info("report written: %s", snakemake.output[0])  # noqa: F821
