"""Fetch one raw dataset file (mirror first, then download) and verify its sha256."""

from fmeasure.datasets import fetch_file
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
spec = snakemake.params.spec  # noqa: F821
origin = fetch_file(
    snakemake.output[0],  # noqa: F821
    sha256=spec["sha256"],
    mirrors=snakemake.params.mirrors,  # noqa: F821
    subdir=snakemake.params.subdir,  # noqa: F821
    url=spec.get("url"),
    timeout=snakemake.params.timeout,  # noqa: F821
)
log.info("%s: verified sha256 %s, from %s", spec["name"], spec["sha256"], origin)
