"""Checks the tests make on a generated report: every number in its prose comes from this run,
and the Markdown renders as a standalone HTML page for the browser test."""

import re
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.io import atomic_output

# --------------------------------------------------------------------------------------------------
# HTML rendering of the Markdown report (for reading it in a browser; the figures stay files)

_CSS = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;line-height:1.4}
table{border-collapse:collapse;font-size:0.85em;margin:1em 0}td,th{border:1px solid #bbb;padding:2px 6px}
th{background:#eee}img{max-width:100%}"""


def markdown_to_html(md_path, html_path, *, extra_head: str = "") -> Path:
    """Render ``results/report.md`` as a standalone HTML page next to it (relative image links kept)."""
    import markdown

    text = Path(md_path).read_text()
    body = markdown.markdown(text, extensions=["tables"])
    title = text.splitlines()[0].lstrip("# ") if text else "report"
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{_CSS}</style>{extra_head}</head><body>{body}</body></html>"
    )
    with atomic_output(html_path) as tmp:
        tmp.write_text(page)
    return Path(html_path)


# --------------------------------------------------------------------------------------------------
# stale numbers: every number in the prose must come from this run's tables, the paper or the config

_NUM = re.compile(r"(?<![\w.])[-+]?\d+\.\d+(?![\w.])|(?<![\w.,])\d{3,}(?![\w.,])")


def prose_numbers(markdown: str) -> list[str]:
    """Decimal numbers and integers >= 100 in the prose of a Markdown report (table rows, image
    links and HTML anchors left out)."""
    out = []
    for line in markdown.splitlines():
        s = line.strip()
        if s.startswith("|") or s.startswith("![") or s.startswith("<a "):
            continue
        s = re.sub(r"\]\([^)]*\)", "]", s)  # link targets
        s = re.sub(r"`[^`]*`", "", s)  # file names and code
        out += [m.group(0).lstrip("+-") for m in _NUM.finditer(s)]
    return out


def _values_of_csv(path) -> list[float]:
    try:
        df = pd.read_csv(path, comment="#")
    except Exception:  # noqa: BLE001 - unreadable files simply contribute nothing
        return []
    vals = []
    for c in df.columns:
        col = pd.to_numeric(df[c], errors="coerce").dropna()
        vals += col.astype(float).tolist()
        if not pd.api.types.is_numeric_dtype(df[c]):  # numbers inside text cells (evidence strings)
            for cell in df[c].dropna().astype(str):
                vals += [float(x) for x in re.findall(r"[-+]?\d+\.?\d*(?:e[-+]?\d+)?", cell)]
    return vals


def _config_values(obj) -> list[float]:
    if isinstance(obj, dict):
        return [v for x in obj.values() for v in _config_values(x)]
    if isinstance(obj, (list, tuple)):
        return [v for x in obj for v in _config_values(x)]
    if isinstance(obj, bool):
        return []
    if isinstance(obj, (int, float)):
        return [float(obj)]
    if isinstance(obj, str):
        return [float(x) for x in re.findall(r"\d+\.?\d*", obj)]
    return []


def stale_numbers(report_md, csv_paths, *, config: dict | None = None) -> list[str]:
    """Numbers of the report's prose found in none of ``csv_paths`` (this run's tables and
    findings, the paper's numbers) nor in ``config``, at the precision they are printed with."""
    from importlib import resources

    text = Path(report_md).read_text()
    vals = [v for p in csv_paths for v in _values_of_csv(p)]
    pn = resources.files("fmeasure.paper_numbers")
    vals += [v for f in pn.iterdir() if f.name.endswith(".csv") for v in _values_of_csv(f)]
    vals += _config_values(config or {})
    vals = np.unique(np.abs(np.asarray(vals, dtype=float)))
    bad = []
    for tok in prose_numbers(text):
        x = float(tok)
        d = len(tok.split(".")[1]) if "." in tok else 0
        half = 0.5 * 10.0 ** (-d) + 1e-9
        lo, hi = np.searchsorted(vals, [x - half, x + half])
        if hi <= lo:
            bad.append(tok)
    return bad
