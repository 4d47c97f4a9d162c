"""Build (or reuse) one peer's own virtual environment from its pinned requirements."""

import json

from fmeasure.experiments.peers import build_env
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
record = build_env(snakemake.input[0], snakemake.params.prefix, log_file=snakemake.log[0] + ".pip")  # noqa: F821
log.info("%s: %s in %.1f s", snakemake.wildcards.peer, "reused" if record["reused"] else "built", record["build_s"])  # noqa: F821
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    tmp.write_text(json.dumps({**record, "prefix": str(snakemake.params.prefix)}, indent=1))  # noqa: F821
