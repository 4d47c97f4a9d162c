"""The names that the config, the rules, the tables and the docs share, each list written once.

* ``config/schema.yaml`` takes its enums from here: a node ``{x-names: NAME}`` becomes
  ``{enum: [...NAME...]}`` when :func:`fmeasure.experiments.config.load_schema` reads the file.
* The rule files build their wildcard constraints from here (:func:`pattern`, in
  ``workflow/rules/common.smk``): no job runs for a name the config cannot hold.
* The stage modules read their names from here (``fmeasure.experiments.parametric.LEARNER_NAMES``
  is :data:`PARAMETRIC_LEARNERS`).

What cannot be generated from these lists (the schema's keys, the names config/README.md lists,
the library's own names) is held equal to them by ``tests/experiments/test_registry.py``.

Light on purpose: the workflow imports it when it is built, so it imports neither pandas, nor
scikit-learn, nor the numba kernels.

Examples
--------
>>> pattern(PARAMETRIC_LEARNERS)
'BR|LFP|EFP'
>>> METHOD_NAMES
('MM', 'JM', 'FM', 'GFM')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fmeasure.metrics import METHOD_LABELS, SAMPLE_METHODS
from fmeasure.theory import SURROGATES

__all__ = [
    "STAGES",
    "OWN_TARGET_STAGES",
    "SEPARATE_TARGETS",
    "OVERRIDE_STAGES",
    "STAGE_TABLES",
    "INFERENCE_METHODS",
    "METHOD_NAMES",
    "PARAMETRIC_LEARNERS",
    "VOTING_LEARNERS",
    "ABLATION_METHODS",
    "TREE_MODELS",
    "TREE_PREDICTIONS",
    "FOPTIMAL_MODELS",
    "SCALING_LEARNERS",
    "THEORY_SURROGATES",
    "SIM_DATA_MODELS",
    "PeerSystem",
    "PEER_SYSTEMS",
    "PEER_KINDS",
    "pattern",
]

# ---- stages

#: The stages the config's ``stages`` may list, in the order of the default run (and of the
#: report's sections). Each has a rule file ``workflow/rules/<stage>.smk``, scripts
#: ``workflow/scripts/<stage>_*.py``, a module ``fmeasure.experiments.<stage>`` and a page ``docs/<stage>.md``.
STAGES = (
    "data",
    "theory",
    "simulations",
    "knn",
    "pcc",
    "parametric",
    "structured",
    "voting",
    "trees",
    "ablations",
    "foptimal",
    "peers",
)
#: Stages outside the default run, with a target of their own (``snakemake peers_all``): the report
#: shows them once their outputs exist.
OWN_TARGET_STAGES = ("peers",)
#: Parts of the workflow built like a stage (rule file, scripts, module, page) that are no stage:
#: never in ``stages``, run by their own target (``snakemake scaling``).
SEPARATE_TARGETS = ("scaling",)
#: Stages whose jobs run one dataset at a time, so that their config may differ by dataset
#: (``dataset_overrides.<dataset>.<stage>``).
OVERRIDE_STAGES = ("knn", "pcc", "parametric", "voting", "trees", "structured", "foptimal")
#: The stages the ablations rerun (``ablations.settings.<name>.stage``), and the table of each.
STAGE_TABLES = {"pcc": "table4", "parametric": "table5"}

# ---- methods and learners

#: Inference methods from label samples as the config spells them (``knn.methods``, the voting
#: members' ``inference``): :data:`fmeasure.metrics.SAMPLE_METHODS`, in the paper's order.
INFERENCE_METHODS = SAMPLE_METHODS
#: The same as tables print them and as ``simulations.methods`` lists them (Table 4's rows).
METHOD_NAMES = tuple(METHOD_LABELS[k] for k in SAMPLE_METHODS)
#: The parametric plug-in learners of Table 5 (``parametric.learners``), in the table's order.
PARAMETRIC_LEARNERS = ("BR", "LFP", "EFP")
#: What a fit of the voting ensemble is (``voting.fits.<fit>.learner``).
VOTING_LEARNERS = ("PCC", *PARAMETRIC_LEARNERS)
#: Rows an ablation setting may name (``ablations.settings.<name>.methods``): Table 4's, then Table 5's.
ABLATION_METHODS = (*METHOD_NAMES, *PARAMETRIC_LEARNERS)
#: The bag's predictions (``trees.predictions``): GFM on the pooled leaves, or on the trees' votes.
TREE_PREDICTIONS = ("pooled", "vote")
#: The tree stage's model families (``trees.models``, one job each) -> the rows each gives.
TREE_MODELS = {
    "tree": ("F-tree",),
    "bag": tuple(f"F-bag {p}" for p in TREE_PREDICTIONS),
    "forest": ("RF MM", "RF pooled GFM"),
}
#: The foptimal stage's models (``foptimal.models``, one job each) -> the name its tables show.
FOPTIMAL_MODELS = {
    "br": "MultiOutputClassifier(LogisticRegression)",
    "cc": "ClassifierChain(LogisticRegression)",
    "rf": "RandomForestClassifier",
    "knn": "KNeighborsClassifier",
    "mlp": "MLPClassifier",
}
#: Learners of the scaling benchmark (``scaling.learners``, one job per cell each).
SCALING_LEARNERS = ("kNN", "PCC", "BR", "LFP", "EFP", "RML", "voting", "F-tree", "F-bag")

# ---- theory and simulations

#: Surrogates whose worst-case regret the theory stage solves by LP (one job each; the keys
#: ``theory.lp.<surrogate>_m``): :data:`fmeasure.theory.SURROGATES`.
THEORY_SURROGATES = SURROGATES
#: The simulations' data models (``simulations.data_models``; one job per chunk of models each)
#: -> the paper's figure of each (:data:`fmeasure.label_models.DATA_MODELS` holds the same names).
SIM_DATA_MODELS = {"independent": "figure2", "chain": "figure3"}


# ---- the peers stage's systems

#: What a system of the peers stage is: one that predicts the label set of highest expected F
#: (an F-maximizer), or a baseline that predicts otherwise (a threshold of 0.5, a per-label maximum a
#: posteriori). The headline of the stage compares the reference with the public F-maximizers.
PEER_KINDS = ("f-maximizer", "baseline")


@dataclass(frozen=True)
class PeerSystem:
    """One system of the peers stage: how the tables name it, what it is, where it runs and how it
    is tuned. ``source`` is ``peer`` (a public package) or ``ours``; ``env`` is ``project`` (the
    project's environment) or the pinned requirements file of its own environment, built with one
    of the Python versions ``python``; ``grid`` is its tuned setting's grid (the tuning budget) and
    ``params`` the keyword arguments of every setting; ``tunes_itself``: it runs its own
    cross-validation (one run, as ``tuned``); ``stochastic``: its fit draws random numbers (one run
    per seed; else the first seed alone)."""

    title: str
    kind: str
    source: str
    env: str = "project"
    python: tuple = ()
    grid: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    tunes_itself: bool = False
    stochastic: bool = True


_CS = [1.0e-4, 1.0e-3, 1.0e-2, 1.0e-1, 1.0, 10.0, 100.0, 1000.0]  # the paper's grid of C (Table 5)

#: The systems of the peers stage (``peers.run``, ``peers.reference``, ``peers.peers``): the single
#: list of them, with their titles, kinds, environments and grids. The stage's adapter builds exactly
#: these (``workflow/scripts/peers_adapter.py``, ``BUILDERS``); a system missing here is an error.
PEER_SYSTEMS = {
    # gradient-boosted multi-label rules predicting with GFM; its loss as its documentation offers
    # beside GFM (label-wise or not), and the shrinkage; release 0.12.3 exists only for Python 3.11
    "boomer": PeerSystem(
        "BOOMER (GFM)",
        "f-maximizer",
        "peer",
        env="envs/peers/boomer.txt",
        python=("3.11",),
        grid={"loss": ["logistic-decomposable", "logistic-non-decomposable"], "shrinkage": [0.1, 0.3]},
    ),
    # m^2 + 1 logistic models, then GFM capped at the largest training label count
    "ewf1": PeerSystem(
        "example-wise-f1-maximizer (LogisticRegression)",
        "f-maximizer",
        "peer",
        env="envs/peers/ewf1.txt",
        python=("3.11", "3.10", "3.9", "3.8"),
        grid={"C": [0.1, 1.0, 10.0]},
        stochastic=False,
    ),
    "mlknn": PeerSystem("MLkNN (scikit-multilearn)", "baseline", "peer", grid={"k": [5, 10, 20]}, stochastic=False),
    "sklearn_br": PeerSystem(
        "MultiOutputClassifier(LogisticRegression), 0.5",
        "baseline",
        "peer",
        grid={"C": [0.01, 0.1, 1.0, 10.0]},
        stochastic=False,
    ),
    "sklearn_cc": PeerSystem(
        "ClassifierChain(LogisticRegression), 0.5",
        "baseline",
        "peer",
        grid={"C": [0.01, 0.1, 1.0, 10.0]},
        stochastic=False,
    ),
    "fopt_search": PeerSystem(
        "FOptimalSearchCV (GFM, candidate chosen by CV)", "f-maximizer", "ours", tunes_itself=True
    ),
    "fopt_extratrees": PeerSystem(
        "FOptimalClassifier(ExtraTrees), GFM",
        "f-maximizer",
        "ours",
        grid={"min_samples_leaf": [1, 3]},
        params={"n_estimators": 100},
    ),
    "br": PeerSystem(
        "BR (paper): logistic per label, 0.5",
        "baseline",
        "ours",
        params={"Cs": _CS},
        tunes_itself=True,
        stochastic=False,
    ),
    "lfp": PeerSystem(
        "LFP (paper): Ye et al.'s F-maximizer on BR",
        "f-maximizer",
        "ours",
        params={"Cs": _CS},
        tunes_itself=True,
        stochastic=False,
    ),
    "efp": PeerSystem(
        "EFP (paper): GFM on multinomial P",
        "f-maximizer",
        "ours",
        params={"Cs": _CS},
        tunes_itself=True,
        stochastic=False,
    ),
}


def pattern(names) -> str:
    r"""A wildcard constraint matching exactly ``names`` (each escaped), for a rule file.

    >>> pattern(["F-tree", "F-bag"])
    'F\\-tree|F\\-bag'
    """
    names = list(names)
    if not names:
        raise ValueError("pattern: no names")
    return "|".join(re.escape(n) for n in names)
