"""Findings of Section 7.2.3 (BR, LFP, EFP): claims by paired bootstrap over test instances, Table 5."""

from fmeasure.experiments.parametric import write_findings
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, par = snakemake.input, snakemake.params  # noqa: F821
rows = write_findings(
    inp.instances,
    inp.table5,
    snakemake.output[0],  # noqa: F821
    z=par.z,
    n_boot=par.n_boot,
    seed=par.seed,
    deviation_points=par.deviation_points,
)
log.info("%d findings written", len(rows))
