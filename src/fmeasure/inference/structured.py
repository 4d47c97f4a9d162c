"""Loss-augmented inference for structured learners trained on the F-measure loss.

A structured SVM with margin rescaling (Tsochantaridis et al., 2005) whose joint feature map
scores each label separately, score(x, h) = sum_i h_i s_i, and whose loss is
Delta(y, h) = 1 - F(y, h) (F(0, 0) = 1, eq. 1 of the paper), needs, for every training example
and every solver step, the most violating label vector

    argmax_h  sum_i h_i s_i + 1 - F(y, h).

:func:`loss_augmented` solves it exactly in O(m^2) per example. F(y, h) = 2a / (s_y + k) depends
on h only through its size k and the number a of true labels it contains; for fixed (a, k) the
score part is largest with the a best-scoring true labels and the k - a best-scoring false ones.
So the maximum is over the (s_y + 1) x (m - s_y + 1) pairs (a, b = k - a), with prefix sums of
the sorted scores; h = 0 is the pair (0, 0), of value 1 if y != 0 and 0 if y = 0. For fixed a the
value is concave in b, so the best b is a count of positive marginal gains (one comparison per
pair) and the best a is chosen among s_y + 1 candidates. The work is about
sum_n (s_n + 1)(m - s_n + 1) plus a sort per example, small for sparse label vectors. Solvers call
:func:`solve_batch`, a compiled kernel one example at a time; :func:`solve_batch_numpy` is the same
algorithm vectorised in numpy (examples grouped by their number of true labels s_y), kept as the
reference both are tested against.

Ties are broken as in the rest of :mod:`fmeasure.inference`: the smaller prediction first (the
empty one before any other), then, among predictions of equal size, the one with fewer true
labels, and among labels of equal score the lowest index.
"""

from __future__ import annotations

import functools

import numpy as np

from fmeasure._blocks import in_row_blocks
from fmeasure.inference._la_kernel import loss_augmented_rows

__all__ = ["loss_augmented", "solve_batch", "solve_batch_numpy"]

_TIE_ATOL = 1e-12


def _check(scores, y):
    s = np.asarray(scores, dtype=float)
    if s.ndim not in (1, 2):
        raise ValueError(f"scores: expected shape (m,) or (n, m), got {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores: must be finite")
    yy = np.asarray(y)
    if yy.shape != s.shape:
        raise ValueError(f"y: expected the shape of scores {s.shape}, got {yy.shape}")
    if yy.size and not np.all((yy == 0) | (yy == 1)):
        raise ValueError("y: must be a 0/1 label vector or matrix")
    return s, yy.astype(bool)


@functools.lru_cache(maxsize=256)
def _loss_table(s_lo, s_hi, na, nb):
    """L[s - s_lo, a, b] = 1 - F for s true labels and a prediction with a true and b false ones,
    and its increments in b (cached: a solver asks for the same few tables at every step)."""
    s = np.arange(s_lo, s_hi + 1)[:, None, None]
    a = np.arange(na)[None, :, None]
    k = a + np.arange(nb + 1)[None, None, :]
    denom = s + k
    L = 1.0 - np.where(denom == 0, 1.0, 2.0 * a / np.maximum(denom, 1))
    dL = np.diff(L, axis=2)
    L.flags.writeable = False
    dL.flags.writeable = False
    return L, dL


def _solve(S, Y, order, counts):
    """Exact loss-augmented argmax for rows with counts[n] true labels each.

    ``order`` sorts each row's scores in descending order (stable). For a fixed number a of true
    labels, the value T[a] + Fz[b] + L[a, b] is concave in b (sorted false scores decrease and
    the increments of the loss L decrease), so the best b is the number of false labels whose
    marginal gain is positive; then the best a is found among s + 1 candidates. Rows whose a or b
    would exceed their own counts are excluded (-inf), so groups of rows with close counts can
    share one padded grid.
    """
    n, m = S.shape
    s_lo, s_hi = int(counts.min()), int(counts.max())
    na, nb = s_hi + 1, m - s_lo
    rows = np.arange(n)[:, None]
    # True labels first, false ones after, each in descending order of score (lowest index first on ties).
    split = np.argsort(~Y[rows, order], axis=1, kind="stable")
    pos = order[rows, split]
    pos_t = pos[:, :s_hi]
    cols_f = np.minimum(counts[:, None] + np.arange(nb)[None, :], m - 1)
    pos_f = pos[rows, cols_f]
    T = np.zeros((n, na))
    np.cumsum(S[rows, pos_t], axis=1, out=T[:, 1:])
    f_sorted = S[rows, pos_f]
    if s_lo != s_hi:
        T[np.arange(na)[None, :] > counts[:, None]] = -np.inf
        f_sorted[np.arange(nb)[None, :] >= (m - counts)[:, None]] = -np.inf
    Fz = np.zeros((n, nb + 1))
    np.cumsum(f_sorted, axis=1, out=Fz[:, 1:])
    L, dL = _loss_table(s_lo, s_hi, na, nb)  # (distinct s, na, nb + 1); increments, decreasing in b
    dL = dL[0][None] if s_lo == s_hi else dL[counts - s_lo]
    gain = f_sorted[:, None, :] + dL  # (n, na, nb)
    b_best = np.count_nonzero(gain > _TIE_ATOL, axis=2)  # (n, na): smallest best b per a
    Lrow = L[0][None] if s_lo == s_hi else L[counts - s_lo]
    a_idx = np.arange(na)[None, :]
    value = T + Fz[rows, b_best] + np.broadcast_to(Lrow, (n, na, nb + 1))[rows, a_idx, b_best]
    best = value.max(axis=1)
    # Among (near-)ties: smallest k = a + b, then smallest a.
    rank = (a_idx + b_best) * na + a_idx
    cand = np.where(
        value >= best[:, None] - _TIE_ATOL * np.maximum(1.0, np.abs(best[:, None])), rank, np.iinfo(np.int64).max
    )
    a_best = np.argmin(cand, axis=1)
    b_sel = b_best[np.arange(n), a_best]
    H = np.zeros((n, m), dtype=np.int8)
    if s_hi:
        take_t = np.arange(s_hi)[None, :] < a_best[:, None]
        H[np.broadcast_to(rows, pos_t.shape)[take_t], pos_t[take_t]] = 1
    if nb:
        take_f = np.arange(nb)[None, :] < b_sel[:, None]
        H[np.broadcast_to(rows, pos_f.shape)[take_f], pos_f[take_f]] = 1
    return H, value[np.arange(n), a_best]


def _groups(counts, m):
    """Split the distinct label counts into runs whose padded grid wastes at most a small constant
    number of cells over the exact ones: small batches take one numpy call, large ones no waste."""
    values, freq = np.unique(counts, return_counts=True)
    out, start = [], 0
    for end in range(1, len(values) + 1):
        if end == len(values):
            out.append(values[start:end])
            break
        lo, hi = values[start], values[end]
        exact = int(np.sum(freq[start : end + 1] * (values[start : end + 1] + 1) * (m - values[start : end + 1] + 1)))
        padded = int(freq[start : end + 1].sum() * (hi + 1) * (m - lo + 1))
        if padded > exact + 20000:
            out.append(values[start:end])
            start = end
    return out


def solve_batch(S, Y, counts=None, threads=1):
    """:func:`loss_augmented` on a validated batch, without the input checks (for solvers).

    ``S`` float (n, m), ``Y`` bool (n, m); ``counts`` (its row sums) is accepted for the
    signature of :func:`solve_batch_numpy` and not needed. Compiled, one row at a time
    (:mod:`fmeasure.inference._la_kernel`); the result is bit for bit that of
    :func:`solve_batch_numpy`. With ``threads`` > 1, the rows are split into one block per thread,
    solved at once (the kernel releases the GIL): the same result, each row being solved alone.
    """
    S = np.ascontiguousarray(S, dtype=np.float64)
    Y = np.ascontiguousarray(Y, dtype=bool)
    n, m = S.shape
    H, V = np.empty((n, m), dtype=np.int8), np.empty(n)

    def rows(lo, hi):
        loss_augmented_rows(S[lo:hi], Y[lo:hi], _TIE_ATOL, H[lo:hi], V[lo:hi])

    in_row_blocks(n, threads, rows)
    return H, V


def solve_batch_numpy(S, Y, counts=None):
    """:func:`solve_batch` in numpy (the vectorised form of the same algorithm), kept as the
    reference that the compiled kernel is tested and benchmarked against.

    A batch whose rows all have the same number of true labels is one numpy pass without padding;
    other batches are split into groups of close label counts that share one padded grid.
    """
    n, m = S.shape
    if counts is None:
        counts = Y.sum(axis=1)
    order = np.argsort(-S, axis=1, kind="stable")
    if n == 0:
        return np.zeros((0, m), dtype=np.int8), np.zeros(0)
    if counts.min() == counts.max():
        return _solve(S, Y, order, counts)
    groups = _groups(counts, m)
    if len(groups) == 1:
        return _solve(S, Y, order, counts)
    H = np.zeros((n, m), dtype=np.int8)
    value = np.zeros(n)
    for g in groups:
        rows = np.flatnonzero((counts >= g[0]) & (counts <= g[-1]))
        H[rows], value[rows] = _solve(S[rows], Y[rows], order[rows], counts[rows])
    return H, value


def loss_augmented(scores, y):
    """Most violating label vector: argmax over h of ``sum_i h_i scores_i + 1 - F(y, h)``.

    Exact, O(m^2) per example at worst (O((s_y + 1)(m - s_y + 1)) for s_y true labels), batched.

    Parameters
    ----------
    scores : array-like of shape (m,) or (n, m)
        Label scores (e.g. ``w_i . x + b_i`` of a linear model per label).
    y : array-like of 0/1, same shape as ``scores``
        True label vectors.

    Returns
    -------
    h : int8 ndarray of shape (m,) or (n, m)
        The maximizing label vector(s).
    value : float or ndarray of shape (n,)
        ``sum_i h_i scores_i + 1 - F(y, h)`` with F(0, 0) = 1.

    Examples
    --------
    >>> h, v = loss_augmented([0.5, -0.2, -3.0], [0, 1, 0])
    >>> h.tolist(), round(float(v), 6)
    ([1, 0, 0], 1.5)
    >>> loss_augmented([-1.0, -1.0], [0, 0])   # y = 0: h = 0 costs nothing, any label costs 1 - 1
    (array([0, 0], dtype=int8), 0.0)
    """
    S, Y = _check(scores, y)
    single = S.ndim == 1
    if single:
        S, Y = S[None], Y[None]
    H, value = solve_batch(S, Y)
    if single:
        return H[0], float(value[0])
    return H, value
