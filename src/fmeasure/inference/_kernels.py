"""Compiled (numba) kernels of GFM from the matrix P, one instance at a time.

:func:`p_stats` reads a batch of P matrices once and returns what validation needs (each
instance's smallest entry, row sums and column sums). :func:`gfm_p` then solves each instance
exactly, reading only its active rows (labels with mass) and the counts s up to its largest one
with mass:

* the upper bound E_k <= sum_s 2 S_s / (s + k) (S_s the column sums of P) is computed for every
  size k up to the number r of active labels (larger sizes cannot win);
* the size of largest bound still in reach is evaluated exactly (Delta column k = P W[:, k], its k
  largest entries summed), starting at the expected label count; each evaluated column j bounds
  every other size through E_k <= R[j, k] C_j[k], with C_j[k] the sum of the k largest entries of
  column j and R the ratio bound of :func:`fmeasure.inference.general._ratio_table`;
* evaluation stops when no bound reaches the best value found (less a margin that covers the tie
  tolerance), so every size within the tie tolerance of the optimum has been evaluated and the
  choice (first maximum: the empty prediction, then the smallest size; within a column the lowest
  label index on ties) is the same as evaluating every size.

Time per instance O(m S_i + (c + 1) r S_i + c r log r) for c evaluated sizes, against O(m^2 S)
for forming all of Delta; memory O(m) besides the input.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["p_stats", "gfm_p"]


@njit(cache=True, nogil=True)
def p_stats(A):  # pragma: no cover - compiled
    """Smallest entry (n,), row sums (n, m) and column sums (n, S) of a batch A (n, m, S) in one pass.

    A NaN leaves the smallest entry unchanged but makes its row and column sums NaN.
    """
    n, m, S = A.shape
    lo = np.empty(n)
    rows = np.empty((n, m))
    cols = np.zeros((n, S))
    for i in range(n):
        mn = np.inf
        for j in range(m):
            acc = 0.0
            for s in range(S):
                a = A[i, j, s]
                mn = min(mn, a)
                acc += a
                cols[i, s] += a
            rows[i, j] = acc
        lo[i] = mn
    return lo, rows, cols


@njit(cache=True, nogil=True)
def _delta_column(A, i, idx, r, S, W, k, D):  # pragma: no cover - compiled
    """D[t] = Delta_k of active label idx[t] = sum_{s <= S} max(P[i, idx[t], s-1], 0) W[k - 1, s - 1]."""
    w = W[k - 1]
    for t in range(r):
        j = idx[t]
        d = 0.0
        for s in range(S):
            d += max(A[i, j, s], 0.0) * w[s]
        D[t] = d


@njit(cache=True, nogil=True)
def gfm_p(A, p0, rows, cols, margin, tie, H, V):  # pragma: no cover - compiled
    """Exact GFM for each P matrix of A (n, m, S) with p0 (n,); fills H (n, m) int8 (zeros on entry)
    and V (n,). ``rows`` / ``cols`` are the row and column sums from :func:`p_stats`."""
    n, m, Smax = A.shape
    W = np.empty((m, Smax))  # W[k - 1, s - 1] = 2 / (s + k)
    for k in range(1, m + 1):
        for s in range(1, Smax + 1):
            W[k - 1, s - 1] = 2.0 / (s + k)
    idx = np.empty(m, np.int64)
    D = np.empty(m)
    srt = np.empty(m)
    cs = np.empty(Smax)
    C = np.empty(m + 1)
    U = np.empty(m)
    E = np.empty(m)
    for i in range(n):
        r = 0
        for j in range(m):
            if rows[i, j] > 0.0:
                idx[r] = j
                r += 1
        S = 0
        for s in range(Smax - 1, -1, -1):
            if cols[i, s] > 0.0:
                S = s + 1
                break
        if r == 0 or S == 0:  # no mass on non-empty vectors: predict nothing
            V[i] = p0[i]
            continue
        for s in range(S):  # column sums of the clamped entries: the bounds hold for them
            cs[s] = 0.0
        for t in range(r):
            for s in range(S):
                cs[s] += max(A[i, idx[t], s], 0.0)
        mass = 0.0
        tot = 0.0
        for s in range(S):
            mass += cs[s] / (s + 1)
            tot += cs[s]
        for k in range(1, r + 1):
            u = 0.0
            w = W[k - 1]
            for s in range(S):
                u += cs[s] * w[s]
            U[k - 1] = u
            E[k - 1] = -np.inf
        best = p0[i]
        kb = int(np.rint(tot / mass)) if mass > 0.0 else 1
        kb = min(max(kb, 1), r)
        while True:
            _delta_column(A, i, idx, r, S, W, kb, D)
            srt[:r] = D[:r]
            srt[:r].sort()  # ascending
            C[0] = 0.0
            for q in range(1, r + 1):
                C[q] = C[q - 1] + srt[r - q]
            e = C[kb]
            E[kb - 1] = e
            best = max(best, e)
            for k in range(1, r + 1):  # every size bounded through column kb
                if k > kb:
                    R = (S + kb) / (S + k)
                elif k < kb:
                    R = (1.0 + kb) / (1.0 + k)
                else:
                    R = 1.0
                U[k - 1] = min(U[k - 1], R * C[k])
            nxt = -1
            un = -np.inf
            for k in range(1, r + 1):
                if E[k - 1] == -np.inf and U[k - 1] > un:
                    un = U[k - 1]
                    nxt = k
            if nxt < 0 or un < best - margin:
                break
            kb = nxt
        mx = p0[i]
        for k in range(r):
            mx = max(mx, E[k])
        kbest = 0
        value = p0[i]
        if p0[i] < mx - tie:
            for k in range(1, r + 1):
                if E[k - 1] >= mx - tie:
                    kbest = k
                    value = E[k - 1]
                    break
        V[i] = value
        if kbest > 0:
            _delta_column(A, i, idx, r, S, W, kbest, D)
            order = np.argsort(-D[:r], kind="mergesort")  # stable: ties to the lowest label index
            for q in range(kbest):
                H[i, idx[order[q]]] = 1
