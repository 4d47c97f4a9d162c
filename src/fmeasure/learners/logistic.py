"""L2-regularised logistic regression with C tuned by cross-validated log loss.

The paper tunes every logistic model it uses (PCC's chain links, BR/LFP, EFP's binary and
multinomial models) in the same way: C from a grid, chosen by 5-fold cross-validation. This
module is that one procedure, shared by all learners, built on scikit-learn's
:class:`~sklearn.linear_model.LogisticRegressionCV` (lbfgs, warm starts along the C path inside
each fold, multinomial when there are more than two classes).

A target with a single class in the training data cannot be fitted by a logistic regression; it
gets a :class:`ConstantProbability` model that predicts the empirical rate (probability 1 for the
only class seen), so constant labels never crash a learner.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import KFold, StratifiedKFold

log = logging.getLogger(__name__)

#: The paper's grid: C in {1e-4, 1e-3, ..., 1e3}.
DEFAULT_CS: tuple[float, ...] = tuple(10.0**e for e in range(-4, 4))


@dataclass
class ConstantProbability:
    """A degenerate classifier for a target with one class: predicts that class with probability 1.

    Attributes mirror the tuned model so callers need no special case: ``classes_`` (1,),
    ``coef_`` zeros (1, d), ``intercept_`` (1,) (+inf for the log-odds of a constant 1 and -inf for a
    constant 0 when the class is 0/1), ``C_`` nan, ``cv_log_loss_`` zeros.
    """

    classes_: np.ndarray
    n_features_in_: int
    Cs_: np.ndarray = field(default_factory=lambda: np.asarray(DEFAULT_CS))

    @property
    def C_(self) -> float:
        return float("nan")

    @property
    def coef_(self) -> np.ndarray:
        return np.zeros((1, self.n_features_in_))

    @property
    def intercept_(self) -> np.ndarray:
        c = self.classes_[0]
        return np.array([np.inf if c == 1 else -np.inf])

    @property
    def cv_log_loss_(self) -> np.ndarray:
        return np.zeros(len(self.Cs_))

    def predict_proba(self, X) -> np.ndarray:
        return np.ones((X.shape[0], 1))


class TunedLogistic:
    """A fitted, tuned logistic regression (thin view on ``LogisticRegressionCV``).

    Attributes
    ----------
    classes_ : ndarray
        Classes seen in training, sorted.
    C_ : float
        The chosen inverse regularisation strength.
    Cs_ : ndarray
        The grid that was searched.
    cv_log_loss_ : ndarray of shape (len(Cs_),)
        Mean cross-validated log loss for each C (the chosen C minimises it).
    coef_, intercept_ : ndarray
        As in scikit-learn: (1, d) and (1,) for two classes, (n_classes, d) and (n_classes,) otherwise.
    """

    def __init__(self, model: LogisticRegressionCV):
        self.model_ = model
        self.classes_ = model.classes_
        self.C_ = float(np.ravel(model.C_)[0])
        self.Cs_ = np.asarray(model.Cs_)
        # scores_: (n_folds, n_l1_ratios, n_Cs) of negative log loss.
        self.cv_log_loss_ = -np.asarray(model.scores_).mean(axis=(0, 1))
        self.coef_ = model.coef_
        self.intercept_ = model.intercept_
        self.n_features_in_ = model.n_features_in_

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        return self.model_.predict_proba(X)


def fit_logistic_cv(
    X,
    y,
    *,
    Cs=DEFAULT_CS,
    cv: int = 5,
    random_state: int = 0,
    n_jobs: int | None = None,
    max_iter: int = 1000,
    tol: float = 1e-4,
):
    """Fit an L2 logistic regression with C chosen by k-fold cross-validated log loss.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n, d)
        Features. Standardise them first for fast, stable convergence.
    y : array-like of shape (n,)
        Target classes (binary or multi-class; multinomial for more than two).
    Cs : sequence of float
        The grid of inverse regularisation strengths (default: the paper's 1e-4 .. 1e3).
    cv : int
        Number of folds (stratified and shuffled where every class has at least ``cv``
        members; plain shuffled k-fold otherwise, so rare classes never break the split).
    random_state : int
        Seed of the fold shuffling.
    n_jobs : int or None
        Parallel folds (joblib).
    max_iter, tol : lbfgs settings.

    Returns
    -------
    TunedLogistic or ConstantProbability
        Has ``predict_proba``, ``classes_``, ``C_``, ``Cs_``, ``cv_log_loss_``, ``coef_``, ``intercept_``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> model = fit_logistic_cv(X, y, Cs=(0.01, 1.0, 100.0), cv=3)
    >>> model.predict_proba(X[:2]).shape
    (2, 2)
    """
    y = np.asarray(y).ravel()
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"fit_logistic_cv: X has {X.shape[0]} rows but y has {y.shape[0]}")
    if y.shape[0] == 0:
        raise ValueError("fit_logistic_cv: y is empty")
    Cs = np.asarray(list(Cs), dtype=float)
    if Cs.ndim != 1 or Cs.size == 0 or np.any(~np.isfinite(Cs)) or np.any(Cs <= 0):
        raise ValueError(f"fit_logistic_cv: Cs must be positive finite numbers, got {Cs!r}")
    classes, counts = np.unique(y, return_counts=True)
    if classes.size == 1:
        return ConstantProbability(classes_=classes, n_features_in_=X.shape[1], Cs_=Cs)
    n_splits = int(min(cv, y.shape[0]))
    if n_splits < 2:
        raise ValueError(f"fit_logistic_cv: cv must be >= 2 and <= n, got cv={cv}, n={y.shape[0]}")
    if counts.min() >= n_splits:
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
    else:
        folds = KFold(n_splits, shuffle=True, random_state=random_state)
    model = LogisticRegressionCV(
        Cs=Cs,
        l1_ratios=(0.0,),  # pure L2, as in the paper
        cv=folds,
        scoring="neg_log_loss",
        solver="lbfgs",
        max_iter=max_iter,
        tol=tol,
        n_jobs=n_jobs,
        random_state=random_state,
        use_legacy_attributes=False,
    )
    with warnings.catch_warnings():
        # A fold without a rare class is expected with rare labels; the log loss still ranks C.
        warnings.filterwarnings("ignore", message=".*least populated class.*")
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        model.fit(X, y)
    return TunedLogistic(model)


def positive_proba(model, X, positive=1) -> np.ndarray:
    """P(y = positive | x) from a model returned by :func:`fit_logistic_cv` (0 if never seen).

    Examples
    --------
    >>> import numpy as np
    >>> m = fit_logistic_cv(np.zeros((4, 1)), np.zeros(4, dtype=int))
    >>> positive_proba(m, np.zeros((2, 1)))
    array([0., 0.])
    """
    proba = model.predict_proba(X)
    where = np.flatnonzero(np.asarray(model.classes_) == positive)
    if where.size == 0:
        return np.zeros(proba.shape[0])
    return proba[:, where[0]]
