# fmeasure: regenerate Waegeman et al., "On the Bayes-optimality of F-measure Maximizers" (JMLR 2014).
# A table of contents only: configuration, validation, rule files, and the final target.
# Run:  snakemake --cores 8          one stage:  snakemake --cores 8 knn_all
import sys

from snakemake.utils import min_version, validate

try:
    from fmeasure.experiments.config import apply_aliases
except ImportError as _exc:
    raise ImportError(
        f"the fmeasure package is not importable ({_exc}): run `pip install -e .` in the repository first"
    ) from None

min_version("8.0")


configfile: "config/config.yaml"


apply_aliases(config, warn=lambda message: print(f"WARNING: {message}", file=sys.stderr))
validate(config, "config/schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/theory.smk"
include: "workflow/rules/simulations.smk"
include: "workflow/rules/knn.smk"
include: "workflow/rules/pcc.smk"
include: "workflow/rules/parametric.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        get_all_targets(),
    default_target: True
