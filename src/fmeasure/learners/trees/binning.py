"""Candidate thresholds of the F-measure trees and the attributes coded by bin.

Candidate thresholds are fixed once per attribute at ``fit`` (as histogram-based tree learners
do): midpoints between consecutive distinct training values, thinned to at most ``max_bins``
bins by quantiles when an attribute has more distinct values. ``x <= threshold`` goes left.
Sparse attributes are binned with their implicit zeros, and a node's histogram only visits the
stored entries of its rows (the zero bin gets the node total minus the other bins), so a sparse
X is never densified.

Memory: the codes are one integer per stored entry of X (n d for a dense X).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["BinnedData", "bin_edges"]


def bin_edges(x, max_bins=None, n_total=None):
    """Candidate thresholds of one attribute: midpoints between consecutive distinct values.

    Parameters
    ----------
    x : ndarray of shape (k,)
        The attribute's values (for a sparse column: its stored values only).
    max_bins : int or None
        At most this many bins (``max_bins - 1`` thresholds), chosen at the quantiles of the
        values; ``None`` keeps every distinct value.
    n_total : int, optional
        Number of examples when ``x`` holds only the stored values of a sparse column; the
        other ``n_total - len(x)`` values are zeros.

    Returns
    -------
    edges : ndarray, increasing

    Examples
    --------
    >>> bin_edges(np.array([3.0, 1.0, 2.0, 2.0]))
    array([1.5, 2.5])
    """
    vals, counts = np.unique(np.asarray(x, dtype=np.float64), return_counts=True)
    if n_total is not None and n_total > len(x):
        pos = np.searchsorted(vals, 0.0)
        if pos < len(vals) and vals[pos] == 0.0:
            counts[pos] += n_total - len(x)
        else:
            vals = np.insert(vals, pos, 0.0)
            counts = np.insert(counts, pos, n_total - len(x))
    mids = (vals[:-1] + vals[1:]) / 2.0
    if max_bins is None or len(vals) <= max_bins:
        return mids
    below = np.cumsum(counts)[:-1]  # examples <= each midpoint
    targets = counts.sum() * np.arange(1, max_bins) / max_bins
    idx = np.unique(np.clip(np.searchsorted(below, targets), 0, len(mids) - 1))
    return mids[idx]


class BinnedData:
    """Attributes coded by bin: a CSR matrix of global bin ids + 1 and each attribute's zero bin.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
    max_bins : int or None
        See :func:`bin_edges`.

    Attributes
    ----------
    codes : scipy.sparse.csr_array of shape (n, d)
        Global bin id + 1 of every stored entry (global ids: attribute j's bins are
        ``offsets[j] .. offsets[j + 1] - 1``).
    edges : list of ndarray
        Each attribute's thresholds.
    nbins, offsets, zero_code, bin_feature, n_bins_total
        Bins per attribute, their global offsets, the bin of the value 0 per attribute, the
        attribute of every global bin, and the number of global bins.
    """

    def __init__(self, X, max_bins):
        n, d = X.shape
        edges = []
        if sp.issparse(X):
            Xc = sp.csc_array(X)
            Xc.sort_indices()
            code_data = np.empty(Xc.nnz, dtype=np.int64)
            zero_code = np.empty(d, dtype=np.int64)
            for j in range(d):
                sl = slice(Xc.indptr[j], Xc.indptr[j + 1])
                e = bin_edges(Xc.data[sl], max_bins, n_total=n)
                edges.append(e)
                code_data[sl] = np.searchsorted(e, Xc.data[sl], side="left")
                zero_code[j] = np.searchsorted(e, 0.0, side="left")
            nbins = np.array([len(e) + 1 for e in edges])
            offsets = np.concatenate([[0], np.cumsum(nbins)])
            feat = np.repeat(np.arange(d), np.diff(Xc.indptr))
            G = sp.csc_array((code_data + offsets[feat] + 1, Xc.indices, Xc.indptr), shape=(n, d))
            self.codes = sp.csr_array(G)
        else:
            codes = np.empty((n, d), dtype=np.int64)
            for j in range(d):
                e = bin_edges(X[:, j], max_bins)
                edges.append(e)
                codes[:, j] = np.searchsorted(e, X[:, j], side="left")
            zero_code = np.zeros(d, dtype=np.int64)  # no implicit entries: the fill adds 0
            nbins = np.array([len(e) + 1 for e in edges])
            offsets = np.concatenate([[0], np.cumsum(nbins)])
            self.codes = sp.csr_array(codes + offsets[:-1][None, :] + 1)
        self.codes.sort_indices()
        self.edges = edges
        self.nbins = nbins
        self.offsets = offsets
        self.zero_code = zero_code
        self.bin_feature = np.repeat(np.arange(d), nbins)
        self.n_bins_total = int(offsets[-1])

    def subset(self, rows):
        """The same binning on the rows ``rows`` (which may repeat, as in a bootstrap sample)."""
        out = object.__new__(BinnedData)
        out.__dict__.update({k: v for k, v in self.__dict__.items() if k != "codes"})
        out.codes = self.codes[rows]
        return out

    def node_bins(self, rows):
        """(global bin, node position) of every stored entry of the node's rows."""
        sub = self.codes[rows]
        pos = np.repeat(np.arange(len(rows)), np.diff(sub.indptr))
        return sub.data.astype(np.int64) - 1, pos
