"""Findings: the paper's claims checked on this run, one verdict each, with its uncertainty.

Every stage may contribute findings by writing ``results/findings/<stage>.csv`` with the columns
:data:`COLUMNS` (see ``docs/report.md``); the report collects them and fills the claims of the
paper that no stage contributed (stages left out, datasets missing) as "not run (why)", from the
list of the paper's claims in ``src/fmeasure/paper_numbers/claims.csv`` (:func:`paper_claims`).

Sign convention (one for every finding): ``margin`` is the claimed method's score minus the best
competitor's score, in percentage points for the measures (Hamming and subset 0/1 losses are
negated first, so that higher is better everywhere); a positive margin supports the claim.
``se`` is its standard error: paired over the (model, training set) runs for the simulations,
a paired bootstrap over test instances for the real datasets. A claim that one method is better
is **confirmed** when ``margin > 2 se``, **contradicted** when ``margin < -2 se`` and **not
confirmed** otherwise (a tie). A claim that two methods are equal is confirmed when
``|margin| <= 2 se`` and not confirmed otherwise.

Claims about measured times (:data:`TIMED_CLAIMS`) use the same rule on a ratio of times
(:func:`time_cell`): ``margin = 100 ln(time of the step the claim says is slower / time of the
other)``, each time the best of its repeats; ``se`` combines the two times' spreads
(:func:`fmeasure.timing.spread`) and is never below :data:`TIME_SE_FLOOR`, so that two steps
within a factor 1.22 of each other (at z = 2) count as a tie however quiet the run.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.metrics import MEASURE_DIRECTIONS, MEASURE_TITLES, MEASURES

__all__ = [
    "COLUMNS",
    "VERDICTS",
    "Z",
    "DEVIATION_POINTS",
    "SIGN_CONVENTION",
    "sign_convention",
    "TIMED_CLAIMS",
    "TIME_SE_FLOOR",
    "time_cell",
    "time_ratio_cell",
    "repeats_of",
    "timing_note",
    "fastest_inference_finding",
    "SINGLE_SPLIT_SE",
    "SINGLE_SPLIT_NOTE",
    "outcome",
    "verdict",
    "paired_margin",
    "bootstrap_margin",
    "paired_bootstrap",
    "aligned_scores",
    "combine",
    "finding",
    "paper_claims",
    "write_findings",
    "collect",
    "paper_differences",
    "far_from_paper",
    "deviations",
    "deviation_sentences",
]

#: Columns of ``results/findings/<stage>.csv``.
COLUMNS = ["claim_id", "claim", "section", "verdict", "margin", "se", "evidence", "link"]
VERDICTS = ("confirmed", "not confirmed", "contradicted", "not run")
#: A margin counts when it exceeds this many standard errors.
Z = 2.0
#: Points beyond which a cell is far from the paper when no configuration says otherwise (the
#: pipeline passes its ``report.deviation_points``).
DEVIATION_POINTS = 2.0

SIGN_CONVENTION = (
    "**Evidence.** For a claim that a method is better: *margin* = the claimed method's score minus the "
    "best competitor's score, in percentage points (losses negated, so a positive margin supports the "
    "claim); *SE* = its standard error (paired over the runs of the simulations; paired bootstrap over "
    "test instances for the real datasets); *confirmed* when margin > {z:g} SE, *contradicted* when "
    "margin < -{z:g} SE, *not confirmed* otherwise (a tie). For a claim that two quantities are equal "
    "(two methods, or a theorem's value): margin = ours minus the claimed value, *confirmed* when "
    "|margin| <= {z:g} SE (exact computations have SE 0 and count as equal within 1e-6 of regret, shown "
    "in percentage points). For a table: margin = its largest deviation from the paper in points, "
    "confirmed when no cell is more than 2 points off. For a claim about measured times: margin = "
    "`100 ln(r)`, r the ratio of the two steps' best-of-k times, oriented so that a positive margin supports "
    "the claim (10 is about 10% apart); SE = the two times' spreads combined (a best-of-k time's spread is "
    "`100 ln(second-best repeat / best repeat)`), at least {floor:g}, so that times less than {band:.0f}% "
    "apart are a tie."
)


#: Standard error (points of F) taken for a margin measured on one test split without per-instance
#: scores (a stage that keeps none, or methods whose scores are missing): the order of the paired-bootstrap SEs that the kNN, PCC and
#: parametric findings measure on the same datasets (0.3-1.1 points), so a margin within
#: 2 x 0.5 = 1 point counts as a tie.
SINGLE_SPLIT_SE = 0.5
SINGLE_SPLIT_NOTE = " (one test split, no per-instance scores: SE taken as 0.5 points)"

#: Claims whose verdict comes from measured wall-clock times (:func:`time_cell`): their margins
#: and SEs differ between two runs of one config (every other number is reproducible exactly).
TIMED_CLAIMS = frozenset({"fig4", "sim.time.fm_est", "table3", "pcc.jm_fast", "par.br_inference"})

#: Smallest standard error (percent, log scale) of a comparison of two measured times. On a shared
#: 2-core machine, the best-of-5 ratio of LFP's and BR's inference on scene, timed in rounds in one
#: process, ranged over about 12 (log %) in eight runs, more than some runs' spreads said; so a
#: ratio counts only beyond z x 10: with z = 2, times within a factor exp(0.2) = 1.22 of each
#: other are a tie (``docs/report.md``, timed claims).
TIME_SE_FLOOR = 10.0


def sign_convention(z: float = Z) -> str:
    """:data:`SIGN_CONVENTION` for the threshold ``z`` (the report's first paragraph on evidence)."""
    band = 100.0 * (np.exp(z * TIME_SE_FLOOR / 100.0) - 1.0)
    return SIGN_CONVENTION.format(z=z, floor=TIME_SE_FLOOR, band=band)


def outcome(margin: float, se: float, z: float = Z) -> str:
    """``"better"`` when ``margin > z se``, ``"worse"`` when ``margin < -z se``, else ``"tie"``."""
    if not np.isfinite(margin):
        raise ValueError(f"margin: must be finite, got {margin}")
    se = 0.0 if se is None or not np.isfinite(se) else float(se)
    if se < 0:
        raise ValueError(f"se: must be >= 0, got {se}")
    if margin > z * se:
        return "better"
    if margin < -z * se:
        return "worse"
    return "tie"


def verdict(margin: float, se: float, kind: str = "better", z: float = Z) -> str:
    """Verdict of a claim from its margin and standard error.

    ``kind="better"``: the claim says the margin is positive (confirmed / contradicted / not
    confirmed). ``kind="tie"``: the claim says the two are equal (confirmed when ``|margin| <= z se``,
    else not confirmed).
    """
    o = outcome(margin, se, z)
    if kind == "better":
        return {"better": "confirmed", "worse": "contradicted", "tie": "not confirmed"}[o]
    if kind == "tie":
        return "confirmed" if o == "tie" else "not confirmed"
    raise ValueError(f"kind: expected 'better' or 'tie', got {kind!r}")


def paired_margin(claimed, other) -> tuple[float, float]:
    """Mean and standard error of the paired differences ``claimed - other`` (1-d, same runs)."""
    d = np.asarray(claimed, dtype=float) - np.asarray(other, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ValueError("claimed/other: need two 1-d arrays of the same length >= 2")
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))


def bootstrap_margin(
    scores: dict, claimed, others, *, n_boot: int = 1000, seed: int = 0, chunk: int = 100
) -> tuple[float, float]:
    """Margin of the best ``claimed`` method over the best of ``others`` and its bootstrap SE.

    ``scores`` maps a method to its per-instance scores (higher is better; negate losses), all on
    the same test instances. The margin is ``max(mean of claimed) - max(mean of others)``; the
    standard error is the standard deviation of that statistic over ``n_boot`` resamplings of the
    test instances (the same resampling for every method: paired).
    """
    claimed, others = list(np.atleast_1d(claimed)), list(np.atleast_1d(others))
    if not claimed or not others or set(claimed) & set(others):
        raise ValueError("claimed/others: two non-empty, disjoint lists of methods")
    missing = [m for m in claimed + others if m not in scores]
    if missing:
        raise ValueError(f"scores: no per-instance scores for {missing}")
    A = np.column_stack([np.asarray(scores[m], dtype=float) for m in claimed + others])
    n, k = A.shape[0], len(claimed)
    if n < 2:
        raise ValueError("scores: need at least 2 instances")

    def stat(means):
        return means[..., :k].max(axis=-1) - means[..., k:].max(axis=-1)

    margin = float(stat(A.mean(axis=0)))
    rng = np.random.default_rng(seed)
    reps = []
    for start in range(0, int(n_boot), chunk):
        b = min(chunk, int(n_boot) - start)
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=b)  # (b, n) resampling weights
        reps.append(stat(counts @ A / n))
    return margin, float(np.concatenate(reps).std(ddof=1))


def paired_bootstrap(scores: dict, statistic, *, n_boot: int = 1000, seed: int = 0, chunk: int = 100):
    """Value and paired-bootstrap standard error of any function of per-method mean scores.

    ``scores`` maps a method to its per-instance scores, all on the same test instances (in the
    same order). ``statistic`` takes a dict method -> mean score and returns a number; it is
    called once with the plain means (the value) and then with arrays of shape (b,) of
    resampled means (write it with element-wise numpy functions: ``np.maximum``, ``np.minimum``,
    ``max(...)`` of arrays does not broadcast). All methods see the same resampling of the test
    instances (paired). :func:`bootstrap_margin` is the case ``max(claimed) - max(others)``.

    Examples
    --------
    >>> a, b = np.array([1.0, 0.0, 1.0, 1.0]), np.array([0.0, 0.0, 1.0, 1.0])
    >>> value, se = paired_bootstrap({"a": a, "b": b}, lambda m: m["a"] - m["b"], n_boot=200)
    >>> value, bool(0 < se < 0.5)
    (0.25, True)
    """
    names = list(scores)
    if not names:
        raise ValueError("scores: no methods")
    A = np.column_stack([np.asarray(scores[k], dtype=float) for k in names])
    n = A.shape[0]
    if n < 2:
        raise ValueError("scores: need at least 2 instances")
    if not np.all(np.isfinite(A)):
        raise ValueError("scores: must be finite")
    value = float(statistic(dict(zip(names, A.mean(axis=0)))))
    rng = np.random.default_rng(seed)
    reps = []
    for start in range(0, int(n_boot), chunk):
        b = min(chunk, int(n_boot) - start)
        M = rng.multinomial(n, np.full(n, 1.0 / n), size=b) @ A / n  # (b, methods)
        reps.append(np.broadcast_to(np.asarray(statistic(dict(zip(names, M.T))), dtype=float), (b,)))
    return value, float(np.concatenate(reps).std(ddof=1))


def aligned_scores(instances: pd.DataFrame, measure: str, methods=None) -> dict:
    """Per-method per-instance scores (losses negated, as everywhere here) from an instances frame.

    ``instances`` has columns ``method``, ``instance`` and ``measure`` for one test set (one
    dataset and setting), as the stages' ``*_instances.csv.gz`` files; rows are aligned on
    ``instance``. Raises when a method lacks instances that others have.
    """
    w = instances.pivot_table(index="instance", columns="method", values=measure, aggfunc="first")
    methods = list(w.columns) if methods is None else list(methods)
    missing = [m for m in methods if m not in w.columns]
    if missing:
        raise ValueError(f"instances: no per-instance {measure} for {missing}")
    w = w[methods]
    if w.isna().any().any():
        raise ValueError(f"instances: the methods {methods} were not scored on the same test instances")
    return {m: _SIGN[measure] * w[m].to_numpy(float) for m in methods}


def combine(cells: pd.DataFrame, kind: str = "better", z: float = Z) -> dict:
    """One verdict from several cells (datasets, sizes, ...) of the same claim.

    ``cells`` has columns ``label, margin, se``. For ``kind="better"``: contradicted if any cell is
    contradicted, confirmed if every cell is confirmed, else not confirmed; the evidence shown is
    the weakest cell (smallest ``margin / se``). For ``kind="tie"``: confirmed if every cell ties;
    the evidence is the cell farthest from a tie.
    """
    if len(cells) == 0:
        raise ValueError("cells: empty")
    cells = cells.reset_index(drop=True)
    v = [verdict(m, s, kind, z) for m, s in zip(cells.margin, cells.se)]
    se = cells.se.fillna(0.0).to_numpy(float)
    m = cells.margin.to_numpy(float)
    with np.errstate(invalid="ignore"):
        ratio = np.where(se > 0, m / np.where(se > 0, se, 1.0), np.where(m == 0, 0.0, np.sign(m) * np.inf))
    if kind == "tie":
        ratio = -np.abs(ratio)
    i = int(np.argmin(ratio))
    if "contradicted" in v:
        out = "contradicted"
    elif all(x == "confirmed" for x in v):
        out = "confirmed"
    else:
        out = "not confirmed"
    n_conf = sum(x == "confirmed" for x in v)
    return {
        "verdict": out,
        "margin": float(cells.margin[i]),
        "se": float(cells.se[i]),
        "weakest": str(cells.label[i]),
        "n_cells": len(v),
        "n_confirmed": n_conf,
    }


def finding(
    claim_id: str, claim: str, section: str, verdict: str, margin=np.nan, se=np.nan, evidence: str = "", link: str = ""
) -> dict:
    """One row of a findings CSV (checks the verdict)."""
    if verdict not in VERDICTS and not verdict.startswith("not run"):
        raise ValueError(f"verdict: {verdict!r} is not one of {VERDICTS}")
    return {
        "claim_id": claim_id,
        "claim": claim,
        "section": section,
        "verdict": verdict,
        "margin": margin,
        "se": se,
        "evidence": evidence,
        "link": link,
    }


def time_ratio_cell(label: str, slower: float, faster: float, slower_spread=np.nan, faster_spread=np.nan) -> dict:
    """A cell of a claim that a step taking ``slower`` seconds is slower than one taking ``faster``.

    ``margin = 100 ln(slower / faster)`` (percent on the log scale: positive supports the claim);
    ``se`` combines the two times' spreads (percent, log scale; NaN: unknown, e.g. a single timing)
    in quadrature and is never below :data:`TIME_SE_FLOOR`.

    Examples
    --------
    >>> c = time_ratio_cell("a", 2.0, 1.0, 3.0, 4.0)
    >>> round(c["margin"], 1), c["se"]
    (69.3, 10.0)
    >>> time_ratio_cell("a", 1.0, 1.0, 30.0, 40.0)["se"]
    50.0
    """
    if not (slower > 0 and faster > 0):
        raise ValueError(f"times: must be > 0, got {slower!r} and {faster!r}")
    spreads = np.nan_to_num(np.array([slower_spread, faster_spread], dtype=float), nan=0.0)
    se = max(TIME_SE_FLOOR, float(np.hypot(*spreads)))
    return {"label": label, "margin": float(100.0 * np.log(slower / faster)), "se": se}


def time_cell(label: str, slower, faster) -> dict:
    """:func:`time_ratio_cell` from two steps' repeated timings (seconds; one number is one timing):
    each step's time is its best repeat, its spread :func:`fmeasure.timing.spread`."""
    from fmeasure.timing import spread

    a, b = np.atleast_1d(np.asarray(slower, dtype=float)), np.atleast_1d(np.asarray(faster, dtype=float))
    if a.size == 0 or b.size == 0:
        raise ValueError("slower/faster: need at least one timing each")
    return time_ratio_cell(label, float(a.min()), float(b.min()), spread(a), spread(b))


def repeats_of(table: pd.DataFrame, column: str) -> list:
    """Per row of ``table``, the repeated timings of ``column``: from ``<column>_repeats`` where the
    table has it (:func:`fmeasure.timing.format_repeats`), else the one time in ``column``."""
    from fmeasure.timing import parse_repeats

    rep = f"{column}_repeats"
    out = []
    for i in range(len(table)):
        t = parse_repeats(table[rep].iloc[i]) if rep in table.columns else np.empty(0)
        out.append(t if t.size else np.array([float(table[column].iloc[i])]))
    return out


def timing_note(counts) -> str:
    """How many repeats the times of a claim are the best of, from each time's number of repeats.

    Examples
    --------
    >>> timing_note([5, 5]), timing_note([1, 5]), timing_note([1])
    ('best of 5 repeats', 'best of 1 to 5 repeats', 'one timing each')
    """
    lo, hi = min(counts), max(counts)
    if hi == 1:
        return "one timing each"
    return f"best of {hi} repeats" if lo == hi else f"best of {lo} to {hi} repeats"


def fastest_inference_finding(
    table: pd.DataFrame, method: str, claim_id: str, claims: pd.DataFrame, *, others: str, link: str = "", z: float = Z
) -> dict | None:
    """The claim that ``method`` infers fastest, from a table's inference times per dataset.

    Each method's time on a dataset is the best of its repeats (``inference_time_s_repeats``, else
    the single ``inference_time_s``). Per dataset one cell (:func:`time_cell`): the fastest other
    method against ``method``, ``margin = 100 ln(other's time / method's)``; the cells are combined
    by :func:`combine` (confirmed when every dataset is, contradicted when any is, else a tie).
    ``others`` names the competitors in the evidence; ``claims`` is :func:`paper_claims` indexed
    by ``claim_id``. None when the table has no competitor.

    Examples
    --------
    >>> t = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "method": ["JM", "FM"] * 2,
    ...                   "inference_time_s": [1.0, 3.0, 2.0, 1.0]})
    >>> c = pd.DataFrame({"claim": ["JM is fast"], "section": ["5"]}, index=["pcc.jm_fast"])
    >>> row = fastest_inference_finding(t, "JM", "pcc.jm_fast", c, others="FM's")
    >>> row["verdict"], round(row["margin"], 1), row["se"]
    ('contradicted', -69.3, 10.0)
    >>> row["evidence"]
    "FM's inference time / JM's: a 3x, b 0.5x (one timing each); 1 of 2 datasets confirm; weakest: b"
    """
    if method not in set(table["method"]) or table["method"].nunique() < 2:
        return None
    reps = repeats_of(table, "inference_time_s")
    cells, ratios, counts = [], [], []
    for d in dict.fromkeys(table["dataset"]):
        rows = [i for i in range(len(table)) if table["dataset"].iloc[i] == d]
        mine = [i for i in rows if table["method"].iloc[i] == method]
        rest = [i for i in rows if table["method"].iloc[i] != method]
        if not mine or not rest:
            continue
        other = min(rest, key=lambda i: reps[i].min())
        cell = time_cell(str(d), reps[other], reps[mine[0]])
        cells.append(cell)
        ratios.append(f"{d} {np.exp(cell['margin'] / 100):.3g}x")
        counts += [reps[mine[0]].size, reps[other].size]
    if not cells:
        return None
    c = combine(pd.DataFrame(cells), "better", z)
    evidence = (
        f"{others} inference time / {method}'s: {', '.join(ratios)} ({timing_note(counts)}); "
        f"{c['n_confirmed']} of {c['n_cells']} datasets confirm; weakest: {c['weakest']}"
    )
    return finding(
        claim_id,
        claims.loc[claim_id, "claim"],
        claims.loc[claim_id, "section"],
        c["verdict"],
        c["margin"],
        c["se"],
        evidence,
        link,
    )


def paper_claims() -> pd.DataFrame:
    """The paper's tables, figures, theorems and qualitative claims (``paper_numbers/claims.csv``).

    Columns ``claim_id, stage, section, kind, claim`` in the paper's order.
    """
    with resources.files("fmeasure.paper_numbers").joinpath("claims.csv").open() as fh:
        return pd.read_csv(fh, dtype=str, comment="#").fillna("")


def write_findings(rows, path) -> pd.DataFrame:
    """Write a stage's findings (list of :func:`finding` dicts or a DataFrame) to ``path`` (CSV)."""
    from fmeasure.io import atomic_output

    df = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows)
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = np.nan if c in ("margin", "se") else ""
    known = set(paper_claims().claim_id)
    unknown = sorted(set(df.claim_id) - known)
    if unknown:
        raise ValueError(f"rows: claim ids {unknown} are not in paper_numbers/claims.csv")
    with atomic_output(path) as tmp:
        df[COLUMNS].to_csv(tmp, index=False)
    return df[COLUMNS]


def collect(paths, not_run: dict | None = None, *, link_of=None) -> pd.DataFrame:
    """All findings in the paper's order; claims no stage contributed get "not run (why)".

    Parameters
    ----------
    paths : list of path or DataFrame
        ``results/findings/<stage>.csv`` files (or their frames).
    not_run : dict, optional
        Stage -> reason it did not run (shown as ``not run (reason)``); a claim of a stage that
        wrote no findings and has no reason here is "not run (no findings written)".
    link_of : callable, optional
        Stage -> link to its report section, for rows without a link.
    """
    not_run = dict(not_run or {})
    cat = paper_claims()
    got = [p if isinstance(p, pd.DataFrame) else pd.read_csv(p, dtype={"claim_id": str, "section": str}) for p in paths]
    got = pd.concat(got, ignore_index=True) if got else pd.DataFrame(columns=COLUMNS)
    got = got.drop_duplicates("claim_id", keep="last").set_index("claim_id")
    rows = []
    for r in cat.itertuples(index=False):
        if r.kind == "beyond" and r.claim_id not in got.index:
            continue  # a stage beyond the paper that did not run: no row
        if r.claim_id in got.index:
            g = got.loc[r.claim_id]
            row = {c: g[c] for c in COLUMNS if c != "claim_id"}
            row["claim_id"] = r.claim_id
        else:
            why = not_run.get(r.stage, "no findings written")
            row = {
                "claim_id": r.claim_id,
                "claim": r.claim,
                "section": r.section,
                "verdict": f"not run ({why})",
                "margin": np.nan,
                "se": np.nan,
                "evidence": "",
                "link": "",
            }
        if (not isinstance(row.get("link"), str) or not row["link"]) and link_of is not None:
            row["link"] = link_of(r.stage)
        row["stage"] = r.stage
        row["kind"] = r.kind
        rows.append(row)
    return pd.DataFrame(rows)[["claim_id", "stage", "kind", *COLUMNS[1:]]]


def read_table(path) -> pd.DataFrame:
    """Read a CSV (helper for the findings writers)."""
    return pd.read_csv(Path(path))


def instance_scores(Y_true, H, measures=MEASURES, *, jaccard_empty: float = 1.0) -> pd.DataFrame:
    """Per-instance values (in %) of ``measures`` for predictions ``H``: one row per test instance.

    These are what the real datasets' bootstrap resamples (:func:`bootstrap_margin`).
    """
    from fmeasure import metrics

    per = metrics.per_instance(Y_true, H, measures, jaccard_empty=jaccard_empty)
    out = pd.DataFrame({m: 100.0 * np.asarray(per[m], dtype=float) for m in measures})
    out.insert(0, "instance", np.arange(len(out)))
    return out


#: Direction of the measures: losses are negated so that higher is better.
_SIGN = {k: 1.0 if d == "max" else -1.0 for k, d in MEASURE_DIRECTIONS.items()}


def bootstrap_cells(
    instances: pd.DataFrame, by, measure: str, claimed, others, *, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Bootstrap margins (:func:`bootstrap_margin`) for each group of ``instances``.

    ``instances`` has columns ``by`` (e.g. ``dataset`` or ``dataset, l``), ``method``, ``instance``
    and ``measure`` (in %). Returns ``label, margin, se`` (percentage points, losses negated), one
    row per group that has at least one claimed and one competing method.
    """
    by = [by] if isinstance(by, str) else list(by)
    sign = _SIGN[measure]
    rows = []
    for key, g in instances.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        w = g.pivot_table(index="instance", columns="method", values=measure, aggfunc="first")
        a = [m for m in np.atleast_1d(claimed) if m in w.columns]
        b = [m for m in np.atleast_1d(others) if m in w.columns]
        if not a or not b:
            continue
        margin, se = bootstrap_margin({m: sign * w[m].to_numpy() for m in a + b}, a, b, n_boot=n_boot, seed=seed)
        label = " ".join(f"{k}={v}" if k != "dataset" else str(v) for k, v in zip(by, key))
        rows.append({"label": label, "margin": margin, "se": se})
    return pd.DataFrame(rows, columns=["label", "margin", "se"])


def cells_finding(
    cid: str,
    cells: pd.DataFrame,
    *,
    kind: str = "better",
    z: float = Z,
    link: str = "",
    what: str = "",
    cat: pd.DataFrame | None = None,
    none_reason: str = "no data",
) -> dict:
    """A finding row from several cells (:func:`combine`), or "not run (none_reason)" without cells."""
    cat = paper_claims().set_index("claim_id") if cat is None else cat
    claim, section = cat.loc[cid, "claim"], cat.loc[cid, "section"]
    if len(cells) == 0:
        return finding(cid, claim, section, f"not run ({none_reason})", link=link)
    c = combine(cells, kind, z)
    ev = f"{what}; {c['n_confirmed']} of {c['n_cells']} cells confirm; weakest: {c['weakest']}"
    return finding(cid, claim, section, c["verdict"], c["margin"], c["se"], ev.lstrip("; "), link)


def paper_differences(table: pd.DataFrame, values, keys) -> pd.DataFrame:
    """Every cell of ``table`` that has our value ``<v>`` and the paper's ``<v>_paper``, in long form.

    Columns ``keys..., measure, ours, paper, diff`` (``diff = ours - paper``, in points); rows in the
    table's row order, the measures of a row in the order of ``values``. A measure without both
    columns is left out. The one place where a table is compared with the paper: the findings, the
    report's analyses and the ablations select from it with :func:`far_from_paper`.

    Examples
    --------
    >>> t = pd.DataFrame({"dataset": ["a", "b"], "f": [70.0, 60.0], "f_paper": [71.0, 65.0]})
    >>> paper_differences(t, ["f", "hamming"], ["dataset"])["diff"].tolist()
    [-1.0, -5.0]
    >>> far_from_paper(t, ["f"], ["dataset"], 2.0).dataset.tolist()
    ['b']
    """
    keys, cols = list(keys), [*keys, "measure", "ours", "paper", "diff"]
    measures = [v for v in values if v in table.columns and f"{v}_paper" in table.columns]
    if not measures or table.empty:
        return pd.DataFrame(columns=cols)
    long = []
    for v in measures:
        part = table[keys].copy()
        part["measure"], part["ours"], part["paper"] = v, table[v].astype(float), table[f"{v}_paper"].astype(float)
        part["_row"], part["_measure"] = np.arange(len(table)), measures.index(v)
        long.append(part)
    out = pd.concat(long, ignore_index=True).sort_values(["_row", "_measure"], kind="stable")
    out = out[np.isfinite(out.ours) & np.isfinite(out.paper)]
    out["diff"] = out.ours - out.paper
    return out[cols].reset_index(drop=True)


def far_from_paper(table: pd.DataFrame, values, keys, threshold: float) -> pd.DataFrame:
    """The cells of :func:`paper_differences` more than ``threshold`` points from the paper."""
    if not threshold >= 0:
        raise ValueError(f"the deviation threshold (report.deviation_points) must be >= 0, got {threshold!r}")
    d = paper_differences(table, values, keys)
    return d[d["diff"].abs() > threshold].reset_index(drop=True)


def deviation_finding(
    cid: str,
    table: pd.DataFrame,
    values,
    *,
    threshold: float = DEVIATION_POINTS,
    link: str = "",
    keys=("dataset", "method"),
    cat: pd.DataFrame | None = None,
) -> dict:
    """A table's row: are all cells within ``threshold`` points of the paper's (``<v>_paper``)?

    ``margin`` is the largest absolute deviation (points); ``se`` is empty. Confirmed when every cell
    that has a paper value is within ``threshold``; not run when no cell has one.
    """
    cat = paper_claims().set_index("claim_id") if cat is None else cat
    claim, section = cat.loc[cid, "claim"], cat.loc[cid, "section"]
    d = paper_differences(table, values, keys)
    if d.empty:
        return finding(cid, claim, section, "not run (no dataset of the paper in this run)", link=link)
    d = d.sort_values("measure", key=lambda m: m.map(list(values).index), kind="stable")  # measure by measure
    over = int((d["diff"].abs() > threshold).sum())
    big = d.loc[d["diff"].abs().idxmax()]  # the first of equal largest deviations
    name = " ".join(str(big[k]) for k in keys) + f" {big['measure']}"
    ev = f"{over} of {len(d)} cells more than {threshold:g} points from the paper; largest: {name} {big['diff']:+.2f}"
    return finding(
        cid, claim, section, "confirmed" if not over else "not confirmed", abs(big["diff"]), np.nan, ev, link
    )


def deviations(table: pd.DataFrame, values, keys, *, threshold: float) -> pd.DataFrame:
    """Cells more than ``threshold`` points from the paper, measure by measure: ``keys..., measure,
    ours, paper, diff`` (ours and diff rounded to 0.01), from :func:`far_from_paper`."""
    d = far_from_paper(table, values, keys, threshold)
    d = d.sort_values("measure", key=lambda m: m.map(list(values).index), kind="stable").reset_index(drop=True)
    return d.assign(ours=d.ours.round(2), diff=d["diff"].round(2))


def _format_deviations(d: pd.DataFrame, keys) -> str:
    return "; ".join(
        " ".join(str(r[k]) for k in keys) + f" {MEASURE_TITLES.get(r['measure'], r['measure'])}: "
        f"{r['ours']:.2f} vs {r['paper']:.2f} ({r['diff']:+.2f})"
        for _, r in d.iterrows()
    )


def deviation_sentences(table_csv, values, keys, what: str, points: float) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentence on the cells of one table more than ``points`` from the paper, and those
    cells (a list of one frame, with a ``table`` column ``what``; empty when none deviates)."""
    table_csv = Path(table_csv)
    if not table_csv.exists():
        return [], []
    t = pd.read_csv(table_csv)
    dev = deviations(t, values, keys, threshold=points).assign(table=what)
    if not len(dev):
        has_paper = any(f"{v}_paper" in t.columns and t[f"{v}_paper"].notna().any() for v in values)
        return (
            [f"- {what}: every cell within {points:g} points of the paper."]
            if has_paper
            else [f"- {what}: no dataset of the paper in this run, nothing to compare."]
        ), []
    return [
        f"- {what}: {len(dev)} cells more than {points:g} points from the paper (ours vs paper): "
        + _format_deviations(dev, keys)
        + "."
    ], [dev]
