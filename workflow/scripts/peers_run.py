"""One system on one dataset in one setting with one seed: fit and predict through its adapter under
the job's budget, score per instance (or record that its environment was refused, or that it ran
over the budget), stamped with the protocol's hash and the declared reference."""

import json

from fmeasure import datasets
from fmeasure.experiments.peers import write_run
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p = snakemake.params  # noqa: F821
ds = datasets.load(snakemake.input.data)  # noqa: F821
env = json.loads(open(snakemake.input.env[0]).read()) if snakemake.input.env else None  # noqa: F821
tuning = dict(p.tuning)
log.info("%s: protocol %s (%s), reference %s, budget %s", ds.name, p.protocol, tuning, p.reference, dict(p.budget))
record = write_run(
    ds,
    snakemake.wildcards.peer,  # noqa: F821
    snakemake.wildcards.setting,  # noqa: F821
    grid=p.grid,
    params=p.fixed,
    cv=tuning["cv"],
    seed=int(snakemake.wildcards.seed),  # noqa: F821
    threads=snakemake.threads,  # noqa: F821
    python=p.python,
    adapter=p.adapter,
    env=env,
    record_path=snakemake.output.record,  # noqa: F821
    instances_path=snakemake.output.instances,  # noqa: F821
    protocol={"hash": p.protocol, "reference": p.reference, "tuning": tuning},
    budget=dict(p.budget),
)
if record["status"] == "ran":
    log.info(
        "%s %s seed %s on %s: F %.2f, fit %.1f s, %.1f CPU s in all",
        record["method"],
        record["setting"],
        record["seed"],
        ds.name,
        record["f"],
        record["fit_s"],
        record["cpu_s"],
    )
else:
    log.warning("%s on %s: %s (%s)", record["method"], ds.name, record["status"], record["reason"])
