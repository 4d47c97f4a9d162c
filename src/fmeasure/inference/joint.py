"""Inference from an explicit joint distribution (support vectors and their probabilities).

A distribution is ``support`` (r, m) binary with ``probs`` (r,) summing to 1, or a batch
(n, r, m) with (n, r) (pad with zero-probability rows). Duplicated support vectors are allowed
(their probabilities add up).

* :func:`expected_f` -- exact E[F(Y, h)].
* :func:`brute_force` -- exact argmax over all 2^m predictions (m <= 20).
* :func:`joint_mode` -- the most probable vector (subset 0/1-optimal).
* :func:`threshold_marginals` -- Section 4.3: best threshold on the marginals, scored with the joint.
* :func:`categorical` -- Theorem 4.4 for distributions over single-label vectors (takes p).
"""

from __future__ import annotations

import functools

import numpy as np

from fmeasure import estimation as _est
from fmeasure._arrays import (
    TIE_TOL,
    TOL,
    as_float,
    binary_input,
    check_unit,
    chunks,
    first_max,
    label_vectors,
    out,
    row_codes,
    support_input,
)
from fmeasure.blas import single_threaded_blas

__all__ = ["expected_f", "brute_force", "joint_mode", "threshold_marginals", "categorical"]

#: brute force refuses m above this (2^20 candidate predictions)
BRUTE_FORCE_MAX_M = 20


def _f_matrix(H, Y):
    """F(y_j, h_c) for H (c, m) and Y (r, m): (c, r), with F(0, 0) = 1."""
    tp = H.astype(np.float32) @ Y.T.astype(np.float32)
    den = H.sum(axis=1, dtype=np.float64)[:, None] + Y.sum(axis=1, dtype=np.float64)[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        F = np.where(den > 0, 2.0 * tp / den, 1.0)
    return F


@single_threaded_blas
def expected_f(support, probs, h):
    """Exact expected F-measure E[F(Y, h)] of predictions ``h`` under a discrete distribution.

    Parameters
    ----------
    support : array-like of shape (r, m) or (n, r, m), values in {0, 1} (sparse allowed for 2-D)
    probs : array-like of shape (r,) or (n, r), summing to 1
    h : array-like of shape (m,), or (n, m) for a batch. With a single distribution, ``h`` may
        also be (c, m): c predictions scored under the same distribution.

    Returns
    -------
    float, or ndarray of shape (n,) / (c,)

    Examples
    --------
    >>> expected_f([[1, 0], [1, 1]], [0.5, 0.5], [1, 0])
    0.8333333333333333
    """
    Y, pr, single = support_input(support, probs)
    Hh = binary_input(h, "h", (1, 2))
    m = Y.shape[2]
    if Hh.shape[-1] != m:
        raise ValueError(f"h: has {Hh.shape[-1]} labels, the support has {m}")
    if single:
        if Hh.ndim == 1:
            return float((_f_matrix(Hh[None], Y[0]) @ pr[0])[0])
        return np.concatenate([_f_matrix(Hh[sl], Y[0]) @ pr[0] for sl in chunks(len(Hh), 8 * Y.shape[1] * 3)])
    if Hh.ndim != 2 or Hh.shape[0] != Y.shape[0]:
        raise ValueError(f"h: expected shape {(Y.shape[0], m)} for a batch, got {Hh.shape}")
    tp = np.einsum("nrm,nm->nr", Y, Hh, dtype=np.float64)
    den = Y.sum(axis=2, dtype=np.float64) + Hh.sum(axis=1, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        F = np.where(den > 0, 2.0 * tp / den, 1.0)
    return (F * pr).sum(axis=1)


@functools.lru_cache(maxsize=4)
def _all_predictions(m):
    """All 2^m vectors ordered by size, then lexicographically by their sorted label indices."""
    codes = np.arange(2**m, dtype=np.int64)
    H = label_vectors(m)
    size = H.sum(axis=1)
    order = np.lexsort((-codes, size))
    H = H[order]
    H.setflags(write=False)
    return H


@functools.lru_cache(maxsize=2)
def _f_table(m):
    """F(y, h) for all h (ordered as _all_predictions) and all y (by code sum y_i 2^i)."""
    H = _all_predictions(m)
    T = _f_matrix(H, label_vectors(m, first="lsb"))
    T.setflags(write=False)
    return T


@single_threaded_blas
def brute_force(support, probs):
    """Exact F-measure maximizer by enumerating all 2^m predictions (m <= 20).

    Parameters
    ----------
    support : array-like of shape (r, m) or (n, r, m)
    probs : array-like of shape (r,) or (n, r)

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    value : float or ndarray of shape (n,)

    Notes
    -----
    Candidates are visited by size, then lexicographically by label indices; the first maximum
    wins, so ties follow the same rule as :func:`gfm` (smallest size, lowest label indices).

    Examples
    --------
    >>> h, v = brute_force([[1, 0, 0], [0, 1, 1]], [0.6, 0.4])
    >>> h, round(v, 4)
    (array([1, 1, 1], dtype=int8), 0.62)
    """
    Y, pr, single = support_input(support, probs)
    n, r, m = Y.shape
    if m > BRUTE_FORCE_MAX_M:
        raise ValueError(
            f"support: brute force enumerates 2^m predictions; m = {m} > {BRUTE_FORCE_MAX_M} is refused (use gfm)"
        )
    H = _all_predictions(m)
    hbest = np.empty((n, m), dtype=np.int8)
    vbest = np.empty(n)
    if m <= 10:
        T = _f_table(m)
        codes = row_codes(Y)  # (n, r)
        for sl in chunks(n, 8 * 2**m * 2):
            dense = np.zeros((sl.stop - sl.start, 2**m))
            np.add.at(dense, (np.arange(sl.stop - sl.start)[:, None], codes[sl]), pr[sl])
            E = dense @ T.T  # (nb, 2^m)
            j = first_max(E)
            hbest[sl] = H[j]
            vbest[sl] = E[np.arange(len(j)), j]
        return out(hbest, vbest, single)
    for i in range(n):
        keep = pr[i] > 0
        Yi, pi = Y[i][keep], pr[i][keep]
        best, bv = 0, -1.0
        for sl in chunks(2**m, 8 * max(1, len(pi)) * 3):
            E = _f_matrix(H[sl], Yi) @ pi
            j = int(first_max(E))
            if E[j] > bv + TIE_TOL:
                best, bv = sl.start + j, float(E[j])
        hbest[i], vbest[i] = H[best], bv
    return out(hbest, vbest, single)


def joint_mode(support, probs):
    """Joint mode: the most probable label vector (optimal for the subset 0/1 loss).

    Parameters
    ----------
    support : array-like of shape (r, m) or (n, r, m)
    probs : array-like of shape (r,) or (n, r)

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
        Ties (equal total probability) go to the vector listed first in ``support``.
    value : float or ndarray of shape (n,)
        Expected F-measure of ``h`` (use :func:`fmeasure.estimation.joint_mode` for its
        probability).

    Examples
    --------
    >>> joint_mode([[1, 0], [0, 1]], [0.4, 0.6])
    (array([0, 1], dtype=int8), 0.6)
    """
    Y, pr, single = support_input(support, probs)
    h, _ = _est.joint_mode(Y, pr)
    v = expected_f(Y, pr, h)
    return out(h, v, single)


@single_threaded_blas
def threshold_marginals(support, probs):
    """Best threshold on the marginals, scored with the joint distribution (Section 4.3).

    Candidates are ``h(theta)_i = [p_i >= theta]`` for theta in the set of marginals
    (labels with equal marginals enter together, as in the paper's definition), plus the empty
    prediction (the paper's theta = 1 when no p_i = 1). The candidate with the highest exact
    E[F] under the joint distribution wins; ties go to the smaller prediction.

    Parameters
    ----------
    support : array-like of shape (r, m) or (n, r, m)
    probs : array-like of shape (r,) or (n, r)

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
    value : float or ndarray of shape (n,)

    Examples
    --------
    >>> Y = [[0, 0, 0], [1, 0, 0], [0, 1, 1], [0, 1, 0]]
    >>> h, v = threshold_marginals(Y, [0.2, 0.35, 0.25, 0.2])
    >>> h, round(v, 4)
    (array([1, 1, 0], dtype=int8), 0.4917)
    """
    Y, pr, single = support_input(support, probs)
    n, r, m = Y.shape
    H = np.empty((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * m * m * 4 + 8 * r * m):
        D, p0 = _est.delta_matrix(Y[sl], pr[sl])  # (nb, m, m)
        p = np.einsum("nrm,nr->nm", Y[sl], pr[sl])
        nb = len(p0)
        order = np.argsort(-p, axis=1, kind="stable")
        ps = np.take_along_axis(p, order, axis=1)
        Ds = np.take_along_axis(D, order[:, :, None], axis=1)  # rows sorted by marginal
        E = np.einsum("njk,jk->nk", Ds, np.tri(m, m).T)  # E[:, k-1] = sum of first k rows, col k
        valid = np.ones((nb, m), dtype=bool)
        valid[:, :-1] = ps[:, :-1] > ps[:, 1:]  # a threshold cannot split equal marginals
        vals = np.concatenate([p0[:, None], np.where(valid, E, -np.inf)], axis=1)
        k = first_max(vals)
        V[sl] = vals[np.arange(nb), k]
        h = np.zeros((nb, m), dtype=np.int8)
        h[np.arange(nb)[:, None], order] = np.arange(m)[None, :] < k[:, None]
        H[sl] = h
    return out(H, V, single)


def categorical(p):
    """F-maximizer for a categorical distribution (Theorem 4.4, del Coz et al. 2009).

    The distribution puts mass ``p_i`` on the single-label vector y(i) (and the remaining mass
    ``1 - sum(p)``, if any, on y = 0). The maximizer is the top-k labels for the first k with
    ``sum_{j<=k} p_(j) >= (1 + k) p_(k+1)`` (k = m if none), unless the empty prediction is
    better (only possible if ``sum(p) < 1``).

    Parameters
    ----------
    p : array-like of shape (m,) or (n, m)
        P(y = y(i)); must sum to at most 1.

    Returns
    -------
    h : ndarray of int8
    value : float or ndarray
        Exact expected F-measure ``2 sum_{i in h} p_i / (1 + k)`` (or ``1 - sum(p)`` if empty).

    Examples
    --------
    >>> h, v = categorical([0.5, 0.3, 0.2])
    >>> h, round(v, 4)
    (array([1, 1, 0], dtype=int8), 0.5333)
    """
    a = as_float(p, "p", (1, 2))
    single = a.ndim == 1
    P = check_unit(a[None] if single else a, "p")
    tot = P.sum(axis=1)
    if tot.max() > 1 + TOL:
        raise ValueError(f"p: categorical probabilities must sum to at most 1, got {tot.max():.9g}")
    n, m = P.shape
    order = np.argsort(-P, axis=1, kind="stable")
    q = np.take_along_axis(P, order, axis=1)
    S = np.cumsum(q, axis=1)
    kk = np.arange(1, m)
    cond = np.ones((n, m), dtype=bool)  # cond[:, k-1]; k = m always stops
    cond[:, :-1] = S[:, :-1] >= (1 + kk) * q[:, 1:]  # for k = 1..m-1
    k = np.argmax(cond, axis=1) + 1
    Ek = 2 * S[np.arange(n), k - 1] / (1 + k)
    E0 = np.maximum(1 - tot, 0.0)
    k = np.where(E0 >= Ek, 0, k)
    v = np.where(k == 0, E0, Ek)
    h = np.zeros((n, m), dtype=np.int8)
    h[np.arange(n)[:, None], order] = np.arange(m)[None, :] < k[:, None]
    return out(h, v, single)
