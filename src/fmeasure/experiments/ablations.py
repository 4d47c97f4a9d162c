"""Ablations: every cell of Tables 4 and 5 far from the paper, rerun under alternative readings.

A *deviation* is a cell (table, dataset, method, measure) of this run's Table 4 (PCC) or Table 5
(BR, LFP, EFP) whose value differs from the paper's by more than a threshold (config:
``report.deviation_points``, in points of the measure). A *setting* is an alternative reading of the
paper, given in config as ``(stage, datasets, methods, overrides)``: the stage's own run function
(:func:`fmeasure.experiments.pcc.run_table4_rows`, :func:`fmeasure.experiments.parametric.run_learner`)
is rerun with the stage's config block updated by ``overrides``. The verbs:

* :func:`setting_config` -- the stage config of a setting (validated overrides merged in);
* :func:`needs_refit` -- whether a PCC setting must refit the chain or can reuse the stage's;
* :func:`run_setting` -- one (setting, dataset): the stage's rows under the setting;
* :func:`find_deviations` -- the deviating cells of a table (computed, never listed by hand);
* :func:`run_ablations` -- one row per deviation: paper, default, every applicable setting, the
  closest reading and whether it lands within the threshold;
* :func:`write_ablations` -- the table (CSV + Markdown), one generated sentence per deviation,
  and the findings file (one verdict per deviation).

Example
-------
>>> import pandas as pd
>>> t = pd.DataFrame({"dataset": ["scene"], "method": ["LFP"], "f": [66.9], "f_paper": [74.38],
...                   "hamming": [12.0], "hamming_paper": [12.18]})
>>> find_deviations(t, "table5", threshold=2.0)[["measure", "diff"]].round(2).values.tolist()
[['f', -7.48]]
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.experiments.config import needs_refit, setting_config, setting_datasets
from fmeasure.experiments.findings import far_from_paper
from fmeasure.experiments.registry import STAGE_TABLES
from fmeasure.io import atomic_output
from fmeasure.metrics import MEASURE_TITLES, MEASURES
from fmeasure.tables import write_table

__all__ = [
    "STAGE_TABLES",
    "setting_config",
    "needs_refit",
    "setting_datasets",
    "run_setting",
    "find_deviations",
    "run_ablations",
    "write_ablations",
    "FINDINGS_COLUMNS",
]

log = logging.getLogger(__name__)

#: Columns of the findings file.
FINDINGS_COLUMNS = ["claim_id", "claim", "section", "verdict", "margin", "se", "evidence", "link"]
_SECTIONS = {"table4": "Section 7.2, Table 4 (PCC)", "table5": "Section 7.2, Table 5 (BR, LFP, EFP)"}


def run_setting(
    name: str,
    spec: dict,
    cfg: dict,
    dataset_path,
    *,
    jaccard_empty: float,
    model_path=None,
    info_path=None,
    n_jobs: int | None = None,
    br_fit=None,
) -> pd.DataFrame:
    """Rows of the stage's table for one dataset under setting ``name`` (``cfg`` from :func:`setting_config`).

    PCC: the chain is refitted with ``cfg`` (:func:`fmeasure.experiments.pcc.write_model`) unless
    ``model_path``/``info_path`` give the stage's own chain to reuse; then
    :func:`fmeasure.experiments.pcc.run_table4_rows`, its inference run once (the ablations compare
    no times; a setting may still set ``table4.timing_best_of``). Parametric: each learner of ``spec["methods"]``
    (default: ``cfg["learners"]``) through :func:`fmeasure.experiments.parametric.run_learner`. LFP
    fits the same label models as BR: it predicts from the BR this setting fits when it fits one
    (BR runs first), else from ``br_fit``, the paths ``(model, record)`` of the stage's own BR, when
    that BR was fitted with the setting's settings (``run_learner`` checks; a setting that changes
    only LFP's inference, such as ``lfp_allow_empty``, fits nothing). The predictions are those of
    LFP's own fit. Returned rows carry the column ``setting``.
    """
    from fmeasure import datasets

    stage = spec["stage"]
    if stage == "pcc":
        from fmeasure.experiments import pcc

        if "timing_best_of" not in ((spec.get("overrides") or {}).get("table4") or {}):
            # the ablations compare measures, never times: the inference runs once (its repeats for
            # Table 4's times draw the same samples, so they would give the same rows)
            cfg = {**cfg, "table4": {**cfg["table4"], "timing_best_of": 1}}
        if model_path is None:
            with tempfile.TemporaryDirectory(prefix=f"ablation_{name}_") as tmp:
                model, info = Path(tmp) / "chain.pkl", Path(tmp) / "fit.json"
                pcc.write_model(dataset_path, cfg, model, info, n_jobs=n_jobs)
                rows = pcc.run_table4_rows(model, dataset_path, info, cfg, jaccard_empty)
        else:
            rows = pcc.run_table4_rows(model_path, dataset_path, info_path, cfg, jaccard_empty)
    elif stage == "parametric":
        from fmeasure.experiments import parametric

        ds = datasets.load(dataset_path)
        methods = list(spec.get("methods") or cfg["learners"])
        recs = {}
        with tempfile.TemporaryDirectory(prefix=f"ablation_{name}_") as tmp:
            for m in sorted(methods, key=lambda learner: learner != "BR"):  # BR first, for LFP
                if m == "BR" and "LFP" in methods:
                    br_fit = Path(tmp) / "BR.pkl", Path(tmp) / "BR.json"
                    recs[m] = parametric.run_learner(ds, m, cfg, n_jobs=n_jobs, model_path=br_fit[0])
                    br_fit[1].write_text(json.dumps(recs[m]))
                else:
                    recs[m] = parametric.run_learner(ds, m, cfg, n_jobs=n_jobs, br_fit=br_fit if m == "LFP" else None)
        rows = pd.DataFrame([recs[m] for m in methods])
    else:
        raise ValueError(f"ablations.settings.{name}.stage must be one of {sorted(STAGE_TABLES)}, got {stage!r}")
    rows.insert(0, "setting", name)
    return rows


def _measures(table: pd.DataFrame) -> list[str]:
    return [m for m in MEASURES if m in table.columns and f"{m}_paper" in table.columns]


def find_deviations(table: pd.DataFrame, name: str, threshold: float) -> pd.DataFrame:
    """Cells of ``table`` (columns ``<measure>`` and ``<measure>_paper``) more than ``threshold`` off.

    Returns a frame with columns ``table, dataset, method, measure, paper, default, diff``
    (``diff = default - paper``, in points), in the table's row order, measures in
    :data:`fmeasure.metrics.MEASURES` order. Cells without a paper value are skipped.
    """
    d = far_from_paper(table, _measures(table), ["dataset", "method"], threshold)
    d = d.rename(columns={"ours": "default"}).assign(table=name)
    return d[["table", "dataset", "method", "measure", "paper", "default", "diff"]]


def _se_of(rows: pd.DataFrame, measure: str) -> float:
    col = f"{measure}_se"
    if col not in rows.columns or rows.empty:
        return float("nan")
    return float(rows[col].iloc[0])


def _breaks(table: pd.DataFrame, hit: pd.DataFrame, dataset, method, threshold: float) -> list[str]:
    """Measures of the row (dataset, method) that the default keeps within ``threshold`` of the
    paper and the setting's values ``hit`` move beyond it."""
    row = table[(table.dataset == dataset) & (table.method == method)]
    out = []
    if row.empty:
        return out
    for m in _measures(table):
        if m not in hit.columns:
            continue
        paper, ours, new = float(row[f"{m}_paper"].iloc[0]), float(row[m].iloc[0]), float(hit[m].iloc[0])
        if np.isfinite(paper) and abs(ours - paper) <= threshold < abs(new - paper):
            out.append(m)
    return out


def run_ablations(tables: dict, setting_rows, settings: dict, threshold: float) -> pd.DataFrame:
    """One row per deviating cell: the paper, our default, every applicable setting, the closest reading.

    Parameters
    ----------
    tables : dict
        Table name (``"table4"``, ``"table5"``) -> that table of this run (ours beside the paper).
    setting_rows : iterable of DataFrame
        Outputs of :func:`run_setting` (column ``setting`` plus the stage's columns).
    settings : dict
        ``ablations.settings`` of the config (name -> spec with ``stage``, ``reading``, ...).
    threshold : float
        Points of the measure beyond which a cell is a deviation, and within which a reading
        reproduces the paper.

    Returns
    -------
    DataFrame
        ``table, dataset, method, measure, paper, default, diff``, one column per setting (its
        value, NaN where it does not apply); ``closest`` (setting name or ``"default"``),
        ``closest_value``, ``closest_diff``, ``within`` (the closest lands within the threshold),
        ``closest_breaks`` (measures of the same row that the closest reading moves beyond the
        threshold while the default keeps them within it); ``explained_by``: the closest reading
        that lands within the threshold *and* breaks no other measure of the row ("" if none),
        ``explained`` (bool); ``se`` (standard error over test instances of the closest reading's
        value where known) and ``tried`` (settings applied, space-separated).
    """
    devs = [find_deviations(t, name, threshold) for name, t in tables.items()]
    devs = pd.concat(devs, ignore_index=True) if devs else find_deviations(pd.DataFrame(), "", threshold)
    rows = [r for r in setting_rows if len(r)]
    results = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["setting", "dataset", "method"])
    names = list(settings)
    out = devs.copy()
    for s in names:
        out[s] = np.nan
    cols = {k: [] for k in ("closest", "closest_value", "closest_breaks", "explained_by", "se", "tried")}
    for i, d in devs.iterrows():
        best, best_val, best_se, best_breaks = "default", d["default"], np.nan, []
        clean, clean_dist = "", np.inf
        applied, cell_ses = [], []
        for s in names:
            spec = settings[s]
            if STAGE_TABLES.get(spec["stage"]) != d["table"]:
                continue
            if spec.get("methods") and d["method"] not in spec["methods"]:
                continue
            hit = results[(results.setting == s) & (results.dataset == d["dataset"]) & (results.method == d["method"])]
            if hit.empty or d["measure"] not in hit.columns:
                continue
            v = float(hit[d["measure"]].iloc[0])
            out.loc[i, s] = v
            applied.append(s)
            se = _se_of(hit, d["measure"])
            cell_ses.append(se)
            dist = abs(v - d["paper"])
            breaks = _breaks(tables[d["table"]], hit, d["dataset"], d["method"], threshold)
            if dist < abs(best_val - d["paper"]) - 1e-12:
                best, best_val, best_se, best_breaks = s, v, se, breaks
            if dist <= threshold and not breaks and dist < clean_dist:
                clean, clean_dist = s, dist
        if best == "default" and cell_ses:
            best_se = float(np.nanmean(cell_ses)) if np.isfinite(cell_ses).any() else np.nan
        for k, v in zip(cols, (best, best_val, " ".join(best_breaks), clean, best_se, " ".join(applied))):
            cols[k].append(v)
    out["closest"] = cols["closest"]
    out["closest_value"] = pd.Series(cols["closest_value"], index=out.index, dtype=float)
    out["closest_diff"] = out["closest_value"] - out["paper"]
    out["within"] = out["closest_diff"].abs() <= threshold
    out["closest_breaks"] = cols["closest_breaks"]
    out["explained_by"] = cols["explained_by"]
    out["explained"] = out["explained_by"] != ""
    out["se"] = pd.Series(cols["se"], index=out.index, dtype=float)
    out["tried"] = cols["tried"]
    return out


def _fmt(x: float) -> str:
    return f"{x:.2f}"


def _cell_name(r) -> str:
    return (
        f"{'Table 4' if r['table'] == 'table4' else 'Table 5'}, {r['dataset']}, {r['method']}, "
        f"{MEASURE_TITLES[r['measure']]}"
    )


def summary_sentence(r, settings: dict, threshold: float) -> str:
    """The generated sentence for one deviation row of :func:`run_ablations`."""
    head = (
        f"**{_cell_name(r)}**: the paper has {_fmt(r['paper'])}, our default {_fmt(r['default'])} ({r['diff']:+.2f})."
    )
    tried = [s for s in str(r["tried"]).split() if s]
    if not tried:
        return head + " No configured reading applies to this cell; it stays unexplained."
    if r["closest"] == "default":
        names = ", ".join(f"{settings[s]['reading']} ({_fmt(r[s])})" for s in tried)
        return (
            head + f" No reading tried comes closer to the paper than our default ({names}); "
            "the deviation stays unexplained by these readings."
        )
    s = r["closest"]
    spec = settings[s]
    text = head + f" The closest reading is {spec['reading']} ({_fmt(r['closest_value'])}, {r['closest_diff']:+.2f})"
    breaks = [MEASURE_TITLES[m] for m in str(r["closest_breaks"]).split() if m in MEASURE_TITLES]
    if not r["within"]:
        text += f", still more than {threshold:g} points from the paper."
    elif not breaks:
        text += f", within {threshold:g} points: this reading reproduces the paper."
    else:
        text += (
            f", within {threshold:g} points, but it moves {', '.join(breaks)} of the same row more than "
            f"{threshold:g} points away from the paper."
        )
    e = r["explained_by"]
    if e and e != s:
        text += (
            f" {settings[e]['reading']} ({_fmt(r[e])}, {r[e] - r['paper']:+.2f}) reproduces the cell "
            "without moving the rest of the row away."
        )
    others = [o for o in tried if o not in (s, e) and pd.notna(r[o]) and abs(r[o] - r["paper"]) <= threshold]
    if others:
        text += (
            f" Also within {threshold:g} points: "
            + ", ".join(f"{settings[o]['reading']} ({_fmt(r[o])}, {r[o] - r['paper']:+.2f})" for o in others)
            + "."
        )
    keep = e or s
    return text + f" We keep the default ({settings[keep]['default']}) because {settings[keep]['default_because']}"


def write_ablations(
    table: pd.DataFrame, settings: dict, threshold: float, csv_path, md_path, summary_path, findings_path
) -> pd.DataFrame:
    """Write the ablation table, its one-sentence-per-deviation summary and the findings file.

    Returns the findings frame (columns :data:`FINDINGS_COLUMNS`). Verdicts: ``explained`` when
    some reading lands within ``threshold`` points of the paper without moving another measure of
    the same row beyond it, ``not explained`` otherwise.
    ``margin`` is the explaining reading's value (else the closest reading's) minus the paper's
    (points; the sign says which side of the paper it lies), ``se`` the closest reading's standard
    error over the test instances.
    """
    names = list(settings)
    caption = (
        f"**Ablations.** Every cell of Tables 4 and 5 more than {threshold:g} points from the paper, "
        "with the paper's value, our default's (this run's table) and the value under each "
        "configured alternative reading (empty: the reading does not apply to that cell). "
        "Closest: the reading nearest to the paper; within: whether it lands within "
        f"{threshold:g} points; breaks: measures of the same row it moves beyond {threshold:g} points "
        "while the default keeps them within; explained by: the nearest reading within the threshold "
        "that breaks nothing. Readings: " + "; ".join(f"`{s}` = {settings[s]['reading']}" for s in names) + "."
    )
    shown = pd.DataFrame(
        {
            "Table": table["table"].map({"table4": "4", "table5": "5"}),
            "Dataset": table["dataset"],
            "Method": table["method"],
            "Measure": table["measure"].map(MEASURE_TITLES),
            "Paper": table["paper"].map(_fmt),
            "Default": table["default"].map(_fmt),
        }
    )
    for s in names:
        shown[s] = [("" if pd.isna(v) else _fmt(v)) for v in table[s]]
    shown["Closest"] = table["closest"]
    shown["Within"] = table["within"].map({True: "yes", False: "no"})
    shown["Breaks"] = table["closest_breaks"].map(lambda b: ", ".join(str(b).split()))
    shown["Explained by"] = table["explained_by"]
    csv_cols = [c for c in table.columns if c != "tried"]
    write_table(table[csv_cols], csv_path, md_path, caption=caption, md_df=shown)
    lines = ["# Ablations: which reading reproduces the paper", ""]
    if table.empty:
        lines.append(f"No cell of Tables 4 and 5 is more than {threshold:g} points from the paper.")
    lines += [f"- {summary_sentence(r, settings, threshold)}" for _, r in table.iterrows()]
    with atomic_output(summary_path) as tmp:
        Path(tmp).write_text("\n".join(lines) + "\n")
    findings = pd.DataFrame(
        [
            {
                "claim_id": f"ablation-{r['table']}-{r['dataset']}-{r['method']}-{r['measure']}".lower(),
                "claim": f"{_cell_name(r)} ({_fmt(r['paper'])} in the paper) is reproduced by some reading",
                "section": _SECTIONS[r["table"]],
                "verdict": "explained" if r["explained"] else "not explained",
                "margin": round(
                    float((r[r["explained_by"]] if r["explained"] else r["closest_value"]) - r["paper"]), 4
                ),
                "se": round(float(r["se"]), 4) if np.isfinite(r["se"]) else np.nan,
                "evidence": f"default {_fmt(r['default'])} ({r['diff']:+.2f}); closest {r['closest']} "
                f"{_fmt(r['closest_value'])} ({r['closest_diff']:+.2f})"
                + (
                    f", moving {' '.join(str(r['closest_breaks']).split())} beyond {threshold:g}"
                    if str(r["closest_breaks"]).strip()
                    else ""
                )
                + (f"; explained by {r['explained_by']}" if r["explained"] else ""),
                "link": "#ablations",
            }
            for _, r in table.iterrows()
        ],
        columns=FINDINGS_COLUMNS,
    )
    with atomic_output(findings_path) as tmp:
        findings.to_csv(tmp, index=False)
    return findings
