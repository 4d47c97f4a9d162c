"""Theorem 3.3 (Jaccard): regret of the F-maximizer vs 1 - delta(P)/2 on random distributions."""

from fmeasure.experiments.theory import write_jaccard
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
out = snakemake.output  # noqa: F821
summary = write_jaccard(snakemake.params.cfg, out.csv, out.md, out.samples, out.png, out.pdf)  # noqa: F821
log.info("Theorem 3.3: %d violations, largest regret/bound %.4f", summary.violations.sum(), summary.max_ratio.max())
