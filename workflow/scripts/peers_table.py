"""The peers table and figure: every peer and setting beside ours, with paired differences."""

import json

from fmeasure.experiments.peers import run_table, write_figure, write_table
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
records = [json.loads(open(p).read()) for p in snakemake.input.records]  # noqa: F821
table = run_table(
    records,
    snakemake.input.instances,  # noqa: F821
    snakemake.input.ours,  # noqa: F821
    n_boot=snakemake.params.n_boot,  # noqa: F821
    seed=snakemake.params.seed,  # noqa: F821
)
write_table(table, snakemake.output.csv, snakemake.output.md)  # noqa: F821
write_figure(table, snakemake.output.png, snakemake.output.pdf)  # noqa: F821
log.info("peers table: %d rows", len(table))
