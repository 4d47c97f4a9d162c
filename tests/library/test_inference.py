"""Inference algorithms against brute force, hand-computed values and the paper's examples."""

import itertools

import numpy as np
import pytest
from _dists import KINDS, all_vectors, batch, brute_opt_plain, exp_f_plain, independent, random_dist

from fmeasure import estimation as est
from fmeasure.inference import (
    brute_force,
    categorical,
    expected_f,
    expected_f_independent,
    fm,
    gfm,
    gfm_from_p,
    jansche,
    joint_mode,
    lewis,
    marginal_modes,
    threshold_marginals,
)

ATOL = 1e-9


def _delta_plain(Y, pr):
    """Delta and P by the definitions (loops), independent of the estimation module."""
    m = Y.shape[1]
    D = np.zeros((m, m))
    P = np.zeros((m, m))
    for y, p in zip(Y, pr):
        s = int(y.sum())
        for i in range(m):
            if y[i]:
                P[i, s - 1] += p
                for k in range(1, m + 1):
                    D[i, k - 1] += 2 * p / (s + k)
    p0 = sum(p for y, p in zip(Y, pr) if y.sum() == 0)
    return D, P, p0


# ---------------------------------------------------------------- brute force itself


def test_brute_force_matches_plain_enumeration():
    rng = np.random.default_rng(0)
    for m in range(1, 6):
        for kind in KINDS:
            Y, pr = random_dist(rng, m, kind)
            h, v = brute_force(Y, pr)
            assert v == pytest.approx(brute_opt_plain(Y, pr), abs=1e-12)
            assert exp_f_plain(Y, pr, h) == pytest.approx(v, abs=1e-12)


def test_brute_force_generic_path_m11():
    rng = np.random.default_rng(1)
    Y, pr = random_dist(rng, 11, "sparse")
    h, v = brute_force(Y, pr)
    assert exp_f_plain(Y, pr, h) == pytest.approx(v, abs=1e-12)
    # no single-label flip improves
    for i in range(11):
        g = h.copy()
        g[i] ^= 1
        assert exp_f_plain(Y, pr, g) <= v + 1e-12


def test_expected_f_matches_plain():
    rng = np.random.default_rng(2)
    Y, pr = random_dist(rng, 5, "dense")
    H = all_vectors(5)
    np.testing.assert_allclose(expected_f(Y, pr, H), [exp_f_plain(Y, pr, h) for h in H], atol=1e-12)
    Yb, Pb = batch(rng, 4, "sparse", 7)
    Hb = (rng.random((7, 4)) < 0.5).astype(int)
    np.testing.assert_allclose(expected_f(Yb, Pb, Hb), [exp_f_plain(Yb[i], Pb[i], Hb[i]) for i in range(7)], atol=1e-12)


# ---------------------------------------------------------------- GFM vs brute force


@pytest.mark.parametrize("kind", KINDS)
def test_gfm_reaches_brute_force_optimum(kind):
    """Thousands of distributions in total: m = 1..10, 60 per (m, kind)."""
    rng = np.random.default_rng(abs(hash(kind)) % 2**32)
    for m in range(1, 11):
        n = 60 if m <= 8 else 20
        Y, P = batch(rng, m, kind, n)
        hb, vb = brute_force(Y, P)
        D, p0 = est.delta_matrix(Y, P)
        Pm, p0b = est.p_matrix(Y, P)
        for h, v in (gfm(D, p0), gfm_from_p(Pm, p0b)):
            np.testing.assert_allclose(v, vb, atol=ATOL)
            np.testing.assert_allclose(expected_f(Y, P, h), v, atol=ATOL)


def test_delta_and_p_match_definitions():
    rng = np.random.default_rng(3)
    for kind in KINDS:
        Y, pr = random_dist(rng, 5, kind)
        D, P, p0 = _delta_plain(Y, pr)
        D2, q0 = est.delta_matrix(Y, pr)
        P2, q0b = est.p_matrix(Y, pr)
        np.testing.assert_allclose(D2, D, atol=1e-14)
        np.testing.assert_allclose(P2, P, atol=1e-14)
        assert q0 == pytest.approx(p0) and q0b == pytest.approx(p0)


def test_gfm_single_and_batch_agree():
    rng = np.random.default_rng(4)
    Y, P = batch(rng, 6, "dense", 5)
    D, p0 = est.delta_matrix(Y, P)
    hb, vb = gfm(D, p0)
    for i in range(5):
        h, v = gfm(D[i], p0[i])
        assert h.shape == (6,) and h.dtype == np.int8 and isinstance(v, float)
        np.testing.assert_array_equal(h, hb[i])
        assert v == vb[i]


def test_gfm_compares_with_empty_prediction():
    # P(0) = 0.55 beats everything else: y = 11 with 0.45 -> E[F(11)] = 0.45
    Y = np.array([[0, 0], [1, 1]])
    pr = np.array([0.55, 0.45])
    D, p0 = est.delta_matrix(Y, pr)
    h, v = gfm(D, p0)
    np.testing.assert_array_equal(h, [0, 0])
    assert v == pytest.approx(0.55)
    # exact tie (0.5 / 0.5): the empty prediction wins
    h, v = gfm(*est.delta_matrix(Y, [0.5, 0.5]))
    np.testing.assert_array_equal(h, [0, 0])


def test_gfm_does_not_cap_prediction_size():
    # every vector has 1 label, but predicting all 4 labels is optimal (uniform categorical)
    Y = np.eye(4, dtype=int)
    pr = np.full(4, 0.25)
    h, v = gfm_from_p(*est.p_matrix(Y, pr))
    np.testing.assert_array_equal(h, [1, 1, 1, 1])
    assert v == pytest.approx(2 / 5)


def test_gfm_tie_lowest_index():
    Y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    # 2 labels of equal weight 0.4, one of 0.2: best is top-2 {0, 1}; also with equal 3-way ties
    h, _ = gfm(*est.delta_matrix(Y, [0.4, 0.4, 0.2]))
    np.testing.assert_array_equal(h, [1, 1, 0])
    D = np.full((3, 3), 0.1)
    h, v = gfm(D, 0.0)  # E_1 = .1, E_2 = .2, E_3 = .3 -> all three
    np.testing.assert_array_equal(h, [1, 1, 1])
    D = np.array([[0.3, 0.0], [0.3, 0.0]])
    h, v = gfm(D, 0.2)
    np.testing.assert_array_equal(h, [1, 0])


def test_m_equals_one():
    for p in (0.0, 0.3, 0.5, 0.7, 1.0):
        h, v = gfm([[p / 1.0]], 1 - p)  # Delta_11 = 2p / 2
        assert v == pytest.approx(max(p, 1 - p))
        np.testing.assert_array_equal(h, [int(p > 1 - p)])
        for f in (fm, jansche, lewis, marginal_modes):
            h2, v2 = f([p])
            assert h2.shape == (1,)
        assert fm([p])[1] == pytest.approx(max(p, 1 - p))
        h, v = gfm_from_p([[p]], 1 - p)
        assert v == pytest.approx(max(p, 1 - p))


# ---------------------------------------------------------------- independence


def test_fm_and_jansche_reach_optimum_on_independent():
    rng = np.random.default_rng(5)
    for m in range(1, 11):
        ps = rng.random((30, m)) ** rng.uniform(0.3, 3, size=(30, 1))
        ps[:3] = np.round(ps[:3], 1)  # ties among marginals
        ds = [independent(rng, m, p) for p in ps]
        Y = np.stack([d[0] for d in ds])
        P = np.stack([d[1] for d in ds])
        _, vb = brute_force(Y, P)
        for f in (fm, jansche):
            h, v = f(ps)
            np.testing.assert_allclose(v, vb, atol=ATOL)
            np.testing.assert_allclose(expected_f(Y, P, h), v, atol=ATOL)
        for f in (lewis, marginal_modes):
            h, v = f(ps)
            np.testing.assert_allclose(expected_f(Y, P, h), v, atol=ATOL)
            assert np.all(v <= vb + ATOL)


def test_expected_f_independent_matches_joint():
    rng = np.random.default_rng(6)
    for m in (1, 3, 7):
        p = rng.random(m)
        Y, pr, _ = independent(rng, m, p)
        H = all_vectors(m)
        np.testing.assert_allclose(expected_f_independent(np.tile(p, (len(H), 1)), H), expected_f(Y, pr, H), atol=1e-12)


def test_fm_equals_jansche_in_value():
    rng = np.random.default_rng(7)
    for m in (1, 2, 13, 40, 101):
        p = rng.random((20, m)) ** 3
        np.testing.assert_allclose(fm(p)[1], jansche(p)[1], atol=1e-10)


def test_fm_hand_value():
    # p = (.9, .2, .6), h = (1, 0, 1): enumerate y by hand
    h, v = fm([0.9, 0.2, 0.6])
    np.testing.assert_array_equal(h, [1, 0, 1])
    Y, pr, _ = independent(None, 3, np.array([0.9, 0.2, 0.6]))
    assert v == pytest.approx(exp_f_plain(Y, pr, [1, 0, 1]), abs=1e-12)


def test_lewis_uses_approximation():
    # Lewis picks k by 2 S_k / (sum p + k); here the same as FM for a clear case
    h, _ = lewis([0.95, 0.9, 0.05])
    np.testing.assert_array_equal(h, [1, 1, 0])
    h, v = lewis([0.01, 0.02])
    np.testing.assert_array_equal(h, [0, 0])
    assert v == pytest.approx(0.99 * 0.98)


def test_marginal_modes_threshold():
    h, _ = marginal_modes([[0.5, 0.51, 0.49, 1.0]])
    np.testing.assert_array_equal(h, [[0, 1, 0, 1]])


# ---------------------------------------------------------------- other methods vs brute force


def test_categorical_matches_brute_force():
    rng = np.random.default_rng(8)
    for m in range(1, 10):
        ps = rng.dirichlet(np.full(m, rng.uniform(0.2, 3)), size=40)
        ps[0] = np.full(m, 1 / m)
        Y = np.broadcast_to(np.eye(m, dtype=np.int8), (40, m, m))
        _, vb = brute_force(Y, ps)
        h, v = categorical(ps)
        np.testing.assert_allclose(v, vb, atol=ATOL)
        np.testing.assert_allclose(expected_f(Y, ps, h), v, atol=ATOL)


def test_categorical_with_mass_on_zero():
    h, v = categorical([0.1, 0.05])  # P(0) = 0.85
    np.testing.assert_array_equal(h, [0, 0])
    assert v == pytest.approx(0.85)


@pytest.mark.parametrize("kind", KINDS)
def test_joint_mode_and_threshold(kind):
    rng = np.random.default_rng(9)
    for m in (1, 3, 6):
        Y, P = batch(rng, m, kind, 30)
        _, vb = brute_force(Y, P)
        h, v = joint_mode(Y, P)
        np.testing.assert_allclose(expected_f(Y, P, h), v, atol=ATOL)
        # h is a most probable vector
        for i in range(30):
            mass = {}
            for y, p in zip(Y[i], P[i]):
                mass[tuple(y)] = mass.get(tuple(y), 0) + p
            assert mass.get(tuple(h[i]), 0) == pytest.approx(max(mass.values()))
        h, v = threshold_marginals(Y, P)
        np.testing.assert_allclose(expected_f(Y, P, h), v, atol=ATOL)
        assert np.all(v <= vb + ATOL)
        # every threshold candidate is no better
        p = np.einsum("nrm,nr->nm", Y, P)
        for i in range(30):
            for theta in list(p[i]) + [2.0]:
                g = (p[i] >= theta).astype(int)
                assert exp_f_plain(Y[i], P[i], g) <= v[i] + ATOL


# ---------------------------------------------------------------- the paper's examples


def test_section_4_1_same_marginals_different_maximizers():
    Y1 = np.array([[0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0]])
    p1 = np.array([0.1, 0.2, 0.2, 0.5])
    Y2 = np.array([[0, 0, 0, 0], [1, 0, 0, 1], [1, 0, 1, 0], [1, 1, 0, 0]])
    p2 = np.array([0.5, 0.1, 0.2, 0.2])
    np.testing.assert_allclose(est.marginals(Y1, p1), [0.5, 0.2, 0.2, 0.1])
    np.testing.assert_allclose(est.marginals(Y2, p2), [0.5, 0.2, 0.2, 0.1])
    h1, v1 = gfm(*est.delta_matrix(Y1, p1))
    h2, v2 = gfm(*est.delta_matrix(Y2, p2))
    np.testing.assert_array_equal(h1, [1, 0, 0, 0])
    np.testing.assert_array_equal(h2, [0, 0, 0, 0])
    assert v1 == pytest.approx(0.5)  # E[F(1000)] = P(y = 1000)
    assert v2 == pytest.approx(0.5)  # E[F(0000)] = P(y = 0)
    # the maximizers are unique: brute force over all 16 predictions
    for Y, pr, _h in ((Y1, p1, h1), (Y2, p2, h2)):
        vals = sorted(exp_f_plain(Y, pr, g) for g in itertools.product([0, 1], repeat=4))
        assert vals[-1] - vals[-2] > 1e-3


def test_section_4_3_thresholding_example_m12():
    Y = np.array([[0] * 12, [1] + [0] * 11, [0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]])
    pr = np.array([0.21, 0.39, 0.2, 0.2])
    p = est.marginals(Y, pr)
    assert p[1] == pytest.approx(0.4) and p[0] == pytest.approx(0.39)  # label 2 has the top marginal
    h, v = gfm(*est.delta_matrix(Y, pr))
    np.testing.assert_array_equal(h, [1] + [0] * 11)  # the paper's maximizer (1000...)
    assert v == pytest.approx(0.39)
    hb, vb = brute_force(Y, pr)
    assert vb == pytest.approx(0.39)
    ht, vt = threshold_marginals(Y, pr)
    # best threshold keeps labels {1, 2}: 0.39 * 2/3 + 0.2 * 2/8 + 0.2 * 2/8 = 0.36 (regret 0.03)
    np.testing.assert_array_equal(ht, [1, 1] + [0] * 10)
    assert vt == pytest.approx(0.36)
    assert exp_f_plain(Y, pr, ht) == pytest.approx(0.36)
    for theta in list(p) + [2.0]:  # no threshold does better
        assert exp_f_plain(Y, pr, (p >= theta).astype(int)) <= 0.36 + 1e-12


def test_section_4_1_independence_methods_miss_the_second_maximizer():
    Y2 = np.array([[0, 0, 0, 0], [1, 0, 0, 1], [1, 0, 1, 0], [1, 1, 0, 0]])
    p2 = np.array([0.5, 0.1, 0.2, 0.2])
    h, _ = fm(est.marginals(Y2, p2))
    np.testing.assert_array_equal(h, [1, 0, 0, 0])
    assert expected_f(Y2, p2, h) == pytest.approx(1 / 3)  # regret 1/6 against (0000)


# ---------------------------------------------------------------- bad input


def test_bad_inputs_name_the_argument():
    D = np.full((3, 3), 0.1)
    with pytest.raises(ValueError, match="delta"):
        gfm(np.ones((3, 4)) * 0.1, 0.1)
    with pytest.raises(ValueError, match="delta.*NaN"):
        gfm(np.where(np.eye(3) > 0, np.nan, D), 0.1)
    with pytest.raises(ValueError, match="delta"):
        gfm(-D, 0.1)
    with pytest.raises(ValueError, match="p_zero"):
        gfm(D, 1.5)
    with pytest.raises(ValueError, match="p_zero"):
        gfm(D, 0.9)  # 0.9 + mass >= 0.1 * 3 * 4 / 6 = 0.2
    with pytest.raises(ValueError, match="m = 0"):
        gfm(np.zeros((0, 0)), 1.0)
    with pytest.raises(ValueError, match="P.*row"):
        gfm_from_p(np.full((2, 2), 0.6), 0.0)
    with pytest.raises(ValueError, match="p_zero"):
        gfm_from_p(np.array([[0.5, 0.0], [0.0, 0.0]]), 0.6)
    with pytest.raises(ValueError, match="P"):
        gfm_from_p(np.array([[1.5, 0.0], [0.0, 0.0]]), 0.0)
    with pytest.raises(ValueError, match="p_zero"):
        gfm_from_p(np.zeros((2, 2, 2)), [0.1, 0.2, 0.3])
    for f in (fm, jansche, lewis, marginal_modes, categorical):
        with pytest.raises(ValueError, match="p"):
            f([0.5, 1.2])
        with pytest.raises(ValueError, match="p.*NaN"):
            f([0.5, np.nan])
        with pytest.raises(ValueError, match="m = 0"):
            f([])
        with pytest.raises(ValueError, match="p"):
            f(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="p.*sum"):
        categorical([0.6, 0.6])
    Y = np.array([[1, 0], [0, 1]])
    for f in (brute_force, joint_mode, threshold_marginals):
        with pytest.raises(ValueError, match="probs"):
            f(Y, [0.5, 0.6])
        with pytest.raises(ValueError, match="support"):
            f([[2, 0], [0, 1]], [0.5, 0.5])
        with pytest.raises(ValueError, match="probs"):
            f(Y, [1.0])
    with pytest.raises(ValueError, match="m = 21"):
        brute_force(np.zeros((1, 21), int), [1.0])
    with pytest.raises(ValueError, match="h"):
        expected_f(Y, [0.5, 0.5], [1, 0, 1])


# ---------------------------------------------------------------- numerics for large m


def _pb_tree(p):
    """Poisson-binomial pmf by a product tree of polynomials (1 - p_i + p_i x), multiplied with
    FFT convolutions: an independent method (no recursion shared with the library)."""
    from scipy.signal import fftconvolve

    polys = [np.array([1 - x, x]) for x in p] or [np.ones(1)]
    while len(polys) > 1:
        nxt = [
            fftconvolve(polys[i], polys[i + 1]) if len(polys[i]) > 64 else np.convolve(polys[i], polys[i + 1])
            for i in range(0, len(polys) - 1, 2)
        ]
        if len(polys) % 2:
            nxt.append(polys[-1])
        polys = nxt
    return np.clip(polys[0], 0.0, 1.0)


def _ef_reference(q_sorted, k):
    """E[F] of the top-k labels under independence, by the exact double sum over (a, b)."""
    A = _pb_tree(q_sorted[:k])
    B = _pb_tree(q_sorted[k:])
    if k == 0:
        return float(B[0])
    b = np.arange(len(B), dtype=float)[None, :]
    total = 0.0
    for a0 in range(0, k + 1, 512):
        a = np.arange(a0, min(k + 1, a0 + 512), dtype=float)[:, None]
        total += float(A[a0 : a0 + len(a)] @ ((2 * a / (k + a + b)) @ B))
    return total


@pytest.mark.parametrize("profile", ["uniform", "extreme"])
def test_fm_numerically_sound_m10000(profile):
    rng = np.random.default_rng(11)
    m = 10_000
    if profile == "uniform":
        p = rng.random(m)
    else:  # exact 0 and 1, near-certain and negligible labels
        p = rng.choice([0.0, 1.0, 0.999, 1e-12, 0.5], size=m)
    h, v = fm(p)
    assert np.isfinite(v) and 0 <= v <= 1
    k = int(h.sum())
    # h holds the k largest marginals
    assert p[h == 1].min(initial=1.0) >= p[h == 0].max(initial=0.0)
    q = -np.sort(-p)
    assert v == pytest.approx(_ef_reference(q, k), abs=1e-9)
    for dk in (-1, 1) if profile == "uniform" else ():
        if 0 <= k + dk <= m:
            assert _ef_reference(q, k + dk) <= v + 1e-9
    # value is also the exact expected F of h computed by a second recursion
    assert expected_f_independent(p, h) == pytest.approx(v, abs=1e-9)


def test_fm_checkpointed_recursion_matches_full():
    from fmeasure.inference.independence import _fm_values_vectorised

    rng = np.random.default_rng(12)
    for m in (1, 2, 7, 31):
        q = -np.sort(-rng.random((4, m)), axis=1)
        ref = _fm_values_vectorised(q, c=m)
        for c in (1, 2, 3, 5):
            np.testing.assert_allclose(_fm_values_vectorised(q, c=c), ref, atol=1e-15)


@pytest.mark.parametrize("m", [1, 2, 7, 60, 300])
def test_fm_compiled_program_equals_the_vectorised_one(m):
    # the same numbers bit for bit: marginals with exact 0s and 1s, ties, and many tiny ones
    from fmeasure.inference._fm_kernel import fm_values_rows
    from fmeasure.inference.independence import _fm_values, _fm_values_vectorised

    rng = np.random.default_rng(m)
    P = rng.random((40, m)) ** 3
    P[:, m // 2 :] *= rng.random((40, m - m // 2)) < 0.3
    P[0] = 0.0
    P[1] = 1.0
    P[2, : (m + 1) // 2] = 0.5
    P[3] = 1e-300
    q = -np.sort(-P, axis=1)
    ref = _fm_values_vectorised(q)
    E = np.empty((40, m + 1))
    fm_values_rows(q, E)
    np.testing.assert_array_equal(E, ref)
    np.testing.assert_array_equal(_fm_values(q), ref)  # the dispatch takes the compiled program
    # one instance alone gets its batched values (the vectorised form reduces a lone instance's
    # contiguous axis with several partial sums, which can differ in the last bits)
    for i in (0, 5, 39):
        np.testing.assert_array_equal(_fm_values(q[i : i + 1]), ref[i : i + 1])


def test_gfm_from_samples_equals_p_route():
    import scipy.sparse as sp

    from fmeasure.inference import gfm_from_samples

    rng = np.random.default_rng(13)
    for m in (1, 4, 9, 40):
        Yb = (rng.random((6, 30, m)) < rng.uniform(0.02, 0.5)).astype(np.int8)
        Yb[0] = 0  # an all-empty sample
        w = rng.random((6, 30))
        h, v = gfm_from_samples(Yb, w)
        h2, v2 = gfm_from_p(*est.p_matrix(Yb, w))
        np.testing.assert_allclose(v, v2, atol=1e-12)
        np.testing.assert_allclose(expected_f(Yb, w / w.sum(1, keepdims=True), h), v, atol=1e-12)
        for i in range(6):
            hs, vs = gfm_from_samples(sp.csr_matrix(Yb[i]), w[i])
            assert vs == pytest.approx(v[i], abs=1e-12)
            np.testing.assert_array_equal(hs, h[i])


def _gfm_reference(D, p0):
    """Algorithm 1 as written, one instance: for every k the top-k of column k."""
    best = p0
    for k in range(1, D.shape[0] + 1):
        best = max(best, np.sort(D[:, k - 1])[::-1][:k].sum())
    return best


def test_gfm_exact_on_arbitrary_matrices():
    """The column pruning must stay exact for any admissible input, not only for Delta/P
    matrices of a true distribution (e.g. estimates from a parametric model)."""
    rng = np.random.default_rng(14)
    for m in (1, 2, 5, 12, 30, 101):
        n = 40
        D = rng.random((n, m, m)) ** rng.uniform(1, 6, size=(n, 1, 1)) * (0.5 / m)
        p0 = rng.random(n) * 0.3
        h, v = gfm(D, p0)
        ref = [_gfm_reference(D[i], p0[i]) for i in range(n)]
        np.testing.assert_allclose(v, ref, atol=1e-12)
        np.testing.assert_allclose(
            np.einsum("nm,nm->n", h, D[np.arange(n), :, np.maximum(h.sum(1) - 1, 0)]) + np.where(h.sum(1) == 0, p0, 0),
            v,
            atol=1e-12,
        )
        # P matrices that violate P(y_i = 1, s) <= P(s) (not a distribution, still admissible)
        P = rng.random((n, m, m)) ** 4 * (rng.random((n, 1, m)) < 0.3)
        P *= rng.uniform(0.1, 1.0, size=(n, 1, 1)) / np.maximum(
            P.sum(axis=2, keepdims=True).max(1, keepdims=True), 1e-12
        )
        mass = (P.sum(axis=1) / np.arange(1, m + 1)).sum(axis=1)
        P /= np.maximum(mass, 1.0)[:, None, None]
        p0 = (1 - (P.sum(axis=1) / np.arange(1, m + 1)).sum(axis=1)) * rng.random(n)
        k = np.arange(1, m + 1)
        W = 2.0 / (k[:, None] + k[None, :])
        h, v = gfm_from_p(P, p0)
        ref = [_gfm_reference(P[i] @ W, p0[i]) for i in range(n)]
        np.testing.assert_allclose(v, ref, atol=1e-12)


def test_gfm_accepts_float32_and_int_inputs():
    rng = np.random.default_rng(15)
    Y, P = batch(rng, 5, "sparse", 20)
    Pm, p0 = est.p_matrix(Y, P)
    D, _ = est.delta_matrix(Y, P)
    _, v = gfm_from_p(Pm, p0)
    np.testing.assert_allclose(gfm_from_p(Pm.astype(np.float32), p0)[1], v, atol=1e-6)
    np.testing.assert_allclose(gfm(D.astype(np.float32), p0)[1], v, atol=1e-6)
    h, v = gfm_from_p(np.zeros((3, 3), dtype=int), 1)
    np.testing.assert_array_equal(h, [0, 0, 0])
    assert v == 1.0


def test_sparse_support_and_duplicate_vectors():
    import scipy.sparse as sp

    Y = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    pr = np.array([0.3, 0.4, 0.3])  # (100) appears twice: total 0.6
    h, v = joint_mode(sp.csr_matrix(Y), pr)
    np.testing.assert_array_equal(h, [1, 0, 0])
    assert v == pytest.approx(0.6 + 0.4 * 0)
    hb, vb = brute_force(sp.csr_matrix(Y), pr)
    assert vb == pytest.approx(brute_opt_plain(Y, pr))
    assert expected_f(sp.csr_matrix(Y), pr, [1, 1, 1]) == pytest.approx(0.6 * 0.5 + 0.4 * 0.8)


def test_numerical_ties_go_to_the_smaller_prediction():
    """0.1 + 0.2 > 0.3 in floating point: an exact tie must not be settled by round-off."""
    from fmeasure.inference import gfm, gfm_from_samples

    delta = np.zeros((2, 2))
    delta[0, 0] = 0.1 + 0.2  # E[F] of predicting label 1 alone, mathematically 0.3
    h, v = gfm(delta, 0.3)  # E[F] of the empty prediction, 0.3
    assert h.tolist() == [0, 0] and v == pytest.approx(0.3)
    h, v = gfm_from_samples(np.array([[1, 0], [0, 0], [0, 0], [1, 0], [0, 1]]), weights=None)
    # E[F] of empty = 0.4; of {1} = 0.4 (two of five vectors): the empty prediction wins the tie.
    assert h.tolist() == [0, 0]


# ---------------------------------------------------------------- gfm_from_p: the pruned search


def _gfm_loop(P, p0):
    """Algorithm 1 as written, one instance, with the package's tie rules: Delta = P W, the top k
    of column k by a stable sort (lowest label index first among equal entries), the first size
    within 1e-12 of the best (the empty prediction first)."""
    m = P.shape[0]
    k = np.arange(1, m + 1)
    D = P @ (2.0 / (k[:, None] + k[None, :]))
    vals = [p0]
    for kk in range(1, m + 1):
        vals.append(np.sort(D[:, kk - 1])[::-1][:kk].sum())
    vals = np.array(vals)
    kb = int(np.argmax(vals >= vals.max() - 1e-12))
    h = np.zeros(m, np.int8)
    if kb:
        h[np.argsort(-D[:, kb - 1], kind="stable")[:kb]] = 1
    return h, vals[kb]


def _p_brute(P, p0):
    """The best expected F over all 2^m predictions, E[F(h)] = sum_{i in h} Delta_{i,|h|}."""
    m = P.shape[0]
    k = np.arange(1, m + 1)
    D = P @ (2.0 / (k[:, None] + k[None, :]))
    H = all_vectors(m)
    s = H.sum(axis=1)
    vals = np.where(s == 0, p0, np.einsum("hi,ih->h", H, D[:, np.maximum(s - 1, 0)]))
    return vals.max()


def _mixed_batch(rng, m, n):
    """P matrices of true distributions of every kind, with equal labels (duplicated columns of the
    support: equal rows of P), all-zero instances, and mass only on counts above the sizes that win."""
    Ps, p0s = [], []
    for j in range(n):
        kind = KINDS[j % len(KINDS)]
        Y, pr = random_dist(rng, m, kind)
        if j % 3 == 0 and m > 2:  # label 1 a copy of label 0: ties within every column
            Y = Y.copy()
            Y[:, 1] = Y[:, 0]
        if j % 7 == 0:  # coarse probabilities: ties between sizes
            pr = np.round(pr * 4) + 1.0
            pr = pr / pr.sum()
        P, p0 = est.p_matrix(Y, pr)
        if j % 11 == 0:
            P, p0 = np.zeros((m, m)), 1.0
        if j % 13 == 5 and m >= 4:  # only counts s = m - 1, m: all mass on large label sets
            P = np.zeros((m, m))
            P[:, m - 1] = 0.3
            P[: m - 1, m - 2] = 0.5 / m
            p0 = 1.0 - 0.3 - (m - 1) * 0.5 / m / (m - 1)
        Ps.append(P)
        p0s.append(p0)
    return np.array(Ps), np.array(p0s)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 10])
def test_gfm_from_p_batch_matches_loop_and_brute_force(m):
    rng = np.random.default_rng(100 + m)
    P, p0 = _mixed_batch(rng, m, 80)
    h, v = gfm_from_p(P, p0)
    for i in range(len(P)):
        hl, vl = _gfm_loop(P[i], p0[i])
        np.testing.assert_array_equal(h[i], hl)
        assert v[i] == pytest.approx(vl, abs=1e-12)
        assert v[i] == pytest.approx(_p_brute(P[i], p0[i]), abs=1e-12)
        h1, v1 = gfm_from_p(P[i], p0[i])  # single instance: same answer
        np.testing.assert_array_equal(h1, hl)
        assert v1 == pytest.approx(vl, abs=1e-12)


def test_gfm_from_p_equal_labels_take_the_lowest_indices():
    # 6 equal labels, each in a set of 3 labels with probability 1/2 of the sets: P(y_i=1, s=3) = 1/4
    P = np.zeros((6, 6))
    P[:, 2] = 0.25
    h, v = gfm_from_p(P, 0.5)
    hl, vl = _gfm_loop(P, 0.5)
    np.testing.assert_array_equal(h, hl)
    assert h[: h.sum()].all()  # the chosen labels are the first ones
    assert v == pytest.approx(_p_brute(P, 0.5), abs=1e-12)


def test_gfm_from_p_wide_and_narrow_instances_in_one_batch():
    """Instances whose best size is far above the largest count with mass (flat distributions over
    many labels) next to peaked ones: each instance keeps its own range of sizes."""
    rng = np.random.default_rng(7)
    m, n = 40, 60
    P = np.zeros((n, m, m))
    p0 = np.zeros(n)
    for i in range(n):
        S = int(rng.integers(1, 5))
        if i % 2:  # a uniformly random set of S labels: all m labels are optimal
            P[i, :, S - 1] = S / m
        else:  # a few likely labels
            q = rng.dirichlet(np.full(m, 0.1))
            P[i, :, S - 1] = np.minimum(1.0, q * S) * 0.9
        p0[i] = max(0.0, 1 - (P[i].sum(axis=0) / np.arange(1, m + 1)).sum()) * rng.random()
    h, v = gfm_from_p(P, p0)
    for i in range(n):
        hl, vl = _gfm_loop(P[i], p0[i])
        np.testing.assert_array_equal(h[i], hl)
        assert v[i] == pytest.approx(vl, abs=1e-12)
    assert h[1::2].sum(axis=1).max() == m  # sizes above every count with mass are reached


def test_no_rows_is_not_reported_as_no_labels():
    # an (0, m) input has m labels and no rows: the message names the dimension that is empty
    for f in (fm, marginal_modes):
        with pytest.raises(ValueError, match=r"no rows.*\(0, 3\)"):
            f(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="m = 0"):
        fm(np.zeros((3, 0)))
