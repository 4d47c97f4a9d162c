"""The systems ranked across datasets: Friedman, Nemenyi, Holm against the reference, and the
critical-difference diagram."""

import pandas as pd

from fmeasure.experiments.peers import run_ranks, write_ranks
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
ranks, summary = run_ranks(pd.read_csv(snakemake.input[0]), reference=p.reference, z=p.z)  # noqa: F821
write_ranks(ranks, summary, out.csv, out.md, out.png, out.pdf, reference=p.reference)
log.info("peers ranks: %s", summary.get("reason") or f"Friedman p = {summary['friedman_p']:.3g}")
