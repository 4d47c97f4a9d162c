"""Assemble results/report.md (findings first) and results/findings.csv from every enabled stage."""

from fmeasure.experiments.report import write_report
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
par, out = snakemake.params, snakemake.output  # noqa: F821
found = write_report(
    par.sections,
    out.md,
    title=par.title,
    skipped=par.skipped,
    captions=par.captions,
    findings=list(snakemake.input.findings),
    not_run=par.not_run,  # noqa: F821
    config=snakemake.config,
    theory_tables=par.theory_tables,
    findings_csv=out.findings,  # noqa: F821
    deviations_csv=out.deviations,
)  # noqa: F821
log.info("report written: %s (%d findings)", out.md, len(found))
