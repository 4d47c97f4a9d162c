"""Fit RML (the F-measure structured SVM, C tuned by CV) on one dataset; score and time it on the test set."""

from fmeasure import datasets
from fmeasure.experiments.structured import run_rml
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
ds = datasets.load(snakemake.input[0])  # noqa: F821
row, inst = run_rml(ds, snakemake.params.cfg, n_jobs=snakemake.threads, return_instances=True)  # noqa: F821
with atomic_output(snakemake.output.instances, suffix=".csv.gz") as tmp:  # noqa: F821
    inst.to_csv(tmp, index=False)
with atomic_output(snakemake.output.row) as tmp:  # noqa: F821
    row.to_csv(tmp, index=False)
log.info("wrote %s", snakemake.output.row)  # noqa: F821
