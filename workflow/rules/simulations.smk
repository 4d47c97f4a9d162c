# Simulations (Section 6): Figures 2 and 3 (two data models x four measures), Figure 4 (running
# times), a claims table checking the paper's conclusions, and regrets vs the Bayes-optimal
# predictions. One job per (data model, chunk of models); aggregation and figures are local rules.
from fmeasure.experiments.config import model_chunks

SIM = config["simulations"]
SIM_CHUNKS = [f"{a}-{b}" for a, b in model_chunks(SIM["n_models"], SIM["models_per_job"])]


wildcard_constraints:
    chunk=r"\d+-\d+",


# Per-job CSVs of every data model and model chunk.
SIM_SCORES = [f"results/simulations/{k}/scores_{c}.csv" for k in SIM_DATA_MODELS for c in SIM_CHUNKS]
SIM_REFERENCES = [f"results/simulations/{k}/reference_{c}.csv" for k in SIM_DATA_MODELS for c in SIM_CHUNKS]

STAGE_TARGETS["simulations"] = [
    *(f"results/figures/simulations_{fig}.{ext}" for fig in SIM_DATA_MODELS.values() for ext in ("png", "pdf")),
    *(f"results/tables/simulations_{fig}.csv" for fig in SIM_DATA_MODELS.values()),
    "results/tables/simulations_claims.md",
    "results/tables/simulations_claims.csv",
    "results/tables/simulations_regret.md",
    "results/tables/simulations_regret.csv",
    "results/figures/simulations_figure4.png",
    "results/figures/simulations_figure4.pdf",
    "results/tables/simulations_figure4.csv",
    "results/findings/simulations.csv",
]

localrules:
    simulations_all,
    simulations_aggregate,
    simulations_figure4,
    simulations_findings,


rule simulations_run:
    output:
        scores="results/simulations/{data_model}/scores_{chunk}.csv",
        reference="results/simulations/{data_model}/reference_{chunk}.csv",
    params:
        sim=SIM,
        jaccard_empty=config["metrics"]["jaccard_empty"],
    wildcard_constraints:
        data_model=SIM_DATA_MODEL,
    threads: 1
    resources:
        mem_mb=SIM["mem_mb"],
    log:
        "logs/simulations/run_{data_model}_{chunk}.log",
    benchmark:
        "results/benchmarks/simulations/run_{data_model}_{chunk}.tsv"
    conda:
        ENV
    script:
        "../scripts/simulations_run.py"


rule simulations_aggregate:
    input:
        scores=SIM_SCORES,
        reference=SIM_REFERENCES,
    output:
        figures=expand("results/tables/simulations_{fig}.csv", fig=SIM_DATA_MODELS.values()),
        claims_csv=captioned("results/tables/simulations_claims.csv", "simulations_claims.rst",
                          category="Simulations"),
        claims_md="results/tables/simulations_claims.md",
        regret_csv="results/tables/simulations_regret.csv",
        regret_md="results/tables/simulations_regret.md",
    params:
        data_models=list(SIM_DATA_MODELS),
        z=config["report"]["z"],
    log:
        "logs/simulations/aggregate.log",
    benchmark:
        "results/benchmarks/simulations/aggregate.tsv"
    conda:
        ENV
    script:
        "../scripts/simulations_aggregate.py"


# One rule per figure (a loop, so that each figure keeps its own report caption).
for _fig in SIM_DATA_MODELS.values():

    rule:
        name:
            f"simulations_{_fig}"
        input:
            f"results/tables/simulations_{_fig}.csv",
        output:
            png=captioned(f"results/figures/simulations_{_fig}.png", f"simulations_{_fig}.rst",
                       category="Simulations"),
            pdf=f"results/figures/simulations_{_fig}.pdf",
        params:
            zoom_max=SIM["zoom_max"],
            jaccard_empty=config["metrics"]["jaccard_empty"],
        localrule: True
        log:
            f"logs/simulations/{_fig}.log",
        conda:
            ENV
        script:
            "../scripts/simulations_figure.py"


rule simulations_timing:
    output:
        "results/simulations/timing.csv",
    params:
        sim=SIM,
        timing=SIM["timing"],
    threads: SIM["timing"]["threads"]
    log:
        "logs/simulations/timing.log",
    benchmark:
        "results/benchmarks/simulations/timing.tsv"
    conda:
        ENV
    script:
        "../scripts/simulations_timing.py"


rule simulations_figure4:
    input:
        "results/simulations/timing.csv",
    output:
        csv="results/tables/simulations_figure4.csv",
        png=captioned("results/figures/simulations_figure4.png", "simulations_figure4.rst",
                   category="Simulations"),
        pdf="results/figures/simulations_figure4.pdf",
    log:
        "logs/simulations/figure4.log",
    benchmark:
        "results/benchmarks/simulations/figure4.tsv"
    conda:
        ENV
    script:
        "../scripts/simulations_figure4.py"


rule simulations_findings:
    input:
        claims="results/tables/simulations_claims.csv",
        figure4="results/tables/simulations_figure4.csv",
    output:
        "results/findings/simulations.csv",
    params:
        z=config["report"]["z"],
    log:
        "logs/simulations/findings.log",
    benchmark:
        "results/benchmarks/simulations/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/simulations_findings.py"


rule simulations_all:
    input:
        STAGE_TARGETS["simulations"],
