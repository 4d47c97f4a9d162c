"""Findings of the peers stage: the declared reference against each public F-maximizer, per dataset
(non-inferiority) and across datasets (ranks)."""

import pandas as pd

from fmeasure.experiments.peers import run_findings, write_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
rows = run_findings(
    pd.read_csv(snakemake.input.table),  # noqa: F821
    pd.read_csv(snakemake.input.ranks),  # noqa: F821
    reference=snakemake.params.reference,  # noqa: F821
    margin=snakemake.params.margin,  # noqa: F821
)
log.info("%d findings written", len(write_findings(rows, snakemake.output[0])))  # noqa: F821
