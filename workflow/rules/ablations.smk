# Ablations: every cell of Tables 4 and 5 more than `report.deviation_points` points from the paper,
# rerun under the alternative readings configured in `ablations.settings`. One job per
# (setting, dataset) reruns the stage's own run function with the setting's overrides (PCC
# settings that change only inference reuse the stage's fitted chain); one local job finds the
# deviations in this run's tables and writes the ablation table, its summary and the findings.
# All logic lives in fmeasure.experiments.ablations.
STAGE_TARGETS["ablations"] = [
    "results/tables/ablations.csv",
    "results/tables/ablations.md",
    "results/tables/ablations_summary.md",
    "results/findings/ablations.csv",
]


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
    threads: get_threads("ablations_run")
    resources:
        mem_mb=get_mem_mb("ablations_run"),
        runtime=get_runtime("ablations_run"),
    conda:
        ENV
    script:
        "../scripts/ablations_run.py"


rule ablations_table:
    input:
        unpack(get_ablation_tables),
        runs=get_ablation_runs(),
    output:
        csv=captioned("results/tables/ablations.csv", "ablations.rst", "Ablations"),
        md="results/tables/ablations.md",
        summary="results/tables/ablations_summary.md",
        findings="results/findings/ablations.csv",
    params:
        settings=get_ablation_settings(),
        threshold=config["report"]["deviation_points"],
        tables=list(get_ablation_tables()),
    log:
        "logs/ablations/table.log",
    benchmark:
        "results/benchmarks/ablations/table.tsv"
    conda:
        ENV
    script:
        "../scripts/ablations_table.py"


rule ablations_all:
    input:
        STAGE_TARGETS["ablations"],
