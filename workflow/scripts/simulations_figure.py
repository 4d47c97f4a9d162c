"""Figures 2 and 3: the four measures against the training size, for one data model."""

from fmeasure.experiments.simulations import write_performance_figure
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
data_model = write_performance_figure(
    snakemake.input[0],
    snakemake.output.png,
    snakemake.output.pdf,  # noqa: F821
    zoom_max=snakemake.params.zoom_max,  # noqa: F821
    jaccard_empty=snakemake.params.jaccard_empty,
)  # noqa: F821
log.info("figure for %s written", data_model)
