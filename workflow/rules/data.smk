# Data: fetch (mirror first, then download) and verify every file, parse and cache, Table 1.

STAGE_TARGETS["data"] = ["results/tables/table1.csv", "results/tables/table1.md"]

# Fetching is I/O (compute nodes often have no internet) and Table 1 is a small table: both run
# on the submitting host under a cluster executor.
localrules:
    data_all,
    fetch_dataset_file,
    table1,


rule fetch_dataset_file:
    output:
        f"{DATA_DIR}/raw/{{dataset}}/{{filename}}",
    params:
        sha256=get_file_sha256,
    log:
        "logs/data/fetch_{dataset}_{filename}.log",
    benchmark:
        "results/benchmarks/data/fetch_{dataset}_{filename}.tsv"
    conda:
        ENV
    script:
        "../scripts/data_fetch.py"


rule parse_dataset:
    input:
        get_raw_files,
    output:
        f"{DATA_DIR}/parsed/{{dataset}}.npz",
        counts=f"{DATA_DIR}/parsed/{{dataset}}.json",
    params:
        entry=get_catalog_entry,
        raw_dir=get_raw_dir,
    log:
        "logs/data/parse_{dataset}.log",
    benchmark:
        "results/benchmarks/data/parse_{dataset}.tsv"
    resources:
        mem_mb=get_mem_mb("parse_dataset"),
        runtime=get_runtime("parse_dataset"),
    conda:
        ENV
    script:
        "../scripts/data_parse.py"


rule table1:
    input:
        get_all_parsed,
    output:
        csv=captioned("results/tables/table1.csv", "table1.rst", category="Data"),
        md="results/tables/table1.md",
    params:
        catalog=get_table1_catalog,
    log:
        "logs/data/table1.log",
    benchmark:
        "results/benchmarks/data/table1.tsv"
    conda:
        ENV
    script:
        "../scripts/data_table1.py"


rule data_all:
    input:
        STAGE_TARGETS["data"],
