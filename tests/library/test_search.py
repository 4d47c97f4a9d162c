"""FOptimalSearchCV against a brute-force loop over the same candidates and folds; its size rules,
its results table, reproducibility, bad arguments and the scikit-learn API. FOptimalMixture against
brute force over {0,1}^m."""

import itertools
import logging
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, ParameterGrid
from sklearn.neighbors import KNeighborsClassifier

import fmeasure
from fmeasure.learners import (
    FMeasureSSVM,
    FOptimalClassifier,
    FOptimalMixture,
    FOptimalSearchCV,
    KNeighborsFMeasure,
    LabelPowerset,
)
from fmeasure.learners import search as S
from fmeasure.metrics import mean_f_measure


def toy(n=90, m=3, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :m] + 0.8 * rng.normal(size=(n, m)) > 0.3).astype(np.int8)
    Y[:, 0] |= Y[:, 1] & (rng.random(n) < 0.6)
    return X, Y


def brute_force(candidates, X, Y, splits):
    """Every (name, params) with its fold scores, computed by hand: clone, fit, mean F."""
    rows = []
    for name, (est, grid) in candidates.items():
        for params in ParameterGrid(grid):
            scores = []
            for tr, te in splits:
                model = clone(est).set_params(**params).fit(X[tr], Y[tr])
                scores.append(mean_f_measure(Y[te], model.predict(X[te])))
            rows.append((name, params, np.array(scores)))
    return rows


USER_CANDIDATES = {
    "knn": (KNeighborsFMeasure(), {"n_neighbors": [3, 9]}),
    "trees": (
        FOptimalClassifier(ExtraTreesClassifier(n_estimators=15, random_state=0)),
        {"estimator__min_samples_leaf": [1, 5]},
    ),
    "powerset": FOptimalClassifier(LabelPowerset(LogisticRegression(C=3.0))),
}


def test_search_choice_equals_a_brute_force_loop():
    X, Y = toy()
    cv = KFold(4, shuffle=True, random_state=7)
    search = FOptimalSearchCV(USER_CANDIDATES, cv=cv).fit(X, Y)
    splits = list(cv.split(X))
    cands = {k: v if isinstance(v, tuple) else (v, {}) for k, v in USER_CANDIDATES.items()}
    rows = brute_force(cands, X, Y, splits)
    res = search.cv_results_
    assert list(res["candidate"]) == [name for name, _, _ in rows]
    assert res["params"] == [params for _, params, _ in rows]
    for i, (_, _, scores) in enumerate(rows):
        got = [res[f"split{j}_test_score"][i] for j in range(len(splits))]
        np.testing.assert_allclose(got, scores, atol=1e-12)
    means = np.array([s.mean() for _, _, s in rows])
    best = int(np.argmax(means))  # the first of equal means
    assert search.best_index_ == best
    assert search.best_candidate_ == rows[best][0] and search.best_params_ == rows[best][1]
    assert search.best_score_ == pytest.approx(means[best])
    # refit on all the data: the winner's setting, fitted by hand, predicts the same
    est, _ = cands[rows[best][0]]
    by_hand = clone(est).set_params(**rows[best][1]).fit(X, Y)
    np.testing.assert_array_equal(search.predict(X), by_hand.predict(X))
    assert search.score(X, Y) == pytest.approx(mean_f_measure(Y, by_hand.predict(X)))


def test_search_built_in_routes_equal_a_brute_force_loop():
    X, Y = toy(n=80, seed=1)
    search = FOptimalSearchCV(["efp", "lfp", "knn", "powerset"], cv=3, random_state=5).fit(X, Y)
    # the folds: shuffled KFold seeded from random_state, the same for every candidate
    seed = int(np.random.RandomState(5).randint(np.iinfo(np.int32).max))
    splits = list(KFold(3, shuffle=True, random_state=seed).split(X))
    min_train = min(len(tr) for tr, _ in splits)
    cands, dropped = S.route_candidates(X, Y, ["efp", "lfp", "knn", "powerset"], random_state=seed, min_train=min_train)
    assert dropped == {} and list(search.candidates_) == ["efp", "lfp", "knn", "powerset"]
    assert len(search.cv_results_["candidate"]) == 3 + 1 + 3 + 2  # efp: three settings
    rows = brute_force(cands, X, Y, splits)
    means = [s.mean() for _, _, s in rows]
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], means, atol=1e-12)
    best = int(np.argmax(means))
    assert (search.best_candidate_, search.best_params_) == rows[best][:2]


def test_search_cv_results_table():
    X, Y = toy()
    search = FOptimalSearchCV(USER_CANDIDATES, cv=3, random_state=0).fit(X, Y)
    res = search.cv_results_
    n = 2 + 2 + 1
    for key in ("mean_test_score", "std_test_score", "se_test_score", "rank_test_score", "mean_fit_time"):
        assert len(res[key]) == n, key
    assert [k for k in res if k.startswith("split")] == [f"split{j}_test_score" for j in range(3)]
    splits = np.column_stack([res[f"split{j}_test_score"] for j in range(3)])
    np.testing.assert_allclose(res["mean_test_score"], splits.mean(1))
    np.testing.assert_allclose(res["se_test_score"], splits.std(1) / math.sqrt(2))
    assert res["rank_test_score"][search.best_index_] == 1
    assert list(res["param_n_neighbors"][:2]) == [3, 9] and res["param_n_neighbors"].mask[2:].all()
    assert search.n_splits_ == 3 and search.best_estimator_.n_labels_ == Y.shape[1]
    assert set(search.candidates_) == set(USER_CANDIDATES) and search.dropped_ == {}


def test_search_is_reproducible_with_random_state():
    X, Y = toy(seed=2)
    runs = [FOptimalSearchCV(["extra_trees", "knn"], cv=3, random_state=3).fit(X, Y) for _ in range(2)]
    for key in ("split0_test_score", "split1_test_score", "split2_test_score"):
        np.testing.assert_array_equal(runs[0].cv_results_[key], runs[1].cv_results_[key])
    np.testing.assert_array_equal(runs[0].predict(X), runs[1].predict(X))
    other = FOptimalSearchCV(["extra_trees", "knn"], cv=3, random_state=4).fit(X, Y)
    assert not np.array_equal(other.cv_results_["split0_test_score"], runs[0].cv_results_["split0_test_score"])


def test_search_logs_one_line_per_candidate(caplog):
    X, Y = toy()
    with caplog.at_level(logging.INFO, logger="fmeasure.learners.search"):
        search = FOptimalSearchCV(USER_CANDIDATES, cv=3, random_state=0).fit(X, Y)
    lines = [r.getMessage() for r in caplog.records if " +- " in r.getMessage()]
    assert len(lines) == 5
    mean, se = search.cv_results_["mean_test_score"][0], search.cv_results_["se_test_score"][0]
    assert lines[0].startswith("FOptimalSearchCV: knn {'n_neighbors': 3}: F = ")
    assert f"F = {mean:.4f} +- {se:.4f} over 3 folds" in lines[0]


def test_search_predict_expected_f_follows_the_winner():
    X, Y = toy()
    trees = FOptimalSearchCV({"trees": USER_CANDIDATES["trees"]}, cv=2, random_state=0).fit(X, Y)
    np.testing.assert_allclose(trees.predict_expected_f(X[:5]), trees.best_estimator_.predict_expected_f(X[:5]))
    knn = FOptimalSearchCV({"knn": USER_CANDIDATES["knn"]}, cv=2).fit(X, Y)
    np.testing.assert_allclose(knn.predict_expected_f(X[:5]), knn.best_estimator_.predict_expected_f(X[:5]))
    np.testing.assert_allclose(knn.predict_marginals(X[:5]), knn.best_estimator_.predict_marginals(X[:5]))
    own = FOptimalSearchCV({"ssvm": FMeasureSSVM(Cs=(1.0,), max_iter=5)}, cv=2).fit(X, Y)
    assert not hasattr(own, "predict_expected_f")  # a candidate of your own without it
    no_refit = FOptimalSearchCV({"knn": USER_CANDIDATES["knn"]}, cv=2, refit=False).fit(X, Y)
    assert no_refit.best_candidate_ == "knn" and not hasattr(no_refit, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=False"):
        no_refit.predict(X)


def test_search_refuses_a_dataframe_with_its_columns_reordered():
    """Fitted on a DataFrame, the search predicts from the columns by name: the same frame gives the
    predictions of its array, the frame with its columns reversed is refused (not answered)."""
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=400, n_features=8, n_classes=4, random_state=0)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(8)])
    search = FOptimalSearchCV("fast", cv=3, random_state=0).fit(df, Y)
    on_array = FOptimalSearchCV("fast", cv=3, random_state=0).fit(X, Y)
    assert list(search.feature_names_in_) == list(df.columns)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "fitted without feature names" from a candidate
        H = search.predict(df)
    np.testing.assert_array_equal(H, on_array.predict(X))  # names change nothing but the check
    reversed_df = df[df.columns[::-1]]
    assert (on_array.predict(reversed_df.to_numpy()) != H).any()  # a wrong answer were it accepted
    with pytest.raises(ValueError, match="feature names"):
        search.predict(reversed_df)
    with pytest.raises(ValueError, match="feature names"):
        search.predict_expected_f(reversed_df)
    with pytest.raises(ValueError, match="feature names"):
        search.predict(df.iloc[:, :7])
    with pytest.raises(ValueError, match="7 features, but FOptimalSearchCV is expecting 8"):
        search.predict(X[:, :7])


def test_search_gives_a_dataframe_to_your_own_candidates():
    """A dict of your own candidates sees X as given: a ColumnTransformer selects columns by name."""
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    X, Y = toy()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    pick = ColumnTransformer([("keep", "passthrough", ["c", "a"])])
    model = make_pipeline(pick, KNeighborsFMeasure(n_neighbors=5))
    search = FOptimalSearchCV({"knn_ca": model}, cv=2).fit(df, Y)
    by_hand = clone(model).fit(df, Y)
    np.testing.assert_array_equal(search.predict(df), by_hand.predict(df))
    np.testing.assert_array_equal(
        search.predict(df), KNeighborsFMeasure(n_neighbors=5).fit(X[:, [2, 0]], Y).predict(X[:, [2, 0]])
    )
    with pytest.raises(ValueError, match="feature names"):
        search.predict(df[["d", "c", "b", "a"]])


def test_search_takes_sparse_features():
    X, Y = toy()
    Xs = sp.csr_matrix(np.where(X > 0.5, X, 0.0))
    search = FOptimalSearchCV(["knn", "extra_trees", "powerset"], cv=3, random_state=0).fit(Xs, Y)
    assert search.predict(Xs[:4]).shape == (4, Y.shape[1])
    # sparse features: the powerset route is linear on max-abs scaled X
    assert "nystroem" not in search.candidates_["powerset"][0].estimator.estimator.named_steps


def test_search_is_exported_lazily():
    assert fmeasure.FOptimalSearchCV is FOptimalSearchCV


# ----------------------------------------------------------------------------- size rules


def test_route_rules_drop_and_cheapen_by_size():
    X, Y = toy(n=60, m=3)
    cands, dropped = S.route_candidates(X, Y, "default", min_train=40)
    assert set(cands) == set(S.ROUTES) and dropped == {}
    assert cands["knn"][1] == {"n_neighbors": [10, 20]}  # 40 neighbours: not below the fold size
    assert cands["extra_trees"][1] == {"estimator__min_samples_leaf": [1, 3]}
    # EFP: C tuned per model by log loss, or one C for all its models (10 or 100)
    assert cands["efp"][1] == {"Cs": [(0.01, 0.1, 1.0, 10.0), (10.0,), (100.0,)]}
    # dense continuous X: RBF (Nystroem) features for the powerset; 0/1 X: linear
    assert "nystroem" in cands["powerset"][0].estimator.estimator.named_steps
    binary, _ = S.route_candidates((X > 0).astype(float), Y, ["powerset"])
    assert list(binary["powerset"][0].estimator.estimator.named_steps) == ["maxabsscaler", "logisticregression"]
    # "fast": four routes, one setting each
    fast, _ = S.route_candidates(X, Y, "fast")
    assert list(fast) == list(S.CANDIDATE_SETS["fast"])
    assert all(len(ParameterGrid(g)) == 1 for _, g in fast.values())


def test_route_rules_powerset_and_chain_limits(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    Y = rng.integers(0, 2, size=(300, 9))  # up to 2^9 = 512 distinct label sets, here more than 200
    assert len(np.unique(Y, axis=0)) > S.POWERSET_MAX_SETS
    _, dropped = S.route_candidates(X, Y, ["powerset", "mixture", "chain"])
    assert set(dropped) == {"powerset", "mixture"} and "distinct label sets" in dropped["powerset"]
    monkeypatch.setattr(S, "CHAIN_MAX_LABELS", 8)
    _, dropped = S.route_candidates(X, Y, ["chain"])
    assert dropped == {"chain": "9 labels > 8"}
    monkeypatch.setattr(S, "LOGISTIC_MAX_CELLS", 300 * 9 - 1)
    _, dropped = S.route_candidates(X, Y, ["efp", "lfp", "knn"])
    assert set(dropped) == {"efp", "lfp"}


def test_route_rules_forest_memory(monkeypatch):
    X, Y = toy(n=100, m=4)
    size = 32 * 100 * 4 * S.FOREST_TREES  # bytes of a forest at min_samples_leaf = 1
    monkeypatch.setattr(S, "FOREST_MAX_BYTES", size // 3)  # needs a factor of 4 (3 leaves it over)
    cands, _ = S.route_candidates(X, Y, ["extra_trees", "random_forest"])
    assert cands["extra_trees"][1] == {"estimator__min_samples_leaf": [4, 12]}
    assert cands["random_forest"][1] == {"estimator__min_samples_leaf": [4, 12]}
    monkeypatch.setattr(S, "LARGE_CELLS", 399)  # n * m = 400: one setting, no random forest
    cands, dropped = S.route_candidates(X, Y, ["extra_trees", "random_forest"])
    assert cands["extra_trees"][1] == {"estimator__min_samples_leaf": [4]} and list(dropped) == ["random_forest"]
    efp, _ = S.route_candidates(X, Y, ["efp"])  # and EFP its per-model tuning alone
    assert efp["efp"][1] == {"Cs": [S.LOGISTIC_CS]}
    monkeypatch.setattr(S, "FOREST_MAX_FACTOR", 3)
    _, dropped = S.route_candidates(X, Y, ["extra_trees", "random_forest", "mixture"])
    assert set(dropped) == {"extra_trees", "random_forest", "mixture"}


def test_search_seeds_every_built_in_route():
    X, Y = toy()
    cands, _ = S.route_candidates(X, Y, "default", random_state=11)
    for name, (est, _) in cands.items():
        seeds = {v for k, v in est.get_params().items() if k.endswith("random_state")}
        assert seeds <= {11}, name
    mixture = cands["mixture"][0]
    for _, member in mixture.estimators:
        assert {v for k, v in member.get_params().items() if k.endswith("random_state")} == {11}


# ----------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    "params, name",
    [
        ({"candidates": "best"}, "candidates"),
        ({"candidates": ["efp", "nope"]}, "candidates"),
        ({"candidates": [KNeighborsFMeasure()]}, "candidates"),
        ({"candidates": {"a": "not an estimator"}}, "candidates"),
        ({"candidates": {"a": (KNeighborsFMeasure(), {"k": [1]})}}, "candidates"),
        ({"candidates": {"a": (KNeighborsFMeasure(), {"n_neighbors": []})}}, "candidates"),
        ({"candidates": {}}, "candidates"),
        ({"cv": 1}, "cv"),
        ({"cv": 500}, "cv"),
        ({"cv": "five"}, "cv"),
        ({"n_jobs": "all"}, "n_jobs"),
        ({"refit": "yes"}, "refit"),
        ({"random_state": "x"}, "random_state"),
    ],
)
def test_search_bad_arguments_name_the_argument(params, name):
    X, Y = toy()
    kwargs = {"candidates": ["knn"], "cv": 2, **params}
    with pytest.raises(ValueError, match=name):
        FOptimalSearchCV(**kwargs).fit(X, Y)


@pytest.mark.parametrize(
    "y, match",
    [
        (np.arange(90) % 3, r"^y: Only binary classification is supported\. The type of the target is multiclass"),
        (np.full((90, 2), 2), "0/1"),
        (np.zeros((80, 2)), "rows"),
        (None, "y"),
    ],
)
def test_search_bad_labels_name_y(y, match):
    X, _ = toy()
    with pytest.raises(ValueError, match=match):
        FOptimalSearchCV(["knn"], cv=2).fit(X, y)


def test_search_rules_that_leave_nothing_say_so(monkeypatch):
    X, Y = toy()
    monkeypatch.setattr(S, "POWERSET_MAX_SETS", 1)
    with pytest.raises(ValueError, match="candidates: the size rules left no route"):
        FOptimalSearchCV(["powerset"], cv=2).fit(X, Y)


# ----------------------------------------------------------------------------- failing candidates, progress, 1-D y


class _FailsOnFewRows(KNeighborsFMeasure):
    """A kNN whose fit fails on training sets smaller than ``min_rows``."""

    def __init__(self, n_neighbors=3, min_rows=70):
        super().__init__(n_neighbors=n_neighbors)
        self.min_rows = min_rows

    _parameter_constraints = {**KNeighborsFMeasure._parameter_constraints, "min_rows": [int]}

    def fit(self, X, y):
        if len(X) < self.min_rows:
            raise RuntimeError("too few rows")
        return super().fit(X, y)


def test_search_error_score_follows_grid_search():
    X, Y = toy()
    cands = {"fails": _FailsOnFewRows(), "knn": KNeighborsFMeasure(n_neighbors=5)}
    # the default: a failing candidate scores NaN, a warning says so, and the other one is chosen
    with pytest.warns(FitFailedWarning, match="3 fits failed out of a total of 6"):
        search = FOptimalSearchCV(cands, cv=3, random_state=0).fit(X, Y)
    assert np.isnan(search.cv_results_["mean_test_score"][0]) and search.best_candidate_ == "knn"
    with pytest.warns(FitFailedWarning, match="will be set to 0.0"):
        zero = FOptimalSearchCV(cands, cv=3, random_state=0, error_score=0.0).fit(X, Y)
    assert zero.cv_results_["split0_test_score"][0] == 0.0
    with pytest.raises(RuntimeError, match="too few rows"):
        FOptimalSearchCV(cands, cv=3, random_state=0, error_score="raise").fit(X, Y)
    with pytest.raises(ValueError, match="error_score"):
        FOptimalSearchCV(cands, cv=3, error_score="ignore").fit(X, Y)
    # a route whose every fit fails does not stop the search (GridSearchCV's handling, in one batch)
    with pytest.warns(FitFailedWarning, match="3 fits failed out of a total of 6"):
        alone = FOptimalSearchCV(cands, cv=3, random_state=0).fit(X, Y)
    assert alone.best_candidate_ == "knn" and alone.cv_results_["candidate"].tolist() == ["fails", "knn"]
    with pytest.raises(ValueError, match="All the 3 fits failed"):
        FOptimalSearchCV({"fails": _FailsOnFewRows()}, cv=3).fit(X, Y)


def test_search_verbose_prints_a_line_per_fit_and_per_candidate(capsys):
    X, Y = toy()
    FOptimalSearchCV(USER_CANDIDATES, cv=3, random_state=0).fit(X, Y)
    assert capsys.readouterr().out == ""
    search = FOptimalSearchCV(USER_CANDIDATES, cv=3, random_state=0, verbose=1).fit(X, Y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "FOptimalSearchCV: 5 candidates of 3 routes x 3 folds = 15 fits on 90 x 4, then a refit"
    fits = [line for line in lines if " fits done, " in line]
    assert len(fits) == 15
    assert fits[0].startswith("FOptimalSearchCV: knn {'n_neighbors': 3} fold 1 of 3 fitted in ")
    assert fits[0].split("; ")[1].startswith("1 of 15 fits done, ")
    assert fits[-1].startswith("FOptimalSearchCV: powerset  fold 3 of 3 fitted in ")
    means = [line for line in lines if " +- " in line]
    assert len(means) == 5 and means[0].startswith("FOptimalSearchCV: knn {'n_neighbors': 3}: F = ")
    assert lines[-1].startswith(f"FOptimalSearchCV: chose {search.best_candidate_} ")


def test_search_1d_y_is_one_label_and_predicts_1d():
    X, Y = toy()
    y = np.where(Y[:, 0] == 1, "yes", "no")
    for candidates in (["knn", "lfp"], USER_CANDIDATES):
        flat = FOptimalSearchCV(candidates, cv=3, random_state=0).fit(X, y)
        col = FOptimalSearchCV(candidates, cv=3, random_state=0).fit(X, Y[:, :1])
        assert flat.best_candidate_ == col.best_candidate_ and flat.classes_.tolist() == ["no", "yes"]
        H = flat.predict(X)
        assert H.shape == (len(X),)
        np.testing.assert_array_equal(H, np.where(col.predict(X)[:, 0] == 1, "yes", "no"))
        np.testing.assert_allclose(flat.predict_expected_f(X), col.predict_expected_f(X))
        np.testing.assert_allclose(flat.predict_marginals(X), col.predict_marginals(X)[:, 0])
        assert flat.score(X, y) == pytest.approx(np.mean(H == y))


# ----------------------------------------------------------------------------- FOptimalMixture


def test_mixture_maximises_under_the_mixed_distribution():
    X, Y = toy(m=3, seed=4)
    trees = FOptimalClassifier(ExtraTreesClassifier(n_estimators=8, min_samples_leaf=3, random_state=0))
    lp = FOptimalClassifier(LabelPowerset(LogisticRegression()))
    mix = FOptimalMixture([("trees", trees), ("powerset", lp)], weights=[1.0, 3.0]).fit(X, Y)
    Xq = X[:20]
    # the mixture by hand: each member's distribution over {0,1}^3, weighted 1/4 and 3/4
    V = np.array(list(itertools.product((0, 1), repeat=3)))
    code = {tuple(v): i for i, v in enumerate(V.tolist())}
    D = np.zeros((len(Xq), len(V)))
    for member, a in zip(mix.estimators_, (0.25, 0.75)):
        Ys, w = member.label_samples(Xq)
        w = w / w.sum(1, keepdims=True)
        for i in range(len(Xq)):
            for y, wy in zip(Ys[i].tolist(), w[i]):
                D[i, code[tuple(y)]] += a * wy
    tp = V @ V.T
    den = V.sum(1)[:, None] + V.sum(1)[None, :]
    F = np.where(den == 0, 1.0, 2 * tp / np.maximum(den, 1))  # F[h, y]
    E = D @ F.T
    H = mix.predict(Xq)
    got = E[np.arange(len(H)), [code[tuple(h)] for h in H.tolist()]]
    np.testing.assert_allclose(got, E.max(1), atol=1e-9)
    np.testing.assert_allclose(mix.predict_expected_f(Xq), E.max(1), atol=1e-9)


def test_mixture_bad_members_and_weights():
    from sklearn.multioutput import MultiOutputClassifier

    X, Y = toy()
    knn = FOptimalClassifier(KNeighborsClassifier(3))
    with pytest.raises(ValueError, match="estimators: 'marg' gives no label samples"):
        FOptimalMixture([("knn", knn), ("marg", FOptimalClassifier(MultiOutputClassifier(LogisticRegression())))]).fit(
            X, Y
        )
    with pytest.raises(ValueError, match="weights"):
        FOptimalMixture([("knn", knn)], weights=[-1.0]).fit(X, Y)
    with pytest.raises(ValueError, match="estimators"):
        FOptimalMixture([knn]).fit(X, Y)
