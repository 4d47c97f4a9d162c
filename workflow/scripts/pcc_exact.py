"""The exact F-maximizer of the fitted chain's distribution (m <= exact_max_labels): Figure 5's reference."""

from fmeasure.experiments.pcc import run_exact
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
rows = run_exact(snakemake.input.model, snakemake.input.data, snakemake.params.cfg)  # noqa: F821
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    rows.to_csv(tmp, index=False)
log.info("\n%s", rows.to_string() if len(rows) else "no exact reference (too many labels)")
