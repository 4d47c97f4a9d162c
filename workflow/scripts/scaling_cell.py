"""One (learner, n, m) cell of the scaling benchmark: fit and predict under a time limit."""

import json

from fmeasure.experiments.scaling import run_cell
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
w = snakemake.wildcards  # noqa: F821
row = run_cell(w.learner, int(w.n), int(w.m), snakemake.params.cfg, n_jobs=snakemake.threads)  # noqa: F821
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    tmp.write_text(json.dumps(row) + "\n")
log.info("%s", row)
