"""Comparing systems: Holm on known p-values, the per-dataset tests against the reference, the
Friedman statistic and the tests of mean ranks on tables worked out by hand (Demšar 2006)."""

import math

import numpy as np
import pandas as pd
import pytest

from fmeasure.experiments import comparisons as C


def _p(z):
    """Two-sided normal p-value, by the error function."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def test_holm_on_known_pvalues():
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> kept at 0.06 (monotone)
    assert C.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # one p-value: unchanged; a large product is capped at 1
    assert C.holm([0.2]) == pytest.approx([0.2])
    assert C.holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])
    with pytest.raises(ValueError, match="must lie in"):
        C.holm([1.5])


def test_alpha_and_z_pvalue_by_hand():
    assert C.alpha_of(2.0) == pytest.approx(_p(2.0)) == pytest.approx(0.0455, abs=1e-4)
    assert C.z_pvalue(3.0, 1.5) == pytest.approx(_p(2.0))
    assert C.z_pvalue(-3.0, 1.5) == pytest.approx(_p(2.0))
    assert C.z_pvalue(0.0, 0.0) == 1.0 and C.z_pvalue(0.5, 0.0) == 0.0
    with pytest.raises(ValueError, match="finite SE"):
        C.z_pvalue(1.0, -1.0)


def test_against_reference_holm_turns_a_lone_2_1_se_difference_into_a_tie():
    # z = 2.1 alone would exceed 2 SE; Holm over three comparisons multiplies its p (0.0357) by 3
    out = C.against_reference([2.1, 0.5, -0.3], [1.0, 1.0, 1.0], z=2.0)
    assert out.p.tolist() == pytest.approx([_p(2.1), _p(0.5), _p(0.3)])
    assert out.p_holm[0] == pytest.approx(3 * _p(2.1))
    assert out.outcome.tolist() == ["tie", "tie", "tie"]
    # alone, the same difference is better; a large negative one is worse
    assert C.against_reference([2.1], [1.0]).outcome.tolist() == ["better"]
    out = C.against_reference([3.0, -2.5, 2.1], [1.0, 1.0, 1.0])
    # Holm: 0.0027 x 3 = 0.0081, 0.0124 x 2 = 0.0248, 0.0357 x 1: all below 0.0455
    assert out.p_holm.tolist() == pytest.approx([3 * _p(3.0), 2 * _p(2.5), _p(2.1)])
    assert out.outcome.tolist() == ["better", "worse", "better"]


#: Four datasets, three systems (higher is better). Ranks: d1 A1 B2 C3; d2 A2 B1 C3; d3 A1 B3 C2;
#: d4 A1.5 B1.5 C3 (a tie). Mean ranks A 1.375, B 1.875, C 2.75.
SCORES = pd.DataFrame(
    {"A": [90.0, 85.0, 70.0, 75.0], "B": [80.0, 86.0, 60.0, 75.0], "C": [70.0, 60.0, 65.0, 50.0]},
    index=["d1", "d2", "d3", "d4"],
)


def test_rank_systems_friedman_and_holm_by_hand():
    from scipy.stats import friedmanchisquare

    ranks, s = C.rank_systems(SCORES, "C")
    r = ranks.set_index("system")
    assert r.mean_rank.tolist() == pytest.approx([1.375, 1.875, 2.75])
    assert r.rank_diff.tolist() == pytest.approx([-1.375, -0.875, 0.0])
    # chi2 = 12 N / (k (k + 1)) (sum R^2 - k (k + 1)^2 / 4) = 4 (12.96875 - 12) = 3.875, divided by
    # the tie correction 1 - sum(t^3 - t) / (N k (k^2 - 1)) = 1 - 6 / 96
    chi2 = 3.875 / (1 - 6 / 96)
    assert s["friedman_chi2"] == pytest.approx(chi2)
    assert s["friedman_chi2"] == pytest.approx(friedmanchisquare(*SCORES.to_numpy().T).statistic)
    assert s["friedman_p"] == pytest.approx(math.exp(-chi2 / 2))  # chi2 with 2 degrees of freedom
    # Demšar's z against C: (R_i - R_C) / sqrt(k (k + 1) / (6 N)) = (R_i - 2.75) / sqrt(0.5)
    zA, zB = (1.375 - 2.75) / math.sqrt(0.5), (1.875 - 2.75) / math.sqrt(0.5)
    assert s["rank_se"] == pytest.approx(math.sqrt(0.5))
    assert r.loc["A", "p"] == pytest.approx(_p(zA)) and r.loc["B", "p"] == pytest.approx(_p(zB))
    assert r.loc["A", "p_holm"] == pytest.approx(2 * _p(zA))
    assert r.loc["B", "p_holm"] == pytest.approx(_p(zB))
    # the Friedman test does not reject (p = 0.13): no system differs from the reference
    assert r.vs_reference.tolist() == ["tie", "tie", "reference"]
    assert np.isnan(r.loc["C", "p_holm"])


def test_rank_systems_critical_difference_is_demsars_table():
    # Demšar (2006), Table 5(a): q_0.05 = 2.343 for k = 3; CD = q sqrt(k (k + 1) / (6 N))
    _, s = C.rank_systems(SCORES, "C", z=1.959963985)
    assert s["alpha"] == pytest.approx(0.05)
    assert s["cd"] == pytest.approx(2.343 * math.sqrt(0.5), abs=1e-3)


def test_rank_systems_a_reference_first_everywhere_beats_both():
    # ten datasets, R always first, B second, C third: chi2 = 12 * 10 / 12 * (1 + 4 + 9 - 12) = 20
    rng = np.random.default_rng(0)
    base = rng.uniform(50, 60, size=10)
    scores = pd.DataFrame({"B": base + 1, "R": base + 2, "C": base})
    ranks, s = C.rank_systems(scores, "R")
    r = ranks.set_index("system")
    assert s["friedman_chi2"] == pytest.approx(20.0)
    # z: B (2 - 1) / sqrt(12 / 60) = 2.236 (p 0.0253), C 4.47: Holm keeps B at 0.0253 < 0.0455
    assert r.loc["B", "p_holm"] == pytest.approx(_p(1 / math.sqrt(0.2)))
    assert r.vs_reference.tolist() == ["worse", "reference", "worse"]
    # reversed: the same systems against C, which is last everywhere
    ranks, _ = C.rank_systems(scores, "C")
    assert ranks.set_index("system").vs_reference.tolist() == ["better", "better", "reference"]


def test_rank_systems_bad_input_names_the_problem():
    with pytest.raises(ValueError, match="at least 3 systems and 2 datasets"):
        C.rank_systems(SCORES[["A", "B"]], "A")
    with pytest.raises(ValueError, match="'Z' is not one of the systems"):
        C.rank_systems(SCORES, "Z")
    with pytest.raises(ValueError, match="finite score"):
        C.rank_systems(SCORES.assign(A=[1.0, np.nan, 2.0, 3.0]), "C")


def test_cd_diagram_is_drawn(tmp_path):
    ranks, s = C.rank_systems(SCORES, "C")
    C.write_cd_diagram(ranks, s, tmp_path / "cd.png", tmp_path / "cd.pdf", labels={"C": "C (reference)"})
    assert (tmp_path / "cd.png").stat().st_size > 5_000 and (tmp_path / "cd.pdf").is_file()


def test_rank_systems_no_system_differs_unless_the_friedman_test_rejects():
    # A first and R last on three datasets, B, C, D rotating through ranks 2-4 (mean rank 3 each):
    # chi2 = 12 * 3 / (5 * 6) * ((1 - 3)^2 + (5 - 3)^2) = 9.6 with 4 degrees of freedom, p = e^-4.8 * 5.8
    # = 0.0477 > 0.0455; yet A's z against R, (1 - 5) / sqrt(30 / 18), gives a Holm p of 0.008
    scores = pd.DataFrame(
        {"A": [10.0, 10, 10], "B": [9.0, 7, 8], "C": [8.0, 9, 7], "D": [7.0, 8, 9], "R": [1.0, 1, 1]},
        index=["d1", "d2", "d3"],
    )
    ranks, s = C.rank_systems(scores, "R")
    r = ranks.set_index("system")
    assert s["friedman_chi2"] == pytest.approx(9.6) and s["friedman_p"] == pytest.approx(math.exp(-4.8) * 5.8)
    assert r.loc["A", "p_holm"] == pytest.approx(4 * _p(4 / math.sqrt(30 / 18)))
    assert r.loc["A", "p_holm"] < C.alpha_of(2.0) < s["friedman_p"]
    assert r.vs_reference.tolist() == ["tie", "tie", "tie", "tie", "reference"]
