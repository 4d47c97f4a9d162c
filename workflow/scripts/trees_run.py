"""F-measure trees, one dataset and model family: fit, predict the test set, score, time."""

from fmeasure import datasets
from fmeasure.experiments.trees import run_trees
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
cfg = snakemake.params.trees  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
result, instances = run_trees(
    ds,
    snakemake.wildcards.model,  # noqa: F821
    n_estimators=cfg["n_estimators"],
    predictions=cfg["predictions"],
    max_depth=cfg["max_depth"],
    min_samples_leaf=cfg["min_samples_leaf"],
    max_bins=cfg["max_bins"],
    min_gain=cfg["min_gain"],
    max_features=cfg["max_features"],
    bootstrap=cfg["bootstrap"],
    sparse_density=cfg["sparse_density"],
    seed=cfg["seed"],
    n_jobs=snakemake.threads,  # noqa: F821
    jaccard_empty=snakemake.params.jaccard_empty,  # noqa: F821
    return_instances=True,
)
with atomic_output(snakemake.output.table) as tmp:  # noqa: F821
    result.to_csv(tmp, index=False)
with atomic_output(snakemake.output.instances) as tmp:  # noqa: F821
    instances.to_csv(tmp, index=False, float_format="%.6g", compression="gzip")
log.info("%s %s: %d rows", ds.name, snakemake.wildcards.model, len(result))  # noqa: F821
