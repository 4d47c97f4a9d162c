"""Summaries behind Figures 2 and 3, the claims table and the regret table of Section 6."""

from fmeasure.io import script_logging
from fmeasure.simulation import aggregate, claims_table, regret_table
from fmeasure.tables import write_table

log = script_logging(snakemake)  # noqa: F821
inp, out, par = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
summary, reference = aggregate(list(inp.scores), list(inp.reference))
for kind, path in zip(par.kinds, out.figures):
    write_table(summary[summary.data_model == kind], path)
claims = claims_table(summary, tolerance=par.tolerance)
write_table(claims, out.claims_csv, out.claims_md,
            caption=f"Section 6 conclusions checked on this run (tie tolerance {par.tolerance:g}).")
write_table(regret_table(summary), out.regret_csv, out.regret_md,
            caption="Section 6: mean regret (± s.e.) vs the exact Bayes-optimal prediction of each model.")
log.info("%d of %d claims hold", int(claims.holds.sum()), len(claims))
