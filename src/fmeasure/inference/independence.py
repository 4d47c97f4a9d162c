"""F-measure maximizers that take marginals p_i = P(y_i = 1) and assume label independence.

* :func:`fm` -- the O(m^2) dynamic program of Ye et al. (2012): exact under independence.
* :func:`jansche` -- Jansche's (2007) exact method (Section 4.1): each of the m + 1 candidate
  predictions (top-k marginals, Theorem 4.1) is scored by the exact distribution of its counts of
  true positives and false negatives, O(m^3) per instance. Used as an independent check of fm.
* :func:`lewis` -- Lewis' (1995) approximation of E[F] (Section 4.1) used to choose k.
* :func:`marginal_modes` -- the Hamming-loss optimal prediction (threshold 0.5).
* :func:`expected_f_independent` -- exact E[F(Y, h)] under independence, O(m^2).

All work in probability space (no products of odds p/(1-p), no normalising constants), so they
are stable for m = 10,000 and for p_i in {0, 1}. Candidates of size k are the k labels with the
largest p_i; ties between equal p_i go to the lowest label index, ties between sizes to the
smaller size (the empty prediction first).
"""

from __future__ import annotations

import logging

import numpy as np

from fmeasure._arrays import binary_input, chunks, first_max, marginals_input, out
from fmeasure.inference._fm_kernel import fm_values_rows, triangle_bytes

__all__ = ["fm", "jansche", "lewis", "marginal_modes", "expected_f_independent"]

log = logging.getLogger(__name__)


def _sorted(p):
    order = np.argsort(-p, axis=1, kind="stable")
    return order, np.take_along_axis(p, order, axis=1)


def _h_from_order(order, k, m):
    n = order.shape[0]
    h = np.zeros((n, m), dtype=np.int8)
    h[np.arange(n)[:, None], order] = np.arange(m)[None, :] < k[:, None]
    return h


#: Most memory (bytes) for the compiled program's forward states (:mod:`._fm_kernel`): up to about
#: 4,000 labels; beyond, the vectorised program with checkpoints (the same values).
_KERNEL_BYTES = 2**27


def _fm_values(q, c=None):
    """E_k for k = 0..m under independence, q sorted descending, shape (n, m) -> (n, m + 1).

    The compiled program (:func:`._fm_kernel.fm_values_rows`) when its states fit in
    ``_KERNEL_BYTES`` and no checkpoint interval ``c`` is asked for; else
    :func:`_fm_values_vectorised`. Both give the same numbers bit for bit on a batch of instances
    (on one instance alone the vectorised form can differ in the last bits; see :mod:`._fm_kernel`).
    """
    n, m = q.shape
    if c is None and m > 0 and triangle_bytes(m) <= _KERNEL_BYTES:
        E = np.empty((n, m + 1))
        fm_values_rows(np.ascontiguousarray(q, dtype=np.float64), E)
        return E
    return _fm_values_vectorised(q, c)


def _fm_values_vectorised(q, c=None):
    """E_k for k = 0..m under independence, q sorted descending, shape (n, m) -> (n, m + 1).

    E_k = sum_a A_k(a) * 2a * G_k(k + a), where A_k is the distribution of the number of
    positives among the top k labels (forward Poisson-binomial recursion) and
    G_k(t) = E[1 / (t + B_k)], B_k the number of positives among labels k+1..m, obtained by the
    backward recursion G_{k-1}(t) = (1 - q_k) G_k(t) + q_k G_k(t + 1), G_m(t) = 1/t.
    Both recursions only form convex combinations of numbers in [0, 1], so nothing overflows and
    underflow only affects terms below 1e-308. Forward states are checkpointed every c steps
    (c = m if all of them fit in memory) so that memory is O(n m (m / c + c)).
    Arrays are laid out (position, instance) so that every update is a contiguous block.
    """
    n, m = q.shape
    qt = np.ascontiguousarray(q.T)  # (m, n)
    E = np.zeros((m + 1, n))
    E[0] = np.prod(1.0 - qt, axis=0)  # P(y = 0)
    if c is None:
        c = m if (m + 2) ** 2 * n * 8 <= 2**27 else max(1, int(np.ceil(np.sqrt(m))))
    log.debug("fm DP: %d instances, m = %d, checkpoint every %d steps", n, m, c)

    def step_a(A, k):  # A_{k+1} from A_k (A holds at least k + 2 rows)
        p = qt[k]
        d = A[0 : k + 1] - A[1 : k + 2]
        d *= p
        A[1 : k + 2] += d
        A[0] -= A[0] * p

    # forward pass: checkpoints of A_k at k = 0, c, 2c, ... (< m)
    ck = {}
    A = np.zeros((m + 1, n))
    A[0] = 1.0
    for k in range(m):
        if k % c == 0:
            ck[k] = A[: k + 1].copy()
        if k + c >= m and k % c == 0:
            break
        step_a(A, k)
    # backward pass over blocks, G_k(t) for t = 0..2m (t = 0 unused)
    t = np.arange(2 * m + 1, dtype=np.float64)
    G = np.repeat(np.divide(1.0, t, out=np.zeros_like(t), where=t > 0)[:, None], n, axis=1)
    twoa = 2.0 * np.arange(m + 1, dtype=np.float64)[:, None]
    for b0 in sorted(ck, reverse=True):
        b1 = min(b0 + c, m)
        # recompute A_k for k = b0..b1, storing 2a * A_k(a)
        A = np.zeros((b1 + 1, n))
        A[: b0 + 1] = ck[b0]
        blk = [None] * (b1 - b0 + 1)
        for k in range(b0, b1 + 1):
            if k > b0:
                step_a(A, k - 1)
            blk[k - b0] = A[: k + 1] * twoa[: k + 1]
        for k in range(b1, b0, -1):  # k = b0 belongs to the block below
            E[k] = np.einsum("an,an->n", blk[k - b0], G[k : 2 * k + 1])
            # G_{k-1} from G_k: label k (1-based) joins the "rest"; needed on t <= 2k - 2
            p = qt[k - 1]
            hi = 2 * k - 1
            d = G[1 : hi + 1] - G[:hi]
            d *= p
            G[:hi] += d
    return np.ascontiguousarray(E.T)


def fm(p, allow_empty=True):
    r"""F-measure maximizer under label independence: the O(m^2) DP of Ye et al. (2012).

    Parameters
    ----------
    p : array-like of shape (m,) or (n, m)
        Marginal probabilities P(y_i = 1).
    allow_empty : bool, default True
        False restricts the maximisation to non-empty predictions (k >= 1): the best top-k
        prediction with at least one label, even where the empty one has a larger expected F.

    Returns
    -------
    h : ndarray of int8, shape (m,) or (n, m)
        The top-k labels by marginal for the best k (possibly k = 0).
    value : float or ndarray of shape (n,)
        Exact expected F-measure of ``h`` if the labels are independent.

    See Also
    --------
    gfm_from_samples : The F-optimal prediction for any joint distribution (GFM), from a sample.
    jansche : The same prediction by Jansche's method (slower).
    marginal_modes : The labels with marginal above 1/2 (optimal for the Hamming loss, not for F).

    Notes
    -----
    Under independence, :math:`P(\mathbf{y}) = \prod_i p_i^{y_i} (1 - p_i)^{1 - y_i}`, the
    F-optimal prediction is the :math:`k` labels of largest marginal for some :math:`k` (Lewis'
    Theorem 4.1 in the paper); the dynamic program computes the expected F-measure of all
    :math:`m + 1` candidates in :math:`O(m^2)`.

    Examples
    --------
    >>> h, v = fm([0.9, 0.2, 0.6])
    >>> h, round(v, 4)
    (array([1, 0, 1], dtype=int8), 0.7844)
    """
    P, single = marginals_input(p)
    n, m = P.shape
    H = np.empty((n, m), dtype=np.int8)
    V = np.empty(n)
    for sl in chunks(n, 8 * (2 * m + 1) * 6 + 8 * (m + 1) * (m + 1)):
        order, q = _sorted(P[sl])
        E = _fm_values(q)
        if not allow_empty:
            E[:, 0] = -np.inf
        k = first_max(E)
        V[sl] = E[np.arange(len(k)), k]
        H[sl] = _h_from_order(order, k, m)
    return out(H, V, single)


def _pb(q):
    """Poisson-binomial pmf of the number of successes, q (n, L) -> (n, L + 1)."""
    n, L = q.shape
    A = np.zeros((n, L + 1))
    A[:, 0] = 1.0
    for j in range(L):
        p = q[:, j : j + 1]
        A[:, 1 : j + 2] = A[:, 1 : j + 2] * (1 - p) + A[:, 0 : j + 1] * p
        A[:, 0:1] *= 1 - p
    return A


def jansche(p):
    """Jansche's (2007) exact F-measure maximizer under label independence (Section 4.1).

    For every k = 0..m the candidate is the top-k labels by marginal (Lewis' Theorem 4.1);
    its expected F-measure is computed from the exact joint distribution of the number a of true
    positives (among the k predicted labels) and b of false negatives (among the other m - k):
    ``E = sum_{a, b} P(a) P(b) 2a / (k + a + b)``. Polynomial, O(m^3) per instance: a slower,
    independent check of :func:`fm` (they agree to rounding).

    Parameters
    ----------
    p : array-like of shape (m,) or (n, m)

    Returns
    -------
    h, value : as for :func:`fm`.

    Examples
    --------
    >>> h, v = jansche([0.9, 0.2, 0.6])
    >>> h, round(v, 4)
    (array([1, 0, 1], dtype=int8), 0.7844)
    """
    P, single = marginals_input(p)
    n, m = P.shape
    order, q = _sorted(P)
    E = np.empty((n, m + 1))
    E[:, 0] = np.prod(1 - q, axis=1)
    for k in range(1, m + 1):
        A = _pb(q[:, :k])  # (n, k + 1)
        B = _pb(q[:, k:])  # (n, m - k + 1)
        a = np.arange(k + 1, dtype=np.float64)[:, None]
        b = np.arange(m - k + 1, dtype=np.float64)[None, :]
        F = 2 * a / (k + a + b)
        E[:, k] = np.einsum("na,ab,nb->n", A, F, B)
    k = first_max(E)
    return out(_h_from_order(order, k, m), E[np.arange(n), k], single)


def expected_f_independent(p, h):
    """Exact E[F(Y, h)] when the labels are independent with marginals p, in O(m^2).

    Parameters
    ----------
    p : array-like of shape (m,) or (n, m)
    h : array-like of shape (m,) or (n, m), values in {0, 1}

    Returns
    -------
    float or ndarray of shape (n,)

    Examples
    --------
    >>> round(expected_f_independent([0.9, 0.2, 0.6], [1, 0, 1]), 4)
    0.7844
    """
    P, single = marginals_input(p)
    Hh = binary_input(h, "h", (1, 2))
    if Hh.ndim == 1:
        Hh = Hh[None]
    if Hh.shape != P.shape:
        raise ValueError(f"h: shape {Hh.shape} does not match p shape {P.shape}")
    n, m = P.shape
    V = np.empty(n)
    for sl in chunks(n, 8 * (2 * m + 2) * 6):
        q, hh = P[sl], Hh[sl].astype(bool)
        k = hh.sum(axis=1)
        qin = np.where(hh, q, 0.0)
        qout = np.where(hh, 0.0, q)
        A = _pb(qin)  # positives among predicted labels, (n, m + 1)
        t = np.arange(2 * m + 2, dtype=np.float64)
        G = np.broadcast_to(np.divide(1.0, t, out=np.zeros_like(t), where=t > 0), (len(k), 2 * m + 2)).copy()
        for j in range(m):  # G(t) = E[1 / (t + B)], B positives among the other labels
            pj = qout[:, j : j + 1]
            G[:, :-1] = G[:, :-1] * (1 - pj) + G[:, 1:] * pj
        a = np.arange(m + 1)
        tt = np.minimum(k[:, None] + a[None, :], 2 * m + 1)
        V[sl] = np.einsum("na,na->n", A * (2.0 * a), np.take_along_axis(G, tt, axis=1))
        V[sl] = np.where(k == 0, A[:, 0] * np.prod(1 - qout, axis=1), V[sl])
    return float(V[0]) if single else V


def lewis(p):
    """Lewis' (1995) approximate F-maximizer under independence (Section 4.1).

    The size k is chosen with Lewis' approximation ``E[F] ~ 2 sum_{i in h} p_i / (sum_i p_i + k)``
    for k >= 1 and the exact ``prod_i (1 - p_i)`` for k = 0; the prediction is the top-k labels.

    Parameters
    ----------
    p : array-like of shape (m,) or (n, m)

    Returns
    -------
    h : ndarray of int8
    value : float or ndarray
        The exact expected F-measure of ``h`` under independence (not the approximation).

    Examples
    --------
    >>> lewis([0.9, 0.2, 0.6])[0]
    array([1, 0, 1], dtype=int8)
    """
    P, single = marginals_input(p)
    n, m = P.shape
    order, q = _sorted(P)
    S = np.cumsum(q, axis=1)
    approx = np.concatenate([np.prod(1 - q, axis=1)[:, None], 2 * S / (S[:, -1:] + np.arange(1, m + 1))], axis=1)
    k = first_max(approx)
    h = _h_from_order(order, k, m)
    v = expected_f_independent(P, h)
    return out(h, v, single)


def marginal_modes(p):
    """Marginal modes: h_i = 1 iff p_i > 0.5, the Hamming-loss optimal prediction (Section 3.1).

    At p_i = 0.5 both choices are Hamming-optimal; we predict 0.

    Parameters
    ----------
    p : array-like of shape (m,) or (n, m)

    Returns
    -------
    h : ndarray of int8
    value : float or ndarray
        Exact expected F-measure of ``h`` under independence.

    Examples
    --------
    >>> marginal_modes([0.9, 0.2, 0.6])[0]
    array([1, 0, 1], dtype=int8)
    """
    P, single = marginals_input(p)
    h = (P > 0.5).astype(np.int8)
    return out(h, expected_f_independent(P, h), single)
