"""What every multi-label learner of the package shares: the label-matrix check, the scikit-learn
tags of a multi-label (multi-output, 0/1) estimator, and :class:`MultiLabelMixin`, which gives a
scikit-learn estimator both plus the validation of ``fit``'s (X, y) and an F-measure ``score``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import validate_data

from fmeasure import metrics

__all__ = ["MultiLabelMixin", "check_labels", "multilabel_tags"]


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
    """Set the scikit-learn tags of a multi-label 0/1 estimator that accepts sparse X; returns ``tags``."""
    tags.input_tags.sparse = True
    tags.target_tags.multi_output = True
    tags.target_tags.single_output = False
    tags.target_tags.two_d_labels = True
    tags.classifier_tags.multi_class = False
    return tags


class MultiLabelMixin:
    """Shared by the package's scikit-learn multi-label estimators (put it first in the bases).

    - ``__sklearn_tags__``: multi-output, 0/1 labels, sparse X accepted (:func:`multilabel_tags`);
    - ``_validate_xy``: ``fit``'s X and y checked in one place, with one error for labels that are
      not 0/1 (the wording scikit-learn's estimator checks expect); a 1-d ``y`` is read as one label
      and remembered in ``_y_1d``;
    - ``score``: the mean instance-wise F-measure (F(0, 0) = 1) instead of
      :class:`~sklearn.base.ClassifierMixin`'s subset accuracy, so ``GridSearchCV`` without
      ``scoring`` tunes for the F-measure.
    """

    def __sklearn_tags__(self):
        return multilabel_tags(super().__sklearn_tags__())

    def _validate_xy(self, X, y, *, accept_sparse="csr"):
        """``fit``'s (X, Y): X validated by scikit-learn (float64), Y an int8 (n, m) 0/1 matrix; sets ``_y_1d``."""
        X, Y = validate_data(
            self, X, y, accept_sparse=accept_sparse, multi_output=True, dtype=np.float64, y_numeric=True
        )
        Y = np.asarray(Y)
        self._y_1d = Y.ndim == 1
        try:
            Y = check_labels(Y[:, None] if self._y_1d else Y, X.shape[0], name="y")
        except ValueError as err:
            raise ValueError(
                f"Only binary classification is supported: {err}; the type of the target is {type_of_target(Y)}"
            ) from None
        return X, Y

    def score(self, X, y, sample_weight=None):
        """Mean instance-wise F-measure of ``predict(X)`` against ``y`` (F(0, 0) = 1)."""
        H = np.asarray(self.predict(X))
        n = H.shape[0]
        f = metrics.f_measure(np.asarray(y).reshape(n, -1), H.reshape(n, -1))
        return float(np.average(f, weights=sample_weight))
