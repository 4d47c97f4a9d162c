"""One simulations job: the Section 6 protocol for a chunk of models of one data model."""

from threadpoolctl import threadpool_limits

from fmeasure.experiments.simulations import run_models
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
threadpool_limits(snakemake.threads)  # noqa: F821  (one BLAS thread per declared core)
data_model = snakemake.wildcards.data_model  # noqa: F821
start, stop = map(int, snakemake.wildcards.chunk.split("-"))  # noqa: F821  (models start..stop-1)
log.info("%s models %d..%d", data_model, start, stop - 1)
scores, reference = run_models(
    data_model,
    range(start, stop),
    snakemake.params.sim,  # noqa: F821
    jaccard_empty=snakemake.params.jaccard_empty,
)  # noqa: F821
with atomic_output(snakemake.output.scores) as tmp:  # noqa: F821
    scores.to_csv(tmp, index=False)
with atomic_output(snakemake.output.reference) as tmp:  # noqa: F821
    reference.to_csv(tmp, index=False)
log.info("wrote %d runs", len(scores))
