"""Stage ``peers``: today's public multi-label F-maximizers beside ours, under one protocol.

The peers (config ``peers.peers``) are public packages a user reaches for:

- ``boomer``: BOOMER, gradient-boosted multi-label rules (``mlrl-boomer``), predicting with GFM;
- ``ewf1``: ``example-wise-f1-maximizer`` with LogisticRegression (m^2 + 1 binary models, then GFM
  over label sets no larger than the largest training label count);
- ``mlknn``: scikit-multilearn's MLkNN;
- ``sklearn_br`` / ``sklearn_cc``: scikit-learn's ``MultiOutputClassifier(LogisticRegression())``
  and ``ClassifierChain(LogisticRegression())``, thresholding at 0.5.

Routes of ours can run under the same protocol too (:data:`OURS_TITLES`): ``fopt_extratrees`` is
``FOptimalClassifier(ExtraTreesClassifier())``, exact GFM on the label vectors pooled from the
training examples in the query's leaves. They are counted as ours in the table and the findings.

A peer whose requirements cannot share the project's environment runs in its own virtual
environment, built once from pinned requirements (``envs/peers/<peer>.txt``) by :func:`build_env`;
the others run in the project's environment. Either way the data go to the peer as files and the
predictions come back as files, through ``workflow/scripts/peers_adapter.py`` (:func:`run_adapter`).

Protocol, the same for every peer and every setting: the dataset's own train/test split; features
standardised on the rows a model is trained on (:func:`standardise`); labels constant on those
rows are removed before the peer sees them and predicted as that constant (:func:`drop_constant`,
as a careful user does: some peers raise on a constant label); the instance-wise F-measure with
F(0, 0) = 1 on the test set, and the paired bootstrap over test instances for every difference.
Setting ``default`` is the package's defaults; ``tuned`` chooses the peer's grid point (config
``peers.peers.<peer>.grid``) by ``cv``-fold cross-validation on the training set only, then refits
on the whole training set.

:func:`capped_gfm` and :func:`capped_losses` show what the capped search of ``ewf1`` costs against
the exact GFM on given P matrices.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import shutil
import subprocess
import tempfile
import time
import venv
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
    "ENV_RECORD",
    "build_env",
    "env_python",
    "standardise",
    "drop_constant",
    "grid_points",
    "run_adapter",
    "run_peer",
    "write_run",
    "run_table",
    "write_table",
    "write_figure",
    "run_findings",
    "write_findings",
    "capped_gfm",
    "capped_losses",
    "run_exactness",
    "write_exactness",
]

#: How the report names each peer.
PEER_TITLES = {
    "boomer": "BOOMER (GFM)",
    "ewf1": "example-wise-f1-maximizer (LogisticRegression)",
    "mlknn": "MLkNN (scikit-multilearn)",
    "sklearn_br": "MultiOutputClassifier(LogisticRegression), 0.5",
    "sklearn_cc": "ClassifierChain(LogisticRegression), 0.5",
}

#: Routes of ours run through the peers' protocol (in the project's environment), and their names.
OURS_TITLES = {
    "fopt_extratrees": "FOptimalClassifier(ExtraTrees), GFM",
}


def title(method: str) -> str:
    """How the table and the figure name ``method`` (our parametric learners in capitals)."""
    return PEER_TITLES.get(method) or OURS_TITLES.get(method) or method.upper()


def is_peer(method: str) -> bool:
    """True for a public package's model, False for a method or route of ours."""
    return method in PEER_TITLES


#: The record a built environment keeps in its own folder (what was installed, from which file).
ENV_RECORD = "fmeasure-env.json"


# ----------------------------------------------------------------------------- environments


def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def env_python(prefix) -> Path:
    """The Python interpreter of the virtual environment at ``prefix``."""
    return Path(prefix) / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def build_env(requirements, prefix, *, log_file=None) -> dict:
    """Build (or reuse) a virtual environment at ``prefix`` from a pinned ``requirements`` file.

    The environment is reused when it was built from a file with the same content (sha256). A new
    one is built beside ``prefix`` and moved into place only when pip succeeded, so a failed build
    leaves nothing behind. Returns the record: ``requirements``, ``sha256``, ``python``, ``build_s``
    (seconds of this build; 0 when reused), ``reused`` and ``packages`` (``pip freeze``).

    Raises ``RuntimeError`` with pip's last line, naming the requirements file, when pip fails.
    """
    requirements, prefix = Path(requirements), Path(prefix)
    if not requirements.is_file():
        raise FileNotFoundError(f"{requirements}: no such requirements file")
    sha = _sha256(requirements)
    record_path = prefix / ENV_RECORD
    if record_path.is_file() and env_python(prefix).exists():
        old = json.loads(record_path.read_text())
        if old.get("sha256") == sha:
            return {**old, "build_s": 0.0, "reused": True}
    partial = prefix.with_name(prefix.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    t0 = time.perf_counter()
    venv.EnvBuilder(with_pip=True, clear=True).create(partial)
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
        "requirements": str(requirements),
        "sha256": sha,
        "python": subprocess.run(
            [str(py), "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True
        ).stdout.strip(),
        "build_s": time.perf_counter() - t0,
        "reused": False,
        "packages": freeze.split(),
    }
    (partial / ENV_RECORD).write_text(json.dumps(record, indent=1))
    shutil.rmtree(prefix, ignore_errors=True)
    partial.rename(prefix)  # only the interpreter is called afterwards, never the scripts pip wrote
    return record


# ----------------------------------------------------------------------------- protocol


def standardise(X_fit, *others):
    """Features scaled by the mean and standard deviation of ``X_fit`` (sparse: no centring);
    constant features are left at 0. Returns dense float64 arrays: ``(X_fit, *others)``."""
    from sklearn.preprocessing import StandardScaler

    sparse = sp.issparse(X_fit)
    scaler = StandardScaler(with_mean=not sparse).fit(X_fit)
    out = [scaler.transform(X) for X in (X_fit, *others)]
    return tuple(np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64) for X in out)


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


def run_adapter(python, adapter, peer: str, tasks: list, *, seed: int = 1, log_to=None) -> list[dict]:
    """Run the peer's adapter once for ``tasks``; return one ``{"H", "fit_s", "predict_s"}`` per task.

    Each task is ``(X_train, Y_train, X_eval, params)``. Constant labels and standardisation are
    applied here, so every peer gets the same inputs. Raises ``RuntimeError`` naming the peer and
    the adapter's last line when it fails.
    """
    arrays, spec, consts = {}, {"peer": peer, "seed": int(seed), "tasks": []}, []
    for j, (Xtr, Ytr, Xev, params) in enumerate(tasks):
        keep, values = drop_constant(Ytr)
        Xtr_s, Xev_s = standardise(Xtr, Xev)
        arrays.update({f"Xtr{j}": Xtr_s, f"Ytr{j}": np.asarray(Ytr)[:, keep].astype(np.int8), f"Xev{j}": Xev_s})
        spec["tasks"].append({"params": params})
        consts.append((keep, values, Xev_s.shape[0]))
    with tempfile.TemporaryDirectory(prefix=f"fmeasure-{peer}-") as tmp:
        req, res = Path(tmp) / "request.npz", Path(tmp) / "result.npz"
        np.savez(req, spec=np.asarray(json.dumps(spec)), **arrays)
        del arrays
        out = subprocess.run([str(python), str(adapter), str(req), str(res)], capture_output=True, text=True)
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
            results.append({"H": H, "fit_s": float(z[f"fit_s{j}"]), "predict_s": float(z[f"predict_s{j}"])})
    return results


def _f(Y, H) -> np.ndarray:
    from fmeasure.metrics import f_measure

    return np.asarray(f_measure(Y, H), dtype=float)


def run_peer(ds, peer: str, setting: str, *, grid: dict, cv: int, seed: int, python, adapter, log_to=None):
    """Fit ``peer`` on ``ds``'s training part in ``setting`` and predict its test part.

    Returns ``(record, instances)``: the record has ``dataset, method, source, setting, params, f,
    fit_s, predict_s, tuning_s, cv_f, n_candidates, mean_set_size``; ``instances`` the per-instance
    F (in %) on the test set.
    """
    from sklearn.model_selection import KFold

    if setting not in ("default", "tuned"):
        raise ValueError(f"setting: expected 'default' or 'tuned', got {setting!r}")
    Xtr, Ytr = ds.X_train, np.asarray(ds.Y_train)
    best, cv_f, tuning_s, points = {}, float("nan"), 0.0, [{}]
    if setting == "tuned":
        points = grid_points(grid)
        folds = list(KFold(n_splits=cv, shuffle=True, random_state=seed).split(np.arange(len(Ytr))))
        tasks = [(Xtr[a], Ytr[a], Xtr[b], p) for p in points for a, b in folds]
        log.info("%s on %s: tuning %d grid points x %d folds", peer, ds.name, len(points), cv)
        t0 = time.perf_counter()
        res = run_adapter(python, adapter, peer, tasks, seed=seed, log_to=log_to)
        tuning_s = time.perf_counter() - t0
        scores = []
        for i, _ in enumerate(points):
            fs = [_f(Ytr[b], res[i * cv + k]["H"]) for k, (_, b) in enumerate(folds)]
            scores.append(100.0 * float(np.concatenate(fs).mean()))
        i_best = int(np.argmax(scores))  # first maximum: the earliest grid point on ties
        best, cv_f = points[i_best], scores[i_best]
        log.info("%s on %s: chose %s (cross-validated F %.2f)", peer, ds.name, best, cv_f)
    (final,) = run_adapter(python, adapter, peer, [(Xtr, Ytr, ds.X_test, best)], seed=seed, log_to=log_to)
    f = 100.0 * _f(ds.Y_test, final["H"])
    record = {
        "dataset": ds.name,
        "method": peer,
        "source": "peer" if is_peer(peer) else "ours",
        "setting": setting,
        "params": json.dumps(best, sort_keys=True),
        "f": float(f.mean()),
        "fit_s": final["fit_s"],
        "predict_s": final["predict_s"],
        "tuning_s": tuning_s,
        "cv_f": cv_f,
        "n_candidates": len(points),
        "mean_set_size": float(final["H"].sum(axis=1).mean()),
    }
    inst = pd.DataFrame({"dataset": ds.name, "method": peer, "setting": setting, "instance": np.arange(len(f)), "f": f})
    return record, inst


def write_run(ds, peer, setting, *, grid, cv, seed, python, adapter, record_path, instances_path, log_to=None):
    """:func:`run_peer`, written atomically: the record (JSON) and the per-instance scores (CSV)."""
    if not Path(python).exists():
        raise FileNotFoundError(f"{python}: the peer's environment is missing (rerun its peers_env job)")
    record, inst = run_peer(
        ds, peer, setting, grid=grid, cv=cv, seed=seed, python=python, adapter=adapter, log_to=log_to
    )
    with atomic_output(instances_path, suffix=".csv.gz") as tmp:
        inst.to_csv(tmp, index=False)
    with atomic_output(record_path) as tmp:
        tmp.write_text(json.dumps(record, indent=1))
    return record


# ----------------------------------------------------------------------------- table, figure, findings


def _ours(ours_instances) -> pd.DataFrame:
    """Our methods' per-instance F: ``dataset, method, setting, instance, f``."""
    frames = []
    for p in ours_instances:
        df = pd.read_csv(p)
        df = df.assign(method=df.method.str.lower(), setting="tuned")  # learners may be named in capitals
        frames.append(df[["dataset", "method", "instance", "f"]].assign(setting="tuned"))
    cols = ["dataset", "method", "setting", "instance", "f"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def run_table(records, peer_instances, ours_instances, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per (dataset, method, setting): ours and the peers, with their paired differences.

    ``f`` and ``se`` are the test F and the standard error of its mean (in %); ``diff_to_best_ours``
    is the row's F minus the best of ours on that dataset, ``diff_se`` its paired bootstrap SE over
    test instances.
    """
    from fmeasure.experiments.findings import bootstrap_margin

    peers = pd.DataFrame(records)
    inst = pd.concat(
        [pd.concat([pd.read_csv(p) for p in peer_instances], ignore_index=True), _ours(ours_instances)],
        ignore_index=True,
    )
    rows = []
    for dataset, g in inst.groupby("dataset", sort=False):
        w = g.pivot_table(index="instance", columns=["method", "setting"], values="f", aggfunc="first")
        ours = [c for c in w.columns if not is_peer(c[0])]
        if not ours:
            raise ValueError(f"dataset {dataset!r}: no per-instance scores of our methods")
        best = max(ours, key=lambda c: w[c].mean())
        for col in w.columns:
            method, setting = col
            x = w[col].to_numpy()
            if col == best:
                diff, dse = 0.0, 0.0
            else:
                diff, dse = bootstrap_margin({"a": x, "b": w[best].to_numpy()}, ["a"], ["b"], n_boot=n_boot, seed=seed)
            rec = peers[(peers.dataset == dataset) & (peers.method == method) & (peers.setting == setting)]
            r = rec.iloc[0] if len(rec) else {}
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "source": "peer" if is_peer(method) else "ours",
                    "setting": setting,
                    "f": float(x.mean()),
                    "se": float(x.std(ddof=1) / np.sqrt(len(x))),
                    "diff_to_best_ours": diff,
                    "diff_se": dse,
                    "fit_s": float(r["fit_s"]) if len(rec) else np.nan,
                    "predict_s": float(r["predict_s"]) if len(rec) else np.nan,
                    "mean_set_size": float(r["mean_set_size"]) if len(rec) else np.nan,
                    "params": r["params"] if len(rec) else "",
                    "best_ours": best[0],
                }
            )
    return pd.DataFrame(rows)


def write_table(table: pd.DataFrame, csv_path, md_path) -> pd.DataFrame:
    """Write the peers table (CSV) and its Markdown rendering with a caption."""
    from fmeasure.tables import write_table as _write

    shown = table.assign(
        method=[title(m) for m in table.method],
        **{c: table[c].round(2) for c in ("f", "se", "diff_to_best_ours", "diff_se")},
        fit_s=table.fit_s.round(1),
        predict_s=table.predict_s.round(2),
        mean_set_size=table.mean_set_size.round(2),
    )
    caption = (
        "Peers: test instance-wise F (%, F(0,0) = 1) of public multi-label packages beside ours, on the same "
        "splits and standardised features; se: standard error of the mean over test instances; "
        "diff_to_best_ours: F minus the best of ours on the dataset (best_ours), diff_se: its paired bootstrap "
        "SE; default: the package's defaults; tuned: its grid chosen by cross-validation on the training set; "
        "fit_s, predict_s: wall seconds of the final fit and prediction (ours from other stages: see their "
        "stage's table)."
    )
    _write(table, csv_path, md_path, caption=caption, md_df=shown.drop(columns=["params"]))
    return table


def write_figure(table: pd.DataFrame, png_path, pdf_path=None) -> None:
    """F per dataset and method with error bars (1 SE), ours hatched, peers plain."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(table.dataset))
    labels = list(dict.fromkeys(zip(table.method, table.setting)))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(datasets) * len(labels) / 3), 4.0))
    width = 0.8 / len(labels)
    hatches = ["", "//", "..", "xx", "\\\\", "--", "++", "oo"]
    for j, (method, setting) in enumerate(labels):
        sub = table[(table.method == method) & (table.setting == setting)].set_index("dataset").reindex(datasets)
        ours = not is_peer(method)
        ax.bar(
            np.arange(len(datasets)) + (j - (len(labels) - 1) / 2) * width,
            sub.f,
            width,
            yerr=sub.se,
            capsize=2,
            color="0.35" if ours else "0.85",
            edgecolor="black",
            hatch=hatches[j % len(hatches)],
            label=f"{title(method)} ({setting})",
        )
    ax.set_xticks(np.arange(len(datasets)), datasets)
    ax.set_ylabel("test F-measure (%)")
    low = float(np.nanmin(table.f - table.se))
    ax.set_ylim(max(0.0, low - 5), min(100.0, float(np.nanmax(table.f + table.se)) + 3))
    ax.legend(fontsize=7, ncol=2, loc="lower left")
    ax.set_title("Ours (dark) and public F-maximizers (light), ±1 SE")
    fig.tight_layout()
    fig.savefig(png_path, dpi=150)
    if pdf_path:
        fig.savefig(pdf_path)
    plt.close(fig)


def run_findings(table: pd.DataFrame, peer_instances, ours_instances, paper_methods, *, n_boot=1000, seed=0):
    """Two findings: the paper's best method >= each peer, and our best route >= each peer.

    One cell per (dataset, peer, setting); margin = best claimed F minus the peer's F, paired
    bootstrap SE; cells combined as every stage combines them.
    """
    from fmeasure.experiments.findings import bootstrap_margin, cells_finding, paper_claims

    inst = pd.concat(
        [pd.concat([pd.read_csv(p) for p in peer_instances], ignore_index=True), _ours(ours_instances)],
        ignore_index=True,
    )
    cat = paper_claims().set_index("claim_id")
    out = []
    for cid, paper_only in (("peers.paper_best", True), ("peers.our_best", False)):
        cells = []
        for dataset, g in inst.groupby("dataset", sort=False):
            w = g.assign(key=g.method + "/" + g.setting).pivot_table(
                index="instance", columns="key", values="f", aggfunc="first"
            )
            ours = [k for k in w.columns if not is_peer(k.split("/")[0])]
            claimed = [k for k in ours if k.split("/")[0] in paper_methods] if paper_only else ours
            for k in w.columns:
                if k in ours or not claimed:
                    continue
                scores = {c: w[c].to_numpy() for c in [*claimed, k]}
                margin, se = bootstrap_margin(scores, claimed, [k], n_boot=n_boot, seed=seed)
                cells.append({"label": f"{dataset} vs {k}", "margin": margin, "se": se})
        cells = pd.DataFrame(cells, columns=["label", "margin", "se"])
        what = "F of the best claimed method minus the peer's, per dataset and peer setting"
        out.append(cells_finding(cid, cells, link="#sec-peers", what=what, cat=cat, none_reason="no peers run"))
    return out


def write_findings(rows, path):
    from fmeasure.experiments.findings import write_findings as _write

    return _write(rows, path)


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
