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
