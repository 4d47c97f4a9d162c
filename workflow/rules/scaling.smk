# How each learner's cost grows with n and m on synthetic data (not part of the default run):
#   snakemake --cores 2 scaling
# One job per (learner, n, m) cell, each under scaling.timeout_s; one light rule gathers them.

localrules:
    scaling,
    scaling_table,


rule scaling_cell:
    output:
        "results/scaling/{learner}_n{n}_m{m}.json",
    params:
        cfg=config["scaling"],
    wildcard_constraints:
        learner=SCALING_LEARNER,
        n="[0-9]+",
        m="[0-9]+",
    threads: 1
    resources:
        mem_mb=get_scaling_mem_mb,
        runtime=get_scaling_runtime,
    log:
        "logs/scaling/{learner}_n{n}_m{m}.log",
    benchmark:
        "results/benchmarks/scaling/{learner}_n{n}_m{m}.tsv"
    conda:
        ENV
    script:
        "../scripts/scaling_cell.py"


rule scaling_table:
    input:
        get_scaling_cells,
    output:
        csv="results/tables/scaling.csv",
        md="results/tables/scaling.md",
        png="results/figures/scaling.png",
        pdf="results/figures/scaling.pdf",
    params:
        cfg=config["scaling"],
    log:
        "logs/scaling/table.log",
    benchmark:
        "results/benchmarks/scaling_table/table.tsv"  # outside scaling/, which holds one file per cell
    conda:
        ENV
    script:
        "../scripts/scaling_table.py"


rule scaling:
    input:
        rules.scaling_table.output,
