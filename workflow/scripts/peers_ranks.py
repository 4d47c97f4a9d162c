"""The two rankings across datasets (the reference and the public systems; the reference and our
routes): Friedman, Iman-Davenport, Nemenyi, Holm against the reference, and their diagrams."""

import pandas as pd

from fmeasure.experiments.peers import run_ranks, write_cd, write_ranks
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
table = pd.read_csv(snakemake.input[0])  # noqa: F821
peers, s_peers = run_ranks(table, reference=p.reference, ranking="peers", z=p.z)
ours, s_ours = run_ranks(table, reference=p.reference, ranking="ours", z=p.z)
write_ranks(pd.concat([peers, ours], ignore_index=True), s_peers, out.csv, None, reference=p.reference)
write_ranks(peers, s_peers, None, out.md, reference=p.reference)  # the CSV holds both rankings
write_ranks(ours, s_ours, None, out.ours_md, reference=p.reference)
write_cd(peers, s_peers, out.png, out.pdf, reference=p.reference)
write_cd(ours, s_ours, out.ours_png, reference=p.reference)
for s in (s_peers, s_ours):
    log.info("ranking %s: %s", s["ranking"], s.get("reason") or f"Friedman p = {s['friedman_p']:.3g}")
