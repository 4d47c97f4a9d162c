"""FOptimalSearchCV on real data: what it chose, its test F, and every route's own CV and test F.

For each parsed dataset (MULAN's train/test split from the data stage): the search with its
defaults (5-fold CV of mean instance-wise F on the training set) is fitted and timed (wall clock
and this process's CPU; the fold fits run in ``--n-jobs`` worker processes), then scored on the
test set. Beside it, each route with the setting its own CV preferred, refitted on the whole
training set and scored on the test set, so the choice can be compared with what each route would
have given. The search never sees the test set; the per-route test F is for comparison only.

    PYTHONPATH=src python benchmarks/bench_foptimal_search.py --datasets data/parsed/{scene,yeast,enron}.npz \\
        --n-jobs 2 --seed 1 --csv results/bench_foptimal_search.csv
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from fmeasure import datasets
from fmeasure.learners import FOptimalSearchCV
from fmeasure.metrics import mean_f_measure


def bench_dataset(path, n_jobs, seed, candidates="default"):
    ds = datasets.load(path)
    name = Path(path).stem
    search = FOptimalSearchCV(candidates, cv=5, n_jobs=n_jobs, random_state=seed)
    t0, c0 = time.perf_counter(), time.process_time()
    search.fit(ds.X_train, ds.Y_train)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    test_f = mean_f_measure(ds.Y_test, search.predict(ds.X_test))
    res = pd.DataFrame(search.cv_results_)
    rows = []
    for route, group in res.groupby("candidate", sort=False):
        best = group.loc[group["mean_test_score"].idxmax()]
        est, _ = search.candidates_[route]
        t1 = time.perf_counter()
        with threadpool_limits(limits=1, user_api="blas"):
            model = clone(est).set_params(**best["params"]).fit(ds.X_train, ds.Y_train)
        fit_s = time.perf_counter() - t1
        rows.append(
            {
                "dataset": name,
                "route": route,
                "setting": best["params"] or "",
                "cv_f": 100 * best["mean_test_score"],
                "cv_se": 100 * best["se_test_score"],
                "test_f": 100 * mean_f_measure(ds.Y_test, model.predict(ds.X_test)),
                "fit_s": fit_s,
                "chosen": route == search.best_candidate_ and best["params"] == search.best_params_,
            }
        )
    summary = {
        "dataset": name,
        "chosen": search.best_candidate_,
        "setting": search.best_params_ or "",
        "cv_f": 100 * search.best_score_,
        "test_f": 100 * test_f,
        "search_wall_s": wall,
        "search_cpu_s_main": cpu,
        "dropped": "; ".join(f"{k}: {v}" for k, v in search.dropped_.items()),
    }
    return summary, pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", required=True, help="parsed .npz files (data/parsed/<name>.npz)")
    ap.add_argument("--n-jobs", type=int, default=2, help="parallel fits of the search (candidates x folds)")
    ap.add_argument("--seed", type=int, default=1, help="random_state of the search")
    ap.add_argument("--candidates", default="default", help='"default", "fast" or route names separated by commas')
    ap.add_argument("--csv", default=None, help="also write the per-route rows here")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("fmeasure.learners.search").setLevel(logging.INFO)  # one line per candidate
    cands = args.candidates if args.candidates in ("default", "fast") else args.candidates.split(",")
    summaries, tables = [], []
    for path in args.datasets:
        summary, table = bench_dataset(path, args.n_jobs, args.seed, cands)
        summaries.append(summary)
        tables.append(table)
        print(pd.DataFrame([summary]).to_markdown(index=False, floatfmt=".2f"))
        print(table.to_markdown(index=False, floatfmt=".2f"), flush=True)
    print(pd.DataFrame(summaries).to_markdown(index=False, floatfmt=".2f"))
    if args.csv:
        pd.concat(tables).to_csv(args.csv, index=False)
    return np.mean([s["test_f"] for s in summaries])


if __name__ == "__main__":
    main()
