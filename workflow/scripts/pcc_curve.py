"""Figure 5 points of one dataset and one number of samples: FM and GFM over several runs."""

from fmeasure.experiments.pcc import run_curve
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
rows = run_curve(
    snakemake.input.model,  # noqa: F821
    snakemake.input.data,  # noqa: F821
    int(snakemake.wildcards.n_samples),  # noqa: F821
    snakemake.params.cfg,  # noqa: F821
)
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    rows.to_csv(tmp, index=False)
log.info("\n%s", rows.to_string())
