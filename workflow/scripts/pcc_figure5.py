"""Figure 5: F-measure and inference time of FM and GFM vs the number of samples."""

from fmeasure.experiments.pcc import write_figure5
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
agg = write_figure5(
    snakemake.input.curves,  # noqa: F821
    snakemake.input.exact,  # noqa: F821
    snakemake.output.csv,  # noqa: F821
    snakemake.output.png,  # noqa: F821
    snakemake.output.pdf,  # noqa: F821
)
log.info("Figure 5: %d points", len(agg))
