"""The worked examples of Section 4: every method's prediction and exact expected F."""

from fmeasure.experiments.theory import write_examples
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
table = write_examples(snakemake.output.csv, snakemake.output.md)  # noqa: F821
log.info("examples table: %d rows", len(table))
