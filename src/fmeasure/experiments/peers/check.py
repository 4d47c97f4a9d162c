"""Does the large datasets' cheaper protocol change the ranks? The check reruns every dataset of the
full protocol under the cheaper one (``peers.large``: fewer folds, fewer seeds) and compares.

For each ranking (:data:`~fmeasure.experiments.peers.stats.RANKINGS`) and each system: its rank on
each dataset and its mean rank over these datasets under both protocols; for each dataset Kendall's
tau between the two orders (scipy); for each compared row, its verdicts (difference, non-inferiority)
under both. The cheaper protocol *keeps the ranks* when no system's mean rank moves by more than half
of Nemenyi's critical difference of the full protocol's ranking and no verdict of the headline
family (the public F-maximizers against the reference) changes on any dataset.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmeasure.experiments.peers.stats import RANKINGS, rank_matrix, ranked_rows, run_ranks
from fmeasure.experiments.peers.systems import is_peer

__all__ = ["CHECK_COLUMNS", "protocol_check", "write_protocol_check"]

#: Columns of ``results/tables/peers_protocol_check.csv``.
CHECK_COLUMNS = [
    "ranking",
    "dataset",
    "method",
    "rank_full",
    "rank_large",
    "shift",
    "kendall_tau",
    "verdict_full",
    "verdict_large",
]


def _verdict(row) -> str:
    if row is None or row.status != "ran":
        return "" if row is None else str(row.status)
    if row.reference:
        return "reference"
    ni = "; at least as good" if row.noninferior is True or str(row.noninferior) == "True" else ""
    return f"{row.vs_reference}{ni}"


def protocol_check(full: pd.DataFrame, large: pd.DataFrame, *, reference: str, z: float = 2.0):
    """Compare the full protocol's table (on the datasets ``large`` covers) with the cheaper one's.
    Returns ``(rows, summary)``: the rows of :data:`CHECK_COLUMNS` (one per ranking, dataset and
    system, then one per ranking and system with dataset ``mean``), and ``summary`` with, per ranking,
    the largest shift of a mean rank, half the critical difference, the smallest Kendall tau, the
    headline verdicts that changed and ``keeps_ranks``."""
    from scipy.stats import kendalltau, rankdata

    datasets = list(dict.fromkeys(large.dataset))
    full = full[full.dataset.isin(datasets)]
    rows, summary = [], {"datasets": datasets}
    tf, tl = ranked_rows(full), ranked_rows(large)
    for ranking in RANKINGS:
        want = ranking == "peers"
        methods = [reference] + [m for m in dict.fromkeys(tf.method) if m != reference and is_peer(m) == want]
        A, _ = rank_matrix(tf, methods, datasets)
        B, _ = rank_matrix(tl, methods, datasets)
        common = [m for m in A.columns if m in B.columns]
        if len(common) < 2:
            continue
        RA = pd.DataFrame(rankdata(-A[common].to_numpy(float), axis=1), index=A.index, columns=common)
        RB = pd.DataFrame(rankdata(-B[common].to_numpy(float), axis=1), index=B.index, columns=common)
        taus = {}
        for d in datasets:
            tau = kendalltau(RA.loc[d], RB.loc[d]).statistic
            taus[d] = float(tau) if np.isfinite(tau) else 1.0
            for m in common:
                fr = tf[(tf.dataset == d) & (tf.method == m)]
                lr = tl[(tl.dataset == d) & (tl.method == m)]
                rows.append(
                    {
                        "ranking": ranking,
                        "dataset": d,
                        "method": m,
                        "rank_full": float(RA.loc[d, m]),
                        "rank_large": float(RB.loc[d, m]),
                        "shift": float(RB.loc[d, m] - RA.loc[d, m]),
                        "kendall_tau": taus[d],
                        "verdict_full": _verdict(fr.iloc[0] if len(fr) else None),
                        "verdict_large": _verdict(lr.iloc[0] if len(lr) else None),
                    }
                )
        for m in common:
            a, b = float(RA[m].mean()), float(RB[m].mean())
            rows.append({"ranking": ranking, "dataset": "mean", "method": m, "rank_full": a, "rank_large": b})
            rows[-1] |= {"shift": b - a, "kendall_tau": np.nan, "verdict_full": "", "verdict_large": ""}
        _, s = run_ranks(full, reference=reference, ranking=ranking, z=z)
        half_cd = s.get("cd", np.nan) / 2
        mean_rows = [r for r in rows if r["ranking"] == ranking and r["dataset"] == "mean"]
        max_shift = max(abs(r["shift"]) for r in mean_rows)
        head = [
            r
            for r in rows
            if r["ranking"] == ranking
            and r["dataset"] != "mean"
            and r["method"] != reference
            and is_peer(r["method"])
            and _is_f_max(r["method"])
            and r["verdict_full"] != r["verdict_large"]
        ]
        summary[ranking] = {
            "max_shift": max_shift,
            "half_cd": half_cd,
            "min_tau": min(taus.values()),
            "headline_changes": [
                f"{r['method']} on {r['dataset']}: {r['verdict_full']} -> {r['verdict_large']}" for r in head
            ],
            "keeps_ranks": bool(np.isfinite(half_cd) and max_shift <= half_cd and not head),
        }
    return pd.DataFrame(rows, columns=CHECK_COLUMNS), summary


def _is_f_max(method: str) -> bool:
    from fmeasure.experiments.peers.systems import is_f_maximizer

    return is_f_maximizer(method)


def write_protocol_check(rows: pd.DataFrame, summary: dict, csv_path, md_path) -> pd.DataFrame:
    """The check's table (CSV) and its Markdown: the mean ranks under both protocols, with a caption
    that gives the verdict."""
    from fmeasure.tables import write_table as _write

    parts = []
    for ranking in RANKINGS:
        s = summary.get(ranking)
        if not s:
            continue
        verdict = "keeps the ranks" if s["keeps_ranks"] else "CHANGES the ranks"
        changes = "; ".join(s["headline_changes"]) or "none"
        parts.append(
            f"{ranking}: the cheaper protocol {verdict} (largest shift of a mean rank {s['max_shift']:.2f}, half the "
            f"critical difference {s['half_cd']:.2f}; smallest Kendall tau of a dataset {s['min_tau']:.2f}; headline "
            f"verdicts changed: {changes})"
        )
    caption = (
        "Check of the large datasets' cheaper protocol: the datasets of the full protocol ("
        + ", ".join(summary["datasets"])
        + ") rerun under the cheaper one, every system alike; each system's rank per dataset and mean rank under "
        "both (rank_full, rank_large, shift), Kendall's tau of each dataset's two orders, and each row's verdicts "
        "against the reference. " + ". ".join(parts) + "."
    )
    shown = rows[rows.dataset == "mean"].assign(
        rank_full=lambda d: d.rank_full.round(2),
        rank_large=lambda d: d.rank_large.round(2),
        shift=lambda d: d["shift"].round(2),
    )[["ranking", "method", "rank_full", "rank_large", "shift"]]
    _write(rows, csv_path, md_path, caption=caption, md_df=shown)
    return rows
