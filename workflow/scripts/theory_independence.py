"""Theorem 4.2 / Corollary 4.3 (label independence): q-range, bound 2q-1, P_A and P_B exactly."""

from fmeasure.experiments.theory import write_independence
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
out = snakemake.output  # noqa: F821
table = write_independence(snakemake.params.cfg, out.csv, out.md, out.png, out.pdf)  # noqa: F821
log.info("Theorem 4.2: bound %.4f at m=%d", table.bound.iloc[-1], table.m.iloc[-1])
