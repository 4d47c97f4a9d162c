"""Table 4 rows of one dataset: MM, FM, GFM from samples and JM by exact search, with times."""

from fmeasure.experiments.pcc import run_table4_rows
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
rows, instances = run_table4_rows(
    snakemake.input.model,  # noqa: F821
    snakemake.input.data,  # noqa: F821
    snakemake.input.info,  # noqa: F821
    snakemake.params.cfg,  # noqa: F821
    snakemake.params.jaccard_empty,  # noqa: F821
    return_instances=True,
)
with atomic_output(snakemake.output.rows) as tmp:  # noqa: F821
    rows.to_csv(tmp, index=False)
with atomic_output(snakemake.output.instances) as tmp:  # noqa: F821
    instances.to_csv(tmp, index=False, float_format="%.6g", compression="gzip")
log.info("\n%s", rows.to_string())
