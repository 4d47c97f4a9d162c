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

from fmeasure._arrays import chunks, p_counts, row_counts, sample_input, w_matrix
from fmeasure.blas import single_threaded_blas

__all__ = ["marginals", "p_zero", "p_matrix", "delta_matrix", "joint_mode"]


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
    Y, w, single, sparse = sample_input(Y, weights)
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
    Y, w, single, sparse = sample_input(Y, weights)
    res = (w * (row_counts(Y, sparse) == 0)).sum(axis=1)
    return float(res[0]) if single else res


@single_threaded_blas
def p_matrix(Y, weights=None):
    """The matrix P (equation 9) and P(y = 0) estimated from a sample.

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
    Y, w, single, sparse = sample_input(Y, weights)
    m = Y.shape[-1]
    P = p_counts(Y, w, sparse, smax=m)
    pz = (w * (row_counts(Y, sparse) == 0)).sum(axis=1)
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
    Y, w, single, sparse = sample_input(Y, weights)
    m = Y.shape[-1]
    s = row_counts(Y, sparse)
    smax = max(1, int(s.max()))
    W = w_matrix(smax, m)
    if sparse:
        D = (p_counts(Y, w, True, smax=smax)[0] @ W)[None]
    else:
        n = Y.shape[0]
        D = np.empty((n, m, m))
        for sl in chunks(n, 8 * m * (smax + m) + Y.shape[1] * m * 16):
            Pc = p_counts(Y[sl], w[sl], False, smax=smax)
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
    Y, w, single, sparse = sample_input(Y, weights)
    if sparse:
        Y = Y.toarray().astype(np.int8)[None]
    n, S, m = Y.shape
    H = np.empty((n, m), dtype=np.int8)
    prob = np.empty(n)
    for sl in chunks(n, S * (m // 8 + 64)):
        nb = sl.stop - sl.start
        packed = np.packbits(Y[sl].astype(np.uint8), axis=2)  # (nb, S, B)
        key = np.concatenate(
            [np.repeat(np.arange(nb, dtype=">u4").view(np.uint8).reshape(nb, 1, 4), S, axis=1), packed], axis=2
        )
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
