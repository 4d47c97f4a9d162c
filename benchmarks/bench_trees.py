"""Speed of the F-measure trees (fmeasure.learners.trees), in one run.

1. The split search of yeast's root node: our scan (per-example counts summed per bin, cumulative
   sums over each attribute's bins, one batched GFM over all candidate thresholds) against
   recounting P and P(y = 0) from scratch at every candidate threshold and running GFM on each
   part (``fmeasure.estimation.p_matrix`` + ``fmeasure.inference.gfm_from_p``), on the same
   candidates. The reference runs on the first ``--ref-attributes`` attributes only (it is slow);
   the ratio compares the time per candidate threshold, and the best Q found on those
   attributes is checked to agree.
   Then the GFM kernel of the split search against the previous release's kernel on the same
   count vectors (CPU time per candidate side), and the fused pass that scores both sides of a
   candidate (``split_values``) against forming the sides and calling the value kernel on each
   (``--mediamill PATH`` adds a Mediamill-shaped set, and the fraction of candidates the bounds
   leave to score, per node size, in one F-tree on its first 8,000 training examples).
2. One F-tree on yeast (the stage's settings), a bag of ``--trees`` trees on yeast with
   ``--jobs`` processes, and the same on enron (sparse X).

Run from the repository root, with the parsed caches in data/parsed (``snakemake data_all``):

    python benchmarks/bench_trees.py                 # everything (several minutes)
    python benchmarks/bench_trees.py --skip-bags     # split scan and single trees only
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

from fmeasure import datasets
from fmeasure.estimation import p_matrix
from fmeasure.inference import gfm_from_p
from fmeasure.learners import BaggedFMeasureTrees, FMeasureTree
from fmeasure.learners.trees import BinnedData, bin_edges, gfm_values, label_contributions
from fmeasure.learners.trees.counts import split_values
from fmeasure.learners.trees.splitter import left_counts, node_histogram


def reference_scan(X, Y, attributes, max_bins, min_samples_leaf):
    """Best (Q, attribute, threshold) and number of candidates, recounting at every candidate."""
    n = len(Y)
    best, n_cand = (-1.0, -1, np.nan), 0
    for j in attributes:
        for t in bin_edges(X[:, j], max_bins):
            left = X[:, j] <= t
            nl = int(left.sum())
            if nl < min_samples_leaf or n - nl < min_samples_leaf:
                continue
            fl = gfm_from_p(*p_matrix(Y[left]))[1]
            fr = gfm_from_p(*p_matrix(Y[~left]))[1]
            q = (nl * fl + (n - nl) * fr) / n
            n_cand += 1
            if q > best[0] + 1e-12:
                best = (q, j, t)
    return best, n_cand


def previous_gfm_values(C, m, smax, columns):
    """The split search's GFM values as the previous release computed them (einsum, reversed sort)."""
    C = np.asarray(C, dtype=np.float64)
    k, n, w = C.shape[0], C[:, -1], C.shape[1] - 2
    best = C[:, -2].copy()
    used = C[:, :w].sum(axis=0) > 0
    columns = np.asarray(columns)[used]
    labels, li = np.unique(columns // smax, return_inverse=True)
    size = columns % smax
    r, S = len(labels), int(size.max()) + 1
    A = np.zeros((k, r, S))
    A[:, li, size] = C[:, :w][:, used]
    W = 2.0 / (np.arange(1, S + 1.0)[:, None] + np.arange(1, r + 1.0)[None, :])
    DT = np.einsum("sk,grs->gkr", W, A, optimize=True)
    DT = np.sort(DT, axis=2)[:, :, ::-1]
    E = np.einsum("gkj,kj->gk", DT, np.tri(r))
    return np.maximum(best, E.max(axis=1)) / n


def kernel_ratio(X, Y, name, n_groups=600):
    """CPU time per scored candidate side: gfm_values against the previous kernel, same counts."""
    m = Y.shape[1]
    Z, smax = label_contributions(Y)
    d = min(10, X.shape[1])
    binned = BinnedData(X[:, :d], 255)
    total = np.asarray(Z.sum(axis=0)).ravel()
    cols = np.flatnonzero(total[: m * smax] > 0)
    keep = np.r_[cols, m * smax, m * smax + 1]
    gbin, pos = binned.node_bins(np.arange(len(X)))
    occ, feat, H = node_histogram(binned, Z[:, keep], gbin, pos, np.ones(d, bool))
    L, _, cand = left_counts(H.toarray(), occ, feat, total[keep], binned, 5)
    C = L[cand[:n_groups]]
    ref, _, c_ref = timed_cpu(lambda: previous_gfm_values(C, m, smax, cols))
    new, _, c_new = timed_cpu(lambda: gfm_values(C, m, smax, cols))
    assert np.allclose(ref, new, atol=1e-12)
    print(
        f"{name} root, {len(C)} candidate sides, {len(cols)} (label, count) columns: "
        f"previous kernel {1e6 * c_ref / len(C):.0f} us, ours {1e6 * c_new / len(C):.0f} us CPU per side"
        f"  -> ratio {c_ref / c_new:.1f}x"
    )
    rows = cand[:n_groups]
    Lf = L.astype(np.float32)  # as the split search holds it
    # a few ms each: the smallest CPU time of 7 calls of each
    fused = [timed_cpu(lambda: split_values(Lf, rows, total[keep], smax, cols)) for _ in range(7)]
    two = [
        timed_cpu(lambda: (gfm_values(Lf[rows], m, smax, cols), gfm_values(total[keep] - Lf[rows], m, smax, cols)))
        for _ in range(7)
    ]
    (vl, vr), c_fused = fused[0][0], min(c for _, _, c in fused)
    (rl, rr), c_two = two[0][0], min(c for _, _, c in two)
    assert np.array_equal(vl, rl) and np.array_equal(vr, rr)
    print(
        f"{name} root, {len(rows)} candidates, both sides: value kernel on formed sides {1e6 * c_two / len(rows):.0f} us, "
        f"fused pass {1e6 * c_fused / len(rows):.0f} us CPU per candidate  -> ratio {c_two / c_fused:.1f}x"
    )


def scored_fraction(X, Y):
    """Candidates per node and the fraction the bounds leave to score, by node size (one F-tree)."""
    import collections

    import fmeasure.learners.trees.splitter as splitter

    stats = collections.defaultdict(lambda: [0, 0])  # candidates, scored
    current = {}
    search, values = splitter._search, splitter.split_values

    def counting_search(score, nl, feat, n_node, best_before):
        current["b"] = int(np.log2(max(2, n_node)))
        stats[current["b"]][0] += len(nl)
        return search(score, nl, feat, n_node, best_before)

    def counting_values(L, rows, *a):
        stats[current["b"]][1] += len(rows)
        return values(L, rows, *a)

    splitter._search, splitter.split_values = counting_search, counting_values
    try:
        FMeasureTree(min_samples_leaf=5, max_features="sqrt", random_state=0).fit(X, Y)
    finally:
        splitter._search, splitter.split_values = search, values
    print("candidates scored by the bounded search, by node size (one F-tree, sqrt(d) attributes per split):")
    for b in sorted(stats):
        cand, scored = stats[b]
        print(f"  nodes of {2**b}-{2 ** (b + 1) - 1} examples: {cand} candidates, {scored / max(1, cand):.0%} scored")


def count_candidates(X, attributes, max_bins, min_samples_leaf):
    n = X.shape[0]
    c = 0
    for j in attributes:
        for t in bin_edges(X[:, j], max_bins):
            nl = int((X[:, j] <= t).sum())
            c += min_samples_leaf <= nl <= n - min_samples_leaf
    return c


def timed(fn, repeats=1):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def timed_cpu(fn):
    """(result, wall seconds, CPU seconds of this process): CPU time is what a loaded machine hides."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def root_scan(args, X, Y, d, ref_attr):
    """Section 1 of the benchmark: yeast's root split search, ours against recounting."""
    # 1. root split search: ours on the reference attributes and on all, the reference on a few
    stump = dict(max_depth=0, max_bins=args.max_bins, min_samples_leaf=args.min_samples_leaf, min_gain=-1.0)
    # a depth-1 tree = the root scan + GFM of the two children; depth 0 = GFM of the root alone
    sub = X[:, list(ref_attr)]
    _, t_leaf = timed(lambda: FMeasureTree(**stump).fit(X, Y), 3)
    _, t_leaf_sub = timed(lambda: FMeasureTree(**stump).fit(sub, Y), 3)
    ours_sub, t_ours_sub = timed(lambda: FMeasureTree(**{**stump, "max_depth": 1}).fit(sub, Y), 3)
    ours_all, t_ours_all = timed(lambda: FMeasureTree(**{**stump, "max_depth": 1}).fit(X, Y), 3)
    (best_ref, n_ref), t_ref = timed(lambda: reference_scan(X, Y, ref_attr, args.max_bins, args.min_samples_leaf))
    n_all = count_candidates(X, range(d), args.max_bins, args.min_samples_leaf)
    L = sub[:, ours_sub.feature_[0]] <= ours_sub.threshold_[0]
    q_ours = (L.sum() * gfm_from_p(*p_matrix(Y[L]))[1] + (~L).sum() * gfm_from_p(*p_matrix(Y[~L]))[1]) / len(Y)
    assert abs(q_ours - best_ref[0]) < 1e-9, (q_ours, best_ref)
    per_ours_sub = (t_ours_sub - t_leaf_sub) / n_ref
    per_ours_all = (t_ours_all - t_leaf) / n_all
    per_ref = t_ref / n_ref
    print(f"yeast root split search (max_bins={args.max_bins}, min_samples_leaf={args.min_samples_leaf}):")
    print(
        f"  reference (recount P at each candidate), {len(ref_attr)} attributes, {n_ref} candidates: "
        f"{t_ref:.2f} s = {1e6 * per_ref:.0f} us per candidate"
    )
    print(
        f"  ours, same {len(ref_attr)} attributes: {t_ours_sub - t_leaf_sub:.3f} s = {1e6 * per_ours_sub:.1f} us per candidate"
        f"  -> ratio {per_ref / per_ours_sub:.0f}x"
    )
    print(
        f"  ours, all {d} attributes, {n_all} candidates: {t_ours_all - t_leaf:.3f} s = "
        f"{1e6 * per_ours_all:.1f} us per candidate  -> ratio {per_ref / per_ours_all:.0f}x"
    )
    print(f"  best Q on the {len(ref_attr)} attributes: ours {q_ours:.12f}, reference {best_ref[0]:.12f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="data/parsed")
    ap.add_argument("--ref-attributes", type=int, default=8)
    ap.add_argument("--max-bins", type=int, default=255)
    ap.add_argument("--min-samples-leaf", type=int, default=5)
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--skip-bags", action="store_true")
    ap.add_argument("--skip-enron", action="store_true")
    ap.add_argument("--skip-scan", action="store_true")
    ap.add_argument("--mediamill", default=None, help="a parsed Mediamill-shaped cache for the kernel ratio")
    ap.add_argument("--bag-max-features", default="sqrt,none", help="comma-separated: sqrt, none (all)")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    yeast = datasets.load(f"{args.data}/yeast.npz")
    X, Y = np.asarray(yeast.X_train), np.asarray(yeast.Y_train, dtype=np.int8)
    d = X.shape[1]
    ref_attr = range(min(args.ref_attributes, d))

    if not args.skip_scan:
        root_scan(args, X, Y, d, ref_attr)
        kernel_ratio(X, Y, "yeast")
        if args.mediamill:
            mm = datasets.load(args.mediamill)
            kernel_ratio(np.asarray(mm.X_train), np.asarray(mm.Y_train, dtype=np.int8), "mediamill-shape")
            scored_fraction(np.asarray(mm.X_train)[:8000], np.asarray(mm.Y_train, dtype=np.int8)[:8000])

    # 2. whole trees and bags
    params = dict(min_samples_leaf=args.min_samples_leaf, max_bins=args.max_bins)
    sets = [("yeast", X, Y)]
    if not args.skip_enron:
        enron = datasets.load(f"{args.data}/enron.npz")
        sets.append(("enron", sp.csr_array(np.asarray(enron.X_train)), np.asarray(enron.Y_train, dtype=np.int8)))
    for name, Xs, Ys in sets:
        tree, t, c = timed_cpu(lambda: FMeasureTree(**params).fit(Xs, Ys))
        print(
            f"{name}: one F-tree in {t:.2f} s wall, {c:.2f} s CPU ({len(tree.feature_)} nodes, depth {tree.depth_.max()})"
        )
        if not args.skip_bags:
            for mf in [None if v == "none" else v for v in args.bag_max_features.split(",")]:
                bag, t = timed(
                    lambda: BaggedFMeasureTrees(
                        n_estimators=args.trees, n_jobs=args.jobs, random_state=0, max_features=mf, **params
                    ).fit(Xs, Ys)
                )
                print(f"{name}: bag of {args.trees} F-trees (max_features={mf}), {args.jobs} processes, in {t:.1f} s")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
