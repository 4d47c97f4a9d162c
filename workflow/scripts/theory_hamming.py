"""Theorem 3.1 (Hamming): the appendix's P_A and the two-label distribution, evaluated exactly."""

from fmeasure.experiments.theory import write_hamming
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
table = write_hamming(snakemake.params.cfg, snakemake.output.csv, snakemake.output.md)  # noqa: F821
log.info("Theorem 3.1 table: %d rows, largest regret %.6f", len(table), table.two_label_regret.max())
