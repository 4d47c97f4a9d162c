"""What every multi-label learner of the package shares: the label-matrix check and the
scikit-learn tags of a multi-label (multi-output, 0/1) estimator."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["check_labels", "multilabel_tags"]


def check_labels(Y, n=None, name="Y"):
    """``Y`` as an int8 (n_instances, n_labels) 0/1 array; one clear error naming ``name`` otherwise.

    Examples
    --------
    >>> check_labels([[1, 0], [0, 0]])
    array([[1, 0],
           [0, 0]], dtype=int8)
    """
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
    if Y.ndim != 2:
        raise ValueError(f"{name} must be a 2-D binary 0/1 array (n_instances, n_labels), got shape {Y.shape}")
    if Y.shape[1] == 0:
        raise ValueError(f"{name} has no labels (m = 0)")
    if not np.isin(Y, (0, 1)).all():
        raise ValueError(f"{name} must be a binary 0/1 matrix")
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
