"""Benchmark: F-optimal prediction at the extreme-label scale (the ``eurlex-shape`` catalog entry).

Run from the repository root:

    PYTHONPATH=src python benchmarks/bench_extreme.py                                # full size
    PYTHONPATH=src python benchmarks/bench_extreme.py --n-train 4000 --n-test 1000   # a subsample

Generates ``eurlex-shape`` (15,539 + 3,809 documents, 5,000 sparse tf-idf features, 3,993 labels
with Zipf frequencies) in a child process and keeps it in ``--data`` (later runs load it), then
fits and predicts with ``FOptimalClassifier`` over

- a kNN model: scikit-learn's ``KNeighborsClassifier`` (cosine distance, brute-force search on
  the sparse rows), the neighbour route (GFM on the neighbours' label vectors);
- a forest: ``ExtraTreesClassifier`` grown on the ``--forest-labels`` most frequent labels (a
  multi-output tree over all 3,993 labels evaluates every label at every split and stores 3,993
  class counts per node), passed already fitted as a ``FrozenEstimator``, so that the forest route
  pools the training label vectors of all labels from the leaves.

For each it prints fit and predict seconds (wall), the process's peak RSS so far, GFM's time per
instance (median and 99th percentile over ``--gfm-n`` test instances, one call each) and the
instance-wise F-measure on the test set. Then an exactness check: on every test instance whose
sample has at most ``--brute-max`` labels with mass, the expected F of the prediction (computed
from the sample) equals the best expected F over all label vectors on those labels (brute force),
to 1e-9; labels without mass never help, so that maximum is the maximum over {0,1}^m. As the two
models' samples mostly hold more labels than that, the check also runs on models with small
samples: kNN with ``--check-neighbors`` neighbours and one extra tree grown to single leaves.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_gb(who=resource.RUSAGE_SELF):
    return resource.getrusage(who).ru_maxrss / 2**20  # kilobytes on Linux


def generate_to(path):
    from fmeasure import datasets as D
    from fmeasure.datasets.synthetic import generate

    entry = D.load_catalog()["eurlex-shape"]
    t = time.perf_counter()
    ds = generate("eurlex-shape", entry)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    D.save(ds, path)
    print(f"generated eurlex-shape in {time.perf_counter() - t:.1f} s, peak RSS {peak_rss_gb():.2f} GB")


def brute_best(Ys, w):
    """max over h in {0,1}^k of the expected F on the sample Ys (K, k) with weights w (K,)."""
    k = Ys.shape[1]
    Hs = ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1).astype(np.float64)
    tp = Hs @ Ys.T.astype(np.float64)  # (2^k, K)
    den = Ys.sum(axis=1)[None, :] + Hs.sum(axis=1)[:, None]
    F = np.where(den == 0, 1.0, 2.0 * tp / np.maximum(den, 1))
    return float((F @ w).max())


def sample_f(Ys, w, h):
    tp = Ys @ h.astype(np.int64)
    den = Ys.sum(axis=1) + h.sum()
    return float(np.where(den == 0, 1.0, 2.0 * tp / np.maximum(den, 1)) @ w)


def run(name, clf, fit_args, ds, args, fit_before=0.0):
    """Fit and predict with ``clf``, print the numbers; True when every checked prediction is exact.

    ``fit_before``: seconds of fitting done before (a frozen model's), added to the fit time."""
    from fmeasure.inference import gfm_from_sample_rows
    from fmeasure.metrics import f_measure

    t = time.perf_counter()
    clf.fit(*fit_args)
    t_fit = time.perf_counter() - t + fit_before
    t = time.perf_counter()
    H = clf.predict(ds.X_test)
    t_pred = time.perf_counter() - t
    rss = peak_rss_gb()
    f = float(np.mean(f_measure(ds.Y_test, H)))
    # GFM alone, one instance per call, as the route calls it (rows of the sparse training labels)
    idx, w = clf._sample_rows(ds.X_test[: args.gfm_n])
    Ytr = clf._train_rows
    us = np.empty(len(idx))
    for i in range(len(idx)):
        c = time.perf_counter()
        h, _ = gfm_from_sample_rows(Ytr, idx[i : i + 1], None if w is None else w[i : i + 1])
        us[i] = 1e6 * (time.perf_counter() - c)
        assert np.array_equal(h[0], H[i])
    print(
        f"{name}: fit {t_fit:.1f} s, predict {t_pred:.1f} s ({len(H)} instances), peak RSS {rss:.2f} GB, "
        f"test F {f:.4f}, mean |h| {H.sum(axis=1).mean():.2f}"
    )
    print(
        f"  GFM per instance over {len(idx)} test instances: median {np.median(us):.0f} us, "
        f"99th percentile {np.percentile(us, 99):.0f} us"
    )
    return check(clf, ds, args)


def check(clf, ds, args):
    """Brute-force check of the fitted ``clf``'s predictions on the test instances whose sample has
    at most ``args.brute_max`` labels with mass; True when all agree to 1e-9."""
    H = clf.predict(ds.X_test)
    idx, w = clf._sample_rows(ds.X_test)
    V = clf.predict_expected_f(ds.X_test)
    Yd = clf._train_rows
    checked, worst, ks = 0, 0.0, []
    for i in range(len(idx)):
        wi = np.full(idx.shape[1], 1.0 / idx.shape[1]) if w is None else w[i] / w[i].sum()
        live = wi > 0
        Ys = Yd[idx[i][live]].toarray()
        labels = np.flatnonzero(Ys.any(axis=0))
        ks.append(len(labels))
        if len(labels) > args.brute_max:
            continue
        best = brute_best(Ys[:, labels], wi[live])
        got = sample_f(Ys, wi[live], H[i])
        worst = max(worst, abs(best - got), abs(best - V[i]))
        checked += 1
    ks = np.array(ks)
    print(
        f"  labels with mass per instance: median {np.median(ks):.0f}, 99th percentile {np.percentile(ks, 99):.0f}, "
        f"max {ks.max()}"
    )
    print(
        f"  exactness: {checked} instances with <= {args.brute_max} labels with mass, "
        f"largest |E[F](h) - brute-force max| = {worst:.2e}"
    )
    return worst <= 1e-9


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT / "data" / "parsed" / "eurlex-shape.npz"), help="dataset cache")
    ap.add_argument("--n-train", type=int, default=None, help="first n training documents (default: all)")
    ap.add_argument("--n-test", type=int, default=None, help="first n test documents (default: all)")
    ap.add_argument("--n-neighbors", type=int, default=20)
    ap.add_argument("--n-estimators", type=int, default=20)
    ap.add_argument("--min-samples-leaf", type=int, default=5)
    ap.add_argument("--forest-labels", type=int, default=64, help="labels the trees are grown on")
    ap.add_argument("--gfm-n", type=int, default=500, help="instances timed one by one")
    ap.add_argument("--brute-max", type=int, default=12, help="most labels with mass for the brute-force check")
    ap.add_argument("--check-neighbors", type=int, default=2, help="neighbours of the extra kNN model checked")
    ap.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.generate_only:
        return generate_to(args.data)
    if not Path(args.data).is_file():
        subprocess.run([sys.executable, __file__, "--generate-only", "--data", args.data], check=True)
        print(f"  (child process peak RSS {peak_rss_gb(resource.RUSAGE_CHILDREN):.2f} GB)")

    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.frozen import FrozenEstimator
    from sklearn.neighbors import KNeighborsClassifier

    from fmeasure import datasets as D
    from fmeasure.learners import FOptimalClassifier

    ds = D.load(args.data)
    sl_tr, sl_te = slice(args.n_train), slice(args.n_test)
    ds.X_train, ds.Y_train = sp.csr_matrix(ds.X_train[sl_tr]), ds.Y_train[sl_tr]
    ds.X_test, ds.Y_test = sp.csr_matrix(ds.X_test[sl_te]), ds.Y_test[sl_te]
    nnz = np.diff(ds.X_train.indptr)
    print(
        f"# bench_extreme: {ds.X_train.shape[0]} train / {ds.X_test.shape[0]} test, d = {ds.n_features} "
        f"(non-zeros per row {nnz.mean():.1f}), m = {ds.n_labels}, label cardinality "
        f"{ds.Y_train.sum(axis=1).mean():.2f} (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    print(f"loaded: peak RSS {peak_rss_gb():.2f} GB")
    ok = True
    with threadpool_limits(1, user_api="blas"):
        knn = KNeighborsClassifier(n_neighbors=args.n_neighbors, metric="cosine", algorithm="brute")
        ok &= run(
            f"kNN (cosine, {args.n_neighbors} neighbours)",
            FOptimalClassifier(knn),
            (ds.X_train, ds.Y_train),
            ds,
            args,
        )
        top = np.argsort(-ds.Y_train.sum(axis=0), kind="stable")[: args.forest_labels]
        t = time.perf_counter()
        forest = ExtraTreesClassifier(
            n_estimators=args.n_estimators, min_samples_leaf=args.min_samples_leaf, n_jobs=1, random_state=0
        ).fit(ds.X_train, ds.Y_train[:, top])
        t_trees = time.perf_counter() - t
        print(f"(trees grown on the {len(top)} most frequent labels in {t_trees:.1f} s, counted in the fit below)")
        clf = FOptimalClassifier(FrozenEstimator(forest))
        ok &= run(
            f"ExtraTrees ({args.n_estimators} trees, min_samples_leaf {args.min_samples_leaf})",
            clf,
            (ds.X_train, ds.Y_train),
            ds,
            args,
            fit_before=t_trees,
        )
        # small samples, so that many instances have few labels with mass
        for name, est in (
            (f"kNN ({args.check_neighbors} neighbours)", KNeighborsClassifier(args.check_neighbors, metric="cosine")),
            ("one ExtraTree (min_samples_leaf 1)", ExtraTreesClassifier(1, random_state=0)),
        ):
            if "Tree" in name:
                est = FrozenEstimator(est.fit(ds.X_train, ds.Y_train[:, top]))
            print(f"check on {name}:")
            ok &= check(FOptimalClassifier(est).fit(ds.X_train, ds.Y_train), ds, args)
    print(f"exact: {ok}")
    if not ok:
        raise SystemExit("a prediction is not F-optimal")


if __name__ == "__main__":
    main()
