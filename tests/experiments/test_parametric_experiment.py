"""Table 5 plumbing: a learner run is scored correctly, the table puts the paper's numbers beside ours."""

import numpy as np
import pandas as pd
import pytest

from fmeasure.datasets import Dataset
from fmeasure.experiments.parametric import make_learner, run_learner, write_table5


def test_run_learner_scores_match_a_hand_count():
    # label 0 follows x exactly, label 1 is always on: BR gets every test label right
    X = np.repeat([[-2.0], [2.0]], 30, axis=0)
    Y = np.column_stack([(X[:, 0] > 0), np.ones(60)]).astype(np.int8)
    ds = Dataset("toy", X, Y, np.array([[-2.0], [2.0]]), np.array([[0, 1], [1, 0]], dtype=np.int8))
    rec = run_learner(ds, "BR", {"Cs": [10.0], "cv": 3, "seed": 0})
    # predictions (0,1) and (1,1): Hamming 0/2 and 1/2 -> 25%; F 1 and 2/3 -> 83.33%
    assert rec["hamming"] == pytest.approx(25.0)
    assert rec["f"] == pytest.approx(100 * (1 + 2 / 3) / 2)
    assert rec["train_time_s"] > 0 and rec["train_cpu_time_s"] >= 0 and rec["inference_time_s"] > 0


def test_make_learner_rejects_unknown_name():
    with pytest.raises(ValueError, match="learner"):
        make_learner("SVM", {"Cs": [1.0], "cv": 2, "seed": 0})


def test_table5_beside_paper_and_bold(tmp_path):
    recs = [
        dict(dataset="scene", method=n, hamming=h, f=f, train_time_s=1.0, inference_time_s=0.1, train_cpu_time_s=1.0)
        for n, h, f in [("EFP", 11.0, 75.0), ("BR", 10.0, 60.0), ("LFP", 12.0, 66.0)]
    ]
    table = write_table5(recs, tmp_path / "t.csv", tmp_path / "t.md")
    assert list(table.method) == ["BR", "LFP", "EFP"]
    assert table.loc[table.method == "EFP", "f_paper"].item() == pytest.approx(74.44)
    assert table.loc[table.method == "BR", "hamming_diff"].item() == pytest.approx(10.0 - 10.51)
    md = (tmp_path / "t.md").read_text()
    assert "**75.00**" in md and "**10.00**" in md and "**74.44**" in md
    assert "**10.51**" not in md and "| 10.51 |" in md  # the paper bolds nothing in scene's Hamming column
    assert pd.read_csv(tmp_path / "t.csv").shape[0] == 3


class _Clock:
    """A fake clock: each fake learner's predict advances it by its next duration."""

    def __init__(self):
        self.now, self.calls = 0.0, []

    def __call__(self):
        return self.now


class _FakeLearner:
    def __init__(self, name, clock, durations):
        self.name, self.clock, self.durations = name, clock, list(durations)

    def predict(self, X):
        self.clock.calls.append(self.name)
        self.clock.now += self.durations.pop(0)
        return np.zeros((len(X), 1), dtype=np.int8)


def _timed_learners(monkeypatch, durations):
    from fmeasure.experiments import parametric as P

    clock = _Clock()
    monkeypatch.setattr(P.time, "perf_counter", clock)
    monkeypatch.setattr(P.time, "process_time", clock)
    ds = Dataset("toy", np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((3, 1)), np.zeros((3, 1)))
    return P, clock, ds, {n: _FakeLearner(n, clock, d) for n, d in durations.items()}


def test_time_inference_times_every_learner_in_rounds_after_an_untimed_round(monkeypatch):
    # first value: the untimed round (a slow first call), then three rounds
    P, clock, ds, models = _timed_learners(monkeypatch, {"BR": [9.0, 3.0, 2.0, 4.0], "LFP": [8.0, 1.0, 5.0, 6.0]})
    t = P.time_inference(ds, models, repeats=3)
    assert clock.calls == ["BR", "LFP"] * 4
    assert t.columns.tolist() == P.TIMES_COLUMNS
    assert t[t.method == "BR"].inference_time_s.tolist() == [3.0, 2.0, 4.0]
    assert t[t.method == "LFP"].inference_time_s.tolist() == [1.0, 5.0, 6.0]
    assert t.repeat.tolist() == [0, 0, 1, 1, 2, 2]


def test_time_inference_does_not_repeat_a_long_learner(monkeypatch):
    P, clock, ds, models = _timed_learners(monkeypatch, {"BR": [1.0, 0.1, 0.2, 0.3], "EFP": [30.0, 20.0]})
    t = P.time_inference(ds, models, repeats=3, repeat_below_s=10.0)
    assert clock.calls == ["BR", "EFP", "BR", "EFP", "BR", "BR"]
    assert t.groupby("method").size().to_dict() == {"BR": 3, "EFP": 1}


def test_table5_inference_times_are_the_best_round_with_every_round(tmp_path):
    recs = [
        dict(
            dataset="scene",
            method=n,
            hamming=10.0,
            f=60.0,
            train_time_s=1.0,
            inference_time_s=0.5,
            train_cpu_time_s=1.0,
        )
        for n in ("BR", "LFP")
    ]
    times = pd.DataFrame(
        {
            "dataset": "scene",
            "method": ["BR", "LFP"] * 3,
            "repeat": [0, 0, 1, 1, 2, 2],
            "inference_time_s": [0.3, 0.4, 0.2, 0.5, 0.25, 0.45],
            "inference_cpu_time_s": [0.3, 0.4, 0.21, 0.5, 0.2, 0.45],
        }
    )
    t = write_table5(recs, tmp_path / "t.csv", tmp_path / "t.md", times=[times]).set_index("method")
    assert t.loc["BR", "inference_time_s"] == 0.2 and t.loc["LFP", "inference_time_s"] == 0.4
    assert t.loc["BR", "inference_time_s_repeats"] == "0.3;0.2;0.25"
    assert t.loc["BR", "inference_time_s_spread"] == pytest.approx(100 * np.log(0.25 / 0.2))
    assert t.loc["BR", "inference_cpu_time_s"] == 0.2
    assert t.loc["BR", "inference_time_s_paper"] == pytest.approx(0.241)  # the paper's cell stays beside ours
    assert "best of 3 rounds" in (tmp_path / "t.md").read_text()
    # without the rounds: the fit job's single timing, no spread
    t = write_table5(recs, tmp_path / "u.csv", tmp_path / "u.md").set_index("method")
    assert t.loc["BR", "inference_time_s"] == 0.5 and t.loc["BR", "inference_time_s_repeats"] == "0.5"
    assert np.isnan(t.loc["BR", "inference_time_s_spread"]) and "one timing each" in (tmp_path / "u.md").read_text()


def test_run_learner_keeps_the_fitted_model_for_the_timing_job(tmp_path):
    import pickle

    from fmeasure.experiments.parametric import load_model

    X = np.repeat([[-2.0], [2.0]], 30, axis=0)
    Y = np.column_stack([(X[:, 0] > 0), np.ones(60)]).astype(np.int8)
    ds = Dataset("toy", X, Y, np.array([[-2.0], [2.0]]), np.array([[0, 1], [1, 0]], dtype=np.int8))
    run_learner(ds, "LFP", {"Cs": [10.0], "cv": 3, "seed": 0}, model_path=tmp_path / "LFP.pkl")
    assert load_model(tmp_path / "LFP.pkl").predict(ds.X_test).tolist() == [[0, 1], [1, 1]]
    (tmp_path / "x.pkl").write_bytes(pickle.dumps({"not": "a model"}))
    with pytest.raises(ValueError, match="not a pickled"):
        load_model(tmp_path / "x.pkl")


def _noisy_toy(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(160, 4))
    logits = X @ rng.normal(size=(4, 6)) - 1.0
    Y = (rng.random((160, 6)) < 1 / (1 + np.exp(-logits))).astype(np.int8)
    return Dataset("toy", X[:120], Y[:120], X[120:], Y[120:])


def test_lfp_predicts_from_brs_fit_as_from_its_own(tmp_path):
    """LFP on BR's pickled models gives the scores of LFP's own fit, with BR's training times,
    and is not BR: its predictions differ from BR's on this data."""
    import json

    ds = _noisy_toy()
    cfg = {"Cs": [0.1, 1.0, 10.0], "cv": 3, "seed": 3}
    br, br_inst = run_learner(ds, "BR", cfg, return_instances=True, model_path=tmp_path / "BR.pkl")
    (tmp_path / "BR.json").write_text(json.dumps(br))
    own, own_inst = run_learner(ds, "LFP", cfg, return_instances=True)
    shared, shared_inst = run_learner(
        ds, "LFP", cfg, return_instances=True, br_fit=(tmp_path / "BR.pkl", tmp_path / "BR.json")
    )
    assert own["fit_shared_with"] is None and shared["fit_shared_with"] == "BR"
    assert shared["f"] == own["f"] and shared["hamming"] == own["hamming"]
    pd.testing.assert_frame_equal(shared_inst, own_inst)
    assert shared["train_time_s"] == br["train_time_s"] and shared["train_cpu_time_s"] == br["train_cpu_time_s"]
    assert not np.allclose(shared_inst["f"].to_numpy(), br_inst["f"].to_numpy())


def test_lfp_fits_its_own_models_when_brs_settings_differ(tmp_path):
    import json

    ds = _noisy_toy(1)
    br = run_learner(ds, "BR", {"Cs": [0.01], "cv": 3, "seed": 3}, model_path=tmp_path / "BR.pkl")
    (tmp_path / "BR.json").write_text(json.dumps(br))
    cfg = {"Cs": [10.0], "cv": 3, "seed": 3}
    own = run_learner(ds, "LFP", cfg)
    shared = run_learner(ds, "LFP", cfg, br_fit=(tmp_path / "BR.pkl", tmp_path / "BR.json"))
    assert shared["fit_shared_with"] is None and shared["f"] == own["f"]
    assert shared["C_median"] == 10.0


def test_lfp_from_binary_relevance_needs_a_fitted_br():
    from fmeasure.learners.parametric import EFP, LFP, BinaryRelevance

    with pytest.raises(ValueError, match="fitted BinaryRelevance"):
        LFP.from_binary_relevance(BinaryRelevance())
    with pytest.raises(ValueError, match="fitted BinaryRelevance"):
        LFP.from_binary_relevance(EFP())
