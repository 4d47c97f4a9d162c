"""General F-measure Maximizer (GFM, Algorithm 1 of the paper), exact for any joint distribution.

Inputs are the matrix Delta (``delta[i, k-1] = Delta^1_{ik} = sum_{y: y_i=1} 2 P(y) / (s_y + k)``)
or the matrix P (``P[i, s-1] = P(y_i = 1, s_y = s)``, eq. (9)) with Delta = P W, W[s, k] = 2/(s+k),
plus ``p_zero = P(y = 0)``.

Conventions (DESIGN.md):

* The empty prediction is always a candidate, with E[F(Y, 0)] = P(y = 0).
* The prediction size k is never capped; k runs over 1..m.
* Ties: between sizes, the smallest k wins (the empty prediction first); within the k-th column,
  equal Delta values are broken towards the lowest label index.

Speed: the algorithm is vectorised over a batch of instances (no Python loop over instances).
Columns k that provably cannot win are skipped: E_k <= min(colsum_k, k * colmax_k) for Delta, and
E_k <= sum_s 2 min(S_s, k M_s) / (s + k) for P (S_s, M_s = column sum and max of P), compared with a
lower bound on the optimum (P(y = 0), E_1 and E at the expected label count). Labels whose P-row is
zero are dropped, and columns k above the number of remaining labels cannot win (E_k = column sum is
strictly decreasing there). Columns s of P above the largest count with non-zero mass are skipped.
"""

from __future__ import annotations

import logging

import numpy as np

from ._common import (TOL, CHUNK_BYTES, as_float, check_nonneg, check_unit, chunks, out,
                      p_zero_vector, w_matrix)

__all__ = ["gfm", "gfm_from_p"]

log = logging.getLogger(__name__)


def _topk_column_values(D, K):
    """E[:, k-1] = sum of the k largest entries of column k of D (n, r, K) for k = 1..K."""
    n, r, _ = D.shape
    kk = min(K, r)
    if kk < r:
        top = np.partition(D[:, :, :kk], r - kk, axis=1)[:, r - kk:, :]
    else:
        top = D[:, :, :kk]
    top = np.sort(top, axis=1)[:, ::-1, :]  # descending, (n, kk, kk)
    tri = np.tri(kk, kk, dtype=bool).T  # tri[j, k] = j <= k
    E = np.einsum("njk,jk->nk", top, tri.astype(np.float64))
    if K > kk:  # columns with k > r: all r rows are taken
        E = np.concatenate([E, D[:, :, kk:K].sum(axis=1)], axis=1)
    return E


def _select(D, E, p0):
    """Given E (n, K) for k = 1..K and p0, choose k and build h from column k of D (n, r, K)."""
    n, r, _ = D.shape
    vals = np.concatenate([p0[:, None], E], axis=1)
    kbest = np.argmax(vals, axis=1)  # first max: smallest k wins ties
    value = vals[np.arange(n), kbest]
    col = D[np.arange(n), :, np.maximum(kbest - 1, 0)]  # (n, r)
    order = np.argsort(-col, axis=1, kind="stable")
    h = np.zeros((n, r), dtype=np.int8)
    h[np.arange(n)[:, None], order] = (np.arange(r)[None, :] < kbest[:, None])
    return h, value


def _gfm_delta_chunk(D, p0):
    n, m, _ = D.shape
    colsum = D.sum(axis=1)
    colmax = D.max(axis=1)
    kvec = np.arange(1, m + 1, dtype=np.float64)
    upper = np.minimum(colsum, kvec * colmax)
    lower = np.maximum(p0, colmax[:, 0])
    cand = upper >= lower[:, None] * (1 - 1e-12) - 1e-300
    K = int(np.max(np.where(cand.any(axis=0), kvec, 1)))
    E = _topk_column_values(D, K)
    return _select(D[:, :, :K], E, p0)


def gfm(delta, p_zero):
    """General F-measure Maximizer (Algorithm 1): the exact F-optimal prediction from Delta.

    Parameters
    ----------
    delta : array-like of shape (m, m) or (n, m, m)
        ``delta[..., i, k-1] = Delta^1_{ik} = sum_{y: y_i = 1} 2 P(y) / (s_y + k)``
        (rows: labels i, columns: sizes k = 1..m). Entries in [0, 1].
    p_zero : float or array-like of shape (n,)
        P(y = 0), the expected F-measure of the empty prediction.

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
        The F-measure maximizer.
    value : float or ndarray of shape (n,)
        Its expected F-measure, ``max(p_zero, max_k sum_{i in top k} delta[i, k-1])``.

    Notes
    -----
    Ties between sizes go to the smaller size (the empty prediction first); ties within a column
    go to the lowest label index. O(m^2 log m) per instance, vectorised over the batch.

    Examples
    --------
    >>> import numpy as np
    >>> from fmeasure.estimation import delta_matrix
    >>> Y = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1]])
    >>> D, p0 = delta_matrix(Y)
    >>> h, v = gfm(D, p0)
    >>> h, round(v, 4)
    (array([1, 0, 0], dtype=int8), 0.5833)
    """
    D = as_float(delta, "delta", (2, 3))
    single = D.ndim == 2
    if single:
        D = D[None]
    n, m, m2 = D.shape
    if m != m2:
        raise ValueError(f"delta: expected square (m, m) matrices, got shape {D.shape[-2:]}")
    D = check_nonneg(D, "delta")
    if D.max() > 1 + TOL:
        raise ValueError(f"delta: entries must be <= 1 (Delta_ik <= P(y_i = 1)), got {D.max():.6g}")
    p0 = p_zero_vector(p_zero, n, single)
    # necessary condition p_zero + P(y != 0) <= 1, with P(y != 0) >= colsum_k (m + k) / (2 m)
    kvec = np.arange(1, m + 1)
    mass_lb = (D.sum(axis=1) * (m + kvec) / (2.0 * m)).max(axis=1)
    bad = p0 + mass_lb > 1 + 1e-6
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"p_zero: p_zero + mass implied by delta exceeds 1 "
                         f"({p0[j]:.6g} + {mass_lb[j]:.6g}) for instance {j}")
    H = np.empty((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * m * 4):
        H[sl], V[sl] = _gfm_delta_chunk(D[sl], p0[sl])
    return out(H, V, single)


def _validate_p(P, p_zero):
    A = as_float(P, "P", (2, 3))
    single = A.ndim == 2
    if single:
        A = A[None]
    n, m, m2 = A.shape
    if m != m2:
        raise ValueError(f"P: expected square (m, m) matrices (rows labels, columns s = 1..m), "
                         f"got shape {A.shape[-2:]}")
    A = check_unit(A, "P")
    rows = A.sum(axis=2)
    if rows.max() > 1 + TOL:
        i = np.unravel_index(np.argmax(rows), rows.shape)
        raise ValueError(f"P: row {i[1]} sums to {rows[i]:.6g} > 1 (a row is P(y_i = 1))")
    p0 = p_zero_vector(p_zero, n, single)
    mass = (A.sum(axis=1) / np.arange(1, m + 1)).sum(axis=1)  # sum_s P(s_y = s)
    bad = p0 + mass > 1 + 1e-6
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"p_zero: p_zero + sum_s P(s_y = s) = {p0[j] + mass[j]:.9g} > 1 "
                         f"for instance {j}")
    return A, p0, single


def _gfm_p_chunk(A, p0, m_full):
    """GFM for a chunk of P matrices A (n, r, S) restricted to active rows and columns s=1..S."""
    n, r, S = A.shape
    W = w_matrix(S, max(r, 1))  # (S, r): only k <= r can win
    # lower bound on the optimum: p0, E_1, and E at the expected count
    colS = A.sum(axis=1)  # (n, S)
    colM = A.max(axis=1)
    svec = np.arange(1, S + 1, dtype=np.float64)
    mass = (colS / svec).sum(axis=1)
    mean_s = np.where(mass > 0, colS.sum(axis=1) / np.where(mass > 0, mass, 1), 1.0)
    k_hat = np.clip(np.rint(mean_s).astype(np.int64), 1, r)
    d1 = A @ W[:, 0]
    wk = W[:, k_hat - 1].T  # (n, S)
    dk = np.einsum("nrs,ns->nr", A, wk)
    dk = -np.sort(-dk, axis=1)
    Ek = np.take_along_axis(np.cumsum(dk, axis=1), (k_hat - 1)[:, None], axis=1)[:, 0]
    lower = np.maximum(np.maximum(p0, d1.max(axis=1)), Ek)
    # upper bound per k: sum_s 2 min(S_s, k M_s) / (s + k)
    kvec = np.arange(1, r + 1, dtype=np.float64)
    ub = np.einsum("nsk,sk->nk", np.minimum(colS[:, :, None], colM[:, :, None] * kvec), W)
    cand = ub >= lower[:, None] * (1 - 1e-12) - 1e-300
    K = int(np.max(np.where(cand.any(axis=0), kvec, 1))) if r else 1
    D = A @ W[:, :K]  # (n, r, K)
    E = _topk_column_values(D, K)
    return _select(D, E, p0)


def gfm_from_p(P, p_zero):
    """GFM from the matrix P, via Delta = P W with W[s, k] = 2 / (s + k) (eqs. (9)-(11)).

    Parameters
    ----------
    P : array-like of shape (m, m) or (n, m, m)
        ``P[..., i, s-1] = P(y_i = 1, s_y = s)`` for labels i (rows) and counts s = 1..m
        (columns). Rows sum to P(y_i = 1) <= 1.
    p_zero : float or array-like of shape (n,)
        P(y = 0). Must satisfy ``p_zero + sum_s P(s_y = s) <= 1`` with
        ``P(s_y = s) = sum_i P[i, s-1] / s``.

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    value : float or ndarray of shape (n,)
        Expected F-measure of ``h``.

    Notes
    -----
    Columns s above the largest count with non-zero mass and rows (labels) with zero
    probability are dropped before the product, so the cost is O(r S m) for r active labels and
    S possible counts rather than O(m^3). Same tie rules as :func:`gfm`.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.zeros((3, 3)); P[0, 0] = 0.5; P[1, 1] = P[0, 1] = 0.2   # P(y=100)=.5, P(y=110)=.2
    >>> h, v = gfm_from_p(P, p_zero=0.3)
    >>> h, round(v, 4)
    (array([1, 0, 0], dtype=int8), 0.6333)
    """
    A, p0, single = _validate_p(P, p_zero)
    n, m, _ = A.shape
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    # per-instance active rows (labels with P(y_i = 1) > 0) and largest count with mass
    rowsum = A.sum(axis=2)
    active = rowsum > 0
    r_n = active.sum(axis=1)
    colany = A.any(axis=1)  # (n, m)
    s_n = np.where(colany.any(axis=1), m - np.argmax(colany[:, ::-1], axis=1), 0)
    # group instances of similar size so that chunks are homogeneous
    order = np.lexsort((s_n, r_n))
    for sl in chunks(n, 8 * m * m * 6):
        idx = order[sl]
        r = int(r_n[idx].max())
        S = int(s_n[idx].max())
        if r == 0 or S == 0:  # no mass on non-empty vectors: predict nothing
            V[idx] = p0[idx]
            continue
        rows = np.argsort(~active[idx], axis=1, kind="stable")[:, :r]  # active rows first, in order
        Aa = np.take_along_axis(A[idx][:, :, :S], rows[:, :, None], axis=1)
        h, v = _gfm_p_chunk(Aa, p0[idx], m)
        Hc = np.zeros((len(idx), m), dtype=np.int8)
        np.put_along_axis(Hc, rows, h, axis=1)
        H[idx] = Hc
        V[idx] = v
    return out(H, V, single)
