"""The exactness table: the hand-built case, then every dataset's EFP P."""

import json

from fmeasure.experiments.peers import write_exactness
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
rows = [json.loads(open(p).read()) for p in snakemake.input]  # noqa: F821
log.info("%d rows", len(write_exactness(rows, snakemake.output.csv, snakemake.output.md)))  # noqa: F821
