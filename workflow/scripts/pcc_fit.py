"""Fit the PCC of one dataset (C tuned per label by CV) and cache it for every inference job."""

from collections import Counter

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
chosen = Counter("constant" if c is None else f"{c:g}" for c in info["C"])
summary = ", ".join(f"{c}: {k}" for c, k in sorted(chosen.items(), key=lambda kv: -kv[1]))
log.info(
    "%s: trained in %.1f s; labels per chosen C: %s (per label in %s)",
    info["dataset"],
    info["train_time_s"],
    summary,
    snakemake.output.info,
)
