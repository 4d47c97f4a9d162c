"""The PCC experiment functions end to end on a tiny synthetic dataset (no Snakemake)."""

import json
import time

import numpy as np
import pandas as pd
import pytest

from fmeasure import datasets
from fmeasure.experiments import pcc as O
from fmeasure.metrics import MEASURES

CFG = dict(
    Cs=[0.1, 10.0],
    cv=3,
    standardize=True,
    seed=1,
    chunk_size=4000,
    block_size=2,
    exact_max_labels=16,
    table4=dict(n_samples=200),
    figure5=dict(n_samples=[5, 50], runs=2),
)


def _dataset(tmp_path, name="yeast"):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(160, 4))
    Y = np.zeros((160, 3), dtype=np.int8)
    for j in range(3):
        Y[:, j] = rng.random(160) < 1 / (1 + np.exp(-(2 * X[:, j] + (2.0 * Y[:, j - 1] if j else 0) - 0.5)))
    ds = datasets.Dataset(
        name=name,
        X_train=X[:100],
        Y_train=Y[:100],
        X_test=X[100:],
        Y_test=Y[100:],
        label_names=["a", "b", "c"],
        feature_names=[f"x{i}" for i in range(4)],
    )
    path = tmp_path / f"{name}.npz"
    datasets.save(ds, path)
    return path, ds


def test_pcc_outputs_table4_and_figure5(tmp_path):
    data, ds = _dataset(tmp_path)
    model, info = tmp_path / "chain.pkl", tmp_path / "fit.json"
    chain, meta = O.write_model(data, CFG, model, info)
    assert json.loads(info.read_text())["train_time_s"] > 0 and meta["m"] == 3
    rows = O.run_table4_rows(model, data, info, CFG, jaccard_empty=1.0)
    assert rows.method.tolist() == ["MM", "JM", "FM", "GFM"]
    assert rows[list(MEASURES)].apply(lambda c: c.between(0, 100)).all().all()
    # JM is the chain's exact joint mode: check one instance against enumeration
    support, probs = O.load_chain(model).joint_distribution(ds.X_test[:1])
    h, _ = chain.joint_mode(ds.X_test[:1])
    assert tuple(h[0]) == tuple(support[np.argmax(probs[0])])
    rows.to_csv(tmp_path / "rows.csv", index=False)
    table = O.write_table4([tmp_path / "rows.csv"], tmp_path / "t4.csv", tmp_path / "t4.md", jaccard_empty=1.0)
    # the paper's numbers are joined by dataset name and method
    assert table.loc[table.method == "GFM", "f_paper"].item() == 65.63
    assert {"inference_time_s", "inference_time_s_paper", "inference_time_s_repeats"} <= set(table.columns)
    assert "**" in (tmp_path / "t4.md").read_text()
    curves = []
    for n in CFG["figure5"]["n_samples"]:
        c = O.run_curve(model, data, n, CFG)
        assert len(c) == 2 * CFG["figure5"]["runs"]
        curves.append(tmp_path / f"c{n}.csv")
        c.to_csv(curves[-1], index=False)
    again = O.run_curve(model, data, 5, CFG)
    pd.testing.assert_series_equal(again.f, pd.read_csv(curves[0]).f)  # seeded: same F every time
    ex = O.run_exact(model, data, CFG)
    ex.to_csv(tmp_path / "ex.csv", index=False)
    agg = O.write_figure5(curves, [tmp_path / "ex.csv"], tmp_path / "f5.csv", tmp_path / "f5.png", tmp_path / "f5.pdf")
    assert set(agg.n_samples) == {5, 50} and agg.exact_f.notna().all()
    assert (tmp_path / "f5.png").stat().st_size > 1000 and (tmp_path / "f5.pdf").is_file()


def test_pcc_outputs_exact_skipped_for_many_labels(tmp_path):
    data, _ = _dataset(tmp_path, name="other")
    O.write_model(data, CFG, tmp_path / "chain.pkl", tmp_path / "fit.json")
    assert len(O.run_exact(tmp_path / "chain.pkl", data, dict(CFG, exact_max_labels=2))) == 0


def test_pcc_outputs_curve_matches_separate_calls_per_method(tmp_path):
    """FM and GFM of a Figure 5 run share one draw of samples: the F of each equals that of a
    separate call for that method alone with the run's seed (the per-method path)."""
    data, ds = _dataset(tmp_path)
    model = tmp_path / "chain.pkl"
    chain, _ = O.write_model(data, CFG, model, tmp_path / "fit.json")
    cfg = dict(CFG, figure5=dict(n_samples=[20], runs=3, timing_best_of=2))
    rows = O.run_curve(model, data, 20, cfg)
    assert len(rows) == 6 and (rows.inference_time_s > 0).all()
    for r in range(3):
        for k, name in (("fm", "FM"), ("gfm", "GFM")):
            seed = np.random.SeedSequence([CFG["seed"], 20, r])
            H = chain.predict_from_samples(ds.X_test, (k,), n_samples=20, random_state=seed)[k]
            f_ref = 100 * float(
                np.mean(
                    [
                        2 * (h & y).sum() / max(1, h.sum() + y.sum()) if h.any() or y.any() else 1.0
                        for h, y in zip(H, ds.Y_test)
                    ]
                )
            )
            got = rows[(rows.run == r) & (rows.method == name)].f.item()
            assert abs(got - f_ref) < 1e-9


def _slowed(original, calls, pause):
    def call(self, *a, **k):
        calls.append(1)
        out = original(self, *a, **k)
        time.sleep(pause)  # a slower call, its own method times unchanged
        return out

    return call


@pytest.mark.parametrize(
    "repeat_below_s, pause, calls_per_run", [(1e-9, 0.0, 1), (1e9, 0.0, 3), (0.5, 0.3, 2), (0.2, 0.3, 1)]
)
def test_pcc_curve_repeats_a_run_until_its_calls_took_repeat_below_s(
    tmp_path, monkeypatch, repeat_below_s, pause, calls_per_run
):
    """The budget is the wall time of a run's calls in all (0.3 s each here: 2 calls reach 0.5 s),
    not the methods' own times (far shorter on this slice)."""
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

    data, ds = _dataset(tmp_path)
    model = tmp_path / "chain.pkl"
    O.write_model(data, CFG, model, tmp_path / "fit.json")
    calls = []
    original = ProbabilisticClassifierChain.predict_from_samples
    monkeypatch.setattr(ProbabilisticClassifierChain, "predict_from_samples", _slowed(original, calls, pause))
    cfg = dict(CFG, figure5=dict(n_samples=[20], runs=2, timing_best_of=3, repeat_below_s=repeat_below_s))
    rows = O.run_curve(model, data, 20, cfg)
    assert len(rows) == 4 and len(calls) == 2 * calls_per_run


@pytest.mark.parametrize("repeat_below_s, sampling_rounds", [(1e9, 3), (1e-9, 1)])
def test_pcc_table4_times_methods_in_rounds(tmp_path, monkeypatch, repeat_below_s, sampling_rounds):
    """Each round runs the sampling methods, then JM; neither is repeated once it took
    repeat_below_s; each method keeps its best round, every round and their spread."""
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

    data, _ = _dataset(tmp_path)
    model, info = tmp_path / "chain.pkl", tmp_path / "fit.json"
    O.write_model(data, CFG, model, info)
    calls = []
    sample, joint = ProbabilisticClassifierChain.predict_from_samples, ProbabilisticClassifierChain.joint_mode
    monkeypatch.setattr(
        ProbabilisticClassifierChain, "predict_from_samples", lambda s, *a, **k: calls.append("S") or sample(s, *a, **k)
    )
    monkeypatch.setattr(
        ProbabilisticClassifierChain, "joint_mode", lambda s, *a, **k: calls.append("J") or joint(s, *a, **k)
    )
    cfg = dict(CFG, table4=dict(n_samples=50, timing_best_of=3, repeat_below_s=repeat_below_s))
    rows = O.run_table4_rows(model, data, info, cfg, jaccard_empty=1.0).set_index("method")
    assert calls == ["S", "J"] * sampling_rounds
    for m in ("MM", "JM", "FM", "GFM"):
        reps = [float(x) for x in rows.loc[m, "inference_time_s_repeats"].split(";")]
        assert len(reps) == sampling_rounds
        assert rows.loc[m, "inference_time_s"] == pytest.approx(min(reps), rel=1e-3)  # 4 digits kept
    assert np.isnan(rows.loc["FM", "inference_time_s_spread"]) == (sampling_rounds == 1)
    # the predictions of every round are the same: the scores equal a one-round run's
    once = O.run_table4_rows(model, data, info, dict(CFG, table4=dict(n_samples=50)), jaccard_empty=1.0)
    assert once.f.tolist() == rows.f.tolist()
