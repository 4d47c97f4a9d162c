"""The voting stage: preprocessing, fit jobs + vote = VotingEnsemble, Table 7, claims, paper numbers."""

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fmeasure.datasets import Dataset
from fmeasure.experiments import voting
from fmeasure.learners import VotingEnsemble
from fmeasure.learners.parametric import BinaryRelevance
from fmeasure.learners.pcc import ProbabilisticClassifierChain
from fmeasure.metrics import f_measure
from fmeasure.tables import paper_numbers

ROOT = Path(__file__).resolve().parents[2]


def _paper_tex() -> Path:
    candidates = [
        os.environ.get("FMEASURE_PAPER_TEX", ""),
        ROOT.parent / "shared" / "paper" / "paper.tex",
        ROOT.parent.parent / "shared" / "paper" / "paper.tex",
        ROOT / "tests" / "data" / "paper" / "tables.tex",
    ]
    for c in candidates:
        if c and Path(c).is_file():
            return Path(c)
    pytest.fail("paper.tex not found: set FMEASURE_PAPER_TEX to the paper's LaTeX source")


def _toy(n=150, nt=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + nt, 4))
    X[:, 3] = 0.0  # an all-zero column, dropped by the preprocessing
    Y = (X[:, :3] + 0.8 * rng.normal(size=(n + nt, 3)) > 0).astype(np.int8)
    return Dataset("toy", X[:n], Y[:n], X[n:], Y[n:])


CFG = {
    "Cs": [0.1, 1.0],
    "cv": 3,
    "seed": 4,
    "validation_size": 0.2,
    "refit": True,
    "preprocess": True,
    "fits": {"pcc": {"learner": "PCC"}, "br": {"learner": "BR"}},
    "members": [
        {"name": "LFP", "fit": "br", "inference": "fm"},
        {"name": "PCC GFM (n = 50)", "fit": "pcc", "inference": "gfm", "n_samples": 50, "seed": 1},
        {"name": "PCC FM (n = 50)", "fit": "pcc", "inference": "fm", "n_samples": 50, "seed": 1},
        {"name": "BR", "fit": "br", "inference": "mm"},
        {"name": "PCC GFM (n = 20)", "fit": "pcc", "inference": "gfm", "n_samples": 20, "seed": 2},
    ],
    "figure_members": [1, 2, 4, 8],
}


def test_voting_paper_numbers_match_the_latex_table():
    tex = _paper_tex().read_text()
    block = tex.split(r"\label{tbl:results}", 1)[1].split(r"\end{tabular}", 1)[0]
    rows = re.findall(r"^(.*?)&\s*([0-9.]+)\s*\\\\", block, flags=re.M)
    parsed = []
    for name, value in rows:
        name = re.sub(r"\$n\s*=\s*(\d+)\$", r"n = \1", name).strip()
        name = name.replace("Voting (final submission)", "Voting")
        parsed.append((name, round(100 * float(value), 3)))
    ours = paper_numbers("table7")
    assert set(ours["dataset"]) == {"JRS 2012"}
    assert list(zip(ours["method"], ours["f"].round(3))) == parsed
    assert ours["method"].tolist() == voting.PAPER_METHODS


def test_voting_preprocess_drops_zero_columns_and_scales_by_training_range():
    Xtr = np.array([[0.0, 1.0, -2.0, 0.0], [0.0, 3.0, 2.0, 0.0], [0.0, 2.0, 0.0, 0.0]])
    Xte = np.array([[7.0, 5.0, 0.0, 1.0]])
    a, b, kept = voting.preprocess(Xtr, Xte)
    assert kept.tolist() == [1, 2]
    np.testing.assert_allclose(a, [[0.0, 0.0], [1.0, 1.0], [0.5, 0.5]])
    np.testing.assert_allclose(b, [[2.0, 0.5]])
    Xs = sp.csr_matrix(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 4.0], [0.0, 2.0, 0.0]]))
    s, st, kept = voting.preprocess(Xs, sp.csr_matrix(np.array([[1.0, 1.0, 1.0]])))
    assert sp.issparse(s) and sp.issparse(st) and kept.tolist() == [1, 2]  # minimum 0: stays sparse
    np.testing.assert_allclose(s.toarray(), [[0.5, 0.5], [0, 1], [1, 0]])
    np.testing.assert_allclose(st.toarray(), [[0.5, 0.25]])


def test_voting_stage_jobs_equal_the_ensemble_estimator():
    ds = _toy()
    fits = [voting.run_fit(ds, name, CFG) for name in voting.used_fits(CFG)]
    scores, curve = voting.run_vote(fits, CFG)
    # the same ensemble as one estimator, on the same preprocessed data
    Xtr, Xte, _ = voting.preprocess(ds.X_train, ds.X_test)
    pcc = ProbabilisticClassifierChain(Cs=(0.1, 1.0), cv=3, random_state=4, standardize=False)
    br = BinaryRelevance(Cs=(0.1, 1.0), cv=3, random_state=4, standardize=False)
    est = {"pcc": pcc, "br": br}
    members = [(m["name"], est[m["fit"]], voting._member_params(m)) for m in CFG["members"]]
    ens = VotingEnsemble(members, validation_size=0.2, random_state=4).fit(Xtr, ds.Y_train)
    H = ens.predict(Xte)
    vote = scores.set_index("method").loc["Voting"]
    assert vote["threshold"] == ens.threshold_
    assert vote["f"] == pytest.approx(100 * f_measure(ds.Y_test, H).mean(), abs=1e-9)
    P = ens.member_predictions(Xte)
    for k, m in enumerate(CFG["members"]):
        assert scores.set_index("method").loc[m["name"], "f"] == pytest.approx(100 * f_measure(ds.Y_test, P[k]).mean())
    # curve: first k members, k = 8 left out (5 members); k = 1 is the first member itself
    assert curve["n_members"].tolist() == [1, 2, 4]
    assert curve["f"].iloc[0] == pytest.approx(scores["f"].iloc[0])
    assert curve["threshold"].iloc[0] == 1


def test_voting_fit_files_round_trip(tmp_path):
    ds = _toy()
    fit = voting.run_fit(ds, "br", CFG)
    voting.save_fit(fit, tmp_path / "br.npz")
    back = voting.load_fit(tmp_path / "br.npz")
    assert back["members"] == ["LFP", "BR"] and back["record"]["fit"] == "br"
    np.testing.assert_array_equal(back["test_predictions"], fit["test_predictions"])


def test_voting_claims_hold_on_the_paper_numbers_and_fail_when_reversed():
    table = voting.run_table7([])
    claims = voting.run_claims(table)
    assert claims["holds"].all() and len(claims) == 3
    worse = table.copy()
    worse.loc[worse["method"] == "PCC FM (n = 1000)", "f"] = 40.0  # a larger sample no longer helps FM
    worse.loc[worse["method"] == "Voting", "f"] = 50.0  # voting loses
    c = voting.run_claims(worse).set_index("claim")["holds"]
    assert not c["voting improves only slightly over LFP and PCC GFM"]
    assert not c["a larger sample helps both FM and GFM"]


def test_voting_table7_and_figure_are_written(tmp_path):
    rows = [
        {
            "dataset": "toy",
            "method": m,
            "f": 50.0 + i,
            "validation_f": 49.0,
            "threshold": np.nan,
            "train_time_s": 1.0,
            "inference_time_s": 0.1,
        }
        for i, m in enumerate(voting.PAPER_METHODS)
    ]
    rows.append(
        {
            "dataset": "toy",
            "method": "BR",
            "f": 40.0,
            "validation_f": 40.0,
            "threshold": np.nan,
            "train_time_s": 1.0,
            "inference_time_s": 0.1,
        }
    )
    table = voting.run_table7([pd.DataFrame(rows)])
    assert table["source"].tolist() == ["ours"] * 8 + ["paper"] * 8  # BR is a member, not a row of Table 7
    claims = voting.run_claims(table)
    voting.write_table7(
        table, claims, tmp_path / "t.csv", tmp_path / "t.md", tmp_path / "c.csv", tmp_path / "c.md", n_members=16
    )
    md = (tmp_path / "t.md").read_text()
    assert "**toy**" in md and "not reproducible here" in md and "**57.00**" in md
    curve = pd.DataFrame(
        {
            "dataset": ["a"] * 3 + ["b"] * 3,
            "n_members": [1, 2, 4] * 2,
            "threshold": [1, 1, 2] * 2,
            "validation_f": [50.0, 51, 52] * 2,
            "f": [49.0, 50, 53] * 2,
        }
    )
    voting.write_figure(curve, tmp_path / "f.png", tmp_path / "f.pdf")
    assert (tmp_path / "f.png").stat().st_size > 1000 and (tmp_path / "f.pdf").is_file()


def test_voting_config_errors_name_the_key():
    bad = dict(CFG, members=CFG["members"] + [{"name": "X", "fit": "nope"}])
    with pytest.raises(ValueError, match="unknown fit 'nope'"):
        voting.used_fits(bad)
    assert voting.make_estimator("br", dict(CFG, competition_grid=True)).Cs == voting.COMPETITION_CS
    assert voting.make_estimator("br", dict(CFG, competition_grid=True)).cv == 10


def _hand_f(y, h):
    tp, s = int(np.sum(y * h)), int(np.sum(y) + np.sum(h))
    return 1.0 if s == 0 else 2.0 * tp / s


def test_voting_keeps_per_instance_scores_and_where_the_time_goes():
    ds = _toy()
    fits = [voting.run_fit(ds, f, CFG) for f in ("br", "pcc")]
    scores, _, inst = voting.run_vote(fits, CFG, return_instances=True)
    assert set(inst.method) == set(scores.method) and len(inst) == len(scores) * ds.Y_test.shape[0]
    P = {n: fit["test_predictions"][j] for fit in fits for j, n in enumerate(fit["members"])}
    lfp = inst[inst.method == "LFP"].sort_values("instance")
    hand = [100 * _hand_f(y, h) for y, h in zip(ds.Y_test, P["LFP"])]
    np.testing.assert_allclose(lfp.f.to_numpy(), hand)
    for m, f in zip(scores.method, scores.f):
        assert inst[inst.method == m].f.mean() == pytest.approx(f)
    timing = voting.run_timing(fits)
    assert timing.groupby("fit").size().to_dict() == {"br": 4, "pcc": 4}  # with refit: four phases each
    assert list(timing.phase[:4]) == [
        "fit on the training part",
        "validation predictions",
        "refit on all training data",
        "test predictions",
    ]
    assert timing.time_share.sum() == pytest.approx(1.0) and (timing.wall_s >= 0).all() and (timing.cpu_s >= 0).all()
    rec = fits[0]["record"]
    assert timing[timing.fit == "br"].wall_s.iloc[0] == pytest.approx(rec["validation_fit_s"])
    assert timing[timing.fit == "br"].wall_s.iloc[2] == pytest.approx(rec["fit_s"])
