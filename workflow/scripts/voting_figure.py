"""Figure: F of the vote against the number of members, per dataset, thresholds annotated."""

import pandas as pd

from fmeasure.experiments.voting import write_figure
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
curve = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True)  # noqa: F821
with atomic_output(snakemake.output.csv) as tmp:  # noqa: F821
    curve.to_csv(tmp, index=False)
write_figure(curve, snakemake.output.png, snakemake.output.pdf)  # noqa: F821
log.info("figure written from %d points", len(curve))
