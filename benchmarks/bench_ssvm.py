"""Benchmark RML (the F-measure structured SVM): loss-augmented inference and solver passes.

1. The loss-augmented oracle on n examples at m labels (default 10,000 x 101): the compiled kernel
   the solver calls (``solve_batch``) against the same algorithm vectorised in numpy
   (``solve_batch_numpy``) and against a per-example Python loop of ``loss_augmented``, in the same
   run on the same scores (the results are checked equal); for label cardinality ~4.4
   (Mediamill's; ``--cardinality``) and for dense labels (half of the labels true, the worst case
   of the O((s+1)(m-s+1)) grid), with scores drawn from N(-1, 1), and with scores near 0 (the
   first passes and small C, where many false labels must be put in order).
2. A synthetic problem of Mediamill's shape (30,993 x 120, 101 labels, cardinality ~4.4): one
   value of C solved for a few passes, the time per pass measured, and the whole tuned training
   (len(Cs) values x cv folds on (cv-1)/cv of the data, warm-started path, then the refit path
   up to the chosen C) extrapolated at the pass cap, on ``--threads`` cores.

Wall clock and CPU seconds are printed; on a shared machine compare within one run.

    PYTHONPATH=src python benchmarks/bench_ssvm.py --n 10000 --m 101 --passes 5
    PYTHONPATH=src python benchmarks/bench_ssvm.py --n 3000 --m 983 --cardinality 19 --skip-mediamill
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fmeasure.inference import loss_augmented
from fmeasure.inference.structured import solve_batch, solve_batch_numpy
from fmeasure.learners.ssvm import bcfw


class Clock:
    def __enter__(self):
        self.w, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.w, time.process_time() - self.c


def _fastest(fn, *args, repeats=3):
    """The fastest of ``repeats`` runs (timeit's rule): (result, Clock)."""
    best = None
    for _ in range(repeats):
        with Clock() as c:
            out = fn(*args)
        best = c if best is None or c.wall < best.wall else best
    return out, best


def bench_inference(n, m, p, rng, loop_rows, near_zero=False):
    # Scores near 0 (the first passes and small C): every false label has a positive gain once a
    # true label is in, so the kernel must order many of them (the case that cost O(m^2) per row
    # when they were selected one at a time).
    S = rng.normal(size=(n, m)) * 1e-3 if near_zero else rng.normal(size=(n, m)) - 1.0
    Y = rng.random((n, m)) < p
    counts = Y.sum(axis=1)
    solve_batch(S[:2], Y[:2])  # compile (or load the cached compilation) before timing
    (H, V), ours = _fastest(solve_batch, S, Y, counts)
    (H2, V2), ref = _fastest(solve_batch_numpy, S, Y, counts)
    assert np.array_equal(H, H2) and np.array_equal(V, V2)
    rows = min(loop_rows, n)
    with Clock() as loop:
        for i in range(rows):
            h, v = loss_augmented(S[i], Y[i])
            assert v == V[i]
    loop_wall, loop_cpu = loop.wall * n / rows, loop.cpu * n / rows
    print(
        f"  cardinality {Y.sum(1).mean():5.1f}, scores {'near 0' if near_zero else 'N(-1, 1)'}: compiled {ours.wall:.3f} s wall ({ours.cpu:.3f} s CPU); "
        f"numpy {ref.wall:.3f} s wall ({ref.cpu:.3f} s CPU), ratio {ref.cpu / max(ours.cpu, 1e-9):.1f}x CPU; "
        f"per-example loop {loop_wall:.2f} s wall ({loop_cpu:.2f} s CPU; {rows} rows timed, scaled to {n}), "
        f"ratio {loop_cpu / max(ours.cpu, 1e-9):.0f}x CPU"
    )


def mediamill_like(rng, n=30993, d=120, m=101, card=4.4):
    X = rng.normal(size=(n, d))
    Z = X @ rng.normal(size=(d, m)) / np.sqrt(d) + rng.normal(size=(n, m))
    thr = np.quantile(Z, 1 - card / m)  # one threshold: cardinality ~card on average
    return X, (Z > thr).astype(np.int8)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--m", type=int, default=101)
    ap.add_argument("--cardinality", type=float, default=4.4, help="mean true labels per example (Mediamill's)")
    ap.add_argument("--loop-rows", type=int, default=2000, help="rows timed in the per-example loop")
    ap.add_argument("--passes", type=int, default=5, help="solver passes timed on the Mediamill-shaped problem")
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--max-iter", type=int, default=100, help="pass cap used for the extrapolation")
    ap.add_argument("--n-cs", type=int, default=8)
    ap.add_argument("--cv", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-mediamill", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)

    print(f"loss-augmented inference, n = {args.n}, m = {args.m}")
    for p in (args.cardinality / args.m, 0.5):
        bench_inference(args.n, args.m, p, rng, args.loop_rows)
    bench_inference(args.n, args.m, args.cardinality / args.m, rng, args.loop_rows, near_zero=True)

    if args.skip_mediamill:
        return
    X, Y = mediamill_like(rng)
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    print(
        f"Mediamill-shaped synthetic problem: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels, "
        f"cardinality {Y.sum(1).mean():.2f}"
    )
    with Clock() as c:
        res = bcfw(Xa, Y, args.C, tol=1e-12, max_iter=args.passes, batch_size=args.batch_size, random_state=0)
    per_pass = c.wall / (args.passes + 1)  # + the starting point's gap evaluation
    per_pass_cpu = c.cpu / (args.passes + 1)
    print(
        f"  C = {args.C:g}: {args.passes} passes in {c.wall:.1f} s wall ({c.cpu:.1f} s CPU), "
        f"{per_pass:.2f} s wall ({per_pass_cpu:.2f} s CPU) per pass; "
        f"duality gap {res['gap_history'][0]:.3f} -> {res['gap']:.4f}"
    )
    frac = (args.cv - 1) / args.cv
    cv_passes = args.n_cs * args.cv * frac * args.max_iter
    refit_passes = args.n_cs * args.max_iter
    total = per_pass * (cv_passes / args.threads + refit_passes)
    total_cpu = per_pass_cpu * (cv_passes / args.threads + refit_passes)
    print(
        f"  extrapolated tuned training at the cap of {args.max_iter} passes per C ({args.n_cs} C values, "
        f"{args.cv} folds on {args.threads} cores, then the refit path): {total / 60:.0f} min from wall clock, "
        f"{total_cpu / 60:.0f} min from CPU time (upper bounds: small C stops on the gap in a few passes)"
    )


if __name__ == "__main__":
    main()
