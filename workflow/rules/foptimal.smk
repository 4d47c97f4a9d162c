# FOptimalClassifier on five scikit-learn models (beyond the paper): one job per (dataset, model)
# fits the model once and predicts the test set with its own predict and with FOptimalClassifier;
# light rules gather the table, the figure and the findings.

STAGE_TARGETS["foptimal"] = [
    "results/findings/foptimal.csv",
    "results/tables/foptimal.csv",
    "results/tables/foptimal.md",
    "results/figures/foptimal.png",
    "results/figures/foptimal.pdf",
]

localrules:
    foptimal_all,
    foptimal_table,
    foptimal_figure,
    foptimal_findings,


rule foptimal_run:
    input:
        get_parsed,
    output:
        rows="results/foptimal/{dataset}/{model}.csv",
        instances="results/foptimal/{dataset}/{model}_instances.csv.gz",
    params:
        cfg=stage_config("foptimal"),
        jaccard_empty=config["metrics"]["jaccard_empty"],
    wildcard_constraints:
        model=FOPTIMAL_MODEL,
    threads: get_threads("foptimal_run")
    resources:
        mem_mb=get_mem_mb("foptimal_run"),
        runtime=get_runtime("foptimal_run"),
    log:
        "logs/foptimal/run_{dataset}/{model}.log",
    benchmark:
        "results/benchmarks/foptimal/run_{dataset}/{model}.tsv"
    conda:
        ENV
    script:
        "../scripts/foptimal_run.py"


rule foptimal_table:
    input:
        rows=expand("results/foptimal/{dataset}/{model}.csv", dataset=DATASETS, model=config["foptimal"]["models"]),
        instances=expand(
            "results/foptimal/{dataset}/{model}_instances.csv.gz", dataset=DATASETS, model=config["foptimal"]["models"]
        ),
    output:
        csv="results/tables/foptimal.csv",
        md="results/tables/foptimal.md",
    params:
        captions=REPORT_CAPTIONS,
        cfg=config["foptimal"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
    log:
        "logs/foptimal/table.log",
    benchmark:
        "results/benchmarks/foptimal/table.tsv"
    conda:
        ENV
    script:
        "../scripts/foptimal_table.py"


rule foptimal_figure:
    input:
        "results/tables/foptimal.csv",
    output:
        png=captioned("results/figures/foptimal.png", "foptimal_figure.rst", "FOptimalClassifier (beyond the paper)"),
        pdf="results/figures/foptimal.pdf",
    params:
        z=config["report"]["z"],
    log:
        "logs/foptimal/figure.log",
    benchmark:
        "results/benchmarks/foptimal/figure.tsv"
    conda:
        ENV
    script:
        "../scripts/foptimal_figure.py"


rule foptimal_findings:
    input:
        "results/tables/foptimal.csv",
    output:
        "results/findings/foptimal.csv",
    params:
        z=config["report"]["z"],
    log:
        "logs/foptimal/findings.log",
    benchmark:
        "results/benchmarks/foptimal/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/foptimal_findings.py"


rule foptimal_all:
    input:
        STAGE_TARGETS["foptimal"],
