"""F-optimal predictions from any probabilistic scikit-learn multi-label model.

:class:`FOptimalClassifier` wraps a scikit-learn estimator: it fits it (or takes it already
fitted, wrapped in :class:`sklearn.frozen.FrozenEstimator`), reads the label distribution the
model gives for each instance, and predicts the label set that maximises the expected
instance-wise F-measure under that distribution, by exact inference:

====================================================  ===============================================  =========
estimator (or a Pipeline's last step)                 distribution of y given x (``distribution_``)    inference
====================================================  ===============================================  =========
``predict_proba`` of per-label marginals              independent labels with those marginals          FM
``ClassifierChain``                                   ancestral samples from the chain's models        GFM
``RandomForestClassifier``, ``ExtraTreesClassifier``  pooled training label vectors of the leaves      GFM
                                                      the instance falls in (one per tree)
``KNeighborsClassifier``                              the neighbours' label vectors (its weights)      GFM
``LabelPowerset`` (:mod:`fmeasure.learners`)          the training label sets, weighted by the         GFM
                                                      classifier's ``predict_set_proba``
====================================================  ===============================================  =========

FM is Ye et al.'s dynamic program (:func:`fmeasure.inference.fm`), exact under label
independence; GFM (:func:`fmeasure.inference.gfm_from_samples`) is exact for any joint
distribution, here the (weighted) empirical distribution of the label vectors.

Cost per predicted instance, m labels: the marginal route adds O(m^2) to the estimator's
``predict_proba`` (the DP), in batches, no Python loop over instances. The chain route draws
``n_samples`` label vectors: m calls of the base models' ``predict_proba`` on
``n * n_samples`` rows (for ``LogisticRegression`` base models one matrix product for the features,
then a compiled walk down the chain in O(n_samples * m * (1 + s)) per instance, s the labels drawn
positive), then GFM in O(n_samples * m + m^2 * s_max).
The forest route pools up to ``n_estimators`` leaves, the neighbour route ``n_neighbors``
vectors, the powerset route the K distinct training label sets. GFM builds P over the k labels
that occur in an instance's sample only: O(k * s_max) per size it evaluates, whatever m. The
forest and neighbour routes hand it the pooled rows of the training labels in sparse form
(:func:`fmeasure.inference.gfm_from_sample_rows`), so reading a pool of K vectors costs O(K * c)
for c labels per vector rather than O(K * m). Memory: chunks of instances, each chunk at most a
few tens of MB.
"""

from __future__ import annotations

import logging
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import _safe_indexing, check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import _num_samples, check_array, check_is_fitted

from fmeasure.inference import (
    expected_f_independent,
    fm,
    from_samples,
    gfm_from_sample_rows,
    gfm_from_samples,
    marginal_modes,
)
from fmeasure.io import progress
from fmeasure.learners.base import MultiLabelClassifier, check_labels, expected_f_of_samples, fit_context

__all__ = ["FOptimalClassifier", "chain_samples", "INFERENCE_BY_DISTRIBUTION"]

#: Inference methods that ``inference`` may force.
INFERENCES = ("fm", "gfm", "threshold")
#: The inference used with each distribution (``distribution_``) when ``inference="auto"``: FM for
#: independent marginals, GFM for the distributions given by samples.
INFERENCE_BY_DISTRIBUTION = {
    "marginals": "fm",
    "chain": "gfm",
    "forest": "gfm",
    "neighbors": "gfm",
    "powerset": "gfm",
}

log = logging.getLogger(__name__)

_CHUNK_BYTES = 32 * 2**20  # working memory per chunk of instances


def _unwrap(est):
    """The model that decides the route, and the transformer in front of it (or None).

    FrozenEstimator is looked through; a Pipeline is routed by its last step, its other steps
    transform X first.
    """
    from sklearn.frozen import FrozenEstimator
    from sklearn.pipeline import Pipeline

    pre = None
    while True:
        if isinstance(est, FrozenEstimator):
            est = est.estimator
        elif isinstance(est, Pipeline):
            if len(est.steps) > 1:
                if pre is not None:
                    raise ValueError("estimator: nested Pipelines with transformers are not supported")
                pre = est[:-1]
            est = est.steps[-1][1]
        else:
            return est, pre


def _distribution_of(model) -> str:
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.multioutput import ClassifierChain
    from sklearn.neighbors import KNeighborsClassifier

    from fmeasure.learners.powerset import LabelPowerset

    if isinstance(model, LabelPowerset):
        return "powerset"
    if isinstance(model, ClassifierChain):
        return "chain"
    if isinstance(model, (RandomForestClassifier, ExtraTreesClassifier)):
        return "forest"
    if isinstance(model, KNeighborsClassifier):
        return "neighbors"
    return "marginals"


def _positive_column(proba, classes, j):
    """P(y_j = 1) from one label's (n, k) class probabilities and its classes."""
    classes = np.asarray(classes)
    if not np.isin(classes, (0, 1)).all():
        raise ValueError(f"estimator: label {j} has classes {classes.tolist()}, expected 0/1")
    hit = np.flatnonzero(classes == 1)
    if hit.size:
        return proba[:, hit[0]]
    return np.zeros(proba.shape[0])  # only class 0 seen in training


def _check_probabilities(P, what):
    if not np.all(np.isfinite(P)) or P.min(initial=0.0) < 0 or P.max(initial=0.0) > 1:
        raise ValueError(f"estimator: {what} returned probabilities outside [0, 1] or NaN")
    return P


def marginals_from_proba(proba, m, classes=None):
    """Per-label marginals P(y_j = 1 | x), (n, m), from a multi-label ``predict_proba`` output.

    Parameters
    ----------
    proba : list of m arrays (n, 2) (or (n, 1) for a label with one class), or array (n, m)
        For m = 1 also the (n, n_classes) class probabilities of a single-output classifier,
        read through ``classes``.
    m : int
        Number of labels.
    classes : list of arrays, or one array, optional
        The estimator's ``classes_``: one array per label for the list form (default [0, 1]);
        one array for a single-output classifier (m = 1).

    Examples
    --------
    >>> marginals_from_proba([np.array([[0.2, 0.8]]), np.array([[0.9, 0.1]])], 2)
    array([[0.8, 0.1]])
    """
    if isinstance(proba, list):
        if len(proba) != m:
            raise ValueError(f"estimator: predict_proba gave {len(proba)} labels, expected {m}")
        cols = []
        for j, pj in enumerate(proba):
            pj = np.asarray(pj, dtype=np.float64)
            _check_probabilities(pj, "predict_proba")
            cj = classes[j] if classes is not None else np.arange(pj.shape[1])
            cols.append(_positive_column(pj, cj, j))
        P = np.column_stack(cols)
    else:
        P = np.asarray(proba, dtype=np.float64)
        if m == 1 and _single_output_classes(classes, P):
            # one label from a single-output binary classifier: columns are its classes_
            return _positive_column(_check_probabilities(P, "predict_proba"), classes, 0)[:, None]
        if P.ndim != 2 or P.shape[1] != m:
            raise ValueError(
                f"estimator: predict_proba gave shape {P.shape}, expected per-label marginals (n, {m}) "
                "or a list of m (n, 2) arrays"
            )
    return _check_probabilities(P, "predict_proba")


def _single_output_classes(classes, P):
    """Whether ``classes`` is one ``classes_`` array that labels the columns of ``P``."""
    if classes is None or isinstance(classes, list):
        return False
    classes = np.asarray(classes)
    return classes.ndim == 1 and P.ndim == 2 and P.shape[1] == classes.size


def _linear_chain_link(est, d_aug):
    """(w, b) if ``est`` is a binary LogisticRegression with classes [0, 1] (fast sampling)."""
    from sklearn.linear_model import LogisticRegression

    if type(est) is LogisticRegression and list(est.classes_) == [0, 1] and est.coef_.shape == (1, d_aug):
        return est.coef_[0], float(est.intercept_[0])
    return None


def chain_samples(chain, X, n_samples, random_state=None):
    """Ancestral samples of label vectors from a fitted ``sklearn.multioutput.ClassifierChain``.

    Label ``order_[k]`` is drawn from ``estimators_[k].predict_proba`` given x and the labels
    drawn before it, as the chain was trained (x followed by the earlier labels in chain order).
    The same uniform draws serve every instance (common random numbers): an instance's sample
    depends on its x and the seed only, not on the other instances of the batch.

    Parameters
    ----------
    chain : fitted ClassifierChain whose base estimators have ``predict_proba``
    X : array-like or sparse (n, d)
    n_samples : int
    random_state : int, Generator or None

    Returns
    -------
    ndarray of int8, shape (n, n_samples, m), in the original label order.
    """
    rng = np.random.default_rng(random_state) if not isinstance(random_state, np.random.Generator) else random_state
    order = np.asarray(chain.order_)
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    m, n = len(order), X.shape[0]
    d = X.shape[1]
    S = int(n_samples)
    out = np.zeros((n, S, m), dtype=np.int8)
    links = [_linear_chain_link(e, d + k) for k, e in enumerate(chain.estimators_)]
    lin = all(link is not None for link in links)
    if lin:  # x-part of every logit in one product
        from fmeasure.learners._sampling import chain_draws_linear

        Wx = np.column_stack([w[:d] for w, _ in links])
        base = np.asarray(X @ Wx) + np.array([b for _, b in links])
        # V[k, j]: the weight of chain label k in the logit of chain label j > k
        V = np.zeros((m, m))
        for j, (w, _) in enumerate(links):
            V[:j, j] = w[d:]
    U = rng.random((S, m))  # common random numbers: one draw serves every instance
    if lin:
        with np.errstate(divide="ignore"):
            L = np.log(U) - np.log1p(-U)  # u < sigma(z) exactly when z > log(u / (1 - u))
    rows = max(1, _CHUNK_BYTES // (S * m + (0 if lin else 8 * S * (d + m))))
    for s0 in range(0, n, rows):
        sl = slice(s0, min(n, s0 + rows))
        c = sl.stop - sl.start
        Yc = np.zeros((c, S, m), dtype=np.int8)  # in chain order
        if lin:  # compiled: one sample's logits at a time, moved only by the labels drawn positive
            chain_draws_linear(np.ascontiguousarray(base[sl]), V, L, Yc)
        else:
            Xr = X[sl]
            Xr = sp.csr_array(Xr)[np.repeat(np.arange(c), S)] if sp.issparse(Xr) else np.repeat(np.asarray(Xr), S, 0)
            for k, est in enumerate(chain.estimators_):
                prev = Yc[:, :, :k].reshape(c * S, k).astype(np.float64)
                Xa = sp.hstack([Xr, sp.csr_array(prev)], format="csr") if sp.issparse(Xr) else np.hstack([Xr, prev])
                pr = _check_probabilities(np.asarray(est.predict_proba(Xa), dtype=np.float64), "predict_proba")
                p = _positive_column(pr, est.classes_, int(order[k])).reshape(c, S)
                Yc[:, :, k] = U[None, :, k] < p
        out[sl][:, :, order] = Yc
    return out


def _routed_sample_weight(est, fit_params, n):
    """The ``sample_weight`` that ``fit_params`` pass to the model deciding the route, (n,), or None.

    Directly (``sample_weight``) or through Pipelines (``<last step>__sample_weight``).
    """
    from sklearn.pipeline import Pipeline

    names, e = [], est
    while isinstance(e, Pipeline):
        name, e = e.steps[-1]
        names.append(name)
    key = "__".join([*names, "sample_weight"])
    sw = fit_params.get(key)
    return None if sw is None else np.broadcast_to(np.asarray(sw, dtype=np.float64), (n,))


def _forest_neighbourhoods(train_leaves, query_leaves):
    """Pooled leaf neighbourhoods: (idx, w), each (n_query, K), zero-padded.

    ``w[i, j]`` counts the trees in which training example ``idx[i, j]`` shares query i's leaf.
    """
    n_train, B = train_leaves.shape
    sizes = np.maximum(train_leaves.max(axis=0), query_leaves.max(axis=0)) + 1  # leaf ids per tree
    offset = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    G = int(sizes.sum())
    ones = np.ones(n_train * B)
    A_tr = sp.csr_array((ones, (np.repeat(np.arange(n_train), B), (train_leaves + offset).ravel())), shape=(n_train, G))
    nq = query_leaves.shape[0]
    A_q = sp.csr_array((np.ones(nq * B), (np.repeat(np.arange(nq), B), (query_leaves + offset).ravel())), shape=(nq, G))
    W = sp.csr_array(A_q @ A_tr.T)
    W.sort_indices()
    return _pad_rows(W)


def _pad_rows(W):
    lens = np.diff(W.indptr)
    K = max(1, int(lens.max(initial=0)))
    n = W.shape[0]
    idx = np.zeros((n, K), dtype=np.intp)
    w = np.zeros((n, K))
    rows = np.repeat(np.arange(n), lens)
    cols = np.arange(W.nnz) - np.repeat(W.indptr[:-1], lens)
    idx[rows, cols] = W.indices
    w[rows, cols] = W.data
    return idx, w


def _knn_weights(knn, dist):
    if knn.weights == "uniform" or knn.weights is None:
        return None
    if knn.weights == "distance":
        with np.errstate(divide="ignore"):
            w = 1.0 / dist
        exact = ~np.isfinite(w)
        rows = exact.any(axis=1)
        w[rows] = exact[rows]  # an exact match takes all the weight, as in scikit-learn
        return w
    return np.asarray(knn.weights(dist), dtype=np.float64)


def _neighbour_labels(knn):
    """The training label matrix (n_train, m) int8 of a fitted ``KNeighborsClassifier``."""
    codes = np.asarray(knn._y).reshape(len(knn._y), -1)
    classes = knn.classes_ if isinstance(knn.classes_, list) else [knn.classes_]
    if all(len(c) <= 2 and np.isin(c, (0, 1)).all() for c in classes):
        # 0/1 classes: one lookup of every code in a (m, 2) table, int8 throughout
        table = np.zeros((len(classes), 2), dtype=np.int8)
        for j, c in enumerate(classes):
            table[j, : len(c)] = c
        return table[np.arange(len(classes))[None, :], codes]
    Ytr = np.column_stack([np.asarray(c)[codes[:, j]] for j, c in enumerate(classes)])
    return check_labels(Ytr, name="the neighbours' labels")


def _is_frozen(est):
    """Whether the model that decides the route is already fitted (a FrozenEstimator on its way)."""
    from sklearn.frozen import FrozenEstimator
    from sklearn.pipeline import Pipeline

    while True:
        if isinstance(est, FrozenEstimator):
            return True
        if not isinstance(est, Pipeline):
            return False
        est = est.steps[-1][1]


def _varying_labels(Y, est, distribution):
    """The labels ``est`` is fitted on, and the labels set aside as constant (both index arrays).

    In the marginal and chain routes, which fit a model per label, a label with one class only in
    training is set aside when the estimator is fitted here: it gets marginal exactly 0 or 1, and
    an explicit chain ``order`` is restricted to the other labels. Raises when no label varies.
    """
    m = Y.shape[1]
    const = (Y == Y[:1]).all(axis=0) if len(Y) else np.zeros(m, bool)
    if distribution not in ("marginals", "chain") or _is_frozen(est) or not const.any():
        return np.arange(m), np.zeros(0, np.intp)
    if const.all():
        which = ", ".join(map(str, range(m)))
        raise ValueError(
            f"y: every label has one class only in training (label{'s' if m > 1 else ''} {which}): "
            "the estimator has nothing to learn"
        )
    keep = np.flatnonzero(~const)
    model, _ = _unwrap(est)
    order = getattr(model, "order", None) if distribution == "chain" else None
    if order is not None and not isinstance(order, str) and sorted(np.asarray(order).tolist()) == list(range(m)):
        rank = np.cumsum(~const) - 1  # a varying label's index among the varying labels
        model.set_params(order=[int(rank[j]) for j in order if not const[j]])
    return keep, np.flatnonzero(const)


class FOptimalClassifier(MultiLabelClassifier):
    """F-optimal label sets from a probabilistic scikit-learn multi-label model.

    Fits a clone of ``estimator`` on (X, Y), reads the distribution of the labels that it gives
    for each instance, and predicts the label set with the largest expected instance-wise
    F-measure under that distribution (the table in :mod:`fmeasure.learners.foptimal`).

    Y is a 0/1 matrix (n, m), dense or sparse. A 1-D y is one label whose two classes may be any
    values: predictions are then 1-D too, in those values (the estimator is fitted on the label
    coded 0/1, 1 for ``classes_[-1]``). With one label a plain binary classifier
    (``LogisticRegression``) is fitted on it as scikit-learn expects (a 1-D y) and read through
    its ``classes_``. In the marginal and chain routes a label with one class only in training is
    not given to the estimator (which would refuse it): its marginal is exactly that class, 0 or
    1, and a chain draws it constant.

    Parameters
    ----------
    estimator : estimator with ``fit`` and ``predict_proba``
        A multi-label classifier (Y a 0/1 matrix), a binary classifier for one label, or a
        Pipeline ending in one. An already fitted
        model is passed as ``sklearn.frozen.FrozenEstimator(model)``: it is used as it is and not
        refitted (the forest route still takes its leaves' training label vectors from the X, Y
        given to :meth:`fit`).
    inference : {"auto", "fm", "gfm", "threshold"}, default "auto"
        "auto": FM for per-label marginals, GFM for the chain, forest, neighbour and powerset
        distributions. "fm": FM on the distribution's marginals; "gfm": GFM (on ``n_samples``
        vectors drawn from independent marginals for the marginal route); "threshold": labels
        with marginal > 0.5.
    n_samples : int, default 1000
        Label vectors drawn per instance (chain route, and "gfm" on marginals).
    random_state : int, RandomState instance or None
        Seeds the draws.

    Attributes
    ----------
    estimator_ : the fitted estimator
    distribution_ : {"marginals", "chain", "forest", "neighbors", "powerset"}
    inference_ : {"fm", "gfm", "threshold"}
    route_ : str
        ``f"{distribution_}+{inference_}"``, e.g. ``"marginals+fm"``.
    constant_labels_ : ndarray of int
        Labels set aside because they have one class only in training (marginal and chain routes
        of an estimator fitted here; empty otherwise).
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`); X reaches
        the estimator with its values and dtype (a DataFrame stays one).

    See Also
    --------
    FOptimalSearchCV : The route chosen by cross-validation on the training set.
    fmeasure.inference.fm : The inference of the marginal route (FM).
    fmeasure.inference.gfm_from_samples : The inference of the sample routes (GFM).
    fmeasure.metrics.f_measure_scorer : The mean instance-wise F-measure as a scorer.

    Examples
    --------
    >>> from sklearn.multioutput import MultiOutputClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); Y = np.array([[1, 0], [1, 1], [0, 1], [0, 1]])
    >>> clf = FOptimalClassifier(MultiOutputClassifier(LogisticRegression())).fit(X, Y)
    >>> clf.route_, clf.predict([[0.0], [3.0]]).tolist()
    ('marginals+fm', [[1, 1], [0, 1]])
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "inference": [StrOptions({"auto", *INFERENCES})],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, inference="auto", n_samples=1000, random_state=None):
        self.estimator = estimator
        self.inference = inference
        self.n_samples = n_samples
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        # a label matrix is accepted (one column for a binary classifier); several labels when
        # the estimator takes them
        several = inner.target_tags.multi_output or bool(inner.classifier_tags and inner.classifier_tags.multi_label)
        tags.classifier_tags.multi_label = several
        return tags

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Fit a clone of the estimator on (X, y) (a FrozenEstimator is not refitted).

        A ``sample_weight`` among ``fit_params`` (for a Pipeline ``<last step>__sample_weight``)
        also weights the training label vectors that the forest route pools.

        Parameters
        ----------
        X : array-like or sparse (n, d)
        y : array-like or sparse (n, m), 0/1 label matrix, m >= 1; or (n,), one label with two classes
        **fit_params : passed to the estimator's ``fit``

        Returns
        -------
        self
        """
        X, Y = self._validate_xy(X, y, skip_check_array=True)
        est = clone(self.estimator)
        keep, const = _varying_labels(Y, est, _distribution_of(_unwrap(est)[0]))
        Yfit = Y[:, keep] if const.size else Y
        if Yfit.shape[1] == 1 and get_tags(_unwrap(est)[0]).target_tags.single_output:
            Yfit = Yfit[:, 0]  # one label for a single-output classifier, as scikit-learn expects it
        self.estimator_ = est.fit(X, Yfit, **fit_params)
        self._worker_cpu_time += float(getattr(self.estimator_, "_worker_cpu_time", 0.0))
        self.constant_labels_ = const
        self._fitted_labels = keep
        self._constants = Y[0, const] if const.size else np.zeros(0, np.int8)
        model, pre = _unwrap(self.estimator_)
        self.distribution_ = _distribution_of(model)
        self.inference_ = INFERENCE_BY_DISTRIBUTION[self.distribution_] if self.inference == "auto" else self.inference
        self.route_ = f"{self.distribution_}+{self.inference_}"
        if self.distribution_ == "chain" and not all(hasattr(e, "predict_proba") for e in model.estimators_):
            raise ValueError("estimator: the ClassifierChain's base estimators have no predict_proba")
        if self.distribution_ == "forest":
            Xt = pre.transform(X) if pre is not None else X
            self._train_leaves = model.apply(Xt)
            self._train_Y = Y
            self._train_weight = _routed_sample_weight(est, fit_params, len(Y))
        if self.distribution_ == "neighbors":
            self._train_Y = _neighbour_labels(model)
        if self.distribution_ in ("forest", "neighbors"):
            self._train_rows = sp.csr_array(self._train_Y)  # the labels GFM reads, sparse
        return self

    # ------------------------------------------------------------------ the route's distribution
    def label_samples(self, X):
        """The label vectors (and their weights) whose empirical distribution the route infers from.

        Only for the sample routes (``distribution_`` "chain", "forest", "neighbors" or "powerset").

        Returns
        -------
        Ys : ndarray of int8, shape (n, K, m)
            Chain: ``n_samples`` ancestral draws; forest: the training label vectors pooled from
            the instance's leaves (zero-padded to the largest pool); neighbours: the neighbours';
            powerset: the model's ``label_sets_`` (the same K vectors for every instance).
        weights : ndarray (n, K) or None
            Forest: the number of trees in which each training vector shares the leaf (0 for
            padding); neighbours: the estimator's weights (None when uniform); powerset: the
            model's ``predict_set_proba``; chain: None.
        """
        return self._label_samples(self._validate_X(X, skip_check_array=True))

    def _label_samples(self, X):
        check_is_fitted(self, "route_")
        if self.distribution_ == "marginals":
            raise ValueError("label_samples: the marginal route has no sample (use predict_marginals)")
        model, pre = _unwrap(self.estimator_)
        Xt = pre.transform(X) if pre is not None else X
        if self.distribution_ == "chain":
            return self._with_constants(chain_samples(model, Xt, self.n_samples, self._rng())), None
        if self.distribution_ == "powerset":
            w = _check_probabilities(np.asarray(model.predict_set_proba(Xt), dtype=np.float64), "predict_set_proba")
            return np.broadcast_to(model.label_sets_, (len(w), *model.label_sets_.shape)), w
        idx, w = self._sample_rows(Xt)
        return self._train_Y[idx], w

    def _sample_rows(self, Xt):
        """Forest and neighbour routes: the training rows of each instance's sample and their
        weights, ``(idx (n, K), w (n, K) or None)``; the sample is ``self._train_Y[idx]``."""
        model, _ = _unwrap(self.estimator_)
        if self.distribution_ == "forest":
            idx, w = _forest_neighbourhoods(self._train_leaves, model.apply(Xt))
            if self._train_weight is not None:
                sw = w * self._train_weight[idx]
                some = sw.sum(axis=1) > 0  # else every pooled vector weighs 0: keep their counts
                w[some] = sw[some]
            return idx, w
        dist, idx = model.kneighbors(Xt)
        return idx, _knn_weights(model, dist)

    def _rng(self):
        return np.random.default_rng(check_random_state(self.random_state).randint(2**32 - 1))

    def _marginals(self, X):
        model, _ = _unwrap(self.estimator_)
        proba = self.estimator_.predict_proba(X)
        return self._with_constants(
            marginals_from_proba(proba, len(self._fitted_labels), getattr(model, "classes_", None))
        )

    def _with_constants(self, A):
        """Marginals (n, m_fit) or samples (n, K, m_fit) of the fitted labels, completed with the
        labels set aside as constant in training (their marginal, or every draw, is that constant)."""
        if not self.constant_labels_.size:
            return A
        full = np.empty(A.shape[:-1] + (self.n_labels_,), dtype=A.dtype)
        full[..., self._fitted_labels] = A
        full[..., self.constant_labels_] = self._constants
        return full

    def _infer(self, X):
        X = self._validate_X(X, skip_check_array=True)
        if self.distribution_ == "marginals":
            P = self._marginals(X)
            if self.inference_ == "fm":
                return fm(P)
            if self.inference_ == "threshold":
                return marginal_modes(P)
            U = self._rng().random((self.n_samples, P.shape[1]))  # common random numbers
            H = np.zeros(P.shape, np.int8)
            rows = max(1, _CHUNK_BYTES // (U.size + 1))
            for s0 in range(0, len(P), rows):
                H[s0 : s0 + rows] = gfm_from_samples((U[None] < P[s0 : s0 + rows, None, :]).astype(np.int8))[0]
            return H, expected_f_independent(P, H) if len(P) else np.zeros(0)
        method = {"gfm": "gfm", "fm": "fm", "threshold": "mm"}[self.inference_]
        X = X.tocsr() if sp.issparse(X) else X  # row chunks of any sparse format
        n = _num_samples(X)
        H = np.zeros((n, self.n_labels_), np.int8)
        V = np.zeros(n)
        chunks = self._row_chunks(n)
        for sl in progress(chunks, desc=f"{self.route_}: chunks of instances done", logger=log, every=30.0):
            # the samples of a chunk of instances at a time
            Xc = _safe_indexing(X, np.arange(sl.start, sl.stop))
            if self._by_rows():  # GFM straight from the training rows: no (n, K, m) sample
                _, pre = _unwrap(self.estimator_)
                idx, w = self._sample_rows(pre.transform(Xc) if pre is not None else Xc)
                H[sl], V[sl] = gfm_from_sample_rows(self._train_rows, idx, w)  # V: E[F] of H
                continue
            Ys, w = self._label_samples(Xc)
            H[sl] = from_samples(Ys, method, weights=w)[method]
            V[sl] = expected_f_of_samples(Ys, w, H[sl])
        return H, V

    def _by_rows(self):
        """Whether inference reads the samples as rows of the training labels (GFM on the forest
        and neighbour routes)."""
        return self.inference_ == "gfm" and self.distribution_ in ("forest", "neighbors")

    def _row_chunks(self, n):
        model, _ = _unwrap(self.estimator_)
        width = {
            "chain": self.n_samples,
            "neighbors": getattr(model, "n_neighbors", 5),
            "forest": 16 * len(getattr(model, "estimators_", [])),  # pooled leaves: a few per tree
            "powerset": len(getattr(model, "label_sets_", ())),
        }[self.distribution_]
        if self._by_rows():  # index and weight of a sample row, and its labels' occurrences
            card = self._train_rows.nnz / max(1, self._train_rows.shape[0])
            per_row = 16 + 40 * card
        else:  # a dense sample vector and its copies
            per_row = 4 * self.n_labels_
        rows = max(1, int(_CHUNK_BYTES // (max(1, width) * per_row)))
        return [slice(s0, min(n, s0 + rows)) for s0 in range(0, n, rows)]

    # ------------------------------------------------------------------ public predictions
    def predict(self, X):
        """F-optimal label sets, (n, m) in y's dtype; (n,) in ``classes_`` when fitted on a 1-D y."""
        return self._decode(self._infer(X)[0])

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under the route's distribution, (n,)."""
        return np.asarray(self._infer(X)[1], dtype=np.float64)

    def predict_marginals(self, X):
        """Marginals P(y_j = 1 | x) of the route's distribution, (n, m).

        For the sample routes (chain, forest, neighbours, powerset) the marginals of the (weighted)
        label vectors; for a ClassifierChain these are not the chain's own ``predict_proba``. (n,)
        when fitted on a 1-D y (the probability of ``classes_[-1]``).
        """
        X = self._validate_X(X, skip_check_array=True)
        if self.distribution_ == "marginals":
            return self._decode_marginals(self._marginals(X))
        X = X.tocsr() if sp.issparse(X) else X
        n = _num_samples(X)
        P = np.zeros((n, self.n_labels_))
        for sl in self._row_chunks(n):
            Ys, w = self._label_samples(_safe_indexing(X, np.arange(sl.start, sl.stop)))
            P[sl] = Ys.mean(axis=1) if w is None else np.einsum("nkm,nk->nm", Ys, w) / w.sum(axis=1)[:, None]
        return self._decode_marginals(P)
