# fmeasure: regenerate Waegeman et al., "On the Bayes-optimality of F-measure Maximizers" (JMLR 2014).
# A table of contents only: configuration, validation, rule files, and the final target.
# Run:  snakemake --cores 8          one stage:  snakemake --cores 8 knn_all

from snakemake.utils import min_version

try:
    from fmeasure.experiments.config import check_config, exit_on_config_error
except ImportError as _exc:
    raise ImportError(
        f"the fmeasure package is not importable ({_exc}): run `pip install -e '.[pipeline]'` in the repository first"
    ) from None

min_version("8.0")


# Every default, read first wherever the working directory is (--directory); files given with
# --configfile and values given with --config are merged on top of it.
configfile: f"{workflow.basedir}/config/config.yaml"


# Text from --config read as the schema's types, validated (one line naming the key, else exit 1),
# cross-checked and completed with the schema's defaults (fmeasure.experiments.config.check_config).
config.update(exit_on_config_error(check_config, config, f"{workflow.basedir}/config/schema.yaml"))


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/theory.smk"
include: "workflow/rules/simulations.smk"
include: "workflow/rules/knn.smk"
include: "workflow/rules/pcc.smk"
include: "workflow/rules/parametric.smk"
include: "workflow/rules/voting.smk"
include: "workflow/rules/trees.smk"
include: "workflow/rules/structured.smk"
include: "workflow/rules/ablations.smk"
include: "workflow/rules/foptimal.smk"
include: "workflow/rules/peers.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/scaling.smk"


onstart:
    # A fresh install: compile the numba kernels here, once, before parallel jobs each compile them
    # (concurrent first compilations can fail in numba's cache; fmeasure.learners.warmup).
    from fmeasure.learners.warmup import compile_kernels, kernels_compiled

    if not kernels_compiled():
        logger.info("Compiling the numba kernels once (a fresh install; about half a minute of CPU).")
        compile_kernels()


rule all:
    input:
        get_all_targets(),
    default_target: True
