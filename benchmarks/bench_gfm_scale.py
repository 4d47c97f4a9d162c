"""Benchmark: exact GFM from P on a Mediamill-sized test set (12,914 x 101, counts s <= 18).

Run from the repository root:

    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_scale.py          # full size
    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_scale.py --n 2000 # smaller

Times, in one process and on the same input, three exact implementations of Algorithm 1 on
P (Delta = P W, then the best top-k sum over k):

- ``gfm_from_p`` of the package (compiled per-instance kernels, ``fmeasure.inference._kernels``);
- the previous (vectorised numpy) implementation of the package, kept verbatim in
  ``benchmarks/gfm_previous.py``;
- a plain per-instance numpy loop: ``D = P_i @ W``, then for every k a sort of column k (as
  the ``example-wise-f1-maximizer`` package writes GFM), run on the first ``--loop-n``
  instances and extrapolated per instance.

The input is fit-free but shaped like the output of EFP on Mediamill: for every instance a
weighted sample of label vectors (long-tailed label frequencies, label cardinality about 4.4,
at most 18 labels; a fraction of instances uncertain, with many labels of small probability)
mixed with a little mass on uniformly random label sets, so that every entry P[i, s-1] with
s <= 18 is positive. It checks that all three give the same predictions and values.
CPU time is ``time.process_time`` (robust on a shared machine); wall time is shown beside it.
"""

from __future__ import annotations

import argparse
import os
import time

import gfm_previous
import numpy as np
from threadpoolctl import threadpool_limits

from fmeasure.inference import gfm_from_p


def make_p(n, m=101, card=4.4, smax=18, seed=0, n_samples=60, eps=0.02, flat=0.35):
    """n valid P matrices (n, m, m), P[:, i, s-1] = P(y_i = 1, |y| = s), non-zero for s <= smax."""
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, m + 1) ** 1.1
    freq = freq / freq.sum() * card
    sv = np.arange(1, smax + 1)
    pis = np.exp(-0.5 * ((sv - card) / 2.5) ** 2)
    pis /= pis.sum()
    P = np.zeros((n, m, m))
    p0 = np.zeros(n)
    for lo in range(0, n, 1000):
        b = min(n, lo + 1000) - lo
        q = np.minimum(0.95, freq[None, :] * rng.lognormal(0, 1.0, size=(b, m)))
        fl = rng.random(b) < flat  # uncertain instances: many labels of similar, small probability
        qf = rng.uniform(0.02, 0.07, size=(int(fl.sum()), m))
        q[fl] = np.maximum(q[fl] * 0.5, qf)
        Y = (rng.random((b, n_samples, m)) < q[:, None, :]).astype(np.int8)
        Y[Y.sum(axis=2) > smax] = 0
        s = Y.sum(axis=2)
        w = rng.dirichlet(np.ones(n_samples), size=b)
        onehot = np.zeros((b, n_samples, smax))
        np.put_along_axis(onehot, np.maximum(s - 1, 0)[:, :, None], (w * (s > 0))[:, :, None], axis=2)
        Pe = np.matmul(Y.transpose(0, 2, 1).astype(np.float64), onehot)
        P[lo : lo + b, :, :smax] = (1 - eps) * Pe + eps * pis * sv / m  # + a uniform set of size s
        p0[lo : lo + b] = (1 - eps) * (w * (s == 0)).sum(axis=1)
    return P, p0


def loop_gfm(P, p0):
    """Plain per-instance loop: Delta = P_i @ W, then a sort of every column k."""
    n, m, _ = P.shape
    k = np.arange(1, m + 1)
    W = 2.0 / (k[:, None] + k[None, :])
    H = np.zeros((n, m), np.int8)
    V = np.empty(n)
    for i in range(n):
        D = P[i] @ W
        best, bk, order = p0[i], 0, None
        for kk in range(1, m + 1):
            o = np.argsort(-D[:, kk - 1], kind="stable")
            v = D[o[:kk], kk - 1].sum()
            if v > best + 1e-12:
                best, bk, order = v, kk, o
        if bk:
            H[i, order[:bk]] = 1
        V[i] = best
    return H, V


def timed(fn, *args):
    c, t = time.process_time(), time.perf_counter()
    res = fn(*args)
    return res, time.process_time() - c, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=12914, help="instances (default: Mediamill's test set)")
    ap.add_argument("--loop-n", type=int, default=1000, help="instances timed in the per-instance loop")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    P, p0 = make_p(args.n, seed=args.seed)
    print(
        f"# bench_gfm_scale: n = {args.n}, m = 101, P non-zero on s <= 18 "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU = process time)"
    )
    with threadpool_limits(1, user_api="blas"):
        gfm_from_p(P[:2], p0[:2])  # loads the compiled kernels (compiled once, then cached on disk)
        (h, v), c_new, w_new = timed(gfm_from_p, P, p0)
        (h0, v0), c_old, w_old = timed(gfm_previous.gfm_from_p, P, p0)
        nl = min(args.loop_n, args.n)
        (hl, vl), c_loop, w_loop = timed(loop_gfm, P[:nl], p0[:nl])
    ks = h.sum(axis=1)
    print(f"optimal sizes: median {np.median(ks):.0f}, 90th percentile {np.percentile(ks, 90):.0f}, max {ks.max()}")
    print(f"gfm_from_p (now)       : {c_new:7.3f} s CPU  ({w_new:7.3f} s wall)")
    print(f"previous implementation: {c_old:7.3f} s CPU  ({w_old:7.3f} s wall)  ratio {c_old / c_new:5.1f}x")
    c_loop_all = c_loop / nl * args.n
    print(
        f"per-instance numpy loop: {c_loop_all:7.3f} s CPU extrapolated from {nl} instances "
        f"({c_loop:.3f} s CPU, {w_loop:.3f} s wall)  ratio {c_loop_all / c_new:5.1f}x"
    )
    same_prev = np.array_equal(h, h0) and np.allclose(v, v0, rtol=0, atol=1e-12)
    same_loop = np.array_equal(h[:nl], hl) and np.allclose(v[:nl], vl, rtol=0, atol=1e-12)
    print(f"agree: previous {same_prev}, loop {same_loop}")
    if not (same_prev and same_loop):
        raise SystemExit("the implementations disagree")


if __name__ == "__main__":
    main()
