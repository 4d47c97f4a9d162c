"""Findings of the peers stage: the paper's best method and our best route against each peer."""

import pandas as pd

from fmeasure.experiments.peers import run_findings, write_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p = snakemake.params  # noqa: F821
rows = run_findings(
    pd.read_csv(snakemake.input.table),  # noqa: F821
    snakemake.input.instances,  # noqa: F821
    snakemake.input.ours,  # noqa: F821
    set(p.paper_methods),
    n_boot=p.n_boot,
    seed=p.seed,
)
log.info("%d findings written", len(write_findings(rows, snakemake.output[0])))  # noqa: F821
