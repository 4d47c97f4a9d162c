"""Hypothesis properties of the inference core: permutation invariance, GFM dominance, identities."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fmeasure import estimation as est
from fmeasure import metrics
from fmeasure.inference import (
    brute_force,
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

SETTINGS = settings(max_examples=150, deadline=None)


@st.composite
def distributions(draw, max_m=6, max_r=7):
    m = draw(st.integers(1, max_m))
    r = draw(st.integers(1, max_r))
    Y = draw(arrays(np.int8, (r, m), elements=st.integers(0, 1)))
    w = draw(arrays(np.float64, (r,), elements=st.floats(0.0, 1.0)))
    if draw(st.booleans()):  # coarse weights: many exact ties
        w = np.round(w * 4) / 4
    if w.sum() == 0:
        w[0] = 1.0
    return Y, w / w.sum()


@SETTINGS
@given(distributions(), st.randoms(use_true_random=False))
def test_gfm_invariant_under_label_permutation(d, rnd):
    Y, pr = d
    m = Y.shape[1]
    perm = np.array(rnd.sample(range(m), m))
    h, v = gfm(*est.delta_matrix(Y, pr))
    h2, v2 = gfm(*est.delta_matrix(Y[:, perm], pr))
    assert abs(v - v2) < 1e-12
    # the permuted prediction is optimal for the permuted distribution
    assert abs(expected_f(Y[:, perm], pr, h[perm]) - v2) < 1e-12


@SETTINGS
@given(distributions(), st.randoms(use_true_random=False))
def test_fm_invariant_under_label_permutation(d, rnd):
    Y, pr = d
    p = est.marginals(Y, pr)
    perm = np.array(rnd.sample(range(len(p)), len(p)))
    h, v = fm(p)
    h2, v2 = fm(p[perm])
    assert abs(v - v2) < 1e-12
    assert abs(expected_f_independent(p[perm], h[perm]) - v2) < 1e-12


@SETTINGS
@given(distributions())
def test_gfm_dominates_every_method_and_equals_brute_force(d):
    Y, pr = d
    D, p0 = est.delta_matrix(Y, pr)
    h, v = gfm(D, p0)
    hp, vp = gfm_from_p(*est.p_matrix(Y, pr))
    _, vb = brute_force(Y, pr)
    assert abs(v - vb) < 1e-9 and abs(vp - vb) < 1e-9
    assert abs(expected_f(Y, pr, h) - v) < 1e-9 and abs(expected_f(Y, pr, hp) - v) < 1e-9
    p = est.marginals(Y, pr)
    for g in (
        fm(p)[0],
        jansche(p)[0],
        lewis(p)[0],
        marginal_modes(p)[0],
        joint_mode(Y, pr)[0],
        threshold_marginals(Y, pr)[0],
        np.zeros_like(h),
        np.ones_like(h),
    ):
        assert expected_f(Y, pr, g) <= v + 1e-9


@SETTINGS
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 8)), elements=st.floats(0.0, 1.0)))
def test_fm_dominates_under_independence(P):
    h, v = fm(P)
    np.testing.assert_allclose(jansche(P)[1], v, atol=1e-12)
    np.testing.assert_allclose(expected_f_independent(P, h), v, atol=1e-12)
    for f in (lewis, marginal_modes):
        assert np.all(f(P)[1] <= v + 1e-12)
    # the prediction is a set of top marginals
    for p, hh in zip(P, h):
        if 0 < hh.sum() < len(hh):
            assert p[hh == 1].min() >= p[hh == 0].max()


@SETTINGS
@given(distributions())
def test_estimation_identities(d):
    Y, w = d
    P, p0 = est.p_matrix(Y, w)
    m = Y.shape[1]
    np.testing.assert_allclose(P.sum(axis=1), est.marginals(Y, w), atol=1e-12)
    assert abs(p0 + (P.sum(axis=0) / np.arange(1, m + 1)).sum() - 1) < 1e-12
    W = 2.0 / (np.arange(1, m + 1)[:, None] + np.arange(1, m + 1)[None, :])
    np.testing.assert_allclose(est.delta_matrix(Y, w)[0], P @ W, atol=1e-12)


@SETTINGS
@given(arrays(np.int8, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=st.integers(0, 1)), st.data())
def test_metric_identities(A, data):
    B = data.draw(arrays(np.int8, A.shape, elements=st.integers(0, 1)))
    F = metrics.f_measure(A, B)
    J = metrics.jaccard_index(A, B)
    np.testing.assert_allclose(F, metrics.f_measure(B, A))
    assert np.all((0 <= F) & (F <= 1)) and np.all(J <= F + 1e-15)
    np.testing.assert_allclose(F, 2 * J / (1 + J))  # holds with both empty conventions = 1
    np.testing.assert_allclose(metrics.f_measure(A, A), 1.0)
    np.testing.assert_allclose(metrics.subset_zero_one_loss(A, B) == 0, metrics.hamming_loss(A, B) == 0)


@SETTINGS
@given(st.lists(distributions(max_m=6, max_r=7), min_size=1, max_size=6))
def test_gfm_from_p_batch_equals_one_by_one_algorithm_1(ds):
    """The pruned batched search gives Algorithm 1's answer, ties included, on any mixed batch."""
    m = 6
    Ps, p0s = [], []
    for Y, pr in ds:
        Yp = np.zeros((Y.shape[0], m), np.int8)
        Yp[:, : Y.shape[1]] = Y  # pad to a common m with labels that never occur
        P, p0 = est.p_matrix(Yp, pr)
        Ps.append(P)
        p0s.append(p0)
    h, v = gfm_from_p(np.array(Ps), np.array(p0s))
    k = np.arange(1, m + 1)
    W = 2.0 / (k[:, None] + k[None, :])
    for i, (P, p0) in enumerate(zip(Ps, p0s)):
        D = P @ W
        vals = np.array([p0] + [np.sort(D[:, j])[::-1][: j + 1].sum() for j in range(m)])
        kb = int(np.argmax(vals >= vals.max() - 1e-12))
        want = np.zeros(m, np.int8)
        if kb:
            want[np.argsort(-D[:, kb - 1], kind="stable")[:kb]] = 1
        assert h[i].tolist() == want.tolist()
        assert abs(v[i] - vals[kb]) < 1e-12
