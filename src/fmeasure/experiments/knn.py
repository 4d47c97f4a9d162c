"""The instance-based experiment of Section 7.2 (paper Tables 2 and 3).

:func:`run_knn` evaluates :class:`~fmeasure.learners.knn.KNeighborsFMeasure` on one dataset
for every neighbourhood size ``l`` and inference method, timing the neighbour search and the
inference in-process. :func:`write_tables` gathers the per-dataset results into Table 2
(Hamming loss, subset 0/1 loss, F-measure, Jaccard index in %) and Table 3 (seconds for
search + inference), each beside the paper's numbers with the difference.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure import metrics
from fmeasure.experiments.findings import DEVIATION_POINTS, deviation_sentences, instance_scores
from fmeasure.experiments.registry import METHOD_NAMES
from fmeasure.tables import beside_paper, paper_numbers, write_table
from fmeasure.timing import format_repeats, repeat_times, spread

__all__ = ["run_knn", "write_tables", "describe_empty_label_sets", "MEASURES"]

logger = logging.getLogger(__name__)

#: Table 2's measures: column -> (title, direction of "best").
MEASURES = {
    "hamming": ("Hamming loss [%]", "min"),
    "subset01": ("Subset 0/1 loss [%]", "min"),
    "f": ("F-measure [%]", "max"),
    "jaccard": ("Jaccard [%]", "max"),
}


def run_knn(
    ds, *, neighbours, methods, jaccard_empty=1.0, timing_best_of=1, return_instances=False, **estimator_params
):
    """Evaluate kNN with each inference method and neighbourhood size on one dataset.

    Parameters
    ----------
    ds : fmeasure.datasets.Dataset
        Train/test split (``X_train, Y_train, X_test, Y_test, name``).
    neighbours : list of int
        Neighbourhood sizes ``l``.
    methods : list of str
        Inference methods, from ``{"mm", "jm", "fm", "gfm"}``.
    jaccard_empty : float
        Jaccard index of an empty prediction for an empty label set.
    timing_best_of : int
        Each timed step runs this many times, in rounds (per ``l``: the search, then each
        method's inference) so that the steps compared share the machine's load; the smallest
        time is kept, with all of them and their spread.
    return_instances : bool
        Also return the per-instance scores (for the bootstrap of the findings).
    **estimator_params
        Passed to :class:`~fmeasure.learners.knn.KNeighborsFMeasure` (``scaling``, ``ties``,
        ``mm_half``, ``tie_tolerance``, ``n_jobs``, ...).

    Returns
    -------
    DataFrame
        One row per (l, method): ``dataset, l, method`` (upper case), the four measures in %,
        ``search_time_s`` (neighbour search for this l, shared by the methods), ``inference_time_s``
        (gathering labels, estimation, inference), each the best of the repeats, and
        ``time_s = search_time_s + inference_time_s``; ``search_time_s_repeats`` and
        ``inference_time_s_repeats`` (every repeat, :func:`fmeasure.timing.format_repeats`) and
        ``search_time_s_spread``, ``inference_time_s_spread`` (:func:`fmeasure.timing.spread`, %).
        With ``return_instances=True``, a pair ``(table, instances)``: ``instances`` has one row per
        (l, method, test instance) with the four measures in %.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]]); Y = np.array([[1, 0], [1, 1], [1, 0], [0, 1]])
    >>> ds = SimpleNamespace(name="toy", X_train=X, Y_train=Y, X_test=X[:2], Y_test=Y[:2])
    >>> run_knn(ds, neighbours=[3], methods=["mm"])[["l", "method", "hamming"]].values.tolist()
    [[3, 'MM', 25.0]]
    """
    # the learner is imported here, where it fits: the table and findings jobs stay light
    from fmeasure.learners.knn import INFERENCE_METHODS, KNeighborsFMeasure

    bad = [m for m in methods if m not in INFERENCE_METHODS]
    if bad:
        raise ValueError(f"methods: unknown inference methods {bad}; choose from {INFERENCE_METHODS}")
    est = KNeighborsFMeasure(**estimator_params).fit(ds.X_train, ds.Y_train)
    Y = np.asarray(ds.Y_test)
    rows, inst = [], []
    repeats = max(1, int(timing_best_of))
    for l in neighbours:
        est.set_params(n_neighbors=int(l))
        t_search, t_inf, preds = [], {m: [] for m in methods}, {}
        for _ in range(repeats):  # rounds: a burst of load falls on every step of a round alike
            t, (_, ind) = repeat_times(lambda: est.kneighbors(ds.X_test))
            t_search.append(t[0])
            for method in methods:
                est.set_params(inference=method)
                t, preds[method] = repeat_times(lambda: est.predict_from_neighbors(ind))
                t_inf[method].append(t[0])
        for method in methods:
            H = preds[method]
            rows.append(
                {
                    "dataset": ds.name,
                    "l": int(l),
                    "method": method.upper(),
                    **{k: 100 * v.mean() for k, v in metrics.per_instance(Y, H, jaccard_empty=jaccard_empty).items()},
                    "search_time_s": float(min(t_search)),
                    "inference_time_s": float(min(t_inf[method])),
                    "time_s": float(min(t_search) + min(t_inf[method])),
                    "search_time_s_repeats": format_repeats(t_search),
                    "inference_time_s_repeats": format_repeats(t_inf[method]),
                    "search_time_s_spread": spread(t_search),
                    "inference_time_s_spread": spread(t_inf[method]),
                    "n_test": Y.shape[0],
                    "n_test_empty": int((Y.sum(axis=1) == 0).sum()),
                }
            )
            logger.info("%s l=%d %s: F=%.2f%% in %.3f s", ds.name, l, method, rows[-1]["f"], rows[-1]["time_s"])
            if return_instances:
                inst.append(
                    instance_scores(Y, H, jaccard_empty=jaccard_empty).assign(
                        dataset=ds.name, l=int(l), method=method.upper()
                    )
                )
    if return_instances:
        cols = ["dataset", "l", "method", "instance", *MEASURES]
        return pd.DataFrame(rows), pd.concat(inst, ignore_index=True)[cols]
    return pd.DataFrame(rows)


#: Table 3's columns besides the total ``time_s``: each step's best time, its repeats and spread.
TABLE3_TIMES = [
    "search_time_s",
    "inference_time_s",
    "search_time_s_repeats",
    "inference_time_s_repeats",
    "search_time_s_spread",
    "inference_time_s_spread",
]


def _cell(ours, paper, digits):
    if pd.isna(paper):
        return f"{ours:.{digits}f}"
    return f"{ours:.{digits}f} ({paper:.{digits}f}, {ours - paper:+.{digits}f})"


def _paper_layout(df, values, digits, best=None):
    """Rows (dataset, method); columns (value, l); cells 'ours (paper, diff)'."""
    ls = sorted(df["l"].unique())
    datasets = list(dict.fromkeys(df["dataset"]))
    methods = [m for m in METHOD_NAMES if m in set(df["method"])]
    rows, bold = [], []
    for d in datasets:
        sub = df[df["dataset"] == d].set_index(["method", "l"])
        for m in methods:
            row, brow = {"dataset": d, "method": m}, {"dataset": False, "method": False}
            for v, title in values.items():
                for l in ls:
                    col = f"{title} l={l}"
                    r = sub.loc[(m, l)] if (m, l) in sub.index else None
                    row[col] = "" if r is None else _cell(r[v], r.get(f"{v}_paper", np.nan), digits)
                    if best is not None and r is not None:
                        col_vals = sub.xs(l, level="l")[v]
                        target = col_vals.min() if best[v] == "min" else col_vals.max()
                        brow[col] = bool(np.isclose(r[v], target, rtol=0, atol=1e-9))
                    else:
                        brow[col] = False
            rows.append(row)
            bold.append(brow)
    return pd.DataFrame(rows), pd.DataFrame(bold)


def speed_sentence(ratios) -> str:
    """What Table 3's comparison shows, from the ratios paper time / our time (one per cell).

    Examples
    --------
    >>> speed_sentence(pd.Series([12.0, 150.0, 40.0]))
    'Ours are faster in every cell, by a factor of 12 to 150 (median 40): 1-2 orders of magnitude.'
    >>> speed_sentence(pd.Series([3.0, 63.0]))
    'Ours are faster in every cell, by a factor of 3 to 63 (median 33): up to 1 order of magnitude.'
    >>> speed_sentence(pd.Series([np.nan]))
    ''
    """
    r = pd.Series(ratios, dtype=float).dropna()
    r = r[r > 0]
    if r.empty:
        return ""
    lo, hi, med = r.min(), r.max(), r.median()
    if lo > 1:
        k1, k2 = int(np.floor(np.log10(lo))), int(np.floor(np.log10(hi)))
        if k2 == 0:
            orders = "less than one order of magnitude"
        elif k1 == 0:
            orders = f"up to {k2} order{'s' if k2 > 1 else ''} of magnitude"
        elif k1 == k2:
            orders = f"{k1} order{'s' if k1 > 1 else ''} of magnitude"
        else:
            orders = f"{k1}-{k2} orders of magnitude"
        return f"Ours are faster in every cell, by a factor of {lo:.3g} to {hi:.3g} (median {med:.3g}): {orders}."
    if hi < 1:
        return f"Ours are slower in every cell: the paper's times are {lo:.3g} to {hi:.3g} times ours."
    return (
        f"The paper's times are {lo:.3g} to {hi:.3g} times ours (median {med:.3g}): faster in "
        f"{int((r > 1).sum())} of {len(r)} cells."
    )


def write_tables(results, *, table2_csv, table2_md, table3_csv, table3_md, caption2, caption3):
    """Write Tables 2 and 3 (tidy CSV + paper-layout Markdown), ours beside the paper's.

    Parameters
    ----------
    results : DataFrame
        Concatenated outputs of :func:`run_knn`.
    table2_csv, table2_md, table3_csv, table3_md : path
        Output files.
    caption2, caption3 : str
        Captions printed above the Markdown tables.

    Returns
    -------
    (table2, table3) : tuple of DataFrame
        The tidy tables written to the CSV files.
    """
    keys = ["dataset", "method", "l"]
    t2 = beside_paper(results[keys + list(MEASURES)], paper_numbers("table2"), keys, list(MEASURES))
    md2, bold2 = _paper_layout(
        t2, {v: t for v, (t, _) in MEASURES.items()}, 2, best={v: how for v, (_, how) in MEASURES.items()}
    )
    write_table(t2, table2_csv, table2_md, caption=caption2, md_df=md2, bold=bold2)

    t3 = beside_paper(results[keys + TABLE3_TIMES + ["time_s"]], paper_numbers("table3"), keys, ["time_s"])
    t3["time_ratio_paper_over_ours"] = t3["time_s_paper"] / t3["time_s"]
    md3, _ = _paper_layout(t3, {"time_s": "time [s]"}, 3)
    caption3 = f"{caption3} {speed_sentence(t3['time_ratio_paper_over_ours'])}".strip()
    write_table(t3, table3_csv, table3_md, caption=caption3, md_df=md3, float_format="{:.3f}")
    return t2, t3


def _base(name: str) -> str:
    return str(name).split("-")[0].lower()


def write_findings(
    instance_paths, table2_csv, table3_csv, out_csv, *, z=2.0, n_boot=1000, seed=0, deviation_points=DEVIATION_POINTS
):
    """``results/findings/knn.csv``: the claims of Section 7.2.1 by paired bootstrap over test
    instances, one cell per (dataset, l); Tables 2 and 3 against the paper."""
    from fmeasure.experiments import findings as F

    inst = pd.concat([pd.read_csv(p) for p in instance_paths], ignore_index=True)
    enron = inst.dataset.map(_base) == "enron"
    link = "#sec-knn"
    kw = dict(n_boot=n_boot, seed=seed)
    by = ["dataset", "l"]
    spec = [
        ("knn.mm_hamming", inst, "hamming", ["MM"], ["JM", "FM", "GFM"], "no dataset"),
        ("knn.jm_subset01", inst[~enron], "subset01", ["JM"], ["MM", "FM", "GFM"], "no dataset other than Enron"),
        ("knn.f_maximizers", inst, "f", ["FM", "GFM"], ["MM", "JM"], "no dataset"),
        ("knn.fm_enron", inst[enron], "f", ["FM"], ["GFM"], "Enron not in this run"),
        ("knn.gfm_others", inst[~enron], "f", ["GFM"], ["FM"], "no dataset other than Enron"),
    ]
    rows = []
    for cid, part, measure, a, b, why in spec:
        cells = F.bootstrap_cells(part, by, measure, a, b, **kw)
        rows.append(
            F.cells_finding(
                cid,
                cells,
                z=z,
                link=link,
                none_reason=why,
                what=f"{'/'.join(a)} vs best of {'/'.join(b)}, {MEASURES[measure][0]}",
            )
        )
    cat = F.paper_claims().set_index("claim_id")
    t2 = pd.read_csv(table2_csv)
    rows.insert(
        0,
        F.deviation_finding(
            "table2", t2, list(MEASURES), keys=("dataset", "method", "l"), link=link, threshold=deviation_points
        ),
    )
    t3 = pd.read_csv(table3_csv)
    search, inference = F.repeats_of(t3, "search_time_s"), F.repeats_of(t3, "inference_time_s")
    cells = pd.DataFrame(
        [
            F.time_cell(f"{r.dataset} l={r.l} {r.method}", search[i], inference[i])
            for i, r in enumerate(t3.itertuples(index=False))
        ],
        columns=["label", "margin", "se"],
    )
    ratio = float(np.exp(np.median(cells.margin) / 100)) if len(cells) else np.nan
    rows.append(
        F.cells_finding(
            "table3",
            cells,
            z=z,
            link=link,
            cat=cat,
            what=f"search time / inference time per cell, median {ratio:.3g}x "
            f"({F.timing_note([x.size for x in search + inference])})",
        )
    )
    return F.write_findings(rows, out_csv)


def describe_empty_label_sets(counts: dict, jaccard_empty: float) -> str:
    """A caption sentence stating how many test instances have an empty label set, and what follows.

    ``counts`` maps a dataset name to ``(k, n)``: k of its n test instances have no label. The
    sentence is computed from the run's data, so it stays true whatever the datasets.

    Examples
    --------
    >>> describe_empty_label_sets({"scene": (0, 1196), "birds": (153, 323)}, 1.0)
    '153 of 1519 test instances have an empty label set (scene 0 of 1196, birds 153 of 323); Jaccard(empty, empty) = 1 scores an empty prediction for them.'
    >>> describe_empty_label_sets({"scene": (0, 1196)}, 1.0)
    '0 of 1196 test instances have an empty label set, so the Jaccard convention for empty/empty changes no number here.'
    """
    k = sum(int(a) for a, _ in counts.values())
    n = sum(int(b) for _, b in counts.values())
    if k == 0:
        return (
            f"0 of {n} test instances have an empty label set, so the Jaccard convention for "
            "empty/empty changes no number here."
        )
    per = ", ".join(f"{name} {int(a)} of {int(b)}" for name, (a, b) in counts.items())
    return (
        f"{k} of {n} test instances have an empty label set ({per}); "
        f"Jaccard(empty, empty) = {jaccard_empty:g} scores an empty prediction for them."
    )


def analysis(tables, points: float) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentences on this stage, from the tables in folder ``tables``: Table 2's cells
    more than ``points`` from the paper (also returned, as frames), and the range of Table 3's
    ratios of the paper's times over ours."""
    tables = Path(tables)
    lines, dev = deviation_sentences(
        tables / "table2.csv", list(metrics.MEASURE_TITLES), ["dataset", "method", "l"], "Table 2", points
    )
    p = tables / "table3.csv"
    if p.exists():
        t = pd.read_csv(p)
        r = t["time_ratio_paper_over_ours"].dropna() if "time_ratio_paper_over_ours" in t else pd.Series(dtype=float)
        if len(r):
            lines.append(
                f"- Table 3: the paper's times are {r.min():.3g} to {r.max():.3g} times ours "
                f"(median {r.median():.3g}; different machines and implementations)."
            )
    return lines, dev
