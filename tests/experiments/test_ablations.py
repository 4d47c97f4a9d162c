"""Ablations: the deviation finder, the closest reading, the sentences and verdicts, on hand-made tables."""

import numpy as np
import pandas as pd
import pytest

from fmeasure.experiments.ablations import (
    FINDINGS_COLUMNS,
    find_deviations,
    needs_refit,
    run_ablations,
    setting_config,
    write_ablations,
)

SETTINGS = {
    "never_empty": {
        "stage": "parametric",
        "methods": ["LFP"],
        "overrides": {"lfp_allow_empty": False},
        "reading": "LFP never empty",
        "default": "LFP may be empty",
        "default_because": "eq. 1 allows it.",
    },
    "wild": {
        "stage": "parametric",
        "methods": ["LFP"],
        "overrides": {"standardize": False},
        "reading": "LFP wild",
        "default": "LFP tame",
        "default_because": "wild breaks Hamming.",
    },
    "f1": {
        "stage": "parametric",
        "overrides": {"scoring": "f1"},
        "reading": "C by CV F1",
        "default": "C by log loss",
        "default_because": "the paper says log loss.",
    },
    "samples": {
        "stage": "pcc",
        "methods": ["MM", "FM", "GFM"],
        "overrides": {"table4": {"n_samples": 10}},
        "reading": "10 samples",
        "default": "1000 samples",
        "default_because": "the paper uses 1000.",
    },
}


def _table5():
    return pd.DataFrame(
        {
            "dataset": ["scene", "scene", "enron"],
            "method": ["BR", "LFP", "LFP"],
            "hamming": [10.0, 12.0, 6.0],
            "hamming_paper": [10.51, 12.18, 9.0],
            "f": [60.0, 66.88, 57.0],
            "f_paper": [55.73, 74.38, 56.86],
            "train_time_s": [1.0, 1.0, 1.0],
            "train_time_s_paper": [29.0, 29.0, 52.0],  # times never deviate
        }
    )


def _table4():
    return pd.DataFrame(
        {
            "dataset": ["scene", "scene"],
            "method": ["MM", "JM"],
            "hamming": [9.9, 10.4],
            "hamming_paper": [9.89, 10.40],
            "subset01": [42.0, 30.0],
            "subset01_paper": [42.69, 34.87],
            "f": [66.4, 71.0],
            "f_paper": [62.73, 70.93],
            "jaccard": [61.0, 69.0],
            "jaccard_paper": [61.37, np.nan],
        }
    )


def test_ablations_find_deviations_on_a_hand_made_table():
    d = find_deviations(_table5(), "table5", threshold=2.0)
    assert d[["dataset", "method", "measure"]].values.tolist() == [
        ["scene", "BR", "f"],
        ["scene", "LFP", "f"],
        ["enron", "LFP", "hamming"],
    ]
    np.testing.assert_allclose(d["diff"], [60.0 - 55.73, 66.88 - 74.38, 6.0 - 9.0])
    d4 = find_deviations(_table4(), "table4", threshold=2.0)
    assert d4[["method", "measure"]].values.tolist() == [["MM", "f"], ["JM", "subset01"]]
    # exactly at the threshold is not a deviation; a larger threshold finds fewer
    t = _table5().assign(f=[57.73, 74.38, 56.86], hamming=[10.51, 12.18, 9.0])
    assert find_deviations(t, "table5", 2.0).empty
    assert len(find_deviations(_table5(), "table5", 4.0)) == 2
    with pytest.raises(ValueError, match="threshold"):
        find_deviations(_table5(), "table5", -1)


def _runs():
    par = pd.DataFrame(
        {
            "setting": ["never_empty", "f1", "f1"],
            "dataset": ["scene", "scene", "scene"],
            "method": ["LFP", "BR", "LFP"],
            "hamming": [12.3, 10.2, 13.0],
            "f": [74.1, 58.5, 70.0],
            "hamming_se": [0.3, 0.3, 0.3],
            "f_se": [1.1, 1.2, 1.3],
        }
    )
    pcc = pd.DataFrame(
        {
            "setting": ["samples"] * 2,
            "dataset": ["scene"] * 2,
            "method": ["MM", "JM"],
            "hamming": [10.0, 10.4],
            "subset01": [45.0, 30.0],
            "f": [67.0, 71.0],
            "jaccard": [60, 69],
            "f_se": [1.0, 1.0],
            "subset01_se": [1.4, 1.4],
        }
    )
    wild = pd.DataFrame(
        {"setting": ["wild"], "dataset": ["scene"], "method": ["LFP"], "hamming": [20.0], "f": [74.3], "f_se": [0.9]}
    )
    return [par, pcc, wild]


def test_ablations_closest_reading_and_within():
    t = run_ablations({"table5": _table5(), "table4": _table4()}, _runs(), SETTINGS, threshold=2.0)
    t = t.set_index(["table", "dataset", "method", "measure"])
    lfp = t.loc[("table5", "scene", "LFP", "f")]
    assert lfp["never_empty"] == 74.1 and lfp["f1"] == 70.0 and np.isnan(lfp["samples"])
    # wild is closest on F but moves Hamming from 0.18 to 7.82 points off: never_empty explains the cell
    assert lfp["closest"] == "wild" and lfp["within"] and lfp["se"] == 0.9 and lfp["closest_breaks"] == "hamming"
    assert lfp["closest_diff"] == pytest.approx(74.3 - 74.38)
    assert lfp["explained_by"] == "never_empty" and lfp["explained"]
    br = t.loc[("table5", "scene", "BR", "f")]  # never_empty does not apply to BR
    assert np.isnan(br["never_empty"]) and br["closest"] == "f1" and not br["within"] and not br["explained"]
    enron = t.loc[("table5", "enron", "LFP", "hamming")]  # nothing was run on enron
    assert enron["closest"] == "default" and enron["tried"] == "" and not enron["within"]
    mm = t.loc[("table4", "scene", "MM", "f")]  # the setting moves MM further off: default stays closest
    assert mm["samples"] == 67.0 and mm["closest"] == "default" and not mm["within"]
    jm = t.loc[("table4", "scene", "JM", "subset01")]  # the samples setting is not for JM
    assert np.isnan(jm["samples"]) and jm["closest"] == "default"


def test_ablations_sentences_and_findings(tmp_path):
    t = run_ablations({"table5": _table5(), "table4": _table4()}, _runs(), SETTINGS, threshold=2.0)
    paths = [tmp_path / n for n in ("a.csv", "a.md", "s.md", "f.csv")]
    findings = write_ablations(t, SETTINGS, 2.0, *paths)
    assert list(findings.columns) == FINDINGS_COLUMNS
    assert len(findings) == len(t) == 5
    by_id = findings.set_index("claim_id")
    assert by_id.loc["ablation-table5-scene-lfp-f", "verdict"] == "explained"
    assert by_id.loc["ablation-table5-scene-br-f", "verdict"] == "not explained"
    assert by_id.loc["ablation-table5-scene-lfp-f", "margin"] == pytest.approx(-0.28)  # the explaining reading
    summary = paths[2].read_text().splitlines()
    lfp = [s for s in summary if "scene, LFP, F-measure" in s][0]
    assert "74.38" in lfp and "66.88" in lfp and "LFP wild (74.30" in lfp and "moves Hamming loss" in lfp
    assert "LFP never empty (74.10, -0.28) reproduces the cell" in lfp and "eq. 1 allows it." in lfp
    assert "Also within 2 points" not in lfp  # f1 (70.00) is not within
    enron = [s for s in summary if "enron, LFP" in s][0]
    assert "No configured reading applies" in enron
    mm = [s for s in summary if "Table 4, scene, MM" in s][0]
    assert "No reading tried comes closer" in mm and "10 samples (67.00)" in mm
    md = paths[1].read_text()
    assert "never_empty" in md and "| 74.10 |" in md and "| 74.30 |" in md
    csv = pd.read_csv(paths[0])
    assert {"paper", "default", "never_empty", "f1", "samples", "closest", "within"} <= set(csv.columns)


def test_ablations_setting_config_and_refit():
    config = {
        "pcc": {"Cs": [1.0], "scoring": "log_loss", "table4": {"n_samples": 1000}},
        "ablations": {
            "settings": {
                "s": {"stage": "pcc", "overrides": {"table4": {"n_samples": 10}}},
                "f": {"stage": "pcc", "overrides": {"scoring": "f1"}},
                "typo": {"stage": "pcc", "overrides": {"scorng": "f1"}},
            }
        },
    }
    assert setting_config(config, "s") == {"Cs": [1.0], "scoring": "log_loss", "table4": {"n_samples": 10}}
    assert config["pcc"]["table4"]["n_samples"] == 1000  # the stage's block is not modified
    assert setting_config(config, "f")["scoring"] == "f1"
    with pytest.raises(ValueError, match="scorng"):
        setting_config(config, "typo")
    with pytest.raises(ValueError, match="nope"):
        setting_config(config, "nope")
    assert not needs_refit(config["ablations"]["settings"]["s"])
    assert needs_refit(config["ablations"]["settings"]["f"])
    assert needs_refit({"stage": "parametric", "overrides": {}})


def _noisy_parsed(path, seed=0):
    from fmeasure.datasets import Dataset, save

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(160, 4))
    Y = (rng.random((160, 6)) < 1 / (1 + np.exp(-(X @ rng.normal(size=(4, 6)) - 1.0)))).astype(np.int8)
    save(Dataset("toy", X[:120], Y[:120], X[120:], Y[120:]), path)
    return path


def test_parametric_settings_reuse_brs_label_models_only_where_they_are_the_same(tmp_path):
    """LFP under a setting predicts from the BR that setting fitted, or from the stage's BR when the
    setting keeps BR's settings: the same rows as LFP fitted on its own, without the second fit."""
    import json

    from fmeasure.datasets import load
    from fmeasure.experiments.ablations import run_setting
    from fmeasure.experiments.parametric import run_learner

    data = _noisy_parsed(tmp_path / "toy.npz")
    stage = {"learners": ["BR", "LFP", "EFP"], "Cs": [0.1, 1.0, 10.0], "cv": 3, "seed": 3}
    stage_br = run_learner(load(data), "BR", stage, model_path=tmp_path / "BR.pkl")
    (tmp_path / "BR.json").write_text(json.dumps(stage_br))
    br_fit = (tmp_path / "BR.pkl", tmp_path / "BR.json")

    def rows(name, cfg, methods, br_fit=None):
        spec = {"stage": "parametric", "methods": methods}
        return run_setting(name, spec, cfg, data, jaccard_empty=1.0, br_fit=br_fit).set_index("method")

    # only LFP's inference changes: the stage's BR serves, and the result is LFP's own fit's
    never_empty = dict(stage, lfp_allow_empty=False)
    shared, own = rows("never_empty", never_empty, ["LFP"], br_fit), rows("never_empty", never_empty, ["LFP"])
    assert shared.loc["LFP", "fit_shared_with"] == "BR" and pd.isna(own.loc["LFP", "fit_shared_with"])
    assert shared.loc["LFP", ["f", "hamming"]].tolist() == own.loc["LFP", ["f", "hamming"]].tolist()
    # BR's own settings change: the stage's BR is not used; LFP shares the setting's BR (listed after it)
    f1 = dict(stage, scoring="f1")
    both = rows("f1", f1, ["LFP", "BR"], br_fit)
    assert list(both.index) == ["LFP", "BR"] and both.loc["LFP", "fit_shared_with"] == "BR"
    alone = rows("f1", f1, ["LFP"])
    assert (
        both.loc["LFP", ["f", "hamming", "C_median"]].tolist()
        == alone.loc["LFP", ["f", "hamming", "C_median"]].tolist()
    )
    assert both.loc["LFP", "train_cpu_time_s"] == both.loc["BR", "train_cpu_time_s"]
    raw = rows("raw", dict(stage, standardize=False), ["LFP"], br_fit)
    assert pd.isna(raw.loc["LFP", "fit_shared_with"])


def test_pcc_settings_run_the_inference_once_with_the_rows_of_every_repeat(tmp_path):
    """The ablations compare measures, not times: a PCC setting runs Table 4's inference once where
    the stage repeats it for its times, and its rows are the measures of the repeated run."""
    from fmeasure.experiments import pcc
    from fmeasure.experiments.ablations import run_setting

    data = _noisy_parsed(tmp_path / "toy.npz", seed=1)
    cfg = {
        "Cs": [0.1, 1.0],
        "cv": 2,
        "seed": 3,
        "standardize": False,
        "chunk_size": 1000,
        "block_size": 4,
        "table4": {"n_samples": 200, "timing_best_of": 3, "repeat_below_s": 1e9},
    }
    model, info = tmp_path / "chain.pkl", tmp_path / "fit.json"
    pcc.write_model(data, cfg, model, info)
    stage = pcc.run_table4_rows(model, data, info, cfg, 1.0).set_index("method")
    spec = {"stage": "pcc", "overrides": {"table4": {"n_samples": 200}}}
    once = run_setting("s", spec, cfg, data, jaccard_empty=1.0, model_path=model, info_path=info).set_index("method")
    assert (stage["inference_time_s_repeats"].str.count(";") == 2).all()  # the stage: 3 rounds
    assert (once["inference_time_s_repeats"].str.count(";") == 0).all()  # the setting: 1
    measures = ["hamming", "subset01", "f", "jaccard"]
    pd.testing.assert_frame_equal(once[measures], stage[measures])
    # a setting that asks for repeats gets them
    spec = {"stage": "pcc", "overrides": {"table4": {"timing_best_of": 2}}}
    cfg2 = {**cfg, "table4": {**cfg["table4"], "timing_best_of": 2}}
    twice = run_setting("t", spec, cfg2, data, jaccard_empty=1.0, model_path=model, info_path=info)
    assert (twice["inference_time_s_repeats"].str.count(";") == 1).all()
