"""Stage ``simulations`` (Section 6, Figures 2-4): aggregation, the claims of Section 6, plots.

The data models, the protocol and the timing of :mod:`fmeasure.simulation` (library) produce
per-job CSVs; this module summarizes them (means, standard errors, regrets against the exact
Bayes-optimal predictions), checks the paper's qualitative claims, and draws Figures 2-4.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmeasure.metrics import MEASURE_TITLES, MEASURES
from fmeasure.simulation import MEASURE_SIGN, METHODS

# --------------------------------------------------------------------------------------------------
# aggregation


def summarize(scores: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and regret per (data model, training size, method, measure).

    ``se`` is the standard error over all (model, training set) runs, as in the paper's error bars;
    ``se_models`` the standard error over the per-model means (the models are the independent
    replicates). ``bayes`` is the mean exact Bayes-optimal value over the models (NaN for Jaccard);
    ``regret`` the mean of ``sign * (bayes - score)`` per run, >= 0 up to test-sample noise.
    """
    long = scores.melt(id_vars=["data_model", "model", "train_size", "train_set", "method"],
                       value_vars=list(MEASURES), var_name="measure", value_name="value")
    long = long.merge(reference[["data_model", "model", "measure", "bayes"]], how="left",
                      on=["data_model", "model", "measure"])
    sign = long["measure"].map(MEASURE_SIGN)
    long["regret"] = sign * (long["bayes"] - long["value"])
    keys = ["data_model", "train_size", "method", "measure"]
    g = long.groupby(keys, sort=False)
    out = g.agg(mean=("value", "mean"), sd=("value", "std"), n=("value", "size"),
                bayes=("bayes", "mean"), regret=("regret", "mean"), regret_sd=("regret", "std")).reset_index()
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


def _best(summary: pd.DataFrame, kind: str, n: int, measure: str) -> pd.Series:
    sub = summary[(summary.data_model == kind) & (summary.train_size == n) & (summary.measure == measure)]
    return sub.set_index("method")["mean"] * MEASURE_SIGN[measure]


def claims_table(summary: pd.DataFrame, *, tolerance: float = 1e-3, small_sizes=(5, 10, 20)) -> pd.DataFrame:
    """Check the conclusions of Section 6 on a summary; one row per claim with evidence and verdict.

    ``tolerance`` is the margin within which two methods count as tied (same units as the measure).
    Claims about training-size ranges use the largest size of the summary (``large``) and the sizes
    in ``small_sizes`` that are present.
    """
    rows = []
    sizes = sorted(summary.train_size.unique())
    large = int(sizes[-1])
    small = [int(n) for n in sizes if n in set(small_sizes)] or [int(sizes[0])]

    def add(kind, claim, ok, evidence):
        rows.append({"data_model": kind, "claim": claim, "holds": bool(ok), "evidence": evidence})

    def gap(kind, n, measure, a, others):
        s = _best(summary, kind, n, measure)
        return float(s[a] - max(s[o] for o in others if o in s.index))

    for kind in sorted(summary.data_model.unique()):
        methods = set(summary[summary.data_model == kind].method)
        others = lambda a: [o for o in methods if o != a]  # noqa: E731
        if {"MM", "JM"} <= methods:
            d = gap(kind, large, "hamming", "MM", others("MM"))
            add(kind, f"MM best for Hamming loss at n={large}", d >= -tolerance,
                f"MM minus best other (loss sign-flipped): {d:+.4f}")
            d = gap(kind, large, "subset01", "JM", others("JM"))
            add(kind, f"JM best for subset 0/1 loss at n={large}", d >= -tolerance,
                f"JM minus best other (loss sign-flipped): {d:+.4f}")
        if {"FM", "GFM"} <= methods:
            s = _best(summary, kind, large, "jaccard")
            best_f = max(s["FM"], s["GFM"])
            add(kind, f"an F-maximizer (FM or GFM) best for the Jaccard index at n={large}",
                best_f >= max(s[o] for o in methods - {"FM", "GFM"}) - tolerance,
                f"max(FM, GFM) {best_f:.4f} vs best other {max(s[o] for o in methods - {'FM', 'GFM'}):.4f}")
            reg = summary[(summary.data_model == kind) & (summary.train_size == large)
                          & (summary.measure == "f") & (summary.method == "GFM")]["regret"].iloc[0]
            add(kind, f"GFM's F-measure regret vs the Bayes-optimal F-maximizer small at n={large}",
                reg <= 5 * tolerance, f"mean regret {reg:.4f}")
        if kind == "independent" and {"FM", "GFM"} <= methods:
            s = _best(summary, kind, large, "f")
            add(kind, f"FM and GFM tie on F-measure at n={large}", abs(s["FM"] - s["GFM"]) <= tolerance,
                f"|FM - GFM| = {abs(s['FM'] - s['GFM']):.4f}")
            d = np.mean([_best(summary, kind, n, "f")["FM"] - _best(summary, kind, n, "f")["GFM"]
                         for n in small])
            add(kind, f"FM at least as good as GFM on F-measure at small n {small}", d >= -tolerance,
                f"mean FM - GFM: {d:+.4f}")
        if kind == "independent" and {"MM", "JM"} <= methods:
            d = np.mean([_best(summary, kind, n, "subset01")["MM"]
                         - _best(summary, kind, n, "subset01")["JM"] for n in small])
            add(kind, f"JM converges slower than MM: MM better on subset 0/1 at small n {small}", d > 0,
                f"mean JM loss - MM loss: {d:+.4f}")
        if kind == "chain" and {"FM", "GFM"} <= methods:
            mid = [n for n in sizes if n >= 100] or [large]
            ds = [gap(kind, n, "f", "GFM", others("GFM")) for n in mid]
            add(kind, f"GFM clearly best for F-measure at every n >= {mid[0]}", min(ds) > tolerance,
                f"smallest margin over the best other: {min(ds):+.4f}")
            s = _best(summary, kind, large, "f")
            add(kind, f"GFM ahead of FM on F-measure at n={large} (any margin)", s["GFM"] > s["FM"],
                f"GFM - FM: {s['GFM'] - s['FM']:+.4f}")
            d = gap(kind, large, "jaccard", "GFM", others("GFM"))
            add(kind, f"GFM best for the Jaccard index at n={large}", d >= -tolerance,
                f"GFM minus best other: {d:+.4f}")
            if "JM" in methods:
                s = _best(summary, kind, large, "jaccard").drop("GFM").sort_values(ascending=False)
                add(kind, f"JM second for the Jaccard index at n={large}", s.index[0] == "JM",
                    "order after GFM: " + ", ".join(f"{k} {v:.4f}" for k, v in s.items()))
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
    wide = sub.pivot_table(index=["data_model", "measure", "method"], columns="train_size", values="cell",
                           aggfunc="first").reset_index()
    wide.columns = [c if isinstance(c, str) else f"n={c}" for c in wide.columns]
    return wide


def plot_performance(summary: pd.DataFrame, *, zoom_max: int = 100, title: str | None = None, jaccard_empty=None):
    """Figures 2 and 3: four rows (measures) x two columns (training sizes up to ``zoom_max``; all).

    ``summary`` holds one data model. Each method is a line with standard-error bars; the dotted
    line is the mean exact Bayes-optimal value (Hamming, subset 0/1, F). The right column uses a
    logarithmic size axis.
    """
    from fmeasure.figures import METHOD_STYLE, plt, style

    methods = [m for m in METHODS if m in set(summary.method)]
    fig, axes = plt.subplots(len(MEASURES), 2, figsize=(9.5, 12.5), squeeze=False)
    for r, measure in enumerate(MEASURES):
        sub = summary[summary.measure == measure]
        for c, zoom in enumerate([True, False]):
            ax = axes[r, c]
            part = sub[sub.train_size <= zoom_max] if zoom else sub
            for method in methods:
                d = part[part.method == method].sort_values("train_size")
                ax.errorbar(d.train_size, d["mean"], yerr=d["se"], capsize=2, markersize=4, **style(method))
            bayes = sub["bayes"].dropna()
            if len(bayes):
                ax.axhline(bayes.mean(), label="Bayes-optimal", **{k: v for k, v in METHOD_STYLE["Bayes"].items()
                                                                    if k != "marker"})
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
        for method in [m for m in METHODS if m in set(sub.method)]:
            d = sub[sub.method == method].sort_values("n_labels")
            ax.errorbar(d.n_labels, d.time_ms_mean, yerr=d.time_ms_se, capsize=2, markersize=4, **style(method))
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


def write_summaries(score_paths, reference_paths, *, kinds, summary_csvs, claims_csv, claims_md, regret_csv,
                    regret_md, tolerance: float) -> pd.DataFrame:
    """Aggregate the per-job CSVs; write one summary per data model, the claims and the regrets.

    Returns the claims table.
    """
    from fmeasure.tables import write_table

    summary, _ = aggregate(list(score_paths), list(reference_paths))
    for kind, path in zip(kinds, summary_csvs):
        write_table(summary[summary.data_model == kind], path)
    claims = claims_table(summary, tolerance=tolerance)
    write_table(claims, claims_csv, claims_md,
                caption=f"Section 6 conclusions checked on this run (tie tolerance {tolerance:g}).")
    write_table(regret_table(summary), regret_csv, regret_md,
                caption="Section 6: mean regret (± s.e.) vs the exact Bayes-optimal prediction of each model.")
    return claims


def write_performance_figure(summary_csv, png, pdf, *, zoom_max: int, jaccard_empty) -> str:
    """Figure 2 or 3 from one data model's summary CSV; returns the data model's name."""
    from fmeasure.figures import save_figure

    summary = pd.read_csv(summary_csv)
    kind = summary.data_model.iloc[0]
    fig = plot_performance(summary, zoom_max=zoom_max, title=f"{kind} labels", jaccard_empty=jaccard_empty)
    save_figure(fig, png, pdf)
    return kind


def write_figure4(times_csv, csv, png, pdf) -> pd.DataFrame:
    """Figure 4 and its table from the raw timings of :func:`fmeasure.simulation.time_methods`."""
    from fmeasure.figures import save_figure
    from fmeasure.tables import write_table

    summary = summarize_times(pd.read_csv(times_csv))
    write_table(summary, csv)
    save_figure(plot_times(summary), png, pdf)
    return summary
