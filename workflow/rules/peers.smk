# Public F-maximizers beside ours (beyond the paper): each peer's environment is built once
# (peers_env), one job per (dataset, system, setting, seed) fits and predicts through the system's
# adapter, and light rules gather the table, the ranks across datasets, the figures and the
# findings. Its own target: snakemake --cores 2 peers_all

STAGE_TARGETS["peers"] = [
    "results/tables/peers_by_dataset.csv",
    "results/tables/peers_by_dataset.md",
    "results/figures/peers_cd.png",
    "results/figures/peers_cd.pdf",
    "results/tables/peers_ranks.csv",
    "results/tables/peers_ranks.md",
    "results/figures/peers.png",
    "results/figures/peers.pdf",
    "results/tables/peers.csv",
    "results/tables/peers.md",
    "results/findings/peers.csv",
    "results/tables/peers_exactness.csv",
    "results/tables/peers_exactness.md",
]

localrules:
    peers_exactness_table,
    peers_table,
    peers_ranks,
    peers_findings,
    peers_all,


rule peers_env:
    input:
        get_peer_requirements,
    output:
        "results/peers/env/{peer}.json",
    params:
        prefix=get_peer_prefix,
        python=get_peer_python_versions,
    wildcard_constraints:
        peer=PEER_PATTERN,
    log:
        "logs/peers/env_{peer}.log",
    benchmark:
        "results/benchmarks/peers/env_{peer}.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_env.py"


rule peers_run:
    input:
        data=get_parsed,
        env=get_peer_env_record,
    output:
        record="results/peers/{dataset}/{peer}_{setting}_seed{seed}.json",
        instances="results/peers/{dataset}/{peer}_{setting}_seed{seed}_instances.csv.gz",
    params:
        grid=get_peer_grid,
        fixed=get_peer_fixed,
        python=get_peer_python,
        adapter=PEER_ADAPTER,
        cv=config["peers"]["cv"],
    wildcard_constraints:
        peer=PEER_PATTERN,
        setting="default|tuned",
        seed=r"\d+",
    threads: config["peers"]["threads"]
    resources:
        mem_mb=config["peers"]["mem_mb"],
        runtime=config["peers"]["runtime_min"],
    log:
        "logs/peers/{dataset}_{peer}_{setting}_seed{seed}.log",
    benchmark:
        "results/benchmarks/peers/{dataset}_{peer}_{setting}_seed{seed}.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_run.py"


rule peers_table:
    input:
        records=get_peer_records,
        instances=get_peer_instances,
    output:
        csv=captioned("results/tables/peers.csv", "peers_table.rst", "Peers (beyond the paper)"),
        md="results/tables/peers.md",
        by_dataset_csv=captioned("results/tables/peers_by_dataset.csv", "peers_by_dataset.rst", "Peers (beyond the paper)"),
        by_dataset_md="results/tables/peers_by_dataset.md",
        png=captioned("results/figures/peers.png", "peers_figure.rst", "Peers (beyond the paper)"),
        pdf="results/figures/peers.pdf",
    params:
        reference=config["peers"]["reference"],
        seeds=PEER_SEEDS,
        z=config["report"]["z"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
    log:
        "logs/peers/table.log",
    benchmark:
        "results/benchmarks/peers/table.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_table.py"


rule peers_ranks:
    input:
        "results/tables/peers.csv",
    output:
        csv=captioned("results/tables/peers_ranks.csv", "peers_ranks.rst", "Peers (beyond the paper)"),
        md="results/tables/peers_ranks.md",
        png=captioned("results/figures/peers_cd.png", "peers_cd.rst", "Peers (beyond the paper)"),
        pdf="results/figures/peers_cd.pdf",
    params:
        reference=config["peers"]["reference"],
        z=config["report"]["z"],
    log:
        "logs/peers/ranks.log",
    benchmark:
        "results/benchmarks/peers/ranks.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_ranks.py"


rule peers_findings:
    input:
        table="results/tables/peers.csv",
        ranks="results/tables/peers_ranks.csv",
    output:
        "results/findings/peers.csv",
    params:
        reference=config["peers"]["reference"],
    log:
        "logs/peers/findings.log",
    benchmark:
        "results/benchmarks/peers/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_findings.py"


rule peers_all:
    input:
        STAGE_TARGETS["peers"],


rule peers_exactness:
    input:
        get_parsed,
    output:
        "results/peers/{dataset}/exactness.json",
    params:
        parametric=config["parametric"],
    threads: config["parametric"]["threads"]
    log:
        "logs/peers/exactness_{dataset}.log",
    benchmark:
        "results/benchmarks/peers/exactness_{dataset}.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_exactness.py"


rule peers_exactness_table:
    input:
        expand("results/peers/{dataset}/exactness.json", dataset=DATASETS),
    output:
        csv=captioned("results/tables/peers_exactness.csv", "peers_exactness.rst", "Peers (beyond the paper)"),
        md="results/tables/peers_exactness.md",
    log:
        "logs/peers/exactness_table.log",
    benchmark:
        "results/benchmarks/peers/exactness_table.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_exactness_table.py"
