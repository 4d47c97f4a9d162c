# Theory of Sections 2-4: Figure 1, every worst-case construction evaluated exactly, the worked
# examples, and the exact worst-case regrets by linear programming (one job per surrogate).
# All logic lives in fmeasure.theory, fmeasure.theory.lp and fmeasure.experiments.theory.

THEORY_TABLES = [f"theory_{k}" for k in THEORY_FINDINGS_TABLES] + ["theory_lp_distributions"]
THEORY_FIGURES = ["theory_figure1", "theory_jaccard", "theory_independence", "theory_lp"]
STAGE_TARGETS["theory"] = (
    [f"results/tables/{t}.{ext}" for t in THEORY_TABLES for ext in ("csv", "md")]
    + [f"results/figures/{f}.{ext}" for f in THEORY_FIGURES for ext in ("png", "pdf")]
    + ["results/findings/theory.csv"]
)


localrules:
    theory_all,
    theory_examples,
    theory_threshold,
    theory_hamming,
    theory_lp_summary,
    theory_findings,


rule theory_figure1:
    input:
        lp=get_theory_lp_rows,
    output:
        csv="results/tables/theory_figure1.csv",
        md="results/tables/theory_figure1.md",
        png=captioned("results/figures/theory_figure1.png", "theory_figure1.rst", category="Theory"),
        pdf="results/figures/theory_figure1.pdf",
    params:
        cfg=config["theory"]["figure1"],
    log:
        "logs/theory/figure1.log",
    benchmark:
        "results/benchmarks/theory/figure1.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_figure1.py"


rule theory_hamming:
    output:
        csv=captioned("results/tables/theory_hamming.csv", "theory_hamming.rst", category="Theory"),
        md="results/tables/theory_hamming.md",
    params:
        cfg=config["theory"]["hamming"],
    log:
        "logs/theory/hamming.log",
    benchmark:
        "results/benchmarks/theory/hamming.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_hamming.py"


rule theory_jaccard:
    output:
        csv="results/tables/theory_jaccard.csv",
        md="results/tables/theory_jaccard.md",
        samples="results/theory/jaccard_samples.csv",
        png=captioned("results/figures/theory_jaccard.png", "theory_jaccard.rst", category="Theory"),
        pdf="results/figures/theory_jaccard.pdf",
    params:
        cfg=config["theory"]["jaccard"],
    log:
        "logs/theory/jaccard.log",
    benchmark:
        "results/benchmarks/theory/jaccard.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_jaccard.py"


rule theory_independence:
    output:
        csv="results/tables/theory_independence.csv",
        md="results/tables/theory_independence.md",
        png=captioned("results/figures/theory_independence.png", "theory_independence.rst", category="Theory"),
        pdf="results/figures/theory_independence.pdf",
    params:
        cfg=config["theory"]["independence"],
    log:
        "logs/theory/independence.log",
    benchmark:
        "results/benchmarks/theory/independence.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_independence.py"


rule theory_threshold:
    output:
        csv=captioned("results/tables/theory_threshold.csv", "theory_threshold.rst", category="Theory"),
        md="results/tables/theory_threshold.md",
    params:
        cfg=config["theory"]["threshold"],
    log:
        "logs/theory/threshold.log",
    benchmark:
        "results/benchmarks/theory/threshold.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_threshold.py"


rule theory_examples:
    output:
        csv=captioned("results/tables/theory_examples.csv", "theory_examples.rst", category="Theory"),
        md="results/tables/theory_examples.md",
    log:
        "logs/theory/examples.log",
    benchmark:
        "results/benchmarks/theory/examples.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_examples.py"


rule theory_lp_solve:
    output:
        row="results/theory/lp/{surrogate}.csv",
        dist="results/theory/lp/{surrogate}_dist.csv",
    params:
        cfg=config["theory"]["lp"],
    wildcard_constraints:
        surrogate=THEORY_SURROGATE,
    log:
        "logs/theory/lp_{surrogate}.log",
    benchmark:
        "results/benchmarks/theory/lp_{surrogate}.tsv"
    threads: 1
    conda:
        ENV
    script:
        "../scripts/theory_lp_solve.py"


rule theory_lp_summary:
    input:
        rows=get_theory_lp_rows,
        dists=get_theory_lp_dists,
    output:
        csv=captioned("results/tables/theory_lp.csv", "theory_lp_table.rst", category="Theory"),
        md="results/tables/theory_lp.md",
        dist_csv="results/tables/theory_lp_distributions.csv",
        dist_md="results/tables/theory_lp_distributions.md",
        png=captioned("results/figures/theory_lp.png", "theory_lp.rst", category="Theory"),
        pdf="results/figures/theory_lp.pdf",
    log:
        "logs/theory/lp_summary.log",
    benchmark:
        "results/benchmarks/theory/lp_summary.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_lp_summary.py"


rule theory_findings:
    input:
        **{k: f"results/tables/theory_{k}.csv" for k in THEORY_FINDINGS_TABLES},
    output:
        "results/findings/theory.csv",
    log:
        "logs/theory/findings.log",
    benchmark:
        "results/benchmarks/theory/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/theory_findings.py"


rule theory_all:
    input:
        STAGE_TARGETS["theory"],
