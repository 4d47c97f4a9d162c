# The JRS 2012 voting ensemble of Section 7.3 (Table 7). One job per (dataset, fit): a fit is a
# model shared by several members (one PCC chain serves every PCC member), and the job writes its
# members' validation and test predictions; one vote job per dataset; Table 7 and the figure
# gather them. All logic lives in fmeasure.learners.voting and fmeasure.experiments.voting.


STAGE_TARGETS["voting"] = [
    "results/findings/voting.csv",
    "results/tables/table7.csv",
    "results/tables/table7.md",
    "results/tables/table7_claims.csv",
    "results/tables/table7_claims.md",
    "results/figures/voting_members.png",
    "results/figures/voting_members.pdf",
]


wildcard_constraints:
    fit="[A-Za-z0-9_]+",


localrules:
    voting_findings,
    voting_all,
    voting_vote,
    voting_table7,
    voting_figure,


rule voting_fit:
    input:
        get_parsed,
    output:
        "results/voting/{dataset}/fit_{fit}.npz",
    params:
        cfg=stage_config("voting"),
    threads: get_threads("voting_fit")
    # Among the longest jobs of a run (the chain's fit, BR on the wide grid): they start first, so
    # that none is left running alone at the end of a run.
    priority: 10
    resources:
        mem_mb=get_mem_mb("voting_fit"),
        runtime=get_runtime("voting_fit"),
    log:
        "logs/voting/fit_{dataset}_{fit}.log",
    benchmark:
        "results/benchmarks/voting/fit_{dataset}_{fit}.tsv"
    conda:
        ENV
    script:
        "../scripts/voting_fit.py"


rule voting_vote:
    input:
        get_voting_fits,
    output:
        scores="results/voting/{dataset}/scores.csv",
        curve="results/voting/{dataset}/curve.csv",
        instances="results/voting/{dataset}/instances.csv.gz",
        timing="results/voting/{dataset}/timing.csv",
    params:
        cfg=stage_config("voting"),
    log:
        "logs/voting/vote_{dataset}.log",
    benchmark:
        "results/benchmarks/voting/vote_{dataset}.tsv"
    conda:
        ENV
    script:
        "../scripts/voting_vote.py"


rule voting_table7:
    input:
        get_voting_scores,
    output:
        csv=captioned("results/tables/table7.csv", "voting_table7.rst", "Voting"),
        md="results/tables/table7.md",
        claims_csv="results/tables/table7_claims.csv",
        claims_md="results/tables/table7_claims.md",
    params:
        cfg=config["voting"],
    log:
        "logs/voting/table7.log",
    benchmark:
        "results/benchmarks/voting/table7.tsv"
    conda:
        ENV
    script:
        "../scripts/voting_table7.py"


rule voting_figure:
    input:
        get_voting_curves,
    output:
        csv="results/voting/figure.csv",
        png=captioned("results/figures/voting_members.png", "voting_members.rst", "Voting"),
        pdf="results/figures/voting_members.pdf",
    log:
        "logs/voting/figure.log",
    benchmark:
        "results/benchmarks/voting/figure.tsv"
    conda:
        ENV
    script:
        "../scripts/voting_figure.py"


rule voting_all:
    input:
        STAGE_TARGETS["voting"],


rule voting_findings:
    input:
        table7="results/tables/table7.csv",
        instances=expand("results/voting/{dataset}/instances.csv.gz", dataset=DATASETS),
    output:
        "results/findings/voting.csv",
    log:
        "logs/voting/findings.log",
    benchmark:
        "results/benchmarks/voting/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/voting_findings.py"
