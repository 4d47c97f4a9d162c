"""Parse a dataset's verified raw files (or generate a synthetic one), check its counts, and cache
it as .npz with its counts beside it (.json, read to size the jobs' resources)."""

from fmeasure import datasets
from fmeasure.experiments.data import summary
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
name = snakemake.wildcards.dataset  # noqa: F821
ds = datasets.parse(name, snakemake.params.entry, snakemake.params.raw_dir)  # noqa: F821
datasets.save(ds, snakemake.output[0])  # noqa: F821
datasets.write_counts(ds, snakemake.output.counts)  # noqa: F821
log.info("%s: %s", name, summary(ds))
