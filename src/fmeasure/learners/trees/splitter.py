"""Split search of the F-measure trees: the best threshold of a node under the paper's criterion

::

    Q = |N_L| / |N| F(N_L) + |N_R| / |N| F(N_R),   F(A) = max_h (1 / |A|) sum_{y in A} F(y, h).

How a node is scanned. Adding an example to the left part touches only the rows of its relevant
labels of the count vector (:mod:`.counts`), as the paper describes; all these updates are done
at once: the count vectors of the node's examples are summed per (attribute, bin) by one sparse
product (O(nnz(X_N) s_bar) for a node N with mean label count s_bar), and a cumulative sum over
each attribute's bins gives the left part's counts at every candidate threshold (the right part
is the node total minus the left part).

Which candidates are scored. Let ``S_L(c) = |N_L| F(N_L)`` and ``S_R(c) = |N_R| F(N_R)`` at
candidate c, so that ``|N| Q(c) = S_L(c) + S_R(c)``. Both are sums of the best F over a set of
examples, so they only grow when examples are added: for candidates a < c < b of one attribute,
S_L(c) <= S_L(b) and S_R(c) <= S_R(a); and moving one example from one part to the other changes
``|N| Q`` by at most 1. So ::

    |N| Q(c) <= min(S_L(b) + S_R(a),  |N| Q(a) + n_L(c) - n_L(a),  |N| Q(b) + n_L(b) - n_L(c)).

The search scores every ``COARSE``-th candidate of each attribute and its first and last ones,
then, round after round, the middle candidate of every gap between scored candidates whose bound
still reaches the best Q found so far (minus a margin far above round-off, far below any real
difference), until no such gap is left. A candidate is left unscored only when its bound proves
that it is not within the tie tolerance of the maximum, so the chosen split is the one the
exhaustive search chooses: ties between candidates go to the lowest attribute index, then the
lowest threshold. Each round scores both parts of its candidates in one compiled pass
(:func:`~.counts.split_values`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fmeasure._arrays import TIE_TOL
from fmeasure.learners.trees.binning import BinnedData
from fmeasure.learners.trees.counts import label_contributions, split_values

__all__ = ["COARSE", "best_split", "left_counts", "node_histogram", "split_statistics"]

#: Every COARSE-th candidate of each attribute is scored first (1: score every candidate).
COARSE = 8
#: A node with at most this many candidates is scored exhaustively in one batch.
SMALL = 48
#: target size (bytes) of a node's dense histogram block; attributes are processed in blocks
BLOCK_BYTES = 32 * 2**20
#: bounds are compared with the best Q minus this margin (in units of Q)
MARGIN = 1e-9


def node_histogram(binned, Znode, gbin, pos, features):
    """Occupied bins of the allowed attributes and their count vectors for one node.

    Parameters
    ----------
    binned : BinnedData
    Znode : sparse matrix of shape (n_node, w)
        The node's count vectors (see :func:`~.label_contributions`).
    gbin, pos : ndarray
        Global bin and node position of every stored entry of the node's rows
        (:meth:`.BinnedData.node_bins`).
    features : ndarray of bool, shape (d,)
        Attributes to search.

    Returns
    -------
    occ, feat : ndarray
        Global ids of the occupied bins (sorted; each allowed sparse attribute's zero bin
        included) and their attributes.
    H : scipy.sparse.csr_array of shape (len(occ), w)
        Counts of the node's stored entries per bin (the zero bins are filled in later).
    """
    keep = features[binned.bin_feature[gbin]]
    gbin, pos = gbin[keep], pos[keep]
    zero_bins = binned.offsets[:-1][features] + binned.zero_code[features]
    occ = np.union1d(gbin, zero_bins)
    local = np.searchsorted(occ, gbin)
    G = sp.csr_array((np.ones(len(gbin)), (local, pos)), shape=(len(occ), Znode.shape[0]))
    return occ, binned.bin_feature[occ], sp.csr_array(G @ sp.csr_array(Znode))


def left_counts(H, occ, feat, total, binned, min_samples_leaf):
    """Left-part counts at every occupied bin of whole attributes and the valid candidates.

    ``H`` (bins x width, dense; changed in place) holds the counts of the node's stored entries
    per bin; each attribute's zero bin gets the rest of the node (nothing for a dense
    attribute). Candidate bin b means "bins <= b go left"; it is kept if it is not the
    attribute's last occupied bin and leaves at least ``min_samples_leaf`` examples on each side.

    Returns
    -------
    L : ndarray (bins x width)
        Left-part counts.
    nL : ndarray (bins,)
        Left-part sizes.
    cand : ndarray of int
        Rows of ``L`` that are valid candidates, in (attribute, threshold) order.
    """
    starts = np.flatnonzero(np.r_[True, feat[1:] != feat[:-1]])
    f = feat[starts]
    seg = np.add.reduceat(H, starts, axis=0)
    zero_rows = np.searchsorted(occ, binned.offsets[f] + binned.zero_code[f])
    H[zero_rows] += total[None, :] - seg
    C = np.cumsum(H, axis=0)
    before = np.zeros_like(seg)
    before[1:] = C[starts[1:] - 1]
    seg_id = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(feat)]))
    L = C - before[seg_id]
    nL = L[:, -1]
    n = total[-1]
    ok = (H[:, -1] > 0) & (nL >= min_samples_leaf) & (n - nL >= min_samples_leaf)
    return L, nL, np.flatnonzero(ok)


def _blocks(bin_feature, width, budget=BLOCK_BYTES):
    """Split a node's occupied bins into blocks of whole attributes, ~``budget`` bytes each."""
    nb = len(bin_feature)
    starts = np.flatnonzero(np.r_[True, bin_feature[1:] != bin_feature[:-1]])
    step = max(1, int(budget // (8 * width)))
    block = starts // step
    cuts = starts[np.r_[True, block[1:] != block[:-1]]]
    bounds = np.r_[cuts, nb]
    for b0, b1 in zip(bounds[:-1], bounds[1:]):
        yield int(b0), int(b1)


def _search(score, nl, feat, n_node, best_before):
    """Scores (S_L, S_R) of the candidates that the bounds cannot rule out (NaN for the others).

    ``score(idx)`` returns (S_L, S_R) at candidates ``idx``; ``nl`` are their left sizes,
    ``feat`` their attributes (candidates of one attribute are consecutive, in threshold
    order), ``best_before`` the best Q of earlier blocks. See the module docstring.
    """
    k = len(nl)
    SL, SR = np.full(k, np.nan), np.full(k, np.nan)
    done = np.zeros(k, dtype=bool)
    if k <= SMALL or COARSE <= 1:
        todo = np.arange(k)
    else:
        start = np.r_[True, feat[1:] != feat[:-1]]
        last = np.r_[feat[1:] != feat[:-1], True]
        first_idx = np.maximum.accumulate(np.where(start, np.arange(k), 0))
        todo = np.flatnonzero(((np.arange(k) - first_idx) % COARSE == 0) | last)
    ar = np.arange(k)
    while len(todo):
        SL[todo], SR[todo] = score(todo)
        done[todo] = True
        if done.all():
            break
        NQ = SL + SR
        target = max(np.nanmax(NQ), best_before * n_node) - MARGIN * n_node
        prev = np.maximum.accumulate(np.where(done, ar, 0))
        nxt = np.minimum.accumulate(np.where(done, ar, k - 1)[::-1])[::-1]
        un = np.flatnonzero(~done)
        a, b = prev[un], nxt[un]
        bound = np.minimum(SL[b] + SR[a], np.minimum(NQ[a] + (nl[un] - nl[a]), NQ[b] + (nl[b] - nl[un])))
        open_ = un[bound >= target]
        if not len(open_):
            break
        # one candidate per gap between scored candidates: the middle one of those still open
        _, first, count = np.unique(prev[open_], return_index=True, return_counts=True)
        todo = open_[first + count // 2]
    return SL, SR


def best_split(binned, Znode, total, gbin, pos, m, smax, min_samples_leaf, features):
    """Best split of a node.

    Parameters
    ----------
    binned : BinnedData
    Znode : sparse matrix of shape (n_node, m * smax + 2)
        Count vectors of the node's examples.
    total : ndarray of shape (m * smax + 2,)
        Their sum.
    gbin, pos : ndarray
        :meth:`.BinnedData.node_bins` of the node's rows.
    m, smax, min_samples_leaf : int
    features : ndarray of bool, shape (d,)
        Attributes to search.

    Returns
    -------
    None, or (Q, attribute, global bin, F(N_L), F(N_R)) of the best split.
    """
    n_node = total[-1]
    # only the (label, count) columns that occur in the node
    cols = np.flatnonzero(total[: m * smax] > 0)
    keep = np.r_[cols, m * smax, m * smax + 1]
    Zk, total = sp.csr_array(Znode)[:, keep], total[keep]
    occ, feat, Hs = node_histogram(binned, Zk, gbin, pos, features)
    best = None
    # counts are integers: float32 holds them exactly below 2^24 and halves the memory traffic
    dtype = np.float32 if n_node < 2**24 else np.float64
    for b0, b1 in _blocks(feat, Zk.shape[1]):
        H = Hs[b0:b1].astype(dtype).toarray()
        L, nL, cand = left_counts(H, occ[b0:b1], feat[b0:b1], total, binned, min_samples_leaf)
        if len(cand) == 0:
            continue
        nl = nL[cand]

        def score(idx):
            vl, vr = split_values(L, cand[idx], total, smax, cols)
            return nl[idx] * vl, (n_node - nl[idx]) * vr

        SL, SR = _search(score, nl, feat[b0:b1][cand], n_node, -np.inf if best is None else best[0])
        Q = np.where(np.isnan(SL), -np.inf, (SL + SR) / n_node)
        i = int(np.argmax(Q >= Q.max() - TIE_TOL))
        if best is None or Q[i] > best[0] + TIE_TOL:
            fl, fr = SL[i] / nl[i], SR[i] / (n_node - nl[i])
            best = (float(Q[i]), int(feat[b0 + cand[i]]), int(occ[b0 + cand[i]]), float(fl), float(fr))
    return best


def split_statistics(x, Y, max_bins=None):
    """The left part's statistics at every candidate threshold of one attribute (for inspection).

    Computed as the tree computes them (cumulative sums of per-example counts over the bins).

    Parameters
    ----------
    x : array-like of shape (n,)
    Y : array-like of shape (n, m), 0/1
    max_bins : int or None

    Returns
    -------
    thresholds : ndarray of shape (k,)
        Candidate thresholds (``x <= t`` goes left), increasing; one per occupied bin but the last.
    P_left : ndarray of shape (k, m, m)
        P estimated on the left part (``P[i, s-1]`` = fraction of the left examples with label i
        and s labels).
    p_zero_left : ndarray of shape (k,)
    n_left : ndarray of shape (k,)

    Examples
    --------
    >>> thr, P, p0, n_left = split_statistics([0.0, 1.0, 2.0], [[1, 0], [0, 0], [1, 1]])
    >>> thr.tolist(), p0.tolist(), n_left.tolist()
    ([0.5, 1.5], [0.0, 0.5], [1, 2])
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1, 1)
    Y = np.asarray(Y)
    m = Y.shape[1]
    Z, smax = label_contributions(Y)
    binned = BinnedData(x, max_bins)
    total = np.asarray(Z.sum(axis=0)).ravel()
    gbin, pos = binned.node_bins(np.arange(len(x)))
    occ, feat, H = node_histogram(binned, Z, gbin, pos, np.ones(1, bool))
    L, nL, cand = left_counts(H.toarray(), occ, feat, total, binned, 1)
    Lc = L[cand]
    P = np.zeros((len(cand), m, m))
    P[:, :, :smax] = (Lc[:, : m * smax] / Lc[:, -1:]).reshape(len(cand), m, smax)
    edges = binned.edges[0]
    return edges[occ[cand]], P, Lc[:, m * smax] / Lc[:, -1], Lc[:, -1].astype(np.int64)
