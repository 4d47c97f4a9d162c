"""Fit and predict one system's model, inside that system's environment.

    <python> peers_adapter.py REQUEST.npz OUT.npz

Called by :func:`fmeasure.experiments.peers.run_adapter`, never by Snakemake directly. REQUEST.npz
holds ``spec`` (JSON: ``{"peer": name, "seed": int, "cv": int, "threads": int, "max_iter": int,
"tasks": [{"params": {...}}, ...]}``) and, for task j, ``Xtr{j}``, ``Ytr{j}``, ``Xev{j}`` (features
already prepared, constant labels already removed by the caller). OUT.npz receives ``H{j}`` (0/1
predictions for ``Xev{j}``), ``fit_s{j}`` and ``predict_s{j}`` (wall seconds), ``cpu_s{j}`` (CPU
seconds of both: this process's threads and the worker processes it started, such as joblib's, which
are stopped at the end of each task so that their CPU is counted) and ``chosen{j}``
(JSON of what a self-tuning model chose, empty otherwise). It imports only numpy, scipy,
scikit-learn and the peer's package: a peer's own environment has no fmeasure. Routes of ours run
in the project's environment and import fmeasure.

The systems are :data:`BUILDERS`, the names of ``fmeasure.experiments.registry.PEER_SYSTEMS``.
Every logistic model gets ``max_iter`` (the cap of fmeasure's own logistic models); every
stochastic model gets ``seed``; a model that tunes itself gets ``cv`` folds.
"""

import json
import logging
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp


def _boomer(params, spec, seed, max_iter, threads):
    from mlrl.boosting import Boomer

    # training on the job's threads; prediction keeps BOOMER's default (0.12.3's GFM predictor
    # crashes when told to predict without parallelism)
    pool = "false" if threads == 1 else f"true{{num_preferred_threads={threads}}}"
    pools = {"parallel_rule_refinement": pool, "parallel_statistic_update": pool}
    return Boomer(binary_predictor="gfm", random_state=max(1, seed), **{**pools, **params})


def _ewf1(params, spec, seed, max_iter, threads):
    from example_wise_f1_maximizer import ExampleWiseF1Maximizer
    from sklearn.linear_model import LogisticRegression

    return ExampleWiseF1Maximizer(LogisticRegression(**{"max_iter": max_iter, **params}))


def _mlknn(params, spec, seed, max_iter, threads):
    from skmultilearn.adapt import MLkNN

    return MLkNN(**params)


def _sklearn(wrapper):
    def build(params, spec, seed, max_iter, threads):
        from sklearn.linear_model import LogisticRegression
        from sklearn.multioutput import ClassifierChain, MultiOutputClassifier

        wrap = MultiOutputClassifier if wrapper == "br" else ClassifierChain
        return wrap(LogisticRegression(**{"max_iter": max_iter, **params}))

    return build


def _fopt_extratrees(params, spec, seed, max_iter, threads):
    from sklearn.ensemble import ExtraTreesClassifier

    from fmeasure import FOptimalClassifier

    return FOptimalClassifier(ExtraTreesClassifier(random_state=seed, n_jobs=threads, **params), random_state=seed)


def _fopt_search(params, spec, seed, max_iter, threads):
    from fmeasure import FOptimalSearchCV

    return FOptimalSearchCV(cv=int(spec["cv"]), random_state=seed, n_jobs=threads, **params)


def _parametric(name):
    def build(params, spec, seed, max_iter, threads):
        from fmeasure.experiments.parametric import make_learner

        cfg = {"cv": int(spec["cv"]), "seed": seed, "standardize": False, "patience": None, **params}
        return make_learner(name, cfg, n_jobs=threads)

    return build


#: How each system of fmeasure.experiments.registry.PEER_SYSTEMS is built (the same names: a test
#: holds them equal).
BUILDERS = {
    "boomer": _boomer,
    "ewf1": _ewf1,
    "mlknn": _mlknn,
    "sklearn_br": _sklearn("br"),
    "sklearn_cc": _sklearn("cc"),
    "fopt_search": _fopt_search,
    "fopt_extratrees": _fopt_extratrees,
    "br": _parametric("BR"),
    "lfp": _parametric("LFP"),
    "efp": _parametric("EFP"),
}


def make(peer, params, spec):
    """The system's estimator with ``params`` over its defaults."""
    seed, max_iter, threads = int(spec.get("seed", 1)), int(spec.get("max_iter", 1000)), int(spec.get("threads", 1))
    if peer not in BUILDERS:
        raise SystemExit(f"peers_adapter: unknown peer {peer!r}")
    return BUILDERS[peer](params, spec, seed, max_iter, threads)


def chosen(model):
    """What a model that tunes itself chose (``best_candidate_``, ``best_params_``), its cross-validated
    score (``best_score_``) and the number of settings it compared (``n_candidates``), as JSON; for a
    search with size rules, what they cut: the routes left out with the reason (``dropped_``), the
    settings each route kept (``n_settings``) and the factor its forests' leaf size was raised by
    (``leaf_factor``, 1 when not raised)."""
    found = {k: getattr(model, k) for k in ("best_candidate_", "best_params_", "best_score_") if hasattr(model, k)}
    if hasattr(model, "cv_results_"):
        found["n_candidates"] = len(model.cv_results_["params"])
    if isinstance(getattr(model, "dropped_", None), dict):
        found["dropped_"] = dict(model.dropped_)
    candidates = getattr(model, "candidates_", None)
    if isinstance(candidates, dict):
        grids = {name: grid for name, (_, grid) in candidates.items()}
        found["n_settings"] = {name: int(np.prod([len(v) for v in g.values()])) for name, g in grids.items()}
        leaves = [min(g[k]) for g in grids.values() for k in g if k.endswith("min_samples_leaf")]
        if leaves:
            found["leaf_factor"] = int(min(leaves))
    return json.dumps(found, sort_keys=True, default=str) if found else ""


def cpu_seconds() -> float:
    """CPU seconds of this process's threads and of its finished, reaped child processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def stop_workers() -> None:
    """Stop joblib's reusable worker processes (a model's n_jobs), so that their CPU is counted."""
    if "joblib" in sys.modules:
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)


def main(request, out):
    # the systems' own log lines (FOptimalSearchCV's routes, their scores and what its size rules
    # left out) go to the caller, which writes them to the job's log
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s: %(message)s", force=True)
    z = np.load(request, allow_pickle=False)
    spec = json.loads(str(z["spec"]))
    result = {}
    for j, task in enumerate(spec["tasks"]):
        model = make(spec["peer"], task.get("params", {}), spec)
        c0, t0 = cpu_seconds(), time.perf_counter()
        model.fit(z[f"Xtr{j}"], z[f"Ytr{j}"])
        t1 = time.perf_counter()
        H = model.predict(z[f"Xev{j}"])
        t2 = time.perf_counter()
        stop_workers()
        c2 = cpu_seconds()
        H = H.toarray() if sp.issparse(H) else np.asarray(H)
        result.update({f"H{j}": (H > 0.5).astype(np.int8), f"fit_s{j}": t1 - t0, f"predict_s{j}": t2 - t1})
        result[f"cpu_s{j}"] = c2 - c0  # this process's threads and its workers, fit and predict
        result[f"chosen{j}"] = np.asarray(chosen(model))
        print(f"task {j + 1} of {len(spec['tasks'])}: fit {t1 - t0:.1f} s, predict {t2 - t1:.1f} s", flush=True)
    np.savez(out, **result)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
