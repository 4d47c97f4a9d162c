"""Tables and figures of the theory stage (Sections 2-4), written from config blocks.

Each ``write_*`` function takes the relevant ``config["theory"]`` sub-block and output paths,
computes with :mod:`fmeasure.theory` / :mod:`fmeasure.theory.lp` and writes tidy CSV +
Markdown tables (:func:`fmeasure.tables.write_table`) and PNG + PDF figures
(:func:`fmeasure.figures.save_figure`). The Snakemake scripts in ``workflow/scripts/theory_*.py``
only call these.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from fmeasure.io import atomic_output
from fmeasure.tables import write_table

# The theory (its package imports the numba-backed inference), the LP solver and matplotlib are
# imported in the functions that compute or draw: the findings job and the report (corrections) stay light.

log = logging.getLogger(__name__)

FMT = "{:.6f}"
#: The stage's tables (``results/tables/theory_<name>.csv``) that its findings and the report's
#: corrections are written from, by these names (:func:`write_findings`, :func:`corrections`).
FINDINGS_TABLES = ("figure1", "hamming", "jaccard", "independence", "threshold", "examples", "lp")

_LP_STYLE = {
    "hamming": dict(color="0.5", marker="s", linestyle="--", label="Hamming (MM)"),
    "subset": dict(color="black", marker="o", linestyle="-", label="subset 0/1 (JM)"),
    "threshold": dict(color="0.3", marker="D", linestyle=":", label="thresholding"),
}


def _ints(values, key):
    out = [int(v) for v in values]
    if not out:
        raise ValueError(f"theory config: {key} must list at least one value")
    return out


def write_figure1(cfg, lp_csvs, csv, md, png, pdf):
    """Figure 1 (Theorem 3.2): closed form, exact construction, and the LP supremum vs m."""
    from fmeasure.figures import plt, save_figure

    table = figure1_table(
        range(int(cfg["m_closed"][0]), int(cfg["m_closed"][1]) + 1),
        _ints(cfg["m_exact"], "figure1.m_exact"),
        float(cfg["eps"]),
    )
    lp = pd.concat([pd.read_csv(p) for p in lp_csvs]) if lp_csvs else pd.DataFrame(columns=["m", "lp_sup"])
    lp = lp[lp.surrogate == "subset"][["m", "lp_sup"]] if len(lp) else lp
    table = table.merge(lp, on="m", how="outer").sort_values("m")
    write_table(
        table,
        csv,
        md,
        float_format=FMT,
        caption=(
            "Figure 1 data (Theorem 3.2): worst-case F-regret of the subset 0/1 minimizer (joint mode). "
            "closed_form = m(2m^2-m-2)/((2m-1)(m^2+m+4)); construction = exact regret of the appendix's "
            f"P_A with the zero vector made the unique mode (eps = {cfg['eps']:g}); lp_sup = exact supremum "
            "by linear programming (theory_lp). The theorem is stated for m > 2."
        ),
    )
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    t = table[table.m > 2]
    ax.plot(t.m, t.closed_form, color="black", linestyle="-", label="Theorem 3.2 (closed form)")
    c = table.dropna(subset=["construction"])
    ax.plot(
        c.m,
        c.construction,
        "o",
        color="black",
        markerfacecolor="white",
        markersize=7,
        label="appendix construction, exact",
    )
    if "lp_sup" in table and table.lp_sup.notna().any():
        d = table.dropna(subset=["lp_sup"])
        ax.plot(d.m, d.lp_sup, "x", color="0.3", markersize=6, label="LP supremum")
    ax.set_xlabel("number of labels m")
    ax.set_ylabel("worst-case regret")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    save_figure(fig, png, pdf)
    return table


def write_hamming(cfg, csv, md):
    """Theorem 3.1: the appendix's P_A and the two-label distribution, evaluated exactly."""
    table = hamming_table(_ints(cfg["m"], "hamming.m"), [float(e) for e in cfg["eps"]])
    write_table(
        table,
        csv,
        md,
        float_format=FMT,
        caption=(
            "Theorem 3.1 (Hamming): pa_* = the appendix's P_A for (a,b,c,d) = (1,0,0,m-1); pa_objective = "
            "E[F(e_1)] - E[F(h_H)], tending to the appendix's value (pa_objective_limit = 0.5); pa_regret = the "
            "true regret of P_A with the brute-force F-maximizer pa_h_F. two_label_* = P(e_1) = P(e_2) = 1/2 - eps, "
            "2 eps on e_3: regret -> 2/3 > 0.5, so the supremum of Theorem 3.1 is at least 2/3."
        ),
    )
    return table


def write_jaccard(cfg, csv, md, samples_csv, png, pdf):
    """Theorem 3.3: Jaccard regret of h_F against 1 - delta(P)/2 on random distributions."""
    from fmeasure.figures import plt, save_figure
    from fmeasure.theory import constructions as T

    empties = [float(e) for e in cfg["empty"]]
    samples = T.jaccard_check(
        _ints(cfg["m"], "jaccard.m"), int(cfg["n_per_m"]), int(cfg["seed"]), empties, float(cfg["alpha"])
    )
    with atomic_output(samples_csv) as tmp:
        samples.to_csv(tmp, index=False)
    summary = jaccard_summary(samples)
    write_table(
        summary,
        csv,
        md,
        float_format=FMT,
        caption=(
            f"Theorem 3.3 (Jaccard): {cfg['n_per_m']} random distributions per m (half Dirichlet({cfg['alpha']}) over "
            "all 2^m vectors, half over a few random vectors; seed "
            f"{cfg['seed']}). regret = E[J(h_J)] - E[J(h_F)] with h_J the brute-force Jaccard maximizer, bound = "
            "1 - delta(P)/2; ratio = regret/bound; violations counts regret > bound. empty = J(0,0) (paper: 0, MULAN: 1)."
        ),
    )
    fig, axes = plt.subplots(1, len(empties), figsize=(4.2 * len(empties), 3.8), squeeze=False)
    for ax, empty in zip(axes[0], empties):
        s = samples[samples["empty"] == empty]
        ax.scatter(s.bound, s.regret, s=8, facecolors="none", edgecolors="black", linewidths=0.5)
        ax.plot([0.5, 1], [0.5, 1], color="0.4", linestyle="--", label="regret = bound")
        ax.set_xlim(0.45, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("bound 1 - delta(P)/2")
        ax.set_ylabel("Jaccard regret of h_F")
        ax.set_title(f"J(0,0) = {empty:g}")
        ax.legend(loc="upper left")
        ax.grid(alpha=0.3)
    save_figure(fig, png, pdf)
    return summary


def write_independence(cfg, csv, md, png, pdf):
    """Theorem 4.2 / Corollary 4.3: the q-range, the bound 2q - 1, and P_B evaluated exactly."""
    from fmeasure.figures import plt, save_figure

    ms = list(range(2, int(cfg["m_max"]) + 1))
    table = independence_table(ms, int(cfg["m_exact_max"]), float(cfg["q_margin"]))
    write_table(
        table,
        csv,
        md,
        float_format=FMT,
        caption=(
            "Theorem 4.2 / Corollary 4.3 (label independence): q in [q_lo, q_hi) satisfies the theorem's condition "
            "delta_m(q) > 0; bound = 2 q_hi - 1 (the supremum of the lower bound). For m <= "
            f"{cfg['m_exact_max']}, at q_eval = q_hi - {cfg['q_margin']:g}: h_F_PA = brute-force F-maximizer of the "
            "independent P_A (1_m), delta_PA its margin over 0_m, h_I = FM (Ye et al.) on the shared marginals, "
            "h_F_PB the F-maximizer of P_B, regret_PB the exact regret of h_I under P_B (= 2q - 1)."
        ),
    )
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.plot(table.m, table.bound, color="black", label="lower bound 2 q_hi - 1")
    ex = table.dropna(subset=["regret_PB"]) if "regret_PB" in table else table.iloc[:0]
    ax.plot(ex.m, ex.regret_PB, "o", color="black", markerfacecolor="white", label="exact regret on P_B")
    ax.axhline(1.0, color="0.5", linestyle=":", label="Corollary 4.3 limit")
    ax.set_xscale("log")
    ax.set_xlabel("number of labels m")
    ax.set_ylabel("worst-case regret (lower bound)")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right")
    save_figure(fig, png, pdf)
    return table


def write_threshold(cfg, csv, md):
    """Theorem 4.5: regret of thresholding on the family of eq. (prob_dist)."""
    table = threshold_table(_ints(cfg["m"], "threshold.m"), [float(e) for e in cfg["eps"]])
    write_table(
        table,
        csv,
        md,
        float_format=FMT,
        caption=(
            "Theorem 4.5 (thresholding on sorted marginals): exact regret of thresholding (h_T) against the "
            "brute-force F-maximizer (h_F) on the family of eq. (prob_dist), beside the bound max(0, 1/6 - 2/(m+4)). "
            "The two y_2 = 1 vectors carry (1/2 + eps)/2 each (the paper prints (1/2+eps)/(2m-4), which does not sum to one)."
        ),
    )
    return table


def write_examples(csv, md):
    """The worked examples of Section 4: every method's prediction and exact E[F]."""
    table = examples_table()
    write_table(
        table,
        csv,
        md,
        float_format=FMT,
        caption=(
            "Worked examples of Section 4: sec4.1_a/b are the two 4-label distributions with equal marginals "
            "(paper: F-maximizers 1000 and 0000); sec4.3_m12 is the m = 12 example (paper: F-maximizer 10...0 "
            "while label 2 has the largest marginal). expected_f is exact; regret is against brute force."
        ),
    )
    return table


def write_lp_job(surrogate, cfg, row_csv, dist_csv):
    """One LP job: the exact worst cases of one surrogate for every m in ``cfg["<surrogate>_m"]``."""
    from fmeasure.theory import lp as L

    results = [
        L.worst_case(int(m), surrogate, float(cfg["witness_margin"]), int(cfg["verify_max_m"]))
        for m in cfg.get(f"{surrogate}_m", [])
    ]
    with atomic_output(row_csv) as tmp:
        L.lp_table(results).to_csv(tmp, index=False)
    with atomic_output(dist_csv) as tmp:
        L.lp_distribution_table(results).to_csv(tmp, index=False)
    return results


def write_lp_summary(row_csvs, dist_csvs, csv, md, dist_table_csv, dist_table_md, png, pdf):
    """Gather the LP jobs: table beside the theorems, the maximizing distributions, and a figure."""
    from fmeasure.figures import plt, save_figure
    from fmeasure.theory import SURROGATES
    from fmeasure.theory import constructions as T

    order = {s: i for i, s in enumerate(SURROGATES)}
    table = pd.concat([pd.read_csv(p, dtype={"h": str, "h_L": str, "abcd": str}) for p in row_csvs])
    table = table.sort_values(["surrogate", "m"], key=lambda s: s.map(order) if s.name == "surrogate" else s)
    table = table.reset_index(drop=True)
    write_table(
        table,
        csv,
        md,
        float_format=FMT,
        caption=(
            "Exact worst-case F-regrets by linear programming (scipy HiGHS). lp_sup = supremum over distributions "
            "(constraints with margin 0); theorem = the paper's value (= for Theorems 3.1 and 3.2, >= lower bound for "
            "Theorem 4.5); h = the maximizing prediction, h_L = the surrogate's prediction (abcd = class sizes of the "
            "pair for Hamming/subset). witness_regret = regret of the margin-eps maximizer, recomputed by the "
            "inference core (brute-force F-maximizer, the core's MM/JM/thresholding must return h_L: witness_h_L_ok)."
        ),
    )
    dists = pd.concat([pd.read_csv(p, dtype={"h": str, "h_L": str, "y": str}) for p in dist_csvs])
    dists = dists.sort_values(
        ["surrogate", "m", "prob"],
        ascending=[True, True, False],
        key=lambda s: s.map(order) if s.name == "surrogate" else s,
    )
    write_table(
        dists,
        dist_table_csv,
        dist_table_md,
        float_format=FMT,
        caption=("The maximizing distributions of the LPs (margin 0): P(y) for every y in the support."),
    )
    fig, ax = plt.subplots(figsize=(6, 4))
    mm = np.arange(2, table.m.max() + 1)
    for s, st in _LP_STYLE.items():
        t = table[table.surrogate == s]
        if len(t):
            ax.plot(t.m, t.lp_sup, **st)
    ax.plot(mm[mm > 2], np.full((mm > 2).sum(), 0.5), color="0.5", linewidth=0.8, label="Thm 3.1: 1/2")
    ax.plot(
        mm[mm > 2], T.subset_regret_closed_form(mm[mm > 2]), color="black", linewidth=0.8, label="Thm 3.2: closed form"
    )
    ax.plot(mm, T.threshold_bound(mm), color="0.3", linewidth=0.8, linestyle="-.", label="Thm 4.5: lower bound")
    ax.set_xlabel("number of labels m")
    ax.set_ylabel("exact worst-case regret")
    ax.set_ylim(-0.02, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1.0, 0.1))
    save_figure(fig, png, pdf)
    return table


# --------------------------------------------------------------------------------------------------
# findings and corrections (read from this run's theory tables)

#: Exact computations agree with a closed form when they differ by less than this (regret units).
EXACT_TOL = 1e-6


def _pp(x) -> float:
    return 100.0 * float(x)


def write_findings(tables: dict, out_csv, *, link: str = "#sec-theory") -> pd.DataFrame:
    """``results/findings/theory.csv`` from the theory tables.

    ``tables`` maps :data:`FINDINGS_TABLES` to CSV paths. Margins are in percentage points of F-measure regret: computed value minus the paper's
    (exact computations, no SE; equal within ``EXACT_TOL``).
    """
    from fmeasure.experiments.findings import finding, paper_claims
    from fmeasure.experiments.findings import write_findings as _write

    cat = paper_claims().set_index("claim_id")
    t = {k: pd.read_csv(v) for k, v in tables.items()}
    empty = pd.DataFrame(
        columns=[
            "surrogate",
            "m",
            "lp_sup",
            "theorem",
            "construction",
            "closed_form",
            "violations",
            "n",
            "max_ratio",
            "regret_PB",
            "bound",
            "example",
            "method",
            "regret",
        ]
    )
    for k in ("figure1", "jaccard", "independence", "examples", "lp"):
        t.setdefault(k, empty)
    rows = []

    def add(cid, verdict, margin, evidence):
        rows.append(finding(cid, cat.loc[cid, "claim"], cat.loc[cid, "section"], verdict, margin, 0.0, evidence, link))

    lp = t["lp"]
    ham = lp[(lp.surrogate == "hamming") & (lp.m > 2)]
    if len(ham):
        gap = ham.lp_sup - ham.theorem
        ms = f"{int(ham.m.min())}-{int(ham.m.max())}"
        add(
            "thm3.1",
            "contradicted" if (gap.abs() > EXACT_TOL).any() else "confirmed",
            _pp(gap.max()),
            f"LP supremum minus 1/2 for m = {ms}: the supremum is {ham.lp_sup.min():.4f} to {ham.lp_sup.max():.4f}",
        )
    sub = lp[(lp.surrogate == "subset") & (lp.m > 2)]
    if len(sub):
        gap = (sub.lp_sup - sub.theorem).abs()
        add(
            "thm3.2",
            "confirmed" if (gap <= EXACT_TOL).all() else "contradicted",
            _pp(gap.max()),
            f"largest difference between the LP supremum and the closed form over m = {int(sub.m.min())}-{int(sub.m.max())}",
        )
    f1 = t["figure1"].dropna(subset=["construction"])
    if len(f1):
        gap = (f1.construction - f1.closed_form).abs()
        add(
            "fig1",
            "confirmed" if (gap <= 1e-6).all() else "contradicted",
            _pp(gap.max()),
            f"largest difference between the appendix construction and the closed form over m = {int(f1.m.min())}-{int(f1.m.max())}",
        )
    jac = t["jaccard"]
    n_viol, n = int(jac.violations.sum()), int(jac.n.sum())
    if len(jac):
        add(
            "thm3.3",
            "contradicted" if n_viol else "confirmed",
            _pp(1 - jac.max_ratio.max()),
            f"{n_viol} violations on {n} random distributions; 100 x (1 - largest regret/bound ratio)",
        )
    ind = t["independence"].dropna(subset=["regret_PB"])
    if len(ind):
        gap = (ind.regret_PB - ind.bound).abs()
        add(
            "thm4.2",
            "confirmed" if (gap <= 1e-4).all() else "contradicted",
            _pp(gap.max()),
            f"largest difference between the exact regret on P_B and 2 q_hi - 1 over m = {int(ind.m.min())}-{int(ind.m.max())} "
            "(q a margin inside the interval)",
        )
    ex = t["examples"].set_index(["example", "method"])
    checks = [("sec4.1_b", "FM"), ("sec4.1_b", "Lewis"), ("sec4.3_m12", "thresholding")]
    present = [c for c in checks if c in ex.index]
    if present:
        worst = min(float(ex.loc[c, "regret"]) for c in present)
        add(
            "sec4.examples",
            "confirmed" if worst > EXACT_TOL else "contradicted",
            _pp(worst),
            "smallest exact regret among FM and Lewis (second 4-label example) and thresholding (m = 12)",
        )
    thr = lp[lp.surrogate == "threshold"]
    if len(thr):
        gap = thr.lp_sup - thr.theorem
        add(
            "thm4.5",
            "confirmed" if (gap >= -EXACT_TOL).all() else "contradicted",
            _pp(gap.min()),
            f"smallest LP supremum minus the bound over m = {int(thr.m.min())}-{int(thr.m.max())} "
            "(a lower bound holds when this is >= 0)",
        )
    return _write(rows, out_csv)


def corrections(tables: dict) -> list[str]:
    """Markdown paragraphs correcting the paper, stated from this run's theory tables."""
    lp = pd.read_csv(tables["lp"])
    ham_t = pd.read_csv(tables["hamming"])
    out = []
    ham = lp[lp.surrogate == "hamming"]
    if len(ham):
        ms = ", ".join(str(int(m)) for m in ham.m)
        two = ham_t[ham_t.eps == ham_t.eps.min()][["m", "eps", "two_label_regret"]]
        vals = sorted({f"{v:.6f}" for v in two.two_label_regret})
        ms_two = ", ".join(str(int(m)) for m in two.m)
        ex = f"at eps = {two.eps.iloc[0]:g}, " + (
            f"{vals[0]} for every m in {ms_two}"
            if len(vals) == 1
            else "; ".join(f"m = {int(r.m)}: {r.two_label_regret:.6f}" for r in two.itertuples())
        )
        out.append(
            "**Theorem 3.1 (Hamming loss): the worst-case regret is 2/3, not 1/2.** *Lower bound, every m >= 3:* "
            "the distribution P(e_1) = P(e_2) = 1/2 - eps, P(e_3) = 2 eps (e_i the i-th unit vector) has every "
            "marginal below 1/2, so the Hamming minimizer predicts the empty set (F = 0), while h = (1, 1, 0, ..., 0) "
            "has F = 2/3 on e_1 and e_2: the regret tends to 2/3 as eps -> 0, whatever m "
            f"(exact regrets computed by this run: {ex}). *Upper bound:* with h_H = 0, t = |y and h| and k = |h|, "
            "F(y, h) <= 2t/(t + k) is concave in t and E[t] <= k/2, so E[F(Y, h)] <= 2/3. *Supremum by LP* "
            + (
                f"(exact): {ham.lp_sup.iloc[0]:.6f} for every m computed ({ms})."
                if len({f"{v:.6f}" for v in ham.lp_sup}) == 1
                else f"(exact, for the m computed: {ms}): "
                + ", ".join(f"{r.lp_sup:.6f}" for r in ham.itertuples())
                + "."
            )
        )
    thr = lp[lp.surrogate == "threshold"]
    if len(thr):
        cells = "; ".join(f"m = {int(r.m)}: {r.lp_sup:.4f} (bound {r.theorem:.4f})" for r in thr.itertuples())
        out.append(
            "**Theorem 4.5 (thresholding on sorted marginals): the exact worst case, not only a lower bound.** "
            "The paper leaves the supremum open; the LP over all distributions gives it for the m computed: "
            f"{cells}."
            + (
                " The bound max(0, 1/6 - 2/(m+4)) is valid but loose: thresholding is already suboptimal "
                "where the bound is 0."
                if ((thr.theorem <= EXACT_TOL) & (thr.lp_sup > EXACT_TOL)).any()
                else ""
            )
        )
    return out


# --------------------------------------------------------------------------------------------------
# the tables built from the constructions of fmeasure.theory


def figure1_table(m_closed, m_exact, eps=1e-9):
    """Figure 1's data: closed form of Theorem 3.2 and the exact regret of the construction.

    Parameters
    ----------
    m_closed : iterable of int
        Label counts at which to evaluate the closed form.
    m_exact : iterable of int
        Label counts (>= 3) at which to build :func:`~fmeasure.theory.subset_worst_case_distribution` and
        evaluate the regret of its joint mode exactly (brute-force F-maximizer).
    eps : float
        Margin that makes the zero vector the unique mode.

    Returns
    -------
    pandas.DataFrame with columns m, closed_form, construction, h_subset, h_F.
    """
    from fmeasure import inference
    from fmeasure.theory import constructions as T

    rows = {int(m): {"m": int(m), "closed_form": float(T.subset_regret_closed_form(m))} for m in m_closed}
    for m in m_exact:
        m = T.check_m(m, 2)
        S, p = T.subset_worst_case_distribution(m, eps)
        h_s, _ = inference.joint_mode(S, p)
        h_f, best = inference.brute_force(S, p)
        reg = float(best - inference.expected_f(S, p, h_s))
        rows.setdefault(m, {"m": m, "closed_form": float(T.subset_regret_closed_form(m))})
        rows[m].update(construction=reg, h_subset=T.as_string(h_s), h_F=T.as_string(h_f))
        log.info("Theorem 3.2 construction m=%d: regret %.6f", m, reg)
    df = pd.DataFrame([rows[k] for k in sorted(rows)])
    for col in ("construction", "h_subset", "h_F"):
        if col not in df:
            df[col] = np.nan
    return df[["m", "closed_form", "construction", "h_subset", "h_F"]]


def hamming_table(ms, eps_values):
    """Theorem 3.1 evaluated: the appendix's P_A for (a, b, c, d) = (1, 0, 0, m-1), and the two-label case.

    For each m and eps: the appendix's objective E[F(h_A)] - E[F(h_H)] (exact and its eps -> 0
    closed form), the true regret of P_A (with the brute-force F-maximizer, which is not
    h_A = e_1 for finite m), and the regret of :func:`~fmeasure.theory.hamming_two_label_distribution`.
    The Hamming minimizer is always computed by ``inference.marginal_modes``.
    """
    from fmeasure import inference
    from fmeasure.theory import constructions as T

    out = []
    for m in ms:
        m = T.check_m(m, 2)
        for eps in eps_values:
            S, p = T.hamming_pa_distribution(1, 0, 0, m - 1, eps)
            h_H, _ = inference.marginal_modes(T.marginals(S, p))
            h_A = np.zeros(m, np.int8)
            h_A[0] = 1
            objective = inference.expected_f(S, p, h_A) - inference.expected_f(S, p, h_H)
            h_F, best = inference.brute_force(S, p)
            S2, p2 = T.hamming_two_label_distribution(m, eps)
            h_H2, _ = inference.marginal_modes(T.marginals(S2, p2))
            out.append(
                {
                    "m": m,
                    "eps": eps,
                    "pa_h_hamming": T.as_string(h_H),
                    "pa_objective": float(objective),
                    "pa_objective_limit": T.hamming_pa_objective_closed_form(1, 0, 0, m - 1),
                    "pa_h_F": T.as_string(h_F),
                    "pa_regret": float(best - inference.expected_f(S, p, h_H)),
                    "two_label_h_hamming": T.as_string(h_H2),
                    "two_label_regret": T.regret(S2, p2, h_H2),
                    "theorem_3_1": 0.5,
                }
            )
    return pd.DataFrame(out)


def jaccard_summary(samples):
    """Per (m, empty): number of distributions, largest regret, largest regret/bound, violations."""
    g = samples.assign(ratio=samples.regret / samples.bound, violated=samples.regret > samples.bound + 1e-12)
    return (
        g.groupby(["empty", "m"])
        .agg(
            n=("regret", "size"),
            max_regret=("regret", "max"),
            mean_regret=("regret", "mean"),
            max_ratio=("ratio", "max"),
            violations=("violated", "sum"),
        )
        .reset_index()
    )


def independence_table(ms, m_exact_max, q_margin=1e-6):
    """Theorem 4.2 / Corollary 4.3 per m: the q-interval, the bound 2 q_hi - 1, and (m <= m_exact_max)
    the exact regret of the independence-based prediction on P_B at q = q_hi - q_margin."""
    from fmeasure.theory import constructions as T

    rows = []
    for m in ms:
        lo, hi = T.independence_q_range(m)
        row = {"m": int(m), "q_lo": lo, "q_hi": hi, "bound": 2 * hi - 1 if np.isfinite(hi) else np.nan}
        if m <= m_exact_max and np.isfinite(hi):
            q = max(0.5, hi - q_margin)
            row.update(q_eval=q, **T.independence_families(m, q))
        rows.append(row)
    return pd.DataFrame(rows)


def threshold_table(ms, eps_values):
    """Theorem 4.5: exact regret of ``inference.threshold_marginals`` on :func:`~fmeasure.theory.threshold_family`."""
    from fmeasure import inference
    from fmeasure.theory import constructions as T

    rows = []
    for m in ms:
        for eps in eps_values:
            S, p = T.threshold_family(m, eps)
            h_T, _ = inference.threshold_marginals(S, p)
            h_F, best = inference.brute_force(S, p)
            rows.append(
                {
                    "m": int(m),
                    "eps": eps,
                    "h_T": T.as_string(h_T),
                    "h_F": T.as_string(h_F),
                    "regret": float(best - inference.expected_f(S, p, h_T)),
                    "bound": float(T.threshold_bound(m)),
                }
            )
    return pd.DataFrame(rows)


def examples_table(examples=None):
    """Every method's prediction and exact E[F] on the worked examples.

    Methods: MM (marginal modes), JM (joint mode), FM (Ye et al.'s DP, assumes independence),
    Lewis, thresholding (Section 4.3), GFM (from P and P(y=0)), brute force.
    """
    from fmeasure import inference
    from fmeasure.theory import constructions as T

    examples = T.worked_examples() if examples is None else examples
    rows = []
    for name, (S, p) in examples.items():
        marg = T.marginals(S, p)
        P, p0 = T.p_matrix(S, p)
        preds = {
            "MM": inference.marginal_modes(marg)[0],
            "JM": inference.joint_mode(S, p)[0],
            "FM": inference.fm(marg)[0],
            "Lewis": inference.lewis(marg)[0],
            "thresholding": inference.threshold_marginals(S, p)[0],
            "GFM": inference.gfm_from_p(P, p0)[0],
            "brute force": inference.brute_force(S, p)[0],
        }
        best = inference.brute_force(S, p)[1]
        for method, h in preds.items():
            ef = float(inference.expected_f(S, p, h))
            rows.append(
                {
                    "example": name,
                    "method": method,
                    "prediction": T.as_string(h),
                    "expected_f": ef,
                    "regret": float(best - ef),
                }
            )
    return pd.DataFrame(rows)
