"""Simulations: summaries per data model, the claims of Section 6, regrets vs Bayes-optimal."""

from fmeasure.experiments.simulations import write_summaries
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, out, par = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
claims = write_summaries(
    inp.scores,
    inp.reference,
    data_models=par.data_models,
    summary_csvs=out.figures,
    claims_csv=out.claims_csv,
    claims_md=out.claims_md,
    regret_csv=out.regret_csv,
    regret_md=out.regret_md,
    z=par.z,
)
log.info("%d of %d claims confirmed", int((claims.verdict == "confirmed").sum()), len(claims))
