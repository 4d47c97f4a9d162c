"""Tests of fmeasure.theory.lp: the LPs against hand values, brute-force pair enumeration,
random distributions (which can never beat a supremum) and the theorems where they are exact."""

import itertools

import numpy as np
import pytest

from fmeasure import theory as T
from fmeasure.theory import lp as L
from fmeasure.theory.constructions import all_label_vectors


def test_f_utility_matrix_hand():
    U = L.f_utility_matrix([[1, 0, 1], [0, 0, 0]], [[1, 1, 0], [0, 0, 0], [1, 0, 1]])
    np.testing.assert_allclose(U, [[0.5, 0.0, 1.0], [0.0, 1.0, 0.0]])


def test_class_orbits_cover_the_cube():
    orbits, reps, counts = L.class_orbits((2, 1, 0, 3))
    assert counts.sum() == 2**6
    assert len(orbits) == 3 * 2 * 1 * 4
    assert (reps.sum(1) == orbits.sum(1)).all()


@pytest.mark.parametrize("surrogate", ["hamming", "subset"])
@pytest.mark.parametrize("sizes", [(1, 1, 1, 1), (2, 0, 1, 1), (0, 2, 0, 2), (3, 0, 0, 1), (1, 2, 1, 0)])
def test_orbit_lp_equals_full_lp_per_pair(surrogate, sizes):
    v_orb, w, *_ = L.orbit_lp(sizes, surrogate)
    h, h_L = L._pair_vectors(sizes)
    v_full, _ = L.full_lp(h, h_L, surrogate)
    assert v_orb == pytest.approx(v_full, abs=1e-8)


@pytest.mark.parametrize("surrogate", ["hamming", "subset"])
@pytest.mark.parametrize("m", [2, 3])
def test_orbit_worst_case_equals_every_pair_full_lp(surrogate, m):
    # reference: all 4^m ordered pairs (h, h_L), no symmetry reduction
    Y = T.all_label_vectors(m)
    best = max(L.full_lp(h, hl, surrogate)[0] or 0.0 for h, hl in itertools.product(Y, Y))
    assert L.worst_case(m, surrogate, witness_margin=0).value == pytest.approx(best, abs=1e-8)


@pytest.mark.parametrize("m", [3, 4, 5, 6, 7])
def test_subset_lp_equals_theorem_3_2(m):
    wc = L.worst_case(m, "subset")
    assert wc.value == pytest.approx(float(T.subset_regret_closed_form(m)), abs=1e-8)
    assert T.as_string(wc.h) == "1" * m and T.as_string(wc.h_L) == "0" * m
    assert wc.witness_h_L_ok
    assert wc.witness_regret == pytest.approx(wc.value, abs=1e-4)


@pytest.mark.parametrize("m", [2, 3, 4, 5, 6])
def test_hamming_lp_is_two_thirds_not_one_half(m):
    wc = L.worst_case(m, "hamming")
    assert wc.value == pytest.approx(2 / 3, abs=1e-8)
    # the witness (strict marginals) is checked by the core: Hamming minimizer = h_L, regret ~ 2/3 > 1/2
    assert wc.witness_h_L_ok and wc.witness_regret == pytest.approx(2 / 3, abs=1e-4)


def test_threshold_lp_m2_is_zero_and_m3_is_1_over_42():
    assert L.worst_case(2, "threshold").value == pytest.approx(0.0, abs=1e-9)
    wc = L.worst_case(3, "threshold")
    assert wc.value == pytest.approx(1 / 42, abs=1e-8)
    assert wc.witness_h_L_ok and wc.witness_regret == pytest.approx(wc.value, abs=1e-4)


def test_threshold_lp_pruning_changes_nothing():
    a = L.worst_case_threshold(4, witness_margin=0, prune=True)
    b = L.worst_case_threshold(4, witness_margin=0, prune=False)
    assert a.value == pytest.approx(b.value, abs=1e-9) and a.n_lps <= b.n_lps


@pytest.mark.parametrize("surrogate", ["hamming", "subset", "threshold"])
def test_random_distributions_never_beat_the_lp_supremum(surrogate):
    m = 3
    sup = L.worst_case(m, surrogate, witness_margin=0).value
    rng = np.random.default_rng(7)
    worst = 0.0
    for i in range(300):
        S, p = T.random_distribution(m, rng, "dense" if i % 2 else "sparse", alpha=0.3)
        h_L = L.surrogate_prediction(S, p, surrogate)
        worst = max(worst, T.regret(S, p, h_L))
    assert worst <= sup + 1e-9
    if surrogate != "threshold":  # thresholding is rarely suboptimal on random distributions
        assert worst > 0.0


def test_lp_tables_have_theorems_and_distributions():
    res = [L.worst_case(3, s) for s in L.SURROGATES]
    tab = L.lp_table(res)
    assert list(tab.surrogate) == list(L.SURROGATES)
    assert tab.theorem.tolist() == pytest.approx([0.5, 0.4875, 0.0])
    dist = L.lp_distribution_table(res)
    sums = dist.groupby("surrogate").prob.sum()
    assert sums.to_numpy() == pytest.approx(np.ones(3))


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="surrogate"):
        L.worst_case(3, "jaccard")
    with pytest.raises(ValueError, match="m must"):
        L.worst_case(0, "subset")
    with pytest.raises(ValueError, match="top-k"):
        L.full_lp([1, 0, 0], [0, 1, 0], "threshold")


def test_threshold_reused_model_matches_solves_from_scratch():
    """The model whose objective is replaced pair by pair gives each pair's plain linprog value."""
    m = 4
    Y = all_label_vectors(m)
    T = L._threshold_candidates(m)
    FT = L.f_utility_matrix(Y, T)
    for k in range(m + 1):
        model = L._ObjectiveLP(L._threshold_constraints(Y, FT, k, 0.0)[0])
        for r in range(len(Y)):
            fresh, _ = L.full_lp(Y[r], T[k], "threshold", 0.0, Y=Y, U=FT)
            reused = model.solve(L.f_utility_matrix(Y, Y[r][None])[:, 0] - FT[:, k])
            assert (fresh is None) == (reused is None)
            if fresh is not None:
                assert reused == pytest.approx(fresh, abs=1e-9)


def test_threshold_without_highs_binding_gives_same_worst_case(monkeypatch):
    """Every LP solved by linprog from scratch (no HiGHS binding) finds the same pair and value."""
    fast = L.worst_case_threshold(5)
    monkeypatch.setattr(L, "_highs", None)
    slow = L.worst_case_threshold(5)
    assert slow.value == pytest.approx(fast.value, abs=1e-12)
    assert (slow.h == fast.h).all() and (slow.h_L == fast.h_L).all() and slow.n_lps == fast.n_lps
