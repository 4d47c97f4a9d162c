"""Tables 2 and 3: gather the per-dataset kNN results, beside the paper's numbers."""

from pathlib import Path

import pandas as pd

from fmeasure.experiments.knn import describe_empty_label_sets, write_tables
from fmeasure.experiments.report import render_caption
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
out, params = snakemake.output, snakemake.params  # noqa: F821
results = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True)  # noqa: F821
empty = results.groupby("dataset", sort=False)[["n_test_empty", "n_test"]].first()
settings = (
    f"Settings of this run: scaling={params.knn['scaling']}, ties={params.knn['ties']}, "
    f"mm_half={params.knn['mm_half']}, Jaccard(empty, empty)={params.jaccard_empty:g}. "
    + describe_empty_label_sets({d: tuple(r) for d, r in empty.iterrows()}, params.jaccard_empty)
)
captions = {
    n: render_caption(Path(params.captions) / f"knn_{n}.rst", snakemake.config) + " " + settings  # noqa: F821
    for n in ("table2", "table3")
}
write_tables(
    results,
    table2_csv=out.table2,
    table2_md=out.table2_md,
    table3_csv=out.table3,
    table3_md=out.table3_md,
    caption2=captions["table2"],
    caption3=captions["table3"],
)
log.info("Tables 2 and 3 written for %s", sorted(results["dataset"].unique()))
