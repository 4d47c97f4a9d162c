"""The compiled chain samplers against plain per-sample loops written from their definitions."""

import numpy as np

from fmeasure.learners._sampling import chain_draws_linear, chain_draws_sparse


def _draws_sparse_reference(E, F, R):
    """Sample s of instance i (row i * n_samples + s) compares label k's exp(-z) with R[s, k]."""
    n_samples, m = R.shape
    N = E.shape[0] * n_samples
    out = np.zeros((N, m), dtype=np.int8)
    for col in range(N):
        e = E[col // n_samples].copy()
        for k in range(m):
            u = (int(R[col % n_samples, k]) >> 8) * 2.0**-24
            if u * (1.0 + e[k]) < 1.0:
                out[col, k] = 1
                e[k + 1 :] *= F[k, k + 1 :]
    return out


def _draws_linear_reference(base, V, L):
    c, m = base.shape
    out = np.zeros((c, L.shape[0], m), dtype=np.int8)
    for i in range(c):
        for s in range(L.shape[0]):
            z = base[i].copy()
            for k in range(m):
                if z[k] > L[s, k]:
                    out[i, s, k] = 1
                    z[k + 1 :] += V[k, k + 1 :]
    return out


def _chain(rng, m):
    V = np.triu(rng.normal(0.0, 1.5, (m, m)), 1)
    return V


def test_sparse_sampler_equals_its_definition():
    rng = np.random.default_rng(0)
    c, n_samples, m = 3, 70, 41
    V = _chain(rng, m)
    A = rng.normal(-1.0, 2.0, (c, m))
    A[0, 3] = -800.0  # exp(-z) = inf: never positive, even for the draw u = 0 (u * inf is nan)
    with np.errstate(over="ignore"):
        E, F = np.exp(-A), np.exp(-V)
    R = rng.integers(0, 2**32, (n_samples, m), dtype=np.uint32)
    R[:5, 3] = 0
    out = np.full((c * n_samples, m), 7, dtype=np.int8)  # every entry is written
    with np.errstate(over="ignore", invalid="ignore"):
        chain_draws_sparse(E, F, R, out)
        ref = _draws_sparse_reference(E, F, R)
    assert 0.1 < ref.mean() < 0.9
    assert not ref[:n_samples, 3].any()
    np.testing.assert_array_equal(out, ref)


def test_linear_sampler_equals_its_definition():
    rng = np.random.default_rng(1)
    c, S, m = 4, 25, 37
    V = _chain(rng, m)
    base = rng.normal(-1.0, 2.0, (c, m))
    L = rng.logistic(size=(S, m))
    out = np.zeros((c, S, m), dtype=np.int8)
    chain_draws_linear(base, V, L, out)
    ref = _draws_linear_reference(base, V, L)
    assert 0.1 < ref.mean() < 0.9
    np.testing.assert_array_equal(out, ref)
