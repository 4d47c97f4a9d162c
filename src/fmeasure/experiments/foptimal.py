"""Stage ``foptimal`` (beyond the paper): five scikit-learn models, their own ``predict`` against
:class:`~fmeasure.FOptimalClassifier` on the same fitted model.

:func:`run_model` fits one model on a dataset's training part (features standardised on the
training set) and predicts its test part twice: with the model's own ``predict`` and with
``FOptimalClassifier(FrozenEstimator(model))`` (the same fit, F-optimal inference). It returns
the scores and the per-instance scores for the paired bootstrap. :func:`write_foptimal_table`
gathers every (dataset, model) into ``foptimal.{csv,md}``, :func:`write_foptimal_figure` draws
the F gains, :func:`run_findings` gives one finding per model ("FOptimalClassifier >=
model.predict", one cell per dataset).

Labels constant in the training set (enron has some) are handled as a careful user would: the
model is fitted on the other labels, and a constant label is predicted as its constant value by
both methods. (scikit-learn's logistic regression refuses a one-class target.)
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fmeasure import metrics
from fmeasure.experiments.registry import FOPTIMAL_MODELS
from fmeasure.io import heartbeat

__all__ = [
    "MODELS",
    "make_model",
    "run_model",
    "gains",
    "capped_forests",
    "write_foptimal_table",
    "write_foptimal_figure",
    "run_findings",
    "analysis",
]

log = logging.getLogger(__name__)

#: Model key (config and file names) -> the name shown in tables.
MODELS = FOPTIMAL_MODELS
#: Claim ids of paper_numbers/claims.csv, one per model.
CLAIM_IDS = {k: f"foptimal.{k}" for k in MODELS}
METHODS = ("predict", "FOptimal")
COLUMNS = [
    "dataset",
    "model",
    "method",
    "route",
    "hamming",
    "subset01",
    "f",
    "jaccard",
    "fit_time_s",
    "predict_time_s",
    "n_trees",
]
#: Bytes per stored number of a forest's leaves: scikit-learn keeps, in every node of every tree, a
#: float64 per (label, class), two classes per label here.
_VALUE_BYTES = 8


def make_model(key: str, cfg: dict, n_jobs: int = 1):
    """The unfitted model ``key`` (a Pipeline: StandardScaler, then the model) from the stage's config.

    Keys used: ``C``, ``max_iter``, ``n_estimators``, ``min_samples_leaf``, ``n_neighbors``,
    ``hidden_layer_sizes``, ``seed``. ``n_jobs``: the forest's threads (its trees do not depend
    on it).
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    seed = int(cfg["seed"])
    lr = LogisticRegression(C=float(cfg["C"]), max_iter=int(cfg["max_iter"]))
    models = {
        "br": lambda: MultiOutputClassifier(lr),
        "cc": lambda: ClassifierChain(lr, order=None),
        "rf": lambda: RandomForestClassifier(
            n_estimators=int(cfg["n_estimators"]),
            min_samples_leaf=int(cfg["min_samples_leaf"]),
            random_state=seed,
            n_jobs=n_jobs,
        ),
        "knn": lambda: KNeighborsClassifier(n_neighbors=int(cfg["n_neighbors"])),
        "mlp": lambda: MLPClassifier(
            hidden_layer_sizes=tuple(cfg["hidden_layer_sizes"]), max_iter=int(cfg["max_iter"]), random_state=seed
        ),
    }
    if key not in models:
        raise ValueError(f"model: unknown {key!r}, expected one of {list(MODELS)}")
    return make_pipeline(StandardScaler(), models[key]())


def _fit_with_progress(model, X, Y, label, *, every: float = 30.0, mem_mb: float | None = None):
    """Fit ``model`` (a Pipeline), with a log line at least once a minute; return the trees grown.

    A forest is grown with ``warm_start``: its first tree alone, then in tenths, one line per tenth
    at most every ``every`` seconds (and at the end). scikit-learn draws each tree's seed from
    ``random_state`` in order, skipping those already used, so the forest is the one a single fit
    grows. Other models are fitted in one call under :func:`fmeasure.io.heartbeat` (returns None).

    ``mem_mb``: the most memory (MB) the forest may keep in its nodes' class probabilities
    (scikit-learn stores ``node_count x labels x 2`` doubles per tree, which grows with n * m for
    fully grown trees). The first tree's size gives the number of trees that fit; a forest that
    would exceed the budget stops there, with a warning naming the key. None: no limit.
    """
    est = model[-1]
    total = getattr(est, "n_estimators", None)
    if total is None or "warm_start" not in est.get_params():
        with heartbeat(lambda s: f"{label} fit: {s:.0f} s elapsed", logger=log):
            model.fit(X, Y)
        return None
    step = max(1, -(-total // 10))
    start = last = time.perf_counter()
    est.set_params(warm_start=True, n_estimators=1)
    model.fit(X, Y)
    if mem_mb is not None:
        tree = est.estimators_[0].tree_
        per_tree = tree.value.size * _VALUE_BYTES / 2**20
        fits = max(1, int(mem_mb // per_tree))
        if fits < total:
            log.warning(
                "%s: %d trees would keep %.0f MB of leaf probabilities (%d nodes x %d labels each); growing %d, "
                "the most that fit in foptimal.forest_mem_mb = %g",
                label,
                total,
                per_tree * total,
                tree.node_count,
                Y.shape[1],
                fits,
                mem_mb,
            )
            total = fits
    for k in range(step, total + step, step):
        if min(k, total) > 1:  # the first tree is grown
            est.set_params(n_estimators=min(k, total))
            model.fit(X, Y)
        now = time.perf_counter()
        if now - last >= every or k >= total:
            log.info("%s fit: %d of %d trees, %.0f s", label, min(k, total), total, now - start)
            last = now
    est.set_params(warm_start=False)
    return total


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def run_model(ds, key: str, cfg: dict, *, jaccard_empty: float = 1.0, n_jobs: int = 1):
    """Fit model ``key`` on ``ds``'s training part; score its ``predict`` and FOptimalClassifier.

    Parameters
    ----------
    ds : fmeasure.datasets.Dataset
    key : one of :data:`MODELS`
    cfg : dict
        The ``foptimal`` config block (see :func:`make_model`; ``n_samples`` for the chain's draws).
    jaccard_empty : float
    n_jobs : int
        Threads of the forest (the other models use one).

    Returns
    -------
    rows : DataFrame with :data:`COLUMNS` (measures in %, times in CPU-independent wall seconds
        measured in-process: ``fit_time_s`` the model's fit, ``predict_time_s`` each prediction
        of the test set)
    instances : DataFrame ``dataset, model, method, instance, hamming, subset01, f, jaccard``

    Examples
    --------
    >>> from fmeasure.datasets import Dataset
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3)); Y = (X[:, :2] + rng.normal(size=(80, 2)) > 0).astype(np.int8)
    >>> cfg = dict(C=1.0, max_iter=200, n_estimators=5, min_samples_leaf=1, n_neighbors=5,
    ...            hidden_layer_sizes=[4], seed=0, n_samples=100)
    >>> rows, _ = run_model(Dataset("toy", X[:60], Y[:60], X[60:], Y[60:]), "knn", cfg)
    >>> rows[["method", "route"]].values.tolist()
    [['predict', 'predict'], ['FOptimal', 'neighbors+gfm']]
    """
    from sklearn.frozen import FrozenEstimator

    from fmeasure.experiments.findings import instance_scores
    from fmeasure.learners.foptimal import FOptimalClassifier

    Xtr, Xte = _dense(ds.X_train), _dense(ds.X_test)
    Ytr, Yte = np.asarray(ds.Y_train, dtype=np.int8), np.asarray(ds.Y_test, dtype=np.int8)
    const = Ytr.min(axis=0) == Ytr.max(axis=0)
    keep = np.flatnonzero(~const)
    if const.any():
        log.info("%s: %d labels constant in training, predicted as their constant", ds.name, int(const.sum()))
    if len(keep) == 0:
        raise ValueError(f"{ds.name}: every label is constant in the training set")
    model = make_model(key, cfg, n_jobs=n_jobs)
    log.info("%s %s: fitting on %d x %d, %d labels", ds.name, MODELS[key], Xtr.shape[0], Xtr.shape[1], len(keep))
    t0 = time.perf_counter()
    mem_mb = cfg.get("forest_mem_mb")
    n_trees = _fit_with_progress(
        model, Xtr, Ytr[:, keep], f"{ds.name} {MODELS[key]}", mem_mb=None if mem_mb is None else float(mem_mb)
    )
    fit_s = time.perf_counter() - t0
    clf = FOptimalClassifier(FrozenEstimator(model), n_samples=int(cfg["n_samples"]), random_state=int(cfg["seed"]))
    clf.fit(Xtr, Ytr[:, keep])

    def full(Hk):
        H = np.repeat(Ytr[:1], len(Xte), axis=0)  # constant labels: their training value
        H[:, keep] = np.asarray(Hk).reshape(len(Xte), -1)
        return H

    rows, inst = [], []
    for method, fn in (("predict", model.predict), ("FOptimal", clf.predict)):
        t0 = time.perf_counter()
        H = full(fn(Xte))
        pred_s = time.perf_counter() - t0
        per = metrics.per_instance(Yte, H, jaccard_empty=jaccard_empty)
        route = clf.route_ if method == "FOptimal" else "predict"
        rows.append(
            {
                "dataset": ds.name,
                "model": MODELS[key],
                "method": method,
                "route": route,
                **{k: 100 * float(np.mean(v)) for k, v in per.items()},
                "fit_time_s": fit_s,
                "predict_time_s": pred_s,
                "n_trees": np.nan if n_trees is None else n_trees,
            }
        )
        s = instance_scores(Yte, H, jaccard_empty=jaccard_empty)
        s.insert(0, "method", method)
        s.insert(0, "model", MODELS[key])
        s.insert(0, "dataset", ds.name)
        inst.append(s)
        log.info("%s %s %s: F=%.2f%% (%s), predict %.2f s", ds.name, MODELS[key], method, rows[-1]["f"], route, pred_s)
    return pd.DataFrame(rows, columns=COLUMNS), pd.concat(inst, ignore_index=True)


def gains(instances: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per (dataset, model): F of both methods, the gain FOptimal - predict and its paired
    bootstrap SE over test instances (points of F)."""
    from fmeasure.experiments.findings import bootstrap_margin

    rows = []
    for (d, mo), g in instances.groupby(["dataset", "model"], sort=False):
        w = g.pivot_table(index="instance", columns="method", values="f", aggfunc="first")
        margin, se = bootstrap_margin(
            {m: w[m].to_numpy() for m in METHODS}, ["FOptimal"], ["predict"], n_boot=n_boot, seed=seed
        )
        rows.append(
            {
                "dataset": d,
                "model": mo,
                "f_predict": float(w["predict"].mean()),
                "f_foptimal": float(w["FOptimal"].mean()),
                "gain": margin,
                "se": se,
            }
        )
    return pd.DataFrame(rows)


def capped_forests(results, n_estimators: int) -> str:
    """The caption's sentence on forests that stopped short of ``n_estimators`` trees ("" if none)."""
    if "n_trees" not in results:
        return ""
    rows = results[(results.method == "FOptimal") & (results.n_trees < n_estimators)]
    if rows.empty:
        return ""
    each = ", ".join(f"{d} ({int(t)} trees)" for d, t in zip(rows.dataset, rows.n_trees))
    return (
        f"Forests with fewer than {n_estimators} trees, the most whose leaf probabilities fit in "
        f"foptimal.forest_mem_mb: {each}."
    )


def write_foptimal_table(results, instances, csv_path, md_path, *, caption, n_boot=1000, seed=0, n_estimators=None):
    """``foptimal.{csv,md}``: per dataset and model, both methods' measures, the F gain and its SE.

    ``n_estimators``: the configured forest size; forests that stopped short of it (see
    :func:`capped_forests`) are named in the caption. Returns the table as written to the CSV.
    """
    from fmeasure.tables import write_table

    if n_estimators is not None:
        caption = " ".join(x for x in (caption, capped_forests(results, int(n_estimators))) if x)

    order = {m: i for i, m in enumerate(MODELS.values())}
    g = gains(instances, n_boot=n_boot, seed=seed)
    wide = results.pivot_table(
        index=["dataset", "model"],
        columns="method",
        values=["hamming", "f", "predict_time_s"],
        aggfunc="first",
    )
    wide.columns = [f"{v}_{'foptimal' if m == 'FOptimal' else 'predict'}" for v, m in wide.columns]
    wide = wide.reset_index()
    route = results[results.method == "FOptimal"][["dataset", "model", "route", "fit_time_s"]]
    df = g.merge(route, on=["dataset", "model"]).merge(
        wide.drop(columns=["f_predict", "f_foptimal"]), on=["dataset", "model"]
    )
    datasets = list(dict.fromkeys(results["dataset"]))
    df["_d"] = df["dataset"].map({d: i for i, d in enumerate(datasets)})
    df["_m"] = df["model"].map(order)
    df = df.sort_values(["_d", "_m"]).drop(columns=["_d", "_m"]).reset_index(drop=True)
    cols = [
        "dataset",
        "model",
        "route",
        "f_predict",
        "f_foptimal",
        "gain",
        "se",
        "hamming_predict",
        "hamming_foptimal",
        "fit_time_s",
        "predict_time_s_predict",
        "predict_time_s_foptimal",
    ]
    df = df[cols]
    md = df.copy()
    for c in ("f_predict", "f_foptimal", "hamming_predict", "hamming_foptimal"):
        md[c] = md[c].map(lambda v: f"{v:.2f}")
    md["gain"] = [f"{a:+.2f} ± {b:.2f}" for a, b in zip(df.gain, df.se)]
    md = md.drop(columns=["se"]).rename(columns={"gain": "gain ± SE"})
    for c in ("fit_time_s", "predict_time_s_predict", "predict_time_s_foptimal"):
        md[c] = md[c].map(lambda v: f"{v:.3g}")
    write_table(df, csv_path, md_path, caption=caption, md_df=md)
    return df


def write_foptimal_figure(table, png_path, pdf_path=None, *, z: float = 2.0):
    """F gain of FOptimalClassifier over each model's ``predict`` (points, ± z SE), per dataset."""
    from fmeasure.figures import plt, save_figure

    t = pd.read_csv(table) if not isinstance(table, pd.DataFrame) else table
    datasets = list(dict.fromkeys(t.dataset))
    models = [m for m in MODELS.values() if m in set(t.model)]
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(datasets) * max(1, len(models)) / 3, 3.4))
    width = 0.8 / max(1, len(models))
    hatches = ["", "//", "..", "xx", "\\\\"]
    for j, mo in enumerate(models):
        sub = t[t.model == mo].set_index("dataset").reindex(datasets)
        x = np.arange(len(datasets)) + (j - (len(models) - 1) / 2) * width
        ax.bar(
            x,
            sub.gain,
            width,
            yerr=z * sub.se,
            capsize=2,
            color=str(0.25 + 0.6 * j / max(1, len(models) - 1)),
            edgecolor="black",
            hatch=hatches[j % len(hatches)],
            label=mo.replace("(LogisticRegression)", "(LR)"),
        )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(np.arange(len(datasets)), datasets)
    ax.set_ylabel("test F: FOptimal - predict (points)")
    ax.legend(fontsize=7, frameon=False)
    save_figure(fig, png_path, pdf_path)


def run_findings(table, *, z: float = 2.0, link: str = "#sec-foptimal") -> list[dict]:
    """One finding per model: "FOptimalClassifier >= model.predict" in test F, one cell per dataset
    (margin = the gain in points, SE its paired bootstrap SE; see
    :func:`fmeasure.experiments.findings.combine`)."""
    from fmeasure.experiments.findings import cells_finding, paper_claims

    t = pd.read_csv(table) if not isinstance(table, pd.DataFrame) else table
    cat = paper_claims().set_index("claim_id")
    out = []
    for key, name in MODELS.items():
        sub = t[t.model == name]
        cells = pd.DataFrame({"label": sub.dataset, "margin": sub.gain, "se": sub.se})
        what = "beyond the paper: test F of FOptimalClassifier - the model's predict: " + ", ".join(
            f"{d} {g:+.2f} ± {s:.2f}" for d, g, s in zip(sub.dataset, sub.gain, sub.se)
        )
        out.append(
            cells_finding(CLAIM_IDS[key], cells, z=z, link=link, what=what, cat=cat, none_reason="model not run")
        )
    return out


def analysis(tables, points: float = 0.0, *, z: float = 2.0) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentences on this stage, from ``foptimal.csv`` in folder ``tables``: per model,
    the F gains over the datasets and how many exceed ``z`` standard errors either way. No cell is
    compared with the paper (it has none)."""
    path = Path(tables) / "foptimal.csv"
    if not path.exists():
        return [], []
    t = pd.read_csv(path)
    out = []
    for name in MODELS.values():
        sub = t[t.model == name]
        if not len(sub):
            continue
        up = int((sub.gain > z * sub.se).sum())
        down = int((sub.gain < -z * sub.se).sum())
        cells = ", ".join(f"{d} {g:+.2f} ± {s:.2f}" for d, g, s in zip(sub.dataset, sub.gain, sub.se))
        out.append(
            f"- {name} ({sub.route.iloc[0]}): F gain of FOptimalClassifier over predict {cells} points; "
            f"{up} of {len(sub)} datasets clearly better, {down} clearly worse."
        )
    return out, []
