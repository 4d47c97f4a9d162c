"""Benchmark: GFM from P against a plain per-instance loop, previous implementations and the floor.

Run from the repository root:

    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_floor.py                # Mediamill's shape
    PYTHONPATH=src:benchmarks python benchmarks/bench_gfm_floor.py --n 3000 --repeats 3

The input is ``bench_gfm_scale.make_p``: n = 12,914 valid P matrices over m = 101 labels with mass
on the counts s <= 18 (so P is passed as (n, 101, 18)), shaped like EFP's output on Mediamill.
In one process, on one BLAS thread, each implementation runs ``--repeats`` times, interleaved
(A B C ... A B C ...), and the smallest CPU time (``time.process_time``) of each is kept, wall time
beside it:

- ``gfm_from_p``: the package (the compiled search of ``fmeasure.inference._kernels``);
- the plain per-instance loop: ``D = P_i @ W`` with W[s, k] = 2 / (s + k), then for each size k
  the sum of the k largest entries of column k (``np.partition``), the first maximum with the
  empty prediction (value P(y = 0)) first, and the k largest entries of the best column (stable
  sort: ties to the lowest label index);
- the same loop with one sort of every column per instance (vectorised over k);
- the previous implementations: the compiled kernels before the current search
  (``benchmarks/gfm_kernel_previous.py``) and the NumPy one before them
  (``benchmarks/gfm_previous.py``, on P padded to (n, 101, 101) as it requires);
- the batched NumPy reference of the package (``fmeasure.inference.general._reference_blocks``):
  Delta for a chunk of instances as one matrix product, every column sorted;
- the floor: the products P W of all instances, as one matrix product into a preallocated
  (n 101, 101) output and in chunks that fit the cache (the floor of any method that forms
  Delta), and one pass that reads P (the floor of any method).

Then where the time of ``gfm_from_p`` goes (the kernel stopped after each step: read and check
P, gather the labels with mass, bound every size, the search (Delta columns and their top-k
sums), choice and write-out) and of the batched reference. All implementations must give the
same predictions and values (to 1e-12). The loops run on the first ``--loop-n`` instances and
are extrapolated per instance.
"""

from __future__ import annotations

import argparse
import os
import time

import gfm_kernel_previous
import gfm_previous
import numpy as np
from bench_gfm_scale import make_p
from numba import njit
from threadpoolctl import threadpool_limits

import fmeasure.inference._kernels as K
from fmeasure._arrays import TIE_TOL
from fmeasure.inference import general as G
from fmeasure.inference import gfm_from_p


def w_sk(S, m):
    """W[s - 1, k - 1] = 2 / (s + k), (S, m)."""
    return 2.0 / (np.arange(1, S + 1)[:, None] + np.arange(1, m + 1)[None, :])


def loop_per_k(A, p0):
    """The plain per-instance loop: for each k, the k largest entries of column k by a partition."""
    n, m, S = A.shape
    W = w_sk(S, m)
    H = np.zeros((n, m), np.int8)
    V = np.empty(n)
    for i in range(n):
        D = A[i] @ W
        vals = np.empty(m + 1)
        vals[0] = p0[i]
        for k in range(1, m + 1):
            vals[k] = np.partition(D[:, k - 1], m - k)[m - k :].sum()
        kb = int(np.argmax(vals >= vals.max() - TIE_TOL))
        V[i] = vals[kb]
        if kb:
            H[i, np.argsort(-D[:, kb - 1], kind="stable")[:kb]] = 1
    return H, V


def loop_sorted(A, p0):
    """The per-instance loop with one sort of all columns: prefix sums, then the diagonal."""
    n, m, S = A.shape
    W = w_sk(S, m)
    kk = np.arange(m)
    H = np.zeros((n, m), np.int8)
    V = np.empty(n)
    for i in range(n):
        D = A[i] @ W
        E = np.cumsum(np.sort(D, axis=0)[::-1], axis=0)[kk, kk]
        vals = np.concatenate([[p0[i]], E])
        kb = int(np.argmax(vals >= vals.max() - TIE_TOL))
        V[i] = vals[kb]
        if kb:
            H[i, np.argsort(-D[:, kb - 1], kind="stable")[:kb]] = 1
    return H, V


def previous_numpy(P, p0, step=1000):
    """gfm_previous.gfm_from_p on P padded to (n, m, m), in chunks (padding done beforehand)."""
    H = np.empty((len(P), P.shape[1]), np.int8)
    V = np.empty(len(P))
    for a in range(0, len(P), step):
        H[a : a + step], V[a : a + step] = gfm_previous.gfm_from_p(P[a : a + step], p0[a : a + step])
    return H, V


def gemm_once(A, W, out):
    np.matmul(A.reshape(-1, A.shape[2]), W, out=out)


def gemm_chunked(A, W, out, q=8):
    n, m, S = A.shape
    for a in range(0, n, q):
        b = min(n, a + q)
        np.matmul(A[a:b].reshape(-1, S), W, out=out[: (b - a) * m])


@njit(cache=True, nogil=True)
def columns_only(A, evals, reps):  # pragma: no cover - compiled
    """The Delta columns of the search alone: read each instance's sums and gather its labels with
    mass as the kernel does, then ``reps`` times ``evals[i]`` columns (sizes 1, 2, ...)."""
    n, m, Smax = A.shape
    W = np.empty((m, Smax))
    for k in range(1, m + 1):
        for s in range(1, Smax + 1):
            W[k - 1, s - 1] = 2.0 / (s + k)
    lo, rows, cols = np.empty(n), np.empty((n, m)), np.zeros((n, Smax))
    idx = np.empty(m, np.int64)
    PT = np.empty((Smax, m))
    D = np.empty(m + 1)
    acc = 0.0
    for i in range(n):
        K._stats_one(A, i, lo, rows, cols)
        r = 0
        for j in range(m):
            if rows[i, j] > 0.0:
                idx[r] = j
                r += 1
        S = 0
        for s in range(Smax - 1, -1, -1):
            if cols[i, s] > 0.0:
                S = s + 1
                break
        if r == 0 or S == 0:
            continue
        for t in range(r):
            for s in range(S):
                PT[s, t] = max(A[i, idx[t], s], 0.0)
        for _ in range(reps):
            for e in range(evals[i]):
                K._column(PT, r, S, W[min(r, 1 + e) - 1], D)
                acc += D[0]
    return acc


def cpu(fn, *args):
    c, t = time.process_time(), time.perf_counter()
    res = fn(*args)
    return res, time.process_time() - c, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=12914, help="instances (default: Mediamill's test set)")
    ap.add_argument("--loop-n", type=int, default=None, help="instances of the loops (default: all)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    n = args.n
    nl = min(n, args.loop_n or n)
    Pfull, p0 = make_p(n, seed=args.seed)
    S = int(np.flatnonzero(Pfull.any(axis=(0, 1)))[-1]) + 1
    A = np.ascontiguousarray(Pfull[:, :, :S])
    m = A.shape[1]
    W = w_sk(S, m)
    out = np.empty((n * m, m))
    print(
        f"# bench_gfm_floor: n = {n}, m = {m}, P (n, {m}, {S}), loops on {nl} instances, "
        f"{args.repeats} interleaved repeats, minimum kept (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores; CPU = process time, one BLAS thread)"
    )
    impls = {
        "gfm_from_p (now)": (lambda: gfm_from_p(A, p0), n),
        "per-instance loop, partition per k": (lambda: loop_per_k(A[:nl], p0[:nl]), nl),
        "per-instance loop, one sort per instance": (lambda: loop_sorted(A[:nl], p0[:nl]), nl),
        "previous compiled kernels (c97fff3)": (lambda: gfm_kernel_previous.gfm_from_p(A, p0), n),
        "previous NumPy implementation": (lambda: previous_numpy(Pfull, p0), n),
        "batched NumPy reference (one GEMM per chunk)": (lambda: G._reference_blocks(A, p0), n),
        "floor: P W, one GEMM": (lambda: gemm_once(A, W, out), n),
        "floor: P W, GEMM in chunks of 8 instances": (lambda: gemm_chunked(A, W, out), n),
        "floor: one pass reading P": (lambda: A.sum(), n),
    }
    best = {k: (np.inf, np.inf) for k in impls}
    results = {}
    with threadpool_limits(1):
        gfm_from_p(A[:2], p0[:2])  # compiled kernels loaded
        gfm_kernel_previous.gfm_from_p(A[:2], p0[:2])
        columns_only(A[:2], np.ones(2, np.int64), 1)
        for _ in range(args.repeats):
            for name, (fn, _) in impls.items():
                res, c, w = cpu(fn)
                best[name] = (min(best[name][0], c), min(best[name][1], w))
                results[name] = res
        # where the time goes: the kernel stopped after each step, and the reference's own steps
        evals = np.zeros(n, np.int64)
        step = {}
        for _ in range(args.repeats):
            _, c, _ = cpu(lambda: G._check_chunk_p(A, p0, 0, stats=K.p_stats(A)))
            step["read P"] = min(step.get("read P", np.inf), c)
            for stop in range(4):
                H, V = np.zeros((n, m), np.int8), np.empty(n)
                sums = np.empty(n), np.empty((n, m)), np.zeros((n, S))
                _, c, _ = cpu(K.gfm_p, A, p0, G._MARGIN, TIE_TOL, H, V, evals, *sums, stop)
                step[stop] = min(step.get(stop, np.inf), c)
            _, c0, _ = cpu(columns_only, A, evals, 0)
            _, c1, _ = cpu(columns_only, A, evals, 1)
            step["columns"] = min(step.get("columns", np.inf), c1 - c0)
        ref_times = {}
        G._reference_blocks(A, p0, times=ref_times)

    c_ours = best["gfm_from_p (now)"][0] / n
    print(f"\n{'implementation':48s} {'CPU s':>8s} {'wall s':>8s} {'us/inst':>8s} {'vs ours':>8s}")
    for name, (_, k) in impls.items():
        c, w = best[name]
        print(f"{name:48s} {c * n / k:8.3f} {w * n / k:8.3f} {1e6 * c / k:8.2f} {c / k / c_ours:7.2f}x")
    print("(the loops' seconds are extrapolated to all n instances from their --loop-n)")

    H, V = results["gfm_from_p (now)"]
    agree = {}
    for name, (_, k) in impls.items():
        if name.startswith("floor") or name.startswith("gfm_from_p"):
            continue
        h, v = results[name]
        agree[name] = bool(np.array_equal(h, H[:k]) and np.allclose(v, V[:k], rtol=0, atol=1e-12))
    print("same predictions and values as gfm_from_p:", ", ".join(f"{k}: {v}" for k, v in agree.items()))

    g = (step[0], step[1], step[2], step[3])
    parts = [
        ("read and check P (row and column sums)", step["read P"]),
        ("gather the labels with mass (P transposed)", g[0] - step["read P"]),
        ("bound every size (sum_s 2 S_s / (s + k))", g[1] - g[0]),
        ("search: Delta columns (P_i W[:, k])", step["columns"]),
        ("search: top-k sums (sorts), bounds, next size", g[2] - g[1] - step["columns"]),
        ("choice (vs the empty prediction) and write-out", g[3] - g[2]),
    ]
    ks = results["gfm_from_p (now)"][0].sum(axis=1)
    print(
        f"\nwhere gfm_from_p's time goes (the kernel stopped after each step; {evals.mean():.2f} sizes "
        f"evaluated per instance, 99th percentile {np.percentile(evals, 99):.0f}, of {m}; optimal size "
        f"median {np.median(ks):.0f}, max {ks.max()}):"
    )
    for name, c in parts:
        print(f"  {name:56s} {1e6 * c / n:7.2f} us/inst")
    print(f"  {'total (sum of the steps)':56s} {1e6 * sum(c for _, c in parts) / n:7.2f} us/inst")
    print("where the batched NumPy reference's time goes:")
    for name, c in ref_times.items():
        print(f"  {name:56s} {1e6 * c / n:7.2f} us/inst")
    floor = min(best["floor: P W, one GEMM"][0], best["floor: P W, GEMM in chunks of 8 instances"][0])
    flops = 2 * n * m * S * m
    print(
        f"\nP W for all instances: {flops / 1e9:.2f} GFLOP, {flops / floor / 1e9:.1f} GFLOP/s at best; "
        f"gfm_from_p takes {best['gfm_from_p (now)'][0] / floor:.2f}x that floor and "
        f"{best['gfm_from_p (now)'][0] / best['floor: one pass reading P'][0]:.1f}x one pass reading P"
    )
    if not all(agree.values()):
        raise SystemExit("the implementations disagree")


if __name__ == "__main__":
    main()
