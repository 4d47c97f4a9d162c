"""Exact worst-case F-regrets of surrogate predictors by linear programming.

The paper proves the worst-case regret of the Hamming and subset 0/1 minimizers by hand
(Theorems 3.1, 3.2) and leaves that of thresholding on sorted marginals open (Theorem 4.5
gives a lower bound). For a fixed pair (h, h_L) -- a prediction h and the surrogate's
prediction h_L -- both the objective E[F(Y, h)] - E[F(Y, h_L)] and the constraints "h_L is
the surrogate's choice" are linear in the distribution P, so

    sup_P regret = max over pairs (h, h_L) of  max_P { E[F(Y,h)] - E[F(Y,h_L)] : P feasible }.

Each inner problem is a linear program solved with scipy's HiGHS (``scipy.optimize.linprog``).

Surrogates and their constraints (``margin`` = eps turns the strict inequalities that make
h_L unique into linear ones; eps = 0 gives the closure, whose optimum is the supremum):

- ``"hamming"``: P(y_i != h_L,i) <= 1/2 - eps for every label (h_L = marginal modes).
- ``"subset"``: P(y) <= P(h_L) - eps for every y != h_L (h_L = the joint mode).
- ``"threshold"``: labels sorted by marginal, p_i - p_{i+1} >= eps, and h_L = top-k beats
  every other candidate top-j (j = 0..m) by eps in expected F (Section 4.3's thresholding).

Symmetry. For Hamming and subset 0/1 a pair is, up to a permutation of labels, given by the
class sizes (a, b, c, d) of A = {h=1, h_L=0}, B = {h=0, h_L=1}, C = {h=1, h_L=1},
D = {h=0, h_L=0} (the paper's appendix). The LP is invariant under permutations inside each
class, so averaging an optimal P over them gives an optimal P that is uniform on each orbit;
the orbit LP (one variable per (s_A, s_B, s_C, s_D)) is therefore exact and tiny
(:func:`orbit_lp`). For thresholding the label order breaks this symmetry: the LP runs on all
2^m vectors and every (k, h) pair, pruned by the bound max_y F(y,h) - F(y,h_L)
(:func:`worst_case_threshold`). The constraints of a pair depend on k alone, so the LPs of one k
differ only in their objective: each k keeps one HiGHS model whose objective is replaced pair by
pair, and the dual simplex starts from the previous optimal basis (a few pivots instead of a
solve from scratch). The best pair is then re-solved from scratch (:func:`full_lp`), so the
reported supremum and distribution are those of the plain solve. Time grows as (m+1) 2^m LPs of
2^m variables and 2m rows each; memory as 4^m (the F matrix of every (y, h)).

Every maximizing distribution is re-solved with eps > 0 and checked with the inference core:
the surrogate's prediction (``inference.marginal_modes``, ``joint_mode``,
``threshold_marginals``) must be h_L, and the core's regret (brute-force F-maximizer) is
reported as ``witness_regret``.
"""

from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass, field
from math import comb

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.sparse import csc_matrix

from fmeasure import inference, metrics
from fmeasure.io import progress
from fmeasure.theory import SURROGATES
from fmeasure.theory.constructions import all_label_vectors, as_string, marginals

try:  # the HiGHS binding shipped inside scipy (>= 1.15): models whose objective can be replaced
    from scipy.optimize._highspy import _core as _highs
except ImportError:  # pragma: no cover - older scipy: every LP is solved from scratch by linprog
    _highs = None

log = logging.getLogger(__name__)


__all__ = [
    "SURROGATES",
    "f_utility_matrix",
    "class_orbits",
    "orbit_lp",
    "full_lp",
    "WorstCase",
    "worst_case",
    "worst_case_orbit",
    "worst_case_threshold",
    "surrogate_prediction",
    "lp_table",
    "lp_distribution_table",
]


def f_utility_matrix(Y, H):
    """F(y, h) for every row y of ``Y`` (n, m) and row h of ``H`` (k, m), as an (n, k) matrix.

    Built from :func:`fmeasure.metrics.f_measure` (F(0, 0) = 1).

    Examples
    --------
    >>> f_utility_matrix([[1, 0], [0, 0]], [[1, 1], [0, 0]]).tolist()
    [[0.6666666666666666, 0.0], [0.0, 1.0]]
    """
    Y = np.atleast_2d(np.asarray(Y, np.int8))
    H = np.atleast_2d(np.asarray(H, np.int8))
    if Y.shape[1] != H.shape[1]:
        raise ValueError(f"Y and H must have the same number of labels, got {Y.shape[1]} and {H.shape[1]}")
    n, k = len(Y), len(H)
    return np.asarray(metrics.f_measure(np.repeat(Y, k, 0), np.tile(H, (n, 1))), float).reshape(n, k)


def _check_surrogate(surrogate):
    if surrogate not in SURROGATES:
        raise ValueError(f"surrogate must be one of {SURROGATES}, got {surrogate!r}")


def _linprog_max(c, A_ub, b_ub):
    """max c @ x subject to A_ub x <= b_ub, sum x = 1, x >= 0; returns (value, x) or (None, None)."""
    res = linprog(
        -np.asarray(c, float),
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=np.ones((1, len(c))),
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    if res.status != 0:
        return None, None
    x = np.clip(res.x, 0.0, None)
    return float(-res.fun), x / x.sum()


class _ObjectiveLP:
    """max c @ x subject to A_ub x <= 0, sum x = 1, x >= 0, for one A_ub and many objectives c.

    One HiGHS model is kept; :meth:`solve` replaces its objective and re-runs the dual simplex from
    the previous optimal basis. Without scipy's HiGHS binding every call is a plain
    :func:`_linprog_max`. Values agree with a solve from scratch to the solver's tolerance.
    """

    def __init__(self, A_ub):
        self.A = np.asarray(A_ub, float)
        n_row, self.n = self.A.shape
        self.model = None
        if _highs is None:
            return
        inf = _highs.kHighsInf
        lp = _highs.HighsLp()
        lp.num_col_, lp.num_row_ = self.n, n_row + 1
        lp.col_cost_ = np.zeros(self.n)
        lp.col_lower_, lp.col_upper_ = np.zeros(self.n), np.full(self.n, inf)
        lp.row_lower_ = np.r_[np.full(n_row, -inf), 1.0]
        lp.row_upper_ = np.r_[np.zeros(n_row), 1.0]
        M = csc_matrix(np.vstack([self.A, np.ones(self.n)]))
        lp.a_matrix_.format_ = _highs.MatrixFormat.kColwise
        lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = self.n, n_row + 1
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = M.indptr, M.indices, M.data
        lp.sense_ = _highs.ObjSense.kMaximize
        self.model = _highs._Highs()
        self.model.setOptionValue("output_flag", False)
        self.model.passModel(lp)
        self.cols = np.arange(self.n, dtype=np.int32)

    def solve(self, c):
        """The optimal value, or None if the LP is infeasible."""
        if self.model is None:
            return _linprog_max(c, self.A, np.zeros(len(self.A)))[0]
        self.model.changeColsCost(self.n, self.cols, np.asarray(c, float))
        self.model.run()
        if self.model.getModelStatus() != _highs.HighsModelStatus.kOptimal:
            return None
        return float(self.model.getInfo().objective_function_value)


# --------------------------------------------------------------------------------------
# orbit LP for Hamming and subset 0/1
# --------------------------------------------------------------------------------------
def class_orbits(sizes):
    """Orbits of {0,1}^m under permutations inside the label classes of sizes (a, b, c, d).

    Returns
    -------
    orbits : (n, 4) int array of (s_A, s_B, s_C, s_D); reps : (n, m) int8 representative
    vectors (labels ordered A, B, C, D, the first s_X of each class on); counts : (n,) orbit sizes.
    """
    sizes = [int(x) for x in sizes]
    if len(sizes) != 4 or min(sizes) < 0 or sum(sizes) < 1:
        raise ValueError(f"sizes must be four non-negative integers with a positive sum, got {sizes}")
    orbits = np.array(list(itertools.product(*[range(x + 1) for x in sizes])), int)
    reps = np.zeros((len(orbits), sum(sizes)), np.int8)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for j, (_x, st) in enumerate(zip(sizes, start)):
        for r, s in enumerate(orbits[:, j]):
            reps[r, st : st + s] = 1
    counts = np.array([np.prod([comb(x, s) for x, s in zip(sizes, o)]) for o in orbits], float)
    return orbits, reps, counts


def _pair_vectors(sizes):
    a, b, c, d = sizes
    h = np.array([1] * a + [0] * b + [1] * c + [0] * d, np.int8)
    h_L = np.array([0] * a + [1] * b + [1] * c + [0] * d, np.int8)
    return h, h_L


def orbit_lp(sizes, surrogate, margin=0.0):
    """Worst-case regret LP for the pair of class sizes (a, b, c, d), one variable per orbit.

    Parameters
    ----------
    sizes : (a, b, c, d)
    surrogate : 'hamming' or 'subset'
    margin : float
        eps of the strict inequalities (0 gives the supremum).

    Returns
    -------
    value : float or None (infeasible), weights : (n_orbits,) total mass per orbit, orbits, reps, counts

    Examples
    --------
    >>> round(orbit_lp((3, 0, 0, 0), "subset")[0], 4)  # Theorem 3.2, m = 3
    0.4875
    """
    if surrogate not in ("hamming", "subset"):
        raise ValueError(f"surrogate must be 'hamming' or 'subset' for the orbit LP, got {surrogate!r}")
    orbits, reps, counts = class_orbits(sizes)
    h, h_L = _pair_vectors(sizes)
    U = f_utility_matrix(reps, np.stack([h, h_L]))
    eta = U[:, 0] - U[:, 1]
    rows, rhs = [], []
    if surrogate == "hamming":
        for j, (x, on) in enumerate(zip(sizes, (0, 1, 1, 0))):
            if x == 0:
                continue
            frac = orbits[:, j] / x  # P(y_i = 1) for a label i of class j, per unit orbit mass
            rows.append(frac if on == 0 else 1.0 - frac)
            rhs.append(0.5 - margin)
    else:
        star = int(np.flatnonzero((orbits == [0, sizes[1], sizes[2], 0]).all(1))[0])
        for r in range(len(orbits)):
            if r == star:
                continue
            row = np.zeros(len(orbits))
            row[r] = 1.0 / counts[r]
            row[star] -= 1.0
            rows.append(row)
            rhs.append(-margin)
    value, w = _linprog_max(eta, np.array(rows), np.array(rhs))
    return value, w, orbits, reps, counts


def expand_orbits(sizes, weights, tol=1e-12):
    """Spread orbit masses uniformly over their vectors: (support (r, m) int8, probs (r,))."""
    orbits, _, counts = class_orbits(sizes)
    m = sum(sizes)
    Y = all_label_vectors(m)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    key = np.stack([Y[:, st : st + x].sum(1) for x, st in zip(sizes, start)], 1)
    rows, probs = [], []
    for o, w, n in zip(orbits, weights, counts):
        if w <= tol:
            continue
        sel = (key == o).all(1)
        rows.append(Y[sel])
        probs.append(np.full(int(sel.sum()), w / n))
    return np.concatenate(rows).astype(np.int8), np.concatenate(probs)


# --------------------------------------------------------------------------------------
# full LP over all 2^m vectors (any surrogate; thresholding; cross-check of the orbit LP)
# --------------------------------------------------------------------------------------
def _threshold_candidates(m):
    T = np.zeros((m + 1, m), np.int8)
    for j in range(m + 1):
        T[j, :j] = 1
    return T


def _threshold_constraints(Y, FT, k, margin):
    """Rows and right-hand sides of "labels sorted by marginal, top-k beats every other top-j"."""
    m = Y.shape[1]
    rows, rhs = [], []
    for i in range(m - 1):  # p_{i+1} - p_i <= -margin
        rows.append((Y[:, i + 1] - Y[:, i]).astype(float))
        rhs.append(-margin)
    for j in range(m + 1):
        if j != k:  # E F(T_j) - E F(T_k) <= -margin
            rows.append(FT[:, j] - FT[:, k])
            rhs.append(-margin)
    return rows, rhs


def full_lp(h, h_L, surrogate, margin=0.0, Y=None, U=None):
    """Worst-case regret LP for a fixed pair (h, h_L) over all 2^m label vectors.

    For ``surrogate='threshold'``, h_L must be a top-k vector (1...10...0) and the labels are
    taken in decreasing order of marginal (p_1 >= ... >= p_m).

    Returns
    -------
    value : float or None (infeasible), probs : (2^m,) over ``all_label_vectors(m)``

    Examples
    --------
    >>> round(full_lp([1, 1, 0], [0, 0, 0], "hamming")[0], 4)
    0.6667
    """
    _check_surrogate(surrogate)
    h = np.asarray(h, np.int8)
    h_L = np.asarray(h_L, np.int8)
    m = len(h)
    if h_L.shape != (m,):
        raise ValueError(f"h and h_L must have the same shape, got {h.shape} and {h_L.shape}")
    Y = all_label_vectors(m) if Y is None else Y
    rows, rhs = [], []
    if surrogate == "hamming":
        for i in range(m):
            rows.append((Y[:, i] != h_L[i]).astype(float))
            rhs.append(0.5 - margin)
        eta = (f_utility_matrix(Y, np.stack([h, h_L])) @ [1.0, -1.0]) if U is None else U
    elif surrogate == "subset":
        star = int(np.flatnonzero((Y == h_L).all(1))[0])
        for r in range(len(Y)):
            if r != star:
                row = np.zeros(len(Y))
                row[r], row[star] = 1.0, -1.0
                rows.append(row)
                rhs.append(-margin)
        eta = (f_utility_matrix(Y, np.stack([h, h_L])) @ [1.0, -1.0]) if U is None else U
    else:
        k = int(h_L.sum())
        T = _threshold_candidates(m)
        if not (h_L == T[k]).all():
            raise ValueError(f"for thresholding h_L must be a top-k vector, got {as_string(h_L)}")
        FT = f_utility_matrix(Y, T) if U is None else U
        rows, rhs = _threshold_constraints(Y, FT, k, margin)
        eta = f_utility_matrix(Y, h[None])[:, 0] - FT[:, k]
    return _linprog_max(eta, np.array(rows), np.array(rhs))


# --------------------------------------------------------------------------------------
# verification with the inference core
# --------------------------------------------------------------------------------------
def surrogate_prediction(support, probs, surrogate):
    """The surrogate's prediction computed by the inference core."""
    _check_surrogate(surrogate)
    if surrogate == "hamming":
        return inference.marginal_modes(marginals(support, probs))[0]
    if surrogate == "subset":
        return inference.joint_mode(support, probs)[0]
    return inference.threshold_marginals(support, probs)[0]


@dataclass
class WorstCase:
    """The exact worst-case regret for one (surrogate, m) and the distribution attaining it."""

    surrogate: str
    m: int
    value: float  # supremum (LP with margin 0)
    h: np.ndarray
    h_L: np.ndarray
    support: np.ndarray  # maximizing distribution of the margin-0 LP
    probs: np.ndarray
    n_lps: int
    seconds: float
    witness_margin: float = 0.0
    witness_regret: float = float("nan")  # core-evaluated regret of the margin>0 maximizer
    witness_h_L_ok: bool | None = None  # the core's surrogate prediction equals h_L (None: not checked)
    sizes: tuple | None = None
    extra: dict = field(default_factory=dict)


def _witness(wc, margin, solve):
    """Re-solve the best pair with a positive margin and check it with the core."""
    value, support, probs = solve(margin)
    wc.witness_margin = margin
    if value is None:
        log.warning("%s m=%d: the margin-%g LP is infeasible", wc.surrogate, wc.m, margin)
        return wc
    h_core = surrogate_prediction(support, probs, wc.surrogate)
    wc.witness_h_L_ok = bool((np.asarray(h_core) == wc.h_L).all())
    _, best = inference.brute_force(support, probs)
    wc.witness_regret = float(best - inference.expected_f(support, probs, wc.h_L))
    return wc


def worst_case_orbit(m, surrogate, witness_margin=1e-6, verify_max_m=10):
    """Exact worst-case regret of the Hamming or subset 0/1 minimizer for m labels (orbit LPs).

    Enumerates all (a, b, c, d) with a + b + c + d = m (C(m+3, 3) LPs).

    Examples
    --------
    >>> round(worst_case_orbit(3, "subset").value, 4)
    0.4875
    """
    t0 = time.perf_counter()
    best = None
    n = 0
    for a in progress(range(m + 1), desc=f"{surrogate} m={m}: outer orbit loops done", logger=log, every=10.0):
        for b in range(m + 1 - a):
            for c in range(m + 1 - a - b):
                sizes = (a, b, c, m - a - b - c)
                if a == 0 and b == 0:  # h == h_L: regret 0
                    continue
                value, w, *_ = orbit_lp(sizes, surrogate, 0.0)
                n += 1
                if value is not None and (best is None or value > best[0] + 1e-10):
                    best = (value, sizes, w)
    value, sizes, w = best
    h, h_L = _pair_vectors(sizes)
    if m <= verify_max_m:
        support, probs = expand_orbits(sizes, w)
    else:
        support, probs = np.zeros((0, m), np.int8), np.zeros(0)
    wc = WorstCase(surrogate, m, value, h, h_L, support, probs, n, 0.0, sizes=sizes)
    wc.extra["orbit_weights"] = w
    if m <= verify_max_m and witness_margin > 0:

        def solve(margin):
            v, w2, *_ = orbit_lp(sizes, surrogate, margin)
            if v is None:
                return None, None, None
            return (v, *expand_orbits(sizes, w2))

        _witness(wc, witness_margin, solve)
    wc.seconds = time.perf_counter() - t0
    log.info("%s m=%d: sup regret %.6f at (a,b,c,d)=%s (%d LPs, %.2fs)", surrogate, m, value, sizes, n, wc.seconds)
    return wc


def worst_case_threshold(m, witness_margin=1e-6, prune=True):
    """Exact worst-case regret of thresholding on sorted marginals for m labels.

    Enumerates k = 0..m (h_L = top-k) and every h != h_L (full LPs over 2^m vectors),
    skipping pairs whose bound max_y F(y,h) - F(y,h_L) cannot beat the best value so far.

    Examples
    --------
    >>> worst_case_threshold(2).value < 1e-9  # thresholding is optimal for m = 2
    True
    """
    t0 = time.perf_counter()
    Y = all_label_vectors(m)
    T = _threshold_candidates(m)
    FT = f_utility_matrix(Y, T)
    FH = f_utility_matrix(Y, Y)  # column r: F(., Y[r]), every candidate h
    pairs = []
    for k in range(m + 1):
        diff = FH - FT[:, [k]]
        ub = diff.max(0)
        for r in range(len(Y)):
            if not (Y[r] == T[k]).all():
                pairs.append((ub[r], k, r))
    pairs.sort(key=lambda t: -t[0])
    best = (0.0, 0, int(np.flatnonzero((Y == T[0]).all(1))[0]), False)
    models = {}  # k -> the LP of every pair (., T_k): the same constraints, one objective per h
    n = 0
    for ub, k, r in progress(
        pairs, desc=f"threshold m={m}: candidate pairs examined (most are pruned)", logger=log, every=10.0
    ):
        if prune and ub <= best[0] + 1e-12:
            break  # sorted: no later pair can do better
        if k not in models:
            models[k] = _ObjectiveLP(_threshold_constraints(Y, FT, k, 0.0)[0])
        value = models[k].solve(FH[:, r] - FT[:, k])
        n += 1
        if value is not None and value > best[0] + 1e-10:
            best = (value, k, r, True)
    value, k, r, found = best
    x = None
    if found:  # the best pair solved from scratch: its value and maximizing distribution
        value, x = full_lp(Y[r], T[k], "threshold", 0.0, Y=Y, U=FT)
    if x is None:  # regret 0 everywhere: report the trivial distribution
        value = 0.0
        x = np.zeros(len(Y))
        x[0] = 1.0
    keep = x > 1e-12
    wc = WorstCase("threshold", m, value, Y[r].copy(), T[k].copy(), Y[keep], x[keep], n, 0.0)
    if witness_margin > 0 and value > 1e-9:

        def solve(margin):
            v, x2 = full_lp(Y[r], T[k], "threshold", margin, Y=Y, U=FT)
            if v is None:
                return None, None, None
            keep2 = x2 > 1e-12
            return v, Y[keep2], x2[keep2]

        _witness(wc, witness_margin, solve)
    wc.seconds = time.perf_counter() - t0
    log.info(
        "threshold m=%d: sup regret %.6f, h=%s h_T=%s (%d LPs of %d pairs, %.2fs)",
        m,
        value,
        as_string(wc.h),
        as_string(wc.h_L),
        n,
        len(pairs),
        wc.seconds,
    )
    return wc


def worst_case(m, surrogate, witness_margin=1e-6, verify_max_m=10):
    """Exact worst-case F-regret of ``surrogate`` for m labels (dispatches to the orbit or full LPs)."""
    _check_surrogate(surrogate)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    if surrogate == "threshold":
        return worst_case_threshold(int(m), witness_margin)
    return worst_case_orbit(int(m), surrogate, witness_margin, verify_max_m)


# --------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------
def _theorem_value(surrogate, m):
    """The paper's statement for comparison: (value, kind)."""
    if surrogate == "hamming":
        return (0.5, "= (Thm 3.1)") if m > 2 else (np.nan, "")
    if surrogate == "subset":
        v = m * (2 * m**2 - m - 2) / ((2 * m - 1) * (m**2 + m + 4))
        return (v, "= (Thm 3.2)") if m > 2 else (np.nan, "")
    return (max(0.0, 1 / 6 - 2 / (m + 4)), ">= (Thm 4.5)")


def lp_table(results):
    """One row per WorstCase: LP supremum beside the theorem, the maximizing pair, the witness check."""
    rows = []
    for wc in results:
        thm, kind = _theorem_value(wc.surrogate, wc.m)
        rows.append(
            {
                "surrogate": wc.surrogate,
                "m": wc.m,
                "lp_sup": wc.value,
                "theorem": thm,
                "theorem_kind": kind,
                "lp_minus_theorem": wc.value - thm if np.isfinite(thm) else np.nan,
                "h": as_string(wc.h),
                "h_L": as_string(wc.h_L),
                "abcd": "" if wc.sizes is None else ",".join(map(str, wc.sizes)),
                "support_size": len(wc.probs),
                "witness_margin": wc.witness_margin,
                "witness_regret": wc.witness_regret,
                "witness_h_L_ok": wc.witness_h_L_ok,
                "n_lps": wc.n_lps,
                "seconds": wc.seconds,
            }
        )
    return pd.DataFrame(rows)


def lp_distribution_table(results, tol=1e-9):
    """The maximizing distributions (margin 0) in long form: surrogate, m, y, P(y)."""
    rows = []
    for wc in results:
        for y, p in zip(wc.support, wc.probs):
            if p > tol:
                rows.append(
                    {
                        "surrogate": wc.surrogate,
                        "m": wc.m,
                        "h": as_string(wc.h),
                        "h_L": as_string(wc.h_L),
                        "y": as_string(y),
                        "prob": float(p),
                    }
                )
    return pd.DataFrame(rows)
