"""Instance-based multi-label learning with F-measure inference (paper Section 7.1.1).

A query's ``l`` nearest training instances form an empirical label distribution; the
parameters an inference method needs (marginals, Delta and P(y = 0), the joint mode) are
counted from the neighbours' label vectors with :mod:`fmeasure.estimation`, and the
prediction is made by :mod:`fmeasure.inference`, batched over all query instances:

- ``"mm"``  marginal modes (Hamming-optimal); a label carried by exactly half of the
  neighbours is predicted (``mm_half=1``, as in the paper's Table 2),
- ``"jm"``  joint mode of the neighbourhood (subset 0/1-optimal); among equally frequent
  label vectors the one seen first in (distance, index) order, i.e. the one of the nearest
  neighbour, wins (:func:`fmeasure.estimation.joint_mode`),
- ``"fm"``  the Ye et al. (2012) dynamic program on the marginals (F-optimal under label
  independence),
- ``"gfm"`` the exact General F-measure Maximizer on Delta and P(y = 0).

Neighbour search uses scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors`. By
default the distance imitates Weka's ``EuclideanDistance`` (used by the paper through
Weka/Mulan): Euclidean distance on attributes rescaled to [0, 1] by the *training* set's
minimum and range; a constant training attribute maps to 0 (Weka's rule), query values
outside the training range are not clipped.

Ties in distance are resolved deterministically. ``ties="index"`` (default) takes the
first ``l`` training instances in the order (distance, training index), i.e. among
equidistant instances the one that comes first in the training file wins; neighbourhoods
then have exactly ``l`` members and the ``l``-neighbourhood is a prefix of the
``(l + 1)``-neighbourhood. ``ties="all"`` imitates Weka's ``LinearNNSearch``, which
returns every training instance tied with the ``l``-th distance, so a neighbourhood may
hold more than ``l`` instances (all weighted equally). "Equal distance" means equal
squared distance after rounding to multiples of ``tie_tolerance`` (1e-9), which absorbs the
round-off of scikit-learn's Euclidean distances.
"""

from __future__ import annotations

import logging
import os
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors
from sklearn.utils._param_validation import Interval, Options, StrOptions
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from fmeasure import inference
from fmeasure.learners.base import MultiLabelClassifier, expected_f_of_samples, fit_context

__all__ = [
    "KNeighborsFMeasure",
    "INFERENCE_METHODS",
    "minmax_scale_params",
]

logger = logging.getLogger(__name__)

#: Inference methods understood by :class:`KNeighborsFMeasure`.
INFERENCE_METHODS = inference.SAMPLE_METHODS
_SCALINGS = ("minmax", "none")
_TIES = ("index", "all")


def minmax_scale_params(X):
    """Return ``(offset, scale)`` rescaling each column of ``X`` to [0, 1] like Weka.

    ``(X - offset) * scale`` maps the training minimum to 0 and maximum to 1; a constant
    column gets ``scale = 0`` so every value of it maps to 0 (Weka's ``norm`` rule).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)

    Returns
    -------
    offset, scale : ndarray of shape (d,)

    Examples
    --------
    >>> minmax_scale_params(np.array([[0.0, 5.0], [2.0, 5.0]]))
    (array([0., 5.]), array([0.5, 0. ]))
    """
    if sp.issparse(X):
        lo = np.asarray(X.min(axis=0).toarray()).ravel().astype(np.float64)
        hi = np.asarray(X.max(axis=0).toarray()).ravel().astype(np.float64)
    else:
        lo = np.min(X, axis=0).astype(np.float64)
        hi = np.max(X, axis=0).astype(np.float64)
    width = hi - lo
    scale = np.zeros_like(width)
    nz = width > 0
    scale[nz] = 1.0 / width[nz]
    return lo, scale


class KNeighborsFMeasure(MultiLabelClassifier):
    """k-nearest-neighbour multi-label classifier with F-measure (or MM/JM) inference.

    Parameters
    ----------
    n_neighbors : int, default=10
        Neighbourhood size ``l`` (paper: 10, 20, 50, 100).
    inference : {"gfm", "fm", "mm", "jm"}, default="gfm"
        How the neighbours' label vectors are turned into a prediction.
    scaling : {"minmax", "none"}, default="minmax"
        ``"minmax"`` rescales attributes to [0, 1] by the training ranges before computing
        distances (Weka's default); ``"none"`` uses the raw attributes.
    ties : {"index", "all"}, default="index"
        Tie rule in distance: ``"index"`` keeps exactly ``n_neighbors`` instances ordered by
        (distance, training index); ``"all"`` also keeps every instance tied with the
        ``n_neighbors``-th distance (Weka's ``LinearNNSearch``).
    mm_half : {1, 0}, default=1
        For ``inference="mm"``: the prediction for a label carried by exactly half of the
        neighbours (both are Hamming-optimal). 1 (predict the label) reproduces the paper's
        Table 2 exactly on scene and yeast; :func:`fmeasure.inference.marginal_modes`
        alone predicts 0.
    tie_tolerance : float, default=1e-9
        Squared distances are rounded to multiples of this before ordering, so that
        distances equal in exact arithmetic but apart by round-off (scikit-learn computes
        ``|x|^2 - 2 x.y + |y|^2``) count as ties. 0 compares raw floats.
    metric : str or callable, default="euclidean"
        Passed to :class:`~sklearn.neighbors.NearestNeighbors`.
    algorithm : {"brute", "auto", "ball_tree", "kd_tree"}, default="brute"
        Passed to :class:`~sklearn.neighbors.NearestNeighbors`.
    chunk_size : int or None, default=None
        Number of query instances handled at once in :meth:`predict` (bounds memory: MM,
        JM and FM gather the neighbours' labels as a (chunk, n_neighbors, m) array; GFM
        reads them from the sparse training labels). ``None`` picks a size keeping the
        gathered labels near 16 MB.
    n_jobs : int or None, default=None
        Threads for the neighbour search (passed to
        :class:`~sklearn.neighbors.NearestNeighbors` and used as the OpenMP thread limit
        of its brute-force search): ``None`` means 1, ``-1`` all cores.

    Attributes
    ----------
    offset_, scale_ : ndarray of shape ``(n_features_in_,)``
        The attribute rescaling ``(x - offset_) * scale_`` (identity for ``scaling="none"``).
    nn_ : NearestNeighbors
        The fitted neighbour index on the rescaled training attributes.
    Y_train_ : ndarray of shape (n_train, m), int8
        Training label vectors (0/1).
    n_train_ : int
        Number of training instances.
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0]])
    >>> Y = np.array([[1, 0], [1, 1], [1, 0], [0, 1]])
    >>> knn = KNeighborsFMeasure(n_neighbors=3, inference="mm").fit(X, Y)
    >>> knn.predict([[0.05]]), knn.predict_marginals([[0.05]]).round(2)
    (array([[1, 0]]), array([[1.  , 0.33]]))
    """

    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "inference": [StrOptions(set(INFERENCE_METHODS))],
        "scaling": [StrOptions(set(_SCALINGS))],
        "ties": [StrOptions(set(_TIES))],
        "mm_half": [Options(Integral, {0, 1})],
        "tie_tolerance": [Interval(Real, 0, None, closed="left")],
        "metric": [str, callable],
        "algorithm": [StrOptions({"brute", "auto", "ball_tree", "kd_tree"})],
        "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_neighbors=10,
        inference="gfm",
        scaling="minmax",
        ties="index",
        mm_half=1,
        tie_tolerance=1e-9,
        metric="euclidean",
        algorithm="brute",
        chunk_size=None,
        n_jobs=None,
    ):
        self.n_neighbors = n_neighbors
        self.inference = inference
        self.scaling = scaling
        self.ties = ties
        self.mm_half = mm_half
        self.tie_tolerance = tie_tolerance
        self.metric = metric
        self.algorithm = algorithm
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ API helpers
    def _transform(self, X):
        """Rescale attributes; keeps CSR sparse when the offsets are all zero."""
        if self.scaling == "none":
            return X
        if sp.issparse(X):
            if np.any(self.offset_ != 0):
                X = X.toarray()
            else:
                return sp.csr_matrix(X.multiply(self.scale_[None, :]))
        return (X - self.offset_) * self.scale_

    # ------------------------------------------------------------------ fit
    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Store the (rescaled) training set and build the neighbour index.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_train, d)
        y : array-like of shape (n_train, m)
            Binary label matrix (0/1). A 1-d ``y`` is read as a single label with two classes.

        Returns
        -------
        self
        """
        X, Y = self._validate_xy(X, y)
        self.Y_train_ = Y
        if self.scaling == "minmax":
            self.offset_, self.scale_ = minmax_scale_params(X)
        else:
            self.offset_ = np.zeros(X.shape[1])
            self.scale_ = np.ones(X.shape[1])
        self.nn_ = NearestNeighbors(metric=self.metric, algorithm=self.algorithm, n_jobs=self.n_jobs)
        self.nn_.fit(self._transform(X))
        self.n_train_ = X.shape[0]
        return self

    # ------------------------------------------------------------------ neighbours
    def kneighbors(self, X, n_neighbors=None):
        """Neighbours of each query row under the tie rule (see ``ties``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
        n_neighbors : int, optional
            Defaults to ``self.n_neighbors`` (capped at the training size).

        Returns
        -------
        dist : ndarray of shape (n, k)
            Distances, ascending (ties ordered by training index).
        ind : ndarray of shape (n, k)
            Training indices. With ``ties="index"``, ``k = n_neighbors``. With
            ``ties="all"`` ``k`` is the largest neighbourhood size and shorter rows are
            padded with ``-1`` (distance ``inf``).
        """
        X = self._validate_X(X)
        self._validate_params()  # parameters may have been set after fit
        l = min(self.n_neighbors if n_neighbors is None else int(n_neighbors), self.n_train_)
        Xs = self._transform(X)
        return self._search(Xs, l)

    def _search(self, Xs, l):
        n_train = self.n_train_
        # Ask for extra candidates so that ties at the l-th distance can be ordered by
        # training index; rows whose ties run past the candidates are redone in full.
        k = min(n_train, 2 * l + 10)
        tol = self.tie_tolerance
        dist, ind = _sorted_kneighbors(self.nn_, Xs, k, tol, self.n_jobs)
        if k == n_train:
            return self._select(dist, ind, l)
        key = _tie_key(dist, tol)
        redo = np.flatnonzero(key[:, k - 1] <= key[:, l - 1])
        if redo.size == 0:
            return self._select(dist, ind, l)
        logger.debug("kneighbors: %d rows with ties beyond %d candidates", redo.size, k)
        keep = np.setdiff1d(np.arange(dist.shape[0]), redo)
        d1, i1 = self._select(dist[keep], ind[keep], l)
        d2, i2 = self._select(*_sorted_kneighbors(self.nn_, Xs[redo], n_train, tol, self.n_jobs), l)
        width = max(d1.shape[1], d2.shape[1])
        dist = np.full((dist.shape[0], width), np.inf)
        ind = np.full((dist.shape[0], width), -1, dtype=i1.dtype)
        dist[keep, : d1.shape[1]], ind[keep, : i1.shape[1]] = d1, i1
        dist[redo, : d2.shape[1]], ind[redo, : i2.shape[1]] = d2, i2
        return dist, ind

    def _select(self, dist, ind, l):
        """Apply the tie rule to candidates sorted by (distance, index)."""
        if self.ties == "index":
            return dist[:, :l], ind[:, :l]
        key = _tie_key(dist, self.tie_tolerance)
        keep = key <= key[:, l - 1 : l]
        width = int(keep.sum(axis=1).max()) if keep.size else l
        return np.where(keep, dist, np.inf)[:, :width], np.where(keep, ind, -1)[:, :width]

    # ------------------------------------------------------------------ predict
    def _neighbourhoods(self, ind):
        """Rows of equal neighbourhood size, in chunks: yields ``(rows, size)``."""
        sizes = (ind >= 0).sum(axis=1)
        for size in np.unique(sizes):
            rows = np.flatnonzero(sizes == size)
            per = size if self.inference == "gfm" else size * self.n_labels_  # bytes of the sample per instance
            chunk = self.chunk_size or max(1, int(2**24 // max(1, per)))  # ~16 MB of int8 labels
            for start in range(0, rows.size, chunk):
                yield rows[start : start + chunk], size

    def _infer_from_neighbors(self, ind, values=False):
        """0/1 predictions (n, m) from neighbour indices and, with ``values``, their expected F
        under the neighbours' label vectors (n,) (else None)."""
        check_is_fitted(self)
        self._validate_params()  # parameters may have been set after fit
        ind = np.asarray(ind)
        n, m = ind.shape[0], self.n_labels_
        H = np.empty((n, m), dtype=np.int8)
        V = np.empty(n) if values else None
        # GFM reads the neighbours' labels as rows of the (sparse) training labels; the other
        # methods gather the dense (chunk, size, m) sample
        Ysp = sp.csr_array(self.Y_train_) if self.inference == "gfm" else None
        for r, size in self._neighbourhoods(ind):
            if Ysp is not None:
                H[r], v = inference.gfm_from_sample_rows(Ysp, ind[r, :size])  # v: E[F] of H[r]
                if values:
                    V[r] = v
                continue
            Ys = self.Y_train_[ind[r, :size]]  # (chunk, size, m)
            H[r] = inference.from_samples(Ys, self.inference, mm_half=self.mm_half)[self.inference]
            if values:
                V[r] = expected_f_of_samples(Ys, None, H[r])
        return H, V

    def predict_from_neighbors(self, ind):
        """Predict from neighbour indices as returned by :meth:`kneighbors`.

        Rows may be padded with ``-1`` (``ties="all"``); rows of equal neighbourhood size
        are batched together.

        Parameters
        ----------
        ind : ndarray of shape (n, k), int

        Returns
        -------
        H : ndarray of shape (n, m) (or (n,) for a 1-d training ``y``), in the values of y
        """
        return self._decode(self._infer_from_neighbors(ind)[0])

    def predict(self, X):
        """Predict label vectors for the rows of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)

        Returns
        -------
        H : ndarray of shape (n, m) in y's dtype (or (n,) in ``classes_`` for a 1-d training ``y``)
        """
        return self.predict_timed(X)[0]

    def predict_timed(self, X):
        """:meth:`predict`, also returning the seconds spent in search and in inference.

        Returns
        -------
        H : ndarray of shape (n, m) (or (n,) for a 1-d training ``y``)
        timings : dict
            ``{"search": seconds, "inference": seconds}`` (``time.perf_counter``). Search
            includes input validation and attribute rescaling; inference includes gathering
            the neighbours' labels, estimation and the inference method.
        """
        t0 = time.perf_counter()
        _, ind = self.kneighbors(X)
        t1 = time.perf_counter()
        H = self.predict_from_neighbors(ind)
        t2 = time.perf_counter()
        return H, {"search": t1 - t0, "inference": t2 - t1}

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under the neighbours' label distribution, (n,).

        The distribution is the empirical one of the neighbours' label vectors (equal weights);
        with ``inference="gfm"`` this is GFM's value, the largest expected F of any label set.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)

        Returns
        -------
        ndarray of shape (n,)
        """
        _, ind = self.kneighbors(X)
        return self._infer_from_neighbors(ind, values=True)[1]

    def predict_marginals(self, X):
        """Marginals P(y_j = 1 | x) of the neighbours' label distribution, (n, m).

        The fraction of the neighbours that carry each label; (n,) for a 1-d training ``y``
        (the probability of ``classes_[-1]``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)

        Returns
        -------
        ndarray of shape (n, m) or (n,)
        """
        _, ind = self.kneighbors(X)
        n = ind.shape[0]
        sizes = (ind >= 0).sum(axis=1)
        rows = np.repeat(np.arange(n), ind.shape[1])
        keep = ind.ravel() >= 0
        # each neighbour weighs 1 / (its neighbourhood's size): one sparse product gives the means
        W = sp.csr_array(((1.0 / sizes)[rows[keep]], (rows[keep], ind.ravel()[keep])), shape=(n, self.n_train_))
        P = np.asarray((W @ sp.csr_array(self.Y_train_, dtype=np.float64)).toarray())
        return self._decode_marginals(P)


def _tie_key(dist, tol):
    """Squared distances rounded to multiples of ``tol``: equal keys count as a tie."""
    return np.round(np.square(dist) / tol) if tol > 0 else dist


def _sorted_kneighbors(nn, Xs, k, tol, n_jobs):
    """``k`` nearest candidates per row, sorted by (tie key, training index)."""
    # scikit-learn's brute-force search runs OpenMP threads whatever NearestNeighbors'
    # n_jobs says; their start-up dominates small queries, so the
    # thread count follows n_jobs (None -> 1, -1 -> all cores).
    threads = 1 if n_jobs is None else (os.cpu_count() or 1) if n_jobs < 0 else int(n_jobs)
    with threadpool_limits(limits=threads, user_api="openmp"):
        dist, ind = nn.kneighbors(Xs, n_neighbors=k)
    order = np.lexsort((ind, _tie_key(dist, tol)), axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)
