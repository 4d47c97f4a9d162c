"""The peers stage's tables: the peers against the reference, our routes against it, the summary by
dataset and the two rankings, each as CSV and as Markdown with its caption."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmeasure.experiments.peers.stats import FAMILIES, ranked_rows
from fmeasure.experiments.peers.systems import title

__all__ = ["shown_names", "cuts_sentence", "write_table", "write_by_dataset", "write_ranks"]


def shown_names(df: pd.DataFrame) -> list[str]:
    """Each row's system as the Markdown tables show it, the reference marked."""
    return [title(m) + (" (reference)" if r else "") for m, r in zip(df.method, df.reference.astype(bool))]


def cuts_sentence(table: pd.DataFrame) -> str:
    """What a search's size rules cut, per dataset (from the table's ``search_cuts``): one sentence,
    or "" when they cut nothing."""
    t = table[table.search_cuts.fillna("").astype(str) != ""]
    if t.empty:
        return ""
    parts = [f"{d} ({m}): {c}" for d, m, c in zip(t.dataset, t.method, t.search_cuts)]
    return "What the size rules of a search, or the budget, cut (on the training set alone): " + "; ".join(parts) + "."


def _timeouts_sentence(table: pd.DataFrame) -> str:
    t = table[table.status == "timeout"]
    if t.empty:
        return ""
    return (
        "Over the budget (recorded as a timeout, ranked last on its dataset, outside the tests): "
        + ", ".join(f"{m} {s} on {d}" for d, m, s in zip(t.dataset, t.method, t.setting))
        + "."
    )


def write_table(
    table: pd.DataFrame,
    csv_path,
    md_path,
    *,
    reference: str,
    margin: float,
    z: float = 2.0,
    which: str = "peers",
    budget: str = "",
) -> pd.DataFrame:
    """The comparison table with a caption: ``which="peers"``: the CSV holds every row of ``table`` and
    the Markdown the reference and the public systems; ``"ours"``: both the reference and our other
    routes."""
    from fmeasure.tables import write_table as _write

    want = table.source == ("peer" if which == "peers" else "ours")
    sub = table[want | table.reference.astype(bool)]
    fam = pd.Categorical(sub.family, categories=["reference", *FAMILIES], ordered=True)
    sub = sub.assign(_f=fam).sort_values(["dataset", "_f"], kind="stable").drop(columns="_f")
    ni = sub.noninferior.map({True: "yes", False: "no"}).fillna("")
    shown = sub.assign(
        method=shown_names(sub),
        **{c: sub[c].round(2) for c in ("f", "f_sd", "se", "diff_to_reference", "diff_se")},
        p_holm=sub.p_holm.round(4),
        p_ni_holm=sub.p_ni_holm.round(4),
        noninferior=ni,
        cpu_s=sub.cpu_s.round(1),
    )[
        [
            "dataset",
            "method",
            "family",
            "setting",
            "n_seeds",
            "f",
            "f_sd",
            "diff_to_reference",
            "diff_se",
            "p_holm",
            "vs_reference",
            "p_ni_holm",
            "noninferior",
            "cpu_s",
        ]
    ]
    families = [f for f in FAMILIES if (f in set(sub.family))]
    head = (
        "Public multi-label systems against our reference"
        if which == "peers"
        else "Our other routes against the reference"
    )
    caption = (
        f"{head} ({title(reference)}, declared in the configuration): test instance-wise F (%, F(0,0) = 1) on each "
        "dataset's own split, the same features, seeds and budget for every system; f: the mean over test instances "
        "and seeds (n_seeds), f_sd: the spread of the seeds' F; diff_to_reference: f minus the reference's, diff_se: "
        "its standard error over test instances and seeds (var of the seed-averaged difference over instances / n + "
        "var of the per-seed mean difference over seeds / S); p_holm: two-sided z test of the difference, "
        f"vs_reference: better or worse where p_holm < the level of {z:g} SE, else tie; p_ni_holm: one-sided test "
        f"that the reference is at least as good as the row within {margin:g} points of F (H0: the row better by "
        f"{margin:g} or more), noninferior: yes where it holds at half that level (the upper end of the {z:g}-SE "
        "interval below the margin). Holm's correction within each family of each dataset: "
        + "; ".join(f"{f}: {FAMILIES[f]}" for f in families)
        + ". cpu_s: mean CPU seconds of a run (tuning, final fit, prediction)"
        + (f"; budget per run: {budget}" if budget else "")
        + ". "
        + " ".join(s for s in (_timeouts_sentence(sub), cuts_sentence(sub)) if s)
    )
    _write(table if which == "peers" else sub, csv_path, md_path, caption=caption.strip(), md_df=shown)
    return sub


def write_by_dataset(table: pd.DataFrame, csv_path, md_path, *, reference: str, z: float = 2.0) -> pd.DataFrame:
    """The per-dataset summary the report shows: one row per dataset, one column per system (its
    tuned setting, or its default when it has no tuned one), each cell the F over the seeds as
    ``mean ± sd``, marked ``+`` (``-``) where the system is better (worse) than the reference after
    Holm's correction and ``≤`` where the reference is shown at least as good (non-inferiority)."""
    from fmeasure.tables import write_table as _write

    t = ranked_rows(table)
    methods = list(dict.fromkeys(t.method))
    methods = [reference] + [m for m in methods if m != reference]
    datasets = list(dict.fromkeys(t.dataset))
    mark = {"better": " +", "worse": " -"}
    wide, tidy = [], []
    for d in datasets:
        sub = t[t.dataset == d].set_index("method")
        ref = sub.loc[reference]
        row = {"dataset": d, "seeds": int(ref.n_seeds) if np.isfinite(ref.n_seeds) else 0}
        for m in methods:
            if m not in sub.index:
                row[m] = ""
                continue
            r = sub.loc[m]
            if r.status == "timeout":
                row[m] = "timeout"
                continue
            if r.status != "ran":
                row[m] = "not run"
                continue
            sd = f" ± {r.f_sd:.2f}" if np.isfinite(r.f_sd) else ""
            ni = " ≤" if r.noninferior is True else ""
            row[m] = f"{r.f:.2f}{sd}{mark.get(r.vs_reference, '')}{ni}"
            tidy.append({"dataset": d, "method": m, "setting": r.setting, "n_seeds": int(r.n_seeds)})
            tidy[-1] |= {"f": r.f, "f_sd": r.f_sd, "vs_reference": r.vs_reference, "noninferior": r.noninferior}
        wide.append(row)
    shown = pd.DataFrame(wide).rename(columns={reference: f"{reference} (reference)"})
    caption = (
        "Peers by dataset: test F (%) of each system over the seeds it ran on (mean ± standard deviation of the "
        "seeds' F; seeds: the reference's number; a deterministic system runs on the first seed alone and shows no "
        "±), each in its tuned setting (a package without one: its defaults). + (-): better (worse) than the "
        f"reference ({reference}) by more than {z:g} standard errors after Holm's correction within its family; ≤: "
        "the reference is shown at least as good (non-inferiority within the margin); timeout: over the budget. "
        "Keys: " + "; ".join(f"{m}: {title(m)}" for m in methods) + "."
    )
    out = pd.DataFrame(
        tidy, columns=["dataset", "method", "setting", "n_seeds", "f", "f_sd", "vs_reference", "noninferior"]
    )
    _write(out, csv_path, md_path, caption=caption, md_df=shown)
    return out


def write_ranks(ranks: pd.DataFrame, summary: dict, csv_path, md_path, *, reference: str) -> pd.DataFrame:
    """One ranking's table (CSV, unless ``csv_path`` is None; Markdown) with its caption."""
    from pathlib import Path

    from fmeasure.io import atomic_output
    from fmeasure.tables import to_markdown
    from fmeasure.tables import write_table as _write

    who = "the reference and the public systems" if summary["ranking"] == "peers" else "the reference and our routes"
    if "reason" in summary:
        test = f"No test: {summary['reason']}."
    else:
        test = (
            f"Friedman test over {summary['n_datasets']} datasets and {summary['n_systems']} systems: chi2 = "
            f"{summary['friedman_chi2']:.2f}, p = {summary['friedman_p']:.3g}; Iman-Davenport F = "
            f"{summary['iman_davenport_f']:.2f}, p = {summary['iman_davenport_p']:.3g}. Nemenyi's critical "
            f"difference at alpha = {summary['alpha']:.4f}: {summary['cd']:.2f} ranks."
        )
    caption = (
        f"Mean rank over the datasets of {who} (1 = best test F; a run over the budget ranks last on its dataset; "
        "each system in its tuned setting, or its defaults when it has none); rank_diff: its mean rank minus the "
        f"reference's ({title(reference)}); p_nemenyi: Nemenyi's test against the reference; p_holm: the z test of "
        "the two mean ranks (Demšar 2006), Holm-adjusted over the comparisons with the reference; vs_reference: better "
        "or worse when the Friedman test and p_holm are both below alpha; n_timeouts: datasets where it ran over the "
        "budget. " + test
    )
    reference_mark = ranks.reference.astype(bool)
    shown = ranks.assign(
        method=[title(m) + (" (reference)" if r else "") for m, r in zip(ranks.method, reference_mark)],
        mean_rank=ranks.mean_rank.round(2),
        rank_diff=ranks.rank_diff.round(2),
        p_nemenyi=ranks.p_nemenyi.round(4),
        p_holm=ranks.p_holm.round(4),
    )[["method", "kind", "setting", "mean_rank", "rank_diff", "p_nemenyi", "p_holm", "vs_reference", "n_timeouts"]]
    if csv_path is not None:
        _write(ranks, csv_path, md_path, caption=caption, md_df=shown)
    else:
        with atomic_output(md_path) as tmp:
            Path(tmp).write_text(f"{caption}\n\n" + to_markdown(shown))
    return ranks
