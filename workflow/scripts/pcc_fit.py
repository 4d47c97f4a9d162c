"""Fit the PCC of one dataset (C tuned per label by CV) and cache it for every inference job."""

from fmeasure.experiments.pcc import write_model
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
_, info = write_model(
    snakemake.input.data,  # noqa: F821
    snakemake.params.cfg,  # noqa: F821
    snakemake.output.model,  # noqa: F821
    snakemake.output.info,  # noqa: F821
    n_jobs=snakemake.threads,  # noqa: F821
)
log.info("%s: trained in %.1f s, C per label %s", info["dataset"], info["train_time_s"], info["C"])
