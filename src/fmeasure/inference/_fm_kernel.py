"""Compiled (numba) kernel of FM's dynamic program (Ye et al. 2012), one instance at a time.

:func:`fm_values_rows` computes, for each row of sorted marginals, the expected F-measure E_k of
the top-k prediction for k = 0..m: the same recursions as the vectorised form in
:mod:`fmeasure.inference.independence` (forward Poisson-binomial steps over the top k labels, the
backward recursion of G_k(t) = E[1 / (t + B_k)] over the rest), with each entry updated by the same
floating-point operations in the same order, so the values are the same bit for bit as the
vectorised form's on a batch of instances (on a lone instance numpy reduces its contiguous axis with
several partial sums, so the vectorised form's values can differ in the last bits; this kernel gives
the batched ones whatever the batch). An instance's whole program stays in cache (its m + 1
forward states, stored as a triangle of (m + 1)(m + 2) / 2 numbers, and 2m + 1 values of G), where
the vectorised form streams arrays of m x (instances) through memory at every step: 4-5 times
faster at m = 983 (``benchmarks/bench_fm.py``). Time O(m^2) per instance; memory O(m^2) for the
triangle, reused across instances.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["fm_values_rows", "triangle_bytes"]


def triangle_bytes(m: int) -> int:
    """Bytes of the forward states the kernel keeps for m labels."""
    return 8 * (m + 1) * (m + 2) // 2


@njit(cache=True, nogil=True)
def fm_values_rows(q, out):  # pragma: no cover - compiled
    """E_k for k = 0..m into ``out`` (n, m + 1), for each row of ``q`` (n, m), sorted descending.

    E_0 = prod (1 - q_j) (the product in label order). Forward: A_0 = [1]; A_{k+1}(a) = A_k(a) +
    (A_k(a - 1) - A_k(a)) q_k, A_{k+1}(0) = A_k(0) - A_k(0) q_k. Backward: G_m(t) = 1 / t; E_k =
    sum_a (A_k(a) 2a) G_k(k + a) in order of a; G_{k-1}(t) = G_k(t) + (G_k(t + 1) - G_k(t)) q_k
    for t < 2k - 1.
    """
    n, m = q.shape
    tri = np.empty((m + 1) * (m + 2) // 2)  # A_k at offset k (k + 1) / 2, k + 1 entries
    A = np.empty(m + 1)
    G = np.empty(2 * m + 1)
    for i in range(n):
        qi = q[i]
        e0 = 1.0  # 1.0 * (1 - q_0) is exact: numpy's product in label order
        for k in range(m):
            e0 *= 1.0 - qi[k]
        out[i, 0] = e0
        A[0] = 1.0
        tri[0] = 1.0
        for k in range(m):
            p = qi[k]
            A[k + 1] = 0.0
            for a in range(k + 1, 0, -1):  # downwards: A[a - 1] is still A_k's
                A[a] += (A[a - 1] - A[a]) * p
            A[0] -= A[0] * p
            off = (k + 1) * (k + 2) // 2
            for a in range(k + 2):
                tri[off + a] = A[a]
        G[0] = 0.0
        for t in range(1, 2 * m + 1):
            G[t] = 1.0 / t
        for k in range(m, 0, -1):
            off = k * (k + 1) // 2
            s = 0.0
            for a in range(k + 1):
                s += (tri[off + a] * (2.0 * a)) * G[k + a]
            out[i, k] = s
            p = qi[k - 1]
            for t in range(2 * k - 1):  # upwards: G[t + 1] is still G_k's
                G[t] += (G[t + 1] - G[t]) * p
