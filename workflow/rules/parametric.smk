# Parametric plug-in models of Section 7.1.4 / Table 5: BR, LFP and EFP, all built from logistic
# regressions tuned per model by CV. One fit+predict job per (dataset, learner), then the table.
# All logic lives in fmeasure.learners.parametric and fmeasure.experiments.parametric.

STAGE_TARGETS["parametric"] = ["results/tables/table5.csv", "results/tables/table5.md"]


wildcard_constraints:
    learner="BR|LFP|EFP",


localrules:
    parametric_all,
    parametric_table5,


rule parametric_fit_predict:
    input:
        get_parsed,
    output:
        "results/parametric/{dataset}/{learner}.json",
    params:
        cfg=config["parametric"],
    threads: config["parametric"]["threads"]
    resources:
        mem_mb=config["parametric"]["mem_mb"],
        runtime=config["parametric"]["runtime_min"],
    log:
        "logs/parametric/{dataset}_{learner}.log",
    benchmark:
        "results/benchmarks/parametric/{dataset}_{learner}.tsv"
    conda:
        ENV
    script:
        "../scripts/parametric_fit_predict.py"


rule parametric_table5:
    input:
        get_parametric_records,
    output:
        csv=report("results/tables/table5.csv", caption="../report/parametric_table5.rst", category="Parametric"),
        md="results/tables/table5.md",
    params:
        cfg=config["parametric"],
    log:
        "logs/parametric/table5.log",
    conda:
        ENV
    script:
        "../scripts/parametric_table5.py"


rule parametric_all:
    input:
        STAGE_TARGETS["parametric"],
