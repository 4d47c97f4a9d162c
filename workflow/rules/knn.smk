# Instance-based learning (paper Section 7.2, Tables 2 and 3): one job per dataset evaluates kNN
# with every neighbourhood size l and inference method (MM, JM, FM, GFM), timing search and
# inference in-process; one light rule per table gathers the datasets.

STAGE_TARGETS["knn"] = [
    "results/tables/table2.csv",
    "results/tables/table2.md",
    "results/tables/table3.csv",
    "results/tables/table3.md",
    "results/findings/knn.csv",
]

localrules:
    knn_all,
    knn_tables,
    knn_findings,


rule knn_run:
    input:
        get_parsed,
    output:
        table="results/knn/{dataset}.csv",
        instances="results/knn/{dataset}_instances.csv.gz",
    params:
        knn=stage_config("knn"),
        jaccard_empty=config["metrics"]["jaccard_empty"],
    threads: get_threads("knn_run")
    resources:
        mem_mb=get_mem_mb("knn_run"),
        runtime=get_runtime("knn_run"),
    log:
        "logs/knn/run_{dataset}.log",
    benchmark:
        "results/benchmarks/knn/run_{dataset}.tsv"
    conda:
        ENV
    script:
        "../scripts/knn_run.py"


rule knn_tables:
    input:
        expand("results/knn/{dataset}.csv", dataset=DATASETS),
    output:
        table2=captioned("results/tables/table2.csv", "knn_table2.rst", category="kNN"),
        table2_md="results/tables/table2.md",
        table3=captioned("results/tables/table3.csv", "knn_table3.rst", category="kNN"),
        table3_md="results/tables/table3.md",
    params:
        captions=REPORT_CAPTIONS,
        knn=config["knn"],
        jaccard_empty=config["metrics"]["jaccard_empty"],
    log:
        "logs/knn/tables.log",
    benchmark:
        "results/benchmarks/knn/tables.tsv"
    conda:
        ENV
    script:
        "../scripts/knn_tables.py"


rule knn_findings:
    input:
        instances=expand("results/knn/{dataset}_instances.csv.gz", dataset=DATASETS),
        table2="results/tables/table2.csv",
        table3="results/tables/table3.csv",
    output:
        "results/findings/knn.csv",
    params:
        z=config["report"]["z"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
        deviation_points=config["report"]["deviation_points"],
    log:
        "logs/knn/findings.log",
    benchmark:
        "results/benchmarks/knn/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/knn_findings.py"


rule knn_all:
    input:
        STAGE_TARGETS["knn"],
