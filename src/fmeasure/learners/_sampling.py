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
                    for j in range(k + 1, m):
                        z[j] += V[k, j]
