"""foptimal.{csv,md}: every dataset and model, predict against FOptimalClassifier (beyond the paper)."""

from pathlib import Path

import pandas as pd

from fmeasure.experiments.foptimal import write_foptimal_table
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
cfg = params.cfg
results = pd.concat([pd.read_csv(p) for p in inp.rows], ignore_index=True)
instances = pd.concat([pd.read_csv(p) for p in inp.instances], ignore_index=True)
settings = (
    f"Settings of this run: LogisticRegression C={cfg['C']:g}; forest of {cfg['n_estimators']} trees, "
    f"min_samples_leaf={cfg['min_samples_leaf']}; {cfg['n_neighbors']} neighbours; MLP hidden layers "
    f"{tuple(cfg['hidden_layer_sizes'])}; max_iter={cfg['max_iter']}; {cfg['n_samples']} chain samples per "
    f"instance; seed={cfg['seed']}; {params.n_boot} bootstrap resamplings."
)
caption = " ".join((Path(params.captions) / "foptimal_table.rst").read_text().split()) + " " + settings
write_foptimal_table(
    results,
    instances,
    out.csv,
    out.md,
    caption=caption,
    n_boot=params.n_boot,
    seed=params.seed,
    n_estimators=cfg["n_estimators"],
)
log.info("foptimal table written for %s", sorted(results["dataset"].unique()))
