"""Stage ``report``: ``write_report`` writes ``results/report.md``, findings first.

Order: the findings table (one row per table, figure, theorem and claim of the paper, from
``results/findings/<stage>.csv`` and :func:`fmeasure.experiments.findings.collect`), the
corrections to the paper (generated from the theory tables), then one section per stage: its
tables (Markdown) and figures (PNG, with the caption registered for the figure's path), and an
analysis generated from this run's tables. Nothing in the report is pasted from documentation:
every number comes from a table of this run, the paper's numbers, or the config.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.experiments.config import override_lines
from fmeasure.experiments.registry import OWN_TARGET_STAGES, STAGES
from fmeasure.io import atomic_output

__all__ = [
    "write_report",
    "STAGE_TITLES",
    "NOT_IN_WORKFLOW",
    "render_caption",
    "MAX_INLINE_LINES",
]

#: The title of each stage's section (and of the scaling benchmark's, shown once it has run).
STAGE_TITLES = {
    "data": "Datasets (Table 1)",
    "theory": "Theory: worst-case regrets (Sections 3-4, Figure 1)",
    "simulations": "Simulations (Section 6, Figures 2-4)",
    "knn": "Instance-based learning (Tables 2 and 3)",
    "pcc": "Probabilistic classifier chains (Table 4, Figure 5)",
    "parametric": "Parametric plug-in models: BR, LFP, EFP (Table 5)",
    "structured": "All methods and RML, the F-measure structured SVM (Table 6)",
    "voting": "The JRS 2012 voting ensemble (Table 7)",
    "trees": "F-measure decision trees and their bagging (Section 7.1.2, beyond the paper)",
    "ablations": "Ablations: alternative readings of the paper",
    "foptimal": "F-optimal predictions from scikit-learn models (FOptimalClassifier, beyond the paper)",
    "scaling": "How the learners' cost grows with n and m (beyond the paper)",
    "peers": "Public F-maximizers beside ours (beyond the paper)",
}

#: Why a stage of the paper may be absent from the findings (stage -> reason) when it has no rule file.
NOT_IN_WORKFLOW = "stage not part of this workflow"

#: Tables longer than this are linked from the report, not printed in it.
MAX_INLINE_LINES = 80


def anchor(stage: str) -> str:
    """The link of a stage's section in the report."""
    return f"#sec-{stage}"


# --------------------------------------------------------------------------------------------------
# captions


def render_caption(path, config: dict | None = None) -> str:
    """A caption file (``.rst``) as one line, its Jinja placeholders (``{{ snakemake.config[...] }}``,
    as in Snakemake's HTML report) filled from ``config``."""
    text = Path(path).read_text()
    if "{{" in text or "{%" in text:
        from types import SimpleNamespace

        import jinja2

        text = jinja2.Template(text).render(snakemake=SimpleNamespace(config=config or {}))
    return " ".join(text.split())


# --------------------------------------------------------------------------------------------------
# deviations from the paper and generated analyses


def _findings_sentences(findings: pd.DataFrame, stage: str) -> list[str]:
    sub = findings[findings.stage == stage]
    if not len(sub):
        return []
    counts = sub.verdict.map(lambda v: "not run" if str(v).startswith("not run") else v).value_counts()
    parts = [f"{n} {v}" for v, n in counts.items()]
    lines = ["", f"Claims of this section: {', '.join(parts)} (see the [findings](#sec-findings)).", ""]
    bad = sub[sub.verdict.isin(["contradicted", "not confirmed"])]
    for r in bad.itertuples(index=False):
        ev = f"margin {r.margin:+.2f} ± {r.se:.2f}" if pd.notna(r.se) and pd.notna(r.margin) else r.evidence
        lines.append(f"- *{r.claim}*: {r.verdict} ({ev}).")
    return lines


def _analysis(stage: str, tables: Path, points: float) -> tuple[list[str], list[pd.DataFrame]]:
    """A stage's generated analysis sentences, and its cells more than ``points`` from the paper:
    the ``analysis(tables, points)`` of the stage's module, when it has one."""
    import importlib

    name = f"fmeasure.experiments.{stage}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the stage's module exists but fails to import
            raise
        return [], []
    if not hasattr(module, "analysis"):
        return [], []
    return module.analysis(tables, points)


# --------------------------------------------------------------------------------------------------
# data findings (Table 1, Mediamill): made here, from Table 1 and the list of skipped datasets


def data_findings(table1_csv, skipped) -> pd.DataFrame:
    from fmeasure.experiments.findings import finding, paper_claims

    cat = paper_claims().set_index("claim_id")
    rows = []
    link = anchor("data")
    if table1_csv and Path(table1_csv).exists():
        t = pd.read_csv(table1_csv)
        cols = [c for c in ("n_train", "n_test", "m", "d") if f"{c}_paper" in t]
        known = t.dropna(subset=[f"{c}_paper" for c in cols], how="all")
        if len(known):
            bad = [
                (r.dataset, c)
                for r in known.itertuples()
                for c in cols
                if pd.notna(getattr(r, f"{c}_paper")) and getattr(r, c) != getattr(r, f"{c}_paper")
            ]
            rows.append(
                finding(
                    "table1",
                    cat.loc["table1", "claim"],
                    cat.loc["table1", "section"],
                    "confirmed" if not bad else "contradicted",
                    float(len(bad)),
                    np.nan,
                    f"{len(bad)} of {len(known) * len(cols)} counts differ from the paper "
                    f"({', '.join(map(str, known.dataset))})",
                    link,
                )
            )
        else:
            rows.append(
                finding(
                    "table1",
                    cat.loc["table1", "claim"],
                    cat.loc["table1", "section"],
                    "not run (no dataset of the paper in this run)",
                    link=link,
                )
            )
        has_mm = t.dataset.astype(str).str.startswith("mediamill").any()
    else:
        has_mm = False
    why = [s for s in skipped if "mediamill" in str(s).lower()]
    if has_mm:
        rows.append(
            finding(
                "mediamill",
                cat.loc["mediamill", "claim"],
                cat.loc["mediamill", "section"],
                "confirmed",
                evidence="Mediamill is in this run's tables",
                link=link,
            )
        )
    else:
        reason = "files not available" if why else "not selected in config"
        rows.append(
            finding(
                "mediamill",
                cat.loc["mediamill", "claim"],
                cat.loc["mediamill", "section"],
                f"not run ({reason})",
                evidence="; ".join(map(str, why)),
                link=link,
            )
        )
    return pd.DataFrame(rows)


#: The paper's stages: every stage that checks claims of ``paper_numbers/claims.csv`` (the ablations
#: check none), but those run by their own target, which no run lacks by omission.
PAPER_STAGES = tuple(s for s in STAGES if s != "ablations" and s not in OWN_TARGET_STAGES)


def not_run_reasons(stages, rules_dir) -> dict:
    """Stage -> why it did not run, for the paper's stages missing from ``stages``."""
    out = {}
    for s in PAPER_STAGES:
        if s in stages:
            continue
        has_rules = (Path(rules_dir) / f"{s}.smk").exists()
        out[s] = "stage left out of `stages` in the config" if has_rules else NOT_IN_WORKFLOW
    return out


# --------------------------------------------------------------------------------------------------
# the report


def _num(x, fmt="{:+.2f}") -> str:
    return "" if pd.isna(x) else fmt.format(x)


def findings_markdown(f: pd.DataFrame) -> str:
    """The findings table (Markdown)."""
    lines = ["| claim (paper) | section | verdict | margin | SE | evidence |", "|---|---|---|---|---|---|"]
    for r in f.itertuples(index=False):
        link = r.link if isinstance(r.link, str) and r.link else ""
        claim = f"[{r.claim}]({link})" if link else r.claim
        verdict = f"**{r.verdict}**" if r.verdict in ("contradicted", "not confirmed") else r.verdict
        ev = str(r.evidence if isinstance(r.evidence, str) else "").replace("|", "/")
        lines.append(f"| {claim} | {r.section} | {verdict} | {_num(r.margin)} | {_num(r.se, '{:.2f}')} | {ev} |")
    return "\n".join(lines)


def _scaling_section(tables: Path, out_dir: Path, sections: dict) -> list[str]:
    """The scaling section, whenever ``snakemake scaling`` has written its table (it is not a stage
    of the default run, so it is found by its file)."""
    md = tables / "scaling.md"
    if "scaling" in sections or not md.exists():
        return []
    lines = ['<a id="sec-scaling"></a>', "", f"## {STAGE_TITLES['scaling']}", ""]
    text = md.read_text().rstrip()
    if text.count("\n") > MAX_INLINE_LINES:
        lines += [text.split("\n\n", 1)[0], "", f"(a long table: see [{md.name}]({os.path.relpath(md, out_dir)}))", ""]
    else:
        lines += [text, ""]
    figure = tables.parent / "figures" / "scaling.png"
    if figure.exists():
        lines += [
            f"![scaling]({os.path.relpath(figure, out_dir)})",
            "",
            "*Fit + predict seconds against n (left) and m (right), log-log; the legend gives each "
            "learner's fitted exponent.*",
            "",
        ]
    return lines + ["Method and choices: `docs/scaling.md`.", ""]


def write_report(
    sections: dict,
    out_path,
    *,
    title: str,
    skipped=(),
    captions: dict | None = None,
    findings=(),
    not_run: dict | None = None,
    config: dict | None = None,
    theory_tables: dict | None = None,
    tables_dir=None,
    findings_csv=None,
    deviations_csv=None,
) -> pd.DataFrame:
    """Write ``results/report.md``: findings, corrections, then one section per stage.

    Parameters
    ----------
    sections : dict
        Stage name -> list of output paths (``.md`` tables are inlined, ``.png`` figures shown with
        their caption; other files are listed).
    out_path : path
        The report; links are made relative to it.
    skipped : list of str
        Messages about datasets left out of this run.
    captions : dict, optional
        Output path -> caption file (``.rst``; Jinja placeholders filled from ``config``).
    findings : list of paths
        ``results/findings/<stage>.csv`` files.
    not_run : dict, optional
        Stage of the paper -> why it did not run (for the claims of stages without findings).
    theory_tables : dict, optional
        Theory tables (``lp``, ``hamming``, ...) for the corrections; none: no corrections section.
    tables_dir : path, optional
        ``results/tables`` (for the generated analyses); default: next to the report.
    findings_csv : path, optional
        Where to write the collected findings table (CSV) too.
    deviations_csv : path, optional
        Where to write the cells more than ``report.deviation_points`` from the paper (``table, dataset, method, l,
        measure, ours, paper, diff``) that the analyses cite.

    Returns
    -------
    DataFrame
        The collected findings.
    """
    from fmeasure.experiments import findings as F

    out_dir = Path(out_path).parent
    tables = Path(tables_dir) if tables_dir else out_dir / "tables"
    deviation_frames = []  # the analyses' cells far from the paper, for deviations_csv
    captions = {str(k): v for k, v in (captions or {}).items()}
    extra = [data_findings(tables / "table1.csv", skipped)] if "data" in sections else []
    collected = F.collect(list(findings) + extra, not_run, link_of=anchor)
    if findings_csv:
        with atomic_output(findings_csv) as tmp:
            collected.to_csv(tmp, index=False)

    lines = [f"# {title}", ""]
    lines += [
        "Every number below was computed by this run of the pipeline, or is the paper's (shown beside "
        "ours, marked as the paper's). Methods and choices: `docs/`.",
        "",
    ]
    if skipped:
        lines += ["**Datasets left out of this run:**", ""] + [f"- {m}" for m in skipped] + [""]
    changed = override_lines(config or {}, (config or {}).get("datasets"))
    if changed:
        lines += (
            [
                "**Datasets run under a protocol of their own** (`dataset_overrides` in the configuration; "
                "these keys replace the stage's value for that dataset's jobs, and its table rows come from them):",
                "",
            ]
            + [f"- {c}" for c in changed]
            + [""]
        )
    counts = collected.verdict.map(lambda v: "not run" if str(v).startswith("not run") else v).value_counts()
    lines += ['<a id="sec-findings"></a>', "", "## Findings", ""]
    lines += [
        "One row per table, figure, theorem and qualitative claim of the paper (Sections 3-7): "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + ".",
        "",
    ]
    z = float(((config or {}).get("report") or {}).get("z", F.Z))
    points = float(((config or {}).get("report") or {}).get("deviation_points", F.DEVIATION_POINTS))
    lines += [F.sign_convention(z), "", findings_markdown(collected), ""]
    if theory_tables and all(Path(p).exists() for p in theory_tables.values()):
        from fmeasure.experiments.theory import corrections

        lines += ['<a id="sec-corrections"></a>', "", "## Corrections to the paper", ""]
        for para in corrections(theory_tables):
            lines += [para, ""]
    for stage, paths in sections.items():
        if not paths:
            continue
        lines += [f'<a id="sec-{stage}"></a>', "", f"## {STAGE_TITLES.get(stage, stage)}", ""]
        others = []
        for p in paths:
            p = Path(p)
            if p.suffix == ".md":
                text = p.read_text().rstrip()
                if text.count("\n") > MAX_INLINE_LINES:  # long tables: caption and a link
                    head = text.split("\n\n", 1)[0]
                    rel = os.path.relpath(p, out_dir)
                    lines += [head, "", f"(a long table: see [{p.name}]({rel}))", ""]
                else:
                    lines += [text, ""]
            elif p.suffix == ".png":
                rel = os.path.relpath(p, out_dir)
                key = next(
                    (
                        k
                        for k in captions
                        if Path(k).as_posix() == p.as_posix() or p.as_posix().endswith("/" + Path(k).as_posix())
                    ),
                    None,
                )
                if key is None:
                    raise ValueError(f"captions: no caption registered for figure {p}")
                lines += [f"![{p.stem}]({rel})", "", f"*{render_caption(captions[key], config)}*", ""]
            elif p.suffix not in (".csv", ".pdf", ".gz") and p.parent.name != "findings":
                others.append(p)
        if others:
            lines += ["Other outputs: " + ", ".join(f"`{o}`" for o in others), ""]
        analysis, dev = _analysis(stage, tables, points)
        deviation_frames += dev
        analysis += _findings_sentences(collected, stage)
        if analysis:
            lines += ["### Analysis (generated from this run's tables)", ""] + analysis + [""]
        doc = f"docs/{stage}.md"
        lines += [f"Method and choices: `{doc}`.", ""]
    lines += _scaling_section(tables, out_dir, sections)
    not_here = collected[collected.verdict.str.startswith("not run")].stage.unique()
    missing = [s for s in not_here if s not in sections]
    if missing:
        lines += ['<a id="sec-not-run"></a>', "", "## Not run", ""]
        for s in missing:
            lines += [f"- {STAGE_TITLES.get(s, s)}: {(not_run or {}).get(s, 'no findings written')}."]
        lines += [""]
    if deviations_csv:
        dev = deviation_frames
        cols = ["table", "dataset", "method", "l", "measure", "ours", "paper", "diff"]
        dev = pd.concat(dev, ignore_index=True).reindex(columns=cols) if dev else pd.DataFrame(columns=cols)
        with atomic_output(deviations_csv) as tmp:
            dev.to_csv(tmp, index=False)
    with atomic_output(out_path) as tmp:
        tmp.write_text("\n".join(lines) + "\n")
    return collected
