"""Figure 5 points of one dataset and one number of samples: FM and GFM over several runs."""

from fmeasure.io import atomic_output, script_logging
from fmeasure.pcc_outputs import curve_rows

log = script_logging(snakemake)  # noqa: F821
rows = curve_rows(
    snakemake.input.model,  # noqa: F821
    snakemake.input.data,  # noqa: F821
    int(snakemake.wildcards.n_samples),  # noqa: F821
    snakemake.params.cfg,  # noqa: F821
)
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    rows.to_csv(tmp, index=False)
log.info("\n%s", rows.to_string())
