# Public multi-label F-maximizers beside ours (beyond the paper): each peer's environment is built
# once (peers_env), one job per (dataset, peer, setting) fits and predicts through the peer's
# adapter, and light rules gather the table, the figure and the findings. Its own target:
# snakemake --cores 2 peers_all

STAGE_TARGETS["peers"] = [
    "results/tables/peers.csv",
    "results/tables/peers.md",
    "results/figures/peers.png",
    "results/figures/peers.pdf",
    "results/findings/peers.csv",
    "results/tables/peers_exactness.csv",
    "results/tables/peers_exactness.md",
]

localrules:
    peers_exactness_table,
    peers_table,
    peers_findings,
    peers_all,


rule peers_env:
    input:
        get_peer_requirements,
    output:
        "results/peers/env/{peer}.json",
    params:
        prefix=get_peer_prefix,
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
        record="results/peers/{dataset}/{peer}_{setting}.json",
        instances="results/peers/{dataset}/{peer}_{setting}_instances.csv.gz",
    params:
        grid=get_peer_grid,
        python=get_peer_python,
        adapter=PEER_ADAPTER,
        cv=config["peers"]["cv"],
        seed=config["peers"]["seed"],
    wildcard_constraints:
        peer=PEER_PATTERN,
        setting="default|tuned",
    threads: config["peers"]["threads"]
    resources:
        mem_mb=config["peers"]["mem_mb"],
        runtime=config["peers"]["runtime_min"],
    log:
        "logs/peers/{dataset}_{peer}_{setting}.log",
    benchmark:
        "results/benchmarks/peers/{dataset}_{peer}_{setting}.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_run.py"


rule peers_table:
    input:
        records=get_peer_records(),
        instances=get_peer_instances(),
        ours=get_peer_ours(),
    output:
        csv=captioned("results/tables/peers.csv", "peers_table.rst", "Peers (beyond the paper)"),
        md="results/tables/peers.md",
        png=captioned("results/figures/peers.png", "peers_figure.rst", "Peers (beyond the paper)"),
        pdf="results/figures/peers.pdf",
    params:
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


rule peers_findings:
    input:
        table="results/tables/peers.csv",
        instances=get_peer_instances(),
        ours=get_peer_ours(),
    output:
        "results/findings/peers.csv",
    params:
        paper_methods=["br", "lfp", "efp"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
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
