"""The compiled GFM search (gfm_from_p and the sample routes) against brute force over {0,1}^m for
small m, and against the plain per-instance loop and the batched NumPy reference for larger m: ties
between labels and sizes, the empty prediction, sparse P, S < m count columns, P(y = 0) = 1, best
sizes above every count with mass, and wide samples whose Delta columns are only partly sorted."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from _dists import KINDS, exp_f_plain, random_dist

from fmeasure import estimation as est
from fmeasure.inference import general as G
from fmeasure.inference import gfm_from_p, gfm_from_sample_rows, gfm_from_samples

TIE = 1e-12


def plain_loop(P, p0):
    """Algorithm 1 for one P (m, S), written plainly: Delta = P W, for each size k the sum of the k
    largest entries of column k, the first size within 1e-12 of the best (the empty prediction, value
    p0, first), the k largest entries of that column with ties to the lowest label index."""
    m, S = P.shape
    W = 2.0 / (np.arange(1, S + 1)[:, None] + np.arange(1, m + 1)[None, :])
    D = P @ W
    vals = [p0] + [np.sort(D[:, k - 1])[::-1][:k].sum() for k in range(1, m + 1)]
    kb = int(np.argmax(np.array(vals) >= max(vals) - TIE))
    h = np.zeros(m, np.int8)
    if kb:
        col = np.zeros(m)
        for s in range(S):  # in order over s: equal rows of P give equal entries
            col += P[:, s] * W[s, kb - 1]
        h[np.argsort(-col, kind="stable")[:kb]] = 1
    return h, vals[kb]


def brute(P, p0):
    """The first maximiser of E[F(h)] = sum_{i in h} Delta_{i,|h|} over {0,1}^m in the tie order
    (smaller |h| first, then lower label indices), with its value."""
    m, S = P.shape
    D = P @ (2.0 / (np.arange(1, S + 1)[:, None] + np.arange(1, m + 1)[None, :]))
    best, arg = p0, np.zeros(m, np.int8)
    for h in sorted(itertools.product([0, 1], repeat=m), key=lambda h: (sum(h), [-x for x in h])):
        k = sum(h)
        if k and (v := D[np.array(h, bool), k - 1].sum()) > best + TIE:
            best, arg = v, np.array(h, np.int8)
    return arg, best


def check_against(P, p0, h, v, ref):
    for i in range(len(P)):
        hr, vr = ref(P[i], p0[i])
        np.testing.assert_array_equal(h[i], hr, err_msg=f"instance {i}")
        assert v[i] == pytest.approx(vr, abs=1e-12)


def mixed(rng, m, n, S=None):
    """P matrices (n, m, S) of distributions of every kind (S = m by default: the counts above the
    largest label count are zero columns), with tied labels, coarse probabilities (tied sizes),
    P(y = 0) = 1 and mass only on large label sets."""
    Ps, p0s = [], []
    for j in range(n):
        Y, pr = random_dist(rng, m, KINDS[j % len(KINDS)])
        if j % 3 == 0 and m > 2:
            Y = Y.copy()
            Y[:, 1] = Y[:, 0]  # a copy of label 0: ties in every column
        if j % 5 == 0:
            pr = np.round(pr * 3) + 1.0  # coarse probabilities: ties between sizes
            pr = pr / pr.sum()
        P, p0 = est.p_matrix(Y, pr)
        if j % 11 == 0:
            P, p0 = np.zeros((m, m)), 1.0  # P(y = 0) = 1: nothing to predict
        Ps.append(P)
        p0s.append(p0)
    P = np.array(Ps)
    if S is not None:
        assert not P[:, :, S:].any()
        P = np.ascontiguousarray(P[:, :, :S])
    return P, np.array(p0s)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 6, 8])
def test_small_m_equals_brute_force_in_the_tie_order(m):
    rng = np.random.default_rng(300 + m)
    P, p0 = mixed(rng, m, 60)
    h, v = gfm_from_p(P, p0)
    hr, vr = G._reference_blocks(P, p0)
    np.testing.assert_array_equal(hr, h)
    np.testing.assert_allclose(vr, v, atol=1e-12)
    check_against(P, p0, h, v, brute)


@pytest.mark.parametrize("m", [12, 30, 64])
def test_larger_m_equals_the_plain_loop_and_the_reference(m):
    rng = np.random.default_rng(400 + m)
    Ps, p0s = [], []
    for j in range(40):  # sparse samples over m labels: few labels with mass, S < m
        K = int(rng.integers(1, 30))
        Y = (rng.random((K, m)) < rng.uniform(0.02, 0.3)).astype(np.int8)
        if j % 4 == 0:
            Y[::2] = Y[0]  # repeated vectors: tied labels
        w = np.ones(K) if j % 4 == 0 else rng.random(K)
        P, p0 = est.p_matrix(Y, w)
        Ps.append(P)
        p0s.append(p0)
    P, p0 = np.array(Ps), np.array(p0s)
    S = int(np.flatnonzero(P.any(axis=(0, 1)))[-1]) + 1
    assert S < m
    h, v = gfm_from_p(P, p0)
    hs, vs = gfm_from_p(np.ascontiguousarray(P[:, :, :S]), p0)  # only the counts with mass
    np.testing.assert_array_equal(hs, h)
    np.testing.assert_array_equal(vs, v)
    hr, vr = G._reference_blocks(P, p0)
    np.testing.assert_array_equal(hr, h)
    np.testing.assert_allclose(vr, v, atol=1e-12)
    check_against(P, p0, h, v, plain_loop)


def test_the_empty_prediction_wins_ties_and_when_p_zero_is_large():
    m = 5
    P = np.zeros((3, m, 2))
    P[0, 0, 0] = 0.5  # P(y = {0}) = 0.5: E[F({0})] = 0.5 = P(y = 0)
    P[1, :, 0] = 0.02  # five singletons of 0.02 each: the empty prediction's 0.9 wins
    P[2, [1, 2], 1] = 0.25  # P(y = {1, 2}) = 0.25: {1, 2} gives 0.25 < 0.75
    p0 = np.array([0.5, 0.9, 0.75])
    h, v = gfm_from_p(P, p0)
    assert not h.any()
    np.testing.assert_allclose(v, p0)
    check_against(P, p0, h, v, brute)


def test_all_mass_at_zero_and_all_zero_matrices():
    P = np.zeros((4, 7, 7))
    h, v = gfm_from_p(P, np.ones(4))
    assert not h.any() and np.all(v == 1.0)
    h, v = gfm_from_samples(np.zeros((3, 5, 7), np.int8))
    assert not h.any() and np.all(v == 1.0)
    h, v = gfm_from_sample_rows(sp.csr_array((4, 7), dtype=np.int8), [[0, 1], [2, 3]])
    assert not h.any() and np.all(v == 1.0)


def test_equal_labels_take_the_lowest_indices_at_every_size():
    """Equal rows of P (labels that always occur together): the chosen ones are the lowest."""
    rng = np.random.default_rng(9)
    m = 40
    for S in (1, 3, 7):
        P = np.zeros((m, S))
        P[:, S - 1] = S / m * rng.choice([0.5, 1.0], size=m)  # two groups of equal labels
        h, v = gfm_from_p(P, 0.0)
        hl, vl = plain_loop(P, 0.0)
        np.testing.assert_array_equal(h, hl)
        assert v == pytest.approx(vl, abs=1e-12)
        for grp in (P[:, S - 1] == P[:, S - 1].max(), P[:, S - 1] < P[:, S - 1].max()):
            chosen = h[grp]
            assert np.all(np.diff(chosen.astype(int)) <= 0)  # within a group: a prefix


def test_best_size_above_every_count_with_mass():
    """A uniformly random set of s labels out of m: every label is worth the same, and the best
    prediction takes all m labels, far above the largest count with mass s."""
    m = 50
    for s in (1, 2, 5):
        P = np.zeros((m, s))
        P[:, s - 1] = s / m
        h, v = gfm_from_p(P, 0.0)
        assert h.sum() == m
        hl, vl = plain_loop(P, 0.0)
        np.testing.assert_array_equal(h, hl)
        assert v == pytest.approx(vl, abs=1e-12) == pytest.approx(2 * s / (s + m))


def _wide_sample(rng, K, m, card, skew):
    freq = 1.0 / np.arange(1, m + 1) ** skew
    freq = np.minimum(0.95, freq * card / freq.sum())
    return (rng.random((K, m)) < freq).astype(np.int8)


@pytest.mark.parametrize("seed", range(3))
def test_wide_samples_with_long_tails_equal_the_reference(seed):
    """Samples over many labels with mass (a forest's leaf pool on an extreme label set): most
    entries of a Delta column are small and close, and only the largest ones are sorted."""
    rng = np.random.default_rng(seed)
    m, n = 1500, 3
    Y = np.array([_wide_sample(rng, 300, m, 5.3, 0.7) for _ in range(n)])
    w = rng.random((n, 300)) * (rng.random((n, 300)) < 0.9)
    w[:, 0] += 0.1
    h, v = gfm_from_samples(Y, w)
    hr_rows, vr_rows = gfm_from_sample_rows(sp.csr_array(Y.reshape(-1, m)), np.arange(n * 300).reshape(n, 300), w)
    np.testing.assert_array_equal(hr_rows, h)
    np.testing.assert_allclose(vr_rows, v, atol=1e-12)
    for i in range(n):
        P, p0 = est.p_matrix(Y[i], w[i])
        live = P.sum(axis=1) > 0
        S = int(np.flatnonzero(P.any(axis=0))[-1]) + 1
        A = np.ascontiguousarray(P[live][None, :, :S])
        hr, vr = G._reference_blocks(A, np.array([p0]))
        np.testing.assert_array_equal(h[i, live], hr[0])
        assert not h[i, ~live].any()
        assert v[i] == pytest.approx(vr[0], abs=1e-12)
        assert exp_f_plain(Y[i], w[i] / w[i].sum(), h[i]) == pytest.approx(v[i], abs=1e-12)
        hp, vp = gfm_from_p(A[0], p0)
        np.testing.assert_array_equal(hp, hr[0])


def test_many_equal_and_tiny_entries():
    """Columns with many exactly equal entries and entries far below the largest (below 2^-64 of
    it, where the first column's counting sort puts them in one bucket)."""
    rng = np.random.default_rng(4)
    m, S = 300, 4
    P = np.zeros((5, m, S))
    P[0, :, 0] = 1.0 / m  # all equal: singletons
    P[1, :100, 1] = 0.004
    P[1, 100:, 1] = 1e-25 * rng.random(m - 100)  # tiny, distinct
    P[2, :, 3] = rng.choice([1e-3, 2e-3, 3e-3], size=m)
    P[3, :150, 0] = 1e-30
    P[3, 0, 2] = 0.3
    P[4] = rng.random((m, S)) * 1e-3
    P[4, ::3] = P[4, 0]
    p0 = np.maximum(0.0, 1 - (P.sum(axis=1) / np.arange(1, S + 1)).sum(axis=1)) * 0.5
    h, v = gfm_from_p(P, p0)
    hr, vr = G._reference_blocks(P, p0)
    np.testing.assert_array_equal(h, hr)
    np.testing.assert_allclose(v, vr, atol=1e-12)
    check_against(P, p0, h, v, plain_loop)


def test_reference_handles_padding_rows_and_chunks():
    """The reference on blocks padded with zero rows, over several chunks, equals the search."""
    rng = np.random.default_rng(11)
    P, p0 = mixed(rng, 6, 50)
    pad = np.concatenate([P, np.zeros((50, 3, 6))], axis=1)
    h, v = gfm_from_p(P, p0)
    hr, vr = G._reference_blocks(pad, p0, budget=24 * 9 * 9 * 4)  # 4 instances a chunk
    np.testing.assert_array_equal(hr[:, :6], h)
    assert not hr[:, 6:].any()
    np.testing.assert_allclose(vr, v, atol=1e-12)
