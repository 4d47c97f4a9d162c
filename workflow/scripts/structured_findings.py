"""Findings of the structured stage: the paper's claims checked on table6 (SE: paired bootstrap over test instances)."""

from fmeasure.experiments.findings import write_findings
from fmeasure.experiments.structured import run_findings, table6_instances
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, par = snakemake.input, snakemake.params  # noqa: F821
inst = table6_instances(inp.table6, knn=inp.knn, pcc=inp.pcc, parametric=inp.parametric, rml=inp.rml)
found = run_findings(inp.table6, inst, deviation_points=par.deviation_points, n_boot=par.n_boot, seed=par.seed)
rows = write_findings(found, snakemake.output[0])  # noqa: F821
log.info("%d findings written", len(rows))
