"""The F-measure structured SVM (RML): solver certificates, learning behaviour and scikit-learn API."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from fmeasure.learners import FMeasureSSVM
from fmeasure.learners.parametric import LFP
from fmeasure.learners.ssvm import bcfw
from fmeasure.metrics import f_measure


def _f(y, h):
    tp, sy, sh = int(np.sum(y * h)), int(np.sum(y)), int(np.sum(h))
    return 1.0 if sy + sh == 0 else 2.0 * tp / (sy + sh)


def _toy(n=150, d=4, m=3, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    B = rng.normal(size=(d, m))
    Y = (X @ B + noise * rng.normal(size=(n, m)) > 0.3).astype(np.int8)
    return np.hstack([X, np.ones((n, 1))]), Y


def test_ssvm_primal_dual_against_brute_force():
    """The reported primal is 1/2 lam ||W||^2 + mean of the structured hinge taken over all 2^m
    vectors; W is the dual's X'A / (lam n); dual = mean(ell) - 1/2 lam ||W||^2 <= primal."""
    Xa, Y = _toy(n=60, m=4)
    C = 3.0
    res = bcfw(Xa, Y, C, tol=1e-6, max_iter=7, batch_size=5, random_state=0)
    lam, n = 1.0 / C, Xa.shape[0]
    W = res["W"]
    np.testing.assert_allclose(W, Xa.T @ res["A"] / (lam * n), atol=1e-10)
    S = Xa @ W
    hinge = []
    for s, y in zip(S, Y):
        best = max(float(np.array(h) @ s) + 1 - _f(y, np.array(h)) for h in itertools.product([0, 1], repeat=4))
        hinge.append(best - float(s @ y))
    reg = 0.5 * lam * float(np.sum(W * W))
    assert res["primal"] == pytest.approx(reg + np.mean(hinge), abs=1e-10)
    assert res["dual"] == pytest.approx(np.mean(res["ell"]) - reg, abs=1e-10)
    assert res["gap"] == pytest.approx(res["primal"] - res["dual"]) and res["gap"] >= 0
    # each a_n is a convex combination of y_n - h: its entries lie between y - 1 and y
    assert np.all(res["A"] <= Y + 1e-12) and np.all(res["A"] >= Y - 1 - 1e-12)


@pytest.mark.parametrize("batch_size", [1, 7, 64])
def test_ssvm_dual_objective_never_decreases(batch_size):
    Xa, Y = _toy(n=120, m=5, seed=batch_size)
    res = bcfw(Xa, Y, 10.0, tol=1e-9, max_iter=15, batch_size=batch_size, random_state=1)
    d = np.diff(res["dual_history"])
    assert np.all(d >= -1e-12), d.min()
    assert res["stopped_by"] == "max_iter" and res["n_iter"] == 15
    assert res["gap_history"][-1] < res["gap_history"][0]


def test_ssvm_stops_on_gap_below_tolerance():
    Xa, Y = _toy(n=100, m=3, seed=3)
    res = bcfw(Xa, Y, 1.0, tol=1e-3, max_iter=1000, batch_size=4, random_state=0)
    assert res["stopped_by"] == "tol" and res["gap"] <= 1e-3 and res["n_iter"] < 1000
    model = FMeasureSSVM(Cs=(1.0,), tol=1e-3).fit(Xa[:, :-1], Y)
    assert model.stopped_by_ == "tol" and model.duality_gap_ <= 1e-3
    capped = FMeasureSSVM(Cs=(1000.0,), tol=1e-8, max_iter=2).fit(Xa[:, :-1], Y)
    assert capped.stopped_by_ == "max_iter" and capped.n_iter_ == 2 and capped.duality_gap_ > 1e-8


def test_ssvm_warm_start_reaches_same_optimum():
    Xa, Y = _toy(n=80, m=3, seed=5)
    tol = 1e-5
    cold = bcfw(Xa, Y, 5.0, tol=tol, max_iter=5000, batch_size=4, random_state=0)
    first = bcfw(Xa, Y, 0.5, tol=tol, max_iter=5000, batch_size=4, random_state=0)
    warm = bcfw(Xa, Y, 5.0, tol=tol, max_iter=5000, batch_size=4, random_state=0, init=(first["A"], first["ell"]))
    assert cold["stopped_by"] == warm["stopped_by"] == "tol"
    assert abs(cold["primal"] - warm["primal"]) <= 2 * tol
    # strong convexity (lam = 1 / C): ||w - w*||^2 <= 2 gap / lam for each, so the two are close
    assert np.sqrt(np.sum((cold["W"] - warm["W"]) ** 2)) <= 2 * np.sqrt(2 * tol * 5.0) + 1e-12


def test_ssvm_linear_labels_reach_training_f_one():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    B = rng.normal(size=(5, 3))
    Z = X @ B
    keep = np.all(np.abs(Z) > 0.3, axis=1)  # a margin around every label's hyperplane
    X, Y = X[keep], (Z[keep] > 0).astype(np.int8)
    model = FMeasureSSVM(Cs=(1e4,), tol=1e-4, max_iter=2000, random_state=0).fit(X, Y)
    assert np.mean(f_measure(Y, model.predict(X))) == 1.0


def test_ssvm_independent_labels_close_to_lfp():
    """Labels drawn independently given x from logistic models: LFP (marginals + Ye et al.'s FM) is
    F-optimal for the true model; RML, tuned by CV like it, must come within 2 points of F."""
    rng = np.random.default_rng(11)
    n, d, m = 1500, 6, 5
    B = rng.normal(scale=1.5, size=(d, m))
    c = rng.normal(loc=-0.8, size=m)
    X = rng.normal(size=(n, d))
    P = 1 / (1 + np.exp(-(X @ B + c)))
    Y = (rng.random((n, m)) < P).astype(np.int8)
    tr, te = slice(0, 1000), slice(1000, None)
    Cs = (0.1, 1.0, 10.0, 100.0)
    lfp = LFP(Cs=Cs, cv=3, random_state=0).fit(X[tr], Y[tr])
    rml = FMeasureSSVM(Cs=Cs, cv=3, random_state=0, max_iter=300).fit(X[tr], Y[tr])
    f_lfp = 100 * np.mean(f_measure(Y[te], lfp.predict(X[te])))
    f_rml = 100 * np.mean(f_measure(Y[te], rml.predict(X[te])))
    assert abs(f_rml - f_lfp) <= 2.0, (f_rml, f_lfp)


def test_ssvm_sparse_input_equals_dense():
    Xa, Y = _toy(n=90, d=6, m=3, seed=2)
    X = np.where(np.abs(Xa[:, :-1]) > 0.8, Xa[:, :-1], 0.0)
    dense = FMeasureSSVM(Cs=(1.0,), standardize=False).fit(X, Y)
    sparse = FMeasureSSVM(Cs=(1.0,), standardize=False).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-10)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X), atol=1e-10)


def test_ssvm_cv_picks_best_mean_f_and_refits():
    Xa, Y = _toy(n=120, m=3, seed=4)
    model = FMeasureSSVM(Cs=(1e-3, 1.0, 10.0), cv=3, random_state=0).fit(Xa[:, :-1], Y)
    assert model.cv_scores_.shape == (3,)
    assert model.C_ == (1e-3, 1.0, 10.0)[int(np.argmax(model.cv_scores_))]
    assert model.coef_.shape == (3, 4) and model.intercept_.shape == (3,)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"Cs": ()}, "Cs"),
        ({"Cs": (-1.0,)}, "Cs"),
        ({"cv": 1}, "cv"),
        ({"tol": 0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"batch_size": 2.5}, "batch_size"),
        ({"patience": 0}, "patience"),
        ({"refit_tol": 0.0}, "refit_tol"),
    ],
)
def test_ssvm_rejects_bad_parameters(kw, match):
    Xa, Y = _toy(n=20)
    with pytest.raises(ValueError, match=match):
        FMeasureSSVM(**kw).fit(Xa, Y)


def test_ssvm_rejects_non_binary_targets():
    Xa, Y = _toy(n=20)
    with pytest.raises(ValueError, match="binary"):
        FMeasureSSVM(Cs=(1.0,)).fit(Xa, Y * 2)


def test_ssvm_blocks_partition_by_label_count():
    from fmeasure.learners.ssvm import _blocks

    counts = np.array([0, 2, 2, 1, 2, 0, 1, 2, 2, 2, 1])
    blocks = _blocks(counts, 2, np.random.default_rng(0))
    flat = np.concatenate(blocks)
    assert sorted(flat.tolist()) == list(range(counts.size))  # every example once
    assert all(np.unique(counts[b]).size == 1 and b.size <= 2 for b in blocks)  # one count per block


def test_ssvm_warm_start_is_shrunk_to_the_best_dual_on_the_segment():
    """The init (A, ell) at a new C is scaled by t in [0, 1]: the starting dual is the maximum of
    t mean(ell) - t^2 ||X'A||^2 / (2 lam n^2), checked against a grid of t."""
    Xa, Y = _toy(n=90, m=3, seed=7)
    first = bcfw(Xa, Y, 0.05, tol=1e-6, max_iter=200, batch_size=4, random_state=0)
    A, ell = first["A"], first["ell"]
    C = 5000.0  # much larger: the unscaled dual would be far worse
    lam, n = 1.0 / C, Xa.shape[0]
    q = np.sum((Xa.T @ A) ** 2) / (lam * n * n)
    grid = np.linspace(0, 1, 2001)
    best = np.max(grid * ell.mean() - 0.5 * grid**2 * q)
    res = bcfw(Xa, Y, C, tol=1e-12, max_iter=1, batch_size=4, random_state=0, init=(A, ell))
    assert res["dual_history"][0] == pytest.approx(best, abs=1e-6)
    assert res["dual_history"][0] > ell.mean() - 0.5 * q + 1e-6  # better than no shrinking


def test_ssvm_extends_the_grid_while_the_best_c_is_at_its_edge():
    """Labels that are a noiseless linear function of X: the CV F grows with C, so the best C of
    a small-C grid is its largest; extend_grid adds decades above it, and the choice is flagged."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(240, 4))
    Y = (X[:, :3] > 0).astype(np.int8)
    base = FMeasureSSVM(Cs=(1.0, 10.0), cv=3, max_iter=50, random_state=0).fit(X, Y)
    assert base.C_ == 10.0 and base.C_at_edge_ == "upper" and base.grid_extended_ == []
    ext = FMeasureSSVM(Cs=(1.0, 10.0), cv=3, max_iter=50, random_state=0, extend_grid=2).fit(X, Y)
    assert ext.grid_extended_[0] == pytest.approx(100.0) and len(ext.grid_extended_) <= 2
    assert ext.Cs_.tolist() == pytest.approx([1.0, 10.0, *ext.grid_extended_])
    assert ext.C_ >= 100.0 and ext.C_at_edge_ == ("upper" if ext.C_ == ext.Cs_[-1] else "")
    assert ext.cv_scores_.max() > base.cv_scores_.max()  # the extension found a better C
    # the mean CV F of the first values is the same with or without the extension
    np.testing.assert_allclose(ext.cv_scores_[:2], base.cv_scores_)


def _skipped_by_hand(scores, patience):
    """The grid values the patience rule skips, from the full grid's mean CV F: walk up, count the
    values below the best so far since it was reached (ties do not count), stop at ``patience``."""
    best, since = -np.inf, 0
    for i, s in enumerate(scores):
        if s > best:
            best, since = s, 0
        elif s < best:
            since += 1
        if since >= patience:
            return i + 1
    return len(scores)


@pytest.mark.parametrize("patience, n_jobs", [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_ssvm_patience_skips_the_grid_past_the_optimum(patience, n_jobs):
    """Noisy labels: the CV F peaks at a moderate C. With ``patience`` the walk stops where the
    rule, applied by hand to the full grid's scores, stops; the values it solved score as in the
    full walk (same folds, same warm starts), and C_ is the best of them. With fold workers, a
    fold moves on to its next value before the others finish theirs: the fits past the stop are
    discarded, and the model is the one of a single process."""
    Xa, Y = _toy(n=150, m=3, seed=2, noise=2.0)
    X = Xa[:, :-1]
    Cs = (1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0)
    full = FMeasureSSVM(Cs=Cs, cv=3, random_state=0).fit(X, Y)
    stop = _skipped_by_hand(full.cv_scores_, patience)
    assert stop < len(Cs), "the toy problem must have an optimum inside the grid"
    model = FMeasureSSVM(Cs=Cs, cv=3, random_state=0, patience=patience, n_jobs=n_jobs).fit(X, Y)
    assert model.Cs_.tolist() == list(Cs[:stop])
    assert model.Cs_skipped_ == list(Cs[stop:])
    np.testing.assert_allclose(model.cv_scores_, full.cv_scores_[:stop])
    assert model.C_ == Cs[int(np.argmax(full.cv_scores_[:stop]))]
    assert model.stopped_by_ == "tol"
    assert len(model.cv_stops_) == stop and model.cv_gaps_.shape == (stop, 3)
    if n_jobs > 1:
        alone = FMeasureSSVM(Cs=Cs, cv=3, random_state=0, patience=patience).fit(X, Y)
        np.testing.assert_array_equal(model.cv_scores_, alone.cv_scores_)
        np.testing.assert_array_equal(model.coef_, alone.coef_)
        assert model.cv_stops_ == alone.cv_stops_


def test_ssvm_patience_does_not_count_a_plateau():
    """Every C of the grid so small that w is near 0 gives the same (constant) predictions: equal
    CV scores, which must not stop the walk before the scores rise."""
    Xa, Y = _toy(n=150, m=3, seed=4)
    Cs = (1e-6, 1e-5, 1e-4, 1.0)
    model = FMeasureSSVM(Cs=Cs, cv=3, random_state=0, patience=1).fit(Xa[:, :-1], Y)
    assert model.cv_scores_[0] == model.cv_scores_[1] == model.cv_scores_[2]
    assert model.Cs_skipped_ == [] and model.C_ == 1.0


@pytest.mark.parametrize("solver, step", [("cutting_plane", "iteration"), ("bcfw", "pass")])
def test_ssvm_fold_workers_log_progress_to_the_parent(caplog, solver, step):
    import logging

    Xa, Y = _toy(n=120, m=3, seed=2)
    with caplog.at_level(logging.INFO, logger="fmeasure.learners.ssvm"):
        FMeasureSSVM(Cs=(0.1, 1.0), cv=2, n_jobs=2, max_iter=5, solver=solver).fit(Xa[:, :-1], Y)
    msgs = [r.getMessage() for r in caplog.records]
    for k in (1, 2):
        assert any(f"fold {k} of 2, C = 1 (2 of 2): {step} 1 of at most 5" in m for m in msgs), msgs
    assert any("refit on all data" in m for m in msgs) and any(
        "C = 1 chosen" in m or "C = 0.1 chosen" in m for m in msgs
    )


def test_ssvm_tuning_logs_each_values_mean_cv_f(caplog):
    """A line per C of the walk gives that C's mean CV F as it is reached (before the choice)."""
    import logging
    import re

    Xa, Y = _toy(n=150, m=3, seed=2, noise=2.0)
    with caplog.at_level(logging.INFO, logger="fmeasure.learners.ssvm"):
        model = FMeasureSSVM(Cs=(0.01, 1.0, 100.0), cv=3, random_state=0, patience=None).fit(Xa[:, :-1], Y)
    logged = {}
    for msg in (r.getMessage() for r in caplog.records):
        hit = re.search(r"values of C done in every fold \(mean CV F ([0-9.e+-]+): ([0-9.]+)\)", msg)
        if hit:
            logged[float(hit.group(1))] = float(hit.group(2))
    assert sorted(logged) == [float(C) for C in model.Cs_]
    np.testing.assert_allclose([logged[C] for C in sorted(logged)], model.cv_scores_, atol=5e-5)
    assert len(set(logged.values())) > 1  # the values differ: a constant in the line would fail


def test_ssvm_refit_runs_to_its_own_tolerance():
    """The final fit stops at refit_tol (tighter than the tuning's tol), the CV fits at tol."""
    Xa, Y = _toy(n=150, m=3, seed=2, noise=2.0)
    model = FMeasureSSVM(Cs=(0.1, 10.0), cv=3, tol=1e-2, refit_tol=1e-4, random_state=0).fit(Xa[:, :-1], Y)
    assert model.stopped_by_ == "tol" and model.duality_gap_ <= 1e-4
    assert model.cv_gaps_.max() <= 1e-2 and model.cv_gaps_.max() > 1e-4  # the folds stopped at their own tol


def test_fold_workers_leave_joblib_usable_in_the_same_process():
    """The walk's fold workers are joblib's own executor: joblib's Parallel (as other estimators
    of the same process use it) works before and after tuned fits, with and without a patience
    stop (whose workers are stopped)."""
    from joblib import Parallel, delayed

    Xa, Y = _toy(n=150, m=3, seed=2, noise=2.0)
    Cs = (1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0)
    for patience in (None, 1):
        assert Parallel(n_jobs=2)(delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]
        model = FMeasureSSVM(Cs=Cs, cv=3, random_state=0, patience=patience, n_jobs=2).fit(Xa[:, :-1], Y)
        assert bool(model.Cs_skipped_) == (patience is not None)
        assert Parallel(n_jobs=2)(delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]
