"""Figure 4 of Section 6: running times against the number of labels, and its CSV."""

import pandas as pd

from fmeasure.figures import save_figure
from fmeasure.io import script_logging
from fmeasure.simulation import plot_times, summarize_times
from fmeasure.tables import write_table

log = script_logging(snakemake)  # noqa: F821
summary = summarize_times(pd.read_csv(snakemake.input[0]))  # noqa: F821
write_table(summary, snakemake.output.csv)  # noqa: F821
save_figure(plot_times(summary), snakemake.output.png, snakemake.output.pdf)  # noqa: F821
log.info("figure 4 written")
