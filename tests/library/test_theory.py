"""Tests of fmeasure.theory: the paper's constructions against closed forms and hand-computed values."""

import numpy as np
import pytest

from fmeasure import inference
from fmeasure import theory as T
from fmeasure.experiments import theory as E


def test_all_label_vectors_enumerates_cube():
    Y = T.all_label_vectors(3)
    assert Y.shape == (8, 3) and Y.dtype == np.int8
    assert len({T.as_string(y) for y in Y}) == 8
    assert T.as_string(Y[5]) == "101"


def test_p_matrix_hand_example():
    P, p0 = T.p_matrix([[0, 0], [1, 0], [1, 1]], [0.2, 0.3, 0.5])
    assert p0 == pytest.approx(0.2)
    np.testing.assert_allclose(P, [[0.3, 0.5], [0.0, 0.5]])


# ---- Theorem 3.2 / Figure 1 ---------------------------------------------------------------
def test_subset_closed_form_m3_is_0_4875():
    assert float(T.subset_regret_closed_form(3)) == pytest.approx(39 / 80)


def test_subset_closed_form_tends_to_one():
    assert float(T.subset_regret_closed_form(10_000)) == pytest.approx(1.0, abs=1e-3)


def test_subset_construction_m3_hand():
    # 8 vectors (0 and all with >= 1 one) at 1/8: E F(111) = (3*(2/4) + 3*(4/5) + 1)/8 = 3.9/8, E F(000) = 1/8
    S, p = T.subset_worst_case_distribution(3, eps=0.0)
    assert len(S) == 8 and p == pytest.approx(np.full(8, 1 / 8))
    ef1 = inference.expected_f(S, p, np.ones(3, np.int8))
    ef0 = inference.expected_f(S, p, np.zeros(3, np.int8))
    assert ef1 - ef0 == pytest.approx(0.4875)


@pytest.mark.parametrize("m", [3, 4, 5, 6, 7, 8])
def test_subset_construction_matches_closed_form(m):
    S, p = T.subset_worst_case_distribution(m, eps=1e-9)
    assert p.sum() == pytest.approx(1.0)
    assert len(S) == (m * m + m + 4) // 2
    h_s, _ = inference.joint_mode(S, p)
    assert not h_s.any()  # the unique mode is the zero vector
    assert T.regret(S, p, h_s) == pytest.approx(float(T.subset_regret_closed_form(m)), abs=1e-7)


def test_figure1_table_columns_and_values():
    df = E.figure1_table(range(2, 5), range(3, 6))
    assert list(df.m) == [2, 3, 4, 5]
    assert np.isnan(df.construction.iloc[0])
    assert df.construction.iloc[1] == pytest.approx(0.4875, abs=1e-7)
    assert (df.h_F.iloc[1:] == ["111", "1111", "11111"]).all()


# ---- Theorem 3.1 (Hamming) ----------------------------------------------------------------
def test_hamming_pa_marginals_hand():
    eps = 0.01
    S, p = T.hamming_pa_distribution(1, 1, 1, 2, eps)  # labels A, B, C, D, D
    assert p.sum() == pytest.approx(1.0)
    assert T.marginals(S, p) == pytest.approx([0.5 - eps, 0.5 + eps, 0.5 + eps, 0.5 - eps, 0.5 - eps])
    h_H, _ = inference.marginal_modes(T.marginals(S, p))
    assert T.as_string(h_H) == "01100"  # B u C


@pytest.mark.parametrize("abcd", [(1, 0, 0, 2), (1, 0, 0, 5), (2, 1, 0, 2), (1, 1, 1, 1), (3, 0, 2, 1)])
def test_hamming_pa_objective_tends_to_paper_formula(abcd):
    a, b, c, d = abcd
    S, p = T.hamming_pa_distribution(a, b, c, d, eps=1e-9)
    h = np.array([1] * a + [0] * b + [1] * c + [0] * d, np.int8)
    h_H, _ = inference.marginal_modes(T.marginals(S, p))
    obj = inference.expected_f(S, p, h) - inference.expected_f(S, p, h_H)
    assert obj == pytest.approx(T.hamming_pa_objective_closed_form(a, b, c, d), abs=1e-7)


def test_hamming_pa_objective_limit_is_half_for_a1_d_rest():
    for m in range(3, 11):
        assert T.hamming_pa_objective_closed_form(1, 0, 0, m - 1) == pytest.approx(0.5)


def test_hamming_pa_true_regret_exceeds_half():
    # under P_A(1,0,0,m-1) the F-maximizer is 1_m: E F(1_m) = 1/(m+1) + (m-1)/(2m-1) -> 0.65 for m = 3
    df = E.hamming_table([3, 5], [1e-9])
    assert df.pa_regret.tolist() == pytest.approx([0.25 + 0.4, 1 / 6 + 4 / 9], abs=1e-7)
    assert (df.pa_h_F == ["111", "11111"]).all()


@pytest.mark.parametrize("m", [2, 3, 6])
def test_hamming_two_label_regret_tends_to_two_thirds(m):
    S, p = T.hamming_two_label_distribution(m, eps=1e-9)
    h_H, _ = inference.marginal_modes(T.marginals(S, p))
    assert not h_H.any()
    assert T.regret(S, p, h_H) == pytest.approx(2 / 3, abs=1e-7)


# ---- Theorem 3.3 (Jaccard) ----------------------------------------------------------------
def test_jaccard_maximizer_hand():
    # y = 11 or 10 with 1/2: J(.,10) = 1/2, 1 -> 0.75; J(.,11) = 1, 1/2 -> 0.75; J(.,01) = 1/2, 0
    h, v = T.jaccard_maximizer([[1, 1], [1, 0]], [0.5, 0.5])
    assert v == pytest.approx(0.75)
    h0, v0 = T.jaccard_maximizer([[0, 0], [1, 0]], [0.6, 0.4], empty=0.0)
    assert T.as_string(h0) == "10" and v0 == pytest.approx(0.4)
    h1, v1 = T.jaccard_maximizer([[0, 0], [1, 0]], [0.6, 0.4], empty=1.0)
    assert T.as_string(h1) == "00" and v1 == pytest.approx(0.6)


def test_jaccard_theorem_3_3_holds_on_random_distributions():
    s = T.jaccard_check(range(1, 6), 40, seed=3)
    assert (s.regret >= -1e-12).all()
    assert (s.regret <= s.bound + 1e-12).all()
    summ = E.jaccard_summary(s)
    assert (summ.violations == 0).all() and set(summ["empty"]) == {0.0, 1.0}


# ---- Theorem 4.2 / Corollary 4.3 ----------------------------------------------------------
def test_independence_delta_hand_m2():
    # q = 1/2: y in {01, 10} (1/4 each) F(y, 11) = 2/3; y = 11 (1/4) F = 1; minus P(00) = 1/4
    assert float(T.independence_delta(2, 0.5)) == pytest.approx(0.5 * 2 / 3 + 0.25 - 0.25)


def test_independence_delta_matches_enumeration():
    m, q = 5, 0.7
    out = T.independence_families(m, q)
    assert out["delta_PA"] == pytest.approx(float(T.independence_delta(m, q)), abs=1e-12)


def test_independence_q_range_root_and_regret():
    lo, hi = T.independence_q_range(4)
    assert lo == 0.5 and 0.5 < hi < 1
    assert float(T.independence_delta(4, hi)) == pytest.approx(0.0, abs=1e-10)
    assert float(T.independence_delta(4, hi - 1e-3)) > 0 > float(T.independence_delta(4, hi + 1e-3))
    q = hi - 1e-4
    out = T.independence_families(4, q)
    assert out["h_I"] == "1111" and out["h_F_PB"] == "0000"
    assert out["regret_PB"] == pytest.approx(2 * q - 1, abs=1e-12)


def test_independence_bound_increases_to_one():
    df = E.independence_table([2, 5, 20, 200], m_exact_max=0)
    assert np.all(np.diff(df.bound) > 0) and df.bound.iloc[-1] > 0.96


# ---- Theorem 4.5 --------------------------------------------------------------------------
def test_threshold_family_hand():
    S, p = T.threshold_family(12, eps=0.0)
    assert p.sum() == pytest.approx(1.0)
    assert [T.as_string(y) for y in S] == ["100000000000", "011111100000", "010000011111"]
    assert S.sum(1).tolist() == [1, 6, 6]


@pytest.mark.parametrize("m", [4, 8, 10, 12])
def test_threshold_family_regret_equals_bound(m):
    df = E.threshold_table([m], [1e-9])
    assert df.regret.iloc[0] == pytest.approx(max(0.0, 1 / 6 - 2 / (m + 4)), abs=1e-7)
    if m > 8:
        assert df.h_T.iloc[0] == "11" + "0" * (m - 2) and df.h_F.iloc[0] == "1" + "0" * (m - 1)


# ---- worked examples -----------------------------------------------------------------------
def test_examples_table_paper_numbers():
    df = E.examples_table().set_index(["example", "method"])
    assert df.loc[("sec4.1_a", "brute force"), "prediction"] == "1000"
    assert df.loc[("sec4.1_b", "brute force"), "prediction"] == "0000"
    assert df.loc[("sec4.1_b", "GFM"), "expected_f"] == pytest.approx(0.5)
    # FM / Lewis see only the marginals (equal for a and b) and predict 1000: E F = 0.1+0.2+0.2 at 2/3
    assert df.loc[("sec4.1_b", "FM"), "expected_f"] == pytest.approx(1 / 3)
    assert df.loc[("sec4.3_m12", "GFM"), "prediction"] == "1" + "0" * 11
    assert df.loc[("sec4.3_m12", "GFM"), "expected_f"] == pytest.approx(0.39)
    # thresholding: 110...0 -> 0.39 * 2/3 + 2 * 0.2 * 2/8 = 0.36
    assert df.loc[("sec4.3_m12", "thresholding"), "prediction"] == "11" + "0" * 10
    assert df.loc[("sec4.3_m12", "thresholding"), "expected_f"] == pytest.approx(0.36)
    assert (df.regret >= -1e-12).all()


# ---- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: T.subset_worst_case_distribution(1),
        lambda: T.subset_worst_case_distribution(3, eps=0.5),
        lambda: T.threshold_family(7),
        lambda: T.hamming_pa_distribution(-1, 0, 0, 2),
        lambda: T.independence_families(3, 0.2),
        lambda: T.all_label_vectors(0),
    ],
)
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
