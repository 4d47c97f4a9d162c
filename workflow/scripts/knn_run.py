"""Tables 2-3, one dataset: kNN with every l and inference method, scores and in-process times."""

from fmeasure import datasets
from fmeasure.experiments.knn import run_knn
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
cfg = snakemake.params.knn  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
result = run_knn(
    ds,
    neighbours=cfg["neighbours"],
    methods=cfg["methods"],
    jaccard_empty=snakemake.params.jaccard_empty,  # noqa: F821
    timing_repeats=cfg["timing_repeats"],
    scaling=cfg["scaling"],
    ties=cfg["ties"],
    tie_tolerance=cfg["tie_tolerance"],
    mm_half=cfg["mm_half"],
    n_jobs=snakemake.threads,  # noqa: F821
)
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    result.to_csv(tmp, index=False)
log.info("%s: %d settings, %.2f s of search + inference", ds.name, len(result), result["time_s"].sum())
