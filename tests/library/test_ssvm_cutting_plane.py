"""RML's 1-slack cutting-plane solver: its optimum against BCFW run to a tight gap and against a
generic QP on the brute-force primal, its duality-gap certificate, its planes, its master QP and
the warm start along C."""

import itertools
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp

from fmeasure.learners import FMeasureSSVM
from fmeasure.learners._cutting_plane import WorkingSet, _master, one_slack
from fmeasure.learners.ssvm import bcfw


def _f(y, h):
    tp, sy, sh = int(np.sum(y * h)), int(np.sum(y)), int(np.sum(h))
    return 1.0 if sy + sh == 0 else 2.0 * tp / (sy + sh)


def _toy(n=60, d=3, m=3, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    B = rng.normal(size=(d, m))
    Y = (X @ B + noise * rng.normal(size=(n, m)) > 0.3).astype(np.int8)
    return np.hstack([X, np.ones((n, 1))]), Y


def _vectors(m):
    return np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.float64)


def _hinge(Xa, Y, W):
    """The structured hinge of every example, the max taken over all 2^m label vectors."""
    Hs = _vectors(Y.shape[1])
    S = Xa @ W
    out = []
    for s, y in zip(S, Y):
        out.append(max(float(h @ s) + 1.0 - _f(y, h) for h in Hs) - float(s @ y))
    return np.array(out)


def _primal(Xa, Y, W, C):
    return 0.5 / C * float(np.sum(W * W)) + float(np.mean(_hinge(Xa, Y, W)))


def _reference(Xa, Y, C):
    """min P by SLSQP on the n-slack QP with every constraint written out (2^m per example)."""
    n, d = Xa.shape
    m = Y.shape[1]
    Hs = _vectors(m)
    rows, rhs = [], []
    for i in range(n):
        for h in Hs:
            # xi_i - <W, x_i (h - y_i)'> >= Delta(y_i, h)
            a = np.zeros(d * m + n)
            a[: d * m] = -np.outer(Xa[i], h - Y[i]).ravel()
            a[d * m + i] = 1.0
            rows.append(a)
            rhs.append(1.0 - _f(Y[i], h))
    A, b = np.array(rows), np.array(rhs)
    lam = 1.0 / C

    def obj(z):
        w = z[: d * m]
        return 0.5 * lam * w @ w + z[d * m :].mean()

    def grad(z):
        return np.concatenate([lam * z[: d * m], np.full(n, 1.0 / n)])

    z0 = np.concatenate([np.zeros(d * m), np.ones(n)])
    res = so.minimize(
        obj,
        z0,
        jac=grad,
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda z: A @ z - b, "jac": lambda z: A}],
        options={"ftol": 1e-13, "maxiter": 2000},
    )
    assert res.success, res.message
    return res.x[: d * m].reshape(d, m)


@pytest.mark.parametrize("C", [0.3, 4.0, 50.0, 500.0])
def test_one_slack_reaches_the_optimum_of_a_generic_qp(C):
    """P(W) and D reported by the solver bracket the optimum found by SLSQP on the primal with all
    2^m constraints per example: D <= P* <= P(W) <= D + tol, and W is that optimum's W."""
    Xa, Y = _toy(n=30, seed=1)
    tol = 1e-6
    res = one_slack(Xa, Y, C, tol=tol, max_iter=2000)
    W_ref = _reference(Xa, Y, C)
    P_ref = _primal(Xa, Y, W_ref, C)  # an upper bound on P*, within SLSQP's accuracy of it
    assert res["stopped_by"] == "tol"
    assert res["primal"] == pytest.approx(_primal(Xa, Y, res["W"], C), abs=1e-12)
    # P(W) - D >= 0 up to rounding (the exact optimum can be reached: finitely many labellings)
    assert -1e-12 <= res["gap"] <= tol and res["gap"] == pytest.approx(res["primal"] - res["dual"], abs=1e-15)
    assert res["dual"] <= P_ref + 1e-12  # a lower bound on the optimum
    assert res["primal"] <= P_ref + tol
    assert P_ref <= res["primal"] + 1e-6  # SLSQP reached the same optimum
    # strong convexity (modulus lam): ||W - W*||^2 <= 2 (P(W) - P*) / lam
    assert np.linalg.norm(res["W"] - W_ref) <= np.sqrt(2 * C * tol) + np.sqrt(2 * C * 1e-6)


@pytest.mark.parametrize(
    "C, line_search, ref_tol", [(0.5, True, 1e-7), (0.5, False, 1e-7), (20.0, True, 1e-5), (20.0, False, 1e-5)]
)
def test_one_slack_matches_bcfw(C, line_search, ref_tol):
    """The same optimum as BCFW (with and without OCAS's line search), each within its gap."""
    Xa, Y = _toy(n=80, m=4, seed=2)
    tol = 1e-6
    ref = bcfw(Xa, Y, C, tol=ref_tol, max_iter=20000, batch_size=8, random_state=0)
    res = one_slack(Xa, Y, C, tol=tol, max_iter=5000, line_search=line_search)
    assert ref["stopped_by"] == res["stopped_by"] == "tol"
    # each certificate bounds the other's objective: D_cp <= P* <= P_bcfw and D_bcfw <= P* <= P_cp
    assert res["dual"] <= ref["primal"] + 1e-12 and ref["dual"] <= res["primal"] + 1e-12
    assert abs(res["primal"] - ref["primal"]) <= tol + ref_tol
    assert np.linalg.norm(res["W"] - ref["W"]) <= np.sqrt(2 * C * tol) + np.sqrt(2 * C * ref_tol)


def test_one_slack_planes_bound_the_hinge_from_below():
    """Every plane of the working set is a lower bound of the mean structured hinge at any W
    (c_j - <W, g_j> <= mean hinge), tight at the W where its labelling was the oracle's."""
    Xa, Y = _toy(n=40, m=3, seed=3)
    res = one_slack(Xa, Y, 10.0, tol=1e-5, max_iter=500, prune_after=10**6)
    ws = res["planes"]
    assert ws.t == res["n_iter"] >= 5  # a plane per iteration
    rng = np.random.default_rng(0)
    d, m = Xa.shape[1], Y.shape[1]
    for W in [res["W"], np.zeros((d, m))] + [rng.normal(scale=s, size=(d, m)) for s in (0.1, 1.0, 10.0)]:
        lower = ws.c[: ws.t] - ws.G[: ws.t] @ W.ravel()
        assert lower.max() <= np.mean(_hinge(Xa, Y, W)) + 1e-12
    # the Gram matrix is kept in step with the planes
    G = ws.G[: ws.t]
    np.testing.assert_allclose(ws.K[: ws.t, : ws.t], G @ G.T, rtol=1e-12, atol=1e-12)
    # the dual is the master's value at feasible alpha: below the primal of every W
    for W in (np.zeros((d, m)), rng.normal(size=(d, m))):
        assert res["dual"] <= _primal(Xa, Y, W, 10.0) + 1e-12


@pytest.mark.parametrize("tol", [1e-2, 1e-3, 1e-5])
def test_one_slack_certificate_is_valid_at_every_stop(tol):
    """At the stop 0 <= P(W) - D <= tol, with P(W) recomputed by brute force and D no larger than
    the optimum (the primal at the generic QP's solution); the certificate of a loose stop is
    also an upper bound on its distance to the optimum."""
    Xa, Y = _toy(n=40, m=3, seed=4, noise=2.0)
    C = 30.0
    P_ref = _primal(Xa, Y, _reference(Xa, Y, C), C)
    res = one_slack(Xa, Y, C, tol=tol, max_iter=5000)
    P = _primal(Xa, Y, res["W"], C)
    assert res["stopped_by"] == "tol"
    assert P == pytest.approx(res["primal"], abs=1e-12)
    assert -1e-12 <= P - res["dual"] <= tol
    assert res["dual"] <= P_ref + 1e-12
    assert P - P_ref <= P - res["dual"] + 1e-12
    assert res["gap_history"][-1] == pytest.approx(res["gap"], abs=1e-15)
    assert len(res["dual_history"]) == len(res["gap_history"]) == res["n_iter"] + 1


def test_one_slack_warm_start_reaches_the_cold_optimum():
    """A working set carried along C = 0.1, 1, 10, 100 gives at each C the optimum of a cold start
    (both within tol)."""
    Xa, Y = _toy(n=80, m=3, seed=5)
    tol = 1e-5
    ws = None
    for C in (0.1, 1.0, 10.0, 100.0):
        warm = one_slack(Xa, Y, C, tol=tol, max_iter=5000, init=ws)
        ws = warm["planes"]
        cold = one_slack(Xa, Y, C, tol=tol, max_iter=5000)
        assert warm["stopped_by"] == cold["stopped_by"] == "tol"
        assert warm["dual"] <= cold["primal"] + 1e-12 and cold["dual"] <= warm["primal"] + 1e-12
        assert abs(warm["primal"] - cold["primal"]) <= tol
        assert np.linalg.norm(warm["W"] - cold["W"]) <= 2 * np.sqrt(2 * C * tol)
        assert warm["planes"] is ws and ws.t > 0


def test_one_slack_working_set_survives_pickling():
    """The fold workers send the working set back pickled: the copy warm-starts the next C exactly
    as the original does."""
    Xa, Y = _toy(n=60, m=3, seed=6)
    first = one_slack(Xa, Y, 1.0, tol=1e-4, max_iter=500)
    copy = pickle.loads(pickle.dumps(first["planes"]))
    t = first["planes"].t
    assert copy.t == t and copy.G.shape[0] == t  # no spare capacity sent
    np.testing.assert_array_equal(copy.K[:t, :t], first["planes"].K[:t, :t])
    a = one_slack(Xa, Y, 10.0, tol=1e-4, max_iter=500, init=copy)
    b = one_slack(Xa, Y, 10.0, tol=1e-4, max_iter=500, init=first["planes"])
    assert a["n_iter"] == b["n_iter"]
    np.testing.assert_allclose(a["W"], b["W"], atol=1e-12)


def test_one_slack_stops_at_the_iteration_cap():
    Xa, Y = _toy(n=60, m=3, seed=7)
    res = one_slack(Xa, Y, 1000.0, tol=1e-9, max_iter=3)
    assert res["stopped_by"] == "max_iter" and res["n_iter"] == 3 and res["gap"] > 1e-9
    assert res["primal"] == pytest.approx(_primal(Xa, Y, res["W"], 1000.0), abs=1e-10)


def test_one_slack_sparse_and_dense_input_agree():
    """Sparse X (multiplied as CSR) and its dense copy give the same fit."""
    Xa, Y = _toy(n=70, d=8, m=3, seed=8)
    Xs = np.where(np.abs(Xa) > 1.0, Xa, 0.0)
    Xs[:, -1] = 1.0
    dense = one_slack(Xs, Y, 5.0, tol=1e-5, max_iter=1000)
    sparse = one_slack(sp.csr_matrix(Xs), Y, 5.0, tol=1e-5, max_iter=1000)
    assert dense["n_iter"] == sparse["n_iter"]
    np.testing.assert_allclose(sparse["W"], dense["W"], atol=1e-9)


def _kkt_violation(K, c, lam, alpha):
    """Largest violation of the KKT conditions of min 1/2 a'Ka - lam c.a, a >= 0, sum a <= 1."""
    g = K @ alpha - lam * c
    nu = max(0.0, -float(np.min(g)))  # multiplier of sum a <= 1
    if alpha.sum() < 1 - 1e-9:
        nu = 0.0
    viol = [float(np.max(-(g + nu), initial=0.0))]  # stationarity where a = 0: g + nu >= 0
    on = alpha > 1e-9
    viol.append(float(np.max(np.abs(g[on] + nu), initial=0.0)))  # where a > 0: g + nu = 0
    return max(viol)


@pytest.mark.parametrize("seed", range(6))
def test_master_qp_is_optimal_on_dependent_planes(seed):
    """The master QP's alpha is feasible and meets the KKT conditions, also when planes repeat or
    are combinations of others (a singular Gram matrix), against SLSQP's value."""
    rng = np.random.default_rng(seed)
    p, t = 12, 9
    G = rng.normal(size=(t, p)) * rng.uniform(0.01, 1.0, size=(t, 1))
    G[3] = G[1]  # a repeated plane
    G[5] = 0.5 * G[0] + 0.5 * G[2]  # a combination
    c = rng.uniform(0.0, 1.0, size=t)
    ws = WorkingSet(p, cap=2)
    for j in range(t):
        ws.add(G[j], c[j])
    lam = 10.0 ** rng.uniform(-3, 1)
    alpha = _master(ws, lam)
    assert np.all(alpha >= 0) and alpha.sum() <= 1 + 1e-12
    K = G @ G.T
    assert _kkt_violation(K, c, lam, alpha) <= 1e-7 * max(1.0, np.abs(K).max())

    def dual(a):
        return a @ c - a @ K @ a / (2 * lam)

    ref = so.minimize(
        lambda a: -dual(a),
        np.full(t, 1.0 / (t + 1)),
        jac=lambda a: -(c - K @ a / lam),
        method="SLSQP",
        bounds=[(0, None)] * t,
        constraints=[{"type": "ineq", "fun": lambda a: 1 - a.sum(), "jac": lambda a: -np.ones(t)}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert dual(alpha) >= -ref.fun - 1e-9 * max(1.0, abs(ref.fun))


def test_ssvm_estimator_with_the_cutting_plane_solver_matches_bcfw():
    """The estimator with either solver: same C chosen, the same CV scores up to the two solvers'
    tolerance, close coefficients, and every fit certified."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(200, 4))
    Y = (X[:, :3] + 0.7 * rng.normal(size=(200, 3)) > 0.2).astype(np.int8)
    kw = dict(Cs=(0.01, 1.0, 100.0), cv=3, tol=1e-4, refit_tol=1e-6, random_state=0)
    old = FMeasureSSVM(solver="bcfw", **kw).fit(X, Y)
    new = FMeasureSSVM(solver="cutting_plane", **kw).fit(X, Y)
    assert new.C_ == old.C_
    np.testing.assert_allclose(new.cv_scores_, old.cv_scores_, atol=0.02)
    assert new.stopped_by_ == "tol" and new.duality_gap_ <= 1e-6 and new.cv_gaps_.max() <= 1e-4
    # both refits within 1e-6 of the optimum: ||W_new - W_old|| <= 2 sqrt(2 C 1e-6)
    W_old = np.vstack([old.coef_.T, old.intercept_])
    W_new = np.vstack([new.coef_.T, new.intercept_])
    assert np.linalg.norm(W_new - W_old) <= 2 * np.sqrt(2 * new.C_ * 1e-6) + 1e-9


def test_ssvm_rejects_an_unknown_solver():
    Xa, Y = _toy(n=20)
    with pytest.raises(ValueError, match="solver"):
        FMeasureSSVM(Cs=(1.0,), solver="newton").fit(Xa, Y)


def test_daqp_is_imported_only_by_the_cutting_plane_solver():
    """In an interpreter where daqp cannot be imported: fmeasure and its learners import, the
    default solver fits, and the cutting-plane solver fails at once with one ImportError line
    naming ``pip install daqp``, before any fold work."""
    code = textwrap.dedent(
        """
        import sys

        class NotInstalled:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] == "daqp":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, NotInstalled())
        import numpy as np
        import fmeasure, fmeasure.learners
        from fmeasure.learners import FMeasureSSVM
        from fmeasure.learners._cutting_plane import one_slack
        assert "daqp" not in sys.modules
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3))
        Y = (X + rng.normal(size=(40, 3)) > 0).astype(np.int8)
        FMeasureSSVM(Cs=(0.1, 1.0), cv=2, max_iter=20).fit(X, Y)
        assert "daqp" not in sys.modules
        for call in (
            lambda: FMeasureSSVM(Cs=(0.1, 1.0), cv=2, solver="cutting_plane").fit(X, Y),
            lambda: one_slack(np.hstack([X, np.ones((40, 1))]), Y, 1.0),
        ):
            try:
                call()
            except ImportError as exc:
                print(str(exc))
            else:
                raise AssertionError("no ImportError")
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1], lines
    assert lines[0].endswith("pip install daqp") and "cutting_plane" in lines[0], lines


def _limit_direction(Xa, Y):
    """v* with W = C v* the optimum as C -> 0, for label vectors that are not empty: the mean hinge
    is linear near W = 0, with the planes of the labellings that add no true label (loss 1), and
    v* is the min-norm point of their hull, X' (Y - Q) / n over 0 <= Q <= 1, Q = 0 where Y = 1.
    Separable by label: one bounded least-squares problem per label."""
    n = Xa.shape[0]
    cols = []
    for j in range(Y.shape[1]):
        neg = Y[:, j] == 0
        q = so.lsq_linear(Xa[neg].T / n, Xa.T @ Y[:, j] / n, bounds=(0.0, 1.0), tol=1e-14, lsmr_tol="auto").x
        cols.append((Xa.T @ Y[:, j] - Xa[neg].T @ q) / n)
    return np.column_stack(cols)


def test_one_slack_near_zero_is_the_limit_direction_and_stays_on_a_path():
    """At the smallest C the fit ends at the master's solution with its gap also within rel_tol of
    lam ||W||^2: W / C is within sqrt(2 rel_tol) ||W / C|| of the exact limit v*, reached by plain
    cutting-plane steps of one oracle call each. Along a path the next C start there certified: no
    iteration, W proportional to C, the same predictions."""
    Xa, Y = _toy(n=120, m=3, seed=10)
    keep = Y.sum(axis=1) > 0
    Xa, Y = Xa[keep], Y[keep]
    v_star = _limit_direction(Xa, Y)
    rel, tol = 1e-3, 1e-3
    ws, first = None, None
    for C in (1e-6, 1e-5, 1e-4):
        res = one_slack(Xa, Y, C, tol=tol, rel_tol=rel, init=ws)
        ws = res["planes"]
        W, lam = res["W"], 1.0 / C
        assert res["stopped_by"] == "tol" and res["gap"] <= min(tol, rel * lam * np.sum(W * W))
        assert res["primal"] == pytest.approx(_primal(Xa, Y, W, C), abs=1e-12)
        v = W / C
        assert np.linalg.norm(v - v_star) <= np.sqrt(2 * rel) * np.linalg.norm(v) + 1e-9
        if first is None:
            first = v
            # Past the start, every iteration near 0 is a plain cutting-plane step: one oracle
            # call at the master's solution (the start and the certificate take a few more).
            assert res["n_iter"] > 5 and res["oracle_calls"] <= res["n_iter"] + 3
        else:
            assert res["n_iter"] == 0
            np.testing.assert_allclose(v, first, rtol=1e-7, atol=1e-12)
            np.testing.assert_array_equal(Xa @ W > 0, Xa @ (C * first) > 0)


def test_ssvm_cutting_plane_ties_on_the_plateau_of_small_c():
    """Every C so small that w is near 0 gives the same predictions and CV scores with the
    cutting-plane solver too, so patience does not count them."""
    Xa, Y = _toy(n=150, m=3, seed=4)
    Cs = (1e-6, 1e-5, 1e-4, 1.0)
    model = FMeasureSSVM(Cs=Cs, cv=3, random_state=0, patience=1, solver="cutting_plane").fit(Xa[:, :-1], Y)
    assert model.cv_scores_[0] == model.cv_scores_[1] == model.cv_scores_[2]
    assert model.Cs_skipped_ == []


def test_planes_product_with_sparse_features_equals_the_dense_product():
    """X' H for CSR features, computed row by row over the labels each row of H holds, equals the
    dense product for 0/1 matrices H of int8 and bool, rows without any label and features with
    unsorted indices, negative values and explicit zeros included."""
    import scipy.sparse as sp

    from fmeasure.learners._cutting_plane import Design

    rng = np.random.default_rng(8)
    for density in (0.02, 0.2):
        X = sp.random(60, 9, density=density, random_state=rng, format="csr") * 3.0
        X.data -= 1.0  # negative values too
        X = sp.csr_matrix((X.data[::-1], X.indices[::-1], X.indptr), shape=X.shape)  # unsorted
        X.data[:3] = 0.0  # explicit zeros
        design = Design(X)
        assert design.sparse
        for H in ((rng.random((60, 7)) < 0.3).astype(np.int8), rng.random((60, 7)) < 0.5):
            H[:5] = 0
            np.testing.assert_allclose(design.back(H), X.toarray().T @ H.astype(float), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("pattern", ["first", "last", "alternate", "none", "all", "random"])
def test_pruning_keeps_the_chosen_planes_in_order_with_their_gram_entries(pattern):
    """The working set after ``keep`` holds exactly the kept planes, in their order, with their
    losses, idle counts and the Gram matrix of the kept planes recomputed from scratch; planes
    added afterwards see only those."""
    rng = np.random.default_rng(3)
    p, t = 7, 11
    G = rng.normal(size=(t, p))
    c = rng.uniform(size=t)
    ws = WorkingSet(p, cap=4)
    for j in range(t):
        ws.add(G[j], c[j])
    ws.idle[:t] = np.arange(t)
    mask = {
        "first": np.arange(t) > 0,
        "last": np.arange(t) < t - 1,
        "alternate": np.arange(t) % 2 == 1,
        "none": np.zeros(t, bool),
        "all": np.ones(t, bool),
        "random": rng.uniform(size=t) < 0.5,
    }[pattern]
    rows = ws.G.shape[0]
    ws.keep(mask)
    k = int(mask.sum())
    assert ws.t == k
    np.testing.assert_array_equal(ws.planes(), G[mask])
    np.testing.assert_array_equal(ws.c[:k], c[mask])
    np.testing.assert_array_equal(ws.idle[:k], np.arange(t)[mask])
    np.testing.assert_allclose(ws.K[:k, :k], G[mask] @ G[mask].T, rtol=1e-12)
    g = rng.normal(size=p)
    ws.add(g, 0.5)
    kept = np.vstack([G[mask], g])
    np.testing.assert_array_equal(ws.planes(), kept)
    np.testing.assert_allclose(ws.K[: k + 1, : k + 1], kept @ kept.T, rtol=1e-12, atol=1e-12)
    weights = rng.uniform(size=k + 1) * (rng.uniform(size=k + 1) < 0.7)
    total = np.zeros(p)
    for w, row in zip(weights, kept):  # in the planes' order, one at a time
        total += w * row
    assert np.array_equal(ws.combine(weights), total)
    if k < t:
        assert ws.G.shape[0] == rows  # the new plane took a pruned plane's row
    restored = pickle.loads(pickle.dumps(ws))
    np.testing.assert_array_equal(restored.planes(), kept)
    np.testing.assert_array_equal(restored.K[: k + 1, : k + 1], ws.K[: k + 1, : k + 1])
    assert np.array_equal(restored.combine(weights), total)


@pytest.mark.parametrize("threads", [1, 3])
def test_scores_with_sparse_features_are_scipys_product_bit_for_bit(threads):
    """X W for CSR features by the compiled kernel, in one thread or in blocks of rows: the same
    numbers as scipy's product (each row's entries summed in their order), unsorted indices,
    explicit zeros, negative values and rows without features included."""
    from fmeasure.learners._cutting_plane import Design

    rng = np.random.default_rng(11)
    X = sp.random(50, 12, density=0.15, random_state=rng, format="csr") * 3.0
    X.data -= 1.0
    X = sp.csr_matrix((X.data[::-1], X.indices[::-1], X.indptr), shape=X.shape)
    X.data[:2] = 0.0
    X = sp.diags((np.arange(50) >= 4).astype(float)) @ X  # rows without features
    X = sp.csr_matrix((X.data[::-1].copy(), X.indices[::-1].copy(), X.indptr), shape=X.shape)
    design = Design(X, threads=threads)
    assert design.sparse
    W = rng.normal(size=(12, 5)) * 10.0 ** rng.integers(-8, 8, size=(12, 5))
    out = design.scores(W)
    assert np.array_equal(out, np.asarray(X @ W))
    np.testing.assert_allclose(out, X.toarray() @ W, rtol=1e-12, atol=1e-300)


def test_solver_in_threads_gives_the_numbers_of_one_thread(monkeypatch):
    """The oracle and the scores in threads (blocks of examples): the same iterations, gaps and
    weights as one thread, on sparse features."""
    import fmeasure.learners._cutting_plane as cp

    monkeypatch.setattr(cp, "THREADS_ABOVE", 0)  # a small problem, threaded all the same
    Xa, Y = _toy(n=150, m=4, seed=5)
    keep = np.random.default_rng(0).random(Xa.shape) < 0.2
    keep[:, -1] = True  # the bias
    Xs = sp.csr_matrix(np.where(keep, Xa, 0.0))
    one = one_slack(Xs, Y, 10.0, tol=1e-4, threads=1)
    three = one_slack(Xs, Y, 10.0, tol=1e-4, threads=3)
    assert one["n_iter"] == three["n_iter"] > 5
    assert np.array_equal(one["W"], three["W"]) and one["gap"] == three["gap"]
    with pytest.raises(ValueError, match="threads"):
        one_slack(Xs, Y, 10.0, threads=0)


def test_plateau_iterations_are_counted_along_a_path():
    """Near w = 0 the search for the min-norm point gets ``rel_iter`` iterations along a whole
    path: with a ``rel_tol`` no fit can meet, the first small C spends them all, and the next C
    (the same v*, ten times the scale) returns at once, ten times the first C's weights (the same
    predictions)."""
    Xa, Y = _toy(n=200, m=5, seed=7)
    first = one_slack(Xa, Y, 1e-6, rel_iter=3, rel_tol=1e-300)
    assert first["planes"].towards_v == 3 and first["gap"] <= 1e-3
    second = one_slack(Xa, Y, 1e-5, rel_iter=3, rel_tol=1e-300, init=first["planes"])
    assert second["n_iter"] == 0 and second["gap"] <= 1e-3
    np.testing.assert_allclose(second["W"], 10.0 * first["W"], rtol=1e-9, atol=1e-300)
    assert pickle.loads(pickle.dumps(second["planes"])).towards_v == 3
    alone = one_slack(Xa, Y, 1e-5, rel_iter=3, rel_tol=1e-300)  # a path of its own: its own 3
    assert alone["planes"].towards_v == 3


def test_compiled_loss_and_cut_point_are_numpys_numbers():
    """The per-row loss 1 - F (rows without true or predicted labels included, F(0, 0) = 1) by the
    compiled pass equals the formula in numpy; the cut point's scores (1 - mu) A + mu B equal
    numpy's two products and their sum, bit for bit."""
    from fmeasure.learners._cutting_plane import _loss, _mix

    rng = np.random.default_rng(12)
    Y = rng.random((40, 9)) < 0.3
    H = (rng.random((40, 9)) < 0.4).astype(np.int8)
    Y[:3], H[1:5] = False, 0  # y = 0 and h = 0, alone and together
    counts = Y.sum(axis=1)
    tp = (Y & H.astype(bool)).sum(axis=1)
    den = counts + H.sum(axis=1)
    expected = np.where(den == 0, 0.0, 1.0 - 2.0 * tp / np.maximum(den, 1))
    assert np.array_equal(_loss(Y, counts, H), expected)
    assert np.array_equal(_loss(Y, counts, H.astype(bool)), expected)
    assert _loss(Y, counts, H)[1] == 0.0 and np.all(_loss(Y, counts, Y.astype(np.int8)) == 0.0)
    A, B = rng.normal(size=(30, 7)) * 1e3, rng.normal(size=(30, 7)) * 1e-3
    for mu in (0.1, 0.37, 1e-9):
        out = np.full_like(A, np.nan)  # a reused buffer: whatever it held is overwritten
        assert _mix(A, B, mu, out) is out and np.array_equal(out, (1.0 - mu) * A + mu * B)


@pytest.mark.parametrize("sparse", [False, True])
def test_scores_into_a_used_buffer_are_the_product(sparse):
    """Design.scores into an array that held other numbers gives X W exactly as scipy's product
    (each row's entries added in order), dense and CSR; the buffer pool hands out none of the live
    arrays."""
    from fmeasure.learners._cutting_plane import Design, _ScoreBuffers

    rng = np.random.default_rng(3)
    # CSR rows of 0 to about 20 entries: none, fewer than four, and four at a time plus the rest
    X = rng.normal(size=(50, 40)) * (rng.random((50, 40)) < (rng.random((50, 1)) * 0.5 if sparse else 1.0))
    W = rng.normal(size=(40, 4))
    design = Design(X)
    assert design.sparse == sparse
    expected = np.asarray(sp.csr_matrix(X) @ W) if sparse else X @ W  # the order of each sum
    out = np.full((50, 4), np.nan)
    assert design.scores(W, out=out) is out and np.array_equal(out, expected)
    pool = _ScoreBuffers((50, 4))
    a = pool.take()
    b = pool.take(a)
    c = pool.take(a, b)
    assert a is not b and c is not a and c is not b and len(pool.pool) == 3
    assert pool.take(b, c) is a and pool.take(a, c) is b
