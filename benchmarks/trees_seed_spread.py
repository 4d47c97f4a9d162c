"""Spread of the bag of F-trees' test F over seeds, against the findings' bootstrap SE.

The trees stage fits every model with one seed (``trees.seed``); its claim is judged by a paired
bootstrap over test instances, which captures the test sample's noise but not the bag's own
randomness (bootstrap samples and attribute subsets). This script refits the bag with several
seeds and prints, per dataset and prediction, the standard deviation of test F over the seeds
next to the paired-bootstrap SE of the claim's margin (best F-bag - RF MM) of each seed.

Run from the repository root, with the parsed caches in data/parsed (``snakemake data_all``):

    python benchmarks/trees_seed_spread.py                       # scene, yeast, enron, 5 seeds
    python benchmarks/trees_seed_spread.py --datasets yeast --seeds 3
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from fmeasure import datasets
from fmeasure.experiments.findings import bootstrap_cells
from fmeasure.experiments.trees import run_trees


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="data/parsed")
    ap.add_argument("--datasets", default="scene,yeast,enron")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=2014)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    kw = dict(n_estimators=50, min_samples_leaf=5, max_features="sqrt", n_jobs=args.jobs)
    print("dataset  prediction  F per seed  | sd over seeds | bootstrap SE of the margin (median over seeds)")
    for name in args.datasets.split(","):
        ds = datasets.load(f"{args.data}/{name}.npz")
        sparse = dict(sparse_density=0.1)
        _, rf = run_trees(ds, "forest", seed=args.first_seed, return_instances=True, **kw, **sparse)
        rf = rf[rf.method == "RF MM"]
        f, se = {}, []
        for s in range(args.first_seed, args.first_seed + args.seeds):
            table, inst = run_trees(ds, "bag", seed=s, return_instances=True, **kw, **sparse)
            for r in table.itertuples():
                f.setdefault(r.method, []).append(r.f)
            both = pd.concat([inst, rf], ignore_index=True)
            cell = bootstrap_cells(both, "dataset", "f", sorted(set(inst.method)), ["RF MM"])
            se.append(float(cell.se.iloc[0]))
        for method, vals in f.items():
            sd = np.std(vals, ddof=1) if len(vals) > 1 else float("nan")
            print(
                f"{name:8s} {method:13s} {' '.join(f'{v:.2f}' for v in vals)} | {sd:.2f} | {np.median(se):.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
