"""Benchmark the parts of one iteration of RML's cutting-plane solver on many labels, each against
a plain reference in the same run (ratios; the results are checked equal).

A problem of delicious' shape by default (10,336 examples, the training part of a fold; 500 binary
features at 4% density plus the bias; 983 labels, about 19 a row), synthetic so that it runs
anywhere:

1. The scores X W: the compiled product over each row's features (one thread, then ``--threads``
   blocks of rows) against scipy's CSR product; the same numbers. Then the same product into an
   array already written, as the solver does, against a new array (whose pages fault in).
2. The oracle on all examples in ``--threads`` blocks of rows against one thread; the same result.
3. The working set at ``--planes`` planes of (d + 1) m weights: adding a plane (its Gram row) and
   pruning the oldest one, against the same with the planes copied forward at every pruning (the
   rows rewritten as one fancy-indexed copy); then the QP's solution summed over the planes with a
   fifth of the weights 0, against BLAS's product over all planes.

    PYTHONPATH=src python benchmarks/bench_cutting_plane_iteration.py
    PYTHONPATH=src python benchmarks/bench_cutting_plane_iteration.py --n 2000 --m 200 --planes 50
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

from fmeasure.inference.structured import solve_batch
from fmeasure.learners._cutting_plane import Design, WorkingSet


def _best(fn, repeats):
    """The fastest wall time of ``repeats`` calls, and the last result."""
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _line(what, ours, ref, ours_name, ref_name):
    print(f"  {what:<44} {ours_name} {ours * 1e3:8.1f} ms   {ref_name} {ref * 1e3:8.1f} ms   ratio {ref / ours:5.2f}x")


class _CopyingSet(WorkingSet):
    """The reference: planes kept in the first rows, copied forward at every pruning."""

    def keep(self, mask):
        idx = np.flatnonzero(mask)
        k = idx.size
        self.G[:k] = self.planes()[idx]
        self.slot[:k] = np.arange(k)
        self.free.clear()
        self.used = k
        self.c[:k] = self.c[idx]
        self.K[:k, :k] = self.K[np.ix_(idx, idx)]
        self.idle[:k] = self.idle[idx]
        self.t = k


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10336)
    ap.add_argument("--d", type=int, default=500)
    ap.add_argument("--m", type=int, default=983)
    ap.add_argument("--density", type=float, default=0.04)
    ap.add_argument("--cardinality", type=float, default=19.0)
    ap.add_argument("--planes", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    X = sp.random(a.n, a.d, density=a.density, format="csr", random_state=rng, data_rvs=np.ones)
    Xa = sp.hstack([X, np.ones((a.n, 1))], format="csr")
    Y = rng.random((a.n, a.m)) < a.cardinality / a.m
    W = rng.normal(size=(a.d + 1, a.m)) * 0.05
    print(f"n = {a.n}, d = {a.d + 1} (bias included), m = {a.m}, {Xa.nnz} non-zero features, {a.threads} threads")

    print("1. scores X W")
    one, many = Design(Xa, threads=1), Design(Xa, threads=a.threads)
    one.scores(W[:, :2])  # compile (or load the cached compilation) before timing
    t_ref, ref = _best(lambda: np.asarray(one.X @ W), a.repeats)
    t_one, S1 = _best(lambda: one.scores(W), a.repeats)
    t_many, S2 = _best(lambda: many.scores(W), a.repeats)
    assert np.array_equal(S1, ref) and np.array_equal(S2, ref)
    _line("compiled, one thread, against scipy", t_one, t_ref, "ours", "scipy")
    _line(f"compiled, {a.threads} threads, against scipy", t_many, t_ref, "ours", "scipy")
    out = np.empty_like(S1)
    t_out, S3 = _best(lambda: one.scores(W, out=out), a.repeats)
    assert np.array_equal(S3, ref)
    _line("one thread into a used array, against a new one", t_out, t_one, "used", "new")

    print("2. the oracle on all examples")
    solve_batch(S1[:2], Y[:2])
    t1, (H1, V1) = _best(lambda: solve_batch(S1, Y), a.repeats)
    t2, (H2, V2) = _best(lambda: solve_batch(S1, Y, threads=a.threads), a.repeats)
    assert np.array_equal(H1, H2) and np.array_equal(V1, V2)
    _line(f"{a.threads} threads against one", t2, t1, "ours", "one thread")

    print(f"3. the working set at {a.planes} planes of {(a.d + 1) * a.m:,} weights")
    p = (a.d + 1) * a.m
    base = rng.normal(size=(8, p))
    sets = {}
    for name, cls in (("ours", WorkingSet), ("copying", _CopyingSet)):
        ws = cls(p, cap=a.planes + 1)
        for j in range(a.planes):
            ws.add(base[j % 8] * (1.0 + j / a.planes), 0.5)
        sets[name] = ws

    def add_and_prune(ws):
        ws.add(base[0], 0.5)
        mask = np.ones(ws.t, bool)
        mask[0] = False  # the oldest plane leaves, as after prune_after idle iterations
        ws.keep(mask)

    t_ours, _ = _best(lambda: add_and_prune(sets["ours"]), a.repeats)
    t_copy, _ = _best(lambda: add_and_prune(sets["copying"]), a.repeats)
    assert np.array_equal(sets["ours"].planes(), sets["copying"].planes())
    _line("add a plane, prune the oldest", t_ours, t_copy, "ours", "copying")
    alpha = rng.uniform(size=a.planes) * (rng.uniform(size=a.planes) < 0.8)
    ws = sets["ours"]
    t_comb, w = _best(lambda: ws.combine(alpha), a.repeats)
    G = ws.planes()
    t_blas, w_ref = _best(lambda: alpha @ G, a.repeats)
    assert np.allclose(w, w_ref, rtol=1e-10, atol=1e-10 * np.abs(w_ref).max())
    _line("sum over the planes of non-zero weight", t_comb, t_blas, "ours", "BLAS, all")


if __name__ == "__main__":
    main()
