"""The capped GFM search against the exact one on EFP's P for one dataset's test set."""

import json

from fmeasure import datasets
from fmeasure.experiments.peers import run_exactness
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
row = run_exactness(ds, snakemake.params.parametric, n_jobs=snakemake.threads)  # noqa: F821
log.info("%s: capped search wrong on %d of %d test instances", ds.name, row["n_wrong"], row["n"])
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    tmp.write_text(json.dumps(row, indent=1))
