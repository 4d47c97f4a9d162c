"""One LP job: the exact worst-case F-regrets of one surrogate for every configured m."""

from fmeasure.experiments.theory import write_lp_job
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
surrogate = snakemake.wildcards.surrogate  # noqa: F821
results = write_lp_job(surrogate, snakemake.params.cfg, snakemake.output.row, snakemake.output.dist)  # noqa: F821
for wc in results:
    log.info(
        "%s m=%d: sup %.8f (%d LPs, %.2f s), witness regret %.8f",
        surrogate,
        wc.m,
        wc.value,
        wc.n_lps,
        wc.seconds,
        wc.witness_regret,
    )
