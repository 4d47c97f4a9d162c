"""The shared tuned logistic regression: the chosen C minimises an independently computed CV log loss."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from fmeasure.learners.logistic import ConstantProbability, fit_logistic_cv, positive_proba


def _data(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_fit_logistic_cv_chooses_c_with_best_cv_log_loss():
    X, y = _data()
    Cs = (1e-3, 1e-1, 1e1)
    model = fit_logistic_cv(X, y, Cs=Cs, cv=5, random_state=3)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=3).split(X, y))
    ref = []
    for C in Cs:
        losses = []
        for tr, te in folds:
            m = LogisticRegression(C=C, max_iter=5000, tol=1e-10).fit(X[tr], y[tr])
            losses.append(log_loss(y[te], m.predict_proba(X[te]), labels=[0, 1]))
        ref.append(np.mean(losses))
    np.testing.assert_allclose(model.cv_log_loss_, ref, rtol=1e-3)
    assert model.C_ == Cs[int(np.argmin(ref))]


def test_fit_logistic_cv_multiclass_and_rare_class():
    X, _ = _data(n=200)
    y = np.arange(200) % 3
    y[0] = 7  # a class with a single member: no stratification possible, must not crash
    model = fit_logistic_cv(X, y, Cs=(0.1, 1.0), cv=5)
    proba = model.predict_proba(X)
    assert proba.shape == (200, 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(model.classes_) == [0, 1, 2, 7]


@pytest.mark.parametrize("value", [0, 1])
def test_fit_logistic_cv_constant_target_predicts_empirical_rate(value):
    X, _ = _data(n=20)
    model = fit_logistic_cv(X, np.full(20, value), Cs=(1.0,))
    assert isinstance(model, ConstantProbability)
    np.testing.assert_array_equal(positive_proba(model, X), np.full(20, float(value)))


def test_fit_logistic_cv_rejects_bad_input():
    X, y = _data(n=10)
    with pytest.raises(ValueError, match="rows"):
        fit_logistic_cv(X, y[:5])
    with pytest.raises(ValueError, match="Cs"):
        fit_logistic_cv(X, y, Cs=(0.0, 1.0))
