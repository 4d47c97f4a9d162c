"""VotingEnsemble: member reproduction, brute-force threshold, perfect majority, shared fits."""

from unittest import mock

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from fmeasure.learners import VotingEnsemble
from fmeasure.learners.parametric import EFP, LFP, BinaryRelevance
from fmeasure.learners.pcc import ProbabilisticClassifierChain
from fmeasure.learners.voting import choose_threshold, member_predictions, threshold_scores, validation_split
from fmeasure.metrics import f_measure


def _data(n=160, d=4, m=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :m] + 0.7 * rng.normal(size=(n, m)) > 0).astype(np.int8)
    return X, Y


class _Fixed(BaseEstimator):
    """A member whose prediction is a fixed function of X: the truth, or its complement."""

    def __init__(self, m=3, flip=False):
        self.m = m
        self.flip = flip

    def fit(self, X, Y):
        self.fitted_ = True
        return self

    def predict(self, X):
        h = (np.asarray(X)[:, : self.m] > 0).astype(np.int8)
        return 1 - h if self.flip else h


def test_voting_one_member_reproduces_the_member_exactly():
    X, Y = _data()
    Xt, _ = _data(n=40, seed=1)
    pcc = ProbabilisticClassifierChain(Cs=[0.1, 1.0], cv=3)
    params = {"inference": "fm", "n_samples": 50, "random_state": 3}
    ens = VotingEnsemble([("PCC FM", pcc, params)], random_state=5).fit(X, Y)
    ref = clone(pcc).fit(X, Y).predict(Xt, inference="fm", n_samples=50, random_state=3)
    assert ens.threshold_ == 1
    np.testing.assert_array_equal(ens.predict(Xt), ref)
    # refit=False: the member stays fitted on the training part
    ens = VotingEnsemble([("LFP", LFP(Cs=[1.0], cv=3), {})], refit=False, random_state=5).fit(X, Y)
    keep = np.setdiff1d(np.arange(len(X)), ens.validation_index_)
    ref = LFP(Cs=[1.0], cv=3).fit(X[keep], Y[keep]).predict(Xt)
    np.testing.assert_array_equal(ens.predict(Xt), ref)


def test_voting_threshold_is_the_brute_force_best_on_validation_votes():
    rng = np.random.default_rng(2)
    for M in (1, 2, 5, 16):
        Y = (rng.random((70, 7)) < 0.3).astype(np.int8)
        Y[:5] = 0  # empty label sets: F(0, 0) = 1
        votes = rng.integers(0, M + 1, size=Y.shape)
        brute = np.array([f_measure(Y, (votes >= t).astype(int)).mean() for t in range(1, M + 1)])
        np.testing.assert_allclose(threshold_scores(votes, Y, M), brute, rtol=0, atol=1e-12)
        t, _ = choose_threshold(votes, Y, M)
        assert t == int(np.argmax(brute)) + 1
    # and inside a fitted ensemble, on its own validation votes
    X, Y = _data()
    br = BinaryRelevance(Cs=[1.0], cv=3)
    members = [
        ("BR", br, {"inference": "mm"}),
        ("LFP", br, {"inference": "fm"}),
        ("EFP", EFP(Cs=[1.0], cv=3), {}),
        ("LFP 0.01", LFP(Cs=[0.01], cv=3), {}),
    ]
    ens = VotingEnsemble(members, validation_size=0.25, random_state=1).fit(X, Y)
    V = ens.validation_predictions_.sum(axis=0)
    Yv = Y[ens.validation_index_]
    brute = [f_measure(Yv, (V >= t).astype(int)).mean() for t in range(1, 5)]
    assert ens.threshold_ == int(np.argmax(brute)) + 1
    np.testing.assert_allclose(ens.validation_scores_, brute, atol=1e-12)


def test_voting_three_members_two_perfect_vote_perfectly():
    X, Y = _data(n=200)
    Y = (X[:, :3] > 0).astype(np.int8)
    Xt, _ = _data(n=50, seed=3)
    members = [("good 1", _Fixed(), {}), ("bad", _Fixed(flip=True), {}), ("good 2", _Fixed(), {})]
    ens = VotingEnsemble(members).fit(X, Y)
    assert ens.threshold_ == 2
    assert ens.validation_scores_[1] == 1.0
    np.testing.assert_array_equal(ens.predict(Xt), (Xt[:, :3] > 0).astype(np.int8))


@pytest.mark.parametrize("refit", [True, False])
def test_voting_shared_fits_are_fitted_once(refit):
    X, Y = _data()
    pcc = ProbabilisticClassifierChain(Cs=[1.0], cv=3)
    br = BinaryRelevance(Cs=[1.0], cv=3)
    members = [
        (f"PCC {k} {n} {s}", pcc, {"inference": k, "n_samples": n, "random_state": s})
        for k in ("fm", "gfm")
        for n in (20, 50)
        for s in (1, 2)
    ]
    members += [("BR", br, {"inference": "mm"}), ("LFP", br, {"inference": "fm"})]
    calls = {"pcc": 0, "br": 0, "sample": 0, "marginals": 0}
    pcc_fit, br_fit = ProbabilisticClassifierChain.fit, BinaryRelevance.fit
    sample, marg = ProbabilisticClassifierChain.predict_from_samples, BinaryRelevance.predict_marginals

    def counted(key, fn):
        def wrapper(self, *a, **k):
            calls[key] += 1
            return fn(self, *a, **k)

        return wrapper

    with (
        mock.patch.object(ProbabilisticClassifierChain, "fit", counted("pcc", pcc_fit)),
        mock.patch.object(BinaryRelevance, "fit", counted("br", br_fit)),
        mock.patch.object(ProbabilisticClassifierChain, "predict_from_samples", counted("sample", sample)),
        mock.patch.object(BinaryRelevance, "predict_marginals", counted("marginals", marg)),
    ):
        ens = VotingEnsemble(members, refit=refit).fit(X, Y)
        assert calls == {"pcc": 1 + refit, "br": 1 + refit, "sample": 4, "marginals": 1}
        P = ens.member_predictions(X[:30])
        assert calls["sample"] == 8 and calls["marginals"] == 2
    assert len(ens.estimators_) == 2 and P.shape == (10, 30, 3)
    # the batch gives what each member would predict on its own
    fitted = ens.estimators_[0]
    for k, (_, _, p) in enumerate(members[:8]):
        np.testing.assert_array_equal(P[k], fitted.predict(X[:30], **p))
    np.testing.assert_array_equal(P[8], BinaryRelevance.predict(ens.estimators_[1], X[:30]))
    np.testing.assert_array_equal(P[9], LFP.predict(ens.estimators_[1], X[:30]))


def test_voting_validation_split_is_stratified_by_label_count():
    Y = np.zeros((100, 4), dtype=np.int8)
    Y[:50, 0] = 1
    Y[50:90, :2] = 1
    Y[90:, :3] = 1
    tr, va = validation_split(Y, 0.1, random_state=3)
    assert len(va) == 10 and len(tr) == 90 and not np.intersect1d(tr, va).size
    assert np.bincount(Y[va].sum(axis=1), minlength=4).tolist() == [0, 5, 4, 1]
    # a single-instance stratum is merged with its neighbour, not an error
    Y[99, :] = 1
    tr, va = validation_split(Y, 0.1, random_state=3)
    assert len(va) == 10


def test_voting_rejects_bad_arguments():
    X, Y = _data(n=40)
    with pytest.raises(ValueError, match="members"):
        VotingEnsemble([]).fit(X, Y)
    with pytest.raises(ValueError, match="unique"):
        VotingEnsemble([("a", _Fixed(), {}), ("a", _Fixed(), {})]).fit(X, Y)
    with pytest.raises(ValueError, match="validation_size"):
        VotingEnsemble([("a", _Fixed(), {})], validation_size=1.5).fit(X, Y)
    with pytest.raises(ValueError, match="n_members"):
        threshold_scores(np.zeros((2, 2), int), np.zeros((2, 2), int), 0)
    with pytest.raises(ValueError, match="not fitted"):
        VotingEnsemble([("a", _Fixed(), {})]).predict(X)
    with pytest.raises(ValueError, match="inference"):
        member_predictions(BinaryRelevance(Cs=[1.0], cv=2).fit(X, Y), X, [{"inference": "gfm"}])


@pytest.mark.parametrize("name", ["fmeasure.learners.voting", "fmeasure.experiments.voting"])
def test_voting_docstring_examples_run(name):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0
