"""Per-instance evaluation measures for binary label vectors.

Every function takes two binary label matrices ``Y_true`` and ``Y_pred`` of shape (n, m)
(numpy arrays or scipy.sparse matrices, values in {0, 1}) and returns an (n,) float64 array,
one value per instance (row). A 1-D input of shape (m,) is one instance and gives a float.

Conventions (paper, Waegeman et al. 2014):

* instance-wise F1, eq. (1): ``F(y, h) = 2 |y & h| / (|y| + |h|)`` with ``F(0, 0) = 1``;
* Jaccard index, eq. (5): ``|y & h| / |y | h|``; the empty/empty case is a parameter
  (``empty``, default 1.0: MULAN's convention, and the one consistent with ``F(0, 0) = 1``;
  the paper's footnote in Section 3.3 says it is 0 "by definition").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = [
    "f_measure",
    "hamming_loss",
    "subset_zero_one_loss",
    "jaccard_index",
    "mean_f_measure",
    "f_measure_scorer",  # noqa: F822 (built on first use by __getattr__)
    "per_instance",
    "MEASURES",
    "MEASURE_TITLES",
    "MEASURE_DIRECTIONS",
    "MEASURE_SIGN",
    "SAMPLE_METHODS",
    "METHOD_LABELS",
]  # noqa: F822

#: The paper's four measures, named the same way in code, config, table columns and figures.
MEASURES = ("hamming", "subset01", "f", "jaccard")
#: How captions and figure panels name them.
MEASURE_TITLES = {
    "hamming": "Hamming loss",
    "subset01": "subset 0/1 loss",
    "f": "F-measure",
    "jaccard": "Jaccard index",
}
#: Which way is better: losses are minimised, F and Jaccard maximised.
MEASURE_DIRECTIONS = {"hamming": "min", "subset01": "min", "f": "max", "jaccard": "max"}
#: The same as a sign: +1 when larger is better.
MEASURE_SIGN = {k: 1 if d == "max" else -1 for k, d in MEASURE_DIRECTIONS.items()}

#: The inference methods from label samples (:func:`fmeasure.inference.from_samples`), in the paper's
#: order, as spelled in code and config. Defined here, beside the measures, so that the modules that
#: only write tables name them without importing the inference (re-exported by :mod:`fmeasure.inference`).
SAMPLE_METHODS = ("mm", "jm", "fm", "gfm")
#: How tables and figures name them.
METHOD_LABELS = {"mm": "MM", "jm": "JM", "fm": "FM", "gfm": "GFM"}


def _counts(Y_true, Y_pred):
    """Return (|y|, |h|, |y & h|, |y xor h|, m, one_d) per row, validating both inputs."""
    one_d = False
    mats = []
    for name, Y in (("Y_true", Y_true), ("Y_pred", Y_pred)):
        if sp.issparse(Y):
            Y = sp.csr_array(Y)
            if Y.ndim != 2:
                raise ValueError(f"{name}: expected a 2-D matrix, got shape {Y.shape}")
            data = Y.data
        else:
            Y = np.asarray(Y)
            if Y.ndim == 1:
                one_d = True
                Y = Y[None, :]
            if Y.ndim != 2:
                raise ValueError(f"{name}: expected shape (n, m) or (m,), got {Y.shape}")
            data = Y
        if data.size and not np.all((data == 0) | (data == 1)):
            raise ValueError(f"{name}: values must be 0 or 1")
        mats.append(Y)
    A, B = mats
    if A.shape != B.shape:
        raise ValueError(f"Y_pred: shape {B.shape} does not match Y_true shape {A.shape}")
    if A.shape[1] == 0:
        raise ValueError("Y_true: m = 0 labels")

    def rowsum(Y):
        return np.asarray(Y.sum(axis=1), dtype=np.float64).ravel()

    sy, sh = rowsum(A), rowsum(B)
    if sp.issparse(A) or sp.issparse(B):
        As = A if sp.issparse(A) else sp.csr_array(A)
        tp = rowsum(As.multiply(B))
    else:
        tp = np.einsum("ij,ij->i", A.astype(np.float64), B.astype(np.float64))
    return sy, sh, tp, A.shape[1], one_d


def _out(x, one_d):
    return float(x[0]) if one_d else x


def f_measure(Y_true, Y_pred):
    r"""Instance-wise F1-measure, equation (1) of the paper, with F(0, 0) = 1.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n, m) or (m,)
        Binary label vectors.

    Returns
    -------
    ndarray of shape (n,), or float for 1-D input.

    See Also
    --------
    mean_f_measure : The mean over instances, the score the paper reports.
    f_measure_scorer : That mean as a scikit-learn scorer.
    jaccard_index : The Jaccard index of each instance.
    sklearn.metrics.f1_score : With ``average="samples"``, the same mean, but 0 for an empty
        prediction of an empty truth unless ``zero_division=1.0``.

    Notes
    -----
    For a true label vector :math:`\mathbf{y}` and a prediction :math:`\mathbf{h}` in
    :math:`\{0, 1\}^m`:

    .. math::

        F(\mathbf{y}, \mathbf{h}) = \frac{2 \sum_{i=1}^m y_i h_i}{\sum_{i=1}^m y_i + \sum_{i=1}^m h_i},
        \qquad F(\mathbf{0}, \mathbf{0}) = 1 .

    Examples
    --------
    >>> f_measure([[1, 1, 0], [0, 0, 0]], [[1, 0, 0], [0, 0, 0]])
    array([0.66666667, 1.        ])
    """
    sy, sh, tp, _, one_d = _counts(Y_true, Y_pred)
    den = sy + sh
    f = np.ones_like(den)
    nz = den > 0
    f[nz] = 2.0 * tp[nz] / den[nz]
    return _out(f, one_d)


def hamming_loss(Y_true, Y_pred):
    """Per-instance Hamming loss: the fraction of the m labels predicted wrongly.

    Examples
    --------
    >>> hamming_loss([[1, 1, 0, 0]], [[1, 0, 0, 1]])
    array([0.5])
    """
    sy, sh, tp, m, one_d = _counts(Y_true, Y_pred)
    return _out((sy + sh - 2.0 * tp) / m, one_d)


def subset_zero_one_loss(Y_true, Y_pred):
    """Per-instance subset 0/1 loss: 1 if any label differs, else 0.

    Examples
    --------
    >>> subset_zero_one_loss([[1, 0], [1, 0]], [[1, 0], [0, 0]])
    array([0., 1.])
    """
    sy, sh, tp, _, one_d = _counts(Y_true, Y_pred)
    return _out(((sy + sh - 2.0 * tp) > 0).astype(np.float64), one_d)


def jaccard_index(Y_true, Y_pred, empty=1.0):
    """Per-instance Jaccard index ``|y & h| / |y | h|``, equation (5) of the paper.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n, m) or (m,)
    empty : float, default 1.0
        Value when both vectors are empty (0/0). Default 1.0 follows MULAN and is consistent
        with F(0, 0) = 1; the paper's footnote in Section 3.3 ("In this case, the utility is 0
        by definition") uses 0.0 -- pass ``empty=0.0`` for that convention.

    Examples
    --------
    >>> jaccard_index([[1, 1, 0], [0, 0, 0]], [[1, 0, 1], [0, 0, 0]])
    array([0.33333333, 1.        ])
    >>> jaccard_index([[0, 0]], [[0, 0]], empty=0.0)
    array([0.])
    """
    empty = float(empty)
    if not np.isfinite(empty):
        raise ValueError(f"empty: must be a finite number, got {empty}")
    sy, sh, tp, _, one_d = _counts(Y_true, Y_pred)
    den = sy + sh - tp
    j = np.full_like(den, empty)
    nz = den > 0
    j[nz] = tp[nz] / den[nz]
    return _out(j, one_d)


def per_instance(Y_true, Y_pred, measures=MEASURES, *, jaccard_empty: float = 1.0) -> dict:
    """Each of ``measures`` per instance: measure name -> (n,) array (the measures of :data:`MEASURES`).

    Examples
    --------
    >>> v = per_instance(np.array([[1, 0], [0, 1]]), np.array([[1, 1], [0, 1]]))
    >>> {k: a.tolist() for k, a in v.items()}
    {'hamming': [0.5, 0.0], 'subset01': [1.0, 0.0], 'f': [0.6666666666666666, 1.0], 'jaccard': [0.5, 1.0]}
    """
    fns = {
        "hamming": lambda: hamming_loss(Y_true, Y_pred),
        "subset01": lambda: subset_zero_one_loss(Y_true, Y_pred),
        "f": lambda: f_measure(Y_true, Y_pred),
        "jaccard": lambda: jaccard_index(Y_true, Y_pred, empty=jaccard_empty),
    }
    bad = [m for m in measures if m not in fns]
    if bad:
        raise ValueError(f"measures: unknown {bad}; expected a subset of {list(MEASURES)}")
    return {m: fns[m]() for m in measures}


def mean_f_measure(Y_true, Y_pred) -> float:
    """Mean instance-wise F-measure (F(0, 0) = 1) over the rows: the paper's reported score.

    Examples
    --------
    >>> mean_f_measure(np.array([[1, 0], [0, 0]]), np.array([[1, 1], [0, 0]]))
    0.8333333333333333
    """
    return float(np.mean(f_measure(Y_true, Y_pred)))


#: Mean instance-wise F-measure (:func:`mean_f_measure`) as a scikit-learn scorer, for
#: ``GridSearchCV(..., scoring=f_measure_scorer)`` and ``cross_val_score``.
f_measure_scorer: object  # annotation only: the scorer is made by __getattr__ below


def __getattr__(name):
    # f_measure_scorer is built on first use, so importing the metrics does not import scikit-learn.
    if name == "f_measure_scorer":
        from sklearn.metrics import make_scorer

        scorer = make_scorer(mean_f_measure)
        globals()[name] = scorer
        return scorer
    raise AttributeError(f"module 'fmeasure.metrics' has no attribute {name!r}")
