"""LabelPowerset, and FOptimalClassifier's powerset route against brute force over {0,1}^m."""

import itertools

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from fmeasure.learners import FOptimalClassifier
from fmeasure.learners.powerset import LabelPowerset


def toy(n=150, m=3, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :m] + 0.7 * rng.normal(size=(n, m)) > 0.2).astype(np.int8)
    Y[:, 0] |= Y[:, 1] & (rng.random(n) < 0.6)  # dependent labels
    return X, Y


def brute_force(sets, proba):
    """For each row of proba (a distribution over the label vectors ``sets``): every h in {0,1}^m
    with its expected F, F(0, 0) = 1. Returns (best value, expected F of each h (n, 2^m), all h)."""
    m = sets.shape[1]
    H = np.array(list(itertools.product((0, 1), repeat=m)))
    tp = H @ sets.T  # (2^m, K)
    den = H.sum(1)[:, None] + sets.sum(1)[None, :]
    F = np.where(den == 0, 1.0, 2 * tp / np.maximum(den, 1))
    E = proba @ F.T  # (n, 2^m)
    return E.max(axis=1), E, H


def test_powerset_classes_are_the_distinct_label_sets():
    X, Y = toy()
    lp = LabelPowerset(LogisticRegression()).fit(X, Y)
    expected = sorted(map(tuple, Y.tolist()))
    assert sorted(map(tuple, lp.label_sets_.tolist())) == sorted(set(expected))
    # the classifier was trained on the index of each row's label set
    rows = {tuple(s): i for i, s in enumerate(lp.label_sets_.tolist())}
    ids = np.array([rows[tuple(y)] for y in Y.tolist()])
    by_hand = LogisticRegression().fit(X, ids)
    np.testing.assert_allclose(lp.predict_set_proba(X[:20]), by_hand.predict_proba(X[:20]))
    # predict_proba: the marginals of that distribution
    np.testing.assert_allclose(lp.predict_proba(X[:20]), by_hand.predict_proba(X[:20]) @ lp.label_sets_)
    # predict: the most probable label set
    P = by_hand.predict_proba(X[:20])
    np.testing.assert_array_equal(lp.predict(X[:20]), lp.label_sets_[P.argmax(1)])


def test_powerset_of_one_label_set_predicts_it():
    X, _ = toy(n=10)
    Y = np.tile([1, 0, 1], (10, 1))
    lp = LabelPowerset(LogisticRegression()).fit(X, Y)
    assert lp.predict_set_proba(X[:3]).tolist() == [[1.0]] * 3
    assert lp.predict(X[:2]).tolist() == [[1, 0, 1]] * 2


@pytest.mark.parametrize("m", [3, 4])
def test_foptimal_powerset_route_maximises_over_the_label_sets(m):
    X, Y = toy(m=m, seed=m)
    clf = FOptimalClassifier(LabelPowerset(make_pipeline(StandardScaler(), LogisticRegression(C=5.0)))).fit(X, Y)
    assert clf.route_ == "powerset+gfm"
    Xq = X[:40]
    lp = clf.estimator_
    proba = lp.predict_set_proba(Xq)
    best, E, H_all = brute_force(lp.label_sets_, proba)
    H = clf.predict(Xq)
    idx = [int("".join(map(str, h)), 2) for h in H.tolist()]  # row of h in itertools.product order
    np.testing.assert_allclose(E[np.arange(len(H)), idx], best, atol=1e-9)
    np.testing.assert_allclose(clf.predict_expected_f(Xq), best, atol=1e-9)
    # the route's marginals are those of the distribution over the label sets
    np.testing.assert_allclose(clf.predict_marginals(Xq), proba @ lp.label_sets_, atol=1e-12)
    Ys, w = clf.label_samples(Xq[:5])
    assert Ys.shape == (5, len(lp.label_sets_), m)
    np.testing.assert_allclose(w, proba[:5])


def test_powerset_bad_input_gives_one_clear_error():
    X, Y = toy()
    with pytest.raises(ValueError, match="y must be a binary"):
        LabelPowerset(LogisticRegression()).fit(X, Y * 2)
    with pytest.raises(ValueError, match=r"^y has 149 rows but X has 150$"):
        LabelPowerset(LogisticRegression()).fit(X, Y[1:])
    with pytest.raises(ValueError, match="estimator"):
        LabelPowerset(LinearSVC()).fit(X, Y)  # no predict_proba
