"""The estimators that scikit-learn's own checks run on, and the checks expected to fail, with why.

``ESTIMATORS`` holds one small, fast instance of every estimator that ``fmeasure.learners`` exports
(more where the estimator's behaviour depends on what it wraps or on its inference: the chain with
sampled and exact inference, FOptimalClassifier on each of its routes);
tests/library/test_sklearn_checks.py runs every check of
:func:`sklearn.utils.estimator_checks.parametrize_with_checks` on each, with the multi-label tags
the estimators declare. A check that cannot apply to an instance is listed, with its reason, by
:func:`expected_failed_checks`; the test runs it and requires it to fail (``xfail_strict``), so the
list cannot keep a check that passes.
"""

from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils import get_tags

from fmeasure.learners import (
    EFP,
    LFP,
    BaggedFMeasureTrees,
    BinaryRelevance,
    FMeasureSSVM,
    FMeasureTree,
    FOptimalClassifier,
    FOptimalMixture,
    FOptimalSearchCV,
    KNeighborsFMeasure,
    LabelPowerset,
    ProbabilisticClassifierChain,
    VotingEnsemble,
)


def estimators():
    """One fast instance of every exported estimator (fresh objects on every call)."""
    br = BinaryRelevance(Cs=[1.0], cv=2)
    return [
        br,
        LFP(Cs=[1.0], cv=2),
        EFP(Cs=[1.0], cv=2),
        ProbabilisticClassifierChain(Cs=[1.0], cv=2, n_samples=20),
        ProbabilisticClassifierChain(Cs=[1.0], cv=2, inference="jm"),
        VotingEnsemble(
            [
                ("BR", br, {"inference": "mm"}),
                ("LFP", br, {"inference": "fm"}),
                ("kNN", KNeighborsFMeasure(n_neighbors=3), {}),
            ]
        ),
        KNeighborsFMeasure(n_neighbors=3),
        FMeasureSSVM(Cs=(1.0,), max_iter=10),
        LabelPowerset(LogisticRegression()),
        FMeasureTree(max_depth=4, max_bins=8),
        BaggedFMeasureTrees(n_estimators=3, max_depth=4, max_bins=8, random_state=0),
        FOptimalClassifier(LogisticRegression()),
        FOptimalClassifier(MultiOutputClassifier(LogisticRegression())),
        FOptimalClassifier(ClassifierChain(LogisticRegression(), random_state=0), n_samples=50, random_state=0),
        FOptimalClassifier(RandomForestClassifier(n_estimators=5, random_state=0)),
        FOptimalClassifier(KNeighborsClassifier(n_neighbors=3)),
        FOptimalSearchCV({"knn": FOptimalClassifier(KNeighborsClassifier(n_neighbors=3))}, cv=2, random_state=0),
        FOptimalMixture(
            [
                ("knn", FOptimalClassifier(KNeighborsClassifier(n_neighbors=3))),
                ("forest", FOptimalClassifier(RandomForestClassifier(n_estimators=5, random_state=0))),
            ]
        ),
    ]


ESTIMATORS = estimators()

#: Why the checks below do not apply.
_ONE_LABEL = (
    "LogisticRegression models one label: a label matrix with several labels needs a multi-label "
    "estimator (MultiOutputClassifier, ClassifierChain, a forest, ...)"
)


def expected_failed_checks(estimator):
    """``{check name: reason}`` of the checks that do not apply to ``estimator``."""
    if isinstance(estimator, FOptimalClassifier) and not get_tags(estimator).classifier_tags.multi_label:
        return {"check_classifier_multioutput": _ONE_LABEL}
    return {}
