"""Theory of Sections 2-4 of Waegeman et al. (2014), computed rather than quoted.

Every worst-case construction of the paper's appendix is built here as an explicit
distribution (support vectors and probabilities) and evaluated *exactly* with the
inference core (`fmeasure.inference`): the F-maximizer by brute force, the surrogate's
prediction by the surrogate's own rule (marginal modes, joint mode, thresholding,
independence-based FM), the regret as the difference of exact expected F-measures.

Contents
--------
- Theorem 3.2 (subset 0/1) and Figure 1: :func:`.subset_regret_closed_form`,
  :func:`.subset_worst_case_distribution`, ``figure1_table``.
- Theorem 3.1 (Hamming): :func:`.hamming_pa_distribution` (the appendix's P_A),
  :func:`.hamming_two_label_distribution` (a simpler distribution with a larger regret),
  ``hamming_table``.
- Theorem 3.3 (Jaccard): :func:`.jaccard_maximizer`, :func:`.jaccard_check`.
- Theorem 4.2 / Corollary 4.3 (independence): :func:`.independence_delta`,
  :func:`.independence_q_range`, :func:`.independence_families`, ``independence_table``.
- Theorem 4.5 (thresholding): :func:`.threshold_family`, ``threshold_table``.
- The worked examples of Section 4: :func:`.worked_examples`, ``examples_table``.

The ``*_table`` functions, which tabulate these for the pipeline, are in
``fmeasure.experiments.theory``. The exact worst-case regrets by linear programming live in
:mod:`fmeasure.theory.lp`.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from fmeasure import inference, metrics
from fmeasure._arrays import label_vectors

log = logging.getLogger(__name__)

__all__ = [
    "all_label_vectors",
    "as_string",
    "regret",
    "marginals",
    "p_matrix",
    "subset_regret_closed_form",
    "subset_worst_case_distribution",
    "hamming_pa_distribution",
    "hamming_pa_objective_closed_form",
    "hamming_two_label_distribution",
    "jaccard_maximizer",
    "random_distribution",
    "jaccard_check",
    "independence_delta",
    "independence_q_range",
    "independence_families",
    "threshold_family",
    "threshold_bound",
    "worked_examples",
]


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------
def check_m(m, minimum=1, name="m"):
    """``m`` as an int, or one error naming it when it is not an integer >= ``minimum``."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {m!r}")
    return int(m)


def _check_eps(eps, upper, name="eps"):
    if not (np.isfinite(eps) and 0.0 <= eps < upper):
        raise ValueError(f"{name} must lie in [0, {upper:g}), got {eps!r}")
    return float(eps)


def all_label_vectors(m):
    """All 2^m binary label vectors, in lexicographic order (label 1 = most significant bit).

    Examples
    --------
    >>> all_label_vectors(2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    m = check_m(m)
    if m > 20:
        raise ValueError(f"m must be <= 20 to enumerate {{0,1}}^m, got {m}")
    return label_vectors(m)


def as_string(h):
    """A label vector as a compact string, e.g. ``[1, 0, 0]`` -> ``'100'``."""
    return "".join(str(int(v)) for v in np.asarray(h).ravel())


def marginals(support, probs):
    """Marginals p_i = P(y_i = 1) of a distribution given by support (r, m) and probs (r,)."""
    return np.asarray(probs, float) @ np.asarray(support, float)


def p_matrix(support, probs):
    """The matrix P of Section 5: P[i, s-1] = P(y_i = 1, s_y = s), and p_zero = P(y = 0).

    Examples
    --------
    >>> P, p0 = p_matrix([[1, 0], [1, 1]], [0.5, 0.5])
    >>> P.tolist(), p0
    ([[0.5, 0.5], [0.0, 0.5]], 0.0)
    """
    S = np.asarray(support, float)
    w = np.asarray(probs, float)
    r, m = S.shape
    s = S.sum(1).astype(int)
    onehot = np.zeros((r, m))
    nz = s > 0
    onehot[np.flatnonzero(nz), s[nz] - 1] = 1.0
    P = np.einsum("r,ri,rs->is", w, S, onehot)
    return P, float(w[~nz].sum())


def regret(support, probs, h):
    """Exact F-regret of prediction ``h``: max_h' E[F(Y, h')] - E[F(Y, h)] (brute-force maximizer).

    Examples
    --------
    >>> round(regret([[1, 0], [0, 1]], [0.5, 0.5], [0, 0]), 4)
    0.6667
    """
    _, best = inference.brute_force(np.asarray(support, np.int8), np.asarray(probs, float))
    return float(best - inference.expected_f(np.asarray(support, np.int8), np.asarray(probs, float), h))


# --------------------------------------------------------------------------------------
# Theorem 3.2 (subset 0/1 loss) and Figure 1
# --------------------------------------------------------------------------------------
def subset_regret_closed_form(m):
    """Theorem 3.2: worst-case F-regret of the subset 0/1 minimizer, m(2m^2 - m - 2) / ((2m-1)(m^2+m+4)).

    Examples
    --------
    >>> float(subset_regret_closed_form(3))
    0.4875
    """
    m = np.asarray(m, float)
    return m * (2 * m**2 - m - 2) / ((2 * m - 1) * (m**2 + m + 4))


def subset_worst_case_distribution(m, eps=1e-9):
    """The appendix's worst case for Theorem 3.2, made to have a unique mode.

    Uniform mass 2/(m^2+m+4) on the zero vector and on every vector with at least m-2 ones;
    the zero vector then gets ``eps`` more and the others share ``eps`` less, so that the
    joint mode (the subset 0/1 minimizer) is the zero vector uniquely for eps > 0.

    Returns
    -------
    support : (r, m) int8, probs : (r,) float

    Examples
    --------
    >>> S, p = subset_worst_case_distribution(3, eps=0.0)
    >>> len(p), float(p.sum())
    (8, 1.0)
    """
    m = check_m(m, 2)
    rows = [np.zeros(m, np.int8)]
    Y = all_label_vectors(m) if m <= 16 else None
    if Y is None:
        raise ValueError(f"m must be <= 16 for the explicit construction, got {m}")
    rows.extend(Y[Y.sum(1) >= m - 2][::-1])
    support = np.array(rows, np.int8)
    n = len(support)
    eps = _check_eps(eps, 1.0 / n)
    probs = np.full(n, 1.0 / n)
    probs[0] += eps
    probs[1:] -= eps / (n - 1)
    return support, probs


# --------------------------------------------------------------------------------------
# Theorem 3.1 (Hamming loss)
# --------------------------------------------------------------------------------------
def _blocks(a, b, c, d):
    for name, v in zip("abcd", (a, b, c, d)):
        check_m(v, 0, name)
    m = a + b + c + d
    check_m(m, 1, "a + b + c + d")
    lab = np.repeat(np.arange(4), [a, b, c, d])  # 0=A, 1=B, 2=C, 3=D
    return m, lab


def hamming_pa_distribution(a, b, c, d, eps=1e-6):
    """The appendix's P_A for Theorem 3.1 with label classes A, B, C, D (in this order).

    A = {h=1, h_H=0}, B = {h=0, h_H=1}, C = {h=1, h_H=1}, D = {h=0, h_H=0}.
    P_A(y^A) = 1/2 - eps, P_A(y^BCD) = 1/2 - (2d-1) eps, and 2 eps on each of the d vectors
    of Omega^D (y^BCD with one D label switched off).

    Examples
    --------
    >>> S, p = hamming_pa_distribution(1, 0, 0, 2, eps=0.01)
    >>> [as_string(y) for y in S], p.round(2).tolist()
    (['100', '011', '001', '010'], [0.49, 0.47, 0.02, 0.02])
    """
    m, lab = _blocks(a, b, c, d)
    eps = _check_eps(eps, 1.0 / (2 * max(2 * d - 1, 1)))
    yA = (lab == 0).astype(np.int8)
    yBCD = (lab != 0).astype(np.int8)
    rows, probs = [yA, yBCD], [0.5 - eps, 0.5 - (2 * d - 1) * eps]
    for j in np.flatnonzero(lab == 3):
        y = yBCD.copy()
        y[j] = 0
        rows.append(y)
        probs.append(2 * eps)
    return np.array(rows, np.int8), np.array(probs)


def hamming_pa_objective_closed_form(a, b, c, d):
    """The appendix's eps -> 0 value of E[F(Y, h)] - E[F(Y, h_H)] under P_A (h = A u C, h_H = B u C).

    a/(2a+c) - ca/((m+c)(2b+2c+d)) - mb/((m+c)(2b+2c+d)).
    """
    m = a + b + c + d
    den = (m + c) * (2 * b + 2 * c + d)
    return a / (2 * a + c) - c * a / den - m * b / den


def hamming_two_label_distribution(m, eps=1e-6):
    """A distribution with Hamming-minimizer regret -> 2/3 (found by :mod:`fmeasure.theory.lp`).

    P(e_1) = P(e_2) = 1/2 - eps and 2 eps on e_3 (on the zero vector when m = 2). All
    marginals are below 1/2, so the Hamming minimizer is the zero vector (E[F] = 0 for m > 2),
    while h = (1, 1, 0, ..., 0) has F = 2/3 on e_1 and e_2.

    Examples
    --------
    >>> S, p = hamming_two_label_distribution(3, eps=0.0)
    >>> round(regret(S, p, [0, 0, 0]), 4)
    0.6667
    """
    m = check_m(m, 2)
    eps = _check_eps(eps, 0.25)
    S = np.zeros((3, m), np.int8)
    S[0, 0] = 1
    S[1, 1] = 1
    if m > 2:
        S[2, 2] = 1
    return S, np.array([0.5 - eps, 0.5 - eps, 2 * eps])


# --------------------------------------------------------------------------------------
# Theorem 3.3 (Jaccard)
# --------------------------------------------------------------------------------------
def jaccard_maximizer(support, probs, *, empty=1.0):
    """Exact maximizer of the expected Jaccard index over all 2^m predictions (brute force).

    Parameters
    ----------
    support : (r, m) array of 0/1, probs : (r,) array
    empty : float
        J(0, 0); the paper's footnote says 0, MULAN uses 1.

    Returns
    -------
    h : (m,) int8, value : float

    Examples
    --------
    >>> h, v = jaccard_maximizer([[1, 1], [1, 0]], [0.5, 0.5])
    >>> h.tolist(), v
    ([1, 0], 0.75)
    """
    S = np.asarray(support, np.int8)
    w = np.asarray(probs, float)
    r, m = S.shape
    H = all_label_vectors(m)
    J = metrics.jaccard_index(np.repeat(S, len(H), 0), np.tile(H, (r, 1)), empty=empty).reshape(r, len(H))
    ev = w @ J
    i = int(np.argmax(ev))
    return H[i].copy(), float(ev[i])


def random_distribution(m, rng, kind="sparse", alpha=0.3):
    """A random joint distribution over {0,1}^m.

    kind='dense': Dirichlet(alpha) over all 2^m vectors; kind='sparse': Dirichlet(alpha) over
    2..min(2^m, 2m) distinct random vectors.
    """
    m = check_m(m)
    Y = all_label_vectors(m)
    if kind == "dense":
        S = Y
    elif kind == "sparse":
        r = int(rng.integers(2, min(2**m, 2 * m) + 1))
        S = Y[np.sort(rng.choice(len(Y), size=r, replace=False))]
    else:
        raise ValueError(f"kind must be 'dense' or 'sparse', got {kind!r}")
    return S, rng.dirichlet(np.full(len(S), alpha))


def jaccard_check(ms, n_per_m, seed, empties=(1.0, 0.0), alpha=0.3):
    """Theorem 3.3 on random distributions: Jaccard regret of h_F vs the bound 1 - delta(P)/2.

    For each m, ``n_per_m`` random distributions (half dense, half sparse), and each
    convention for J(0, 0) in ``empties``.

    Returns
    -------
    pandas.DataFrame, one row per (distribution, empty): m, kind, empty, delta, bound, regret.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for m in ms:
        for i in range(n_per_m):
            kind = "dense" if i % 2 == 0 else "sparse"
            S, p = random_distribution(m, rng, kind, alpha)
            h_f, delta = inference.brute_force(S, p)
            for empty in empties:
                _, jbest = jaccard_maximizer(S, p, empty=empty)
                jf = float(p @ metrics.jaccard_index(S, np.broadcast_to(h_f, S.shape), empty=empty))
                rows.append(
                    {
                        "m": int(m),
                        "kind": kind,
                        "empty": float(empty),
                        "delta": float(delta),
                        "bound": 1.0 - float(delta) / 2.0,
                        "regret": jbest - jf,
                    }
                )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Theorem 4.2 / Corollary 4.3 (label independence)
# --------------------------------------------------------------------------------------
def independence_delta(m, q):
    """delta_m(q) = E_{P_A}[F(Y, 1)] - E_{P_A}[F(Y, 0)] for i.i.d. labels with P(y_i = 0) = q.

    sum_{s=1}^m C(m-1, s-1) 2m/(m+s) q^(m-s) (1-q)^s - q^m; Theorem 4.2's condition is delta > 0.
    Computed in log space, so it is stable for large m.

    Examples
    --------
    >>> round(float(independence_delta(2, 0.5)), 6)  # (4/3)(1/4) + (1)(1/4) - 1/4
    0.333333
    """
    m = check_m(m)
    q = np.asarray(q, float)
    s = np.arange(1, m + 1)
    logc = np.array([math.lgamma(m) - math.lgamma(m - k + 1) - math.lgamma(k) for k in s])
    with np.errstate(divide="ignore"):
        lq, l1q = np.log(q)[..., None], np.log1p(-q)[..., None]
    terms = np.exp(logc + (m - s) * lq + s * l1q) * (2.0 * m / (m + s))
    return terms.sum(-1) - q**m


def independence_q_range(m, grid=20001):
    """The q in [1/2, 1] satisfying Theorem 4.2's condition, as an interval (q_lo, q_hi).

    Located on a grid of ``grid`` points and refined with Brent's method; returns
    (nan, nan) when no q qualifies. Raises if the set found on the grid is not one interval.
    """
    from scipy.optimize import brentq

    m = check_m(m)
    qs = np.linspace(0.5, 1.0, grid)
    ok = independence_delta(m, qs) > 0
    if not ok.any():
        return float("nan"), float("nan")
    idx = np.flatnonzero(ok)
    if np.any(np.diff(idx) != 1):
        raise ValueError(f"the condition of Theorem 4.2 holds on several intervals for m={m}")
    f = lambda q: float(independence_delta(m, q))  # noqa: E731
    lo = 0.5 if idx[0] == 0 else brentq(f, qs[idx[0] - 1], qs[idx[0]], xtol=1e-14)
    hi = 1.0 if idx[-1] == len(qs) - 1 else brentq(f, qs[idx[-1]], qs[idx[-1] + 1], xtol=1e-14)
    return float(lo), float(hi)


def independence_families(m, q):
    """P_A (independent, P(y_i=0)=q) and P_B (q on 0_m, 1-q on 1_m) evaluated exactly.

    Returns a dict with the F-maximizer of P_A (brute force) and its margin delta over 0_m,
    the independence-based prediction h_I = ``inference.fm(p)`` for the shared marginals
    p_i = 1 - q, and the exact regret of h_I under P_B.
    """
    m = check_m(m)
    if not 0.5 <= q <= 1.0:
        raise ValueError(f"q must lie in [1/2, 1], got {q!r}")
    Y = all_label_vectors(m)
    s = Y.sum(1)
    pA = q ** (m - s) * (1 - q) ** s
    hA, vA = inference.brute_force(Y, pA)
    deltaA = inference.expected_f(Y, pA, np.ones(m, np.int8)) - inference.expected_f(Y, pA, np.zeros(m, np.int8))
    SB = np.array([np.zeros(m), np.ones(m)], np.int8)
    pB = np.array([q, 1 - q])
    h_I, _ = inference.fm(np.full(m, 1 - q))
    return {
        "h_F_PA": as_string(hA),
        "delta_PA": float(deltaA),
        "h_I": as_string(h_I),
        "h_F_PB": as_string(inference.brute_force(SB, pB)[0]),
        "regret_PB": regret(SB, pB, h_I),
    }


# --------------------------------------------------------------------------------------
# Theorem 4.5 (thresholding on sorted marginals)
# --------------------------------------------------------------------------------------
def threshold_bound(m):
    """Theorem 4.5's lower bound max(0, 1/6 - 2/(m+4))."""
    return np.maximum(0.0, 1.0 / 6.0 - 2.0 / (np.asarray(m, float) + 4.0))


def threshold_family(m, eps=1e-6):
    """The family of equation (prob_dist), as it must read for the stated E[F(h_11)] to hold.

    P(e_1) = 1/2 - eps; two vectors with y_2 = 1 and m/2 - 1 further ones, in labels
    3..m/2+1 or in labels m/2+2..m, each with (1/2 + eps)/2. The paper prints
    (1/2 + eps)/(2m - 4) for these two, which does not sum to one for m > 3; the paper's
    own E[F(h_11)] = (1/2-eps)(2/3) + (1/2+eps)(2/(2+m/2)) needs total mass 1/2 + eps on them.

    Examples
    --------
    >>> S, p = threshold_family(6, eps=0.0)
    >>> [as_string(y) for y in S], p.tolist()
    (['100000', '011100', '010011'], [0.5, 0.25, 0.25])
    """
    m = check_m(m, 4)
    if m % 2:
        raise ValueError(f"m must be even for the family of Theorem 4.5, got {m}")
    eps = _check_eps(eps, 0.5)
    S = np.zeros((3, m), np.int8)
    S[0, 0] = 1
    S[1:, 1] = 1
    S[1, 2 : m // 2 + 1] = 1
    S[2, m // 2 + 1 :] = 1
    return S, np.array([0.5 - eps, (0.5 + eps) / 2, (0.5 + eps) / 2])


# --------------------------------------------------------------------------------------
# Worked examples of Section 4
# --------------------------------------------------------------------------------------
def worked_examples():
    """The three example distributions of Section 4 as {name: (support, probs)}."""

    def dist(rows):
        return (np.array([[int(ch) for ch in y] for y, _ in rows], np.int8), np.array([p for _, p in rows]))

    return {
        "sec4.1_a": dist([("0001", 0.1), ("0010", 0.2), ("0100", 0.2), ("1000", 0.5)]),
        "sec4.1_b": dist([("0000", 0.5), ("1001", 0.1), ("1010", 0.2), ("1100", 0.2)]),
        "sec4.3_m12": dist(
            [("000000000000", 0.21), ("100000000000", 0.39), ("011111100000", 0.2), ("010000011111", 0.2)]
        ),
    }
