"""Estimates of the quantities the inference algorithms need, from samples of label vectors.

A *sample* is a binary matrix Y of shape (n_samples, m) for one instance (the labels of its
nearest neighbours, or label vectors drawn from a probabilistic classifier chain), dense or
scipy.sparse; a *batch* is a dense array (n, n_samples, m), one sample per instance. Optional
non-negative ``weights`` (n_samples,) or (n, n_samples) weight the sample rows (they are
normalised to sum to 1 per instance); without weights every row counts 1 / n_samples.

The estimates are the counting formulas of Section 7.1.1 of the paper:

* ``marginals``: p_i = sum_j w_j y_ji
* ``p_zero``: P(y = 0) = sum_j w_j [s_j = 0]
* ``p_matrix``: P[i, s-1] = sum_j w_j y_ji [s_j = s]      (eq. 9, s = 1..m)
* ``delta_matrix``: Delta[i, k-1] = sum_j w_j y_ji 2 / (s_j + k)   (k = 1..m)
* ``joint_mode``: the most frequent (highest total weight) label vector

where s_j is the number of ones in row j. Batched inputs give outputs with a leading n axis.
A given distribution (support vectors and probabilities) is handled by passing the support as
Y and the probabilities as weights.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .inference._common import chunks, single_threaded_blas, w_matrix

__all__ = ["marginals", "p_zero", "p_matrix", "delta_matrix", "joint_mode"]


def _samples(Y, weights):
    """Normalise input. Returns (Y, w, single, sparse): Y dense (n, S, m) int8 or CSR (S, m)."""
    if sp.issparse(Y):
        Yc = sp.csr_array(Y)
        if Yc.ndim != 2:
            raise ValueError(f"Y: a sparse sample must be 2-D (n_samples, m), got shape {Yc.shape}")
        Yc.sum_duplicates()
        if Yc.data.size and not np.all(Yc.data == 1):
            if not np.all((Yc.data == 0) | (Yc.data == 1)):
                raise ValueError("Y: values must be 0 or 1")
            Yc.eliminate_zeros()
        single, sparse = True, True
        S, m = Yc.shape
        Y = Yc
    else:
        a = np.asarray(Y)
        if a.ndim not in (2, 3):
            raise ValueError(f"Y: expected shape (n_samples, m) or (n, n_samples, m), got {a.shape}")
        if a.dtype != np.int8 and a.dtype != np.bool_:
            if a.size and not np.all((a == 0) | (a == 1)):
                raise ValueError("Y: values must be 0 or 1")
        elif a.dtype == np.int8 and a.size and (a.min() < 0 or a.max() > 1):
            raise ValueError("Y: values must be 0 or 1")
        single, sparse = a.ndim == 2, False
        Y = (a[None] if single else a).astype(np.int8, copy=False)
        S, m = Y.shape[1:]
    if m == 0:
        raise ValueError("Y: m = 0 labels")
    if S == 0:
        raise ValueError("Y: the sample is empty (n_samples = 0)")
    n = 1 if single else Y.shape[0]
    if weights is None:
        w = np.full((n, S), 1.0 / S)
    else:
        w = np.asarray(weights, dtype=np.float64)
        want = (S,) if single else (n, S)
        if w.shape != want:
            raise ValueError(f"weights: expected shape {want}, got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("weights: contains NaN or infinite values")
        if w.size and w.min() < 0:
            raise ValueError(f"weights: must be non-negative, got minimum {w.min():.6g}")
        w = w.reshape(n, S)
        tot = w.sum(axis=1, keepdims=True)
        if np.any(tot <= 0):
            raise ValueError("weights: sum to 0 for an instance")
        w = w / tot
    return Y, w, single, sparse


def _counts(Y, sparse):
    if sparse:
        return np.asarray(Y.sum(axis=1)).ravel()[None].astype(np.int64)
    return Y.sum(axis=2, dtype=np.int64)


def marginals(Y, weights=None):
    """Marginal probabilities p_i = P(y_i = 1) estimated from a sample.

    Parameters
    ----------
    Y : array-like (n_samples, m) or (n, n_samples, m), or sparse (n_samples, m)
    weights : array-like (n_samples,) or (n, n_samples), optional

    Returns
    -------
    ndarray of shape (m,) or (n, m)

    Examples
    --------
    >>> marginals([[1, 0], [1, 1], [0, 0], [0, 0]])
    array([0.5 , 0.25])
    """
    Y, w, single, sparse = _samples(Y, weights)
    if sparse:
        return np.asarray(Y.T @ w[0]).ravel()
    res = np.einsum("nsm,ns->nm", Y, w)
    return res[0] if single else res


def p_zero(Y, weights=None):
    """P(y = 0) estimated from a sample: the (weighted) share of all-zero rows.

    Examples
    --------
    >>> p_zero([[1, 0], [1, 1], [0, 0], [0, 0]])
    0.5
    """
    Y, w, single, sparse = _samples(Y, weights)
    res = (w * (_counts(Y, sparse) == 0)).sum(axis=1)
    return float(res[0]) if single else res


def _p_matrix(Y, w, sparse, smax=None):
    """P with columns s = 1..smax (default: the largest count in the sample): (n, m, smax)."""
    s = _counts(Y, sparse)
    n, S = s.shape
    m = Y.shape[-1]
    top = max(1, int(s.max()))  # columns above the largest count are zero
    smax = top if smax is None else smax
    out = np.zeros((n, m, smax))
    if sparse:
        rows = np.repeat(np.arange(S), np.diff(Y.indptr))
        idx = Y.indices * top + (s[0, rows] - 1)
        out[0, :, :top] = np.bincount(idx, weights=w[0, rows], minlength=m * top).reshape(m, top)
        return out
    # P[i, s] = sum_j w_j y_ji [s_j = s]: a batched product of the samples with the weighted
    # one-hot matrix of their counts (2-3x faster than scattering the nonzeros with bincount).
    for sl in chunks(n, S * (m + top) * 16):
        onehot = np.zeros((sl.stop - sl.start, S, top))
        np.put_along_axis(onehot, np.maximum(s[sl] - 1, 0)[:, :, None],
                          (w[sl] * (s[sl] > 0))[:, :, None], axis=2)
        out[sl, :, :top] = np.matmul(Y[sl].transpose(0, 2, 1).astype(np.float64), onehot)
    return out


@single_threaded_blas
def p_matrix(Y, weights=None):
    """The matrix P (eq. 9) and P(y = 0) estimated from a sample.

    Parameters
    ----------
    Y : array-like (n_samples, m) or (n, n_samples, m), or sparse (n_samples, m)
    weights : array-like (n_samples,) or (n, n_samples), optional

    Returns
    -------
    P : ndarray of shape (m, m) or (n, m, m)
        ``P[..., i, s-1]`` = estimated P(y_i = 1, s_y = s).
    p_zero : float or ndarray of shape (n,)

    Examples
    --------
    >>> P, p0 = p_matrix([[1, 0], [1, 1], [0, 0], [0, 0]])
    >>> P, p0
    (array([[0.25, 0.25],
           [0.  , 0.25]]), 0.5)
    """
    Y, w, single, sparse = _samples(Y, weights)
    m = Y.shape[-1]
    P = _p_matrix(Y, w, sparse, smax=m)
    pz = (w * (_counts(Y, sparse) == 0)).sum(axis=1)
    return (P[0], float(pz[0])) if single else (P, pz)


@single_threaded_blas
def delta_matrix(Y, weights=None):
    """The matrix Delta (Section 5) and P(y = 0) estimated from a sample (Section 7.1.1).

    ``Delta[..., i, k-1] = sum_j w_j y_ji 2 / (s_j + k)``, computed as P W with the columns of P
    above the largest count in the sample dropped. For GFM on large batches,
    :func:`fmeasure.inference.gfm_from_samples` is faster (it never forms the (n, m, m) array).

    Parameters
    ----------
    Y : array-like (n_samples, m) or (n, n_samples, m), or sparse (n_samples, m)
    weights : array-like (n_samples,) or (n, n_samples), optional

    Returns
    -------
    Delta : ndarray of shape (m, m) or (n, m, m)
    p_zero : float or ndarray of shape (n,)

    Examples
    --------
    >>> D, p0 = delta_matrix([[1, 0], [1, 1], [0, 0], [0, 0]])
    >>> D.round(4), p0
    (array([[0.4167, 0.2917],
           [0.1667, 0.125 ]]), 0.5)
    """
    Y, w, single, sparse = _samples(Y, weights)
    m = Y.shape[-1]
    s = _counts(Y, sparse)
    smax = max(1, int(s.max()))
    W = w_matrix(smax, m)
    if sparse:
        D = (_p_matrix(Y, w, True, smax=smax)[0] @ W)[None]
    else:
        n = Y.shape[0]
        D = np.empty((n, m, m))
        for sl in chunks(n, 8 * m * (smax + m) + Y.shape[1] * m * 16):
            Pc = _p_matrix(Y[sl], w[sl], False, smax=smax)
            D[sl] = (Pc.reshape(-1, smax) @ W).reshape(-1, m, m)
    pz = (w * (s == 0)).sum(axis=1)
    return (D[0], float(pz[0])) if single else (D, pz)


def joint_mode(Y, weights=None):
    """The most frequent label vector in a sample (the subset 0/1-optimal prediction).

    Ties (equal total weight) go to the vector that occurs first in the sample.

    Parameters
    ----------
    Y : array-like (n_samples, m) or (n, n_samples, m), or sparse (n_samples, m)
    weights : array-like (n_samples,) or (n, n_samples), optional

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    prob : float or ndarray of shape (n,)
        Estimated probability of ``h`` (its share of the sample weight).

    Examples
    --------
    >>> joint_mode([[1, 0], [1, 1], [0, 0], [1, 1]])
    (array([1, 1], dtype=int8), 0.5)
    """
    Y, w, single, sparse = _samples(Y, weights)
    if sparse:
        Y = Y.toarray().astype(np.int8)[None]
    n, S, m = Y.shape
    H = np.empty((n, m), dtype=np.int8)
    prob = np.empty(n)
    for sl in chunks(n, S * (m // 8 + 64)):
        nb = sl.stop - sl.start
        packed = np.packbits(Y[sl].astype(np.uint8), axis=2)  # (nb, S, B)
        key = np.concatenate([np.repeat(np.arange(nb, dtype=">u4").view(np.uint8).reshape(nb, 1, 4),
                                        S, axis=1), packed], axis=2)
        B = key.shape[2]
        keyv = np.ascontiguousarray(key).reshape(nb * S, B).view(f"V{B}").ravel()
        uniq, first, inv = np.unique(keyv, return_index=True, return_inverse=True)
        tot = np.bincount(inv.ravel(), weights=w[sl].ravel(), minlength=len(uniq))
        inst = first // S
        # per instance: max total weight, then earliest first occurrence
        o = np.lexsort((first, -tot, inst))
        start = np.searchsorted(inst[o], np.arange(nb))
        best = o[start]
        src = first[best]
        H[sl] = Y[sl].reshape(nb * S, m)[src]
        prob[sl] = tot[best]
    return (H[0], float(prob[0])) if single else (H, prob)
