"""Findings of the foptimal stage: FOptimalClassifier >= model.predict, per model (cells: datasets)."""

from fmeasure.experiments.findings import write_findings
from fmeasure.experiments.foptimal import run_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
rows = write_findings(run_findings(snakemake.input[0], z=snakemake.params.z), snakemake.output[0])  # noqa: F821
log.info("%d findings written", len(rows))
