"""One ablation setting on one dataset: the stage's own run function with the setting's overrides."""

from fmeasure.experiments.ablations import run_setting
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
inp = snakemake.input  # noqa: F821
rows = run_setting(
    snakemake.wildcards.setting,  # noqa: F821
    snakemake.params.spec,  # noqa: F821
    snakemake.params.cfg,  # noqa: F821
    inp.data,
    jaccard_empty=snakemake.params.jaccard_empty,  # noqa: F821
    model_path=inp.get("model"),
    info_path=inp.get("info"),
    n_jobs=snakemake.threads,  # noqa: F821
    br_fit=(inp.br_model, inp.br_record) if inp.get("br_model") else None,
)
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    rows.to_csv(tmp, index=False)
log.info("\n%s", rows.to_string())
