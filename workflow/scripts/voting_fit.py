"""Fit one model of the voting ensemble on a dataset; write its members' validation and test predictions."""

from fmeasure import datasets
from fmeasure.experiments.voting import run_fit, save_fit
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
result = run_fit(ds, snakemake.wildcards.fit, snakemake.params.cfg, n_jobs=snakemake.threads)  # noqa: F821
save_fit(result, snakemake.output[0])  # noqa: F821
log.info("wrote %s (%d members)", snakemake.output[0], len(result["members"]))  # noqa: F821
