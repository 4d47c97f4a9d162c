"""How each learner's cost grows with the number of instances n and of labels m.

Every (learner, shape) cell is one job: :func:`run_cell` generates a synthetic dataset of that shape
(:func:`fmeasure.datasets.synthetic.generate`), fits the learner on the training part and predicts the test
part under a time limit, and returns the fit and predict seconds (wall), the CPU seconds of both and
the job's peak resident memory. A cell over its time limit is recorded with ``status = timeout``.
:func:`write_scaling` gathers the cells into ``results/tables/scaling.csv`` and draws log-log curves
with each learner's fitted exponents in n and in m (:func:`exponents`).
"""

from __future__ import annotations

import resource
import signal
import sys
import time

import numpy as np
import pandas as pd

from fmeasure.datasets.synthetic import generate
from fmeasure.experiments.registry import PARAMETRIC_LEARNERS, SCALING_LEARNERS
from fmeasure.tables import write_table

__all__ = [
    "LEARNERS",
    "RESOURCE_JOB",
    "cells",
    "make_learner",
    "run_cell",
    "exponents",
    "curve_points",
    "write_scaling",
]

#: Learners of the benchmark (names used in the config's ``scaling.learners``).
LEARNERS = SCALING_LEARNERS
#: The pipeline job whose resource formula (:mod:`fmeasure.experiments.resources`) sizes a learner's
#: cell: the job that fits that learner on a real dataset.
RESOURCE_JOB = {
    "kNN": "knn_run",
    "PCC": "pcc_curve",
    "BR": "parametric_fit_predict",
    "LFP": "parametric_fit_predict",
    "EFP": "parametric_fit_predict",
    "RML": "structured_rml",
    "voting": "voting_fit",
    "F-tree": "trees_run",
    "F-bag": "trees_run",
}
COLUMNS = ["learner", "n", "m", "d", "fit_s", "predict_s", "cpu_s", "peak_rss_mb", "status"]


def cells(cfg: dict) -> list[tuple[str, int, int]]:
    """``(learner, n, m)`` of every job: the n grid at ``m_at_n``, the m grid at ``n_at_m``."""
    shapes = [(n, cfg["m_at_n"]) for n in cfg["n"]] + [(cfg["n_at_m"], m) for m in cfg["m"]]
    shapes = list(dict.fromkeys(shapes))
    return [(lrn, n, m) for lrn in cfg["learners"] for n, m in shapes]


def make_learner(name: str, cfg: dict, n_jobs: int = 1):
    """An unfitted learner of the benchmark, with the small C grid of ``cfg``."""
    from fmeasure import learners as L

    Cs, cv, seed = list(cfg["Cs"]), cfg["cv"], cfg["seed"]
    logistic = {"Cs": Cs, "cv": cv, "random_state": seed, "n_jobs": n_jobs}
    if name == "kNN":
        return L.KNeighborsFMeasure(n_neighbors=cfg["n_neighbors"], inference="gfm", n_jobs=n_jobs)
    if name == "PCC":
        return L.ProbabilisticClassifierChain(
            Cs=Cs, cv=cv, n_samples=cfg["n_samples"], random_state=seed, n_jobs=n_jobs
        )
    if name in PARAMETRIC_LEARNERS:
        return getattr(L, {"BR": "BinaryRelevance"}.get(name, name))(**logistic)
    if name == "RML":
        return L.FMeasureSSVM(Cs=Cs, cv=cv, max_iter=cfg["rml_max_iter"], random_state=seed, n_jobs=n_jobs)
    if name == "voting":
        br = L.BinaryRelevance(**logistic)
        members = [("BR", br, {"inference": "mm"}), ("LFP", br, {"inference": "fm"})]
        return L.VotingEnsemble(members, random_state=seed)
    if name == "F-tree":
        return L.FMeasureTree(min_samples_leaf=5, random_state=seed)
    if name == "F-bag":
        return L.BaggedFMeasureTrees(
            n_estimators=cfg["n_estimators"], min_samples_leaf=5, max_features="sqrt", n_jobs=n_jobs, random_state=seed
        )
    raise ValueError(f"scaling.learners: unknown learner {name!r} (known: {', '.join(LEARNERS)})")


class _Timeout(Exception):
    pass


def _peak_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def _cpu() -> float:
    return time.process_time()


def run_cell(learner: str, n: int, m: int, cfg: dict, n_jobs: int = 1) -> dict:
    """Fit and predict ``learner`` on a synthetic dataset with n training instances and m labels.

    The test set has ``cfg["n_test"]`` instances, ``cfg["d"]`` features; the label cardinality is
    ``cfg["cardinality"]`` (at most m - 1). Fit plus predict stop after ``cfg["timeout_s"]`` seconds:
    the row then has ``status = "timeout"`` and the times measured so far.
    """
    card = min(float(cfg["cardinality"]), 0.5 * m)
    entry = {"n_train": n, "n_test": cfg["n_test"], "d": cfg["d"], "m": m, "cardinality": card, "seed": cfg["seed"]}
    entry["skew"], entry["dependence"] = cfg["skew"], cfg["dependence"]
    ds = generate(f"scaling-n{n}-m{m}", entry)
    model = make_learner(learner, cfg, n_jobs)
    row = {"learner": learner, "n": n, "m": m, "d": cfg["d"], "fit_s": np.nan, "predict_s": np.nan}
    cpu0 = _cpu()

    def alarm(signum, frame):
        raise _Timeout

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, float(cfg["timeout_s"]))
    status = "ok"
    try:
        t0 = time.perf_counter()
        model.fit(ds.X_train, ds.Y_train)
        row["fit_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        model.predict(ds.X_test)
        row["predict_s"] = time.perf_counter() - t0
    except _Timeout:
        status = "timeout"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    row.update(cpu_s=_cpu() - cpu0, peak_rss_mb=_peak_rss_mb(), status=status)
    return row


def exponents(table: pd.DataFrame, m_at_n: int, n_at_m: int) -> pd.DataFrame:
    """Per learner, the slope of log(fit_s + predict_s) against log n (at m = ``m_at_n``) and log m
    (at n = ``n_at_m``), fitted by least squares over the cells that finished (NaN with fewer than 2)."""
    rows = []
    ok = table[table["status"] == "ok"].assign(total_s=lambda t: t["fit_s"] + t["predict_s"])
    for learner, g in ok.groupby("learner", sort=False):
        row = {"learner": learner}
        for var, fixed, at in (("n", "m", m_at_n), ("m", "n", n_at_m)):
            sub = g[g[fixed] == at].drop_duplicates(var)
            sub = sub[sub["total_s"] > 0]
            row[f"exponent_{var}"] = (
                float(np.polyfit(np.log(sub[var]), np.log(sub["total_s"]), 1)[0]) if len(sub) >= 2 else np.nan
            )
        rows.append(row)
    return pd.DataFrame(rows, columns=["learner", "exponent_n", "exponent_m"])


def curve_points(table: pd.DataFrame, learner: str, var: str, fixed: str, at: int, timeout_s: float):
    """One learner's points along ``var`` (``fixed`` held at ``at``), sorted: the finished cells with
    their fit + predict seconds, and the cells over the time limit placed at ``timeout_s`` (their
    true cost is above it)."""
    sub = table[(table["learner"] == learner) & (table[fixed] == at)].sort_values(var)
    done = sub[sub["status"] == "ok"].assign(total_s=lambda t: t["fit_s"] + t["predict_s"])
    over = sub[sub["status"] == "timeout"].assign(total_s=float(timeout_s))
    return done, over


def write_scaling(records, cfg: dict, csv_path, md_path, figure_path) -> pd.DataFrame:
    """Gather the cells' rows into the scaling table (csv, md) and the log-log figure (png + pdf)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fmeasure.io import atomic_output

    table = pd.DataFrame(list(records), columns=COLUMNS).sort_values(["learner", "m", "n"], kind="stable")
    slopes = exponents(table, cfg["m_at_n"], cfg["n_at_m"])
    caption = (
        "Cost of each learner on synthetic data: fit and predict wall seconds, CPU seconds of both, "
        f"peak resident memory of the job (MB); n training instances at m = {cfg['m_at_n']} labels and m "
        f"labels at n = {cfg['n_at_m']}, {cfg['n_test']} test instances, d = {cfg['d']} features. A cell "
        f"over {cfg['timeout_s']} s is marked timeout. Fitted exponents (slope of log time): "
        + "; ".join(f"{r.learner} n^{r.exponent_n:.2f}, m^{r.exponent_m:.2f}" for r in slopes.itertuples())
        + "."
    )
    write_table(table, csv_path, md_path, caption=caption, float_format="{:.3f}")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    styles = ["o-", "s--", "^-.", "v:", "D-", "x--", "*-.", "p:", "h-"]
    slope = slopes.set_index("learner")
    learners = list(dict.fromkeys(table["learner"]))
    timeout_shown = False
    for k, learner in enumerate(learners):
        for ax, var, fixed, at in ((axes[0], "n", "m", cfg["m_at_n"]), (axes[1], "m", "n", cfg["n_at_m"])):
            done, over = curve_points(table, learner, var, fixed, at, cfg["timeout_s"])
            e = slope.loc[learner, f"exponent_{var}"] if learner in slope.index else np.nan
            if len(done):
                ax.plot(
                    done[var],
                    done["total_s"],
                    styles[k % len(styles)],
                    color="black",
                    ms=4,
                    label=f"{learner} ({e:.2f})",
                )
            if len(over):
                # a cell over the time limit: an open marker at the limit, the learner's own shape
                style = styles[k % len(styles)][0]
                name = None if len(done) else f"{learner} (over the limit)"
                ax.plot(over[var], over["total_s"], style, color="black", mfc="white", ms=7, ls="", label=name)
                timeout_shown = True
    for ax, var, fixed, at in ((axes[0], "n", "m", cfg["m_at_n"]), (axes[1], "m", "n", cfg["n_at_m"])):
        ax.set(xscale="log", yscale="log", xlabel=var, ylabel="fit + predict (s)", title=f"{fixed} = {at}")
        if timeout_shown:
            ax.axhline(float(cfg["timeout_s"]), color="grey", lw=0.6, ls=":")
        ax.legend(fontsize=7, title="exponent", title_fontsize=7)
    if timeout_shown:
        fig.text(
            0.01,
            0.01,
            f"open markers on the dotted line: over the {cfg['timeout_s']:g} s limit (not finished)",
            fontsize=7,
        )
    fig.tight_layout()
    for suffix in (".png", ".pdf"):
        with atomic_output(str(figure_path).rsplit(".", 1)[0] + suffix) as tmp:
            fig.savefig(tmp)
    plt.close(fig)
    return table
