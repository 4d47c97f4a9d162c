"""The contract every estimator of fmeasure.learners shares (fmeasure.learners.base), on each of them.

The instances are those scikit-learn's checks run on (tests/_sklearn_checks.py), so a new exported
estimator is held to the same contract: parameters validated by ``_parameter_constraints``,
``NotFittedError`` before ``fit``, ``n_features_in_`` and ``feature_names_in_`` recorded and
checked, a 1-D y read as one label with any two class values, predictions in y's values, the
fit's timings, and ``predict_expected_f`` / ``predict_marginals`` of the same shapes everywhere.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from _sklearn_checks import estimators
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import check_param_validation

from fmeasure.learners import FMeasureSSVM, FOptimalClassifier
from fmeasure.learners.base import MultiLabelClassifier, MultiLabelMixin, check_labels
from fmeasure.metrics import f_measure

ESTIMATORS = estimators()
IDS = [f"{type(e).__name__}-{i}" for i, e in enumerate(ESTIMATORS)]
#: Estimators with a model of the label distribution: all but the structured SVM.
DISTRIBUTIONS = [(e, i) for e, i in zip(ESTIMATORS, IDS) if not isinstance(e, FMeasureSSVM)]


def toy(n=80, m=3, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :m] + 0.7 * rng.normal(size=(n, m)) > 0.2).astype(np.int8)
    return X, Y


def multilabel(est):
    """Whether the instance takes several labels (FOptimalClassifier(LogisticRegression()) does not)."""
    return est.__sklearn_tags__().classifier_tags.multi_label


def fitted(est, X, Y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        return clone(est).fit(X, Y)


class _Fixed(MultiLabelMixin, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Predicts a fixed matrix, to check score against hand-computed F."""

    def __init__(self, H=None):
        self.H = H

    def fit(self, X, y):
        self._validate_xy(X, y)
        return self

    def predict(self, X):
        return np.asarray(self.H)


def test_score_is_the_mean_instance_wise_f_by_hand():
    Y = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 0]])
    H = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0]])
    # F = 2|y.h| / (|y| + |h|): 2/3, 1 (empty vs empty), 0
    est = _Fixed(H).fit(np.zeros((3, 1)), Y)
    assert est.score(np.zeros((3, 1)), Y) == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert est.score(np.zeros((3, 1)), Y, sample_weight=[1, 0, 0]) == pytest.approx(2 / 3)


def test_validate_xy_reads_1d_y_as_one_label_and_rejects_non_binary():
    est = _Fixed()
    X, Y = est._validate_xy(np.zeros((3, 2)), [1, 0, 1])
    assert Y.shape == (3, 1) and Y.dtype == np.int8 and est._y_1d
    X, Y = est._validate_xy(np.zeros((4, 2)), np.array(["b", "a", "b", "b"]))
    assert Y[:, 0].tolist() == [1, 0, 1, 1] and est.classes_.tolist() == ["a", "b"]
    with pytest.raises(ValueError, match=r"^y must be a binary 0/1 matrix \(n_instances, n_labels\): label 1"):
        est._validate_xy(np.zeros((2, 2)), [[0, 2], [1, 0]])
    with pytest.raises(ValueError, match=r"^y has no labels \(m = 0\)$"):
        est._validate_xy(np.zeros((2, 2)), np.zeros((2, 0)))
    with pytest.raises(ValueError, match=r"^y has 3 rows but X has 2$"):
        est._validate_xy(np.zeros((2, 2)), [0, 1, 1])


def test_check_labels_names_the_label_and_row_of_a_bad_value():
    Y = np.zeros((4, 3))
    Y[2, 1] = np.nan
    with pytest.raises(
        ValueError,
        match=r"^y must be a binary 0/1 matrix \(n_instances, n_labels\): label 1 has the value nan in row 2$",
    ):
        check_labels(Y, name="y")
    Y[2, 1] = 0
    Y[3, 2] = -1
    with pytest.raises(ValueError, match=r"label 2 has the value -1\.0 in row 3$"):
        check_labels(Y, name="y")
    # sparse labels are read as the dense matrix they stand for
    import scipy.sparse as sp

    dense = np.array([[1, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(check_labels(sp.csr_array(dense)), dense)


@pytest.mark.parametrize("name", ["BinaryRelevance", "LFP", "EFP", "ProbabilisticClassifierChain"])
def test_learners_name_the_label_with_a_missing_value(name):
    import fmeasure.learners as learners

    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(20, 3)), (rng.random((20, 3)) < 0.5).astype(float)
    Y[5, 2] = np.nan
    with pytest.raises(ValueError, match=r"label 2 has the value nan in row 5"):
        getattr(learners, name)().fit(X, Y)


# ----------------------------------------------------------------------------- every estimator


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_is_a_multilabel_classifier_with_validated_parameters(est):
    assert isinstance(est, MultiLabelClassifier)
    check_param_validation(type(est).__name__, clone(est))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_raises_not_fitted_before_fit(est):
    X, _ = toy()
    for method in ("predict", "predict_expected_f", "predict_marginals", "score"):
        if hasattr(est, method):
            args = (X, np.zeros(len(X))) if method == "score" else (X,)
            with pytest.raises(NotFittedError):
                getattr(clone(est), method)(*args)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_records_and_checks_the_features(est):
    X, Y = toy()
    Y = Y if multilabel(est) else Y[:, 0]
    cols = ["a", "b", "c", "d"]
    model = fitted(est, pd.DataFrame(X, columns=cols), Y)
    assert model.n_features_in_ == 4 and model.feature_names_in_.tolist() == cols
    methods = [m for m in ("predict", "predict_expected_f", "predict_marginals") if hasattr(model, m)]
    for method in methods:
        getattr(model, method)(pd.DataFrame(X[:5], columns=cols))
        with pytest.raises(ValueError, match="Feature names must be in the same order"):
            getattr(model, method)(pd.DataFrame(X[:5, ::-1], columns=cols[::-1]))
        with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 4 features"):
            getattr(model, method)(X[:5, :3])
    plain = fitted(est, X, Y)
    assert plain.n_features_in_ == 4 and not hasattr(plain, "feature_names_in_")


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_records_the_fit_times(est):
    X, Y = toy()
    model = fitted(est, X, Y if multilabel(est) else Y[:, 0])
    assert model.fit_time_ > 0 and model.fit_cpu_time_ > 0
    assert model.n_labels_ == (3 if multilabel(est) else 1)


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_1d_y_with_any_two_classes_is_one_label(est):
    """A 1-D y with classes "no" < "yes" predicts those values, 1-D, as the 0/1 column would."""
    X, Y = toy(m=1)
    y = np.where(Y[:, 0] == 1, "yes", "no")
    flat = fitted(est, X, y)
    col = fitted(est, X, Y)
    np.testing.assert_array_equal(flat.classes_, ["no", "yes"])
    H, Hc = flat.predict(X), col.predict(X)
    assert H.shape == (len(X),) and Hc.shape == (len(X), 1)
    np.testing.assert_array_equal(H, np.where(Hc[:, 0] == 1, "yes", "no"))
    if hasattr(flat, "predict_expected_f"):
        np.testing.assert_allclose(flat.predict_expected_f(X), col.predict_expected_f(X))
    if hasattr(flat, "predict_marginals"):
        np.testing.assert_allclose(flat.predict_marginals(X), col.predict_marginals(X)[:, 0])
    assert flat.score(X, y) == pytest.approx(np.mean(H == y))
    # -1 / 1: the larger class is the label's 1
    pm = fitted(est, X, np.where(Y[:, 0] == 1, 1, -1))
    np.testing.assert_array_equal(pm.predict(X), np.where(Hc[:, 0] == 1, 1, -1))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_refuses_a_multiclass_y_naming_y(est):
    X, _ = toy()
    with pytest.raises(
        ValueError, match=r"^y: Only binary classification is supported\. The type of the target is multi"
    ):
        fitted(est, X, np.arange(len(X)) % 3)
    with pytest.raises(ValueError, match=r"^y must be a binary 0/1 matrix"):
        fitted(est, X, np.full((len(X), 2), 2))


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_learner_predicts_in_the_dtype_of_y(est):
    X, Y = toy()
    Y = Y if multilabel(est) else Y[:, :1]
    for dtype in (np.int8, np.int64, np.float64, bool):
        H = fitted(est, X, Y.astype(dtype)).predict(X[:7])
        assert H.dtype == np.dtype(dtype) and H.shape == (7, Y.shape[1])


@pytest.mark.parametrize("est, name", DISTRIBUTIONS, ids=[i for _, i in DISTRIBUTIONS])
def test_learner_predict_expected_f_and_marginals_have_one_shape(est, name):
    X, Y = toy()
    Y = Y if multilabel(est) else Y[:, :1]
    model = fitted(est, X, Y)
    V, P = model.predict_expected_f(X[:9]), model.predict_marginals(X[:9])
    assert V.shape == (9,) and V.dtype == np.float64 and np.all((V >= 0) & (V <= 1 + 1e-12))
    assert P.shape == (9, Y.shape[1]) and np.all((P >= -1e-12) & (P <= 1 + 1e-12))


def test_structured_svm_has_no_distribution():
    X, Y = toy()
    ssvm = FMeasureSSVM(Cs=(1.0,), max_iter=5).fit(X, Y)
    assert not hasattr(ssvm, "predict_expected_f") and not hasattr(ssvm, "predict_marginals")


def test_learner_score_is_the_mean_f_of_its_predictions():
    X, Y = toy()
    for est in ESTIMATORS:
        if not multilabel(est) or isinstance(est, FOptimalClassifier):
            continue
        model = fitted(est, X, Y)
        assert model.score(X, Y) == pytest.approx(f_measure(Y, model.predict(X)).mean()), type(est).__name__
