"""Comparing several systems on one test set and across many datasets (Demšar, JMLR 7, 2006).

Two questions, two tests:

- **On one dataset**, is a system better than the reference? The paired difference of their test F,
  with its paired-bootstrap standard error, read as a z statistic; the comparisons of one dataset
  are corrected together by Holm's step-down method (:func:`against_reference`). A system is
  *better* (or *worse*) only when its difference exceeds ``z`` standard errors after that
  correction, i.e. when its Holm-adjusted p-value is below ``alpha_of(z)``.
- **Across datasets**, do the systems differ, and which differ from the reference? Each dataset
  ranks the systems (1 = highest F, ties share their mean rank); the Friedman test asks whether the
  mean ranks differ; the Nemenyi test compares every pair and gives the critical difference of the
  diagram; the reference is compared with each other system by the z test of Demšar's eq. (Siegel
  and Castellan's statistic), corrected by Holm (:func:`rank_systems`).

The statistics come from maintained libraries: ``scipy.stats`` (Friedman, the normal and
studentized-range distributions), ``scikit-posthocs`` (Nemenyi, the pairwise rank z tests, the
critical-difference diagram) and ``statsmodels`` (Holm). Nothing here is a table of critical values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "alpha_of",
    "z_pvalue",
    "holm",
    "against_reference",
    "rank_systems",
    "write_cd_diagram",
]


def alpha_of(z: float) -> float:
    """The two-sided level of "more than ``z`` standard errors": ``2 P(N(0, 1) > z)``.

    >>> round(alpha_of(2.0), 4)
    0.0455
    """
    from scipy.stats import norm

    return float(2.0 * norm.sf(float(z)))


def z_pvalue(diff: float, se: float) -> float:
    """Two-sided p-value of a difference ``diff`` with standard error ``se`` (a z test).

    A difference of 0 has p = 1; a non-zero difference with SE 0 (every paired difference equal)
    has p = 0.

    >>> z_pvalue(0.0, 0.0), z_pvalue(1.0, 0.0), round(z_pvalue(2.0, 1.0), 4)
    (1.0, 0.0, 0.0455)
    """
    from scipy.stats import norm

    diff, se = float(diff), float(se)
    if not np.isfinite(diff) or not np.isfinite(se) or se < 0:
        raise ValueError(f"diff/se: need a finite difference and a finite SE >= 0, got {diff}/{se}")
    if diff == 0.0:
        return 1.0
    if se == 0.0:
        return 0.0
    return float(2.0 * norm.sf(abs(diff) / se))


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjustment of ``pvalues`` (statsmodels' ``multipletests``), in their order.

    >>> holm([0.01, 0.04, 0.03, 0.005]).round(3).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError(f"pvalues: must lie in [0, 1], got {p.tolist()}")
    return np.asarray(multipletests(p, method="holm")[1], dtype=float)


def _outcome(diff: float, p_adjusted: float, alpha: float) -> str:
    if p_adjusted < alpha and diff > 0:
        return "better"
    if p_adjusted < alpha and diff < 0:
        return "worse"
    return "tie"


def against_reference(diffs, ses, *, z: float = 2.0) -> pd.DataFrame:
    """Each system of one dataset against the reference: Holm over that dataset's comparisons.

    ``diffs`` are the systems' F minus the reference's, ``ses`` their paired standard errors (one
    per system, the reference itself left out). Returns columns ``p`` (two-sided z test),
    ``p_holm`` (Holm-adjusted over these comparisons) and ``outcome``: ``better``/``worse`` when
    ``p_holm < alpha_of(z)`` (the difference exceeds ``z`` SE after the correction), else ``tie``.
    """
    diffs, ses = np.asarray(diffs, dtype=float), np.asarray(ses, dtype=float)
    if diffs.shape != ses.shape or diffs.ndim != 1:
        raise ValueError("diffs/ses: two 1-d arrays of the same length")
    p = np.array([z_pvalue(d, s) for d, s in zip(diffs, ses)])
    p_holm = holm(p)
    alpha = alpha_of(z)
    return pd.DataFrame({"p": p, "p_holm": p_holm, "outcome": [_outcome(d, q, alpha) for d, q in zip(diffs, p_holm)]})


def rank_systems(scores: pd.DataFrame, reference: str, *, z: float = 2.0) -> tuple[pd.DataFrame, dict]:
    """Ranks of systems over datasets, the Friedman test, Nemenyi, and Holm against ``reference``.

    Parameters
    ----------
    scores : DataFrame
        One row per dataset, one column per system: the score (higher is better, e.g. test F).
        Every cell must be finite (a complete block design).
    reference : str
        The column every other system is compared with (Holm over the ``k - 1`` comparisons).
    z : float
        The level is ``alpha_of(z)`` (2: 0.0455, the report's "more than 2 standard errors").

    Returns
    -------
    ranks : DataFrame
        One row per system, in the columns' order: ``system``, ``mean_rank`` (1 = best),
        ``rank_diff`` (its mean rank minus the reference's: negative = ranked above it),
        ``p_nemenyi`` (Nemenyi against the reference), ``p`` and ``p_holm`` (Demšar's z test of the
        mean ranks against the reference, unadjusted and Holm-adjusted) and ``vs_reference``
        (``reference``; else ``better``/``worse`` when the Friedman test and Holm both reject at
        ``alpha``, else ``tie``).
    summary : dict
        ``n_datasets``, ``n_systems``, ``alpha``, ``friedman_chi2``, ``friedman_p``, ``cd``
        (Nemenyi's critical difference of mean ranks at ``alpha``), ``rank_se`` (the standard error
        of a difference of two mean ranks, ``sqrt(k (k + 1) / (6 N))``) and ``nemenyi`` (the
        k x k matrix of Nemenyi p-values, a DataFrame).
    """
    import scikit_posthocs as skp
    from scipy.stats import friedmanchisquare, rankdata, studentized_range

    if reference not in scores.columns:
        raise ValueError(f"reference: {reference!r} is not one of the systems {list(scores.columns)}")
    if scores.columns.duplicated().any():
        raise ValueError(f"scores: systems named twice in {list(scores.columns)}")
    A = scores.to_numpy(dtype=float)
    if A.ndim != 2 or not np.all(np.isfinite(A)):
        raise ValueError("scores: need a finite score for every dataset and system")
    n, k = A.shape
    if k < 3 or n < 2:
        raise ValueError(f"scores: the Friedman test needs at least 3 systems and 2 datasets, got {k} and {n}")
    systems = list(scores.columns)
    ranks = rankdata(-A, axis=1)  # 1 = the highest score; ties share their mean rank
    mean_rank = ranks.mean(axis=0)
    chi2, p_friedman = friedmanchisquare(*A.T)
    alpha = alpha_of(z)
    frame = pd.DataFrame(A, columns=systems)
    nemenyi = skp.posthoc_nemenyi_friedman(frame)
    pairwise = skp.posthoc_siegel_friedman(frame)  # Demšar's z = (R_i - R_j) / sqrt(k (k + 1) / (6 N)), unadjusted
    r = systems.index(reference)
    others = [j for j in range(k) if j != r]
    p = np.array([float(pairwise.loc[reference, systems[j]]) for j in others])
    p_holm = holm(p)
    rows = []
    for j, name in enumerate(systems):
        row = {"system": name, "mean_rank": float(mean_rank[j]), "rank_diff": float(mean_rank[j] - mean_rank[r])}
        if j == r:
            row |= {"p_nemenyi": np.nan, "p": np.nan, "p_holm": np.nan, "vs_reference": "reference"}
        else:
            i = others.index(j)
            significant = p_friedman < alpha and p_holm[i] < alpha
            vs = "tie" if not significant else ("better" if mean_rank[j] < mean_rank[r] else "worse")
            row |= {"p_nemenyi": float(nemenyi.loc[reference, name]), "p": float(p[i]), "p_holm": float(p_holm[i])}
            row["vs_reference"] = vs
        rows.append(row)
    rank_se = float(np.sqrt(k * (k + 1) / (6.0 * n)))
    summary = {
        "n_datasets": n,
        "n_systems": k,
        "alpha": alpha,
        "friedman_chi2": float(chi2),
        "friedman_p": float(p_friedman),
        "cd": float(studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2.0) * rank_se),
        "rank_se": rank_se,
        "nemenyi": nemenyi.loc[systems, systems],
    }
    return pd.DataFrame(rows), summary


def write_cd_diagram(ranks: pd.DataFrame, summary: dict, png_path, pdf_path=None, labels=None):
    """The critical-difference diagram (scikit-posthocs): mean ranks on an axis, systems whose
    Nemenyi test does not reject at ``summary["alpha"]`` joined by a bar. ``labels`` maps a system
    to the name shown (e.g. to mark the reference)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import scikit_posthocs as skp

    labels = labels or {}
    name = {s: labels.get(s, s) for s in ranks.system}
    mean_ranks = pd.Series(ranks.mean_rank.to_numpy(), index=[name[s] for s in ranks.system])
    sig = summary["nemenyi"].rename(index=name, columns=name)
    fig, ax = plt.subplots(figsize=(8.0, 1.2 + 0.28 * len(ranks)))
    skp.critical_difference_diagram(mean_ranks, sig, alpha=summary["alpha"], ax=ax, label_props={"fontsize": 8})
    ax.set_title(
        f"Mean rank over {summary['n_datasets']} datasets (1 = best); bars join systems the Nemenyi test "
        f"does not separate (CD = {summary['cd']:.2f})",
        fontsize=8,
    )
    fig.tight_layout()
    fig.savefig(png_path, dpi=150, bbox_inches="tight")  # the labels reach past the axes
    if pdf_path:
        fig.savefig(pdf_path, bbox_inches="tight")
    plt.close(fig)
