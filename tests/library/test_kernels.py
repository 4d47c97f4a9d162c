"""The compiled GFM-from-P kernels against plain enumeration over {0,1}^m, on inputs the vectorised
tests do not reach: float32 input, tiny negative round-off, batches spanning several chunks, and the
one-line errors of the validation that now reads the kernels' sums."""

import numpy as np
import pytest
from _dists import KINDS, all_vectors, exp_f_plain, random_dist

from fmeasure import estimation as est
from fmeasure.inference import gfm_from_p
from fmeasure.inference._kernels import p_stats


def _instances(rng, m, n):
    out = []
    for j in range(n):
        Y, pr = random_dist(rng, m, KINDS[j % len(KINDS)])
        out.append((Y, pr))
    return out


def _best(Y, pr):
    """Largest expected F over all 2^m predictions, and every prediction within 1e-9 of it."""
    H = all_vectors(Y.shape[1])
    ef = np.array([exp_f_plain(Y, pr, h) for h in H])
    return ef.max(), {tuple(h) for h, e in zip(H, ef) if e >= ef.max() - 1e-9}


@pytest.mark.parametrize("m", [1, 4, 6])
def test_kernel_predictions_are_optimal_by_enumeration(m):
    rng = np.random.default_rng(40 + m)
    inst = _instances(rng, m, 60)
    P = np.array([est.p_matrix(Y, pr)[0] for Y, pr in inst])
    p0 = np.array([est.p_matrix(Y, pr)[1] for Y, pr in inst])
    H, V = gfm_from_p(P, p0)
    for (Y, pr), h, v in zip(inst, H, V):
        best, argbest = _best(Y, pr)
        assert v == pytest.approx(best, abs=1e-12)
        assert tuple(h) in argbest
        assert exp_f_plain(Y, pr, h) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("m", [4, 6])
def test_kernel_takes_only_the_count_columns_with_mass(m):
    """P restricted to its first S count columns (every instance's label sets have at most S
    labels) gives the enumeration's optimum, as the full (m, m) matrix does."""
    rng = np.random.default_rng(70 + m)
    S = 2
    inst = []
    for _ in range(40):  # distributions over a few label sets of at most S labels each
        K = int(rng.integers(1, 6))
        Y = np.zeros((K, m), dtype=np.int8)
        for row in Y:
            row[rng.choice(m, size=int(rng.integers(0, S + 1)), replace=False)] = 1
        inst.append((Y, rng.dirichlet(np.ones(K))))
    P = np.array([est.p_matrix(Y, pr)[0] for Y, pr in inst])
    p0 = np.array([est.p_matrix(Y, pr)[1] for Y, pr in inst])
    assert not P[:, :, S:].any()
    H, V = gfm_from_p(np.ascontiguousarray(P[:, :, :S]), p0)
    Hf, Vf = gfm_from_p(P, p0)
    np.testing.assert_array_equal(H, Hf)
    np.testing.assert_array_equal(V, Vf)
    for (Y, pr), h, v in zip(inst, H, V):
        best, argbest = _best(Y, pr)
        assert v == pytest.approx(best, abs=1e-12) and tuple(h) in argbest
    h1, v1 = gfm_from_p(P[0, :, :S], p0[0])  # one matrix
    np.testing.assert_array_equal(h1, H[0])
    with pytest.raises(ValueError, match=r"P: expected \(m, S\) matrices with 1 <= S <= m"):
        gfm_from_p(np.zeros((2, 3)), 0.5)


def test_kernel_float32_input_and_tiny_negative_round_off():
    rng = np.random.default_rng(3)
    m = 5
    inst = _instances(rng, m, 30)
    P = np.array([est.p_matrix(Y, pr)[0] for Y, pr in inst])
    p0 = np.array([est.p_matrix(Y, pr)[1] for Y, pr in inst])
    noisy = P.copy()
    noisy[P == 0] = -1e-12  # round-off below zero where there is no mass
    for Pin in (P.astype(np.float32), noisy):
        H, V = gfm_from_p(Pin, p0)
        for (Y, pr), h, v in zip(inst, H, V):
            best, argbest = _best(Y, pr)
            assert v == pytest.approx(best, abs=1e-6)
            assert exp_f_plain(Y, pr, h) == pytest.approx(best, abs=1e-6)


def test_kernel_batch_across_chunks_equals_one_instance_at_a_time():
    rng = np.random.default_rng(5)
    m = 30  # 8 m^2 2 bytes per instance: a 64 MB chunk holds about 4,600 instances
    n = 5000
    P = np.zeros((n, m, m))
    p0 = np.zeros(n)
    for i in range(n):
        S = int(rng.integers(1, 4))
        q = rng.dirichlet(np.full(m, 0.2))
        P[i, :, S - 1] = np.minimum(1.0, q * S) * 0.8
        p0[i] = max(0.0, 1 - (P[i].sum(axis=0) / np.arange(1, m + 1)).sum()) * rng.random()
    H, V = gfm_from_p(P, p0)
    for i in list(range(0, n, 499)) + [n - 1]:
        h1, v1 = gfm_from_p(P[i], p0[i])
        np.testing.assert_array_equal(H[i], h1)
        assert V[i] == v1


def test_p_stats_by_hand():
    A = np.array([[[0.5, 0.0], [0.25, -0.125]]])
    lo, rows, cols = p_stats(A)
    assert lo.tolist() == [-0.125]
    assert rows.tolist() == [[0.5, 0.125]]
    assert cols.tolist() == [[0.75, -0.125]]
    lo, rows, cols = p_stats(np.array([[[np.nan, 0.0], [0.0, 0.0]]]))
    assert np.isnan(rows[0, 0]) and np.isnan(cols[0, 0])


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda P, p0: P.__setitem__((1, 0, 0), np.nan), "P: contains NaN or infinite values"),
        (lambda P, p0: P.__setitem__((1, 0, 0), -0.5), r"P: probabilities must lie in \[0, 1\], got minimum -0.5"),
        (lambda P, p0: P.__setitem__((1, 0, slice(None)), 0.6), r"P: row 0 sums to 1.8 > 1 .* for instance 1"),
        (lambda P, p0: p0.__setitem__(1, 0.9), r"p_zero: p_zero \+ sum_s P\(s_y = s\) = .* > 1 for instance 1"),
    ],
)
def test_kernel_validation_errors_name_the_instance(change, message):
    P = np.zeros((3, 3, 3))
    P[:, 0, 0] = 0.5
    p0 = np.full(3, 0.5)
    change(P, p0)
    with pytest.raises(ValueError, match=message):
        gfm_from_p(P, p0)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_count_values_are_the_best_mean_f_by_enumeration(m):
    """The F-trees' value-only kernel on groups of examples (sums of count vectors), with groups
    that share no label, a group with only empty label sets, and columns given out of order."""
    from fmeasure.learners.trees import gfm_values, label_contributions

    rng = np.random.default_rng(90 + m)
    Y = (rng.random((40, m)) < rng.random(m)).astype(np.int8)
    Y[:3] = 0
    Z, smax = label_contributions(Y)
    Z = Z.toarray()
    groups = [rng.choice(40, size=int(rng.integers(1, 12)), replace=False) for _ in range(30)] + [np.arange(3)]
    C = np.array([Z[g].sum(axis=0) for g in groups])
    got = gfm_values(C, m, smax)
    H = all_vectors(m)
    for g, v in zip(groups, got):
        best = max(np.mean([exp_f_plain(Y[[j]], [1.0], h) for j in g]) for h in H)
        assert v == pytest.approx(best, abs=1e-12)
    perm = rng.permutation(m * smax)  # the same counts, columns listed in another order
    Cp = np.concatenate([C[:, :-2][:, perm], C[:, -2:]], axis=1)
    np.testing.assert_allclose(gfm_values(Cp, m, smax, columns=np.arange(m * smax)[perm]), got, rtol=0, atol=1e-12)


@pytest.mark.parametrize("m", [1, 4, 30])
def test_split_values_equal_the_value_kernel_on_both_sides(m):
    """The split search's fused pass gives, bit for bit, the value kernel's numbers on the left
    counts and on the node total minus them (float32 counts, sides with no labels, sides with only
    empty label sets), and the enumerated best mean F where m is small."""
    from fmeasure.learners.trees import gfm_values, label_contributions
    from fmeasure.learners.trees.counts import split_values

    rng = np.random.default_rng(7 + m)
    n = 300
    Y = (rng.random((n, m)) < rng.random(m) * 0.4).astype(np.int8)
    Y[:20] = 0
    Z, smax = label_contributions(Y)
    Z = Z.toarray()
    total = Z.sum(axis=0)
    cols = np.flatnonzero(total[: m * smax] > 0)
    keep = np.r_[cols, m * smax, m * smax + 1]
    order = np.r_[np.arange(20), rng.permutation(np.arange(20, n))]  # the empty ones first
    L = Z[order][:, keep].cumsum(axis=0).astype(np.float32)
    rows = np.r_[0, 5, 19, rng.choice(np.arange(20, n - 1), 40, replace=False)]
    left, right = split_values(L, rows, total[keep], smax, cols)
    ref_left = gfm_values(L[rows].astype(np.float64), m, smax, cols)
    ref_right = gfm_values(total[keep][None, :] - L[rows], m, smax, cols)
    assert left.tolist() == ref_left.tolist()
    assert right.tolist() == ref_right.tolist()
    assert left[:3].tolist() == [1.0, 1.0, 1.0]  # only empty label sets on the left
    if m <= 4:
        H = all_vectors(m)
        for r, vl, vr in zip(rows[:8], left, right):
            parts = (order[: r + 1], order[r + 1 :])
            for part, v in zip(parts, (vl, vr)):
                best = max(np.mean([exp_f_plain(Y[[j]], [1.0], h) for j in part]) for h in H)
                assert v == pytest.approx(best, abs=1e-12)


def _check_top(D, need, order, X, n):
    r = len(D)
    assert n >= need and sorted(order[:r].tolist()) == list(range(r))  # a permutation
    region = order[r - n : r]
    np.testing.assert_array_equal(X[r - n : r], D[region])
    assert np.all(np.diff(X[r - n : r]) >= 0)  # sorted ascending
    np.testing.assert_array_equal(np.sort(X[r - n : r])[-need:], np.sort(D)[-need:])


@pytest.mark.parametrize("seed", range(4))
def test_top_sorts_the_largest_entries_a_column_needs(seed):
    """_top: a counting sort on the exponents for the first column, then the previous set and
    the entries that overtake it; ties, entries far below the largest, and orders far from sorted
    (the insertion's fallback to a full sort)."""
    from fmeasure.inference._kernels import _BUCKETS, _top

    rng = np.random.default_rng(seed)
    r = 700
    cnt = np.empty(_BUCKETS + 1, np.int64)
    order, X = np.empty(r + 1, np.int64), np.empty(r + 1)
    columns = [
        rng.random(r),
        np.round(rng.random(r), 1) + 0.05,  # many equal entries
        np.where(rng.random(r) < 0.5, 1e-30, 1.0) * rng.random(r),  # entries below 2^-64 of the top
        np.full(r, 0.25),
        np.linspace(1.0, 2.0, r) ** (seed + 1),  # one bucket holds most entries
    ]
    for D in columns:
        for need in (1, 7, 150, r):
            n = _top(D, r, need, order, X, 0, cnt)
            _check_top(D, need, order, X, n)
            D2 = D[::-1] * rng.uniform(0.9, 1.1, r)  # the next column: another order
            need2 = max(1, need // 2)
            n2 = _top(D2, r, need2, order, X, n, cnt)
            _check_top(D2, need2, order, X, n2)
