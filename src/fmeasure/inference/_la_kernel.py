"""Compiled (numba) loss-augmented inference for the F-measure loss, one example at a time.

:func:`loss_augmented_rows` returns, for every row, what the vectorised algorithm of
:func:`fmeasure.inference.structured.solve_batch_numpy` returns, bit for bit: the same sorted
order (descending, lowest index first on ties), the same prefix sums from the left, the loss and
its increments by the same formulas and the same tie rule. It does less work:

* a false label can only be worth adding when its score exceeds minus the largest increment of
  the loss (1 / (2 s + 1) for s >= 1 true labels, 1 for s = 0), so only those are collected;
* for a fixed number a of true labels, the marginal gains of the false labels are non-increasing
  (the scores are sorted and the float64 increments of the loss are non-increasing in b), and for
  a fixed b they are non-decreasing in a (the increments are non-decreasing in a; both checked in
  float64 for every m up to :data:`MONOTONE_UP_TO` labels). So counting the positive gains stops
  at the first that is not, and a's count is searched from where a - 1's stopped. Beyond that many
  labels every gain is counted, as the numpy version does;
* the false labels' scores are put in order only as far as the counting reaches. The largest
  count is a = s's (the gains are non-decreasing in a), and the gain at sorted position b is
  positive exactly when more than b of the f collected scores pass the same test with b's
  increment (float addition is monotone in the score), so that count is found by bisection over
  b, each step one pass over the unsorted scores (O(f log f) comparisons that vectorise, no
  branches to mispredict). The scores that pass at the count's last position, the largest ones
  and at least as many as the count, are moved to the front in one pass and sorted alone (by their
  bits: buckets of the leading bits, then each bucket by insertion), the others dropped: at large
  C, where a trained model's rows count a few hundred of about a thousand candidates, most of the
  sorting. Only the values are put in order: the
  labels that hold the chosen ones are found afterwards from the scores, ties by the lowest index.
  Each a's count is found by galloping from a - 1's, then bisection, among the sorted values. A
  row costs O(m + f log f) comparisons and a sort of at most f values, never O(f^2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MONOTONE_UP_TO", "loss_augmented_rows"]

#: Label counts m up to which the loss increments are known to be non-increasing in b and
#: non-decreasing in a in float64 (``tests/library/test_structured_inference.py`` checks every
#: s <= m, a <= s and b <= m - s at m = MONOTONE_UP_TO, which contains every smaller m's cases).
MONOTONE_UP_TO = 1000

#: A sort of at most this many values is by insertion (the bucketing's passes cost more).
_BLOCK = 32

#: A bucket of more keys than this is sorted by radix, not insertion (:func:`_sort_keys_bucketed`).
_BUCKET_MAX = 48


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


@njit(cache=True, nogil=True)
def _radix_keys(src, dst, cnt, lo, hi):  # pragma: no cover - compiled
    """Sort the uint64 keys src[lo:hi] in increasing order (LSD radix, a byte at a time, a byte
    that every key shares skipped); the result is in src[lo:hi]; dst[lo:hi] and cnt (256 counts)
    are scratch."""
    n = hi - lo
    a = src[lo:hi]
    b = dst[lo:hi]
    swapped = False
    for p in range(8):
        shift = np.uint64(8 * p)
        for j in range(256):
            cnt[j] = 0
        for i in range(n):
            cnt[(a[i] >> shift) & np.uint64(255)] += 1
        if cnt[(a[0] >> shift) & np.uint64(255)] == n:
            continue
        total = 0
        for j in range(256):
            c = cnt[j]
            cnt[j] = total
            total += c
        for i in range(n):
            k = (a[i] >> shift) & np.uint64(255)
            b[cnt[k]] = a[i]
            cnt[k] += 1
        a, b = b, a
        swapped = not swapped
    if swapped:
        for i in range(n):
            b[i] = a[i]


@njit(cache=True, nogil=True, inline="always")
def _shift(lo, hi, n):  # pragma: no cover - compiled
    """The smallest s with (hi - lo) >> s < 2 n: at most two buckets a key for n >= 1 keys in
    [lo, hi] (uint64)."""
    s = 0
    while ((hi - lo) >> np.uint64(s)) >= np.uint64(2 * n):
        s += 1
    return s


@njit(cache=True, nogil=True, inline="always")
def _bucket(k, half, lo0, s0, lo1, s1, nb0):  # pragma: no cover - compiled
    """The bucket of key k: by its leading bits within its half (below ``half`` from lo0, else
    from lo1 after the nb0 buckets of the lower half)."""
    if k < half:
        return np.int64((k - lo0) >> np.uint64(s0))
    return nb0 + np.int64((k - lo1) >> np.uint64(s1))


@njit(cache=True, nogil=True)
def _sort_keys_bucketed(ka, kb, cnt, n):  # pragma: no cover - compiled
    """ka[:n] (uint64) in increasing order, in ka; kb[:n] and cnt (at least 2 n + 257 counts) are
    scratch. The keys of each half (below 2**63 and from it: the positive and the negative values)
    are put in buckets by their leading bits (the key minus the half's smallest, shifted so that
    the half has at most two buckets a key), in one counting pass and one scatter, then each bucket
    is sorted alone: by insertion, or by a radix sort beyond ``_BUCKET_MAX`` keys. The bits follow
    the values' exponents, then mantissas, so the buckets are finer where the values are denser.
    A radix sort of a few hundred values spends most of its eight passes on its 256 counts; with
    this sort the kernel is 1.1-1.25x as fast on the rows of a model trained on delicious."""
    half = np.uint64(1) << np.uint64(63)
    lo0 = ~np.uint64(0)
    hi0 = np.uint64(0)
    lo1 = ~np.uint64(0)
    hi1 = np.uint64(0)
    n0 = 0
    for i in range(n):
        k = ka[i]
        if k < half:
            n0 += 1
            lo0 = min(lo0, k)
            hi0 = max(hi0, k)
        else:
            lo1 = min(lo1, k)
            hi1 = max(hi1, k)
    n1 = n - n0
    s0 = _shift(lo0, hi0, n0) if n0 > 0 else 0
    s1 = _shift(lo1, hi1, n1) if n1 > 0 else 0
    nb0 = np.int64((hi0 - lo0) >> np.uint64(s0)) + 1 if n0 > 0 else 0
    nb1 = np.int64((hi1 - lo1) >> np.uint64(s1)) + 1 if n1 > 0 else 0
    nb = nb0 + nb1
    for b in range(nb + 1):
        cnt[b] = 0
    for i in range(n):
        cnt[_bucket(ka[i], half, lo0, s0, lo1, s1, nb0) + 1] += 1
    for b in range(nb):
        cnt[b + 1] += cnt[b]
    for i in range(n):
        k = ka[i]
        b = _bucket(k, half, lo0, s0, lo1, s1, nb0)
        kb[cnt[b]] = k
        cnt[b] += 1
    start = np.int64(0)
    for b in range(nb):
        end = cnt[b]
        if end - start > _BUCKET_MAX:
            _radix_keys(kb, ka, cnt[nb + 1 :], start, end)
        else:
            for i in range(start + 1, end):
                x = kb[i]
                t = i - 1
                while t >= start and kb[t] > x:
                    kb[t + 1] = kb[t]
                    t -= 1
                kb[t + 1] = x
        start = end
    for i in range(n):
        ka[i] = kb[i]


@njit(cache=True, nogil=True, inline="always")
def _sort_rest(v, ka, kb, cnt, g, k):  # pragma: no cover - compiled
    """Sort v[g:k] in descending order: by insertion up to _BLOCK values, else by the values' bits
    mapped to integers of the same order (:func:`_sort_keys_bucketed`: buckets of their leading
    bits, then insertion or a radix sort in each). ``ka`` and ``kb`` (uint64, k - g each) and
    ``cnt`` (2 (k - g) + 257 counts) are scratch space."""
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
    _sort_keys_bucketed(ka, kb, cnt, n)
    for i in range(n):
        key = ~ka[i]
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
    counts = np.empty(2 * m + 257, np.int64)
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
        for j in range(m):  # without a branch: each label written, kept by the count's step
            x = S[r, j]
            pos_f[f] = j
            fv[f] = x
            f += (not Y[r, j]) and (x + top > atol)
        _sort_desc(S, r, pos_t, s)
        T[0] = 0.0
        for a in range(s):
            T[a + 1] = T[a] + S[r, pos_t[a]]
        # The false labels' scores are put in order only as far as the counting reaches. a = s
        # has the largest count (the gains are non-decreasing in a): the first b whose gain is not
        # positive. The gain at sorted position b, fv[b] + inc_b, is positive iff more than b of
        # the values v have v + inc_b > atol (float addition is monotone in v), so that count,
        # `bound`, is found by bisection over b, each step one pass over the unsorted values. The
        # values that pass at b = bound - 1 are the largest ones, at least bound of them: they
        # alone are sorted (every count is at most bound). Beyond MONOTONE_UP_TO labels, all.
        bound = f
        if stop_early:
            lo = 0
            hi = f
            while lo < hi:
                mid = (lo + hi) // 2
                inc = _loss(s, s, mid + 1) - _loss(s, s, mid)
                c = 0
                for i in range(f):
                    c += fv[i] + inc > atol
                if c > mid:
                    lo = mid + 1
                else:
                    hi = mid
            bound = lo
        q = f
        if bound < f:
            q = 0
            if bound > 0:
                inc = _loss(s, s, bound) - _loss(s, s, bound - 1)
                for i in range(f):  # in place: moved to the front, the others dropped
                    v = fv[i]
                    fv[q] = v
                    q += v + inc > atol
        _sort_rest(fv, ka, kb, counts, 0, q)
        Fz[0] = 0.0
        for b in range(q):
            Fz[b + 1] = Fz[b] + fv[b]
        best = -np.inf
        cnt = 0
        for a in range(s + 1):
            if stop_early:
                # The gains are non-increasing in b and non-decreasing in a: a's count is the
                # first gain <= atol at or after the count of a - 1 and at most bound, found by
                # galloping from there (probes 1, 2, 4, ... values further), then by bisection:
                # O(log) of the distance, every probe among the sorted values.
                lo = cnt
                hi = bound
                step = 1
                while True:
                    p = lo + step - 1
                    if p >= bound:
                        break
                    if fv[p] + (_loss(s, a, p + 1) - _loss(s, a, p)) <= atol:
                        hi = p
                        break
                    lo = p + 1
                    step *= 2
                while lo < hi:
                    mid = (lo + hi) // 2
                    if fv[mid] + (_loss(s, a, mid + 1) - _loss(s, a, mid)) > atol:
                        lo = mid + 1
                    else:
                        hi = mid
                cnt = lo
            else:  # every false label in order (bound == f): every positive gain is counted
                cnt = 0
                for b in range(f):
                    if fv[b] + (_loss(s, a, b + 1) - _loss(s, a, b)) > atol:
                        cnt += 1
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
