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
