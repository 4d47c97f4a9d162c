"""The peers tables (the public systems, and our routes, against the reference), the per-dataset
summary and the figure; records of another protocol are refused."""

from fmeasure.experiments.peers import (
    check_protocol,
    read_runs,
    run_table,
    write_by_dataset,
    write_figure,
    write_table,
)
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
records, instances = read_runs(snakemake.input.records, snakemake.input.instances)  # noqa: F821
check_protocol(records, protocol=p.protocol, reference=p.reference)
table = run_table(records, instances, reference=p.reference, margin=p.margin, z=p.z)
budget = f"{p.budget['cpu_s']:g} CPU s" if p.budget.get("cpu_s") else ""
write_table(table, out.csv, out.md, reference=p.reference, margin=p.margin, z=p.z, which="peers", budget=budget)
write_table(
    table, out.ours_csv, out.ours_md, reference=p.reference, margin=p.margin, z=p.z, which="ours", budget=budget
)
write_by_dataset(table, out.by_dataset_csv, out.by_dataset_md, reference=p.reference, z=p.z)
write_figure(table, out.png, out.pdf, reference=p.reference, margin=p.margin, z=p.z)
log.info(
    "peers table: %d rows, %d timeouts, %d not run",
    len(table),
    int((table.status == "timeout").sum()),
    int(table.status.str.startswith("not run").sum()),
)
