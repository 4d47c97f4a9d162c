"""The structured stage (Section 7.2.4, Table 6): RML trained by us, and all methods side by side.

:func:`run_rml` fits :class:`fmeasure.learners.FMeasureSSVM` (C by cross-validated F, then a
refit) on a dataset's training part and scores it on the test part, timing training (tuning
included, as the paper) and inference in-process. :func:`run_table6` gathers Table 6 from the
other stages' outputs, without refitting anything: IB FM / IB GFM at the smallest l within one
standard error of their best l (Tables 2 and 3), PCC FM / PCC GFM at the smallest number of samples
n within one standard error of their best n (Figure 5's curve), LFP and
EFP (Table 5), RML; optional extra rows are appended "beyond the paper". :func:`write_table6`
writes it beside the paper's numbers and :func:`table6_claims` checks the section's qualitative
claims on our numbers.

Example
-------
>>> import numpy as np
>>> from fmeasure.datasets import Dataset
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(90, 3)); Y = (X[:, :2] > 0).astype(np.int8)
>>> ds = Dataset("toy", X[:60], Y[:60], X[60:], Y[60:])
>>> row = run_rml(ds, {"Cs": [1.0, 10.0], "cv": 3, "seed": 0, "tol": 1e-3, "max_iter": 50, "batch_size": 16})
>>> row.loc[0, "method"], bool(row.loc[0, "f"] > 50)
('RML', True)
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fmeasure.experiments.findings import DEVIATION_POINTS
from fmeasure.metrics import f_measure, hamming_loss
from fmeasure.tables import best_mask, paper_numbers, write_table

# RML is imported where it is made: the table and findings jobs stay light.
if TYPE_CHECKING:
    from fmeasure.learners.ssvm import FMeasureSSVM

__all__ = [
    "run_findings",
    "table6_instances",
    "make_rml",
    "run_rml",
    "run_table6",
    "write_table6",
    "table6_claims",
    "write_claims",
    "METHODS",
]

log = logging.getLogger(__name__)

#: Row order of Table 6 (the paper's).
METHODS = ["IB FM", "IB GFM", "PCC FM", "PCC GFM", "LFP", "EFP", "RML"]
VALUES = ["f", "train_time_s", "inference_time_s"]


def make_rml(cfg: dict, n_jobs: int | None = None) -> FMeasureSSVM:
    """An unfitted RML configured from the ``structured`` config block.

    Keys: ``Cs``, ``cv``, ``seed``, ``tol``, ``max_iter``, ``batch_size`` and (optional)
    ``solver`` (default ``"bcfw"``), ``standardize``, ``extend_grid``, ``patience``, ``refit_tol``.
    """
    from fmeasure.learners.ssvm import FMeasureSSVM

    return FMeasureSSVM(
        Cs=tuple(cfg["Cs"]),
        cv=int(cfg["cv"]),
        tol=float(cfg["tol"]),
        max_iter=int(cfg["max_iter"]),
        batch_size=int(cfg["batch_size"]),
        standardize=bool(cfg.get("standardize", False)),
        random_state=int(cfg["seed"]),
        n_jobs=n_jobs,
        extend_grid=int(cfg.get("extend_grid", 0)),
        patience=None if cfg.get("patience") is None else int(cfg["patience"]),
        refit_tol=None if cfg.get("refit_tol") is None else float(cfg["refit_tol"]),
        solver=str(cfg.get("solver", "bcfw")),
    )


def run_rml(ds, cfg: dict, n_jobs: int | None = None, return_instances: bool = False):
    """Fit RML on ``ds``'s training part (tuning included), predict its test part, score and time.

    Returns
    -------
    DataFrame
        One row: ``dataset``, ``method`` ("RML"), ``f`` and ``hamming`` (%, test set),
        ``train_time_s`` (CV over the C grid + refit) and ``inference_time_s`` (all labels'
        scores on the test set, thresholded), ``train_cpu_time_s`` (CPU seconds of this process
        and of its fold workers), ``C`` (chosen), ``C_at_edge`` ("upper", "lower" or empty: the
        chosen C is an end of the searched grid), ``Cs`` (the searched grid), ``cv_f`` (mean CV F
        of the chosen C, %), ``n_iter`` (passes of the final fit), ``duality_gap``,
        ``stopped_by`` ("tol" or "max_iter"), ``cv_capped`` (fold fits stopped by the pass cap /
        all fold fits), ``cv_max_gap`` (largest final duality gap of a fold fit at the chosen C),
        ``Cs_skipped`` (values of the grid that the patience rule skipped).
        With ``return_instances=True``, a pair ``(row, instances)``: the per-instance scores of
        the test set (:func:`fmeasure.experiments.findings.instance_scores`), for the bootstrap
        of the findings.
    """
    from fmeasure.experiments.findings import instance_scores

    model = make_rml(cfg, n_jobs=n_jobs)
    t0 = time.perf_counter()
    model.fit(ds.X_train, ds.Y_train)
    t1 = time.perf_counter()
    H = model.predict(ds.X_test)
    t2 = time.perf_counter()
    stops = [s for per_c in getattr(model, "cv_stops_", []) for (_, s) in per_c]
    at = int(np.flatnonzero(np.asarray(model.Cs_) == model.C_)[0])
    gaps = getattr(model, "cv_gaps_", None)
    row = {
        "dataset": ds.name,
        "method": "RML",
        "f": 100.0 * float(np.mean(f_measure(ds.Y_test, H))),
        "hamming": 100.0 * float(np.mean(hamming_loss(ds.Y_test, H))),
        "train_time_s": t1 - t0,
        "inference_time_s": t2 - t1,
        "train_cpu_time_s": model.fit_cpu_time_,
        "C": model.C_,
        "C_at_edge": model.C_at_edge_,
        "Cs": " ".join(f"{c:g}" for c in model.Cs_),
        "cv_f": 100.0 * float(np.nanmax(model.cv_scores_)) if np.any(np.isfinite(model.cv_scores_)) else np.nan,
        "n_iter": model.n_iter_,
        "duality_gap": model.duality_gap_,
        "stopped_by": model.stopped_by_,
        "cv_capped": f"{sum(s == 'max_iter' for s in stops)}/{len(stops)}",
        "cv_max_gap": float(np.max(gaps[at])) if gaps is not None else np.nan,
        "Cs_skipped": " ".join(f"{c:g}" for c in getattr(model, "Cs_skipped_", [])),
    }
    if row["stopped_by"] != "tol" or row["cv_max_gap"] > model.tol:
        log.warning(
            "RML on %s: a fit at the chosen C = %g stopped above the duality-gap tolerance %g (refit gap %.2e, "
            "largest CV gap %.2e): raise structured.max_iter",
            ds.name,
            row["C"],
            model.tol,
            row["duality_gap"],
            row["cv_max_gap"],
        )
    log.info(
        "RML on %s: C = %g%s, F %.2f%%, train %.1f s (%.1f s CPU; %d iterations, gap %.2e, %s), inference %.3f s",
        ds.name,
        row["C"],
        f" (at the {row['C_at_edge']} edge of the grid)" if row["C_at_edge"] else "",
        row["f"],
        row["train_time_s"],
        row["train_cpu_time_s"],
        row["n_iter"],
        row["duality_gap"],
        row["stopped_by"],
        row["inference_time_s"],
    )
    out = pd.DataFrame([row])
    if return_instances:
        inst = instance_scores(ds.Y_test, H).assign(dataset=ds.name, method="RML")
        return out, inst[
            ["dataset", "method", "instance", *[c for c in inst.columns if c not in ("dataset", "method", "instance")]]
        ]
    return out


def _read(path_or_paths) -> pd.DataFrame:
    paths = (
        [path_or_paths]
        if isinstance(path_or_paths, (str, bytes)) or hasattr(path_or_paths, "__fspath__")
        else list(path_or_paths)
    )
    frames = [pd.read_csv(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _smallest_within_one_se(df: pd.DataFrame, key: str, se_of_difference) -> pd.DataFrame:
    """Per (dataset, method), the row of the smallest ``key`` whose F is within one standard error of
    the best F (the setting that cannot be told apart from the best, and costs least).

    ``se_of_difference(rows, best)`` gives, for each row of one (dataset, method) group, the standard
    error of ``best.f - row.f``. A row is kept when ``best.f - row.f <= se``; with every SE 0 this is
    the best F (ties: the smaller ``key``). Unlike the best F alone, the choice does not flip when two
    settings differ by less than their standard error (a last-digit change of one fit, from one CPU
    to another, can reorder two such settings).
    """
    out = []
    for _, g in df.sort_values(["dataset", "method", key], kind="stable").groupby(["dataset", "method"], sort=False):
        best = g.loc[g["f"].idxmax()]  # the first of equal F: the smaller key
        se = np.nan_to_num(np.asarray(se_of_difference(g, best), dtype=float))
        near = (best["f"] - g["f"]).to_numpy() <= se + 1e-9
        out.append(g.iloc[[int(np.flatnonzero(near)[0])]])
    return pd.concat(out) if out else df.iloc[:0]


def _paired_se(instances: pd.DataFrame, key: str):
    """For :func:`_smallest_within_one_se`: the SE of the mean per-instance difference of F between
    the best setting and each other one, on the same test instances (paired)."""
    wide = {
        dm: g.pivot(index="instance", columns=key, values="f")
        for dm, g in instances.groupby(["dataset", "method"], sort=False)
    }

    def se(rows, best):
        w = wide.get((best["dataset"], best["method"]))
        if w is None or best[key] not in w.columns:
            return np.zeros(len(rows))
        out = []
        for v in rows[key]:
            if v not in w.columns:
                out.append(0.0)
                continue
            d = (w[best[key]] - w[v]).dropna().to_numpy()
            out.append(float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0)
        return out

    return se


def _runs_se(rows, best):
    """For :func:`_smallest_within_one_se`: the SE of the difference of two means over independent
    runs (each setting's ``f_se``), 0 where the SE is unknown."""
    se = rows["f_se"].to_numpy(dtype=float) if "f_se" in rows else np.zeros(len(rows))
    b = float(best["f_se"]) if "f_se" in best and np.isfinite(best["f_se"]) else 0.0
    return np.hypot(np.nan_to_num(se), b)


def run_table6(rml, *, table2, table3, table4, figure5, table5, knn_instances=(), extra=()) -> pd.DataFrame:
    """Table 6 from the stages' outputs (no refit).

    Parameters
    ----------
    rml : path or list of paths
        :func:`run_rml` rows (one CSV per dataset).
    table2, table3 : path
        The kNN stage's tables (``dataset, method, l, f`` and ``dataset, method, l, time_s``);
        IB FM / IB GFM are taken at the smallest l whose F is within one standard error of the
        best l's (the SE of the paired per-instance difference, from ``knn_instances``), with the
        time of Table 3 (search + inference) at that l and no training time.
    table4 : path
        PCC's Table 4 (``n_samples, f, train_time_s, inference_time_s`` per method).
    figure5 : path or None
        PCC's Figure 5 curve (``n_samples, f_mean, f_se, time_mean``, mean and SE over its runs);
        PCC FM / GFM are taken at the smallest n whose mean F is within one standard error (of the
        difference of the two means) of the best n's; without a curve, at Table 4's n.
    table5 : path
        The parametric stage's Table 5 (``method, f, train_time_s, inference_time_s``).
    knn_instances : list of paths, optional
        The kNN stage's per-instance scores (``dataset, l, method, instance, f``). Without them
        the IB setting is the best F alone (ties: the smaller l).
    extra : list of paths, optional
        Rows "beyond the paper" (``dataset, method, f, train_time_s, inference_time_s``; other
        columns ignored), appended after the paper's methods of each dataset.

    Returns
    -------
    DataFrame
        ``dataset, section, method, setting, f, train_time_s, inference_time_s`` (measures in %,
        times in seconds), the datasets in the order of the RML rows.
    """
    rml = _read(rml)
    datasets = list(dict.fromkeys(rml["dataset"]))
    rows = []
    # kNN
    t2, t3 = _read(table2), _read(table3)
    inst = (
        _read(knn_instances)
        if len(knn_instances)
        else pd.DataFrame(columns=["dataset", "method", "l", "instance", "f"])
    )
    ib = _smallest_within_one_se(
        t2[t2.method.isin(["FM", "GFM"])][["dataset", "method", "l", "f"]], "l", _paired_se(inst, "l")
    )
    ib = ib.merge(t3[["dataset", "method", "l", "time_s"]], on=["dataset", "method", "l"], how="left")
    for r in ib.itertuples():
        rows.append(
            {
                "dataset": r.dataset,
                "method": f"IB {r.method}",
                "setting": f"l = {int(r.l)}",
                "f": r.f,
                "train_time_s": np.nan,
                "inference_time_s": r.time_s,
            }
        )
    # PCC
    t4 = _read(table4)
    t4 = t4[t4.method.isin(["FM", "GFM"])]
    cand = t4[["dataset", "method", "n_samples", "f", "inference_time_s"]]
    if figure5 is not None:  # the curve: every n, mean and SE over its runs
        f5 = _read(figure5).rename(columns={"f_mean": "f", "time_mean": "inference_time_s"})
        curve = f5[["dataset", "method", "n_samples", "f", "inference_time_s", *(["f_se"] if "f_se" in f5 else [])]]
        missing = ~cand.set_index(["dataset", "method"]).index.isin(curve.set_index(["dataset", "method"]).index)
        cand = pd.concat([curve, cand[missing]], ignore_index=True)
    pcc = _smallest_within_one_se(cand, "n_samples", _runs_se).merge(
        t4[["dataset", "method", "train_time_s"]].drop_duplicates(["dataset", "method"]),
        on=["dataset", "method"],
        how="left",
    )
    for r in pcc.itertuples():
        rows.append(
            {
                "dataset": r.dataset,
                "method": f"PCC {r.method}",
                "setting": f"n = {int(r.n_samples)}",
                "f": r.f,
                "train_time_s": r.train_time_s,
                "inference_time_s": r.inference_time_s,
            }
        )
    # parametric
    t5 = _read(table5)
    for r in t5[t5.method.isin(["LFP", "EFP"])].itertuples():
        rows.append(
            {
                "dataset": r.dataset,
                "method": r.method,
                "setting": "",
                "f": r.f,
                "train_time_s": r.train_time_s,
                "inference_time_s": r.inference_time_s,
            }
        )
    for r in rml.itertuples():
        rows.append(
            {
                "dataset": r.dataset,
                "method": "RML",
                "setting": f"C = {r.C:g}",
                "f": r.f,
                "train_time_s": r.train_time_s,
                "inference_time_s": r.inference_time_s,
            }
        )
    table = pd.DataFrame(rows).assign(section="paper")
    table = table[table.dataset.isin(datasets)]
    if extra:
        ex = _read(extra)
        ex = ex[ex.dataset.isin(datasets)][["dataset", "method", *VALUES]].assign(
            section="beyond the paper", setting=""
        )
        table = pd.concat([table, ex], ignore_index=True)
    rank_d = {d: i for i, d in enumerate(datasets)}
    rank_m = {m: i for i, m in enumerate(METHODS)}
    table = table.assign(
        _d=table.dataset.map(rank_d),
        _s=(table.section != "paper").astype(int),
        _m=table.method.map(rank_m).fillna(len(METHODS)),
    )
    table = table.sort_values(["_d", "_s", "_m"], kind="stable").drop(columns=["_d", "_s", "_m"])
    return table[["dataset", "section", "method", "setting", *VALUES]].reset_index(drop=True)


CAPTION = (
    "**Table 6.** All F-maximizing methods and RML (a linear structured SVM trained on the loss "
    "1 - F), test sets: instance-wise F-measure (%), training time (s; tuning included; none for "
    "the instance-based methods) and inference time (s; the whole test set). IB at the smallest "
    "number of neighbours l and PCC at the smallest number of samples n whose F is within one standard "
    "error of the best setting's (IB: the SE of the paired per-instance difference on the test set; "
    "PCC: the SE of the difference of two means over Figure 5's runs), so that two settings closer "
    "than their standard error do not swap with the last digit of a fit (Tables 2-5 and Figure 5 of "
    "this run, not refitted; the paper takes the best F); RML's C chosen by cross-validation on F, then refitted. Wall clock on a shared 2-core machine "
    "(the paper: 8 cores, Java and C++). The paper's values beside ours; the best of the paper's "
    "methods per dataset in bold (ours and, separately, the paper's)."
)


def write_table6(table: pd.DataFrame, csv_path, md_path, caption: str = CAPTION) -> pd.DataFrame:
    """Write Table 6 (tidy CSV with ``*_paper`` columns beside ours; paper-like Markdown)."""
    paper = paper_numbers("table6").rename(columns={c: f"{c}_paper" for c in ["setting", *VALUES]})
    out = table.merge(paper, on=["dataset", "method"], how="left")
    out.loc[out.section != "paper", [c for c in out.columns if c.endswith("_paper")]] = np.nan
    order = ["dataset", "section", "method", "setting", "setting_paper"]
    for v in VALUES:
        order += [v, f"{v}_paper"]
    out = out[order]
    in_paper = out.section == "paper"
    bold_src = best_mask(
        out[in_paper],
        {
            "f": "max",
            "f_paper": "max",
            "train_time_s": "min",
            "train_time_s_paper": "min",
            "inference_time_s": "min",
            "inference_time_s_paper": "min",
        },
        by="dataset",
        atol=5e-3,
    )
    md_rows, bold_rows = [], []
    labels = {"f": "F [%]", "train_time_s": "Training [s]", "inference_time_s": "Inference [s]"}
    fmts = {"f": "{:.2f}", "train_time_s": "{:.1f}", "inference_time_s": "{:.3f}"}
    for d in dict.fromkeys(out.dataset):
        sub = out[out.dataset == d]
        marked = False
        for i, r in sub.iterrows():
            if r.section != "paper" and not marked:
                md_rows.append({"Dataset": d, "Method": "*beyond the paper:*"})
                bold_rows.append({})
                marked = True
            name = r.method + (f" ({r.setting})" if isinstance(r.setting, str) and r.setting else "")
            row = {"Dataset": d, "Method": name}
            brow = {}
            for v in VALUES:
                for col, src in ((labels[v], v), (f"{labels[v]} paper", f"{v}_paper")):
                    x = r[src]
                    row[col] = "" if pd.isna(x) else fmts[v].format(x)
                    brow[col] = bool(in_paper[i] and bold_src.loc[i, src])
            if isinstance(r.setting_paper, str) and r.setting_paper and r.setting_paper != r.setting:
                row["Method"] += f" [paper: {r.setting_paper}]"
            md_rows.append(row)
            bold_rows.append(brow)
    md = pd.DataFrame(md_rows).fillna("")
    bold = pd.DataFrame([[bool(b.get(c, False)) for c in md.columns] for b in bold_rows], columns=md.columns)
    write_table(out, csv_path, md_path, caption=caption, bold=bold, md_df=md)
    return out


def _row(t, d, m):
    r = t[(t.dataset == d) & (t.method == m)]
    return r.iloc[0] if len(r) else None


def table6_claims(table: pd.DataFrame) -> pd.DataFrame:
    """The qualitative claims of Section 7.2.4, checked on a Table 6 (paper rows only).

    Returns a frame ``claim, dataset, paper, ours, detail, ours_time, detail_time``: ``paper`` is
    what the paper states (True), ``ours`` whether our F-measures bear it out; claims about run
    times go to ``ours_time`` / ``detail_time`` instead (wall-clock times vary between runs, the
    F-measures do not).
    """
    t = table[table.section == "paper"]
    out = []

    def add(claim, d, ok, detail, timing=False):
        row = {"claim": claim, "dataset": d, "paper": True}
        row.update({"ours_time": ok, "detail_time": detail} if timing else {"ours": ok, "detail": detail})
        out.append(row)

    others = [m for m in METHODS if m != "RML"]
    for d in dict.fromkeys(t.dataset):
        sub = t[t.dataset == d].set_index("method")
        if "RML" not in sub.index:
            continue
        f = sub["f"]
        best_other = f[others].idxmax()
        add(
            "An inference-time F-maximizer beats RML on F",
            d,
            bool(f[others].max() > f["RML"]),
            f"best: {best_other} {f[best_other]:.2f} vs RML {f['RML']:.2f}",
        )
        inf = sub["inference_time_s"]
        fastest = inf.idxmin()
        add(
            "RML is the fastest at inference",
            d,
            bool(fastest == "RML"),
            f"fastest: {fastest} {inf[fastest]:.3f} s; RML {inf['RML']:.3f} s",
            timing=True,
        )
        ib_pcc = ["IB FM", "IB GFM", "PCC FM", "PCC GFM"]
        if d == "scene":
            ok = bool(f["RML"] > f[ib_pcc].max() and f["RML"] < f[["LFP", "EFP"]].min())
            add(
                "Scene: RML beats IB and PCC but loses to LFP and EFP",
                d,
                ok,
                f"RML {f['RML']:.2f}; IB/PCC best {f[ib_pcc].max():.2f}; LFP/EFP worst {f[['LFP', 'EFP']].min():.2f}",
            )
        if d in ("yeast", "mediamill"):
            add(
                f"{d.capitalize()}: RML has the worst F",
                d,
                bool(f["RML"] <= f.min() + 1e-12),
                f"RML {f['RML']:.2f}; worst of the others {f[others].min():.2f}",
            )
        if d == "enron":
            ok = bool(
                f["RML"] > f[["IB FM", "IB GFM"]].max() and f["RML"] < f[["PCC FM", "PCC GFM", "LFP", "EFP"]].min()
            )
            add(
                "Enron: RML beats only the instance-based methods",
                d,
                ok,
                f"RML {f['RML']:.2f}; IB best {f[['IB FM', 'IB GFM']].max():.2f}; "
                f"PCC/LFP/EFP worst {f[['PCC FM', 'PCC GFM', 'LFP', 'EFP']].min():.2f}",
            )
        tr = sub["train_time_s"]
        add(
            "RML trains slower than LFP (tuning included)",
            d,
            bool(tr["RML"] > tr["LFP"]),
            f"RML {tr['RML']:.1f} s vs LFP {tr['LFP']:.1f} s",
            timing=True,
        )
    return pd.DataFrame(out, columns=["claim", "dataset", "paper", "ours", "detail", "ours_time", "detail_time"])


def write_claims(claims: pd.DataFrame, csv_path, md_path) -> None:
    """Write the checked claims (CSV + Markdown)."""
    caption = (
        "**Table 6, the paper's claims checked on our numbers** (Section 7.2.4): `ours` is True "
        "where this run's Table 6 bears the claim out (claims about times: wall clock of this run)."
    )
    md = claims[["claim", "dataset", "paper"]].copy()
    md["ours"] = claims["ours"].where(claims["ours"].notna(), claims["ours_time"])
    md["detail"] = claims["detail"].where(claims["detail"].notna(), claims["detail_time"])
    write_table(claims, csv_path, md_path, caption=caption, md_df=md)


# --------------------------------------------------------------------------------------------------
# findings (the report's table of verdicts)


def table6_instances(table6, *, knn=(), pcc=(), parametric=(), rml=()) -> pd.DataFrame:
    """Per-instance test scores of Table 6's methods, at Table 6's settings where they were kept.

    ``knn``, ``pcc``, ``parametric``, ``rml``: the stages' ``*_instances.csv.gz`` files. IB FM / IB
    GFM are taken at Table 6's number of neighbours l; PCC FM / PCC GFM at Table 4's number of
    samples (the only one with per-instance scores; Table 6 may show another n from Figure 5's
    curve); LFP, EFP and RML as they are. Returns ``dataset, method, instance, f`` (in %), the
    methods named as in Table 6.
    """
    t = pd.read_csv(table6) if not isinstance(table6, pd.DataFrame) else table6
    t = t[t["section"] == "paper"] if "section" in t.columns else t
    frames = []
    if knn:
        k = pd.concat([pd.read_csv(p) for p in knn], ignore_index=True)
        k = k[k.method.isin(["FM", "GFM"])].assign(method=lambda d: "IB " + d.method)
        ls = {
            (r.dataset, r.method): int(str(r.setting).split("=")[1])
            for r in t.itertuples()
            if r.method.startswith("IB ") and isinstance(r.setting, str) and "=" in r.setting
        }
        keep = [ls.get((d, m)) == l for d, m, l in zip(k.dataset, k.method, k.l)]
        frames.append(k[keep])
    if pcc:
        q = pd.concat([pd.read_csv(p) for p in pcc], ignore_index=True)
        frames.append(q[q.method.isin(["FM", "GFM"])].assign(method=lambda d: "PCC " + d.method))
    if parametric:
        q = pd.concat([pd.read_csv(p) for p in parametric], ignore_index=True)
        frames.append(q[q.method.isin(["LFP", "EFP"])])
    if rml:
        frames.append(pd.concat([pd.read_csv(p) for p in rml], ignore_index=True))
    if not frames:
        return pd.DataFrame(columns=["dataset", "method", "instance", "f"])
    return pd.concat([f[["dataset", "method", "instance", "f"]] for f in frames], ignore_index=True)


def run_findings(
    table6,
    instances=None,
    *,
    deviation_points: float = DEVIATION_POINTS,
    link: str = "#sec-structured",
    n_boot: int = 1000,
    seed: int = 0,
) -> list[dict]:
    """The paper's claims of Section 7.2.4 checked on this run's Table 6.

    Margins are F differences in points on the test set, from Table 6; their standard errors come
    from a paired bootstrap over the test instances (:func:`fmeasure.experiments.findings.paired_bootstrap`)
    of the same statistic on ``instances`` (:func:`table6_instances`; PCC at Table 4's number of
    samples). A claim whose methods lack per-instance scores gets the SE
    :data:`~fmeasure.experiments.findings.SINGLE_SPLIT_SE` and says so. ``table6`` is the CSV of
    :func:`write_table6`.
    """
    from fmeasure.experiments.findings import (
        SINGLE_SPLIT_NOTE,
        SINGLE_SPLIT_SE,
        aligned_scores,
        combine,
        deviation_finding,
        finding,
        paired_bootstrap,
        paper_claims,
    )

    t = pd.read_csv(table6) if not isinstance(table6, pd.DataFrame) else table6
    t = t[t.get("section", "paper") == "paper"] if "section" in t.columns else t
    inst = instances if instances is not None else pd.DataFrame(columns=["dataset", "method", "instance", "f"])
    cat = paper_claims().set_index("claim_id")
    rows = [deviation_finding("table6", t, ["f"], threshold=deviation_points, link=link, cat=cat)]

    def f_of(d, m):
        v = t[(t.dataset == d) & (t.method == m)]["f"]
        return float(v.iloc[0]) if len(v) else np.nan

    def cell(d, methods, stat, label):
        """margin from Table 6, SE from the bootstrap of the same statistic (or the fallback)."""
        margin = float(stat({m: f_of(d, m) for m in methods}))
        part = inst[(inst.dataset == d) & inst.method.isin(methods)]
        if set(part.method) >= set(methods):
            _, se = paired_bootstrap(aligned_scores(part, "f", methods), stat, n_boot=n_boot, seed=seed)
            return {"label": label, "margin": margin, "se": se, "note": ""}
        return {"label": label, "margin": margin, "se": SINGLE_SPLIT_SE, "note": SINGLE_SPLIT_NOTE}

    def row(cid, cells, evidence, none):
        claim, section = cat.loc[cid, "claim"], cat.loc[cid, "section"]
        cells = [c for c in cells if np.isfinite(c["margin"])]
        if not cells:
            return finding(cid, claim, section, f"not run ({none})", link=link)
        c = combine(pd.DataFrame(cells))
        notes = "".join(dict.fromkeys(x["note"] for x in cells))
        se_how = " (SE: paired bootstrap over test instances)" if not notes else notes
        return finding(cid, claim, section, c["verdict"], c["margin"], c["se"], evidence + se_how, link)

    def hi(m, names):
        return np.maximum.reduce([np.asarray(m[x], dtype=float) for x in names])

    def lo(m, names):
        return np.minimum.reduce([np.asarray(m[x], dtype=float) for x in names])

    ib, pcc, par = ["IB FM", "IB GFM"], ["PCC FM", "PCC GFM"], ["LFP", "EFP"]
    if "scene" in set(t.dataset):
        rml = f_of("scene", "RML")
        beat = rml - max(f_of("scene", m) for m in ib + pcc)
        lose = min(f_of("scene", m) for m in par) - rml
        c = cell(
            "scene",
            ib + pcc + par + ["RML"],
            lambda m: np.minimum(m["RML"] - hi(m, ib + pcc), lo(m, par) - m["RML"]),
            "scene",
        )
        rows.append(
            row(
                "ssvm.rml_scene",
                [c],
                f"scene: RML - best of IB/PCC {beat:+.2f}; worst of LFP/EFP - RML {lose:+.2f}",
                "",
            )
        )
    else:
        rows.append(row("ssvm.rml_scene", [], "", "scene not in this run"))
    cells = []
    others = ib + pcc + ["LFP", "RML"]
    for d in [d for d in ("scene", "enron") if d in set(t.dataset)]:
        cells.append(cell(d, others + ["EFP"], lambda m: m["EFP"] - hi(m, others), d))
    rows.append(
        row(
            "ssvm.param_best",
            cells,
            "EFP - best other method: " + ", ".join(f"{c['label']} {c['margin']:+.2f}" for c in cells),
            "neither scene nor enron in this run",
        )
    )
    if "yeast" in set(t.dataset):
        rest = pcc + par + ["RML"]
        c = cell("yeast", ib + rest, lambda m: hi(m, ib) - hi(m, rest), "yeast")
        rows.append(row("ssvm.ib_best", [c], f"yeast: best IB - best other {c['margin']:+.2f} (Mediamill not run)", ""))
    else:
        rows.append(row("ssvm.ib_best", [], "", "yeast not in this run"))
    return rows
