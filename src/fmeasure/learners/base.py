"""What every multi-label learner of the package shares.

:class:`MultiLabelClassifier` is the base of every estimator of :mod:`fmeasure.learners`: one
contract for the input (X and y checked in one place, a 1-D y read as one label with any two
class values), for the fitted state (``n_features_in_``, ``feature_names_in_``, ``classes_``,
``n_labels_``, the fit's timings) and for the output (predictions in the values of y,
``NotFittedError`` before ``fit``, the F-measure ``score``). :func:`fit_context` validates the
parameters against ``_parameter_constraints`` and records the fit's wall-clock and CPU times.
:func:`check_labels` checks a 0/1 label matrix and :func:`multilabel_tags` sets the scikit-learn
tags of a multi-label estimator.
"""

from __future__ import annotations

import functools
import time

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, _fit_context
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _num_samples, check_array, check_is_fitted, validate_data

__all__ = [
    "MultiLabelClassifier",
    "MultiLabelMixin",
    "check_labels",
    "expected_f_of_samples",
    "fit_context",
    "multilabel_tags",
]


def check_labels(Y, n=None, name="Y"):
    """``Y`` as an int8 (n_instances, n_labels) 0/1 array; one clear error naming ``name`` otherwise.

    A sparse matrix is densified. A value other than 0 or 1 (NaN included) is reported with its
    label (column) and row.

    Examples
    --------
    >>> check_labels([[1, 0], [0, 0]])
    array([[1, 0],
           [0, 0]], dtype=int8)
    >>> check_labels([[1, 0], [0, 2]])
    Traceback (most recent call last):
    ...
    ValueError: Y must be a binary 0/1 matrix (n_instances, n_labels): label 1 has the value 2 in row 1
    """
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
    if Y.ndim != 2:
        raise ValueError(f"{name} must be a 2-D binary 0/1 array (n_instances, n_labels), got shape {Y.shape}")
    if Y.shape[1] == 0:
        raise ValueError(f"{name} has no labels (m = 0)")
    ok = np.isin(Y, (0, 1))
    if not ok.all():
        i, j = np.argwhere(~ok)[0]
        v = Y[i, j].item() if isinstance(Y[i, j], np.generic) else Y[i, j]
        raise ValueError(
            f"{name} must be a binary 0/1 matrix (n_instances, n_labels): label {j} has the value {v!r} in row {i}"
        )
    if n is not None and Y.shape[0] != n:
        raise ValueError(f"{name} has {Y.shape[0]} rows but X has {n}")
    return Y.astype(np.int8)


def multilabel_tags(tags):
    """Set the scikit-learn tags of a multi-label 0/1 estimator that accepts sparse X; returns ``tags``.

    Multi-label (y an indicator matrix, one 0/1 column per label), single-output too (a 1-D y is
    one label with two classes), not multiclass (a 1-D y with three classes or more is refused).
    """
    tags.input_tags.sparse = True
    tags.target_tags.multi_output = True
    tags.target_tags.single_output = True
    tags.classifier_tags.multi_class = False
    tags.classifier_tags.multi_label = True
    return tags


def expected_f_of_samples(Ys, weights, H):
    """Mean F-measure of ``H[i]`` over the (weighted) label vectors ``Ys[i]`` (F(0, 0) = 1).

    The expected F of a prediction under an empirical distribution: the neighbours' label vectors,
    a chain's draws, the members' predictions.

    Parameters
    ----------
    Ys : ndarray of shape (n, K, m), 0/1
    weights : ndarray of shape (n, K) or None
        Non-negative weights of the vectors (normalised per instance); None: equal weights.
    H : ndarray of shape (n, m), 0/1

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> Ys = np.array([[[1, 0], [1, 1]]])
    >>> expected_f_of_samples(Ys, None, np.array([[1, 0]])).round(4)
    array([0.8333])
    """
    Ys = np.asarray(Ys)
    H = np.asarray(H)
    tp = np.einsum("nsm,nm->ns", Ys, H.astype(np.int8), dtype=np.int64)
    s = Ys.sum(axis=2, dtype=np.int64)
    k = H.sum(axis=1, dtype=np.int64)[:, None]
    den = s + k
    F = np.where(den == 0, 1.0, 2.0 * tp / np.maximum(den, 1))
    if weights is None:
        return F.mean(axis=1)
    w = np.asarray(weights, dtype=np.float64)
    return (F * w).sum(axis=1) / w.sum(axis=1)


def fit_context(*, prefer_skip_nested_validation):
    """Decorator of ``fit``: scikit-learn's ``_fit_context`` (the parameters are checked against
    ``_parameter_constraints`` first), then the fit's times recorded as ``fit_time_`` (wall clock)
    and ``fit_cpu_time_`` (CPU seconds of this process, all threads, plus those of the worker
    processes that the learner adds to ``_worker_cpu_time`` while it fits).

    ``prefer_skip_nested_validation``: True for a learner whose fit calls no estimator given by the
    user (scikit-learn's meaning); False for a meta-estimator.
    """

    def decorate(fit):
        checked = _fit_context(prefer_skip_nested_validation=prefer_skip_nested_validation)(fit)

        @functools.wraps(fit)
        def wrapper(self, *args, **kwargs):
            self._worker_cpu_time = 0.0
            t0, c0 = time.perf_counter(), time.process_time()
            out = checked(self, *args, **kwargs)
            self.fit_time_ = time.perf_counter() - t0
            self.fit_cpu_time_ = time.process_time() - c0 + self._worker_cpu_time
            return out

        return wrapper

    return decorate


class MultiLabelMixin:
    """The shared behaviour of the package's multi-label estimators (put it first in the bases).

    - ``__sklearn_tags__``: multi-label, multi-output, single-output, not multiclass, sparse X
      accepted (:func:`multilabel_tags`);
    - ``_validate_xy``: ``fit``'s X and y checked in one place (``n_features_in_`` and
      ``feature_names_in_`` recorded), y encoded as a 0/1 matrix (``classes_``, ``n_labels_``);
    - ``_validate_X``: ``NotFittedError`` before ``fit``, then X checked against what ``fit`` saw;
    - ``_decode`` and ``_decode_marginals``: predictions in the values of y (1-D for a 1-D y);
    - ``score``: the mean instance-wise F-measure (F(0, 0) = 1) instead of
      :class:`~sklearn.base.ClassifierMixin`'s subset accuracy, so ``GridSearchCV`` without
      ``scoring`` tunes for the F-measure (for a 1-D y it is the accuracy).
    """

    def __sklearn_tags__(self):
        return multilabel_tags(super().__sklearn_tags__())

    # ------------------------------------------------------------------ input
    def _validate_xy(self, X, y, *, accept_sparse="csr", skip_check_array=False):
        """``fit``'s (X, Y): X validated by scikit-learn, Y the int8 (n, m) 0/1 label matrix.

        X becomes float64 (CSR when sparse, or the formats of ``accept_sparse``); with
        ``skip_check_array`` it keeps its values (a meta-estimator's own estimator reads them: a
        DataFrame stays one) after a check of its shape. Its number of features and column
        names are recorded either way.
        """
        if y is None:
            raise ValueError(f"y: {type(self).__name__} requires y to be passed, but the target y is None")
        if skip_check_array:
            X = self._validate_X(X, skip_check_array=True, reset=True)
            n = _num_samples(X)
        else:
            X = validate_data(self, X, accept_sparse=accept_sparse, dtype=np.float64, reset=True)
            n = X.shape[0]
        return X, self._encode_y(y, n)

    def _encode_y(self, y, n):
        """y as an int8 (n, m) 0/1 matrix; sets ``classes_``, ``n_labels_`` and ``_y_1d``.

        A 2-D y (dense or sparse) is a 0/1 label matrix: ``classes_`` is ``[0, 1]`` in y's dtype. A
        1-D y is one label with at most two classes, ``classes_`` (sorted): the larger is the
        label's 1 (scikit-learn's rule for binary targets); a y with one class c is coded 1 when
        c is 1 (or True), else 0.
        """
        Y = np.asarray(y.toarray() if sp.issparse(y) else y)
        if np.iscomplexobj(Y):
            raise ValueError("y: Complex data not supported")
        self._y_1d = Y.ndim == 1
        if not self._y_1d:
            Y01 = check_labels(Y, name="y")
            if Y01.shape[0] != n:
                raise ValueError(f"y has {Y01.shape[0]} rows but X has {n}")
            self.classes_ = np.array([0, 1], dtype=Y.dtype)
            self.n_labels_ = Y01.shape[1]
            return Y01
        if Y.shape[0] != n:
            raise ValueError(f"y has {Y.shape[0]} rows but X has {n}")
        if Y.dtype.kind == "f" and not np.isfinite(Y).all():  # NaN, inf: named with their row
            check_labels(Y[:, None], name="y")
        kind = type_of_target(Y, input_name="y")
        if kind in ("continuous", "unknown"):
            raise ValueError(f"y: Unknown label type: {kind}; a 1-D y is one label with at most two classes")
        classes = np.unique(Y)
        if kind not in ("binary", "multiclass") or classes.size > 2:
            shown = ", ".join(map(repr, classes[:5].tolist())) + (", ..." if classes.size > 5 else "")
            raise ValueError(
                f"y: Only binary classification is supported. The type of the target is {kind}: a 1-D y is "
                f"one label, with at most two classes; got {classes.size} classes ({shown})"
            )
        self.classes_ = classes
        self.n_labels_ = 1
        if classes.size == 2:
            codes = Y == classes[1]
        else:
            codes = np.full(Y.shape, bool(classes[0] == 1))
        return codes.astype(np.int8)[:, None]

    def _validate_X(self, X, *, accept_sparse="csr", skip_check_array=False, reset=False):
        """X at predict time: ``NotFittedError`` before ``fit``, then the features checked against
        ``fit``'s (their number, and their names for a DataFrame); float64 unless ``skip_check_array``
        (then X keeps its values and dtype, after a check of its shape: 2-D, not empty; a
        DataFrame is returned as it is, anything else as an array or sparse matrix)."""
        if not reset:
            check_is_fitted(self)
        if skip_check_array:
            Xa = check_array(X, accept_sparse=True, dtype=None, ensure_all_finite=False, input_name="X")
            validate_data(self, X, reset=reset, skip_check_array=True)
            return X if hasattr(X, "columns") else Xa
        return validate_data(self, X, accept_sparse=accept_sparse, dtype=np.float64, reset=reset)

    # ------------------------------------------------------------------ output
    def _decode(self, H):
        """0/1 predictions (n, m) as values of y: ``classes_`` of a 1-D y, (n,); else y's dtype."""
        H = np.asarray(H)
        if self._y_1d:
            return self.classes_[[0, -1]][H[:, 0]]
        return H.astype(self.classes_.dtype, copy=False)

    def _decode_marginals(self, P):
        """Marginals (n, m) as returned: (n,) for a 1-D y (the probability of ``classes_[-1]``)."""
        return P[:, 0] if self._y_1d else P

    def score(self, X, y, sample_weight=None):
        """Mean instance-wise F-measure of ``predict(X)`` against ``y`` (F(0, 0) = 1).

        For a 1-D y (one label) this is the accuracy.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels) or (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        from fmeasure import metrics

        H = np.asarray(self.predict(X))
        n = H.shape[0]
        if self._y_1d:
            y = np.asarray(y).reshape(n)
            return float(np.average(y == H, weights=sample_weight))
        Y = check_labels(y, n=n, name="y")
        return float(np.average(metrics.f_measure(Y, check_labels(H, name="predictions")), weights=sample_weight))


class MultiLabelClassifier(MultiLabelMixin, ClassifierMixin, MultiOutputMixin, BaseEstimator):
    """Base class of the package's multi-label classifiers.

    y is a 0/1 label matrix (n_samples, n_labels), dense or sparse; a 1-D y is one label whose two
    classes may be any values (predictions are then 1-D, in those values); a 1-D y with three
    classes or more is refused with one error naming y. X is a 2-D array, sparse matrix or
    DataFrame of numbers; predictions come in y's values (its dtype for a label matrix).

    Subclasses declare ``_parameter_constraints``, decorate ``fit`` with :func:`fit_context`,
    read (X, y) with ``_validate_xy`` and X at predict time with ``_validate_X``.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names of a DataFrame X at ``fit`` (only then); later calls must give the same
        columns in the same order.
    classes_ : ndarray
        For a 2-D y, ``[0, 1]`` in y's dtype: the values every label takes. For a 1-D y, its
        classes, sorted; the label's 1 is ``classes_[-1]``.
    n_labels_ : int
        Number of labels m (1 for a 1-D y).
    fit_time_ : float
        Wall-clock seconds of the last ``fit``.
    fit_cpu_time_ : float
        CPU seconds of the last ``fit``: this process (all threads), plus the worker processes
        that the learner measures (the label models of a parallel BR, LFP, EFP or chain, the
        folds of the structured SVM, the trees of a parallel bagging, and those of the members
        of an ensemble).

    Notes
    -----
    Besides these, the experiments read a few attributes that only some learners have, each
    documented with its learner: ``C_``, the regularisation chosen by cross-validation (one per
    label for :class:`~fmeasure.learners.BinaryRelevance`, :class:`~fmeasure.learners.LFP`,
    :class:`~fmeasure.learners.EFP` and :class:`~fmeasure.learners.ProbabilisticClassifierChain`,
    one for :class:`~fmeasure.learners.FMeasureSSVM`), the fitted per-label models
    ``estimators_`` of the logistic learners, and ``timings_``, the CPU seconds of the phases of
    :class:`~fmeasure.learners.FMeasureTree` and :class:`~fmeasure.learners.BaggedFMeasureTrees`.

    Every learner with a model of the label distribution (all but the structured SVM, which
    scores label sets) has ``predict_expected_f(X)``, the expected F-measure of its prediction
    under that distribution, and ``predict_marginals(X)``, its marginals P(y_j = 1 | x).
    """
