"""Stage ``report``: :func:`write_report` stitches every stage's tables (Markdown) and figures (PNG) into
``results/report.md``, with the captions kept in ``workflow/report/<name>.rst``.
"""

from __future__ import annotations

import os
from pathlib import Path

from fmeasure.io import atomic_output

__all__ = ["write_report", "STAGE_TITLES"]

STAGE_TITLES = {
    "data": "Datasets (Table 1)",
    "theory": "Theory: worst-case regrets (Sections 2-4, Figure 1)",
    "simulations": "Simulations (Section 6, Figures 2-4)",
    "knn": "Instance-based learning (Tables 2 and 3)",
    "pcc": "Probabilistic classifier chains (Table 4, Figure 5)",
    "parametric": "Parametric plug-in models: BR, LFP, EFP (Table 5)",
    "voting": "The JRS 2012 voting ensemble (Table 7)",
    "trees": "F-measure decision trees and their bagging (Section 7.1.2, beyond the paper)",
    "structured": "All methods and RML, the F-measure structured SVM (Table 6)",
}

#: Tables longer than this are linked from the report, not printed in it.
MAX_INLINE_LINES = 80


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


def write_report(sections: dict, out_path, *, title: str, skipped=(), captions_dir=None,
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
