"""Parametric plug-in learners of Section 7.1.4: BR, LFP and EFP.

All three are built from L2-regularised logistic regressions whose C is tuned per model by
k-fold cross-validation on log loss (:func:`fmeasure.learners.logistic.fit_logistic_cv`), as the
paper does for PCC (Section 7.2.2: 5 folds, C in {1e-4, ..., 1e3}).

- :class:`BinaryRelevance` (BR): one binary model per label; predicts the marginal modes
  (p_i >= 0.5), which is Hamming-optimal for the estimated marginals.
- :class:`LFP` (label-independence F plug-in): the same fitted models; the marginals go to
  :func:`fmeasure.inference.fm` (Ye et al. 2012), exact for independent labels.
- :class:`EFP` (exact F plug-in, Dembczynski et al. 2013): a binary model for P(y = 0 | x) and,
  per label i, a multinomial model over the classes [y_i = 1] * s_y seen in training; the
  estimated matrix P (p_is = P(y_i = 1, s_y = s | x)) and P(y = 0 | x) go to
  :func:`fmeasure.inference.gfm_from_p`.

Repair of inconsistent P (the paper leaves it open, Section 7.1.4)
------------------------------------------------------------------
The m + 1 models are fitted separately, so their estimates need not come from one distribution.
We repair in two steps, both exact no-ops when the estimates are consistent:

1. ``train_on="nonempty"`` (default, as the authors' own implementation did): the label models
   are trained on the instances with a non-empty label vector only, so they estimate
   P(y_i = 1, s_y = s | x, y != 0); multiplying by 1 - P(y = 0 | x) gives P. Every row of P then
   sums to at most 1 - P(y = 0 | x), by construction. With ``train_on="all"`` (the paper's text
   taken literally) the models see all instances and a row whose mass exceeds 1 - P(y = 0 | x) is
   scaled down to it.
2. The distribution of s_y implied by P, q_s = (1/s) sum_i p_is, must have total mass
   1 - P(y = 0 | x). When it is larger, P is scaled down by (1 - P(y = 0)) / sum_s q_s (a
   smaller total cannot be repaired by scaling without breaking step 1, and gfm_from_p accepts it).
   Scaling P by a constant does not change which k labels GFM selects for a given k; it only
   moves the comparison with the empty prediction, whose value P(y = 0) must be on the same
   scale. :func:`fmeasure.inference.gfm_from_p` rejects P with p_zero + sum_s q_s > 1, so this
   step is always applied.

Example
-------
>>> import numpy as np
>>> from fmeasure.learners.parametric import EFP
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(200, 3)); Y = (X[:, :2] + rng.normal(size=(200, 2)) > 0).astype(np.int8)
>>> EFP(Cs=[1.0], cv=3).fit(X, Y).predict(X[:2]).shape
(2, 2)
"""

from __future__ import annotations

import logging
import time
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from fmeasure import inference
from fmeasure.io import progress
from fmeasure.learners.base import MultiLabelClassifier, fit_context
from fmeasure.learners.logistic import DEFAULT_CS, SCORINGS, fit_logistic_cv, fit_matrix

logger = logging.getLogger(__name__)


#: Rows of X per chunk when assembling P (n, m, m) for prediction (keeps memory bounded).
_CHUNK_BYTES = 256 * 2**20


def _is_indicator(X) -> bool:
    """Whether every entry of dense X is 0 or 1 (binary indicator features, e.g. bag of words)."""
    return bool(np.all((X == 0) | (X == 1)))


def _seeds(random_state, k):
    """k integer seeds drawn from ``random_state`` (an int gives the same seeds every time)."""
    rng = check_random_state(random_state)
    return rng.randint(0, 2**31 - 1, size=k)


def _fit_many(X, targets, rows, Cs, cv, seeds, n_jobs, patience, desc="models fitted", verbose=0, scoring="log_loss"):
    """Fit one tuned logistic model per target (in parallel over targets); ``rows`` selects training rows.

    Returns the models and the CPU seconds spent fitting them in worker processes (summed over
    the workers; 0 when they were fitted in this process, whose CPU the caller measures).
    """
    if rows is not None:
        X = X[rows]
    X = fit_matrix(X)  # once for all targets (a mostly-zero dense X becomes CSR), not once per fit

    def one(j):
        c0 = time.process_time()
        model = fit_logistic_cv(
            X, targets[j], Cs=list(Cs), cv=cv, random_state=int(seeds[j]), n_jobs=1, patience=patience, scoring=scoring
        )
        return model, time.process_time() - c0

    parallel = n_jobs not in (None, 1)
    if not parallel:
        results = (one(j) for j in range(len(targets)))
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(one)(j) for j in range(len(targets)))
    out = list(progress(results, total=len(targets), desc=desc, logger=logger, bar=bool(verbose)))
    return [m for m, _ in out], float(sum(c for _, c in out)) if parallel else 0.0


def _proba_of(model, X, cls):
    """P(class == cls | x) from a fitted model; 0 when ``cls`` was never seen in training."""
    classes = np.asarray(model.classes_)
    hit = np.flatnonzero(classes == cls)
    if hit.size == 0:
        return np.zeros(X.shape[0])
    if classes.size == 1:
        return np.ones(X.shape[0])
    return model.predict_proba(X)[:, hit[0]]


class _TunedLogisticBase(MultiLabelClassifier):
    _parameter_constraints = {
        "Cs": ["array-like"],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "patience": [Interval(Integral, 1, None, closed="left"), None],
        "standardize": ["boolean"],
        "verbose": ["verbose"],
        "scoring": [StrOptions(set(SCORINGS)), callable],
    }

    def __init__(
        self,
        Cs=DEFAULT_CS,
        cv=5,
        random_state=0,
        n_jobs=None,
        patience=None,
        standardize=True,
        verbose=0,
        scoring="log_loss",
    ):
        self.Cs = Cs
        self.scoring = scoring
        self.verbose = verbose
        self.cv = cv
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.patience = patience
        self.standardize = standardize

    def _fit_scaler(self, X):
        # Standardising dense X speeds lbfgs up and makes one C grid fit every feature scale; C is
        # tuned anyway. Sparse X and 0/1 indicator features (bag of words, e.g. enron, which the
        # loader keeps dense because it is small) are left as they are: centring would densify
        # them, and scaling rare binary features by 1/std over-weights them (on enron, EFP then
        # trains longer and scores a lower F than unscaled).
        scale = self.standardize and not sp.issparse(X) and not _is_indicator(X)
        self.scaler_ = StandardScaler().fit(X) if scale else None
        return self._transform(X)

    def _transform(self, X):
        return X if self.scaler_ is None else self.scaler_.transform(X)

    def _check_Cs(self):
        """The grid of C as floats; one error naming ``Cs`` unless it holds positive numbers."""
        try:
            Cs = np.asarray(self.Cs, dtype=float)
        except (TypeError, ValueError):
            Cs = np.array([])
        if Cs.ndim != 1 or Cs.size == 0 or not np.all(np.isfinite(Cs)) or not np.all(Cs > 0):
            raise ValueError(f"Cs must be a non-empty list of positive numbers, got {self.Cs!r}")
        return [float(c) for c in Cs]

    def _validate_fit_data(self, X, y):
        """fit's X (float64; CSR matrix when sparse) and y (int8 0/1 matrix), X standardised."""
        X, Y = self._validate_xy(X, y)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        return self._fit_scaler(X), Y

    def _check_X(self, X):
        """X at predict time, checked against fit's features, standardised as in fit."""
        X = self._validate_X(X)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        return self._transform(X)


class BinaryRelevance(_TunedLogisticBase):
    """Binary relevance: one tuned logistic regression per label, marginal modes at 0.5.

    Parameters
    ----------
    Cs : sequence of float
        Grid for the inverse regularisation strength C, tuned per label on CV log loss.
    cv : int
        Number of cross-validation folds.
    random_state : int, RandomState instance or None
        Seeds the fold assignment of every model (one seed per label, drawn from this).
    n_jobs : int or None
        Labels fitted in parallel (joblib processes); None or 1 fits them one after another.
    patience : int or None
        None (the paper): every C of the grid is cross-validated. An integer stops each model's
        walk up the grid after that many C without improvement (see ``fit_logistic_cv``).
    standardize : bool
        Standardise dense, non-binary features first (sparse and 0/1 indicator features are used
        as they are). Not in the paper (it used Mallet's defaults); it makes lbfgs converge several
        times faster, and C is tuned anyway.
    verbose : int, default 0
        1 draws a progress bar over the label models while fitting (interactive use); progress is
        logged at INFO level either way.
    scoring : {"log_loss", "f1"} or callable, default "log_loss"
        What the cross-validation of each model's C compares (the paper: log loss); see
        :func:`fmeasure.learners.logistic.fit_logistic_cv`.

    Attributes
    ----------
    estimators_ : list of fitted models
        One per label (``predict_proba``, ``classes_``, ``C_``), from
        :func:`~fmeasure.learners.logistic.fit_logistic_cv`.
    C_ : ndarray of shape (n_labels,)
        The C chosen for each label (NaN for a label with one class in training).
    scaler_ : StandardScaler or None
        The standardisation of the features (None when they are used as they are).
    fit_cpu_time_ : float
        CPU seconds of ``fit``, with those of the label models fitted in worker processes.
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [3.]] * 5); Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]] * 5)
    >>> br = BinaryRelevance(Cs=[100.0], cv=2).fit(X, Y)
    >>> br.predict([[0.], [3.]])
    array([[0, 1],
           [1, 1]])
    >>> br.predict_marginals([[3.]]).round(3), br.predict_expected_f([[3.]]).round(3)
    (array([[1., 1.]]), array([1.]))
    """

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit one tuned binary logistic regression per label.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels), 0/1; or (n_samples,), one label with two classes

        Returns
        -------
        self
        """
        Cs = self._check_Cs()
        X, Y = self._validate_fit_data(X, y)
        n, m = Y.shape
        seeds = _seeds(self.random_state, m)
        t0 = time.perf_counter()
        self.estimators_, workers = _fit_many(
            X,
            [Y[:, j] for j in range(m)],
            None,
            Cs,
            self.cv,
            seeds,
            self.n_jobs,
            self.patience,
            desc=f"{type(self).__name__}: labels fitted",
            verbose=self.verbose,
            scoring=self.scoring,
        )
        self._worker_cpu_time += workers
        self.C_ = np.array([float(getattr(est, "C_", np.nan)) for est in self.estimators_])
        logger.info(
            "%s: fitted %d label models on %d x %d in %.2f s",
            type(self).__name__,
            m,
            n,
            X.shape[1],
            time.perf_counter() - t0,
        )
        return self

    def _marginals(self, X):
        """Marginals (n, m) of checked, standardised X."""
        return np.column_stack([_proba_of(est, X, 1) for est in self.estimators_])

    def predict_marginals(self, X):
        """Estimated marginals p_i = P(y_i = 1 | x), shape (n, m) ((n,) for a 1-d y: of ``classes_[-1]``)."""
        return self._decode_marginals(self._marginals(self._check_X(X)))

    def predict(self, X):
        """Marginal modes (Hamming-optimal for the estimated marginals): ``p_i > 0.5``, (n, m) in y's dtype.

        The threshold alone, as :func:`fmeasure.inference.marginal_modes` predicts, without the
        expected F that it also computes: BR's inference time is the models' and the threshold's.
        """
        return self._decode((self._marginals(self._check_X(X)) > 0.5).astype(np.int8))

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction if the labels were independent with the estimated
        marginals, (n,) (:func:`fmeasure.inference.expected_f_independent`)."""
        P = self._marginals(self._check_X(X))
        return np.asarray(inference.expected_f_independent(P, (P > 0.5).astype(np.int8)), dtype=np.float64)


class LFP(BinaryRelevance):
    """Label-independence F plug-in: BR's marginals, then Ye et al.'s exact F-maximizer under independence.

    Same parameters and fitting as :class:`BinaryRelevance`; only the inference differs.

    Parameters
    ----------
    allow_empty : bool, default True
        Whether the empty prediction competes (Ye et al.'s maximizer, F(0, 0) = 1: predicted
        where P(y = 0) under independence beats every top-k set). False: the best non-empty top-k
        set is predicted instead, so every prediction carries at least one label.
    Cs, cv, random_state, n_jobs, patience, standardize, scoring, verbose
        As for :class:`BinaryRelevance`.

    Attributes
    ----------
    estimators_, C_, scaler_, n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for :class:`BinaryRelevance`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [3.]] * 5); Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]] * 5)
    >>> LFP(Cs=[100.0], cv=2).fit(X, Y).predict([[3.]])
    array([[1, 1]])
    """

    _parameter_constraints = {**_TunedLogisticBase._parameter_constraints, "allow_empty": ["boolean"]}

    def __init__(
        self,
        Cs=DEFAULT_CS,
        cv=5,
        random_state=0,
        n_jobs=None,
        patience=None,
        standardize=True,
        verbose=0,
        scoring="log_loss",
        allow_empty=True,
    ):
        super().__init__(
            Cs=Cs,
            cv=cv,
            random_state=random_state,
            n_jobs=n_jobs,
            patience=patience,
            standardize=standardize,
            verbose=verbose,
            scoring=scoring,
        )
        self.allow_empty = allow_empty

    def predict(self, X):
        """F-optimal predictions under label independence (:func:`fmeasure.inference.fm`), in y's values."""
        return self._decode(_fm(self, X)[0])

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under label independence with the estimated
        marginals, (n,): the value of :func:`fmeasure.inference.fm`."""
        return np.asarray(_fm(self, X)[1], dtype=np.float64)

    @classmethod
    def from_binary_relevance(cls, model, allow_empty=True):
        """An LFP that predicts from the label models of a fitted :class:`BinaryRelevance`: the
        fitting is the same, so nothing is fitted again (the models are shared, not copied).

        >>> import numpy as np
        >>> X = np.array([[0.], [1.], [2.], [3.]] * 5); Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]] * 5)
        >>> br = BinaryRelevance(Cs=[100.0], cv=2).fit(X, Y)
        >>> LFP.from_binary_relevance(br).predict([[3.]])
        array([[1, 1]])
        """
        if not isinstance(model, BinaryRelevance) or not hasattr(model, "estimators_"):
            raise ValueError(f"model: expected a fitted BinaryRelevance, got {type(model).__name__}")
        params = {k: v for k, v in model.get_params().items() if k != "allow_empty"}
        lfp = cls(allow_empty=allow_empty, **params)
        for key, value in vars(model).items():  # the fitted state, public and private
            if key not in params and key != "allow_empty":
                setattr(lfp, key, value)
        return lfp


def _fm(model, X):
    """LFP's inference for a fitted BR or LFP: :func:`fmeasure.inference.fm` on its marginals."""
    allow_empty = bool(getattr(model, "allow_empty", True))
    return inference.fm(model._marginals(model._check_X(X)), allow_empty=allow_empty)


class EFP(_TunedLogisticBase):
    """Exact F-measure plug-in: models P(y = 0 | x) and the matrix P(x), then GFM.

    Parameters
    ----------
    Cs, cv, random_state, n_jobs, patience, standardize, scoring, verbose
        As for :class:`BinaryRelevance` (one seed per model, m + 1 models).
    train_on : {"nonempty", "all"}
        Instances the label models are trained on. ``"nonempty"`` (default, the authors'
        implementation): P(y_i = 1, s | x, y != 0), scaled by 1 - P(y = 0 | x). ``"all"``: the
        paper's text literally; rows exceeding 1 - P(y = 0 | x) are scaled down to it.

    Attributes
    ----------
    zero_model_ : fitted binary model for [y = 0].
    estimators_ : list of m fitted multinomial models over the classes [y_i = 1] * s_y seen in
        training (None for every label when no training label vector is non-empty).
    C_ : ndarray of shape (n_labels,)
        The C chosen for each label's model (NaN where a label's model has one class or is None);
        the zero model's is ``zero_model_.C_``.
    scaler_ : StandardScaler or None
        The standardisation of the features (None when they are used as they are).
    fit_cpu_time_ : float
        CPU seconds of ``fit``, with those of the label models fitted in worker processes.
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [3.]] * 5); Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]] * 5)
    >>> efp = EFP(Cs=[100.0], cv=2).fit(X, Y)
    >>> P, p0 = efp.predict_p_matrix([[3.]])
    >>> P.shape, bool(P[0, 1, 1] > 0.9), efp.predict([[3.]])
    ((1, 2, 2), True, array([[1, 1]]))
    """

    _parameter_constraints = {
        **_TunedLogisticBase._parameter_constraints,
        "train_on": [StrOptions({"nonempty", "all"})],
    }

    def __init__(
        self,
        Cs=DEFAULT_CS,
        cv=5,
        random_state=0,
        n_jobs=None,
        patience=None,
        standardize=True,
        train_on="nonempty",
        verbose=0,
        scoring="log_loss",
    ):
        super().__init__(
            Cs=Cs,
            cv=cv,
            random_state=random_state,
            n_jobs=n_jobs,
            patience=patience,
            standardize=standardize,
            verbose=verbose,
            scoring=scoring,
        )
        self.train_on = train_on

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the P(y = 0) model and one multinomial model per label.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels), 0/1; or (n_samples,), one label with two classes

        Returns
        -------
        self
        """
        Cs = self._check_Cs()
        X, Y = self._validate_fit_data(X, y)
        n, m = Y.shape
        s = Y.sum(axis=1).astype(np.int64)
        empty = s == 0
        seeds = _seeds(self.random_state, m + 1)
        t0 = time.perf_counter()
        zero, _ = _fit_many(
            X,
            [empty.astype(np.int8)],
            None,
            Cs,
            self.cv,
            seeds[:1],
            1,
            self.patience,
            desc="EFP: model of P(y = 0) fitted",
            scoring=self.scoring,
        )
        self.zero_model_ = zero[0]
        rows = ~empty if self.train_on == "nonempty" else None
        if rows is not None and not rows.any():
            # every training label vector is empty: P(y != 0) is estimated as 0 and P is all zeros
            self.estimators_ = [None] * m
        else:
            Ys = Y if rows is None else Y[rows]
            ss = s if rows is None else s[rows]
            targets = [Ys[:, i] * ss for i in range(m)]
            if rows is not None and rows.all():
                rows = None  # no copy of X needed
            self.estimators_, workers = _fit_many(
                X,
                targets,
                rows,
                Cs,
                self.cv,
                seeds[1:],
                self.n_jobs,
                self.patience,
                desc="EFP: label models fitted",
                verbose=self.verbose,
                scoring=self.scoring,
            )
            self._worker_cpu_time += workers
        self.C_ = np.array([float(getattr(est, "C_", np.nan)) for est in self.estimators_])
        logger.info("EFP: fitted %d models on %d x %d in %.2f s", m + 1, n, X.shape[1], time.perf_counter() - t0)
        return self

    def predict_p_zero(self, X):
        """Estimated P(y = 0 | x), shape (n,)."""
        X = self._check_X(X)
        return _proba_of(self.zero_model_, X, 1)

    def predict_p_matrix(self, X):
        """Repaired estimates of P and P(y = 0).

        Returns
        -------
        P : ndarray (n, m, m)
            P[j, i, s - 1] = P(y_i = 1, s_y = s | x_j), s = 1..m.
        p_zero : ndarray (n,)
        """
        X = self._check_X(X)
        P, p0 = self._p_compact(X)
        full = np.zeros(P.shape[:2] + (self.n_labels_,))
        full[:, :, : P.shape[2]] = P
        return full, p0

    def _max_count(self):
        """The largest label count any label model can predict (at least 1): the columns of P that
        can hold mass."""
        top = [int(np.max(est.classes_)) for est in self.estimators_ if est is not None]
        return max([1] + top)

    def _p_compact(self, X):
        """P restricted to the counts s = 1..S that a label model can predict (S =
        :meth:`_max_count`), and P(y = 0), on already checked and transformed X: (n, m, S), (n,)."""
        n, m, S = X.shape[0], self.n_labels_, self._max_count()
        p0 = _proba_of(self.zero_model_, X, 1)
        P = np.zeros((n, m, S))
        for i, est in enumerate(self.estimators_):
            if est is None:
                continue
            classes = np.asarray(est.classes_)
            pos = classes > 0
            if not pos.any():
                continue
            if classes.size == 1:
                proba = np.ones((n, 1))
            else:
                proba = est.predict_proba(X)
            P[:, i, classes[pos] - 1] = proba[:, pos]
        nonzero = 1.0 - p0
        if self.train_on == "nonempty":
            P *= nonzero[:, None, None]
        else:
            rows = P.sum(axis=2)
            scale = np.minimum(1.0, nonzero[:, None] / np.maximum(rows, 1e-300))
            P *= scale[:, :, None]
        mass = (P.sum(axis=1) / np.arange(1, S + 1)).sum(axis=1)
        # a hair below the bound so that rounding never trips gfm_from_p's validation
        scale = np.minimum(1.0, nonzero * (1 - 1e-12) / np.maximum(mass, 1e-300))
        P *= scale[:, None, None]
        return P, p0

    def _gfm(self, X):
        """GFM's predictions (n, m) and values (n,) for the estimated P and P(y = 0).

        P is built over the counts a label model can predict only (S columns, the largest label
        count of the training set), in chunks of instances: time and memory O(n m S), not O(n m^2).
        """
        X = self._check_X(X)
        n, m = X.shape[0], self.n_labels_
        step = max(1, _CHUNK_BYTES // (8 * m * self._max_count()))
        H = np.empty((n, m), dtype=np.int8)
        V = np.empty(n)
        for a in range(0, n, step):
            P, p0 = self._p_compact(X[a : a + step])
            H[a : a + step], V[a : a + step] = inference.gfm_from_p(P, p0)
        return H, V

    def predict(self, X):
        """F-optimal predictions for the estimated P and P(y = 0) (:func:`fmeasure.inference.gfm_from_p`),
        in y's values."""
        return self._decode(self._gfm(X)[0])

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under the estimated (repaired) P and P(y = 0), (n,):
        GFM's value."""
        return self._gfm(X)[1]

    def predict_marginals(self, X):
        """Marginals p_i = sum_s P(y_i = 1, s_y = s | x) of the estimated (repaired) P, (n, m)
        ((n,) for a 1-d y)."""
        X = self._check_X(X)
        n, m = X.shape[0], self.n_labels_
        step = max(1, _CHUNK_BYTES // (8 * m * self._max_count()))
        out = np.empty((n, m))
        for a in range(0, n, step):
            out[a : a + step] = self._p_compact(X[a : a + step])[0].sum(axis=2)
        return self._decode_marginals(out)
