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
    if m > 1:
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


@pytest.mark.parametrize("pipeline", [False, True])
def test_foptimal_forest_route_weights_the_pooled_labels_by_sample_weight(pipeline):
    X, Y = toy(m=4, seed=3)
    Xtr, Ytr, Xq = X[:90], Y[:90], X[90:]
    sw = np.random.default_rng(0).integers(0, 4, size=90).astype(float)  # a quarter weigh nothing
    forest = RandomForestClassifier(n_estimators=7, min_samples_leaf=3, random_state=0)
    est, key = forest, "sample_weight"
    if pipeline:
        est, key = make_pipeline(StandardScaler(), forest), "randomforestclassifier__sample_weight"
    clf = FOptimalClassifier(est).fit(Xtr, Ytr, **{key: sw})
    fitted = clf.estimator_[-1] if pipeline else clf.estimator_
    Xt_tr, Xt_q = (clf.estimator_[0].transform(Xtr), clf.estimator_[0].transform(Xq)) if pipeline else (Xtr, Xq)
    # by hand: each tree adds the training vectors of the query's leaf, each with its sample weight
    L_tr, L_q = fitted.apply(Xt_tr), fitted.apply(Xt_q)
    W = np.zeros((len(Xq), len(Xtr)))
    for b in range(L_tr.shape[1]):
        W += (L_q[:, [b]] == L_tr[None, :, b]) * sw[None, :]
    D = W @ np.eye(16)[index_of(Ytr)]
    D /= D.sum(1, keepdims=True)
    assert_maximiser(clf.predict(Xq), clf.predict_expected_f(Xq), D)
    np.testing.assert_allclose(clf.predict_marginals(Xq), W @ Ytr / W.sum(1, keepdims=True))


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


@pytest.mark.parametrize(
    "make, distribution",
    [
        (lambda: MultiOutputClassifier(LogisticRegression()), "marginals"),
        (lambda: ClassifierChain(LogisticRegression(), random_state=0), "chain"),
        (lambda: ExtraTreesClassifier(5, random_state=0), "forest"),
        (lambda: KNeighborsClassifier(), "neighbors"),
    ],
)
def test_foptimal_auto_inference_is_the_one_named_for_its_distribution(make, distribution):
    from fmeasure.learners.foptimal import INFERENCE_BY_DISTRIBUTION

    X, Y = toy(m=3)
    clf = FOptimalClassifier(make(), n_samples=50).fit(X, Y)
    assert clf.distribution_ == distribution
    assert clf.inference_ == INFERENCE_BY_DISTRIBUTION[distribution] == ("fm" if distribution == "marginals" else "gfm")


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
        (np.zeros((120, 0)), r"^y has no labels \(m = 0\)$"),
        (
            np.full((120, 2), 2),
            r"^y must be a binary 0/1 matrix \(n_instances, n_labels\): label 0 has the value 2 in row 0$",
        ),
        (np.where(np.arange(240).reshape(120, 2) == 7, -1, 0), r"label 1 has the value -1 in row 3$"),
        (np.where(np.arange(240).reshape(120, 2) == 5, np.nan, 1.0), r"label 1 has the value nan in row 2$"),
        (
            np.array([0, 1, 2] * 40),
            r"^y: Only binary classification is supported\. The type of the target is multiclass",
        ),
        (np.array([0.5, 1] * 60), r"^y: Unknown label type: continuous"),
        (np.r_[np.zeros(119), -np.inf], r"^y must be a binary 0/1 matrix .*: label 0 has the value -inf in row 119$"),
        (
            np.zeros((120, 2, 1)),
            r"^y must be a 2-D binary 0/1 array \(n_instances, n_labels\), got shape \(120, 2, 1\)$",
        ),
        (np.zeros((100, 2)), r"^y has 100 rows but X has 120$"),
        (None, "requires y"),
    ],
)
def test_foptimal_rejects_bad_labels(y, match):
    X, _ = toy()
    for est in (KNeighborsClassifier(), MultiOutputClassifier(LogisticRegression())):
        with pytest.raises(ValueError, match=match):
            FOptimalClassifier(est).fit(X, y)


@pytest.mark.parametrize("params, name", [({"inference": "best"}, "inference"), ({"n_samples": 0}, "n_samples")])
def test_foptimal_bad_parameters_name_the_argument(params, name):
    X, Y = toy()
    with pytest.raises(ValueError, match=name):
        FOptimalClassifier(KNeighborsClassifier(), **params).fit(X, Y)


# ----------------------------------------------------------------------------- one label, constant labels, sparse y


def one_label_expected(p):
    """Brute force over {0,1}^1 with F(0, 0) = 1: E[F] of h = 0 is 1 - p, of h = 1 is p."""
    dist = np.column_stack([1 - p, p])  # rows in all_vectors(1) order: [0], [1]
    return dist, (p > 1 - p).astype(np.int8)


@pytest.mark.parametrize(
    "make",
    [
        lambda: LogisticRegression(),
        lambda: make_pipeline(StandardScaler(), LogisticRegression(C=0.1)),
        lambda: MLPClassifier(hidden_layer_sizes=(4,), max_iter=300, random_state=0),
    ],
    ids=["logistic", "pipeline", "mlp"],
)
def test_foptimal_one_label_column_with_a_binary_classifier(make):
    X, Y = toy(m=1, seed=12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=UserWarning)  # no column-vector warning either
        warnings.filterwarnings("ignore", message=".*Stochastic Optimizer")
        clf = FOptimalClassifier(make()).fit(X, Y)
        ref = make().fit(X, Y[:, 0])  # the same binary model, fitted by hand on a 1-D y
    p = ref.predict_proba(X)[:, list(ref.classes_).index(1)]
    dist, best = one_label_expected(p)
    H = clf.predict(X)
    assert H.shape == (len(X), 1) and H.dtype == np.int8 and clf.route_ == "marginals+fm"
    assert_maximiser(H, clf.predict_expected_f(X), dist)
    np.testing.assert_array_equal(H[:, 0], best)
    np.testing.assert_allclose(clf.predict_marginals(X), p[:, None])
    assert 0 < best.sum() < len(X)  # both answers occur, so the test can tell them apart


@pytest.mark.parametrize(
    "make",
    [
        lambda: LogisticRegression(),
        lambda: MultiOutputClassifier(LogisticRegression()),
        lambda: ClassifierChain(LogisticRegression()),
        lambda: RandomForestClassifier(5, random_state=0),
        lambda: KNeighborsClassifier(),
    ],
    ids=["logistic", "multioutput", "chain", "forest", "neighbors"],
)
def test_foptimal_1d_y_is_one_label_and_predicts_1d(make):
    X, Y = toy(m=1, seed=13)
    col = FOptimalClassifier(make(), n_samples=200, random_state=0).fit(X, Y)
    flat = FOptimalClassifier(make(), n_samples=200, random_state=0).fit(X, Y[:, 0])
    assert flat.n_labels_ == 1 and col.predict(X).shape == (len(X), 1)
    H = flat.predict(X)
    assert H.shape == (len(X),) and H.dtype == np.int8
    np.testing.assert_array_equal(H, col.predict(X)[:, 0])
    np.testing.assert_allclose(flat.predict_marginals(X), col.predict_marginals(X)[:, 0])
    np.testing.assert_allclose(flat.predict_expected_f(X), col.predict_expected_f(X))
    # score: mean F with F(0, 0) = 1 over one label, by hand
    y = Y[:, 0]
    assert flat.score(X, y) == pytest.approx(np.mean(np.where(H + y == 0, 1.0, 2.0 * H * y / np.maximum(H + y, 1))))


def constant_labels_toy():
    X, Y = toy(m=5, seed=14)
    Y[:, 1] = 0  # never occurs in training
    Y[:, 3] = 1  # always occurs
    return X, Y, np.array([0, 2, 4])


def test_foptimal_constant_labels_marginal_route():
    X, Y, keep = constant_labels_toy()
    clf = FOptimalClassifier(MultiOutputClassifier(LogisticRegression())).fit(X, Y)
    # by hand: one logistic regression per varying label, marginal exactly 0 and 1 for the others
    P = np.zeros((len(X), 5))
    P[:, 3] = 1.0
    for j in keep:
        P[:, j] = LogisticRegression().fit(X, Y[:, j]).predict_proba(X)[:, 1]
    np.testing.assert_allclose(clf.predict_marginals(X), P, atol=1e-12)
    V = all_vectors(5)
    dist = np.prod(np.where(V[None], P[:, None, :], 1 - P[:, None, :]), axis=2)
    H = clf.predict(X)
    assert_maximiser(H, clf.predict_expected_f(X), dist)
    assert H[:, 1].max() == 0 and H[:, 3].min() == 1
    np.testing.assert_array_equal(clf.constant_labels_, [1, 3])
    # the array form of predict_proba (a multi-label MLP) gets the same exact constants
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlp = FOptimalClassifier(MLPClassifier(hidden_layer_sizes=(4,), max_iter=50, random_state=0)).fit(X, Y)
    np.testing.assert_array_equal(mlp.predict_marginals(X)[:, [1, 3]], np.tile([0.0, 1.0], (len(X), 1)))


@pytest.mark.parametrize("order", [None, [4, 3, 1, 0, 2]])
def test_foptimal_constant_labels_chain_route(order):
    X, Y, keep = constant_labels_toy()
    clf = FOptimalClassifier(ClassifierChain(LogisticRegression(), order=order), n_samples=300, random_state=0)
    clf.fit(X, Y)
    Xq = X[:20]
    Ys, _ = clf.label_samples(Xq)
    assert Ys.shape == (20, 300, 5)
    assert Ys[:, :, 1].max() == 0 and Ys[:, :, 3].min() == 1
    assert_maximiser(clf.predict(Xq), clf.predict_expected_f(Xq), empirical(Ys))
    # the varying labels follow the chain over them, in the given order restricted to them
    sub = None if order is None else [0, 2, 1]  # [4, 0, 2] among the varying labels 0, 2, 4
    ref = ClassifierChain(LogisticRegression(), order=sub).fit(X, Y[:, keep])
    exact = chain_distribution(ref, Xq)
    big, _ = (
        FOptimalClassifier(ClassifierChain(LogisticRegression(), order=order), n_samples=20000, random_state=1)
        .fit(X, Y)
        .label_samples(Xq)
    )
    assert np.abs(empirical(big[:, :, keep]) - exact).max() < 0.02


@pytest.mark.parametrize(
    "make",
    [lambda: MultiOutputClassifier(LogisticRegression()), lambda: ClassifierChain(LogisticRegression())],
    ids=["multioutput", "chain"],
)
def test_foptimal_every_label_constant_is_refused_naming_them(make):
    X, _ = toy(m=2)
    Y = np.zeros((len(X), 2), dtype=np.int8)
    Y[:, 1] = 1
    with pytest.raises(ValueError, match=r"^y: every label has one class only in training \(labels 0, 1\)"):
        FOptimalClassifier(make()).fit(X, Y)


def test_foptimal_every_label_constant_forest_and_neighbours_predict_it():
    X, _ = toy(m=2)
    Y = np.zeros((len(X), 2), dtype=np.int8)
    Y[:, 1] = 1
    for est in (RandomForestClassifier(3, random_state=0), KNeighborsClassifier()):
        H = FOptimalClassifier(est).fit(X, Y).predict(X)
        np.testing.assert_array_equal(H, np.tile([0, 1], (len(X), 1)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: MultiOutputClassifier(LogisticRegression()),
        lambda: ClassifierChain(LogisticRegression()),
        lambda: RandomForestClassifier(5, random_state=0),
        lambda: KNeighborsClassifier(),
    ],
    ids=["multioutput", "chain", "forest", "neighbors"],
)
@pytest.mark.parametrize("sparse", [sp.csr_matrix, sp.csr_array, sp.csc_array])
def test_foptimal_sparse_y_predicts_as_dense_y(make, sparse):
    X, Y = toy(m=4, seed=15)
    dense = FOptimalClassifier(make(), n_samples=100, random_state=0).fit(X, Y)
    spy = FOptimalClassifier(make(), n_samples=100, random_state=0).fit(X, sparse(Y))
    np.testing.assert_array_equal(spy.predict(X), dense.predict(X))
    assert spy.score(X, sparse(Y)) == dense.score(X, Y)


def test_foptimal_frozen_multiclass_model_is_refused_naming_the_label():
    X, Y = toy(m=2, seed=16)
    Y3 = Y.astype(int).copy()
    Y3[:10, 1] = 2  # a model fitted elsewhere on a label with three classes
    model = MultiOutputClassifier(LogisticRegression()).fit(X, Y3)
    clf = FOptimalClassifier(FrozenEstimator(model)).fit(X, Y)
    with pytest.raises(ValueError, match=r"label 1 has classes \[0, 1, 2\], expected 0/1"):
        clf.predict(X)


@pytest.mark.parametrize(
    "make",
    [
        lambda: MultiOutputClassifier(LogisticRegression()),
        lambda: ClassifierChain(LogisticRegression()),
        lambda: RandomForestClassifier(3, random_state=0),
        lambda: KNeighborsClassifier(),
    ],
    ids=["multioutput", "chain", "forest", "neighbors"],
)
def test_foptimal_predict_with_other_features_names_them(make):
    X, Y = toy(m=3, d=5)
    clf = FOptimalClassifier(make(), n_samples=20).fit(X, Y)
    for method in (clf.predict, clf.predict_expected_f, clf.predict_marginals):
        with pytest.raises(ValueError, match=r"X has 4 features, but .* is expecting 5 features"):
            method(X[:, :4])


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


def test_foptimal_forest_stops_at_the_trees_that_fit_in_forest_mem_mb(caplog):
    """forest_mem_mb between k and k + 1 trees' leaf probabilities (two doubles per label and node,
    read off a single tree grown by scikit-learn itself): the forest is the first k trees of the
    configured forest, the rows say k, the log warns, and the table's caption names it."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fmeasure.datasets import Dataset
    from fmeasure.experiments.foptimal import capped_forests, run_model

    X, Y = toy(n=200, m=6, d=8, seed=8)
    ds = Dataset("toy", X[:150], Y[:150], X[150:], Y[150:])
    one = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=1, random_state=4))
    tree = one.fit(ds.X_train, ds.Y_train)[-1].estimators_[0].tree_
    per_tree_mb = tree.node_count * 6 * 2 * 8 / 2**20
    cfg = dict(C=1.0, max_iter=300, n_estimators=20, min_samples_leaf=1, n_neighbors=5, hidden_layer_sizes=[4])
    cfg.update(seed=4, n_samples=50, forest_mem_mb=7.5 * per_tree_mb)
    with caplog.at_level("INFO", logger="fmeasure.experiments.foptimal"):
        rows, inst = run_model(ds, "rf", cfg)
    assert rows.n_trees.tolist() == [7, 7]
    assert "growing 7, the most that fit in foptimal.forest_mem_mb" in caplog.text
    assert "toy RandomForestClassifier fit: 7 of 7 trees" in caplog.text
    ref = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=7, random_state=4))
    H = ref.fit(ds.X_train, ds.Y_train).predict(ds.X_test)
    ours = inst[inst.method == "predict"].f.to_numpy()
    np.testing.assert_allclose(ours, 100 * f_measure(ds.Y_test, H), rtol=0, atol=1e-4)
    assert "forest_mem_mb: toy (7 trees)." in capped_forests(rows, 20) and capped_forests(rows, 7) == ""
    # a budget for every tree: the configured forest, no warning
    caplog.clear()
    cfg.update(forest_mem_mb=25 * per_tree_mb)
    with caplog.at_level("INFO", logger="fmeasure.experiments.foptimal"):
        rows, _ = run_model(ds, "rf", cfg)
    assert rows.n_trees.tolist() == [20, 20] and "forest_mem_mb" not in caplog.text
    rows, _ = run_model(ds, "knn", cfg)
    assert rows.n_trees.isna().all()


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


@pytest.mark.parametrize("kind", ["forest", "neighbors"])
def test_foptimal_many_labels_gfm_from_training_rows_equals_the_dense_sample(kind):
    """With many rare labels, GFM reads each sample as rows of the training labels: the same
    predictions and expected F as GFM on the dense (n, K, m) sample of ``label_samples``."""
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.neighbors import KNeighborsClassifier

    from fmeasure.inference import expected_f, gfm_from_samples

    rng = np.random.default_rng(4)
    n, d, m = 300, 8, 400
    X = rng.standard_normal((n, d))
    freq = 0.6 / np.arange(1, m + 1) ** 0.8
    Y = (rng.random((n, m)) < freq).astype(np.int8)
    Y[:, 0] = X[:, 0] > 0
    if kind == "forest":
        est = ExtraTreesClassifier(n_estimators=5, min_samples_leaf=4, random_state=0)
    else:
        est = KNeighborsClassifier(n_neighbors=9, weights="distance")
    clf = FOptimalClassifier(est).fit(X[:200], Y[:200])
    H, V = clf.predict(X[200:]), clf.predict_expected_f(X[200:])
    Ys, w = clf.label_samples(X[200:])
    H2, V2 = gfm_from_samples(Ys, w)
    np.testing.assert_array_equal(H, H2)
    np.testing.assert_allclose(V, V2, atol=1e-12)
    wn = np.full(Ys.shape[:2], 1.0 / Ys.shape[1]) if w is None else w / w.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(V, expected_f(Ys, wn, H), atol=1e-12)
