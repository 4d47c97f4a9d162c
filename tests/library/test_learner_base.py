"""The shared multi-label estimator base: validation, score and tags, on every learner that uses it."""

import numpy as np
import pytest
from _sklearn_checks import NOT_APPLICABLE, all_check_names
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.linear_model import LogisticRegression

from fmeasure.learners import BaggedFMeasureTrees, FMeasureSSVM, FMeasureTree, KNeighborsFMeasure
from fmeasure.learners.base import MultiLabelMixin

LEARNERS = [
    KNeighborsFMeasure(n_neighbors=2),
    FMeasureSSVM(Cs=(1.0,), max_iter=20),
    FMeasureTree(),
    BaggedFMeasureTrees(n_estimators=2, random_state=0),
]


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
    with pytest.raises(ValueError, match=r"^Only binary classification is supported: y must be a binary 0/1"):
        est._validate_xy(np.zeros((2, 2)), [[0, 2], [1, 0]])
    with pytest.raises(ValueError, match=r"\(2, 0\)"):  # m = 0, named by its shape
        est._validate_xy(np.zeros((2, 2)), np.zeros((2, 0)))


@pytest.mark.parametrize("est", LEARNERS, ids=lambda e: type(e).__name__)
def test_every_learner_uses_the_base(est):
    assert isinstance(est, MultiLabelMixin)
    tags = est.__sklearn_tags__()
    assert tags.target_tags.multi_output and not tags.target_tags.single_output and tags.input_tags.sparse
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(30, 3)), (rng.random((30, 4)) < 0.4).astype(int)
    est.fit(X, Y)
    H = est.predict(X)
    f = 2 * (Y * H).sum(1) / np.maximum(Y.sum(1) + H.sum(1), 1)
    f[(Y.sum(1) + H.sum(1)) == 0] = 1.0
    assert est.score(X, Y) == pytest.approx(f.mean())
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        est.fit(X, Y * 3)


def test_the_left_out_checks_are_real_check_names():
    # a misspelt name would leave a check in silently; some checks are generated only for
    # single-output classifiers, hence the logistic regression
    names = all_check_names(LogisticRegression()) | all_check_names(KNeighborsFMeasure(n_neighbors=3))
    assert NOT_APPLICABLE - {"check_array_api_input"} <= names


def test_check_labels_names_the_label_and_row_of_a_bad_value():
    from fmeasure.learners.base import check_labels

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
