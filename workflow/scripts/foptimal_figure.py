"""Figure of the foptimal stage: FOptimalClassifier's F gain over each model's predict."""

from fmeasure.experiments.foptimal import write_foptimal_figure
from fmeasure.io import script_logging

log = script_logging(snakemake)  # noqa: F821
out = snakemake.output  # noqa: F821
write_foptimal_figure(snakemake.input[0], out.png, out.pdf, z=snakemake.params.z)  # noqa: F821
log.info("wrote %s", out.png)
