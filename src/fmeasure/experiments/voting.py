"""The JRS 2012 voting ensemble of Section 7.3 (Table 7) on the configured datasets.

The stage splits :class:`fmeasure.learners.VotingEnsemble` into jobs, with the ensemble's own
public functions, so that each fitted model is one job:

* :func:`run_fit` -- one *fit* (a model shared by several members, e.g. one PCC chain for all
  PCC members): competition preprocessing, the validation split of the training set
  (:func:`fmeasure.learners.voting.validation_split`, the same in every job), the fit on the
  training part and its members' validation predictions, the refit on the whole training set
  (``refit``) and the members' test predictions, all in one batch per fit
  (:func:`fmeasure.learners.voting.member_predictions`).
* :func:`run_vote` -- one dataset: the vote threshold chosen on the validation votes of all
  members (:func:`fmeasure.learners.voting.choose_threshold`), the test F-measure of every member
  and of the vote, and the same for the first 1, 2, 4, ... members (the figure).
* :func:`run_table7`, :func:`run_claims`, :func:`write_table7`, :func:`write_figure` -- Table 7 one
  block per dataset beside the paper's JRS 2012 numbers, the paper's claims of Section 7.3 checked
  on every dataset, and the figure.

Example
-------
>>> import numpy as np
>>> from fmeasure.datasets import Dataset
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(120, 3)); Y = (X[:, :2] + rng.normal(size=(120, 2)) > 0).astype(np.int8)
>>> ds = Dataset("toy", X[:90], Y[:90], X[90:], Y[90:])
>>> cfg = {"Cs": [1.0], "cv": 3, "seed": 0, "fits": {"br": {"learner": "BR"}},
...        "members": [{"name": "BR", "fit": "br", "inference": "mm"}, {"name": "LFP", "fit": "br", "inference": "fm"}]}
>>> fit = run_fit(ds, "br", cfg)
>>> scores, curve = run_vote([fit], cfg)
>>> scores["method"].tolist()
['BR', 'LFP', 'Voting']
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fmeasure.experiments.config import used_fits
from fmeasure.experiments.registry import VOTING_LEARNERS
from fmeasure.io import atomic_output
from fmeasure.metrics import f_measure
from fmeasure.tables import paper_numbers, to_markdown

__all__ = [
    "run_findings",
    "COMPETITION_CS",
    "COMPETITION_CV",
    "preprocess",
    "used_fits",
    "make_estimator",
    "run_fit",
    "save_fit",
    "load_fit",
    "run_vote",
    "run_timing",
    "run_table7",
    "run_claims",
    "write_table7",
    "write_figure",
]

log = logging.getLogger(__name__)

#: The competition's grid for C (paper, Section 7.3): 1e-5, 1e-4, ..., 1e5, tuned by 10-fold CV.
COMPETITION_CS = tuple(10.0**e for e in range(-5, 6))
COMPETITION_CV = 10
#: Learner names of a fit.
LEARNER_NAMES = VOTING_LEARNERS
#: The paper's Table 7 methods, in its order (the paper's JRS 2012 block; ours shows the members so named).
PAPER_METHODS = [
    "PCC FM (n = 50)",
    "PCC FM (n = 200)",
    "PCC FM (n = 1000)",
    "PCC GFM (n = 50)",
    "PCC GFM (n = 200)",
    "PCC GFM (n = 1000)",
    "LFP",
    "Voting",
]
#: "Improves only slightly": the vote's gain over the best of LFP and PCC GFM in [0, this] points of F.
SLIGHT = 1.0


def _learner_classes() -> dict:
    # the learners (and fmeasure.learners.voting) are imported in the functions that fit, predict or
    # vote: the table, figure and findings jobs stay light
    from fmeasure.learners.parametric import EFP, LFP, BinaryRelevance
    from fmeasure.learners.pcc import ProbabilisticClassifierChain

    return {"PCC": ProbabilisticClassifierChain, "BR": BinaryRelevance, "LFP": LFP, "EFP": EFP}


# ------------------------------------------------------------------------------------ preprocessing
def preprocess(X_train, X_test):
    """The competition's preprocessing: drop the training set's all-zero columns, scale to [0, 1].

    Ranges are the training set's; test values outside them are kept (not clipped). Sparse input
    whose kept columns all have minimum 0 stays sparse (scaling by 1 / max).

    Returns
    -------
    (X_train, X_test, kept) : scaled matrices and the indices of the kept columns

    Examples
    --------
    >>> Xtr = np.array([[0., 2., 0.], [0., 4., 1.]]); Xte = np.array([[5., 3., 2.]])
    >>> a, b, kept = preprocess(Xtr, Xte)
    >>> kept.tolist(), a.tolist(), b.tolist()
    ([1, 2], [[0.0, 0.0], [1.0, 1.0]], [[0.5, 2.0]])
    """
    if sp.issparse(X_train):
        Xtr = sp.csr_matrix(X_train, dtype=np.float64)
        nonzero = np.asarray((Xtr != 0).sum(axis=0)).ravel() > 0
        lo = np.asarray(Xtr.min(axis=0).todense()).ravel()
        hi = np.asarray(Xtr.max(axis=0).todense()).ravel()
    else:
        Xtr = np.asarray(X_train, dtype=np.float64)
        nonzero = (Xtr != 0).any(axis=0)
        lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    kept = np.flatnonzero(nonzero)
    lo, hi = lo[kept], hi[kept]
    span = np.where(hi > lo, hi - lo, 1.0)

    def scale(X):
        X = X[:, kept]
        if sp.issparse(X):
            if np.all(lo == 0):
                return sp.csr_matrix(X @ sp.diags(1.0 / span))
            X = X.toarray()
        return (np.asarray(X, dtype=np.float64) - lo) / span

    return scale(Xtr), scale(X_test), kept


# ------------------------------------------------------------------------------------ config
def _grid(cfg: dict, fit_cfg: dict):
    if "Cs" in fit_cfg or "cv" in fit_cfg:
        return tuple(fit_cfg.get("Cs", cfg["Cs"])), int(fit_cfg.get("cv", cfg["cv"]))
    if cfg.get("competition_grid", False):
        return COMPETITION_CS, COMPETITION_CV
    return tuple(cfg["Cs"]), int(cfg["cv"])


def make_estimator(fit_name: str, cfg: dict, n_jobs=None):
    """The unfitted model of fit ``fit_name`` of the ``voting`` config block."""
    fit_cfg = cfg["fits"][fit_name]
    learner = fit_cfg["learner"]
    if learner not in LEARNER_NAMES:
        raise ValueError(
            f"voting.fits.{fit_name}.learner: unknown {learner!r}, expected one of {sorted(LEARNER_NAMES)}"
        )
    Cs, cv = _grid(cfg, fit_cfg)
    seed = int(fit_cfg.get("seed", cfg["seed"]))
    standardize = bool(cfg.get("standardize", False))
    cls = _learner_classes()[learner]
    if learner == "PCC":
        return cls(Cs=Cs, cv=cv, random_state=seed, n_jobs=n_jobs, standardize=standardize)
    patience = fit_cfg.get("patience")
    return cls(Cs=Cs, cv=cv, random_state=seed, n_jobs=n_jobs, standardize=standardize, patience=patience)


def _member_params(mem: dict) -> dict:
    p = {}
    if mem.get("inference"):
        p["inference"] = mem["inference"]
    if mem.get("n_samples") is not None:
        p["n_samples"] = int(mem["n_samples"])
    if mem.get("seed") is not None:
        p["random_state"] = int(mem["seed"])
    return p


def _prepared(ds, cfg):
    if cfg.get("preprocess", True):
        Xtr, Xte, _ = preprocess(ds.X_train, ds.X_test)
        return Xtr, Xte
    return ds.X_train, ds.X_test


# ------------------------------------------------------------------------------------ jobs
def _predict_timed(est, X, members):
    """Predictions of ``members`` (config dicts) by batches of shared samples; seconds per member."""
    from fmeasure.learners.pcc import ProbabilisticClassifierChain
    from fmeasure.learners.voting import member_predictions

    params = [_member_params(m) for m in members]
    groups = {}
    for k, p in enumerate(params):
        key = (p.get("n_samples"), p.get("random_state")) if isinstance(est, ProbabilisticClassifierChain) else None
        groups.setdefault(key, []).append(k)
    preds, secs = [None] * len(params), np.zeros(len(params))
    for ks in groups.values():
        t0 = time.perf_counter()
        P = member_predictions(est, X, [params[k] for k in ks])
        dt = time.perf_counter() - t0
        for j, k in enumerate(ks):
            preds[k], secs[k] = P[j], dt
    return np.stack(preds), secs, sum(secs[ks[0]] for ks in groups.values())


def run_fit(ds, fit_name: str, cfg: dict, n_jobs=None) -> dict:
    """Fit ``fit_name`` for dataset ``ds`` and predict its members' validation and test labels.

    Returns
    -------
    dict with ``members`` (names), ``validation_index``, ``validation_predictions`` (k, n_val, m)
    and ``test_predictions`` (k, n_test, m) int8, and ``record`` (times in seconds: ``fit_s`` of the
    model the test predictions come from, ``validation_fit_s``, ``inference_s`` per member, ...).
    """
    from fmeasure.learners.voting import validation_split

    members = [m for m in cfg["members"] if m["fit"] == fit_name]
    if not members:
        raise ValueError(f"voting: no member uses fit {fit_name!r}")
    Xtr, Xte = _prepared(ds, cfg)
    tr, va = validation_split(ds.Y_train, cfg.get("validation_size", 0.1), int(cfg["seed"]))
    phases = []

    def timed(phase, fn):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        # a fitted learner's fit_cpu_time_ counts this process and its worker processes
        cpu = max(cpu, float(getattr(out, "fit_cpu_time_", 0.0) or 0.0))
        phases.append({"phase": phase, "wall_s": wall, "cpu_s": cpu})
        log.info("voting fit %s on %s: %s done in %.1f s (%.1f s CPU)", fit_name, ds.name, phase, wall, cpu)
        return out

    t_start = time.perf_counter()
    log.info(
        "voting fit %s on %s: %d members; phases: fit on the training part (%d rows), validation predictions "
        "(%d rows)%s, test predictions (%d rows)",
        fit_name,
        ds.name,
        len(members),
        len(tr),
        len(va),
        ", refit on all training data" if cfg.get("refit", True) else "",
        ds.Y_test.shape[0],
    )
    model = timed(
        "fit on the training part", lambda: make_estimator(fit_name, cfg, n_jobs=n_jobs).fit(Xtr[tr], ds.Y_train[tr])
    )
    val_fit = phases[-1]["wall_s"]
    Pv, _, val_inf = timed("validation predictions", lambda: _predict_timed(model, Xtr[va], members))
    fit_s = val_fit
    if cfg.get("refit", True):
        model = timed(
            "refit on all training data", lambda: make_estimator(fit_name, cfg, n_jobs=n_jobs).fit(Xtr, ds.Y_train)
        )
        fit_s = phases[-1]["wall_s"]
    Pt, secs, test_inf = timed("test predictions", lambda: _predict_timed(model, Xte, members))
    record = {
        "dataset": ds.name,
        "fit": fit_name,
        "learner": cfg["fits"][fit_name]["learner"],
        "members": [m["name"] for m in members],
        "fit_s": fit_s,
        "validation_fit_s": val_fit,
        "validation_inference_s": val_inf,
        "test_inference_s": test_inf,
        "inference_s": secs.tolist(),
        "total_s": time.perf_counter() - t_start,
        "n_features_kept": int(Xtr.shape[1]),
        "refit": bool(cfg.get("refit", True)),
        "phases": phases,
    }
    log.info(
        "voting fit %s on %s: %d members, fit %.1f s (validation fit %.1f s)",
        fit_name,
        ds.name,
        len(members),
        fit_s,
        val_fit,
    )
    return {
        "members": record["members"],
        "validation_index": va,
        "validation_predictions": Pv,
        "test_predictions": Pt,
        "Y_validation": ds.Y_train[va],
        "Y_test": ds.Y_test,
        "record": record,
    }


def save_fit(result: dict, path) -> None:
    """Write a :func:`run_fit` result to one ``.npz`` file (atomically)."""
    with atomic_output(path, suffix=".npz") as tmp:
        np.savez_compressed(
            tmp,
            members=np.asarray(result["members"], dtype=str),
            validation_index=result["validation_index"],
            validation_predictions=result["validation_predictions"],
            test_predictions=result["test_predictions"],
            Y_validation=result["Y_validation"],
            Y_test=result["Y_test"],
            record=np.asarray(json.dumps(result["record"])),
        )


def load_fit(path) -> dict:
    """Read a file written by :func:`save_fit`."""
    with np.load(path, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    out["members"] = out["members"].tolist()
    out["record"] = json.loads(str(out["record"]))
    return out


def _mean_f(Y, H):
    return 100.0 * float(np.mean(f_measure(Y, H)))


def run_vote(fits, cfg: dict, sizes=None, return_instances: bool = False):
    """Vote over all members of one dataset (``fits``: :func:`run_fit` results of that dataset).

    With ``return_instances=True`` a third frame is returned: the per-instance test F-measure
    (in %) of every member and of ``Voting`` (``dataset, method, instance, f``), for the paired
    bootstrap of the findings.

    Returns
    -------
    scores : DataFrame
        One row per member (config order) and one for ``Voting``: ``dataset, method, f,
        validation_f`` (in %), ``threshold`` (Voting), ``train_time_s, inference_time_s``.
    curve : DataFrame
        ``dataset, n_members, threshold, validation_f, f``: the vote of the first k members, its
        threshold chosen on validation, for k in ``sizes`` (default ``cfg["figure_members"]``,
        sizes above the number of members left out).
    """
    from fmeasure.learners.voting import choose_threshold

    by_name = {}
    va = None
    for fit in fits:
        if va is None:
            va, Yv, Yt = fit["validation_index"], fit["Y_validation"], fit["Y_test"]
        elif not np.array_equal(va, fit["validation_index"]):
            raise ValueError("voting: the fits of one dataset used different validation splits")
        for j, name in enumerate(fit["members"]):
            by_name[name] = (fit, j)
    order = [m["name"] for m in cfg["members"] if m["name"] in by_name]
    missing = [m["name"] for m in cfg["members"] if m["name"] not in by_name]
    if missing:
        raise ValueError(f"voting: no predictions for member(s) {missing}")
    dataset = fits[0]["record"]["dataset"]
    Pv = np.stack([by_name[n][0]["validation_predictions"][by_name[n][1]] for n in order])
    Pt = np.stack([by_name[n][0]["test_predictions"][by_name[n][1]] for n in order])
    rows = []
    for k, name in enumerate(order):
        fit, j = by_name[name]
        rows.append(
            {
                "dataset": dataset,
                "method": name,
                "f": _mean_f(Yt, Pt[k]),
                "validation_f": _mean_f(Yv, Pv[k]),
                "threshold": np.nan,
                "train_time_s": fit["record"]["fit_s"],
                "inference_time_s": fit["record"]["inference_s"][j],
            }
        )
    M = len(order)
    t0 = time.perf_counter()
    Vv = Pv.sum(axis=0, dtype=np.int64)
    t, val_scores = choose_threshold(Vv, Yv, M)
    t_search = time.perf_counter() - t0
    t0 = time.perf_counter()
    H = (Pt.sum(axis=0, dtype=np.int64) >= t).astype(np.int8)
    t_vote = time.perf_counter() - t0
    rows.append(
        {
            "dataset": dataset,
            "method": "Voting",
            "f": _mean_f(Yt, H),
            "validation_f": 100.0 * val_scores[t - 1],
            "threshold": t,
            "train_time_s": sum(f["record"]["total_s"] - f["record"]["test_inference_s"] for f in fits) + t_search,
            "inference_time_s": sum(f["record"]["test_inference_s"] for f in fits) + t_vote,
        }
    )
    scores = pd.DataFrame(rows)
    curve = []
    for k in (cfg.get("figure_members") if sizes is None else sizes) or []:
        if k > M:
            log.warning("voting: figure size %d left out (%d members)", k, M)
            continue
        tk, sk = choose_threshold(Pv[:k].sum(axis=0, dtype=np.int64), Yv, k)
        Hk = (Pt[:k].sum(axis=0, dtype=np.int64) >= tk).astype(np.int8)
        curve.append(
            {
                "dataset": dataset,
                "n_members": int(k),
                "threshold": tk,
                "validation_f": 100.0 * sk[tk - 1],
                "f": _mean_f(Yt, Hk),
            }
        )
    log.info(
        "voting on %s: %d members, threshold %d, F %.2f (validation %.2f)",
        dataset,
        M,
        t,
        rows[-1]["f"],
        rows[-1]["validation_f"],
    )
    curve = pd.DataFrame(curve, columns=["dataset", "n_members", "threshold", "validation_f", "f"])
    if not return_instances:
        return scores, curve
    inst = pd.concat(
        [
            pd.DataFrame(
                {"dataset": dataset, "method": name, "instance": np.arange(len(Yt)), "f": 100.0 * f_measure(Yt, P)}
            )
            for name, P in zip([*order, "Voting"], [*Pt, H])
        ],
        ignore_index=True,
    )
    return scores, curve, inst


def run_timing(fits) -> pd.DataFrame:
    """Where a dataset's voting stage spends its time: one row per (fit, phase) of :func:`run_fit`.

    Columns ``dataset, fit, learner, members, phase, wall_s, cpu_s, time_share`` (``cpu_s``: this
    process plus, for learners that report it, the CPU seconds of their parallel workers; ``time_share``:
    the phase's part of the dataset's total wall time). Phases: the fit on the training part, the
    members' validation predictions, the refit on all training data (``refit``) and the members'
    test predictions.
    """
    rows = []
    for fit in fits:
        rec = fit["record"]
        for p in rec.get("phases", []):
            rows.append(
                {
                    "dataset": rec["dataset"],
                    "fit": rec["fit"],
                    "learner": rec["learner"],
                    "members": len(rec["members"]),
                    **p,
                }
            )
    out = pd.DataFrame(rows, columns=["dataset", "fit", "learner", "members", "phase", "wall_s", "cpu_s"])
    total = out.groupby("dataset")["wall_s"].transform("sum")
    return out.assign(time_share=out["wall_s"] / total.where(total > 0))


# ------------------------------------------------------------------------------------ tables
def run_table7(scores) -> pd.DataFrame:
    """Table 7: per dataset the members named as the paper's rows, then Voting; the paper's block last.

    ``scores``: the :func:`run_vote` score frames of the datasets, in the config's order. The
    paper's rows (``source == "paper"``) are on the JRS 2012 data, a different dataset.
    """
    frames = []
    for s in scores:
        keep = s[s["method"].isin(PAPER_METHODS)].copy()
        keep["_o"] = keep["method"].map({m: i for i, m in enumerate(PAPER_METHODS)})
        frames.append(keep.sort_values("_o", kind="stable").drop(columns="_o"))
    cols = ["source", "dataset", "method", "f", "validation_f", "threshold", "train_time_s", "inference_time_s"]
    ours = pd.concat(frames, ignore_index=True).assign(source="ours") if frames else pd.DataFrame(columns=cols)
    paper = paper_numbers("table7").assign(source="paper").reindex(columns=cols)
    parts = [p for p in (ours.reindex(columns=cols), paper) if len(p)]
    return pd.concat(parts, ignore_index=True)


def run_claims(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims of Section 7.3 checked per dataset (and on the paper's own numbers).

    Claims: (1) "the voting procedure improves only slightly over LFP and PCC with the GFM
    inference": Voting minus the best of LFP and PCC GFM (n = 1000) is in [0, ``SLIGHT``] points;
    (2) "PCC with FM loses against other methods": at every n, PCC FM is below PCC GFM, and every
    PCC FM is below LFP and Voting; (3) "increasing the sample size improves the results (for
    both, FM and GFM)": F does not decrease from n = 50 to 200 to 1000, for FM and for GFM.
    """
    rows = []
    for (source, dataset), g in table.groupby(["source", "dataset"], sort=False):
        f = dict(zip(g["method"], g["f"]))
        if not all(m in f for m in PAPER_METHODS):
            continue
        ns = (50, 200, 1000)
        fm = [f[f"PCC FM (n = {n})"] for n in ns]
        gfm = [f[f"PCC GFM (n = {n})"] for n in ns]
        best = max(f["LFP"], gfm[-1])
        gain = f["Voting"] - best
        rows.append(
            {
                "source": source,
                "dataset": dataset,
                "claim": "voting improves only slightly over LFP and PCC GFM",
                "holds": bool(0 <= gain <= SLIGHT),
                "evidence": f"Voting - max(LFP, PCC GFM n=1000) = {gain:+.2f} points",
            }
        )
        loses = all(a < b for a, b in zip(fm, gfm)) and max(fm) < min(f["LFP"], f["Voting"])
        rows.append(
            {
                "source": source,
                "dataset": dataset,
                "claim": "PCC FM loses against the other methods",
                "holds": bool(loses),
                "evidence": "FM - GFM at n = 50/200/1000: "
                + "/".join(f"{a - b:+.2f}" for a, b in zip(fm, gfm))
                + f"; best FM - LFP = {max(fm) - f['LFP']:+.2f}",
            }
        )
        grows = all(np.diff(fm) >= 0) and all(np.diff(gfm) >= 0)
        rows.append(
            {
                "source": source,
                "dataset": dataset,
                "claim": "a larger sample helps both FM and GFM",
                "holds": bool(grows),
                "evidence": "FM " + " / ".join(f"{v:.2f}" for v in fm) + "; GFM " + " / ".join(f"{v:.2f}" for v in gfm),
            }
        )
    return pd.DataFrame(rows, columns=["source", "dataset", "claim", "holds", "evidence"])


CAPTION = (
    "Table 7. The JRS 2012 voting ensemble (Section 7.3) on each dataset: instance-wise F-measure "
    "(in %, test set) of the members named as the paper's rows (PCC with FM and GFM at n sampled "
    "label vectors, LFP) and of the vote over all {M} members, whose threshold t (a label is predicted "
    "when at least t members predict it) maximises the mean F on a validation split of {val} of the "
    "training set{refit}. Validation F is on that split (members fitted on the rest). Training [s]: "
    "the final fit of the member's model (members sharing a model share it); for Voting the fits "
    "on the training part, their validation predictions, the refits and the threshold search. "
    "Inference [s]: the member's test predictions (FM and GFM at one n share one sampling); for "
    "Voting all members' plus the vote. Best F per dataset in bold. The paper's numbers are on the "
    "JRS 2012 competition data (MEDLINE abstracts, 83 labels), which is not among these datasets: "
    "they are shown in a separate block."
)


def _block(df, paper=False):
    shown = pd.DataFrame({"Method": df["method"], "F [%]": df["f"]})
    if not paper:
        shown["Validation F [%]"] = df["validation_f"].to_numpy()
        shown["t"] = ["" if pd.isna(v) else str(int(v)) for v in df["threshold"]]
        shown["Training [s]"] = [f"{v:.1f}" for v in df["train_time_s"]]
        shown["Inference [s]"] = [f"{v:.3f}" for v in df["inference_time_s"]]
    f = pd.to_numeric(shown["F [%]"])
    bold = pd.DataFrame(False, index=shown.index, columns=shown.columns)
    bold["F [%]"] = np.isclose(f, f.max(), rtol=0, atol=5e-3)
    shown = shown.reset_index(drop=True)
    return to_markdown(shown, bold=bold.reset_index(drop=True), float_format="{:.3f}" if paper else "{:.2f}")


def write_table7(
    table: pd.DataFrame,
    claims: pd.DataFrame,
    csv_path,
    md_path,
    claims_csv,
    claims_md,
    *,
    n_members: int,
    validation_size=0.1,
    refit=True,
) -> None:
    """Write Table 7 (CSV tidy; Markdown one block per dataset, the paper's block last) and the claims."""
    val = f"{validation_size:.0%}" if isinstance(validation_size, float) else f"{validation_size} instances"
    caption = CAPTION.format(
        M=n_members,
        val=val,
        refit="; the members are then refitted on the whole training set"
        if refit
        else "; the members are not refitted",
    )
    parts = [caption, ""]
    for (source, dataset), g in table.groupby(["source", "dataset"], sort=False):
        if source == "paper":
            parts += [f"**Paper: JRS 2012 competition data ({dataset}), not reproducible here**", "", _block(g, True)]
        else:
            parts += [f"**{dataset}**", "", _block(g)]
    with atomic_output(csv_path) as tmp:
        table.to_csv(tmp, index=False)
    with atomic_output(md_path) as tmp:
        Path(tmp).write_text("\n".join(parts))
    with atomic_output(claims_csv) as tmp:
        claims.to_csv(tmp, index=False)
    shown = claims.assign(
        holds=claims["holds"].map({True: "yes", False: "NO"}),
        dataset=[d if s == "ours" else f"{d} (paper)" for s, d in zip(claims["source"], claims["dataset"])],
    )
    text = (
        "Claims of Section 7.3 checked on each dataset's Table 7 block and on the paper's own JRS 2012 "
        f'numbers ("only slightly": a gain between 0 and {SLIGHT:g} points of F).\n\n'
        + to_markdown(shown[["dataset", "claim", "holds", "evidence"]])
    )
    with atomic_output(claims_md) as tmp:
        Path(tmp).write_text(text)


def write_figure(curve: pd.DataFrame, png_path, pdf_path=None) -> None:
    """F-measure of the vote against the number of members (config order), one panel per dataset.

    Solid black: test F; dashed grey: validation F; each test point is labelled with the
    validation-chosen threshold t.
    """
    from fmeasure.figures import plt, save_figure

    datasets = list(dict.fromkeys(curve["dataset"]))
    fig, axes = plt.subplots(1, max(1, len(datasets)), figsize=(3.6 * max(1, len(datasets)), 3.2), squeeze=False)
    for ax, d in zip(axes[0], datasets):
        g = curve[curve["dataset"] == d].sort_values("n_members")
        ax.plot(g["n_members"], g["f"], color="black", linestyle="-", marker="o", label="test")
        ax.plot(
            g["n_members"],
            g["validation_f"],
            color="0.5",
            linestyle="--",
            marker="s",
            markerfacecolor="white",
            label="validation",
        )
        for k, f, t in zip(g["n_members"], g["f"], g["threshold"]):
            ax.annotate(f"t={int(t)}", (k, f), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7)
        ax.set_xscale("log", base=2)
        ax.set_xticks(g["n_members"].tolist())
        ax.set_xticklabels([str(k) for k in g["n_members"]])
        ax.set_title(d)
        ax.set_xlabel("number of members (config order)")
        ax.margins(y=0.15)
    axes[0][0].set_ylabel("F-measure [%]")
    axes[0][0].legend(fontsize=7, loc="best")
    save_figure(fig, png_path, pdf_path)


# --------------------------------------------------------------------------------------------------
# findings (the report's table of verdicts)


def run_findings(table7, instances=None, *, link: str = "#sec-voting", n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """The claim of Section 7.3 on this run's Table 7, and Table 7 itself (a different dataset).

    "Voting improves only slightly over LFP and PCC GFM": per dataset, margin = Voting - max(LFP,
    PCC GFM at n = 50, 200, 1000) in points of test F (Table 7), with its standard error from a
    paired bootstrap over the test instances (``instances``: the per-instance scores of
    :func:`run_vote`); the datasets combined by :func:`fmeasure.experiments.findings.combine`.
    Without per-instance scores for a dataset its SE is
    :data:`~fmeasure.experiments.findings.SINGLE_SPLIT_SE`, and the evidence says so. The paper's
    Table 7 is on the JRS 2012 data, which is not public: not run.
    """
    from fmeasure.experiments.findings import (
        SINGLE_SPLIT_NOTE,
        SINGLE_SPLIT_SE,
        bootstrap_margin,
        combine,
        finding,
        paper_claims,
    )

    t = pd.read_csv(table7) if not isinstance(table7, pd.DataFrame) else table7
    t = t[t.get("source", "ours") == "ours"] if "source" in t.columns else t
    if instances is not None and not isinstance(instances, pd.DataFrame):
        instances = pd.concat([pd.read_csv(p) for p in instances], ignore_index=True)
    cat = paper_claims().set_index("claim_id")
    rows = [
        finding(
            "table7",
            cat.loc["table7", "claim"],
            cat.loc["table7", "section"],
            "not run (the JRS 2012 data is not public; the method runs on this run's datasets, see the voting section)",
            link=link,
        )
    ]
    cells = []
    for d, g in t.groupby("dataset", sort=False):
        f = g.set_index("method")["f"]
        gfm = [m for m in f.index if m.startswith("PCC GFM")]
        if "Voting" not in f.index or "LFP" not in f.index or not gfm:
            continue
        others = ["LFP", *gfm]
        margin = float(f["Voting"] - max(f[m] for m in others))
        part = None if instances is None else instances[instances.dataset == d]
        if part is not None and set(part.method) >= {"Voting", *others}:
            w = part.pivot_table(index="instance", columns="method", values="f", aggfunc="first")
            _, se = bootstrap_margin(
                {m: w[m].to_numpy() for m in ["Voting", *others]}, ["Voting"], others, n_boot=n_boot, seed=seed
            )
            note = ""
        else:
            se, note = SINGLE_SPLIT_SE, SINGLE_SPLIT_NOTE
        cells.append({"label": d, "margin": margin, "se": se, "note": note})
    cid = "vote.lfp"
    if not cells:
        rows.append(finding(cid, cat.loc[cid, "claim"], cat.loc[cid, "section"], "not run (no dataset)", link=link))
    else:
        c = combine(pd.DataFrame(cells))
        notes = "".join(dict.fromkeys(x["note"] for x in cells))
        ev = (
            "Voting - max(LFP, PCC GFM): "
            + ", ".join(f"{x['label']} {x['margin']:+.2f} (SE {x['se']:.2f})" for x in cells)
            + (notes or " (SE: paired bootstrap over test instances)")
        )
        rows.append(
            finding(cid, cat.loc[cid, "claim"], cat.loc[cid, "section"], c["verdict"], c["margin"], c["se"], ev, link)
        )
    return rows
