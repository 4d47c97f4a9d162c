"""Gather the LP jobs: exact worst-case regrets beside the theorems, maximizing distributions, figure."""

from fmeasure.experiments.theory import write_lp_summary
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
i, o = snakemake.input, snakemake.output  # noqa: F821
table = write_lp_summary(list(i.rows), list(i.dists), o.csv, o.md, o.dist_csv, o.dist_md, o.png, o.pdf)
log.info("LP table: %d rows", len(table))
