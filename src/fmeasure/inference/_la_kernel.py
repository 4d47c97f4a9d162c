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
* the false labels' scores are put in order lazily, as far as the counting reaches: the best few
  by selection, and once it reaches further (as when every score is near 0, at the start of
  training and at small C, and many false labels have a positive gain), or when that many scores
  are above 0 (every count reaches them), the rest by one radix sort. Only the values are put in
  order: the labels that hold the chosen ones are found afterwards from the scores, ties by the
  lowest index. A row costs O(m + s min(b, log f)) for f candidate false labels, s true labels
  and at most b counted, never O(f^2).
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
#: rest are sorted at once (O(f)), so a row whose count reaches far costs no O(f^2).
_LAZY = 16

#: A sort of at most this many values is by insertion (the radix sort's passes cost more).
_BLOCK = 32


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
def _select_next(v, g, k):  # pragma: no cover - compiled
    """Move the largest of v[g:k] to position g."""
    best = g
    for t in range(g + 1, k):
        if v[t] > v[best]:
            best = t
    v[g], v[best] = v[best], v[g]


@njit(cache=True, nogil=True, inline="always")
def _sort_rest(v, ka, kb, cnt, g, k):  # pragma: no cover - compiled
    """Sort v[g:k] in descending order: by insertion up to _BLOCK values, else in O(k - g) (LSD
    radix sort, a byte at a time, of the values' bits mapped to integers of the same order; a byte
    that every value shares is skipped). ``ka`` and ``kb`` (uint64) and ``cnt`` (256 counts) are
    scratch space."""
    n = k - g
    if n <= _BLOCK:
        for i in range(g + 1, k):
            x = v[i]
            t = i - 1
            while t >= g and v[t] < x:
                v[t + 1] = v[t]
                t -= 1
            v[t + 1] = x
        return
    vb = v[g:k].view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    for i in range(n):
        u = vb[i]
        key = ~u if (u & sign) else (u | sign)  # increasing with the value
        ka[i] = ~key  # increasing as the value decreases
    src, dst = ka, kb
    for p in range(8):
        shift = np.uint64(8 * p)
        for j in range(256):
            cnt[j] = 0
        for i in range(n):
            cnt[(src[i] >> shift) & np.uint64(255)] += 1
        if cnt[(src[0] >> shift) & np.uint64(255)] == n:
            continue
        total = 0
        for j in range(256):
            c = cnt[j]
            cnt[j] = total
            total += c
        for i in range(n):
            b = (src[i] >> shift) & np.uint64(255)
            dst[cnt[b]] = src[i]
            cnt[b] += 1
        src, dst = dst, src
    for i in range(n):
        key = ~src[i]
        vb[i] = (key & ~sign) if (key & sign) else ~key


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
    fv = np.empty(m)
    ka = np.empty(m, np.uint64)
    kb = np.empty(m, np.uint64)
    cnt256 = np.empty(256, np.int64)
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
        above = 0
        for j in range(m):
            if not Y[r, j] and S[r, j] + top > atol:
                pos_f[f] = j
                fv[f] = S[r, j]
                f += 1
                if S[r, j] > atol:
                    above += 1
        _sort_desc(S, r, pos_t, s)
        T[0] = 0.0
        for a in range(s):
            T[a + 1] = T[a] + S[r, pos_t[a]]
        # The false labels' scores are put in order lazily, as far as the counting reaches: by
        # selection for the first _LAZY, then the rest at once. All at once when every gain is
        # counted (beyond MONOTONE_UP_TO labels), and when at least _LAZY scores are above atol:
        # the loss increments are >= 0, so every count reaches at least that far.
        Fz[0] = 0.0
        done = 0
        if not stop_early or above >= _LAZY:
            _sort_rest(fv, ka, kb, cnt256, 0, f)
            for b in range(f):
                Fz[b + 1] = Fz[b] + fv[b]
            done = f
        best = -np.inf
        for a in range(s + 1):
            cnt = 0
            for b in range(f):
                if b == done:
                    if done < _LAZY:
                        _select_next(fv, b, f)
                        Fz[b + 1] = Fz[b] + fv[b]
                        done += 1
                    else:  # the count reaches far: sort the rest at once
                        _sort_rest(fv, ka, kb, cnt256, b, f)
                        for t in range(b, f):
                            Fz[t + 1] = Fz[t] + fv[t]
                        done = f
                if stop_early and done == f:
                    # All in order and the gains non-increasing: the first gain <= atol at or
                    # after b, by bisection (the count that the scan would reach).
                    lo = b
                    hi = f
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if fv[mid] + (_loss(s, a, mid + 1) - _loss(s, a, mid)) > atol:
                            lo = mid + 1
                        else:
                            hi = mid
                    cnt = lo
                    break
                if fv[b] + (_loss(s, a, b + 1) - _loss(s, a, b)) > atol:
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
        if best_b > 0:
            # The best_b largest false scores, the lowest label indices first among equal ones:
            # every label above the best_b-th largest score, then those equal to it in index order.
            cut = fv[best_b - 1]
            left = best_b
            for i in range(f):
                if S[r, pos_f[i]] > cut:
                    H[r, pos_f[i]] = 1
                    left -= 1
            for i in range(f):
                if left == 0:
                    break
                if S[r, pos_f[i]] == cut:
                    H[r, pos_f[i]] = 1
                    left -= 1
        V[r] = vals[best_a]
    return H, V
