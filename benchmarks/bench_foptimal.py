"""Cost of FOptimalClassifier on top of the wrapped model, per route, in one run (CPU seconds).

For each route, the wrapped model's own ``predict_proba`` on the query set against
``FOptimalClassifier.predict`` on the same fitted model (``FrozenEstimator``), both in this
process with one BLAS thread, best of ``--repeats``. The wrapper's own cost is the difference;
the ratio printed is wrapper cost / predict_proba.

* marginals (FM): ``MultiOutputClassifier(LogisticRegression)`` and ``MLPClassifier``;
* forest (GFM on pooled leaves): ``RandomForestClassifier``;
* neighbours (GFM on the neighbours' label vectors): ``KNeighborsClassifier``;
* chain (GFM on ancestral samples): ``ClassifierChain(LogisticRegression)`` on ``--chain-n``
  queries (its cost is linear in the number of queries and of samples).

Data: n = ``--n`` queries with m = 101 labels and d = 120 features, from a Mediamill-shaped
dataset's parsed cache when ``--data`` is given (test rows, repeated when fewer than n), else
synthetic (labels from a random linear model with label cardinality about 4).

    python benchmarks/bench_foptimal.py                       # synthetic data, about two minutes
    python benchmarks/bench_foptimal.py --data data/parsed/mediamill.npz
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits


def synthetic(n_train, n_query, m=101, d=120, seed=0):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(d, m)) / np.sqrt(d) * 2.0
    b = np.quantile(rng.normal(size=(2000, d)) @ W, 1 - 4.4 / m, axis=0)

    def draw(n):
        X = rng.normal(size=(n, d))
        Y = (X @ W + 0.7 * rng.normal(size=(n, m)) > b).astype(np.int8)
        return X, Y

    return draw(n_train), draw(n_query)[0]


def cpu(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="a parsed cache (.npz) of m = 101 labels; default: synthetic")
    ap.add_argument("--n", type=int, default=10_000, help="query instances")
    ap.add_argument("--n-train", type=int, default=3000, help="training instances of the models")
    ap.add_argument("--chain-n", type=int, default=500, help="query instances of the chain route")
    ap.add_argument("--n-samples", type=int, default=1000, help="chain samples per instance")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)

    from sklearn.ensemble import RandomForestClassifier
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier

    from fmeasure import FOptimalClassifier

    if args.data:
        from fmeasure import datasets

        ds = datasets.load(args.data)
        X, Y = np.asarray(ds.X_train, float)[: args.n_train], np.asarray(ds.Y_train, np.int8)[: args.n_train]
        Xq = np.asarray(ds.X_test, float)
        Xq = np.resize(Xq, (args.n, Xq.shape[1])) if len(Xq) < args.n else Xq[: args.n]
        what = args.data
    else:
        (X, Y), Xq = synthetic(args.n_train, args.n)
        what = "synthetic"
    keep = Y.min(0) != Y.max(0)
    Y = Y[:, keep]
    print(f"data: {what}; {len(X)} training rows, {len(Xq)} queries, d = {X.shape[1]}, m = {Y.shape[1]}")
    print("CPU seconds, one BLAS thread, best of", args.repeats)
    print(f"{'route':<16}{'model':<40}{'n':>7}{'predict_proba':>15}{'FOptimal':>10}{'own':>9}{'ratio':>8}")
    models = [
        (MultiOutputClassifier(LogisticRegression(max_iter=200)), Xq),
        (MLPClassifier(hidden_layer_sizes=(100,), max_iter=50, random_state=0), Xq),
        (RandomForestClassifier(n_estimators=100, min_samples_leaf=5, random_state=0), Xq),
        (KNeighborsClassifier(n_neighbors=10), Xq),
        (ClassifierChain(LogisticRegression(max_iter=200)), Xq[: args.chain_n]),
    ]
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model, Q in models:
            model.fit(X, Y)
            clf = FOptimalClassifier(FrozenEstimator(model), n_samples=args.n_samples, random_state=0).fit(X, Y)
            t_proba = cpu(lambda: model.predict_proba(Q), args.repeats)
            t_wrap = cpu(lambda: clf.predict(Q), args.repeats)
            own = max(0.0, t_wrap - t_proba) if clf.distribution_ == "marginals" else t_wrap
            name = type(model).__name__
            print(
                f"{clf.route_:<16}{name:<40}{len(Q):>7}{t_proba:>15.3f}{t_wrap:>10.3f}{own:>9.3f}{own / t_proba:>8.2f}"
            )
    print(
        "marginals: own = FOptimal - predict_proba (FOptimal calls it once); sample routes: own = FOptimal's "
        "whole predict (they do not call predict_proba)."
    )


if __name__ == "__main__":
    main()
