"""ftrees.{csv,md}: every dataset's F-tree, F-bag and forest rows (beyond the paper)."""

from pathlib import Path

import pandas as pd

from fmeasure.experiments.trees import write_trees_table
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
out, params = snakemake.output, snakemake.params  # noqa: F821
cfg = params.trees
results = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True)  # noqa: F821
settings = (
    f"Settings of this run: B={cfg['n_estimators']} trees, min_samples_leaf={cfg['min_samples_leaf']}, "
    f"max_depth={cfg['max_depth']}, max_features={cfg['max_features']}, max_bins={cfg['max_bins']}, "
    f"min_gain={cfg['min_gain']}, bootstrap={cfg['bootstrap']}, seed={cfg['seed']}, "
    f"Jaccard(empty, empty)={params.jaccard_empty:g}."
)
caption = " ".join((Path(params.captions) / "trees_table.rst").read_text().split()) + " " + settings
write_trees_table(results, out.csv, out.md, caption=caption)
log.info("ftrees written for %s", sorted(results["dataset"].unique()))
