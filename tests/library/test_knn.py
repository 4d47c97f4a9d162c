"""Tests of the kNN learner with MM / JM / FM / GFM inference."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from fmeasure.inference import from_samples
from fmeasure.learners import KNeighborsFMeasure
from fmeasure.learners.knn import minmax_scale_params
from fmeasure.metrics import f_measure_scorer

# A neighbourhood of five label vectors (m = 4) on which the four methods disagree.
# Marginals (2/5, 4/5, 4/5, 2/5); the joint mode (1,1,1,0) appears twice, the others once.
NEIGHBOURS = [[0, 1, 1, 0], [1, 1, 1, 0], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 0]]
EXPECTED = {
    "mm": [0, 1, 1, 0],  # p_i > 1/2
    "jm": [1, 1, 1, 0],  # most frequent vector (2 of 5)
    # Under independence with p = (.4, .8, .8, .4), predicting all four labels is best
    # (checked by brute force below); GFM on the empirical joint picks (0,1,1,1) with
    # E[F] = (3 * 4/5 + 2 * 2/3) / 5 = 56/75, against 54/75 for (1,1,1,0).
    "fm": [1, 1, 1, 1],
    "gfm": [0, 1, 1, 1],
}


def _f(y, h):
    d = sum(y) + sum(h)
    return Fraction(1) if d == 0 else Fraction(2 * sum(a * b for a, b in zip(y, h)), d)


def _toy_problem():
    """Query at 0; its five nearest training points (distances 1..5) carry NEIGHBOURS."""
    far = [[1, 0, 0, 0], [0, 0, 0, 1], [1, 0, 0, 1]]
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [50.0], [60.0], [70.0]])
    Y = np.array(NEIGHBOURS + far)
    # shuffle rows so that the order in the file is not the order in distance
    perm = np.array([5, 2, 0, 7, 4, 1, 6, 3])
    return X[perm], Y[perm]


def test_knn_hand_neighbourhood_brute_force_agrees():
    S = NEIGHBOURS
    hs = list(itertools.product([0, 1], repeat=4))
    ef = {h: sum(_f(y, h) for y in S) / len(S) for h in hs}
    assert max(ef, key=ef.get) == tuple(EXPECTED["gfm"]) and ef[(0, 1, 1, 1)] == Fraction(56, 75)
    p = [Fraction(sum(col), len(S)) for col in zip(*S)]
    ind = {}
    for h in hs:
        total = Fraction(0)
        for y in hs:
            pr = Fraction(1)
            for pi, yi in zip(p, y):
                pr *= pi if yi else 1 - pi
            total += pr * _f(y, h)
        ind[h] = total
    assert max(ind, key=ind.get) == tuple(EXPECTED["fm"])


@pytest.mark.parametrize("method", ["mm", "jm", "fm", "gfm"])
def test_knn_predicts_hand_computed_neighbourhood(method):
    X, Y = _toy_problem()
    est = KNeighborsFMeasure(n_neighbors=5, inference=method).fit(X, Y)
    H = est.predict([[0.0], [0.5]])
    assert H.dtype == np.asarray(Y).dtype  # predictions come in the dtype of y
    np.testing.assert_array_equal(H, [EXPECTED[method]] * 2)
    # the same from a raw batch of label samples
    np.testing.assert_array_equal(from_samples(np.array([NEIGHBOURS]), method, mm_half=1)[method][0], EXPECTED[method])


def test_knn_batch_equals_one_at_a_time():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    Y = (rng.random((120, 5)) < 0.35).astype(int)
    Xq = rng.normal(size=(12, 4))
    for method in ["mm", "jm", "fm", "gfm"]:
        est = KNeighborsFMeasure(n_neighbors=7, inference=method, chunk_size=4).fit(X, Y)
        batch = est.predict(Xq)
        single = np.vstack([est.predict(Xq[i : i + 1]) for i in range(len(Xq))])
        np.testing.assert_array_equal(batch, single)


def test_knn_tie_rule_lowest_training_index_wins():
    # four training points at distance 1 from the query (indices 1, 2, 4, 5), one at 0.5
    X = np.array([[9.0], [1.0], [-1.0], [0.5], [1.0], [-1.0], [9.0]])
    Y = np.eye(7, dtype=int)
    est = KNeighborsFMeasure(n_neighbors=3, inference="mm", scaling="none").fit(X, Y)
    dist, ind = est.kneighbors([[0.0]])
    np.testing.assert_array_equal(ind, [[3, 1, 2]])
    np.testing.assert_allclose(dist, [[0.5, 1.0, 1.0]])
    est.set_params(ties="all")
    dist, ind = est.kneighbors([[0.0]])
    np.testing.assert_array_equal(ind, [[3, 1, 2, 4, 5]])


@pytest.mark.parametrize("ties", ["index", "all"])
def test_knn_tie_rule_with_more_ties_than_candidates(ties):
    # 40 identical points (distance 1) beyond the 2l + 10 candidates asked from sklearn,
    # interleaved with far points; l = 5
    n = 80
    X = np.full((n, 2), 50.0)
    tied = np.arange(3, n, 2)  # 3, 5, ..., 79  (39 rows)
    X[tied] = [1.0, 0.0]
    X[0] = [0.0, 0.0]  # the query itself (distance 0)
    Y = (np.arange(n)[:, None] % np.array([2, 3])) == 0
    est = KNeighborsFMeasure(n_neighbors=5, scaling="none", ties=ties).fit(X, Y.astype(int))
    dist, ind = est.kneighbors(np.array([[0.0, 0.0], [50.0, 50.0]]))
    if ties == "index":
        np.testing.assert_array_equal(ind[0], [0, 3, 5, 7, 9])
        np.testing.assert_array_equal(ind[1], [1, 2, 4, 6, 8])
    else:
        np.testing.assert_array_equal(ind[0][: 1 + tied.size], np.r_[0, tied])
        far = np.setdiff1d(np.arange(n), np.r_[0, tied])
        np.testing.assert_array_equal(ind[1][: far.size], far)
        assert ind.shape[1] == far.size and (ind[0][1 + tied.size :] == -1).all()
        # predictions use every tied neighbour: label 0 (rows divisible by 2) is absent
        # from the 39 odd rows, so the marginal is 1/40 there
        H = est.set_params(inference="mm").predict([[0.0, 0.0]])
        np.testing.assert_array_equal(H, [[0, 0]])


def test_knn_minmax_scaling_like_weka():
    X = np.array([[0.0, 100.0, 7.0], [2.0, 300.0, 7.0], [1.0, 200.0, 7.0]])
    offset, scale = minmax_scale_params(X)
    np.testing.assert_allclose(offset, [0.0, 100.0, 7.0])
    np.testing.assert_allclose(scale, [0.5, 0.005, 0.0])  # constant column -> 0
    np.testing.assert_allclose(minmax_scale_params(sp.csr_matrix(X))[1], scale)
    # attribute 1 dominates raw distances; after rescaling attribute 0 counts as much.
    Xt = np.array([[0.0, 0.0], [1.0, 1000.0], [0.4, 1100.0]])
    Y = np.array([[1, 0], [0, 1], [1, 1]])
    raw = KNeighborsFMeasure(n_neighbors=1, scaling="none").fit(Xt, Y)
    mm = KNeighborsFMeasure(n_neighbors=1, scaling="minmax").fit(Xt, Y)
    q = np.array([[0.9, 80.0]])  # scaled: (0.9, 80/1100); nearest is row 1 (0.1, .84) vs row 0 (.9, .07)
    assert raw.kneighbors(q)[1][0, 0] == 0
    assert mm.kneighbors(q)[1][0, 0] == 1
    np.testing.assert_allclose(mm.kneighbors(q)[0][0, 0], np.hypot(0.1, (1000 - 80) / 1100))
    # a constant training attribute never affects distances, even far outside its range
    Xc = np.c_[Xt, np.full(3, 5.0)]
    est = KNeighborsFMeasure(n_neighbors=3).fit(Xc, Y)
    d1, i1 = est.kneighbors(np.c_[q, [[1e6]]])
    d0, i0 = mm.set_params(n_neighbors=3).kneighbors(q)
    np.testing.assert_array_equal(i1, i0)
    np.testing.assert_allclose(d1, d0)


def test_knn_sparse_equals_dense():
    rng = np.random.default_rng(3)
    X = (rng.random((60, 12)) < 0.2).astype(float) * rng.integers(1, 4, size=(60, 12))
    Y = (rng.random((60, 4)) < 0.4).astype(int)
    dense = KNeighborsFMeasure(n_neighbors=6).fit(X, Y)
    sparse = KNeighborsFMeasure(n_neighbors=6).fit(sp.csr_matrix(X), Y)
    np.testing.assert_array_equal(dense.kneighbors(X)[1], sparse.kneighbors(sp.csr_matrix(X))[1])
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))


def test_knn_params_clone_and_bad_input():
    est = KNeighborsFMeasure(n_neighbors=20, inference="fm")
    assert est.get_params()["n_neighbors"] == 20
    c = clone(est).set_params(inference="jm")
    assert c.inference == "jm" and est.inference == "fm"
    X, Y = _toy_problem()
    for bad, word in [
        (dict(inference="lewis"), "inference"),
        (dict(n_neighbors=0), "n_neighbors"),
        (dict(scaling="z"), "scaling"),
        (dict(ties="random"), "ties"),
    ]:
        with pytest.raises(ValueError, match=word):
            KNeighborsFMeasure(**bad).fit(X, Y)
    with pytest.raises(ValueError, match="binary"):
        KNeighborsFMeasure().fit(X, Y * 2)
    # l larger than the training set: every training instance is a neighbour
    H = KNeighborsFMeasure(n_neighbors=100, inference="mm").fit(X, Y).predict([[0.0]])
    np.testing.assert_array_equal(H, [(Y.mean(axis=0) >= 0.5).astype(int)])


def test_knn_grid_search_with_f_scorer():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(90, 3))
    Y = np.c_[X[:, 0] > 0, X[:, 1] > 0.5, X[:, 0] + X[:, 2] > 1].astype(int)
    grid = {"n_neighbors": [1, 9], "inference": ["mm", "gfm"]}
    cv = KFold(3)
    gs = GridSearchCV(KNeighborsFMeasure(), grid, scoring=f_measure_scorer, cv=cv).fit(X, Y)
    # the scores equal a hand-written cross-validation of the mean instance-wise F
    for params, score in zip(gs.cv_results_["params"], gs.cv_results_["mean_test_score"]):
        folds = []
        for tr, te in cv.split(X):
            H = KNeighborsFMeasure(**params).fit(X[tr], Y[tr]).predict(X[te])
            folds.append(np.mean([float(_f(y, h)) for y, h in zip(Y[te].tolist(), H.tolist())]))
        assert score == pytest.approx(np.mean(folds))
    assert gs.best_estimator_.predict(X).shape == Y.shape
    # the estimator's own score is the same F, so scoring=None agrees
    gs2 = GridSearchCV(KNeighborsFMeasure(), grid, cv=cv).fit(X, Y)
    np.testing.assert_allclose(gs2.cv_results_["mean_test_score"], gs.cv_results_["mean_test_score"])


@pytest.mark.parametrize(
    "y, match",
    [
        (np.array([0, 1, 2, 1]), r"^y: Only binary classification is supported\. The type of the target is multiclass"),
        (np.array([[0, 2], [1, 0], [0, 1], [1, 1]]), "0/1"),
    ],
)
def test_knn_rejects_non_binary_targets(y, match):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match=match):
        KNeighborsFMeasure(n_neighbors=2).fit(X, y)


def test_knn_1d_y_with_two_classes_predicts_them():
    X = np.arange(8.0).reshape(4, 2)
    knn = KNeighborsFMeasure(n_neighbors=1).fit(X, np.array([1, 2, 2, 1]))
    np.testing.assert_array_equal(knn.classes_, [1, 2])
    np.testing.assert_array_equal(knn.predict(X), [1, 2, 2, 1])
    np.testing.assert_array_equal(knn.predict_marginals(X), [0.0, 1.0, 1.0, 0.0])


def test_knn_mm_half_rule():
    # two neighbours: label 0 carried by one of them (p = 1/2), label 1 by both
    S = np.array([[[1, 1], [0, 1]]])
    np.testing.assert_array_equal(from_samples(S, "mm", mm_half=1)["mm"], [[1, 1]])
    np.testing.assert_array_equal(from_samples(S, "mm", mm_half=0)["mm"], [[0, 1]])
    X = np.array([[1.0], [2.0], [9.0]])
    Y = np.array([[1, 1], [0, 1], [0, 0]])
    est = KNeighborsFMeasure(n_neighbors=2, inference="mm").fit(X, Y)
    np.testing.assert_array_equal(est.predict([[0.0]]), [[1, 1]])
    np.testing.assert_array_equal(est.set_params(mm_half=0).predict([[0.0]]), [[0, 1]])


def test_knn_joint_mode_ties_go_to_nearest_neighbour():
    # three distinct label vectors, once each: the nearest neighbour's wins
    X = np.array([[3.0], [1.0], [2.0]])
    Y = np.array([[1, 1, 0], [0, 0, 1], [1, 0, 0]])
    est = KNeighborsFMeasure(n_neighbors=3, inference="jm").fit(X, Y)
    np.testing.assert_array_equal(est.predict([[0.0], [4.0]]), [[0, 0, 1], [1, 1, 0]])


def test_knn_bad_params_set_after_fit_are_caught():
    X, Y = _toy_problem()
    est = KNeighborsFMeasure(n_neighbors=3).fit(X, Y)
    with pytest.raises(ValueError, match="ties"):
        est.set_params(ties="weka").predict(X)
    with pytest.raises(ValueError, match="inference"):
        est.set_params(ties="index", inference="lfp").predict_from_neighbors(np.zeros((1, 3), int))


def test_from_samples_mm_fm_on_many_labels_equal_the_full_marginal_methods():
    """Few neighbours over many labels (most marginals zero, ties at 1/2 and between labels):
    MM and FM computed on the labels that occur equal marginal_modes and fm on all m labels."""
    from fmeasure import estimation
    from fmeasure.inference import fm, marginal_modes

    rng = np.random.default_rng(5)
    n, l, m = 40, 6, 120
    Ys = (rng.random((n, l, m)) < rng.uniform(0.0, 0.05, size=(n, 1, m))).astype(np.int8)
    Ys[:, :, 7] = Ys[:, :, 3]  # an equal pair of labels in every neighbourhood
    Ys[0] = 0  # no label at all
    Ys[1, :3, 10] = 1  # marginal exactly 1/2
    Ys[1, 3:, 10] = 0
    out = from_samples(Ys, ("mm", "fm"))
    p = estimation.marginals(Ys)
    np.testing.assert_array_equal(out["fm"], fm(p)[0])
    np.testing.assert_array_equal(out["mm"], marginal_modes(p)[0])
    half = from_samples(Ys, "mm", mm_half=1)["mm"]
    np.testing.assert_array_equal(half, (p >= 0.5).astype(np.int8))
    assert half[1, 10] == 1 and out["mm"][1, 10] == 0


def test_gfm_from_training_rows_equals_gfm_on_the_gathered_labels_with_many_labels():
    """GFM reads the neighbours' labels from the sparse training labels: same predictions as
    :func:`fmeasure.inference.gfm_from_samples` on the gathered (n, l, m) sample."""
    from fmeasure.inference import gfm_from_samples

    rng = np.random.default_rng(2)
    n, d, m = 260, 5, 1500
    X = rng.standard_normal((n, d))
    Y = (rng.random((n, m)) < 3.0 / np.arange(1, m + 1)).astype(np.int8)
    for ties in ("index", "all"):
        est = KNeighborsFMeasure(n_neighbors=12, ties=ties).fit(X[:200], Y[:200])
        _, ind = est.kneighbors(X[200:])
        H = est.predict(X[200:])
        for i in range(len(H)):
            row = ind[i][ind[i] >= 0]
            np.testing.assert_array_equal(H[i], gfm_from_samples(Y[:200][row])[0])
