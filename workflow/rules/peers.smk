# Public F-maximizers beside ours (beyond the paper): each peer's environment is built once
# (peers_env), one job per (dataset, system, setting, seed) fits and predicts through the system's
# adapter under the same budget, and light rules gather the tables, the two rankings across
# datasets, the figures, the check of the large datasets' cheaper protocol and the findings. Its own
# target: snakemake --cores 2 peers_all

STAGE_TARGETS["peers"] = [
    "results/tables/peers_by_dataset.csv",
    "results/tables/peers_by_dataset.md",
    "results/figures/peers_cd.png",
    "results/figures/peers_cd.pdf",
    "results/tables/peers_ranks.csv",
    "results/tables/peers_ranks.md",
    "results/tables/peers_ranks_ours.md",
    "results/figures/peers_cd_ours.png",
    "results/figures/peers.png",
    "results/figures/peers.pdf",
    "results/tables/peers.csv",
    "results/tables/peers.md",
    "results/tables/peers_ours.csv",
    "results/tables/peers_ours.md",
    "results/tables/peers_protocol_check.csv",
    "results/tables/peers_protocol_check.md",
    "results/findings/peers.csv",
    "results/tables/peers_exactness.csv",
    "results/tables/peers_exactness.md",
]

localrules:
    peers_exactness_table,
    peers_table,
    peers_ranks,
    peers_protocol_check,
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
        record="results/{variant}/{dataset}/{peer}_{setting}_seed{seed}.json",
        instances="results/{variant}/{dataset}/{peer}_{setting}_seed{seed}_instances.csv.gz",
    params:
        grid=get_peer_grid,
        fixed=get_peer_fixed,
        python=get_peer_python,
        adapter=PEER_ADAPTER,
        tuning=get_peer_tuning,
        protocol=PEERS_PROTOCOL_HASH,
        reference=PEERS_CFG["reference"],
        budget=PEERS_CFG["budget"],
    wildcard_constraints:
        variant=PEER_VARIANTS,
        peer=PEER_PATTERN,
        setting="default|tuned",
        seed=r"\d+",
    threads: PEERS_CFG["threads"]
    resources:
        mem_mb=PEERS_CFG["mem_mb"],
        runtime=PEERS_CFG["runtime_min"],
    log:
        "logs/{variant}/{dataset}_{peer}_{setting}_seed{seed}.log",
    benchmark:
        "results/benchmarks/{variant}/{dataset}_{peer}_{setting}_seed{seed}.tsv"
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
        ours_csv=captioned("results/tables/peers_ours.csv", "peers_ours.rst", "Peers (beyond the paper)"),
        ours_md="results/tables/peers_ours.md",
        by_dataset_csv=captioned("results/tables/peers_by_dataset.csv", "peers_by_dataset.rst", "Peers (beyond the paper)"),
        by_dataset_md="results/tables/peers_by_dataset.md",
        png=captioned("results/figures/peers.png", "peers_figure.rst", "Peers (beyond the paper)"),
        pdf="results/figures/peers.pdf",
    params:
        reference=PEERS_CFG["reference"],
        protocol=PEERS_PROTOCOL_HASH,
        margin=PEERS_CFG["margin"],
        budget=PEERS_CFG["budget"],
        z=config["report"]["z"],
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
        ours_md="results/tables/peers_ranks_ours.md",
        png=captioned("results/figures/peers_cd.png", "peers_cd.rst", "Peers (beyond the paper)"),
        pdf="results/figures/peers_cd.pdf",
        ours_png=captioned("results/figures/peers_cd_ours.png", "peers_cd_ours.rst", "Peers (beyond the paper)"),
    params:
        reference=PEERS_CFG["reference"],
        z=config["report"]["z"],
    log:
        "logs/peers/ranks.log",
    benchmark:
        "results/benchmarks/peers/ranks.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_ranks.py"


rule peers_protocol_check:
    input:
        table="results/tables/peers.csv",
        records=get_peer_check_records,
        instances=get_peer_check_instances,
    output:
        csv=captioned("results/tables/peers_protocol_check.csv", "peers_protocol_check.rst", "Peers (beyond the paper)"),
        md="results/tables/peers_protocol_check.md",
    params:
        reference=PEERS_CFG["reference"],
        protocol=PEERS_PROTOCOL_HASH,
        margin=PEERS_CFG["margin"],
        z=config["report"]["z"],
    log:
        "logs/peers/protocol_check.log",
    benchmark:
        "results/benchmarks/peers/protocol_check.tsv"
    conda:
        ENV
    script:
        "../scripts/peers_protocol_check.py"


rule peers_findings:
    input:
        table="results/tables/peers.csv",
        ranks="results/tables/peers_ranks.csv",
    output:
        "results/findings/peers.csv",
    params:
        reference=PEERS_CFG["reference"],
        margin=PEERS_CFG["margin"],
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
