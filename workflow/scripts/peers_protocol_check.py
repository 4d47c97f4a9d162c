"""The check of the large datasets' cheaper protocol: the full protocol's datasets rerun under it, and
the ranks and verdicts compared with the full protocol's."""

import pandas as pd

from fmeasure.experiments.peers import check_protocol, read_runs, run_table
from fmeasure.experiments.peers.check import protocol_check, write_protocol_check
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
records, instances = read_runs(snakemake.input.records, snakemake.input.instances)  # noqa: F821
check_protocol(records, protocol=p.protocol, reference=p.reference)
large = run_table(records, instances, reference=p.reference, margin=p.margin, z=p.z)
rows, summary = protocol_check(pd.read_csv(snakemake.input.table), large, reference=p.reference, z=p.z)  # noqa: F821
write_protocol_check(rows, summary, out.csv, out.md)
for ranking in ("peers", "ours"):
    if ranking in summary:
        log.info("%s: keeps the ranks: %s", ranking, summary[ranking]["keeps_ranks"])
