"""Shared helpers: atomic outputs leave nothing behind on failure; tables mark and join correctly."""

import os

import pandas as pd
import pytest

from fmeasure.io import atomic_output
from fmeasure.tables import beside_paper, best_mask, to_markdown, write_table


def test_atomic_output_leaves_no_partial_file_on_error(tmp_path):
    target = tmp_path / "sub" / "out.csv"
    with pytest.raises(RuntimeError):
        with atomic_output(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("crash")
    assert not target.exists()
    assert os.listdir(tmp_path / "sub") == []


def test_atomic_output_renames_on_success_with_normal_permissions(tmp_path):
    target = tmp_path / "out.txt"
    with atomic_output(target) as tmp:
        tmp.write_text("ok")
    assert target.read_text() == "ok"
    assert target.stat().st_mode & 0o044 == 0o044  # readable by group and others (umask 022)
    assert os.listdir(tmp_path) == ["out.txt"]


def test_best_mask_by_group_marks_ties():
    df = pd.DataFrame({"d": ["a", "a", "b", "b"], "m": list("XYXY"), "loss": [1.0, 1.0, 3.0, 2.0]})
    mask = best_mask(df, {"loss": "min"}, by="d")
    assert mask["loss"].tolist() == [True, True, False, True]
    with pytest.raises(ValueError, match="direction"):
        best_mask(df, {"loss": "lowest"})


def test_write_table_csv_and_bold_markdown(tmp_path):
    df = pd.DataFrame({"method": ["MM", "GFM"], "F": [50.0, 61.234]})
    write_table(df, tmp_path / "t.csv", tmp_path / "t.md", caption="Cap.", bold=best_mask(df, {"F": "max"}))
    assert pd.read_csv(tmp_path / "t.csv").equals(df)
    md = (tmp_path / "t.md").read_text()
    assert md.startswith("Cap.\n\n| method | F |")
    assert "| GFM | **61.23** |" in md and "| MM | 50.00 |" in md
    assert to_markdown(df).count("\n") == 4


def test_beside_paper_difference_and_missing_rows():
    ours = pd.DataFrame({"d": ["a", "b"], "f": [60.0, 70.0]})
    paper = pd.DataFrame({"d": ["a"], "f": [58.5]})
    out = beside_paper(ours, paper, ["d"], ["f"])
    assert out.columns.tolist() == ["d", "f", "f_paper", "f_diff"]
    assert out.f_diff.iloc[0] == pytest.approx(1.5) and pd.isna(out.f_paper.iloc[1])


def test_heartbeat_logs_while_the_block_runs_and_stops_after(caplog):
    import time

    from fmeasure.io import heartbeat

    with caplog.at_level("INFO", logger="fmeasure.io"):
        with heartbeat(lambda s: f"busy {s:.1f} s", every=0.05):
            time.sleep(0.32)
        beats = [r.getMessage() for r in caplog.records]
        time.sleep(0.2)
    # about six beats in 0.32 s (at least two even on a loaded machine), none after the block
    assert 2 <= len(beats) <= 7 and all(b.startswith("busy ") for b in beats)
    assert len(caplog.records) == len(beats)
    with caplog.at_level("INFO", logger="fmeasure.io"):
        caplog.clear()
        with heartbeat(lambda s: "never", every=10.0):
            pass
    assert not caplog.records


def _cells(values, table="table5"):
    rows = [f"scene | {m}" for m in ("BR", "LFP", "EFP")]
    return pd.DataFrame({"table": table, "row": rows, "column": "f", "value": values})


def test_moved_cells_flags_one_cell_beyond_its_tolerance_and_no_other():
    """The reference check names exactly the cell that moved more than its tolerance (hand-set
    values: one cell moved 0.3 points, one 0.04 with tolerance 0.05, one unchanged)."""
    from fmeasure.tables import describe_moved, moved_cells

    ref = _cells([60.0, 65.0, 70.0]).assign(tol=0.05)
    cur = _cells([60.0, 65.04, 69.7])
    moved = moved_cells(cur, ref)
    assert moved[["row", "column", "status"]].values.tolist() == [["scene | EFP", "f", "moved"]]
    assert moved["delta"].tolist() == pytest.approx([-0.3])
    assert describe_moved(moved) == ["table5 scene | EFP f: 70 -> 69.7 (-0.3, tol 0.05)"]
    # a cell's own tolerance is honoured; a cell that is gone is reported
    ref.loc[2, "tol"] = 0.5
    assert moved_cells(cur, ref).empty
    gone = moved_cells(cur.iloc[:2], ref)
    assert gone[["row", "status"]].values.tolist() == [["scene | EFP", "missing"]]
    # tables the run did not build are not compared; rows beyond the reference are not a change
    assert moved_cells(_cells([1.0, 2.0, 3.0], table="table2"), ref).empty
    extra = pd.concat([cur, cur.iloc[:1].assign(row="yeast | BR", value=50.0)], ignore_index=True)
    assert moved_cells(extra, ref).empty


def test_table_cells_keeps_measured_values_only():
    from fmeasure.tables import table_cells

    df = pd.DataFrame(
        {
            "dataset": ["scene", "scene"],
            "method": ["IB", "IB"],
            "l": [10, 20],
            "f": [68.1, 69.0],
            "f_paper": [70.0, 71.0],
            "f_diff": [-1.9, -2.0],
            "inference_time_s": [0.1, 0.2],
            "n_samples": [1000, 1000],
        }
    )
    cells = table_cells(df, "table2", ["dataset", "method", "l"])
    assert cells[["row", "column", "value"]].values.tolist() == [
        ["scene | IB | 10", "f", 68.1],
        ["scene | IB | 20", "f", 69.0],
        ["scene | IB | 10", "n_samples", 1000],
        ["scene | IB | 20", "n_samples", 1000],
    ]
    with pytest.raises(ValueError, match="table2: no key column"):
        table_cells(df.drop(columns="l"), "table2", ["dataset", "method", "l"])
