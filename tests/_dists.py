"""Random joint distributions over {0,1}^m for tests (dense, sparse, independent, categorical, ...)."""

import itertools

import numpy as np


def all_vectors(m):
    return np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.int8)


def independent(rng, m, p=None):
    """Full support of an independent distribution with marginals p."""
    if p is None:
        p = rng.random(m)
    Y = all_vectors(m)
    pr = np.prod(np.where(Y == 1, p, 1 - p), axis=1)
    return Y, pr / pr.sum(), p


def random_dist(rng, m, kind):
    """(support (r, m), probs (r,)) of one of several kinds."""
    if kind == "dense":
        Y = all_vectors(m)
        pr = rng.dirichlet(np.full(len(Y), 0.3))
    elif kind == "sparse":
        r = int(rng.integers(1, 6))
        Y = (rng.random((r, m)) < rng.random()).astype(np.int8)
        pr = rng.dirichlet(np.ones(r))
    elif kind == "independent":
        Y, pr, _ = independent(rng, m, rng.random(m) ** 2)
    elif kind == "categorical":
        Y = np.eye(m, dtype=np.int8)
        pr = rng.dirichlet(np.ones(m))
    elif kind == "ties":  # few distinct probability values, repeated vectors
        r = int(rng.integers(1, 8))
        Y = (rng.random((r, m)) < 0.5).astype(np.int8)
        Y[rng.integers(0, r, size=r // 2)] = Y[0]
        pr = np.full(r, 1.0 / r)
    elif kind == "zero_heavy":
        r = int(rng.integers(1, 6))
        Y = np.vstack([np.zeros((1, m), np.int8), (rng.random((r, m)) < 0.4).astype(np.int8)])
        pr = np.concatenate([[0.6 + 0.4 * rng.random()], np.zeros(r)])
        pr[1:] = (1 - pr[0]) * rng.dirichlet(np.ones(r))
    else:
        raise ValueError(kind)
    return Y, pr


KINDS = ["dense", "sparse", "independent", "categorical", "ties", "zero_heavy"]


def batch(rng, m, kind, n):
    """n distributions of one kind padded to a common support size: (n, r, m), (n, r)."""
    ds = [random_dist(rng, m, kind) for _ in range(n)]
    r = max(len(p) for _, p in ds)
    Y = np.zeros((n, r, m), np.int8)
    P = np.zeros((n, r))
    for i, (y, p) in enumerate(ds):
        Y[i, : len(p)] = y
        P[i, : len(p)] = p
    return Y, P


def f_brute(y, h):
    """F(y, h) straight from eq. (1), one pair, plain Python."""
    tp = sum(a * b for a, b in zip(y, h))
    den = sum(y) + sum(h)
    return 1.0 if den == 0 else 2.0 * tp / den


def exp_f_plain(Y, pr, h):
    return sum(p * f_brute(y, h) for y, p in zip(Y, pr))


def brute_opt_plain(Y, pr):
    """max_h E[F] by plain enumeration (independent of the library's brute_force)."""
    m = Y.shape[1]
    return max(exp_f_plain(Y, pr, h) for h in itertools.product([0, 1], repeat=m))
