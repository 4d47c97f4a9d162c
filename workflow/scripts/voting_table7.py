"""Table 7: the voting ensemble per dataset beside the paper's JRS 2012 numbers, and the claims of Section 7.3."""

import pandas as pd

from fmeasure.experiments.voting import run_claims, run_table7, write_table7
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
cfg = snakemake.params.cfg  # noqa: F821
table = run_table7([pd.read_csv(p) for p in snakemake.input])  # noqa: F821
claims = run_claims(table)
out = snakemake.output  # noqa: F821
write_table7(
    table,
    claims,
    out.csv,
    out.md,
    out.claims_csv,
    out.claims_md,
    n_members=len(cfg["members"]),
    validation_size=cfg["validation_size"],
    refit=cfg["refit"],
)
log.info("Table 7 written: %d rows, %d claims checked", len(table), len(claims))
