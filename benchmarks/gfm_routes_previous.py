# The sample routes of fmeasure.inference.general (gfm_from_samples, gfm_from_sample_rows) as of
# commit c97fff3, kept verbatim (the P-matrix parts left out) as the reference that
# benchmarks/bench_gfm_labels.py times the current routes against: each instance's P built over the
# labels with mass by sorting its occurrences (np.unique), or over all m labels by a product of the
# dense sample (when, on average, more than DENSE_MASS m labels have mass), then a vectorised
# search over compact blocks (_gfm_compact).
"""Previous sample routes of GFM (``gfm_from_samples``, ``gfm_from_sample_rows``), as of commit c97fff3."""

from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp

from fmeasure._arrays import (
    CHUNK_BYTES,
    TIE_TOL,
    binary_input,
    chunks,
    first_max,
    out,
    p_counts,
    row_counts,
    sample_input,
    w_matrix,
)
from fmeasure.blas import single_threaded_blas

__all__ = ["gfm_from_sample_rows", "gfm_from_samples"]

log = logging.getLogger(__name__)

#: A dense sample whose instances have, on average, more than this fraction of the m labels with
#: mass is inferred with P over all labels (cheaper there than gathering the labels with mass).
DENSE_MASS = 0.25


def _delta_rows(AT, kk):
    """Delta column k for each instance: AT (q, S, r) transposed P blocks, kk (q,) sizes -> (q, r).

    Every entry is summed over s in the same order, so equal rows of P give bit-equal Delta and
    ties within a column are settled by the label index alone.
    """
    S = AT.shape[1]
    Wsel = 2.0 / (np.arange(1, S + 1, dtype=np.float64)[None, :] + kk[:, None])
    return np.einsum("nsr,ns->nr", AT, Wsel)


def _ratio_table(r, S, rows=None):
    """R[k-1, k'-1] with Delta_k' <= R Delta_k entrywise for any P with counts in 1..S.

    Delta_k'[i] / Delta_k[i] is a weighted mean of (s + k) / (s + k') over the counts s of label
    i: at most (S + k) / (S + k') for k' > k and (1 + k) / (1 + k') for k' < k. ``rows``: only the
    rows for these sizes k (1-based), as an (len(rows), r) array.
    """
    k = np.arange(1, r + 1, dtype=np.float64)
    kc = k[:, None] if rows is None else np.asarray(rows, dtype=np.float64)[:, None]
    kp = k[None, :]
    return np.where(kp > kc, (S + kc) / (S + kp), (1 + kc) / (1 + kp))


#: probes of Delta columns (at the expected count, then at the largest bound) before the rest
_PROBES = 2
#: slack on the pruning test: a size is evaluated if its bound reaches the best value found minus
#: this (covers the tie tolerance of the final choice and the round-off of the bounds)
_MARGIN = 4 * TIE_TOL


def _window_e(AT, E, klo, width, nz, budget=CHUNK_BYTES):
    """Fill E[i, k-1] exactly for the sizes k in [klo_i + 1, klo_i + width_i] (capped at r).

    AT (n, S, r) is P transposed. Instances are grouped by window width (powers of two), and each
    group's Delta columns come from one batched product W[:, window_i]^T @ AT_i, then one sort
    per column: O(w (r S + r log r)) per instance for a window of w sizes.
    """
    n, S, r = AT.shape
    Wt = w_matrix(S, r).T  # (r, S): row k-1 is W[:, k-1]
    lo_w = 1
    while lo_w <= r:
        hi_w = 2 * lo_w
        sel = np.nonzero((width >= lo_w) & (width < hi_w))[0]
        w = min(hi_w - 1, r)
        for sl in chunks(len(sel), 8 * (2 * w * r + S * r), budget=budget):
            ii = sel[sl]
            k0 = np.minimum(klo[ii], r - w)
            cols = k0[:, None] + np.arange(w)[None, :]  # (q, w): 0-based sizes
            Dw = np.matmul(Wt[cols], AT[ii])  # (q, w, r): Delta columns of the window
            Dw.sort(axis=2)
            np.cumsum(Dw, axis=2, out=Dw)  # ascending partial sums
            below = r - 2 - cols  # E_k = total - sum of the r - k smallest
            tot = Dw[:, :, r - 1]
            Ew = tot - np.where(
                below >= 0, np.take_along_axis(Dw, np.maximum(below, 0)[:, :, None], axis=2)[:, :, 0], 0.0
            )
            old = E[ii[:, None], cols]
            E[ii[:, None], cols] = np.where(np.isneginf(old) & (cols < nz[ii, None]), Ew, old)
        lo_w = hi_w


def _gfm_compact(A, p0, colS=None):
    """GFM on compact P blocks: A (n, r, S) = P restricted to r candidate labels and counts 1..S.

    Rows of A that are zero are padding (never selected: every non-zero row has Delta > 0 in all
    columns, and for k above the number of non-zero rows E_k is strictly decreasing).
    Returns h over the r rows (n, r) and the values (n,).

    Only the pairs (instance, k) whose upper bound on E_k reaches the best value found so far are
    evaluated exactly. Bounds: E_k <= sum_s 2 S_s / (s + k) (S_s = column sum of P: every label
    of count s taken), and from every evaluated column j with sorted top sums C_j,
    E_k <= R[j, k] C_j[k] (see :func:`_ratio_table`). The best value starts at P(y = 0), Delta
    columns are probed at the expected count and then at the size of largest bound, and every
    size still in reach is evaluated in one batched product per window of sizes.
    """
    n, r, S = A.shape
    if r == 0 or S == 0:
        return np.zeros((n, r), dtype=np.int8), p0.copy()
    AT = np.ascontiguousarray(A.transpose(0, 2, 1))  # (n, S, r); a no-op when A is such a view
    if colS is None:
        colS = AT.sum(axis=2)  # (n, S)
    nz = (AT > 0).any(axis=1).sum(axis=1)  # labels with mass; larger sizes cannot win
    kv = np.arange(1, r + 1)
    U = colS @ w_matrix(S, r)  # (n, r) upper bounds
    U[kv[None, :] > nz[:, None]] = -np.inf
    E = np.full((n, r), -np.inf)  # exact E_k where evaluated
    lower = p0.copy()
    svec = np.arange(1, S + 1, dtype=np.float64)
    mass = (colS / svec).sum(axis=1)
    mean_s = colS.sum(axis=1) / np.where(mass > 0, mass, 1.0)
    inst = np.nonzero(nz > 0)[0]
    kb = np.clip(np.rint(mean_s[inst]).astype(np.int64), 1, nz[inst])
    for _ in range(_PROBES):
        if not len(inst):
            break
        D = _delta_rows(AT if len(inst) == n else AT[inst], kb.astype(np.float64))
        D.sort(axis=1)
        C = np.cumsum(D[:, ::-1], axis=1)  # C[:, j-1] = sum of the j largest
        q = np.arange(len(inst))
        e = C[q, kb - 1]
        E[inst, kb - 1] = e
        lower[inst] = np.maximum(lower[inst], e)
        Ui = np.minimum(U[inst], _ratio_table(r, S, kb) * C)
        U[inst] = Ui
        Ui = np.where((Ui >= lower[inst, None] - _MARGIN) & np.isneginf(E[inst]), Ui, -np.inf)
        nxt = np.argmax(Ui, axis=1)
        go = ~np.isneginf(Ui[q, nxt])
        inst, kb = inst[go], nxt[go] + 1
    cand = (U >= lower[:, None] - _MARGIN) & np.isneginf(E)
    anyc = cand.any(axis=1)
    klo = np.argmax(cand, axis=1)
    width = np.where(anyc, r - np.argmax(cand[:, ::-1], axis=1) - klo, 0)
    log.debug("gfm block: %d instances, %d labels, counts <= %d, %d sizes evaluated", n, r, S, int(width.sum()))
    _window_e(AT, E, klo, width, nz)
    vals = np.concatenate([p0[:, None], E], axis=1)
    kbest = first_max(vals)
    value = vals[np.arange(n), kbest]
    h = np.zeros((n, r), dtype=np.int8)
    sel = np.nonzero(kbest > 0)[0]
    if len(sel):
        D = _delta_rows(AT[sel], kbest[sel].astype(np.float64))
        order = np.argsort(-D, axis=1, kind="stable")  # ties: lowest index first
        hs = np.zeros((len(sel), r), dtype=np.int8)
        np.put_along_axis(hs, order, (kv[None, :] <= kbest[sel, None]).astype(np.int8), axis=1)
        h[sel] = hs
    return h, value


#: working memory (bytes) per chunk of compact P blocks in the sample routes
_SAMPLE_BUDGET = 8 * 2**20


def _gfm_occurrences(n, m, inst, lab, cnt, wt, p0, budget=_SAMPLE_BUDGET):
    """GFM from the label occurrences of weighted samples, on the labels with mass only.

    Every occurrence is one label ``lab`` set in one sample vector of instance ``inst``, that
    vector having ``cnt`` labels and (normalised) weight ``wt > 0``; ``p0`` (n,) is P(y = 0). Each
    instance's P is built over the k_i labels that occur in its sample, in label order (so ties
    within a column still go to the lowest label index), for instances in chunks padded to the
    chunk's largest k_i, then :func:`_gfm_compact` runs on the compact blocks and the predictions
    are scattered back. Time and memory O(occurrences + k_i * s_max) per instance, independent of m.
    Returns H (n, m) int8 and the values (n,).
    """
    H = np.zeros((n, m), dtype=np.int8)
    V = p0.astype(np.float64, copy=True)
    if not len(inst):
        return H, V
    key = inst.astype(np.int64) * m + lab
    pairs, pair_of = np.unique(key, return_inverse=True)  # (instance, label), sorted
    pinst, plab = pairs // m, pairs % m
    k = np.bincount(pinst, minlength=n)  # labels with mass per instance
    first = np.concatenate([[0], np.cumsum(k)])  # pairs of instance i: first[i]:first[i + 1]
    local = np.arange(len(pairs)) - first[pinst]  # a label's row in its instance's block
    order = np.argsort(pair_of, kind="stable")  # occurrences grouped by instance, sample order kept
    o_pair, o_cnt, o_wt = pair_of[order], cnt[order], wt[order]
    o_first = np.searchsorted(pinst[o_pair], np.arange(n + 1))  # occurrences of instance i
    smax = int(cnt.max())
    cap = max(1, budget // (8 * 8 * smax))  # instances x padded labels per chunk
    todo = np.flatnonzero(k > 0)
    start = 0
    while start < len(todo):
        run = np.maximum.accumulate(k[todo[start : start + cap]])  # padded width if stopped here
        q = int(np.searchsorted(run * np.arange(1, len(run) + 1) > cap, True))
        q = max(1, q)
        ii = todo[start : start + q]
        start += q
        kmax = int(run[q - 1])
        a, b = o_first[ii[0]], o_first[ii[-1] + 1]
        op = o_pair[a:b]
        row = np.searchsorted(ii, pinst[op])  # the instance's position in the chunk
        S = int(o_cnt[a:b].max())
        flat = (row * kmax + local[op]) * S + (o_cnt[a:b] - 1)
        A = np.bincount(flat, weights=o_wt[a:b], minlength=q * kmax * S).reshape(q, kmax, S)
        h, V[ii] = _gfm_compact(A, p0[ii])
        sel = np.arange(first[ii[0]], first[ii[-1] + 1])  # the chunk's pairs (others have k = 0)
        H[pinst[sel], plab[sel]] = h[np.searchsorted(ii, pinst[sel]), local[sel]]
    return H, V


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
    AT = Ac.transpose(0, 2, 1)  # (n, S, m): the layout _gfm_compact works in
    if r < m:
        idx = np.argsort(~active, axis=1, kind="stable")[:, :r]  # active rows, in label order
        AT = np.take_along_axis(AT, idx[:, None, :], axis=2)
        h, V = _gfm_compact(AT.transpose(0, 2, 1), pc, cols[:, :S])
        np.put_along_axis(H, idx, h, axis=1)
    else:
        H, V = _gfm_compact(np.ascontiguousarray(AT).transpose(0, 2, 1), pc, cols[:, :S])
    return H, V


def _gfm_all_labels(Y, w, p0, smax):
    """GFM on dense samples Y (n, K, m) with weights w (n, K), P built over all m labels."""
    A = p_counts(Y, w, False, smax=smax)
    return _gfm_p_block(A, p0, A.sum(axis=2), A.sum(axis=1))


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
    n, S = Y.shape[:2]
    H = np.zeros((n, m), dtype=np.int8)
    V = p0.copy()
    if Y[:64].any(axis=1).sum(axis=1).mean() > DENSE_MASS * m:
        # most labels occur in each instance's sample (judged on the first instances): P over
        # all m labels costs less than gathering each instance's labels with mass
        for sl in chunks(n, 8 * m * smax * 3 + S * m, budget=8 * 2**20):
            H[sl], V[sl] = _gfm_all_labels(Y[sl], w[sl], p0[sl], smax)
        return out(H, V, single)
    # Chunks of instances bound the index arrays of the occurrences read from the dense sample.
    for sl in chunks(n, S * m + 8 * 4 * smax * S, budget=CHUNK_BYTES):
        flat = np.flatnonzero(Y[sl].view(np.bool_))  # values are 0/1: a bool view is exact
        row, lab = np.divmod(flat, m)  # row = instance * S + sample
        wt = w[sl].ravel()[row]
        keep = wt > 0
        row, lab, wt = row[keep], lab[keep], wt[keep]
        H[sl], V[sl] = _gfm_occurrences(sl.stop - sl.start, m, row // S, lab, s[sl].ravel()[row], wt, p0[sl])
    return out(H, V, single)


def _mean_labels_with_mass(Yc, idx):
    """Mean number of distinct labels in the samples ``idx`` (n, K) of rows of the CSR matrix ``Yc``."""
    if idx.shape[0] == 0:
        return 0.0
    sub = Yc[idx.ravel()].tocoo()
    pairs = (sub.row // idx.shape[1]).astype(np.int64) * Yc.shape[1] + sub.col
    return np.count_nonzero(np.bincount(pairs, minlength=idx.shape[0] * Yc.shape[1])) / idx.shape[0]


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
    sample and its largest count s_max, whatever the number of labels m.

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
    n, K = idx.shape
    m = Yc.shape[1]
    counts = np.diff(Yc.indptr)
    s = counts[idx]  # (n, K)
    p0 = (w * (s == 0)).sum(axis=1)
    H = np.zeros((n, m), dtype=np.int8)
    V = p0.copy()
    if n and _mean_labels_with_mass(Yc, idx[:32]) > DENSE_MASS * m:
        # most labels occur in each instance's sample: read the samples densely, P over all labels
        smax = max(1, int(s.max()))
        for sl in chunks(n, 8 * m * smax * 3 + 2 * K * m, budget=8 * 2**20):
            Yd = Yc[idx[sl].ravel()].toarray().astype(np.int8, copy=False).reshape(sl.stop - sl.start, K, m)
            H[sl], V[sl] = _gfm_all_labels(Yd, w[sl], p0[sl], smax)
        return H, V
    per = max(1, int(np.ceil(counts.mean() * K))) if len(counts) else 1
    for sl in chunks(n, 80 * per, budget=CHUNK_BYTES):
        ri = idx[sl].ravel()
        wi = w[sl].ravel()
        live = (wi > 0) & (counts[ri] > 0)
        sample = np.flatnonzero(live)  # sample rows (instance * K + j) with labels and weight
        ln = counts[ri[sample]]
        tot = int(ln.sum())
        if tot == 0:
            continue
        owner = np.repeat(sample, ln)
        pos = np.repeat(Yc.indptr[ri[sample]], ln) + (np.arange(tot) - np.repeat(np.cumsum(ln) - ln, ln))
        H[sl], V[sl] = _gfm_occurrences(
            sl.stop - sl.start, m, owner // K, Yc.indices[pos], counts[ri[owner]], wi[owner], p0[sl]
        )
    return H, V
