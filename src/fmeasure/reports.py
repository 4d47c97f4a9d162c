"""Pipeline outputs that are not a learner's: Table 1 and the assembled report.

:func:`table1` computes the paper's Table 1 (and more: label cardinality, density, distinct label
sets) from the parsed data, beside the paper's counts, and refuses counts that differ from the
catalog. :func:`assemble_report` stitches every stage's tables (Markdown) and figures (PNG) into
``results/report.md``, with the captions kept in ``workflow/report/<name>.rst``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .datasets import DatasetError, summary
from .io import atomic_output
from .tables import beside_paper, paper_numbers, write_table

__all__ = ["table1", "assemble_report", "STAGE_TITLES"]

STAGE_TITLES = {
    "data": "Datasets (Table 1)",
    "theory": "Theory: worst-case regrets (Sections 2-4, Figure 1)",
    "simulations": "Simulations (Section 6, Figures 2-4)",
    "knn": "Instance-based learning (Tables 2 and 3)",
    "pcc": "Probabilistic classifier chains (Table 4, Figure 5)",
    "parametric": "Parametric plug-in models: BR, LFP, EFP (Table 5)",
    "structured": "All methods and RML, the F-measure structured SVM (Table 6)",
}

COUNTS = ["n_train", "n_test", "m", "d"]
#: Tables longer than this are linked from the report, not printed in it.
MAX_INLINE_LINES = 80


def table1(datasets, catalog: dict, csv_path, md_path) -> pd.DataFrame:
    """Write Table 1 for ``datasets`` (parsed :class:`~fmeasure.datasets.Dataset` objects).

    Raises :class:`~fmeasure.datasets.DatasetError` if a full (not subset) dataset's counts differ
    from its catalog entry.
    """
    rows = []
    for ds in datasets:
        row = summary(ds)
        entry = catalog.get(ds.name, {})
        if not entry.get("subset"):
            for key in COUNTS:
                expected = entry.get("expected", {}).get(key)
                if expected is not None and expected != row[key]:
                    raise DatasetError(
                        f"table1: dataset {ds.name!r} has {key}={row[key]} but the catalog expects {expected}"
                    )
        rows.append(row)
    ours = pd.DataFrame(rows)
    paper = paper_numbers("table1")
    table = beside_paper(ours, paper, ["dataset"], COUNTS)
    shown = table[["dataset", *COUNTS, "cardinality", "density", "distinct_label_sets"]].copy()
    shown.insert(len(shown.columns), "paper (#train/#test/m/d)", [
        "/".join(str(int(r[f"{k}_paper"])) for k in COUNTS) if pd.notna(r["n_train_paper"]) else "not in the paper"
        for _, r in table.iterrows()
    ])
    shown.insert(len(shown.columns), "matches paper", [
        "yes" if all(r[f"{k}_diff"] == 0 for k in COUNTS) else ("-" if pd.isna(r["n_train_paper"]) else "NO")
        for _, r in table.iterrows()
    ])
    caption = (
        "Table 1. Datasets: #train, #test, m labels, d features, computed from the parsed files, "
        "with label cardinality (mean labels per instance), density (cardinality / m) and the number "
        "of distinct label sets (train and test together), beside the paper's counts."
    )
    write_table(table, csv_path, md_path, caption=caption, md_df=shown, float_format="{:.3f}")
    return table


def _caption(captions_dir, stem: str) -> str:
    path = Path(captions_dir) / f"{stem}.rst" if captions_dir else None
    if path and path.is_file():
        return " ".join(path.read_text().split())
    return ""


def _stage_notes(notes, stage: str) -> list[str]:
    """The analysis written for a stage (``docs/<stage>.md``), headings moved one level down."""
    path = {Path(p).stem: Path(p) for p in notes}.get(stage)
    if path is None:
        return []
    lines = path.read_text().rstrip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]  # the section has its own title
    return ["#" + ln if ln.startswith("#") else ln for ln in lines] + [""]


def assemble_report(sections: dict, out_path, *, title: str, skipped=(), captions_dir=None,
                    notes=()) -> None:
    """Write a Markdown report: one section per stage, its tables inline and figures linked.

    Parameters
    ----------
    sections : dict
        Stage name -> list of output paths (``.md`` tables are inlined, ``.png`` figures shown
        with the caption from ``<captions_dir>/<stem>.rst``; other files are listed).
    out_path : path
        The report (``results/report.md``); figure links are made relative to it.
    skipped : list of str
        Messages about datasets left out of this run.
    notes : list of paths, optional
        Per-stage analyses named ``<stage>.md``, printed after each stage's outputs under
        "Analysis" (what the numbers mean, where they differ from the paper and why).
    """
    out_dir = Path(out_path).parent
    lines = [f"# {title}", ""]
    lines += ["Every number below was computed by this run of the pipeline; the paper's values are",
              "shown beside ours where the paper reports them.", ""]
    if skipped:
        lines += ["**Datasets left out of this run:**", ""] + [f"- {m}" for m in skipped] + [""]
    for stage, paths in sections.items():
        if not paths:
            continue
        lines += [f"## {STAGE_TITLES.get(stage, stage)}", ""]
        others = []
        for p in paths:
            p = Path(p)
            if p.suffix == ".md":
                text = p.read_text().rstrip()
                if text.count("\n") > MAX_INLINE_LINES:  # long tables: caption and a link
                    head = text.split("\n\n", 1)[0]
                    rel = os.path.relpath(p, out_dir)
                    lines += [head, "", f"({text.count(chr(10))} lines: see [{p.name}]({rel}))", ""]
                else:
                    lines += [text, ""]
            elif p.suffix == ".png":
                rel = os.path.relpath(p, out_dir)
                cap = _caption(captions_dir, p.stem)
                lines += [f"![{p.stem}]({rel})", ""] + ([f"*{cap}*", ""] if cap else [])
            elif p.suffix not in (".csv", ".pdf"):
                others.append(p)
        if others:
            lines += ["Other outputs: " + ", ".join(f"`{o}`" for o in others), ""]
        analysis = _stage_notes(notes, stage)
        if analysis:
            lines += ["### Analysis", ""] + analysis
    with atomic_output(out_path) as tmp:
        tmp.write_text("\n".join(lines) + "\n")
