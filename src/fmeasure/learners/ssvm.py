"""A structured SVM trained on the F-measure loss: the RML method of the paper's Section 7.2.4.

:class:`FMeasureSSVM` is a linear structured SVM (Tsochantaridis et al., 2005) in the form that
Petterson and Caetano (2010) call RML ("reverse multi-label"): the joint feature map scores each
label separately, score(x, y) = sum_i y_i (w_i . x + b_i), so the model is one weight vector and
one bias per label; the loss is Delta(y, h) = 1 - F(y, h) with F(0, 0) = 1; margin rescaling; L2
regularisation. Training moves the F-measure into the learning problem; prediction applies each
label's linear model independently (h_i = [w_i . x + b_i > 0]), which is the argmax of the joint
score.

Objective (the usual "C / n" scaling of SVM-struct)::

    min_w  1/2 ||w||^2 + C / n * sum_n max_h [Delta(y_n, h) + score(x_n, h) - score(x_n, y_n)]

with the bias inside w (a constant feature equal to 1, regularised like the weights).

Solver: block-coordinate Frank-Wolfe on the dual (Lacoste-Julien, Jaggi, Schmidt and Pletscher,
ICML 2013). It needs only the loss-augmented oracle
(:func:`fmeasure.inference.loss_augmented`, exact in O(m^2) per example), no QP solver; its exact
line search makes the dual objective increase at every step, and it yields the duality gap, a
certificate of sub-optimality used as the stopping rule. For this feature map the dual variables
of example n collapse to one vector a_n in R^m (a convex combination of y_n - h), so w = X~' A /
(lambda n) with lambda = 1 / C and the memory is O(n m), whatever the number of constraints
visited. Blocks are mini-batches of ``batch_size`` examples (one oracle call for the whole batch,
one exact line search on the joint direction; ``batch_size=1`` is the original algorithm). Each
pass visits every example once in a random order; after each pass the exact duality gap is
computed (one batched oracle call on all examples) and the solver stops when it is at most
``tol`` or after ``max_iter`` passes (``stopped_by_`` says which). The dual variables are feasible
for every C, so the C grid is solved as a warm-started path (small C first).

Where this may differ from Petterson and Caetano's C++ binary (used for the paper's Table 6):
their solver is the 1-slack cutting-plane method with a QP on the working set, capped at 1000
iterations; here the same convex problem is solved by BCFW to a duality-gap tolerance, so both
approach the same optimum but stop at different points. Whether their binary regularises the
bias, scales C by 1/n, or rescales features is not documented; here the bias is regularised, C
is scaled by 1/n, and features are used as given (``standardize=True`` standardises dense
real-valued ones).

Example
-------
>>> import numpy as np
>>> from fmeasure.learners import FMeasureSSVM
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(200, 4)); Y = (X[:, :3] > 0).astype(np.int8)
>>> model = FMeasureSSVM(Cs=(100.0,)).fit(X, Y)
>>> from fmeasure.metrics import f_measure
>>> bool(f_measure(Y, model.predict(X)).mean() > 0.95), model.coef_.shape
(True, (3, 4))
"""

from __future__ import annotations

import logging
import numbers
import time

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from fmeasure.inference import loss_augmented
from fmeasure.learners.base import multilabel_tags
from fmeasure.metrics import f_measure

__all__ = ["FMeasureSSVM", "bcfw"]

log = logging.getLogger(__name__)

#: The paper's grid for C (Section 7.2: as for PCC, EFP and LFP).
DEFAULT_CS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)


def _add_bias(X):
    ones = np.ones((X.shape[0], 1))
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(ones)], format="csr")
    return np.hstack([X, ones])


def _row_sq_norms(Xa):
    if sp.issparse(Xa):
        return np.asarray(Xa.multiply(Xa).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", Xa, Xa)


def _objectives(Xa, Y, W, A, ell, lam):
    """Primal, dual and exact duality gap at (W, A, ell)."""
    n = Xa.shape[0]
    S = np.asarray(Xa @ W)
    _, value = loss_augmented(S, Y)
    hinge = value - np.einsum("ij,ij->i", S, Y)
    reg = 0.5 * lam * float(np.sum(W * W))
    primal = reg + float(np.mean(hinge))
    dual = float(np.sum(ell)) / n - reg
    return primal, dual


def bcfw(Xa, Y, C, *, tol=1e-3, max_iter=1000, batch_size=16, random_state=None, init=None):
    """Block-coordinate Frank-Wolfe for the F-measure structured SVM (features already with bias).

    Parameters
    ----------
    Xa : ndarray or CSR matrix of shape (n, d)
        Features, the constant bias feature included.
    Y : ndarray of shape (n, m), 0/1
    C : float > 0
        Regularisation (objective 1/2 ||w||^2 + C / n * sum of structured hinge losses).
    tol : float
        Stop when the duality gap (primal minus dual objective) is at most ``tol``.
    max_iter : int
        Most passes over the data.
    batch_size : int
        Examples per block step.
    random_state : int, Generator or None
        Order of the examples in each pass.
    init : tuple (A, ell), optional
        Dual variables to start from (feasible for any C): warm start along a C path.

    Returns
    -------
    dict
        ``W`` (d, m), ``A`` (n, m), ``ell`` (n,), ``gap``, ``primal``, ``dual``, ``n_iter``
        (passes), ``stopped_by`` ("tol" or "max_iter"), ``dual_history`` and ``gap_history``
        (one value per pass, the starting point first).
    """
    if not (isinstance(C, numbers.Real) and C > 0):
        raise ValueError(f"C must be a positive number, got {C!r}")
    n, m = Y.shape
    lam = 1.0 / C
    Yf = Y.astype(np.float64)
    if init is None:
        A = np.zeros((n, m))
        ell = np.zeros(n)
    else:
        A, ell = (np.array(v, dtype=np.float64) for v in init)
    W = np.asarray(Xa.T @ A) / (lam * n)
    rng = np.random.default_rng(random_state)
    primal, dual = _objectives(Xa, Y, W, A, ell, lam)
    dual_hist, gap_hist = [dual], [primal - dual]
    stopped_by = "tol"
    it = 0
    while primal - dual > tol:
        if it >= max_iter:
            stopped_by = "max_iter"
            break
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            g = np.sort(order[start : start + batch_size])
            Xg = Xa[g]
            S = np.asarray(Xg @ W)
            H, value = loss_augmented(S, Y[g])
            D = (Yf[g] - H) - A[g]  # direction of the block's dual variables
            ls = value - np.einsum("ij,ij->i", S, H)  # the loss 1 - F(y, h) of the new vertex
            dl = ls - ell[g]
            gap = (float(dl.sum()) - float(np.sum(S * D))) / n
            if gap <= 0.0:
                continue
            M = np.asarray(Xg.T @ D)  # (d, m); w moves by M / (lam n)
            curv = float(np.sum(M * M)) / (lam * n * n)
            gamma = 1.0 if curv <= 0.0 else min(1.0, gap / curv)
            A[g] += gamma * D
            ell[g] += gamma * dl
            W += (gamma / (lam * n)) * M
        it += 1
        primal, dual = _objectives(Xa, Y, W, A, ell, lam)
        dual_hist.append(dual)
        gap_hist.append(primal - dual)
    return {
        "W": W,
        "A": A,
        "ell": ell,
        "gap": primal - dual,
        "primal": primal,
        "dual": dual,
        "n_iter": it,
        "stopped_by": stopped_by,
        "dual_history": dual_hist,
        "gap_history": gap_hist,
    }


def _path(Xa, Y, Cs, solver_kw, seed):
    """Solve for every C in ascending order, each warm-started from the previous dual."""
    out, init = {}, None
    for i, C in enumerate(sorted(Cs)):
        res = bcfw(Xa, Y, C, init=init, random_state=np.random.SeedSequence([seed, i]), **solver_kw)
        init = (res["A"], res["ell"])
        out[C] = res
    return out


def _fold(Xa, Y, tr, va, Cs, solver_kw, seed):
    path = _path(Xa[tr], Y[tr], Cs, solver_kw, seed)
    scores = {}
    for C, res in path.items():
        H = (np.asarray(Xa[va] @ res["W"]) > 0).astype(np.int8)
        scores[C] = float(np.mean(f_measure(Y[va], H)))
    return scores, {C: (r["n_iter"], r["stopped_by"]) for C, r in path.items()}


def _is_indicator(X) -> bool:
    values = X.data if sp.issparse(X) else X
    return bool(np.isin(values, (0.0, 1.0)).all())


class FMeasureSSVM(ClassifierMixin, MultiOutputMixin, BaseEstimator):
    """Linear structured SVM with the F-measure loss (RML), C tuned by cross-validated F.

    Parameters
    ----------
    Cs : sequence of float
        Grid for the regularisation parameter C. With more than one value, C is chosen by
        ``cv``-fold cross-validation on the instance-wise F-measure (test folds, each label's
        score thresholded at 0), ties to the smaller C, then the model is refitted on all data.
        With one value, that C is used. Default: the paper's grid 1e-4, ..., 1e3.
    cv : int
        Folds of that cross-validation.
    tol : float
        Duality-gap tolerance of the solver (objective scale: the loss lies in [0, 1]).
    max_iter : int
        Most passes over the training data per value of C.
    batch_size : int
        Examples per block-coordinate Frank-Wolfe step (1 = the original algorithm; larger
        blocks use batched inference and matrix products, at a slightly slower rate per pass).
    standardize : bool
        Standardise dense real-valued features (sparse and 0/1 features are kept as they are).
        Off by default: raw features, as the paper's binary was given them.
    random_state : int or None
        Seeds the folds and the order of the examples in the solver.
    n_jobs : int or None
        Folds solved in parallel (joblib).

    Attributes
    ----------
    coef_ : ndarray of shape (n_labels, n_features)
        One weight vector per label (in the original feature space).
    intercept_ : ndarray of shape (n_labels,)
    C_ : float
        The chosen C.
    cv_scores_ : ndarray of shape (len(Cs),)
        Mean CV F-measure per C in ascending order of C (NaN without CV).
    n_iter_ : int
        Passes of the final fit.
    duality_gap_ : float
        Duality gap at the end of the final fit.
    stopped_by_ : str
        ``"tol"`` (gap <= tol) or ``"max_iter"`` (the pass cap).
    dual_objective_history_ : list of float
        Dual objective after each pass of the final fit (never decreasing).
    n_labels_, n_features_in_ : int
    classes_ : ndarray ``[0, 1]``, the values every label takes.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(120, 3)); Y = (X[:, :2] + 0.3 * rng.normal(size=(120, 2)) > 0).astype(int)
    >>> model = FMeasureSSVM(Cs=(0.1, 10.0), cv=3, random_state=0).fit(X, Y)
    >>> model.C_ in (0.1, 10.0), model.predict(X).shape, model.stopped_by_
    (True, (120, 2), 'tol')
    """

    def __init__(
        self,
        Cs=DEFAULT_CS,
        cv=5,
        tol=1e-3,
        max_iter=1000,
        batch_size=16,
        standardize=False,
        random_state=0,
        n_jobs=None,
    ):
        self.Cs = Cs
        self.cv = cv
        self.tol = tol
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.standardize = standardize
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        return multilabel_tags(super().__sklearn_tags__())

    def _check_params(self):
        Cs = np.atleast_1d(np.asarray(self.Cs, dtype=float)) if self.Cs is not None else np.array([])
        if Cs.size == 0 or not np.all(np.isfinite(Cs)) or np.any(Cs <= 0):
            raise ValueError(f"Cs must be a non-empty sequence of positive numbers, got {self.Cs!r}")
        if not isinstance(self.cv, numbers.Integral) or isinstance(self.cv, bool) or self.cv < 2:
            raise ValueError(f"cv must be an integer >= 2, got {self.cv!r}")
        if not isinstance(self.tol, numbers.Real) or not self.tol > 0:
            raise ValueError(f"tol must be a positive number, got {self.tol!r}")
        for name in ("max_iter", "batch_size"):
            v = getattr(self, name)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        return sorted(set(Cs.tolist()))

    def _prepare(self, X, fit):
        if fit:
            scale = self.standardize and not sp.issparse(X) and not _is_indicator(X)
            self.scaler_ = StandardScaler().fit(X) if scale else None
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        return _add_bias(X)

    def fit(self, X, y):
        """Tune C (if several), then solve the structured SVM on all of (X, y).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels)
            Binary (0/1) label matrix. A 1-d ``y`` is read as a single label.

        Returns
        -------
        self
        """
        Cs = self._check_params()
        X, Y = validate_data(self, X, y, accept_sparse="csr", multi_output=True, dtype=np.float64, y_numeric=True)
        Y = np.asarray(Y)
        self._y_1d = Y.ndim == 1
        if Y.ndim == 1:
            Y = Y[:, None]
        if not np.isin(Y, (0, 1)).all():
            raise ValueError(
                "Only binary classification is supported: y must be a binary (0/1) label "
                f"matrix of shape (n_samples, n_labels); the type of the target is {type_of_target(Y)}"
            )
        Y = Y.astype(np.int8)
        self.n_labels_ = Y.shape[1]
        self.classes_ = np.array([0, 1])
        Xa = self._prepare(X, fit=True)
        rng = check_random_state(self.random_state)
        seed = int(rng.integers(2**31)) if hasattr(rng, "integers") else int(rng.randint(2**31))
        kw = dict(tol=float(self.tol), max_iter=int(self.max_iter), batch_size=int(self.batch_size))
        t0 = time.perf_counter()
        if len(Cs) > 1:
            n_splits = min(int(self.cv), X.shape[0])
            folds = KFold(n_splits, shuffle=True, random_state=seed).split(Xa)
            res = Parallel(n_jobs=self.n_jobs)(
                delayed(_fold)(Xa, Y, tr, va, Cs, kw, seed + 1 + k) for k, (tr, va) in enumerate(folds)
            )
            self.cv_scores_ = np.array([np.mean([r[0][C] for r in res]) for C in Cs])
            self.cv_stops_ = [[r[1][C] for r in res] for C in Cs]
            self.C_ = float(Cs[int(np.argmax(self.cv_scores_))])
        else:
            self.cv_scores_ = np.full(1, np.nan)
            self.C_ = float(Cs[0])
        self.cv_time_ = time.perf_counter() - t0
        path = _path(Xa, Y, [C for C in Cs if C <= self.C_], kw, seed)
        final = path[self.C_]
        W = final["W"]
        coef, intercept = W[:-1].T, W[-1].copy()
        if self.scaler_ is not None:  # back to the original feature space
            coef = coef / self.scaler_.scale_[None, :]
            intercept = intercept - coef @ self.scaler_.mean_
        self.coef_ = np.ascontiguousarray(coef)
        self.intercept_ = intercept
        self.n_iter_ = int(final["n_iter"])
        self.duality_gap_ = float(final["gap"])
        self.stopped_by_ = final["stopped_by"]
        self.dual_objective_history_ = list(final["dual_history"])
        self.gap_history_ = list(final["gap_history"])
        return self

    def decision_function(self, X):
        """Label scores w_i . x + b_i, shape (n_samples, n_labels) (or (n_samples,) for a 1-d y)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        S = np.asarray(X @ self.coef_.T) + self.intercept_
        return S[:, 0] if self._y_1d else S

    def predict(self, X):
        """Each label's score thresholded at 0 (the argmax of the joint score), int8."""
        return (self.decision_function(X) > 0).astype(np.int8)

    def score(self, X, y, sample_weight=None):
        """Mean instance-wise F-measure of ``predict(X)`` against ``y`` (F(0, 0) = 1)."""
        H = self.predict(X)
        f = f_measure(np.asarray(y).reshape(H.shape[0], -1), H.reshape(H.shape[0], -1))
        return float(np.average(f, weights=sample_weight))
