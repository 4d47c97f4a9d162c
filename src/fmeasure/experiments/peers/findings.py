"""The peers stage's findings and the report's sentences: the declared reference against the public
F-maximizers, per dataset (non-inferiority) and across datasets (ranks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.experiments.peers.systems import title

__all__ = ["run_findings", "write_findings", "analysis"]


def _headline_cells(table: pd.DataFrame) -> pd.DataFrame:
    return table[(table.family == "peers: F-maximizers")]


def run_findings(table: pd.DataFrame, ranks: pd.DataFrame, *, reference: str, margin: float) -> list[dict]:
    """The stage's two findings, both about the declared reference against the public F-maximizers.

    - ``peers.reference``: per dataset and tuned F-maximizer peer, the reference at least as good as
      the peer within ``margin`` points of F (the non-inferiority test, Holm over the F-maximizers
      of the dataset). Contradicted when such a peer is better (two-sided, Holm) on some dataset;
      confirmed when non-inferiority holds in every cell where the peer finished within the budget;
      else not confirmed. The margin shown is the weakest cell's reference-minus-peer F, with its SE.
    - ``peers.ranks``: in the ranking of the reference and the public systems, each F-maximizer
      peer's mean rank minus the reference's (positive: the reference ranks higher), with the
      standard error of a difference of mean ranks; contradicted when one ranks significantly
      higher, confirmed when the reference ranks significantly higher than each, else not confirmed.
    """
    from fmeasure.experiments.findings import finding, paper_claims

    cat = paper_claims().set_index("claim_id")
    link = "#sec-peers"
    out = []

    def row(cid, verdict, m=np.nan, se=np.nan, evidence=""):
        return finding(cid, cat.loc[cid, "claim"], cat.loc[cid, "section"], verdict, m, se, evidence, link)

    cells = _headline_cells(table)
    ran = cells[cells.status == "ran"]
    if ran.empty:
        out.append(row("peers.reference", "not run (no public F-maximizer ran)"))
    else:
        d = ran.diff_to_reference.to_numpy(float)
        se = ran.diff_se.to_numpy(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            zni = np.where(se > 0, (margin - d) / np.where(se > 0, se, 1.0), np.sign(margin - d) * np.inf)
        i = int(np.nanargmin(zni))
        peer_better = int((ran.vs_reference == "better").sum())
        ni = int((ran.noninferior.astype(str) == "True").sum())
        n = len(ran)
        timeouts = cells[cells.status == "timeout"]
        verdict = "contradicted" if peer_better else "confirmed" if ni == n else "not confirmed"
        weakest = ran.iloc[i]
        evidence = (
            f"{reference} at least as good as the public F-maximizer within {margin:g} points of F (one-sided, Holm "
            f"over the F-maximizers of each dataset) in {ni} of {n} cells; the peer better in {peer_better}; "
            f"weakest: {weakest.dataset} vs {weakest.method}"
        )
        if len(timeouts):
            evidence += "; over the budget: " + ", ".join(
                f"{m} on {ds}" for ds, m in zip(timeouts.dataset, timeouts.method)
            )
        out.append(row("peers.reference", verdict, float(-d[i]), float(se[i]), evidence))
    ranked = ranks[(ranks.ranking == "peers") & ranks.mean_rank.notna() & (ranks.kind == "f-maximizer")]
    ranked = ranked[ranked.source == "peer"]
    if ranked.empty or ranks[ranks.ranking == "peers"].friedman_chi2.isna().all():
        why = "fewer than 3 systems or 2 datasets ranked" if not ranked.empty else "no public F-maximizer ranked"
        out.append(row("peers.ranks", f"not run ({why})"))
    else:
        r0 = ranks[ranks.ranking == "peers"].iloc[0]
        m = ranked.rank_diff.to_numpy(float)  # the peer's mean rank minus the reference's: > 0 favours the claim
        i = int(np.argmin(m))
        peer_better = int((ranked.vs_reference == "better").sum())
        ref_better = int((ranked.vs_reference == "worse").sum())
        verdict = "contradicted" if peer_better else "confirmed" if ref_better == len(ranked) else "not confirmed"
        evidence = (
            f"mean rank of each public F-maximizer minus {reference}'s over {int(r0.n_datasets)} datasets, ranking "
            f"{int(r0.n_systems)} systems (the reference and the public ones); Friedman chi2 = {r0.friedman_chi2:.2f} "
            f"(p = {r0.friedman_p:.3g}), Iman-Davenport p = {r0.iman_davenport_p:.3g}; Holm against {reference}: "
            f"ranks better than {ref_better} of {len(ranked)}, worse than {peer_better}; closest: {ranked.method.iloc[i]}"
        )
        out.append(row("peers.ranks", verdict, float(m[i]), float(r0.rank_se), evidence))
    return out


def write_findings(rows, path):
    from fmeasure.experiments.findings import write_findings as _write

    return _write(rows, path)


def analysis(tables, points: float = 0.0) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentences on this stage, from ``peers.csv`` and ``peers_ranks.csv`` in folder
    ``tables``: the reference, the headline per dataset, the test across datasets, the timeouts.
    No cell is compared with the paper (it has none)."""
    tables = Path(tables)
    if not (tables / "peers.csv").exists() or not (tables / "peers_ranks.csv").exists():
        return [], []
    t, r = pd.read_csv(tables / "peers.csv"), pd.read_csv(tables / "peers_ranks.csv")
    ref_rows = t[t.reference.astype(bool)]
    if ref_rows.empty:
        return [], []
    ref = ref_rows.method.iloc[0]
    seeds = sorted(set(ref_rows.n_seeds.dropna().astype(int)))
    out = [
        f"- Reference (declared in the configuration before any run): {title(ref)}; "
        f"{len(ref_rows)} datasets, {', '.join(map(str, seeds))} seeds each."
    ]
    head = t[(t.family == "peers: F-maximizers") & (t.status == "ran")]
    if len(head):
        ni = head.noninferior.astype(str) == "True"
        out.append(
            f"- Per dataset, against the public F-maximizers (tuned; Holm within them): the reference at least as "
            f"good (non-inferiority) in {int(ni.sum())} of {len(head)} cells"
            + (
                f" (not shown: {', '.join(f'{m} on {d}' for d, m in zip(head.dataset[~ni], head.method[~ni]))})"
                if (~ni).any()
                else ""
            )
            + f"; a peer better in {int((head.vs_reference == 'better').sum())}."
        )
    base = t[(t.family == "peers: baselines") & (t.status == "ran")]
    if len(base):
        out.append(
            f"- Against the public baselines: {int((base.vs_reference == 'worse').sum())} of {len(base)} cells below "
            f"the reference, {int((base.vs_reference == 'better').sum())} above."
        )
    for name in ("peers", "ours"):
        rk = r[(r.ranking == name) & r.mean_rank.notna()] if "ranking" in r else r[r.mean_rank.notna()]
        if rk.empty:
            continue
        r0 = rk.iloc[0]
        order = rk.sort_values("mean_rank")
        pos = int(np.flatnonzero(order.method.to_numpy() == ref)[0]) + 1
        who = "the public systems" if name == "peers" else "our other routes"
        out.append(
            f"- Across datasets, the reference among {who}: Friedman chi2 = {r0.friedman_chi2:.2f}, p = "
            f"{r0.friedman_p:.3g} ({int(r0.n_systems)} systems, {int(r0.n_datasets)} datasets); mean rank "
            f"{rk[rk.method == ref].mean_rank.iloc[0]:.2f}, position {pos} of {len(rk)}; critical difference {r0.cd:.2f}."
        )
    left = r[r.vs_reference.astype(str).str.startswith("not ranked")]
    for m, why in zip(left.method, left.vs_reference):
        out.append(f"- {title(m)}: {why}.")
    tout = t[t.status == "timeout"]
    if len(tout):
        out.append(
            "- Over the budget (ranked last there): "
            + ", ".join(f"{m} on {d}" for d, m in zip(tout.dataset, tout.method))
            + "."
        )
    return out, []
