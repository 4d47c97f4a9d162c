"""``predict_expected_f`` and ``predict_marginals`` of every learner against brute force over {0,1}^m.

Each learner's distribution of the labels is rebuilt by hand from its fitted state (the marginals
of BR and LFP taken as independent, EFP's P and P(y = 0), the neighbours', the chain's draws, the
powerset's label sets, a leaf's or the pooled leaves' training vectors, the members' predictions),
then the expected F of every label set h in {0,1}^m is enumerated: the learner's expected F must be
that of its prediction, and the largest of all where its inference is F-optimal for the
distribution (FM for independent marginals, GFM otherwise).
"""

import itertools

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from fmeasure.learners import (
    EFP,
    LFP,
    BaggedFMeasureTrees,
    BinaryRelevance,
    FMeasureTree,
    FOptimalSearchCV,
    KNeighborsFMeasure,
    LabelPowerset,
    ProbabilisticClassifierChain,
    VotingEnsemble,
)

M = 3
V = np.array(list(itertools.product([0, 1], repeat=M)), dtype=np.int8)  # every label set, row k = bits of k


def f_table(Y, H):
    """F[y, h] of every pair of rows (F(0, 0) = 1)."""
    tp = Y.astype(float) @ H.T.astype(float)
    den = Y.sum(1)[:, None] + H.sum(1)[None, :]
    return np.where(den == 0, 1.0, 2 * tp / np.maximum(den, 1))


FV = f_table(V, V)  # FV[y, h]


def code(H):
    """Row of V of each label set of H (n, M)."""
    return np.asarray(H, dtype=np.int64) @ (2 ** np.arange(M - 1, -1, -1))


def empirical(samples, weights=None):
    """Distribution over V (n, 2^M) of weighted label vectors (n, K, M)."""
    samples = np.asarray(samples)
    n, K, _ = samples.shape
    w = np.ones((n, K)) if weights is None else np.asarray(weights, dtype=float)
    D = np.zeros((n, len(V)))
    np.add.at(D, (np.repeat(np.arange(n), K), code(samples.reshape(-1, M))), w.ravel())
    return D / D.sum(1, keepdims=True)


def independent(P):
    """Distribution over V (n, 2^M) of independent labels with marginals P (n, M)."""
    return np.prod(np.where(V[None] == 1, P[:, None, :], 1 - P[:, None, :]), axis=2)


def check(model, X, D, *, optimal=True):
    """The model's prediction, expected F and marginals against the distribution D over V."""
    E = D @ FV  # E[n, h]: expected F of every label set
    H, vals = model.predict(X), model.predict_expected_f(X)
    np.testing.assert_allclose(vals, E[np.arange(len(X)), code(H)], atol=1e-9)
    if optimal:
        np.testing.assert_allclose(vals, E.max(1), atol=1e-9)
    np.testing.assert_allclose(model.predict_marginals(X), D @ V, atol=1e-9)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    Y = (X[:, :M] + 0.9 * rng.normal(size=(120, M)) > 0.3).astype(np.int8)
    Y[:, 2] |= Y[:, 0] & (rng.random(120) < 0.5)  # dependent labels
    return X[:90], Y[:90], X[90:]


@pytest.mark.parametrize("cls", [BinaryRelevance, LFP])
def test_expected_f_of_independent_marginals(data, cls):
    X, Y, Xq = data
    model = cls(Cs=[1.0], cv=3).fit(X, Y)
    P = model.predict_marginals(Xq)
    # BR thresholds the marginals, which FM need not do: its expected F is that of its own set
    check(model, Xq, independent(P), optimal=cls is LFP)
    if cls is BinaryRelevance:
        np.testing.assert_array_equal(model.predict(Xq), P > 0.5)


def test_expected_f_of_efp_is_gfm_on_its_p_matrix(data):
    X, Y, Xq = data
    efp = EFP(Cs=[1.0], cv=3).fit(X, Y)
    P, p0 = efp.predict_p_matrix(Xq)  # (n, M, M): P(y_i = 1, s_y = s)
    s = np.arange(1, M + 1)
    # E[F(y, h)] = sum_{i in h} sum_s 2 P_is / (s + |h|), plus P(y = 0) for the empty h (the paper's eq. 8)
    E = np.stack([(P * h[None, :, None] * 2 / (s + h.sum())).sum((1, 2)) + p0 * (h.sum() == 0) for h in V], axis=1)
    H, vals = efp.predict(Xq), efp.predict_expected_f(Xq)
    np.testing.assert_allclose(vals, E[np.arange(len(Xq)), code(H)], atol=1e-9)
    np.testing.assert_allclose(vals, E.max(1), atol=1e-9)
    np.testing.assert_allclose(efp.predict_marginals(Xq), P.sum(2), atol=1e-12)


@pytest.mark.parametrize("inference", ["gfm", "fm", "mm", "jm"])
@pytest.mark.parametrize("ties", ["index", "all"])
def test_expected_f_of_the_neighbours(data, inference, ties):
    X, Y, Xq = data
    X = np.round(X, 1)  # ties in distance
    knn = KNeighborsFMeasure(n_neighbors=7, inference=inference, ties=ties).fit(X, Y)
    _, ind = knn.kneighbors(Xq)
    D = empirical(Y[np.maximum(ind, 0)], ind >= 0)
    check(knn, Xq, D, optimal=inference == "gfm")


@pytest.mark.parametrize("sampler", ["dense", "tree"])
@pytest.mark.parametrize("inference", ["gfm", "jm", "mm"])
def test_expected_f_of_the_chains_samples(data, inference, sampler):
    X, Y, Xq = data
    pcc = ProbabilisticClassifierChain(Cs=[1.0], cv=3, n_samples=40, inference=inference, sampler=sampler).fit(X, Y)
    if sampler == "dense":
        D = empirical(pcc.sample(Xq))  # the draws predict makes: same seed, same chunks
    else:
        draws = pcc.sample_counts(Xq)
        D = np.zeros((len(Xq), len(V)))
        for i, (Ys, counts) in enumerate(draws):
            np.add.at(D[i], code(Ys), counts)
        D /= D.sum(1, keepdims=True)
    check(pcc, Xq, D, optimal=inference == "gfm")


def test_expected_f_of_the_chain_tends_to_its_exact_maximum(data):
    X, Y, Xq = data
    pcc = ProbabilisticClassifierChain(Cs=[1.0], cv=3, n_samples=20_000).fit(X, Y)
    _, exact = pcc.exact_f_maximizer(Xq)  # GFM on the chain's exact distribution over {0,1}^3
    np.testing.assert_allclose(pcc.predict_expected_f(Xq), exact, atol=0.02)
    support, probs = pcc.joint_distribution(Xq)
    np.testing.assert_allclose(pcc.predict_marginals(Xq), probs @ support, atol=0.02)


def test_expected_f_of_the_powerset(data):
    X, Y, Xq = data
    lp = LabelPowerset(LogisticRegression()).fit(X, Y)
    D = np.zeros((len(Xq), len(V)))
    D[:, code(lp.label_sets_)] = lp.predict_set_proba(Xq)
    check(lp, Xq, D, optimal=False)  # the joint mode, not the F-maximiser
    np.testing.assert_array_equal(code(lp.predict(Xq)), D.argmax(1))


def test_expected_f_of_a_tree_is_its_leafs(data):
    X, Y, Xq = data
    tree = FMeasureTree(max_depth=3, min_samples_leaf=4).fit(X, Y)
    leaf = tree.apply(Xq)
    D = np.stack([empirical(Y[None, tree.train_leaf_ == j])[0] for j in leaf])
    check(tree, Xq, D)


@pytest.mark.parametrize("prediction", ["pooled", "vote"])
def test_expected_f_of_the_bagged_trees(data, prediction):
    X, Y, Xq = data
    bag = BaggedFMeasureTrees(n_estimators=4, max_depth=3, prediction=prediction, random_state=0).fit(X, Y)
    leaves = bag.apply(Xq)
    if prediction == "pooled":  # every training vector, weighted by its multiplicity in the trees it shares a leaf in
        W = np.stack([(bag.multiplicity_ * (bag.train_leaves_ == q)).sum(1) for q in leaves])
        D = empirical(np.broadcast_to(Y, (len(Xq), *Y.shape)), W)
    else:  # the trees' predictions
        D = empirical(np.stack([t.value_[leaves[:, b]] for b, t in enumerate(bag.estimators_)], axis=1))
    check(bag, Xq, D)


def test_expected_f_of_the_vote_is_under_the_members_predictions(data):
    X, Y, Xq = data
    br = BinaryRelevance(Cs=[1.0], cv=3)
    members = [("BR", br, {"inference": "mm"}), ("LFP", br, {"inference": "fm"}), ("kNN", KNeighborsFMeasure(5), {})]
    ens = VotingEnsemble(members, random_state=0).fit(X, Y)
    D = empirical(ens.member_predictions(Xq).transpose(1, 0, 2))
    check(ens, Xq, D, optimal=False)


@pytest.mark.parametrize("route", ["efp", "lfp", "knn", "chain"])
def test_search_expected_f_and_marginals_whatever_route_won(data, route):
    X, Y, Xq = data
    search = FOptimalSearchCV([route], cv=2, random_state=0).fit(X, Y)
    assert search.best_candidate_ == route
    winner = search.best_estimator_
    np.testing.assert_allclose(search.predict_expected_f(Xq), winner.predict_expected_f(Xq))
    np.testing.assert_allclose(search.predict_marginals(Xq), winner.predict_marginals(Xq))
