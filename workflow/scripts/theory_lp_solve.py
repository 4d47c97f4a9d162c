"""One LP job: the exact worst-case F-regret of one surrogate for one m."""

from fmeasure.io import script_logging
from fmeasure.theory_outputs import write_lp_job

log = script_logging(snakemake)  # noqa: F821
w = snakemake.wildcards  # noqa: F821
wc = write_lp_job(w.surrogate, int(w.m), snakemake.params.cfg, snakemake.output.row, snakemake.output.dist)  # noqa: F821
log.info("%s m=%s: sup %.8f (%d LPs, %.2f s), witness regret %.8f", w.surrogate, w.m, wc.value, wc.n_lps,
         wc.seconds, wc.witness_regret)
