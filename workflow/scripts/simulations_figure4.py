"""Figure 4: estimation and inference time of MM, JM, FM and GFM against the number of labels."""

from fmeasure.experiments.simulations import write_figure4
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
write_figure4(snakemake.input[0], snakemake.output.csv, snakemake.output.png, snakemake.output.pdf)  # noqa: F821
log.info("figure 4 written")
