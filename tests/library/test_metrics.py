import numpy as np
import pytest
import scipy.sparse as sp
from _dists import f_brute

from fmeasure.metrics import f_measure, hamming_loss, jaccard_index, subset_zero_one_loss


def _pairs(rng, n=200, m=7):
    return (rng.random((n, m)) < 0.3).astype(int), (rng.random((n, m)) < 0.4).astype(int)


def test_f_measure_matches_definition():
    rng = np.random.default_rng(0)
    A, B = _pairs(rng)
    want = [f_brute(a, b) for a, b in zip(A, B)]
    np.testing.assert_allclose(f_measure(A, B), want)
    np.testing.assert_allclose(f_measure(sp.csr_matrix(A), sp.csr_matrix(B)), want)
    np.testing.assert_allclose(f_measure(sp.csr_matrix(A), B), want)


def test_f_measure_empty_empty_is_one():
    assert f_measure([0, 0, 0], [0, 0, 0]) == 1.0
    np.testing.assert_array_equal(f_measure([[0, 0], [1, 0]], [[0, 0], [0, 0]]), [1.0, 0.0])


def test_hand_values():
    np.testing.assert_allclose(f_measure([[1, 1, 0]], [[1, 0, 1]]), [0.5])
    np.testing.assert_allclose(hamming_loss([[1, 1, 0, 0]], [[1, 0, 0, 1]]), [0.5])
    np.testing.assert_allclose(subset_zero_one_loss([[1, 0], [1, 0]], [[1, 0], [0, 0]]), [0, 1])
    np.testing.assert_allclose(jaccard_index([[1, 1, 0]], [[1, 0, 1]]), [1 / 3])


def test_losses_match_definitions_dense_and_sparse():
    rng = np.random.default_rng(1)
    A, B = _pairs(rng)
    ham = (A != B).mean(axis=1)
    sub = (A != B).any(axis=1).astype(float)
    inter, union = (A & B).sum(1), (A | B).sum(1)
    jac = np.where(union > 0, inter / np.maximum(union, 1), 1.0)
    for a, b in ((A, B), (sp.csr_matrix(A), sp.csr_matrix(B))):
        np.testing.assert_allclose(hamming_loss(a, b), ham)
        np.testing.assert_allclose(subset_zero_one_loss(a, b), sub)
        np.testing.assert_allclose(jaccard_index(a, b), jac)


def test_jaccard_empty_convention():
    assert jaccard_index([0, 0], [0, 0]) == 1.0
    assert jaccard_index([0, 0], [0, 0], empty=0.0) == 0.0
    np.testing.assert_allclose(jaccard_index([[0, 0], [1, 1]], [[0, 0], [1, 0]], empty=0), [0, 0.5])


@pytest.mark.parametrize("fn", [f_measure, hamming_loss, subset_zero_one_loss, jaccard_index])
def test_bad_inputs(fn):
    with pytest.raises(ValueError, match="Y_pred"):
        fn([[1, 0]], [[1, 0, 0]])
    with pytest.raises(ValueError, match="Y_true"):
        fn([[2, 0]], [[1, 0]])
    with pytest.raises(ValueError, match="Y_pred"):
        fn([[1, 0]], [[0.5, 0]])
    with pytest.raises(ValueError, match="m = 0"):
        fn(np.zeros((2, 0)), np.zeros((2, 0)))
