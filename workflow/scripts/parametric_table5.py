"""Table 5: BR, LFP and EFP per dataset, ours beside the paper's numbers."""

import json

from fmeasure.experiments.parametric import write_table5
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
records = [json.load(open(p)) for p in snakemake.input]  # noqa: F821
cfg = snakemake.params.cfg  # noqa: F821
write_table5(records, snakemake.output.csv, snakemake.output.md, cv=cfg["cv"], n_cs=len(cfg["Cs"]))  # noqa: F821
log.info("Table 5 written from %d records", len(records))
