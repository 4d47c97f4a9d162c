"""Theorem 4.5 (thresholding): the family of eq. (prob_dist) evaluated exactly."""

from fmeasure.experiments.theory import write_threshold
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
table = write_threshold(snakemake.params.cfg, snakemake.output.csv, snakemake.output.md)  # noqa: F821
log.info("Theorem 4.5 table: %d rows", len(table))
