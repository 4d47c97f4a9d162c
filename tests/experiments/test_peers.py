"""The peers stage: the capped GFM against brute force, the protocol (constant labels, scaling,
tuning on the training set only), the table and findings by hand, the environment builder."""

import itertools
import json
import sys
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


def test_drop_constant_and_standardise_by_hand():
    Y = np.array([[1, 0, 1], [1, 1, 1], [1, 0, 1]])
    keep, values = peers.drop_constant(Y)
    assert keep.tolist() == [False, True, False] and values[[0, 2]].tolist() == [1, 1]
    X = np.array([[1.0, 5.0], [3.0, 5.0]])
    a, b = peers.standardise(X, np.array([[2.0, 6.0]]))
    assert a.tolist() == [[-1.0, 0.0], [1.0, 0.0]] and b.tolist() == [[0.0, 1.0]]


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
    sc = StandardScaler().fit(ds.X_train)
    ref = MultiOutputClassifier(LogisticRegression()).fit(sc.transform(ds.X_train), ds.Y_train[:, :3])
    H = np.column_stack([ref.predict(sc.transform(ds.X_test)), np.zeros(len(ds.X_test), int)])
    f = [_f(y, h) for y, h in zip(ds.Y_test, H)]
    assert rec["f"] == pytest.approx(100 * np.mean(f))
    assert inst.f.to_numpy() == pytest.approx(100 * np.asarray(f))
    assert rec["mean_set_size"] == pytest.approx(H.sum(1).mean())


def test_run_peer_our_extratrees_route_is_exact_gfm_on_its_leaves():
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.preprocessing import StandardScaler

    from fmeasure import FOptimalClassifier

    ds = _toy(constant=False)
    params = {"n_estimators": 7, "min_samples_leaf": 3}
    rec, inst = peers.run_peer(
        ds, "fopt_extratrees", "default", grid={}, cv=3, seed=2, python=sys.executable, adapter=ADAPTER
    )
    assert rec["source"] == "ours"
    rec, inst = peers.run_peer(
        ds,
        "fopt_extratrees",
        "tuned",
        grid={k: [v] for k, v in params.items()},
        cv=3,
        seed=2,
        python=sys.executable,
        adapter=ADAPTER,
    )
    # the same forest in this process gives the same test F, and each of its predictions has the
    # largest expected F over {0,1}^3 under the leaves' weighted label vectors (brute force)
    sc = StandardScaler().fit(ds.X_train)
    clf = FOptimalClassifier(ExtraTreesClassifier(random_state=2, **params)).fit(sc.transform(ds.X_train), ds.Y_train)
    H = clf.predict(sc.transform(ds.X_test))
    assert rec["f"] == pytest.approx(100 * np.mean([_f(y, h) for y, h in zip(ds.Y_test, H)]))
    Ys, w = clf.label_samples(sc.transform(ds.X_test))
    for y, wi, h in zip(Ys, w, H):
        best, _ = _brute(y, wi / wi.sum(), 3)
        assert sum(p * _f(yk, h) for yk, p in zip(y, wi / wi.sum())) == pytest.approx(best)


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


def _inst(path, dataset, method, setting, f):
    df = pd.DataFrame({"dataset": dataset, "method": method, "instance": np.arange(len(f)), "f": f})
    if setting is not None:
        df["setting"] = setting
    df.to_csv(path, index=False)
    return path


def test_table_and_findings_by_hand(tmp_path):
    ours = [
        _inst(tmp_path / "efp.csv", "d", "efp", None, [100.0, 0.0, 100.0, 50.0]),
        _inst(tmp_path / "br.csv", "d", "br", None, [0.0, 0.0, 100.0, 50.0]),
    ]
    peer = [_inst(tmp_path / "p.csv", "d", "boomer", "default", [100.0, 100.0, 0.0, 50.0])]
    records = [
        {"dataset": "d", "method": "boomer", "setting": "default", "fit_s": 1.0, "predict_s": 0.5}
        | {"mean_set_size": 2.0, "params": "{}"}
    ]
    t = peers.run_table(records, peer, ours, n_boot=200).set_index(["method", "setting"])
    assert t.at[("efp", "tuned"), "f"] == 62.5 and t.at[("efp", "tuned"), "diff_to_best_ours"] == 0.0
    assert t.at[("boomer", "default"), "f"] == 62.5 and t.at[("boomer", "default"), "diff_to_best_ours"] == 0.0
    assert t.at[("br", "tuned"), "diff_to_best_ours"] == -25.0 and t.at[("br", "tuned"), "diff_se"] > 0
    assert t.at[("boomer", "default"), "source"] == "peer" and t.at[("efp", "tuned"), "source"] == "ours"
    assert peers.is_peer("boomer") and not peers.is_peer("fopt_extratrees") and not peers.is_peer("efp")
    assert peers.title("efp") == "EFP" and peers.title("fopt_extratrees").startswith("FOptimalClassifier")
    # SE of the mean of [100, 0, 100, 50]: sd 47.87 / 2
    assert t.at[("efp", "tuned"), "se"] == pytest.approx(np.std([100, 0, 100, 50], ddof=1) / 2)
    rows = {r["claim_id"]: r for r in peers.run_findings(t.reset_index(), peer, ours, {"efp", "br"}, n_boot=200)}
    assert rows["peers.paper_best"]["margin"] == pytest.approx(0.0)
    assert rows["peers.paper_best"]["verdict"] == "not confirmed"


def test_build_env_reuses_and_fails_cleanly(tmp_path):
    req = tmp_path / "r.txt"
    req.write_text("# nothing to install\n")
    rec = peers.build_env(req, tmp_path / "env")
    assert not rec["reused"] and peers.env_python(tmp_path / "env").exists()
    assert rec["python"].startswith("3.")
    again = peers.build_env(req, tmp_path / "env")
    assert again["reused"] and again["build_s"] == 0.0
    bad = tmp_path / "bad.txt"
    bad.write_text("this is not === a requirement\n")
    with pytest.raises(RuntimeError, match=r"bad\.txt: pip install failed"):
        peers.build_env(bad, tmp_path / "env2")
    assert not (tmp_path / "env2").exists() and not (tmp_path / "env2.partial").exists()


def test_exactness_table_hand_row_and_efp_rows(tmp_path):
    cfg = {"Cs": [1.0], "cv": 2, "seed": 1}
    row = peers.run_exactness(_toy(constant=False, n=150), cfg)
    assert row["cap"] == 3 and 0 <= row["n_wrong"] <= row["n"] == 50
    assert row["mean_loss"] >= 0 and row["max_loss"] >= 0
    t = peers.write_exactness([row], tmp_path / "e.csv", tmp_path / "e.md")
    hand = t.iloc[0]
    assert hand.dataset == "by hand" and hand.n_wrong == 1 and hand.max_loss == pytest.approx(15.0)
    assert "by hand" in (tmp_path / "e.md").read_text()
