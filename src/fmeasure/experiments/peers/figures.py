"""The peers stage's figures: each system's difference to the reference per dataset, and the
critical-difference diagram of a ranking."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmeasure.experiments.peers.stats import ranked_rows
from fmeasure.experiments.peers.systems import is_peer, title

__all__ = ["write_figure", "write_cd"]


def write_figure(table: pd.DataFrame, png_path, pdf_path=None, *, reference: str, margin: float, z: float = 2.0):
    """Each system's F minus the reference's per dataset (tuned setting, or default when it has
    none), with ``z`` standard errors over instances and seeds; filled markers where Holm's
    correction keeps the difference, open ones where it does not; the non-inferiority margin dotted.
    Public systems grey, our routes black."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = ranked_rows(table)
    t = t[(t.status == "ran") & ~t.reference.astype(bool) & t.diff_se.notna()]
    datasets = list(dict.fromkeys(table.dataset))
    methods = list(dict.fromkeys(t.method))
    fig, ax = plt.subplots(figsize=(max(8.0, 0.9 * len(datasets) + 5), 4.5))
    width = 0.8 / max(1, len(methods))
    markers = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "h"]
    for j, m in enumerate(methods):
        sub = t[t.method == m].set_index("dataset").reindex(datasets)
        x = np.arange(len(datasets)) + (j - (len(methods) - 1) / 2) * width
        colour = "0.55" if is_peer(m) else "black"
        ax.errorbar(x, sub.diff_to_reference, yerr=z * sub.diff_se, fmt="none", ecolor=colour, elinewidth=0.8)
        solid = sub.vs_reference.isin(["better", "worse"]).to_numpy()
        mk = markers[j % len(markers)]
        ax.scatter(x[solid], sub.diff_to_reference[solid], marker=mk, color=colour, s=22, zorder=3)
        ax.scatter(
            x[~solid], sub.diff_to_reference[~solid], marker=mk, facecolor="white", edgecolor=colour, s=22, zorder=3
        )
        ax.scatter([], [], marker=mk, facecolor="white", edgecolor=colour, label=title(m))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(margin, color="black", linewidth=0.6, linestyle=":", label=f"non-inferiority margin ({margin:g})")
    ax.set_xticks(np.arange(len(datasets)), datasets, rotation=30, ha="right")
    ax.set_ylabel(f"test F minus the reference's (points), ±{z:g} SE")
    ax.set_title(f"Each system against the reference, {title(reference)}", fontsize=9)
    ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(png_path, dpi=150)
    if pdf_path:
        fig.savefig(pdf_path)
    plt.close(fig)


def write_cd(ranks: pd.DataFrame, summary: dict, png_path, pdf_path=None, *, reference: str):
    """The critical-difference diagram of one ranking, or a figure that says why there is none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fmeasure.experiments.comparisons import write_cd_diagram

    if "reason" in summary:
        fig, ax = plt.subplots(figsize=(6.0, 1.5))
        ax.axis("off")
        ax.text(0.5, 0.5, f"No critical-difference diagram: {summary['reason']}.", ha="center", va="center", wrap=True)
        fig.savefig(png_path, dpi=150)
        if pdf_path:
            fig.savefig(pdf_path)
        plt.close(fig)
        return
    ranked = ranks[ranks.mean_rank.notna()]
    labels = {m: m + (" (reference)" if m == reference else "") for m in ranked.method}
    write_cd_diagram(ranked.rename(columns={"method": "system"}), summary, png_path, pdf_path, labels=labels)
