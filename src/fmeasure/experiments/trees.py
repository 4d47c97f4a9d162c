"""F-measure decision trees and their bagging (Section 7.1.2), evaluated: beyond the paper.

The paper describes these learners but reports no numbers. :func:`run_trees` fits one model
family on one dataset and scores it on the test set; :func:`write_trees_table` gathers every
dataset into ``ftrees.{csv,md}``. Model families and the rows they give:

* ``tree``: one :class:`~fmeasure.learners.FMeasureTree` (``F-tree``);
* ``bag``: :class:`~fmeasure.learners.BaggedFMeasureTrees`, one fit, two predictions:
  GFM over the pooled leaf label vectors (``F-bag pooled``) and GFM over the trees'
  predictions (``F-bag vote``);
* ``forest``: scikit-learn's :class:`~sklearn.ensemble.RandomForestClassifier` on the multilabel
  Y with its own per-label majority (``RF MM``: marginal modes) and, on the same forest, GFM over
  the pooled label vectors of the training examples in the leaves a query reaches
  (``RF pooled GFM``).

``F-bag pooled`` against ``RF pooled GFM`` isolates the split criterion (both infer with GFM on
leaf neighbourhoods); ``RF pooled GFM`` against ``RF MM`` isolates F-aware inference.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fmeasure import metrics
from fmeasure.experiments.findings import instance_scores
from fmeasure.experiments.registry import TREE_MODELS, TREE_PREDICTIONS
from fmeasure.metrics import MEASURES
from fmeasure.tables import best_mask, write_table

__all__ = ["run_findings", "COLUMNS", "INSTANCE_COLUMNS", "MODELS", "run_trees", "write_trees_table"]

logger = logging.getLogger(__name__)

#: Model families (one job each) and the methods (table rows) each gives.
MODELS = TREE_MODELS
#: Columns of ftrees.csv (measures in %).
COLUMNS = ["dataset", "method", "hamming", "subset01", "f", "jaccard", "train_time_s", "inference_time_s"]
#: Columns of the per-instance test scores (``<model>_instances.csv.gz``, measures in %).
INSTANCE_COLUMNS = ["dataset", "method", "instance", *MEASURES]
_DIRECTIONS = {"hamming": "min", "subset01": "min", "f": "max", "jaccard": "max"}


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _row(ds, method, H, train_s, infer_s, jaccard_empty):
    Y = np.asarray(ds.Y_test)
    H = np.asarray(H)
    return {
        "dataset": ds.name,
        "method": method,
        **{k: 100 * v.mean() for k, v in metrics.per_instance(Y, H, jaccard_empty=jaccard_empty).items()},
        "train_time_s": train_s,
        "inference_time_s": infer_s,
    }


def _as_input(X, sparse_density):
    """X as CSR if its fraction of non-zeros is at most ``sparse_density`` (else unchanged)."""
    if sp.issparse(X):
        return sp.csr_array(X)
    X = np.asarray(X, dtype=np.float64)
    density = np.count_nonzero(X) / max(1, X.size)
    return sp.csr_array(X) if density <= sparse_density else X


def run_trees(
    ds,
    model,
    *,
    n_estimators=50,
    predictions=TREE_PREDICTIONS,
    max_depth=None,
    min_samples_leaf=5,
    max_bins=32,
    min_gain=0.0,
    max_features="sqrt",
    bootstrap=True,
    sparse_density=0.1,
    seed=0,
    n_jobs=1,
    jaccard_empty=1.0,
    return_instances=False,
):
    """Fit one model family on ``ds``'s training set and score every prediction on its test set.

    Parameters
    ----------
    ds : fmeasure.datasets.Dataset
    model : {"tree", "bag", "forest"}
    n_estimators : int
        Trees in the bag and in the forest.
    predictions : list of {"pooled", "vote"}
        Predictions of the bag to score.
    max_depth, min_samples_leaf, bootstrap
        Shared by the F-trees and the forest's trees (so that the split criterion is the difference).
    max_features : None, "sqrt", int or float
        Attributes searched per split in the ensembles (the bag and the forest alike); the
        single F-tree always searches all of them.
    max_bins, min_gain
        Of the F-trees (see :class:`~fmeasure.learners.FMeasureTree`).
    sparse_density : float
        X is passed as a sparse CSR matrix when at most this fraction of its entries is non-zero.
    seed : int
        Seeds the bootstrap samples and attribute subsets.
    n_jobs : int
        Trees fitted in parallel (bag and forest).
    jaccard_empty : float
        Jaccard index of an empty prediction for an empty label set.
    return_instances : bool
        Also return every test instance's scores (for the paired bootstrap of the findings).

    Returns
    -------
    DataFrame with :data:`COLUMNS`: measures in %, ``train_time_s`` (fit; for the forest's GFM
    row also locating the training examples' leaves) and ``inference_time_s`` (predicting the
    test set), both measured in-process. With ``return_instances=True``, a pair
    ``(table, instances)`` with :data:`INSTANCE_COLUMNS`.

    The F-trees' CPU time per phase (split search, the nodes' GFM, whole fits) and the
    prediction times are logged.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> ds = SimpleNamespace(name="toy", X_train=X, Y_train=Y, X_test=X, Y_test=Y)
    >>> run_trees(ds, "tree", min_samples_leaf=1)[["method", "f"]].values.tolist()
    [['F-tree', 100.0]]
    """
    # the learners are imported here, where they fit: the table and findings jobs stay light
    from fmeasure.learners.trees import BaggedFMeasureTrees, FMeasureTree, pooled_leaf_gfm

    if model not in MODELS:
        raise ValueError(f"model: expected one of {list(MODELS)}, got {model!r}")
    bad = [p for p in predictions if p not in TREE_PREDICTIONS]
    if bad or not predictions:
        raise ValueError(
            f"predictions: expected a non-empty subset of {list(TREE_PREDICTIONS)}, got {list(predictions)}"
        )
    Xtr, Xte = _as_input(ds.X_train, sparse_density), _as_input(ds.X_test, sparse_density)
    Ytr = np.asarray(ds.Y_train, dtype=np.int8)
    shared = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    rows = []
    if model == "tree":
        est, t_fit = _timed(
            lambda: FMeasureTree(max_bins=max_bins, min_gain=min_gain, random_state=seed, **shared).fit(Xtr, Ytr)
        )
        H, t_inf = _timed(lambda: est.predict(Xte))
        logger.info("%s F-tree: %d nodes, depth %d", ds.name, len(est.feature_), est.depth_.max())
        _log_phases(ds.name, "F-tree", est.timings_)
        rows.append(_row(ds, "F-tree", H, t_fit, t_inf, jaccard_empty))
        preds = {"F-tree": H}
    elif model == "bag":
        est, t_fit = _timed(
            lambda: BaggedFMeasureTrees(
                n_estimators=n_estimators,
                bootstrap=bootstrap,
                max_bins=max_bins,
                min_gain=min_gain,
                max_features=max_features,
                n_jobs=n_jobs,
                random_state=seed,
                **shared,
            ).fit(Xtr, Ytr)
        )
        _log_phases(ds.name, "F-bag", est.timings_)
        preds = {}
        for how in predictions:
            H, t_inf = _timed(lambda: est.predict(Xte, prediction=how))
            rows.append(_row(ds, f"F-bag {how}", H, t_fit, t_inf, jaccard_empty))
            preds[f"F-bag {how}"] = H
    else:
        from sklearn.ensemble import RandomForestClassifier

        forest = RandomForestClassifier(
            n_estimators=n_estimators,
            bootstrap=bootstrap,
            n_jobs=n_jobs,
            max_features=max_features,
            random_state=seed,
            **shared,
        )
        forest, t_fit = _timed(lambda: forest.fit(Xtr, Ytr))
        H, t_inf = _timed(lambda: forest.predict(Xte))
        rows.append(_row(ds, "RF MM", H.astype(np.int8), t_fit, t_inf, jaccard_empty))
        preds = {"RF MM": H.astype(np.int8)}
        train_leaves, t_leaves = _timed(lambda: forest.apply(Xtr))
        H, t_inf = _timed(lambda: pooled_leaf_gfm(train_leaves, forest.apply(Xte), Ytr)[0])
        rows.append(_row(ds, "RF pooled GFM", H, t_fit + t_leaves, t_inf, jaccard_empty))
        preds["RF pooled GFM"] = H
    for r in rows:
        logger.info(
            "%s %s: F=%.2f%% fit %.2f s, inference %.2f s",
            r["dataset"],
            r["method"],
            r["f"],
            r["train_time_s"],
            r["inference_time_s"],
        )
    table = pd.DataFrame(rows, columns=COLUMNS)
    if not return_instances:
        return table
    Y = np.asarray(ds.Y_test)
    inst = [
        instance_scores(Y, np.asarray(H), jaccard_empty=jaccard_empty).assign(dataset=ds.name, method=method)
        for method, H in preds.items()
    ]
    return table, pd.concat(inst, ignore_index=True)[INSTANCE_COLUMNS]


def _log_phases(name, model, timings):
    logger.info(
        "%s %s CPU: split search %.1f s, nodes' GFM %.1f s, whole fit %.1f s",
        name,
        model,
        timings["split_search_s"],
        timings["leaf_gfm_s"],
        timings["fit_s"],
    )


def write_trees_table(results, csv_path, md_path, *, caption):
    """Write ``ftrees.{csv,md}``: every dataset's rows in a fixed method order, best bold.

    Parameters
    ----------
    results : DataFrame
        Concatenated outputs of :func:`run_trees`.
    csv_path, md_path : path
    caption : str
        Printed above the Markdown table.

    Returns
    -------
    DataFrame
        The table as written to the CSV.
    """
    order = [m for methods in MODELS.values() for m in methods]
    df = results.copy()
    df["_m"] = df["method"].map({m: i for i, m in enumerate(order)})
    df["_d"] = pd.Categorical(df["dataset"], categories=list(dict.fromkeys(results["dataset"])))
    df = df.sort_values(["_d", "_m"]).drop(columns=["_m", "_d"]).reset_index(drop=True)[COLUMNS]
    bold = best_mask(df, _DIRECTIONS, by="dataset", atol=1e-9)
    md = df.copy()
    md["train_time_s"] = md["train_time_s"].map(lambda v: f"{v:.3g}")
    md["inference_time_s"] = md["inference_time_s"].map(lambda v: f"{v:.3g}")
    write_table(df, csv_path, md_path, caption=caption, bold=bold, md_df=md)
    return df


def run_findings(
    instances, *, z: float = 2.0, n_boot: int = 1000, seed: int = 0, link: str = "#sec-trees"
) -> list[dict]:
    """Section 7.1.2 (no numbers in the paper): GFM in the leaves of F-measure trees against the
    per-label majority of an ordinary forest, in points of test F.

    One cell per dataset: margin = best F-bag row - RF MM, with its paired bootstrap SE over the
    test instances (:func:`~fmeasure.experiments.findings.bootstrap_cells`); the cells combine as
    in :func:`~fmeasure.experiments.findings.combine`.

    Parameters
    ----------
    instances : list of path or DataFrame
        Per-instance test scores of the jobs (:data:`INSTANCE_COLUMNS`).
    z, n_boot, seed
        Verdict threshold in SEs, bootstrap resamples and their seed.
    """
    from fmeasure.experiments.findings import bootstrap_cells, cells_finding

    parts = [p if isinstance(p, pd.DataFrame) else pd.read_csv(p) for p in instances]
    inst = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=INSTANCE_COLUMNS)
    bags = sorted(m for m in inst["method"].unique() if str(m).startswith("F-bag"))
    cells = bootstrap_cells(inst, "dataset", "f", bags or ["F-bag"], ["RF MM"], n_boot=n_boot, seed=seed)
    what = "beyond the paper: best F-bag - random forest's per-label majority, F (paired bootstrap over test instances)"
    return [cells_finding("trees", cells, z=z, link=link, what=what, none_reason="no bag and forest rows")]
