"""Benchmark the parametric learners (BR, EFP): training and inference time, CPU and wall clock.

Prints, per dataset: EFP and BR training (full grid, one process, CPU seconds and wall clock),
EFP inference, and the tuned-logistic path of ``fit_logistic_cv`` against a naive reference
measured in the same run on the same label models: scikit-learn's ``LogisticRegressionCV``
(its own warm-started path, BLAS threads at their default), the first version of the shared
helper. Then a synthetic dataset of Mediamill's shape (30,993 x 120, 101 labels, label
cardinality ~4.4): a few EFP label models are timed and the whole EFP/BR training extrapolated.
``--predict-labels``: EFP's prediction from P over the counts its label models can predict against
P over all m counts, on synthetic data with those label counts.

CPU seconds are the load-independent measure on a shared machine; wall clock is printed beside.

    PYTHONPATH=src python benchmarks/bench_parametric.py --datasets data/parsed/{scene,yeast,enron}.npz \\
        --ref-labels 2 --mediamill-labels 3
    PYTHONPATH=src python benchmarks/bench_parametric.py --predict-labels 14,101,983
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.preprocessing import StandardScaler

from fmeasure import datasets
from fmeasure.learners import logistic
from fmeasure.learners.logistic import DEFAULT_CS, fit_logistic_cv
from fmeasure.learners.parametric import EFP, BinaryRelevance


class Clock:
    def __enter__(self):
        self.w, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.w, time.process_time() - self.c


def reference_fit(X, y, Cs, cv=5, seed=0):
    """The naive reference: scikit-learn's LogisticRegressionCV with default BLAS threading."""
    classes, counts = np.unique(y, return_counts=True)
    if classes.size == 1:
        return None
    folds = (StratifiedKFold if counts.min() >= cv else KFold)(cv, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LogisticRegressionCV(
            Cs=list(Cs),
            cv=folds,
            scoring="neg_log_loss",
            l1_ratios=(0.0,),
            max_iter=1000,
            tol=1e-4,
            use_legacy_attributes=False,
        ).fit(X, y)


def efp_targets(Y):
    s = Y.sum(axis=1)
    rows = s > 0
    return rows, [Y[rows, i] * s[rows] for i in range(Y.shape[1])]


def bench_dataset(path, ref_labels, patience, learners=True):
    ds = datasets.load(path)
    m = ds.Y_train.shape[1]
    print(f"\n== {ds.name}: {ds.Y_train.shape[0]} x {ds.X_train.shape[1]}, m = {m}")
    for cls in (BinaryRelevance, EFP) if learners else ():
        model = cls(n_jobs=1, patience=patience)
        with Clock() as fit:
            model.fit(ds.X_train, ds.Y_train)
        with Clock() as pred:
            model.predict(ds.X_test)
        print(
            f"{cls.__name__:>16} train: CPU {fit.cpu:7.1f} s  wall {fit.wall:7.1f} s | "
            f"inference: wall {pred.wall:6.3f} s (CPU {pred.cpu:.3f} s)"
        )
    if ref_labels:
        prep = EFP()
        X = prep._fit_scaler(ds.X_train)  # the features exactly as the learners see them
        rows, targets = efp_targets(ds.Y_train)
        # the labels with the most classes are the expensive ones
        order = np.argsort([-np.unique(t).size for t in targets])[:ref_labels]
        Xr = X[rows]
        with Clock() as ours:
            for i in order:
                fit_logistic_cv(Xr, targets[i], Cs=DEFAULT_CS, cv=5, random_state=0, patience=patience)
        if prep.scaler_ is None and not hasattr(ds.X_train, "tocsr"):
            # indicator features: before, they were standardised and fitted dense
            Xb, saved = StandardScaler().fit_transform(ds.X_train)[rows], logistic.SPARSE_FIT_DENSITY
            logistic.SPARSE_FIT_DENSITY = -1.0  # never CSR
            try:
                with Clock() as before:
                    for i in order:
                        fit_logistic_cv(Xb, targets[i], Cs=DEFAULT_CS, cv=5, random_state=0, patience=patience)
            finally:
                logistic.SPARSE_FIT_DENSITY = saved
            print(
                f"{'indicator input':>16} on {ref_labels} EFP label models: raw 0/1 as CSR CPU {ours.cpu:.1f} s | "
                f"standardised dense (before) CPU {before.cpu:.1f} s | ratio x{before.cpu / ours.cpu:.1f}"
            )
        with Clock() as ref:
            for i in order:
                reference_fit(Xr, targets[i], DEFAULT_CS)
        print(
            f"{'tuned path':>16} on {ref_labels} EFP label models: ours wall {ours.wall:.1f} s (CPU {ours.cpu:.1f}) | "
            f"LogisticRegressionCV wall {ref.wall:.1f} s (CPU {ref.cpu:.1f}) | ratio wall x{ref.wall / ours.wall:.1f}, "
            f"CPU x{ref.cpu / ours.cpu:.1f}"
        )


def mediamill_like(seed=0, n=30993, d=120, m=101, cardinality=4.4):
    """Features and labels of Mediamill's shape: latent linear model, skewed label frequencies."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    freq = 1.0 / np.arange(1, m + 1) ** 0.9
    freq *= cardinality / freq.sum()
    freq = np.clip(freq, 1e-3, 0.8)
    W = rng.normal(size=(d, m)) / np.sqrt(d) * 1.5
    Z = X @ W + rng.normal(size=(n, m))
    thresholds = np.array([np.quantile(Z[:, j], 1 - freq[j]) for j in range(m)])
    Y = (Z > thresholds).astype(np.int8)
    return X, Y


def bench_mediamill(n_labels, patience):
    X, Y = mediamill_like()
    m = Y.shape[1]
    rows, targets = efp_targets(Y)
    n_classes = np.array([np.unique(t).size for t in targets])
    print(
        f"\n== Mediamill-shaped synthetic: {X.shape[0]} x {X.shape[1]}, m = {m}, "
        f"cardinality {Y.sum(1).mean():.2f}, EFP classes per label: median {np.median(n_classes):.0f}, "
        f"max {n_classes.max()}"
    )
    Xs = StandardScaler().fit_transform(X)
    # labels spread over the frequency range (frequent labels have the most classes)
    pick = np.unique(np.linspace(0, m - 1, n_labels).round().astype(int))
    cpu = []
    for i in pick:
        with Clock() as c:
            fit_logistic_cv(Xs[rows], targets[i], Cs=DEFAULT_CS, cv=5, random_state=0, patience=patience)
        cpu.append(c.cpu)
        print(f"  EFP label {i:3d} ({n_classes[i]:2d} classes): CPU {c.cpu:6.1f} s, wall {c.wall:6.1f} s")
    # extrapolate by the number of classes (cost per lbfgs iteration is linear in it)
    per_class = np.sum(cpu) / np.sum(n_classes[pick])
    est = per_class * n_classes.sum()
    with Clock() as c:
        fit_logistic_cv(Xs, Y[:, pick[0]], Cs=DEFAULT_CS, cv=5, random_state=0, patience=patience)
    print(
        f"  EFP all {m} labels (extrapolated by classes): ~{est:,.0f} CPU s = {est / 60:.0f} CPU min; "
        f"on 2 cores ~{est / 2 / 60:.0f} min, on 8 cores ~{est / 8 / 60:.0f} min (paper: 24,620 s)"
    )
    print(f"  BR: one binary model CPU {c.cpu:.1f} s -> ~{c.cpu * m:,.0f} CPU s for {m} labels (paper: 3,238 s)")
    # inference at full test size (12,914 x 120), models fitted cheaply on a subsample (one C, 2 folds)
    Xt, _ = mediamill_like(seed=1, n=12914)
    sub = np.random.default_rng(0).choice(X.shape[0], 4000, replace=False)
    efp = EFP(Cs=(0.01,), cv=2).fit(X[sub], Y[sub])
    with Clock() as c:
        efp.predict(Xt)
    print(
        f"  EFP inference on 12,914 x 120 (all {m} models + GFM): wall {c.wall:.2f} s, CPU {c.cpu:.2f} s (paper: 30 s)"
    )


def bench_predict(label_counts, n_train=4000, n_test=500, d=120):
    """EFP's prediction from P over the counts its label models can predict (``EFP.predict``)
    against the previous path, P over all m counts (``predict_p_matrix`` + ``gfm_from_p`` on the
    square matrices), on synthetic data with m labels (the scaling benchmark's shape)."""
    from fmeasure.datasets.synthetic import generate
    from fmeasure.inference import gfm_from_p

    print("\n== EFP prediction: P over counts 1..S against P over counts 1..m (same models, same run)")
    for m in label_counts:
        entry = {"n_train": n_train, "n_test": n_test, "d": d, "m": m, "cardinality": min(4.376, m / 2)}
        entry.update(skew=1.1, dependence=0.3, seed=2014)
        ds = generate(f"bench-m{m}", entry)
        efp = EFP(Cs=(1.0,), cv=2).fit(ds.X_train, ds.Y_train)
        efp.predict(ds.X_test[:2])  # compile the kernels outside the clocks
        gfm_from_p(*efp.predict_p_matrix(ds.X_test[:2]))
        new, old = [], []
        for _ in range(3):  # best of 3, the two paths alternating
            with Clock() as c:
                H = efp.predict(ds.X_test)
            new.append(c)
            with Clock() as c:
                P, p0 = efp.predict_p_matrix(ds.X_test)
                H_old = gfm_from_p(P, p0)[0]
            old.append(c)
        new, old = min(new, key=lambda c: c.cpu), min(old, key=lambda c: c.cpu)
        same = bool(np.array_equal(H, H_old))
        print(
            f"  m = {m:5d} (S = {efp._max_count()}): counts 1..S CPU {new.cpu:7.2f} s | counts 1..m CPU {old.cpu:7.2f} s"
            f" | ratio x{old.cpu / max(new.cpu, 1e-9):.1f} | same predictions: {same}"
        )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="*", default=[], help="parsed .npz files (data/parsed/<name>.npz)")
    ap.add_argument("--ref-labels", type=int, default=2, help="EFP label models timed against LogisticRegressionCV")
    ap.add_argument("--mediamill-labels", type=int, default=0, help="EFP label models timed on the synthetic Mediamill")
    ap.add_argument("--patience", type=int, default=None, help="stop the C walk after this many non-improving C")
    ap.add_argument("--ref-only", action="store_true", help="skip the whole-dataset BR/EFP timings")
    ap.add_argument("--predict-labels", default="", help="label counts m, e.g. 101,983: EFP prediction, S vs m columns")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    for path in args.datasets:
        bench_dataset(path, args.ref_labels, args.patience, learners=not args.ref_only)
    if args.mediamill_labels:
        bench_mediamill(args.mediamill_labels, args.patience)
    if args.predict_labels:
        bench_predict([int(v) for v in args.predict_labels.split(",")])


if __name__ == "__main__":
    main()
