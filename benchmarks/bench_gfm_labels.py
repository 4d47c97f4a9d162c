"""Benchmark: GFM from label samples, from a few labels (scene) to 3,993 (eurlex-shape).

Run from the repository root:

    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_labels.py            # every shape
    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_labels.py --shapes eurlex-forest

For each shape (m labels, label cardinality, vectors per sample K), in one process on one BLAS
thread, smallest CPU time (``time.process_time``) of ``--repeats`` interleaved runs, per instance:

- ``gfm_from_sample_rows`` of the package, the samples given as rows of one sparse label matrix
  (as the forest and neighbour routes of ``FOptimalClassifier`` call it), with its choice of how
  to put each instance's labels with mass in label order (walk all m labels, or sort the labels
  with mass; ``fmeasure.inference.general._ORDER_COSTS``), and with each way forced;
- ``gfm_from_samples`` of the package on the same samples as a dense (n, K, m) array;
- the previous routes (``benchmarks/gfm_routes_previous.py``): P over all m labels by a product of
  the dense samples, or over the labels with mass by sorting their occurrences (``DENSE_MASS``
  chose between them: all labels when more than m / 4 have mass on average), each forced.

Samples: label frequencies fall as rank^-skew (Zipf), random weights, as kNN neighbourhoods (K in
the tens) or forest leaf pools (K in the hundreds: eurlex-shape's forest samples hold a median
~1,500 of its 3,993 labels). It checks that all give the same predictions and values, and fails
when the package's choice takes more than twice the faster forced way, or than the previous
labels-with-mass path, on any shape.
"""

from __future__ import annotations

import argparse
import os
import time

import gfm_routes_previous as prev
import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from fmeasure.inference import general as G
from fmeasure.inference import gfm_from_sample_rows, gfm_from_samples

#: name: (m, label cardinality, Zipf exponent, K, instances)
SHAPES = {
    "scene-knn": (6, 1.07, 0.5, 10, 4000),
    "scene-forest": (6, 1.07, 0.5, 300, 1000),
    "yeast-knn": (14, 4.24, 0.5, 10, 4000),
    "yeast-forest": (14, 4.24, 0.5, 300, 1000),
    "enron-knn": (53, 3.38, 1.0, 10, 3000),
    "enron-forest": (53, 3.38, 1.0, 300, 400),
    "eurlex-knn": (3993, 5.3, 0.7, 20, 300),
    "eurlex-forest": (3993, 5.3, 0.7, 600, 30),
}
FORCE = {"walk all labels": np.array([0.0, 0.0, 1e300, 1e300]), "sort the labels": np.array([1e300, 1e300, 0.0, 0.0])}


def make_samples(n, K, m, card, skew, seed=0):
    """(Y (n, K, m) int8, weights (n, K)) with Zipf label frequencies and at most 24 labels a vector."""
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, m + 1) ** skew
    freq = np.minimum(0.95, freq * card / freq.sum())
    Y = (rng.random((n, K, m)) < freq).astype(np.int8)
    Y[Y.sum(axis=2) > 24] = 0
    return Y, rng.random((n, K))


def forced(costs, fn, *args):
    saved = G._ORDER_COSTS
    G._ORDER_COSTS = costs
    try:
        return fn(*args)
    finally:
        G._ORDER_COSTS = saved


def previous(dense_mass, fn, *args):
    saved = prev.DENSE_MASS
    prev.DENSE_MASS = dense_mass
    try:
        return fn(*args)
    finally:
        prev.DENSE_MASS = saved


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the instances of every shape")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(
        f"# bench_gfm_labels (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        "CPU = process time, one BLAS thread; us per instance)"
    )
    ok = True
    with threadpool_limits(1):
        gfm_from_samples(np.eye(3, dtype=np.int8))  # imports and compiled kernels loaded
        gfm_from_sample_rows(sp.csr_array(np.eye(3, dtype=np.int8)), [[0, 1]])
        for name in args.shapes:
            m, card, skew, K, n = SHAPES[name]
            n = max(2, int(n * args.scale))
            Y, w = make_samples(n, K, m, card, skew, seed=args.seed)
            Ytr = sp.csr_array(Y.reshape(-1, m))
            rows = np.arange(n * K).reshape(n, K)
            runs = {
                "now: sample rows": lambda: gfm_from_sample_rows(Ytr, rows, w),
                "now: sample rows, walk all labels": lambda: forced(
                    FORCE["walk all labels"], gfm_from_sample_rows, Ytr, rows, w
                ),
                "now: sample rows, sort the labels": lambda: forced(
                    FORCE["sort the labels"], gfm_from_sample_rows, Ytr, rows, w
                ),
                "now: dense samples": lambda: gfm_from_samples(Y, w),
                "previous: sample rows (DENSE_MASS choice)": lambda: prev.gfm_from_sample_rows(Ytr, rows, w),
                "previous: sample rows, P over all labels": lambda: previous(
                    0.0, prev.gfm_from_sample_rows, Ytr, rows, w
                ),
                "previous: sample rows, labels with mass": lambda: previous(
                    1.0, prev.gfm_from_sample_rows, Ytr, rows, w
                ),
                "previous: dense samples (DENSE_MASS choice)": lambda: prev.gfm_from_samples(Y, w),
            }
            best, res = dict.fromkeys(runs, np.inf), {}
            for _ in range(args.repeats):
                for key, fn in runs.items():
                    c = time.process_time()
                    res[key] = fn()
                    best[key] = min(best[key], time.process_time() - c)
            k = Y.any(axis=1).sum(axis=1)
            print(
                f"\n{name}: m = {m}, K = {K}, n = {n}; labels with mass per instance median {np.median(k):.0f} "
                f"(max {k.max()}), largest count {int(Y.sum(axis=2).max())}"
            )
            h0, v0 = res["now: sample rows"]
            for key in runs:
                h, v = res[key]
                same = np.array_equal(h, h0) and np.allclose(v, v0, rtol=0, atol=1e-12)
                ok &= same
                print(f"  {key:44s} {1e6 * best[key] / n:10.1f}{'' if same else '  DIFFERENT'}")
            walk = best["now: sample rows, walk all labels"]
            srt = best["now: sample rows, sort the labels"]
            chosen = best["now: sample rows"]
            ratio = chosen / min(walk, srt)
            vs_mass = chosen / best["previous: sample rows, labels with mass"]
            print(
                f"  chosen / faster forced way: {ratio:.2f}; now / previous labels-with-mass path: {vs_mass:.2f}; "
                f"previous choice / now: {best['previous: sample rows (DENSE_MASS choice)'] / chosen:.1f}x"
            )
            if ratio > 2.0 or vs_mass > 2.0:
                print("  more than twice the faster way, or than the previous labels-with-mass path")
                ok = False
    if not ok:
        raise SystemExit(
            "a route disagrees, or takes more than 2x the faster way or the previous labels-with-mass path"
        )


if __name__ == "__main__":
    main()
