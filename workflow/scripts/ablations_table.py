"""The ablation table: deviations of this run's Tables 4-5 from the paper, every setting's value, the summary."""

import pandas as pd

from fmeasure.experiments.ablations import run_ablations, write_ablations
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, params, out = snakemake.input, snakemake.params, snakemake.output  # noqa: F821
tables = {name: pd.read_csv(inp[name]) for name in params.tables}
rows = [pd.read_csv(p) for p in inp.runs]
table = run_ablations(tables, rows, params.settings, params.threshold)
findings = write_ablations(table, params.settings, params.threshold, out.csv, out.md, out.summary, out.findings)
log.info("%d deviations, %d explained\n%s", len(table), int((findings.verdict == "explained").sum()), table.to_string())
