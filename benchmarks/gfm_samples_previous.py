# The previous batched path of fmeasure.inference.gfm_from_samples and its kernel _gfm_compact (as
# of commit a5b8d89), kept verbatim as the reference that benchmarks/bench_gfm_labels.py times the
# current one against: P over all m labels per chunk of instances (p_counts), then the labels with
# mass are picked out of it and the kernel runs on them.
"""Previous all-labels batched path of ``gfm_from_samples`` (dense (n, n_samples, m) input)."""

from __future__ import annotations

import logging

import numpy as np

from fmeasure._arrays import (
    CHUNK_BYTES,
    TIE_TOL,
    chunks,
    first_max,
    out,
    p_counts,
    row_counts,
    sample_input,
    w_matrix,
)
from fmeasure.blas import single_threaded_blas

log = logging.getLogger(__name__)


def _delta_rows(AT, kk):
    """Delta column k for each instance: AT (q, S, r) transposed P blocks, kk (q,) sizes -> (q, r).

    Every entry is summed over s in the same order, so equal rows of P give bit-equal Delta and
    ties within a column are settled by the label index alone.
    """
    S = AT.shape[1]
    Wsel = 2.0 / (np.arange(1, S + 1, dtype=np.float64)[None, :] + kk[:, None])
    return np.einsum("nsr,ns->nr", AT, Wsel)


def _ratio_table(r, S):
    """R[k-1, k'-1] with Delta_k' <= R Delta_k entrywise for any P with counts in 1..S.

    Delta_k'[i] / Delta_k[i] is a weighted mean of (s + k) / (s + k') over the counts s of label
    i: at most (S + k) / (S + k') for k' > k and (1 + k) / (1 + k') for k' < k.
    """
    k = np.arange(1, r + 1, dtype=np.float64)
    kc, kp = k[:, None], k[None, :]
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
    R = _ratio_table(r, S)
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
        Ui = np.minimum(U[inst], R[kb - 1] * C)
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


@single_threaded_blas
def gfm_from_samples(Y, weights=None):
    """The previous dense batched path (a dense (n, n_samples, m) sample only)."""
    Y, w, single, sparse = sample_input(Y, weights)
    assert not sparse
    s = row_counts(Y, sparse)
    smax = int(s.max())
    p0 = (w * (s == 0)).sum(axis=1)
    m = Y.shape[-1]
    if smax == 0:
        return out(np.zeros((len(p0), m), np.int8), p0, single)
    n = Y.shape[0]
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * smax * 3 + Y.shape[1] * m, budget=8 * 2**20):
        A = p_counts(Y[sl], w[sl], False, smax=smax)
        H[sl], V[sl] = _gfm_p_block(A, p0[sl], A.sum(axis=2), A.sum(axis=1))
    return out(H, V, single)
