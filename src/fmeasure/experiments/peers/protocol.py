"""The protocol of the peers stage: what every system is given, how it is tuned and scored, under
which budget, and the hash that names it.

Every system is run the same way: one job per (dataset, system, setting, seed); the dataset's own
train/test split; the features prepared by one rule (:func:`preprocess`); labels constant on the
training rows removed before the system sees them and predicted as that constant
(:func:`drop_constant`); logistic models with the same iteration cap (:func:`logistic_max_iter`);
the seed given to the cross-validation folds and to every stochastic model; the same CPU budget per
job (:func:`run_adapter`), a job over it recorded as a timeout. Setting ``default`` is the package's
defaults; ``tuned`` chooses a grid point by cross-validation on the training set only, then refits
on the whole training set. The datasets of at least ``peers.large.cells`` training cells (n x m) are
tuned with ``peers.large.cv`` folds and run on the first ``peers.large.seeds`` seeds, the same for
every system (:func:`dataset_protocol`).

:func:`protocol_spec` gathers the parts of the config that decide how a run is made, and
:func:`protocol_hash` names them: every run record carries that hash and the declared reference, and
the tables refuse records of another protocol.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import logging
import math
import os
import resource
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fmeasure.experiments.peers.envs import python_minor, python_version
from fmeasure.experiments.peers.systems import is_peer, kind, system_seeds, system_spec
from fmeasure.io import atomic_output

log = logging.getLogger(__name__)

__all__ = [
    "PROTOCOL_VERSION",
    "protocol_spec",
    "protocol_hash",
    "dataset_protocol",
    "BudgetExceeded",
    "logistic_max_iter",
    "preprocess",
    "drop_constant",
    "grid_points",
    "run_adapter",
    "run_peer",
    "write_run",
    "INSTANCE_COLUMNS",
]

#: The version of the stage's own rules (features, constant labels, scoring, tuning): raised when
#: the code changes how a run is made, so that the protocol hash changes with it.
PROTOCOL_VERSION = 2

#: Columns of a run's per-instance file.
INSTANCE_COLUMNS = ["dataset", "method", "setting", "seed", "instance", "f"]


# ----------------------------------------------------------------------------- the protocol and its hash


def _sha256_file(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def protocol_spec(peers_cfg: dict, root=None) -> dict:
    """The parts of the peers config that decide how every run is made: the declared reference, the
    seeds, folds, settings, threads, the budget, the cheaper protocol of the large datasets, the
    stage's own rules (:data:`PROTOCOL_VERSION`), and each system of ``peers.run`` as it runs (its
    environment with the sha256 of its pinned requirements, read under ``root``; its grid, fixed
    parameters, whether it tunes itself, whether it is stochastic). Left out: where things are
    (``env_dir``), the cluster resources, the datasets (each record names its own) and the
    analysis' settings (``margin``)."""
    root = Path(root) if root is not None else Path.cwd()
    systems = {}
    for name in sorted(peers_cfg["run"]):
        spec = system_spec(peers_cfg, name)
        entry = {k: spec[k] for k in ("env", "grid", "params", "tunes_itself", "stochastic", "kind")}
        if spec["env"] != "project":
            req = root / spec["env"]
            entry["env_sha256"] = _sha256_file(req) if req.is_file() else "missing"
        systems[name] = entry
    return {
        "version": PROTOCOL_VERSION,
        "reference": peers_cfg["reference"],
        "seeds": [int(s) for s in peers_cfg["seeds"]],
        "cv": int(peers_cfg["cv"]),
        "settings": list(peers_cfg["settings"]),
        "threads": int(peers_cfg["threads"]),
        "budget": dict(peers_cfg["budget"]),
        "large": dict(peers_cfg["large"]),
        "systems": systems,
    }


def protocol_hash(proto: dict) -> str:
    """The first 16 hex digits of the sha256 of ``proto`` written as canonical JSON (keys sorted,
    no spaces, ASCII): two configs that run the same protocol have the same hash, whatever the
    order or layout of their YAML.

    >>> protocol_hash({"b": [1, 2.5], "a": "x"}) == protocol_hash({"a": "x", "b": [1, 2.5]})
    True
    """
    text = json.dumps(proto, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def dataset_protocol(peers_cfg: dict, entry: dict | None) -> dict:
    """How one dataset is tuned: ``{"name": "full" | "large", "cv": folds, "n_seeds": seeds, "cells":
    n_train * m}`` from its catalog entry's expected counts. A dataset of at least
    ``peers.large.cells`` training cells is tuned with ``peers.large.cv`` folds and run on the first
    ``peers.large.seeds`` seeds; every system gets the same. Without counts, the full protocol."""
    expected = (entry or {}).get("expected") or {}
    cells = int(expected.get("n_train", 0)) * int(expected.get("m", 0))
    large = peers_cfg["large"]
    if large.get("cells") is not None and cells >= int(large["cells"]):
        return {"name": "large", "cv": int(large["cv"]), "n_seeds": int(large["seeds"]), "cells": cells}
    return {"name": "full", "cv": int(peers_cfg["cv"]), "n_seeds": len(peers_cfg["seeds"]), "cells": cells}


def dataset_seeds(peers_cfg: dict, name: str, tuning: dict) -> list[int]:
    """The seeds ``name`` runs on for a dataset tuned by ``tuning`` (:func:`dataset_protocol`)."""
    return system_seeds(peers_cfg, name)[: int(tuning["n_seeds"])]


__all__.append("dataset_seeds")


# ----------------------------------------------------------------------------- what every system is given


def logistic_max_iter() -> int:
    """The iteration cap of every logistic model in this stage: the one of fmeasure's tuned logistic
    models (BR, LFP, EFP: ``fit_logistic_cv``), given to the peers' ``LogisticRegression`` too."""
    from fmeasure.learners.logistic import fit_logistic_cv

    return int(inspect.signature(fit_logistic_cv).parameters["max_iter"].default)


def _indicator_columns(X) -> np.ndarray:
    """Which columns of ``X`` hold only the values 0 and 1 (on these rows)."""
    if sp.issparse(X):
        X = sp.csc_matrix(X)
        values = X.data
        bad = np.zeros(X.shape[1], dtype=bool)
        cols = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
        np.logical_or.at(bad, cols, (values != 0) & (values != 1))
        return ~bad
    X = np.asarray(X)
    return np.all((X == 0) | (X == 1), axis=0)


def preprocess(X_fit, *others):
    """The stage's one feature rule, fitted on ``X_fit`` (the rows a model is trained on).

    - a column constant on ``X_fit`` is removed: it carries no information, and some learners
      stumble on it (BOOMER 0.12.3 learns no rule on genbase, whose features include hundreds of
      constant columns, and learns as usual once they are gone); when every column is constant,
      all are kept;
    - a column whose values on ``X_fit`` are all 0 or 1 (an indicator: a word, a one-hot
      category) is left as it is: no centring, no scaling;
    - any other column is standardised with the mean and standard deviation of ``X_fit``; in a
      sparse matrix it is scaled without centring, which keeps the zeros.

    Returns dense float64 arrays ``(X_fit, *others)``.

    >>> X = np.array([[0.0, 1.0, 7.0], [1.0, 3.0, 7.0]])
    >>> [a.tolist() for a in preprocess(X, np.array([[1.0, 5.0, 2.0]]))]
    [[[0.0, -1.0], [1.0, 1.0]], [[1.0, 3.0]]]
    """
    sparse = sp.issparse(X_fit)
    indicator = _indicator_columns(X_fit)
    if sparse:
        Xf = sp.csr_matrix(X_fit, dtype=np.float64)
        mean = np.zeros(Xf.shape[1])
        sq = np.asarray(Xf.multiply(Xf).mean(axis=0)).ravel()
        m1 = np.asarray(Xf.mean(axis=0)).ravel()
        sd = np.sqrt(np.maximum(sq - m1**2, 0.0))
        lo = np.asarray(Xf.min(axis=0).toarray()).ravel()
        hi = np.asarray(Xf.max(axis=0).toarray()).ravel()
    else:
        Xf = np.asarray(X_fit, dtype=np.float64)
        mean, sd = Xf.mean(axis=0), Xf.std(axis=0)
        lo, hi = (Xf.min(axis=0), Xf.max(axis=0)) if len(Xf) else (mean, mean)
    varies = lo < hi
    keep = varies if varies.any() else np.ones_like(varies)
    mean = np.where(indicator, 0.0, mean)
    scale = np.where(indicator | (sd == 0), 1.0, sd)
    out = []
    for X in (X_fit, *others):
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        out.append(((np.asarray(X, dtype=np.float64) - mean) / scale)[:, keep])
    return tuple(out)


def drop_constant(Y):
    """``(keep, values)``: which columns of ``Y`` vary, and the value of every column (used for the
    constant ones). A model never sees a label that is constant on its training rows; it is
    predicted as that constant."""
    Y = np.asarray(Y)
    keep = Y.min(axis=0) != Y.max(axis=0)
    return keep, Y[0].astype(np.int8) if len(Y) else np.zeros(Y.shape[1], np.int8)


def grid_points(grid: dict) -> list[dict]:
    """Every combination of a parameter grid (``{name: [values]}``), in the grid's order.

    >>> grid_points({"C": [1, 10], "penalty": ["l2"]})
    [{'C': 1, 'penalty': 'l2'}, {'C': 10, 'penalty': 'l2'}]
    """
    if not grid:
        return [{}]
    names = list(grid)
    for name in names:
        if not isinstance(grid[name], (list, tuple)) or not grid[name]:
            raise ValueError(f"grid: {name!r} needs a non-empty list of values")
    return [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]


# ----------------------------------------------------------------------------- one run


class BudgetExceeded(RuntimeError):
    """A job used more than its CPU budget (or its wall-clock cap): recorded as a timeout."""

    def __init__(self, message: str, cpu_s: float, wall_s: float):
        super().__init__(message)
        self.cpu_s, self.wall_s = cpu_s, wall_s


class Budget:
    """What is left of one job's budget: ``cpu_s`` CPU seconds in all (every adapter call of the
    job: the tuning's and the final fit's), and ``wall_factor`` times that in wall seconds, a cap
    for a process that waits or computes in processes of its own. None: no budget."""

    def __init__(self, cpu_s=None, wall_factor: float = 4.0):
        self.cpu_s = None if cpu_s is None else float(cpu_s)
        self.wall_factor = float(wall_factor)
        self.used_cpu = 0.0
        self.used_wall = 0.0

    def left(self) -> float | None:
        return None if self.cpu_s is None else self.cpu_s - self.used_cpu

    def describe(self) -> str:
        return f"{self.cpu_s:g} CPU s" if self.cpu_s is not None else "no budget"


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _limit_cpu(seconds):
    """For ``preexec_fn``: the child is stopped by SIGXCPU after ``seconds`` CPU seconds."""
    soft = max(1, math.ceil(seconds))

    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))

    return apply


def run_adapter(
    python,
    adapter,
    peer: str,
    tasks: list,
    *,
    seed: int = 1,
    cv: int = 3,
    threads: int = 1,
    log_to=None,
    budget: Budget | None = None,
) -> list[dict]:
    """Run the system's adapter once for ``tasks``; return one ``{"H", "fit_s", "predict_s",
    "cpu_s", "chosen"}`` per task (``cpu_s``: the CPU seconds of the task's fit and prediction, in
    the adapter's process and the worker processes it started).

    Each task is ``(X_train, Y_train, X_eval, params)``. Constant labels and :func:`preprocess` are
    applied here, so every system gets the same inputs; the adapter also receives ``seed``, ``cv``
    (the folds of a system that tunes itself), ``threads`` and :func:`logistic_max_iter`, and runs
    with its BLAS and OpenMP pools limited to ``threads``. Its output (the system's own log lines,
    such as FOptimalSearchCV's routes and scores) goes to this module's log, and to ``log_to`` when
    given.

    ``budget`` (:class:`Budget`): the adapter is stopped when it passes what is left of the job's CPU
    seconds (``RLIMIT_CPU``) or of its wall-clock cap, and :class:`BudgetExceeded` is raised with the
    CPU and wall seconds used; the CPU of the call (the adapter and every worker it waited for) is
    added to the budget's ``used_cpu`` either way. Raises ``RuntimeError`` naming the peer and the
    adapter's last line when it fails otherwise.
    """
    arrays, consts = {}, []
    spec = {
        "peer": peer,
        "seed": int(seed),
        "cv": int(cv),
        "threads": int(threads),
        "max_iter": logistic_max_iter(),
        "tasks": [],
    }
    for j, (Xtr, Ytr, Xev, params) in enumerate(tasks):
        keep, values = drop_constant(Ytr)
        Xtr_s, Xev_s = preprocess(Xtr, Xev)
        arrays.update({f"Xtr{j}": Xtr_s, f"Ytr{j}": np.asarray(Ytr)[:, keep].astype(np.int8), f"Xev{j}": Xev_s})
        spec["tasks"].append({"params": params})
        consts.append((keep, values, Xev_s.shape[0]))
    limits = {k: str(int(threads)) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    left = budget.left() if budget is not None else None
    if left is not None and left <= 0:
        raise BudgetExceeded(f"over the budget of {budget.describe()}", budget.used_cpu, budget.used_wall)
    with tempfile.TemporaryDirectory(prefix=f"fmeasure-{peer}-") as tmp:
        req, res = Path(tmp) / "request.npz", Path(tmp) / "result.npz"
        np.savez(req, spec=np.asarray(json.dumps(spec)), **arrays)
        del arrays
        c0, t0 = _children_cpu(), time.perf_counter()
        proc = subprocess.Popen(
            [str(python), str(adapter), str(req), str(res)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, **limits},
            start_new_session=True,  # its own process group, so that a timeout stops its workers too
            preexec_fn=_limit_cpu(left) if left is not None else None,
        )
        timed_out = False
        try:
            out, _ = proc.communicate(timeout=None if left is None else budget.wall_factor * left)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        cpu, wall = _children_cpu() - c0, time.perf_counter() - t0
        for line in (out or "").splitlines():
            if line.strip():
                log.info("%s adapter: %s", peer, line)
        if log_to is not None:
            with open(log_to, "a") as fh:
                fh.write(out or "")
        if budget is not None:
            budget.used_cpu += cpu
            budget.used_wall += wall
            over_cpu = budget.cpu_s is not None and budget.used_cpu > budget.cpu_s
            killed = proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
            if timed_out or over_cpu or (killed and budget.cpu_s is not None):
                why = "wall-clock cap" if timed_out else "CPU budget"
                raise BudgetExceeded(
                    f"over the {why}: budget {budget.describe()}, used {budget.used_cpu:.0f} CPU s in "
                    f"{budget.used_wall:.0f} s",
                    budget.used_cpu,
                    budget.used_wall,
                )
        if proc.returncode != 0:
            last = [line for line in (out or "").splitlines() if line.strip()]
            raise RuntimeError(f"peer {peer}: its adapter failed: {last[-1] if last else 'no output'}")
        z = np.load(res)
        results = []
        for j, (keep, values, n) in enumerate(consts):
            H = np.tile(values, (n, 1))
            if keep.any():
                H[:, keep] = z[f"H{j}"]
            chosen = str(z[f"chosen{j}"]) if f"chosen{j}" in z.files else ""
            cpu_j = float(z[f"cpu_s{j}"]) if f"cpu_s{j}" in z.files else float("nan")
            results.append(
                {
                    "H": H,
                    "fit_s": float(z[f"fit_s{j}"]),
                    "predict_s": float(z[f"predict_s{j}"]),
                    "cpu_s": cpu_j,
                    "chosen": chosen,
                }
            )
    return results


def _f(Y, H) -> np.ndarray:
    from fmeasure.metrics import f_measure

    return np.asarray(f_measure(Y, H), dtype=float)


def run_peer(
    ds,
    peer: str,
    setting: str,
    *,
    grid: dict,
    cv: int,
    seed: int,
    python,
    adapter,
    params: dict | None = None,
    threads: int = 1,
    log_to=None,
    budget: Budget | None = None,
):
    """Fit ``peer`` on ``ds``'s training part in ``setting`` and predict its test part.

    ``params`` are keyword arguments given in every setting (under the grid point); ``tuned``
    cross-validates the points of ``grid`` on the training set (``cv`` folds shuffled with
    ``seed``; a grid of one point is taken without cross-validation) and refits the best.

    Returns ``(record, instances)``: the record has ``dataset, method, source, kind, setting, seed,
    status, params, chosen, f, fit_s, predict_s, tuning_s, cpu_s, cv_f, n_candidates,
    mean_set_size``; ``cpu_s`` is the CPU seconds of every fit and prediction of the run (the
    tuning's and the final one's), the budget it used; ``instances`` the per-instance F (in %) on
    the test set. ``cv_f`` is the chosen grid point's cross-validated F (in %) and ``n_candidates``
    the number of grid points; for a system that tunes itself (one grid point, a ``best_score_`` in
    what it chose), its own cross-validated F and the number of settings it compared.

    Under a ``budget``, the tuning tries the grid points in the grid's order, each with at most half of
    what is left of the budget (the rest is kept for the later points and the final fit); a point
    stopped there ends the tuning, the best point finished is refitted, and the points not tried are
    recorded (``unfinished``; ``n_candidates`` counts the points tried). A run over its budget
    otherwise (no grid point finished, or the final fit) returns ``status`` "timeout", with the CPU
    and wall seconds it used and no per-instance scores.
    """
    from sklearn.model_selection import KFold

    if setting not in ("default", "tuned"):
        raise ValueError(f"setting: expected 'default' or 'tuned', got {setting!r}")
    fixed = dict(params or {})
    Xtr, Ytr = ds.X_train, np.asarray(ds.Y_train)
    best, cv_f, tuning_s, tuning_cpu, points, unfinished = {}, float("nan"), 0.0, 0.0, [{}], []
    run = {"seed": seed, "cv": cv, "threads": threads, "log_to": log_to, "budget": budget}
    base = {"dataset": ds.name, "method": peer, "source": "peer" if is_peer(peer) else "ours", "kind": kind(peer)}
    base |= {"setting": setting, "seed": int(seed)}
    if setting == "tuned":
        points = grid_points(grid)
    stage = "the tuning"
    try:
        if len(points) > 1:
            folds = list(KFold(n_splits=cv, shuffle=True, random_state=seed).split(np.arange(len(Ytr))))
            log.info("%s on %s: tuning %d grid points x %d folds", peer, ds.name, len(points), cv)
            t0 = time.perf_counter()
            scores, tried = [], []
            for p in points:
                tasks = [(Xtr[a], Ytr[a], Xtr[b], {**fixed, **p}) for a, b in folds]
                # under a budget, a grid point may use half of what is left: the rest is kept for the
                # later points and the final fit; a point stopped there ends the tuning (the grid
                # lists its cheap settings first), and the best point finished is refitted
                part = None if budget is None or budget.cpu_s is None else Budget(budget.left() / 2, budget.wall_factor)
                try:
                    res = run_adapter(python, adapter, peer, tasks, **{**run, "budget": part or budget})
                except BudgetExceeded:
                    if part is None or not tried:
                        raise
                    unfinished.append(p)
                    break
                finally:
                    if part is not None:
                        budget.used_cpu += part.used_cpu
                        budget.used_wall += part.used_wall
                tuning_cpu += float(sum(r["cpu_s"] for r in res))
                fs = [_f(Ytr[b], r["H"]) for r, (_, b) in zip(res, folds)]
                scores.append(100.0 * float(np.concatenate(fs).mean()))
                tried.append(p)
            tuning_s = time.perf_counter() - t0
            unfinished += points[len(tried) + len(unfinished) :]
            i_best = int(np.argmax(scores))  # first maximum: the earliest grid point on ties
            best, cv_f = tried[i_best], scores[i_best]
            log.info("%s on %s: chose %s (cross-validated F %.2f)", peer, ds.name, best, cv_f)
            if unfinished:
                log.warning("%s on %s: grid points not tried within the budget: %s", peer, ds.name, unfinished)
        else:
            best = points[0]
        stage = "the final fit"
        (final,) = run_adapter(python, adapter, peer, [(Xtr, Ytr, ds.X_test, {**fixed, **best})], **run)
    except BudgetExceeded as exc:
        log.warning("%s on %s, seed %s: timeout during %s (%s)", peer, ds.name, seed, stage, exc)
        record = base | {"status": "timeout", "reason": f"timeout during {stage}: {exc}"}
        used = (budget.used_cpu, budget.used_wall) if budget is not None else (exc.cpu_s, exc.wall_s)
        record |= {"cpu_s": used[0], "wall_s": used[1], "params": json.dumps(best, sort_keys=True), "chosen": ""}
        return record, pd.DataFrame(columns=INSTANCE_COLUMNS)
    f = 100.0 * _f(ds.Y_test, final["H"])
    n_candidates = len(points) - len(unfinished)
    if len(points) == 1 and final["chosen"]:  # a system that tunes itself: its own CV score and count
        own = json.loads(final["chosen"])
        cv_f = 100.0 * float(own["best_score_"]) if "best_score_" in own else cv_f
        n_candidates = int(own.get("n_candidates", n_candidates))
    record = base | {
        "status": "ran",
        "params": json.dumps(best, sort_keys=True),
        "chosen": final["chosen"],
        "f": float(f.mean()),
        "fit_s": final["fit_s"],
        "predict_s": final["predict_s"],
        "tuning_s": tuning_s,
        "cpu_s": tuning_cpu + final["cpu_s"],
        "cv_f": cv_f,
        "n_candidates": n_candidates,
        "mean_set_size": float(final["H"].sum(axis=1).mean()),
        "unfinished": json.dumps(unfinished, sort_keys=True) if unfinished else "",
    }
    if budget is not None:
        record["wall_s"] = budget.used_wall
    inst = pd.DataFrame(
        {
            "dataset": ds.name,
            "method": peer,
            "setting": setting,
            "seed": int(seed),
            "instance": np.arange(len(f)),
            "f": f,
        }
    )
    return record, inst


def write_run(
    ds,
    peer,
    setting,
    *,
    grid,
    cv,
    seed,
    python,
    adapter,
    record_path,
    instances_path,
    params=None,
    threads=1,
    env=None,
    log_to=None,
    protocol: dict | None = None,
    budget: dict | None = None,
):
    """:func:`run_peer`, written atomically: the record (JSON) and the per-instance scores (CSV).

    ``protocol`` is ``{"hash", "reference", "tuning"}``: the protocol hash (:func:`protocol_hash`),
    the declared reference and the dataset's tuning (:func:`dataset_protocol`), written into the
    record so that the tables can refuse records of another protocol. ``budget`` is
    ``{"cpu_s", "wall_factor"}`` (None: no budget).

    ``env`` is the build record of the peer's own environment (None: the project's). When its
    status is not "ok" (the build was refused), the run is not made: the record says ``status``
    "not run" with the reason, and the instances file has no rows. When it is "ok", the
    environment's Python must still be one of the versions it was built for.
    """
    started = time.time()
    stamp = {}
    if protocol is not None:
        stamp = {"protocol": protocol["hash"], "reference": protocol["reference"], "tuning": protocol["tuning"]}
    if env is not None and env.get("status") != "ok":
        reason = env.get("reason", "its environment was not built")
        record = {"dataset": ds.name, "method": peer, "source": "peer" if is_peer(peer) else "ours"}
        record |= {"kind": kind(peer), "setting": setting, "seed": int(seed), "status": "not run", "reason": reason}
        inst = pd.DataFrame(columns=INSTANCE_COLUMNS)
    else:
        if not Path(python).exists():
            raise FileNotFoundError(f"{python}: the peer's environment is missing (rerun its peers_env job)")
        if env is not None:
            found = python_version(python)
            if python_minor(found or "") not in env["python_needs"]:
                raise RuntimeError(
                    f"peer {peer}: its environment runs Python {found}, built for {' or '.join(env['python_needs'])}"
                    " (rerun its peers_env job)"
                )
        record, inst = run_peer(
            ds,
            peer,
            setting,
            grid=grid,
            params=params,
            cv=cv,
            seed=seed,
            threads=threads,
            python=python,
            adapter=adapter,
            log_to=log_to,
            budget=Budget(**budget) if budget else None,
        )
        if env is not None:
            record["python"] = env.get("python", "")
    record = {**record, **stamp, "started": started, "finished": time.time()}
    if budget:
        record["budget_cpu_s"] = budget.get("cpu_s")
    with atomic_output(instances_path, suffix=".csv.gz") as tmp:
        inst.to_csv(tmp, index=False)
    with atomic_output(record_path) as tmp:
        tmp.write_text(json.dumps(record, indent=1))
    return record
