"""Table 6 from the stages' outputs (no refit), beside the paper's numbers, and its claims checked."""

from fmeasure.experiments.structured import run_table6, table6_claims, write_claims, write_table6
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
table = run_table6(
    list(inp.rml),
    table2=inp.table2,
    table3=inp.table3,
    knn_instances=list(inp.knn_instances),
    table4=inp.table4,
    figure5=inp.figure5,
    table5=inp.table5,
    extra=list(inp.extra),
)
write_table6(table, out.csv, out.md)
write_claims(table6_claims(table), out.claims_csv, out.claims_md)
log.info("Table 6 written: %d rows", len(table))
