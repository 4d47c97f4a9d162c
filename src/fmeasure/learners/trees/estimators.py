"""The F-measure tree and its bagging as scikit-learn estimators (paper Section 7.1.2).

:class:`FMeasureTree` grows a binary tree whose splits maximise the paper's criterion
(:mod:`.splitter`) and whose leaves predict the GFM maximiser of their training label vectors;
:class:`BaggedFMeasureTrees` fits B such trees on bootstrap samples in parallel and predicts by GFM
either over the pooled training label vectors of the leaves a query reaches (``"pooled"``,
:func:`.pooled_leaf_gfm`) or over the B trees' predictions (``"vote"``).

Choices where the paper is silent (see ``docs/trees.md``): a node is split only if the best
Q exceeds F(N) by more than ``min_gain`` (Q >= F(N) always holds, so with the default 0 a split
must strictly improve the training F); ties between candidates go to the lowest attribute index,
then the lowest threshold; GFM's own tie rules decide leaf predictions.

Time and memory. A node N costs its histogram, O(nnz(X_N) s_bar) for mean label count s_bar,
plus one batched GFM of O(r^2 (S + log r)) per scored candidate threshold and side (r labels and
counts up to S occurring in N); the bounds of :mod:`.splitter` leave candidates of large
nodes unscored only where they provably cannot win. Every node's GFM prediction is computed after the tree is grown, in one batch.
Memory grows as n d (the bin codes) plus the dense histogram block of one node (bounded by
``splitter.BLOCK_BYTES``).
"""

from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from fmeasure import inference
from fmeasure._arrays import TIE_TOL
from fmeasure.blas import single_threaded_blas
from fmeasure.io import heartbeat
from fmeasure.learners.base import MultiLabelClassifier, fit_context
from fmeasure.learners.trees.binning import BinnedData
from fmeasure.learners.trees.counts import gfm_from_counts, gfm_values, label_contributions
from fmeasure.learners.trees.splitter import best_split

__all__ = ["BaggedFMeasureTrees", "FMeasureTree", "pooled_leaf_gfm"]

logger = logging.getLogger(__name__)

#: seconds between two progress lines of a long fit
PROGRESS_EVERY = 30.0


# ----------------------------------------------------------------------------- validation
#: The parameters of one tree (shared by the bagging).
_TREE_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 0, None, closed="left"), None],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
    "max_bins": [Interval(Integral, 2, None, closed="left"), None],
    "min_gain": [Interval(Real, None, None, closed="neither")],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0, 1, closed="right"),
        StrOptions({"sqrt"}),
        None,
    ],
    "random_state": ["random_state"],
}


def _n_features(max_features, d):
    if max_features is None:
        return d
    if max_features == "sqrt":
        return max(1, int(np.sqrt(d)))
    if isinstance(max_features, Integral):
        return min(d, int(max_features))
    return max(1, int(max_features * d))


def _rng(random_state):
    """A numpy Generator from ``random_state`` (None, an int, a Generator or a RandomState)."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)


def _label_frequencies(groups, Y, n_groups, weights=None):
    """Sparse (n_groups, m): the weighted frequency of each label among the rows of each group."""
    w = np.ones(len(groups)) if weights is None else np.asarray(weights, dtype=np.float64)
    G = sp.csr_array((w, (groups, np.arange(len(groups)))), shape=(n_groups, len(groups)))
    total = np.asarray(G.sum(axis=1)).ravel()
    scale = sp.diags_array(np.divide(1.0, total, out=np.zeros_like(total), where=total > 0))
    return sp.csr_array(scale @ (G @ sp.csr_array(Y, dtype=np.float64)))


# ----------------------------------------------------------------------------- the tree
class FMeasureTree(MultiLabelClassifier):
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
    max_bins : int or None, default=32
        Candidate thresholds per attribute: every midpoint between distinct training values if
        the attribute has at most ``max_bins`` distinct values, else ``max_bins - 1`` of them at
        quantiles. Each candidate costs one exact GFM per side, so a large node's split search
        costs about d * max_bins GFMs; 32 rather than the 255 of histogram tree learners keeps
        that small for the same test F within noise (see docs/trees.md). ``None`` keeps every
        distinct value.
    min_gain : float, default=0.0
        A node is split only if the best Q exceeds the node's own F(N) by more than this
        (F(N) <= Q always). A node with F(N) = 1 is never split.
    max_features : None, "sqrt", int or float, default=None
        Attributes searched at each node (a random subset, as in random forests); ``None``: all.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the attribute subsets (unused when ``max_features=None``).

    Attributes
    ----------
    feature_, threshold_ : ndarray of shape (n_nodes,)
        Split attribute (-1 at leaves) and threshold (``x <= t`` goes left).
    children_left_, children_right_ : ndarray of shape (n_nodes,)
    value_ : ndarray of int8, shape (n_nodes, m)
        GFM prediction of every node (the prediction at leaves).
    node_f_ : ndarray of shape (n_nodes,)
        F(N): the best mean training F-measure in the node.
    n_node_samples_ : ndarray of shape (n_nodes,)
    depth_ : ndarray of shape (n_nodes,)
    train_leaf_ : ndarray of shape (n_train,)
        The leaf of every training example.
    timings_ : dict
        CPU seconds of the fit: ``split_search_s`` (all nodes' split searches), ``leaf_gfm_s``
        (the nodes' GFM predictions, one batch) and ``fit_s`` (the whole fit).
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> tree = FMeasureTree().fit(X, Y)
    >>> float(tree.threshold_[0]), tree.predict([[0.5], [2.5]]).tolist()
    (1.5, [[1, 0], [0, 1]])
    """

    _parameter_constraints = dict(_TREE_CONSTRAINTS)

    def __init__(
        self, max_depth=None, min_samples_leaf=1, max_bins=32, min_gain=0.0, max_features=None, random_state=None
    ):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins
        self.min_gain = min_gain
        self.max_features = max_features
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Grow the tree.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n, m), 0/1 (a 1-d y is one label with two classes)

        Returns
        -------
        self
        """
        if not np.isfinite(self.min_gain):
            raise ValueError(f"min_gain: expected a finite number, got {self.min_gain!r}")
        X, Y = self._validate_xy(X, y, accept_sparse=["csr", "csc"])
        self._grow(X, Y, _rng(self.random_state))
        # the label frequencies of the training examples in each leaf (predict_marginals)
        self._leaf_marginals = _label_frequencies(self.train_leaf_, Y, len(self.feature_))
        return self

    @single_threaded_blas
    def _grow(self, X, Y, rng, binned=None, Z=None, smax=None):
        c_start = time.process_time()
        n, d = X.shape
        m = Y.shape[1]
        k_feat = _n_features(self.max_features, d)
        if binned is None:
            binned = BinnedData(X, self.max_bins)
        if Z is None:
            Z, smax = label_contributions(Y)
        Z = sp.csr_array(Z)
        self.n_labels_ = m
        self._smax = smax
        feature, threshold, left, right, node_f, count, depth = [], [], [], [], [], [], []
        tot_idx, tot_val = [], []  # each node's count vector (non-zeros), for the leaf GFM
        leaf_of = np.empty(n, dtype=np.int64)
        settled = 0
        # (rows, depth, parent, is right child, F(N) if known from the parent's search)
        stack = [(np.arange(n), 0, -1, False, None)]
        max_depth = np.inf if self.max_depth is None else self.max_depth
        t_split = 0.0
        last = time.perf_counter()
        while stack:
            rows, dep, parent, is_right, f = stack.pop()
            node = len(feature)
            if parent >= 0:
                (right if is_right else left)[parent] = node
            Znode = Z[rows]
            total = np.asarray(Znode.sum(axis=0)).ravel()
            if f is None:
                f = float(gfm_values(total[None, :], m, smax)[0])
            nz = np.flatnonzero(total)
            tot_idx.append(nz)
            tot_val.append(total[nz])
            feature.append(-1)
            threshold.append(np.nan)
            left.append(-1)
            right.append(-1)
            node_f.append(f)
            count.append(len(rows))
            depth.append(dep)
            best = None
            if dep < max_depth and len(rows) >= 2 * self.min_samples_leaf and f < 1 - TIE_TOL:
                c0 = time.process_time()
                allowed = np.zeros(d, dtype=bool)
                allowed[rng.choice(d, k_feat, replace=False) if k_feat < d else slice(None)] = True
                gbin, pos = binned.node_bins(rows)
                best = best_split(binned, Znode, total, gbin, pos, m, smax, self.min_samples_leaf, allowed)
                t_split += time.process_time() - c0
            if time.perf_counter() - last >= PROGRESS_EVERY:
                last = time.perf_counter()
                logger.info(
                    "F-tree: %d nodes, %d of %d training examples in finished leaves, %.0f s CPU",
                    len(feature),
                    settled,
                    n,
                    time.process_time() - c_start,
                )
            if best is None or best[0] <= f + self.min_gain + TIE_TOL:
                leaf_of[rows] = node
                settled += len(rows)
                continue
            _, j, b, f_left, f_right = best
            thr = binned.edges[j][b - binned.offsets[j]]
            feature[node], threshold[node] = j, thr
            xj = X[rows, j] if not sp.issparse(X) else np.asarray(X[:, [j]][rows].toarray()).ravel()
            go_left = xj <= thr
            # right first on the stack so that the left child gets the next id
            stack.append((rows[~go_left], dep + 1, node, True, f_right))
            stack.append((rows[go_left], dep + 1, node, False, f_left))
        # every node's GFM prediction, in one batch over the nodes
        c0 = time.process_time()
        lengths = np.array([len(i) for i in tot_idx])
        T = sp.csr_array(
            (np.concatenate(tot_val), np.concatenate(tot_idx), np.r_[0, np.cumsum(lengths)]),
            shape=(len(tot_idx), Z.shape[1]),
        )
        h_nodes, _ = gfm_from_counts(T, m, smax)
        t_leaf = time.process_time() - c0
        self.feature_ = np.array(feature, dtype=np.int64)
        self.threshold_ = np.array(threshold, dtype=np.float64)
        self.children_left_ = np.array(left, dtype=np.int64)
        self.children_right_ = np.array(right, dtype=np.int64)
        self.value_ = h_nodes.reshape(-1, m)
        self.node_f_ = np.array(node_f)
        self.n_node_samples_ = np.array(count, dtype=np.int64)
        self.depth_ = np.array(depth, dtype=np.int64)
        self.train_leaf_ = leaf_of
        self.timings_ = {
            "split_search_s": t_split,
            "leaf_gfm_s": t_leaf,
            "fit_s": time.process_time() - c_start,
        }
        return self

    def _grow_rows(self, X, Y, rows, rng, binned, Z, smax):
        """Grow on the rows ``rows`` (with repeats) of a shared binned training set."""
        return self._grow(X[rows], Y[rows], rng, binned=binned.subset(rows), Z=Z[rows], smax=smax)

    @property
    def n_leaves_(self):
        check_is_fitted(self, "feature_")
        return int((self.feature_ < 0).sum())

    def apply(self, X):
        """Index of the leaf that each row of X reaches."""
        return self._apply(self._validate_X(X))

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
        """GFM prediction of the leaf each row reaches, (n, m) in y's dtype (or (n,) for a 1-d fit y)."""
        leaves = self.apply(X)
        return self._decode(self.value_[leaves])

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under its leaf's training label vectors, (n,).

        The leaf's empirical distribution of the training label vectors: its prediction is GFM's
        maximiser of it, and this is GFM's value, F(N) (``node_f_``).
        """
        leaves = self.apply(X)
        return self.node_f_[leaves]

    def predict_marginals(self, X):
        """Marginals P(y_j = 1 | x) under the leaf's training label vectors, (n, m).

        The fraction of the leaf's training examples that carry each label; (n,) for a 1-d fit y.
        """
        leaves = self.apply(X)
        return self._decode_marginals(self._leaf_marginals[leaves].toarray())


# ----------------------------------------------------------------------------- bagging
def pooled_leaf_gfm(train_leaves, query_leaves, Y, multiplicity=None, chunk=2048):
    """GFM over the pooled training label vectors of the leaves that each query reaches.

    The forest as an adaptive neighbourhood: a training example counts once for every tree in
    which it shares the query's leaf (times its multiplicity in that tree's bootstrap sample).
    Each leaf's count vector is summed once; a query's pooled counts are one sparse product of
    its B leaves with those, and GFM runs batched over the queries.

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

    Examples
    --------
    >>> Y = np.array([[1, 0], [1, 1], [0, 1]])
    >>> h, v = pooled_leaf_gfm([[0], [0], [1]], [[0], [1]], Y)
    >>> h.tolist(), v.round(4).tolist()
    ([[1, 0], [0, 1]], [0.8333, 1.0])
    """
    m = np.shape(Y)[1]
    n = len(query_leaves)
    H = np.zeros((n, m), dtype=np.int8)
    V = np.zeros(n)
    for sl, C, smax in _pooled_counts(train_leaves, query_leaves, Y, multiplicity, chunk):
        H[sl], V[sl] = gfm_from_counts(C, m, smax)
    return H, V


def _pooled_counts(train_leaves, query_leaves, Y, multiplicity=None, chunk=2048):
    """The pooled count vectors of the queries (:func:`pooled_leaf_gfm`), a chunk at a time.

    Yields ``(rows, C, smax)``: a slice of the queries and their count vectors, dense
    (chunk, m * smax + 2) sums of :func:`~fmeasure.learners.trees.counts.label_contributions` rows.
    """
    train_leaves = np.asarray(train_leaves)
    query_leaves = np.asarray(query_leaves)
    n_train, B = train_leaves.shape
    Z, smax = label_contributions(Y)
    if multiplicity is None:
        multiplicity = np.ones((n_train, B))
    # every (tree, leaf) with training examples gets a global row; S holds its count vector
    ids, offsets, parts = [], [0], []
    for b in range(B):
        u, inv = np.unique(train_leaves[:, b], return_inverse=True)
        M = sp.csr_array((multiplicity[:, b], (inv, np.arange(n_train))), shape=(len(u), n_train))
        parts.append(M @ Z)
        ids.append(u)
        offsets.append(offsets[-1] + len(u))
    S = sp.csr_array(sp.vstack(parts, format="csr"))
    for s0 in range(0, len(query_leaves), chunk):
        q = query_leaves[s0 : s0 + chunk]
        r, c = [], []
        for b in range(B):
            pos = np.minimum(np.searchsorted(ids[b], q[:, b]), len(ids[b]) - 1)
            hit = np.flatnonzero(ids[b][pos] == q[:, b])
            r.append(hit)
            c.append(offsets[b] + pos[hit])
        r, c = np.concatenate(r), np.concatenate(c)
        Qm = sp.csr_array((np.ones(len(r)), (r, c)), shape=(len(q), offsets[-1]))
        yield slice(s0, s0 + len(q)), (Qm @ S).toarray(), smax


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
    tree.classes_ = np.array([0, 1], dtype=np.int8)
    tree._y_1d = False
    tree._grow_rows(X, Y, rows, rng, binned, Z, smax)
    return tree, mult


class BaggedFMeasureTrees(MultiLabelClassifier):
    """Bagging of :class:`.FMeasureTree` with GFM on the ensemble (Section 7.1.2).

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
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the bootstrap samples and attribute subsets; the fit is identical for any n_jobs.

    Attributes
    ----------
    estimators_ : list of FMeasureTree
    multiplicity_ : ndarray of shape (n_train, B)
        How often each training example was drawn for each tree.
    train_leaves_ : ndarray of shape (n_train, B)
        Leaf of every training example in every tree.
    Y_train_ : ndarray of int8, shape (n_train, m)
        The training label vectors (0/1) that the pooled prediction reads.
    timings_ : dict
        CPU seconds summed over the trees (each measured in the process that grew it):
        ``split_search_s``, ``leaf_gfm_s`` (the nodes' GFM predictions) and ``fit_s`` (whole fits).
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> bag = BaggedFMeasureTrees(n_estimators=1, bootstrap=False).fit(X, Y)
    >>> bag.predict([[0.5], [2.5]]).tolist()
    [[1, 0], [0, 1]]
    """

    _parameter_constraints = {
        **_TREE_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "prediction": [StrOptions({"pooled", "vote"})],
        "bootstrap": ["boolean"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_estimators=50,
        prediction="pooled",
        bootstrap=True,
        max_depth=None,
        min_samples_leaf=1,
        max_bins=32,
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

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit B trees on bootstrap samples (in parallel).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        y : array-like of shape (n, m), 0/1 (a 1-d y is one label with two classes)

        Returns
        -------
        self
        """
        if not np.isfinite(self.min_gain):
            raise ValueError(f"min_gain: expected a finite number, got {self.min_gain!r}")
        X, Y = self._validate_xy(X, y, accept_sparse=["csr", "csc"])
        if sp.issparse(X):
            X = sp.csr_array(X)
        binned = BinnedData(X, self.max_bins)
        Z, smax = label_contributions(Y)
        seeds = np.random.SeedSequence(_rng(self.random_state).integers(2**63)).spawn(self.n_estimators)
        jobs = (delayed(_fit_one)(self._tree_params(), X, Y, binned, Z, smax, s, self.bootstrap) for s in seeds)
        out = []
        t0 = last = time.perf_counter()
        B = self.n_estimators

        def still_growing(elapsed):
            return f"F-bag: {len(out)} of {B} trees done, {B - len(out)} left, {elapsed:.0f} s elapsed (growing)"

        with heartbeat(still_growing, logger=logger, every=2 * PROGRESS_EVERY):
            for k, res in enumerate(Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs), start=1):
                out.append(res)
                now = time.perf_counter()
                if k == 1 or k == B or now - last >= PROGRESS_EVERY:
                    last = now
                    cpu = np.mean([t.timings_["fit_s"] for t, _ in out])
                    logger.info(
                        "F-bag: %d of %d trees done, %d left, %.0f s elapsed, %.1f s CPU per tree",
                        k,
                        B,
                        B - k,
                        now - t0,
                        cpu,
                    )
        self.estimators_ = [t for t, _ in out]
        self.multiplicity_ = np.stack([mlt for _, mlt in out], axis=1)
        self.train_leaves_ = np.stack([t._apply(X) for t in self.estimators_], axis=1)
        self.Y_train_ = Y
        self.timings_ = {k: float(sum(t.timings_[k] for t in self.estimators_)) for k in self.estimators_[0].timings_}
        if self.n_jobs not in (None, 1):  # the trees grew in worker processes
            self._worker_cpu_time += self.timings_["fit_s"]
        return self

    def apply(self, X):
        """Leaf of each row of X in each tree: (n, B)."""
        X = self._validate_X(X)
        return np.stack([t._apply(X) for t in self.estimators_], axis=1)

    def _how(self, prediction):
        how = self.prediction if prediction is None else prediction
        if how not in ("pooled", "vote"):
            raise ValueError(f"prediction: expected 'pooled' or 'vote', got {how!r}")
        return how

    def _votes(self, leaves):
        """The B trees' predictions, (n, B, m) int8."""
        return np.stack([t.value_[leaves[:, b]] for b, t in enumerate(self.estimators_)], axis=1)

    def _infer(self, X, prediction):
        """0/1 predictions (n, m) and their expected F under the ensemble's distribution (n,)."""
        how = self._how(prediction)
        leaves = self.apply(X)
        if how == "pooled":
            return pooled_leaf_gfm(self.train_leaves_, leaves, self.Y_train_, self.multiplicity_)
        H, V = inference.gfm_from_samples(self._votes(leaves))
        return np.asarray(H).reshape(len(leaves), -1), np.asarray(V).reshape(len(leaves))

    def predict(self, X, prediction=None):
        """F-measure prediction, (n, m) in y's dtype (or (n,) for a 1-d fit y).

        ``prediction`` overrides the estimator's ``prediction`` for this call.
        """
        return self._decode(self._infer(X, prediction)[0])

    def predict_expected_f(self, X, prediction=None):
        """Expected F-measure of each prediction under the ensemble's label distribution, (n,).

        ``"pooled"``: the pooled training label vectors of the leaves that x reaches (each counted
        with its bootstrap multiplicity); ``"vote"``: the B trees' predictions. Either way the
        prediction is GFM's maximiser and this is GFM's value.
        """
        return self._infer(X, prediction)[1]

    def predict_marginals(self, X, prediction=None):
        """Marginals P(y_j = 1 | x) of the ensemble's label distribution, (n, m) ((n,) for a 1-d fit y).

        ``"pooled"``: the weighted frequency of each label among the pooled training label
        vectors; ``"vote"``: the fraction of the trees that predict it.
        """
        how = self._how(prediction)
        leaves = self.apply(X)
        if how == "vote":
            return self._decode_marginals(self._votes(leaves).mean(axis=1))
        m = self.n_labels_
        P = np.zeros((len(leaves), m))
        for sl, C, smax in _pooled_counts(self.train_leaves_, leaves, self.Y_train_, self.multiplicity_):
            P[sl] = C[:, : m * smax].reshape(len(C), m, smax).sum(axis=2) / C[:, -1:]
        return self._decode_marginals(P)
