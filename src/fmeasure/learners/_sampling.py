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
def chain_draws_sparse(E, F, R, n_samples, out):  # pragma: no cover - compiled
    """Fill ``out`` (c * n_samples, m) int8 with one draw per (sample column, label); no exponential per draw.

    A label with logit z is positive when u < sigma(z), that is u * (1 + exp(-z)) < 1.
    ``E`` (c, m): exp(-x-part of each logit) of instance ``col // n_samples``; ``F`` (m, m):
    ``F[k, j] = exp(-V[k, j])`` for the weight V[k, j] of label k in the logit of a later label j
    (upper triangle): a label drawn positive multiplies exp(-z) of every later label by its row of
    F. ``R`` (m, c * n_samples) uint32: the raw draws, ``u = (R >> 8) / 2^24`` (24-bit uniforms in
    [0, 1), as ``Generator.random(dtype=float32)``). Columns are walked in tiles, so that each
    label's raw draws are read contiguously. Work per column: O(m), plus O(m) per label drawn
    positive. exp(-z) = inf (z far below 0) never draws a positive, as sigma(z) = 0 would not.
    """
    m, N = R.shape
    T = 64
    e = np.empty((T, m))
    for c0 in range(0, N, T):
        c1 = min(c0 + T, N)
        for t in range(c1 - c0):
            i = (c0 + t) // n_samples
            for j in range(m):
                e[t, j] = E[i, j]
        for k in range(m):
            for t in range(c1 - c0):
                u = (R[k, c0 + t] >> 8) * 5.9604644775390625e-08  # 2^-24
                if u * (1.0 + e[t, k]) < 1.0:
                    out[c0 + t, k] = 1
                    # a loop over views from index 0 (not from k + 1): numba compiles it to vector
                    # instructions, likely as no index can then be negative (1.5x on delicious)
                    later, factor = e[t, k + 1 :], F[k, k + 1 :]
                    for j in range(later.size):
                        later[j] *= factor[j]
                else:
                    out[c0 + t, k] = 0
