"""The findings of the structured, voting and trees stages follow the sign of their margins.

Hand-made tables where each claim must come out confirmed, and the same tables changed so that it
must come out contradicted.
"""

import numpy as np
import pandas as pd
import pytest

from fmeasure.experiments import structured, trees, voting


def _table6(rml_scene=74.0, efp_enron=62.5, ib_yeast=67.0):
    rows = []
    for d, vals in {
        "scene": {
            "IB FM": 70.8,
            "IB GFM": 71.4,
            "PCC FM": 72.8,
            "PCC GFM": 72.3,
            "LFP": 75.5,
            "EFP": 77.0,
            "RML": rml_scene,
        },
        "yeast": {
            "IB FM": 64.0,
            "IB GFM": ib_yeast,
            "PCC FM": 65.5,
            "PCC GFM": 65.6,
            "LFP": 65.0,
            "EFP": 65.5,
            "RML": 64.8,
        },
        "enron": {
            "IB FM": 47.5,
            "IB GFM": 44.4,
            "PCC FM": 58.5,
            "PCC GFM": 59.2,
            "LFP": 56.9,
            "EFP": efp_enron,
            "RML": 57.7,
        },
    }.items():
        rows += [{"dataset": d, "section": "paper", "method": m, "f": v, "f_paper": v} for m, v in vals.items()]
    return pd.DataFrame(rows)


def _verdicts(rows):
    return {r["claim_id"]: r["verdict"] for r in rows}


def test_structured_findings_confirm_clear_margins():
    v = _verdicts(structured.run_findings(_table6()))
    assert v == {
        "table6": "confirmed",
        "ssvm.rml_scene": "confirmed",
        "ssvm.param_best": "confirmed",
        "ssvm.ib_best": "confirmed",
    }


@pytest.mark.parametrize(
    "change, cid",
    [
        ({"rml_scene": 70.0}, "ssvm.rml_scene"),
        ({"efp_enron": 57.0}, "ssvm.param_best"),
        ({"ib_yeast": 64.0}, "ssvm.ib_best"),
    ],
)
def test_structured_findings_can_be_contradicted(change, cid):
    rows = {r["claim_id"]: r for r in structured.run_findings(_table6(**change))}
    assert rows[cid]["verdict"] == "contradicted" and rows[cid]["margin"] < 0


def _table7(voting_f):
    rows = [("LFP", 60.0), ("PCC GFM (n = 1000)", 60.5), ("PCC FM (n = 1000)", 60.2), ("Voting", voting_f)]
    return pd.DataFrame([{"source": "ours", "dataset": "scene", "method": m, "f": f} for m, f in rows])


def test_voting_finding_follows_the_margin_over_the_best_of_lfp_and_gfm():
    up = {r["claim_id"]: r for r in voting.run_findings(_table7(61.8))}
    tie = {r["claim_id"]: r for r in voting.run_findings(_table7(60.3))}
    down = {r["claim_id"]: r for r in voting.run_findings(_table7(59.0))}
    assert up["vote.lfp"]["verdict"] == "confirmed" and up["vote.lfp"]["margin"] == pytest.approx(1.3)
    # a margin within 2 SE (SE 0.5 points on one split) is a tie, not a contradiction
    assert tie["vote.lfp"]["verdict"] == "not confirmed" and tie["vote.lfp"]["margin"] == pytest.approx(-0.2)
    assert down["vote.lfp"]["verdict"] == "contradicted" and down["vote.lfp"]["margin"] == pytest.approx(-1.5)
    assert up["table7"]["verdict"].startswith("not run")  # the JRS data is not public


def test_trees_finding_follows_the_margin_over_the_forests_majority():
    rng = np.random.default_rng(0)
    rf = rng.choice([0.0, 50.0, 100.0], 400)

    def instances(shift):
        # the bag's F per instance: the forest's plus noise (SE of the mean difference ~ 0.5 points)
        bag = rf + shift + rng.normal(0, 10, rf.size)
        rows = [("F-bag pooled", bag), ("F-bag vote", bag - 1), ("RF MM", rf)]
        return pd.DataFrame(
            [{"dataset": "yeast", "method": m, "instance": i, "f": v} for m, f in rows for i, v in enumerate(f)]
        )

    up, down, tie = (trees.run_findings([instances(s)])[0] for s in (5.0, -5.0, 0.0))
    assert up["verdict"] == "confirmed" and down["verdict"] == "contradicted" and tie["verdict"] == "not confirmed"
    # margin = best bag mean - forest mean; SE = the paired bootstrap's (about 10 / sqrt(400) points)
    assert up["margin"] == pytest.approx(5.0, abs=1.5) and 0.3 < up["se"] < 0.8
