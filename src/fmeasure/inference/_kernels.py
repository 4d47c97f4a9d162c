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

__all__ = ["p_stats", "gfm_p", "gfm_count_values", "gfm_split_values"]


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
def _weights(m, S):  # pragma: no cover - compiled
    """W[k - 1, s - 1] = 2 / (s + k) for sizes k = 1..m and counts s = 1..S."""
    W = np.empty((m, S))
    for k in range(1, m + 1):
        for s in range(1, S + 1):
            W[k - 1, s - 1] = 2.0 / (s + k)
    return W


@njit(cache=True, nogil=True)
def _work(r, S):  # pragma: no cover - compiled
    """The work arrays of :func:`_solve` for up to r labels and S counts: D, order, C, U, E, cs."""
    return np.empty(r + 1), np.empty(r + 1, np.int64), np.empty(r + 1), np.empty(r + 1), np.empty(r + 1), np.empty(S)


@njit(cache=True, nogil=True)
def _delta_column(ptr, es, ev, r, W, k, D, dense):  # pragma: no cover - compiled
    """D[t] = Delta_k of row t = sum of ev * W[k - 1, es] over the entries ptr[t]..ptr[t+1] - 1
    (``dense``: every row holds the counts 1..S in order, es unused)."""
    w = W[k - 1]
    for t in range(r):
        d = 0.0
        p = ptr[t]
        if dense:
            for s in range(ptr[t + 1] - p):
                d += ev[p + s] * w[s]
        else:
            for e in range(p, ptr[t + 1]):
                d += ev[e] * w[es[e]]
        D[t] = d


@njit(cache=True, nogil=True)
def _solve(ptr, es, ev, r, S, W, p0, margin, tie, E, U, C, D, order, cs, dense):  # pragma: no cover - compiled
    """GFM on one P block given by its positive entries: (best size, value).

    Row t (one of r labels, each with mass) holds the entries ptr[t]..ptr[t+1] - 1: P[t, es[e]] =
    ev[e] (column: count - 1 < S), counts increasing (compressed sparse rows; ``dense``: each row
    holds all S counts in order). Sizes k = 1..r are bounded, evaluated in order of largest bound from
    the expected count, until no bound reaches the best value less ``margin``; the choice is the
    first value within ``tie`` of the maximum (size 0, the empty prediction with value ``p0``,
    first). E, U, C, D, order and cs are work arrays of at least r + 1 (cs: S) entries.

    Each evaluated column is sorted through ``order``: by a full sort for the first column, then by
    insertion from the previous column's order, which the next column mostly keeps (the weights
    2 / (s + k) change smoothly with k), so later sorts cost O(r) plus the pairs that swap. The
    sorted values, and so every prefix sum, are the same as a full sort's.
    """
    for s in range(S):
        cs[s] = 0.0
    if dense:
        for t in range(r):
            for s in range(S):
                cs[s] += ev[ptr[t] + s]
    else:
        for e in range(ptr[r]):
            cs[es[e]] += ev[e]
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
    best = p0
    kb = int(np.rint(tot / mass)) if mass > 0.0 else 1
    kb = min(max(kb, 1), r)
    first = True
    while True:
        _delta_column(ptr, es, ev, r, W, kb, D, dense)
        if first:
            order[:r] = np.argsort(D[:r])  # ascending
            first = False
        else:
            for a in range(1, r):  # insertion sort, ascending, from the previous column's order
                t = order[a]
                v = D[t]
                b = a - 1
                while b >= 0 and D[order[b]] > v:
                    order[b + 1] = order[b]
                    b -= 1
                order[b + 1] = t
        C[0] = 0.0
        for q in range(1, r + 1):
            C[q] = C[q - 1] + D[order[r - q]]
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
    mx = p0
    for k in range(r):
        mx = max(mx, E[k])
    if p0 >= mx - tie:
        return 0, p0
    for k in range(1, r + 1):
        if E[k - 1] >= mx - tie:
            return k, E[k - 1]
    return 0, p0


@njit(cache=True, nogil=True)
def gfm_p(A, p0, rows, cols, margin, tie, H, V):  # pragma: no cover - compiled
    """Exact GFM for each P matrix of A (n, m, S) with p0 (n,); fills H (n, m) int8 (zeros on entry)
    and V (n,). ``rows`` / ``cols`` are the row and column sums from :func:`p_stats`."""
    n, m, Smax = A.shape
    W = _weights(m, Smax)
    idx = np.empty(m, np.int64)
    ptr = np.empty(m + 1, np.int64)
    es = np.empty(1, np.int64)  # unused: dense rows
    ev = np.empty(m * Smax)
    D, rank, C, U, E, cs = _work(m, Smax)
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
        for t in range(r):  # the active rows, counts 1..S, round-off below zero clamped
            ptr[t] = t * S
            for s in range(S):
                ev[t * S + s] = max(A[i, idx[t], s], 0.0)
        ptr[r] = r * S
        kbest, value = _solve(ptr, es, ev, r, S, W, p0[i], margin, tie, E, U, C, D, rank, cs, True)
        V[i] = value
        if kbest > 0:
            _delta_column(ptr, es, ev, r, W, kbest, D, True)
            order = np.argsort(-D[:r], kind="mergesort")  # stable: ties to the lowest label index
            for q in range(kbest):
                H[i, idx[order[q]]] = 1


@njit(cache=True, nogil=True)
def _gather(L, row, total, side, li, size, ptr, es, ev):  # pragma: no cover - compiled
    """Positive entries of a count vector as compressed rows for :func:`_solve` (into ptr, es, ev).

    ``side`` 0: the vector ``L[row]`` (a group, or the left part of a candidate split); 1:
    ``total - L[row]`` (the right part). Column c is label ``li[c]`` with ``size[c] + 1`` labels.
    Returns the number of labels with a positive entry and the largest label count among the
    positive entries (a valid count bound for :func:`_solve`).
    """
    nnz = 0
    q = 0
    last = -1
    top = 0
    for c in range(len(li)):
        v = float(L[row, c])
        if side == 1:
            v = total[c] - v
        if v > 0.0:
            if li[c] != last:
                last = li[c]
                ptr[q] = nnz
                q += 1
            es[nnz] = size[c]
            ev[nnz] = v
            top = max(top, size[c] + 1)
            nnz += 1
    ptr[q] = nnz
    return q, top


@njit(cache=True, nogil=True)
def _count_value(
    L, row, total, side, li, size, empty, n, margin, W, ptr, es, ev, D, order, C, U, E, cs
):  # pragma: no cover - compiled
    """Best mean F of one group given by its counts (:func:`_gather`'s row and side), ``empty``
    examples without labels and ``n`` examples in all: max(empty, max_k E_k) / n."""
    q, top = _gather(L, row, total, side, li, size, ptr, es, ev)
    if q == 0:
        return empty / n
    _, value = _solve(ptr, es, ev, q, top, W, empty, margin * n, 0.0, E, U, C, D, order, cs, False)
    return value / n


@njit(cache=True, nogil=True)
def gfm_count_values(Cu, li, size, r, S, empty, n, margin, out):  # pragma: no cover - compiled
    """Best mean F of groups of examples given by count vectors (the F-trees' split search).

    ``Cu`` (k, w): counts of w (label, count) columns, column c being label ``li[c]`` (0..r-1, in
    non-decreasing order) with ``size[c] + 1`` labels; ``empty`` (k,): examples without labels;
    ``n`` (k,): examples. Fills ``out`` (k,) with max(empty, max_k E_k) / n, where E_k is computed
    from the counts as from P times n.
    """
    k_groups, w = Cu.shape
    W = _weights(r, S)
    ptr = np.empty(r + 1, np.int64)
    es = np.empty(w, np.int64)
    ev = np.empty(w)
    none = np.empty(0)
    D, order, C, U, E, cs = _work(r, S)
    for g in range(k_groups):
        out[g] = _count_value(Cu, g, none, 0, li, size, empty[g], n[g], margin, W, ptr, es, ev, D, order, C, U, E, cs)


@njit(cache=True, nogil=True)
def gfm_split_values(L, rows, total, li, size, r, S, margin, out):  # pragma: no cover - compiled
    """Best mean F of both sides of many candidate splits of one node (the F-trees' inner loop).

    ``L`` (bins, w + 2): left-part counts at every bin of the node, w (label, count) columns then
    the empty count and the example count; column c is label ``li[c]`` (0..r-1, non-decreasing)
    with ``size[c] + 1`` labels. ``total`` (w + 2,): the node's counts. For candidate g (row
    ``rows[g]`` of ``L``) fills ``out[0, g]`` and ``out[1, g]`` with the value of
    :func:`gfm_count_values` on the left counts and on ``total`` minus them: the same numbers,
    without forming either side as an array. Each side's count bound is its own largest count.
    """
    w = len(li)
    W = _weights(r, S)
    ptr = np.empty(r + 1, np.int64)
    es = np.empty(w, np.int64)
    ev = np.empty(w)
    D, order, C, U, E, cs = _work(r, S)
    for g in range(len(rows)):
        row = rows[g]
        empty, n = float(L[row, w]), float(L[row, w + 1])
        out[0, g] = _count_value(L, row, total, 0, li, size, empty, n, margin, W, ptr, es, ev, D, order, C, U, E, cs)
        empty, n = total[w] - empty, total[w + 1] - n
        out[1, g] = _count_value(L, row, total, 1, li, size, empty, n, margin, W, ptr, es, ev, D, order, C, U, E, cs)
