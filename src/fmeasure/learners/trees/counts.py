"""Count vectors of the F-measure trees: what a node needs to know about its label vectors.

GFM needs only P (``P[i, s-1] = P(y_i = 1, s_y = s)``) and P(y = 0) (paper Section 5). Every
training example contributes a fixed count vector (:func:`.label_contributions`): a one at
(i, s_y) for each of its relevant labels i, a one to the "empty" counter if s_y = 0, and a one to
the size counter. A group of examples (a node, one side of a candidate split, a pooled leaf
neighbourhood) is summarised by the sum of its examples' vectors, from which
:func:`.gfm_from_counts` gives the GFM prediction and value and :func:`.gfm_values` the value alone
(the split search's inner loop).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fmeasure import inference
from fmeasure._arrays import TIE_TOL, chunks
from fmeasure.blas import single_threaded_blas
from fmeasure.inference._kernels import gfm_count_values, gfm_split_values

__all__ = ["gfm_from_counts", "gfm_values", "label_contributions", "split_values"]

#: bytes of the largest temporary of one batch of :func:`gfm_from_counts`
BATCH_BYTES = 16 * 2**20
#: sizes whose bound reaches the best value less this (in units of the mean F) are evaluated
_MARGIN = 4 * TIE_TOL


def label_contributions(Y, smax=None):
    """Per-example count vectors whose sums give P (as counts), P(y = 0) (as a count) and n.

    Parameters
    ----------
    Y : array-like of shape (n, m), 0/1
    smax : int, optional
        Largest label count kept as a column (default: the largest count in ``Y``, at least 1).

    Returns
    -------
    Z : scipy.sparse.csr_array of shape (n, m * smax + 2)
        Row j has a one at ``i * smax + s_j - 1`` for every relevant label i of example j, a one at
        column ``m * smax`` if ``s_j = 0``, and a one at the last column (the example count).
    smax : int

    Examples
    --------
    >>> Z, S = label_contributions([[1, 1], [0, 0], [0, 1]])
    >>> S, Z.toarray().astype(int).tolist()
    (2, [[0, 1, 0, 1, 0, 1], [0, 0, 0, 0, 1, 1], [0, 0, 1, 0, 0, 1]])
    """
    Y = np.asarray(Y)
    n, m = Y.shape
    s = Y.sum(axis=1).astype(np.int64)
    top = max(1, int(s.max()) if n else 1)
    smax = top if smax is None else int(smax)
    if smax < top:
        raise ValueError(f"smax: {smax} is below the largest label count {top}")
    rows, labels = np.nonzero(Y)
    cols = labels * smax + s[rows] - 1
    empty = np.flatnonzero(s == 0)
    r = np.concatenate([rows, empty, np.arange(n)])
    c = np.concatenate([cols, np.full(len(empty), m * smax), np.full(n, m * smax + 1)])
    Z = sp.csr_array((np.ones(len(r)), (r, c)), shape=(n, m * smax + 2))
    Z.sum_duplicates()
    return Z, smax


def gfm_from_counts(C, m, smax):
    """GFM predictions and values from count vectors (sums of :func:`.label_contributions` rows).

    Batched over the rows of ``C`` (e.g. every node of a tree, or every query's pooled leaves)
    in blocks of bounded memory.

    Parameters
    ----------
    C : ndarray or sparse matrix of shape (k, m * smax + 2)
        Count vectors; the last column (the number of examples) must be positive.
    m, smax : int

    Returns
    -------
    h : ndarray of int8, shape (k, m)
    value : ndarray of shape (k,)
        The best mean F-measure on each group of examples (GFM on its empirical distribution).

    Examples
    --------
    >>> Z, S = label_contributions([[1, 1], [0, 0], [0, 1]])
    >>> h, v = gfm_from_counts(Z.sum(axis=0)[None, :], 2, S)
    >>> h.tolist(), round(float(v[0]), 4)
    ([[0, 1]], 0.5556)
    """
    k = C.shape[0]
    H = np.zeros((k, m), dtype=np.int8)
    V = np.empty(k)
    S = max(1, min(int(smax), m))  # the counts that can hold mass: P's other columns are zero
    for sl in chunks(k, 8 * m * S, budget=BATCH_BYTES):
        Cc = C[sl]
        Cc = np.asarray(Cc.toarray() if sp.issparse(Cc) else Cc, dtype=np.float64)
        n = Cc[:, -1]
        P = np.zeros((len(Cc), m, S))
        P[:, :, :smax] = (Cc[:, : m * smax] / n[:, None]).reshape(len(Cc), m, smax)
        H[sl], V[sl] = inference.gfm_from_p(P, Cc[:, m * smax] / n)
    return H, V


@single_threaded_blas
def gfm_values(C, m, smax, columns=None):
    """Best mean F (the GFM value only) of many groups of examples given by count vectors.

    The split search's inner loop: the same value as :func:`gfm_from_counts` (which returns the
    maximiser too), computed on the labels and counts that occur, without input validation
    (counts are exact), by a compiled kernel (``fmeasure.inference._kernels.gfm_count_values``).
    ``E_k`` is the sum of the k largest entries of column k of Delta; sizes are evaluated in order
    of their upper bound until no bound reaches the best value, so the cost per group is
    O(r S + c r (S + log r)) for r occurring labels, counts up to S and c evaluated sizes (at most
    r, few when a group's label sets are alike).

    Parameters
    ----------
    C : ndarray of shape (k, w + 2)
        Count vectors: w (label, count) columns, then the empty count and the example count.
    m, smax : int
    columns : ndarray of shape (w,), optional
        Flat index ``label * smax + count - 1`` of each of the w columns (default: all
        ``m * smax`` of them in order, as :func:`label_contributions` makes them).

    Returns
    -------
    value : ndarray of shape (k,)

    Examples
    --------
    >>> Z, S = label_contributions([[1, 1], [0, 0], [0, 1]])
    >>> gfm_values(Z.toarray()[[0, 2]], 2, S).tolist()    # {(1, 1)} and {(0, 1)} alone: F = 1
    [1.0, 1.0]
    """
    C = np.asarray(C, dtype=np.float64)
    n = np.ascontiguousarray(C[:, -1])
    w = C.shape[1] - 2
    columns = np.arange(m * smax) if columns is None else np.asarray(columns)
    used = np.flatnonzero((C[:, :w] > 0).any(axis=0))  # counts are non-negative
    used = used[np.argsort(columns[used], kind="stable")]  # label by label, counts increasing
    columns = columns[used]
    if not len(columns):
        return C[:, -2] / n  # no group has a label: the empty prediction
    li, size, r, S = _layout(columns, smax)
    out = np.empty(len(C))
    gfm_count_values(
        np.ascontiguousarray(C[:, used]),
        li,
        size,
        r,
        S,
        np.ascontiguousarray(C[:, -2]),
        n,
        _MARGIN,
        out,
    )
    return out


def split_values(L, rows, total, smax, columns):
    """Best mean F of the left and right parts of candidate splits, from one node's left counts.

    The same numbers as ``gfm_values(L[rows], ...)`` and ``gfm_values(total - L[rows], ...)``,
    computed by one compiled pass (``fmeasure.inference._kernels.gfm_split_values``) that
    reads each candidate's row once and forms neither part as an array.

    Parameters
    ----------
    L : ndarray of shape (k, w + 2)
        Left-part count vectors (float32 or float64; counts are exact integers in either).
    rows : ndarray of int
        Rows of ``L`` to score.
    total : ndarray of shape (w + 2,)
        The node's count vector.
    smax : int
    columns : ndarray of shape (w,)
        Flat index ``label * smax + count - 1`` of each of the w columns, increasing.

    Returns
    -------
    left, right : ndarray of shape (len(rows),)

    Examples
    --------
    >>> Z, S = label_contributions([[1, 1], [0, 0], [0, 1]])
    >>> C = Z.toarray()
    >>> left, right = split_values(C[[0]].cumsum(axis=0), np.array([0]), C.sum(axis=0), S, np.arange(4))
    >>> left.tolist(), right.round(4).tolist()     # {[1, 1]} | {[0, 0], [0, 1]}
    ([1.0], [0.5])
    """
    li, size, r, S = _layout(columns, smax)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    out = np.empty((2, len(rows)))
    if len(rows):
        gfm_split_values(
            np.ascontiguousarray(L), rows, np.ascontiguousarray(total, dtype=np.float64), li, size, r, S, _MARGIN, out
        )
    return out[0], out[1]


def _layout(columns, smax):
    """The kernels' view of (label, count) columns ``label * smax + count - 1`` (label by label,
    counts increasing): each column's label renumbered 0..r-1, its count - 1, r and the count bound S."""
    columns = np.asarray(columns)
    labels, li = np.unique(columns // smax, return_inverse=True)
    size = (columns % smax).astype(np.int64)
    return li.astype(np.int64), size, max(1, len(labels)), int(size.max()) + 1 if len(size) else 1
