"""Fit and predict one peer package's model, inside that peer's own environment.

    <peer python> peers_adapter.py REQUEST.npz OUT.npz

Called by :func:`fmeasure.experiments.peers.run_adapter`, never by Snakemake directly. REQUEST.npz
holds ``spec`` (JSON: ``{"peer": name, "seed": int, "tasks": [{"params": {...}}, ...]}``) and, for
task j, ``Xtr{j}``, ``Ytr{j}``, ``Xev{j}`` (features already standardised, constant labels already
removed by the caller). OUT.npz receives ``H{j}`` (0/1 predictions for ``Xev{j}``), ``fit_s{j}`` and
``predict_s{j}`` (wall seconds). It imports only numpy, scipy, scikit-learn and the peer's package:
a peer's own environment has no fmeasure. Routes of ours (``fopt_*``) run in the project's
environment and import fmeasure.
"""

import json
import sys
import time

import numpy as np
import scipy.sparse as sp


def make(peer, params, seed):
    """The peer's estimator with ``params`` over its defaults."""
    if peer == "boomer":
        from mlrl.boosting import Boomer

        return Boomer(binary_predictor="gfm", random_state=max(1, int(seed)), **params)
    if peer == "ewf1":
        from example_wise_f1_maximizer import ExampleWiseF1Maximizer
        from sklearn.linear_model import LogisticRegression

        return ExampleWiseF1Maximizer(LogisticRegression(**params))
    if peer == "mlknn":
        from skmultilearn.adapt import MLkNN

        return MLkNN(**params)
    if peer in ("sklearn_br", "sklearn_cc"):
        from sklearn.linear_model import LogisticRegression
        from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

        wrap = MultiOutputClassifier if peer == "sklearn_br" else ClassifierChain
        return wrap(LogisticRegression(**params))
    if peer == "fopt_extratrees":
        from sklearn.ensemble import ExtraTreesClassifier

        from fmeasure import FOptimalClassifier

        params = {"n_estimators": 300, **params}
        return FOptimalClassifier(ExtraTreesClassifier(random_state=int(seed), **params))
    raise SystemExit(f"peers_adapter: unknown peer {peer!r}")


def main(request, out):
    z = np.load(request, allow_pickle=False)
    spec = json.loads(str(z["spec"]))
    result = {}
    for j, task in enumerate(spec["tasks"]):
        model = make(spec["peer"], task.get("params", {}), spec.get("seed", 1))
        t0 = time.perf_counter()
        model.fit(z[f"Xtr{j}"], z[f"Ytr{j}"])
        t1 = time.perf_counter()
        H = model.predict(z[f"Xev{j}"])
        t2 = time.perf_counter()
        H = H.toarray() if sp.issparse(H) else np.asarray(H)
        result.update({f"H{j}": (H > 0.5).astype(np.int8), f"fit_s{j}": t1 - t0, f"predict_s{j}": t2 - t1})
        print(f"task {j + 1} of {len(spec['tasks'])}: fit {t1 - t0:.1f} s, predict {t2 - t1:.1f} s", flush=True)
    np.savez(out, **result)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
