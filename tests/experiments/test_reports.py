"""The assembled report: findings first, then corrections and sections; captions by output path;
no number in the prose that is not in this run's tables, the paper's numbers or the config."""

import pandas as pd
import pytest
from _report_checks import prose_numbers, stale_numbers

from fmeasure.experiments import findings as F
from fmeasure.experiments.report import (
    MAX_INLINE_LINES,
    not_run_reasons,
    render_caption,
    write_report,
)


def _results(tmp_path):
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
    (caps / "pcc_f.rst").write_text('What f\nshows, over {{ snakemake.config["pcc"]["runs"] }} runs.\n')
    found = res / "findings" / "knn.csv"
    F.write_findings(
        [F.finding("knn.mm_hamming", "kNN: MM best", "7.2.1", "contradicted", -1.5, 0.25, "scene l=10", "#sec-knn")],
        found,
    )
    return res, short, long, fig, {"results/figures/f.png": caps / "pcc_f.rst"}, found


def test_write_report_findings_first_then_sections(tmp_path):
    res, short, long, fig, caps, found = _results(tmp_path)
    out = res / "report.md"
    collected = write_report(
        {"data": [str(short), str(res / "tables" / "t.csv")], "knn": [str(long), str(fig)]},
        out,
        title="T",
        skipped=["dataset 'x': missing"],
        captions=caps,
        findings=[found],
        not_run={"voting": "stage not part of this workflow"},
        config={"pcc": {"runs": 7}},
    )
    text = out.read_text()
    assert text.startswith("# T\n")
    assert "- dataset 'x': missing" in text
    assert text.index("## Findings") < text.index("## Datasets (Table 1)") < text.index("## Instance-based")
    rows = [ln for ln in text.split("## Findings")[1].split("\n## ")[0].splitlines() if ln.startswith("| [")]
    paper = F.paper_claims().query("kind != 'beyond'")
    assert len(rows) == len(paper) == len(collected)  # one row per claim of the paper
    assert "| **contradicted** | -1.50 | 0.25 | scene l=10 |" in text
    assert "not run (stage not part of this workflow)" in text
    assert "Caption of big." in text and "see [big.md](tables/big.md)" in text and "| x |" not in text
    assert "![f](figures/f.png)" in text and "*What f shows, over 7 runs.*" in text
    assert "## Not run" in text and "Table 7" in text


def test_write_report_figure_without_caption_is_an_error(tmp_path):
    res, short, long, fig, caps, found = _results(tmp_path)
    with pytest.raises(ValueError, match="no caption registered for figure"):
        write_report({"knn": [str(fig)]}, res / "report.md", title="T", captions={}, findings=[found])


def test_write_report_caption_found_by_path_not_by_name(tmp_path):
    """The figure is f.png, its caption pcc_f.rst: the registered path is the key, not the name."""
    res, short, long, fig, caps, found = _results(tmp_path)
    write_report(
        {"pcc": [str(fig)]}, res / "report.md", title="T", captions=caps, findings=[found], config={"pcc": {"runs": 3}}
    )
    assert "*What f shows, over 3 runs.*" in (res / "report.md").read_text()


def test_render_caption_fills_config(tmp_path):
    p = tmp_path / "c.rst"
    p.write_text('Best of {{ snakemake.config["report"]["timing_best_of"] }}\ntimings.')
    assert render_caption(p, {"report": {"timing_best_of": 3}}) == "Best of 3 timings."


def test_prose_numbers_skip_tables_links_and_code():
    md = (
        "Ours 72.93 beside 571 s.\n| 12.34 | 56.78 |\n![x](a/1.25.png)\n"
        "See [t](tables/9.99.md) and `results/0.123.csv`; Table 5, m = 12.\n"
    )
    assert prose_numbers(md) == ["72.93", "571"]


def test_stale_numbers_flag_a_number_not_in_this_run(tmp_path):
    t = tmp_path / "table4.csv"
    pd.DataFrame({"dataset": ["scene"], "f": [72.9312], "train_time_s": [17.6]}).to_csv(t, index=False)
    report = tmp_path / "report.md"
    report.write_text("Scene GFM F 72.93, training 17.6 s; the paper's 72.77.\n")
    assert stale_numbers(report, [t]) == []  # 72.77 is the paper's (Table 4 GFM scene)
    report.write_text("Scene GFM F 72.68, training 571 s.\n")  # numbers of an earlier run
    assert stale_numbers(report, [t]) == ["72.68", "571"]
    assert stale_numbers(report, [t], config={"pcc": {"x": 571}}) == ["72.68"]


def test_not_run_reasons_distinguish_disabled_and_absent_stages(tmp_path):
    (tmp_path / "knn.smk").write_text("")
    reasons = not_run_reasons(["data"], tmp_path)
    assert reasons["knn"] == "stage left out of `stages` in the config"
    assert reasons["voting"] == "stage not part of this workflow"
    assert "data" not in reasons


def test_simulations_claims_table_and_table5_appear_once(tmp_path):
    res, short, long, fig, caps, found = _results(tmp_path)
    claims = res / "tables" / "simulations_claims.md"
    claims.write_text("Section 6 conclusions checked on this run.\n\n| a |\n|---|\n| 1 |\n")
    t5 = res / "tables" / "table5.md"
    t5.write_text("Table 5. Parametric models.\n\n| a |\n|---|\n| 1 |\n")
    write_report(
        {"simulations": [str(claims)], "parametric": [str(t5)]},
        res / "report.md",
        title="T",
        captions=caps,
        findings=[found],
    )
    text = (res / "report.md").read_text()
    assert text.count("Section 6 conclusions checked") == 1 and text.count("Table 5. Parametric") == 1


def test_report_deviation_sentences_cite_only_numbers_of_this_run(tmp_path):
    res, short, long, fig, caps, found = _results(tmp_path)
    t4 = pd.DataFrame(
        {
            "dataset": ["scene", "scene"],
            "method": ["MM", "GFM"],
            "hamming": [10.0, 11.0],
            "hamming_paper": [9.89, 11.4],
            "f": [69.1212, 72.9],
            "f_paper": [62.73, 72.77],
        }
    )
    t4.to_csv(res / "tables" / "table4.csv", index=False)
    md = res / "tables" / "table4.md"
    md.write_text("**Table 4.** PCC.\n\n| a |\n|---|\n| 1 |\n")
    dev_csv = res / "tables" / "deviations.csv"
    write_report(
        {"pcc": [str(md)]}, res / "report.md", title="T", captions=caps, findings=[found], deviations_csv=dev_csv
    )
    text = (res / "report.md").read_text()
    assert "1 cells more than 2 points from the paper" in text and "69.12 vs 62.73 (+6.39)" in text
    dev = pd.read_csv(dev_csv)
    assert dev[["method", "measure", "diff"]].values.tolist() == [["MM", "f", 6.39]]
    csvs = [res / "tables" / "table4.csv", found]
    assert stale_numbers(res / "report.md", csvs) == ["6.39"]  # the difference lives only in deviations.csv
    assert stale_numbers(res / "report.md", csvs + [dev_csv]) == []


def test_knn_analysis_names_the_far_cell_and_table3_ratios(tmp_path):
    from fmeasure.experiments.knn import analysis

    t2 = pd.DataFrame({"dataset": ["scene"] * 2, "method": ["MM", "GFM"], "l": [10, 10]})
    for m, ours, paper in [("hamming", [10, 11], [10.5, 11]), ("subset01", [30, 31], [30, 31])]:
        t2[m], t2[f"{m}_paper"] = ours, paper
    t2["f"], t2["f_paper"] = [70.0, 75.0], [70.0, 71.5]  # GFM's F is 3.5 points above the paper
    t2["jaccard"], t2["jaccard_paper"] = [60.0, 61.0], [60.0, 61.0]
    t2.to_csv(tmp_path / "table2.csv", index=False)
    pd.DataFrame({"time_ratio_paper_over_ours": [2.0, 8.0, 4.0]}).to_csv(tmp_path / "table3.csv", index=False)
    lines, dev = analysis(tmp_path, 2.0)
    assert lines[0] == (
        "- Table 2: 1 cells more than 2 points from the paper (ours vs paper): "
        "scene GFM 10 F-measure: 75.00 vs 71.50 (+3.50)."
    )
    assert (
        lines[1]
        == "- Table 3: the paper's times are 2 to 8 times ours (median 4; different machines and implementations)."
    )
    assert len(dev) == 1 and dev[0][["measure", "diff"]].values.tolist() == [["f", 3.5]]
    lines, dev = analysis(tmp_path, 4.0)
    assert lines[0] == "- Table 2: every cell within 4 points of the paper." and dev == []
