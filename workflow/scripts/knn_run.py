"""Tables 2-3, one dataset: kNN with every l and inference method, scores and in-process times."""

from fmeasure import datasets
from fmeasure.experiments.knn import run_knn
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
cfg = snakemake.params.knn  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
result, instances = run_knn(
    ds,
    neighbours=cfg["neighbours"],
    methods=cfg["methods"],
    jaccard_empty=snakemake.params.jaccard_empty,  # noqa: F821
    timing_best_of=cfg["timing_best_of"],
    scaling=cfg["scaling"],
    ties=cfg["ties"],
    tie_tolerance=cfg["tie_tolerance"],
    mm_half=cfg["mm_half"],
    n_jobs=snakemake.threads,  # noqa: F821
    return_instances=True,
)
with atomic_output(snakemake.output.table) as tmp:  # noqa: F821
    result.to_csv(tmp, index=False)
with atomic_output(snakemake.output.instances) as tmp:  # noqa: F821
    instances.to_csv(tmp, index=False, float_format="%.6g", compression="gzip")
log.info("%s: %d settings, %.2f s of search + inference", ds.name, len(result), result["time_s"].sum())
