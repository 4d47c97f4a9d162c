"""Label powerset: a multiclass classifier over the distinct label sets of the training data.

:class:`LabelPowerset` turns any probabilistic multiclass scikit-learn classifier into a model of
the joint distribution of the labels: every distinct label vector of the training set is one
class, and :meth:`~.LabelPowerset.predict_set_proba` gives, for each instance, a distribution over
those label vectors (``label_sets_``). Wrapped in :class:`fmeasure.FOptimalClassifier` (route
``"powerset+gfm"``), GFM on that distribution is the exact F-optimal prediction under it; on its
own, ``predict`` returns the most probable label set (the joint mode, subset 0/1-optimal under the
model) and ``predict_proba`` the per-label marginals of the distribution.

The model can only predict label sets seen in training, and each set is a class of its own: it
suits data with few distinct label sets (scene: 14 in training), not data where most label sets
occur once (delicious).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import HasMethods

from fmeasure.learners.base import MultiLabelClassifier, expected_f_of_samples, fit_context

__all__ = ["LabelPowerset"]


#: Instances per chunk of :meth:`LabelPowerset.predict_expected_f` (each holds its n_sets x m sets).
_ROWS = 256


class LabelPowerset(MultiLabelClassifier):
    """A probabilistic multiclass classifier over the distinct training label sets.

    Parameters
    ----------
    estimator : classifier with ``fit`` and ``predict_proba``
        Fitted on the index of each training row's label set (one class per distinct label
        vector), e.g. ``LogisticRegression()``, or a Pipeline ending in one.

    Attributes
    ----------
    estimator_ : the fitted classifier (None when the training set has a single label set)
    label_sets_ : ndarray of int8, shape (n_sets, m)
        The label vector (0/1) of each column of :meth:`predict_set_proba`, distinct, in
        lexicographic order.
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0], [0.1], [2.0], [2.1]]); Y = np.array([[1, 0], [1, 0], [1, 1], [1, 1]])
    >>> lp = LabelPowerset(LogisticRegression()).fit(X, Y)
    >>> lp.label_sets_.tolist(), lp.predict([[2.2]]).tolist()
    ([[1, 0], [1, 1]], [[1, 1]])
    """

    _parameter_constraints = {"estimator": [HasMethods(["fit", "predict_proba"])]}

    def __init__(self, estimator):
        self.estimator = estimator

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Fit a clone of the classifier on the label-set index of each row of ``y`` (n, m); returns self.

        A 1-d ``y`` is read as one label with two classes. ``fit_params`` go to the classifier's
        ``fit``.
        """
        X, Y = self._validate_xy(X, y)
        sets, ids = np.unique(Y, axis=0, return_inverse=True)
        ids = ids.ravel()
        if len(sets) == 1:  # one label set: nothing to classify
            self.estimator_ = None
            self.label_sets_ = sets.astype(np.int8)
            return self
        self.estimator_ = clone(self.estimator).fit(X, ids, **fit_params)
        self.label_sets_ = sets[np.asarray(self.estimator_.classes_)].astype(np.int8)  # columns of the proba
        return self

    def predict_set_proba(self, X):
        """Probability of each label set of ``label_sets_``, shape (n, n_sets); rows sum to 1."""
        X = self._validate_X(X)
        if self.estimator_ is None:
            return np.ones((X.shape[0], 1))
        P = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        if P.ndim != 2 or P.shape[1] != len(self.label_sets_):
            raise ValueError(
                f"estimator: predict_proba gave shape {P.shape}, expected (n, {len(self.label_sets_)}) "
                "(one column per label set)"
            )
        return P

    def predict_marginals(self, X):
        """Marginals P(y_j = 1 | x) of the distribution over the label sets, (n, m) ((n,) for a 1-d y)."""
        return self._decode_marginals(self.predict_set_proba(X) @ self.label_sets_)

    def predict_proba(self, X):
        """Marginals P(y_j = 1 | x) of the distribution over the label sets, (n, m).

        With one label (m = 1, or a 1-d training ``y``): (n, 2), the probabilities of 0 and 1 (of
        ``classes_[0]`` and ``classes_[-1]`` for a 1-d ``y``), as for a binary classifier.
        """
        p = self.predict_set_proba(X) @ self.label_sets_
        return np.column_stack([1 - p[:, 0], p[:, 0]]) if self.n_labels_ == 1 else p

    def predict(self, X):
        """The most probable label set of each instance, (n, m) in y's dtype ((n,) for a 1-d ``y``)."""
        P = self.predict_set_proba(X)
        return self._decode(self.label_sets_[np.argmax(P, axis=1)])

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction (the most probable label set) under the model's
        distribution over the label sets, (n,)."""
        P = self.predict_set_proba(X)
        H = self.label_sets_[np.argmax(P, axis=1)]
        V = np.empty(len(P))
        for s0 in range(0, len(P), _ROWS):
            rows = slice(s0, s0 + _ROWS)
            Ys = np.broadcast_to(self.label_sets_, (len(P[rows]), *self.label_sets_.shape))
            V[rows] = expected_f_of_samples(Ys, P[rows], H[rows])
        return V
