"""FOptimalClassifier: each route against brute force over {0,1}^m, the scikit-learn API, bad input."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import estimator_checks_generator

import fmeasure
from fmeasure.learners import FOptimalClassifier
from fmeasure.learners.foptimal import chain_samples
from fmeasure.metrics import f_measure, f_measure_scorer

# ----------------------------------------------------------------------------- brute force by hand


def all_vectors(m):
    return np.array(list(itertools.product((0, 1), repeat=m)), dtype=np.int8)


def f_table(m):
    """F[h, y] for every pair of vectors of {0,1}^m, F(0, 0) = 1."""
    V = all_vectors(m).astype(float)
    tp = V @ V.T
    den = V.sum(1)[:, None] + V.sum(1)[None, :]
    return np.where(den == 0, 1.0, 2 * tp / np.where(den == 0, 1, den))


def index_of(vectors):
    m = vectors.shape[-1]
    return (vectors.astype(int) * (1 << np.arange(m - 1, -1, -1))).sum(-1)


def assert_maximiser(H, ef, dist):
    """H[i] maximises E[F] under the distribution dist[i] over {0,1}^m (rows in all_vectors order)."""
    m = H.shape[1]
    E = dist @ f_table(m).T  # E[i, h]
    best = E.max(axis=1)
    got = E[np.arange(len(H)), index_of(H)]
    np.testing.assert_allclose(got, best, atol=1e-9)
    np.testing.assert_allclose(ef, best, atol=1e-9)


def empirical(Ys, w=None):
    """Distribution over {0,1}^m of the (weighted) sample Ys (n, K, m)."""
    n, K, m = Ys.shape
    w = np.full((n, K), 1.0 / K) if w is None else w / w.sum(1, keepdims=True)
    D = np.zeros((n, 2**m))
    np.add.at(D, (np.repeat(np.arange(n), K), index_of(Ys).ravel()), w.ravel())
    return D


def toy(n=120, m=4, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Z = X[:, :m] + 0.8 * rng.normal(size=(n, m)) + 0.5 * X[:, [0]]
    Y = (Z > 0.3).astype(np.int8)
    Y[:, 0] = np.maximum(Y[:, 0], Y[:, 1] * (rng.random(n) < 0.7))  # some dependence between labels
    return X, Y


# ----------------------------------------------------------------------------- routes vs brute force


@pytest.mark.parametrize("m", [3, 5])
def test_foptimal_marginal_route_maximises_under_independence(m):
    X, Y = toy(m=m)
    clf = FOptimalClassifier(MultiOutputClassifier(LogisticRegression())).fit(X, Y)
    assert clf.route_ == "marginals+fm"
    P = np.column_stack([p[:, 1] for p in clf.estimator_.predict_proba(X[:30])])
    V = all_vectors(m)
    dist = np.prod(np.where(V[None], P[:, None, :], 1 - P[:, None, :]), axis=2)
    H = clf.predict(X[:30])
    assert H.dtype == np.int8 and H.shape == (30, m)
    assert_maximiser(H, clf.predict_expected_f(X[:30]), dist)


def test_foptimal_mlp_marginals_array_route():
    X, Y = toy(m=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = FOptimalClassifier(MLPClassifier(hidden_layer_sizes=(8,), max_iter=200, random_state=0)).fit(X, Y)
    P = clf.estimator_.predict_proba(X[:20])  # (n, m) array
    V = all_vectors(3)
    dist = np.prod(np.where(V[None], P[:, None, :], 1 - P[:, None, :]), axis=2)
    assert clf.route_ == "marginals+fm"
    assert_maximiser(clf.predict(X[:20]), clf.predict_expected_f(X[:20]), dist)


def chain_distribution(chain, X):
    """Exact P(y | x) of a fitted ClassifierChain by enumeration, (n, 2^m)."""
    m = len(chain.order_)
    V = all_vectors(m)
    D = np.ones((len(X), len(V)))
    for v, y in enumerate(V):
        yc = y[chain.order_]
        for k, est in enumerate(chain.estimators_):
            Xa = np.hstack([X, np.repeat(yc[None, :k], len(X), 0)])
            p1 = est.predict_proba(Xa)[:, list(est.classes_).index(1)]
            D[:, v] *= p1 if yc[k] else 1 - p1
    return D


@pytest.mark.parametrize("m, order", [(3, None), (4, [2, 0, 3, 1])])
def test_foptimal_chain_route_samples_the_chain_and_maximises(m, order):
    X, Y = toy(m=m, seed=1)
    clf = FOptimalClassifier(ClassifierChain(LogisticRegression(), order=order), n_samples=400, random_state=3)
    clf.fit(X, Y)
    assert clf.route_ == "chain+gfm"
    Xq = X[:25]
    Ys, w = clf.label_samples(Xq)
    assert w is None and Ys.shape == (25, 400, m)
    assert_maximiser(clf.predict(Xq), clf.predict_expected_f(Xq), empirical(Ys))
    # the draws follow the chain's own distribution (not its predict_proba)
    exact = chain_distribution(clf.estimator_, Xq)
    big = empirical(chain_samples(clf.estimator_, Xq, 20000, random_state=0))
    assert np.abs(big - exact).max() < 0.02
    # the generic path (base models without a linear fast path) draws the same distribution
    generic = ClassifierChain(make_pipeline(StandardScaler(), LogisticRegression()), order=order).fit(X, Y)
    big = empirical(chain_samples(generic, Xq, 20000, random_state=0))
    assert np.abs(big - chain_distribution(generic, Xq)).max() < 0.02


def test_foptimal_chain_draws_do_not_depend_on_the_batch():
    X, Y = toy(m=4, seed=2)
    clf = FOptimalClassifier(ClassifierChain(LogisticRegression()), n_samples=200, random_state=0).fit(X, Y)
    H = clf.predict(X[:40])
    np.testing.assert_array_equal(clf.predict(X[10:20]), H[10:20])
    np.testing.assert_array_equal(clf.predict(X[:40][::-1]), H[::-1])


@pytest.mark.parametrize("forest", [RandomForestClassifier, ExtraTreesClassifier])
def test_foptimal_forest_route_pools_leaf_labels(forest):
    X, Y = toy(m=4, seed=3)
    Xtr, Ytr, Xq = X[:90], Y[:90], X[90:]
    clf = FOptimalClassifier(forest(n_estimators=7, min_samples_leaf=3, random_state=0)).fit(Xtr, Ytr)
    assert clf.route_ == "forest+gfm"
    # the pooled sample by hand: each tree adds the training vectors of the query's leaf
    L_tr, L_q = clf.estimator_.apply(Xtr), clf.estimator_.apply(Xq)
    W = np.zeros((len(Xq), len(Xtr)))
    for b in range(L_tr.shape[1]):
        W += L_q[:, [b]] == L_tr[None, :, b]
    D = W @ np.eye(16)[index_of(Ytr)]
    D /= D.sum(1, keepdims=True)
    assert_maximiser(clf.predict(Xq), clf.predict_expected_f(Xq), D)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_foptimal_neighbour_route_uses_the_neighbours(weights):
    X, Y = toy(m=3, seed=4)
    Xtr, Ytr, Xq = X[:90], Y[:90], X[90:]
    clf = FOptimalClassifier(KNeighborsClassifier(n_neighbors=7, weights=weights)).fit(Xtr, Ytr)
    assert clf.route_ == "neighbors+gfm"
    dist = np.sqrt(((Xq[:, None, :] - Xtr[None]) ** 2).sum(-1))
    nb = np.argsort(dist, axis=1)[:, :7]
    w = np.ones(nb.shape) if weights == "uniform" else 1.0 / np.take_along_axis(dist, nb, 1)
    D = np.zeros((len(Xq), 8))
    np.add.at(D, (np.repeat(np.arange(len(Xq)), 7), index_of(Ytr[nb]).ravel()), w.ravel())
    D /= D.sum(1, keepdims=True)
    assert_maximiser(clf.predict(Xq), clf.predict_expected_f(Xq), D)


@pytest.mark.parametrize("inference", ["fm", "threshold"])
def test_foptimal_forced_inference_on_a_sample(inference):
    X, Y = toy(m=3, seed=5)
    clf = FOptimalClassifier(KNeighborsClassifier(n_neighbors=9), inference=inference).fit(X[:90], Y[:90])
    assert clf.route_ == f"neighbors+{inference}"
    Xq = X[90:]
    Ys, _ = clf.label_samples(Xq)
    p = Ys.mean(1)
    H = clf.predict(Xq)
    if inference == "threshold":
        np.testing.assert_array_equal(H, p > 0.5)
    else:  # FM: the best top-k set of the marginals (expected F under independence)
        V = all_vectors(3)
        ind = np.prod(np.where(V[None], p[:, None, :], 1 - p[:, None, :]), axis=2)
        assert_maximiser(H, (ind @ f_table(3).T)[np.arange(len(H)), index_of(H)], ind)
    # the value is the mean F of H over the neighbours' label vectors
    D = empirical(Ys)
    np.testing.assert_allclose(clf.predict_expected_f(Xq), (D @ f_table(3).T)[np.arange(len(H)), index_of(H)])


def test_foptimal_forced_gfm_on_marginals_is_near_fm():
    X, Y = toy(m=4, seed=6)
    est = MultiOutputClassifier(LogisticRegression())
    fm_ = FOptimalClassifier(est).fit(X, Y)
    gfm_ = FOptimalClassifier(est, inference="gfm", n_samples=5000, random_state=0).fit(X, Y)
    assert gfm_.route_ == "marginals+gfm"
    # the values are exact expectations under independence: GFM on draws cannot beat FM
    assert np.all(gfm_.predict_expected_f(X) <= fm_.predict_expected_f(X) + 1e-12)
    assert np.all(gfm_.predict_expected_f(X) >= fm_.predict_expected_f(X) - 0.01)


# ----------------------------------------------------------------------------- scikit-learn API


def test_foptimal_pipeline_routed_by_last_step_and_grid_search():
    X, Y = toy(m=3, seed=7)
    pipe = make_pipeline(StandardScaler(), KNeighborsClassifier())
    clf = FOptimalClassifier(pipe)
    gs = GridSearchCV(clf, {"estimator__kneighborsclassifier__n_neighbors": [3, 9]}, scoring=f_measure_scorer, cv=3)
    gs.fit(X, Y)
    assert gs.best_estimator_.route_ == "neighbors+gfm"
    scores = cross_val_score(clf, X, Y, cv=3, scoring=f_measure_scorer)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    c = clone(clf)
    assert c.get_params()["estimator__kneighborsclassifier__n_neighbors"] == 5 and not hasattr(c, "route_")
    # score is the mean instance-wise F with F(0, 0) = 1, computed here by hand
    fitted = clf.fit(X, Y)
    H = fitted.predict(X)
    tp, s, k = (H * Y).sum(1), Y.sum(1), H.sum(1)
    assert fitted.score(X, Y) == pytest.approx(np.mean(np.where(s + k == 0, 1, 2 * tp / np.maximum(s + k, 1))))


def test_foptimal_frozen_estimator_is_not_refitted():
    X, Y = toy(m=3, seed=8)
    model = MultiOutputClassifier(LogisticRegression()).fit(X[:60], Y[:60])
    coef = [e.coef_.copy() for e in model.estimators_]
    clf = FOptimalClassifier(FrozenEstimator(model)).fit(X[60:], Y[60:])
    for e, c in zip(model.estimators_, coef):
        np.testing.assert_array_equal(e.coef_, c)
    P = np.column_stack([p[:, 1] for p in model.predict_proba(X)])
    np.testing.assert_array_equal(clf.predict(X), fmeasure.inference.fm(P)[0])
    assert fmeasure.FOptimalClassifier is FOptimalClassifier


def test_foptimal_sparse_input_through_the_forest():
    X, Y = toy(m=3, seed=9)
    X[X < 0.5] = 0
    dense = FOptimalClassifier(RandomForestClassifier(5, random_state=0)).fit(X, Y)
    sparse = FOptimalClassifier(RandomForestClassifier(5, random_state=0)).fit(sp.csr_array(X), Y)
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_array(X)))


def test_foptimal_constant_label_of_a_forest_gets_probability_zero():
    X, Y = toy(m=3, seed=10)
    Y[:, 1] = 0
    clf = FOptimalClassifier(RandomForestClassifier(5, random_state=0), inference="fm").fit(X, Y)
    assert clf.predict(X)[:, 1].max() == 0
    clf = FOptimalClassifier(KNeighborsClassifier()).fit(X, Y)
    assert clf.predict(X)[:, 1].max() == 0


# ----------------------------------------------------------------------------- bad input


class _BadProba(ClassifierMixin, BaseEstimator):
    def __init__(self, value=1.5):
        self.value = value

    def fit(self, X, y):
        self.m_ = np.asarray(y).shape[1]
        return self

    def predict_proba(self, X):
        return np.full((len(X), self.m_), self.value)


@pytest.mark.parametrize("value", [1.5, -0.1, np.nan])
def test_foptimal_rejects_bad_probabilities(value):
    X, Y = toy(m=3)
    clf = FOptimalClassifier(_BadProba(value)).fit(X, Y)
    with pytest.raises(ValueError, match=r"outside \[0, 1\] or NaN"):
        clf.predict(X)
    with pytest.raises(ValueError, match=r"outside \[0, 1\] or NaN"):
        clf.predict_expected_f(X)


def test_foptimal_rejects_estimator_without_probabilities():
    X, Y = toy(m=3)
    with pytest.raises(ValueError, match="predict_proba"):
        FOptimalClassifier(MultiOutputClassifier(LinearSVC())).fit(X, Y)
    with pytest.raises(ValueError, match="predict_proba"):
        FOptimalClassifier(ClassifierChain(LinearSVC())).fit(X, Y)


@pytest.mark.parametrize(
    "y, match",
    [
        (np.array([0, 1] * 60), "single-label"),
        (np.zeros((120, 0)), r"m = 0"),
        (np.full((120, 2), 2), "0/1"),
        (None, "requires y"),
    ],
)
def test_foptimal_rejects_bad_labels(y, match):
    X, _ = toy()
    with pytest.raises(ValueError, match=match):
        FOptimalClassifier(KNeighborsClassifier()).fit(X, y)


@pytest.mark.parametrize("params, name", [({"inference": "best"}, "inference"), ({"n_samples": 0}, "n_samples")])
def test_foptimal_bad_parameters_name_the_argument(params, name):
    X, Y = toy()
    with pytest.raises(ValueError, match=name):
        FOptimalClassifier(KNeighborsClassifier(), **params).fit(X, Y)


# ----------------------------------------------------------------------------- check_estimator

#: Checks that do not apply to a multi-label (0/1 indicator matrix) meta-estimator, with why.
_ONE_D_Y = "feeds a 1-D y, which FOptimalClassifier rejects as single-label (test_foptimal_rejects_bad_labels)"
NOT_APPLICABLE = {
    "check_classifiers_train": _ONE_D_Y + " and expects 1-D predictions",
    "check_classifiers_classes": _ONE_D_Y,
    "check_classifiers_one_label": _ONE_D_Y,
    "check_classifiers_one_label_sample_weights": _ONE_D_Y,
    "check_classifier_not_supporting_multiclass": _ONE_D_Y + " (expects the binary-only message)",
    "check_fit2d_1feature": _ONE_D_Y,
    "check_estimators_dtypes": "feeds labels coded other than 0/1, rejected (test_foptimal_rejects_bad_labels)",
    "check_classifier_data_not_an_array": "feeds labels coded other than 0/1, rejected",
    "check_array_api_input": "no array-API support is claimed",
}


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


def _applicable_checks():
    """scikit-learn's API checks of each route, less the ones that do not apply (NOT_APPLICABLE)."""
    estimators = [
        FOptimalClassifier(MultiOutputClassifier(LogisticRegression())),
        FOptimalClassifier(ClassifierChain(LogisticRegression()), n_samples=50, random_state=0),
        FOptimalClassifier(RandomForestClassifier(n_estimators=5, random_state=0)),
        FOptimalClassifier(KNeighborsClassifier(n_neighbors=3)),
    ]
    for est in estimators:
        for e, check in estimator_checks_generator(est, legacy=True, mark=None):
            if _check_name(check) not in NOT_APPLICABLE:
                yield pytest.param(e, check, id=f"{type(e.estimator).__name__}-{_check_name(check)}")


def test_not_applicable_checks_are_real_check_names():
    names = {_check_name(c) for _, c in estimator_checks_generator(FOptimalClassifier(KNeighborsClassifier()))}
    assert set(NOT_APPLICABLE) - {"check_array_api_input"} <= names


@pytest.mark.parametrize("estimator, check", list(_applicable_checks()))
def test_foptimal_sklearn_api(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        check(estimator)


# ----------------------------------------------------------------------------- the stage


def test_foptimal_stage_handles_constant_labels_and_scores_both_methods():
    from fmeasure.datasets import Dataset
    from fmeasure.experiments.foptimal import run_model

    X, Y = toy(n=120, m=4, seed=11)
    Y[:80, 1] = 0  # constant 0 in training
    Y[:80, 2] = 1  # constant 1 in training
    ds = Dataset("toy", X[:80], Y[:80], X[80:], Y[80:])
    cfg = dict(C=1.0, max_iter=300, n_estimators=5, min_samples_leaf=1, n_neighbors=5, hidden_layer_sizes=[4])
    cfg.update(seed=0, n_samples=50)
    for key in ("br", "cc"):
        rows, inst = run_model(ds, key, cfg)
        assert rows.method.tolist() == ["predict", "FOptimal"] and len(inst) == 2 * 40
        # F of each method recomputed by hand from its per-instance scores
        assert np.allclose(rows.f.to_numpy(), inst.groupby("method", sort=False).f.mean().to_numpy())


def test_foptimal_forest_grown_in_tenths_is_the_forest_of_one_fit(caplog):
    """The stage grows the forest in tenths (a progress line each) on two threads; scikit-learn's
    own single fit on one thread must give the same trees, so the same probabilities."""
    from fmeasure.datasets import Dataset
    from fmeasure.experiments.foptimal import make_model, run_model

    X, Y = toy(n=160, m=3, seed=5)
    ds = Dataset("toy", X[:120], Y[:120], X[120:], Y[120:])
    cfg = dict(C=1.0, max_iter=300, n_estimators=23, min_samples_leaf=1, n_neighbors=5, hidden_layer_sizes=[4])
    cfg.update(seed=3, n_samples=50)
    with caplog.at_level("INFO", logger="fmeasure.experiments.foptimal"):
        _, inst = run_model(ds, "rf", cfg, n_jobs=2)
    assert "toy RandomForestClassifier fit: 23 of 23 trees" in caplog.text
    ref = RandomForestClassifier(n_estimators=23, min_samples_leaf=1, random_state=3)
    model = make_model("rf", cfg)
    model.steps[-1] = ("ref", ref)
    H = model.fit(ds.X_train, ds.Y_train).predict(ds.X_test)
    ours = inst[inst.method == "predict"].f.to_numpy()
    np.testing.assert_allclose(ours, 100 * f_measure(ds.Y_test, H), rtol=0, atol=1e-4)
    assert len(set(np.round(ours, 6))) > 2  # the per-instance F values differ, so this can fail


def test_foptimal_findings_follow_the_gain():
    from fmeasure.experiments.foptimal import MODELS, run_findings

    def table(gain):
        return pd.DataFrame(
            [
                {"dataset": d, "model": mo, "route": "r", "gain": gain, "se": 0.5}
                for d in ("a", "b")
                for mo in MODELS.values()
            ]
        )

    assert {r["verdict"] for r in run_findings(table(3.0))} == {"confirmed"}
    assert {r["verdict"] for r in run_findings(table(-3.0))} == {"contradicted"}
    assert {r["verdict"] for r in run_findings(table(0.5))} == {"not confirmed"}
