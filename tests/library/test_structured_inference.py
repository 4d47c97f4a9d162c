"""Loss-augmented inference (fmeasure.inference.loss_augmented) against brute force over {0,1}^m."""

import itertools

import numpy as np
import pytest

from fmeasure.inference import loss_augmented


def _f(y, h):
    """Instance-wise F by its definition, F(0, 0) = 1 (paper eq. 1)."""
    tp, sy, sh = int(np.sum(y * h)), int(np.sum(y)), int(np.sum(h))
    return 1.0 if sy + sh == 0 else 2.0 * tp / (sy + sh)


def _brute(scores, y):
    """All maximizers over the 2^m vectors, and the maximum."""
    m = len(scores)
    vals = []
    for bits in itertools.product([0, 1], repeat=m):
        h = np.array(bits)
        vals.append((float(h @ scores) + 1.0 - _f(y, h), h))
    best = max(v for v, _ in vals)
    return best, [h for v, h in vals if v >= best - 1e-12]


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 10])
def test_loss_augmented_equals_brute_force_random(m):
    rng = np.random.default_rng(m)
    for _ in range(40 if m < 10 else 8):
        scores = rng.normal(scale=rng.choice([0.05, 0.5, 2.0]), size=m)
        y = (rng.random(m) < rng.choice([0.0, 0.2, 0.5, 0.9])).astype(int)
        best, argmaxes = _brute(scores, y)
        h, v = loss_augmented(scores, y)
        assert h.dtype == np.int8 and h.shape == (m,)
        assert v == pytest.approx(best, abs=1e-12)
        assert float(h @ scores) + 1 - _f(y, h) == pytest.approx(best, abs=1e-12)
        if len(argmaxes) == 1:
            np.testing.assert_array_equal(h, argmaxes[0])


@pytest.mark.parametrize("m", [3, 6, 9])
def test_loss_augmented_ties_and_zero_vector(m):
    """Scores on a coarse grid make many ties; y = 0 rows included. The result must attain the
    brute-force maximum, be the empty vector when that is a maximizer, else a smallest maximizer."""
    rng = np.random.default_rng(100 + m)
    S = rng.choice([-1.0, -0.5, 0.0, 0.5], size=(60, m))
    Y = (rng.random((60, m)) < 0.3).astype(int)
    Y[:10] = 0
    H, V = loss_augmented(S, Y)
    assert H.shape == (60, m) and V.shape == (60,)
    for s, y, h, v in zip(S, Y, H, V):
        best, argmaxes = _brute(s, y)
        assert v == pytest.approx(best, abs=1e-12)
        assert float(h @ s) + 1 - _f(y, h) == pytest.approx(best, abs=1e-12)
        assert h.sum() == min(a.sum() for a in argmaxes)


def test_loss_augmented_y_zero_values():
    # y = 0: h = 0 has value 0; a single label j has value s_j + 1 (F = 0).
    h, v = loss_augmented([-2.0, -0.5, -3.0], [0, 0, 0])
    assert h.tolist() == [0, 1, 0] and v == pytest.approx(0.5)
    h, v = loss_augmented([-2.0, -1.5, -3.0], [0, 0, 0])
    assert h.tolist() == [0, 0, 0] and v == 0.0


def test_loss_augmented_batch_equals_rows():
    rng = np.random.default_rng(7)
    S = rng.normal(size=(200, 12))
    Y = (rng.random((200, 12)) < 0.25).astype(np.int8)
    H, V = loss_augmented(S, Y)
    for i in range(0, 200, 17):
        h, v = loss_augmented(S[i], Y[i])
        np.testing.assert_array_equal(H[i], h)
        assert V[i] == pytest.approx(v)


@pytest.mark.parametrize(
    "scores, y, match",
    [
        (np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), "scores"),
        (np.zeros(3), np.zeros(4), "y"),
        (np.zeros(3), np.array([0, 2, 1]), "y"),
        (np.array([0.0, np.nan]), np.zeros(2), "scores"),
    ],
)
def test_loss_augmented_rejects_bad_input(scores, y, match):
    with pytest.raises(ValueError, match=match):
        loss_augmented(scores, y)


def _score_cases(seed, count):
    """Random batches: continuous scores, coarse grids full of ties, scores around -1 (the kernel's
    cut for false labels worth sorting), and every label density from none to all."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n, m = int(rng.integers(1, 70)), int(rng.integers(1, 50))
        kind = trial % 4
        if kind == 0:
            S = rng.normal(size=(n, m)) * rng.choice([0.05, 0.5, 2.0])
        elif kind == 1:
            S = rng.choice([-1.0, -0.5, 0.0, 0.5], size=(n, m))
        elif kind == 2:
            S = np.round(rng.normal(size=(n, m)), 1)
        else:
            S = rng.normal(size=(n, m)) * 0.3 - 1.0
        Y = rng.random((n, m)) < rng.choice([0.0, 0.1, 0.3, 0.7, 1.0])
        yield S, Y


def test_compiled_kernel_equals_numpy_reference_bit_for_bit():
    """The compiled oracle the solver uses returns the numpy algorithm's labels and values exactly
    (the RML fits, and so Table 6, do not depend on which one runs)."""
    from fmeasure.inference.structured import solve_batch, solve_batch_numpy

    for S, Y in _score_cases(11, 600):
        H1, V1 = solve_batch(S, Y, Y.sum(axis=1))
        H2, V2 = solve_batch_numpy(S, Y, Y.sum(axis=1))
        np.testing.assert_array_equal(H1, H2)
        np.testing.assert_array_equal(V1, V2)


def test_compiled_kernel_sorts_the_rest_when_the_count_reaches_far():
    """Rows where many false labels have a positive gain (scores near 0, as at the start of
    training, and on coarse grids full of ties): the kernel finds the largest count (a = s) by
    bisection over the unsorted scores and sorts only those that pass at its last position, ties
    at that cut included; it finds each count from the previous a's, and it skips the false
    labels whose score is at most minus the loss's largest increment. Same labels and values as
    the numpy reference, ties broken by the lowest label index."""
    from fmeasure.inference.structured import solve_batch, solve_batch_numpy

    many = 128

    rng = np.random.default_rng(5)
    far = beyond = 0
    for _ in range(60):
        n, m = int(rng.integers(1, 30)), int(rng.integers(40, 4 * many))
        grid = rng.choice([0.0, 0.01, 0.05])
        S = rng.choice([-0.5, -0.003, -0.001, 0.0, 0.02], size=(n, m)) + grid * np.round(rng.normal(size=(n, m)))
        Y = rng.random((n, m)) < rng.choice([0.02, 0.1, 0.4])
        if rng.random() < 0.5:  # every score near -1 / (2 s + 1): the cut for false labels
            s = Y.sum(axis=1, keepdims=True)
            S = np.where(s > 0, -1.0 / (2 * s + 1), -1.0) * (1 + 0.05 * rng.normal(size=(n, m)))
            S[Y] = 1.0  # every true label in: the false ones decide at the largest increment
        H1, V1 = solve_batch(S, Y, Y.sum(axis=1))
        H2, V2 = solve_batch_numpy(S, Y, Y.sum(axis=1))
        np.testing.assert_array_equal(H1, H2)
        np.testing.assert_array_equal(V1, V2)
        false = (H1.astype(bool) & ~Y).sum(axis=1)
        far += int(np.sum(false > 16))
        beyond += int(np.sum(false > many))
    assert far > 100  # rows whose prediction holds many false labels
    assert beyond > 10  # and rows with more than a hundred


def test_compiled_kernel_counts_from_the_first_selection_on_delicious_like_rows():
    """Rows shaped as delicious' at large C (983 labels, about 19 true, several hundred false
    labels just below 0, a dozen above): the largest count is a small part of the candidates, so
    only the scores that pass at its last position are sorted; the numpy reference agrees."""
    from fmeasure.inference.structured import solve_batch, solve_batch_numpy

    rng = np.random.default_rng(11)
    n, m = 300, 983
    Y = np.zeros((n, m), dtype=bool)
    for i in range(n):
        Y[i, rng.choice(m, size=int(rng.integers(1, 26)), replace=False)] = True
    S = -np.abs(rng.normal(scale=rng.choice([0.003, 0.01, 0.05], size=(n, 1)), size=(n, m)))
    S[rng.random((n, m)) < 0.012] = 0.01
    S[Y] = rng.normal(0.2, 0.3, size=int(Y.sum()))
    H1, V1 = solve_batch(S, Y)
    H2, V2 = solve_batch_numpy(S, Y)
    np.testing.assert_array_equal(H1, H2)
    np.testing.assert_array_equal(V1, V2)
    false = (H1.astype(bool) & ~Y).sum(axis=1)
    assert 0 < np.sum(false > 0) and np.sum(false > 128) < n


def test_compiled_kernel_orders_signed_zeros_extremes_and_ties_as_the_reference():
    """The kernel sorts the false labels' scores by their bits (integers in the values' order):
    signed zeros, subnormals, the largest finite values and runs of equal scores, in rows where
    the count reaches far (many scores above 0) and where it does not, give the numpy reference's
    labels and values exactly."""
    from fmeasure.inference.structured import solve_batch, solve_batch_numpy

    rng = np.random.default_rng(17)
    special = np.array([0.0, -0.0, 5e-324, -5e-324, 2.2e-308, -2.2e-308, 1e-300, 0.5, -0.5, 1e-13, -1e-13])
    for _ in range(40):
        n, m = int(rng.integers(1, 20)), int(rng.integers(20, 400))
        S = rng.choice(special, size=(n, m)) * rng.choice([1.0, 1e-3])
        S += rng.choice([0.0, 1.0], size=(n, m)) * rng.normal(size=(n, m)) * rng.choice([1e-4, 0.1])
        if rng.random() < 0.3:
            S[:, : m // 3] = rng.choice([1e300, -1e300, 0.25])
        Y = rng.random((n, m)) < rng.choice([0.0, 0.05, 0.3])
        H1, V1 = solve_batch(S, Y)
        H2, V2 = solve_batch_numpy(S, Y)
        np.testing.assert_array_equal(H1, H2)
        np.testing.assert_array_equal(V1, V2)


def test_compiled_kernel_sort_is_a_descending_sort():
    """The kernel's sort of the false labels' scores against numpy's sort, on values that share
    leading bytes, on mixed signs, zeros and extremes, and on values that crowd one bucket."""
    from fmeasure.inference._la_kernel import _sort_rest

    sort = _sort_rest.py_func
    rng = np.random.default_rng(4)
    cases = [
        rng.normal(size=500),
        1.0 + rng.integers(0, 4, size=300) * 2.0**-52,  # equal but for the last byte
        np.array([0.0, -0.0, 5e-324, -5e-324, np.inf, -np.inf, 1e308, -1e308, 3.0, 3.0]),
        rng.choice([-1.0, 0.0, 2.0], size=64),
        # a bucket of far more than _BUCKET_MAX keys: a few values far apart stretch the buckets,
        # so the dense ones share one (sorted by radix there), in both signs
        np.concatenate([[1e-300, -1e-300, 1e300, -1e300], 1.0 + rng.random(200) * 1e-9, -1.0 - rng.random(90) * 1e-9]),
        np.exp(rng.normal(size=400) * 3.0) * rng.choice([-1.0, 1.0], size=400),  # spread binades
    ]
    for v in cases:
        v = rng.permutation(v)
        for g in (0, 3):
            w = v.copy()
            n = w.size
            sort(w, np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(2 * n + 257, np.int64), g, n)
            np.testing.assert_array_equal(w[:g], v[:g])
            expected = -np.sort(-v[g:])
            np.testing.assert_array_equal(w[g:], expected)
            assert np.array_equal(np.signbit(w[g:][w[g:] != 0]), np.signbit(expected[expected != 0]))


def test_compiled_kernel_counts_every_gain_beyond_the_checked_label_counts(monkeypatch):
    """Above MONOTONE_UP_TO labels the kernel sorts every false label and counts every gain; the
    result is the same."""
    import fmeasure.inference._la_kernel as kernel
    from fmeasure.inference.structured import solve_batch, solve_batch_numpy

    rng = np.random.default_rng(3)
    S = rng.normal(size=(40, 1003)) - 0.5
    Y = rng.random((40, 1003)) < 0.02
    H1, V1 = solve_batch(S, Y)
    H2, V2 = solve_batch_numpy(S, Y)
    np.testing.assert_array_equal(H1, H2)
    np.testing.assert_array_equal(V1, V2)
    assert S.shape[1] > kernel.MONOTONE_UP_TO


def test_loss_increments_are_monotone_in_float64():
    """The kernel stops counting a fixed a's gains at the first non-positive one, and starts a's
    count where a - 1's stopped. That is exact because the float64 increments
    L(s, a, b + 1) - L(s, a, b) never increase with b and never decrease with a, for every
    s + a + b the kernel relies on (m up to MONOTONE_UP_TO labels)."""
    from fmeasure.inference._la_kernel import MONOTONE_UP_TO

    m = MONOTONE_UP_TO
    for s in range(m + 1):
        a = np.arange(s + 1)[:, None]
        denom = s + a + np.arange(m - s + 1)[None, :]
        L = 1.0 - np.where(denom == 0, 1.0, 2.0 * a / np.maximum(denom, 1))
        dL = np.diff(L, axis=1)
        assert not np.any(np.diff(dL, axis=1) > 0), s
        assert not np.any(np.diff(dL, axis=0) < 0), s


def test_batch_in_threads_is_the_batch_in_one_thread():
    """Rows split into blocks, one per thread: the same labellings and values, bit for bit, as one
    thread and as the numpy reference (more threads than rows included)."""
    from fmeasure.inference.structured import solve_batch, solve_batch_numpy

    rng = np.random.default_rng(21)
    S = rng.normal(size=(37, 9)) * 0.3
    Y = rng.random((37, 9)) < 0.3
    H1, V1 = solve_batch(S, Y)
    Hr, Vr = solve_batch_numpy(S, Y)
    for threads in (2, 5, 64):
        H, V = solve_batch(S, Y, threads=threads)
        assert np.array_equal(H, H1) and np.array_equal(V, V1)
    assert np.array_equal(H1, Hr) and np.array_equal(V1, Vr)


@pytest.mark.parametrize("n, threads", [(0, 3), (1, 4), (7, 1), (7, 3), (10, 64)])
def test_row_blocks_cover_every_row_once(n, threads):
    """The blocks of rows handed to the threads cover 0 .. n - 1 exactly once, in at most
    ``threads`` blocks; an error in a block reaches the caller."""
    import threading

    from fmeasure._blocks import in_row_blocks

    seen, lock, blocks = np.zeros(n, int), threading.Lock(), []

    def work(lo, hi):
        with lock:
            seen[lo:hi] += 1
            blocks.append((lo, hi))

    in_row_blocks(n, threads, work)
    assert np.all(seen == 1) and len(blocks) <= max(1, min(threads, n))

    def fail(lo, hi):
        if lo > 0:
            raise RuntimeError("block failed")

    if min(threads, n) > 1:
        with pytest.raises(RuntimeError, match="block failed"):
            in_row_blocks(n, threads, fail)
