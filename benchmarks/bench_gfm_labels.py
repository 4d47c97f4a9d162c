"""Benchmark: GFM from label samples at m = 4000 labels, of which a few dozen occur per instance.

Run from the repository root:

    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_labels.py           # defaults
    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_labels.py --n 500   # fewer instances
    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_labels.py --m 14    # few labels, most with mass

With few labels most of them occur in every sample, and ``gfm_from_samples`` builds P over all m
labels, as the previous path did (``fmeasure.inference.general.DENSE_MASS``): the ratio is then ~1.

Times, in one process and on the same input, per instance:

- ``gfm_from_samples`` of the package on a dense (n, n_samples, m) sample: each instance's P is
  built over the labels that occur in its sample only;
- the previous batched path and its kernel, kept verbatim in ``benchmarks/gfm_samples_previous.py``:
  P over all m labels for every chunk of instances, then the labels with mass picked out of it;
- ``gfm_from_sample_rows`` of the package: the same samples given as rows of one sparse label
  matrix (as the forest and neighbour routes of ``FOptimalClassifier`` and ``KNeighborsFMeasure``
  call it), which never forms the dense sample.

Samples look like kNN neighbourhoods or forest leaf pools on EUR-Lex: label frequencies fall as
rank^-0.8 (Zipf), 5.3 labels per vector on average, random weights. It checks that all three give
the same predictions and values. CPU time is ``time.process_time``.
"""

from __future__ import annotations

import argparse
import os
import time

import gfm_samples_previous
import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from fmeasure.inference import gfm_from_sample_rows, gfm_from_samples


def make_samples(n, n_samples, m, card=5.3, skew=0.8, seed=0):
    """(Y (n, n_samples, m) int8, weights (n, n_samples)) with Zipf label frequencies."""
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, m + 1) ** skew
    freq *= card / freq.sum()
    Y = (rng.random((n, n_samples, m)) < freq).astype(np.int8)
    return Y, rng.random((n, n_samples))


def timed(fn, *args):
    c = time.process_time()
    res = fn(*args)
    return res, time.process_time() - c


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="instances")
    ap.add_argument("--m", type=int, default=4000, help="labels")
    ap.add_argument("--n-samples", type=int, nargs="+", default=[20, 100], help="vectors per sample")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(
        f"# bench_gfm_labels: n = {args.n}, m = {args.m} "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU = process time)"
    )
    ok = True
    with threadpool_limits(1, user_api="blas"):
        gfm_from_samples(np.eye(3, dtype=np.int8))  # imports and compiled kernels loaded
        for K in args.n_samples:
            Y, w = make_samples(args.n, K, args.m, seed=args.seed)
            k = Y.any(axis=1).sum(axis=1)
            (h, v), c_new = timed(gfm_from_samples, Y, w)
            (h0, v0), c_old = timed(gfm_samples_previous.gfm_from_samples, Y, w)
            Ytr = sp.csr_array(Y.reshape(-1, args.m))
            rows = np.arange(args.n * K).reshape(args.n, K)
            (hr, vr), c_rows = timed(gfm_from_sample_rows, Ytr, rows, w)
            per = 1e6 / args.n
            print(
                f"n_samples = {K:4d}: labels with mass per instance median {np.median(k):.0f} (max {k.max()}), "
                f"largest count {int(Y.sum(axis=2).max())}"
            )
            print(f"  previous (all m labels) : {c_old * per:9.1f} us per instance")
            print(f"  gfm_from_samples (now)  : {c_new * per:9.1f} us per instance  ratio {c_old / c_new:5.1f}x")
            print(f"  gfm_from_sample_rows    : {c_rows * per:9.1f} us per instance  ratio {c_old / c_rows:5.1f}x")
            same = all(np.array_equal(a, h0) and np.allclose(b, v0, rtol=0, atol=1e-12) for a, b in ((h, v), (hr, vr)))
            print(f"  agree with the previous path: {same}")
            ok &= same
    if not ok:
        raise SystemExit("the implementations disagree")


if __name__ == "__main__":
    main()
