# The previous batched path of fmeasure.inference.gfm_from_samples (as of commit a5b8d89), kept
# verbatim as the reference that benchmarks/bench_gfm_labels.py times the current one against:
# P over all m labels per chunk of instances (p_counts), then the labels with mass are picked out
# of it and the same kernel (_gfm_compact) runs on them.
"""Previous all-labels batched path of ``gfm_from_samples`` (dense (n, n_samples, m) input)."""

from __future__ import annotations

import numpy as np

from fmeasure._arrays import chunks, out, p_counts, row_counts, sample_input
from fmeasure.blas import single_threaded_blas
from fmeasure.inference.general import _gfm_compact


def _gfm_p_block(Ac, pc, rows, cols):
    """GFM for a validated block of P matrices Ac (n, m, S'), with its row and column sums."""
    n, m, _ = Ac.shape
    H = np.zeros((n, m), dtype=np.int8)
    active = rows > 0
    r = int(active.sum(axis=1).max())
    colany = (cols > 0).any(axis=0)
    S = int(len(colany) - np.argmax(colany[::-1])) if colany.any() else 0
    if r == 0 or S == 0:  # no mass on non-empty vectors: predict nothing
        return H, pc.copy()
    Ac = Ac[:, :, :S]
    if Ac.min() < 0:  # tiny negative rounding errors (validated by the caller)
        Ac = np.maximum(Ac, 0.0)
    AT = Ac.transpose(0, 2, 1)  # (n, S, m): the layout _gfm_compact works in
    if r < m:
        idx = np.argsort(~active, axis=1, kind="stable")[:, :r]  # active rows, in label order
        AT = np.take_along_axis(AT, idx[:, None, :], axis=2)
        h, V = _gfm_compact(AT.transpose(0, 2, 1), pc, cols[:, :S])
        np.put_along_axis(H, idx, h, axis=1)
    else:
        H, V = _gfm_compact(np.ascontiguousarray(AT).transpose(0, 2, 1), pc, cols[:, :S])
    return H, V


@single_threaded_blas
def gfm_from_samples(Y, weights=None):
    """The previous dense batched path (a dense (n, n_samples, m) sample only)."""
    Y, w, single, sparse = sample_input(Y, weights)
    assert not sparse
    s = row_counts(Y, sparse)
    smax = int(s.max())
    p0 = (w * (s == 0)).sum(axis=1)
    m = Y.shape[-1]
    if smax == 0:
        return out(np.zeros((len(p0), m), np.int8), p0, single)
    n = Y.shape[0]
    H = np.zeros((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * smax * 3 + Y.shape[1] * m, budget=8 * 2**20):
        A = p_counts(Y[sl], w[sl], False, smax=smax)
        H[sl], V[sl] = _gfm_p_block(A, p0[sl], A.sum(axis=2), A.sum(axis=1))
    return out(H, V, single)
