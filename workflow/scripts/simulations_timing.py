"""Figure 4's measurements: estimation and inference time of MM, JM, FM, GFM against m."""

from threadpoolctl import threadpool_limits

from fmeasure.experiments.simulations import time_methods
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
threadpool_limits(1)  # single-core timings; the job reserves its cores only to run alone
t = snakemake.params.timing  # noqa: F821
times = time_methods(
    t["n_labels"],
    n_train=t["n_train"],
    repeats=t["repeats"],
    inner=t["timing_best_of"],
    seed=snakemake.params.sim["seed"],
    sim=snakemake.params.sim,
)  # noqa: F821
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    times.to_csv(tmp, index=False)
log.info("timed %d calls", len(times))
