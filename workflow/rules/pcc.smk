# Probabilistic classifier chains (Section 7.2): Table 4 and Figure 5.
# One fit job per dataset caches the tuned chain under results/pcc/<dataset>/; every inference job
# (Table 4; Figure 5 in jobs of several numbers of samples; the exact reference) reads that cache
# and never refits.
# All logic lives in fmeasure.learners.pcc and fmeasure.experiments.pcc.

STAGE_TARGETS["pcc"] = [
    "results/tables/table4.csv",
    "results/tables/table4.md",
    "results/figures/pcc_figure5.png",
    "results/figures/pcc_figure5.pdf",
    "results/findings/pcc.csv",
]


from fmeasure.experiments.pcc import fit_config as pcc_fit_config


wildcard_constraints:
    # Figure 5's numbers of samples of one job, joined by "-" (fmeasure.experiments.config.sample_chunks)
    n_samples=r"\d+(-\d+)*",


localrules:
    pcc_all,
    pcc_table4,
    pcc_figure5,
    pcc_findings,


rule pcc_fit:
    input:
        data=get_parsed,
    output:
        model="results/pcc/{dataset}/chain.pkl",
        info="results/pcc/{dataset}/fit.json",
    params:
        # only what the fit reads: changing an inference setting does not refit the chain
        cfg=lambda w: pcc_fit_config(dataset_config(config, "pcc", w.dataset)),
    log:
        "logs/pcc/fit_{dataset}.log",
    benchmark:
        "results/benchmarks/pcc/fit_{dataset}.tsv"
    threads: get_threads("pcc_fit")
    # Early, as the longest jobs: Figure 5's curve jobs wait for it.
    priority: 10
    resources:
        mem_mb=get_mem_mb("pcc_fit"),
        runtime=get_runtime("pcc_fit"),
    conda:
        ENV
    script:
        "../scripts/pcc_fit.py"


rule pcc_table4_rows:
    input:
        data=get_parsed,
        model="results/pcc/{dataset}/chain.pkl",
        info="results/pcc/{dataset}/fit.json",
    output:
        rows="results/pcc/{dataset}/table4_rows.csv",
        instances="results/pcc/{dataset}/table4_instances.csv.gz",
    params:
        cfg=stage_config("pcc"),
        jaccard_empty=config["metrics"]["jaccard_empty"],
    log:
        "logs/pcc/table4_{dataset}.log",
    benchmark:
        "results/benchmarks/pcc/table4_{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=get_mem_mb("pcc_table4_rows"),
        runtime=get_runtime("pcc_table4_rows"),
    conda:
        ENV
    script:
        "../scripts/pcc_table4_rows.py"


rule pcc_curve:
    input:
        data=get_parsed,
        model="results/pcc/{dataset}/chain.pkl",
    output:
        "results/pcc/{dataset}/curve_{n_samples}.csv",
    params:
        cfg=stage_config("pcc"),
    log:
        "logs/pcc/curve_{dataset}_{n_samples}.log",
    benchmark:
        "results/benchmarks/pcc/curve_{dataset}_{n_samples}.tsv"
    threads: 1
    resources:
        mem_mb=get_mem_mb("pcc_curve"),
        runtime=get_runtime("pcc_curve"),
    conda:
        ENV
    script:
        "../scripts/pcc_curve.py"


rule pcc_exact:
    input:
        data=get_parsed,
        model="results/pcc/{dataset}/chain.pkl",
    output:
        "results/pcc/{dataset}/exact.csv",
    params:
        cfg=stage_config("pcc"),
    log:
        "logs/pcc/exact_{dataset}.log",
    benchmark:
        "results/benchmarks/pcc/exact_{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=get_mem_mb("pcc_exact"),
        runtime=get_runtime("pcc_exact"),
    conda:
        ENV
    script:
        "../scripts/pcc_exact.py"


rule pcc_table4:
    input:
        get_pcc_table4_rows,
    output:
        csv=captioned("results/tables/table4.csv", "pcc_table4.rst", category="PCC"),
        md="results/tables/table4.md",
    params:
        jaccard_empty=config["metrics"]["jaccard_empty"],
        cv=config["pcc"]["cv"],
    log:
        "logs/pcc/table4.log",
    benchmark:
        "results/benchmarks/pcc/table4.tsv"
    conda:
        ENV
    script:
        "../scripts/pcc_table4.py"


rule pcc_figure5:
    input:
        curves=get_pcc_curves,
        exact=get_pcc_exact,
    output:
        csv="results/pcc/figure5.csv",
        png=captioned("results/figures/pcc_figure5.png", "pcc_figure5.rst", category="PCC"),
        pdf="results/figures/pcc_figure5.pdf",
    log:
        "logs/pcc/figure5.log",
    benchmark:
        "results/benchmarks/pcc/figure5.tsv"
    conda:
        ENV
    script:
        "../scripts/pcc_figure5.py"


rule pcc_findings:
    input:
        instances=expand("results/pcc/{dataset}/table4_instances.csv.gz", dataset=DATASETS),
        table4="results/tables/table4.csv",
        figure5="results/pcc/figure5.csv",
    output:
        "results/findings/pcc.csv",
    params:
        z=config["report"]["z"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
        deviation_points=config["report"]["deviation_points"],
    log:
        "logs/pcc/findings.log",
    benchmark:
        "results/benchmarks/pcc/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/pcc_findings.py"


rule pcc_all:
    input:
        STAGE_TARGETS["pcc"],
