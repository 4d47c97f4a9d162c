# Input functions of the voting stage (lookups only; the logic is in fmeasure.experiments.voting).
# Kept beside voting.smk rather than in common.smk so that the stage is self-contained.
from fmeasure.experiments.voting import used_fits


def get_voting_fits(wildcards):
    return [f"results/voting/{wildcards.dataset}/fit_{f}.npz" for f in used_fits(config["voting"])]


def get_voting_scores(wildcards=None):
    return [f"results/voting/{d}/scores.csv" for d in DATASETS]


def get_voting_curves(wildcards=None):
    return [f"results/voting/{d}/curve.csv" for d in DATASETS]
