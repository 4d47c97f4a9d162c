"""The statistics of the peers stage: each system against the declared reference on each dataset,
and the systems ranked across datasets.

**On one dataset.** A row's runs give a matrix ``F[i, s]`` of per-instance test F (instance i, seed
s). Against the reference, the difference matrix is ``D[i, s] = F_row[i, s] - F_ref[i, s]``, paired
by seed (a system that ran on one seed only, being deterministic, is the same on every seed:
its column is repeated). The difference is ``d = mean(D)`` and its standard error combines the two
sources of spread (:func:`paired_difference`):

    SE^2 = var_i(mean_s D[i, s]) / n  +  var_s(mean_i D[i, s]) / S      (both with ddof = 1)

the first term the spread over the n test instances of the seed-averaged difference, the second
the spread over the S seeds of the per-seed mean difference (0 for one seed). In the two-way model
``D[i, s] = mu + a_i + b_s + e_is`` this estimates ``var(a)/n + var(b)/S + 2 var(e)/(nS)``, the
variance of ``d`` plus ``var(e)/(nS)``: slightly conservative, and exact to compute (no resampling,
so a rerun gives the same digits).

Two tests per row, each with Holm's correction within the row's *family* (:data:`FAMILIES`): the
public F-maximizers in their tuned setting, the public baselines, our other routes, and the rows of
a default setting; each family answers its own question, declared before any run, so that a
question about the peers is not diluted by rows of ours:

- difference: two-sided z test of ``d = 0``; ``better`` / ``worse`` (the row against the
  reference) when its Holm-adjusted p-value is below ``alpha_of(z)``, else ``tie``;
- non-inferiority of the reference: one-sided z test of H0 ``d >= margin`` (the row better than
  the reference by at least ``margin`` points of F) against H1 ``d < margin``, at ``alpha_of(z) / 2``
  after Holm (unadjusted: the upper end of the ``d +- z SE`` interval below the margin). When it
  rejects, the reference is *at least as good as* the row, within the margin.

A run over its budget has no F: its row is a ``timeout``, outside the tests, and ranks last on the
dataset (:func:`rank_matrix`).

**Across datasets** (Demšar, JMLR 7, 2006): each dataset ranks the systems of a ranking (1 = best; a
timeout last), the Friedman test (and Iman and Davenport's F form of it) asks whether the mean
ranks differ, Nemenyi's critical difference draws the diagram, and the reference is compared with
each other system by the z test of the mean ranks with Holm's correction
(:func:`fmeasure.experiments.comparisons.rank_systems`). Two rankings: the reference and the peers
(the headline), and the reference and our other routes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.experiments.peers.systems import is_peer, kind

__all__ = [
    "FAMILIES",
    "ProtocolMismatch",
    "paired_difference",
    "seed_se",
    "noninferiority_pvalue",
    "family_of",
    "read_runs",
    "check_protocol",
    "run_table",
    "TABLE_COLUMNS",
    "ranked_rows",
    "rank_matrix",
    "iman_davenport",
    "RANKINGS",
    "RANK_COLUMNS",
    "run_ranks",
    "search_cuts",
]

#: The families of tests on each dataset, in the order the tables show them: family -> what it holds.
FAMILIES = {
    "peers: F-maximizers": "public F-maximizers, tuned (the headline)",
    "peers: baselines": "public baselines, tuned",
    "ours": "our other routes, tuned",
    "default settings": "every system with its package's defaults",
}


class ProtocolMismatch(ValueError):
    """Run records made under another protocol (or another declared reference) than this run's."""


def family_of(method: str, setting: str) -> str:
    """The family of tests a (system, setting) row belongs to (:data:`FAMILIES`)."""
    if setting != "tuned":
        return "default settings"
    if not is_peer(method):
        return "ours"
    return "peers: F-maximizers" if kind(method) == "f-maximizer" else "peers: baselines"


def _paired(S, R) -> np.ndarray:
    """``S - R`` paired by seed; a one-seed side repeated over the other's seeds."""
    S, R = np.asarray(S, float), np.asarray(R, float)
    if S.ndim != 2 or R.ndim != 2 or S.shape[0] != R.shape[0]:
        raise ValueError(f"scores: two (instances, seeds) matrices on the same instances, got {S.shape} and {R.shape}")
    if S.shape[1] != R.shape[1] and 1 not in (S.shape[1], R.shape[1]):
        raise ValueError(f"scores: {S.shape[1]} seeds against {R.shape[1]}: pair them by seed, or give one seed")
    return S - R


def seed_se(X) -> float:
    """Standard error of ``mean(X)`` for per-instance scores ``X[i, s]``: over instances and seeds,
    ``sqrt(var_i(mean_s X) / n + var_s(mean_i X) / S)`` (ddof 1; the seed term 0 for one seed).

    >>> round(seed_se([[1.0, 3.0], [0.0, 2.0], [2.0, 4.0], [1.0, 3.0]]), 4)   # sqrt(1/6 + 1)
    1.0801
    """
    X = np.asarray(X, float)
    n, S = X.shape
    inst = X.mean(axis=1).var(ddof=1) / n if n > 1 else 0.0
    seeds = X.mean(axis=0).var(ddof=1) / S if S > 1 else 0.0
    return float(np.sqrt(inst + seeds))


def paired_difference(S, R) -> tuple[float, float, dict]:
    """The row's F minus the reference's and its standard error over instances and seeds.

    ``S`` and ``R`` are ``(n, seeds)`` per-instance scores on the same instances, paired by seed
    (one of them may have one seed). Returns ``(d, se, parts)`` with ``parts`` the two variance
    terms (``instances``, ``seeds``) and ``n_seeds``.
    """
    D = _paired(S, R)
    n, S_ = D.shape if D.ndim == 2 else (len(D), 1)
    inst = D.mean(axis=1).var(ddof=1) / n if n > 1 else 0.0
    seeds = D.mean(axis=0).var(ddof=1) / S_ if S_ > 1 else 0.0
    return (
        float(D.mean()),
        float(np.sqrt(inst + seeds)),
        {"instances": float(inst), "seeds": float(seeds), "n_seeds": S_},
    )


def noninferiority_pvalue(diff: float, se: float, margin: float) -> float:
    """One-sided p-value of H0 ``diff >= margin`` against H1 ``diff < margin`` (``diff``: the row's F
    minus the reference's): small when the reference is at least as good as the row, within the
    margin.

    >>> round(noninferiority_pvalue(-1.0, 0.5, 0.5), 4)   # z = (0.5 - (-1)) / 0.5 = 3
    0.0013
    >>> noninferiority_pvalue(0.2, 0.0, 0.5), noninferiority_pvalue(0.5, 0.0, 0.5)
    (0.0, 1.0)
    """
    from scipy.stats import norm

    diff, se, margin = float(diff), float(se), float(margin)
    if not np.isfinite(diff) or not np.isfinite(se) or se < 0:
        raise ValueError(f"diff/se: need a finite difference and a finite SE >= 0, got {diff}/{se}")
    if se == 0.0:
        return 0.0 if diff < margin else 1.0
    return float(norm.sf((margin - diff) / se))


# ----------------------------------------------------------------------------- the run records


def read_runs(record_paths, instance_paths) -> tuple[list[dict], pd.DataFrame]:
    """The run records (JSON) and the per-instance scores of every run, concatenated."""
    records = [json.loads(Path(p).read_text()) for p in record_paths]
    frames = [pd.read_csv(p) for p in instance_paths]
    frames = [f for f in frames if len(f)]
    cols = ["dataset", "method", "setting", "seed", "instance", "f"]
    inst = pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)
    return records, inst


def check_protocol(records, *, protocol: str, reference: str) -> None:
    """Refuse records made under another protocol or reference: one line naming how many, the first
    of them and both hashes."""
    bad = [r for r in records if r.get("protocol") != protocol or r.get("reference") != reference]
    if bad:
        r = bad[0]
        raise ProtocolMismatch(
            f"{len(bad)} of {len(records)} run records were made under another protocol: the first, "
            f"{r.get('dataset')} {r.get('method')} {r.get('setting')} seed {r.get('seed')}, has protocol "
            f"{r.get('protocol')} and reference {r.get('reference')}, this run {protocol} and {reference}; "
            "rerun them (snakemake --forcerun peers_run peers_all)"
        )


def _joined(values) -> str:
    """One value when every seed gave the same (a chosen grid point), else each seed's."""
    values = [(s, str(v)) for s, v in values if isinstance(v, str) and v]
    distinct = list(dict.fromkeys(v for _, v in values))
    if len(distinct) <= 1:
        return distinct[0] if distinct else ""
    return "; ".join(f"seed {s}: {v}" for s, v in values)


def search_cuts(chosen: str) -> str:
    """What a search's size rules cut, in words, from a record's ``chosen`` (JSON): the routes left
    out with the reason, and the factor its forests' leaf sizes were raised by; "" when nothing.

    >>> search_cuts('{"dropped_": {"chain": "159 labels > 100"}, "leaf_factor": 2}')
    'left out chain (159 labels > 100); forests min_samples_leaf x 2'
    """
    if not isinstance(chosen, str) or not chosen.startswith("{"):
        return ""
    c = json.loads(chosen)
    parts = []
    if c.get("dropped_"):
        parts.append("left out " + ", ".join(f"{k} ({v})" for k, v in c["dropped_"].items()))
    if int(c.get("leaf_factor", 1) or 1) > 1:
        parts.append(f"forests min_samples_leaf x {int(c['leaf_factor'])}")
    cut = [k for k, n in (c.get("n_settings") or {}).items() if n == 1 and k in ("efp", "extra_trees")]
    if cut and c.get("leaf_factor") is not None:
        parts.append("one setting for " + ", ".join(cut))
    return "; ".join(parts)


#: Columns of ``results/tables/peers.csv``, in order.
TABLE_COLUMNS = [
    "dataset",
    "method",
    "source",
    "kind",
    "family",
    "setting",
    "reference",
    "status",
    "tuning",
    "n_seeds",
    "f",
    "f_sd",
    "se",
    "diff_to_reference",
    "diff_se",
    "se_instances",
    "se_seeds",
    "p_holm",
    "vs_reference",
    "p_ni_holm",
    "noninferior",
    "fit_s",
    "predict_s",
    "tuning_s",
    "cpu_s",
    "mean_set_size",
    "params",
    "chosen",
    "search_cuts",
]


def run_table(records, instances: pd.DataFrame, *, reference: str, margin: float, z: float = 2.0) -> pd.DataFrame:
    """One row per (dataset, method, setting), each compared with the reference on its dataset.

    ``f`` is the mean of the row's per-instance F over its instances and seeds, ``f_sd`` the standard
    deviation of its seeds' F (NaN for one seed), ``se`` its standard error over instances and seeds
    (:func:`seed_se`); ``diff_to_reference`` the row's ``f`` minus the reference's and ``diff_se`` its
    standard error (:func:`paired_difference`; ``se_instances`` and ``se_seeds`` its two terms, as
    standard errors); ``p_holm`` the two-sided test of the difference and ``p_ni_holm`` the
    non-inferiority test of the reference (margin ``margin`` points), each Holm-adjusted within the
    row's family on the dataset (:func:`family_of`); ``vs_reference`` better / worse / tie and
    ``noninferior`` True where the reference is shown at least as good as the row. A row whose runs
    were refused has ``status`` "not run: <reason>"; a row with a run over its budget ``timeout``.
    """
    from fmeasure.experiments.comparisons import alpha_of, holm, z_pvalue

    runs = pd.DataFrame(records)
    if runs.empty:
        raise ValueError("records: no runs")
    for col in ("reason", "chosen", "kind"):
        if col not in runs.columns:
            runs[col] = ""
    for m in runs.method.unique():
        kind(m)  # a system missing from the registry is an error, not "ours"
    alpha = alpha_of(z)
    rows = []
    for dataset, g in runs.groupby("dataset", sort=False):
        ref_rows = g[g.method == reference]
        if ref_rows.empty:
            raise ValueError(f"dataset {dataset!r}: the reference {reference!r} has no run")
        ref_setting = "tuned" if "tuned" in set(ref_rows.setting) else ref_rows.setting.iloc[0]
        ref_key = (reference, ref_setting)
        scores, meta = {}, {}
        for key, r in g.groupby(["method", "setting"], sort=False):
            tuning = r.tuning.iloc[0] if "tuning" in r else None
            info = {"tuning": json.dumps(tuning, sort_keys=True) if isinstance(tuning, dict) else ""}
            if (r.status == "not run").any():
                reason = next((x for x in r.reason if isinstance(x, str) and x), "not run")
                meta[key] = info | {"status": f"not run: {reason}", "n_seeds": 0}
                continue
            if (r.status == "timeout").any():
                reason = next((x for x in r[r.status == "timeout"].reason if isinstance(x, str) and x), "timeout")
                meta[key] = info | {"status": "timeout", "n_seeds": int((r.status == "ran").sum())}
                meta[key] |= {"cpu_s": float(r.cpu_s.max()), "chosen": reason}
                continue
            inst = instances[
                (instances.dataset == dataset) & (instances.method == key[0]) & (instances.setting == key[1])
            ]
            w = inst.pivot_table(index="instance", columns="seed", values="f", aggfunc="first")
            seeds = sorted(r.seed)
            if sorted(w.columns) != seeds or w.isna().any().any():
                raise ValueError(f"dataset {dataset!r}, {key[0]} {key[1]}: per-instance scores missing for some seeds")
            scores[key] = (seeds, w[seeds].to_numpy(float))
            chosen = _joined(zip(r.seed, r.chosen))
            cuts = list(dict.fromkeys(c for c in (search_cuts(x) for x in r.chosen) if c))
            if "unfinished" in r:
                left = [f"seed {sd}: {u}" for sd, u in zip(r.seed, r.unfinished) if isinstance(u, str) and u]
                if left:
                    cuts.append("grid points not tried within the budget: " + "; ".join(left))
            meta[key] = info | {
                "status": "ran",
                "n_seeds": len(seeds),
                "fit_s": float(r.fit_s.mean()),
                "predict_s": float(r.predict_s.mean()),
                "tuning_s": float(r.tuning_s.mean()),
                "cpu_s": float(r.cpu_s.mean()) if "cpu_s" in r else np.nan,
                "mean_set_size": float(r.mean_set_size.mean()),
                "params": _joined(zip(r.seed, r.params)),
                "chosen": chosen,
                "search_cuts": " | ".join(cuts),
            }
        ref_ok = ref_key in scores
        tests = {}
        if ref_ok:
            ref_seeds, R = scores[ref_key]
            for key, (seeds, S) in scores.items():
                if key == ref_key:
                    continue
                if S.shape[0] != R.shape[0]:
                    raise ValueError(
                        f"dataset {dataset!r}: {key[0]} {key[1]} has {S.shape[0]} test instances, the reference "
                        f"{R.shape[0]}"
                    )
                if len(seeds) > 1 and len(ref_seeds) > 1 and seeds != ref_seeds:
                    raise ValueError(
                        f"dataset {dataset!r}: {key[0]} {key[1]} ran on seeds {seeds}, the reference on {ref_seeds}"
                    )
                d, se, parts = paired_difference(S, R)
                tests[key] = {
                    "diff_to_reference": d,
                    "diff_se": se,
                    "se_instances": float(np.sqrt(parts["instances"])),
                    "se_seeds": float(np.sqrt(parts["seeds"])),
                    "p": z_pvalue(d, se),
                    "p_ni": noninferiority_pvalue(d, se, margin),
                    "family": family_of(*key),
                }
            for fam in FAMILIES:
                keys = [k for k, t in tests.items() if t["family"] == fam]
                if not keys:
                    continue
                p_two = holm([tests[k]["p"] for k in keys])
                p_ni = holm([tests[k]["p_ni"] for k in keys])
                for k, a, b in zip(keys, p_two, p_ni):
                    d = tests[k]["diff_to_reference"]
                    outcome = "tie" if a >= alpha else ("better" if d > 0 else "worse")
                    tests[k] |= {"p_holm": float(a), "vs_reference": outcome, "p_ni_holm": float(b)}
                    tests[k]["noninferior"] = bool(b < alpha / 2)
        for key, info in meta.items():
            method, setting = key
            row = {c: np.nan for c in TABLE_COLUMNS}
            row |= {"dataset": dataset, "method": method, "setting": setting, "params": "", "chosen": ""}
            row |= {"source": "peer" if is_peer(method) else "ours", "kind": kind(method), "search_cuts": ""}
            row |= {
                "family": "reference" if key == ref_key else family_of(method, setting),
                "reference": key == ref_key,
            }
            row |= info
            if key in scores:
                _, S = scores[key]
                row["f"] = float(S.mean())
                row["f_sd"] = float(S.mean(axis=0).std(ddof=1)) if S.shape[1] > 1 else np.nan
                row["se"] = seed_se(S)
                if key == ref_key:
                    row |= {"diff_to_reference": 0.0, "diff_se": 0.0, "vs_reference": "reference"}
                elif key in tests:
                    row |= {k: v for k, v in tests[key].items() if k not in ("p", "p_ni", "family")}
                else:
                    row["vs_reference"] = "reference did not finish"
            elif info["status"] == "timeout":
                row["vs_reference"] = "timeout"
            else:
                row["vs_reference"] = "not run"
            rows.append(row)
    out = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    out["noninferior"] = out["noninferior"].astype(object)
    return out


# ----------------------------------------------------------------------------- across datasets


def ranked_rows(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, method): the tuned row when the method has one, else its default."""
    order = {"tuned": 0, "default": 1}
    t = table.assign(_o=table.setting.map(order)).sort_values(["_o"], kind="stable")
    return t.drop_duplicates(["dataset", "method"]).drop(columns="_o").sort_index()


def rank_matrix(table: pd.DataFrame, methods, datasets) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Scores for the rank tests: one row per dataset, one column per method, its ``f``; a timeout
    gets a score below every finished system's on that dataset (all timeouts of a dataset tie, last).
    Returns the matrix and the (method, reason) of the methods left out (a run refused on some
    dataset: the design must stay complete)."""
    t = ranked_rows(table)
    A = pd.DataFrame(index=list(datasets), columns=list(methods), dtype=float)
    left = []
    for m in methods:
        sub = t[t.method == m].set_index("dataset")
        missing = [d for d in datasets if d not in sub.index or str(sub.loc[d, "status"]).startswith("not run")]
        if missing:
            why = "not run on any dataset" if len(missing) == len(datasets) else f"not run on {', '.join(missing)}"
            left.append((m, why))
            continue
        for d in datasets:
            A.loc[d, m] = sub.loc[d, "f"] if sub.loc[d, "status"] == "ran" else -np.inf
    A = A[[m for m in methods if m not in {x for x, _ in left}]]
    for d in A.index:
        row = A.loc[d].to_numpy(float)
        finite = row[np.isfinite(row)]
        low = (finite.min() if len(finite) else 0.0) - 1.0
        A.loc[d] = np.where(np.isfinite(row), row, low)
    return A, left


def iman_davenport(chi2: float, n: int, k: int) -> tuple[float, float]:
    """Iman and Davenport's F form of the Friedman statistic and its p-value, with ``k - 1`` and
    ``(k - 1)(n - 1)`` degrees of freedom (Demšar 2006, eq. 4).

    >>> [round(x, 4) for x in iman_davenport(20.0, 10, 3)]   # chi2 at its largest, N (k - 1): F infinite
    [inf, 0.0]
    >>> round(iman_davenport(6.0, 10, 3)[0], 4)   # 9 * 6 / (20 - 6)
    3.8571
    """
    from scipy.stats import f as f_dist

    denom = n * (k - 1) - chi2
    F = float("inf") if denom <= 0 else (n - 1) * chi2 / denom
    p = 0.0 if not np.isfinite(F) else float(f_dist.sf(F, k - 1, (k - 1) * (n - 1)))
    return float(F), p


#: The two rankings: name -> which systems join the reference.
RANKINGS = {"peers": "the reference and the public systems", "ours": "the reference and our other routes"}

#: Columns of ``results/tables/peers_ranks*.csv``, in order.
RANK_COLUMNS = [
    "ranking",
    "method",
    "setting",
    "source",
    "kind",
    "reference",
    "mean_rank",
    "rank_diff",
    "p_nemenyi",
    "p_holm",
    "vs_reference",
    "n_timeouts",
    "n_datasets",
    "n_systems",
    "friedman_chi2",
    "friedman_p",
    "iman_davenport_f",
    "iman_davenport_p",
    "cd",
    "rank_se",
    "alpha",
]


def run_ranks(table: pd.DataFrame, *, reference: str, ranking: str = "peers", z: float = 2.0):
    """One ranking (:data:`RANKINGS`) over the datasets where the reference ran: the reference and the
    peers (``peers``), or the reference and our other routes (``ours``), each in its tuned setting
    (its default when it has none). Returns ``(ranks, summary)``; when fewer than 3 systems or 2
    datasets remain, no test is made and ``summary["reason"]`` says why."""
    from fmeasure.experiments.comparisons import alpha_of, rank_systems

    if ranking not in RANKINGS:
        raise ValueError(f"ranking: one of {list(RANKINGS)}, got {ranking!r}")
    t = ranked_rows(table)
    datasets = list(dict.fromkeys(t[(t.method == reference) & ~t.status.str.startswith("not run")].dataset))
    want_peer = ranking == "peers"
    methods = [reference] + [m for m in dict.fromkeys(t.method) if m != reference and is_peer(m) == want_peer]
    A, left = rank_matrix(t, methods, datasets)
    complete = list(A.columns)
    setting_of = {m: t[t.method == m].setting.iloc[0] for m in methods}
    timeouts = {m: int(((t.method == m) & (t.status == "timeout")).sum()) for m in methods}
    summary = {"ranking": ranking, "n_datasets": len(datasets), "n_systems": len(complete), "alpha": alpha_of(z)}
    if len(complete) < 3 or len(datasets) < 2 or reference not in complete:
        ranked = pd.DataFrame({"method": complete})
        ranked["vs_reference"] = "not tested"
        summary["reason"] = (
            f"the Friedman test needs at least 3 systems and 2 datasets; {len(complete)} systems ranked on "
            f"{len(datasets)} datasets"
        )
    else:
        ranked, stats = rank_systems(A, reference, z=z)
        summary |= stats
        summary["iman_davenport_f"], summary["iman_davenport_p"] = iman_davenport(
            stats["friedman_chi2"], stats["n_datasets"], stats["n_systems"]
        )
        ranked = ranked.rename(columns={"system": "method"})
    rows = pd.DataFrame(
        [{"method": m, "vs_reference": f"not ranked: {why}"} for m, why in left], columns=["method", "vs_reference"]
    )
    out = pd.concat([ranked, rows], ignore_index=True)
    out["ranking"] = ranking
    out["setting"] = [setting_of[m] for m in out.method]
    out["source"] = ["peer" if is_peer(m) else "ours" for m in out.method]
    out["kind"] = [kind(m) for m in out.method]
    out["reference"] = out.method == reference
    out["n_timeouts"] = [timeouts[m] for m in out.method]
    for k in ("n_datasets", "n_systems", "friedman_chi2", "friedman_p", "iman_davenport_f", "iman_davenport_p"):
        out[k] = summary.get(k, np.nan)
    for k in ("cd", "rank_se", "alpha"):
        out[k] = summary.get(k, np.nan)
    return out.reindex(columns=RANK_COLUMNS), summary
