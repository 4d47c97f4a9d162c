"""Cost and test F of the F-measure trees against their number of candidate bins (``max_bins``).

A candidate threshold costs the F-trees one exact GFM per side (O(m S^2) for m labels and at most
S labels per example), thousands of times what a Gini or entropy split costs, so the number of
candidates per attribute, not the node histograms, sets a tree's time on data with many rows:
nodes larger than ``max_bins`` have ``max_bins - 1`` candidates per attribute. This prints, per
dataset and ``max_bins``, the CPU time of one F-tree (all attributes, the stage's
``min_samples_leaf``) and of a small bag (``max_features="sqrt"``), the ratio against the
first value given, and the mean instance-wise F on the test set.

Run from the repository root with parsed caches in data/parsed (``snakemake data_all``; add
``mediamill-shape`` with ``snakemake data/parsed/mediamill-shape.npz --config
datasets=mediamill-shape``):

    python benchmarks/bench_tree_bins.py --datasets yeast,enron --bins 255,64,32,16
    python benchmarks/bench_tree_bins.py --datasets mediamill-shape --rows 8000
"""

from __future__ import annotations

import argparse
import os
import time

from fmeasure import datasets
from fmeasure.learners import BaggedFMeasureTrees, FMeasureTree
from fmeasure.metrics import mean_f_measure


def cpu(fn):
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="data/parsed")
    ap.add_argument("--datasets", default="scene,yeast,enron")
    ap.add_argument("--bins", default="255,64,32,16", help="max_bins values; the first is the reference")
    ap.add_argument("--rows", type=int, default=None, help="use the first ROWS training examples")
    ap.add_argument("--trees", type=int, default=10, help="trees in the bag (0: no bag)")
    ap.add_argument("--min-samples-leaf", type=int, default=5)
    args = ap.parse_args()
    bins = [int(b) for b in args.bins.split(",")]
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU seconds of this process")
    for name in args.datasets.split(","):
        ds = datasets.load(f"{args.data}/{name}.npz")
        X, Y = ds.X_train[: args.rows], ds.Y_train[: args.rows]
        print(f"\n{name}: {X.shape[0]} x {X.shape[1]} train, {len(ds.Y_test)} test, {Y.shape[1]} labels")
        print(f"{'max_bins':>8} {'tree CPU':>9} {'ratio':>6} {'tree F':>7} {'bag CPU':>8} {'ratio':>6} {'bag F':>6}")
        ref = {}
        for b in bins:
            tree = FMeasureTree(min_samples_leaf=args.min_samples_leaf, max_bins=b)
            _, c_tree = cpu(lambda: tree.fit(X, Y))
            f_tree = 100 * mean_f_measure(ds.Y_test, tree.predict(ds.X_test))
            row = f"{b:>8} {c_tree:>8.1f}s {ref.setdefault('tree', c_tree) / c_tree:>5.1f}x {f_tree:>7.2f}"
            if args.trees:
                bag = BaggedFMeasureTrees(
                    n_estimators=args.trees,
                    min_samples_leaf=args.min_samples_leaf,
                    max_bins=b,
                    max_features="sqrt",
                    random_state=0,
                    n_jobs=1,
                )
                _, c_bag = cpu(lambda: bag.fit(X, Y))
                f_bag = 100 * mean_f_measure(ds.Y_test, bag.predict(ds.X_test))
                row += f" {c_bag:>7.1f}s {ref.setdefault('bag', c_bag) / c_bag:>5.1f}x {f_bag:>6.2f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
