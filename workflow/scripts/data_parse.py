"""Parse a dataset's verified raw files, check its counts, and cache it as .npz."""

from pathlib import Path

from fmeasure import datasets
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
name = snakemake.wildcards.dataset  # noqa: F821
raw_dir = Path(snakemake.input[0]).parent  # noqa: F821
ds = datasets.parse(name, snakemake.params.entry, raw_dir)  # noqa: F821
datasets.save(ds, snakemake.output[0])  # noqa: F821
log.info("%s: %s", name, datasets.summary(ds))
