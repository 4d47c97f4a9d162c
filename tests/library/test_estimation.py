"""Estimation by counting, against loops over the sample written from the formulas."""

import numpy as np
import pytest
import scipy.sparse as sp

from fmeasure import estimation as est


def _plain(Y, w):
    """marginals, p_zero, P, Delta by explicit loops (Section 7.1.1 formulas)."""
    Y = np.asarray(Y)
    S, m = Y.shape
    w = np.full(S, 1 / S) if w is None else np.asarray(w, float) / np.sum(w)
    p = np.zeros(m)
    P = np.zeros((m, m))
    D = np.zeros((m, m))
    p0 = 0.0
    for y, wj in zip(Y, w):
        s = int(y.sum())
        if s == 0:
            p0 += wj
        for i in range(m):
            if y[i]:
                p[i] += wj
                P[i, s - 1] += wj
                for k in range(1, m + 1):
                    D[i, k - 1] += wj * 2 / (s + k)
    return p, p0, P, D


@pytest.mark.parametrize("weighted", [False, True])
def test_single_sample_dense_and_sparse(weighted):
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 9):
        Y = (rng.random((25, m)) < rng.random()).astype(np.int8)
        w = rng.random(25) if weighted else None
        p, p0, P, D = _plain(Y, w)
        for Yin in (Y, Y.astype(bool), Y.astype(float), sp.csr_matrix(Y), sp.csc_array(Y)):
            np.testing.assert_allclose(est.marginals(Yin, w), p, atol=1e-14)
            assert est.p_zero(Yin, w) == pytest.approx(p0, abs=1e-14)
            P2, q0 = est.p_matrix(Yin, w)
            np.testing.assert_allclose(P2, P, atol=1e-14)
            assert q0 == pytest.approx(p0, abs=1e-14)
            D2, q0 = est.delta_matrix(Yin, w)
            np.testing.assert_allclose(D2, D, atol=1e-14)
            assert q0 == pytest.approx(p0, abs=1e-14)


def test_batch_has_leading_axis():
    rng = np.random.default_rng(1)
    Y = (rng.random((4, 10, 6)) < 0.3).astype(np.int8)
    w = rng.random((4, 10))
    P, p0 = est.p_matrix(Y, w)
    D, q0 = est.delta_matrix(Y, w)
    assert P.shape == D.shape == (4, 6, 6) and p0.shape == (4,)
    pm = est.marginals(Y, w)
    for i in range(4):
        p, z, Pi, Di = _plain(Y[i], w[i])
        np.testing.assert_allclose(pm[i], p, atol=1e-14)
        np.testing.assert_allclose(P[i], Pi, atol=1e-14)
        np.testing.assert_allclose(D[i], Di, atol=1e-14)
        assert p0[i] == pytest.approx(z) and q0[i] == pytest.approx(z)
    np.testing.assert_allclose(est.p_zero(Y, w), p0)


def test_p_rows_sum_to_marginals_and_delta_is_pw():
    rng = np.random.default_rng(2)
    Y = (rng.random((50, 7)) < 0.4).astype(np.int8)
    P, p0 = est.p_matrix(Y)
    np.testing.assert_allclose(P.sum(axis=1), est.marginals(Y))
    W = 2.0 / (np.arange(1, 8)[:, None] + np.arange(1, 8)[None, :])
    np.testing.assert_allclose(est.delta_matrix(Y)[0], P @ W, atol=1e-14)
    mass = (P.sum(axis=0) / np.arange(1, 8)).sum()
    assert mass + p0 == pytest.approx(1.0)


def test_joint_mode_counts_and_tie_rule():
    Y = np.array([[0, 1], [1, 1], [0, 1], [1, 1], [0, 0]])
    h, prob = est.joint_mode(Y)
    np.testing.assert_array_equal(h, [0, 1])  # tie 2 vs 2: first occurring wins
    assert prob == pytest.approx(0.4)
    h, prob = est.joint_mode(Y, weights=[1, 1, 1, 1, 5])
    np.testing.assert_array_equal(h, [0, 0])
    assert prob == pytest.approx(5 / 9)
    h, prob = est.joint_mode(sp.csr_matrix(Y))
    np.testing.assert_array_equal(h, [0, 1])
    rng = np.random.default_rng(3)
    Yb = (rng.random((30, 12, 4)) < 0.3).astype(np.int8)
    hb, pb = est.joint_mode(Yb)
    for i in range(30):
        rows = [tuple(r) for r in Yb[i]]
        counts = {r: rows.count(r) for r in rows}
        best = max(counts.values())
        first = next(r for r in rows if counts[r] == best)
        assert tuple(hb[i]) == first and pb[i] == pytest.approx(best / 12)


def test_joint_mode_wide_labels():
    rng = np.random.default_rng(4)
    Y = (rng.random((40, 200)) < 0.02).astype(np.int8)
    Y[5] = Y[17] = Y[33]
    h, prob = est.joint_mode(Y)
    np.testing.assert_array_equal(h, Y[5])
    assert prob == pytest.approx(3 / 40)


def test_bad_inputs():
    with pytest.raises(ValueError, match="Y"):
        est.marginals(np.zeros(3))
    with pytest.raises(ValueError, match="Y.*0 or 1"):
        est.p_matrix([[0, 2]])
    with pytest.raises(ValueError, match="m = 0"):
        est.p_matrix(np.zeros((3, 0)))
    with pytest.raises(ValueError, match="empty"):
        est.delta_matrix(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="weights"):
        est.marginals([[0, 1], [1, 1]], weights=[1.0])
    with pytest.raises(ValueError, match="weights"):
        est.marginals([[0, 1], [1, 1]], weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="weights"):
        est.marginals([[0, 1], [1, 1]], weights=[0.0, 0.0])
    with pytest.raises(ValueError, match="weights"):
        est.marginals([[0, 1], [1, 1]], weights=[np.nan, 1.0])
