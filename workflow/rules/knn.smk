# Instance-based learning (paper Section 7.2, Tables 2 and 3): one job per dataset evaluates kNN
# with every neighbourhood size l and inference method (MM, JM, FM, GFM), timing search and
# inference in-process; one light rule per table gathers the datasets.

STAGE_TARGETS["knn"] = [
    "results/tables/table2.csv",
    "results/tables/table2.md",
    "results/tables/table3.csv",
    "results/tables/table3.md",
]

localrules:
    knn_all,
    knn_tables,


rule knn_run:
    input:
        get_parsed,
    output:
        "results/knn/{dataset}.csv",
    params:
        knn=config["knn"],
        jaccard_empty=config["metrics"]["jaccard_empty"],
    threads: config["knn"]["threads"]
    resources:
        mem_mb=config["knn"]["mem_mb"],
        runtime=config["knn"]["runtime_min"],
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
        table2=report("results/tables/table2.csv", caption="../report/knn_table2.rst", category="kNN"),
        table2_md="results/tables/table2.md",
        table3=report("results/tables/table3.csv", caption="../report/knn_table3.rst", category="kNN"),
        table3_md="results/tables/table3.md",
    params:
        captions=REPORT_CAPTIONS,
        knn=config["knn"],
        jaccard_empty=config["metrics"]["jaccard_empty"],
    log:
        "logs/knn/tables.log",
    conda:
        ENV
    script:
        "../scripts/knn_tables.py"


rule knn_all:
    input:
        STAGE_TARGETS["knn"],
