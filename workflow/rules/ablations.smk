# Ablations: every cell of Tables 4 and 5 more than `ablations.threshold` points from the paper,
# rerun under the alternative readings configured in `ablations.settings`. One job per
# (setting, dataset) reruns the stage's own run function with the setting's overrides (PCC
# settings that change only inference reuse the stage's fitted chain); one local job finds the
# deviations in this run's tables and writes the ablation table, its summary and the findings.
# All logic lives in fmeasure.experiments.ablations.
from fmeasure.experiments.ablations import STAGE_TABLES, needs_refit, setting_config, setting_datasets

STAGE_TARGETS["ablations"] = [
    "results/tables/ablations.csv",
    "results/tables/ablations.md",
    "results/tables/ablations_summary.md",
    "results/findings/ablations.csv",
]


def get_ablation_settings(wildcards=None):
    """The configured settings whose stage is enabled (name -> spec)."""
    specs = config["ablations"]["settings"]
    return {name: spec for name, spec in specs.items() if spec["stage"] in STAGES}


def get_ablation_runs(wildcards=None):
    """One result file per (setting, dataset) to run."""
    return [f"results/ablations/{name}/{d}.csv" for name, spec in get_ablation_settings().items()
            for d in setting_datasets(spec, DATASETS)]


def get_ablation_tables(wildcards=None):
    """This run's Table 4 and/or Table 5, for the stages enabled."""
    return {STAGE_TABLES[s]: f"results/tables/{STAGE_TABLES[s]}.csv" for s in STAGE_TABLES if s in STAGES}


def get_ablation_inputs(wildcards):
    """The parsed dataset, plus the stage's fitted chain for PCC settings that need no refit."""
    spec = config["ablations"]["settings"][wildcards.setting]
    inputs = {"data": get_parsed(wildcards)}
    if not needs_refit(spec):
        inputs["model"] = f"results/pcc/{wildcards.dataset}/chain.pkl"
        inputs["info"] = f"results/pcc/{wildcards.dataset}/fit.json"
    return inputs


def get_ablation_spec(wildcards):
    return config["ablations"]["settings"][wildcards.setting]


def get_ablation_config(wildcards):
    """The stage config block with the setting's overrides applied."""
    return setting_config(config, wildcards.setting)


wildcard_constraints:
    setting="[A-Za-z0-9_]+",


localrules:
    ablations_all,
    ablations_table,


rule ablations_run:
    input:
        unpack(get_ablation_inputs),
    output:
        "results/ablations/{setting}/{dataset}.csv",
    params:
        spec=get_ablation_spec,
        cfg=get_ablation_config,
        jaccard_empty=config["metrics"]["jaccard_empty"],
    log:
        "logs/ablations/{setting}_{dataset}.log",
    benchmark:
        "results/benchmarks/ablations/{setting}_{dataset}.tsv"
    threads: config["ablations"]["threads"]
    resources:
        mem_mb=config["ablations"]["mem_mb"],
        runtime=config["ablations"]["runtime_min"],
    conda:
        ENV
    script:
        "../scripts/ablations_run.py"


rule ablations_table:
    input:
        unpack(get_ablation_tables),
        runs=get_ablation_runs(),
    output:
        csv=report("results/tables/ablations.csv", caption="../report/ablations.rst", category="Ablations"),
        md="results/tables/ablations.md",
        summary="results/tables/ablations_summary.md",
        findings="results/findings/ablations.csv",
    params:
        settings=get_ablation_settings(),
        threshold=config["ablations"]["threshold"],
        tables=list(get_ablation_tables()),
    log:
        "logs/ablations/table.log",
    conda:
        ENV
    script:
        "../scripts/ablations_table.py"


rule ablations_all:
    input:
        STAGE_TARGETS["ablations"],
