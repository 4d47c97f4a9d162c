"""Findings: verdicts follow margin and SE, and every claim can come out false as well as true."""

import numpy as np
import pandas as pd
import pytest

from fmeasure.experiments import findings as F
from fmeasure.experiments import knn as K
from fmeasure.experiments import parametric as P
from fmeasure.experiments import simulations as E


@pytest.mark.parametrize(
    "margin, se, kind, expected",
    [
        (1.0, 0.4, "better", "confirmed"),  # 1.0 > 2 * 0.4
        (0.7, 0.4, "better", "not confirmed"),  # within 2 SE: a tie
        (-0.9, 0.4, "better", "contradicted"),
        (0.0, 0.0, "better", "not confirmed"),
        (0.7, 0.4, "tie", "confirmed"),
        (1.0, 0.4, "tie", "not confirmed"),
        (-1.0, 0.4, "tie", "not confirmed"),
    ],
)
def test_findings_verdict_follows_margin_and_se(margin, se, kind, expected):
    assert F.verdict(margin, se, kind) == expected


def test_findings_verdict_rejects_bad_input():
    with pytest.raises(ValueError, match="kind"):
        F.verdict(1.0, 0.1, "best")
    with pytest.raises(ValueError, match="se"):
        F.verdict(1.0, -0.1)


def test_findings_bootstrap_se_matches_the_paired_formula():
    rng = np.random.default_rng(1)
    a = rng.normal(0.5, 1.0, 2000)
    b = a - rng.normal(0.2, 0.5, 2000)
    margin, se = F.bootstrap_margin({"a": a, "b": b}, "a", ["b"], n_boot=2000, seed=3)
    d = a - b
    assert margin == pytest.approx(d.mean())
    assert se == pytest.approx(d.std(ddof=1) / np.sqrt(d.size), rel=0.1)


def test_findings_bootstrap_margin_takes_the_best_competitor():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    margin, _ = F.bootstrap_margin({"a": x, "b": x - 1, "c": x + 0.5}, "a", ["b", "c"], n_boot=20)
    assert margin == pytest.approx(-0.5)


def test_findings_combine_weakest_cell_decides():
    cells = pd.DataFrame({"label": ["x", "y", "z"], "margin": [3.0, 1.0, 5.0], "se": [1.0, 0.9, 1.0]})
    c = F.combine(cells)
    assert c["verdict"] == "not confirmed" and c["weakest"] == "y" and c["n_confirmed"] == 2
    cells.loc[1, "margin"] = -2.0
    assert F.combine(cells)["verdict"] == "contradicted"
    cells.loc[1, "margin"] = 2.0
    assert F.combine(cells)["verdict"] == "confirmed"


# ---- Section 6: each claim built true, false and tied


def _scores(data_model, claimed, others, measure, delta, *, sizes=(5, 10, 20, 100, 1000), rng=None, noise=0.5):
    """Per-run scores (fractions) where ``claimed`` beat ``others`` on ``measure`` by ``delta`` points."""
    rng = rng or np.random.default_rng(0)
    rows = []
    sign = -1.0 if measure in ("hamming", "subset01") else 1.0
    for n in sizes:
        for model in range(5):
            for t in range(6):
                base = rng.normal(50, 5)
                for method in ["MM", "JM", "FM", "GFM"]:
                    v = base + rng.normal(0, noise)
                    if method in claimed:
                        v += sign * delta
                    elif method not in others:
                        v -= sign * 20  # methods outside the claim: far behind
                    row = {
                        "data_model": data_model,
                        "model": model,
                        "train_size": n,
                        "train_set": t,
                        "method": method,
                        "hamming": 0.3,
                        "subset01": 0.6,
                        "f": 0.5,
                        "jaccard": 0.4,
                    }
                    row[measure] = v / 100
                    rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize("cid", sorted(E.SECTION6_CLAIMS))
def test_section6_claim_comes_out_true_false_and_tied(cid):
    data_model, measure, claimed, others, _, how = E.SECTION6_CLAIMS[cid]
    verdicts = {}
    for label, delta in (("ahead", 5.0), ("behind", -5.0), ("equal", 0.0)):
        noise = 0.5 if delta else 0.0  # equal: the same score for every method in each run
        t = E.claims_table(_scores(data_model, claimed, others, measure, delta, noise=noise)).set_index("claim_id")
        verdicts[label] = t.loc[cid, "verdict"]
        assert np.sign(round(t.loc[cid, "margin"], 6)) == np.sign(delta) or delta == 0
    if how == "better":
        assert verdicts == {"ahead": "confirmed", "behind": "contradicted", "equal": "not confirmed"}
    else:
        assert verdicts == {"ahead": "not confirmed", "behind": "not confirmed", "equal": "confirmed"}


def test_section6_margin_and_se_are_the_paired_statistics():
    s = _scores("chain", ["MM"], ["JM", "FM", "GFM"], "hamming", 1.0, sizes=(1000,))
    t = E.claims_table(s).set_index("claim_id").loc["sim.chain.hamming"]
    w = s.pivot_table(index=["model", "train_set"], columns="method", values="hamming") * -100
    best_other = w[["JM", "FM", "GFM"]].mean().idxmax()
    d = w["MM"] - w[best_other]
    assert t["margin"] == pytest.approx(d.mean())
    assert t["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(len(d)))


def test_timing_claims_gfm_slowest_can_fail():
    def summary(gfm_ms):
        rows = []
        for step in ("estimation", "inference"):
            for method, ms in (("MM", 1.0), ("FM", 1.0), ("GFM", gfm_ms)):
                rows.append(
                    {"step": step, "method": method, "n_labels": 100, "time_ms_mean": ms, "time_ms_se": 0.01, "n": 3}
                )
        return pd.DataFrame(rows)

    assert E.timing_claims(summary(5.0)).set_index("claim_id").loc["fig4", "verdict"] == "confirmed"
    assert E.timing_claims(summary(0.5)).set_index("claim_id").loc["fig4", "verdict"] == "contradicted"
    # GFM 10% slower: 100 ln 1.1 = 9.5, within the timings' floor of 2 x 10 (the SEs, 1% of 1 ms, are less)
    row = E.timing_claims(summary(1.1)).set_index("claim_id").loc["fig4"]
    assert row["verdict"] == "not confirmed" and row["margin"] == pytest.approx(100 * np.log(1.1))
    assert row["se"] == F.TIME_SE_FLOOR


@pytest.mark.parametrize("fm_ms, expected", [(1.0, "confirmed"), (1.05, "confirmed"), (1.5, "not confirmed")])
def test_timing_claims_fm_estimation_equals_mm(fm_ms, expected):
    rows = [
        {"step": "estimation", "method": m, "n_labels": k, "time_ms_mean": ms, "time_ms_se": 0.01, "n": 3}
        for k in (10, 100)
        for m, ms in (("MM", 1.0), ("FM", fm_ms if k == 100 else 1.0), ("GFM", 4.0))
    ]
    row = E.timing_claims(pd.DataFrame(rows)).set_index("claim_id").loc["sim.time.fm_est"]
    assert row["verdict"] == expected and row["margin"] == pytest.approx(100 * np.log(fm_ms))


# ---- real datasets: paired bootstrap over test instances


def _knn_files(tmp_path, mm_better: bool):
    rng = np.random.default_rng(2)
    rows = []
    for ds in ("scene", "enron"):
        for l in (10, 20):
            base = rng.integers(0, 3, 300) * 10.0
            for method in ("MM", "JM", "FM", "GFM"):
                ham = base + (0 if (method == "MM") == mm_better else 15) + rng.normal(0, 1, 300)
                for i in range(300):
                    rows.append(
                        {
                            "dataset": ds,
                            "l": l,
                            "method": method,
                            "instance": i,
                            "hamming": ham[i],
                            "subset01": 50.0,
                            "f": 50.0,
                            "jaccard": 50.0,
                        }
                    )
    inst = tmp_path / "inst.csv"
    pd.DataFrame(rows).to_csv(inst, index=False)
    t2 = pd.DataFrame(
        {
            "dataset": "scene",
            "method": "MM",
            "l": 10,
            **{m: 1.0 for m in K.MEASURES},
            **{f"{m}_paper": 1.5 for m in K.MEASURES},
        },
        index=[0],
    )
    t3 = pd.DataFrame(
        {"dataset": ["scene"], "method": ["MM"], "l": [10], "search_time_s": [2.0], "inference_time_s": [1.0]}
    )
    t2.to_csv(tmp_path / "t2.csv", index=False)
    t3.to_csv(tmp_path / "t3.csv", index=False)
    return [inst], tmp_path / "t2.csv", tmp_path / "t3.csv"


@pytest.mark.parametrize("mm_better, expected", [(True, "confirmed"), (False, "contradicted")])
def test_knn_mm_hamming_claim_follows_the_instances(tmp_path, mm_better, expected):
    inst, t2, t3 = _knn_files(tmp_path, mm_better)
    out = K.write_findings(inst, t2, t3, tmp_path / "knn.csv", n_boot=200).set_index("claim_id")
    assert out.loc["knn.mm_hamming", "verdict"] == expected
    assert out.loc["table2", "verdict"] == "confirmed"  # every cell within 2 points of the paper
    assert out.loc["table3", "verdict"] == "confirmed"  # search 2 s > inference 1 s


@pytest.mark.parametrize(
    "search, inference, expected",
    [
        ("0.30;0.20;0.21", "0.10;0.11;0.12", "confirmed"),  # 100 ln(0.2 / 0.1) = 69 > 2 x 10
        ("0.30;0.20;0.21", "0.19;0.25;0.19", "not confirmed"),  # 100 ln(0.2 / 0.19) = 5: a tie
        ("0.30;0.20;0.21", "0.40;0.41;0.60", "contradicted"),  # inference takes twice the search
        ("0.11;0.10;0.30", "0.08;0.16;0.09", "not confirmed"),  # 22 apart, but spreads 9.5 and 11.8: SE 15
    ],
)
def test_knn_table3_claim_compares_repeated_search_and_inference_times(tmp_path, search, inference, expected):
    inst, t2, t3 = _knn_files(tmp_path, mm_better=True)
    rows = pd.DataFrame(
        {
            "dataset": ["scene", "scene"],
            "method": ["MM", "GFM"],
            "l": [10, 10],
            "search_time_s": [2.0, 2.0],  # the single-timing columns: would confirm by themselves
            "inference_time_s": [1.0, 1.0],
            "search_time_s_repeats": ["0.30;0.20;0.21", search],
            "inference_time_s_repeats": ["0.10;0.11;0.12", inference],
        }
    )
    rows.to_csv(t3, index=False)
    out = K.write_findings(inst, t2, t3, tmp_path / "knn.csv", n_boot=50).set_index("claim_id").loc["table3"]
    assert out["verdict"] == expected
    s, i = (np.array(x.split(";"), dtype=float) for x in (search, inference))
    assert out["margin"] == pytest.approx(min(100 * np.log(0.2 / 0.1), 100 * np.log(s.min() / i.min())))
    weakest = "MM" if expected == "confirmed" else "GFM"  # equal margins: the first cell
    assert "(best of 3 repeats)" in out["evidence"] and out["evidence"].endswith(f"weakest: scene l=10 {weakest}")


def test_parametric_claims_follow_the_instances(tmp_path):
    rng = np.random.default_rng(5)

    def files(efp_delta):
        rows = []
        for method, d in (("BR", -10.0), ("LFP", 0.0), ("EFP", efp_delta)):
            f = 60 + d + rng.normal(0, 3, 400)
            rows += [
                {"dataset": "yeast", "method": method, "instance": i, "hamming": 20.0, "f": f[i]} for i in range(400)
            ]
        p = tmp_path / f"inst_{efp_delta}.csv"
        pd.DataFrame(rows).to_csv(p, index=False)
        t5 = pd.DataFrame(
            {
                "dataset": ["yeast"] * 3,
                "method": ["BR", "LFP", "EFP"],
                "hamming": [20.0] * 3,
                "hamming_paper": [20.03, 22.24, 22.82],
                "f": [50.0, 60.0, 60 + efp_delta],
                "f_paper": [60.59, 65.02, 65.47],
                "inference_time_s": [0.1, 0.2, 0.3],
            }
        )
        t5.to_csv(tmp_path / "t5.csv", index=False)
        return [p], tmp_path / "t5.csv"

    inst, t5 = files(3.0)
    out = P.write_findings(inst, t5, tmp_path / "p.csv", n_boot=200).set_index("claim_id")
    assert out.loc["par.efp_f", "verdict"] == "confirmed"
    assert out.loc["par.br_f", "verdict"] == "confirmed"
    assert out.loc["par.br_inference", "verdict"] == "confirmed"
    assert out.loc["table5", "verdict"] == "not confirmed"  # BR F 50.0 vs the paper's 60.59
    inst, t5 = files(-3.0)
    out = P.write_findings(inst, t5, tmp_path / "p.csv", n_boot=200).set_index("claim_id")
    assert out.loc["par.efp_f", "verdict"] == "contradicted"


def test_findings_collect_fills_every_claim_of_the_paper(tmp_path):
    p = tmp_path / "knn.csv"
    F.write_findings([F.finding("knn.mm_hamming", "kNN: MM", "7.2.1", "confirmed", 1.0, 0.1)], p)
    out = F.collect([p], {"voting": "stage not part of this workflow"})
    cat = F.paper_claims()
    assert out.claim_id.tolist() == cat[cat.kind != "beyond"].claim_id.tolist()  # beyond the paper: only if run
    assert out.set_index("claim_id").loc["knn.mm_hamming", "verdict"] == "confirmed"
    assert out.set_index("claim_id").loc["vote.lfp", "verdict"] == "not run (stage not part of this workflow)"
    assert out.set_index("claim_id").loc["pcc.gfm_fm", "verdict"] == "not run (no findings written)"


def test_findings_unknown_claim_id_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="claims.csv"):
        F.write_findings([F.finding("made.up", "x", "1", "confirmed")], tmp_path / "x.csv")


@pytest.mark.parametrize("hamming_sup, expected", [(2 / 3, "contradicted"), (0.5, "confirmed")])
def test_theorem_3_1_verdict_follows_the_lp(tmp_path, hamming_sup, expected):
    from fmeasure.experiments import theory as T

    lp = pd.DataFrame(
        {
            "surrogate": ["hamming", "hamming", "threshold", "threshold"],
            "m": [3, 4, 3, 12],
            "lp_sup": [hamming_sup, hamming_sup, 1 / 42, 0.03],
            "theorem": [0.5, 0.5, 0.0, 1 / 24],
        }
    )
    lp.to_csv(tmp_path / "lp.csv", index=False)
    out = T.write_findings({"lp": tmp_path / "lp.csv"}, tmp_path / "theory.csv").set_index("claim_id")
    assert out.loc["thm3.1", "verdict"] == expected
    assert out.loc["thm3.1", "margin"] == pytest.approx(100 * (hamming_sup - 0.5))
    assert out.loc["thm4.5", "verdict"] == "contradicted"  # m = 12: supremum 0.03 below the bound 1/24


@pytest.mark.parametrize("gfm_delta, expected", [(4.0, "confirmed"), (-4.0, "contradicted"), (0.0, "not confirmed")])
def test_pcc_gfm_claim_follows_the_instances(tmp_path, gfm_delta, expected):
    from fmeasure.experiments import pcc as PC

    rng = np.random.default_rng(7)
    rows = []
    base = rng.uniform(40, 80, 500)
    for method, d in (("MM", -10.0), ("JM", -8.0), ("FM", 0.0), ("GFM", gfm_delta)):
        f = base + d + (rng.normal(0, 2, 500) if d else 0.0)
        rows += [
            {
                "dataset": "scene",
                "method": method,
                "instance": i,
                "hamming": 10.0,
                "subset01": 40.0,
                "f": f[i],
                "jaccard": 50.0,
            }
            for i in range(500)
        ]
    pd.DataFrame(rows).to_csv(tmp_path / "inst.csv", index=False)
    t4 = pd.DataFrame(
        {
            "dataset": "scene",
            "method": ["MM", "JM", "FM", "GFM"],
            "hamming": 10.0,
            "hamming_paper": 9.89,
            "inference_time_s": [1.0, 0.1, 1.0, 1.1],
        }
    )
    t4.to_csv(tmp_path / "t4.csv", index=False)
    f5 = pd.DataFrame(
        {"dataset": "scene", "method": "GFM", "n_samples": [100, 1000], "f_mean": [72.0, 72.1], "f_se": [0.1, 0.1]}
    )
    f5.to_csv(tmp_path / "f5.csv", index=False)
    out = PC.write_findings(
        [tmp_path / "inst.csv"], tmp_path / "t4.csv", tmp_path / "f5.csv", tmp_path / "p.csv", n_boot=200
    ).set_index("claim_id")
    assert out.loc["pcc.gfm_fm", "verdict"] == expected
    assert out.loc["pcc.f_maximizers", "verdict"] == "confirmed"
    assert out.loc["pcc.jm_fast", "verdict"] == "confirmed"  # JM 0.1 s, the others >= 1 s
    assert out.loc["fig5", "verdict"] == "confirmed"  # +0.1 with SE 0.14: levels off


def test_paper_differences_and_far_from_paper_by_hand():
    from fmeasure.experiments.findings import deviation_finding, far_from_paper, paper_differences

    t = pd.DataFrame(
        {
            "dataset": ["a", "a", "b"],
            "method": ["X", "Y", "X"],
            "f": [70.0, 60.0, np.nan],
            "f_paper": [71.0, 65.0, 50.0],
            "hamming": [2.0, 9.0, 4.0],
            "hamming_paper": [2.5, np.nan, 1.0],
        }
    )
    d = paper_differences(t, ["f", "hamming"], ["dataset", "method"])
    # row by row, measures in the given order; cells missing either value are left out
    assert d[["dataset", "method", "measure"]].values.tolist() == [
        ["a", "X", "f"],
        ["a", "X", "hamming"],
        ["a", "Y", "f"],
        ["b", "X", "hamming"],
    ]
    assert d["diff"].tolist() == [-1.0, -0.5, -5.0, 3.0]
    far = far_from_paper(t, ["f", "hamming"], ["dataset", "method"], 2.0)
    assert far[["method", "measure", "diff"]].values.tolist() == [["Y", "f", -5.0], ["X", "hamming", 3.0]]
    assert far_from_paper(t, ["f"], ["dataset", "method"], 5.0).empty  # strictly more than the threshold
    with pytest.raises(ValueError, match="deviation_points"):
        far_from_paper(t, ["f"], ["dataset"], -1)
    row = deviation_finding("table5", t, ["f", "hamming"], threshold=2.0)
    assert row["verdict"] == "not confirmed" and row["margin"] == 5.0
    assert row["evidence"].startswith("2 of 4 cells more than 2 points") and "a Y f -5.00" in row["evidence"]
    assert deviation_finding("table5", t, ["f", "hamming"], threshold=5.0)["verdict"] == "confirmed"


@pytest.mark.parametrize(
    "jm, fm, expected",
    [
        ([1.0, 1.0], [2.0, 3.0], "confirmed"),  # 100 ln 2 = 69 > 2 x 10 on both datasets
        ([4.0, 4.0], [2.0, 3.0], "contradicted"),  # 100 ln(2/4) = -69, 100 ln(3/4) = -29
        ([1.0, 4.0], [2.0, 3.0], "contradicted"),  # a confirms, b contradicts (-29 < -20)
        ([1.0, 3.3], [2.0, 3.0], "not confirmed"),  # b: 100 ln(3/3.3) = -9.5, within 2 x 10
    ],
)
def test_fastest_inference_finding_compares_the_fastest_competitor(jm, fm, expected):
    # two datasets; the competitors are FM and a slower GFM, so the fastest other is FM
    t = pd.DataFrame(
        {
            "dataset": ["a"] * 3 + ["b"] * 3,
            "method": ["JM", "FM", "GFM"] * 2,
            "inference_time_s": [jm[0], fm[0], 10.0, jm[1], fm[1], 10.0],
        }
    )
    claims = pd.DataFrame({"claim": ["JM is fastest"], "section": ["5.2"]}, index=["pcc.jm_fast"])
    row = F.fastest_inference_finding(t, "JM", "pcc.jm_fast", claims, others="the others'")
    assert row["verdict"] == expected and row["section"] == "5.2"
    margins = [100 * np.log(f / j) for f, j in zip(fm, jm)]
    weakest = int(np.argmin(margins))
    assert row["margin"] == pytest.approx(margins[weakest]) and row["se"] == F.TIME_SE_FLOOR
    ratios = ", ".join(f"{d} {f / j:.3g}x" for d, f, j in zip("ab", fm, jm))
    assert row["evidence"].startswith(f"the others' inference time / JM's: {ratios} (one timing each); ")
    assert row["evidence"].endswith(f"weakest: {'ab'[weakest]}")
    assert F.fastest_inference_finding(t[t.method == "JM"], "JM", "pcc.jm_fast", claims, others="") is None


def test_time_ratio_cell_is_a_log_ratio_with_spreads_and_a_floor():
    # 100 ln(3 / 2) = 40.55; spreads 30 and 40 combine to 50 (above the floor)
    c = F.time_ratio_cell("x", 3.0, 2.0, 30.0, 40.0)
    assert c == {"label": "x", "margin": pytest.approx(40.546, abs=1e-3), "se": 50.0}
    # small or unknown spreads: the floor
    assert F.time_ratio_cell("x", 2.0, 3.0, 1.0, np.nan)["se"] == F.TIME_SE_FLOOR == 10.0
    # from repeats: the best of each, spreads 100 ln(1.1 / 1.0) = 9.53 and 100 ln(2.4 / 2.0) = 18.23
    c = F.time_cell("y", [2.4, 2.0, 5.0], [1.1, 1.0])
    assert c["margin"] == pytest.approx(100 * np.log(2.0))
    assert c["se"] == pytest.approx(np.hypot(100 * np.log(1.1), 100 * np.log(1.2)))
    with pytest.raises(ValueError, match="> 0"):
        F.time_ratio_cell("x", 0.0, 1.0)


#: Two runs of the same code: BR and LFP do the same work (equal within noise); a burst of load
#: hits different repeats in each run. Per run: the repeats (seconds) of each learner.
_RUN_A = {"BR": [0.0130, 0.0101, 0.0104, 0.0100, 0.0120], "LFP": [0.0103, 0.0140, 0.0102, 0.0150, 0.0101]}
_RUN_B = {"BR": [0.0099, 0.0150, 0.0101, 0.0130, 0.0103], "LFP": [0.0100, 0.0102, 0.0190, 0.0101, 0.0160]}


def _timed_table(run: dict, keep_repeats: bool = True, first_only: bool = False) -> pd.DataFrame:
    rows = []
    for method, reps in run.items():
        reps = reps[:1] if first_only else reps
        row = {"dataset": "scene", "method": method, "inference_time_s": min(reps)}
        if keep_repeats:
            row["inference_time_s_repeats"] = ";".join(map(str, reps))
        rows.append(row)
    return pd.DataFrame(rows)


def _br_fastest(table: pd.DataFrame) -> dict:
    claims = pd.DataFrame({"claim": ["BR is fastest"], "section": ["7.2.3"]}, index=["par.br_inference"])
    return F.fastest_inference_finding(table, "BR", "par.br_inference", claims, others="LFP's")


def test_timed_claim_of_equal_methods_is_the_same_tie_in_two_loaded_runs():
    # one timing per learner (the first repeat): LFP/BR = 1.03/1.30 in run A, 1.00/0.99 in run B
    single = [_br_fastest(_timed_table(r, first_only=True))["verdict"] for r in (_RUN_A, _RUN_B)]
    assert single == ["contradicted", "not confirmed"]  # the verdict follows the load
    # best of 5: 1.01 ms vs 1.00 ms in run A, 1.00 vs 0.99 in run B: a tie both times
    rows = [_br_fastest(_timed_table(r)) for r in (_RUN_A, _RUN_B)]
    assert [r["verdict"] for r in rows] == ["not confirmed", "not confirmed"]
    assert rows[0]["margin"] == pytest.approx(100 * np.log(0.0101 / 0.0100))
    assert rows[1]["margin"] == pytest.approx(100 * np.log(0.0100 / 0.0099))
    assert "(best of 5 repeats)" in rows[0]["evidence"]


def test_timed_claim_is_contradicted_for_a_slower_method_and_confirmed_for_a_faster_one():
    slow = {"BR": [0.0131, 0.0130, 0.0160, 0.0132, 0.0140], "LFP": _RUN_A["LFP"]}
    row = _br_fastest(_timed_table(slow))
    # 100 ln(0.0101 / 0.0130) = -25.2, beyond 2 x 10; spreads 0.8 and 1.0 are below the floor
    assert row["verdict"] == "contradicted" and row["margin"] == pytest.approx(-25.24, abs=0.01)
    fast = {"BR": [0.0080, 0.0079, 0.0090, 0.0081, 0.0085], "LFP": _RUN_A["LFP"]}
    assert _br_fastest(_timed_table(fast))["verdict"] == "confirmed"  # 100 ln(101 / 79) = 24.6


def test_timed_claim_with_a_wide_spread_is_a_tie():
    # BR's best repeat stands alone (next 1.5 times it): the ratio 1.3 is within the noise
    noisy = {"BR": [0.0100, 0.0150, 0.0160, 0.0170, 0.0155], "LFP": [0.0130, 0.0131, 0.0133, 0.0140, 0.0135]}
    row = _br_fastest(_timed_table(noisy))
    assert row["margin"] == pytest.approx(100 * np.log(1.3)) and row["margin"] > 2 * F.TIME_SE_FLOOR
    assert row["se"] == pytest.approx(np.hypot(100 * np.log(1.5), 100 * np.log(1.31 / 1.30)))
    assert row["verdict"] == "not confirmed"
