"""The trees stage: run_trees rows and scores, the ftrees table."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fmeasure import metrics
from fmeasure.experiments.trees import COLUMNS, MODELS, run_trees, write_trees_table
from fmeasure.learners import FMeasureTree


def _toy(seed=0, n=120, d=5, m=4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    Y = (rng.random((n, m)) < 0.3).astype(np.int8)
    Y[X[:, 0] > 0.5, 0] = 1
    return SimpleNamespace(name="toy", X_train=X[:80], Y_train=Y[:80], X_test=X[80:], Y_test=Y[80:])


def test_trees_experiment_rows_and_scores():
    ds = _toy()
    frames = [run_trees(ds, model, n_estimators=3, min_samples_leaf=3, max_bins=16, seed=1) for model in MODELS]
    df = pd.concat(frames, ignore_index=True)
    assert list(df.columns) == COLUMNS
    assert df["method"].tolist() == [m for ms in MODELS.values() for m in ms]
    # the F-tree row scores the tree's own predictions (hand check against metrics)
    H = FMeasureTree(min_samples_leaf=3, max_bins=16).fit(ds.X_train, ds.Y_train).predict(ds.X_test)
    assert df.loc[0, "f"] == pytest.approx(100 * metrics.f_measure(ds.Y_test, H).mean())
    assert df.loc[0, "hamming"] == pytest.approx(100 * metrics.hamming_loss(ds.Y_test, H).mean())
    assert (df[["train_time_s", "inference_time_s"]] >= 0).all().all()


def test_trees_experiment_table_order_and_bold(tmp_path):
    rows = []
    for dsname in ("b", "a"):
        for i, method in enumerate(reversed([m for ms in MODELS.values() for m in ms])):
            rows.append(
                {
                    "dataset": dsname,
                    "method": method,
                    "hamming": 10.0 + i,
                    "subset01": 50.0,
                    "f": 60.0 + i,
                    "jaccard": 50.0,
                    "train_time_s": 1.0,
                    "inference_time_s": 0.1,
                }
            )
    df = write_trees_table(pd.DataFrame(rows), tmp_path / "t.csv", tmp_path / "t.md", caption="Beyond the paper.")
    assert df["dataset"].tolist()[:5] == ["b"] * 5  # datasets in the order given
    assert df["method"].tolist()[:5] == [m for ms in MODELS.values() for m in ms]
    md = (tmp_path / "t.md").read_text()
    assert md.startswith("Beyond the paper.") and "**64.00**" in md and "**10.00**" in md


def test_trees_experiment_rejects_unknown_model():
    with pytest.raises(ValueError, match="model"):
        run_trees(_toy(), "boost")
    with pytest.raises(ValueError, match="predictions"):
        run_trees(_toy(), "bag", predictions=["mean"])
