"""A voting ensemble of F-measure maximizers with the vote threshold chosen on a validation split.

This is the method of the authors' JRS 2012 Data Mining Competition entry (paper, Section 7.3):
M members each predict a 0/1 label vector; a label is predicted when at least t of the M
members predict it, and t in 1..M is the value that maximises the mean instance-wise F-measure
on a validation set.

:class:`VotingEnsemble` holds out a validation split of the training set (stratified by the
number of relevant labels where that is possible), fits the members on the rest, picks t from
the members' votes on the validation split, and (``refit=True``, the default) refits the members
on the whole training set before predicting.

Members sharing one fitted model
--------------------------------
A member is ``(name, estimator, params)``: members given the *same estimator object* share one
fit, and ``params`` say how that fit predicts. :func:`member_predictions` makes all predictions
of one fitted model at once:

* :class:`~fmeasure.learners.pcc.ProbabilisticClassifierChain`: ``{"inference": "fm" | "gfm" |
  "mm" | "jm", "n_samples": n, "random_state": seed}``; members with the same ``(n_samples,
  random_state)`` use one set of ancestral samples
  (:meth:`~fmeasure.learners.ProbabilisticClassifierChain.predict_from_samples`), so FM and
  GFM at one sample size cost one sampling.
* :class:`~fmeasure.learners.parametric.BinaryRelevance` (and :class:`~fmeasure.learners.parametric.LFP`):
  ``{"inference": "mm"}`` (BR's marginal modes) or ``{"inference": "fm"}`` (LFP); the marginals
  are computed once.
* any other estimator: ``estimator.predict(X, **params)``.

The threshold search is vectorised: from the vote counts, one pass gives for every instance and
every t the size of the prediction and its true positives (:func:`threshold_scores`).
"""

from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import Interval, RealNotInt

from fmeasure import inference
from fmeasure.learners.base import MultiLabelClassifier, check_labels, expected_f_of_samples, fit_context
from fmeasure.learners.parametric import BinaryRelevance
from fmeasure.learners.pcc import ProbabilisticClassifierChain

__all__ = ["VotingEnsemble", "validation_split", "member_predictions", "threshold_scores", "choose_threshold"]

logger = logging.getLogger(__name__)


def _strata(Y, min_count):
    """Number of relevant labels, capped from above so that every stratum has >= min_count rows."""
    s = Y.sum(axis=1).astype(np.int64)
    for cap in range(int(s.max()), -1, -1):
        c = np.minimum(s, cap)
        counts = np.bincount(c)
        if counts[counts > 0].min() >= min_count:
            return c
    return None


def validation_split(Y, validation_size=0.1, random_state=0):
    """Indices (train, validation) of a split of the training set, stratified where possible.

    The strata are the numbers of relevant labels per instance, the largest ones merged until
    every stratum holds at least two instances (label sets themselves are too many to stratify
    on). If that is impossible, or the validation part is smaller than the number of strata, the
    split is plain random.

    Parameters
    ----------
    Y : array (n, m) of 0/1
    validation_size : float in (0, 1) or int >= 1
        Fraction or number of instances held out.
    random_state : int, RandomState or None

    Returns
    -------
    (train_idx, val_idx) : sorted int arrays

    Examples
    --------
    >>> Y = np.array([[0, 1]] * 10 + [[1, 1]] * 10)
    >>> tr, va = validation_split(Y, 0.1, random_state=0)
    >>> len(tr), len(va), sorted(Y[va].sum(axis=1).tolist())
    (18, 2, [1, 2])
    """
    Y = check_labels(Y)
    n = Y.shape[0]
    if isinstance(validation_size, (bool, np.bool_)) or not isinstance(validation_size, (Real, Integral)):
        raise ValueError(f"validation_size must be a fraction in (0, 1) or a count >= 1, got {validation_size!r}")
    if isinstance(validation_size, Integral):
        if not 1 <= validation_size < n:
            raise ValueError(f"validation_size must be between 1 and n - 1 = {n - 1}, got {validation_size}")
        n_val = int(validation_size)
    else:
        if not 0 < validation_size < 1:
            raise ValueError(f"validation_size must be a fraction in (0, 1) or a count >= 1, got {validation_size!r}")
        n_val = int(np.ceil(validation_size * n))
    if not 1 <= n_val < n:
        raise ValueError(
            f"validation_size {validation_size!r} leaves no instance for training or validation (n_samples={n})"
        )
    seed = check_random_state(random_state).randint(0, 2**31 - 1)
    strata = _strata(Y, 2)
    if strata is not None and (np.unique(strata).size > n_val or np.unique(strata).size > n - n_val):
        strata = None
    idx = np.arange(n)
    tr, va = train_test_split(idx, test_size=n_val, random_state=seed, stratify=strata)
    return np.sort(tr), np.sort(va)


def _pcc_predictions(est, X, params_list):
    out = [None] * len(params_list)
    groups = {}
    for i, p in enumerate(params_list):
        method = p.get("inference", est.inference)
        if method == "jm":
            out[i] = est.joint_mode(X)[0]
            continue
        key = (p.get("n_samples"), p.get("random_state"))
        groups.setdefault(key, []).append((i, method))
    for (n_samples, seed), items in groups.items():
        methods = tuple(dict.fromkeys(m for _, m in items))
        preds = est.predict_from_samples(X, methods, n_samples=n_samples, random_state=seed)
        for i, method in items:
            out[i] = preds[method]
    return out


def _br_predictions(est, X, params_list):
    default = "fm" if type(est).predict is not BinaryRelevance.predict else "mm"
    p = est.predict_marginals(X)
    cache = {}
    out = []
    for params in params_list:
        method = params.get("inference", default)
        if method not in ("mm", "fm"):
            raise ValueError(f"a BinaryRelevance member's inference must be 'mm' or 'fm', got {method!r}")
        if method not in cache:
            cache[method] = (inference.marginal_modes(p) if method == "mm" else inference.fm(p))[0]
        out.append(cache[method])
    return out


def member_predictions(estimator, X, params_list):
    """0/1 predictions of every member sharing the fitted ``estimator``, made in one batch.

    Parameters
    ----------
    estimator : fitted learner
    X : array-like or sparse (n, d)
    params_list : list of dict
        One dict per member (see the module's docstring).

    Returns
    -------
    ndarray int8 (len(params_list), n, m)

    Examples
    --------
    >>> from fmeasure.learners.parametric import BinaryRelevance
    >>> X = np.array([[0.], [1.], [2.], [3.]] * 5); Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]] * 5)
    >>> br = BinaryRelevance(Cs=[100.0], cv=2).fit(X, Y)
    >>> member_predictions(br, [[3.]], [{"inference": "mm"}, {"inference": "fm"}]).tolist()
    [[[1, 1]], [[1, 1]]]
    """
    params_list = [dict(p or {}) for p in params_list]
    if isinstance(estimator, ProbabilisticClassifierChain):
        preds = _pcc_predictions(estimator, X, params_list)
    elif isinstance(estimator, BinaryRelevance):
        preds = _br_predictions(estimator, X, params_list)
    else:
        preds = [estimator.predict(X, **p) for p in params_list]
    return np.stack([np.asarray(h, dtype=np.int8) for h in preds]) if preds else np.zeros((0, 0, 0), np.int8)


def threshold_scores(votes, Y, n_members):
    """Mean instance-wise F of the vote at every threshold t = 1..M, all at once.

    ``votes[i, j]`` is the number of members predicting label j for instance i. For every instance
    the labels are counted by vote (all labels and relevant labels, one ``bincount`` each); reverse
    cumulative sums give, for every t, the size of the prediction ``[votes >= t]`` and its true
    positives, hence F(t) with F(0, 0) = 1 (paper, eq. 1).

    Returns
    -------
    ndarray (M,): entry t - 1 is the mean F of predicting ``votes >= t``.

    Examples
    --------
    >>> threshold_scores(np.array([[2, 1, 0]]), np.array([[1, 1, 0]]), 2).round(3).tolist()
    [1.0, 0.667]
    """
    votes = np.asarray(votes)
    Y = check_labels(Y)
    if votes.shape != Y.shape:
        raise ValueError(f"votes has shape {votes.shape}, Y has {Y.shape}")
    if not isinstance(n_members, Integral) or n_members < 1:
        raise ValueError(f"n_members must be a positive integer, got {n_members!r}")
    M = int(n_members)
    if votes.size and (votes.min() < 0 or votes.max() > M):
        raise ValueError(f"votes must be counts between 0 and n_members = {M}")
    n = votes.shape[0]
    key = (np.arange(n)[:, None] * (M + 1) + votes.astype(np.int64)).ravel()
    size = n * (M + 1)
    all_by_vote = np.bincount(key, minlength=size).reshape(n, M + 1)
    pos_by_vote = np.bincount(key, weights=Y.ravel(), minlength=size).reshape(n, M + 1)
    # predicted size and true positives of [votes >= t] for t = 1..M
    hs = np.cumsum(all_by_vote[:, ::-1], axis=1)[:, ::-1][:, 1:]
    tp = np.cumsum(pos_by_vote[:, ::-1], axis=1)[:, ::-1][:, 1:]
    den = Y.sum(axis=1)[:, None] + hs
    f = np.where(den > 0, 2.0 * tp / np.maximum(den, 1), 1.0)
    return f.mean(axis=0)


def choose_threshold(votes, Y, n_members):
    """The threshold t in 1..M with the highest mean F on (votes, Y); ties go to the smallest t.

    Returns
    -------
    (t, scores) : int and the (M,) array of :func:`threshold_scores`.
    """
    scores = threshold_scores(votes, Y, n_members)
    return int(np.argmax(scores)) + 1, scores


def _check_members(members):
    if not isinstance(members, (list, tuple)) or len(members) == 0:
        raise ValueError("members must be a non-empty list of (name, estimator, params) tuples")
    names = []
    for k, mem in enumerate(members):
        if not isinstance(mem, (list, tuple)) or len(mem) not in (2, 3) or not isinstance(mem[0], str):
            raise ValueError(f"members[{k}] must be a (name, estimator, params) tuple, got {mem!r}")
        if not hasattr(mem[1], "fit"):
            raise ValueError(f"members[{k}] ({mem[0]!r}): the estimator has no fit method")
        if len(mem) == 3 and mem[2] is not None and not isinstance(mem[2], dict):
            raise ValueError(f"members[{k}] ({mem[0]!r}): params must be a dict, got {mem[2]!r}")
        names.append(mem[0])
    if len(set(names)) != len(names):
        raise ValueError(f"members: names must be unique, got {names}")
    # group members by estimator identity, in order of first appearance
    groups, index = [], {}
    for k, mem in enumerate(members):
        key = id(mem[1])
        if key not in index:
            index[key] = len(groups)
            groups.append((mem[1], []))
        groups[index[key]][1].append(k)
    return names, groups


class VotingEnsemble(MultiLabelClassifier):
    """Vote over M members' 0/1 predictions; the threshold t in 1..M is tuned on a validation split.

    Parameters
    ----------
    members : list of (name, estimator, params)
        Unfitted learners and how each predicts (``params``, a dict, see :func:`member_predictions`).
        Members given the same estimator object share one fit (e.g. PCC with FM and GFM at several
        sample sizes and seeds: one chain fit, many samplings). Every member is fitted on the 0/1
        label matrix (a 1-d y as one column).
    validation_size : float or int, default 0.1
        Part of the training set held out to choose t (:func:`~fmeasure.learners.voting.validation_split`).
    refit : bool, default True
        Refit the members on the whole training set after t is chosen (the members then see all
        training data, as in the competition, where the validation set was not taken from the
        training data). False keeps the members fitted on the training part.
    random_state : int, RandomState instance or None, default 0
        Seeds the validation split.

    Attributes
    ----------
    threshold_ : int
        The chosen t: a label is predicted when at least t members predict it.
    validation_scores_ : ndarray (M,)
        Mean F on the validation split of the vote at t = 1..M.
    validation_predictions_ : ndarray int8 (M, n_val, m)
        The members' predictions on the validation split (members fitted on the training part).
    validation_index_ : ndarray
        Rows of the training set held out.
    estimators_ : list
        The fitted models, one per distinct estimator (refitted on all data if ``refit``).
    member_groups_ : list of list of int
        For each entry of ``estimators_``, the indices of the members it serves.
    member_params_ : list of dict
        How each member predicts from its fitted model.
    fit_times_ : ndarray
        Seconds of the final fit of each entry of ``estimators_``.
    member_names_ : list of str
    n_members_ : int
    n_features_in_, feature_names_in_, classes_, n_labels_, fit_time_, fit_cpu_time_
        As for every learner (:class:`~fmeasure.learners.base.MultiLabelClassifier`).

    Examples
    --------
    >>> from fmeasure.learners.parametric import BinaryRelevance, LFP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); Y = (X[:, :2] + rng.normal(size=(200, 2)) > 0).astype(int)
    >>> br = BinaryRelevance(Cs=[1.0], cv=3)
    >>> ens = VotingEnsemble([("BR", br, {"inference": "mm"}), ("LFP", br, {"inference": "fm"}),
    ...                       ("LFP 2", LFP(Cs=[0.1], cv=3), {})]).fit(X, Y)
    >>> ens.threshold_ in (1, 2, 3), ens.predict(X[:4]).shape, len(ens.estimators_)
    (True, (4, 2), 2)
    """

    _parameter_constraints = {
        "members": [list, tuple],
        "validation_size": [Interval(RealNotInt, 0, 1, closed="neither"), Interval(Integral, 1, None, closed="left")],
        "refit": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, members, validation_size=0.1, refit=True, random_state=0):
        self.members = members
        self.validation_size = validation_size
        self.refit = refit
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:  # sparse X when every member takes it
            tags.input_tags.sparse = all(get_tags(mem[1]).input_tags.sparse for mem in self.members)
        except (TypeError, IndexError, AttributeError, ValueError):
            tags.input_tags.sparse = False
        return tags

    def _fit_groups(self, groups, X, Y):
        fitted, times = [], []
        for est, _ in groups:
            t0 = time.perf_counter()
            model = clone(est).fit(X, Y)
            self._worker_cpu_time += float(getattr(model, "_worker_cpu_time", 0.0))
            fitted.append(model)
            times.append(time.perf_counter() - t0)
        return fitted, times

    def _predict_all(self, estimators, groups, X):
        preds = None
        for est, (_, ks) in zip(estimators, groups):
            P = member_predictions(est, X, [self.member_params_[k] for k in ks])
            if preds is None:
                preds = np.empty((len(self.member_params_),) + P.shape[1:], dtype=np.int8)
            preds[ks] = P
        return preds

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Choose the threshold on a validation split, then (``refit``) refit the members.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels), 0/1; or (n_samples,), one label with two classes

        Returns
        -------
        self
        """
        names, groups = _check_members(self.members)
        X, Y = self._validate_xy(X, y)
        self.member_params_ = [dict(mem[2]) if len(mem) == 3 and mem[2] else {} for mem in self.members]
        tr, va = validation_split(Y, self.validation_size, self.random_state)
        fitted, times = self._fit_groups(groups, X[tr], Y[tr])
        V = self._predict_all(fitted, groups, X[va])
        M = len(names)
        self.threshold_, self.validation_scores_ = choose_threshold(V.sum(axis=0, dtype=np.int64), Y[va], M)
        logger.info(
            "voting: %d members, %d fits, threshold %d of %d (validation F %.4f)",
            M,
            len(groups),
            self.threshold_,
            M,
            self.validation_scores_[self.threshold_ - 1],
        )
        if self.refit:
            fitted, times = self._fit_groups(groups, X, Y)
        self.estimators_ = fitted
        self.fit_times_ = np.array(times)
        self.member_groups_ = [ks for _, ks in groups]
        self.validation_predictions_ = V
        self.validation_index_ = va
        self.member_names_ = names
        self.n_members_ = M
        return self

    def member_predictions(self, X):
        """Every member's 0/1 predictions, int8 (M, n, m), in the order of ``members``."""
        X = self._validate_X(X)
        return self._predict_all(self.estimators_, [(None, ks) for ks in self.member_groups_], X)

    def predict_votes(self, X):
        """Number of members predicting each label, int (n, m)."""
        return self.member_predictions(X).sum(axis=0, dtype=np.int64)

    def predict(self, X):
        """1 for a label when at least ``threshold_`` members predict it, (n, m) in y's dtype
        ((n,) in ``classes_`` for a 1-d y)."""
        return self._decode((self.predict_votes(X) >= self.threshold_).astype(np.int8))

    def predict_marginals(self, X):
        """The fraction of the members that predict each label, (n, m) ((n,) for a 1-d y).

        The marginals of the members' predictions taken as an empirical distribution of the
        labels (M equally weighted label vectors per instance).
        """
        return self._decode_marginals(self.predict_votes(X) / self.n_members_)

    def predict_expected_f(self, X):
        """Expected F-measure of each prediction under the members' predictions, (n,).

        The members' M label vectors, equally weighted, as the distribution of the labels: the
        mean F-measure of the ensemble's prediction against each member's.
        """
        P = self.member_predictions(X)
        H = (P.sum(axis=0, dtype=np.int64) >= self.threshold_).astype(np.int8)
        return expected_f_of_samples(P.transpose(1, 0, 2), None, H)
