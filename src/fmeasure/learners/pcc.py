"""Probabilistic classifier chains (PCC, Dembczynski et al. 2010) for F-measure maximization.

A chain of L2-regularised logistic regressions, one per label in the dataset's label order; label
``j`` is trained on the features plus the *true* preceding labels ``y_1 .. y_{j-1}`` and models
``P(y_j = 1 | x, y_1, ..., y_{j-1})``. The product of these conditionals is the chain's estimate of
the joint conditional distribution ``P(y | x)`` (paper, eq. 16).

Each base model is linear, so its logit splits into a *feature part* ``x . w_j + b_j`` (computed
once per test instance, a single matrix product) and a *label part* ``sum_{l<j} v_{jl} y_l``. This
module stores the chain in that form (``coef_x_``, ``coef_y_``, ``intercept_``) and builds every
inference method on it:

* :meth:`.ProbabilisticClassifierChain.sample` -- ancestral sampling of ``n`` label vectors per
  instance, vectorised over instances *and* samples (the only Python loop is over labels, in
  blocks whose label part is one matrix product);
* :meth:`.ProbabilisticClassifierChain.predict_from_samples` -- MM, FM and GFM from the samples
  through :mod:`fmeasure.estimation` and :mod:`fmeasure.inference`;
* :meth:`.ProbabilisticClassifierChain.joint_mode` -- the exact joint mode (JM) by a best-first
  search over the probability tree (Dembczynski et al. 2012), vectorised over instances;
* :meth:`.ProbabilisticClassifierChain.joint_distribution` -- all ``2^m`` probabilities exactly
  (``m <= 16``), the reference the sampler and the search are tested against, and the source of
  the exact F-maximizer of the chain (:meth:`.ProbabilisticClassifierChain.exact_f_maximizer`).

scikit-learn's ``ClassifierChain.predict_proba`` returns neither the joint distribution nor the
marginals (it plugs in *predicted* preceding labels); never feed it to FM or GFM.
"""

from __future__ import annotations

import heapq
import logging
import math
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.utils._param_validation import Interval, StrOptions

from fmeasure._arrays import label_vectors
from fmeasure.blas import single_threaded_blas
from fmeasure.inference import from_samples, gfm_from_samples
from fmeasure.io import progress
from fmeasure.learners.base import MultiLabelClassifier, check_labels, expected_f_of_samples, fit_context
from fmeasure.learners.logistic import DEFAULT_CS, SCORINGS

logger = logging.getLogger(__name__)

#: Inference methods understood by :meth:`ProbabilisticClassifierChain.predict`.
METHODS = ("mm", "jm", "fm", "gfm")
#: Methods that work from ancestral samples.
SAMPLE_METHODS = ("mm", "fm", "gfm")
_INV24 = np.float32(2.0**-24)
# From this many labels on, the sampler walks each sample's labels in compiled code, touching the
# weights of later labels only after a positive draw (O(m + s m) per sample for s positives) instead
# of blocked matrix products (O(m^2)). Both compare the same uniforms and agree but for rare
# floating-point ties; below this the two cost about the same (benchmarks/bench_pcc.py --samplers),
# and the blocked products keep the draws of the paper's datasets (6 to 101 labels) as they were.
_SPARSE_FROM_LABELS = 128
# the tree sampler's memory grows with distinct prefixes, not samples: bigger instance chunks
_TREE_CHUNK_FACTOR = 8
# seconds between progress lines of long inference loops (logged at INFO level)
_PROGRESS_EVERY_S = 30.0


def _log_sigmoid(z):
    """log(1 / (1 + exp(-z))), stable for large |z| and exact at +-inf."""
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        out = -np.logaddexp(0.0, -z)
    return out


def _augment(X, Yprev):
    """Features followed by the preceding labels, sparse if X is sparse."""
    if Yprev.shape[1] == 0:
        return X
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(Yprev.astype(np.float64))], format="csr")
    return np.hstack([X, Yprev.astype(np.float64)])


def _linear_form(model, d, j):
    """(w_x (d,), w_y (j,), b) of a fitted binary base model on [x, y_1..y_j].

    A model with both classes contributes its ``coef_``/``intercept_`` (oriented towards class 1).
    A model for a constant label (one class seen) predicts its empirical rate, 0 or 1: its
    intercept is -inf or +inf and its weights are zero, so the chain gives that label probability
    exactly 0 or 1.
    """
    classes = np.asarray(model.classes_)
    if len(classes) == 2 and hasattr(model, "coef_"):
        coef = np.asarray(model.coef_, dtype=np.float64).reshape(-1)
        b = float(np.asarray(model.intercept_, dtype=np.float64).reshape(-1)[0])
        if coef.shape[0] != d + j:
            raise ValueError(f"base model {j} has {coef.shape[0]} coefficients, expected {d + j}")
        if classes[1] != 1:  # coef_ refers to classes_[1]
            coef, b = -coef, -b
        return coef[:d], coef[d:], b
    zero = np.zeros((1, d + j))
    proba = np.asarray(model.predict_proba(zero))[0]
    rate = float(proba[list(classes).index(1)]) if 1 in classes else 0.0
    with np.errstate(divide="ignore"):
        b = float(np.log(rate) - np.log1p(-rate))
    return np.zeros(d), np.zeros(j), b


def _fit_matrix_of_link(X, Xs, Y, j):
    """Link j's training features [x, y_1..y_j] as :func:`fmeasure.learners.logistic.fit_logistic_cv`
    fits them: CSR when at most ``SPARSE_FIT_DENSITY`` of them are non-zero (it converts such a dense
    matrix itself), dense otherwise. ``Xs``: dense X as CSR (None for sparse X): a sparse link is
    assembled from it without its dense form (the same matrix: the same entries in the same order),
    which on many labels cost about a fifth of the link's fit."""
    from fmeasure.learners.logistic import SPARSE_FIT_DENSITY

    if Xs is not None:
        n, d = X.shape
        if Xs.nnz + np.count_nonzero(Y[:, :j]) <= SPARSE_FIT_DENSITY * n * (d + j) and n * (d + j) > 0:
            return _augment(Xs, Y[:, :j])
    return _augment(X, Y[:, :j])


def _fit_one(X, Y, j, Cs, cv, random_state, scoring="log_loss", Xs=None):
    """The tuned model of label j, with the wall-clock and CPU seconds of its fit (``Xs``: see
    :func:`_fit_matrix_of_link`)."""
    from fmeasure.learners.logistic import fit_logistic_cv

    t0, c0 = time.perf_counter(), time.process_time()
    Xa = _fit_matrix_of_link(X, Xs, Y, j)
    model = fit_logistic_cv(Xa, Y[:, j], Cs=Cs, cv=cv, random_state=random_state, n_jobs=1, scoring=scoring)
    return model, time.perf_counter() - t0, time.process_time() - c0


# Sampling and search use many small matrix products, for which a multi-threaded BLAS spends more
# time synchronising its threads than computing, so these methods run with BLAS limited to one
# thread (the inference core's helper; benchmarks/bench_pcc.py measures it).


class ProbabilisticClassifierChain(MultiLabelClassifier):
    """Probabilistic classifier chain of tuned L2 logistic regressions.

    Parameters
    ----------
    Cs : sequence of float, default (1e-4, 1e-3, ..., 1e3)
        Grid of inverse regularisation strengths; each base model picks its own C by ``cv``-fold
        cross-validated log loss (paper, Section 7.2).
    cv : int, default 5
        Number of cross-validation folds for tuning C.
    inference : {"gfm", "fm", "mm", "jm"}, default "gfm"
        Method used by :meth:`predict`.
    n_samples : int, default 1000
        Ancestral samples per test instance for MM, FM and GFM.
    random_state : int or None, default 0
        Seed for the CV folds (``fit``) and, unless overridden, for sampling: every call of
        :meth:`predict` draws the same samples for the same X. Every instance's samples compare
        with the same uniforms (common random numbers), so an instance's samples, and its
        prediction, depend on its x and the seed only: alone or within a batch, in any order, it
        gets the same prediction (the "dense" sampler; the "tree" sampler's binomial splits come
        from one stream for the batch, so there an instance alone and within a batch agree in
        distribution, not draw for draw).
    verbose : int, default 0
        1 draws a progress bar over the labels while fitting (interactive use); progress is logged
        at INFO level either way (``label j of m``), so a pipeline's log file shows it.
    n_jobs : int or None, default None
        Parallel jobs over labels when fitting (labels are trained independently: each uses the
        *true* preceding labels).
    chunk_size : int, default 16_000
        Number of sampled label vectors (instances x samples) processed at once; bounds memory
        (about ``chunk_size * m * 13`` bytes); small chunks stay in the CPU cache, which is
        several times faster than large ones.
    block_size : int, default 16
        Labels per block in the sampler; within a block labels are drawn one by one, the
        contribution of earlier blocks is one matrix product.
    sampler : {"dense", "tree"}, default "dense"
        How :meth:`predict_from_samples` draws its samples. "dense": every sample vector, as
        :meth:`sample` returns them; "tree": the same multiset as distinct vectors with counts,
        by binomial splitting down the chain (:meth:`sample_counts`), whose cost grows with the
        number of distinct prefixes instead of the number of samples. Both are exact ancestral
        sampling; estimates from them have the same distribution (not the same random stream).
    standardize : bool, default False
        Scale features to unit variance (and centre them, for dense X) before fitting; the
        scaling is folded back into ``coef_x_`` and ``intercept_``, so the chain acts on raw X.
        Off by default, as in the paper: it changes what a given C means (on scene it cost 5
        points of F).
    scoring : {"log_loss", "f1"} or callable, default "log_loss"
        What the cross-validation of each base model's C compares: log loss (the paper) or a
        score such as the binary F1 of the label at threshold 1/2; see
        :func:`fmeasure.learners.logistic.fit_logistic_cv`.

    Attributes
    ----------
    coef_x_ : ndarray (m, d)
        Feature weights of each base model.
    coef_y_ : ndarray (m, m)
        Weights of the preceding labels, strictly lower triangular: ``coef_y_[j, l]`` (l < j).
    intercept_ : ndarray (m,)
        Intercepts; +-inf for labels that are constant in the training set.
    C_ : ndarray (m,)
        Selected C per label (NaN for constant labels).
    cv_log_loss_ : ndarray (m, len(Cs))
        Mean cross-validated log loss per label and C (NaN where not tuned or not tuned by log loss).
    estimators_ : list
        The fitted base models (from :func:`fmeasure.learners.logistic.fit_logistic_cv`).
    feature_mean_, feature_scale_ : ndarray (d,)
        The standardisation the base models were fitted on (zeros and ones if none).
    label_fit_times_ : ndarray (m,)
        Wall-clock seconds of each base model's fit (tuning + refit).
    fit_time_ : float
        Wall-clock seconds of ``fit`` (tuning + refits).
    fit_cpu_time_ : float
        CPU seconds of ``fit``, with those of the base models fitted in worker processes.
    n_features_in_, feature_names_in_, classes_, n_labels_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); Y = (X[:, :2] + rng.normal(size=(200, 2)) > 0).astype(int)
    >>> pcc = ProbabilisticClassifierChain(Cs=[0.1, 1.0], cv=3).fit(X, Y)
    >>> pcc.predict(X[:5], inference="jm").shape
    (5, 2)
    >>> pcc.predict_expected_f(X[:5]).shape, pcc.predict_marginals(X[:5]).shape
    ((5,), (5, 2))
    """

    _parameter_constraints = {
        "Cs": ["array-like", Interval(Real, 0, None, closed="neither")],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "inference": [StrOptions(set(METHODS))],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "chunk_size": [Interval(Integral, 1, None, closed="left")],
        "block_size": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "sampler": [StrOptions({"dense", "tree"})],
        "verbose": ["verbose"],
        "scoring": [StrOptions(set(SCORINGS)), callable],
    }

    def __init__(
        self,
        Cs=DEFAULT_CS,
        cv=5,
        inference="gfm",
        n_samples=1000,
        random_state=0,
        n_jobs=None,
        chunk_size=16_000,
        block_size=16,
        standardize=False,
        sampler="dense",
        verbose=0,
        scoring="log_loss",
    ):
        self.Cs = Cs
        self.scoring = scoring
        self.verbose = verbose
        self.sampler = sampler
        self.standardize = standardize
        self.cv = cv
        self.inference = inference
        self.n_samples = n_samples
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.chunk_size = chunk_size
        self.block_size = block_size

    # ------------------------------------------------------------------ fitting
    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the chain: one tuned logistic regression per label, on features + true preceding labels.

        Parameters
        ----------
        X : array-like or sparse matrix (n, d)
        y : array-like (n, m) of 0/1; or (n,), one label with two classes

        Returns
        -------
        self
        """
        t0 = time.perf_counter()
        X, Y = self._validate_xy(X, y)
        X = sp.csr_matrix(X) if sp.issparse(X) else X
        Cs = [float(c) for c in np.atleast_1d(self.Cs)]
        if not Cs or any(not np.isfinite(c) or c <= 0 for c in Cs):
            raise ValueError(f"Cs must be a non-empty list of positive numbers, got {self.Cs!r}")
        n, d = X.shape
        m = Y.shape[1]
        mean, scale = np.zeros(d), np.ones(d)
        if self.standardize:
            if sp.issparse(X):
                sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
                mu = np.asarray(X.mean(axis=0)).ravel()
                sd = np.sqrt(np.maximum(sq - mu**2, 0.0))
            else:
                mean, sd = X.mean(axis=0), X.std(axis=0)
            scale = np.where(sd > 1e-12, sd, 1.0)
            X = X @ sp.diags(1.0 / scale) if sp.issparse(X) else (X - mean) / scale
            X = sp.csr_matrix(X) if sp.issparse(X) else X
        logger.info("fitting PCC: %d instances, %d features, %d labels, %d Cs x %d folds", n, d, m, len(Cs), self.cv)
        Xs = None if sp.issparse(X) else sp.csr_matrix(X)
        jobs = (delayed(_fit_one)(X, Y, j, Cs, self.cv, self.random_state, self.scoring, Xs) for j in range(m))
        results = list(
            progress(
                Parallel(n_jobs=self.n_jobs, return_as="generator")(jobs),
                total=m,
                desc="PCC: labels fitted",
                logger=logger,
                bar=bool(self.verbose),
            )
        )
        self.estimators_ = [r[0] for r in results]
        self.label_fit_times_ = np.array([r[1] for r in results])
        if self.n_jobs not in (None, 1):  # the base models were fitted in worker processes
            self._worker_cpu_time += float(sum(r[2] for r in results))
        self.coef_x_ = np.zeros((m, d))
        self.coef_y_ = np.zeros((m, m))
        self.intercept_ = np.zeros(m)
        self.C_ = np.full(m, np.nan)
        self.cv_log_loss_ = np.full((m, len(Cs)), np.nan)
        for j, model in enumerate(self.estimators_):
            wx, wy, b = _linear_form(model, d, j)
            # undo the scaling: w . (x - mean) / scale + b = (w / scale) . x + b - w . (mean / scale)
            wx = wx / scale
            b = b - float(wx @ mean) if np.isfinite(b) else b
            self.coef_x_[j], self.coef_y_[j, :j], self.intercept_[j] = wx, wy, b
            if len(np.asarray(model.classes_)) == 2:
                self.C_[j] = float(getattr(model, "C_", np.nan))
                loss = getattr(model, "cv_log_loss_", None)
                if loss is not None and np.size(loss) == len(Cs):
                    self.cv_log_loss_[j] = np.asarray(loss, dtype=np.float64)
        self.feature_mean_, self.feature_scale_ = mean, scale
        logger.info("PCC fitted in %.1f s", time.perf_counter() - t0)
        return self

    @classmethod
    def from_parameters(cls, coef_x, coef_y, intercept, **params):
        """Build a chain from explicit weights (for tests, simulations and hand-made examples).

        Parameters
        ----------
        coef_x : array (m, d)
        coef_y : array (m, m), only the strictly lower triangle is used
        intercept : array (m,)

        Examples
        --------
        >>> pcc = ProbabilisticClassifierChain.from_parameters(
        ...     np.zeros((2, 1)), [[0, 0], [3.0, 0]], [0.0, -1.5])
        >>> support, probs = pcc.joint_distribution(np.zeros((1, 1)))
        >>> np.round(probs, 3).tolist()
        [[0.409, 0.091, 0.091, 0.409]]
        """
        coef_x = np.asarray(coef_x, dtype=np.float64)
        intercept = np.asarray(intercept, dtype=np.float64).reshape(-1)
        m = intercept.shape[0]
        if coef_x.ndim != 2 or coef_x.shape[0] != m:
            raise ValueError(f"coef_x must have shape (m, d) with m = {m}, got {coef_x.shape}")
        coef_y = np.asarray(coef_y, dtype=np.float64)
        if coef_y.shape != (m, m):
            raise ValueError(f"coef_y must have shape ({m}, {m}), got {coef_y.shape}")
        self = cls(**params)
        self.coef_x_ = coef_x
        self.coef_y_ = np.tril(coef_y, k=-1)
        self.intercept_ = intercept
        self.n_features_in_ = coef_x.shape[1]
        self.n_labels_ = m
        self.classes_ = np.array([0, 1], dtype=np.int8)
        self._y_1d = False
        self.C_ = np.full(m, np.nan)
        return self

    # ------------------------------------------------------------------ helpers
    def _prepare(self, X):
        """X checked against fit's features: float64, CSR when sparse."""
        X = self._validate_X(X)
        return sp.csr_matrix(X) if sp.issparse(X) else X

    def feature_logits(self, X):
        """Feature part of every label's logit, ``X @ coef_x_.T + intercept_``, shape (n, m)."""
        X = self._prepare(X)
        A = X @ self.coef_x_.T
        return np.asarray(A) + self.intercept_

    def conditional_proba(self, X, Y):
        """P(y_j = 1 | x, y_1..y_{j-1}) for given X and label vectors Y (n, m): what each base model says."""
        A = self.feature_logits(X)
        Y = check_labels(Y, n=A.shape[0])
        Z = A + Y.astype(np.float64) @ self.coef_y_.T
        return np.exp(_log_sigmoid(Z))

    def log_joint_proba(self, X, Y):
        """Exact log P(y | x) of the chain for the label vectors Y (n, m), one per row of X."""
        A = self.feature_logits(X)
        Y = check_labels(Y, n=A.shape[0])
        Z = A + Y.astype(np.float64) @ self.coef_y_.T
        return np.where(Y == 1, _log_sigmoid(Z), _log_sigmoid(-Z)).sum(axis=1)

    def _rng(self, random_state):
        seed = self.random_state if random_state is None else random_state
        return np.random.default_rng(seed)

    # ------------------------------------------------------------------ sampling
    def _sparse_sampler_weights(self):
        """``exp(-coef_y_.T)`` from ``_SPARSE_FROM_LABELS`` labels on, else None (the blocked sampler).

        Row k multiplies exp(-z) of the later labels when label k is drawn positive.
        """
        if self.n_labels_ < _SPARSE_FROM_LABELS:
            return None
        with np.errstate(over="ignore"):
            return np.exp(-np.ascontiguousarray(self.coef_y_.T, dtype=np.float64))

    def _common_uniforms(self, n_samples, rng, sample_major=False):
        """The raw 32-bit draws that every instance's samples compare with: (m, n_samples) uint32,
        or the same draws as a contiguous (n_samples, m) with ``sample_major`` (the layout of the
        compiled sampler of many labels).

        Common random numbers: sample s of every instance reads column s, so an instance's
        samples depend on its x and the seed only, not on the other instances of the batch or its
        position in it (:meth:`predict` on one row gives what it gives for that row in a batch).
        """
        m = self.n_labels_
        R = (
            rng.bit_generator.random_raw((m * n_samples + 1) // 2)
            .view(np.uint32)[: m * n_samples]
            .reshape(m, n_samples)
        )
        return np.ascontiguousarray(R.T) if sample_major else R

    @single_threaded_blas
    def _sample_block(self, A, n_samples, R, F=None):
        """Ancestral samples for the instances of A (c, m): int8 (c, n_samples, m).

        ``R`` holds the common draws (:meth:`_common_uniforms`), (m, n_samples) uint32, read by
        every instance alike; with ``F``, the same draws sample-major, (n_samples, m)
        (``_common_uniforms(..., sample_major=True)``, once for all blocks).

        Samples are kept label-major, ``S[j, i * n_samples + s]``, so that each label is a
        contiguous row. The label part of the logits of a block of labels is one matrix product
        with all earlier labels; inside a block labels are drawn in order. With ``F`` (from
        :meth:`_sparse_sampler_weights`, computed once by the caller; ``_SPARSE_FROM_LABELS`` labels
        on), the same uniforms are compared in compiled code that updates the later logits only
        after a positive draw (:func:`~fmeasure.learners._sampling.chain_draws_sparse`): the same
        draws up to floating-point rounding, O(m + s m) per sample instead of O(m^2).
        """
        c, m = A.shape
        N = c * n_samples
        if F is not None:
            from fmeasure.learners._sampling import chain_draws_sparse

            with np.errstate(over="ignore"):
                E = np.exp(-np.asarray(A, dtype=np.float64))
            S = np.empty((N, m), dtype=np.int8)
            chain_draws_sparse(E, F, R, S)
            return S.reshape(c, n_samples, m)
        # work with negated logits so that exp(-z) needs no extra pass: nz = -z
        nV = -self.coef_y_.astype(np.float32)
        S = np.empty((m, N), dtype=np.float32)
        b = max(1, int(self.block_size))
        # one uniform per (label, sample): the top 24 bits of a raw 32-bit draw, as
        # rng.random(dtype=float32) does (same stream, faster): u = u24 / 2^24 in [0, 1); the same
        # n_samples columns for every instance (common random numbers)
        U = (R >> 8).astype(np.float32)
        U *= _INV24
        U = np.tile(U, (1, c))
        with np.errstate(over="ignore", invalid="ignore"):
            for j0 in range(0, m, b):
                j1 = min(j0 + b, m)
                nZ = np.repeat(-A[:, j0:j1].T.astype(np.float32), n_samples, axis=1)  # (b, N)
                if j0 > 0:
                    nZ += nV[j0:j1, :j0] @ S[:j0]
                for j in range(j0, j1):
                    t = nZ[j - j0]
                    if j > j0:
                        t += nV[j, j0:j] @ S[j0:j]
                    # y = [u < sigmoid(z)] = [u * (1 + exp(-z)) < 1]; exact at z = +-inf
                    # (z = +inf: u * 1 < 1 always; z = -inf: u * inf = inf, or nan for u = 0: never)
                    np.exp(t, out=t)
                    t += 1.0
                    t *= U[j]
                    np.less(t, 1.0, out=S[j])
        return S.T.reshape(c, n_samples, m).astype(np.int8)

    @single_threaded_blas
    def _sample_tree(self, A, n_samples, rng):
        """Ancestral sampling as counts of distinct vectors: (Y int8 (c, R, m), counts (c, R)).

        The multiset of ``n_samples`` ancestral samples has the same distribution as splitting
        ``n_samples`` down the chain's probability tree: at label j each distinct prefix with
        count k sends Binomial(k, P(y_j = 1 | x, prefix)) of its samples to the child with y_j = 1
        and the rest to y_j = 0. Work grows with the number of distinct prefixes (at most
        ``n_samples`` per level, usually far fewer), not with ``n_samples``. Rows of an instance
        beyond its own number of distinct vectors are zero vectors with count 0.
        """
        c, m = A.shape
        V = self.coef_y_
        inst = np.arange(c)
        cnt = np.full(c, n_samples, dtype=np.int64)
        Z = A.copy()  # logits of all labels given each frontier prefix
        pref = np.zeros((c, m), dtype=np.int8)
        with np.errstate(over="ignore", invalid="ignore"):
            for j in range(m):
                p = np.exp(_log_sigmoid(Z[:, j]))
                k1 = rng.binomial(cnt, p)
                k0 = cnt - k1
                s0, s1 = np.flatnonzero(k0), np.flatnonzero(k1)
                inst = np.concatenate([inst[s0], inst[s1]])
                cnt = np.concatenate([k0[s0], k1[s1]])
                pref = np.concatenate([pref[s0], pref[s1]])
                pref[s0.size :, j] = 1
                if j + 1 < m:
                    Z = np.concatenate([Z[s0], Z[s1]])
                    Z[s0.size :, j + 1 :] += V[j + 1 :, j]
        order = np.argsort(inst, kind="stable")
        inst, cnt, pref = inst[order], cnt[order], pref[order]
        sizes = np.bincount(inst, minlength=c)
        pos = np.arange(inst.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        Y = np.zeros((c, max(1, int(sizes.max())), m), dtype=np.int8)
        W = np.zeros(Y.shape[:2])
        Y[inst, pos] = pref
        W[inst, pos] = cnt
        return Y, W

    def sample_counts(self, X, n_samples=None, random_state=None):
        """Ancestral samples as distinct label vectors with counts (exact, and much faster).

        Same distribution as counting the rows of :meth:`sample`; see ``_sample_tree``.

        Returns
        -------
        list of (Y int8 (r_i, m), counts (r_i,)) per instance

        Examples
        --------
        >>> pcc = ProbabilisticClassifierChain.from_parameters(np.zeros((2, 1)), np.zeros((2, 2)), [50.0, -50.0])
        >>> Y, counts = pcc.sample_counts(np.zeros((1, 1)), n_samples=10, random_state=0)[0]
        >>> Y.tolist(), counts.tolist()
        ([[1, 0]], [10])
        """
        n_samples = self._n_samples(n_samples)
        A = self.feature_logits(X)
        rng = self._rng(random_state)
        out = []
        for sl in self._chunks(A.shape[0], n_samples, factor=_TREE_CHUNK_FACTOR):
            Y, W = self._sample_tree(A[sl], n_samples, rng)
            for i in range(Y.shape[0]):
                keep = W[i] > 0
                out.append((Y[i][keep], W[i][keep].astype(np.int64)))
        return out

    def _chunks(self, n, n_samples, factor=1):
        step = max(1, int(self.chunk_size) * factor // max(1, n_samples))
        for start in range(0, n, step):
            yield slice(start, min(n, start + step))

    @single_threaded_blas
    def sample(self, X, n_samples=None, random_state=None):
        """Ancestral sampling: ``n_samples`` label vectors per instance from the chain.

        Parameters
        ----------
        X : array-like or sparse (n, d)
        n_samples : int, default ``self.n_samples``
        random_state : int or Generator, default ``self.random_state``

        Returns
        -------
        ndarray int8 (n, n_samples, m)

        Examples
        --------
        >>> pcc = ProbabilisticClassifierChain.from_parameters(np.zeros((3, 1)), np.zeros((3, 3)), [5, -5, 0])
        >>> pcc.sample(np.zeros((2, 1)), n_samples=4, random_state=0).shape
        (2, 4, 3)
        """
        n_samples = self._n_samples(n_samples)
        A = self.feature_logits(X)
        F = self._sparse_sampler_weights()
        R = self._common_uniforms(n_samples, self._rng(random_state), sample_major=F is not None)
        out = np.empty((A.shape[0], n_samples, self.n_labels_), dtype=np.int8)
        for sl in self._chunks(A.shape[0], n_samples):
            out[sl] = self._sample_block(A[sl], n_samples, R, F)
        return out

    def _n_samples(self, n_samples):
        n_samples = self.n_samples if n_samples is None else n_samples
        if not isinstance(n_samples, Integral) or n_samples < 1:
            raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
        return int(n_samples)

    # ------------------------------------------------------------------ inference
    def _draw_chunks(self, n, n_samples):
        """The chunks of instances that :meth:`_draws` samples one after another."""
        if self.sampler not in ("tree", "dense"):
            raise ValueError(f"sampler must be 'tree' or 'dense', got {self.sampler!r}")
        factor = _TREE_CHUNK_FACTOR if self.sampler == "tree" else 1
        return list(self._chunks(n, n_samples, factor=factor))

    def _draws(self, A, n_samples, rng):
        """The ancestral samples of the instances of A (feature logits), chunk by chunk, as every
        sample-based prediction draws them: yields ``(rows, S (c, K, m), W (c, K) or None)``, W
        the counts of the distinct vectors of the "tree" sampler."""
        F = self._sparse_sampler_weights() if self.sampler == "dense" else None
        R = self._common_uniforms(n_samples, rng, sample_major=F is not None) if self.sampler == "dense" else None
        for sl in self._draw_chunks(A.shape[0], n_samples):
            if self.sampler == "tree":
                S, W = self._sample_tree(A[sl], n_samples, rng)
            else:
                S, W = self._sample_block(A[sl], n_samples, R, F), None
            yield sl, S, W

    @single_threaded_blas
    def predict_from_samples(self, X, methods=SAMPLE_METHODS, n_samples=None, random_state=None, return_times=False):
        """MM, FM and/or GFM predictions from ancestral samples (shared by all methods).

        Samples are drawn chunk by chunk; for each chunk the estimates come from
        :mod:`fmeasure.estimation` (marginals for MM and FM, Delta and P(y = 0) for GFM) and the
        predictions from :mod:`fmeasure.inference`, both through :func:`fmeasure.inference.from_samples`.

        Parameters
        ----------
        X : array-like or sparse (n, d)
        methods : sequence of {"mm", "fm", "gfm"}
        n_samples : int, default ``self.n_samples``
        random_state : int or Generator, default ``self.random_state``
        return_times : bool
            Also return seconds per method: the sampling time plus that method's own estimation and
            inference time (the three steps of the paper's inference time).

        Returns
        -------
        dict method -> int8 (n, m) [, dict method -> float]
        """
        methods = tuple(methods)
        bad = [k for k in methods if k not in SAMPLE_METHODS]
        if bad:
            raise ValueError(f"methods must be among {SAMPLE_METHODS}, got {bad}")
        n_samples = self._n_samples(n_samples)
        if self.sampler not in ("tree", "dense"):
            raise ValueError(f"sampler must be 'tree' or 'dense', got {self.sampler!r}")
        t0 = time.perf_counter()
        A = self.feature_logits(X)
        rng = self._rng(random_state)
        t_sample = time.perf_counter() - t0
        times = dict.fromkeys(methods, 0.0)
        out = {k: np.empty(A.shape, dtype=np.int8) for k in methods}
        chunks = self._draw_chunks(A.shape[0], n_samples)
        desc = (
            f"PCC {'/'.join(methods)} from {n_samples} samples: chunks of {chunks[0].stop if chunks else 0} instances"
        )
        draws = self._draws(A, n_samples, rng)
        for sl in progress(chunks, desc=desc, logger=logger, every=_PROGRESS_EVERY_S):
            t0 = time.perf_counter()
            _, S, W = next(draws)
            t_sample += time.perf_counter() - t0
            H, t = from_samples(S, methods, weights=W, return_times=True)
            for k in methods:
                out[k][sl] = H[k]
                times[k] += t[k]
        times = {k: v + t_sample for k, v in times.items()}
        return (out, times) if return_times else out

    def greedy(self, X):
        """Greedy chain decoding (Read et al. 2009): y_j = [P(y_j = 1 | x, y_<j) >= 1/2].

        Returns
        -------
        (h int8 (n, m), log-probability (n,))
        """
        return _greedy_from_logits(self.feature_logits(X), self.coef_y_)

    @single_threaded_blas
    def joint_mode(self, X, max_frontier=4096, max_expansions=5_000):
        """Joint mode argmax_y P(y | x) of the chain (JM, subset 0/1-optimal), exact within a budget.

        Best-first search over the probability tree (Dembczynski et al. 2012), run level by level
        for all instances at once: a prefix whose probability is below that of a known complete
        vector (the greedy path) cannot lead to the mode and is cut, so at most ``1 / p_greedy``
        prefixes survive per level. Instances whose frontier grows beyond ``max_frontier``
        prefixes (fewer for long chains: at most 2^19 / m, so that a level's prefixes stay a few
        MB) are finished by a per-instance uniform-cost search (priority queue), which expands
        only prefixes more probable than the mode. Both are exact.

        The mode is NP-hard in general, and on flat distributions over many labels (delicious's
        983) the uniform-cost search would expand a large part of the tree. An instance whose
        search pops ``max_expansions`` prefixes without reaching a complete vector keeps the
        greedy path (a lower bound on the mode's probability), and their number is logged as a
        warning. ``max_expansions=None``: no budget, always exact.

        Returns
        -------
        (h int8 (n, m), probability of h (n,))

        Examples
        --------
        >>> pcc = ProbabilisticClassifierChain.from_parameters(np.zeros((2, 1)), [[0, 0], [3.0, 0]], [-0.5, -1.5])
        >>> h, p = pcc.joint_mode(np.zeros((1, 1)))
        >>> h.tolist(), round(float(p[0]), 3)
        ([[0, 0]], 0.509)
        """
        A = self.feature_logits(X)
        n, m = A.shape
        H = np.empty((n, m), dtype=np.int8)
        P = np.empty(n)
        frontier = min(int(max_frontier), max(1, 2**19 // max(1, m)))
        budget = np.inf if max_expansions is None else int(max_expansions)
        step = max(1, int(self.chunk_size) // max(1, 64 * m))
        starts = range(0, n, step)
        searched = hits = 0
        V_rows = self.coef_y_.tolist()  # the label weights as lists, for every uniform-cost search
        for s in progress(
            starts, desc=f"PCC joint mode: chunks of {step} instances", logger=logger, every=_PROGRESS_EVERY_S
        ):
            H[s : s + step], P[s : s + step], k, h = _joint_mode_levelwise(
                A[s : s + step], self.coef_y_, frontier, budget, V_rows
            )
            searched, hits = searched + k, hits + h
        if searched:
            logger.info(
                "joint mode: %d of %d instance(s) exceeded the frontier cap of %d, finished by uniform-cost search",
                searched,
                n,
                frontier,
            )
        if hits:
            logger.warning(
                "joint mode: %d of %d instance(s) reached max_expansions = %s prefixes; they keep the greedy path",
                hits,
                n,
                max_expansions,
            )
        return H, P

    @single_threaded_blas
    def joint_distribution(self, X, max_labels=16):
        """Exact P(y | x) for all 2^m label vectors (reference method, m <= ``max_labels``).

        Returns
        -------
        support : int8 (2^m, m), row k = binary digits of k
        probs : float64 (n, 2^m), rows sum to 1
        """
        A = self.feature_logits(X)
        n, m = A.shape
        if m > max_labels:
            raise ValueError(f"joint_distribution enumerates 2^m vectors: m = {m} > max_labels = {max_labels}")
        support = label_vectors(m)
        Ysup = support.astype(np.float64)
        L = Ysup @ self.coef_y_.T  # (2^m, m) label part of every logit
        probs = np.empty((n, 2**m))
        step = max(1, 2_000_000 // (2**m * m))
        for s in range(0, n, step):
            Z = A[s : s + step, None, :] + L[None]
            logp = np.where(support[None] == 1, _log_sigmoid(Z), _log_sigmoid(-Z)).sum(axis=2)
            probs[s : s + step] = np.exp(logp)
        return support, probs

    def exact_f_maximizer(self, X, max_labels=16):
        """Exact F-maximizer of the chain's distribution (GFM on exact P, m <= ``max_labels``).

        Returns
        -------
        (h int8 (n, m), expected F of h under the chain (n,))
        """
        support, probs = self.joint_distribution(X, max_labels=max_labels)
        n = probs.shape[0]
        H = np.empty((n, support.shape[1]), dtype=np.int8)
        val = np.empty(n)
        step = max(1, 4_000_000 // support.size)
        for s in range(0, n, step):
            w = probs[s : s + step]
            Ys = np.broadcast_to(support, (w.shape[0],) + support.shape)
            H[s : s + step], val[s : s + step] = gfm_from_samples(Ys, weights=w)
        return H, val

    def _method(self, inference):
        method = self.inference if inference is None else inference
        if method not in METHODS:
            raise ValueError(f"inference must be one of {METHODS}, got {method!r}")
        return method

    def predict(self, X, inference=None, n_samples=None, random_state=None):
        """Predict label vectors with the chosen inference method (default ``self.inference``).

        Returns
        -------
        ndarray of shape (n, m) in y's dtype ((n,) in ``classes_`` for a 1-d training y)
        """
        method = self._method(inference)
        if method == "jm":
            return self._decode(self.joint_mode(X)[0])
        return self._decode(self.predict_from_samples(X, (method,), n_samples, random_state)[method])

    @single_threaded_blas
    def predict_expected_f(self, X, inference=None, n_samples=None, random_state=None):
        """Expected F-measure of each prediction under the chain's ancestral samples, (n,).

        The samples are those :meth:`predict` draws (the same ``n_samples`` and seed); their
        empirical distribution stands for the chain's. With ``inference="gfm"`` (default) this is
        GFM's value, the largest expected F of any label set under the samples. ``inference``,
        ``n_samples`` and ``random_state`` are as for :meth:`predict`.

        Returns
        -------
        ndarray of shape (n,)
        """
        method = self._method(inference)
        n_samples = self._n_samples(n_samples)
        H = self.joint_mode(X)[0] if method == "jm" else None
        A = self.feature_logits(X)
        V = np.empty(A.shape[0])
        for sl, S, W in self._draws(A, n_samples, self._rng(random_state)):
            if method == "gfm":
                V[sl] = gfm_from_samples(S, W)[1]
                continue
            Hc = H[sl] if H is not None else from_samples(S, method, weights=W)[method]
            V[sl] = expected_f_of_samples(S, W, Hc)
        return V

    @single_threaded_blas
    def predict_marginals(self, X, n_samples=None, random_state=None):
        """Marginals P(y_j = 1 | x) of the chain, estimated from the ancestral samples that
        :meth:`predict` draws (the same ``n_samples`` and seed), (n, m) ((n,) for a 1-d training y).

        Returns
        -------
        ndarray of shape (n, m) or (n,)
        """
        n_samples = self._n_samples(n_samples)
        A = self.feature_logits(X)
        P = np.empty(A.shape)
        for sl, S, W in self._draws(A, n_samples, self._rng(random_state)):
            P[sl] = S.mean(axis=1) if W is None else np.einsum("nkm,nk->nm", S, W) / W.sum(axis=1)[:, None]
        return self._decode_marginals(P)


def _greedy_from_logits(A, V):
    n, m = A.shape
    H = np.zeros((n, m), dtype=np.int8)
    logp = np.zeros(n)
    for j in range(m):
        z = A[:, j] + H[:, :j].astype(np.float64) @ V[j, :j]
        H[:, j] = z >= 0
        logp += np.where(H[:, j] == 1, _log_sigmoid(z), _log_sigmoid(-z))
    return H, logp


def _joint_mode_levelwise(A, V, max_frontier, max_expansions, V_rows):
    """Level-by-level search for the joint mode of every instance of A (c, m) at once.

    ``V_rows``: ``V.tolist()``, for the uniform-cost search of the instances whose frontier overflows.

    Returns the modes, their probabilities, the number of instances handed to the uniform-cost
    search and the number of those that reached ``max_expansions`` (they keep the greedy path)."""
    n, m = A.shape
    best_h, best_lp = _greedy_from_logits(A, V)
    bound = best_lp - 1e-9  # rounding tolerance: never cut the greedy path itself
    inst = np.arange(n)
    pref = np.zeros((n, m))
    lp = np.zeros(n)
    overflow = []
    for j in range(m):
        z = A[inst, j] + pref[:, :j] @ V[j, :j]
        l1, l0 = _log_sigmoid(z), _log_sigmoid(-z)
        k = inst.size
        inst = np.concatenate([inst, inst])
        pref = np.concatenate([pref, pref])
        pref[k:, j] = 1.0
        lp = np.concatenate([lp + l0, lp + l1])
        keep = lp >= bound[inst]
        inst, pref, lp = inst[keep], pref[keep], lp[keep]
        big = np.flatnonzero(np.bincount(inst, minlength=n) > max_frontier)
        if big.size:
            overflow.extend(big.tolist())
            keep = ~np.isin(inst, big)
            inst, pref, lp = inst[keep], pref[keep], lp[keep]
    if inst.size:
        order = np.lexsort((-lp, inst))
        inst, pref, lp = inst[order], pref[order], lp[order]
        first = np.r_[True, inst[1:] != inst[:-1]]
        ii, pp, ll = inst[first], pref[first], lp[first]
        better = ll > best_lp[ii]
        best_h[ii[better]] = pp[better].astype(np.int8)
        best_lp[ii[better]] = ll[better]
    hits = 0
    for i in overflow:
        found = _uniform_cost_search(A[i], V_rows, max_expansions)
        if found is None:
            hits += 1
        else:
            best_h[i], best_lp[i] = found
    return best_h, np.exp(best_lp), len(overflow), hits


def _log_sigmoid_scalar(z: float) -> float:
    """:func:`_log_sigmoid` of one Python float, without numpy's per-call overhead."""
    return -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))


def _uniform_cost_search(a, rows, max_expansions=np.inf):
    """Exact joint mode for one instance: pop the most probable prefix; the first complete one wins.

    ``a`` (m,) is the feature part of the logits, ``rows`` the label weights V (m, m) as nested lists
    (``V.tolist()``, made once for every instance searched). Probabilities only
    shrink along a path, so the first complete vector popped is the mode. A prefix is kept as its
    length and the positions of its positive labels, so the logit of the next label costs one term
    per positive label. Returns None when ``max_expansions`` prefixes were popped without reaching
    a complete vector.
    """
    m = a.shape[0]
    a = a.tolist()
    heap = [(0.0, 0, 0, ())]  # (-log p, tie-breaker, prefix length, positions of its positive labels)
    counter = 1
    popped = 0
    while heap:
        if popped >= max_expansions:
            return None
        popped += 1
        neg, _, j, pos = heapq.heappop(heap)
        if j == m:
            h = np.zeros(m, dtype=np.int8)
            h[list(pos)] = 1
            return h, -neg
        row = rows[j]
        z = a[j] + sum(row[k] for k in pos)
        for y, l in ((1, _log_sigmoid_scalar(z)), (0, _log_sigmoid_scalar(-z))):
            if l > -math.inf:
                heapq.heappush(heap, (neg - l, counter, j + 1, pos + (j,) if y else pos))
                counter += 1
    raise RuntimeError("uniform-cost search exhausted the tree")  # pragma: no cover
