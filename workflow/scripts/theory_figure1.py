"""Figure 1 (Theorem 3.2): closed form, exact construction and LP supremum of the subset 0/1 regret."""

from fmeasure.experiments.theory import write_figure1
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
out = snakemake.output  # noqa: F821
table = write_figure1(snakemake.params.cfg, list(snakemake.input.lp), out.csv, out.md, out.png, out.pdf)  # noqa: F821
log.info("Figure 1: %d values of m", len(table))
