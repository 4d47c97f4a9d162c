"""Table 5: BR, LFP and EFP per dataset, ours beside the paper's numbers."""

import json

import pandas as pd

from fmeasure.experiments.parametric import write_table5
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
records = [json.load(open(p)) for p in snakemake.input.records]  # noqa: F821
times = [pd.read_csv(p) for p in snakemake.input.times]  # noqa: F821
cfg = snakemake.params.cfg  # noqa: F821
out = snakemake.output  # noqa: F821
write_table5(records, out.csv, out.md, cv=cfg["cv"], n_cs=len(cfg["Cs"]), times=times)
log.info("Table 5 written from %d records and %d datasets' inference times", len(records), len(times))
