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


def pattern(names) -> str:
    r"""A wildcard constraint matching exactly ``names`` (each escaped), for a rule file.

    >>> pattern(["F-tree", "F-bag"])
    'F\\-tree|F\\-bag'
    """
    names = list(names)
    if not names:
        raise ValueError("pattern: no names")
    return "|".join(re.escape(n) for n in names)
