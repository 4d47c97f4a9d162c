"""F-measure decision trees and their bagging: counts, splits, leaves, ensembles, API."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from fmeasure.estimation import p_matrix
from fmeasure.inference import brute_force, gfm_from_p
from fmeasure.learners import BaggedFMeasureTrees, FMeasureTree
from fmeasure.learners.trees import (
    gfm_from_counts,
    gfm_values,
    label_contributions,
    pooled_leaf_gfm,
    split_statistics,
)
from fmeasure.metrics import f_measure


def _random_node(seed, n=40, m=5, distinct=12):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, distinct, n).astype(float) / 3.0  # ties between examples
    Y = (rng.random((n, m)) < 0.3).astype(np.int8)
    Y[:3] = 0  # some empty label vectors
    return x, Y


def _best_mean_f(Y):
    """F(A) by brute force over all 2^m predictions: the best mean F on the label vectors Y."""
    m = Y.shape[1]
    H = np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.int8)
    return max(f_measure(Y, np.broadcast_to(h, Y.shape)).mean() for h in H)


@pytest.mark.parametrize("seed", range(4))
def test_trees_incremental_statistics_match_from_scratch(seed):
    x, Y = _random_node(seed)
    thr, P, p0, n_left = split_statistics(x, Y)
    vals = np.unique(x)
    np.testing.assert_allclose(thr, (vals[:-1] + vals[1:]) / 2)  # every distinct value is a candidate
    for t, Pt, zt, nt in zip(thr, P, p0, n_left):
        left = x <= t
        P_ref, z_ref = p_matrix(Y[left])
        assert nt == left.sum()
        np.testing.assert_allclose(Pt, P_ref, atol=1e-12)
        assert zt == pytest.approx(z_ref, abs=1e-12)


def test_trees_max_bins_thins_candidates_to_quantiles():
    rng = np.random.default_rng(0)
    x = rng.random(500)
    Y = (rng.random((500, 3)) < 0.4).astype(np.int8)
    thr, P, p0, n_left = split_statistics(x, Y, max_bins=8)
    assert len(thr) <= 7
    # about equal-frequency bins
    assert np.all(np.abs(np.diff(np.r_[0, n_left, 500]) - 500 / 8) < 500 / 8 * 0.5)
    for t, Pt in zip(thr, P):
        np.testing.assert_allclose(Pt, p_matrix(Y[x <= t])[0], atol=1e-12)


def test_trees_gfm_values_match_gfm_from_p():
    rng = np.random.default_rng(1)
    Y = (rng.random((60, 6)) < 0.35).astype(np.int8)
    Z, smax = label_contributions(Y)
    groups = rng.random((25, 60)) < 0.5
    C = np.stack([np.asarray(Z[g].sum(axis=0)).ravel() for g in groups])
    ref = np.array([gfm_from_p(*p_matrix(Y[g]))[1] for g in groups])
    np.testing.assert_allclose(gfm_values(C, 6, smax), ref, atol=1e-12)
    np.testing.assert_allclose(gfm_from_counts(C, 6, smax)[1], ref, atol=1e-12)
    np.testing.assert_allclose(ref, [_best_mean_f(Y[g]) for g in groups[:5]] + list(ref[5:]), atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_trees_root_split_maximises_q_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, d, m = 24, 3, 4
    X = rng.integers(0, 6, (n, d)).astype(float)
    Y = (rng.random((n, m)) < 0.4).astype(np.int8)
    tree = FMeasureTree(max_depth=1, max_bins=None, min_gain=-1.0).fit(X, Y)
    best = -1.0
    for j in range(d):
        v = np.unique(X[:, j])
        for t in (v[:-1] + v[1:]) / 2:
            L = X[:, j] <= t
            q = (L.sum() * _best_mean_f(Y[L]) + (~L).sum() * _best_mean_f(Y[~L])) / n
            best = max(best, q)
    L = X[:, tree.feature_[0]] <= tree.threshold_[0]
    q_tree = (L.sum() * _best_mean_f(Y[L]) + (~L).sum() * _best_mean_f(Y[~L])) / n
    assert q_tree == pytest.approx(best, abs=1e-12)
    assert tree.node_f_[0] == pytest.approx(_best_mean_f(Y), abs=1e-12)


def test_trees_one_threshold_data_split_there_with_training_f_one():
    rng = np.random.default_rng(3)
    n = 200
    X = rng.random((n, 4))
    above = X[:, 2] > 0.37
    Y = np.where(above[:, None], [1, 1, 0, 0, 1], [0, 1, 1, 0, 0]).astype(np.int8)
    tree = FMeasureTree(max_bins=None).fit(X, Y)
    assert tree.feature_[0] == 2
    lo, hi = X[~above, 2].max(), X[above, 2].min()
    assert tree.threshold_[0] == pytest.approx((lo + hi) / 2)
    assert len(tree.feature_) == 3  # both children are pure: F(N) = 1 stops
    assert f_measure(Y, tree.predict(X)).mean() == 1.0


def test_trees_depth_zero_predicts_gfm_of_training_set():
    rng = np.random.default_rng(5)
    X = rng.random((80, 3))
    Y = (rng.random((80, 5)) < np.array([0.6, 0.5, 0.2, 0.1, 0.05])).astype(np.int8)
    tree = FMeasureTree(max_depth=0).fit(X, Y)
    support, counts = np.unique(Y, axis=0, return_counts=True)
    h_ref, v_ref = brute_force(support, counts / counts.sum())
    H = tree.predict(rng.random((7, 3)))
    assert len(tree.feature_) == 1
    np.testing.assert_array_equal(H, np.broadcast_to(h_ref, H.shape))
    assert tree.node_f_[0] == pytest.approx(v_ref, abs=1e-12)


def test_trees_sparse_equals_dense():
    rng = np.random.default_rng(7)
    X = rng.random((150, 12)) * (rng.random((150, 12)) < 0.3)  # mostly zeros
    X[:, 3] -= 0.2 * (rng.random(150) < 0.2)  # negative values: the zero bin sits inside
    Y = (rng.random((150, 4)) < 0.3).astype(np.int8)
    Y[X[:, 0] > 0.5, 1] = 1
    for mb in (None, 4):
        dense = FMeasureTree(min_samples_leaf=3, max_bins=mb).fit(X, Y)
        sparse = FMeasureTree(min_samples_leaf=3, max_bins=mb).fit(sp.csr_matrix(X), Y)
        np.testing.assert_array_equal(dense.feature_, sparse.feature_)
        np.testing.assert_allclose(dense.threshold_, sparse.threshold_)
        np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))
        assert len(dense.feature_) > 3


def test_trees_min_samples_leaf_and_max_depth_hold():
    rng = np.random.default_rng(8)
    X = rng.random((300, 5))
    Y = (rng.random((300, 6)) < 0.3).astype(np.int8)
    tree = FMeasureTree(min_samples_leaf=10, max_depth=4).fit(X, Y)
    leaves = tree.feature_ < 0
    assert tree.n_node_samples_[leaves].min() >= 10
    assert tree.depth_.max() <= 4
    np.testing.assert_array_equal(
        np.bincount(tree.apply(X), minlength=len(leaves))[leaves], tree.n_node_samples_[leaves]
    )


@pytest.mark.parametrize("sparse", [False, True])
def test_trees_bag_of_one_without_bootstrap_equals_tree(sparse):
    rng = np.random.default_rng(9)
    X = rng.random((120, 6)) * (rng.random((120, 6)) < 0.5)
    Y = (rng.random((120, 5)) < 0.3).astype(np.int8)
    Xq = rng.random((50, 6))
    if sparse:
        X, Xq = sp.csr_matrix(X), sp.csr_matrix(Xq)
    tree = FMeasureTree(min_samples_leaf=4, max_bins=16).fit(X, Y)
    for how in ("pooled", "vote"):
        bag = BaggedFMeasureTrees(
            n_estimators=1, bootstrap=False, prediction=how, min_samples_leaf=4, max_bins=16, random_state=0
        ).fit(X, Y)
        np.testing.assert_array_equal(bag.predict(Xq), tree.predict(Xq))
        np.testing.assert_array_equal(bag.predict(X), tree.predict(X))


def test_trees_bag_is_deterministic_under_seed_for_any_n_jobs():
    rng = np.random.default_rng(10)
    X = rng.random((100, 4))
    Y = (rng.random((100, 4)) < 0.3).astype(np.int8)
    kw = dict(n_estimators=4, min_samples_leaf=3, max_features="sqrt", random_state=42)
    a = BaggedFMeasureTrees(n_jobs=1, **kw).fit(X, Y)
    b = BaggedFMeasureTrees(n_jobs=2, **kw).fit(X, Y)
    c = BaggedFMeasureTrees(n_jobs=1, **{**kw, "random_state": 43}).fit(X, Y)
    np.testing.assert_array_equal(a.multiplicity_, b.multiplicity_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict(X, prediction="vote"), b.predict(X, prediction="vote"))
    assert not np.array_equal(a.multiplicity_, c.multiplicity_)


def test_trees_pooled_leaf_gfm_matches_explicit_pooling():
    rng = np.random.default_rng(11)
    Y = (rng.random((30, 4)) < 0.4).astype(np.int8)
    train_leaves = rng.integers(0, 3, (30, 2))
    mult = rng.integers(0, 3, (30, 2))
    query = np.array([[0, 1], [2, 2], [1, 0]])
    H, V = pooled_leaf_gfm(train_leaves, query, Y, mult)
    for q, h, v in zip(query, H, V):
        w = ((train_leaves == q) * mult).sum(axis=1)  # multiplicity of each example in the pool
        pool = np.repeat(Y, w, axis=0)
        support, counts = np.unique(pool, axis=0, return_counts=True)
        h_ref, v_ref = brute_force(support, counts / counts.sum())
        np.testing.assert_array_equal(h, h_ref)
        assert v == pytest.approx(v_ref, abs=1e-12)


@pytest.mark.parametrize(
    "params, name",
    [
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"max_depth": -1}, "max_depth"),
        ({"max_bins": 1}, "max_bins"),
        ({"min_gain": float("nan")}, "min_gain"),
        ({"max_features": 0}, "max_features"),
    ],
)
def test_trees_bad_parameters_name_the_argument(params, name):
    X, Y = np.arange(8.0).reshape(4, 2), np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    with pytest.raises(ValueError, match=name):
        FMeasureTree(**params).fit(X, Y)
    with pytest.raises(ValueError, match=name):
        BaggedFMeasureTrees(n_estimators=1, **params).fit(X, Y)


def test_trees_rejects_non_binary_targets():
    with pytest.raises(ValueError, match="0/1"):
        FMeasureTree().fit(np.arange(8.0).reshape(4, 2), np.array([[0, 2], [1, 0], [0, 1], [1, 1]]))
    with pytest.raises(ValueError, match="prediction"):
        BaggedFMeasureTrees(prediction="mean").fit(np.arange(8.0).reshape(4, 2), np.eye(4, 2))


@pytest.mark.parametrize("module", ["counts", "binning", "splitter", "estimators"])
def test_trees_docstring_examples(module):
    import doctest
    import importlib

    mod = importlib.import_module(f"fmeasure.learners.trees.{module}")
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0


def test_trees_bound_pruning_keeps_the_exact_search(monkeypatch):
    # Q computed at every candidate (COARSE = 1) and with the bound-pruned search grow the same tree
    import fmeasure.learners.trees.splitter as trees_mod

    rng = np.random.default_rng(12)
    X = np.round(rng.random((400, 6)), 2)
    Y = (rng.random((400, 5)) < 0.3).astype(np.int8)
    Y[X[:, 1] > 0.6, 2] = 1
    pruned = FMeasureTree(min_samples_leaf=3, max_bins=None).fit(X, Y)
    monkeypatch.setattr(trees_mod, "COARSE", 1)
    full = FMeasureTree(min_samples_leaf=3, max_bins=None).fit(X, Y)
    np.testing.assert_array_equal(pruned.feature_, full.feature_)
    np.testing.assert_array_equal(pruned.threshold_, full.threshold_)
    np.testing.assert_array_equal(pruned.value_, full.value_)
    assert len(full.feature_) > 5


def test_trees_root_split_with_skipped_candidates_maximises_q_by_brute_force(monkeypatch):
    # a node with many candidates: the bounds leave some unscored, and the split is still the best
    import fmeasure.learners.trees.splitter as splitter

    rng = np.random.default_rng(13)
    n, d, m = 160, 2, 4
    X = np.round(rng.random((n, d)), 2)
    Y = (rng.random((n, m)) < 0.35).astype(np.int8)
    Y[X[:, 1] > 0.7, 0] = 1
    scored = []
    original = splitter.split_values
    monkeypatch.setattr(splitter, "split_values", lambda L, rows, *a: scored.append(len(rows)) or original(L, rows, *a))
    tree = FMeasureTree(max_depth=1, max_bins=None, min_gain=-1.0).fit(X, Y)
    best, n_cand = -1.0, 0
    for j in range(d):
        v = np.unique(X[:, j])
        for t in (v[:-1] + v[1:]) / 2:
            L = X[:, j] <= t
            n_cand += 1
            best = max(best, (L.sum() * _best_mean_f(Y[L]) + (~L).sum() * _best_mean_f(Y[~L])) / n)
    assert sum(scored) < n_cand  # some candidates were never scored
    L = X[:, tree.feature_[0]] <= tree.threshold_[0]
    q_tree = (L.sum() * _best_mean_f(Y[L]) + (~L).sum() * _best_mean_f(Y[~L])) / n
    assert q_tree == pytest.approx(best, abs=1e-12)
