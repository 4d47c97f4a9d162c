"""Vote over all members of one dataset: threshold on validation, test F of members and vote, figure curve."""

from fmeasure.experiments.voting import load_fit, run_timing, run_vote
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
out = snakemake.output  # noqa: F821
fits = [load_fit(p) for p in snakemake.input]  # noqa: F821
scores, curve, inst = run_vote(fits, snakemake.params.cfg, return_instances=True)  # noqa: F821
timing = run_timing(fits)
for df, path in ((scores, out.scores), (curve, out.curve), (inst, out.instances), (timing, out.timing)):
    with atomic_output(path, suffix=".csv.gz" if str(path).endswith(".gz") else None) as tmp:
        df.to_csv(tmp, index=False)
log.info("voting: %d members, threshold %s", len(scores) - 1, scores["threshold"].iloc[-1])
for r in timing.itertuples():
    log.info(
        "time: fit %s, %s: %.1f s wall, %.1f s CPU (%.0f%%)", r.fit, r.phase, r.wall_s, r.cpu_s, 100 * r.time_share
    )
