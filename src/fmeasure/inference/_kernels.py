"""Compiled (numba) kernels of GFM from the matrix P, one instance at a time.

:func:`gfm_p` solves a batch of P matrices (:func:`fmeasure.inference.gfm_from_p`), reading each
instance once for the sums that validate it (the same as :func:`p_stats`'s) and then only its
active rows (labels with mass) and the counts s up to its largest one with mass S.
:func:`gfm_rows` solves instances whose samples are rows of one 0/1 label matrix in compressed
form (the sample routes): it builds each instance's P over its labels with mass from the rows'
occurrences, then runs the same search (:func:`_solve_dense`):

* the upper bound E_k <= sum_s 2 S_s / (s + k) (S_s the column sums of P) is computed for every
  size k up to the number r of active labels (larger sizes cannot win);
* the size of largest bound still in reach is evaluated exactly (Delta column k = P W[:, k], its k
  largest entries summed), starting at the expected label count; each evaluated column j bounds
  every other size through E_k <= R[j, k] C_j[k], with C_j[k] the sum of the k largest entries of
  column j and R[j, k] = (S + j) / (S + k) for k > j, (1 + j) / (1 + k) for k < j (Delta_k / Delta_j
  of a label is a weighted mean of (s + j) / (s + k) over its counts s in 1..S), and two evaluated
  columns bound the sizes between them (convexity, :func:`_solve_dense`);
* evaluation stops when no bound reaches the best value found (less a margin that covers the tie
  tolerance), so every size within the tie tolerance of the optimum has been evaluated and the
  choice (first maximum: the empty prediction, then the smallest size; within a column the lowest
  label index on ties) is the same as evaluating every size.

Of each evaluated column only the largest entries that the sizes still in reach need are sorted
(:func:`_top`): for the first column, those in the top buckets of a counting sort on the entries'
binary exponents; for the next ones, the previous column's set and the entries that overtake it,
by insertion from the previous order, which the next column mostly keeps (the weights 2 / (s + k)
change smoothly with k). Time per instance O(m S_i + c r S_i) for c evaluated sizes plus the sorts
of the sets (O(r) and the swaps), against O(m^2 S) for forming all of Delta; memory O(m S) for
the whole batch besides the input and output.

:func:`gfm_count_values` and :func:`gfm_split_values` (the F-trees' split search) run the earlier
form of the search on count vectors in compressed form (:func:`_solve`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["p_stats", "gfm_p", "gfm_rows", "walks_all_labels", "gfm_count_values", "gfm_split_values"]


@njit(cache=True, nogil=True)
def _stats_one(A, i, lo, rows, cols):  # pragma: no cover - compiled
    """Instance i of :func:`p_stats`: lo[i], rows[i] and cols[i] (zeros on entry) from A[i]."""
    m, S = A.shape[1], A.shape[2]
    mn = np.inf
    for j in range(m):
        acc = 0.0
        mr = np.inf  # the row's own minimum: short dependency chains, rows overlap
        for s in range(S):
            a = A[i, j, s]
            mr = min(mr, a)
            acc += a
            cols[i, s] += a
        rows[i, j] = acc
        mn = min(mn, mr)
    lo[i] = mn


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
        _stats_one(A, i, lo, rows, cols)
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
def _column(PT, r, S, w, D):  # pragma: no cover - compiled
    """D[t] = sum_s PT[s, t] w[s] for the r labels: one column of Delta from P transposed (S, r).

    Every entry is summed over s = 1..S in order (four counts per pass over D, the same sums), so
    equal rows of P give bit-equal entries."""
    for t in range(r):
        D[t] = 0.0
    s = 0
    while s + 3 < S:
        w0, w1, w2, w3 = w[s], w[s + 1], w[s + 2], w[s + 3]
        for t in range(r):
            D[t] = (((D[t] + PT[s, t] * w0) + PT[s + 1, t] * w1) + PT[s + 2, t] * w2) + PT[s + 3, t] * w3
        s += 4
    while s < S:
        ws = w[s]
        for t in range(r):
            D[t] += PT[s, t] * ws
        s += 1


@njit(cache=True, nogil=True)
def _insertion(D, order, a, r, X):  # pragma: no cover - compiled
    """Sort ``order[a:r]`` ascending by D and set X[p] = D[order[p]] there, by insertion from the
    current order (O(length + swaps)); past 32 swaps per entry, by a full sort of the part."""
    for p in range(a, r):
        X[p] = D[order[p]]
    moves = 0
    for p in range(a + 1, r):
        v = X[p]
        if X[p - 1] <= v:
            continue
        t = order[p]
        b = p - 1
        while b >= a and X[b] > v:
            X[b + 1] = X[b]
            order[b + 1] = order[b]
            b -= 1
        X[b + 1] = v
        order[b + 1] = t
        moves += p - 1 - b
        if moves > 32 * (r - a):
            part = order[a:r].copy()
            perm = np.argsort(D[part])
            for q in range(r - a):
                order[a + q] = part[perm[q]]
                X[a + q] = D[order[a + q]]
            return


#: buckets of :func:`_top`'s counting sort: 4 per factor of 2 below the largest value, 64 factors of 2
_BUCKETS = 256


@njit(cache=True, nogil=True)
def _top(D, r, need, order, X, ntop, cnt):  # pragma: no cover - compiled
    """Sort the ``need`` largest entries of D[:r] (ascending) into the end of ``order[:r]``.

    On return the last ``ntop'`` (>= need, returned) entries of ``order[:r]`` hold a set of labels
    that contains ``need`` largest entries of D, sorted ascending, X[p] = D[order[p]] there; the
    others are in the rest of ``order[:r]`` in any order. ``ntop`` >= need: the last ``ntop`` entries
    of ``order`` hold such a set for the previous column, and its smallest entry in the new column,
    v, bounds the new set from below: the labels outside it with D > v join it (the rest cannot be
    among the ``need`` largest), and the set is sorted by insertion from its previous order (the
    next column mostly keeps it). Otherwise (the first column) a counting sort on the top bits of
    the entries (a positive float64's bits grow with its value: the exponent and the two leading
    bits of the mantissa) puts the entries in ascending buckets, and only the largest buckets are
    sorted (:func:`_extend` sorts more of them later). Entries below 2^-64 times the largest share
    the lowest bucket. ``cnt``: work array of _BUCKETS + 1 entries.
    """
    if ntop >= need:
        a = r - ntop
        v = D[order[a]]
        for p in range(a + 1, r):
            v = min(v, D[order[p]])
        b = a
        for p in range(a - 1, -1, -1):  # newcomers next to the set
            t = order[p]
            if D[t] > v:
                b -= 1
                order[p] = order[b]
                order[b] = t
        _insertion(D, order, b, r, X)
        return r - b
    bits = D[:r].view(np.int64)
    top = bits[0] >> 50
    for t in range(1, r):
        top = max(top, bits[t] >> 50)
    for q in range(_BUCKETS + 1):
        cnt[q] = 0
    for t in range(r):
        cnt[min(top - (bits[t] >> 50), _BUCKETS - 1)] += 1  # bucket 0: the largest entries
    pos = 0  # ascending: the last bucket first, bucket 0 at the end
    for q in range(_BUCKETS - 1, -1, -1):
        c = cnt[q]
        cnt[q] = pos
        pos += c
    for t in range(r):
        q = min(top - (bits[t] >> 50), _BUCKETS - 1)
        order[cnt[q]] = t
        cnt[q] += 1
    return _extend(D, r, need, order, X, cnt)  # cnt[q]: the end of bucket q, the start of q - 1


@njit(cache=True, nogil=True)
def _extend(D, r, need, order, X, cnt):  # pragma: no cover - compiled
    """After :func:`_top`'s counting sort (``order`` in ascending buckets, ``cnt[q]`` the end of
    bucket q, ``cnt[_BUCKETS]`` = 0), sort the top buckets that hold at least ``need`` entries and
    return how many they hold; buckets sorted before (the largest) are passed over in O(1) each."""
    q = 0
    while r - cnt[q + 1] < need:
        q += 1
    _insertion(D, order, cnt[q + 1], r, X)
    return r - cnt[q + 1]


@njit(cache=True, nogil=True)
def _solve_dense(
    PT, r, S, W, WT, p0, margin, tie, E, U, D, order, X, cs, Cs, slot, cnt, stop=3
):  # pragma: no cover - compiled
    """GFM on one P block given transposed, PT (S, r): r labels (each with mass), counts 1..S.

    ``cs`` holds the column sums of PT (the mass of each count). W (m, S'): W[k - 1, s - 1] =
    2 / (s + k), WT its transpose. Returns (best size, value, evaluated sizes, ntop): the first value
    within ``tie`` of the maximum (the empty prediction, value ``p0``, first), as if every size were
    evaluated; the last ``ntop`` entries of ``order[:r]`` hold the largest entries of the last
    evaluated column, sorted (:func:`_top`). ``stop`` 1: return after the first bounds (timing).

    Search: every size k = 1..r starts with the bound E_k <= sum_s 2 cs_s / (s + k); the size of
    largest bound still in reach is evaluated (its Delta column by :func:`_column`, C[q] = the sum
    of its q largest entries for the sizes q in reach, by :func:`_top`), from the expected count,
    until no bound reaches the best value found less ``margin``. An evaluated column j bounds every
    size through E_k <= R[j, k] C_j[k] (the ratio bound of the module docstring), and two evaluated
    columns a < b every size between them through E_k <= l C_a[k] + (1 - l) C_b[k] for
    k = l a + (1 - l) b: 2 / (s + k) is convex in k, so each label's Delta_k is at most the same
    combination of its Delta_a and Delta_b. Rows of ``Cs`` (at least one, r + 1 columns) keep the
    evaluated columns' C for the second bound (``slot[k - 1]`` the row of size k, -1 if none;
    columns evaluated when every row is taken only give the first). Sizes out of reach stay out
    of reach (the bounds only fall, the best value only grows), so the bounds, C, the sorted
    entries and the choice of the next size only cover the sizes up to the largest one in reach
    (after the first column, a small part of r when r is large). E, U, D, order, X: work arrays of
    at least r + 1 entries.
    """
    mass = 0.0
    tot = 0.0
    for s in range(S):
        mass += cs[s] / (s + 1)
        tot += cs[s]
    for k in range(r):
        U[k] = 0.0
        E[k] = -np.inf
        slot[k] = -1
    for s in range(S):
        c = cs[s]
        for k in range(r):
            U[k] += c * WT[s, k]
    if stop == 1:
        return 0, p0, 0, 0
    nslot = Cs.shape[0]
    used = 0
    nev = 0
    best = p0
    khi = r  # the largest size still in reach: the bounds, C and the next size need no more
    while khi >= 1 and U[khi - 1] < best - margin:
        khi -= 1
    kb = int(np.rint(tot / mass)) if mass > 0.0 else 1
    kb = min(max(kb, 1), r)
    ntop = np.int64(0)  # int64, not the literal 0: the callees are compiled once (as for r, S below)
    while True:
        _column(PT, r, S, W[kb - 1], D)
        if nev == 0:  # the first column: its top kb, then the sizes in reach given that value
            ntop = _top(D, r, kb, order, X, ntop, cnt)
            e = 0.0
            for q in range(1, kb + 1):
                e += X[r - q]
            while khi >= 1 and U[khi - 1] < max(best, e) - margin:
                khi -= 1
            if khi > ntop:
                ntop = _extend(D, r, khi, order, X, cnt)
        else:
            ntop = _top(D, r, max(kb, khi), order, X, ntop, cnt)
        nev += 1
        row = used if used < nslot else nslot - 1  # the last row is overwritten when all are used
        C = Cs[row]
        C[0] = 0.0
        for q in range(1, max(kb, khi) + 1):
            C[q] = C[q - 1] + X[r - q]
        e = C[kb]
        E[kb - 1] = e
        best = max(best, e)
        for k in range(1, min(kb, khi + 1)):  # every size in reach bounded through column kb
            U[k - 1] = min(U[k - 1], (1.0 + kb) / (1.0 + k) * C[k])
        U[kb - 1] = min(U[kb - 1], e)
        for k in range(kb + 1, khi + 1):
            U[k - 1] = min(U[k - 1], (S + kb) / (S + k) * C[k])
        lo = kb - 1  # the nearest evaluated sizes below and above with a kept C
        while lo >= 1 and slot[lo - 1] < 0:
            lo -= 1
        hi = kb + 1
        while hi <= r and slot[hi - 1] < 0:
            hi += 1
        if lo >= 1:
            Ca = Cs[slot[lo - 1]]
            for k in range(lo + 1, min(kb, khi + 1)):
                lam = (kb - k) / (kb - lo)
                U[k - 1] = min(U[k - 1], lam * Ca[k] + (1.0 - lam) * C[k])
        if hi <= r:
            Cb = Cs[slot[hi - 1]]  # C of size hi holds the sums up to the sizes in reach then
            for k in range(kb + 1, min(hi, khi + 1)):
                lam = (hi - k) / (hi - kb)
                U[k - 1] = min(U[k - 1], lam * C[k] + (1.0 - lam) * Cb[k])
        if used < nslot - 1:
            slot[kb - 1] = used
            used += 1
        while khi >= 1 and (E[khi - 1] != -np.inf or U[khi - 1] < best - margin):
            khi -= 1
        ntop = min(ntop, max(kb, khi))  # the next column needs at most that many (sorted last)
        nxt = -1
        un = -np.inf
        for k in range(khi):
            if E[k] == -np.inf and U[k] > un:
                un = U[k]
                nxt = k + 1
        if nxt < 0 or un < best - margin:
            break
        kb = nxt
    mx = p0
    for k in range(r):
        mx = max(mx, E[k])
    if p0 >= mx - tie:
        return 0, p0, nev, ntop
    for k in range(1, r + 1):
        if E[k - 1] >= mx - tie:
            return k, E[k - 1], nev, ntop
    return 0, p0, nev, ntop


@njit(cache=True, nogil=True)
def _choose(PT, r, S, w, k, D, order, X, ntop, cnt, h, label):  # pragma: no cover - compiled
    """h[label[t]] = 1 for the k largest entries t of the Delta column with weights w (ties to the
    lowest t: every entry above the k-th largest value, then the first ones equal to it); ``order``
    and ``ntop`` as :func:`_solve_dense` leaves them."""
    _column(PT, r, S, w, D)
    _top(D, r, k, order, X, ntop if ntop >= k else 0, cnt)
    thr = X[r - k]  # the k-th largest entry
    need = k
    for t in range(r):
        if D[t] > thr:
            need -= 1
    for t in range(r):  # those above it, then the first ones equal to it
        if D[t] > thr:
            h[label[t]] = 1
        elif D[t] == thr and need > 0:
            h[label[t]] = 1
            need -= 1


#: rows of C kept for the interpolation bound of :func:`_solve_dense` (the evaluated columns)
_KEEP = 64


@njit(cache=True, nogil=True)
def gfm_p(A, p0, margin, tie, H, V, evals, lo, rows, cols, stop=3):  # pragma: no cover - compiled
    """Exact GFM for each P matrix of A (n, m, S) with p0 (n,); fills H (n, m) int8 (zeros on entry),
    V (n,), ``evals`` (n,) the number of Delta columns evaluated, and ``lo``, ``rows``, ``cols``
    (zeros on entry) as :func:`p_stats` does, read in the same pass, for validating A afterwards
    (on invalid input the predictions are meaningless but the kernel ends). ``stop`` < 3 ends each
    instance early, for timing the parts: after gathering its P (0), after the bounds of every
    size (1), after the search (2).

    Per instance: A[i] read once for the sums (the active rows are those with a positive sum, S
    the largest count with a positive column sum), then its active rows gathered transposed
    (while A[i] is in cache), then :func:`_solve_dense`. The chosen labels of the best size k are
    the k largest entries of Delta's column k, ties to the lowest label index: every entry above
    the k-th largest value, then the first equal ones.
    """
    n, m, Smax = A.shape
    W = np.empty((m, Smax))
    for k in range(1, m + 1):
        for s in range(1, Smax + 1):
            W[k - 1, s - 1] = 2.0 / (s + k)
    WT = np.ascontiguousarray(W.T)
    idx = np.empty(m, np.int64)
    PT = np.empty((Smax, m))
    D, order, X, U, E, cs = _work(m, Smax)
    Cs = np.empty((min(m, _KEEP), m + 1))
    slot = np.empty(m, np.int64)
    cnt = np.empty(_BUCKETS + 1, np.int64)
    for i in range(n):
        _stats_one(A, i, lo, rows, cols)
        r = np.int64(0)
        for j in range(m):
            if rows[i, j] > 0.0:
                idx[r] = j
                r += 1
        S = np.int64(0)
        for s in range(Smax - 1, -1, -1):
            if cols[i, s] > 0.0:
                S = s + 1
                break
        if r == 0 or S == 0:  # no mass on non-empty vectors: predict nothing
            V[i] = p0[i]
            continue
        for s in range(S):
            cs[s] = 0.0
        for t in range(r):  # the active rows, transposed, round-off below zero clamped
            j = idx[t]
            for s in range(S):
                v = max(A[i, j, s], 0.0)
                PT[s, t] = v
                cs[s] += v
        if stop == 0:
            continue
        kbest, value, evals[i], ntop = _solve_dense(
            PT, r, S, W, WT, p0[i], margin, tie, E, U, D, order, X, cs, Cs, slot, cnt, stop
        )
        V[i] = value
        if kbest > 0 and stop > 2:
            _choose(PT, r, S, W[kbest - 1], kbest, D, order, X, ntop, cnt, H[i], idx)


@njit(cache=True, nogil=True)
def walks_all_labels(m, k, costs):  # pragma: no cover - compiled
    """Whether k labels with mass out of m are put in label order faster by walking the marks of all
    m labels (``costs[0]`` m + ``costs[1]`` k) than by sorting them (``costs[2]`` + ``costs[3]``
    k log2(k + 1)); costs in nanoseconds, measured."""
    return costs[0] * m + costs[1] * k <= costs[2] + costs[3] * k * np.log2(k + 1.0)


@njit(cache=True, nogil=True)
def gfm_rows(
    indptr, indices, counts, idx, w, p0, smax, rmax, margin, tie, costs, H, V, evals, walked, stop=3
):  # pragma: no cover - compiled
    """Exact GFM for instances whose samples are rows of one 0/1 label matrix in compressed rows.

    Row q of the matrix holds the labels ``indices[indptr[q]:indptr[q + 1]]`` (``counts[q]`` of
    them); instance i's sample is the rows ``idx[i]`` with weights ``w[i]`` (normalised; rows of
    weight 0 are left out), P(y = 0) = ``p0[i]``, no row of a sample has more than ``smax``
    labels and no sample more than ``rmax`` labels with mass (1 <= rmax <= m; it sizes the work
    arrays). Fills H (n, m) int8 (zeros on entry), V (n,), ``evals`` (n,) the Delta columns
    evaluated and ``walked`` (n,) 1 where the labels were put in order by walking all m labels.
    ``stop`` as in :func:`gfm_p` (0: after building P, 1: after the bounds, 2: after the search).

    Per instance, in time O(occurrences + min(m, c k log k) + k S + search) for its k labels with
    mass and largest count S, whatever m: its labels with mass are marked while their occurrences
    are read, then put in label order (so that ties go to the lowest label index), by walking the
    marks of all m labels or by sorting the k labels, whichever :func:`walks_all_labels` finds
    cheaper under the measured ``costs``; P over them (transposed, (S, k)) is summed in sample
    order, then :func:`_solve_dense` and :func:`_choose`. Memory O(m + rmax S) for all instances.
    """
    n, K = idx.shape
    m = H.shape[1]
    sm = max(1, smax)
    rm = max(1, min(m, rmax))
    W = _weights(rm, sm)
    WT = np.ascontiguousarray(W.T)
    mark = np.full(m, -1, np.int64)
    pos = np.empty(m, np.int64)
    lab = np.empty(m, np.int64)
    PT = np.empty((sm, rm))
    D, order, X, U, E, cs = _work(rm, sm)
    Cs = np.empty((min(rm, _KEEP), rm + 1))
    slot = np.empty(rm, np.int64)
    cnt = np.empty(_BUCKETS + 1, np.int64)
    for i in range(n):
        k = np.int64(0)
        S = np.int64(0)
        for j in range(K):  # the labels with mass, marked
            q = idx[i, j]
            if w[i, j] > 0.0 and counts[q] > 0:
                S = max(S, counts[q])
                for e in range(indptr[q], indptr[q + 1]):
                    a = indices[e]
                    if mark[a] != i:
                        mark[a] = i
                        lab[k] = a
                        k += 1
        if k == 0:  # no mass on non-empty vectors: predict nothing
            V[i] = p0[i]
            continue
        if walks_all_labels(m, k, costs):  # in label order: walk every label's mark
            walked[i] = 1
            t = 0
            for a in range(m):
                if mark[a] == i:
                    lab[t] = a
                    t += 1
        else:  # or sort the labels with mass
            lab[:k].sort()
        for t in range(k):
            pos[lab[t]] = t
        for s in range(S):
            for t in range(k):
                PT[s, t] = 0.0
        for j in range(K):  # P transposed, summed in sample order
            q = idx[i, j]
            wj = w[i, j]
            if wj > 0.0 and counts[q] > 0:
                c = counts[q] - 1
                for e in range(indptr[q], indptr[q + 1]):
                    PT[c, pos[indices[e]]] += wj
        for s in range(S):
            cs[s] = 0.0
        for t in range(k):
            for s in range(S):
                cs[s] += PT[s, t]
        if stop == 0:
            continue
        kbest, value, evals[i], ntop = _solve_dense(
            PT, k, S, W, WT, p0[i], margin, tie, E, U, D, order, X, cs, Cs, slot, cnt, stop
        )
        V[i] = value
        if kbest > 0 and stop > 2:
            _choose(PT, k, S, W[kbest - 1], kbest, D, order, X, ntop, cnt, H[i], lab)


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
    left = np.int64(0)  # a variable, not the literal: one compilation of _count_value for both sides
    D, order, C, U, E, cs = _work(r, S)
    for g in range(k_groups):
        eg, ng = np.float64(empty[g]), np.float64(n[g])  # float64 whatever the counts' dtype
        out[g] = _count_value(Cu, g, none, left, li, size, eg, ng, margin, W, ptr, es, ev, D, order, C, U, E, cs)


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
    left, right = np.int64(0), np.int64(1)  # variables: one compilation of _count_value for both sides
    D, order, C, U, E, cs = _work(r, S)
    for g in range(len(rows)):
        row = rows[g]
        empty, n = np.float64(L[row, w]), np.float64(L[row, w + 1])
        out[0, g] = _count_value(L, row, total, left, li, size, empty, n, margin, W, ptr, es, ev, D, order, C, U, E, cs)
        empty, n = total[w] - empty, total[w + 1] - n
        out[1, g] = _count_value(
            L, row, total, right, li, size, empty, n, margin, W, ptr, es, ev, D, order, C, U, E, cs
        )
