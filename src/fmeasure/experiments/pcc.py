"""The PCC experiment of Section 7.2: fit once, then Table 4 and Figure 5 from the cached chain.

Steps, each one Snakemake job (``workflow/rules/pcc.smk``), each callable without Snakemake:

* :func:`write_model` -- tune and fit the chain on a dataset's training set and pickle it
  (``results/pcc/<dataset>/chain.pkl``) with its training time;
* :func:`run_table4_rows` -- MM, FM, GFM from ``n`` ancestral samples and JM by exact search on the
  test set: the four measures of Table 4 and the in-process inference times;
* :func:`run_curve` -- FM and GFM from ``n`` samples, for several runs (Figure 5);
* :func:`run_exact` -- the exact F-maximizer of the chain's distribution (``m <= 16``), the
  reference line of Figure 5 (beyond the paper);
* :func:`write_table4` and :func:`write_figure5` -- gather, put the paper's numbers beside ours,
  render.

Inference times include everything the paper counts: sampling, estimation and inference. For
MM, FM and GFM the samples of a chunk are drawn once and timed once; each method's time is
that sampling time plus its own estimation and inference time.
"""

from __future__ import annotations

import json
import logging
import pickle
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fmeasure import datasets, metrics
from fmeasure.experiments.findings import DEVIATION_POINTS, deviation_sentences, instance_scores
from fmeasure.io import atomic_output
from fmeasure.metrics import MEASURE_DIRECTIONS, MEASURES, METHOD_LABELS
from fmeasure.tables import best_mask, paper_numbers, write_table
from fmeasure.timing import format_repeats, parse_repeats, spread

# The chain is imported where it is made or read, matplotlib where Figure 5 is drawn: the table and
# findings jobs stay light.
if TYPE_CHECKING:
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

log = logging.getLogger(__name__)

METHOD_NAMES = METHOD_LABELS
DIRECTIONS = MEASURE_DIRECTIONS


#: Keys of the ``pcc`` config block that :func:`make_chain` reads: the parameters of the fit.
FIT_KEYS = ("Cs", "cv", "seed", "standardize", "chunk_size", "block_size", "scoring")


def fit_config(cfg: dict) -> dict:
    """The part of the ``pcc`` config block the fit reads (the fit job's params: changing an
    inference setting such as ``table4`` or ``figure5`` does not refit the chain)."""
    return {k: v for k, v in cfg.items() if k in FIT_KEYS}


def make_chain(cfg: dict, n_jobs: int | None = None) -> ProbabilisticClassifierChain:
    """A :class:`ProbabilisticClassifierChain` configured from the ``pcc`` config block."""
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

    return ProbabilisticClassifierChain(
        Cs=[float(c) for c in cfg["Cs"]],
        cv=int(cfg["cv"]),
        random_state=int(cfg["seed"]),
        standardize=bool(cfg["standardize"]),
        n_jobs=n_jobs,
        chunk_size=int(cfg["chunk_size"]),
        block_size=int(cfg["block_size"]),
        scoring=cfg.get("scoring", "log_loss"),
    )


def write_model(dataset_path, cfg: dict, model_path, info_path, n_jobs: int | None = None):
    """Fit the chain on the training part of a parsed dataset; pickle it and write fit info (JSON)."""
    ds = datasets.load(dataset_path)
    chain = make_chain(cfg, n_jobs=n_jobs).fit(ds.X_train, ds.Y_train)
    with atomic_output(model_path) as tmp:
        with open(tmp, "wb") as fh:
            pickle.dump(chain, fh, protocol=pickle.HIGHEST_PROTOCOL)
    info = {
        "dataset": ds.name,
        "m": int(ds.n_labels),
        "d": int(ds.n_features),
        "n_train": int(ds.Y_train.shape[0]),
        "train_time_s": float(chain.fit_time_),
        "n_jobs": n_jobs,
        "constant_labels": int(np.isnan(chain.C_).sum()),
        "C": [None if np.isnan(c) else float(c) for c in chain.C_],
    }
    with atomic_output(info_path) as tmp:
        Path(tmp).write_text(json.dumps(info, indent=1))
    log.info(
        "%s: chain fitted in %.1f s (%d labels, %d constant)",
        ds.name,
        chain.fit_time_,
        ds.n_labels,
        info["constant_labels"],
    )
    return chain, info


def load_chain(model_path) -> ProbabilisticClassifierChain:
    """Read a chain pickled by :func:`write_model`."""
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

    with open(model_path, "rb") as fh:
        chain = pickle.load(fh)
    if not isinstance(chain, ProbabilisticClassifierChain):
        raise ValueError(f"{model_path}: not a pickled ProbabilisticClassifierChain")
    return chain


def scores(Y_true, H, jaccard_empty: float, se: bool = False) -> dict:
    """The four measures of Table 4, as percentages averaged over instances.

    With ``se=True`` also ``<measure>_se``: the standard error of each mean over the test instances.
    """
    per = metrics.per_instance(Y_true, H, jaccard_empty=jaccard_empty)
    out = {k: 100 * float(np.mean(v)) for k, v in per.items()}
    if se:
        out.update({f"{k}_se": 100 * _se(v) for k, v in per.items()})
    return out


def run_table4_rows(
    model_path, dataset_path, info_path, cfg: dict, jaccard_empty: float, return_instances: bool = False
):
    """Table 4 rows of one dataset: MM, JM, FM, GFM on the test set with their times.

    The inference runs ``cfg["table4"]["timing_best_of"]`` times, in rounds (the sampling
    methods, then JM) so that the methods compared share the machine's load; each method's
    ``inference_time_s`` is its best round, ``inference_time_s_repeats`` every round and
    ``inference_time_s_spread`` their spread (:mod:`fmeasure.timing`). Every round draws the
    same samples. The sampling methods are not repeated once one of them took
    ``cfg["table4"]["repeat_below_s"]`` seconds or more (a timing that long is stable by itself),
    nor is JM once it took that long (the exact search grows with m: minutes on delicious).

    With ``return_instances=True`` also the per-instance scores (one row per method and test
    instance, the four measures in %), for the bootstrap of the findings.
    """
    ds = datasets.load(dataset_path)
    chain = load_chain(model_path)
    info = json.loads(Path(info_path).read_text())
    n = int(cfg["table4"]["n_samples"])
    repeats = int(cfg["table4"].get("timing_best_of", 1))
    long_enough = float(cfg["table4"].get("repeat_below_s", np.inf))
    if repeats < 1:
        raise ValueError(f"pcc.table4.timing_best_of: must be >= 1, got {repeats}")
    times = {k: [] for k in metrics.SAMPLE_METHODS}
    preds = {}
    for _ in range(repeats):
        if not times["mm"] or min(min(times[k]) for k in ("mm", "fm", "gfm")) < long_enough:
            out, t = chain.predict_from_samples(
                ds.X_test, ("mm", "fm", "gfm"), n_samples=n, random_state=int(cfg["seed"]), return_times=True
            )
            preds.update(out)
            for k in ("mm", "fm", "gfm"):
                times[k].append(t[k])
        if not times["jm"] or min(times["jm"]) < long_enough:
            t0 = time.perf_counter()
            preds["jm"], _ = chain.joint_mode(ds.X_test)
            times["jm"].append(time.perf_counter() - t0)
    rows, inst = [], []
    for k in metrics.SAMPLE_METHODS:
        if return_instances:
            inst.append(
                instance_scores(ds.Y_test, preds[k], jaccard_empty=jaccard_empty).assign(
                    dataset=ds.name, method=METHOD_NAMES[k]
                )
            )
        rows.append(
            {
                "dataset": ds.name,
                "method": METHOD_NAMES[k],
                **scores(ds.Y_test, preds[k], jaccard_empty, se=True),
                "train_time_s": info["train_time_s"],
                "inference_time_s": float(min(times[k])),
                "inference_time_s_repeats": format_repeats(times[k]),
                "inference_time_s_spread": spread(times[k]),
                "n_samples": 0 if k == "jm" else n,
            }
        )
        log.info(
            "%s %s: F %.2f, inference %.3f s (best of %d)", ds.name, k, rows[-1]["f"], min(times[k]), len(times[k])
        )
    if return_instances:
        inst = pd.concat(inst, ignore_index=True)[["dataset", "method", "instance", *MEASURES]]
        return pd.DataFrame(rows), inst
    return pd.DataFrame(rows)


def run_curve(model_path, dataset_path, n_samples: int, cfg: dict) -> pd.DataFrame:
    """Figure 5 rows: test F-measure and inference time of FM and GFM from ``n_samples`` samples.

    Run ``r`` samples with the seed ``(seed, n_samples, r)``; FM and GFM of one run see the same
    samples, drawn once per repeat and shared by both methods. Each method's time is that run's
    sampling time plus its own estimation and inference time (as in Table 4), the smallest over
    ``cfg["figure5"]["timing_best_of"]`` repeats, which draw the same samples. A run's repeats stop
    once they have taken ``cfg["figure5"]["repeat_below_s"]`` seconds in all: a measurement that
    long is stable by itself, and the repeats would multiply the cost of the largest datasets
    (a run costs at most that budget plus one call).

    Time and memory: up to ``runs * timing_best_of`` passes of sampling ``n_test * n_samples``
    label vectors of length m, in chunks of ``chunk_size`` vectors (memory does not grow with
    n_samples).
    """
    ds = datasets.load(dataset_path)
    chain = load_chain(model_path)
    runs, repeats = int(cfg["figure5"]["runs"]), int(cfg["figure5"].get("timing_best_of", 1))
    long_enough = float(cfg["figure5"].get("repeat_below_s", np.inf))
    if repeats < 1:
        raise ValueError(f"pcc.figure5.timing_best_of: must be >= 1, got {repeats}")
    rows = []
    t_start = time.perf_counter()
    for r in range(runs):
        best = {"fm": np.inf, "gfm": np.inf}
        spent = 0.0
        for _ in range(repeats):
            seed = np.random.SeedSequence([int(cfg["seed"]), int(n_samples), r])
            t_call = time.perf_counter()
            preds, times = chain.predict_from_samples(
                ds.X_test, ("fm", "gfm"), n_samples=int(n_samples), random_state=seed, return_times=True
            )
            spent += time.perf_counter() - t_call
            best = {k: min(best[k], times[k]) for k in best}
            if spent >= long_enough:
                break
        for k in ("fm", "gfm"):
            rows.append(
                {
                    "dataset": ds.name,
                    "method": METHOD_NAMES[k],
                    "n_samples": int(n_samples),
                    "run": r,
                    "f": 100 * float(np.mean(metrics.f_measure(ds.Y_test, preds[k]))),
                    "inference_time_s": best[k],
                }
            )
        log.info(
            "%s n=%d: run %d of %d done (%.1f s elapsed), F: FM %.2f, GFM %.2f",
            ds.name,
            int(n_samples),
            r + 1,
            runs,
            time.perf_counter() - t_start,
            rows[-2]["f"],
            rows[-1]["f"],
        )
    return pd.DataFrame(rows)


def run_exact(model_path, dataset_path, cfg: dict) -> pd.DataFrame:
    """The exact F-maximizer of the chain (all 2^m probabilities) on the test set, if m is small enough.

    Returns an empty frame (same columns) when ``m > cfg["exact_max_labels"]``.
    """
    ds = datasets.load(dataset_path)
    chain = load_chain(model_path)
    cols = ["dataset", "method", "f", "expected_f", "inference_time_s"]
    max_labels = int(cfg["exact_max_labels"])
    if chain.n_labels_ > max_labels:
        log.info("%s: m = %d > exact_max_labels = %d, no exact reference", ds.name, chain.n_labels_, max_labels)
        return pd.DataFrame(columns=cols)
    t0 = time.perf_counter()
    H, value = chain.exact_f_maximizer(ds.X_test, max_labels=max_labels)
    elapsed = time.perf_counter() - t0
    f = 100 * float(np.mean(metrics.f_measure(ds.Y_test, H)))
    return pd.DataFrame(
        [
            {
                "dataset": ds.name,
                "method": "Exact",
                "f": f,
                "expected_f": 100 * float(np.mean(value)),
                "inference_time_s": elapsed,
            }
        ]
    )


def write_table4(row_paths, csv_path, md_path, *, jaccard_empty: float, cv: int = 5) -> pd.DataFrame:
    """Gather the per-dataset rows, join the paper's numbers, bold the best per dataset."""
    ours = pd.concat([pd.read_csv(p) for p in row_paths], ignore_index=True)
    paper = paper_numbers("table4")
    values = [*MEASURES, "train_time_s", "inference_time_s"]
    merged = ours.merge(
        paper[["dataset", "method", *values]], on=["dataset", "method"], how="left", suffixes=("", "_paper")
    )
    order = ["dataset", "method", "n_samples"]
    for v in values:
        order += [v, f"{v}_paper"]
    order += [c for c in ("inference_time_s_repeats", "inference_time_s_spread") if c in merged.columns]
    merged = merged[order]
    md = pd.DataFrame({"dataset": merged.dataset, "method": merged.method})
    labels = {
        "hamming": "Hamming [%]",
        "subset01": "Subset 0/1 [%]",
        "f": "F [%]",
        "jaccard": "Jaccard [%]",
        "train_time_s": "Train [s]",
        "inference_time_s": "Inference [s]",
    }
    for v in values:
        md[labels[v]] = merged[v]
        md[f"{labels[v]} paper"] = merged[f"{v}_paper"]
        if v.endswith("_time_s"):  # times: more digits than the losses' 2 decimals
            for c in (labels[v], f"{labels[v]} paper"):
                md[c] = [("" if np.isnan(x) else f"{x:.3f}") for x in md[c].astype(float)]
    bold_src = best_mask(merged, DIRECTIONS, by="dataset")
    bold = pd.DataFrame(False, index=md.index, columns=md.columns)
    for v in MEASURES:
        bold[labels[v]] = bold_src[v]
    caption = (
        "**Table 4.** PCC with four inference methods on the test sets: MM, FM and GFM from "
        f"{int(ours.n_samples.max())} ancestral samples per instance, JM by exact search for the joint mode. "
        f"Losses and scores in %, times in seconds (training: tuning C by {cv}-fold CV + refit, all labels; "
        f"inference: sampling + estimation + inference for the whole test set, {_best_of_phrase(ours)}). "
        "Best of ours per dataset "
        "in bold; the paper's values beside ours. "
        f"Jaccard of an empty prediction for an empty label set = {jaccard_empty:g}."
    )
    write_table(merged, csv_path, md_path, caption=caption, bold=bold, md_df=md, float_format="{:.2f}")
    return merged


def write_figure5(curve_paths, exact_paths, csv_path, png_path, pdf_path) -> pd.DataFrame:
    """Figure 5: F-measure (left) and inference time (right) of FM and GFM vs the number of samples.

    Means over runs with standard-error bars, one row of panels per dataset; where the chain's
    distribution can be enumerated, the F-measure of its exact F-maximizer as a dotted line.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from fmeasure.figures import plt, save_figure, style

    runs = pd.concat([pd.read_csv(p) for p in curve_paths], ignore_index=True)
    exact = [pd.read_csv(p) for p in exact_paths]
    exact = [e for e in exact if len(e)]
    exact = pd.concat(exact, ignore_index=True) if exact else pd.DataFrame(columns=["dataset", "f"])
    agg = (
        runs.groupby(["dataset", "method", "n_samples"], sort=False)
        .agg(
            f_mean=("f", "mean"),
            f_se=("f", _se),
            time_mean=("inference_time_s", "mean"),
            time_se=("inference_time_s", _se),
            runs=("run", "count"),
        )
        .reset_index()
        .sort_values(["dataset", "method", "n_samples"], kind="stable")
    )
    ex = exact.set_index("dataset")["f"] if len(exact) else pd.Series(dtype=float)
    agg["exact_f"] = agg.dataset.map(ex)
    with atomic_output(csv_path) as tmp:
        agg.to_csv(tmp, index=False)
    names = list(dict.fromkeys(runs.dataset))
    fig, axes = plt.subplots(len(names), 2, figsize=(9, 2.8 * len(names)), squeeze=False)
    for row, name in enumerate(names):
        a_f, a_t = axes[row]
        part = agg[agg.dataset == name]
        w = part.pivot_table(index="n_samples", columns="method", values="f_mean")
        same = {"FM", "GFM"} <= set(w.columns) and np.allclose(w["FM"], w["GFM"], rtol=0, atol=1e-9)
        for i, method in enumerate(("FM", "GFM")):
            d = part[part.method == method]
            shift = 1.04 ** (i - 0.5)  # side by side, so that equal values stay visible
            label = f"{method} (coincides with GFM)" if same and method == "FM" else method
            a_f.errorbar(d.n_samples * shift, d.f_mean, yerr=d.f_se, capsize=2, **style(method, label=label))
            a_t.errorbar(d.n_samples * shift, d.time_mean, yerr=d.time_se, capsize=2, **style(method))
        if name in ex.index:
            a_f.axhline(ex[name], **style("Exact", label="exact F-maximizer of the chain"))
        d = agg[agg.dataset == name]
        lo = np.nanmin(np.r_[d.f_mean - d.f_se, ex.get(name, np.nan)])
        hi = np.nanmax(np.r_[d.f_mean + d.f_se, ex.get(name, np.nan)])
        pad = 0.08 * max(hi - lo, 0.5)
        a_f.set_ylim(lo - pad, hi + 6 * pad)  # every line inside the frame; room above for the legend
        a_t.margins(y=0.1)
        for ax in (a_f, a_t):
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xticks(sorted(part.n_samples.unique()))
            ax.margins(x=0.05)
            ax.set_xlabel("number of samples")
            ax.grid(True, which="major", color="0.9")
        a_f.set_ylabel("F-measure [%]")
        a_t.set_ylabel("inference time [s]")
        a_t.set_yscale("log")
        a_f.set_title(name)
        a_t.set_title(name)
        a_f.legend(fontsize="x-small", loc="upper center", ncol=2, framealpha=0.9)
    save_figure(fig, png_path, pdf_path)
    return agg


def _best_of_phrase(rows: pd.DataFrame) -> str:
    """How Table 4's inference times were taken, from the rows' numbers of repeats."""
    if "inference_time_s_repeats" not in rows.columns:
        return "one timing each"
    k = rows["inference_time_s_repeats"].map(lambda c: parse_repeats(c).size)
    lo, hi = int(k.min()), int(k.max())
    if hi <= 1:
        return "one timing each"
    rounds = f"{hi}" if lo == hi else f"{lo} to {hi}"
    return f"the best of {rounds} rounds, their times and spread in the CSV"


def _se(x):
    x = np.asarray(x, dtype=float)
    return float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0


def write_findings(
    instance_paths, table4_csv, figure5_csv, out_csv, *, z=2.0, n_boot=1000, seed=0, deviation_points=DEVIATION_POINTS
):
    """``results/findings/pcc.csv``: the claims of Section 7.2.2 by paired bootstrap over test
    instances (one cell per dataset), Table 4 against the paper, Figure 5's levelling off."""
    from fmeasure.experiments import findings as F

    inst = pd.concat([pd.read_csv(p) for p in instance_paths], ignore_index=True)
    link = "#sec-pcc"
    cat = F.paper_claims().set_index("claim_id")
    spec = [
        ("pcc.f_maximizers", "f", ["FM", "GFM"], ["MM", "JM"]),
        ("pcc.gfm_fm", "f", ["GFM"], ["FM"]),
        ("pcc.mm_hamming", "hamming", ["MM"], ["JM", "FM", "GFM"]),
        ("pcc.jm_subset01", "subset01", ["JM"], ["MM", "FM", "GFM"]),
        ("pcc.jaccard", "jaccard", ["FM", "GFM"], ["MM"]),
    ]
    t4 = pd.read_csv(table4_csv)
    rows = [F.deviation_finding("table4", t4, list(MEASURES), link=link, threshold=deviation_points)]
    for cid, measure, a, b in spec:
        cells = F.bootstrap_cells(inst, "dataset", measure, a, b, n_boot=n_boot, seed=seed)
        rows.append(
            F.cells_finding(cid, cells, z=z, link=link, what=f"{'/'.join(a)} vs best of {'/'.join(b)}, {measure}")
        )
    row = F.fastest_inference_finding(t4, "JM", "pcc.jm_fast", cat, others="fastest sampling method's", link=link, z=z)
    if row is not None:
        rows.append(row)
    f5 = pd.read_csv(figure5_csv)
    cells = []
    for (d, m), g in f5.groupby(["dataset", "method"], sort=False):
        g = g.sort_values("n_samples")
        if len(g) >= 2:
            a, b = g.iloc[-1], g.iloc[-2]
            cells.append(
                {
                    "label": f"{d} {m} n={int(b.n_samples)}->{int(a.n_samples)}",
                    "margin": float(a.f_mean - b.f_mean),
                    "se": float(np.hypot(a.f_se, b.f_se)),
                }
            )
    rows.append(
        F.cells_finding(
            "fig5",
            pd.DataFrame(cells, columns=["label", "margin", "se"]),
            kind="tie",
            z=z,
            link=link,
            what="F gain between the two largest sample sizes (SE over runs)",
            none_reason="fewer than two sample sizes",
        )
    )
    return F.write_findings(rows, out_csv)


def analysis(tables, points: float) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentence on Table 4's cells more than ``points`` from the paper (folder
    ``tables``), and those cells."""
    return deviation_sentences(
        Path(tables) / "table4.csv", list(metrics.MEASURE_TITLES), ["dataset", "method"], "Table 4", points
    )
