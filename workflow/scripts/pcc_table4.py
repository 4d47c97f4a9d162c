"""Table 4: gather the per-dataset rows, the paper's numbers beside ours, best in bold."""

from fmeasure.experiments.pcc import write_table4
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
table = write_table4(
    snakemake.input,  # noqa: F821
    snakemake.output.csv,  # noqa: F821
    snakemake.output.md,  # noqa: F821
    jaccard_empty=snakemake.params.jaccard_empty,  # noqa: F821
    cv=snakemake.params.cv,  # noqa: F821
)
log.info("Table 4: %d rows", len(table))
