"""L2-regularised logistic regression with C tuned by cross-validated log loss.

The paper tunes every logistic model it uses (PCC's chain links, BR/LFP, EFP's binary and
multinomial models) in the same way: C from a grid, chosen by 5-fold cross-validation. This
module is that one procedure, shared by all learners, built on scikit-learn's
:class:`~sklearn.linear_model.LogisticRegression` (multinomial when there are more than two
classes) with an explicit, warm-started walk along the C path in every fold (about 1.5-4x
faster than ``LogisticRegressionCV`` here; see ``fit_logistic_cv``).

The solver is lbfgs; ``solver="newton-cg"`` is the alternative. Measured on the paper's datasets
and on Mediamill-shaped data with correlated features (``benchmarks/bench_solvers.py``), newton-cg
was not faster in total on any of them along the warm-started C path (the benchmark prints the
ratios), so lbfgs stays the default. For dense X and three or more classes (EFP's label models)
the lbfgs fits (the folds' and the final one) minimise scikit-learn's objective, evaluated in one
pass over X by cache-sized blocks of rows (:class:`_MultinomialObjective`), with a preconditioned
L-BFGS (:func:`_fit_multinomial_lbfgs`) and scikit-learn's stopping rule: on correlated features
several times faster than scikit-learn's own lbfgs, and at the same tolerance closer to the
optimum (``benchmarks/bench_efp.py`` prints both). Binary fits run scikit-learn's lbfgs steps
themselves (:func:`_fit_binary_lbfgs`): the same numbers bit for bit, without ``fit``'s checks
around them, which cost a tenth to a sixth of a C walk of thousands of small fits.

A target with a single class in the training data cannot be fitted by a logistic regression; it
gets a :class:`ConstantProbability` model that predicts the empirical rate (probability 1 for the
only class seen), so constant labels never crash a learner.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold
from threadpoolctl import threadpool_limits

log = logging.getLogger(__name__)

#: Values of ``fit_logistic_cv(solver=...)``.
SOLVERS = ("lbfgs", "newton-cg")

#: The paper's grid: C in {1e-4, 1e-3, ..., 1e3}.
DEFAULT_CS: tuple[float, ...] = tuple(10.0**e for e in range(-4, 4))

_EPS = 1e-15  # probability floor in the CV log loss

#: Gradient tolerance to which the final model of a binary target is refitted (newton-cg, started
#: at lbfgs's solution): the optimum itself, to about 1e-10 in the logits, whatever path the
#: solver took. lbfgs stops at ``tol`` (1e-4) at a point that depends on its path, and so on the
#: floating-point rounding of the BLAS kernels the CPU runs: two CPUs gave logits 0.05 apart on
#: scene's chain, enough to change sampled label vectors. See :func:`fit_logistic_cv`.
POLISH_TOL = 1e-13
#: Newton iterations allowed to the polishing step (it needs a handful from lbfgs's solution).
POLISH_MAX_ITER = 100


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

    @property
    def cv_loss_(self) -> np.ndarray:
        return np.zeros(len(self.Cs_))

    def predict_proba(self, X) -> np.ndarray:
        return np.ones((X.shape[0], 1))


class TunedLogistic:
    """A fitted, tuned logistic regression (thin view on the refitted ``LogisticRegression``).

    Attributes
    ----------
    classes_ : ndarray
        Classes seen in training, sorted.
    C_ : float
        The chosen inverse regularisation strength.
    Cs_ : ndarray
        The grid that was searched (in the order given).
    cv_loss_ : ndarray of shape ``(len(Cs_),)``
        Mean cross-validated loss for each C, the quantity the chosen C minimises: log loss, or
        minus the score given as ``scoring`` (+inf for a C that ``patience`` skipped).
    cv_log_loss_ : ndarray of shape ``(len(Cs_),)``
        ``cv_loss_`` when C was chosen by log loss (the default), NaN otherwise.
    coef_, intercept_ : ndarray
        As in scikit-learn: (1, d) and (1,) for two classes, (n_classes, d) and (n_classes,) otherwise.
    """

    def __init__(self, model: LogisticRegression, Cs, cv_loss, scoring="log_loss"):
        self.model_ = model
        self.classes_ = model.classes_
        self.C_ = float(model.C)
        self.Cs_ = np.asarray(Cs, dtype=float)
        self.cv_loss_ = np.asarray(cv_loss, dtype=float)
        by_log_loss = isinstance(scoring, str) and scoring == "log_loss"
        self.cv_log_loss_ = self.cv_loss_ if by_log_loss else np.full(self.cv_loss_.shape, np.nan)
        self.coef_ = model.coef_
        self.intercept_ = model.intercept_
        self.n_features_in_ = model.n_features_in_

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        return self.model_.predict_proba(X)


def _prior_start(model: LogisticRegression, y_enc: np.ndarray, n_classes: int, d: int) -> None:
    """Start the solver at the C -> 0 solution: zero weights, intercepts at the log class priors.

    From zeros, the solver spends many iterations on the intercepts alone at the smallest C; the
    priors are (up to O(C)) that solution already.
    """
    prior = np.bincount(y_enc, minlength=n_classes) / y_enc.size  # every class occurs at least once
    if n_classes == 2:
        model.coef_ = np.zeros((1, d))
        model.intercept_ = np.array([np.log(prior[1] / prior[0])])
    else:
        logp = np.log(prior)
        model.coef_ = np.zeros((n_classes, d))
        model.intercept_ = logp - logp.mean()


def _fold_step(model, X_tr, y_tr, X_va, y_va, C, n_classes):
    """Refit one fold's model at C (warm start); return validation probabilities of all classes.

    Columns are the encoded classes 0..n_classes-1; a class absent from the fold's training part
    gets probability 0.
    """
    full = np.zeros((y_va.size, n_classes))
    if isinstance(model, int):  # the fold's training part holds a single (encoded) class
        full[:, model] = 1.0
        return full
    model.set_params(C=C)
    if not (_fit_binary_lbfgs(model, X_tr, y_tr) or _fit_multinomial_lbfgs(model, X_tr, y_tr)):
        model.fit(X_tr, y_tr)
    full[:, model.classes_] = model.predict_proba(X_va)  # encoded classes present in this fold
    return full


def _fit_binary_lbfgs(model, X, y) -> bool:
    """``model.fit(X, y)`` for a warm-started lbfgs ``LogisticRegression`` with two classes, the
    same numbers bit for bit; False (nothing done) for other problems.

    scikit-learn's own steps for this case (its objective, ``LinearModelLoss`` with
    ``HalfBinomialLoss``, minimised by scipy's L-BFGS-B from the model's ``coef_`` and
    ``intercept_`` with the same options), without the input validation and bookkeeping of
    ``fit`` around them: the folds' fits walk the C grid with thousands of small fits per
    dataset, for which those cost about as much as the optimisation itself.
    ``tests/library/test_logistic.py`` checks the weights and iteration counts against
    scikit-learn's ``fit``. X: float64, dense C-ordered or CSR (as :func:`fit_matrix` gives);
    y: the two encoded classes.
    """
    from scipy.optimize import minimize
    from sklearn._loss.loss import HalfBinomialLoss
    from sklearn.linear_model._linear_loss import LinearModelLoss
    from sklearn.utils.optimize import _check_optimize_result

    params = model.get_params()
    if params["solver"] != "lbfgs" or not params["fit_intercept"] or params["class_weight"] is not None:
        return False
    if params.get("l1_ratio") not in (None, 0, 0.0) or params.get("penalty", "l2") not in ("l2", "deprecated"):
        return False
    if X.dtype != np.float64 or not (sp.isspmatrix_csr(X) or (isinstance(X, np.ndarray) and X.flags.c_contiguous)):
        return False
    classes = np.unique(y)
    if classes.size != 2:
        return False
    n, d = X.shape
    w0 = np.zeros(d + 1)
    coef, intercept = getattr(model, "coef_", None), getattr(model, "intercept_", None)
    if params["warm_start"] and coef is not None:
        if np.shape(coef) != (1, d):
            return False
        w0[:d], w0[d] = coef[0], intercept[0]
    target = np.ones(n)
    target[y != classes[1]] = 0.0
    loss = LinearModelLoss(base_loss=HalfBinomialLoss(), fit_intercept=True)
    max_iter = int(params["max_iter"])
    res = minimize(
        loss.loss_gradient,
        w0,
        method="L-BFGS-B",
        jac=True,
        args=(X, target, None, 1.0 / (float(params["C"]) * n), 1),
        options={"maxiter": max_iter, "maxls": 50, "gtol": float(params["tol"]), "ftol": 64 * np.finfo(float).eps},
    )
    n_iter = _check_optimize_result("lbfgs", res, max_iter)
    model.classes_ = classes
    model.coef_, model.intercept_ = res.x[:-1][None, :], res.x[-1:]
    model.n_iter_ = np.asarray([n_iter], dtype=np.int32)
    model.n_features_in_ = d
    return True


#: Bytes of a block of rows of dense X in the multinomial objective (block and products stay in
#: a core's L2 cache).
_BLOCK_BYTES = 2**19


class _MultinomialObjective:
    """scikit-learn's lbfgs objective of a multinomial L2 logistic regression, in one pass over X.

    The value and gradient of ``mean half multinomial loss + l2 / 2 ||W||^2`` (intercepts not
    penalised), as :class:`sklearn.linear_model._linear_loss.LinearModelLoss` computes them for
    ``LogisticRegression(solver="lbfgs")``, with the same flat parameter layout (classes of one
    feature contiguous). scikit-learn reads X twice per evaluation (the scores X W^T, then the
    gradient G^T X); X does not fit in the cache at Mediamill's size, so both products are memory
    bound. Here each block of rows gives its scores, its pointwise loss and gradient and its share
    of G^T X while it is in the cache: the same numbers up to the order of floating-point sums,
    about 1.8x faster at 25,000 x 120 with 16 classes.
    """

    def __init__(self, X, y, n_classes):
        from sklearn._loss.loss import HalfMultinomialLoss

        self.X, self.y, self.K = X, y, n_classes
        self.loss = HalfMultinomialLoss(n_classes=n_classes)
        self.rows = max(1, _BLOCK_BYTES // (8 * max(1, X.shape[1])))

    def __call__(self, coef, l2, curvature=None):
        """Value and flat gradient at the flat ``coef``; ``curvature``, an array (K,), if given
        receives the mean of p_k (1 - p_k) over the rows (p the model's class probabilities)."""
        from sklearn.utils.extmath import squared_norm

        X, y, K = self.X, self.y, self.K
        n, d = X.shape
        W = coef.reshape((K, -1), order="F")
        weights, intercept = W[:, :-1], W[:, -1]
        grad_w = np.zeros((K, d))
        grad_b = np.zeros(K)
        total = 0.0
        raw = np.empty((min(self.rows, n), K))
        if curvature is not None:
            curvature[:] = 0.0
        for a in range(0, n, self.rows):
            Xb = X[a : a + self.rows]
            r = np.matmul(Xb, weights.T, out=raw[: Xb.shape[0]])
            r += intercept
            yb = y[a : a + self.rows]
            loss, g = self.loss.loss_gradient(y_true=yb, raw_prediction=r, n_threads=1)
            total += float(np.sum(loss))
            if curvature is not None:  # g = p - onehot(y)
                proba = g.copy()
                proba[np.arange(yb.size), yb.astype(np.intp)] += 1.0
                curvature += np.sum(proba * (1.0 - proba), axis=0)
            g /= n
            grad_w += g.T @ Xb
            grad_b += g.sum(axis=0)
        if curvature is not None:
            curvature /= n
        value = total / n + float(0.5 * l2 * squared_norm(weights))
        grad = np.empty((K, d + 1), order="F")
        grad[:, :d] = grad_w + l2 * weights
        grad[:, d] = grad_b
        return value, grad.ravel(order="F")


def _fit_multinomial_lbfgs(model, X, y) -> bool:
    """``model.fit(X, y)`` for a warm-started lbfgs ``LogisticRegression`` on dense X with three
    or more classes, by a preconditioned L-BFGS; False (nothing done) for other problems.

    The same problem and the same stopping rule as scikit-learn's lbfgs: scikit-learn's objective
    (:class:`_MultinomialObjective`), minimised by scipy's L-BFGS-B from the model's ``coef_`` and
    ``intercept_`` (when their shape fits; else from zeros) until the largest absolute entry of
    its gradient is at most ``tol`` (none at all when the start already meets it), after at most
    ``max_iter`` iterations or when the objective stops decreasing (the same ``ftol``).

    Only the path differs. On correlated features, as real descriptors are, the objective is
    badly conditioned: the Hessian's block of class k is about c_k A, with A = [X 1]^T [X 1] / n
    the features' second moments (eigenvalues spread over orders of magnitude) and c_k the mean of
    p_k (1 - p_k) (small for rare classes), plus the penalty; plain L-BFGS crawls along the
    flat directions (hundreds of iterations per C). Here it runs on v with w_k = U diag(s_k) v_k,
    where A = U diag(lambda) U^T and s_k = (c_k lambda + l2)^(-1/2), c_k taken at the start: the
    Hessian in v is close to the identity. The gradient rule is checked on the original
    parameters after each iteration. Sets the fitted attributes ``predict_proba`` needs.
    """
    from scipy.optimize import minimize

    params = model.get_params()
    if params["solver"] != "lbfgs" or sp.issparse(X) or X.dtype != np.float64 or not params["fit_intercept"]:
        return False
    if params["class_weight"] is not None or params["l1_ratio"] not in (None, 0, 0.0):
        return False
    classes = np.unique(y)
    K, (n, d) = classes.size, X.shape
    if K < 3:
        return False
    X = np.ascontiguousarray(X)
    w0 = np.zeros((K, d + 1), order="F")
    coef, intercept = getattr(model, "coef_", None), getattr(model, "intercept_", None)
    if params["warm_start"] and coef is not None and np.shape(coef) == (K, d):
        w0[:, :d], w0[:, d] = coef, intercept
    target = np.searchsorted(classes, y).astype(np.float64)
    objective = _MultinomialObjective(X, target, K)
    l2, tol, max_iter = 1.0 / (float(params["C"]) * n), float(params["tol"]), int(params["max_iter"])
    c = np.empty(K)
    start = objective(w0.ravel(order="F"), l2, curvature=c)
    n_iter, W = 0, w0
    if np.max(np.abs(start[1])) > tol and max_iter > 0:
        lam, U = _second_moments(model, X)
        # the scale of each class's direction in the eigenbasis of A; a class's curvature is at
        # least that of one member among n
        scale = 1.0 / np.sqrt(np.maximum(c, 1.0 / n)[:, None] * lam[None, :] + l2)

        def to_w(v):
            return (v.reshape(K, d + 1) * scale) @ U.T

        last = {}

        def fun(v):
            w = to_w(v)
            value, grad = start if not last else objective(np.asfortranarray(w).ravel(order="F"), l2)
            last.update(v=v.copy(), gmax=float(np.max(np.abs(grad))))
            return value, ((grad.reshape((K, -1), order="F") @ U) * scale).ravel()

        iterations = [0]

        def stop(intermediate_result):
            iterations[0] += 1
            if last["gmax"] <= tol and np.array_equal(last["v"], intermediate_result.x):
                raise StopIteration

        v0 = ((w0 @ U) / scale).ravel()
        res = minimize(
            fun,
            v0,
            method="L-BFGS-B",
            jac=True,
            callback=stop,
            options={"maxiter": max_iter, "maxls": 50, "gtol": 0.0, "ftol": 64 * np.finfo(float).eps},
        )
        n_iter, W = min(iterations[0], max_iter), to_w(res.x)
    model.classes_ = classes
    model.coef_, model.intercept_ = W[:, :d].copy(), W[:, d].copy()
    model.n_iter_ = np.array([n_iter], dtype=np.int32)
    model.n_features_in_ = d
    return True


def _second_moments(model, X):
    """Eigenvalues and eigenvectors of A = [X 1]^T [X 1] / n, computed once per fold model (its
    training rows are the same at every C) and kept on it."""
    cached = getattr(model, "_second_moments", None)
    if cached is not None and cached[1].shape[0] == X.shape[1] + 1:
        return cached
    n, d = X.shape
    A = np.empty((d + 1, d + 1))
    A[:d, :d] = X.T @ X
    A[:d, d] = A[d, :d] = X.sum(axis=0)
    A[d, d] = n
    lam, U = np.linalg.eigh(A / n)
    model._second_moments = (np.maximum(lam, 0.0), U)
    return model._second_moments


#: Names accepted by ``fit_logistic_cv(scoring=...)`` besides a callable.
SCORINGS = ("log_loss", "f1")


def _log_loss(y_enc, proba):
    # a class absent from the fold's training part gets probability 0 at every C: a constant
    # penalty for this fold that does not change the ranking of C
    p_true = proba[np.arange(y_enc.size), y_enc]
    return float(-np.mean(np.log(np.clip(p_true, _EPS, 1.0))))


def _f1(y_enc, proba):
    """F1 of the predicted classes: binary (class 1 predicted where its probability >= 1/2) or
    macro-averaged over the classes (argmax) for more than two; F1 = 1 when a class is neither
    present nor predicted (the convention F(0, 0) = 1)."""
    K = proba.shape[1]
    pred = (proba[:, 1] >= 0.5).astype(int) if K == 2 else np.argmax(proba, axis=1)
    classes = [1] if K == 2 else range(K)
    f = []
    for c in classes:
        tp = np.sum((pred == c) & (y_enc == c))
        den = np.sum(pred == c) + np.sum(y_enc == c)
        f.append(1.0 if den == 0 else 2.0 * tp / den)
    return float(np.mean(f))


def _fold_loss(scoring, classes):
    """The quantity minimised over C for one fold: log loss, or minus a score."""
    if callable(scoring):
        return lambda y_enc, proba: -float(scoring(classes[y_enc], proba))
    if scoring == "log_loss":
        return _log_loss
    if scoring == "f1":
        return lambda y_enc, proba: -_f1(y_enc, proba)
    raise ValueError(f"fit_logistic_cv: scoring must be one of {SCORINGS} or a callable, got {scoring!r}")


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
    patience: int | None = None,
    scoring="log_loss",
    solver: str = "lbfgs",
    polish: bool = True,
):
    """Fit an L2 logistic regression with C chosen by k-fold cross-validated log loss (or a score).

    The folds walk the grid from the smallest C to the largest together, each fold's solver warm
    started at its solution for the previous C (the first from the log class priors, the C -> 0
    solution); the final model is refitted on all data at the best C, started from the folds'
    mean solution. BLAS runs single-threaded inside (these problems are small; threads only
    contend on shared machines): parallelise over models instead.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n, d)
        Features. Standardise them first for fast, stable convergence.
    y : array-like of shape (n,) (or (n, 1))
        Target classes (binary or multi-class; multinomial for more than two); no NaN.
    Cs : sequence of float
        The grid of inverse regularisation strengths (default: the paper's 1e-4 .. 1e3).
    cv : int
        Number of folds (stratified and shuffled where every class has at least ``cv``
        members; plain shuffled k-fold otherwise, so rare classes never break the split).
    random_state : int
        Seed of the fold shuffling.
    n_jobs : int or None
        Folds fitted in parallel threads at each C (None or 1: one after another).
    max_iter, tol : the solver's settings.
    patience : int or None
        None (default, the paper's protocol): evaluate every C. An integer stops the walk up
        the grid once the mean CV log loss has not improved for that many consecutive C values
        (the large-C fits are the slow ones); the skipped C get ``cv_log_loss_ = inf``. Same
        choice as the full grid whenever the CV curve is unimodal.
    scoring : {"log_loss", "f1"} or callable
        What the cross-validation compares: ``"log_loss"`` (default, the paper: the C with the
        smallest mean validation log loss); ``"f1"``: the largest mean validation F1 (binary: of
        class 1 predicted where its probability is >= 1/2; more classes: macro F1 of the argmax);
        a callable ``scoring(y_true, proba) -> float`` (larger is better; ``proba`` has one column
        per class of ``y``, sorted): the largest mean score. ``cv_loss_`` holds the minimised
        quantity (log loss, or minus the score) per C.
    solver : {"lbfgs", "newton-cg"}
        scikit-learn's solver (default lbfgs; see the module text for newton-cg).
    polish : bool
        For a binary target, refit the final model from the solver's solution with newton-cg
        until the largest gradient component is below :data:`POLISH_TOL` (default True). The
        cross-validation stops each fit at ``tol`` on a path that depends on the CPU's
        floating-point kernels; the polished model is the optimum at the chosen C, the same on
        every machine to about 1e-10 in the logits, so predictions that compare probabilities
        with random numbers (a chain's ancestral samples) do not change between machines. It
        adds about a tenth to a binary model's fit. Multinomial models are not polished (to a
        tolerance that tight their fit takes several times longer, and their predictions feed
        exact inference only, which is far less sensitive to the last digits); on dense X their
        preconditioned lbfgs stops far closer to the optimum than scikit-learn's at the same
        ``tol`` (see the module text).

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
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"fit_logistic_cv: y must be 1-D (n,), got shape {y.shape}")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"fit_logistic_cv: y contains NaN (row {int(np.flatnonzero(np.isnan(y))[0])})")
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"fit_logistic_cv: X has {X.shape[0]} rows but y has {y.shape[0]}")
    if y.shape[0] == 0:
        raise ValueError("fit_logistic_cv: y is empty")
    Cs = np.asarray(list(Cs), dtype=float)
    if Cs.ndim != 1 or Cs.size == 0 or np.any(~np.isfinite(Cs)) or np.any(Cs <= 0):
        raise ValueError(f"fit_logistic_cv: Cs must be positive finite numbers, got {Cs!r}")
    if solver not in SOLVERS:
        raise ValueError(f"fit_logistic_cv: solver must be one of {list(SOLVERS)}, got {solver!r}")
    if patience is not None and (int(patience) != patience or patience < 1):
        raise ValueError(f"fit_logistic_cv: patience must be None or an integer >= 1, got {patience!r}")
    classes, y_enc, counts = np.unique(y, return_inverse=True, return_counts=True)
    fold_loss = _fold_loss(scoring, classes)
    if classes.size == 1:
        return ConstantProbability(classes_=classes, n_features_in_=X.shape[1], Cs_=Cs)
    n_splits = int(min(cv, y.shape[0]))
    if n_splits < 2:
        raise ValueError(f"fit_logistic_cv: cv must be >= 2 and <= n, got cv={cv}, n={y.shape[0]}")
    if counts.min() >= n_splits:
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
    else:
        folds = KFold(n_splits, shuffle=True, random_state=random_state)
    splits = list(folds.split(np.zeros((y.size, 1)), y_enc))
    X = fit_matrix(X)
    # each fold's rows are sliced once, not once per C
    parts = [(X[tr], y_enc[tr], X[va], y_enc[va]) for tr, va in splits]
    K, d = classes.size, X.shape[1]
    order = np.argsort(Cs, kind="stable")
    losses = np.full(Cs.size, np.inf)

    def new_model():
        return LogisticRegression(solver=solver, max_iter=max_iter, tol=tol, warm_start=True)

    models = []
    for tr, _ in splits:
        m = new_model()
        k_tr = np.unique(y_enc[tr])
        if k_tr.size == 1:
            models.append(int(k_tr[0]))
            continue
        _prior_start(m, np.searchsorted(k_tr, y_enc[tr]), k_tr.size, d)
        models.append(m)
    parallel = n_jobs not in (None, 1)
    with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        best, since, coefs = np.inf, 0, None
        for j in order:
            C = float(Cs[j])
            jobs = [(models[f], *parts[f], C, K) for f in range(len(splits))]
            if parallel:
                probas = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(_fold_step)(*a) for a in jobs)
            else:
                probas = [_fold_step(*a) for a in jobs]
            losses[j] = float(np.mean([fold_loss(parts[f][3], probas[f]) for f in range(len(splits))]))
            if losses[j] < best - 1e-12:
                best, since, coefs = losses[j], 0, _mean_solution(models, K)
            else:
                since += 1
                if patience is not None and since >= patience:
                    break
        j_best = int(np.argmin(losses))  # first of equal losses in the given order
        final = new_model()
        if coefs is not None and losses[j_best] == best:
            final.coef_, final.intercept_ = coefs
        else:
            _prior_start(final, y_enc, K, d)
        final.set_params(C=float(Cs[j_best]))
        if not (_fit_binary_lbfgs(final, X, y_enc) or _fit_multinomial_lbfgs(final, X, y_enc)):
            final.fit(X, y_enc)
        final.__dict__.pop("_second_moments", None)  # (d + 1)^2 numbers, not kept on the model
        if K == 2 and polish:  # to the optimum: the same model on any CPU (see POLISH_TOL)
            final.set_params(solver="newton-cg", tol=POLISH_TOL, max_iter=POLISH_MAX_ITER)
            final.fit(X, y_enc)
    final.classes_ = classes  # report the original labels; columns keep their order
    return TunedLogistic(final, Cs, losses, scoring=scoring)


#: Dense feature matrices with at most this fraction of nonzero entries are fitted as CSR.
SPARSE_FIT_DENSITY = 0.1


def fit_matrix(X):
    """X as the solver should see it: a mostly-zero dense matrix becomes CSR.

    The lbfgs objective and gradient are products with X; on enron's bag of words (8% nonzero,
    kept dense by the loader because it is small) CSR products halve the fitting time. The
    solution is the same up to floating-point rounding.
    """
    if sp.issparse(X) or X.size == 0:
        return X
    if np.count_nonzero(X) <= SPARSE_FIT_DENSITY * X.size:
        return sp.csr_matrix(X)
    return X


def _mean_solution(models, n_classes):
    """Mean (coef_, intercept_) over the fold models that saw every class, or None."""
    full = [m for m in models if not isinstance(m, int) and m.classes_.size == n_classes]
    if not full:
        return None
    return (np.mean([m.coef_ for m in full], axis=0), np.mean([m.intercept_ for m in full], axis=0))


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


def check_features(X, name: str = "X"):
    """Validate a feature matrix for the learners: 2-D, finite, float64 (dense or CSR).

    Raises a one-line ValueError naming ``name``.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{name} contains NaN or infinite values")
        return X
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot convert to a float array ({exc})") from None
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_samples, n_features), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return X
