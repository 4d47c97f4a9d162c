"""GFM from samples on the labels with mass only: exact against brute force for small m, and the
same predictions and values as the all-labels computation for m = 4000."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from _dists import exp_f_plain

from fmeasure import estimation as est
from fmeasure.inference import expected_f, gfm_from_p, gfm_from_sample_rows, gfm_from_samples
from fmeasure.inference import general as G
from fmeasure.inference._kernels import walks_all_labels


def _brute(Y, w):
    """max_h E[F] and the first maximiser in the tie order (smaller |h| first, then the label
    indices of h compared in increasing order), by enumeration of {0,1}^m."""
    m = Y.shape[1]
    best, arg = -1.0, None
    cands = sorted(itertools.product([0, 1], repeat=m), key=lambda h: (sum(h), [-x for x in h]))
    for h in cands:
        v = exp_f_plain(Y, w, h)
        if v > best + 1e-12:
            best, arg = v, h
    return best, np.array(arg, np.int8)


def _random_samples(rng, n, S, m, ties):
    Y = (rng.random((n, S, m)) < rng.uniform(0.05, 0.6)).astype(np.int8)
    if ties:  # repeated vectors, equal weights: many exact ties between labels and sizes
        Y[:, 1::2] = Y[:, :1]
        return Y, None
    w = rng.random((n, S)) * (rng.random((n, S)) < 0.8)
    w[:, 0] += 0.05
    return Y, w


#: _ORDER_COSTS that force one way of putting the labels with mass in label order
FORCE = {"walk all labels": np.array([0.0, 0.0, 1e300, 1e300]), "sort the labels": np.array([1e300, 1e300, 0.0, 0.0])}


@pytest.mark.parametrize("path", ["chosen", "walk all labels", "sort the labels"])
@pytest.mark.parametrize("seed", range(6))
def test_small_problems_match_brute_force_and_the_p_route(seed, path, monkeypatch):
    # each way of ordering the labels with mass, forced, and the one the cost model picks
    if path != "chosen":
        monkeypatch.setattr(G, "_ORDER_COSTS", FORCE[path])
    rng = np.random.default_rng(seed)
    n, S, m = 12, int(rng.integers(1, 9)), int(rng.integers(1, 11))
    Y, w = _random_samples(rng, n, S, m, ties=seed % 2 == 0)
    h, v = gfm_from_samples(Y, w)
    wn = np.full((n, S), 1.0 / S) if w is None else w / w.sum(axis=1, keepdims=True)
    hr, vr = gfm_from_sample_rows(Y.reshape(n * S, m), np.arange(n * S).reshape(n, S), w)
    hp, vp = gfm_from_p(*est.p_matrix(Y, w))  # all m labels, compiled kernel: same tie rules
    np.testing.assert_array_equal(h, hp)
    np.testing.assert_array_equal(hr, hp)
    np.testing.assert_allclose(v, vp, atol=1e-12)
    np.testing.assert_allclose(vr, vp, atol=1e-12)
    for i in range(n):
        best, _ = _brute(Y[i], wn[i])
        assert v[i] == pytest.approx(best, abs=1e-12)
        assert exp_f_plain(Y[i], wn[i], h[i]) == pytest.approx(best, abs=1e-12)


def test_ties_go_to_the_smaller_prediction_then_the_lowest_labels():
    # Two identical label vectors {1, 3} and {0, 2} with equal weight: any one label, or any pair of
    # labels from one vector, ties; GFM picks the smallest size, then the lowest index.
    Y = np.zeros((1, 2, 6), np.int8)
    Y[0, 0, [1, 3]] = 1
    Y[0, 1, [0, 2]] = 1
    h, v = gfm_from_samples(Y)
    hr, vr = gfm_from_sample_rows(sp.csr_array(Y[0]), [[0, 1]])
    hp, vp = gfm_from_p(*est.p_matrix(Y))
    _, hb = _brute(Y[0], np.array([0.5, 0.5]))
    for a in (h[0], hr[0], hp[0]):
        np.testing.assert_array_equal(a, hb)


def _zipf_samples(rng, n, S, m, card=5.3):
    freq = 1.0 / np.arange(1, m + 1) ** 0.8
    freq *= card / freq.sum()
    Y = (rng.random((n, S, m)) < freq).astype(np.int8)
    Y[:, :, rng.permutation(m)] = Y.copy()  # labels with mass scattered over the whole range
    return Y


def test_large_m_matches_the_all_labels_computation():
    rng = np.random.default_rng(3)
    n, S, m = 4, 15, 4000
    Y = _zipf_samples(rng, n, S, m)
    Y[1, ::2] = Y[1, 0]  # repeated vectors: tied labels
    w = rng.random((n, S))
    w[1] = 1.0
    h, v = gfm_from_samples(Y, w)
    Ytr = sp.csr_array(Y.reshape(n * S, m))
    hr, vr = gfm_from_sample_rows(Ytr, np.arange(n * S).reshape(n, S), w)
    wn = w / w.sum(axis=1, keepdims=True)
    for i in range(n):  # one (m, m) P at a time: 128 MB each
        hp, vp = gfm_from_p(*est.p_matrix(Y[i], w[i]))
        np.testing.assert_array_equal(h[i], hp)
        np.testing.assert_array_equal(hr[i], hp)
        assert v[i] == pytest.approx(vp, abs=1e-12) and vr[i] == pytest.approx(vp, abs=1e-12)
    np.testing.assert_allclose(expected_f(Y, wn, h), v, atol=1e-12)


def _spy_walked(monkeypatch):
    """Record, per call of the sample routes' kernel, which instances walked all m labels."""
    walked = []
    inner = G.gfm_rows

    def spy(*args):
        inner(*args)
        walked.append(args[-1].astype(bool))

    monkeypatch.setattr(G, "gfm_rows", spy)
    return walked


def test_ordering_the_labels_follows_the_cost_model_and_both_ways_agree(monkeypatch):
    """Labels with mass are put in label order by walking all m labels when m is small against
    k log k (few labels, or most of them with mass), by sorting them otherwise; either way the
    same predictions and values."""
    rng = np.random.default_rng(5)
    n, S, m = 30, 10, 4000
    Y = _zipf_samples(rng, n, S, m)
    k = Y.any(axis=1).sum(axis=1)
    walked = _spy_walked(monkeypatch)
    h, v = gfm_from_samples(Y)
    hr, vr = gfm_from_sample_rows(Y.reshape(n * S, m), np.arange(n * S).reshape(n, S))
    np.testing.assert_array_equal(h, hr)
    np.testing.assert_allclose(v, vr, atol=1e-12)
    want = np.array([walks_all_labels(m, int(ki), G._ORDER_COSTS) for ki in k])
    for got in walked:
        np.testing.assert_array_equal(got, want)
    for path, costs in FORCE.items():
        monkeypatch.setattr(G, "_ORDER_COSTS", costs)
        hf, vf = gfm_from_samples(Y)
        np.testing.assert_array_equal(hf, h, err_msg=path)
        np.testing.assert_allclose(vf, v, atol=1e-12, err_msg=path)


def test_sample_rows_equal_the_gathered_sample_with_padding_and_empty_rows():
    rng = np.random.default_rng(8)
    N, m, n, K = 50, 30, 20, 7
    Ytr = (rng.random((N, m)) < 0.1).astype(np.int8)
    Ytr[:5] = 0  # empty label vectors
    idx = rng.integers(0, N, size=(n, K))
    w = rng.integers(0, 4, size=(n, K)).astype(float)  # zero weights pad the sample
    w[:, 0] += 1
    h, v = gfm_from_sample_rows(sp.csr_matrix(Ytr), idx, w)
    h2, v2 = gfm_from_samples(Ytr[idx], w)
    np.testing.assert_array_equal(h, h2)
    np.testing.assert_allclose(v, v2, atol=1e-12)


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.eye(3), [[0, 3]]), "rows: indices"),
        ((np.eye(3), [[0.0, 1.0]]), "rows: expected an integer"),
        ((np.eye(3) * 2, [[0, 1]]), "Y: values must be 0 or 1"),
        ((np.eye(3), [[0, 1]], [[0.0, 0.0]]), "weights: sum to 0"),
        ((np.eye(3), [[0, 1]], [[1.0]]), "weights: expected shape"),
    ],
)
def test_sample_rows_errors(args, match):
    with pytest.raises(ValueError, match=match):
        gfm_from_sample_rows(*args)


@pytest.mark.parametrize(
    "shape, m, card, skew, K, walks",
    [
        ("scene", 6, 1.07, 0.5, 20, True),
        ("yeast", 14, 4.24, 0.5, 20, True),
        ("enron", 53, 3.38, 1.0, 20, True),
        ("eurlex-shape, a forest's leaf pool", 3993, 5.3, 0.7, 250, True),
        ("eurlex-shape, three neighbours", 3993, 5.3, 0.7, 3, False),
    ],
)
def test_the_paper_shapes_and_eurlex_shape_take_the_cheaper_way(shape, m, card, skew, K, walks, monkeypatch):
    """Few labels (the paper's scene, yeast, enron), or a large part of eurlex-shape's 3,993 labels
    with mass (its forest's samples): walking all labels costs less than sorting those with mass;
    a few labels with mass out of thousands: sorting them. Either way P holds the labels with mass
    only, so neither shape pays for the other's (eurlex-shape's forest paid several times more when
    P was built over all labels from the dense samples). Same predictions as from the dense samples."""
    rng = np.random.default_rng(len(shape))
    n = 4
    freq = 1.0 / np.arange(1, m + 1) ** skew
    freq = np.minimum(0.95, freq * card / freq.sum())
    Y = (rng.random((n, K, m)) < freq).astype(np.int8)
    Y[Y.sum(axis=2) > 24] = 0
    k = Y.any(axis=1).sum(axis=1)
    walked = _spy_walked(monkeypatch)
    h, v = gfm_from_sample_rows(sp.csr_array(Y.reshape(n * K, m)), np.arange(n * K).reshape(n, K))
    want = [walks_all_labels(m, int(ki), G._ORDER_COSTS) for ki in k]
    assert walked[0].tolist() == want == [walks] * n, (shape, k.tolist())
    h2, v2 = gfm_from_samples(Y)
    np.testing.assert_array_equal(h, h2)
    np.testing.assert_allclose(v, v2, atol=1e-12)
