"""EFP's whole fit under the paper's grid: the preconditioned multinomial lbfgs against scikit-learn's.

Fits ``EFP`` (C in {1e-4, ..., 1e3}, 5 folds, no patience) on each dataset twice in the same run:
``ours`` (the default: the multinomial fits minimise scikit-learn's objective with a
preconditioned L-BFGS, ``fmeasure.learners.logistic._fit_multinomial_lbfgs``) and ``sklearn``
(every fit by ``LogisticRegression.fit``, the previous behaviour). Prints, per variant, the fit's
CPU seconds (all processes) and wall clock, test F and Hamming loss (in %), the median chosen C,
and then the CPU ratio (sklearn / ours) and the test instances whose predictions differ.

    PYTHONPATH=src python benchmarks/bench_efp.py --synthetic mediamill-shape --seeds 2014 7
    PYTHONPATH=src python benchmarks/bench_efp.py --datasets data/parsed/{scene,yeast}.npz
    PYTHONPATH=src python benchmarks/bench_efp.py --synthetic mediamill-shape --variants ours --n-jobs 2

Datasets are parsed caches (``data/parsed/*.npz``) or synthetic entries of the package's catalog
(generated here, ``--seeds`` giving the generator's seeds). CPU seconds are the load-independent
measure on a shared machine; the wall clock of ``--n-jobs 2`` on 2 idle cores is the pipeline's
(``--n-jobs`` applies to ``ours``: ``sklearn`` is set in this process and fits in it).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from fmeasure import datasets
from fmeasure.datasets.synthetic import generate
from fmeasure.learners import logistic
from fmeasure.learners.parametric import EFP
from fmeasure.metrics import f_measure, hamming_loss

GRID = [10.0**k for k in range(-4, 4)]
VARIANTS = ("sklearn", "ours")


def _load(name: str, seed: int | None):
    if name.endswith(".npz"):
        return name, datasets.load(name)
    entry = dict(datasets.load_catalog()[name])
    entry["seed"] = seed if seed is not None else entry.get("seed")
    return f"{name} (seed {entry['seed']})", generate(name, entry)


def fit(ds, variant: str, n_jobs: int):
    """(F %, Hamming %, CPU s, wall s, median C, predictions) of EFP fitted under ``variant``.

    ``sklearn`` is set in this process only, so it always fits in one process (the label models'
    worker processes would import the package afresh and fit the default way)."""
    ours = logistic._fit_multinomial_lbfgs
    if variant == "sklearn":
        logistic._fit_multinomial_lbfgs = lambda *a, **k: False
        n_jobs = 1
    try:
        t = time.perf_counter()
        model = EFP(Cs=GRID, cv=5, random_state=2014, n_jobs=n_jobs).fit(ds.X_train, ds.Y_train)
        wall = time.perf_counter() - t
    finally:
        logistic._fit_multinomial_lbfgs = ours
    H = model.predict(ds.X_test)
    f = 100 * float(np.mean(f_measure(ds.Y_test, H)))
    hl = 100 * float(np.mean(hamming_loss(ds.Y_test, H)))
    return f, hl, model.fit_cpu_time_, wall, float(np.nanmedian(model.C_)), H


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=[], help="parsed caches (.npz)")
    ap.add_argument("--synthetic", nargs="*", default=[], help="synthetic catalog entries")
    ap.add_argument("--seeds", nargs="*", type=int, default=[None], help="generator seeds of --synthetic")
    ap.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    ap.add_argument("--n-jobs", type=int, default=1, help="label models fitted in parallel (ours only)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    runs = [(d, None) for d in args.datasets] + [(s, seed) for s in args.synthetic for seed in args.seeds]
    for name, seed in runs:
        title, ds = _load(name, seed)
        shape = f"{ds.X_train.shape[0]} x {ds.X_train.shape[1]}, {ds.Y_train.shape[1]} labels"
        print(f"{title}: {shape}; n_jobs {args.n_jobs} (sklearn: 1)", flush=True)
        out = {}
        for v in args.variants:
            f, hl, cpu, wall, c, H = out[v] = fit(ds, v, args.n_jobs)
            print(
                f"  {v:8s} F {f:.2f}  Hamming {hl:.2f}  fit CPU {cpu:8.1f} s  wall {wall:7.1f} s  median C {c:g}",
                flush=True,
            )
        if len(out) == 2:
            ratio = out["sklearn"][2] / out["ours"][2]
            differ = int(np.any(out["sklearn"][5] != out["ours"][5], axis=1).sum())
            print(f"  CPU ratio sklearn / ours {ratio:.2f}x; test instances predicted differently {differ} of {len(H)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
