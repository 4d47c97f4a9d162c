"""The peers table, the per-dataset summary and the figure: every system against the declared reference."""

from fmeasure.experiments.peers import read_runs, run_table, write_by_dataset, write_figure, write_table
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
records, instances = read_runs(snakemake.input.records, snakemake.input.instances)  # noqa: F821
table = run_table(records, instances, reference=p.reference, z=p.z, n_boot=p.n_boot, seed=p.seed)
write_table(table, out.csv, out.md, reference=p.reference, seeds=p.seeds, z=p.z)
write_by_dataset(table, out.by_dataset_csv, out.by_dataset_md, reference=p.reference, z=p.z)
write_figure(table, out.png, out.pdf, reference=p.reference, z=p.z)
log.info("peers table: %d rows, %d not run", len(table), int((table.status != "ran").sum()))
