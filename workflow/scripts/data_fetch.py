"""Fetch one raw dataset file (mirrors first, then download) and verify its sha256.

Only the sha256 is a param of the rule: mirrors, URL and timeout are read here at run time, so
adding or changing mirrors reruns nothing whose content is unchanged.
"""

from fmeasure.datasets import fetch_file
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
config, name = snakemake.config, snakemake.wildcards.dataset  # noqa: F821
entry = config["catalog"][name]
spec = next(s for s in entry["files"].values() if s["name"] == snakemake.wildcards.filename)  # noqa: F821
origin = fetch_file(
    snakemake.output[0],  # noqa: F821
    sha256=snakemake.params.sha256,  # noqa: F821
    mirrors=config["data"]["mirrors"],
    subdir=entry.get("mirror_dir", name),
    url=spec.get("url"),
    timeout=config["data"]["download_timeout"],
    size=spec.get("bytes"),
)
log.info("%s: verified sha256 %s, from %s", spec["name"], spec["sha256"], origin)
