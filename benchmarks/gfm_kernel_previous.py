# The compiled gfm_from_p of fmeasure.inference (as of commit c97fff3): per instance, each Delta
# column a dot product per label, a full sort of the first column and a stable sort for the chosen
# labels. Kept verbatim (kernels) as the reference benchmarks/bench_gfm_floor.py times the current
# search against; validation is left out (the inputs of the benchmark are valid).
"""Previous compiled GFM from P (``gfm_from_p``), kernels as of commit c97fff3."""

from __future__ import annotations

import numpy as np
from numba import njit

from fmeasure._arrays import TIE_TOL, chunks

_MARGIN = 4 * TIE_TOL


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


def gfm_from_p(A, p0):
    """GFM from a batch of valid P matrices A (n, m, S) and P(y = 0) p0 (n,): (H (n, m), V (n,))."""
    n, m, S = A.shape
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * S * 2):
        Ac = np.ascontiguousarray(A[sl], dtype=np.float64)
        _, rows, cols = p_stats(Ac)
        gfm_p(Ac, p0[sl], rows, cols, _MARGIN, TIE_TOL, H[sl], V[sl])
    return H, V
