"""Fit one parametric learner (BR, LFP or EFP) on a dataset, predict its test set, score and time it."""

import json

from fmeasure import datasets
from fmeasure.experiments.parametric import run_learner
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
ds = datasets.load(snakemake.input.data)  # noqa: F821
shared = snakemake.input.get("br_model")  # noqa: F821
rec, instances = run_learner(
    ds,
    snakemake.wildcards.learner,
    snakemake.params.cfg,  # noqa: F821
    n_jobs=snakemake.threads,
    return_instances=True,
    model_path=snakemake.output.model,  # noqa: F821
    br_fit=None if shared is None else (shared, snakemake.input.br_record),  # noqa: F821
)  # noqa: F821
with atomic_output(snakemake.output.record) as tmp:  # noqa: F821
    with open(tmp, "w") as fh:
        json.dump(rec, fh, indent=1)
with atomic_output(snakemake.output.instances) as tmp:  # noqa: F821
    instances.to_csv(tmp, index=False, float_format="%.6g", compression="gzip")
log.info("wrote %s", snakemake.output.record)  # noqa: F821
