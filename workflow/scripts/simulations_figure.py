"""Figure 2 (independent labels) or 3 (chain-dependent labels) of Section 6."""

import pandas as pd

from fmeasure.figures import save_figure
from fmeasure.io import script_logging
from fmeasure.simulation import plot_performance

log = script_logging(snakemake)  # noqa: F821
summary = pd.read_csv(snakemake.input[0])  # noqa: F821
kind = summary.data_model.iloc[0]
fig = plot_performance(summary, zoom_max=snakemake.params.zoom_max,  # noqa: F821
                       title=f"{kind} labels", jaccard_empty=snakemake.params.jaccard_empty)  # noqa: F821
save_figure(fig, snakemake.output.png, snakemake.output.pdf)  # noqa: F821
log.info("figure for %s written", kind)
