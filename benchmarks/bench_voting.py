"""Benchmark: the voting ensemble's own overhead (vote counts, threshold search, final vote) vs a naive loop.

The members' predictions are given (random 0/1 matrices of a dataset's shape, members agreeing
with the truth with a chosen accuracy): this times only what the ensemble adds to its members.
Ours: the vote counts as one sum, the threshold search of
:func:`fmeasure.learners.voting.choose_threshold` (all t at once from per-instance vote
histograms), and the final vote. Naive: votes accumulated member by member, then for every t in
1..M the prediction ``votes >= t`` scored with :func:`fmeasure.metrics.f_measure` instance by
instance. Also shown: a loop over t with a vectorised F per t (one full scoring pass per
threshold). All must choose the same threshold and give the same predictions; the ratios are
naive / ours and loop-over-t / ours.

Shapes: the validation split (10% of the training set) and test set of scene, yeast and enron,
and of the JRS 2012 competition (10,000 training and 10,000 test instances, 83 labels).

Usage:
    PYTHONPATH=src python benchmarks/bench_voting.py [--members 16] [--repeats 3]
"""

import argparse
import time

import numpy as np

from fmeasure.learners.voting import choose_threshold
from fmeasure.metrics import f_measure

#: name -> (n_validation, n_test, m)
SHAPES = {"scene": (122, 1196, 6), "yeast": (150, 917, 14), "enron": (113, 579, 53), "JRS 2012": (1000, 10000, 83)}


def make(n, m, M, rng):
    Y = (rng.random((n, m)) < min(0.5, 3.0 / m)).astype(np.int8)
    agree = rng.random((M, n, m)) < rng.uniform(0.8, 0.98, size=(M, 1, 1))
    return Y, np.where(agree, Y[None], 1 - Y[None]).astype(np.int8)


def ours(Pv, Yv, Pt):
    M = Pv.shape[0]
    t, _ = choose_threshold(Pv.sum(axis=0, dtype=np.int64), Yv, M)
    return t, (Pt.sum(axis=0, dtype=np.int64) >= t).astype(np.int8)


def naive(Pv, Yv, Pt):
    M = Pv.shape[0]
    votes = np.zeros(Pv.shape[1:], dtype=np.int64)
    for P in Pv:
        votes += P
    best_t, best = 1, -1.0
    for t in range(1, M + 1):
        H = (votes >= t).astype(np.int8)
        score = np.mean([f_measure(Yv[i], H[i]) for i in range(len(Yv))])
        if score > best:
            best_t, best = t, score
    test_votes = np.zeros(Pt.shape[1:], dtype=np.int64)
    for P in Pt:
        test_votes += P
    return best_t, (test_votes >= best_t).astype(np.int8)


def loop_over_t(Pv, Yv, Pt):
    """Between the two: vectorised F, but one full scoring pass per threshold."""
    M = Pv.shape[0]
    votes = Pv.sum(axis=0, dtype=np.int64)
    scores = [f_measure(Yv, (votes >= t).astype(np.int8)).mean() for t in range(1, M + 1)]
    t = int(np.argmax(scores)) + 1
    return t, (Pt.sum(axis=0, dtype=np.int64) >= t).astype(np.int8)


def best_of(fn, repeats, *args):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        times.append(time.perf_counter() - t0)
    return out, min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3, help="each side runs this often; the fastest is kept")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"{'shape':9s} {'n_val':>6s} {'n_test':>6s} {'m':>3s} {'M':>3s} {'t':>3s} {'ours s':>9s} {'naive s':>9s} {'ratio':>7s} {'per-t s':>9s} {'ratio':>7s}"
    )
    for name, (nv, nt, m) in SHAPES.items():
        Yv, Pv = make(nv, m, args.members, rng)
        _, Pt = make(nt, m, args.members, rng)
        (t1, H1), t_ours = best_of(ours, args.repeats, Pv, Yv, Pt)
        (t2, H2), t_naive = best_of(naive, args.repeats, Pv, Yv, Pt)
        (t3, H3), t_loop = best_of(loop_over_t, args.repeats, Pv, Yv, Pt)
        assert t1 == t2 == t3 and np.array_equal(H1, H2) and np.array_equal(H1, H3), f"{name}: results disagree"
        print(
            f"{name:9s} {nv:6d} {nt:6d} {m:3d} {args.members:3d} {t1:3d} {t_ours:9.5f} {t_naive:9.4f} "
            f"{t_naive / t_ours:6.0f}x {t_loop:9.5f} {t_loop / t_ours:6.1f}x"
        )


if __name__ == "__main__":
    main()
