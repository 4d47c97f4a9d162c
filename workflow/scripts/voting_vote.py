"""Vote over all members of one dataset: threshold on validation, test F of members and vote, figure curve."""

from fmeasure.experiments.voting import load_fit, run_vote
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
fits = [load_fit(p) for p in snakemake.input]  # noqa: F821
scores, curve = run_vote(fits, snakemake.params.cfg)  # noqa: F821
for df, path in ((scores, snakemake.output.scores), (curve, snakemake.output.curve)):  # noqa: F821
    with atomic_output(path) as tmp:
        df.to_csv(tmp, index=False)
log.info("voting: %d members, threshold %s", len(scores) - 1, scores["threshold"].iloc[-1])
