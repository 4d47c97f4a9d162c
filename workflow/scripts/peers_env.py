"""Build (or reuse) one peer's own virtual environment from its pinned requirements, with a Python
it supports; without one, record the refusal (the peer's rows are then marked not run)."""

import json

from fmeasure.experiments.peers import EnvRefused, build_env
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
peer = snakemake.wildcards.peer  # noqa: F821
try:
    record = build_env(
        snakemake.input[0],  # noqa: F821
        snakemake.params.prefix,  # noqa: F821
        python_versions=snakemake.params.python,  # noqa: F821
        peer=peer,
        log_file=snakemake.log[0] + ".pip",  # noqa: F821
    )
    log.info(
        "%s: %s with Python %s in %.1f s",
        peer,
        "reused" if record["reused"] else "built",
        record["python"],
        record["build_s"],
    )
except EnvRefused as exc:
    log.warning("%s", exc)
    record = {"status": "refused", "reason": str(exc), "python_needs": [str(v) for v in snakemake.params.python]}  # noqa: F821
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    tmp.write_text(json.dumps({**record, "prefix": str(snakemake.params.prefix)}, indent=1))  # noqa: F821
