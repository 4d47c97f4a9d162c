"""One route to F-optimal predictions, chosen by cross-validation on the training set.

:class:`FOptimalSearchCV` tries several F-optimal learners (the *routes*), each with a few
settings, scores every one by k-fold cross-validation of the mean instance-wise F-measure
(F(0, 0) = 1, :data:`fmeasure.metrics.f_measure_scorer`) on the training set, and refits the best
on all of it. The search is scikit-learn's :class:`~sklearn.model_selection.GridSearchCV` over a
one-step Pipeline whose step is the candidate (``{"model": [route], "model__<param>": [...]}``),
so the folds, the parallel fits (joblib over candidate x fold), ``cv_results_`` and the refit are
scikit-learn's own.

The built-in routes (:func:`route_candidates`), each a model of the label distribution followed
by exact F-optimal inference, and the settings the search tries:

- ``efp``: :class:`~fmeasure.learners.EFP`, a model of P(y = 0 | x) and per label a multinomial
  model of ``[y_i = 1] * |y|``, then GFM; three settings: C tuned per model inside, or one C
  shared by all its models, each of ``EFP_SHARED_CS`` (10, 100);
- ``lfp``: :class:`~fmeasure.learners.LFP`, one logistic model per label, then FM (exact under
  label independence); C tuned per model inside;
- ``extra_trees``, ``random_forest``: ``FOptimalClassifier(ExtraTreesClassifier(...))`` (or
  ``RandomForestClassifier``), 100 trees, GFM on the training label vectors of the leaves that x
  falls in; min_samples_leaf in {1, 3} (times the factor f of the size rules);
- ``knn``: :class:`~fmeasure.learners.KNeighborsFMeasure`, GFM on the neighbours' label vectors
  (features rescaled to [0, 1]); n_neighbors in {10, 20, 40};
- ``chain``: :class:`~fmeasure.learners.ProbabilisticClassifierChain`, GFM on ancestral samples
  of a chain of logistic models; C tuned per label inside;
- ``powerset``: ``FOptimalClassifier(LabelPowerset(...))``
  (:class:`~fmeasure.learners.powerset.LabelPowerset`), a multinomial logistic model over the
  distinct training label sets, GFM on its distribution over them (exact). Dense continuous X:
  standardised, then the Nystroem features of an RBF kernel (``NYSTROEM_COMPONENTS``), C in
  {10, 30}; sparse or 0/1 X: max-abs scaled, linear, C in {1, 10}.

The logistic models of EFP, LFP and the chain tune their C per model on the grid ``LOGISTIC_CS``
by 2-fold log loss, stopping the walk up the grid at the first C that does not improve. Log loss
judges each model alone and regularises the models of rare labels hard, which flattens the
probabilities that GFM reads; EFP's shared-C settings let the search's F decide instead. EFP and
LFP standardise dense features that are not 0/1 themselves; trees and the chain take X as it is.

Size rules
----------
With n training instances, m labels and K distinct training label sets, routes that would not
scale are dropped or made cheaper before the search (``dropped_`` lists the dropped ones and why):

- ``powerset``: only when K <= ``POWERSET_MAX_SETS`` (200): one class per label set;
- ``chain``: only when m <= ``CHAIN_MAX_LABELS`` (100);
- ``efp``, ``lfp``, ``chain``: only when n * m <= ``LOGISTIC_MAX_CELLS`` (4,000,000): they fit
  one tuned logistic model per label;
- forests: a tree stores two class counts per label in each of its about 2 n / min_samples_leaf
  nodes, so a forest of ``FOREST_TREES`` trees holds about 32 n m ``FOREST_TREES`` /
  min_samples_leaf bytes. min_samples_leaf is multiplied by f, the smallest integer that keeps
  this under ``FOREST_MAX_BYTES`` (1 GiB); the forests are dropped when f > ``FOREST_MAX_FACTOR``
  (16). When n * m > ``LARGE_CELLS`` (400,000), ``extra_trees`` tries min_samples_leaf = f only,
  ``random_forest`` is dropped (the extra trees cover the forest route at a fraction of its
  cost) and ``efp`` tries its per-model tuning only;
- ``knn``: neighbour counts not below the smallest training fold are left out.

``candidates="fast"`` tries ``extra_trees``, ``knn``, ``lfp`` and ``powerset`` with one setting
each (the first of each grid).
"""

from __future__ import annotations

import contextvars
import logging
import math
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.model_selection import GridSearchCV, KFold, ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_array, check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from fmeasure import metrics
from fmeasure.learners.base import MultiLabelClassifier, check_labels, fit_context

__all__ = ["FOptimalSearchCV", "route_candidates", "ROUTES", "CANDIDATE_SETS"]

log = logging.getLogger(__name__)

#: The built-in routes, in the order they are tried (ties in CV score go to the earlier one).
ROUTES = ("efp", "lfp", "extra_trees", "random_forest", "knn", "chain", "powerset", "mixture")
#: Named sets of routes; "fast" keeps one setting per route.
CANDIDATE_SETS = {"default": ROUTES, "fast": ("extra_trees", "knn", "lfp", "powerset")}

#: C grid of the logistic models (EFP, LFP, chain), tuned per model by 2-fold log loss.
LOGISTIC_CS = (0.01, 0.1, 1.0, 10.0)
#: EFP's other settings: one C shared by all its models (chosen by the search's F, not log loss).
EFP_SHARED_CS = (10.0, 100.0)
#: Largest number of distinct training label sets for the powerset route.
POWERSET_MAX_SETS = 200
#: Features of the RBF kernel's Nystroem approximation in the powerset route (dense X).
NYSTROEM_COMPONENTS = 300
#: Largest number of labels for the chain route.
CHAIN_MAX_LABELS = 100
#: Largest n * m for the routes that fit one tuned logistic model per label (EFP, LFP, chain).
LOGISTIC_MAX_CELLS = 4_000_000
#: Trees per forest.
FOREST_TREES = 100
#: Memory allowed to one forest's trees (bytes); min_samples_leaf grows to stay under it.
FOREST_MAX_BYTES = 2**30
#: Largest factor by which min_samples_leaf may grow; beyond it the forests are dropped.
FOREST_MAX_FACTOR = 16
#: Above this n * m the forests try one setting each and the random forest is left out (the extra
#: trees cover the forest route at a fraction of its cost).
LARGE_CELLS = 400_000


def _feature_kind(X) -> str:
    """'sparse', 'binary' (dense, every entry 0 or 1) or 'dense'."""
    if sp.issparse(X):
        return "sparse"
    X = np.asarray(X)
    return "binary" if bool(np.all((X == 0) | (X == 1))) else "dense"


def _forest_factor(n, m) -> int:
    """The factor f applied to min_samples_leaf so that a forest stays under FOREST_MAX_BYTES."""
    size = 2 * 2 * 8 * n * m * FOREST_TREES  # ~2n nodes, 2 class counts per label, float64
    return max(1, math.ceil(size / FOREST_MAX_BYTES))


def route_candidates(X, Y, names="default", *, random_state=None, min_train=None):
    """The built-in routes for training data (X, Y), after the size rules.

    Parameters
    ----------
    X : array-like or sparse (n, d)
    Y : array-like (n, m), 0/1
    names : {"default", "fast"} or sequence of route names from :data:`~fmeasure.learners.search.ROUTES`
    random_state : int or None
        Set as the ``random_state`` of every route that has one.
    min_train : int, optional
        Size of the smallest training fold (kNN's neighbour counts must stay below it);
        default n.

    Returns
    -------
    candidates : dict name -> (estimator, grid)
        ``grid`` maps the estimator's parameters to the values tried (a dict of lists; empty
        for a route with one setting).
    dropped : dict name -> str
        The routes left out by the size rules, with the reason.

    Examples
    --------
    >>> X = np.arange(40.0).reshape(20, 2); Y = (X[:, :1] > 15).astype(int)
    >>> cands, dropped = route_candidates(X, Y, ["knn", "powerset"], min_train=16)
    >>> cands["knn"][1], sorted(dropped)
    ({'n_neighbors': [10]}, [])
    """
    Y = check_labels(Y, name="y")
    n, m = Y.shape
    min_train = n if min_train is None else int(min_train)
    fast = isinstance(names, str) and names == "fast"
    names = CANDIDATE_SETS[names] if isinstance(names, str) else tuple(names)
    unknown = [k for k in names if k not in ROUTES]
    if unknown:
        raise ValueError(f"candidates: unknown route {unknown[0]!r}; the routes are {list(ROUTES)}")
    n_sets = len(np.unique(Y, axis=0))
    kind = _feature_kind(X)
    f = _forest_factor(n, m)
    out, dropped = {}, {}
    for name in names:
        reason = None
        if name in ("efp", "lfp", "chain") and n * m > LOGISTIC_MAX_CELLS:
            reason = f"n * m = {n * m:,} > {LOGISTIC_MAX_CELLS:,} (one tuned logistic model per label)"
        elif name == "chain" and m > CHAIN_MAX_LABELS:
            reason = f"{m} labels > {CHAIN_MAX_LABELS}"
        elif name in ("powerset", "mixture") and n_sets > POWERSET_MAX_SETS:
            reason = f"{n_sets} distinct label sets > {POWERSET_MAX_SETS}"
        elif name in ("extra_trees", "random_forest", "mixture") and f > FOREST_MAX_FACTOR:
            reason = f"a forest of {FOREST_TREES} trees would need min_samples_leaf >= {f} to fit in memory"
        elif name == "random_forest" and n * m > LARGE_CELLS:
            reason = f"n * m = {n * m:,} > {LARGE_CELLS:,} (extra_trees is the cheaper forest)"
        if reason is None:
            est, grid = _build(name, kind=kind, forest_factor=f, min_train=min_train, random_state=random_state)
            if name == "knn" and not grid["n_neighbors"]:
                reason = f"no neighbour count below the smallest training fold ({min_train})"
        if reason is not None:
            dropped[name] = reason
            continue
        if fast or (name in ("extra_trees", "efp") and n * m > LARGE_CELLS):
            grid = {k: v[:1] for k, v in grid.items()}
        out[name] = (est, grid)
    return out, dropped


def _seeded(est, random_state):
    """``est`` with every ``random_state`` among its (nested) parameters set to ``random_state``."""
    if random_state is not None:
        est.set_params(**{k: random_state for k in est.get_params() if k.endswith("random_state")})
    return est


def _build(name, *, kind, forest_factor, min_train, random_state):
    """(estimator, grid) of one route."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    from fmeasure.learners.foptimal import FOptimalClassifier
    from fmeasure.learners.knn import KNeighborsFMeasure
    from fmeasure.learners.mixture import FOptimalMixture
    from fmeasure.learners.parametric import EFP, LFP
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

    if name == "efp":
        grid = {"Cs": [LOGISTIC_CS, *((c,) for c in EFP_SHARED_CS)]}
        return _seeded(EFP(Cs=LOGISTIC_CS, cv=2, patience=1), random_state), grid
    if name == "lfp":
        return _seeded(LFP(Cs=LOGISTIC_CS, cv=2, patience=1), random_state), {}
    if name == "chain":
        return _seeded(ProbabilisticClassifierChain(Cs=LOGISTIC_CS, cv=2), random_state), {}
    if name in ("extra_trees", "random_forest"):
        forest = (ExtraTreesClassifier if name == "extra_trees" else RandomForestClassifier)(
            n_estimators=FOREST_TREES, max_features="sqrt"
        )
        grid = {"estimator__min_samples_leaf": [forest_factor, 3 * forest_factor]}
        return _seeded(FOptimalClassifier(forest), random_state), grid
    if name == "knn":
        return KNeighborsFMeasure(), {"n_neighbors": [k for k in (10, 20, 40) if k < min_train]}
    powerset, Cs = _powerset(kind, min_train)
    if name == "powerset":
        return _seeded(powerset, random_state), {"estimator__estimator__logisticregression__C": Cs}
    # mixture: the extra trees' and the powerset's distributions, half and half
    trees = FOptimalClassifier(
        ExtraTreesClassifier(n_estimators=FOREST_TREES, max_features="sqrt", min_samples_leaf=forest_factor)
    )
    powerset.set_params(estimator__estimator__logisticregression__C=Cs[-1])
    members = [("extra_trees", _seeded(trees, random_state)), ("powerset", _seeded(powerset, random_state))]
    return FOptimalMixture(members), {}


def _powerset(kind, min_train):
    """The powerset route's estimator and its C grid.

    A multinomial logistic model over the label sets, on an RBF kernel's Nystroem features for
    dense continuous X, on X itself (max-abs scaled) for sparse or 0/1 X.
    """
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler, StandardScaler

    from fmeasure.learners.foptimal import FOptimalClassifier
    from fmeasure.learners.powerset import LabelPowerset

    if kind == "dense":
        features = [StandardScaler(), Nystroem(n_components=min(NYSTROEM_COMPONENTS, min_train))]
        Cs = [10.0, 30.0]
    else:
        features, Cs = [MaxAbsScaler()], [1.0, 10.0]
    model = make_pipeline(*features, LogisticRegression(max_iter=500))
    return FOptimalClassifier(LabelPowerset(model)), Cs


def _check_candidates(candidates):
    """A user's dict of candidates as name -> (estimator, grid), or one clear error."""
    out = {}
    for name, value in candidates.items():
        est, grid = value if isinstance(value, tuple) else (value, {})
        if not isinstance(name, str):
            raise ValueError(f"candidates: names must be strings, got {name!r}")
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise ValueError(f"candidates: {name!r} is not an estimator with fit and predict")
        if not isinstance(grid, dict) or not all(isinstance(v, (list, tuple)) and v for v in grid.values()):
            raise ValueError(f"candidates: the grid of {name!r} must be a dict of non-empty lists of values")
        bad = sorted(set(grid) - set(est.get_params(deep=True)))
        if bad:
            raise ValueError(f"candidates: {name!r} has no parameter {bad[0]!r}")
        out[name] = (est, {k: list(v) for k, v in grid.items()})
    if not out:
        raise ValueError("candidates: no candidate given")
    return out


#: Called after each fit of a candidate's pipeline in this process (the fit's wall-clock seconds);
#: set by :meth:`FOptimalSearchCV.fit` for its progress lines (worker processes do not see it).
_FIT_DONE = contextvars.ContextVar("fmeasure_search_fit_done", default=None)


class _Candidate(Pipeline):
    """The one-step Pipeline that holds a candidate, reporting each fit to ``_FIT_DONE``."""

    def fit(self, X, y=None, **params):
        t0 = time.perf_counter()
        try:
            return super().fit(X, y, **params)
        finally:
            hook = _FIT_DONE.get()
            if hook is not None:
                hook(time.perf_counter() - t0)


class _RouteSearch(GridSearchCV):
    """GridSearchCV over the routes' candidates, in the order of ``routes_``, in one batch (so that
    failing fits are handled as GridSearchCV does); then one summary line per candidate, its mean
    F +- SE, to ``report_``."""

    def _run_search(self, evaluate_candidates):
        candidates = [params for _, grid in self.routes_ for params in ParameterGrid(grid)]
        results = evaluate_candidates(candidates)
        names = [name for name, grid in self.routes_ for _ in ParameterGrid(grid)]
        k = len(self.cv)
        for i, name in enumerate(names):
            mean, std = results["mean_test_score"][i], results["std_test_score"][i]
            se = std / math.sqrt(k - 1) if k > 1 else float("nan")
            params = {p.removeprefix("model__"): v for p, v in results["params"][i].items() if p != "model"}
            self.report_(
                "FOptimalSearchCV: %s %s: F = %.4f +- %.4f over %d folds (fit %.1f s per fold)",
                name,
                params or "",
                mean,
                se,
                k,
                results["mean_fit_time"][i],
            )


def _winner_has(name):
    """For ``available_if``: whether the refitted winner has the method ``name`` (before ``fit``
    the method is shown, and calling it raises ``NotFittedError``)."""

    def check(self):
        return not hasattr(self, "cv_results_") or hasattr(self._winner(name), name)

    return check


class FOptimalSearchCV(MultiLabelClassifier):
    """F-optimal multi-label predictions by the route that cross-validation on the training set chose.

    Every candidate (a route and one of its settings) is scored by k-fold cross-validation of the
    mean instance-wise F-measure (F(0, 0) = 1) on the training data; the best is refitted on all
    of it and predicts. The built-in routes and the size rules that drop or cheapen them on
    large data are listed in :mod:`fmeasure.learners.search`.

    y is a 0/1 label matrix (n, m), or a 1-D y: one label whose two classes may be any values
    (predictions are then 1-D, in those values). Every candidate is fitted on the 0/1 label
    matrix (a 1-D y as one column).

    Parameters
    ----------
    candidates : {"default", "fast"}, list of route names, or dict, default "default"
        "default": every route of :data:`~fmeasure.learners.search.ROUTES` that the size rules keep; "fast": extra trees,
        kNN, LFP and the label powerset, one setting each; a list picks routes by name (the size
        rules apply). A dict ``{name: estimator}`` or ``{name: (estimator, grid)}`` gives your own
        candidates (any estimator with ``fit(X, Y)`` and ``predict``; ``grid`` maps its parameters
        to lists of values); no size rule applies to them.
    cv : int or cross-validation splitter, default 5
        Number of folds of a shuffled :class:`~sklearn.model_selection.KFold` seeded by
        ``random_state``, or a splitter (``split``, ``get_n_splits``). Every candidate sees the
        same folds.
    n_jobs : int or None, default None
        Fits run in parallel over candidates x folds (joblib); None means 1. BLAS runs on one
        thread inside each fit.
    random_state : int, RandomState instance or None, default None
        Seeds the folds and every built-in route that draws random numbers (one seed for all);
        an int makes the search reproducible.
    refit : bool, default True
        Refit the chosen candidate on the whole training set (needed for ``predict``).
    verbose : int, default 0
        0: silent. 1: lines on standard output: the plan (candidates x folds), one line per
        candidate x fold as its fit finishes (its seconds, the fits done, the time elapsed; for
        fits run in this process, ``n_jobs`` None or 1), then each candidate's mean F and the
        choice. 2 and more: also :class:`~sklearn.model_selection.GridSearchCV`'s own messages,
        given ``verbose`` (they come from the worker processes too). Each candidate's mean F and
        the choice are logged at INFO level either way (``logging``, logger
        ``fmeasure.learners.search``), each fit at DEBUG level.
    error_score : "raise" or float, default np.nan
        The score of a candidate's fold whose fit fails, as in
        :class:`~sklearn.model_selection.GridSearchCV`: a number (by default NaN, the candidate
        is then never chosen, and a warning names the failures), or "raise" to raise the fit's
        error at once.

    Attributes
    ----------
    best_candidate_ : str
        Name of the chosen route (e.g. ``"extra_trees"``).
    best_params_ : dict
        Its setting: the parameters of the candidate's estimator that the grid set.
    best_score_ : float
        Its mean cross-validated F.
    best_index_ : int
        Its row in ``cv_results_``.
    best_estimator_ : estimator
        The chosen candidate refitted on all training data (with ``refit=True``).
    cv_results_ : dict of arrays
        GridSearchCV's results, one entry per candidate: ``candidate`` (route name), ``params``
        (the setting, as in ``best_params_``), ``param_<name>``, ``mean_test_score``,
        ``std_test_score``, ``se_test_score`` (std over folds / sqrt(k - 1)),
        ``split<i>_test_score``, ``rank_test_score``, ``mean_fit_time``, ``std_fit_time``,
        ``mean_score_time``, ``std_score_time``. ``pandas.DataFrame(cv_results_)`` makes a table.
    candidates_ : dict name -> (estimator, grid)
        The candidates searched (unfitted).
    dropped_ : dict name -> str
        Built-in routes left out by the size rules, with the reason.
    n_splits_ : int
    refit_time_ : float
        Seconds spent refitting the chosen candidate.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The column names of a DataFrame X at fit (absent otherwise); ``predict`` and
        ``predict_expected_f`` refuse a DataFrame whose columns differ or come in another order.
    classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`); the CPU time
        of fits run in parallel worker processes (``n_jobs``) is not counted.

    See Also
    --------
    FOptimalClassifier : F-optimal predictions from a model you choose.
    sklearn.model_selection.GridSearchCV : The search that runs underneath.
    fmeasure.metrics.f_measure_scorer : The mean instance-wise F-measure it scores.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 3)); Y = (X + rng.normal(size=(120, 3)) > 0.5).astype(int)
    >>> search = FOptimalSearchCV(["knn", "powerset"], cv=3, random_state=0).fit(X, Y)
    >>> search.best_candidate_ in ("knn", "powerset"), search.predict(X[:2]).shape
    (True, (2, 3))
    >>> search.predict_expected_f(X[:2]).shape, search.predict_marginals(X[:2]).shape
    ((2,), (2, 3))
    """

    _parameter_constraints = {
        "candidates": [StrOptions(set(CANDIDATE_SETS)), list, tuple, dict],
        "cv": [Interval(Integral, 2, None, closed="left"), HasMethods(["split", "get_n_splits"])],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "refit": ["boolean"],
        "verbose": ["verbose"],
        "error_score": [StrOptions({"raise"}), Real],
    }

    def __init__(
        self, candidates="default", cv=5, n_jobs=None, random_state=None, refit=True, verbose=0, error_score=np.nan
    ):
        self.candidates = candidates
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.refit = refit
        self.verbose = verbose
        self.error_score = error_score

    def _report(self, msg, *args, level=logging.INFO):
        """Log a progress line (at INFO level by default); print it too when ``verbose``."""
        log.log(level, msg, *args)
        if self.verbose:
            print(msg % args, flush=True)

    def _fit_reporter(self, names, params, n_splits):
        """The ``_FIT_DONE`` hook: one line per fit, in GridSearchCV's order (candidate by
        candidate, fold by fold, then the refit)."""
        total, t0, done = len(names) * n_splits, time.perf_counter(), [0]

        def fit_done(seconds):
            k = done[0]
            done[0] += 1
            if k >= total:
                return  # the refit, reported with the choice
            c, fold = divmod(k, n_splits)
            self._report(
                "FOptimalSearchCV: %s %s fold %d of %d fitted in %.1f s; %d of %d fits done, %.0f s elapsed",
                names[c],
                params[c] or "",
                fold + 1,
                n_splits,
                seconds,
                k + 1,
                total,
                time.perf_counter() - t0,
                level=logging.DEBUG,
            )

        return fit_done

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Cross-validate every candidate on (X, y), then refit the best on all of it.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame (n, d)
            A DataFrame's column names are recorded (``feature_names_in_``): later calls must
            pass the same columns in the same order.
        y : array-like (n, m), 0/1 label matrix; or (n,), one label with two classes

        Returns
        -------
        self
        """
        X = self._check_X(X, reset=True)
        if y is None:
            raise ValueError("y: FOptimalSearchCV requires y to be passed, but the target y is None")
        n = _num_samples(X)
        Y = self._encode_y(y, n)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        if isinstance(self.cv, Integral):
            if self.cv > n:
                raise ValueError(f"cv: {self.cv} folds need at least {self.cv} instances, got n_samples={n}")
            splitter = KFold(self.cv, shuffle=True, random_state=seed)
        else:
            splitter = self.cv
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, Y)]
        if len(splits) < 2:
            raise ValueError(f"cv: at least 2 splits are needed, got {len(splits)}")
        if isinstance(self.candidates, dict):
            candidates, dropped = _check_candidates(self.candidates), {}
        else:
            names = self.candidates
            if not isinstance(names, str) and not all(isinstance(k, str) for k in names):
                raise ValueError("candidates: a list must hold route names; pass your own estimators as a dict")
            candidates, dropped = route_candidates(
                X, Y, names, random_state=seed, min_train=min(len(tr) for tr, _ in splits)
            )
            for name, why in dropped.items():
                self._report("FOptimalSearchCV: route %s left out: %s", name, why)
            if not candidates:
                raise ValueError(f"candidates: the size rules left no route ({dropped})")
        self.candidates_, self.dropped_ = candidates, dropped

        routes = [
            (name, {"model": [est], **{f"model__{k}": v for k, v in grid.items()}})
            for name, (est, grid) in candidates.items()
        ]
        total = sum(len(ParameterGrid(g)) for _, g in routes)
        self._report(
            "FOptimalSearchCV: %d candidates of %d routes x %d folds = %d fits on %d x %d, then a refit",
            total,
            len(routes),
            len(splits),
            total * len(splits),
            n,
            self.n_features_in_,
        )
        search = _RouteSearch(
            _Candidate([("model", routes[0][1]["model"][0])]),
            param_grid=[g for _, g in routes],
            scoring=metrics.f_measure_scorer,
            cv=splits,
            n_jobs=self.n_jobs,
            refit=self.refit,
            verbose=int(self.verbose) if self.verbose > 1 else 0,
            error_score=self.error_score,
        )
        search.routes_ = routes
        search.report_ = self._report
        names = [name for name, g in routes for _ in ParameterGrid(g)]
        settings = [
            {k.removeprefix("model__"): v for k, v in p.items() if k != "model"}
            for _, g in routes
            for p in ParameterGrid(g)
        ]
        t0 = time.perf_counter()
        # one line per fit when the fits run here, one after another (workers do not see the hook)
        sequential = effective_n_jobs(self.n_jobs) == 1
        hook = _FIT_DONE.set(self._fit_reporter(names, settings, len(splits)) if sequential else None)
        try:
            with threadpool_limits(limits=1, user_api="blas"):  # parallel over candidates x folds instead
                search.fit(X, Y)
        finally:
            _FIT_DONE.reset(hook)
        self._set_results(search, names)
        self._report(
            "FOptimalSearchCV: chose %s %s (F = %.4f) among %d candidates in %.1f s",
            self.best_candidate_,
            self.best_params_,
            self.best_score_,
            len(self.cv_results_["params"]),
            time.perf_counter() - t0,
        )
        self.n_splits_ = len(splits)
        return self

    def _set_results(self, search, names):
        res = dict(search.cv_results_)
        k = len(search.cv)
        params = [{p.removeprefix("model__"): v for p, v in d.items() if p != "model"} for d in res["params"]]
        out = {"candidate": np.array(names, dtype=object), "params": params}
        for key, value in res.items():
            if key == "params" or key == "param_model":
                continue
            out[key.replace("param_model__", "param_")] = value
        out["se_test_score"] = res["std_test_score"] / math.sqrt(k - 1)
        self.cv_results_ = out
        self.best_index_ = int(search.best_index_)
        self.best_candidate_ = names[self.best_index_]
        self.best_params_ = params[self.best_index_]
        self.best_score_ = float(search.best_score_)
        if self.refit:
            self.best_estimator_ = search.best_estimator_.named_steps["model"]
            self.refit_time_ = float(search.refit_time_)

    def _check_X(self, X, *, reset):
        """X as the candidates see it, after the search's own check of its features.

        At fit (``reset=True``) the search records ``n_features_in_`` and, for a DataFrame,
        ``feature_names_in_``; later calls must match them (the same number of columns, the same
        names in the same order), so that a reordered DataFrame is refused instead of answered
        wrongly. The built-in routes then see a float64 array (CSR when sparse) at fit and at
        predict alike; a dict of your own candidates sees X's values as given (a DataFrame stays
        one, for a ``ColumnTransformer`` that selects columns by name).
        """
        own = isinstance(self.candidates, dict)
        # own candidates may take NaN or text columns: only the shape and the names are checked here
        Xa = check_array(
            X,
            accept_sparse=True if own else "csr",
            dtype=None if own else np.float64,
            ensure_all_finite=not own,
            input_name="X",
        )
        validate_data(self, X, reset=reset, skip_check_array=True)
        return X if own and hasattr(X, "columns") else Xa

    # ------------------------------------------------------------------ predictions of the winner
    def _winner(self, method):
        check_is_fitted(self, "cv_results_")
        if not self.refit:
            raise AttributeError(f"{method}: the chosen candidate was not refitted (refit=False)")
        return self.best_estimator_

    def predict(self, X):
        """Label sets predicted by the chosen candidate, (n, m) in y's dtype ((n,) in ``classes_``
        for a 1-D y)."""
        winner = self._winner("predict")
        X = self._check_X(X, reset=False)
        H = np.asarray(winner.predict(X))
        return self._decode(H.reshape(H.shape[0], -1).astype(np.int8, copy=False))

    @available_if(_winner_has("predict_expected_f"))
    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under the chosen route's distribution, (n,).

        Every built-in route has it; one of your own candidates may not.
        """
        winner = self._winner("predict_expected_f")
        return np.asarray(winner.predict_expected_f(self._check_X(X, reset=False)), dtype=np.float64)

    @available_if(_winner_has("predict_marginals"))
    def predict_marginals(self, X):
        """Marginals P(y_j = 1 | x) of the chosen route's distribution, (n, m) ((n,) for a 1-D y).

        Every built-in route has them; one of your own candidates may not.
        """
        winner = self._winner("predict_marginals")
        P = np.asarray(winner.predict_marginals(self._check_X(X, reset=False)), dtype=np.float64)
        return self._decode_marginals(P.reshape(P.shape[0], -1))
