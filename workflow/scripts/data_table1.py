"""Table 1: dataset statistics from the parsed data, beside the paper's counts."""

from fmeasure import datasets
from fmeasure.experiments.data import write_table1
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
loaded = [datasets.load(p) for p in snakemake.input]  # noqa: F821
write_table1(loaded, snakemake.params.catalog, snakemake.output.csv, snakemake.output.md)  # noqa: F821
log.info("Table 1 written for %s", [d.name for d in loaded])
