"""Benchmark: kNN inference batched over all test instances vs a plain per-instance loop.

For each dataset and l, the neighbours are searched once (timed separately); then every
inference method runs (a) batched, as KNeighborsFMeasure does, and (b) in a Python loop
over test instances calling the same fmeasure.estimation / fmeasure.inference functions on
one (l, m) sample at a time. Both must give identical predictions; the ratio is loop / ours.

Usage (after `snakemake --cores 2 data/parsed/{scene,yeast,enron}.npz`):
    PYTHONPATH=src python benchmarks/bench_knn.py [--data-dir data/parsed] [--datasets scene,yeast,enron]
"""

import argparse
import time

import numpy as np

from fmeasure import datasets, estimation, inference
from fmeasure.learners.knn import KNeighborsFMeasure


def per_instance(S, method):
    """The reference: one test instance at a time."""
    out = np.empty((S.shape[0], S.shape[2]), dtype=np.int8)
    for i, Si in enumerate(S):
        if method == "mm":
            out[i] = 1 - inference.marginal_modes(1.0 - estimation.marginals(Si))[0]
        elif method == "jm":
            out[i] = estimation.joint_mode(Si)[0]
        elif method == "fm":
            out[i] = inference.fm(estimation.marginals(Si))[0]
        else:
            out[i] = inference.gfm_from_samples(Si)[0]
    return out


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default="data/parsed")
    ap.add_argument("--datasets", default="scene,yeast,enron")
    ap.add_argument("--neighbours", default="10,100")
    args = ap.parse_args()
    print(f"{'dataset':8s} {'l':>4s} {'method':6s} {'search s':>9s} {'ours s':>8s} {'loop s':>8s} {'ratio':>7s}")
    total = 0.0
    for name in args.datasets.split(","):
        ds = datasets.load(f"{args.data_dir}/{name}.npz")
        est = KNeighborsFMeasure().fit(ds.X_train, ds.Y_train)
        for l in map(int, args.neighbours.split(",")):
            (_, ind), t_search = timed(lambda: est.set_params(n_neighbors=l).kneighbors(ds.X_test))
            S = est.Y_train_[ind]
            for method in ["mm", "jm", "fm", "gfm"]:
                H, t_ours = timed(lambda: est.set_params(inference=method).predict_from_neighbors(ind))
                R, t_loop = timed(lambda: per_instance(S, method))
                assert np.array_equal(H, R), f"{name} l={l} {method}: batched and loop predictions differ"
                total += t_search + t_ours
                print(
                    f"{name:8s} {l:4d} {method:6s} {t_search:9.3f} {t_ours:8.3f} {t_loop:8.3f} {t_loop / t_ours:7.1f}x"
                )
    print(f"sum of search + batched inference over the rows above: {total:.2f} s")


if __name__ == "__main__":
    main()
