"""Stage ``simulations`` (Section 6, Figures 2-4): aggregation, the claims of Section 6, plots.

The protocol (:func:`run_model`: training samples of every size, the four methods, scores on one
large test sample) and the timing of Figure 4 (:func:`time_methods`) run the data models of
:mod:`fmeasure.label_models` (library) from the config block and write per-job CSVs; this module
then summarizes them (means, standard errors, regrets against the exact
Bayes-optimal predictions), checks the paper's qualitative claims, and draws Figures 2-4.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from fmeasure import estimation
from fmeasure.experiments.registry import SIM_DATA_MODELS
from fmeasure.io import progress
from fmeasure.metrics import MEASURE_SIGN, MEASURE_TITLES, MEASURES, METHOD_LABELS, SAMPLE_METHODS
from fmeasure.timing import best_of

# The data models and the inference (numba kernels) are imported in the functions that run the
# protocol: the aggregation, figure and findings jobs stay light.
if TYPE_CHECKING:
    from fmeasure.label_models import ChainModel, IndependentModel

log = logging.getLogger(__name__)

#: The methods as tables and figures name them, in the paper's order (:data:`fmeasure.label_models.METHODS`).
METHODS = tuple(METHOD_LABELS[k] for k in SAMPLE_METHODS)

# --------------------------------------------------------------------------------------------------
# aggregation


def summarize(scores: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and regret per (data model, training size, method, measure).

    ``se`` is the standard error over all (model, training set) runs, as in the paper's error bars;
    ``se_models`` the standard error over the per-model means (the models are the independent
    replicates). ``bayes`` is the mean exact Bayes-optimal value over the models (NaN for Jaccard);
    ``regret`` the mean of ``sign * (bayes - score)`` per run, >= 0 up to test-sample noise.
    """
    long = scores.melt(
        id_vars=["data_model", "model", "train_size", "train_set", "method"],
        value_vars=list(MEASURES),
        var_name="measure",
        value_name="value",
    )
    long = long.merge(
        reference[["data_model", "model", "measure", "bayes"]], how="left", on=["data_model", "model", "measure"]
    )
    sign = long["measure"].map(MEASURE_SIGN)
    long["regret"] = sign * (long["bayes"] - long["value"])
    keys = ["data_model", "train_size", "method", "measure"]
    g = long.groupby(keys, sort=False)
    out = g.agg(
        mean=("value", "mean"),
        sd=("value", "std"),
        n=("value", "size"),
        bayes=("bayes", "mean"),
        regret=("regret", "mean"),
        regret_sd=("regret", "std"),
    ).reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n"])
    out["regret_se"] = out["regret_sd"] / np.sqrt(out["n"])
    per_model = long.groupby(keys + ["model"], sort=False)["value"].mean().reset_index()
    sem = per_model.groupby(keys, sort=False)["value"].agg(["std", "size"])
    sem = (sem["std"] / np.sqrt(sem["size"])).rename("se_models").reset_index()
    out = out.merge(sem, on=keys)
    cols = keys + ["mean", "se", "se_models", "n", "bayes", "regret", "regret_se"]
    return out[cols].sort_values(["data_model", "measure", "method", "train_size"]).reset_index(drop=True)


# --------------------------------------------------------------------------------------------------
# claims of Section 6


def _wide(scores: pd.DataFrame, data_model: str, measure: str, sizes) -> pd.DataFrame:
    """Per-run scores in percentage points, losses negated (higher is better): one row per
    (train_size, model, train_set), one column per method."""
    sub = scores[(scores.data_model == data_model) & scores.train_size.isin(list(sizes))]
    w = sub.pivot_table(index=["train_size", "model", "train_set"], columns="method", values=measure, aggfunc="first")
    return 100.0 * MEASURE_SIGN[measure] * w


def _margin_cells(scores, data_model, measure, sizes, claimed, others, *, per_size=True):
    """Paired margins (best claimed by mean minus best other by mean) with their SE.

    ``per_size=True``: one cell per size; else one cell pooling the sizes (per-run differences
    averaged over the sizes, paired by (model, training set))."""
    from fmeasure.experiments.findings import paired_margin

    w = _wide(scores, data_model, measure, sizes)
    claimed = [m for m in claimed if m in w.columns]
    others = [m for m in others if m in w.columns]
    groups = (
        [(f"n={n}", w.xs(n, level="train_size")) for n in sizes]
        if per_size
        else [("n in " + ",".join(map(str, sizes)), w.groupby(level=["model", "train_set"]).mean())]
    )
    cells = []
    for label, g in groups:
        a = g[claimed].mean().idxmax()
        b = g[others].mean().idxmax()
        m, se = paired_margin(g[a], g[b])
        cells.append({"label": f"{label}: {a} vs {b}", "margin": m, "se": se})
    return pd.DataFrame(cells)


#: The claims of Section 6: id -> (data model, measure, claimed, competitors, sizes, kind of claim: better or tie).
#: sizes: "large" (the largest training size), "small" (``small_sizes`` present, pooled) or
#: "from100" (every size >= 100, each must hold).
SECTION6_CLAIMS = {
    "sim.ind.hamming": ("independent", "hamming", ["MM", "JM"], ["FM", "GFM"], "large", "better"),
    "sim.ind.subset01": ("independent", "subset01", ["MM", "JM"], ["FM", "GFM"], "large", "better"),
    "sim.ind.jm_slow": ("independent", "subset01", ["MM"], ["JM"], "small", "better"),
    "sim.ind.fm_gfm_tie": ("independent", "f", ["FM"], ["GFM"], "large", "tie"),
    "sim.ind.gfm_small": ("independent", "f", ["FM"], ["GFM"], "small", "better"),
    "sim.ind.jaccard": ("independent", "jaccard", ["FM", "GFM"], ["MM", "JM"], "large", "better"),
    "sim.chain.hamming": ("chain", "hamming", ["MM"], ["JM", "FM", "GFM"], "large", "better"),
    "sim.chain.subset01": ("chain", "subset01", ["JM"], ["MM", "FM", "GFM"], "large", "better"),
    "sim.chain.gfm_f": ("chain", "f", ["GFM"], ["MM", "JM", "FM"], "from100", "better"),
    "sim.chain.gfm_jaccard": ("chain", "jaccard", ["GFM"], ["MM", "JM", "FM"], "large", "better"),
    "sim.chain.jm_second": ("chain", "jaccard", ["JM"], ["MM", "FM"], "large", "better"),
}


def claims_table(scores: pd.DataFrame, *, z: float = 2.0, small_sizes=(5, 10, 20)) -> pd.DataFrame:
    """Check the conclusions of Section 6 on the per-run scores; one row per claim.

    ``margin`` is the paired difference (claimed method minus best competitor, percentage points,
    losses negated, so positive supports the claim) averaged over the (model, training set) runs,
    ``se`` its standard error over those runs. ``outcome`` is "better" when the margin exceeds
    ``z`` standard errors, "worse" below ``-z`` SE, "tie" otherwise; ``verdict`` follows
    :func:`fmeasure.experiments.findings.verdict` (a tie claim is confirmed by a tie). Claims over
    several sizes hold only if they hold at each (the weakest size is shown).
    """
    from fmeasure.experiments.findings import combine, outcome

    sizes = sorted(int(n) for n in scores.train_size.unique())
    large = sizes[-1]
    small = [n for n in sizes if n in set(small_sizes)] or [sizes[0]]
    from100 = [n for n in sizes if n >= 100] or [large]
    rows = []
    for cid, (data_model, measure, claimed, others, which, how) in SECTION6_CLAIMS.items():
        methods = set(scores[scores.data_model == data_model].method)
        if data_model not in set(scores.data_model) or not (set(claimed) & methods) or not (set(others) & methods):
            continue
        use = {"large": [large], "small": small, "from100": from100}[which]
        cells = _margin_cells(scores, data_model, measure, use, claimed, others, per_size=(which != "small"))
        c = combine(cells, how, z)
        rows.append(
            {
                "claim_id": cid,
                "data_model": data_model,
                "measure": measure,
                "claimed": "/".join(claimed),
                "versus": "/".join(others),
                "sizes": ",".join(map(str, use)),
                "margin": c["margin"],
                "se": c["se"],
                "outcome": outcome(c["margin"], c["se"], z),
                "verdict": c["verdict"],
                "evidence": c["weakest"],
            }
        )
    return pd.DataFrame(rows)


def timing_claims(time_summary: pd.DataFrame, *, z: float = 2.0) -> pd.DataFrame:
    """Figure 4's claims on the timing summary (milliseconds, best-of-k per repeat).

    Both compare times as every timed claim does (:func:`fmeasure.experiments.findings.time_ratio_cell`):
    ``margin = 100 ln(ratio)``, the two times' spreads their relative standard errors over the
    repeats (in %), ``se`` at least the floor for timings. ``fig4``: GFM slowest in estimation +
    inference at the largest m (ratio: GFM's time over the slowest other method's).
    ``sim.time.fm_est``: FM's estimation time equals MM's at every m (a tie claim; ratio FM / MM).
    """
    from fmeasure.experiments.findings import combine, outcome, time_ratio_cell, verdict

    t = time_summary.pivot_table(index=["method", "n_labels"], columns="step", values=["time_ms_mean", "time_ms_se"])
    m = int(time_summary.n_labels.max())
    total = (t["time_ms_mean"].sum(axis=1)).xs(m, level="n_labels")
    se = np.sqrt((t["time_ms_se"] ** 2).sum(axis=1)).xs(m, level="n_labels")
    rows = []
    if "GFM" in total.index and len(total) > 1:
        other = total.drop("GFM").idxmax()
        c = time_ratio_cell(
            f"m={m}", total["GFM"], total[other], 100 * se["GFM"] / total["GFM"], 100 * se[other] / total[other]
        )
        rows.append(
            {
                "claim_id": "fig4",
                "margin": c["margin"],
                "se": c["se"],
                "outcome": outcome(c["margin"], c["se"], z),
                "verdict": verdict(c["margin"], c["se"], "better", z),
                "evidence": f"m={m}: GFM {total['GFM']:.4g} ms vs {other} {total[other]:.4g} ms "
                f"({total['GFM'] / total[other]:.3g}x; means over the timed samples)",
            }
        )
    est = time_summary[time_summary.step == "estimation"].pivot_table(
        index="n_labels", columns="method", values=["time_ms_mean", "time_ms_se"]
    )
    if {"FM", "MM"} <= set(time_summary.method):
        mean, sem = est["time_ms_mean"], est["time_ms_se"]
        cells = pd.DataFrame(
            [
                time_ratio_cell(
                    f"m={k}", mean.FM[k], mean.MM[k], 100 * sem.FM[k] / mean.FM[k], 100 * sem.MM[k] / mean.MM[k]
                )
                for k in est.index
            ],
            columns=["label", "margin", "se"],
        )
        c = combine(cells, "tie", z)
        rows.append(
            {
                "claim_id": "sim.time.fm_est",
                "margin": c["margin"],
                "se": c["se"],
                "outcome": outcome(c["margin"], c["se"], z),
                "verdict": c["verdict"],
                "evidence": f"FM / MM estimation time, farthest from equal at {c['weakest']}",
            }
        )
    return pd.DataFrame(rows)


def summarize_times(times: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error (milliseconds) per (number of labels, method, step).

    Columns ``time_ms_mean`` and ``time_ms_se`` (named ``time_*`` so that reproducibility checks
    can leave these run-dependent numbers out).
    """
    g = times.assign(ms=times["seconds"] * 1e3).groupby(["step", "method", "n_labels"])["ms"]
    out = g.agg(["mean", "std", "size"]).reset_index()
    out["time_ms_se"] = out["std"] / np.sqrt(out["size"])
    out = out.rename(columns={"mean": "time_ms_mean", "size": "n"})
    return out[["step", "method", "n_labels", "time_ms_mean", "time_ms_se", "n"]]


# --------------------------------------------------------------------------------------------------
# pipeline outputs: aggregation, tables, figures


def aggregate(score_paths, reference_paths) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read the per-job CSVs of :func:`run_models` and summarize them.

    Returns
    -------
    summary : DataFrame
        :func:`summarize` of all runs.
    reference : DataFrame
        All per-model Bayes references.
    """
    if not score_paths or len(score_paths) != len(reference_paths):
        raise ValueError("score_paths/reference_paths: need as many reference files as score files (>= 1)")
    scores = pd.concat([pd.read_csv(p) for p in score_paths], ignore_index=True)
    reference = pd.concat([pd.read_csv(p) for p in reference_paths], ignore_index=True)
    dup = scores.duplicated(["data_model", "model", "train_size", "train_set", "method"])
    if dup.any():
        raise ValueError(f"score_paths: {int(dup.sum())} duplicated runs (overlapping model chunks?)")
    return summarize(scores, reference), reference


def regret_table(summary: pd.DataFrame, sizes=(10, 100, 1000, 10000)) -> pd.DataFrame:
    """Mean regret (± standard error) vs the exact Bayes-optimal prediction at a few training sizes.

    One row per (data model, measure, method) for the measures that have a reference; one column
    per training size present in ``sizes``.
    """
    sub = summary[summary.bayes.notna() & summary.train_size.isin(sizes)].copy()
    sub["cell"] = [f"{r:.4f} ± {s:.4f}" for r, s in zip(sub.regret, sub.regret_se)]
    wide = sub.pivot_table(
        index=["data_model", "measure", "method"], columns="train_size", values="cell", aggfunc="first"
    ).reset_index()
    wide.columns = [c if isinstance(c, str) else f"n={c}" for c in wide.columns]
    return wide


def coinciding_methods(
    summary: pd.DataFrame, *, by=("train_size", "measure"), value="mean", atol: float = 1e-12
) -> list[tuple[str, ...]]:
    """Groups of methods whose curves are identical everywhere in ``summary`` (long format).

    Examples
    --------
    >>> s = pd.DataFrame({"train_size": [5, 5, 5], "measure": "f", "method": ["FM", "GFM", "MM"],
    ...                   "mean": [0.5, 0.5, 0.4]})
    >>> coinciding_methods(s)
    [('FM', 'GFM')]
    """
    w = summary.pivot_table(index=list(by), columns="method", values=value, aggfunc="first")
    order = [m for m in METHODS if m in w.columns] + [m for m in w.columns if m not in METHODS]
    groups, seen = [], set()
    for a in order:
        if a in seen:
            continue
        same = [
            b
            for b in order
            if b != a
            and b not in seen
            and np.allclose(w[a].to_numpy(), w[b].to_numpy(), atol=atol, rtol=0, equal_nan=True)
        ]
        if same:
            groups.append((a, *same))
            seen.update([a, *same])
    return groups


#: Horizontal offset between methods in Figures 2-3 (a factor on the training size), so that
#: methods with equal values stay visible side by side.
DODGE = 0.035


def plot_performance(summary: pd.DataFrame, *, zoom_max: int = 100, title: str | None = None, jaccard_empty=None):
    """Figures 2 and 3: four rows (measures) x two columns (training sizes up to ``zoom_max``; all).

    ``summary`` holds one data model. Each method is a line with standard-error bars, shifted
    sideways by a small factor (:data:`DODGE`) so that methods with equal values stay visible;
    methods whose curves are identical everywhere are named in the legend ("FM coincides with
    GFM"). The dotted line is the mean exact Bayes-optimal value (Hamming, subset 0/1, F). The right
    column uses a logarithmic size axis.
    """
    from fmeasure.figures import METHOD_STYLE, plt, style

    methods = [m for m in METHODS if m in set(summary.method)]
    same_as = {b: g[0] for g in coinciding_methods(summary) for b in g[1:]}
    shift = {m: (1 + DODGE) ** (i - (len(methods) - 1) / 2) for i, m in enumerate(methods)}
    fig, axes = plt.subplots(len(MEASURES), 2, figsize=(9.5, 12.5), squeeze=False)
    for r, measure in enumerate(MEASURES):
        sub = summary[summary.measure == measure]
        for c, zoom in enumerate([True, False]):
            ax = axes[r, c]
            part = sub[sub.train_size <= zoom_max] if zoom else sub
            for method in methods:
                d = part[part.method == method].sort_values("train_size")
                label = f"{method} (coincides with {same_as[method]})" if method in same_as else method
                ax.errorbar(
                    d.train_size * shift[method],
                    d["mean"],
                    yerr=d["se"],
                    capsize=2,
                    markersize=4,
                    **style(method, label=label),
                )
            ax.margins(x=0.04, y=0.08)
            bayes = sub["bayes"].dropna()
            if len(bayes):
                ax.axhline(
                    bayes.mean(),
                    label="Bayes-optimal",
                    **{k: v for k, v in METHOD_STYLE["Bayes"].items() if k != "marker"},
                )
            if not zoom:
                ax.set_xscale("log")
                _plain_log_ticks(ax.xaxis)
            ax.set_xlabel("training observations")
            name = MEASURE_TITLES[measure]
            if measure == "jaccard" and jaccard_empty is not None:
                name += f" (empty/empty = {jaccard_empty:g})"
            ax.set_title(f"{name}: " + (f"up to {zoom_max}" if zoom else "full range"), fontsize=10)
            ax.grid(alpha=0.3)
    axes[2, 1].legend(frameon=False, fontsize=8, loc="best")
    if title:
        fig.suptitle(title)
    return fig


def _plain_log_ticks(axis):
    from matplotlib import ticker

    axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def plot_times(time_summary: pd.DataFrame):
    """Figure 4: estimation (left) and inference (right) time in ms against the number of labels,
    with standard-error bars, on log-log axes."""
    from fmeasure.figures import plt, style

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, step in zip(axes, ["estimation", "inference"]):
        sub = time_summary[time_summary.step == step]
        methods = [m for m in METHODS if m in set(sub.method)]
        same_as = {b: g[0] for g in coinciding_methods(sub, by=("n_labels",), value="time_ms_mean") for b in g[1:]}
        shift = {m: (1 + DODGE) ** (i - (len(methods) - 1) / 2) for i, m in enumerate(methods)}
        for method in methods:
            d = sub[sub.method == method].sort_values("n_labels")
            label = f"{method} (coincides with {same_as[method]})" if method in same_as else method
            ax.errorbar(
                d.n_labels * shift[method],
                d.time_ms_mean,
                yerr=d.time_ms_se,
                capsize=2,
                markersize=4,
                **style(method, label=label),
            )
        ax.margins(x=0.05, y=0.1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _plain_log_ticks(ax.xaxis)
        _plain_log_ticks(ax.yaxis)
        ax.set_xlabel("number of labels m")
        ax.set_ylabel("time per training sample (ms)")
        ax.set_title(f"{step} time")
        ax.grid(alpha=0.3, which="both")
        ax.legend(frameon=False)
    return fig


# --------------------------------------------------------------------------------------------------
# writers (one per rule)


def write_summaries(
    score_paths,
    reference_paths,
    *,
    data_models,
    summary_csvs,
    claims_csv,
    claims_md,
    regret_csv,
    regret_md,
    z: float = 2.0,
) -> pd.DataFrame:
    """Aggregate the per-job CSVs; write one summary per data model, the claims and the regrets.

    Returns the claims table.
    """
    from fmeasure.tables import write_table

    summary, _ = aggregate(list(score_paths), list(reference_paths))
    scores = pd.concat([pd.read_csv(p) for p in score_paths], ignore_index=True)
    for data_model, path in zip(data_models, summary_csvs):
        write_table(summary[summary.data_model == data_model], path)
    claims = claims_table(scores, z=z)
    n_runs = int(scores.groupby(["data_model", "train_size", "method"]).size().max())
    write_table(
        claims,
        claims_csv,
        claims_md,
        float_format="{:.4f}",
        caption=(
            "Section 6 conclusions checked on this run: margin = claimed method minus the best "
            "competitor (percentage points, losses negated; positive supports the claim), paired "
            f"over the {n_runs} (model, training set) runs, with its standard error; "
            f"confirmed when margin > {z:g} SE, contradicted when margin < -{z:g} SE, else not "
            f"confirmed (a tie); a claim of equality is confirmed when |margin| <= {z:g} SE."
        ),
    )
    write_table(
        regret_table(summary),
        regret_csv,
        regret_md,
        caption="Section 6: mean regret (± s.e.) vs the exact Bayes-optimal prediction of each model.",
    )
    return claims


def write_performance_figure(summary_csv, png, pdf, *, zoom_max: int, jaccard_empty) -> str:
    """Figure 2 or 3 from one data model's summary CSV; returns the data model's name."""
    from fmeasure.figures import save_figure

    summary = pd.read_csv(summary_csv)
    data_model = summary.data_model.iloc[0]
    fig = plot_performance(summary, zoom_max=zoom_max, title=f"{data_model} labels", jaccard_empty=jaccard_empty)
    save_figure(fig, png, pdf)
    return data_model


def write_figure4(times_csv, csv, png, pdf) -> pd.DataFrame:
    """Figure 4 and its table from the raw timings of :func:`time_methods`."""
    from fmeasure.figures import save_figure
    from fmeasure.tables import write_table

    summary = summarize_times(pd.read_csv(times_csv))
    write_table(summary, csv)
    save_figure(plot_times(summary), png, pdf)
    return summary


def write_findings(claims_csv, figure4_csv, out_csv, *, z: float = 2.0) -> pd.DataFrame:
    """``results/findings/simulations.csv`` from the claims table and Figure 4's timing summary.

    Figures 2 and 3 get one row each, summarizing their data model's claims (the weakest shown).
    """
    from fmeasure.experiments.findings import finding, paper_claims
    from fmeasure.experiments.findings import write_findings as _write

    cat = paper_claims().set_index("claim_id")
    claims = pd.read_csv(claims_csv)
    link = "#sec-simulations"
    rows = []
    for r in claims.itertuples(index=False):
        ev = f"{r.claimed} vs {r.versus}, {MEASURE_TITLES[r.measure]}, {r.evidence}"
        rows.append(
            finding(
                r.claim_id,
                cat.loc[r.claim_id, "claim"],
                cat.loc[r.claim_id, "section"],
                r.verdict,
                r.margin,
                r.se,
                ev,
                link,
            )
        )
    for fig, data_model in (("fig2", "independent"), ("fig3", "chain")):
        sub = claims[claims.data_model == data_model]
        if len(sub):
            n_ok = int((sub.verdict == "confirmed").sum())
            worst = sub.assign(r=sub.margin / sub.se.where(sub.se > 0)).sort_values("r").iloc[0]
            v = (
                "contradicted"
                if (sub.verdict == "contradicted").any()
                else "confirmed"
                if n_ok == len(sub)
                else "not confirmed"
            )
            rows.append(
                finding(
                    fig,
                    cat.loc[fig, "claim"],
                    cat.loc[fig, "section"],
                    v,
                    worst.margin,
                    worst.se,
                    f"{n_ok} of {len(sub)} claims confirmed; weakest: {worst.claim_id}",
                    link,
                )
            )
    times = timing_claims(pd.read_csv(figure4_csv), z=z)
    for r in times.itertuples(index=False):
        rows.append(
            finding(
                r.claim_id,
                cat.loc[r.claim_id, "claim"],
                cat.loc[r.claim_id, "section"],
                r.verdict,
                r.margin,
                r.se,
                r.evidence,
                link,
            )
        )
    return _write(rows, out_csv)


# --------------------------------------------------------------------------------------------------
# the protocol of Section 6 and the timing of Figure 4, from the config block


def make_model(data_model: str, index: int, sim: dict) -> IndependentModel | ChainModel:
    """The ``index``-th model of a data model, from the ``simulations`` config block."""
    from fmeasure.label_models import check_data_model, draw_model, stream

    check_data_model(data_model)
    spec = sim["data_models"][data_model]
    return draw_model(
        data_model,
        sim["n_labels"],
        stream(sim["seed"], data_model, index, "weights"),
        weight_mean=spec["weight_mean"],
        bias_mean=spec.get("bias_mean", 0.0),
        scale=sim["scale"],
        scale_is=sim["scale_is"],
    )


def run_model(
    data_model: str, index: int, sim: dict, *, jaccard_empty: float = 1.0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the whole protocol for one model: all training sizes, all repetitions, all methods.

    Parameters
    ----------
    data_model : {"independent", "chain"}
    index : int
        Model index.
    sim : dict
        The ``simulations`` config block (keys ``seed, n_labels, training_sizes,
        n_training_sets, n_test, methods, scale, scale_is, data_models``).
    jaccard_empty : float
        Jaccard index of an empty prediction against an empty truth.

    Returns
    -------
    scores : DataFrame
        One row per (training size, training set, method) with the four test-set measures.
    reference : DataFrame
        One row per measure with the Bayes-optimal prediction's exact value (``bayes``) and its
        test-set value (``bayes_test``).
    """
    from fmeasure import inference
    from fmeasure.label_models import TestStatistics, bayes_predictions, method_keys, stream

    t0 = time.perf_counter()
    model = make_model(data_model, index, sim)
    test = model.sample(sim["n_test"], stream(sim["seed"], data_model, index, "test"))
    stats = TestStatistics.from_sample(test, jaccard_empty=jaccard_empty)
    del test
    methods = method_keys(sim["methods"])
    n_sets = int(sim["n_training_sets"])
    preds, keys = [], []
    for si, n in enumerate(sim["training_sizes"]):
        rng = stream(sim["seed"], data_model, index, "train", si)
        Y = model.sample(n_sets * n, rng).reshape(n_sets, n, -1)
        for method, H in inference.from_samples(Y, methods).items():
            preds.append(H)
            keys.append((n, inference.METHOD_LABELS[method]))
    H = np.concatenate(preds)
    scores = stats.evaluate(H)
    frame = pd.DataFrame(
        {
            "data_model": data_model,
            "model": index,
            "train_size": np.repeat([k[0] for k in keys], n_sets),
            "train_set": np.tile(np.arange(n_sets), len(keys)),
            "method": np.repeat([k[1] for k in keys], n_sets),
            **scores,
        }
    )
    bayes_h, bayes_v = bayes_predictions(model)
    names = list(bayes_h)
    test_vals = stats.evaluate(np.stack([bayes_h[n] for n in names]))
    ref = pd.DataFrame(
        {
            "data_model": data_model,
            "model": index,
            "measure": names,
            "bayes": [bayes_v[n] for n in names],
            "bayes_test": [test_vals[n][i] for i, n in enumerate(names)],
        }
    )
    log.info(
        "%s model %d: %d predictions (%d distinct test rows) in %.2f s",
        data_model,
        index,
        len(H),
        len(stats.codes),
        time.perf_counter() - t0,
    )
    return frame, ref


def run_models(data_model: str, indices, sim: dict, *, jaccard_empty: float = 1.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`run_model` for several model indices, concatenated."""
    indices = [int(i) for i in indices]
    parts = [
        run_model(data_model, i, sim, jaccard_empty=jaccard_empty)
        for i in progress(indices, desc=f"{data_model}: models done", logger=log)
    ]
    return pd.concat([p[0] for p in parts], ignore_index=True), pd.concat([p[1] for p in parts], ignore_index=True)


def time_methods(
    n_labels_grid, *, n_train: int, repeats: int, seed: int, sim: dict, data_model: str = "chain", inner: int = 3
) -> pd.DataFrame:
    """Estimation and inference time of MM, JM, FM and GFM against the number of labels.

    For each ``m`` one model of ``data_model`` is drawn and ``repeats`` training samples of ``n_train``
    vectors; each method's estimation step (counting on one training sample) and inference step
    (one call on those estimates) are timed separately with :func:`time.perf_counter`, one
    instance at a time as in the paper. Each step is run ``inner`` times on the same sample and
    the fastest run kept (as :mod:`timeit` does), which removes most of the noise of a shared
    machine; means and standard errors are then taken over the ``repeats`` samples.
    MM's inference is the threshold ``p > 0.5`` itself (``inference.marginal_modes`` also
    computes the expected F of its output, which MM does not need). JM has a single step,
    counting the label vectors and reading off the most frequent (``estimation.joint_mode``),
    recorded as its estimation; it has no inference row. FM's estimation is MM's.

    Returns
    -------
    DataFrame with columns ``n_labels, repeat, method, step, seconds``.
    """
    from fmeasure import inference
    from fmeasure.label_models import draw_model, stream

    if repeats < 1 or inner < 1:
        raise ValueError(f"repeats/inner: must be >= 1, got {repeats}/{inner}")
    rows = []
    spec = sim["data_models"][data_model]
    for m in n_labels_grid:
        rng = stream(seed, data_model, int(m), "timing")
        model = draw_model(
            data_model,
            int(m),
            rng,
            weight_mean=spec["weight_mean"],
            bias_mean=spec.get("bias_mean", 0.0),
            scale=sim["scale"],
            scale_is=sim["scale_is"],
        )
        for r in range(-1, repeats):  # r = -1: an untimed warm-up round (first-call overheads)
            Y = model.sample(n_train, rng)
            steps = {}
            steps[("MM", "estimation")], p = best_of(lambda: estimation.marginals(Y), inner)
            steps[("FM", "estimation")] = steps[("MM", "estimation")]
            steps[("MM", "inference")], _ = best_of(lambda: p > 0.5, inner)
            steps[("FM", "inference")], _ = best_of(lambda: inference.fm(p), inner)
            steps[("JM", "estimation")], _ = best_of(lambda: estimation.joint_mode(Y), inner)
            steps[("GFM", "estimation")], (P, p_zero) = best_of(lambda: estimation.p_matrix(Y), inner)
            steps[("GFM", "inference")], _ = best_of(lambda: inference.gfm_from_p(P, p_zero), inner)
            for (method, step), sec in steps.items() if r >= 0 else ():
                rows.append({"n_labels": int(m), "repeat": r, "method": method, "step": step, "seconds": sec})
    return pd.DataFrame(rows)


def analysis(tables, points: float = 0.0) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentences on this stage, from the tables in folder ``tables``: the best method
    per measure at the largest training size (Figures 2-3, with the methods whose curves coincide)
    and Figure 4's order of estimation and inference times. No cell is compared with the paper."""
    tables = Path(tables)
    out = []
    for data_model, fig in SIM_DATA_MODELS.items():
        p = tables / f"simulations_{fig}.csv"
        if not p.exists():
            continue
        s = pd.read_csv(p)
        n = int(s.train_size.max())
        big = s[s.train_size == n]
        best = []
        for measure in ("hamming", "subset01", "f", "jaccard"):
            b = big[big.measure == measure].set_index("method")["mean"]
            if len(b):
                top = b.min() if measure in ("hamming", "subset01") else b.max()
                tied = [k for k, v in b.items() if abs(v - top) <= 1e-12]
                best.append(f"{MEASURE_TITLES[measure]} {' = '.join(tied)} ({top:.4f})")
        out.append(f"- {data_model} labels, n = {n}: best mean per measure: " + "; ".join(best) + ".")
        coinc = coinciding_methods(s)
        if coinc:
            out.append(
                f"  Identical curves in every panel: {', '.join(' = '.join(c) for c in coinc)} "
                "(drawn with offset markers)."
            )
    p = tables / "simulations_figure4.csv"
    if p.exists():
        t = pd.read_csv(p)
        m = int(t.n_labels.max())
        for step in ("estimation", "inference"):
            tot = t[(t.n_labels == m) & (t.step == step)].set_index("method").time_ms_mean.sort_values()
            if len(tot):
                out.append(
                    f"- Figure 4, m = {m}: {step} time per training sample, fastest to slowest: "
                    + ", ".join(f"{k} {v:.4g} ms" for k, v in tot.items())
                    + "."
                )
    return out, []
