"""Compiled (numba) loss-augmented inference for the F-measure loss, one example at a time.

:func:`loss_augmented_rows` returns, for every row, what the vectorised algorithm of
:func:`fmeasure.inference.structured.solve_batch_numpy` returns, bit for bit: the same sorted
order (descending, lowest index first on ties), the same prefix sums from the left, the loss and
its increments by the same formulas and the same tie rule. It does less work:

* a false label can only be worth adding when its score exceeds minus the largest increment of
  the loss (1 / (2 s + 1) for s >= 1 true labels, 1 for s = 0), so only those are collected;
* for a fixed number a of true labels, the marginal gains of the false labels are non-increasing
  (the scores are sorted and the float64 increments of the loss are non-increasing in b: checked
  for every m up to :data:`MONOTONE_UP_TO` labels), so counting the positive ones stops at the
  first that is not, and once all the collected false labels are in order the count is found by
  bisection (O(log f) for each a instead of O(f)). Beyond that many labels every gain is counted,
  as the numpy version does;
* the false labels are put in order lazily, as far as the counting reaches: the best few by
  selection, and once it reaches further (as when every score is near 0, at the start of
  training and at small C, and many false labels have a positive gain) the rest by one sort.
  A row costs O(m + f log f + s min(b, log f)) for f candidate false labels, s true labels and
  at most b counted, never O(f^2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MONOTONE_UP_TO", "loss_augmented_rows"]

#: Label counts m up to which the loss increments are known to be non-increasing in float64
#: (``tests/library/test_structured_inference.py`` checks every s <= m, a <= s and b <= m - s at
#: m = MONOTONE_UP_TO, which contains every smaller m's cases).
MONOTONE_UP_TO = 1000

#: The false labels are selected one at a time (O(f) each) for the first this many; beyond, the
#: rest are sorted at once (O(f log f)), so a row whose count reaches far costs no O(f^2).
_LAZY = 16


@njit(cache=True, nogil=True, inline="always")
def _loss(s, a, b):  # pragma: no cover - compiled
    """1 - F for s true labels and a prediction with a true and b false ones (F(0, 0) = 1)."""
    denom = s + a + b
    if denom == 0:
        return 0.0
    return 1.0 - 2.0 * a / max(denom, 1)


@njit(cache=True, nogil=True, inline="always")
def _sort_desc(S, r, idx, k):  # pragma: no cover - compiled
    """Sort idx[:k] (label indices in increasing order) by descending S[r, .], stable."""
    if k > 32:
        key = np.empty(k)
        for i in range(k):
            key[i] = -S[r, idx[i]]
        o = np.argsort(key, kind="mergesort")
        old = idx[:k].copy()
        for i in range(k):
            idx[i] = old[o[i]]
        return
    for i in range(1, k):
        j = idx[i]
        v = S[r, j]
        t = i - 1
        while t >= 0 and S[r, idx[t]] < v:
            idx[t + 1] = idx[t]
            t -= 1
        idx[t + 1] = j


@njit(cache=True, nogil=True, inline="always")
def _select_next(S, r, idx, g, k):  # pragma: no cover - compiled
    """Move the largest of S[r, idx[g:k]] (lowest label index on ties) to position g."""
    best = g
    for t in range(g + 1, k):
        u, v = S[r, idx[t]], S[r, idx[best]]
        if u > v or (u == v and idx[t] < idx[best]):
            best = t
    idx[g], idx[best] = idx[best], idx[g]


@njit(cache=True, nogil=True, inline="always")
def _sort_rest(S, r, idx, g, k):  # pragma: no cover - compiled
    """Sort idx[g:k] by descending S[r, .], lowest label index first on ties: the order that
    repeated :func:`_select_next` calls would give, in O(k log k) instead of O(k^2)."""
    rest = np.sort(idx[g:k])
    key = np.empty(rest.size)
    for i in range(rest.size):
        key[i] = -S[r, rest[i]]
    o = np.argsort(key, kind="mergesort")
    for i in range(rest.size):
        idx[g + i] = rest[o[i]]


@njit(cache=True, nogil=True)
def loss_augmented_rows(S, Y, atol, H, V):  # pragma: no cover - compiled
    """argmax_h sum_i h_i S[n, i] + 1 - F(Y[n], h) for every row n, written to H (int8) and V.

    Ties: the smallest prediction size k first, then the fewest true labels, and among labels of
    equal score the lowest index, as in :func:`fmeasure.inference.loss_augmented`.
    """
    n, m = S.shape
    stop_early = m <= MONOTONE_UP_TO
    pos_t = np.empty(m, np.int64)
    pos_f = np.empty(m, np.int64)
    T = np.empty(m + 1)
    Fz = np.empty(m + 1)
    vals = np.empty(m + 1)
    bs = np.empty(m + 1, np.int64)
    for r in range(n):
        s = 0
        for j in range(m):
            if Y[r, j]:
                pos_t[s] = j
                s += 1
        # A false label is counted only if its score plus a loss increment exceeds atol, and the
        # largest increment is the first one, at b = 0, for some a: a label whose score plus it
        # does not exceed atol is never counted (float addition is monotone) and not collected.
        top = np.inf
        if stop_early:
            top = 0.0
            for a in range(s + 1):
                top = max(top, _loss(s, a, 1) - _loss(s, a, 0))
        f = 0
        for j in range(m):
            if not Y[r, j] and S[r, j] + top > atol:
                pos_f[f] = j
                f += 1
        _sort_desc(S, r, pos_t, s)
        T[0] = 0.0
        for a in range(s):
            T[a + 1] = T[a] + S[r, pos_t[a]]
        # The false labels are sorted lazily, as far as the counting reaches: by selection for the
        # first _LAZY, then the rest at once (all of them at once when every gain is counted).
        Fz[0] = 0.0
        done = 0
        if not stop_early:
            _sort_desc(S, r, pos_f, f)
            for b in range(f):
                Fz[b + 1] = Fz[b] + S[r, pos_f[b]]
            done = f
        best = -np.inf
        for a in range(s + 1):
            cnt = 0
            for b in range(f):
                if b == done:
                    if done < _LAZY:
                        _select_next(S, r, pos_f, b, f)
                        Fz[b + 1] = Fz[b] + S[r, pos_f[b]]
                        done += 1
                    else:  # the count reaches far: sort the rest at once
                        _sort_rest(S, r, pos_f, b, f)
                        for t in range(b, f):
                            Fz[t + 1] = Fz[t] + S[r, pos_f[t]]
                        done = f
                if stop_early and done == f:
                    # All in order and the gains non-increasing: the first gain <= atol at or
                    # after b, by bisection (the count that the scan would reach).
                    lo = b
                    hi = f
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if S[r, pos_f[mid]] + (_loss(s, a, mid + 1) - _loss(s, a, mid)) > atol:
                            lo = mid + 1
                        else:
                            hi = mid
                    cnt = lo
                    break
                if S[r, pos_f[b]] + (_loss(s, a, b + 1) - _loss(s, a, b)) > atol:
                    cnt += 1
                elif stop_early:
                    break
            v = T[a] + Fz[cnt] + _loss(s, a, cnt)
            vals[a] = v
            bs[a] = cnt
            if v > best:
                best = v
        thr = best - atol * max(1.0, abs(best))
        best_a = -1
        best_b = 0
        for a in range(s + 1):
            if vals[a] >= thr and (best_a < 0 or a + bs[a] < best_a + best_b):
                best_a = a
                best_b = bs[a]
        for j in range(m):
            H[r, j] = 0
        for a in range(best_a):
            H[r, pos_t[a]] = 1
        for b in range(best_b):
            H[r, pos_f[b]] = 1
        V[r] = vals[best_a]
    return H, V
