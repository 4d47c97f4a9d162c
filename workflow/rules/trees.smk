# F-measure decision trees and their bagging (Section 7.1.2; beyond the paper, which reports no
# numbers): one job per (dataset, model family) fits and scores it with in-process times; one
# light rule gathers every dataset into ftrees.{csv,md}.

STAGE_TARGETS["trees"] = [
    "results/findings/trees.csv",
    "results/tables/ftrees.csv",
    "results/tables/ftrees.md",
]

localrules:
    trees_findings,
    trees_all,
    trees_table,


rule trees_run:
    input:
        get_parsed,
    output:
        table="results/trees/{dataset}/{model}.csv",
        instances="results/trees/{dataset}/{model}_instances.csv.gz",
    params:
        trees=stage_config("trees"),
        jaccard_empty=config["metrics"]["jaccard_empty"],
    wildcard_constraints:
        model=TREE_MODEL,
    threads: get_threads("trees_run")
    resources:
        mem_mb=get_mem_mb("trees_run"),
        runtime=get_runtime("trees_run"),
    log:
        "logs/trees/run_{dataset}/{model}.log",
    benchmark:
        "results/benchmarks/trees/run_{dataset}/{model}.tsv"
    conda:
        ENV
    script:
        "../scripts/trees_run.py"


rule trees_table:
    input:
        expand("results/trees/{dataset}/{model}.csv", dataset=DATASETS, model=config["trees"]["models"]),
    output:
        csv=captioned("results/tables/ftrees.csv", "trees_table.rst", "Trees (beyond the paper)"),
        md="results/tables/ftrees.md",
    params:
        captions=REPORT_CAPTIONS,
        trees=config["trees"],
        jaccard_empty=config["metrics"]["jaccard_empty"],
    log:
        "logs/trees/table.log",
    benchmark:
        "results/benchmarks/trees/table.tsv"
    conda:
        ENV
    script:
        "../scripts/trees_table.py"


rule trees_all:
    input:
        STAGE_TARGETS["trees"],


rule trees_findings:
    input:
        instances=expand(
            "results/trees/{dataset}/{model}_instances.csv.gz", dataset=DATASETS, model=config["trees"]["models"]
        ),
    output:
        "results/findings/trees.csv",
    params:
        z=config["report"]["z"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
    log:
        "logs/trees/findings.log",
    benchmark:
        "results/benchmarks/trees/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/trees_findings.py"
