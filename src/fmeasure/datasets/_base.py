"""The dataset type and its error."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class DatasetError(ValueError):
    """A dataset file is missing, corrupt, or does not match its catalog entry."""


@dataclass
class Dataset:
    """A multi-label dataset with its fixed train/test split.

    Attributes
    ----------
    name : str
    X_train, X_test : ndarray (float64) or scipy.sparse.csr_matrix, shapes (n, d)
    Y_train, Y_test : ndarray (int8) of shape (n, m), values in {0, 1}
    label_names : list of str, in the dataset's (ARFF) label order
    feature_names : list of str, one per column of X (``attribute=category`` for one-hot columns)
    n_attributes : int or None
        Feature attributes in the source file (MULAN's d), before encoding.
    """

    name: str
    X_train: object
    Y_train: np.ndarray
    X_test: object
    Y_test: np.ndarray
    label_names: list = field(default_factory=list)
    feature_names: list = field(default_factory=list)
    #: Feature attributes in the source file (MULAN's d), before nominal features are encoded and
    #: identifiers dropped; None means ``n_features``.
    n_attributes: int | None = None

    @property
    def n_labels(self) -> int:
        return self.Y_train.shape[1]

    @property
    def n_features(self) -> int:
        return self.X_train.shape[1]
