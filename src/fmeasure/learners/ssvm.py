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

Solvers (``solver``), both stopped by the same certificate: the duality gap, primal minus dual
objective, an upper bound on the sub-optimality; every fit runs until it is at most ``tol`` or
until ``max_iter`` iterations (``stopped_by_`` says which).

* ``"cutting_plane"``: the 1-slack cutting-plane method (Joachims, Finley and Yu, 2009) with
  OCAS's line search (Franc and Sonnenburg, 2009), :func:`fmeasure.learners._cutting_plane.one_slack`.
  Each iteration adds one plane, the oracle's labelling of every example at once, and solves a QP
  on the working set of planes (DAQP); the planes do not depend on C, so the working set carries
  over from one C of the grid to the next. Its iterations grow slowly with C, BCFW's passes
  several-fold per decade (``benchmarks/bench_ssvm_solvers.py`` compares the two).
* ``"bcfw"`` (default): block-coordinate Frank-Wolfe on the dual (Lacoste-Julien, Jaggi, Schmidt and
  Pletscher, ICML 2013), :func:`bcfw`. It needs only the loss-augmented oracle
  (:func:`fmeasure.inference.loss_augmented`, exact in O(m^2) per example at worst), no QP solver;
  its exact line search makes the dual objective increase at every step. For this feature map the
  dual variables of example n collapse to one vector a_n in R^m (a convex combination of y_n - h),
  so w = X~' A / (lambda n) with lambda = 1 / C and the memory is O(n m), whatever the number of
  constraints visited. Blocks are mini-batches of ``batch_size`` examples (one oracle call for the
  whole batch, one exact line search on the joint direction; ``batch_size=1`` is the original
  algorithm). Each pass visits every example once in a random order; the exact duality gap (one
  batched oracle call on all examples) is taken when the pass's estimate nears ``tol`` and every
  few passes. The dual variables are feasible for every C, so they warm-start the next C. Its
  passes grow several-fold per decade of C.

The C grid is solved as a warm-started path (small C first) by either solver.

Where this may differ from Petterson and Caetano's C++ binary (used for the paper's Table 6):
their solver is the 1-slack cutting-plane method with a QP on the working set, capped at 1000
iterations; here the same convex problem is solved to a duality-gap tolerance, so both
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
import logging.handlers
import multiprocessing
import time
from concurrent import futures
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from joblib.executor import get_memmapping_executor
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from fmeasure.blas import single_threaded_blas
from fmeasure.inference.structured import solve_batch
from fmeasure.learners._cutting_plane import load_daqp, one_slack
from fmeasure.learners.base import MultiLabelClassifier, fit_context
from fmeasure.metrics import f_measure

__all__ = ["FMeasureSSVM", "bcfw"]

log = logging.getLogger(__name__)

#: The exact duality gap is computed at least every this many passes.
_EXACT_EVERY = 5

#: The solvers of :class:`FMeasureSSVM` (``solver``).
SOLVERS = ("cutting_plane", "bcfw")

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


def _objectives(Xa, Y, W, ell, lam, counts):
    """Primal and dual objectives at (W, ell); their difference is the exact duality gap."""
    S = np.asarray(Xa @ W)
    _, value = solve_batch(S, Y, counts)
    hinge = value - np.einsum("ij,ij->i", S, Y)
    reg = 0.5 * lam * float(np.sum(W * W))
    primal = reg + float(np.mean(hinge))
    dual = float(np.mean(ell)) - reg
    return primal, dual


def _blocks(counts, batch_size, rng):
    """A random partition into blocks of ``batch_size`` examples of equal label count where
    possible (shuffled within each count, blocks visited in random order): each block is then
    one unpadded call of the loss-augmented oracle."""
    perm = rng.permutation(counts.size)
    perm = perm[np.argsort(counts[perm], kind="stable")]
    cuts = np.flatnonzero(np.diff(counts[perm])) + 1
    blocks = []
    for part in np.split(perm, cuts):
        blocks += [np.sort(part[i : i + batch_size]) for i in range(0, part.size, batch_size)]
    return [blocks[i] for i in rng.permutation(len(blocks))]


@single_threaded_blas
def bcfw(
    Xa,
    Y,
    C,
    *,
    tol=1e-3,
    max_iter=1000,
    batch_size=64,
    random_state=None,
    init=None,
    label=None,
    log_every=30.0,
):
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
        Examples per block step (blocks are formed from examples with the same number of true
        labels where possible).
    random_state : int, Generator or None
        The blocks and their order in each pass.
    init : tuple (A, ell), optional
        Dual variables to start from (feasible for any C): warm start along a C path. They are
        first shrunk towards 0 (the feasible point h = y for every example) by the factor in
        [0, 1] that maximises the dual objective at this C (exact line search).
    label : str, optional
        When given, a progress line ``<label>: pass k of at most max_iter, duality gap ...`` is
        logged after the first pass, then at most every ``log_every`` seconds, and at the end.
    log_every : float
        Seconds between progress lines.

    Returns
    -------
    dict
        ``W`` (d, m), ``A`` (n, m), ``ell`` (n,), ``gap``, ``primal``, ``dual``, ``n_iter``
        (passes), ``stopped_by`` ("tol" or "max_iter"), ``dual_history`` and ``gap_history``
        (one value per pass, the starting point first; the exact gap is computed when the sum of
        the block gaps met during a pass comes within twice ``tol``, at least every few passes,
        and for every progress line; NaN for the other passes).
    """
    if not (isinstance(C, Real) and C > 0):
        raise ValueError(f"C must be a positive number, got {C!r}")
    n, m = Y.shape
    lam = 1.0 / C
    Yb = np.asarray(Y).astype(bool)
    Yf = Yb.astype(np.float64)
    counts = Yb.sum(axis=1)
    if init is None:
        A = np.zeros((n, m))
        ell = np.zeros(n)
        W = np.zeros((Xa.shape[1], m))
    else:
        A, ell = (np.array(v, dtype=np.float64) for v in init)
        XA = np.asarray(Xa.T @ A)
        q = float(np.sum(XA * XA)) / (lam * n * n)  # dual(t A) = t mean(ell) - t^2 q / 2
        t = 1.0 if q <= 0 else float(np.clip(np.mean(ell) / q, 0.0, 1.0))
        A *= t
        ell *= t
        W = (t / (lam * n)) * XA
    rng = np.random.default_rng(random_state)
    primal, dual = _objectives(Xa, Yb, W, ell, lam, counts)
    dual_hist, gap_hist = [dual], [primal - dual]
    stopped_by = "tol"
    it = 0
    start = last = time.perf_counter()
    gap_now = primal - dual  # the exact gap of the last pass (inf when not computed)
    while gap_now > tol:
        if it >= max_iter:
            stopped_by = "max_iter"
            break
        estimate = 0.0  # sum of the block gaps met during the pass (each at the w of its step)
        for g in _blocks(counts, batch_size, rng):
            Xg = Xa[g]
            S = np.asarray(Xg @ W)
            H, value = solve_batch(S, Yb[g], counts[g])
            D = (Yf[g] - H) - A[g]  # direction of the block's dual variables
            ls = value - np.einsum("ij,ij->i", S, H)  # the loss 1 - F(y, h) of the new vertex
            dl = ls - ell[g]
            gap = (float(dl.sum()) - float(np.sum(S * D))) / n
            if gap <= 0.0:
                continue
            estimate += gap
            M = np.asarray(Xg.T @ D)  # (d, m); w moves by M / (lam n)
            curv = float(np.sum(M * M)) / (lam * n * n)
            gamma = 1.0 if curv <= 0.0 else min(1.0, gap / curv)
            A[g] += gamma * D
            ell[g] += gamma * dl
            W += (gamma / (lam * n)) * M
        it += 1
        now = time.perf_counter()
        due = label is not None and (it == 1 or now - last >= log_every)
        # The exact gap costs one oracle call on every example: taken when the pass's estimate
        # comes near the tolerance, at the pass cap, for a progress line, and every few passes.
        exact = estimate <= 2.0 * tol or it >= max_iter or due or it % _EXACT_EVERY == 0
        if exact:
            primal, dual = _objectives(Xa, Yb, W, ell, lam, counts)
            gap_now = primal - dual
        else:
            dual = float(np.mean(ell)) - 0.5 * lam * float(np.sum(W * W))
            gap_now = np.inf
        dual_hist.append(dual)
        gap_hist.append(primal - dual if exact else np.nan)
        if due:
            log.info(
                "%s: pass %d of at most %d, duality gap %.2e (tol %.0e), %.0f s",
                label,
                it,
                max_iter,
                primal - dual,
                tol,
                now - start,
            )
            last = now
    if label is not None:
        log.info(
            "%s: done after %d passes (%s), duality gap %.2e, %.0f s",
            label,
            it,
            "gap <= tol" if stopped_by == "tol" else "pass cap",
            primal - dual,
            time.perf_counter() - start,
        )
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


def _solve(Xa, Y, C, solver_kw, seed, init, label):
    """One fit at C by the configured solver; ``res["warm"]`` starts the next C of a path."""
    kw = dict(solver_kw)
    solver = kw.pop("solver", "bcfw")
    if solver == "bcfw":
        kw.pop("threads", None)
        res = bcfw(Xa, Y, C, init=init, random_state=seed, label=label, **kw)
        res["warm"] = (res["A"], res["ell"])
    else:
        kw.pop("batch_size", None)
        res = one_slack(Xa, Y, C, init=init, label=label, **kw)
        res["warm"] = res["planes"]
    return res


def _path(Xa, Y, Cs, solver_kw, seed, init=None, where="", offset=0, total=None):
    """Solve for every C in ascending order, each warm-started from the previous one (the dual
    variables for ``bcfw``, the working set of planes for the cutting-plane solver)."""
    out = {}
    total = len(Cs) if total is None else total
    for i, C in enumerate(sorted(Cs)):
        label = f"RML {where}C = {C:g} ({offset + i + 1} of {total})"
        res = _solve(Xa, Y, C, solver_kw, np.random.SeedSequence([seed, offset + i]), init, label)
        init = res["warm"]
        out[C] = res
    return out


def _fold(Xa, Y, tr, va, Cs, solver_kw, seed, where, offset=0, total=None, init=None, queue=None):
    """CV F on fold ``va`` for each C of a warm-started path on ``tr``; also the last dual."""
    c0 = time.process_time()
    if queue is not None:  # a worker process: send the progress lines to the parent's log
        _to_queue(queue)
    path = _path(Xa[tr], Y[tr], Cs, solver_kw, seed, init=init, where=where, offset=offset, total=total)
    scores = {}
    for C, res in path.items():
        H = (np.asarray(Xa[va] @ res["W"]) > 0).astype(np.int8)
        scores[C] = float(np.mean(f_measure(Y[va], H)))
    last = path[max(Cs)]
    stops = {C: (r["n_iter"], r["stopped_by"], r["gap"]) for C, r in path.items()}
    return scores, stops, last["warm"], time.process_time() - c0


def _to_queue(queue):
    lg = logging.getLogger(__name__)
    if not any(isinstance(h, logging.handlers.QueueHandler) and h.queue is queue for h in lg.handlers):
        lg.handlers = [logging.handlers.QueueHandler(queue)]
        lg.setLevel(logging.INFO)
        lg.propagate = False


class _Forward(logging.Handler):
    """Hands a record from a worker to the logger of its name in this process."""

    def emit(self, record):
        logging.getLogger(record.name).handle(record)


def _is_indicator(X) -> bool:
    values = X.data if sp.issparse(X) else X
    return bool(np.isin(values, (0.0, 1.0)).all())


class FMeasureSSVM(MultiLabelClassifier):
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
    refit_tol : float or None
        Tolerance of the final fit on all data, the model that predicts (None: ``tol``). One fit
        against the ``cv`` x grid fits of the tuning, so a tighter value is cheap there.
    max_iter : int
        Most iterations of the solver per value of C (cutting planes added, or passes over the
        training data for ``bcfw``).
    batch_size : int
        ``bcfw`` only: examples per block-coordinate Frank-Wolfe step (1 = the original
        algorithm; larger blocks use batched inference and matrix products, at a slightly slower
        rate per pass; blocks are formed from examples with the same number of true labels where
        possible).
    standardize : bool
        Standardise dense real-valued features (sparse and 0/1 features are kept as they are).
        Off by default: raw features, as the paper's binary was given them.
    random_state : int or None
        Seeds the folds and the order of the examples in the solver.
    n_jobs : int or None
        Folds solved in parallel (joblib processes; their progress lines go to this process's log).
        A fold whose fit is done starts its next value of C while the others finish theirs (at most
        one value ahead of the walk; fits of values past a ``patience`` stop are discarded, and the
        CPU time they had taken is not in ``fit_cpu_time_``). The refit on all the data runs the
        cutting-plane solver's oracle and scores in as many threads.
    extend_grid : int
        When the best C of the cross-validation is the largest (smallest) of the grid, add the
        next value a decade above (below), warm-started from the fold's last solution, and
        repeat, at most this many times. A choice still at the edge is reported (``C_at_edge_``
        and a warning in the log).
    patience : int or None
        The grid is walked from the smallest C up, one value at a time (folds in parallel); with
        ``patience`` set, the walk stops once that many values have scored a lower mean CV F than
        the best so far since it was reached (values that tie with it, as on the plateau of the
        smallest C, do not count). The larger C, which cost the most passes, are then skipped and
        listed in ``Cs_skipped_``. None: every value of the grid is solved.
    solver : {"bcfw", "cutting_plane"}
        ``"bcfw"`` (default): block-coordinate Frank-Wolfe (:func:`bcfw`), whose passes grow
        several-fold per decade of C. ``"cutting_plane"``: the 1-slack cutting-plane method with
        OCAS's line search (:func:`fmeasure.learners._cutting_plane.one_slack`), whose iterations
        grow slowly with C. Both stop on the same duality gap; ``benchmarks/bench_ssvm_solvers.py
        --fit`` compares their choice of C, test F and CPU seconds on a dataset. At the
        smallest C, where every w within ``tol`` of the optimum is near 0, both predict the same
        from one C to the next (a plateau of the CV F), but not the same as each other: the
        cutting-plane method's w is near the exact small-C limit (its gap there is also small
        relative to the regulariser), BCFW's keeps the direction of its first passes. Their CV F at
        the smallest C differ, and so can their choice of C where those C score about as well as
        the larger ones.

    Attributes
    ----------
    coef_ : ndarray of shape (n_labels, n_features)
        One weight vector per label (in the original feature space).
    intercept_ : ndarray of shape (n_labels,)
    C_ : float
        The chosen C.
    Cs_ : ndarray
        The grid searched, in ascending order (``Cs`` and the values ``extend_grid`` added).
    cv_scores_ : ndarray of shape ``(len(Cs_),)``
        Mean CV F-measure per C of ``Cs_`` (NaN without CV).
    cv_gaps_ : ndarray of shape ``(len(Cs_), cv)``
        Final duality gap of every fold's fit at every C.
    C_at_edge_ : str
        ``"upper"`` or ``"lower"`` when the chosen C is the largest or smallest of ``Cs_`` (the
        optimum may lie beyond the grid), else ``""``.
    grid_extended_ : list of float
        Values of C that ``extend_grid`` added.
    Cs_skipped_ : list of float
        Values of the grid that ``patience`` skipped (not in ``Cs_``).
    n_iter_ : int
        Iterations (passes for ``bcfw``) of the final fit.
    fit_cpu_time_ : float
        CPU seconds of ``fit``: this process and the fold workers, summed.
    cv_time_ : float
        Wall-clock seconds of the tuning of C (0 without cross-validation).
    duality_gap_ : float
        Duality gap at the end of the final fit.
    stopped_by_ : str
        ``"tol"`` (gap <= tol) or ``"max_iter"`` (the pass cap).
    dual_objective_history_ : list of float
        Dual objective after each iteration of the final fit (non-decreasing for ``bcfw``; for the
        cutting-plane solver, up to the planes it drops once unused and the accuracy of the QP).
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Notes
    -----
    There is no ``predict_marginals`` or ``predict_expected_f``: a structured SVM scores label
    sets, it gives no distribution of the labels to take marginals or an expected F under.

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
        batch_size=64,
        standardize=False,
        random_state=0,
        n_jobs=None,
        extend_grid=0,
        patience=None,
        refit_tol=None,
        solver="bcfw",
    ):
        self.Cs = Cs
        self.cv = cv
        self.tol = tol
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.standardize = standardize
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.extend_grid = extend_grid
        self.patience = patience
        self.refit_tol = refit_tol
        self.solver = solver

    _parameter_constraints = {
        "Cs": ["array-like", Interval(Real, 0, None, closed="neither")],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "extend_grid": [Interval(Integral, 0, None, closed="left")],
        "patience": [Interval(Integral, 1, None, closed="left"), None],
        "refit_tol": [Interval(Real, 0, None, closed="neither"), None],
        "solver": [StrOptions(set(SOLVERS))],
    }

    def _check_params(self):
        """The grid of C, sorted; one error naming ``Cs`` unless it holds positive numbers."""
        Cs = np.atleast_1d(np.asarray(self.Cs, dtype=float))
        if Cs.ndim != 1 or Cs.size == 0 or not np.all(np.isfinite(Cs)) or np.any(Cs <= 0):
            raise ValueError(f"Cs must be a non-empty sequence of positive numbers, got {self.Cs!r}")
        if self.solver == "cutting_plane":
            load_daqp()  # in this process, before the fold workers start
        return sorted(set(Cs.tolist()))

    def _prepare(self, X, fit):
        if fit:
            scale = self.standardize and not sp.issparse(X) and not _is_indicator(X)
            self.scaler_ = StandardScaler().fit(X) if scale else None
        if self.scaler_ is not None:
            X = self.scaler_.transform(X)
        return _add_bias(X)

    def _tune(self, Xa, Y, Cs, kw, seed):
        """Cross-validated F over the C grid (each fold a warm-started path), the grid extended
        by a decade at a time while the best C is at an edge (``extend_grid`` times at most)."""
        n_splits = min(int(self.cv), Xa.shape[0])
        folds = list(KFold(n_splits, shuffle=True, random_state=seed).split(Xa))
        n_jobs = effective_n_jobs(self.n_jobs)
        scores = {k: {} for k in range(n_splits)}
        stops = {k: {} for k in range(n_splits)}
        last = {k: None for k in range(n_splits)}
        log.info(
            "RML tuning: %d folds x %d values of C (%g .. %g) on %d worker(s), then a refit on all %d examples",
            n_splits,
            len(Cs),
            Cs[0],
            Cs[-1],
            n_jobs,
            Xa.shape[0],
        )

        def record(k, out, warm):
            sc, st, dual, cpu = out
            if n_jobs > 1:
                self._worker_cpu_time += cpu
            scores[k].update(sc)
            stops[k].update(st)
            if warm or last[k] is None:
                last[k] = dual

        def fold_task(k, values, offset, total, warm):
            tr, va = folds[k]
            where = f"fold {k + 1} of {n_splits}, "
            init = last[k] if warm else None
            return (_fold, Xa, Y, tr, va, values, kw, seed + 1 + k, where, offset, total, init, queue)

        def done_log(values, count, total):
            log.info(
                "RML tuning: %d of %d values of C done in every fold (mean CV F %s)",
                count,
                total,
                ", ".join(f"{C:g}: {mean_score(C):.4f}" for C in values),
            )

        def run(values, warm, offset, total):
            tasks = [fold_task(k, values, offset, total, warm) for k in range(n_splits)]
            out = Parallel(n_jobs=n_jobs)(delayed(f)(*a) for f, *a in tasks)
            for k, o in enumerate(out):
                record(k, o, warm)
            done_log(values, len(scores[0]), total)

        def mean_score(C):
            return float(np.mean([scores[k][C] for k in scores]))

        def walk(Cs, total):
            """The grid's values from the smallest up, each fold warm-started from its previous
            value, until ``patience`` values have scored below the best so far (the values
            solved returned). A fold moves on to its next value as soon as it is done, while
            other folds finish the current one: workers do not wait at each value for the
            slowest fold (5 folds on 2 workers would leave one idle a third of the time). At
            most one value ahead of the last one decided; fits of values past a stop are
            discarded (cancelled, or their workers stopped)."""
            decided = 0
            if n_jobs == 1 or len(Cs) == 1:
                for i, C in enumerate(Cs):
                    run([C], True, i, total)
                    decided += 1
                    if decide(i, C):
                        break
                return Cs[:decided]
            executor = get_memmapping_executor(n_jobs)  # joblib's own (Parallel reuses it after)
            pending, ahead, done = {}, [], [0] * len(Cs)

            def submit(k, i):
                f, *a = fold_task(k, [Cs[i]], i, total, True)
                pending[executor.submit(f, *a)] = (k, i)

            stopped = False
            try:
                for k in range(n_splits):
                    submit(k, 0)
                while pending and not stopped:
                    finished, _ = futures.wait(list(pending), return_when=futures.FIRST_COMPLETED)
                    for fut in finished:
                        k, i = pending.pop(fut)
                        record(k, fut.result(), True)
                        done[i] += 1
                        if i + 1 < len(Cs):
                            ahead.append((k, i + 1))
                    while decided < len(Cs) and done[decided] == n_splits:
                        decided += 1
                        done_log([Cs[decided - 1]], decided, total)
                        if decide(decided - 1, Cs[decided - 1]):
                            stopped = True
                            break
                    # A fold's next value starts at once, up to one value beyond the one being decided.
                    for k, i in sorted(ahead, key=lambda ki: ki[1]):
                        if not stopped and i <= decided + 1:
                            ahead.remove((k, i))
                            submit(k, i)
            finally:
                if pending:  # fits of values past a stop (or after an error): not needed
                    for fut in pending:
                        fut.cancel()
                    if not all(fut.cancelled() or fut.done() for fut in pending):
                        executor.shutdown(wait=True, kill_workers=True)
            kept = set(Cs[:decided])
            for k in range(n_splits):
                for C in [C for C in scores[k] if C not in kept]:
                    del scores[k][C], stops[k][C]
            return Cs[:decided]

        state = {"best": -np.inf, "since": 0}

        def decide(i, C):
            """Whether the walk stops after value i (``patience`` values below the best)."""
            score = mean_score(C)
            if score > state["best"]:
                state["best"], state["since"] = score, 0
            elif score < state["best"]:  # a plateau (small C: every w near 0) does not count
                state["since"] += 1
            patience = None if self.patience is None else int(self.patience)
            if patience is not None and state["since"] >= patience and i < len(grid_values) - 1:
                self.Cs_skipped_ = [float(c) for c in grid_values[i + 1 :]]
                log.info("RML tuning: %d values of C scored below the best mean CV F; C > %g skipped", patience, C)
                return True
            return False

        grid_values = list(Cs)

        def grid(Cs):
            # The path is decided one C at a time (each fold warm-started from its previous C),
            # so that it can stop once ``patience`` values have scored below the best so far since
            # it was reached: past the optimum, larger C only costs time.
            total = len(Cs) + int(self.extend_grid)
            Cs = walk(list(Cs), total)
            for _ in range(int(self.extend_grid)):
                if self.Cs_skipped_:
                    break
                mean = [mean_score(C) for C in Cs]
                at = int(np.argmax(mean))
                if at == len(Cs) - 1:
                    new = Cs[-1] * 10.0
                    run([new], True, len(Cs), total)
                    Cs = Cs + [new]
                elif at == 0:
                    new = Cs[0] / 10.0
                    run([new], False, len(Cs), total)
                    Cs = [new] + Cs
                else:
                    break
                self.grid_extended_.append(new)
                log.info("RML tuning: best C at the edge of the grid, C = %g added", new)
            return Cs

        # Worker processes send their progress lines through a queue to this process's log.
        manager = multiprocessing.Manager() if n_jobs > 1 else None
        queue = manager.Queue() if manager is not None else None
        listener = logging.handlers.QueueListener(queue, _Forward()) if queue is not None else None
        if listener is not None:
            listener.start()
        try:
            Cs = grid(Cs)
        finally:
            if listener is not None:
                listener.stop()
                manager.shutdown()
        self.cv_scores_ = np.array([np.mean([scores[k][C] for k in scores]) for C in Cs])
        self.cv_stops_ = [[stops[k][C][:2] for k in scores] for C in Cs]
        self.cv_gaps_ = np.array([[stops[k][C][2] for k in scores] for C in Cs])
        best = int(np.argmax(self.cv_scores_))
        self.C_ = float(Cs[best])
        if len(Cs) > 1 and best in (0, len(Cs) - 1):
            self.C_at_edge_ = "upper" if best == len(Cs) - 1 else "lower"
            log.warning(
                "RML tuning: the chosen C = %g is at the %s edge of the grid %g .. %g (mean CV F %.4f)",
                self.C_,
                self.C_at_edge_,
                Cs[0],
                Cs[-1],
                self.cv_scores_[best],
            )
        log.info(
            "RML tuning: C = %g chosen (mean CV F %.4f; per C: %s)",
            self.C_,
            self.cv_scores_[best],
            ", ".join(f"{C:g}: {v:.4f}" for C, v in zip(Cs, self.cv_scores_)),
        )
        refit_init = None
        if self.C_ == Cs[-1] and kw.get("solver") == "bcfw":
            # Every example lies in the training part of all folds but one: the mean of those
            # folds' dual variables at this C is feasible, and a warm start for the refit.
            n, m = Y.shape
            A, ell, cnt = np.zeros((n, m)), np.zeros(n), np.zeros(n)
            for k, (tr, _) in enumerate(folds):
                A[tr] += last[k][0]
                ell[tr] += last[k][1]
                cnt[tr] += 1
            cnt = np.maximum(cnt, 1)
            refit_init = (A / cnt[:, None], ell / cnt)
        return Cs, refit_init

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Tune C (if several), then solve the structured SVM on all of (X, y).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels)
            Binary (0/1) label matrix. A 1-d ``y`` is read as a single label with two classes.

        Returns
        -------
        self
        """
        Cs = self._check_params()
        X, Y = self._validate_xy(X, y)
        Xa = self._prepare(X, fit=True)
        rng = check_random_state(self.random_state)
        seed = int(rng.integers(2**31)) if hasattr(rng, "integers") else int(rng.randint(2**31))
        kw = dict(solver=self.solver, tol=float(self.tol), max_iter=int(self.max_iter), batch_size=int(self.batch_size))
        t0 = time.perf_counter()
        self.C_at_edge_ = ""
        self.grid_extended_ = []
        self.Cs_skipped_ = []
        refit_init = None
        if len(Cs) > 1:
            Cs, refit_init = self._tune(Xa, Y, Cs, kw, seed)
        else:
            self.cv_scores_ = np.full(1, np.nan)
            self.C_ = float(Cs[0])
        self.Cs_ = np.array(Cs)
        self.cv_time_ = time.perf_counter() - t0
        # The refit: from the folds' mean solution when C_ is the largest C solved, else along
        # the warm-started path of the grid's values up to C_.
        refit_cs = [self.C_] if refit_init is not None else [C for C in Cs if C <= self.C_]
        refit_kw = dict(kw, tol=float(self.tol if self.refit_tol is None else self.refit_tol))
        refit_kw["threads"] = effective_n_jobs(self.n_jobs)  # the fold workers' cores, now free
        path = _path(Xa, Y, refit_cs, refit_kw, seed, init=refit_init, where="refit on all data, ")
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
        """Label scores w_i . x + b_i, shape (n_samples, n_labels) (or (n_samples,) for a 1-d y).

        For a 1-d y, a score above 0 predicts ``classes_[-1]``.
        """
        X = self._validate_X(X)
        S = np.asarray(X @ self.coef_.T) + self.intercept_
        return S[:, 0] if self._y_1d else S

    def predict(self, X):
        """Each label's score thresholded at 0 (the argmax of the joint score), in the values of y."""
        S = self.decision_function(X)
        return self._decode((S.reshape(S.shape[0], -1) > 0).astype(np.int8))
