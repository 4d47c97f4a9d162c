"""Compiled ancestral sampling of a classifier chain whose links are logistic models.

The chain's label k is drawn with probability sigma(z_k), where z_k is the x-part of its logit plus
``V[j, k]`` for every earlier label j drawn positive: positive when its uniform draw u satisfies
u < sigma(z_k), that is when z_k > log(u / (1 - u)), so no exponential is evaluated per draw. Walking one sample's labels in chain order
keeps the m logits in cache and touches ``V`` only for the labels drawn positive, so a sample costs
O(m + s m) for s positives, against O(m^2) for recomputing every logit from the earlier labels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["chain_draws_linear"]


@njit(cache=True, nogil=True)
def chain_draws_linear(base, V, L, out):  # pragma: no cover - compiled
    """Fill ``out`` (c, S, m) int8 with draws; ``base`` (c, m) x-parts of the logits in chain order,
    ``V`` (m, m) the weights of earlier labels (upper triangle), ``L`` (S, m) the logits of the
    uniform draws (label k of sample s is positive when ``z_k > L[s, k]``)."""
    c, m = base.shape
    S = L.shape[0]
    z = np.empty(m)
    for i in range(c):
        for s in range(S):
            for j in range(m):
                z[j] = base[i, j]
            for k in range(m):
                if z[k] > L[s, k]:
                    out[i, s, k] = 1
                    later, weight = z[k + 1 :], V[k, k + 1 :]  # a loop from 0: vector code
                    for j in range(later.size):
                        later[j] += weight[j]


@njit(cache=True, nogil=True)
def chain_draws_sparse(E, F, RT, out):  # pragma: no cover - compiled
    """Fill ``out`` (c * n_samples, m) int8 with one draw per (sample, label); no exponential per draw.

    A label with logit z is positive when u < sigma(z), that is u * (1 + exp(-z)) < 1.
    ``E`` (c, m): exp(-x-part of each logit) of instance ``row // n_samples``; ``F`` (m, m):
    ``F[k, j] = exp(-V[k, j])`` for the weight V[k, j] of label k in the logit of a later label j
    (upper triangle): a label drawn positive multiplies exp(-z) of every later label by its row of
    F. ``RT`` (n_samples, m) uint32: the raw draws of each sample, ``u = (RT >> 8) / 2^24`` (24-bit
    uniforms in [0, 1), as ``Generator.random(dtype=float32)``), row s read by sample s of every
    instance. One sample at a time, its m values of exp(-z) in cache: the labels up to the next
    positive are found by a loop that only compares, the row of ``out`` having been zeroed. Work
    per sample: O(m), plus O(m) per label drawn positive. exp(-z) = inf (z far below 0) never draws
    a positive, as sigma(z) = 0 would not.
    """
    N, m = out.shape
    n_samples = RT.shape[0]
    e = np.empty(m)
    for row in range(N):
        i = row // n_samples
        r = RT[row - i * n_samples]
        o = out[row]
        for j in range(m):
            e[j] = E[i, j]
            o[j] = 0
        k = 0
        while True:
            # not "< 1": u = 0 with exp(-z) = inf gives nan, which must not draw a positive
            while k < m and not ((r[k] >> 8) * 5.9604644775390625e-08 * (1.0 + e[k]) < 1.0):  # 2^-24
                k += 1
            if k == m:
                break
            o[k] = 1
            # a loop over views from index 0 (not from k + 1): numba compiles it to vector
            # instructions, likely as no index can then be negative
            later, factor = e[k + 1 :], F[k, k + 1 :]
            for j in range(later.size):
                later[j] *= factor[j]
            k += 1
