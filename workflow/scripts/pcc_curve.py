"""Figure 5 points of one dataset and several numbers of samples: FM and GFM over several runs each."""

import pandas as pd

from fmeasure.experiments.pcc import run_curve
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
rows = pd.concat(
    [
        run_curve(snakemake.input.model, snakemake.input.data, int(n), snakemake.params.cfg)  # noqa: F821
        for n in snakemake.wildcards.n_samples.split("-")  # noqa: F821
    ],
    ignore_index=True,
)
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    rows.to_csv(tmp, index=False)
log.info("\n%s", rows.to_string())
