"""F-measure decision trees and their bagging (paper Section 7.1.2).

A binary tree whose splits maximise

    Q = |N_L| / |N| F(N_L) + |N_R| / |N| F(N_R),   F(A) = max_h (1 / |A|) sum_{y in A} F(y, h),

the best mean instance-wise F-measure reachable on a node's training label vectors, i.e. the
value of the General F-measure Maximizer (GFM) on the node's empirical distribution. Leaves
predict that maximiser. :class:`BaggedFMeasureTrees` fits B such trees on bootstrap samples and
predicts by GFM either over the pooled training label vectors of the leaves a query reaches
(``"pooled"``) or over the B trees' predictions (``"vote"``).

How a node is scanned. GFM needs only P (``P[i, s-1] = P(y_i = 1, s_y = s)``) and P(y = 0)
(Section 5). Every training example contributes a fixed count vector: a one at (i, s_y) for each
of its relevant labels i, a one to the "empty" counter if s_y = 0, and a one to the size counter.
Adding an example to the left part therefore touches only the rows of its relevant labels, as the
paper describes; we do all these updates at once: the count vectors of the node's examples are
summed per (attribute, bin) by one sparse product, and a cumulative sum over each attribute's
bins gives the left part's counts at every candidate threshold (the right part is the node total
minus the left part). GFM then runs batched over all candidate thresholds of a block of
attributes. A node costs O(nnz(X_N) s_bar + d B m) for the counts and one batched GFM of
O(m^2 log m) per candidate, instead of recounting the node at every candidate.

Candidate thresholds are fixed once per attribute at ``fit`` (as histogram-based tree learners
do): midpoints between consecutive distinct training values, thinned to at most ``max_bins``
bins by quantiles when an attribute has more distinct values. ``x <= threshold`` goes left.
Sparse attributes are binned with their implicit zeros, and a node's histogram only visits the
stored entries of its rows (the zero bin gets the node total minus the other bins), so a sparse
X is never densified.

Choices where the paper is silent (see ``docs/trees.md``): a node is split only if the best
Q exceeds F(N) by more than ``min_gain`` (Q >= F(N) always holds, so with the default 0 a split
must strictly improve the training F); ties between candidates go to the lowest attribute index,
then the lowest threshold; GFM's own tie rules decide leaf predictions.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from fmeasure import inference, metrics
from fmeasure.learners.base import multilabel_tags

__all__ = [
    "BaggedFMeasureTrees",
    "FMeasureTree",
    "bin_edges",
    "gfm_from_counts",
    "gfm_values",
    "label_contributions",
    "pooled_leaf_gfm",
    "split_statistics",
]

#: Q values closer than this are ties (the earlier candidate wins); also the margin by which a
#: split must beat the node's own F before ``min_gain`` is added.
TIE_TOL = 1e-12
#: target size (bytes) of a node's histogram block; attributes are processed in blocks of this size
BLOCK_BYTES = 4 * 2**20


# ----------------------------------------------------------------------------- counting helpers
def _single_threaded_blas(fn):
    """Run ``fn`` with BLAS on one thread: its products are many and small (threads only wait)."""
    import functools

    from threadpoolctl import threadpool_limits

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper


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
    return Z, smax


def gfm_from_counts(C, m, smax):
    """GFM values and predictions from count vectors (sums of :func:`label_contributions` rows).

    Parameters
    ----------
    C : ndarray of shape (k, m * smax + 2)
        Count vectors; the last column (the number of examples) must be positive.
    m, smax : int

    Returns
    -------
    h : ndarray of int8, shape (k, m)
    value : ndarray of shape (k,)
        The best mean F-measure on each group of examples (GFM on its empirical distribution).
    """
    C = np.asarray(C, dtype=np.float64)
    k = C.shape[0]
    n = C[:, -1]
    P = np.zeros((k, m, m))
    P[:, :, :smax] = (C[:, : m * smax] / n[:, None]).reshape(k, m, smax)
    return inference.gfm_from_p(P, C[:, m * smax] / n)


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


class _Binned:
    """Attributes coded by bin: a CSR matrix of global bin ids + 1 and each attribute's zero bin."""

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

    def node_bins(self, rows):
        """(global bin, node position) of every stored entry of the node's rows."""
        sub = self.codes[rows]
        pos = np.repeat(np.arange(len(rows)), np.diff(sub.indptr))
        return sub.data.astype(np.int64) - 1, pos


def gfm_values(C, m, smax, columns=None):
    """Best mean F (the GFM value only) of many groups of examples given by count vectors.

    The split search's fast path: the same value as :func:`gfm_from_counts` (which returns the
    maximiser too), computed on the labels and counts that occur, without input validation
    (counts are exact). ``E_k`` is the sum of the k largest entries of column k of Delta (sizes
    k above the number of occurring labels cannot win).

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
    """
    C = np.asarray(C, dtype=np.float64)
    k = C.shape[0]
    n = C[:, -1]
    best = C[:, -2].copy()  # the empty prediction: [y = 0] counted
    w = C.shape[1] - 2
    columns = np.arange(m * smax) if columns is None else np.asarray(columns)
    used = C[:, :w].sum(axis=0) > 0  # counts are non-negative
    columns = columns[used]
    if len(columns):
        labels, li = np.unique(columns // smax, return_inverse=True)
        size = columns % smax
        r, S = len(labels), int(size.max()) + 1
        A = np.zeros((k, r, S))
        A[:, li, size] = C[:, :w][:, used]
        s = np.arange(1, S + 1, dtype=np.float64)[:, None]
        W = 2.0 / (s + np.arange(1, r + 1, dtype=np.float64)[None, :])  # (S, sizes k = 1..r)
        DT = np.einsum("sk,grs->gkr", W, A, optimize=True)  # Delta^T: [group, size k, label]
        DT = np.sort(DT, axis=2)[:, :, ::-1]  # each column of Delta in decreasing order
        E = np.einsum("gkj,kj->gk", DT, np.tri(r))  # E_k = sum of the k largest of column k
        best = np.maximum(best, E.max(axis=1))
    return best / n


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


def _node_histogram(binned, Znode, gbin, pos, features):
    """Occupied bins of the allowed attributes and their count vectors for one node.

    Returns (occ, feat, H): global ids of the occupied bins (sorted; each allowed sparse
    attribute's zero bin included), their attributes, and H (bins x width) with the counts of the
    node's stored entries (the zero bins are filled in later)."""
    keep = features[binned.bin_feature[gbin]]
    gbin, pos = gbin[keep], pos[keep]
    zero_bins = binned.offsets[:-1][features] + binned.zero_code[features]
    occ = np.union1d(gbin, zero_bins)
    local = np.searchsorted(occ, gbin)
    G = sp.csr_array((np.ones(len(gbin)), (local, pos)), shape=(len(occ), Znode.shape[0]))
    return occ, binned.bin_feature[occ], G @ Znode


def _left_counts(H, occ, feat, total, binned, min_samples_leaf):
    """Left-part counts at every occupied bin of whole attributes and the valid candidates.

    ``H`` (bins x width) holds the counts of the node's stored entries per bin; each attribute's
    zero bin gets the rest of the node (nothing for a dense attribute). Candidate bin b means
    "bins <= b go left"; it is kept if it is not the attribute's last occupied bin and leaves at
    least ``min_samples_leaf`` examples on each side.
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


#: In the split search, Q is first computed at every COARSE-th candidate of each attribute; the
#: others are computed only if a bound allows them to come near the best (see _pruned_q).
COARSE = 8


def _pruned_q(q_of, nl, feat, n_node, best_before):
    """Q at every candidate, or -inf where a bound proves it cannot be (near) the best.

    Moving one example from one part to the other changes |N| Q by at most 1 (F lies in [0, 1]
    and each part's best sum of F over its examples can only grow by at most 1 when one example
    is added). So between two evaluated candidates a < c < b of the same attribute,
    Q(c) <= min(Q(a) + (n_L(c) - n_L(a)) / |N|, Q(b) + (n_L(b) - n_L(c)) / |N|). Q is computed
    exactly at every COARSE-th candidate and at each attribute's first and last one, then at the
    candidates whose bound reaches the best Q so far (minus a margin far above round-off); the
    rest cannot be within the tie tolerance of the maximum, so the chosen split is unchanged.
    """
    k = len(nl)
    start = np.r_[True, feat[1:] != feat[:-1]]
    last = np.r_[feat[1:] != feat[:-1], True]
    first_idx = np.maximum.accumulate(np.where(start, np.arange(k), 0))
    rank = np.arange(k) - first_idx
    coarse = (rank % COARSE == 0) | last
    Q = np.full(k, -np.inf)
    idx = np.flatnonzero(coarse)
    Q[idx] = q_of(idx)
    if coarse.all():
        return Q
    prev = np.maximum.accumulate(np.where(coarse, np.arange(k), 0))
    nxt = np.minimum.accumulate(np.where(coarse, np.arange(k), k - 1)[::-1])[::-1]
    bound = np.minimum(Q[prev] + (nl - nl[prev]) / n_node, Q[nxt] + (nl[nxt] - nl) / n_node)
    target = max(Q[idx].max(), best_before) - 1e-9
    rest = np.flatnonzero(~coarse & (bound >= target))
    if len(rest):
        Q[rest] = q_of(rest)
    return Q


def _scan(binned, Znode, total, gbin, pos, m, smax, min_samples_leaf, features):
    """Best split of a node: (Q, feature, global bin) or None. ``features``: allowed attributes."""
    n_node = total[-1]
    # only the (label, count) columns that occur in the node
    cols = np.flatnonzero(total[: m * smax] > 0)
    keep = np.r_[cols, m * smax, m * smax + 1]
    Znode, total = Znode[:, keep], total[keep]
    Zd = Znode.toarray() if sp.issparse(Znode) else Znode
    occ, feat, Hs = _node_histogram(binned, Zd, gbin, pos, features)
    best = None
    for b0, b1 in _blocks(feat, Zd.shape[1]):
        H = np.array(Hs[b0:b1], dtype=np.float64)
        L, nL, cand = _left_counts(H, occ[b0:b1], feat[b0:b1], total, binned, min_samples_leaf)
        if len(cand) == 0:
            continue
        nl = nL[cand]

        def q_of(idx):
            Lc = L[cand[idx]]
            return (
                nl[idx] * gfm_values(Lc, m, smax, cols)
                + (n_node - nl[idx]) * gfm_values(total[None, :] - Lc, m, smax, cols)
            ) / n_node

        Q = _pruned_q(q_of, nl, feat[b0:b1][cand], n_node, -np.inf if best is None else best[0])
        i = int(np.argmax(Q >= Q.max() - TIE_TOL))
        if best is None or Q[i] > best[0] + TIE_TOL:
            best = (float(Q[i]), int(feat[b0 + cand[i]]), int(occ[b0 + cand[i]]))
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
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1, 1)
    Y = np.asarray(Y)
    m = Y.shape[1]
    Z, smax = label_contributions(Y)
    binned = _Binned(x, max_bins)
    total = np.asarray(Z.sum(axis=0)).ravel()
    gbin, pos = binned.node_bins(np.arange(len(x)))
    occ, feat, H = _node_histogram(binned, Z.toarray(), gbin, pos, np.ones(1, bool))
    L, nL, cand = _left_counts(H, occ, feat, total, binned, 1)
    Lc = L[cand]
    P = np.zeros((len(cand), m, m))
    P[:, :, :smax] = (Lc[:, : m * smax] / Lc[:, -1:]).reshape(len(cand), m, smax)
    edges = binned.edges[0]
    return edges[occ[cand]], P, Lc[:, m * smax] / Lc[:, -1], Lc[:, -1].astype(np.int64)


# ----------------------------------------------------------------------------- validation
def _check_xy(est, X, y, reset=True):
    X, Y = validate_data(
        est, X, y, accept_sparse=["csr", "csc"], multi_output=True, dtype=np.float64, y_numeric=True, reset=reset
    )
    Y = np.asarray(Y)
    y_1d = Y.ndim == 1
    if y_1d:
        Y = Y[:, None]
    if not np.isin(Y, (0, 1)).all():
        raise ValueError(
            "Only binary classification is supported: y must be a binary (0/1) label "
            f"matrix of shape (n_samples, n_labels); the type of the target is {type_of_target(Y)}"
        )
    return X, Y.astype(np.int8), y_1d


def _check_int(value, name, low, allow_none=False):
    if value is None and allow_none:
        return
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name}: expected an integer >= {low}{' or None' if allow_none else ''}, got {value!r}")


def _n_features(max_features, d):
    if max_features is None:
        return d
    if max_features == "sqrt":
        return max(1, int(np.sqrt(d)))
    if isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        if 1 <= max_features:
            return min(d, int(max_features))
    elif isinstance(max_features, numbers.Real) and 0 < max_features <= 1:
        return max(1, int(max_features * d))
    raise ValueError(f"max_features: expected None, 'sqrt', an integer >= 1 or a float in (0, 1], got {max_features!r}")


class _Tags:
    def __sklearn_tags__(self):
        return multilabel_tags(super().__sklearn_tags__())

    def score(self, X, y, sample_weight=None):
        """Mean instance-wise F-measure of ``predict(X)`` against ``y`` (F(0, 0) = 1)."""
        H = self.predict(X)
        Y = np.asarray(y)
        if Y.ndim == 1:
            Y, H = Y[:, None], np.asarray(H).reshape(-1, 1)
        return float(np.average(metrics.f_measure(Y, H), weights=sample_weight))


# ----------------------------------------------------------------------------- the tree
class FMeasureTree(_Tags, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Decision tree that splits and predicts for the instance-wise F-measure (Section 7.1.2).

    A split maximises ``Q = |N_L|/|N| F(N_L) + |N_R|/|N| F(N_R)``, where F(A) is the best mean
    F-measure over the training label vectors in A (the value of GFM on A's empirical
    distribution); leaves predict that GFM maximiser.

    Parameters
    ----------
    max_depth : int or None, default=None
        Depth limit (0: the root is a leaf).
    min_samples_leaf : int, default=1
        Fewest training examples in a leaf; a node with fewer than twice this is not split.
    max_bins : int or None, default=255
        Candidate thresholds per attribute: every midpoint between distinct training values if
        the attribute has at most ``max_bins`` distinct values, else ``max_bins - 1`` of them at
        quantiles. 255 bounds the cost of a node's batched GFM by the number of bins rather than
        the number of examples; ``None`` keeps every distinct value.
    min_gain : float, default=0.0
        A node is split only if the best Q exceeds the node's own F(N) by more than this
        (F(N) <= Q always). A node with F(N) = 1 is never split.
    max_features : None, "sqrt", int or float, default=None
        Attributes searched at each node (a random subset, as in random forests); ``None``: all.
    random_state : int, Generator or None, default=None
        Seeds the attribute subsets (unused when ``max_features=None``).

    Attributes
    ----------
    n_labels_ : int
    feature_, threshold_ : ndarray of shape (n_nodes,)
        Split attribute (-1 at leaves) and threshold (``x <= t`` goes left).
    children_left_, children_right_ : ndarray of shape (n_nodes,)
    value_ : ndarray of int8, shape (n_nodes, m)
        GFM prediction of every node (the prediction at leaves).
    node_f_ : ndarray of shape (n_nodes,)
        F(N): the best mean training F-measure in the node.
    n_node_samples_ : ndarray of shape (n_nodes,)
    depth_ : ndarray of shape (n_nodes,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> tree = FMeasureTree().fit(X, Y)
    >>> float(tree.threshold_[0]), tree.predict([[0.5], [2.5]]).tolist()
    (1.5, [[1, 0], [0, 1]])
    """

    def __init__(
        self, max_depth=None, min_samples_leaf=1, max_bins=255, min_gain=0.0, max_features=None, random_state=None
    ):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins
        self.min_gain = min_gain
        self.max_features = max_features
        self.random_state = random_state

    def _check_params(self):
        _check_int(self.max_depth, "max_depth", 0, allow_none=True)
        _check_int(self.min_samples_leaf, "min_samples_leaf", 1)
        _check_int(self.max_bins, "max_bins", 2, allow_none=True)
        if not isinstance(self.min_gain, numbers.Real) or not np.isfinite(self.min_gain):
            raise ValueError(f"min_gain: expected a finite number, got {self.min_gain!r}")

    def fit(self, X, y):
        """Grow the tree.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n, m), 0/1 (a 1-d y is one label)

        Returns
        -------
        self
        """
        self._check_params()
        X, Y, self._y_1d = _check_xy(self, X, y)
        self._grow(X, Y, np.random.default_rng(self.random_state))
        return self

    @_single_threaded_blas
    def _grow(self, X, Y, rng, binned=None, Z=None, smax=None):
        n, d = X.shape
        m = Y.shape[1]
        k_feat = _n_features(self.max_features, d)
        if binned is None:
            binned = _Binned(X, self.max_bins)
        if Z is None:
            Z, smax = label_contributions(Y)
        self.n_labels_ = m
        self.classes_ = [np.array([0, 1])] * m
        self._smax = smax
        feature, threshold, left, right, value, node_f, count, depth = [], [], [], [], [], [], [], []
        leaf_of = np.empty(n, dtype=np.int64)
        stack = [(np.arange(n), 0, -1, False)]
        max_depth = np.inf if self.max_depth is None else self.max_depth
        while stack:
            rows, dep, parent, is_right = stack.pop()
            node = len(feature)
            if parent >= 0:
                (right if is_right else left)[parent] = node
            Znode = Z[rows]
            total = np.asarray(Znode.sum(axis=0)).ravel()
            h, f = gfm_from_counts(total[None, :], m, smax)
            feature.append(-1)
            threshold.append(np.nan)
            left.append(-1)
            right.append(-1)
            value.append(h[0])
            node_f.append(f[0])
            count.append(len(rows))
            depth.append(dep)
            best = None
            if dep < max_depth and len(rows) >= 2 * self.min_samples_leaf and f[0] < 1 - TIE_TOL:
                allowed = np.zeros(d, dtype=bool)
                allowed[rng.choice(d, k_feat, replace=False) if k_feat < d else slice(None)] = True
                gbin, pos = binned.node_bins(rows)
                best = _scan(binned, Znode, total, gbin, pos, m, smax, self.min_samples_leaf, allowed)
            if best is None or best[0] <= f[0] + self.min_gain + TIE_TOL:
                leaf_of[rows] = node
                continue
            _, j, b = best
            thr = binned.edges[j][b - binned.offsets[j]]
            feature[node], threshold[node] = j, thr
            xj = X[rows, j] if not sp.issparse(X) else np.asarray(X[:, [j]][rows].toarray()).ravel()
            go_left = xj <= thr
            # right first on the stack so that the left child gets the next id
            stack.append((rows[~go_left], dep + 1, node, True))
            stack.append((rows[go_left], dep + 1, node, False))
        self.feature_ = np.array(feature, dtype=np.int64)
        self.threshold_ = np.array(threshold, dtype=np.float64)
        self.children_left_ = np.array(left, dtype=np.int64)
        self.children_right_ = np.array(right, dtype=np.int64)
        self.value_ = np.array(value, dtype=np.int8).reshape(-1, m)
        self.node_f_ = np.array(node_f)
        self.n_node_samples_ = np.array(count, dtype=np.int64)
        self.depth_ = np.array(depth, dtype=np.int64)
        self.train_leaf_ = leaf_of
        return self

    def _grow_rows(self, X, Y, rows, rng, binned, Z, smax):
        """Grow on the rows ``rows`` (with repeats) of a shared binned training set."""
        return self._grow(X[rows], Y[rows], rng, binned=_SubBinned(binned, rows), Z=Z[rows], smax=smax)

    @property
    def n_leaves_(self):
        check_is_fitted(self, "feature_")
        return int((self.feature_ < 0).sum())

    def apply(self, X):
        """Index of the leaf that each row of X reaches."""
        check_is_fitted(self, "feature_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._apply(X)

    def _apply(self, X):
        Xs = sp.csr_array(X) if sp.issparse(X) else None
        node = np.zeros(X.shape[0], dtype=np.int64)
        active = np.flatnonzero(self.feature_[node] >= 0)
        while len(active):
            nd = node[active]
            f = self.feature_[nd]
            x = np.asarray(Xs[active, f]).ravel() if Xs is not None else X[active, f]
            node[active] = np.where(x <= self.threshold_[nd], self.children_left_[nd], self.children_right_[nd])
            active = active[self.feature_[node[active]] >= 0]
        return node

    def predict(self, X):
        """GFM prediction of the leaf each row reaches: int8 (n, m) (or (n,) for a 1-d fit y)."""
        check_is_fitted(self, "feature_")
        H = self.value_[self.apply(X)]
        return H[:, 0] if self._y_1d else H


# ----------------------------------------------------------------------------- bagging
def pooled_leaf_gfm(train_leaves, query_leaves, Y, multiplicity=None, chunk=2048):
    """GFM over the pooled training label vectors of the leaves that each query reaches.

    The forest as an adaptive neighbourhood: a training example counts once for every tree in
    which it shares the query's leaf (times its multiplicity in that tree's bootstrap sample).

    Parameters
    ----------
    train_leaves : ndarray of shape (n_train, B)
        Leaf id of every training example in every tree.
    query_leaves : ndarray of shape (n_query, B)
    Y : ndarray of shape (n_train, m), 0/1
    multiplicity : ndarray of shape (n_train, B), optional
        Weight of each training example in each tree (bootstrap counts); default 1.
    chunk : int
        Queries handled at once.

    Returns
    -------
    h : ndarray of int8, shape (n_query, m)
    value : ndarray of shape (n_query,)
        Mean F of ``h`` on the pooled label vectors.
    """
    train_leaves = np.asarray(train_leaves)
    query_leaves = np.asarray(query_leaves)
    n_train, B = train_leaves.shape
    m = Y.shape[1]
    Z, smax = label_contributions(Y)
    if multiplicity is None:
        multiplicity = np.ones((n_train, B))
    stats = []
    for b in range(B):
        ids, inv = np.unique(train_leaves[:, b], return_inverse=True)
        M = sp.csr_array((multiplicity[:, b], (inv, np.arange(n_train))), shape=(len(ids), n_train))
        stats.append((ids, sp.csr_array(M @ Z)))
    H = np.zeros((len(query_leaves), m), dtype=np.int8)
    V = np.zeros(len(query_leaves))
    for s0 in range(0, len(query_leaves), chunk):
        q = query_leaves[s0 : s0 + chunk]
        C = np.zeros((len(q), Z.shape[1]))
        for b, (ids, S) in enumerate(stats):
            pos = np.searchsorted(ids, q[:, b])
            pos = np.minimum(pos, len(ids) - 1)
            hit = ids[pos] == q[:, b]
            C[hit] += S[pos[hit]].toarray()
        H[s0 : s0 + chunk], V[s0 : s0 + chunk] = gfm_from_counts(C, m, smax)
    return H, V


def _fit_one(params, X, Y, binned, Z, smax, seed, bootstrap):
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    tree = FMeasureTree(**params)
    if bootstrap:
        mult = np.bincount(rng.integers(0, n, n), minlength=n)
    else:
        mult = np.ones(n, dtype=np.int64)
    # a tree sees each drawn example once per draw: repeat rows by their multiplicity
    rows = np.repeat(np.arange(n), mult)
    tree.n_features_in_ = X.shape[1]
    tree._y_1d = False
    tree._grow_rows(X, Y, rows, rng, binned, Z, smax)
    return tree, mult


class _SubBinned(_Binned):
    """View of a :class:`_Binned` on a row subset (bootstrap rows may repeat)."""

    def __init__(self, binned, rows):
        self.__dict__.update({k: v for k, v in binned.__dict__.items() if k != "codes"})
        self.codes = binned.codes[rows]


class BaggedFMeasureTrees(_Tags, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Bagging of :class:`FMeasureTree` with GFM on the ensemble (Section 7.1.2).

    Parameters
    ----------
    n_estimators : int, default=50
        Number of trees B.
    prediction : {"pooled", "vote"}, default="pooled"
        ``"pooled"``: GFM over the pooled training label vectors (with their bootstrap
        multiplicity) of the leaves that x reaches in the B trees. ``"vote"``: GFM over the B
        trees' predictions (the paper's "GFM over the bootstrap sample of the weak hypotheses").
    bootstrap : bool, default=True
        Draw each tree's training set with replacement (n draws); False: every tree sees the
        whole training set.
    max_depth, min_samples_leaf, max_bins, min_gain, max_features
        Passed to every :class:`FMeasureTree`.
    n_jobs : int or None, default=None
        Trees fitted in parallel by joblib (``None``: 1).
    random_state : int or None, default=None
        Seeds the bootstrap samples and attribute subsets; the fit is identical for any n_jobs.

    Attributes
    ----------
    estimators_ : list of FMeasureTree
    multiplicity_ : ndarray of shape (n_train, B)
        How often each training example was drawn for each tree.
    train_leaves_ : ndarray of shape (n_train, B)
        Leaf of every training example in every tree.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> bag = BaggedFMeasureTrees(n_estimators=1, bootstrap=False).fit(X, Y)
    >>> bag.predict([[0.5], [2.5]]).tolist()
    [[1, 0], [0, 1]]
    """

    def __init__(
        self,
        n_estimators=50,
        prediction="pooled",
        bootstrap=True,
        max_depth=None,
        min_samples_leaf=1,
        max_bins=255,
        min_gain=0.0,
        max_features=None,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.prediction = prediction
        self.bootstrap = bootstrap
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins
        self.min_gain = min_gain
        self.max_features = max_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _tree_params(self):
        return dict(
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            max_bins=self.max_bins,
            min_gain=self.min_gain,
            max_features=self.max_features,
        )

    def fit(self, X, y):
        """Fit B trees on bootstrap samples (in parallel); returns self."""
        _check_int(self.n_estimators, "n_estimators", 1)
        if self.prediction not in ("pooled", "vote"):
            raise ValueError(f"prediction: expected 'pooled' or 'vote', got {self.prediction!r}")
        FMeasureTree(**self._tree_params())._check_params()
        X, Y, self._y_1d = _check_xy(self, X, y)
        _n_features(self.max_features, X.shape[1])
        if sp.issparse(X):
            X = sp.csr_array(X)
        binned = _Binned(X, self.max_bins)
        Z, smax = label_contributions(Y)
        seeds = np.random.SeedSequence(np.random.default_rng(self.random_state).integers(2**63)).spawn(
            self.n_estimators
        )
        out = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(self._tree_params(), X, Y, binned, Z, smax, s, self.bootstrap) for s in seeds
        )
        self.estimators_ = [t for t, _ in out]
        self.multiplicity_ = np.stack([mlt for _, mlt in out], axis=1)
        self.train_leaves_ = np.stack([t._apply(X) for t in self.estimators_], axis=1)
        self.Y_train_ = Y
        self.n_labels_ = Y.shape[1]
        self.classes_ = [np.array([0, 1])] * self.n_labels_
        return self

    def apply(self, X):
        """Leaf of each row of X in each tree: (n, B)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.stack([t._apply(X) for t in self.estimators_], axis=1)

    def predict(self, X, prediction=None):
        """F-measure prediction: int8 (n, m) (or (n,) for a 1-d fit y).

        ``prediction`` overrides the estimator's ``prediction`` for this call.
        """
        check_is_fitted(self, "estimators_")
        how = self.prediction if prediction is None else prediction
        if how not in ("pooled", "vote"):
            raise ValueError(f"prediction: expected 'pooled' or 'vote', got {how!r}")
        leaves = self.apply(X)
        if how == "pooled":
            H, _ = pooled_leaf_gfm(self.train_leaves_, leaves, self.Y_train_, self.multiplicity_)
        else:
            votes = np.stack([t.value_[leaves[:, b]] for b, t in enumerate(self.estimators_)], axis=1)
            H, _ = inference.gfm_from_samples(votes)
            H = np.asarray(H).reshape(len(leaves), -1)
        return H[:, 0] if self._y_1d else H
