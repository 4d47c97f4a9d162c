"""lbfgs against newton-cg for the tuned logistic models of BR and EFP, in the same run.

For each dataset, fits the models the parametric learners fit (BR: one binary model per label on
all rows; EFP: one multinomial model per label, of [y_i = 1] * |y| on the rows with a label) with
``fit_logistic_cv`` over the paper's C grid and 5 folds, once with each solver, and prints the CPU
seconds, their ratio (lbfgs / newton-cg: above 1, newton-cg is faster) and the largest difference
in CV log loss between the two (both stop at the same tolerance, so the chosen C agrees).
``fit_logistic_cv`` uses lbfgs unless asked otherwise: along its warm-started C path newton-cg
has not been the faster one on any dataset measured here.

    PYTHONPATH=src python benchmarks/bench_solvers.py --datasets data/parsed/{scene,yeast,enron}.npz \\
        --synthetic mediamill-shape --labels 6

Datasets are parsed caches (``data/parsed/*.npz``) or synthetic entries of the package's catalog
(``fmeasure.datasets.load_catalog``, generated here). ``--labels k`` times k labels spread over the frequency
range (the frequent ones have the most EFP classes) instead of all. CPU seconds are the
load-independent measure on a shared machine.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from fmeasure import datasets
from fmeasure.datasets.synthetic import generate
from fmeasure.learners.logistic import DEFAULT_CS, fit_logistic_cv


def _features(X):
    """X as the parametric learners fit it: dense real-valued features standardised."""
    if hasattr(X, "tocsr") or np.all((X == 0) | (X == 1)):
        return X
    return StandardScaler().fit_transform(X)


def _problems(Y, labels):
    """(name, rows, target) of BR's and EFP's models for the chosen labels."""
    s = Y.sum(axis=1)
    rows = s > 0
    br = [("BR", slice(None), Y[:, i]) for i in labels]
    efp = [("EFP", rows, Y[rows, i] * s[rows]) for i in labels]
    return br + efp


def bench(name, X, Y, n_labels):
    m = Y.shape[1]
    labels = np.arange(m) if n_labels is None else np.unique(np.linspace(0, m - 1, n_labels).round().astype(int))
    X = _features(X)
    print(f"\n== {name}: {X.shape[0]} x {X.shape[1]}, {m} labels ({labels.size} timed)")
    for kind in ("BR", "EFP"):
        probs = [(r, t) for k, r, t in _problems(Y, labels) if k == kind]
        cpu, loss = {}, {}
        for solver in ("lbfgs", "newton-cg"):
            c0 = time.process_time()
            fits = [fit_logistic_cv(X[r], t, Cs=DEFAULT_CS, cv=5, random_state=0, solver=solver) for r, t in probs]
            cpu[solver] = time.process_time() - c0
            loss[solver] = np.array([np.min(f.cv_log_loss_) for f in fits])
        ratio = cpu["lbfgs"] / max(cpu["newton-cg"], 1e-9)
        gap = float(np.max(np.abs(loss["lbfgs"] - loss["newton-cg"])))
        print(
            f"  {kind:3s} lbfgs {cpu['lbfgs']:8.1f} CPU s   newton-cg {cpu['newton-cg']:8.1f} CPU s   "
            f"lbfgs / newton-cg {ratio:5.2f}   max |CV log loss gap| {gap:.1e}",
            flush=True,
        )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=[], help="parsed caches (data/parsed/NAME.npz)")
    ap.add_argument("--synthetic", nargs="*", default=[], help="synthetic entries of the package's catalog")
    ap.add_argument("--labels", type=int, default=None, help="time this many labels per dataset (default: all)")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    catalog = datasets.load_catalog()
    for path in args.datasets:
        ds = datasets.load(path)
        bench(ds.name, ds.X_train, ds.Y_train, args.labels)
    for name in args.synthetic:
        if catalog.get(name, {}).get("format") != "synthetic":
            ap.error(f"--synthetic: {name!r} is not a synthetic entry of the package's catalog")
        ds = generate(name, catalog[name])
        bench(name, ds.X_train, ds.Y_train, args.labels)
        if catalog[name].get("features") == "factors":  # the same counts with Gaussian features
            ds = generate(name, {**catalog[name], "features": "dense"})
            bench(f"{name} (features: dense)", ds.X_train, ds.Y_train, args.labels)


if __name__ == "__main__":
    main()
