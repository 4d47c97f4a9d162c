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

__all__ = [
    "write_table",
    "best_mask",
    "paper_numbers",
    "beside_paper",
    "to_markdown",
    "untimed",
    "table_cells",
    "run_cells",
    "moved_cells",
    "noted_cells",
    "describe_moved",
    "instance_tolerance",
    "with_instance_tolerance",
    "REFERENCE_KEYS",
    "REFERENCE_TOL",
    "REFERENCE_ROWS",
]


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


#: The tables of the paper's experiments whose every measured cell is held against a reference
#: file of verified values (``tools/compare_tables.py``, ``tests/data/reference_tables.csv``),
#: with the columns that name a row of each.
REFERENCE_KEYS = {
    "table2": ["dataset", "method", "l"],
    "table4": ["dataset", "method"],
    "table5": ["dataset", "method"],
    "table6": ["dataset", "section", "method", "setting"],
}

#: Rows of those tables that belong to the paper's experiments (Table 6 also lists models beyond
#: the paper when other stages ran): column -> the value it must hold.
REFERENCE_ROWS = {"table6": {"section": "paper"}}

#: Default tolerance of a reference cell, in the table's own units (points of % for the losses and
#: F-measures), where the cell's dataset has no test-set size: the tables print two decimals, and a
#: change below this is not a change of the table.
REFERENCE_TOL = 0.05


def instance_tolerance(n_test: int) -> float:
    """The tolerance of a reference cell on a test set of ``n_test`` instances: one instance's worth.

    Every measured cell of Tables 2, 4, 5 and 6 is a mean over the test instances (of runs of it, for
    Figure 5's curve) of a per-instance value in [0, 100] points, so one instance whose prediction
    changes moves it by at most ``100 / n_test`` points. The last digits of a fit can differ from one
    CPU to another (BLAS kernels round differently); the fits are run to their optimum so that this
    changes no prediction, and the tolerance allows, beyond that, one instance whose prediction sat on
    a tie. It still catches a real move: scene's 1,196 test instances give 0.084 points, yeast's 917
    0.109, enron's 1,702 0.059.

    Examples
    --------
    >>> round(instance_tolerance(1196), 4)
    0.0836
    """
    return 100.0 / int(n_test)


def with_instance_tolerance(cells: pd.DataFrame, n_test: dict) -> pd.DataFrame:
    """``cells`` (long form, :func:`table_cells`) with ``tol``: one test instance's worth of the row's
    dataset (:func:`instance_tolerance`; the dataset is the first key of every reference table), or
    :data:`REFERENCE_TOL` for a dataset missing from ``n_test`` (name -> number of test instances)."""
    dataset = cells["row"].str.split(" | ", regex=False).str[0]
    tol = dataset.map(lambda d: instance_tolerance(n_test[d]) if d in n_test else REFERENCE_TOL)
    return cells.assign(tol=tol.astype(float))


def table_cells(df: pd.DataFrame, table: str, keys) -> pd.DataFrame:
    """The measured cells of one table in long form: ``table``, ``row`` (the key columns' values
    joined by " | "), ``column``, ``value``.

    Measured times, the paper's values (``*_paper``) and their differences from ours (``*_diff``)
    are left out: the first change from run to run, the others are not ours.

    Examples
    --------
    >>> df = pd.DataFrame({"dataset": ["a"], "method": ["X"], "f": [60.0], "f_paper": [58.5], "f_diff": [1.5],
    ...                    "train_time_s": [3.0]})
    >>> table_cells(df, "t", ["dataset", "method"]).values.tolist()
    [['t', 'a | X', 'f', 60.0]]
    """
    missing = [k for k in keys if k not in df.columns]
    if missing:
        raise ValueError(f"{table}: no key column {missing} (columns: {list(df.columns)})")
    values = [
        c
        for c in untimed(df).columns
        if c not in keys
        and not c.endswith(("_paper", "_diff"))
        and pd.api.types.is_numeric_dtype(df[c])
        and not pd.api.types.is_bool_dtype(df[c])
    ]
    key_text = df[list(keys)].map(lambda v: "" if pd.isna(v) else str(v))  # a missing key (no setting) is ""
    row = key_text.agg(" | ".join, axis=1)
    long = pd.DataFrame({"row": row}).join(df[values]).melt(id_vars="row", var_name="column", value_name="value")
    long.insert(0, "table", table)
    return long.dropna(subset=["value"]).reset_index(drop=True)


def run_cells(tables_dir, keys: dict | None = None) -> pd.DataFrame:
    """:func:`table_cells` of every table of ``keys`` (default :data:`REFERENCE_KEYS`) found in
    ``tables_dir`` (``<name>.csv``), stacked; of Table 6 the paper's rows (:data:`REFERENCE_ROWS`)."""
    keys = REFERENCE_KEYS if keys is None else keys
    parts = []
    for name, k in keys.items():
        path = Path(tables_dir) / f"{name}.csv"
        if path.is_file():
            df = pd.read_csv(path)
            for col, value in REFERENCE_ROWS.get(name, {}).items():
                df = df[df[col] == value]
            parts.append(table_cells(df, name, k))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["table", "row", "column", "value"])


def moved_cells(current: pd.DataFrame, reference: pd.DataFrame, tol: float = REFERENCE_TOL) -> pd.DataFrame:
    """The cells of ``reference`` that ``current`` moved beyond their tolerance, or lacks.

    Both frames are in the long form of :func:`table_cells`; ``reference`` may hold a ``tol``
    column (a cell's own tolerance; ``tol`` where it is missing). Only the tables present in
    ``current`` are compared (a run of some stages is held to their tables). Returns one row per
    cell that moved (``status`` "moved": ``|value - reference| > tol``) or is gone (``status``
    "missing"), with ``reference``, ``value``, ``delta`` and ``tol``; empty when every cell holds.
    Cells only in ``current`` (rows beyond the reference) are not a change of the reference.

    Examples
    --------
    >>> ref = pd.DataFrame({"table": ["t", "t"], "row": ["a", "b"], "column": ["f", "f"], "value": [60.0, 70.0]})
    >>> cur = ref.assign(value=[60.04, 69.0])
    >>> moved_cells(cur, ref)[["row", "delta", "status"]].values.tolist()
    [['b', -1.0, 'moved']]
    """
    merged, within = _compared(current, reference, tol, how="left")
    gone = merged["value"].isna() & merged["reference"].notna()
    moved = ~within & merged["delta"].notna()
    merged["status"] = np.where(gone, "missing", np.where(moved, "moved", ""))
    out = merged[merged["status"] != ""]
    return out[[*_CELL_KEY, "reference", "value", "delta", "tol", "status"]].reset_index(drop=True)


def noted_cells(current: pd.DataFrame, reference: pd.DataFrame, tol: float = REFERENCE_TOL) -> pd.DataFrame:
    """The cells of ``reference`` that ``current`` changed within their tolerance (``status`` "noted"):
    not a failure, but worth a line (same columns as :func:`moved_cells`).

    Examples
    --------
    >>> ref = pd.DataFrame({"table": ["t", "t"], "row": ["a", "b"], "column": ["f", "f"], "value": [60.0, 70.0]})
    >>> noted_cells(ref.assign(value=[60.04, 70.0]), ref)[["row", "delta", "status"]].values.tolist()
    [['a', 0.04, 'noted']]
    """
    merged, within = _compared(current, reference, tol, how="inner")
    out = merged[(merged["delta"] != 0) & within].assign(status="noted")
    return out[[*_CELL_KEY, "reference", "value", "delta", "tol", "status"]].reset_index(drop=True)


_CELL_KEY = ["table", "row", "column"]


def _compared(current: pd.DataFrame, reference: pd.DataFrame, tol: float, how: str):
    """``reference``'s cells of the tables in ``current`` beside ``current``'s values (a merge of
    kind ``how``), with ``tol`` (a cell's own, else ``tol``) and ``delta``, and whether each
    change is within its tolerance: both compared to 10 digits, so that a change of exactly one
    instance's worth is within it whatever the rounding of the subtraction."""
    ref = reference.copy()
    ref["tol"] = pd.to_numeric(ref["tol"], errors="coerce").fillna(tol) if "tol" in ref.columns else tol
    ref = ref[ref["table"].isin(set(current["table"]))]
    merged = ref.rename(columns={"value": "reference"}).merge(current[[*_CELL_KEY, "value"]], on=_CELL_KEY, how=how)
    merged["delta"] = (merged["value"] - merged["reference"]).round(10)
    return merged, merged["delta"].abs() <= merged["tol"].round(10)


def describe_moved(moved: pd.DataFrame) -> list[str]:
    """One line per moved, missing or noted cell: ``table2 scene | IB | 10 f: 68.10 -> 67.21 (-0.89, tol 0.05)``."""
    lines = []
    for r in moved.itertuples(index=False):
        if r.status == "missing":
            lines.append(f"{r.table} {r.row} {r.column}: {r.reference:.4g} -> missing")
        else:
            lines.append(
                f"{r.table} {r.row} {r.column}: {r.reference:.4g} -> {r.value:.4g} ({r.delta:+.4g}, tol {r.tol:g})"
            )
    return lines
