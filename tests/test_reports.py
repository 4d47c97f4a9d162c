"""The assembled report: tables inlined (long ones linked), figures with captions, analyses, skips."""

from fmeasure.experiments.report import MAX_INLINE_LINES, write_report


def test_write_report_sections(tmp_path):
    res = tmp_path / "results"
    (res / "tables").mkdir(parents=True)
    (res / "figures").mkdir()
    short = res / "tables" / "t.md"
    short.write_text("Caption of t.\n\n| a |\n|---|\n| 1 |\n")
    long = res / "tables" / "big.md"
    long.write_text("Caption of big.\n\n" + "| x |\n" * (MAX_INLINE_LINES + 5))
    fig = res / "figures" / "f.png"
    fig.write_bytes(b"png")
    caps = tmp_path / "caps"
    caps.mkdir()
    (caps / "f.rst").write_text("What f\nshows.\n")
    notes = tmp_path / "knn.md"
    notes.write_text("# kNN\n\n## Why\n\nBecause.\n")
    out = res / "report.md"
    write_report({"data": [str(short), str(res / "tables" / "t.csv")], "knn": [str(long), str(fig)]}, out,
                    title="T", skipped=["dataset 'x': missing"], captions_dir=caps, notes=[notes])
    text = out.read_text()
    assert text.startswith("# T\n")
    assert "- dataset 'x': missing" in text
    assert "## Datasets (Table 1)" in text and "| 1 |" in text
    assert "Caption of big." in text and "see [big.md](tables/big.md)" in text and "| x |" not in text
    assert "![f](figures/f.png)" in text and "*What f shows.*" in text
    assert "### Analysis" in text and "### Why" in text and "# kNN" not in text
