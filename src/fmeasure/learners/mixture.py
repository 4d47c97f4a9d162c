"""GFM on a mixture of the label distributions of several models.

Each sample route of :class:`fmeasure.FOptimalClassifier` (a forest's leaves, the neighbours, a
chain's draws, a :class:`~fmeasure.learners.powerset.LabelPowerset`'s label sets) gives, for an
instance, a weighted set of label vectors: a distribution over {0,1}^m. A weighted average of such
distributions is again one, and GFM is exact for any distribution, so :class:`FOptimalMixture`
predicts the label set with the largest expected F under the mixture. Two models that err in
different places (a forest's neighbourhoods and a powerset classifier's calibrated probabilities)
give a mixture that is often better calibrated than either.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils.validation import _num_samples

from fmeasure.inference import gfm_from_samples
from fmeasure.learners.base import MultiLabelClassifier, fit_context

__all__ = ["FOptimalMixture"]

_ROWS = 128  # instances per chunk: each member's label vectors of a chunk are held at once


class FOptimalMixture(MultiLabelClassifier):
    """F-optimal label sets under a weighted mixture of several models' label distributions.

    Parameters
    ----------
    estimators : list of (str, estimator)
        Named members, each a :class:`fmeasure.FOptimalClassifier` with a sample route (its
        ``distribution_`` one of "chain", "forest", "neighbors", "powerset"), or any estimator
        whose fitted copy has ``label_samples(X) -> (Ys, weights)``.
    weights : list of float or None, default None
        Mixture weight of each member (normalised to sum 1); None: equal weights.

    Every member is fitted on the 0/1 label matrix (a 1-D y as one column) and given X as it is.

    Attributes
    ----------
    estimators_ : list of fitted members
    weights_ : ndarray, the normalised weights
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> from sklearn.ensemble import ExtraTreesClassifier
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from fmeasure.learners import FOptimalClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2)); Y = (X + rng.normal(size=(80, 2)) > 0).astype(int)
    >>> mix = FOptimalMixture([("trees", FOptimalClassifier(ExtraTreesClassifier(10, random_state=0))),
    ...                        ("knn", FOptimalClassifier(KNeighborsClassifier(5)))]).fit(X, Y)
    >>> mix.predict(X[:3]).shape
    (3, 2)
    """

    _parameter_constraints = {"estimators": [list], "weights": ["array-like", None]}

    def __init__(self, estimators, weights=None):
        self.estimators = estimators
        self.weights = weights

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:  # sparse X when every member takes it
            tags.input_tags.sparse = all(get_tags(est).input_tags.sparse for _, est in self.estimators)
        except (TypeError, ValueError, AttributeError):
            tags.input_tags.sparse = False
        return tags

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit a clone of every member on (X, y).

        Parameters
        ----------
        X : array-like or sparse (n, d)
        y : array-like or sparse (n, m), 0/1 label matrix; or (n,), one label with two classes

        Returns
        -------
        self
        """
        if not self.estimators or not all(isinstance(e, tuple) and len(e) == 2 for e in self.estimators):
            raise ValueError("estimators: expected a non-empty list of (name, estimator) pairs")
        k = len(self.estimators)
        w = np.ones(k) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        if w.shape != (k,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError(f"weights: expected {k} non-negative numbers, not all 0, got {self.weights!r}")
        X, Y = self._validate_xy(X, y, skip_check_array=True)
        self.estimators_ = []
        for name, est in self.estimators:
            fitted = clone(est).fit(X, Y)
            self._worker_cpu_time += float(getattr(fitted, "_worker_cpu_time", 0.0))
            if not hasattr(fitted, "label_samples") or getattr(fitted, "distribution_", None) == "marginals":
                raise ValueError(
                    f"estimators: {name!r} gives no label samples (use a sample route of FOptimalClassifier)"
                )
            self.estimators_.append(fitted)
        self.weights_ = w / w.sum()
        return self

    def label_samples(self, X):
        """The members' label vectors side by side, weighted by member weight x the member's own weight.

        Returns
        -------
        Ys : ndarray of int8, shape (n, K, m), K the sum of the members' sample sizes
        weights : ndarray (n, K), summing to 1 per instance
        """
        return self._label_samples(self._validate_X(X, skip_check_array=True))

    def _label_samples(self, X):
        parts, weights = [], []
        for est, a in zip(self.estimators_, self.weights_):
            Ys, w = est.label_samples(X)
            w = np.ones(Ys.shape[:2]) if w is None else np.asarray(w, dtype=np.float64)
            parts.append(np.asarray(Ys, dtype=np.int8))
            weights.append(a * w / w.sum(axis=1, keepdims=True))
        return np.concatenate(parts, axis=1), np.concatenate(weights, axis=1)

    def _chunks(self, X):
        """The instances in chunks of ``_ROWS``: yields ``(rows, (Ys, weights))``."""
        X = self._validate_X(X, skip_check_array=True)
        X = X.tocsr() if sp.issparse(X) else X
        n = _num_samples(X)
        for s0 in range(0, n, _ROWS):
            rows = np.arange(s0, min(n, s0 + _ROWS))
            yield rows, self._label_samples(_safe_indexing(X, rows))

    def _infer(self, X):
        H, V = [], []
        for _, (Ys, w) in self._chunks(X):
            h, v = gfm_from_samples(Ys, w)
            H.append(h)
            V.append(v)
        if not H:
            return np.zeros((0, self.n_labels_), np.int8), np.zeros(0)
        return np.concatenate(H), np.concatenate(V)

    def predict(self, X):
        """F-optimal label sets under the mixture, (n, m) in y's dtype ((n,) in ``classes_`` for a 1-D y)."""
        return self._decode(self._infer(X)[0])

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under the mixture, (n,): GFM's value."""
        return self._infer(X)[1]

    def predict_marginals(self, X):
        """Marginals P(y_j = 1 | x) of the mixture, (n, m) ((n,) for a 1-D y)."""
        P = [np.einsum("nkm,nk->nm", Ys, w) / w.sum(axis=1)[:, None] for _, (Ys, w) in self._chunks(X)]
        return self._decode_marginals(np.concatenate(P) if P else np.zeros((0, self.n_labels_)))
