"""Tests of the Table 2/3 experiment driver (fmeasure.experiments.knn)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fmeasure.experiments.knn import run_knn, write_tables


def _toy():
    # test point 0 has neighbours (by distance) rows 0, 1, 2 of the training set, test
    # point 1 has rows 3, 2, 1.
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    Y = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 0], [0, 1, 1]])
    Xt = np.array([[0.0], [9.0]])
    Yt = np.array([[1, 0, 0], [0, 1, 0]])
    return SimpleNamespace(name="scene", X_train=X, Y_train=Y, X_test=Xt, Y_test=Yt)


def test_run_knn_scores_hand_computed():
    res = run_knn(_toy(), neighbours=[1, 3], methods=["mm", "jm"], jaccard_empty=0.0)
    r = res.set_index(["l", "method"])
    # l = 1: predictions (1,0,0) and (0,1,1): Hamming 0 and 1/3 -> 16.67 %; subset 0/1 50 %;
    # F 1 and 2*1/(1+2) = 2/3 -> 83.33 %; Jaccard 1 and 1/2 -> 75 %
    for m in ["MM", "JM"]:
        assert r.loc[(1, m), "hamming"] == pytest.approx(100 / 6)
        assert r.loc[(1, m), "subset01"] == pytest.approx(50)
        assert r.loc[(1, m), "f"] == pytest.approx(250 / 3)
        assert r.loc[(1, m), "jaccard"] == pytest.approx(75)
    # l = 3, test 1: neighbours (0,1,1), (1,0,0), (1,1,0): MM (1,1,0) [p = 2/3, 2/3, 1/3];
    # JM: all distinct -> the nearest's (0,1,1). Test 0: MM (1,0,0), JM (1,0,0).
    # MM: Hamming (0 + 1/3)/2; F (1 + 2/3)/2.  JM: Hamming (0 + 1/3)/2; F (1 + 2/3)/2
    assert r.loc[(3, "MM"), "f"] == pytest.approx(100 * (1 + 2 / 3) / 2)
    assert r.loc[(3, "JM"), "jaccard"] == pytest.approx(100 * (1 + 1 / 2) / 2)
    assert (res["time_s"] == res["search_time_s"] + res["inference_time_s"]).all()
    assert (res["search_time_s"] > 0).all() and (res["inference_time_s"] > 0).all()
    with pytest.raises(ValueError, match="methods"):
        run_knn(_toy(), neighbours=[1], methods=["lewis"])


def test_knn_tables_beside_paper(tmp_path):
    res = run_knn(_toy(), neighbours=[10, 20], methods=["mm", "gfm"])
    out = {k: tmp_path / f"{k}.{k[-3:]}" for k in ["t2_csv", "t2_md", "t3_csv", "t3_md"]}
    t2, t3 = write_tables(
        res,
        table2_csv=out["t2_csv"],
        table2_md=out["t2_md"],
        table3_csv=out["t3_csv"],
        table3_md=out["t3_md"],
        caption2="Table 2 caption",
        caption3="Table 3 caption",
    )
    # the paper's scene MM, l = 10 row: 10.28 / 40.47 / 65.80 / 64.23
    row = t2.set_index(["method", "l"]).loc[("MM", 10)]
    assert row["hamming_paper"] == 10.28 and row["jaccard_paper"] == 64.23
    assert row["f_diff"] == pytest.approx(row["f"] - 65.80)
    assert t3.set_index(["method", "l"]).loc[("GFM", 20), "time_s_paper"] == 8.171
    assert {"search_time_s_repeats", "inference_time_s_repeats", "inference_time_s_spread"} <= set(t3.columns)
    md = out["t2_md"].read_text()
    assert md.startswith("Table 2 caption") and "(10.28, " in md and "**" in md
    assert len(pd.read_csv(out["t2_csv"])) == 4


def test_run_knn_counts_empty_test_label_sets():
    ds = _toy()
    ds.Y_test = np.array([[0, 0, 0], [0, 1, 0]])
    res = run_knn(ds, neighbours=[1], methods=["mm"])
    assert res[["n_test", "n_test_empty"]].values.tolist() == [[2, 1]]


def test_run_knn_times_search_and_inference_in_rounds(monkeypatch):
    """Per l, each round times the search, then every method's inference; the best round is kept
    with every round's time and the spread 100 ln(second best / best)."""
    from fmeasure import timing
    from fmeasure.learners.knn import KNeighborsFMeasure

    clock = {"now": 0.0}
    calls = []
    durations = {"search": [3.0, 2.0, 4.0], "mm": [1.0, 1.5, 0.5], "jm": [2.0, 2.0, 2.5]}
    search, infer = KNeighborsFMeasure.kneighbors, KNeighborsFMeasure.predict_from_neighbors

    def tick(step):
        calls.append(step)
        clock["now"] += durations[step][sum(c == step for c in calls) - 1]

    def kneighbors(self, X):
        tick("search")
        return search(self, X)

    def predict_from_neighbors(self, ind):
        tick(self.inference)
        return infer(self, ind)

    monkeypatch.setattr(KNeighborsFMeasure, "kneighbors", kneighbors)
    monkeypatch.setattr(KNeighborsFMeasure, "predict_from_neighbors", predict_from_neighbors)
    monkeypatch.setattr(timing, "time", SimpleNamespace(perf_counter=lambda: clock["now"]))
    res = run_knn(_toy(), neighbours=[3], methods=["mm", "jm"], timing_best_of=3).set_index("method")
    assert calls == ["search", "mm", "jm"] * 3
    assert res.search_time_s.tolist() == [2.0, 2.0]
    assert res.search_time_s_repeats.tolist() == ["3;2;4"] * 2
    assert res.loc["MM", "inference_time_s"] == 0.5 and res.loc["MM", "inference_time_s_repeats"] == "1;1.5;0.5"
    assert res.loc["JM", "time_s"] == 2.0 + 2.0
    assert res.loc["MM", "search_time_s_spread"] == pytest.approx(100 * np.log(3 / 2))
    assert res.loc["JM", "inference_time_s_spread"] == 0.0  # two rounds of 2 s
