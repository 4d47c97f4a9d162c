"""The peers stage: the capped GFM against brute force, the protocol (constant labels, the feature
rule, seeds, tuning on the training set only), the table, ranks and findings against the declared
reference by hand, the environment builder and its refusal."""

import importlib.util
import itertools
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fmeasure.datasets import Dataset
from fmeasure.experiments import peers

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "workflow" / "scripts" / "peers_adapter.py"


def _f(y, h):
    s = y.sum() + h.sum()
    return 1.0 if s == 0 else 2.0 * (y * h).sum() / s


def _brute(support, probs, max_size):
    """Best expected F over every h with |h| <= max_size (ties: fewest labels first)."""
    m = support.shape[1]
    best = (-1.0, None)
    for size in range(max_size + 1):
        for on in itertools.combinations(range(m), size):
            h = np.zeros(m, int)
            h[list(on)] = 1
            e = sum(p * _f(y, h) for y, p in zip(support, probs))
            if e > best[0] + 1e-12:
                best = (e, h)
    return best


def _p_matrix(support, probs):
    m = support.shape[1]
    P = np.zeros((m, m))
    for y, p in zip(support, probs):
        s = int(y.sum())
        if s:
            P[y == 1, s - 1] += p
    p0 = sum(p for y, p in zip(support, probs) if y.sum() == 0)
    return P, p0


def test_capped_gfm_misses_a_set_larger_than_the_cap_by_hand():
    # one label of four, uniformly: every training vector has 1 label, so the cap is 1. Predicting k
    # labels has expected F k * 1/4 * 2/(1 + k): 0.25, 1/3, 0.375, 0.4; the best set has all 4.
    support = np.eye(4, dtype=int)
    P, p0 = _p_matrix(support, [0.25] * 4)
    h, v = peers.capped_gfm(P, p0, cap=1)
    assert v == pytest.approx(0.25) and h.sum() == 1
    h, v = peers.capped_gfm(P, p0, cap=4)
    assert v == pytest.approx(0.4) and h.tolist() == [1, 1, 1, 1]
    out = peers.capped_losses(P, p0, cap=1)
    assert out["n_wrong"] == 1 and out["max_loss"] == pytest.approx(15.0) and out["share_larger"] == 1.0


@pytest.mark.parametrize("seed", range(12))
def test_capped_gfm_equals_brute_force_over_small_sets(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 6))
    support = rng.integers(0, 2, size=(int(rng.integers(2, 7)), m))
    probs = rng.dirichlet(np.ones(len(support)))
    P, p0 = _p_matrix(support, probs)
    for cap in range(m + 1):
        h, v = peers.capped_gfm(P, p0, cap)
        best, _ = _brute(support, probs, cap)
        assert v == pytest.approx(best, abs=1e-12)
        assert h.sum() <= cap
        assert sum(p * _f(y, h) for y, p in zip(support, probs)) == pytest.approx(v, abs=1e-12)


def test_drop_constant_and_preprocess_by_hand():
    Y = np.array([[1, 0, 1], [1, 1, 1], [1, 0, 1]])
    keep, values = peers.drop_constant(Y)
    assert keep.tolist() == [False, True, False] and values[[0, 2]].tolist() == [1, 1]
    # column 0: an indicator (0/1), left as it is; 1 and 2: standardised (mean 3, sd sqrt(8/3); mean 1,
    # sd sqrt(2/3)); 3: constant 5, removed
    X = np.array([[0.0, 1.0, 2.0, 5.0], [1.0, 3.0, 0.0, 5.0], [1.0, 5.0, 1.0, 5.0]])
    a, b = peers.preprocess(X, np.array([[0.0, 7.0, 4.0, 6.0]]))
    s1, s2 = np.sqrt(8 / 3), np.sqrt(2 / 3)
    assert a.shape == (3, 3) and b.shape == (1, 3) and a[:, 0].tolist() == [0.0, 1.0, 1.0]
    assert a[:, 1] == pytest.approx([-2 / s1, 0.0, 2 / s1]) and a[:, 2] == pytest.approx([1 / s2, -1 / s2, 0.0])
    assert b[0] == pytest.approx([0.0, 4 / s1, 3 / s2])
    # sparse: the same rule without centring (zeros stay zeros); the constant column is removed too
    import scipy.sparse as sparse

    a, b = peers.preprocess(sparse.csr_matrix(X), sparse.csr_matrix([[0.0, 7.0, 4.0, 6.0]]))
    assert a.shape == (3, 3) and a[:, 0].tolist() == [0.0, 1.0, 1.0]
    assert a[:, 1] == pytest.approx([1 / s1, 3 / s1, 5 / s1]) and b[0] == pytest.approx([0.0, 7 / s1, 4 / s2])
    # a constant column of a sparse matrix that is zero on the fitted rows, and one of ones (an
    # indicator that never varies), are removed; when no column varies, every column is kept
    Z = sparse.csr_matrix(np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 4.0]]))
    assert peers.preprocess(Z)[0].tolist() == [[2.0], [4.0]]  # sd 1, not centred
    assert peers.preprocess(np.ones((2, 2)))[0].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_grid_points_bad_grid_names_the_key():
    with pytest.raises(ValueError, match="'C' needs a non-empty list"):
        peers.grid_points({"C": []})


def _toy(seed=0, n=120, constant=True):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4)) * [1.0, 10.0, 0.1, 1.0] + [0.0, 50.0, 0.0, 0.0]
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 50, (X[:, 0] + X[:, 2] * 10) > 0.5, np.zeros(n)]).astype(np.int8)
    if not constant:
        Y = Y[:, :3]
    k = n * 2 // 3
    return Dataset("toy", X[:k], Y[:k], X[k:], Y[k:])


def test_run_peer_constant_label_and_scikit_learn_reference():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import MultiOutputClassifier
    from sklearn.preprocessing import StandardScaler

    ds = _toy()
    # scikit-learn alone raises on the constant label: that is why the protocol removes it
    with pytest.raises(ValueError):
        MultiOutputClassifier(LogisticRegression()).fit(ds.X_train, ds.Y_train)
    rec, inst = peers.run_peer(
        ds, "sklearn_br", "default", grid={}, cv=3, seed=1, python=sys.executable, adapter=ADAPTER
    )
    # no 0/1 column in the toy features: the stage's rule is scikit-learn's StandardScaler here
    sc = StandardScaler().fit(ds.X_train)
    ref = MultiOutputClassifier(LogisticRegression(max_iter=1000)).fit(sc.transform(ds.X_train), ds.Y_train[:, :3])
    H = np.column_stack([ref.predict(sc.transform(ds.X_test)), np.zeros(len(ds.X_test), int)])
    f = [_f(y, h) for y, h in zip(ds.Y_test, H)]
    assert rec["f"] == pytest.approx(100 * np.mean(f)) and rec["status"] == "ran" and rec["seed"] == 1
    assert inst.f.to_numpy() == pytest.approx(100 * np.asarray(f)) and set(inst.seed) == {1}
    assert rec["mean_set_size"] == pytest.approx(H.sum(1).mean())


def test_run_peer_our_extratrees_route_is_exact_gfm_on_its_leaves():
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.preprocessing import StandardScaler

    from fmeasure import FOptimalClassifier

    ds = _toy(constant=False)
    # n_estimators is given in every setting; the grid has one point: taken without cross-validation
    rec, inst = peers.run_peer(
        ds,
        "fopt_extratrees",
        "tuned",
        params={"n_estimators": 7},
        grid={"min_samples_leaf": [3]},
        cv=3,
        seed=2,
        python=sys.executable,
        adapter=ADAPTER,
    )
    assert rec["source"] == "ours" and rec["n_candidates"] == 1 and rec["tuning_s"] == 0.0
    assert np.isnan(rec["cv_f"]) and json.loads(rec["params"]) == {"min_samples_leaf": 3}
    # the same forest in this process gives the same test F, and each of its predictions has the
    # largest expected F over {0,1}^3 under the leaves' weighted label vectors (brute force)
    sc = StandardScaler().fit(ds.X_train)
    forest = ExtraTreesClassifier(random_state=2, n_estimators=7, min_samples_leaf=3)
    clf = FOptimalClassifier(forest, random_state=2).fit(sc.transform(ds.X_train), ds.Y_train)
    H = clf.predict(sc.transform(ds.X_test))
    assert rec["f"] == pytest.approx(100 * np.mean([_f(y, h) for y, h in zip(ds.Y_test, H)]))
    Ys, w = clf.label_samples(sc.transform(ds.X_test))
    for y, wi, h in zip(Ys, w, H):
        best, _ = _brute(y, wi / wi.sum(), 3)
        assert sum(p * _f(yk, h) for yk, p in zip(y, wi / wi.sum())) == pytest.approx(best)


def test_run_peer_records_the_cross_validated_f_of_a_system_that_tunes_itself():
    from sklearn.preprocessing import StandardScaler

    from fmeasure import FOptimalSearchCV

    ds = _toy(constant=False)
    rec, _ = peers.run_peer(
        ds,
        "fopt_search",
        "tuned",
        grid={},
        cv=3,
        seed=2,
        python=sys.executable,
        adapter=ADAPTER,
        params={"candidates": ["knn", "lfp"]},
    )
    # the same search in this process, on the features the adapter sees
    X = StandardScaler().fit(ds.X_train).transform(ds.X_train)
    search = FOptimalSearchCV(candidates=["knn", "lfp"], cv=3, random_state=2).fit(X, ds.Y_train)
    assert rec["cv_f"] == pytest.approx(100 * search.best_score_)
    assert rec["n_candidates"] == len(search.cv_results_["params"]) > 1 and rec["tuning_s"] == 0.0
    assert json.loads(rec["chosen"])["best_candidate_"] == search.best_candidate_


def test_adapter_counts_cpu_not_wall_seconds(adapter, monkeypatch, tmp_path):
    """A model that computes for about 0.2 CPU seconds and then waits 0.4 s: the task's cpu_s counts
    the computing, fit_s the wall time of both."""

    class Busy:
        def fit(self, X, Y):
            c0 = time.process_time()
            while time.process_time() - c0 < 0.2:
                pass
            time.sleep(0.4)
            return self

        def predict(self, X):
            return np.zeros((len(X), 2), dtype=np.int8)

    monkeypatch.setattr(adapter, "make", lambda peer, params, spec: Busy())
    spec = {"peer": "busy", "seed": 1, "cv": 3, "threads": 1, "max_iter": 1000, "tasks": [{"params": {}}]}
    req, res = tmp_path / "request.npz", tmp_path / "result.npz"
    X, Y = np.zeros((4, 2)), np.zeros((4, 2), dtype=np.int8)
    np.savez(req, spec=np.asarray(json.dumps(spec)), Xtr0=X, Ytr0=Y, Xev0=X)
    adapter.main(str(req), str(res))
    z = np.load(res)
    assert 0.19 <= float(z["cpu_s0"]) < 0.35 and float(z["fit_s0"]) >= 0.6


def _burn(seconds):
    c0 = time.process_time()
    while time.process_time() - c0 < seconds:
        pass
    return seconds


def test_adapter_counts_the_cpu_of_the_worker_processes_a_model_starts(adapter, monkeypatch, tmp_path):
    """A model whose fit runs two joblib worker processes, each computing for 0.6 CPU seconds while
    the adapter's own process waits: cpu_s counts the workers' 1.2 s (and their start-up; the
    adapter's process alone would give almost none), and the second task only its own workers."""
    from joblib import Parallel, delayed

    class Workers:
        def fit(self, X, Y):
            Parallel(n_jobs=2, backend="loky")(delayed(_burn)(0.6) for _ in range(2))
            return self

        def predict(self, X):
            return np.zeros((len(X), 2), dtype=np.int8)

    monkeypatch.setattr(adapter, "make", lambda peer, params, spec: Workers())
    spec = {"peer": "workers", "seed": 1, "cv": 3, "threads": 2, "max_iter": 1000, "tasks": [{"params": {}}] * 2}
    req, res = tmp_path / "request.npz", tmp_path / "result.npz"
    X, Y = np.zeros((4, 2)), np.zeros((4, 2), dtype=np.int8)
    np.savez(req, spec=np.asarray(json.dumps(spec)), Xtr0=X, Ytr0=Y, Xev0=X, Xtr1=X, Ytr1=Y, Xev1=X)
    adapter.main(str(req), str(res))
    z = np.load(res)
    first, second = float(z["cpu_s0"]), float(z["cpu_s1"])
    assert first >= 1.15 and second >= 1.15, (first, second)
    assert second < 1.5 * first, (first, second)  # counted twice, it would be over 2x


def test_run_peer_cpu_is_the_sum_over_the_tuning_and_the_final_fit(monkeypatch):
    """Tuned over 2 grid points x 3 folds, then the final fit: cpu_s adds the 7 tasks' CPU seconds."""
    ds = _toy(constant=False)
    seen = []

    def fake(python, adapter, peer, tasks, **kw):
        out = []
        for _, Ytr, Xev, params in tasks:
            seen.append(params)
            out.append({"H": np.zeros((len(Xev), Ytr.shape[1]), np.int8), "fit_s": 0.0, "predict_s": 0.0})
            out[-1] |= {"cpu_s": 1.5 if params.get("C") == 1.0 else 0.25, "chosen": ""}
        return out

    monkeypatch.setattr(peers.protocol, "run_adapter", fake)
    rec, _ = peers.run_peer(ds, "sklearn_br", "tuned", grid={"C": [0.1, 1.0]}, cv=3, seed=1, python="", adapter="")
    # 3 folds at C = 0.1 and 3 at C = 1 (1.5 s each), then the final fit at the chosen C = 0.1
    assert len(seen) == 7 and json.loads(rec["params"]) == {"C": 0.1}
    assert rec["cpu_s"] == pytest.approx(3 * 0.25 + 3 * 1.5 + 0.25)
    rec, _ = peers.run_peer(ds, "sklearn_br", "default", grid={"C": [0.1, 1.0]}, cv=3, seed=1, python="", adapter="")
    assert rec["cpu_s"] == 0.25 and len(seen) == 8  # the default setting: one fit, no tuning


def test_run_peer_tuned_chooses_on_the_training_set_only():
    ds = _toy(constant=False)
    # a grid where C = 1e-6 predicts (almost) nothing; tuning must not choose it
    rec, _ = peers.run_peer(
        ds, "sklearn_br", "tuned", grid={"C": [1e-6, 1.0]}, cv=3, seed=1, python=sys.executable, adapter=ADAPTER
    )
    assert json.loads(rec["params"]) == {"C": 1.0} and rec["n_candidates"] == 2 and rec["cv_f"] > 50
    # the test labels play no part: shuffling them changes the test F, not the choice
    shuffled = Dataset("toy", ds.X_train, ds.Y_train, ds.X_test, ds.Y_test[::-1].copy())
    rec2, _ = peers.run_peer(
        shuffled, "sklearn_br", "tuned", grid={"C": [1e-6, 1.0]}, cv=3, seed=1, python=sys.executable, adapter=ADAPTER
    )
    assert rec2["params"] == rec["params"] and rec2["cv_f"] == rec["cv_f"]


def test_adapter_failure_is_one_line_naming_the_peer(tmp_path):
    ds = _toy(constant=False)
    with pytest.raises(RuntimeError, match="peer nosuch: its adapter failed: peers_adapter: unknown peer"):
        peers.run_adapter(sys.executable, ADAPTER, "nosuch", [(ds.X_train, ds.Y_train, ds.X_test, {})])


@pytest.fixture
def adapter():
    spec = importlib.util.spec_from_file_location("peers_adapter", ADAPTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adapter_gives_every_system_the_same_seed_cap_and_folds(adapter, monkeypatch):
    import types

    import fmeasure

    assert peers.logistic_max_iter() == 1000  # fmeasure's tuned logistic models: fit_logistic_cv(max_iter=1000)
    spec = {"seed": 7, "cv": 4, "threads": 2, "max_iter": peers.logistic_max_iter()}
    for name in ("sklearn_br", "sklearn_cc"):
        params = adapter.make(name, {"C": 0.5}, spec).get_params()
        assert params["estimator__max_iter"] == 1000 and params["estimator__C"] == 0.5, name
    forest = adapter.make("fopt_extratrees", {"n_estimators": 5}, spec).get_params()
    assert forest["estimator__random_state"] == 7 and forest["random_state"] == 7 and forest["estimator__n_jobs"] == 2
    efp = adapter.make("efp", {"Cs": [1.0]}, spec)
    assert (efp.cv, efp.random_state, efp.standardize, efp.n_jobs, tuple(efp.Cs)) == (4, 7, False, 2, (1.0,))

    # the peers of their own environments, and FOptimalSearchCV, through stand-ins of their classes
    class Recorder:
        def __init__(self, *args, **kwargs):
            self.args, self.kwargs = args, kwargs

    monkeypatch.setitem(sys.modules, "mlrl", types.ModuleType("mlrl"))
    monkeypatch.setitem(sys.modules, "mlrl.boosting", types.SimpleNamespace(Boomer=Recorder))
    monkeypatch.setitem(
        sys.modules, "example_wise_f1_maximizer", types.SimpleNamespace(ExampleWiseF1Maximizer=Recorder)
    )
    monkeypatch.setattr(fmeasure, "FOptimalSearchCV", Recorder, raising=False)
    boomer = adapter.make("boomer", {"max_rules": 10}, spec)
    pools = {"parallel_rule_refinement": "true{num_preferred_threads=2}"}
    pools["parallel_statistic_update"] = pools["parallel_rule_refinement"]
    assert boomer.kwargs == {"binary_predictor": "gfm", "random_state": 7, "max_rules": 10, **pools}
    one = adapter.make("boomer", {}, {**spec, "threads": 1}).kwargs
    assert one["parallel_rule_refinement"] == one["parallel_statistic_update"] == "false"
    assert adapter.make("boomer", {}, {**spec, "seed": 0}).kwargs["random_state"] == 1  # BOOMER needs >= 1
    ewf1 = adapter.make("ewf1", {"C": 2.0}, spec)
    assert ewf1.args[0].max_iter == 1000 and ewf1.args[0].C == 2.0
    search = adapter.make("fopt_search", {}, spec)
    assert search.kwargs == {"cv": 4, "random_state": 7, "n_jobs": 2}
    search.best_candidate_, search.best_params_ = "forest", {"min_samples_leaf": 3}
    assert json.loads(adapter.chosen(search)) == {"best_candidate_": "forest", "best_params_": {"min_samples_leaf": 3}}
    search.best_score_, search.cv_results_ = 0.5, {"params": [{}, {}, {}]}
    assert json.loads(adapter.chosen(search))["best_score_"] == 0.5
    assert json.loads(adapter.chosen(search))["n_candidates"] == 3
    assert adapter.chosen(boomer) == ""


def _runs(rows, seeds=(1, 2), dataset="d"):
    """Records and instances of runs on ``dataset``: rows is {(method, setting): [F per instance, per seed]}."""
    records, frames = [], []
    for (method, setting), per_seed in rows.items():
        for seed, f in zip(seeds, per_seed):
            rec = {"dataset": dataset, "method": method, "setting": setting, "seed": seed}
            if f is None:
                records.append(rec | {"status": "not run", "reason": "peer ewf1: needs Python 3.11"})
                continue
            if f == "timeout":
                records.append(rec | {"status": "timeout", "reason": "timeout during the tuning", "cpu_s": 900.0})
                continue
            rec |= {"status": "ran", "f": float(np.mean(f)), "fit_s": 1.0, "predict_s": 0.5, "tuning_s": 0.0}
            records.append(rec | {"mean_set_size": 2.0, "params": '{"C": 1.0}', "chosen": "", "cpu_s": 3.0})
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": dataset,
                        "method": method,
                        "setting": setting,
                        "seed": seed,
                        "instance": range(len(f)),
                        "f": f,
                    }
                )
            )
    return records, pd.concat(frames, ignore_index=True)


def test_seed_se_and_paired_difference_by_hand():
    """The standard error over instances and seeds on a case small enough to do by hand.

    D[i, s] (4 instances, 2 seeds) = [[1, 3], [0, 2], [2, 4], [1, 3]]: the seed-averaged differences
    are [2, 1, 3, 2] (mean 2, variance 2/3 with ddof 1, over n = 4: 1/6); the per-seed means are
    [1, 3] (variance 2, over S = 2: 1). SE = sqrt(1/6 + 1) = sqrt(7/6).
    """
    R = np.array([[50.0, 50.0], [50.0, 50.0], [50.0, 50.0], [50.0, 50.0]])
    S = R + np.array([[1.0, 3.0], [0.0, 2.0], [2.0, 4.0], [1.0, 3.0]])
    d, se, parts = peers.paired_difference(S, R)
    assert d == 2.0 and se == pytest.approx(math.sqrt(7 / 6))
    assert parts["instances"] == pytest.approx(1 / 6) and parts["seeds"] == pytest.approx(1.0)
    assert peers.seed_se(S) == pytest.approx(math.sqrt(7 / 6))  # the reference is constant here
    # the instances' term alone is what the bootstrap of the seed-averaged differences estimated
    # (up to ddof): the seeds add their own spread, 1 of the 7/6
    # a deterministic row (one seed) against the reference's two: its column repeats over the seeds
    d1, se1, parts1 = peers.paired_difference(S[:, :1], S)
    D = S[:, :1] - S  # [[0, -2], [0, -2], [0, -2], [0, -2]]: seed means [0, -2], instance means all -1
    assert d1 == -1.0 and parts1["instances"] == 0.0 and se1 == pytest.approx(math.sqrt(np.var([0, -2], ddof=1) / 2))
    assert D.mean() == d1
    with pytest.raises(ValueError, match="2 seeds against 3"):
        peers.paired_difference(np.zeros((4, 2)), np.zeros((4, 3)))


def test_noninferiority_by_hand():
    from scipy.stats import norm

    # the row 1 point below the reference, SE 0.5, margin 0.5: z = (0.5 + 1) / 0.5 = 3
    assert peers.noninferiority_pvalue(-1.0, 0.5, 0.5) == pytest.approx(norm.sf(3.0))
    # a row 0.4 above, SE 0.1: z = (0.5 - 0.4) / 0.1 = 1, not shown at 0.0228
    assert peers.noninferiority_pvalue(0.4, 0.1, 0.5) == pytest.approx(norm.sf(1.0))
    assert peers.iman_davenport(6.0, 10, 3)[0] == pytest.approx(9 * 6 / (20 - 6))


REF = [100.0, 20.0, 100.0, 50.0]
ROWS = {
    ("fopt_extratrees", "tuned"): [REF, REF],
    ("boomer", "tuned"): [[100.0, 100.0, 0.0, 50.0], [100.0, 100.0, 100.0, 50.0]],
    ("mlknn", "tuned"): [[90.0, 10.0, 90.0, 40.0]] * 2,  # 10 points below the reference everywhere
    ("efp", "tuned"): [[100.0, 20.0, 100.0, 40.0]] * 2,
    ("ewf1", "tuned"): [None, None],
    ("sklearn_br", "default"): [[100.0, 20.0, 100.0, 51.0]] * 2,
}


def test_table_by_hand():
    records, inst = _runs(ROWS)
    t = peers.run_table(records, inst, reference="fopt_extratrees", margin=0.5)
    assert list(t.columns) == peers.TABLE_COLUMNS
    t = t.set_index("method")
    ref = t.loc["fopt_extratrees"]
    assert ref.reference and ref.f == 67.5 and ref.f_sd == 0.0 and ref.diff_to_reference == 0.0 and ref.diff_se == 0.0
    assert ref.vs_reference == "reference" and ref.n_seeds == 2 and ref.family == "reference"
    # boomer: seeds' F 62.5 and 87.5; D = [[0, 0], [80, 80], [-100, 0], [0, 0]]: instance means [0, 80, -50, 0]
    # (mean 7.5), seed means [-5, 20]
    b = t.loc["boomer"]
    assert b.f == 75.0 and b.f_sd == pytest.approx(np.std([62.5, 87.5], ddof=1)) and b.diff_to_reference == 7.5
    se2 = np.var([0, 80, -50, 0], ddof=1) / 4 + np.var([-5, 20], ddof=1) / 2
    assert b.diff_se == pytest.approx(math.sqrt(se2))
    assert b.se_seeds == pytest.approx(math.sqrt(np.var([-5, 20], ddof=1) / 2))
    # the families: boomer alone among the F-maximizers, mlknn among the baselines, efp ours, the
    # default-setting row alone in its own: each Holm family of one is its own p-value
    assert t.loc[["boomer", "mlknn", "efp", "sklearn_br"], "family"].tolist() == [
        "peers: F-maximizers",
        "peers: baselines",
        "ours",
        "default settings",
    ]
    p_b = math.erfc(7.5 / b.diff_se / math.sqrt(2))
    assert b.p_holm == pytest.approx(p_b) and b.vs_reference == "tie"
    from scipy.stats import norm

    assert b.p_ni_holm == pytest.approx(norm.sf((0.5 - 7.5) / b.diff_se)) and b.noninferior is False
    # mlknn 10 below everywhere: SE 0, clearly worse, and the reference at least as good
    k = t.loc["mlknn"]
    assert k.diff_to_reference == -10.0 and k.diff_se == 0.0 and k.vs_reference == "worse" and k.noninferior is True
    # efp: D = [0, 0, 0, -10] on both seeds: SE sqrt(25 / 4) = 2.5; z_ni = (0.5 + 2.5) / 2.5
    e = t.loc["efp"]
    assert e.diff_se == pytest.approx(2.5) and e.p_ni_holm == pytest.approx(norm.sf(3.0 / 2.5))
    assert e.noninferior is False
    assert t.loc["ewf1", "status"] == "not run: peer ewf1: needs Python 3.11" and np.isnan(t.loc["ewf1", "f"])
    assert t.loc["boomer", "kind"] == "f-maximizer" and t.loc["mlknn", "kind"] == "baseline"


def test_holm_is_within_each_family_only():
    rows = {
        ("fopt_search", "tuned"): [[50.0] * 6] * 2,
        ("boomer", "tuned"): [[40.0, 45.0, 45.0, 50.0, 40.0, 40.0]] * 2,
        ("ewf1", "tuned"): [[45.0, 50.0, 40.0, 50.0, 45.0, 50.0]],
        ("efp", "tuned"): [[45.0, 50.0, 40.0, 50.0, 45.0, 50.0]],
        ("lfp", "tuned"): [[49.0, 50.0, 50.0, 50.0, 50.0, 50.0]],
    }
    records, inst = _runs(rows)
    t = peers.run_table(records, inst, reference="fopt_search", margin=0.5).set_index("method")
    from fmeasure.experiments.comparisons import holm, z_pvalue

    p = [z_pvalue(t.loc[m, "diff_to_reference"], t.loc[m, "diff_se"]) for m in ("boomer", "ewf1")]
    assert t.loc[["boomer", "ewf1"], "p_holm"].tolist() == pytest.approx(holm(p).tolist())
    # ewf1 and efp have the same scores; their families differ in size, so do their corrections
    q = [z_pvalue(t.loc[m, "diff_to_reference"], t.loc[m, "diff_se"]) for m in ("efp", "lfp")]
    assert t.loc[["efp", "lfp"], "p_holm"].tolist() == pytest.approx(holm(q).tolist())


def test_a_timeout_is_outside_the_tests_and_ranks_last():
    rows = {
        ("fopt_search", "tuned"): [[50.0, 60.0]] * 2,
        ("boomer", "tuned"): ["timeout", "timeout"],
        ("mlknn", "tuned"): [[10.0, 20.0]],
        ("sklearn_br", "tuned"): [[20.0, 20.0]],
    }
    recs, insts = [], []
    for i in range(3):
        r, x = _runs(rows, dataset=f"d{i}")
        recs += r
        insts.append(x)
    t = peers.run_table(recs, pd.concat(insts), reference="fopt_search", margin=0.5)
    b = t[t.method == "boomer"].iloc[0]
    assert b.status == "timeout" and b.vs_reference == "timeout" and np.isnan(b.f)
    ranks, s = peers.run_ranks(t, reference="fopt_search", ranking="peers")
    r = ranks.set_index("method")
    assert r.loc["boomer", "mean_rank"] == 4.0 and r.loc["boomer", "n_timeouts"] == 3
    assert r.loc["fopt_search", "mean_rank"] == 1.0 and s["n_systems"] == 4


def test_a_system_missing_from_the_registry_is_an_error():
    records, inst = _runs({("fopt_search", "tuned"): [REF, REF], ("nosuch", "tuned"): [REF, REF]})
    with pytest.raises(peers.UnknownSystem, match="'nosuch' is not in fmeasure.experiments.registry.PEER_SYSTEMS"):
        peers.run_table(records, inst, reference="fopt_search", margin=0.5)
    with pytest.raises(KeyError):
        peers.is_peer("nosuch")


def test_table_a_deterministic_row_on_one_seed():
    # the reference ran on seeds 1 and 2 (its seed-averaged F per instance: [100, 60, 100, 50]); mlknn,
    # deterministic, on seed 1 alone: 10 points below that average everywhere
    rows = {
        ("fopt_extratrees", "tuned"): [REF, [100.0, 100.0, 100.0, 50.0]],
        ("mlknn", "tuned"): [[90.0, 50.0, 90.0, 40.0]],
    }
    records, inst = _runs(rows)
    t = peers.run_table(records, inst, reference="fopt_extratrees", margin=0.5).set_index("method")
    assert t.loc["fopt_extratrees", "f"] == 77.5 and t.loc["fopt_extratrees", "n_seeds"] == 2
    k = t.loc["mlknn"]
    assert k.n_seeds == 1 and k.f == 67.5 and np.isnan(k.f_sd) and k.diff_to_reference == -10.0
    # D = mlknn - reference per seed: seed 1 [-10, 30, -10, -10], seed 2 [-10, -50, -10, -10]: instance
    # means all -10 (no spread over instances), seed means [0, -20] (variance 200, over 2 seeds: 100)
    assert k.diff_se == pytest.approx(10.0)
    assert k.se_instances == 0.0 and k.se_seeds == pytest.approx(10.0)
    short = inst[~((inst.method == "mlknn") & (inst.instance == 3))]
    with pytest.raises(ValueError, match="mlknn tuned has 3 test instances, the reference 4"):
        peers.run_table(records, short, reference="fopt_extratrees", margin=0.5)


def test_system_seeds():
    cfg = {"seeds": [3, 1, 2]}
    assert peers.system_seeds(cfg, "boomer") == [3, 1, 2] and peers.system_seeds(cfg, "ewf1") == [3]
    tuning = peers.dataset_protocol(
        {"cv": 3, "seeds": [3, 1, 2], "large": {"cells": 100, "cv": 2, "seeds": 2}},
        {"expected": {"n_train": 20, "m": 5}},
    )
    assert tuning == {"name": "large", "cv": 2, "n_seeds": 2, "cells": 100}
    assert peers.dataset_seeds(cfg, "boomer", tuning) == [3, 1] and peers.dataset_seeds(cfg, "ewf1", tuning) == [3]


def test_table_refuses_a_missing_reference_or_seed():
    records, inst = _runs(ROWS)
    with pytest.raises(ValueError, match="the reference 'lfp' has no run"):
        peers.run_table(records, inst, reference="lfp", margin=0.5)
    short = inst[~((inst.method == "efp") & (inst.seed == 2))]
    with pytest.raises(ValueError, match="efp tuned: per-instance scores missing for some seeds"):
        peers.run_table(records, short, reference="fopt_extratrees", margin=0.5)


def _ranks_table(order, n=10, missing=()):
    """A peers table over n datasets where the systems' F follow ``order`` (best first) everywhere."""
    rows = []
    for i in range(n):
        for rank, m in enumerate(order):
            ran = (m, f"d{i}") not in missing and m != "ewf1"
            rows.append(
                {"dataset": f"d{i}", "method": m, "setting": "tuned", "status": "ran" if ran else "not run: x"}
                | {"f": 90.0 - 10 * rank + i if ran else np.nan, "reference": m == "fopt_extratrees"}
            )
    return pd.DataFrame(rows)


def test_ranks_by_hand_and_the_systems_left_out():
    t = _ranks_table(["boomer", "mlknn", "fopt_extratrees", "ewf1"])
    ranks, s = peers.run_ranks(t, reference="fopt_extratrees", ranking="peers")
    r = ranks.set_index("method")
    # ranked: boomer 1, mlknn 2, fopt_extratrees 3 on every dataset; ewf1 never ran
    assert r.loc[["boomer", "mlknn", "fopt_extratrees"], "mean_rank"].tolist() == [1.0, 2.0, 3.0]
    assert r.loc["ewf1", "vs_reference"] == "not ranked: not run on any dataset"
    # chi2 = 12 N / (k (k + 1)) (1 + 4 + 9 - 12) = 20 = N (k - 1): perfect agreement, Iman-Davenport F infinite
    assert s["friedman_chi2"] == pytest.approx(20.0) and s["iman_davenport_p"] == 0.0
    z_b, z_m = 2 / math.sqrt(0.2), 1 / math.sqrt(0.2)
    p_b, p_m = (math.erfc(z / math.sqrt(2)) for z in (z_b, z_m))
    assert r.loc["boomer", "p_holm"] == pytest.approx(2 * p_b) and r.loc["mlknn", "p_holm"] == pytest.approx(p_m)
    assert r.loc[["boomer", "mlknn"], "vs_reference"].tolist() == ["better", "better"]
    table = t.assign(family=[peers.family_of(m, "tuned") for m in t.method], diff_to_reference=0.0, diff_se=1.0)
    table = table.assign(vs_reference="tie", noninferior=False)
    rows = {x["claim_id"]: x for x in peers.run_findings(table, ranks, reference="fopt_extratrees", margin=0.5)}
    # the headline counts the public F-maximizers only: boomer (ewf1 did not run)
    assert rows["peers.ranks"]["verdict"] == "contradicted" and rows["peers.ranks"]["margin"] == pytest.approx(-2.0)
    assert rows["peers.ranks"]["se"] == pytest.approx(math.sqrt(0.2))
    # our routes are ranked apart, with the reference
    t2 = _ranks_table(["fopt_extratrees", "efp", "lfp", "boomer"])
    ours, s2 = peers.run_ranks(t2, reference="fopt_extratrees", ranking="ours")
    assert set(ours.method) == {"fopt_extratrees", "efp", "lfp"} and s2["n_systems"] == 3
    # too few systems: no test, and the finding says why
    ranks, s = peers.run_ranks(_ranks_table(["boomer", "fopt_extratrees"]), reference="fopt_extratrees")
    assert "at least 3 systems" in s["reason"] and ranks.friedman_chi2.isna().all()


def test_findings_reference_against_each_f_maximizer_by_hand():
    rows = {
        ("fopt_extratrees", "tuned"): [REF, REF],
        ("boomer", "tuned"): [[99.0, 20.0, 100.0, 49.0]] * 2,  # 0.5 below: non-inferiority needs SE < 0.25
        ("ewf1", "tuned"): [[90.0, 10.0, 90.0, 40.0]],  # 10 below everywhere
        ("mlknn", "tuned"): [[100.0, 30.0, 100.0, 60.0]] * 2,  # a baseline better: not in the headline
    }
    records, inst = _runs(rows)
    t = peers.run_table(records, inst, reference="fopt_extratrees", margin=0.5)
    ranks, _ = peers.run_ranks(_ranks_table(["fopt_extratrees", "boomer", "mlknn"]), reference="fopt_extratrees")
    found = {x["claim_id"]: x for x in peers.run_findings(t, ranks, reference="fopt_extratrees", margin=0.5)}
    ref = found["peers.reference"]
    # boomer: D = [-1, 0, 0, -1] (both seeds): SE sqrt(1/12) = 0.289, z_ni = (0.5 + 0.5) / 0.289 = 3.46
    assert ref["verdict"] == "confirmed" and ref["margin"] == pytest.approx(0.5)
    assert ref["se"] == pytest.approx(math.sqrt(np.var([-1, 0, 0, -1], ddof=1) / 4))
    assert "in 2 of 2 cells" in ref["evidence"] and "weakest: d vs boomer" in ref["evidence"]
    assert found["peers.ranks"]["verdict"] == "confirmed"
    # a public F-maximizer clearly better on one dataset contradicts the claim
    worse = t.assign(vs_reference=np.where(t.method == "boomer", "better", t.vs_reference))
    assert peers.run_findings(worse, ranks, reference="fopt_extratrees", margin=0.5)[0]["verdict"] == "contradicted"
    only_ours = t[t.source == "ours"]
    assert peers.run_findings(only_ours, ranks, reference="fopt_extratrees", margin=0.5)[0]["verdict"].startswith(
        "not run"
    )


def test_write_run_marks_a_refused_environment_not_run(tmp_path):
    ds = _toy(constant=False)
    env = {"status": "refused", "reason": "peer ewf1: needs Python 3.99 for ewf1.txt"}
    kw = {"grid": {}, "cv": 2, "seed": 1, "adapter": ADAPTER, "log_to": None}
    stamp = {"hash": "abc", "reference": "fopt_search", "tuning": {"name": "full", "cv": 2, "n_seeds": 1}}
    rec = peers.write_run(
        ds,
        "ewf1",
        "default",
        python="/nonexistent/python",
        env=env,
        **kw,
        protocol=stamp,
        record_path=tmp_path / "r.json",
        instances_path=tmp_path / "i.csv.gz",
    )
    assert rec["status"] == "not run" and rec["reason"] == env["reason"]
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["status"] == "not run" and saved["protocol"] == "abc" and saved["reference"] == "fopt_search"
    assert len(pd.read_csv(tmp_path / "i.csv.gz")) == 0
    # an environment whose Python is not the one it was built for is an error, not a run
    env = {"status": "ok", "python_needs": ["2.7"]}
    with pytest.raises(RuntimeError, match=r"peer sklearn_br: its environment runs Python 3\.\d+\.\d+, built for 2\.7"):
        peers.write_run(
            ds,
            "sklearn_br",
            "default",
            python=sys.executable,
            env=env,
            **kw,
            record_path=tmp_path / "r2.json",
            instances_path=tmp_path / "i2.csv.gz",
        )


def _protocol_cfg(**over):
    cfg = {
        "reference": "fopt_search",
        "seeds": [1, 2],
        "cv": 3,
        "settings": ["tuned"],
        "run": ["fopt_search", "boomer"],
        "threads": 1,
        "budget": {"cpu_s": 900, "wall_factor": 4},
        "large": {"cells": 400000, "cv": 2, "seeds": 2},
        "peers": {},
        "margin": 0.5,
        "env_dir": "data/envs",
    }
    return cfg | over


def test_protocol_hash_names_what_decides_a_run_and_nothing_else():
    h = peers.protocol_hash(peers.protocol_spec(_protocol_cfg(), root=ROOT))
    assert len(h) == 16 and h == peers.protocol_hash(peers.protocol_spec(_protocol_cfg(), root=ROOT))
    # the analysis' margin and where the environments live are not the protocol
    assert h == peers.protocol_hash(peers.protocol_spec(_protocol_cfg(margin=1.0, env_dir="x"), root=ROOT))
    # the reference, the seeds, the budget, a grid, the run's systems and their pinned requirements are
    for over in (
        {"reference": "efp"},
        {"seeds": [1, 3]},
        {"budget": {"cpu_s": 600, "wall_factor": 4}},
        {"peers": {"boomer": {"grid": {"shrinkage": [0.3]}}}},
        {"run": ["fopt_search"]},
        {"large": {"cells": None, "cv": 2, "seeds": 2}},
    ):
        assert peers.protocol_hash(peers.protocol_spec(_protocol_cfg(**over), root=ROOT)) != h, over
    spec = peers.protocol_spec(_protocol_cfg(), root=ROOT)
    assert (
        spec["systems"]["boomer"]["env_sha256"]
        == __import__("hashlib").sha256((ROOT / "envs" / "peers" / "boomer.txt").read_bytes()).hexdigest()
    )
    assert spec["systems"]["boomer"]["grid"]["loss"] == ["logistic-decomposable", "logistic-non-decomposable"]


def test_aggregation_refuses_records_of_another_protocol_in_one_line():
    recs = [{"dataset": "d", "method": "boomer", "setting": "tuned", "seed": 1, "protocol": "a", "reference": "x"}]
    peers.check_protocol(recs, protocol="a", reference="x")
    with pytest.raises(peers.ProtocolMismatch) as err:
        peers.check_protocol(recs + [recs[0] | {"protocol": "b", "seed": 2}], protocol="a", reference="x")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("1 of 2 run records were made under another protocol")
    assert "d boomer tuned seed 2, has protocol b" in msg
    with pytest.raises(peers.ProtocolMismatch, match="reference y"):
        peers.check_protocol([recs[0] | {"reference": "y"}], protocol="a", reference="x")


def test_search_cuts_are_in_the_record_and_the_caption(adapter, tmp_path):
    from fmeasure import FOptimalSearchCV

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    Y = (X[:, :2] + rng.standard_normal((60, 2)) > 0).astype(int)
    model = FOptimalSearchCV(["knn", "chain", "extra_trees"], cv=2, random_state=0)
    monkey = model.fit(X, Y)
    monkey.dropped_ = {"chain": "159 labels > 100"}  # what the size rules say on bibtex
    chosen = json.loads(adapter.chosen(monkey))
    assert chosen["dropped_"] == {"chain": "159 labels > 100"} and chosen["leaf_factor"] == 1
    assert chosen["n_settings"]["extra_trees"] == 2
    chosen["leaf_factor"] = 4
    assert peers.search_cuts(json.dumps(chosen)) == "left out chain (159 labels > 100); forests min_samples_leaf x 4"
    rows = {("fopt_search", "tuned"): [REF, REF], ("boomer", "tuned"): [REF, REF]}
    records, inst = _runs(rows)
    for r in records:
        if r["method"] == "fopt_search":
            r["chosen"] = json.dumps(chosen)
    t = peers.run_table(records, inst, reference="fopt_search", margin=0.5)
    peers.write_table(t, tmp_path / "p.csv", tmp_path / "p.md", reference="fopt_search", margin=0.5)
    assert (
        "d (fopt_search): left out chain (159 labels > 100); forests min_samples_leaf x 4"
        in (tmp_path / "p.md").read_text()
    )


def test_run_peer_over_its_budget_is_a_timeout(tmp_path, monkeypatch):
    """An adapter that computes until it is stopped: the CPU limit stops it shortly after the budget,
    and the record says timeout with the CPU it used."""
    busy = tmp_path / "busy_adapter.py"
    busy.write_text("import time\nwhile True:\n    pass\n")
    ds = _toy(constant=False)
    budget = peers.Budget(cpu_s=1.0, wall_factor=20)
    t0 = time.perf_counter()
    rec, inst = peers.run_peer(
        ds, "sklearn_br", "default", grid={}, cv=2, seed=1, python=sys.executable, adapter=busy, budget=budget
    )
    assert rec["status"] == "timeout" and "timeout during the final fit: over the CPU budget" in rec["reason"]
    # RLIMIT_CPU counts the kernel's run time of the process; the rusage read afterwards can come out
    # lower on a virtual machine (steal time is taken off it: 0.84 s for a 1 s limit has been seen),
    # so the lower bound only shows that the adapter ran well into its budget before it was stopped
    assert 0.5 <= rec["cpu_s"] < 8.0 and len(inst) == 0 and time.perf_counter() - t0 < 20
    # a budget already spent stops the next call before it starts
    with pytest.raises(peers.BudgetExceeded):
        peers.run_adapter(sys.executable, busy, "sklearn_br", [(ds.X_train, ds.Y_train, ds.X_test, {})], budget=budget)
    # the wall-clock cap stops one that sleeps
    sleepy = tmp_path / "sleepy_adapter.py"
    sleepy.write_text("import time\ntime.sleep(60)\n")
    rec, _ = peers.run_peer(
        ds,
        "sklearn_br",
        "default",
        grid={},
        cv=2,
        seed=1,
        python=sys.executable,
        adapter=sleepy,
        budget=peers.Budget(cpu_s=0.5, wall_factor=2),
    )
    assert rec["status"] == "timeout" and "wall-clock cap" in rec["reason"]


def test_check_config_names_the_key():
    from fmeasure.experiments.config import ConfigError

    cfg = {"reference": "fopt_extratrees", "seeds": [1, 2], "settings": ["default", "tuned"], "peers": {}}
    peers.check_config(cfg, ["fopt_extratrees", "ewf1"])
    with pytest.raises(ConfigError, match="'peers.reference': 'fopt_extratrees' is not in peers.run"):
        peers.check_config(cfg, ["ewf1"])
    with pytest.raises(ConfigError, match="'peers.reference': 'ewf1' is a peer"):
        peers.check_config(cfg | {"reference": "ewf1"}, ["fopt_extratrees", "ewf1"])
    with pytest.raises(ConfigError, match="'peers.run': 'nosuch' is not in fmeasure.experiments.registry.PEER_SYSTEMS"):
        peers.check_config(cfg, ["fopt_extratrees", "nosuch"])
    with pytest.raises(ConfigError, match="'peers.settings': must include tuned"):
        peers.check_config(cfg | {"settings": ["default"]}, ["fopt_extratrees"])
    with pytest.raises(ConfigError, match="'peers.seeds': duplicate"):
        peers.check_config(cfg | {"seeds": [1, 1]}, ["fopt_extratrees"])
    # a system that tunes itself runs once, as tuned; the config may change a grid, not what a system is
    assert peers.system_settings(cfg, "efp") == ["tuned"] and peers.system_settings(cfg, "ewf1") == ["default", "tuned"]
    spec = peers.system_spec({"peers": {"mlknn": {"grid": {"k": [7]}}}}, "mlknn")
    assert spec["grid"] == {"k": [7]} and spec["kind"] == "baseline" and spec["env"] == "project"


def test_the_adapter_builds_exactly_the_registry_s_systems(adapter):
    from fmeasure.experiments.registry import PEER_KINDS, PEER_SYSTEMS

    assert list(adapter.BUILDERS) == list(PEER_SYSTEMS)
    assert {s.kind for s in PEER_SYSTEMS.values()} <= set(PEER_KINDS)
    # the anchor at its best: BOOMER's grid holds the loss its documentation offers beside GFM
    assert PEER_SYSTEMS["boomer"].grid["loss"] == ["logistic-decomposable", "logistic-non-decomposable"]
    assert [m for m, s in PEER_SYSTEMS.items() if s.source == "peer" and s.kind == "f-maximizer"] == ["boomer", "ewf1"]


def test_build_env_reuses_refuses_and_fails_cleanly(tmp_path):
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    req = tmp_path / "r.txt"
    req.write_text("# nothing to install\n")
    rec = peers.build_env(req, tmp_path / "env", python_versions=[here])
    assert not rec["reused"] and peers.env_python(tmp_path / "env").exists() and rec["status"] == "ok"
    assert rec["python"].startswith(here + ".") and rec["python_needs"] == [here]
    again = peers.build_env(req, tmp_path / "env", python_versions=[here])
    assert again["reused"] and again["build_s"] == 0.0
    with pytest.raises(peers.EnvRefused, match=r"^peer toy: needs Python 2\.7 for r\.txt; this interpreter is 3\."):
        peers.build_env(req, tmp_path / "env3", python_versions=["2.7"], peer="toy")
    assert not (tmp_path / "env3").exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not === a requirement\n")
    with pytest.raises(RuntimeError, match=r"bad\.txt: pip install failed"):
        peers.build_env(bad, tmp_path / "env2", python_versions=[here])
    assert not (tmp_path / "env2").exists() and not (tmp_path / "env2.partial").exists()


def test_find_python_takes_the_running_interpreter_or_none():
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert peers.find_python([here]) == (sys.executable, ".".join(map(str, sys.version_info[:3])))
    assert peers.find_python(["2.7"]) is None


def test_exactness_counts_the_capped_losses_by_brute_force(tmp_path):
    from fmeasure.experiments.parametric import make_learner

    # one label of three per training example, so the cap is 1; where two or three labels are
    # likely, the exact GFM predicts more than one and the capped search cannot
    rng = np.random.default_rng(3)
    X = rng.standard_normal((240, 3))
    c = np.argmax(X + 0.8 * rng.standard_normal((240, 3)), axis=1)
    Y = np.eye(3, dtype=np.int8)[c]
    ds = Dataset("one-of-three", X[:160], Y[:160], X[160:], Y[160:])
    cfg = {"Cs": [1.0], "cv": 2, "seed": 1}
    row = peers.run_exactness(ds, cfg)
    P, p0 = make_learner("EFP", cfg).fit(ds.X_train, ds.Y_train).predict_p_matrix(ds.X_test)
    sets = [np.array(h) for h in itertools.product([0, 1], repeat=3)]

    def expected_f(Pi, q0, h):  # E[F(h)] = P(y = 0) [h = 0] + sum_i h_i sum_s P[i, s] 2 / (s + |h|)
        k = h.sum()
        return q0 if k == 0 else sum(Pi[i, s] * 2 / (s + 1 + k) for i in range(3) if h[i] for s in range(3))

    losses = []
    for Pi, q0 in zip(P, np.broadcast_to(p0, len(P))):
        values = [expected_f(Pi, q0, h) for h in sets]
        exact = max(values)
        capped = max(v for v, h in zip(values, sets) if h.sum() <= 1)
        losses.append(100 * (exact - capped))
    losses = np.array(losses)
    assert row["cap"] == 1 and row["n"] == 80
    assert row["n_wrong"] == int((losses > 1e-7).sum()) > 0
    assert row["mean_loss"] == pytest.approx(losses.mean()) and row["max_loss"] == pytest.approx(losses.max())
    t = peers.write_exactness([row], tmp_path / "e.csv", tmp_path / "e.md")
    hand = t.iloc[0]
    assert hand.dataset == "by hand" and hand.n_wrong == 1 and hand.max_loss == pytest.approx(15.0)
    assert "by hand" in (tmp_path / "e.md").read_text()


def test_analysis_sentences_from_the_tables(tmp_path):
    records, inst = _runs(ROWS)
    t = peers.run_table(records, inst, reference="fopt_extratrees", margin=0.5)
    t.to_csv(tmp_path / "peers.csv", index=False)
    ranks, _ = peers.run_ranks(
        _ranks_table(["fopt_extratrees", "boomer", "mlknn", "ewf1"]), reference="fopt_extratrees"
    )
    ranks.to_csv(tmp_path / "peers_ranks.csv", index=False)
    lines, dev = peers.analysis(tmp_path)
    text = "\n".join(lines)
    assert dev == [] and "FOptimalClassifier(ExtraTrees)" in text and "1 datasets, 2 seeds" in text
    assert "the reference at least as good (non-inferiority) in 0 of 1 cells (not shown: boomer on d)" in text
    assert "Against the public baselines: 1 of 1 cells below the reference" in text
    assert "Friedman chi2 = 20.00" in text and "position 1 of 3" in text
    assert "not ranked: not run on any dataset" in text


def test_leaderboard_page_shows_the_snapshot_s_numbers(tmp_path):
    from fmeasure.experiments.peers import leaderboard

    snap = tmp_path / "leaderboard"
    assert "No snapshot yet" in leaderboard.page(snap)
    snap.mkdir()
    rows = {("fopt_search", "tuned"): [REF, REF], ("boomer", "tuned"): [[99.0, 20.0, 100.0, 49.0]] * 2}
    rows |= {("mlknn", "tuned"): [[90.0, 10.0, 90.0, 40.0]]}
    recs, insts = [], []
    for i in range(3):
        r, x = _runs(rows, dataset=f"d{i}")
        recs += r
        insts.append(x)
    t = peers.run_table(recs, pd.concat(insts), reference="fopt_search", margin=0.5)
    t[leaderboard.SNAPSHOT_COLUMNS].round(2).to_csv(snap / "peers.csv", index=False)
    ranks, _ = peers.run_ranks(t, reference="fopt_search")
    ranks[leaderboard.RANK_SNAPSHOT].round(4).to_csv(snap / "ranks.csv", index=False)
    prov = {"commit": "0" * 40, "dirty": False, "protocol": "f" * 16, "reference": "fopt_search", "margin": 0.5}
    prov |= {"datasets": ["d0", "d1", "d2"], "seeds": [1, 2], "budget": {"cpu_s": 900}, "runs": 15, "timeouts": 0}
    prov |= {"wall_s": 7200, "cpu_s": 14400, "packages": {"project": {"numpy": "2"}}, "z": 2.0}
    prov |= {"machine": {"cpu": "x", "cores": 2, "python": "3.11.7"}}
    (snap / "provenance.json").write_text(json.dumps(prov))
    text = leaderboard.page(snap)
    assert "`" + "f" * 16 + "`" in text and "2.0 h, 4.0 h" in text
    snapshot = pd.read_csv(snap / "peers.csv")
    for r in snapshot.itertuples():
        row = next(line for line in text.splitlines() if line.startswith(f"| {r.dataset} |"))
        sd = f" ± {r.f_sd:.2f}" if np.isfinite(r.f_sd) else ""
        assert f"{r.f:.2f}{sd}" in row, (r.dataset, r.method, row)
    head = snapshot[snapshot.family == "peers: F-maximizers"]
    for r in head.itertuples():
        assert f"| {r.dataset} | {r.method} | {r.diff_to_reference:+.2f} ± {r.diff_se:.2f} |" in text
    for r in pd.read_csv(snap / "ranks.csv").dropna(subset=["mean_rank"]).itertuples():
        assert f"| {r.mean_rank:.2f} |" in text
    # a rerun on the same protocol compares equal to the printed digit; a changed F is named
    (tmp_path / "tables").mkdir()
    t.to_csv(tmp_path / "tables" / "peers.csv", index=False)
    assert leaderboard.compare(tmp_path, snap) == []
    t.loc[t.method == "boomer", "f"] += 0.01
    t.to_csv(tmp_path / "tables" / "peers.csv", index=False)
    assert len(leaderboard.compare(tmp_path, snap)) == 3


def test_the_committed_leaderboard_page_is_the_one_its_snapshot_gives():
    from fmeasure.experiments.peers import leaderboard

    page = ROOT / "docs" / "peers_leaderboard.md"
    assert page.read_text() == leaderboard.page(ROOT / "docs" / "leaderboard")


def test_a_grid_point_over_its_share_of_the_budget_ends_the_tuning(monkeypatch):
    """Three grid points under a budget of 100 CPU s: the first costs 10, the second is stopped (it
    may use half of what is left, 45); the first is refitted, the third never tried."""
    ds = _toy(constant=False)
    calls = []

    def fake(python, adapter, peer, tasks, budget=None, **kw):
        C = tasks[0][3]["C"]
        calls.append((C, len(tasks), budget.cpu_s))
        if C == 2.0:
            budget.used_cpu += budget.cpu_s + 1
            raise peers.BudgetExceeded("over the CPU budget", budget.used_cpu, 1.0)
        budget.used_cpu += 10.0
        out = [{"H": np.zeros((len(x), y.shape[1]), np.int8), "fit_s": 0.0, "predict_s": 0.0} for _, y, x, _ in tasks]
        return [o | {"cpu_s": 10.0 / len(tasks), "chosen": ""} for o in out]

    monkeypatch.setattr(peers.protocol, "run_adapter", fake)
    budget = peers.Budget(cpu_s=100.0)
    rec, _ = peers.run_peer(
        ds, "sklearn_br", "tuned", grid={"C": [1.0, 2.0, 3.0]}, cv=3, seed=1, python="", adapter="", budget=budget
    )
    assert [c[:2] for c in calls] == [(1.0, 3), (2.0, 3), (1.0, 1)]
    assert calls[0][2] == 50.0 and calls[1][2] == 45.0 and calls[2][2] == 100.0
    assert rec["status"] == "ran" and json.loads(rec["params"]) == {"C": 1.0} and rec["n_candidates"] == 1
    assert json.loads(rec["unfinished"]) == [{"C": 2.0}, {"C": 3.0}]
