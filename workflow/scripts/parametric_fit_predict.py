"""Fit one parametric learner (BR, LFP or EFP) on a dataset, predict its test set, score and time it."""

import json

from fmeasure import datasets
from fmeasure.experiments.parametric import run_learner
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
rec = run_learner(ds, snakemake.wildcards.learner, snakemake.params.cfg, n_jobs=snakemake.threads)  # noqa: F821
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    with open(tmp, "w") as fh:
        json.dump(rec, fh, indent=1)
log.info("wrote %s", snakemake.output[0])  # noqa: F821
