# Section 7.2.4 / Table 6: RML, a linear structured SVM trained on the loss 1 - F, fitted by us
# (one job per dataset: C tuned by CV, folds in parallel, then a refit), and Table 6 gathered from
# the kNN, PCC and parametric stages' tables. All logic lives in fmeasure.learners.ssvm and
# fmeasure.experiments.structured.

STAGE_TARGETS["structured"] = [
    "results/findings/structured.csv",
    "results/tables/table6.csv",
    "results/tables/table6.md",
    "results/tables/table6_claims.csv",
    "results/tables/table6_claims.md",
]


localrules:
    structured_findings,
    structured_all,
    structured_table6,


rule structured_rml:
    input:
        get_parsed,
    output:
        row="results/structured/{dataset}/rml.csv",
        instances="results/structured/{dataset}/rml_instances.csv.gz",
    params:
        cfg=stage_config("structured"),
    threads: get_threads("structured_rml")
    # The longest jobs of a run start first, so that none is left running alone at its end.
    priority: 10
    resources:
        mem_mb=get_mem_mb("structured_rml"),
        runtime=get_runtime("structured_rml"),
    log:
        "logs/structured/rml_{dataset}.log",
    benchmark:
        "results/benchmarks/structured/rml_{dataset}.tsv"
    conda:
        ENV
    script:
        "../scripts/structured_rml.py"


rule structured_table6:
    input:
        rml=get_structured_rml_rows,
        table2="results/tables/table2.csv",
        table3="results/tables/table3.csv",
        knn_instances=expand("results/knn/{dataset}_instances.csv.gz", dataset=DATASETS),
        table4="results/tables/table4.csv",
        figure5="results/pcc/figure5.csv",
        table5="results/tables/table5.csv",
        extra=get_structured_extra_rows(),
    output:
        csv=captioned("results/tables/table6.csv", "structured_table6.rst", "Structured"),
        md="results/tables/table6.md",
        claims_csv="results/tables/table6_claims.csv",
        claims_md="results/tables/table6_claims.md",
    log:
        "logs/structured/table6.log",
    benchmark:
        "results/benchmarks/structured/table6.tsv"
    conda:
        ENV
    script:
        "../scripts/structured_table6.py"


rule structured_all:
    input:
        STAGE_TARGETS["structured"],


rule structured_findings:
    input:
        table6="results/tables/table6.csv",
        knn=expand("results/knn/{dataset}_instances.csv.gz", dataset=DATASETS),
        pcc=expand("results/pcc/{dataset}/table4_instances.csv.gz", dataset=DATASETS),
        parametric=get_parametric_instances,
        rml=expand("results/structured/{dataset}/rml_instances.csv.gz", dataset=DATASETS),
    output:
        "results/findings/structured.csv",
    params:
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
        deviation_points=config["report"]["deviation_points"],
    log:
        "logs/structured/findings.log",
    benchmark:
        "results/benchmarks/structured/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/structured_findings.py"
