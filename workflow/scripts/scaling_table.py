"""The scaling table and its log-log figure from every cell's record."""

import json
from pathlib import Path

from fmeasure.experiments.scaling import write_scaling
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
records = [json.loads(Path(p).read_text()) for p in snakemake.input]  # noqa: F821
out = snakemake.output  # noqa: F821
write_scaling(records, snakemake.params.cfg, out.csv, out.md, out.png)  # noqa: F821
log.info("scaling table: %d cells", len(records))
