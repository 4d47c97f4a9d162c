"""Benchmark RML's two solvers on a real dataset: block-coordinate Frank-Wolfe against the 1-slack
cutting-plane method, in the same run on the same data.

1. The C path: every C of the grid (the pipeline's, ``config/config.yaml`` key ``structured``)
   solved on the whole training set in ascending order, each warm-started from the previous one,
   by both solvers to the same duality-gap tolerance. Per C: iterations (passes over the data for
   ``bcfw``, planes added for ``cutting_plane``), oracle calls (loss-augmented inference on every
   training example counts one), CPU seconds, the gap reached, the primal objective of both, and
   the test F of each solution (each label's score thresholded at 0). The ratios are old / new.
2. ``--fit``: the whole tuned training of :class:`fmeasure.learners.FMeasureSSVM` as the pipeline
   configures it (CV over the grid, patience, grid extension, refit at ``refit_tol``), in this
   process (no fold workers): chosen C, mean CV F per C, test F, CPU seconds.

The data come from the MULAN files of a mirror folder (``--mirror``, default the folder named by
``FMEASURE_DATA_MIRROR``), verified against the catalog's sha256, parsed and cached under ``--data``.

    PYTHONPATH=src python benchmarks/bench_ssvm_solvers.py --dataset scene --fit
    PYTHONPATH=src python benchmarks/bench_ssvm_solvers.py --dataset yeast --tol 1e-4
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import yaml

from fmeasure.datasets import fetch_file, load, load_catalog, parse, save
from fmeasure.experiments.structured import make_rml
from fmeasure.learners._cutting_plane import one_slack
from fmeasure.learners.ssvm import bcfw
from fmeasure.metrics import f_measure

ROOT = Path(__file__).resolve().parents[1]


def with_bias(X):
    """X and a constant column of ones (the solvers' bias feature)."""
    return np.hstack([np.asarray(X, dtype=np.float64), np.ones((X.shape[0], 1))])


def dataset(name, mirror, data):
    cache = Path(data) / f"{name}.npz"
    if cache.exists():
        return load(cache)
    entry = load_catalog()[name]
    raw = Path(data) / name
    raw.mkdir(parents=True, exist_ok=True)
    for f in entry["files"].values():
        fetch_file(raw / f["name"], sha256=f["sha256"], mirrors=[mirror], subdir=name)
    ds = parse(name, entry, raw)
    save(ds, cache)
    return ds


def test_f(ds, W):
    Xa = with_bias(ds.X_test)
    return 100.0 * float(np.mean(f_measure(ds.Y_test, (np.asarray(Xa @ W) > 0).astype(np.int8))))


def path(ds, Cs, solver, tol, max_iter, batch_size, seed):
    """The warm-started path of one solver: one dict per C."""
    Xa, Y = with_bias(ds.X_train), ds.Y_train
    out, init = [], None
    for i, C in enumerate(sorted(Cs)):
        c0 = time.process_time()
        if solver == "bcfw":
            rs = np.random.SeedSequence([seed, i])
            res = bcfw(Xa, Y, C, tol=tol, max_iter=max_iter, batch_size=batch_size, random_state=rs, init=init)
            init = (res["A"], res["ell"])
            # one oracle call on every example per pass, and one per exact gap (the start's included)
            calls = res["n_iter"] + int(np.count_nonzero(np.isfinite(res["gap_history"])))
        else:
            res = one_slack(Xa, Y, C, tol=tol, max_iter=max_iter, init=init)
            init = res["planes"]
            calls = res["oracle_calls"]
        cpu = time.process_time() - c0
        out.append(
            dict(
                C=C,
                iters=res["n_iter"],
                calls=calls,
                cpu=cpu,
                gap=res["gap"],
                primal=res["primal"],
                stopped=res["stopped_by"],
                f=test_f(ds, res["W"]),
            )
        )
    return out


def ratio(a, b):
    return a / b if b > 0 else float("inf")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="scene")
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--mirror", default=os.environ.get("FMEASURE_DATA_MIRROR"), help="default: $FMEASURE_DATA_MIRROR")
    ap.add_argument("--data", default="/tmp/fmeasure-bench-data", help="cache of the parsed data")
    ap.add_argument("--tol", type=float, default=None, help="duality-gap tolerance (default: the config's tol)")
    ap.add_argument("--Cs", type=float, nargs="*", default=None, help="default: the config's grid")
    ap.add_argument("--fit", action="store_true", help="also the tuned fit of FMeasureSSVM, both solvers")
    args = ap.parse_args()
    if not args.mirror:
        ap.error("--mirror: a folder of the MULAN files is needed (or set FMEASURE_DATA_MIRROR)")
    config = yaml.safe_load(open(args.config))
    cfg = config["structured"]
    tol = float(cfg["tol"]) if args.tol is None else args.tol
    Cs = [float(c) for c in (cfg["Cs"] if args.Cs is None else args.Cs)]
    ds = dataset(args.dataset, args.mirror, args.data)
    print(
        f"{args.dataset}: {ds.X_train.shape[0]} x {ds.X_train.shape[1]} training, {ds.Y_train.shape[1]} labels, "
        f"{ds.X_test.shape[0]} test; tol {tol:g}"
    )
    kw = dict(tol=tol, max_iter=int(cfg["max_iter"]), batch_size=int(cfg["batch_size"]), seed=int(cfg["seed"]))
    old = path(ds, Cs, "bcfw", **kw)
    new = path(ds, Cs, "cutting_plane", **kw)
    print("C path on the whole training set, warm-started; old = bcfw, new = cutting_plane (ratio old / new)")
    print(
        f"{'C':>7} | {'iters old':>9} {'new':>5} {'ratio':>7} | {'oracle old':>10} {'new':>5} {'ratio':>6} | "
        f"{'CPU s old':>9} {'new':>6} {'ratio':>6} | {'gap old':>8} {'new':>8} | {'P new-old':>9} | "
        f"{'F old':>6} {'new':>6}"
    )
    tot = dict(iters=[0, 0], calls=[0, 0], cpu=[0.0, 0.0])
    for a, b in zip(old, new):
        for k in tot:
            tot[k][0] += a[k]
            tot[k][1] += b[k]
        flag = "" if a["stopped"] == b["stopped"] == "tol" else f"  stopped: {a['stopped']} / {b['stopped']}"
        print(
            f"{a['C']:7g} | {a['iters']:9d} {b['iters']:5d} {ratio(a['iters'], b['iters']):7.1f} | "
            f"{a['calls']:10d} {b['calls']:5d} {ratio(a['calls'], b['calls']):6.1f} | "
            f"{a['cpu']:9.2f} {b['cpu']:6.2f} {ratio(a['cpu'], b['cpu']):6.1f} | "
            f"{a['gap']:8.1e} {b['gap']:8.1e} | {b['primal'] - a['primal']:9.1e} | {a['f']:6.2f} {b['f']:6.2f}{flag}"
        )
    print(
        f"{'total':>7} | {tot['iters'][0]:9d} {tot['iters'][1]:5d} {ratio(*tot['iters']):7.1f} | "
        f"{tot['calls'][0]:10d} {tot['calls'][1]:5d} {ratio(*tot['calls']):6.1f} | "
        f"{tot['cpu'][0]:9.2f} {tot['cpu'][1]:6.2f} {ratio(*tot['cpu']):6.1f}"
    )
    if not args.fit:
        return
    print("Tuned fit of FMeasureSSVM as the pipeline configures it (fold fits in this process)")
    fits = {}
    for solver in ("bcfw", "cutting_plane"):
        model = make_rml(cfg, n_jobs=1).set_params(solver=solver)
        c0 = time.process_time()
        model.fit(ds.X_train, ds.Y_train)
        cpu = time.process_time() - c0
        f = 100.0 * float(np.mean(f_measure(ds.Y_test, model.predict(ds.X_test))))
        fits[solver] = (cpu, f, model.C_)
        print(
            f"  {solver:>13}: C = {model.C_:g}, test F {f:.2f}, CPU {cpu:.1f} s, refit gap {model.duality_gap_:.1e} "
            f"({model.stopped_by_}), largest fold gap {model.cv_gaps_.max():.1e}; mean CV F per C: "
            + ", ".join(f"{C:g}: {100 * s:.2f}" for C, s in zip(model.Cs_, model.cv_scores_))
        )
    (c_old, f_old, C_old), (c_new, f_new, C_new) = fits["bcfw"], fits["cutting_plane"]
    print(
        f"  CPU ratio old / new {ratio(c_old, c_new):.1f}; same C: {C_old == C_new}; "
        f"test F new - old {f_new - f_old:+.2f} points"
    )


if __name__ == "__main__":
    main()
