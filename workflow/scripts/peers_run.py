"""One peer on one dataset in one setting: fit and predict through its adapter, score per instance."""

from fmeasure import datasets
from fmeasure.experiments.peers import write_run
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
p = snakemake.params  # noqa: F821
ds = datasets.load(snakemake.input.data)  # noqa: F821
record = write_run(
    ds,
    snakemake.wildcards.peer,  # noqa: F821
    snakemake.wildcards.setting,  # noqa: F821
    grid=p.grid,
    cv=p.cv,
    seed=p.seed,
    python=p.python,
    adapter=p.adapter,
    record_path=snakemake.output.record,  # noqa: F821
    instances_path=snakemake.output.instances,  # noqa: F821
    log_to=snakemake.log[0] + ".adapter",  # noqa: F821
)
log.info("%s %s on %s: F %.2f, fit %.1f s", record["method"], record["setting"], ds.name, record["f"], record["fit_s"])
