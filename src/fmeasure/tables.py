"""Tables: tidy CSV for machines, Markdown for people, the paper's numbers beside ours.

Every table of the pipeline is written with :func:`write_table` (CSV + rendered Markdown,
atomically). :func:`best_mask` marks the best value per column (bold in the paper's tables),
:func:`paper_numbers` reads the values transcribed from the paper (``paper_numbers/<name>.csv``
inside the package) and :func:`beside_paper` joins them to ours with the difference.
:func:`untimed` leaves out the columns of measured times, which differ between any two runs.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .io import atomic_output

__all__ = ["write_table", "best_mask", "paper_numbers", "beside_paper", "to_markdown", "untimed"]


def best_mask(df: pd.DataFrame, directions: dict, by=None, atol: float = 1e-12) -> pd.DataFrame:
    """Boolean frame, True where a value is the best of its column (ties all marked).

    Parameters
    ----------
    df : DataFrame
    directions : dict
        Column -> ``"min"`` or ``"max"``. Other columns are all False.
    by : str or list, optional
        Compare only within groups of these columns (e.g. per dataset and l).

    Examples
    --------
    >>> df = pd.DataFrame({"m": ["A", "B"], "loss": [1.0, 2.0], "f": [0.5, 0.7]})
    >>> best_mask(df, {"loss": "min", "f": "max"}).values.tolist()
    [[False, True, False], [False, False, True]]
    """
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    for col, how in directions.items():
        if how not in ("min", "max"):
            raise ValueError(f"best_mask: direction of {col!r} must be 'min' or 'max', got {how!r}")
        if col not in df.columns:
            raise ValueError(f"best_mask: no column {col!r} in {list(df.columns)}")
        values = pd.to_numeric(df[col], errors="coerce")
        if by is None:
            best = values.min() if how == "min" else values.max()
        else:
            best = values.groupby([df[b] for b in np.atleast_1d(by)]).transform(how)
        mask[col] = np.isclose(values, best, rtol=0, atol=atol) & values.notna()
    return mask


def to_markdown(df: pd.DataFrame, bold: pd.DataFrame | None = None, float_format: str = "{:.2f}") -> str:
    """Render ``df`` as a Markdown table, bolding the cells where ``bold`` is True."""

    def fmt(value):
        if isinstance(value, (float, np.floating)):
            return "" if np.isnan(value) else float_format.format(value)
        return str(value)

    cells = df.map(fmt)
    if bold is not None:
        cells = cells.where(~bold.reindex_like(df).fillna(False).astype(bool), "**" + cells + "**")
    header = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    rows = ["| " + " | ".join(r) + " |" for r in cells.astype(str).values.tolist()]
    return "\n".join([header, rule, *rows]) + "\n"


def write_table(
    df: pd.DataFrame,
    csv_path,
    md_path=None,
    *,
    caption: str | None = None,
    bold: pd.DataFrame | None = None,
    float_format: str = "{:.2f}",
    md_df: pd.DataFrame | None = None,
) -> None:
    """Write ``df`` as tidy CSV and (optionally) as Markdown with a caption and bold cells.

    ``md_df`` lets the Markdown show a reshaped (paper-like) layout of the same numbers while
    the CSV stays tidy; ``bold`` then refers to ``md_df``.
    """
    with atomic_output(csv_path) as tmp:
        df.to_csv(tmp, index=False)
    if md_path is not None:
        text = (f"{caption.strip()}\n\n" if caption else "") + to_markdown(
            df if md_df is None else md_df, bold=bold, float_format=float_format
        )
        with atomic_output(md_path) as tmp:
            Path(tmp).write_text(text)


def paper_numbers(name: str) -> pd.DataFrame:
    """The numbers the paper reports for table/figure ``name`` (a CSV shipped in the package)."""
    ref = resources.files("fmeasure") / "paper_numbers" / f"{name}.csv"
    if not ref.is_file():
        raise ValueError(f"paper_numbers: no transcription named {name!r} (looked for {ref})")
    with resources.as_file(ref) as path:
        return pd.read_csv(path)


def beside_paper(ours: pd.DataFrame, paper: pd.DataFrame, on: list, values: list) -> pd.DataFrame:
    """Join the paper's values to ours on the key columns ``on``.

    For each column ``v`` in ``values`` the result has ``v`` (ours), ``v_paper`` and ``v_diff``
    (ours - paper). Rows of ours without a paper value keep NaN there.

    Examples
    --------
    >>> ours = pd.DataFrame({"d": ["a"], "f": [60.0]})
    >>> beside_paper(ours, pd.DataFrame({"d": ["a"], "f": [58.5]}), ["d"], ["f"]).f_diff.tolist()
    [1.5]
    """
    missing = [c for c in [*on, *values] if c not in paper.columns]
    if missing:
        raise ValueError(f"beside_paper: paper table lacks columns {missing}")
    merged = ours.merge(paper[[*on, *values]], on=on, how="left", suffixes=("", "_paper"))
    for v in values:
        merged[f"{v}_diff"] = merged[v] - merged[f"{v}_paper"]
    order = [*[c for c in ours.columns if c not in values]]
    for v in values:
        order += [v, f"{v}_paper", f"{v}_diff"]
    return merged[order]


def untimed(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` without its columns of measured times: a name holding "time" or "second", or ending
    in "_s" (any case). Two runs of one config agree on every other column.

    Examples
    --------
    >>> untimed(pd.DataFrame(columns=["f", "fit_s", "train_time_s", "Seconds", "se"])).columns.tolist()
    ['f', 'se']
    """
    keep = [
        c for c in df.columns if not any(t in c.lower() for t in ("time", "second")) and not c.lower().endswith("_s")
    ]
    return df[keep]
