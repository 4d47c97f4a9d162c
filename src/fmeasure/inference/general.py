"""General F-measure Maximizer (GFM, Algorithm 1 of the paper), exact for any joint distribution.

Inputs are the matrix Delta (``delta[i, k-1] = Delta^1_{ik} = sum_{y: y_i=1} 2 P(y) / (s_y + k)``)
or the matrix P (``P[i, s-1] = P(y_i = 1, s_y = s)``, eq. (9)) with Delta = P W, W[s, k] = 2/(s+k),
plus ``p_zero = P(y = 0)``.

Conventions:

* The empty prediction is always a candidate, with E[F(Y, 0)] = P(y = 0).
* The prediction size k is never capped; k runs over 1..m.
* Ties: between sizes, the smallest k wins (the empty prediction first); within the k-th column,
  equal Delta values are broken towards the lowest label index.

Speed: GFM from P runs a compiled search, one instance at a time (:mod:`._kernels`). Labels
whose P-row is zero and counts s above the largest one with mass are dropped (r labels, S counts
remain); every size k starts with the bound E_k <= sum_s 2 S_s / (s + k) (S_s the column sums of
P); the size of largest bound still in reach is evaluated (one column of Delta, r S multiply-adds,
and its largest entries sorted: only as many as the sizes still in reach need), each evaluated
column bounds every other size, and the search stops when no bound reaches the best value found.
The prediction and value are those of evaluating every size (same tie rules). Time per instance
O(m S) to read P (:func:`gfm_from_p`) plus O(c r S) for the c sizes evaluated (c is small when the
distribution is peaked: about 6 of 101 on Mediamill-shaped P, at most r), plus the sorts; no
Python loop over instances. :func:`_reference_blocks` is the plain batched computation (Delta of a
chunk of instances as one matrix product, every column sorted) that the search is tested and
benchmarked against (``benchmarks/bench_gfm_floor.py``).

The sample routes (:func:`gfm_from_samples`, :func:`gfm_from_sample_rows`) read each instance's
sample rows in compressed form in the same compiled pass that builds its P over the k labels that
occur in its sample (in label order, so ties still go to the lowest label index) and searches it:
O(occurrences + k S + min(m, k log k)) per instance plus the search, so their cost follows the
labels with mass, not the number of labels m. Putting the k labels in label order is the one step
where m enters: walking all m labels' marks or sorting the k labels, whichever the measured cost
model (:data:`_ORDER_COSTS`) finds cheaper for that instance.

For Delta (:func:`gfm`), columns k that provably cannot win are skipped:
E_k <= min(colsum_k, k * colmax_k), compared with max(P(y = 0), E_1).
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.sparse as sp

from fmeasure._arrays import (
    CHUNK_BYTES,
    TIE_TOL,
    TOL,
    binary_input,
    chunks,
    count_batch,
    first_max,
    out,
    p_zero_vector,
    row_counts,
    sample_input,
    square_batch,
    w_matrix,
)
from fmeasure.blas import single_threaded_blas
from fmeasure.inference._kernels import gfm_p, gfm_rows

__all__ = ["gfm", "gfm_from_p", "gfm_from_sample_rows", "gfm_from_samples"]

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
    r"""General F-measure Maximizer (Algorithm 1): the exact F-optimal prediction from Delta.

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

    See Also
    --------
    gfm_from_p : GFM from the matrix P (Delta = P W).
    gfm_from_samples : GFM from a sample of label vectors, without forming the matrices.
    fm : The F-optimal prediction from the marginals, under label independence.
    fmeasure.estimation.delta_matrix : Delta and P(y = 0) estimated from a sample.

    Notes
    -----
    The expected F-measure of a prediction of :math:`k \ge 1` labels is linear in the prediction
    (Theorem 5.1 of the paper), so the best prediction of size :math:`k` is the :math:`k` labels with
    the largest values in column :math:`k` of Delta, and the empty prediction scores
    :math:`P(\mathbf{y} = \mathbf{0})`:

    .. math::

        \Delta_{ik} = \sum_{\mathbf{y} : y_i = 1} \frac{2 P(\mathbf{y})}{s_{\mathbf{y}} + k},
        \qquad
        \mathbb{E}\left[F(\mathbf{Y}, \mathbf{h})\right] = \sum_{i=1}^m h_i \Delta_{ik}
        \quad \text{for } \textstyle\sum_i h_i = k .

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


#: slack on the pruning test of the compiled search: a size is evaluated if its bound reaches the
#: best value found minus this (covers the tie tolerance of the final choice and the round-off of
#: the bounds)
_MARGIN = 4 * TIE_TOL


def _solve_blocks(A, p0):
    """Exact GFM on P blocks by the compiled search (:func:`._kernels.gfm_p`).

    A (n, r, S) float64, C-contiguous, rows labels (zero rows are padding, never chosen), columns
    counts 1..S, entries >= 0 up to round-off (clamped); p0 (n,) P(y = 0). Returns h (n, r) int8,
    the values (n,), and A's smallest entry (n,), row sums (n, r) and column sums (n, S) as
    :func:`._kernels.p_stats` gives them, read in the same pass (for validating A afterwards).
    """
    n, r, S = A.shape
    H = np.zeros((n, r), dtype=np.int8)
    V = np.empty(n)
    evals = np.zeros(n, np.int64)
    lo, rows, cols = np.empty(n), np.empty((n, r)), np.zeros((n, S))
    gfm_p(A, np.ascontiguousarray(p0, dtype=np.float64), _MARGIN, TIE_TOL, H, V, evals, lo, rows, cols)
    if n:
        log.debug("gfm: %d instances, %d labels, %.2f sizes evaluated per instance", n, r, evals.mean())
    return H, V, (lo, rows, cols)


def _reference_blocks(A, p0, budget=8 * 2**20, times=None):
    """Plain batched GFM on validated P blocks A (n, r, S) (as :func:`_solve_blocks`): the reference
    the compiled search is tested against.

    Per chunk of q instances: Delta = P W for all of them as one matrix product ((q r, S) times
    (S, r)), each column of Delta sorted, the sum of the k largest entries of column k
    (:func:`_topk_sums`), the first maximum over the sizes with the empty prediction (value p0)
    first and ties within TIE_TOL to the smaller size, and the k largest entries of column k with
    ties to the lowest label index. Sizes k whose bound sum_s 2 S_s / (s + k) (S_s: column sums of
    P) is below max(p0, E_1) for the whole chunk are not sorted (the bound falls with k, so they are
    the largest sizes). The chosen column is recomputed summing over s in order, so that equal rows
    of P give equal entries whatever the matrix product's rounding. Memory O(q r^2) per chunk
    (3 q r^2 doubles <= budget bytes), time O(n r^2 (S + log r)).

    ``times``: a dict that receives the CPU seconds of each step (for the benchmarks).
    """
    clock = _StepClock(times)
    n, r, S = A.shape
    A = np.maximum(A, 0.0)
    H = np.zeros((n, r), dtype=np.int8)
    V = np.asarray(p0, dtype=np.float64).copy()
    clock("read P")
    if r == 0 or S == 0:
        return H, V
    W = w_matrix(S, r)  # (S, r)
    kvec = np.arange(1, r + 1)
    for sl in chunks(n, 24 * r * r, budget=budget):
        Ac, pc = A[sl], V[sl]
        q = Ac.shape[0]
        D = (Ac.reshape(q * r, S) @ W).reshape(q, r, r)  # D[i, label, k - 1]
        clock("Delta = P W (matrix product)")
        U = Ac.sum(axis=1) @ W  # (q, r) bounds on E_k
        K = _cutoff(U, np.maximum(pc, D[:, :, 0].max(axis=1)))
        E = _topk_sums(np.ascontiguousarray(D[:, :, :K].transpose(0, 2, 1)))
        clock("top-k sums (sort every column)")
        vals = np.concatenate([pc[:, None], E], axis=1)
        kb = first_max(vals)
        V[sl] = vals[np.arange(q), kb]
        clock("choice (vs the empty prediction)")
        go = np.flatnonzero(kb > 0)
        if len(go):
            col = np.zeros((len(go), r))
            w = 2.0 / (np.arange(1, S + 1)[None, :] + kb[go, None])  # (g, S)
            for s in range(S):  # in order over s: equal rows, equal entries
                col += Ac[go, :, s] * w[:, s : s + 1]
            order = np.argsort(-col, axis=1, kind="stable")  # ties: lowest label index first
            h = (kvec[None, :] <= kb[go, None]).astype(np.int8)
            hs = np.zeros((len(go), r), dtype=np.int8)
            np.put_along_axis(hs, order, h, axis=1)
            H[sl.start + go] = hs
        clock("write-out (the chosen labels)")
    return H, V


class _StepClock:
    """Adds the CPU seconds since the previous call to ``times[step]`` (nothing when times is None)."""

    def __init__(self, times):
        self.times = times
        self.t = time.process_time() if times is not None else 0.0

    def __call__(self, step):
        if self.times is not None:
            t = time.process_time()
            self.times[step] = self.times.get(step, 0.0) + t - self.t
            self.t = t


def _check_chunk_p(A, p0, offset, tol=TOL, stats=None):
    """Validate a chunk of P; return (row sums (n, m), column sums (n, S)) with S the last count
    column that is not all zero (two passes over the chunk; the row sums only read columns <= S).

    ``tol`` is the tolerance on sums (larger for float32 inputs). ``stats``: the chunk's smallest
    entries, row sums and column sums when already computed (:func:`._kernels.p_stats`)."""
    if stats is None:
        lo = A.min()
        cols = A.sum(axis=1)
    else:
        lo, rows, cols = stats
        lo = lo.min() if len(lo) else 0.0
    if not (np.isfinite(lo) and np.all(np.isfinite(cols))):
        raise ValueError("P: contains NaN or infinite values")
    if lo < -TOL:
        raise ValueError(f"P: probabilities must lie in [0, 1], got minimum {lo:.6g}")
    nzc = (cols != 0).any(axis=0)
    S = int(len(nzc) - np.argmax(nzc[::-1])) if nzc.any() else 0
    if stats is None:
        rows = A[:, :, :S].sum(axis=2)
    if rows.size and rows.max() > 1 + tol:
        j, i = np.unravel_index(np.argmax(rows), rows.shape)
        raise ValueError(f"P: row {i} sums to {rows[j, i]:.6g} > 1 (a row is P(y_i = 1)) for instance {offset + j}")
    cols = cols[:, :S]
    mass = (cols / np.arange(1, S + 1)).sum(axis=1)  # sum_s P(s_y = s)
    bad = p0 + mass > 1 + max(tol, 1e-6)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"p_zero: p_zero + sum_s P(s_y = s) = {p0[j] + mass[j]:.9g} > 1 for instance {offset + j}")
    return rows, cols


@single_threaded_blas
def gfm_from_p(P, p_zero):
    """GFM from the matrix P, via Delta = P W with W[s, k] = 2 / (s + k) (equations 9-11).

    Parameters
    ----------
    P : array-like of shape (m, S) or (n, m, S), 1 <= S <= m
        ``P[..., i, s-1] = P(y_i = 1, s_y = s)`` for labels i (rows) and counts s = 1..S
        (columns). Rows sum to P(y_i = 1) <= 1. S = m is the whole matrix; a model that never puts
        mass on more than S labels (EFP's multinomials, counts in a training set) can pass its S
        columns only: the counts above S have probability 0, and the answer is the same as with
        the zero columns appended.
    p_zero : float or array-like of shape (n,)
        P(y = 0). Must satisfy ``p_zero + sum_s P(s_y = s) <= 1`` with
        ``P(s_y = s) = sum_i P[i, s-1] / s``.

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    value : float or ndarray of shape (n,)
        Expected F-measure of ``h``.

    See Also
    --------
    gfm : GFM from Delta.
    gfm_from_samples : GFM from a sample of label vectors.
    fmeasure.estimation.p_matrix : P and P(y = 0) estimated from a sample.

    Notes
    -----
    Compiled, one instance at a time (:func:`fmeasure.inference._kernels.gfm_p`): one pass over
    P for validation and sums, then only the r labels with mass and the counts up to the largest
    with mass S are read, and only the columns k of Delta whose bound reaches the best value found
    are formed, so the cost is O(m S) to read P plus O(c r S) for c evaluated sizes, rather
    than O(m^3). Same tie rules as :func:`gfm`.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.zeros((3, 3)); P[0, 0] = 0.5; P[1, 1] = P[0, 1] = 0.2   # P(y=100)=.5, P(y=110)=.2
    >>> h, v = gfm_from_p(P, p_zero=0.3)
    >>> h, round(v, 4)
    (array([1, 0, 0], dtype=int8), 0.6333)
    """
    A, single = count_batch(P, "P", " (rows labels, columns s = 1..S)")
    n, m, S = A.shape
    p0 = p_zero_vector(p_zero, n, single)
    # rounding of the input's own dtype (float32 model outputs) when checking sums
    eps = np.finfo(A.dtype).eps if A.dtype.kind == "f" else 0.0
    tol = max(TOL, 4 * m * eps)
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * S * 2):
        Ac = np.ascontiguousarray(A[sl], dtype=np.float64)
        H[sl], V[sl], stats = _solve_blocks(Ac, p0[sl])  # in one pass with the sums that validate P
        _check_chunk_p(Ac, p0[sl], sl.start, tol, stats=stats)
    return out(H, V, single)


#: nanoseconds per step of the two ways of putting an instance's k labels with mass (of m labels)
#: in label order in the sample routes (:func:`._kernels.walks_all_labels`): walking all m labels'
#: marks (per label, per label with mass) or sorting the k labels (fixed, per k log2(k + 1)).
#: Measured on one core with compiled loops of each step (a walk takes 0.2-0.6 ns per label, a
#: sort about 200 ns plus 1.4-3.5 ns per k log2(k + 1), for m from 6 to 3,993 and k up to 1,500);
#: benchmarks/bench_gfm_labels.py times both ways on shapes from scene to eurlex-shape.
_ORDER_COSTS = np.array([0.25, 1.2, 200.0, 3.0])


def _solve_rows(indptr, indices, counts, idx, w, p0, m):
    """GFM for samples given as rows of one 0/1 label matrix in compressed rows (the arrays of a CSR
    matrix; ``counts`` its row lengths): instance i's sample is the rows ``idx[i]`` (n, K) with
    normalised weights ``w[i]``, P(y = 0) = ``p0[i]``. The compiled kernel
    (:func:`._kernels.gfm_rows`) builds each instance's P over its labels with mass only. Returns
    H (n, m) int8 and the values (n,)."""
    n = idx.shape[0]
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    if n == 0:
        return H, V
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    live = counts[idx] * (w > 0)
    smax = int(live.max()) if live.size else 0
    rmax = int(live.sum(axis=1).max()) if live.size else 0  # at least the labels with mass
    evals, walked = np.zeros(n, np.int64), np.zeros(n, np.int8)
    # the label matrix's index arrays as they are when both are 32-bit (no copy), else 64-bit
    itype = np.int32 if indptr.dtype == np.int32 and indices.dtype == np.int32 else np.int64
    gfm_rows(
        np.ascontiguousarray(indptr, dtype=itype),
        np.ascontiguousarray(indices, dtype=itype),
        np.ascontiguousarray(counts, dtype=itype),
        idx,
        w,
        np.ascontiguousarray(p0, dtype=np.float64),
        smax,
        rmax,
        _MARGIN,
        TIE_TOL,
        _ORDER_COSTS,
        H,
        V,
        evals,
        walked,
    )
    log.debug(
        "gfm from samples: %d instances, %d labels, %.2f sizes evaluated per instance, labels put in "
        "order by walking all labels for %d instances",
        n,
        m,
        evals.mean(),
        int(walked.sum()),
    )
    return H, V


@single_threaded_blas
def gfm_from_samples(Y, weights=None):
    """GFM straight from label samples: the fast path for kNN neighbourhoods and PCC samples.

    Equivalent to ``gfm_from_p(*fmeasure.estimation.p_matrix(Y, weights))`` (same prediction and
    value) but never forms an (m, m) matrix: only the labels that occur and the counts that occur
    enter the computation (one compiled pass per instance, :func:`._kernels.gfm_rows`). A dense
    sample is read once (K m bytes per instance for K vectors) to find its nonzeros; the rest costs
    O(occurrences + k s_max) for the k labels that occur, plus the search.

    Parameters
    ----------
    Y : array-like (n_samples, m) or (n, n_samples, m), or sparse (n_samples, m); values in {0, 1}
    weights : array-like (n_samples,) or (n, n_samples), optional

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    value : float or ndarray of shape (n,)
        Expected F-measure of ``h`` under the empirical (weighted) distribution of the sample.

    See Also
    --------
    gfm_from_p : GFM from the matrix P.
    fmeasure.estimation.p_matrix : P and P(y = 0) of a sample.
    fmeasure.FOptimalClassifier : GFM on the label vectors a scikit-learn model gives for each instance.

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
    if sparse:  # one sample: its rows, in compressed form
        H, V = _solve_rows(Y.indptr, Y.indices, s[0], np.arange(Y.shape[0])[None], w, p0, m)
        return out(H, V, single)
    n, K = Y.shape[:2]
    H = np.zeros((n, m), dtype=np.int8)
    V = p0.copy()
    # Chunks of instances bound the occurrences read from the dense sample: its rows in compressed
    # form (row instance * K + j).
    for sl in chunks(n, K * m + 16 * K * smax, budget=CHUNK_BYTES):
        q = sl.stop - sl.start
        flat = np.flatnonzero(Y[sl].view(np.bool_))  # values are 0/1: a bool view is exact
        row, lab = np.divmod(flat, m)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=q * K))])
        idx = np.arange(q * K).reshape(q, K)
        H[sl], V[sl] = _solve_rows(indptr, lab, s[sl].ravel(), idx, w[sl], p0[sl], m)
    return out(H, V, single)


def _sample_rows_input(Y, rows, weights):
    """Validate a sample given as rows of one label matrix; returns (CSR Y, rows (n, K), weights (n, K)).

    The weights are normalised per instance; rows of weight 0 (padding) are allowed.
    """
    Yc = sp.csr_array(Y) if sp.issparse(Y) else sp.csr_array(binary_input(Y, "Y", (2,)))
    if Yc.ndim != 2 or Yc.shape[1] == 0:
        raise ValueError(f"Y: expected a 2-D label matrix (n_rows, m) with m >= 1, got shape {Yc.shape}")
    if not Yc.has_canonical_format or not np.all(Yc.data == 1):  # on a copy: Y may be read-only
        Yc = Yc.copy()
        Yc.sum_duplicates()
        if not np.all((Yc.data == 0) | (Yc.data == 1)):
            raise ValueError("Y: values must be 0 or 1")
        Yc.eliminate_zeros()
    idx = np.asarray(rows)
    if idx.ndim != 2 or idx.shape[1] == 0 or (idx.size and idx.dtype.kind not in "iu"):
        raise ValueError(f"rows: expected an integer array (n, n_samples) with n_samples >= 1, got shape {idx.shape}")
    if idx.size and (idx.min() < 0 or idx.max() >= Yc.shape[0]):
        raise ValueError(f"rows: indices must lie in [0, {Yc.shape[0]}), got [{idx.min()}, {idx.max()}]")
    if weights is None:
        w = np.full(idx.shape, 1.0 / idx.shape[1])
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != idx.shape:
            raise ValueError(f"weights: expected shape {idx.shape}, got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("weights: contains NaN or infinite values")
        if w.size and w.min() < 0:
            raise ValueError(f"weights: must be non-negative, got minimum {w.min():.6g}")
        tot = w.sum(axis=1, keepdims=True)
        if np.any(tot <= 0):
            raise ValueError("weights: sum to 0 for an instance")
        w = w / tot
    return Yc, idx.astype(np.intp, copy=False), w


@single_threaded_blas
def gfm_from_sample_rows(Y, rows, weights=None):
    """GFM when every instance's sample is a set of rows of one label matrix (neighbours, leaves).

    Same prediction and value as ``gfm_from_samples(Y[rows], weights)`` (Y dense), without ever
    forming the (n, n_samples, m) sample: the labels of the chosen rows are read from Y in sparse
    form, and each instance costs O(occurrences + k_i * s_max) for the k_i labels that occur in its
    sample and its largest count s_max, plus min(m, k_i log k_i) to put them in label order and
    the search; memory O(m s_max) for the whole call besides the output.

    Parameters
    ----------
    Y : array-like or sparse (n_rows, m), values in {0, 1}
        The label vectors the samples are drawn from (e.g. the training labels).
    rows : array-like of int, shape (n, n_samples)
        ``rows[i]`` are the rows of Y that form instance i's sample (repeats allowed).
    weights : array-like (n, n_samples), optional
        Non-negative weights of the sample rows, normalised per instance (a weight of 0 pads a
        shorter sample); default equal.

    Returns
    -------
    h : ndarray of int8, shape (n, m)
    value : ndarray of shape (n,)
        Expected F-measure of ``h`` under the empirical (weighted) distribution of each sample.

    Examples
    --------
    >>> Y = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1]])
    >>> h, v = gfm_from_sample_rows(Y, [[0, 1, 2, 3], [2, 2, 1, 3]])
    >>> h.tolist(), np.round(v, 4).tolist()
    ([[1, 0, 0], [0, 0, 0]], [0.5833, 0.5])
    """
    Yc, idx, w = _sample_rows_input(Y, rows, weights)
    m = Yc.shape[1]
    counts = np.diff(Yc.indptr)
    p0 = (w * (counts[idx] == 0)).sum(axis=1)
    return _solve_rows(Yc.indptr, Yc.indices, counts, idx, w, p0, m)
