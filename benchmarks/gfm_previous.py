# The previous implementation of fmeasure.inference.general (as of commit 0d6298c), kept verbatim
# as the reference that benchmarks/bench_gfm_scale.py times the current one against.
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
E_k <= sum_s 2 S_s / (s + k) for P (S_s = column sum of P: every label of count s taken), compared
with a lower bound on the optimum (P(y = 0), E_1 and E at the expected label count). Labels whose P-row is
zero are dropped, and columns k above the number of remaining labels cannot win (E_k = column sum is
strictly decreasing there). Columns s of P above the largest count with non-zero mass are skipped.
"""

from __future__ import annotations

import logging

import numpy as np

from fmeasure._arrays import (
    TOL,
    chunks,
    first_max,
    out,
    p_counts,
    p_zero_vector,
    row_counts,
    sample_input,
    square_batch,
    w_matrix,
)
from fmeasure.blas import single_threaded_blas

__all__ = ["gfm", "gfm_from_p", "gfm_from_samples"]

log = logging.getLogger(__name__)


def _topk_sums(DT):
    """E[:, k-1] = sum of the k largest entries of DT[:, k-1, :] for k = 1..K; DT is (n, K, r).

    Full row sorts: numpy's SIMD sort along the last axis is several times faster than
    np.partition on rows of ~100 entries.
    """
    n, K, r = DT.shape
    kk = min(K, r)
    X = np.sort(DT[:, :kk, :], axis=2)  # ascending
    mask = np.arange(r)[None, :] >= (r - np.arange(1, kk + 1))[:, None]  # the last k of row k
    E = np.einsum("nkj,kj->nk", X, mask.astype(np.float64))
    if K > kk:  # k > r: every row is taken
        E = np.concatenate([E, DT[:, kk:, :].sum(axis=2)], axis=1)
    return E


def _select(DT, E, p0):
    """Choose the best size (first maximum, k = 0 first) and build h from column k of DT (n, K, r)."""
    n, K, r = DT.shape
    vals = np.concatenate([p0[:, None], E], axis=1)
    kbest = first_max(vals)
    value = vals[np.arange(n), kbest]
    col = DT[np.arange(n), np.maximum(kbest - 1, 0), :]  # (n, r)
    order = np.argsort(-col, axis=1, kind="stable")  # ties: lowest index first
    h = np.zeros((n, r), dtype=np.int8)
    np.put_along_axis(h, order, (np.arange(r)[None, :] < kbest[:, None]).astype(np.int8), axis=1)
    return h, value


def _cutoff(upper, lower):
    """Largest k (1-based) whose upper bound reaches the lower bound of the optimum, over a chunk."""
    cand = upper >= lower[:, None] * (1 - 1e-12) - 1e-300
    anyc = cand.any(axis=0)
    return int(len(anyc) - np.argmax(anyc[::-1])) if anyc.any() else 1


def _check_chunk_delta(D, p0, offset):
    if not np.all(np.isfinite(D)):
        raise ValueError("delta: contains NaN or infinite values")
    lo, hi = D.min(), D.max()
    if lo < -TOL:
        raise ValueError(f"delta: entries must be non-negative, got minimum {lo:.6g}")
    if hi > 1 + TOL:
        raise ValueError(f"delta: entries must be <= 1 (Delta_ik <= P(y_i = 1)), got {hi:.6g}")


@single_threaded_blas
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
    go to the lowest label index. O(m^2 log m) per instance at worst, vectorised over the batch;
    columns k whose bound ``min(colsum_k, k colmax_k)`` is below max(p_zero, E_1) are skipped.

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
    D, single = square_batch(delta, "delta", "")
    n, m, _ = D.shape
    p0 = p_zero_vector(p_zero, n, single)
    H = np.empty((n, m), dtype=np.int8)
    V = np.empty(n)
    kvec = np.arange(1, m + 1, dtype=np.float64)
    for sl in chunks(n, 8 * m * m * 3, budget=8 * 2**20):
        Dc, pc = D[sl].astype(np.float64, copy=False), p0[sl]
        _check_chunk_delta(Dc, pc, sl.start)
        Dc = np.maximum(Dc, 0.0) if Dc.min() < 0 else Dc
        colsum = Dc.sum(axis=1)
        colmax = Dc.max(axis=1)
        # necessary condition p_zero + P(y != 0) <= 1, using P(y != 0) >= colsum_k (m + k) / (2m)
        mass_lb = (colsum * (m + kvec) / (2.0 * m)).max(axis=1)
        bad = pc + mass_lb > 1 + 1e-6
        if bad.any():
            j = int(np.argmax(bad))
            raise ValueError(
                f"p_zero: p_zero + mass implied by delta exceeds 1 "
                f"({pc[j]:.6g} + {mass_lb[j]:.6g}) for instance {sl.start + j}"
            )
        K = _cutoff(np.minimum(colsum, kvec * colmax), np.maximum(pc, colmax[:, 0]))
        DT = np.ascontiguousarray(Dc[:, :, :K].transpose(0, 2, 1))  # (nb, K, m)
        H[sl], V[sl] = _select(DT, _topk_sums(DT), pc)
    return out(H, V, single)


def _gfm_compact(A, p0, colS=None):
    """GFM on compact P blocks: A (n, r, S) = P restricted to r candidate labels and counts 1..S.

    Rows of A that are zero are padding (never selected: every non-zero row has Delta > 0 in all
    columns, and for k above the number of non-zero rows E_k is strictly decreasing).
    Returns h over the r rows (n, r) and the values (n,).
    """
    n, r, S = A.shape
    if r == 0 or S == 0:
        return np.zeros((n, r), dtype=np.int8), p0.copy()
    W = w_matrix(S, r)  # (S, r): only k <= r can win
    if colS is None:
        colS = A.sum(axis=1)  # (n, S)
    svec = np.arange(1, S + 1, dtype=np.float64)
    mass = (colS / svec).sum(axis=1)
    mean_s = colS.sum(axis=1) / np.where(mass > 0, mass, 1.0)
    k_hat = np.clip(np.rint(mean_s).astype(np.int64), 1, r)
    # lower bound on the optimum: p0, E_1 and E at the expected count
    d1 = A @ W[:, 0]
    dk = np.einsum("nrs,ns->nr", A, W[:, k_hat - 1].T)
    dk = -np.sort(-dk, axis=1)
    Ek = np.take_along_axis(np.cumsum(dk, axis=1), (k_hat - 1)[:, None], axis=1)[:, 0]
    lower = np.maximum(np.maximum(p0, d1.max(axis=1)), Ek)
    # upper bound per k: E_k <= sum_s 2 S_s / (s + k) (all of column s taken: recall 1); it is
    # decreasing in k, and tight for the large k that we want to rule out
    K = _cutoff(colS @ W, lower)
    log.debug("gfm block: %d instances, %d labels, counts <= %d, sizes k <= %d", n, r, S, K)
    D = (A.reshape(n * r, S) @ W[:, :K]).reshape(n, r, K)
    DT = np.ascontiguousarray(D.transpose(0, 2, 1))
    return _select(DT, _topk_sums(DT), p0)


def _check_chunk_p(A, p0, offset, tol=TOL):
    """Validate a chunk of P; return (row sums (n, m), column sums (n, m)).

    ``tol`` is the tolerance on sums (larger for float32 inputs)."""
    rows = A.sum(axis=2)
    if not np.all(np.isfinite(rows)):
        raise ValueError("P: contains NaN or infinite values")
    lo = A.min()
    if lo < -TOL:
        raise ValueError(f"P: probabilities must lie in [0, 1], got minimum {lo:.6g}")
    if rows.max() > 1 + tol:
        j, i = np.unravel_index(np.argmax(rows), rows.shape)
        raise ValueError(f"P: row {i} sums to {rows[j, i]:.6g} > 1 (a row is P(y_i = 1)) for instance {offset + j}")
    cols = A.sum(axis=1)
    m = A.shape[1]
    mass = (cols / np.arange(1, m + 1)).sum(axis=1)  # sum_s P(s_y = s)
    bad = p0 + mass > 1 + max(tol, 1e-6)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"p_zero: p_zero + sum_s P(s_y = s) = {p0[j] + mass[j]:.9g} > 1 for instance {offset + j}")
    return rows, cols


@single_threaded_blas
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
    probability are dropped before the product, and columns k of Delta that provably cannot win
    are never formed, so the cost is about O(r S K) for r active labels, S possible counts and K
    candidate sizes rather than O(m^3). Same tie rules as :func:`gfm`.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.zeros((3, 3)); P[0, 0] = 0.5; P[1, 1] = P[0, 1] = 0.2   # P(y=100)=.5, P(y=110)=.2
    >>> h, v = gfm_from_p(P, p_zero=0.3)
    >>> h, round(v, 4)
    (array([1, 0, 0], dtype=int8), 0.6333)
    """
    A, single = square_batch(P, "P", " (rows labels, columns s = 1..m)")
    n, m, _ = A.shape
    p0 = p_zero_vector(p_zero, n, single)
    # rounding of the input's own dtype (float32 model outputs) when checking sums
    eps = np.finfo(A.dtype).eps if A.dtype.kind == "f" else 0.0
    tol = max(TOL, 4 * m * eps)
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * m * 2, budget=8 * 2**20):
        Ac = A[sl].astype(np.float64, copy=False)
        rows, cols = _check_chunk_p(Ac, p0[sl], sl.start, tol)
        H[sl], V[sl] = _gfm_p_block(Ac, p0[sl], rows, cols)
    return out(H, V, single)


def _gfm_p_block(Ac, pc, rows, cols):
    """GFM for a validated block of P matrices Ac (n, m, S'), with its row and column sums."""
    n, m, _ = Ac.shape
    H = np.zeros((n, m), dtype=np.int8)
    active = rows > 0
    r = int(active.sum(axis=1).max())
    colany = (cols > 0).any(axis=0)
    S = int(len(colany) - np.argmax(colany[::-1])) if colany.any() else 0
    if r == 0 or S == 0:  # no mass on non-empty vectors: predict nothing
        return H, pc.copy()
    Ac = Ac[:, :, :S]
    if Ac.min() < 0:  # tiny negative rounding errors (validated by the caller)
        Ac = np.maximum(Ac, 0.0)
    if r < m:
        idx = np.argsort(~active, axis=1, kind="stable")[:, :r]  # active rows, in label order
        h, V = _gfm_compact(np.take_along_axis(Ac, idx[:, :, None], axis=1), pc, cols[:, :S])
        np.put_along_axis(H, idx, h, axis=1)
    else:
        H, V = _gfm_compact(np.ascontiguousarray(Ac), pc, cols[:, :S])
    return H, V


@single_threaded_blas
def gfm_from_samples(Y, weights=None):
    """GFM straight from label samples: the fast path for kNN neighbourhoods and PCC samples.

    Equivalent to ``gfm_from_p(*fmeasure.estimation.p_matrix(Y, weights))`` (same prediction and
    value) but never forms an (m, m) matrix for a sparse sample: only the labels that occur and
    the counts that occur enter the computation.

    Parameters
    ----------
    Y : array-like (n_samples, m) or (n, n_samples, m), or sparse (n_samples, m); values in {0, 1}
    weights : array-like (n_samples,) or (n, n_samples), optional

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    value : float or ndarray of shape (n,)
        Expected F-measure of ``h`` under the empirical (weighted) distribution of the sample.

    Examples
    --------
    >>> h, v = gfm_from_samples([[1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1]])
    >>> h, round(v, 4)
    (array([1, 0, 0], dtype=int8), 0.5833)
    """
    Y, w, single, sparse = sample_input(Y, weights)
    s = row_counts(Y, sparse)
    smax = int(s.max())
    p0 = (w * (s == 0)).sum(axis=1)
    m = Y.shape[-1]
    if smax == 0:
        return out(np.zeros((len(p0), m), np.int8), p0, single)
    if sparse:
        labels, comp = np.unique(Y.indices, return_inverse=True)
        rows_of_nz = np.repeat(np.arange(Y.shape[0]), np.diff(Y.indptr))
        Pc = np.bincount(
            comp.ravel() * smax + (s[0, rows_of_nz] - 1), weights=w[0, rows_of_nz], minlength=len(labels) * smax
        ).reshape(1, len(labels), smax)
        h, v = _gfm_compact(Pc, p0)
        H = np.zeros((1, m), np.int8)
        H[0, labels] = h[0]
        return out(H, v, single)
    n = Y.shape[0]
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * smax * 3 + Y.shape[1] * m, budget=8 * 2**20):
        A = p_counts(Y[sl], w[sl], False, smax=smax)
        H[sl], V[sl] = _gfm_p_block(A, p0[sl], A.sum(axis=2), A.sum(axis=1))
    return out(H, V, single)
