"""FOptimalClassifier stage, one dataset and model: fit, predict with predict and FOptimalClassifier, score."""

from fmeasure import datasets
from fmeasure.experiments.foptimal import run_model
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
out, params = snakemake.output, snakemake.params  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
rows, instances = run_model(
    ds,
    snakemake.wildcards.model,  # noqa: F821
    params.cfg,
    jaccard_empty=params.jaccard_empty,
    n_jobs=snakemake.threads,  # noqa: F821
)
with atomic_output(out.rows) as tmp:
    rows.to_csv(tmp, index=False)
with atomic_output(out.instances) as tmp:
    instances.to_csv(tmp, index=False, float_format="%.6g", compression="gzip")
log.info("%s %s: %d rows", ds.name, snakemake.wildcards.model, len(rows))  # noqa: F821
