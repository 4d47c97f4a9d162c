"""Benchmark of PCC inference: ours (vectorised over instances and samples) vs a naive per-instance loop.

For each test-set shape (yeast, enron, a synthetic Mediamill-shaped set) a random chain is built with
the shape's labels/features and an intercept giving a realistic label density. Printed per case:

* sampling of ``n`` label vectors per instance: ours vs a per-instance loop (numpy over samples,
  Python over instances and labels, the usual way of writing ancestral sampling);
* sampling + estimation (Delta, P(y=0)) + GFM: ours vs the per-instance loop followed by per-instance
  estimation and GFM calls;
* JM: our level-wise exact search vs a per-instance uniform-cost search (priority queue);
* with ``--curve``: one run of a Figure 5 point, FM and GFM from one shared draw of samples (ours)
  vs one draw per method (the previous protocol), in CPU seconds;
* with ``--samplers``: the sampler of many labels (compiled, later logits updated only after a
  positive draw, O(m + s m) per sample) vs the blocked matrix products (O(m^2) per sample), on the
  same uniforms: times, their ratio and the share of draws that differ. The chain switches to the
  first from ``_SPARSE_FROM_LABELS`` labels on.

The naive reference runs on the first ``--naive-instances`` instances and is scaled to the full
set (said in the output). Timings on a shared machine are noisy; the ratios are the point.

Usage::

    PYTHONPATH=src python benchmarks/bench_pcc.py            # yeast, enron, mediamill shapes
    PYTHONPATH=src python benchmarks/bench_pcc.py --cases yeast --n-samples 1000
    PYTHONPATH=src python benchmarks/bench_pcc.py --chain results/pcc/yeast/chain.pkl --data data/parsed/yeast.npz
    PYTHONPATH=src python benchmarks/bench_pcc.py --cases mediamill --curve --n-samples 200 --max-instances 500
    PYTHONPATH=src python benchmarks/bench_pcc.py --samplers --n-samples 500 --max-instances 64
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fmeasure import estimation, inference
from fmeasure.learners.pcc import ProbabilisticClassifierChain

CASES = {  # name: (n_test, d, m, intercept offset giving a label density like the real data)
    "yeast": (917, 103, 14, -1.2),
    "enron": (579, 1001, 53, -3.0),
    "mediamill": (12914, 120, 101, -3.3),
    "corel5k": (500, 499, 374, -4.5),
    "delicious": (3185, 500, 983, -4.0),
}
DEFAULT_CASES = ["yeast", "enron", "mediamill"]


def synthetic_chain(n, d, m, offset, seed=0):
    rng = np.random.default_rng(seed)
    chain = ProbabilisticClassifierChain.from_parameters(
        rng.normal(scale=1.0 / np.sqrt(d), size=(m, d)),
        rng.normal(scale=1.0, size=(m, m)) / np.sqrt(max(1, m / 8)),
        offset + rng.normal(scale=0.5, size=m),
    )
    return chain, rng.normal(size=(n, d))


def naive_sample(chain, X, n_samples, rng):
    """Per-instance ancestral sampling: a Python loop over instances and labels, numpy over samples."""
    A = chain.feature_logits(X)
    V = chain.coef_y_
    out = np.empty((X.shape[0], n_samples, chain.n_labels_), dtype=np.int8)
    for i in range(X.shape[0]):
        Y = np.zeros((n_samples, chain.n_labels_))
        for j in range(chain.n_labels_):
            p = 1.0 / (1.0 + np.exp(-(A[i, j] + Y[:, :j] @ V[j, :j])))
            Y[:, j] = rng.random(n_samples) < p
        out[i] = Y
    return out


def naive_gfm(S):
    return np.array([inference.gfm(*estimation.delta_matrix(S[i]))[0] for i in range(S.shape[0])])


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def ours_gfm(chain, X, n_samples):
    return chain.predict_from_samples(X, ("gfm",), n_samples=n_samples, random_state=0)["gfm"]


def run_case(name, chain, X, n_samples, naive_n, with_jm, max_instances=None):
    full = X.shape[0]
    if max_instances and max_instances < full:
        X = X[:max_instances]
    n = X.shape[0]
    grow = full / n
    k = min(naive_n, n)
    scale = n / k
    rows = []
    S, t_s = timed(chain.sample, X, n_samples, 0)
    _, t_n = timed(naive_sample, chain, X[:k], n_samples, np.random.default_rng(0))
    rows.append(("sampling", t_s * grow, t_n * scale * grow))
    _, t_g = timed(ours_gfm, chain, X, n_samples)
    _, t_ng = timed(naive_gfm, S[:k])
    rows.append(("sampling + estimation + GFM", t_g * grow, (t_n + t_ng) * scale * grow))
    if with_jm:
        _, t_j = timed(chain.joint_mode, X)
        # max_frontier=0: every instance goes to the per-instance uniform-cost search at once
        _, t_nj = timed(lambda: [chain.joint_mode(X[i : i + 1], max_frontier=0) for i in range(k)])
        rows.append(("JM (exact search)", t_j * grow, t_nj * scale * grow))
    if grow > 1:
        print(f"\n(ours timed on {n} of {full} instances, all times scaled x{grow:.1f} to the full set)", end="")
    print(
        f"\n{name}: n = {full}, m = {chain.n_labels_}, d = {chain.n_features_in_}, {n_samples} samples, "
        f"label density {S.mean():.3f}; naive timed on {k} instances x {scale:.1f}"
    )
    print(f"{'step':32s} {'ours [s]':>10s} {'naive [s]':>10s} {'ratio':>8s} {'ours us/inst':>13s}")
    for step, ours, naive in rows:
        print(f"{step:32s} {ours:10.3f} {naive:10.3f} {naive / ours:8.1f} {1e6 * ours / full:13.1f}")


def run_curve_case(name, chain, X, n_samples, max_instances=None):
    """CPU seconds of one Figure 5 run: FM and GFM from one draw vs one draw per method."""
    if max_instances:
        X = X[:max_instances]
    c0 = time.process_time()
    shared = chain.predict_from_samples(X, ("fm", "gfm"), n_samples=n_samples, random_state=0)
    t_new = time.process_time() - c0
    c0 = time.process_time()
    apart = {k: chain.predict_from_samples(X, (k,), n_samples=n_samples, random_state=0)[k] for k in ("fm", "gfm")}
    t_old = time.process_time() - c0
    same = all(np.array_equal(shared[k], apart[k]) for k in apart)
    print(
        f"\n{name}: Figure 5 run on {X.shape[0]} instances, {n_samples} samples: shared draw {t_new:.2f} s CPU, "
        f"one draw per method {t_old:.2f} s CPU, ratio {t_old / t_new:.2f}, same predictions: {same}"
    )


def run_sampler_case(name, chain, X, n_samples, max_instances=None):
    """Blocked matrix products vs the compiled sparse sampler, same uniforms (seed 0), best of three."""
    import fmeasure.learners.pcc as P

    X = X[:max_instances] if max_instances else X
    saved = P._SPARSE_FROM_LABELS
    try:
        P._SPARSE_FROM_LABELS = 1
        chain.sample(X[:1], 2, random_state=0)  # compile outside the timing
        t_dense = t_sparse = np.inf
        for _ in range(3):  # best of three, alternating
            P._SPARSE_FROM_LABELS = 10**9
            dense, t = timed(chain.sample, X, n_samples, random_state=0)
            t_dense = min(t_dense, t)
            P._SPARSE_FROM_LABELS = 1
            sparse, t = timed(chain.sample, X, n_samples, random_state=0)
            t_sparse = min(t_sparse, t)
    finally:
        P._SPARSE_FROM_LABELS = saved
    print(
        f"{name}: m={chain.n_labels_}, {len(X)} instances x {n_samples} samples, "
        f"{dense.sum(axis=2).mean():.1f} positives per sample: dense {t_dense:.3f} s, sparse {t_sparse:.3f} s, "
        f"dense/sparse {t_dense / t_sparse:.2f}; draws that differ {np.mean(dense != sparse):.1e}; "
        f"used from {saved} labels on"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=None, choices=list(CASES))
    ap.add_argument("--n-samples", type=int, default=1000)
    ap.add_argument(
        "--naive-instances",
        type=int,
        default=100,
        help="instances the naive reference runs on (scaled to the full set)",
    )
    ap.add_argument(
        "--max-instances",
        type=int,
        default=None,
        help="run ours on at most this many instances too (times scaled to the full set, said in the output)",
    )
    ap.add_argument("--no-jm", action="store_true")
    ap.add_argument("--curve", action="store_true", help="benchmark a Figure 5 run instead (CPU seconds)")
    ap.add_argument("--samplers", action="store_true", help="compare the two samplers instead (every case by default)")
    ap.add_argument("--chain", help="a fitted chain (pickle from the pipeline) instead of synthetic ones")
    ap.add_argument("--data", help="parsed dataset (.npz) whose test set goes with --chain")
    args = ap.parse_args(argv)
    if args.chain:
        from fmeasure import datasets
        from fmeasure.experiments.pcc import load_chain

        if not args.data:
            ap.error("--chain needs --data")
        ds = datasets.load(args.data)
        if args.samplers:
            run_sampler_case(ds.name, load_chain(args.chain), ds.X_test, args.n_samples, args.max_instances)
            return
        if args.curve:
            run_curve_case(ds.name, load_chain(args.chain), ds.X_test, args.n_samples, args.max_instances)
            return
        run_case(
            ds.name,
            load_chain(args.chain),
            ds.X_test,
            args.n_samples,
            args.naive_instances,
            not args.no_jm,
            args.max_instances,
        )
        return
    for name in args.cases or (list(CASES) if args.samplers else DEFAULT_CASES):
        n, d, m, offset = CASES[name]
        chain, X = synthetic_chain(n, d, m, offset)
        if args.samplers:
            run_sampler_case(f"{name}-shaped (synthetic chain)", chain, X, args.n_samples, args.max_instances)
            continue
        if args.curve:
            run_curve_case(f"{name}-shaped (synthetic chain)", chain, X, args.n_samples, args.max_instances)
            continue
        run_case(
            f"{name}-shaped (synthetic chain)",
            chain,
            X,
            args.n_samples,
            args.naive_instances,
            not args.no_jm,
            args.max_instances,
        )


if __name__ == "__main__":
    main()
