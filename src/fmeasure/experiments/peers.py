"""Stage ``peers``: today's public multi-label F-maximizers beside ours, under one protocol.

The systems (config ``peers.peers``) are public packages a user reaches for, and routes of ours:

- ``boomer``: BOOMER, gradient-boosted multi-label rules (``mlrl-boomer``), predicting with GFM;
- ``ewf1``: ``example-wise-f1-maximizer`` with LogisticRegression (m^2 + 1 binary models, then GFM
  over label sets no larger than the largest training label count);
- ``mlknn``: scikit-multilearn's MLkNN;
- ``sklearn_br`` / ``sklearn_cc``: scikit-learn's ``MultiOutputClassifier(LogisticRegression())``
  and ``ClassifierChain(LogisticRegression())``, thresholding at 0.5;
- ours (:data:`OURS_TITLES`): ``fopt_search`` (``FOptimalSearchCV``: GFM over candidate models
  chosen by its own cross-validation on the training set), ``fopt_extratrees``
  (``FOptimalClassifier(ExtraTreesClassifier())``) and the paper's ``br``, ``lfp`` and ``efp``.

One route of ours, ``peers.reference``, is declared in the config before any test score exists;
every row of the table is compared with it, and it alone speaks for "ours" in the findings. No
choice anywhere in the stage looks at a test score.

Every system is run the same way: one job per (dataset, system, setting, seed); the dataset's own
train/test split; the features prepared by one rule (:func:`preprocess`); labels constant on the
training rows removed before the system sees them and predicted as that constant
(:func:`drop_constant`); logistic models with the same iteration cap (:func:`logistic_max_iter`);
the seed given to the cross-validation folds and to every stochastic model. Setting ``default`` is
the package's defaults; ``tuned`` chooses a grid point (config ``peers.peers.<name>.grid``) by
``cv``-fold cross-validation on the training set only, then refits on the whole training set. A
system that tunes itself (``tunes_itself``: its own cross-validation on the training set) has one
setting, ``tuned``.

A peer whose requirements cannot share the project's environment runs in its own virtual
environment, built once from pinned requirements (``envs/peers/<peer>.txt``) with a Python it
supports (:func:`build_env`); when no such Python is found, the build is refused in one line and
the peer's rows are marked not run. The data go to every system as files and the predictions come
back as files, through ``workflow/scripts/peers_adapter.py`` (:func:`run_adapter`).

The table (:func:`run_table`) averages each row's per-instance test F over the seeds and compares it
with the reference's (paired bootstrap over test instances, Holm over the comparisons of each
dataset); :func:`run_ranks` ranks the systems over the datasets (Friedman, Nemenyi, Holm against
the reference: :mod:`fmeasure.experiments.comparisons`).

:func:`capped_gfm` and :func:`capped_losses` show what the capped search of ``ewf1`` costs against
the exact GFM on given P matrices.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fmeasure.io import atomic_output

log = logging.getLogger(__name__)

__all__ = [
    "PEER_TITLES",
    "OURS_TITLES",
    "title",
    "is_peer",
    "system_settings",
    "system_seeds",
    "check_config",
    "ENV_RECORD",
    "EnvRefused",
    "find_python",
    "build_env",
    "env_python",
    "python_version",
    "logistic_max_iter",
    "preprocess",
    "drop_constant",
    "grid_points",
    "run_adapter",
    "run_peer",
    "write_run",
    "read_runs",
    "run_table",
    "write_table",
    "write_by_dataset",
    "write_figure",
    "run_ranks",
    "write_ranks",
    "run_findings",
    "write_findings",
    "analysis",
    "capped_gfm",
    "capped_losses",
    "run_exactness",
    "write_exactness",
]

#: How the report names each peer (a public package's model).
PEER_TITLES = {
    "boomer": "BOOMER (GFM)",
    "ewf1": "example-wise-f1-maximizer (LogisticRegression)",
    "mlknn": "MLkNN (scikit-multilearn)",
    "sklearn_br": "MultiOutputClassifier(LogisticRegression), 0.5",
    "sklearn_cc": "ClassifierChain(LogisticRegression), 0.5",
}

#: Routes of ours run through the same protocol (in the project's environment), and their names.
OURS_TITLES = {
    "fopt_search": "FOptimalSearchCV (GFM, candidate chosen by CV)",
    "fopt_extratrees": "FOptimalClassifier(ExtraTrees), GFM",
    "br": "BR (paper): logistic per label, 0.5",
    "lfp": "LFP (paper): Ye et al.'s F-maximizer on BR",
    "efp": "EFP (paper): GFM on multinomial P",
}


def title(method: str) -> str:
    """How the tables and figures name ``method``."""
    return PEER_TITLES.get(method) or OURS_TITLES.get(method) or method


def is_peer(method: str) -> bool:
    """True for a public package's model, False for a route of ours."""
    return method in PEER_TITLES


def system_settings(peers_cfg: dict, name: str) -> list[str]:
    """The settings ``name`` runs in: the stage's ``settings``, or ``["tuned"]`` alone for a system
    that tunes itself (its default and tuned settings are the same fit)."""
    if peers_cfg["peers"][name].get("tunes_itself", False):
        return ["tuned"]
    return list(peers_cfg["settings"])


def system_seeds(peers_cfg: dict, name: str) -> list[int]:
    """The seeds ``name`` runs on: every seed of ``peers.seeds`` for a stochastic system, the first
    alone for one whose fit draws no random numbers (``stochastic: false``), where another seed would
    only move the folds of its tuning."""
    seeds = [int(s) for s in peers_cfg["seeds"]]
    return seeds if peers_cfg["peers"][name].get("stochastic", True) else seeds[:1]


def check_config(peers_cfg: dict, run: list[str]) -> None:
    """Check what the schema cannot: every system run is defined, the reference is a route of ours
    that runs, and every peer with its own environment says which Python it needs. Raises
    :class:`fmeasure.experiments.config.ConfigError` with one line naming the key."""
    from fmeasure.experiments.config import ConfigError

    for name in run:
        if name not in peers_cfg["peers"]:
            raise ConfigError(f"config key 'peers.run': {name!r} is not defined under peers.peers")
    ref = peers_cfg["reference"]
    if ref not in run:
        raise ConfigError(f"config key 'peers.reference': {ref!r} is not in peers.run {run}")
    if is_peer(ref):
        raise ConfigError(f"config key 'peers.reference': {ref!r} is a peer; the reference is a route of ours")
    for name in run:
        spec = peers_cfg["peers"][name]
        if spec["env"] != "project" and not spec.get("python"):
            raise ConfigError(f"config key 'peers.peers.{name}.python': the Python versions its environment needs")
    if len(set(peers_cfg["seeds"])) != len(peers_cfg["seeds"]):
        raise ConfigError(f"config key 'peers.seeds': duplicate seeds in {peers_cfg['seeds']}")


#: The record a built environment keeps in its own folder (what was installed, from which file).
ENV_RECORD = "fmeasure-env.json"


# ----------------------------------------------------------------------------- environments


class EnvRefused(RuntimeError):
    """A peer's environment cannot be built here (no Python it supports); its rows are not run."""


def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def env_python(prefix) -> Path:
    """The Python interpreter of the virtual environment at ``prefix``."""
    return Path(prefix) / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def python_version(executable) -> str | None:
    """The full version (``3.11.7``) of the Python ``executable``, or None when it does not run."""
    try:
        out = subprocess.run(
            [str(executable), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _minor(version: str) -> str:
    return ".".join(str(version).split(".")[:2])


def find_python(versions) -> tuple[str, str] | None:
    """``(executable, version)`` of a Python whose ``X.Y`` is one of ``versions``: the running
    interpreter if it is one, else the first ``pythonX.Y`` on the PATH (in the order of
    ``versions``) that runs. None when there is none."""
    versions = [str(v) for v in versions]
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if here in versions:
        return sys.executable, ".".join(map(str, sys.version_info[:3]))
    for v in versions:
        exe = shutil.which(f"python{v}")
        found = python_version(exe) if exe else None
        if found and _minor(found) == v:
            return exe, found
    return None


def build_env(requirements, prefix, *, python_versions, peer: str = "", log_file=None) -> dict:
    """Build (or reuse) a virtual environment at ``prefix`` from a pinned ``requirements`` file,
    with a Python whose ``X.Y`` is one of ``python_versions``.

    The environment is reused when it was built from a file with the same content (sha256) and its
    Python is one of ``python_versions``. A new one is built beside ``prefix`` with the interpreter
    :func:`find_python` finds and moved into place only when pip succeeded, so a failed build leaves
    nothing behind. Returns the record: ``status`` ("ok"), ``requirements``, ``sha256``, ``python``
    (the environment's version), ``python_needs``, ``interpreter`` (what built it), ``build_s``
    (seconds of this build; 0 when reused), ``reused`` and ``packages`` (``pip freeze``).

    Raises :class:`EnvRefused` (one line naming ``peer`` and the versions it needs) when no such
    Python is found, and ``RuntimeError`` with pip's last line, naming the requirements file, when
    pip fails.
    """
    requirements, prefix = Path(requirements), Path(prefix)
    needs = [str(v) for v in python_versions]
    if not needs:
        raise ValueError("python_versions: name at least one Python version (X.Y)")
    if not requirements.is_file():
        raise FileNotFoundError(f"{requirements}: no such requirements file")
    sha = _sha256(requirements)
    record_path = prefix / ENV_RECORD
    if record_path.is_file() and env_python(prefix).exists():
        old = json.loads(record_path.read_text())
        if old.get("sha256") == sha and _minor(python_version(env_python(prefix)) or "") in needs:
            return {**old, "python_needs": needs, "build_s": 0.0, "reused": True}
    found = find_python(needs)
    if found is None:
        here = ".".join(map(str, sys.version_info[:3]))
        names = ", ".join(f"python{v}" for v in needs)
        raise EnvRefused(
            f"peer {peer or requirements.stem}: needs Python {' or '.join(needs)} for {requirements.name}; "
            f"this interpreter is {here} and none of {names} is on the PATH"
        )
    interpreter, version = found
    partial = prefix.with_name(prefix.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    made = subprocess.run([interpreter, "-m", "venv", "--clear", str(partial)], capture_output=True, text=True)
    if made.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        last = [line for line in (made.stderr or made.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"{interpreter} -m venv failed: {last[-1] if last else 'no output'}")
    py = env_python(partial)
    out = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "-q", "-r", str(requirements)],
        capture_output=True,
        text=True,
    )
    if log_file is not None:
        Path(log_file).write_text(out.stdout + out.stderr)
    if out.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        last = [line for line in (out.stderr or out.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"{requirements}: pip install failed: {last[-1] if last else 'no output'}")
    freeze = subprocess.run([str(py), "-m", "pip", "freeze"], capture_output=True, text=True, check=True).stdout
    record = {
        "status": "ok",
        "requirements": str(requirements),
        "sha256": sha,
        "python": python_version(py) or version,
        "python_needs": needs,
        "interpreter": str(interpreter),
        "build_s": time.perf_counter() - t0,
        "reused": False,
        "packages": freeze.split(),
    }
    (partial / ENV_RECORD).write_text(json.dumps(record, indent=1))
    shutil.rmtree(prefix, ignore_errors=True)
    partial.rename(prefix)  # only the interpreter is called afterwards, never the scripts pip wrote
    return record


# ----------------------------------------------------------------------------- protocol


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


def run_adapter(
    python, adapter, peer: str, tasks: list, *, seed: int = 1, cv: int = 3, threads: int = 1, log_to=None
) -> list[dict]:
    """Run the system's adapter once for ``tasks``; return one ``{"H", "fit_s", "predict_s",
    "cpu_s", "chosen"}`` per task (``cpu_s``: the CPU seconds of the task's fit and prediction, in
    the adapter's process and the worker processes it started).

    Each task is ``(X_train, Y_train, X_eval, params)``. Constant labels and :func:`preprocess` are
    applied here, so every system gets the same inputs; the adapter also receives ``seed``, ``cv``
    (the folds of a system that tunes itself), ``threads`` and :func:`logistic_max_iter`, and runs
    with its BLAS and OpenMP pools limited to ``threads``. Raises ``RuntimeError`` naming the peer
    and the adapter's last line when it fails.
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
    with tempfile.TemporaryDirectory(prefix=f"fmeasure-{peer}-") as tmp:
        req, res = Path(tmp) / "request.npz", Path(tmp) / "result.npz"
        np.savez(req, spec=np.asarray(json.dumps(spec)), **arrays)
        del arrays
        out = subprocess.run(
            [str(python), str(adapter), str(req), str(res)],
            capture_output=True,
            text=True,
            env={**os.environ, **limits},
        )
        if log_to is not None:
            with open(log_to, "a") as fh:
                fh.write(out.stdout + out.stderr)
        if out.returncode != 0:
            last = [line for line in (out.stderr or out.stdout).splitlines() if line.strip()]
            raise RuntimeError(f"peer {peer}: its adapter failed: {last[-1] if last else 'no output'}")
        z = np.load(res)
        results = []
        for j, (keep, values, n) in enumerate(consts):
            H = np.tile(values, (n, 1))
            if keep.any():
                H[:, keep] = z[f"H{j}"]
            chosen = str(z[f"chosen{j}"]) if f"chosen{j}" in z.files else ""
            cpu = float(z[f"cpu_s{j}"]) if f"cpu_s{j}" in z.files else float("nan")
            results.append(
                {
                    "H": H,
                    "fit_s": float(z[f"fit_s{j}"]),
                    "predict_s": float(z[f"predict_s{j}"]),
                    "cpu_s": cpu,
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
):
    """Fit ``peer`` on ``ds``'s training part in ``setting`` and predict its test part.

    ``params`` are keyword arguments given in every setting (under the grid point); ``tuned``
    cross-validates the points of ``grid`` on the training set (``cv`` folds shuffled with
    ``seed``; a grid of one point is taken without cross-validation) and refits the best.

    Returns ``(record, instances)``: the record has ``dataset, method, source, setting, seed,
    status, params, chosen, f, fit_s, predict_s, tuning_s, cpu_s, cv_f, n_candidates,
    mean_set_size``; ``cpu_s`` is the CPU seconds of every fit and prediction of the run (the
    tuning's and the final one's), the budget it used;
    ``instances`` the per-instance F (in %) on the test set. ``cv_f`` is the chosen grid point's
    cross-validated F (in %) and ``n_candidates`` the number of grid points; for a system that tunes
    itself (one grid point, a ``best_score_`` in what it chose), its own cross-validated F and the
    number of settings it compared.
    """
    from sklearn.model_selection import KFold

    if setting not in ("default", "tuned"):
        raise ValueError(f"setting: expected 'default' or 'tuned', got {setting!r}")
    fixed = dict(params or {})
    Xtr, Ytr = ds.X_train, np.asarray(ds.Y_train)
    best, cv_f, tuning_s, tuning_cpu, points = {}, float("nan"), 0.0, 0.0, [{}]
    run = {"seed": seed, "cv": cv, "threads": threads, "log_to": log_to}
    if setting == "tuned":
        points = grid_points(grid)
    if len(points) > 1:
        folds = list(KFold(n_splits=cv, shuffle=True, random_state=seed).split(np.arange(len(Ytr))))
        tasks = [(Xtr[a], Ytr[a], Xtr[b], {**fixed, **p}) for p in points for a, b in folds]
        log.info("%s on %s: tuning %d grid points x %d folds", peer, ds.name, len(points), cv)
        t0 = time.perf_counter()
        res = run_adapter(python, adapter, peer, tasks, **run)
        tuning_s = time.perf_counter() - t0
        tuning_cpu = float(sum(r["cpu_s"] for r in res))
        scores = []
        for i, _ in enumerate(points):
            fs = [_f(Ytr[b], res[i * cv + k]["H"]) for k, (_, b) in enumerate(folds)]
            scores.append(100.0 * float(np.concatenate(fs).mean()))
        i_best = int(np.argmax(scores))  # first maximum: the earliest grid point on ties
        best, cv_f = points[i_best], scores[i_best]
        log.info("%s on %s: chose %s (cross-validated F %.2f)", peer, ds.name, best, cv_f)
    else:
        best = points[0]
    (final,) = run_adapter(python, adapter, peer, [(Xtr, Ytr, ds.X_test, {**fixed, **best})], **run)
    f = 100.0 * _f(ds.Y_test, final["H"])
    n_candidates = len(points)
    if len(points) == 1 and final["chosen"]:  # a system that tunes itself: its own CV score and count
        own = json.loads(final["chosen"])
        cv_f = 100.0 * float(own["best_score_"]) if "best_score_" in own else cv_f
        n_candidates = int(own.get("n_candidates", n_candidates))
    record = {
        "dataset": ds.name,
        "method": peer,
        "source": "peer" if is_peer(peer) else "ours",
        "setting": setting,
        "seed": int(seed),
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
    }
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
):
    """:func:`run_peer`, written atomically: the record (JSON) and the per-instance scores (CSV).

    ``env`` is the build record of the peer's own environment (None: the project's). When its
    status is not "ok" (the build was refused), the run is not made: the record says ``status``
    "not run" with the reason, and the instances file has no rows. When it is "ok", the
    environment's Python must still be one of the versions it was built for.
    """
    if env is not None and env.get("status") != "ok":
        reason = env.get("reason", "its environment was not built")
        record = {"dataset": ds.name, "method": peer, "source": "peer" if is_peer(peer) else "ours"}
        record |= {"setting": setting, "seed": int(seed), "status": "not run", "reason": reason}
        inst = pd.DataFrame(columns=["dataset", "method", "setting", "seed", "instance", "f"])
    else:
        if not Path(python).exists():
            raise FileNotFoundError(f"{python}: the peer's environment is missing (rerun its peers_env job)")
        if env is not None:
            found = python_version(python)
            if _minor(found or "") not in env["python_needs"]:
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
        )
        if env is not None:
            record["python"] = env.get("python", "")
    with atomic_output(instances_path, suffix=".csv.gz") as tmp:
        inst.to_csv(tmp, index=False)
    with atomic_output(record_path) as tmp:
        tmp.write_text(json.dumps(record, indent=1))
    return record


# ----------------------------------------------------------------------------- table


def read_runs(record_paths, instance_paths) -> tuple[list[dict], pd.DataFrame]:
    """The run records (JSON) and the per-instance scores of every run, concatenated."""
    records = [json.loads(Path(p).read_text()) for p in record_paths]
    frames = [pd.read_csv(p) for p in instance_paths]
    frames = [f for f in frames if len(f)]
    cols = ["dataset", "method", "setting", "seed", "instance", "f"]
    inst = pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)
    return records, inst


def _joined(values) -> str:
    """One value when every seed gave the same (a chosen grid point), else each seed's."""
    values = [(s, str(v)) for s, v in values if isinstance(v, str) and v]
    distinct = list(dict.fromkeys(v for _, v in values))
    if len(distinct) <= 1:
        return distinct[0] if distinct else ""
    return "; ".join(f"seed {s}: {v}" for s, v in values)


#: Columns of ``results/tables/peers.csv``, in order.
TABLE_COLUMNS = [
    "dataset",
    "method",
    "source",
    "setting",
    "reference",
    "status",
    "n_seeds",
    "f",
    "f_sd",
    "se",
    "diff_to_reference",
    "diff_se",
    "p_holm",
    "vs_reference",
    "fit_s",
    "predict_s",
    "tuning_s",
    "cpu_s",
    "mean_set_size",
    "params",
    "chosen",
]


def run_table(records, instances: pd.DataFrame, *, reference: str, z: float = 2.0, n_boot: int = 1000, seed: int = 0):
    """One row per (dataset, method, setting), each compared with the reference on its dataset.

    Per row, the per-instance test F is averaged over the seeds the row ran on (every seed of the
    stage for a stochastic system, the first for a deterministic one: :func:`system_seeds`; every row
    of a dataset must cover the same test instances). ``f`` is that average's mean (the mean of the
    seeds' F), ``f_sd`` the standard deviation of the seeds' F (NaN for one seed), ``se`` the standard
    error of ``f`` over test instances;
    ``diff_to_reference`` the row's ``f`` minus the reference's and ``diff_se`` the paired-bootstrap
    SE of that difference over test instances (``n_boot`` resamplings, the same for every row);
    ``p_holm`` its two-sided z test Holm-adjusted over the comparisons of the dataset and
    ``vs_reference`` ``better``/``worse`` when that is below ``alpha_of(z)``, else ``tie``
    (:func:`fmeasure.experiments.comparisons.against_reference`). The reference row (``reference``,
    in its tuned setting when it has one) has ``reference`` True. A row whose runs were refused
    has ``status`` "not run: <reason>" and no scores.
    """
    from fmeasure.experiments.comparisons import against_reference
    from fmeasure.experiments.findings import paired_bootstrap

    runs = pd.DataFrame(records)
    if runs.empty:
        raise ValueError("records: no runs")
    if "reason" not in runs.columns:
        runs["reason"] = ""
    keys = ["dataset", "method", "setting"]
    rows = []
    for dataset, g in runs.groupby("dataset", sort=False):
        ref_rows = g[(g.method == reference) & (g.status == "ran")]
        if ref_rows.empty:
            raise ValueError(f"dataset {dataset!r}: the reference {reference!r} has no run")
        ref_setting = "tuned" if "tuned" in set(ref_rows.setting) else ref_rows.setting.iloc[0]
        scores, meta = {}, {}
        for key, r in g.groupby(keys[1:], sort=False):
            if (r.status != "ran").any():
                reason = next((x for x in r.reason if isinstance(x, str) and x), "not run")
                meta[key] = {"status": f"not run: {reason}", "n_seeds": 0}
                continue
            inst = instances[
                (instances.dataset == dataset) & (instances.method == key[0]) & (instances.setting == key[1])
            ]
            w = inst.pivot_table(index="instance", columns="seed", values="f", aggfunc="first")
            seeds = sorted(r.seed)
            if sorted(w.columns) != seeds or w.isna().any().any():
                raise ValueError(f"dataset {dataset!r}, {key[0]} {key[1]}: per-instance scores missing for some seeds")
            scores[key] = w[seeds].to_numpy(float)
            meta[key] = {
                "status": "ran",
                "n_seeds": len(seeds),
                "fit_s": float(r.fit_s.mean()),
                "predict_s": float(r.predict_s.mean()),
                "tuning_s": float(r.tuning_s.mean()),
                "cpu_s": float(r.cpu_s.mean()) if "cpu_s" in r else np.nan,
                "mean_set_size": float(r.mean_set_size.mean()),
                "params": _joined(zip(r.seed, r.params)),
                "chosen": _joined(zip(r.seed, r.chosen)) if "chosen" in r else "",
            }
        ref_key = (reference, ref_setting)
        x_ref = scores[ref_key].mean(axis=1)
        compared = []
        for key, S in scores.items():
            if S.shape[0] != len(x_ref):
                raise ValueError(
                    f"dataset {dataset!r}: {key[0]} {key[1]} has {S.shape[0]} test instances, the reference {len(x_ref)}"
                )
            if key != ref_key:
                compared.append(key)
        diffs, ses = [], []
        for key in compared:
            x = scores[key].mean(axis=1)
            d, s = paired_bootstrap({"a": x, "r": x_ref}, lambda m: m["a"] - m["r"], n_boot=n_boot, seed=seed)
            diffs.append(d)
            ses.append(s)
        tests = against_reference(diffs, ses, z=z) if compared else pd.DataFrame(columns=["p_holm", "outcome"])
        cmp = {key: (diffs[i], ses[i], tests.p_holm[i], tests.outcome[i]) for i, key in enumerate(compared)}
        for key, info in meta.items():
            method, setting = key
            row = {c: np.nan for c in TABLE_COLUMNS}
            row |= {"dataset": dataset, "method": method, "setting": setting, "params": "", "chosen": ""}
            row |= {"source": "peer" if is_peer(method) else "ours", "reference": key == ref_key, **info}
            if key in scores:
                S = scores[key]
                x = S.mean(axis=1)
                row["f"] = float(x.mean())
                row["f_sd"] = float(S.mean(axis=0).std(ddof=1)) if S.shape[1] > 1 else np.nan
                row["se"] = float(x.std(ddof=1) / np.sqrt(len(x)))
                if key == ref_key:
                    row |= {"diff_to_reference": 0.0, "diff_se": 0.0, "vs_reference": "reference"}
                else:
                    d, s, p, o = cmp[key]
                    row |= {"diff_to_reference": d, "diff_se": s, "p_holm": p, "vs_reference": o}
            else:
                row["vs_reference"] = "not run"
            rows.append(row)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _shown_names(df: pd.DataFrame) -> list[str]:
    """Each row's system as the Markdown tables show it, the reference marked."""
    return [title(m) + (" (reference)" if r else "") for m, r in zip(df.method, df.reference)]


def write_table(table: pd.DataFrame, csv_path, md_path, *, reference: str, seeds, z: float = 2.0) -> pd.DataFrame:
    """Write the peers table (CSV) and its Markdown rendering with a caption."""
    from fmeasure.tables import write_table as _write

    shown = table.assign(
        method=_shown_names(table),
        **{c: table[c].round(2) for c in ("f", "f_sd", "se", "diff_to_reference", "diff_se")},
        p_holm=table.p_holm.round(4),
        fit_s=table.fit_s.round(1),
        predict_s=table.predict_s.round(2),
        tuning_s=table.tuning_s.round(1),
        cpu_s=table.cpu_s.round(1),
        mean_set_size=table.mean_set_size.round(2),
    )
    caption = (
        f"Peers: test instance-wise F (%, F(0,0) = 1) of public multi-label packages and of our routes, on the "
        f"same splits and features; a stochastic system runs on every seed ({', '.join(map(str, seeds))}), a "
        f"deterministic one on the first (n_seeds); f: the mean over the seeds, f_sd: their "
        f"standard deviation, se: the standard error of f over test instances; diff_to_reference: f minus that of "
        f"the reference route declared in the configuration ({title(reference)}), diff_se: its paired bootstrap SE "
        f"over test instances, p_holm: its two-sided z test, Holm-adjusted over the comparisons of the dataset; "
        f"vs_reference: better or worse when p_holm is below the level of {z:g} SE, else tie. default: the package's "
        "defaults; tuned: its grid chosen by cross-validation on the training set (a system that tunes itself runs "
        "once, as tuned); fit_s, predict_s, tuning_s: mean wall seconds of the final fit, the prediction and the "
        "tuning; cpu_s: mean CPU seconds of the whole run (tuning, final fit and prediction), the budget it used; "
        "params: the chosen grid point; chosen: what a self-tuning system chose."
    )
    _write(table, csv_path, md_path, caption=caption, md_df=shown.drop(columns=["params", "chosen"]))
    return table


def _ranked_rows(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, method): the tuned row when the method has one, else its default."""
    order = {"tuned": 0, "default": 1}
    t = table.assign(_o=table.setting.map(order)).sort_values(["_o"], kind="stable")
    return t.drop_duplicates(["dataset", "method"]).drop(columns="_o").sort_index()


def write_by_dataset(table: pd.DataFrame, csv_path, md_path, *, reference: str, z: float = 2.0) -> pd.DataFrame:
    """The per-dataset summary the report shows: one row per dataset, one column per system (its
    tuned setting, or its default when it has no tuned one), each cell the F over the seeds as
    ``mean ± sd``, marked ``+`` (``-``) where the system is better (worse) than the reference after
    Holm's correction."""
    from fmeasure.tables import write_table as _write

    t = _ranked_rows(table)
    methods = list(dict.fromkeys(t.method))
    methods = [reference] + [m for m in methods if m != reference]
    datasets = list(dict.fromkeys(t.dataset))
    mark = {"better": " +", "worse": " -"}
    wide, tidy = [], []
    for d in datasets:
        sub = t[t.dataset == d].set_index("method")
        ref = sub.loc[reference]
        row = {"dataset": d, "seeds": int(ref.n_seeds)}
        for m in methods:
            if m not in sub.index or sub.loc[m, "status"] != "ran":
                row[m] = "not run" if m in sub.index else ""
                continue
            r = sub.loc[m]
            sd = f" ± {r.f_sd:.2f}" if np.isfinite(r.f_sd) else ""
            row[m] = f"{r.f:.2f}{sd}{mark.get(r.vs_reference, '')}"
            tidy.append({"dataset": d, "method": m, "setting": r.setting, "n_seeds": int(r.n_seeds)})
            tidy[-1] |= {"f": r.f, "f_sd": r.f_sd, "vs_reference": r.vs_reference}
        wide.append(row)
    shown = pd.DataFrame(wide).rename(columns={reference: f"{reference} (reference)"})
    caption = (
        "Peers by dataset: test F (%) of each system over the seeds it ran on (mean ± standard deviation; seeds: "
        "the reference's number; a deterministic system runs on the first seed alone and shows no ±), each in its "
        "tuned setting (a package without one: its defaults). + (-): better (worse) than "
        f"the reference ({reference}) by more than {z:g} paired standard errors after Holm's correction over "
        "the dataset's comparisons. Keys: " + "; ".join(f"{m}: {title(m)}" for m in methods) + "."
    )
    out = pd.DataFrame(tidy, columns=["dataset", "method", "setting", "n_seeds", "f", "f_sd", "vs_reference"])
    _write(out, csv_path, md_path, caption=caption, md_df=shown)
    return out


def write_figure(table: pd.DataFrame, png_path, pdf_path=None, *, reference: str, z: float = 2.0) -> None:
    """Each system's F minus the reference's per dataset (tuned setting, or default when it has
    none), with ``z`` paired standard errors; filled markers where Holm's correction keeps the
    difference, open ones where it does not."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = _ranked_rows(table)
    t = t[(t.status == "ran") & ~t.reference]
    datasets = list(dict.fromkeys(table.dataset))
    methods = list(dict.fromkeys(t.method))
    fig, ax = plt.subplots(figsize=(max(8.0, 0.9 * len(datasets) + 5), 4.5))
    width = 0.8 / max(1, len(methods))
    markers = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "h"]
    for j, m in enumerate(methods):
        sub = t[t.method == m].set_index("dataset").reindex(datasets)
        x = np.arange(len(datasets)) + (j - (len(methods) - 1) / 2) * width
        colour = "0.55" if is_peer(m) else "black"
        ax.errorbar(x, sub.diff_to_reference, yerr=z * sub.diff_se, fmt="none", ecolor=colour, elinewidth=0.8)
        solid = sub.vs_reference.isin(["better", "worse"]).to_numpy()
        mk = markers[j % len(markers)]
        ax.scatter(x[solid], sub.diff_to_reference[solid], marker=mk, color=colour, s=22, zorder=3)
        ax.scatter(
            x[~solid], sub.diff_to_reference[~solid], marker=mk, facecolor="white", edgecolor=colour, s=22, zorder=3
        )
        ax.scatter([], [], marker=mk, facecolor="white", edgecolor=colour, label=title(m))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(np.arange(len(datasets)), datasets, rotation=30, ha="right")
    ax.set_ylabel(f"test F minus the reference's (points), ±{z:g} SE")
    ax.set_title(f"Each system against the reference, {title(reference)}", fontsize=9)
    ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(png_path, dpi=150)
    if pdf_path:
        fig.savefig(pdf_path)
    plt.close(fig)


# ----------------------------------------------------------------------------- ranks across datasets

#: Columns of ``results/tables/peers_ranks.csv``, in order.
RANK_COLUMNS = [
    "method",
    "setting",
    "source",
    "reference",
    "mean_rank",
    "rank_diff",
    "p_nemenyi",
    "p_holm",
    "vs_reference",
    "n_datasets",
    "n_systems",
    "friedman_chi2",
    "friedman_p",
    "cd",
    "rank_se",
    "alpha",
]


def run_ranks(table: pd.DataFrame, *, reference: str, z: float = 2.0) -> tuple[pd.DataFrame, dict]:
    """The systems ranked over the datasets (one row per system, in its tuned setting when it has
    one): :func:`fmeasure.experiments.comparisons.rank_systems` on the table's ``f``.

    A system without a score on every dataset where the reference ran is left out of the ranks
    (row ``vs_reference`` "not ranked: ..."), so that the design stays complete. When fewer than
    3 systems or 2 datasets remain, no test is made and ``summary["reason"]`` says why.
    """
    from fmeasure.experiments.comparisons import alpha_of, rank_systems

    t = _ranked_rows(table)
    datasets = list(dict.fromkeys(t[(t.method == reference) & (t.status == "ran")].dataset))
    scores = t[t.status == "ran"].pivot_table(index="dataset", columns="method", values="f", sort=False)
    scores = scores.reindex(index=datasets)
    methods = list(dict.fromkeys(t.method))
    complete = [m for m in methods if m in scores.columns and scores[m].notna().all()]
    rows = []
    for m in methods:
        if m in complete:
            continue
        ran = set(t[(t.method == m) & (t.status == "ran")].dataset)
        missing = [d for d in datasets if d not in ran]
        why = "not run on any dataset" if len(missing) == len(datasets) else f"not run on {', '.join(missing)}"
        setting = t[t.method == m].setting.iloc[0]
        rows.append({"method": m, "setting": setting, "vs_reference": f"not ranked: {why}"})
    summary = {"n_datasets": len(datasets), "n_systems": len(complete), "alpha": alpha_of(z)}
    ranked = pd.DataFrame({"method": complete, "setting": [t[t.method == m].setting.iloc[0] for m in complete]})
    if len(complete) < 3 or len(datasets) < 2:
        ranked["vs_reference"] = "not tested"
        summary["reason"] = (
            f"the Friedman test needs at least 3 systems and 2 datasets; {len(complete)} systems ran on all "
            f"{len(datasets)} datasets"
        )
    else:
        ranked, stats = rank_systems(scores[complete], reference, z=z)
        summary |= stats
        ranked = ranked.rename(columns={"system": "method"})
        ranked["setting"] = [t[t.method == m].setting.iloc[0] for m in ranked.method]
    out = pd.concat([ranked, pd.DataFrame(rows, columns=["method", "setting", "vs_reference"])], ignore_index=True)
    out["source"] = ["peer" if is_peer(m) else "ours" for m in out.method]
    out["reference"] = out.method == reference
    for k in ("n_datasets", "n_systems", "friedman_chi2", "friedman_p", "cd", "rank_se", "alpha"):
        out[k] = summary.get(k, np.nan)
    return out.reindex(columns=RANK_COLUMNS), summary


def write_ranks(ranks: pd.DataFrame, summary: dict, csv_path, md_path, png_path, pdf_path=None, *, reference: str):
    """The ranks table (CSV, Markdown) and the critical-difference diagram (PNG, PDF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fmeasure.experiments.comparisons import write_cd_diagram
    from fmeasure.tables import write_table as _write

    if "reason" in summary:
        test = f"No test: {summary['reason']}."
    else:
        test = (
            f"Friedman test over {summary['n_datasets']} datasets and {summary['n_systems']} systems: chi2 = "
            f"{summary['friedman_chi2']:.2f}, p = {summary['friedman_p']:.3g}. Nemenyi's critical difference at "
            f"alpha = {summary['alpha']:.4f} (the level of 2 SE): {summary['cd']:.2f} ranks."
        )
    caption = (
        "Peers across datasets: mean rank of each system's test F (1 = best; each system in its tuned setting, "
        "or its defaults when it has none), rank_diff: its mean rank minus the reference's "
        f"({title(reference)}); p_nemenyi: Nemenyi's test against the reference; p_holm: the z test of the two "
        "mean ranks (Demšar 2006), Holm-adjusted over the comparisons with the reference; vs_reference: better "
        "or worse when the Friedman test and p_holm are both below alpha. " + test
    )
    shown = ranks.assign(
        method=_shown_names(ranks),
        mean_rank=ranks.mean_rank.round(2),
        rank_diff=ranks.rank_diff.round(2),
        p_nemenyi=ranks.p_nemenyi.round(4),
        p_holm=ranks.p_holm.round(4),
    )[["method", "setting", "source", "mean_rank", "rank_diff", "p_nemenyi", "p_holm", "vs_reference"]]
    _write(ranks, csv_path, md_path, caption=caption, md_df=shown)
    if "reason" in summary:
        fig, ax = plt.subplots(figsize=(6.0, 1.5))
        ax.axis("off")
        ax.text(0.5, 0.5, f"No critical-difference diagram: {summary['reason']}.", ha="center", va="center", wrap=True)
        fig.savefig(png_path, dpi=150)
        if pdf_path:
            fig.savefig(pdf_path)
        plt.close(fig)
    else:
        ranked = ranks[ranks.mean_rank.notna()]
        labels = {m: m + (" (reference)" if m == reference else "") for m in ranked.method}
        write_cd_diagram(ranked.rename(columns={"method": "system"}), summary, png_path, pdf_path, labels=labels)
    return ranks


# ----------------------------------------------------------------------------- findings


def run_findings(table: pd.DataFrame, ranks: pd.DataFrame, *, reference: str) -> list[dict]:
    """The stage's two findings, both about the declared reference against the public packages.

    - ``peers.reference``: per dataset and peer setting, the reference's F minus the peer's (paired
      bootstrap SE); contradicted when a peer is better after Holm's correction on some dataset,
      confirmed when the reference is better than every peer on every dataset, else not confirmed.
      The margin shown is the weakest cell's (smallest margin / SE).
    - ``peers.ranks``: across datasets, each peer's mean rank minus the reference's (positive: the
      reference ranks higher), with the standard error of a difference of mean ranks; the verdict
      from ``vs_reference`` of the ranks table, as above.
    """
    from fmeasure.experiments.findings import finding, paper_claims

    cat = paper_claims().set_index("claim_id")
    link = "#sec-peers"
    out = []

    def row(cid, verdict, margin=np.nan, se=np.nan, evidence=""):
        return finding(cid, cat.loc[cid, "claim"], cat.loc[cid, "section"], verdict, margin, se, evidence, link)

    cells = table[(table.source == "peer") & (table.status == "ran")]
    if cells.empty:
        out.append(row("peers.reference", "not run (no peer ran)"))
    else:
        margin = -cells.diff_to_reference.to_numpy(float)
        se = cells.diff_se.to_numpy(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(se > 0, margin / np.where(se > 0, se, 1.0), np.sign(margin) * np.inf)
        i = int(np.nanargmin(ratio))
        peer_better = int((cells.vs_reference == "better").sum())
        ref_better = int((cells.vs_reference == "worse").sum())
        n = len(cells)
        verdict = "contradicted" if peer_better else "confirmed" if ref_better == n else "not confirmed"
        weakest = cells.iloc[i]
        evidence = (
            f"{reference}'s F minus each peer's, per dataset and peer setting, Holm over each dataset's comparisons: "
            f"{reference} better in {ref_better} of {n}, the peer better in {peer_better}, "
            f"{n - ref_better - peer_better} ties; weakest: {weakest.dataset} vs {weakest.method} ({weakest.setting})"
        )
        out.append(row("peers.reference", verdict, float(margin[i]), float(se[i]), evidence))
    ranked = ranks[ranks.mean_rank.notna() & (ranks.source == "peer")]
    if ranked.empty or ranks.friedman_chi2.isna().all():
        why = "fewer than 3 systems or 2 datasets ranked" if not ranked.empty else "no peer ranked on every dataset"
        out.append(row("peers.ranks", f"not run ({why})"))
    else:
        r0 = ranks.iloc[0]
        margin = ranked.rank_diff.to_numpy(float)  # peer's mean rank minus the reference's: > 0 favours the claim
        i = int(np.argmin(margin))
        peer_better = int((ranked.vs_reference == "better").sum())
        ref_better = int((ranked.vs_reference == "worse").sum())
        verdict = "contradicted" if peer_better else "confirmed" if ref_better == len(ranked) else "not confirmed"
        evidence = (
            f"mean rank of each peer minus {reference}'s over {int(r0.n_datasets)} datasets and {int(r0.n_systems)} "
            f"systems; Friedman chi2 = {r0.friedman_chi2:.2f} (p = {r0.friedman_p:.3g}); Holm against {reference}: "
            f"{reference} ranks better than {ref_better} of {len(ranked)} peers, worse than {peer_better}; "
            f"closest: {ranked.method.iloc[i]}"
        )
        out.append(row("peers.ranks", verdict, float(margin[i]), float(r0.rank_se), evidence))
    return out


def write_findings(rows, path):
    from fmeasure.experiments.findings import write_findings as _write

    return _write(rows, path)


def analysis(tables, points: float = 0.0) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentences on this stage, from ``peers.csv`` and ``peers_ranks.csv`` in folder
    ``tables``: the reference, the test across datasets, and the per-dataset comparisons. No cell is
    compared with the paper (it has none)."""
    tables = Path(tables)
    if not (tables / "peers.csv").exists() or not (tables / "peers_ranks.csv").exists():
        return [], []
    t, r = pd.read_csv(tables / "peers.csv"), pd.read_csv(tables / "peers_ranks.csv")
    ref_rows = t[t.reference.astype(bool)]
    if ref_rows.empty:
        return [], []
    ref = ref_rows.method.iloc[0]
    seeds = sorted(set(ref_rows.n_seeds.astype(int)))
    out = [
        f"- Reference (declared in the configuration before any run): {title(ref)}; "
        f"{len(ref_rows)} datasets, {', '.join(map(str, seeds))} seeds each."
    ]
    ranked = r[r.mean_rank.notna()]
    if ranked.empty:
        out.append("- Across datasets: no test (fewer than 3 systems or 2 datasets ranked).")
    else:
        r0 = ranked.iloc[0]
        order = ranked.sort_values("mean_rank")
        pos = int(np.flatnonzero(order.method.to_numpy() == ref)[0]) + 1
        out.append(
            f"- Across datasets: Friedman chi2 = {r0.friedman_chi2:.2f}, p = {r0.friedman_p:.3g} "
            f"({int(r0.n_systems)} systems, {int(r0.n_datasets)} datasets); the reference's mean rank is "
            f"{ranked[ranked.method == ref].mean_rank.iloc[0]:.2f}, position {pos} of {len(ranked)}; Nemenyi's "
            f"critical difference {r0.cd:.2f}."
        )
        for what, label in (
            ("better", "rank significantly above the reference"),
            ("worse", "rank significantly below it"),
        ):
            names = ranked[ranked.vs_reference == what].method.tolist()
            out.append(
                f"- Holm against the reference: {len(names)} systems {label}"
                + (f" ({', '.join(names)})." if names else ".")
            )
    left = r[r.vs_reference.astype(str).str.startswith("not ranked")]
    for m, why in zip(left.method, left.vs_reference):
        out.append(f"- {title(m)}: {why}.")
    cmp = t[(t.status == "ran") & ~t.reference.astype(bool)]
    if len(cmp):
        counts = cmp.vs_reference.value_counts()
        out.append(
            f"- Per dataset (every system and setting, Holm over each dataset's comparisons): "
            f"{int(counts.get('better', 0))} of {len(cmp)} rows better than the reference, "
            f"{int(counts.get('worse', 0))} worse, {int(counts.get('tie', 0))} ties."
        )
    return out, []


# ----------------------------------------------------------------------------- the capped search


def _delta(P):
    """Delta = P W, W[s, k] = 2 / (s + k) for counts s and sizes k = 1..m; P is (n, m, m)."""
    m = P.shape[-1]
    s = np.arange(1, m + 1, dtype=np.float64)
    return P @ (2.0 / (s[:, None] + s[None, :]))


def capped_gfm(P, p_zero, cap: int):
    """GFM searching label sets of at most ``cap`` labels (as ``example-wise-f1-maximizer`` does with
    the largest training label count): the best of the empty set and of sizes 1..cap.

    ``P`` is ``(m, m)`` or ``(n, m, m)`` with ``P[i, s-1] = P(y_i = 1, |y| = s)``. Returns ``(h,
    value)`` like :func:`fmeasure.inference.gfm_from_p` (same tie rules); ``cap >= m`` gives the
    exact GFM.

    >>> P = np.diag([0.0] * 4).astype(float); P[:, 0] = 0.25   # one label of four, uniformly
    >>> capped_gfm(P, 0.0, cap=1)[1], round(capped_gfm(P, 0.0, cap=4)[1], 3)
    (0.25, 0.4)
    """
    from fmeasure.inference import gfm

    P = np.asarray(P, dtype=np.float64)
    if int(cap) < 0:
        raise ValueError(f"cap: must be >= 0, got {cap}")
    D = _delta(P)
    D[..., int(cap) :] = 0.0  # sizes above the cap: expected F 0, never better than the empty set
    return gfm(D, p_zero)


def capped_losses(P, p_zero, cap: int, *, tol: float = 1e-9) -> dict:
    """How often, and by how much, the capped search falls short of the exact GFM on ``P``.

    Returns ``n``, ``n_wrong`` (instances whose capped value is below the exact one by more than
    ``tol``), ``share_wrong``, ``mean_loss`` and ``max_loss`` (expected F, in points, over all
    instances) and ``share_larger`` (instances whose exact optimum has more than ``cap`` labels).
    """
    from fmeasure.inference import gfm_from_p

    P = np.asarray(P, dtype=np.float64)
    P = P[None] if P.ndim == 2 else P
    h, v = gfm_from_p(P, p_zero)
    _, vc = capped_gfm(P, p_zero, cap)
    loss = 100.0 * (np.asarray(v) - np.asarray(vc))
    if loss.min(initial=0.0) < -100.0 * 1e-9:  # the capped search can never do better than the exact one
        raise RuntimeError(f"capped search above the exact GFM by {-loss.min():.3g} points")
    loss = np.maximum(loss, 0.0)  # rounding of the two computations of the same value
    n = len(loss)
    return {
        "n": n,
        "cap": int(cap),
        "n_wrong": int((loss > 100.0 * tol).sum()),
        "share_wrong": float((loss > 100.0 * tol).mean()),
        "mean_loss": float(loss.mean()),
        "max_loss": float(loss.max()) if n else 0.0,
        "share_larger": float((np.asarray(h).sum(axis=-1) > cap).mean()),
    }


def run_exactness(ds, parametric_cfg: dict, n_jobs: int | None = None) -> dict:
    """The capped search against the exact GFM on EFP's estimated P for ``ds``'s test set.

    EFP is fitted as the parametric stage fits it (``parametric_cfg``); the cap is the largest label
    count of the training set, as ``example-wise-f1-maximizer`` takes it. Returns
    :func:`capped_losses` with the dataset's name.
    """
    from fmeasure.experiments.parametric import make_learner

    efp = make_learner("EFP", parametric_cfg, n_jobs=n_jobs).fit(ds.X_train, ds.Y_train)
    P, p0 = efp.predict_p_matrix(ds.X_test)
    cap = int(np.asarray(ds.Y_train).sum(axis=1).max())
    return {"dataset": ds.name, "source": "EFP's P on the test set", **capped_losses(P, p0, cap)}


#: A distribution built by hand where every label set of the support has one label (so the cap
#: is 1) but the F-optimal prediction has all four: P(y = e_i) = 1/4 for i = 1..4.
HAND_EXAMPLE = "one label of four, uniformly: E[F] of k labels is k/4 * 2/(1 + k), best at k = 4"


def write_exactness(rows, csv_path, md_path) -> pd.DataFrame:
    """The exactness table: the hand-built case first, then one row per dataset."""
    from fmeasure.tables import write_table as _write

    P = np.zeros((4, 4))
    P[:, 0] = 0.25
    hand = {"dataset": "by hand", "source": HAND_EXAMPLE, **capped_losses(P, 0.0, cap=1)}
    table = pd.DataFrame([hand, *rows])
    caption = (
        "Exact GFM against the search capped at the largest training label count (as "
        "example-wise-f1-maximizer searches): n test instances, the cap, how many instances the capped "
        "search predicts a set of lower expected F (n_wrong, share_wrong), the loss in expected F in points "
        "(mean over all instances, max), and the share of instances whose exact optimum has more labels "
        "than the cap. P is EFP's estimate on each test set (the parametric stage's model)."
    )
    _write(table, csv_path, md_path, caption=caption, float_format="{:.4f}")
    return table
