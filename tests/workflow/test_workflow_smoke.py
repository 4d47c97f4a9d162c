"""The real Snakemake engine runs every enabled stage of config/smoke.yaml end to end.

A broken rule, script or input function fails here. The run happens in a temporary working
directory with the data slices shipped in tests/data as its only mirror (no network, no other
mirror), so the repository stays clean. test_workflow_rerun.py checks that a second run, killed
mid-job and resumed, reproduces every table.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from _browser import check_page, chromium
from _mirror import ROOT, TEST_DATA, snakemake_env
from _report_checks import markdown_to_html, stale_numbers
from _workflow import SMOKE_CONFIG, run_snakemake, snakemake_cmd

from fmeasure.experiments.findings import paper_claims

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

MIRROR = str(TEST_DATA)


def _run(workdir: Path, *extra):
    return run_snakemake(workdir, "--quiet", "progress", *extra)


def test_smoke_run_builds_table1_and_report(smoke_run):
    t1 = pd.read_csv(smoke_run / "results" / "tables" / "table1.csv")
    assert t1.dataset.tolist() == ["scene-small", "yeast-small"]
    assert t1[["n_train", "n_test", "m", "d"]].values.tolist() == [[100, 50, 6, 294], [150, 60, 14, 103]]
    report = (smoke_run / "results" / "report.md").read_text()
    assert "## Datasets (Table 1)" in report
    for png in (
        (smoke_run / "results" / "figures").glob("*.png") if (smoke_run / "results" / "figures").exists() else []
    ):
        assert png.stat().st_size > 1000, f"{png} looks empty"
        assert png.with_suffix(".pdf").is_file(), f"{png} has no PDF twin"


def _config():
    """The smoke run's configuration: config.yaml with smoke.yaml merged on top, as Snakemake merges."""
    from snakemake.utils import update_config

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    update_config(cfg, yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text()))
    return cfg


def test_report_opens_with_findings_for_every_claim_of_the_paper(smoke_run):
    report = (smoke_run / "results" / "report.md").read_text()
    assert report.index("## Findings") < report.index("## Corrections to the paper") < report.index("## Datasets")
    findings = pd.read_csv(smoke_run / "results" / "findings.csv", dtype=str)
    assert findings.claim_id.tolist() == paper_claims().query("kind != 'beyond'").claim_id.tolist()
    assert findings.verdict.str.match(r"^(confirmed|not confirmed|contradicted|not run \(.+\))$").all()
    rows = [ln for ln in report.split("## Findings")[1].split("\n## ")[0].splitlines() if ln.startswith("| [")]
    assert len(rows) == len(findings)
    assert "the worst-case regret is 2/3, not 1/2" in report
    for once in ("Section 6 conclusions checked on this run", "Table 5. Parametric models"):
        assert report.count(once) == 1, once


def test_report_prose_numbers_all_come_from_this_run(smoke_run):
    csvs = list((smoke_run / "results").rglob("*.csv"))
    assert stale_numbers(smoke_run / "results" / "report.md", csvs, config=_config()) == []


def test_report_every_figure_has_its_caption(smoke_run):
    lines = (smoke_run / "results" / "report.md").read_text().splitlines()
    figures = [i for i, ln in enumerate(lines) if ln.startswith("![")]
    pngs = list((smoke_run / "results" / "figures").glob("*.png"))
    assert len(figures) == len(pngs) > 0
    for i in figures:
        cap = lines[i + 2]
        assert cap.startswith("*") and len(cap) > 80 and "{{" not in cap, (lines[i], cap)
    assert "Means over 2 sampling runs" in "\n".join(lines)  # Figure 5's caption, filled from the config


def test_figure_files_are_named_after_their_stage(smoke_run):
    """A figure is ``<stage>_<what>`` or the stage's name alone (``pcc_figure5``, ``foptimal``)."""
    from fmeasure.experiments.report import STAGE_TITLES

    names = [p.stem for p in (smoke_run / "results" / "figures").glob("*.png")]
    assert [n for n in names if not any(n == s or n.startswith(f"{s}_") for s in STAGE_TITLES)] == []
    assert "pcc_figure5" in names
    assert "](figures/pcc_figure5.png)" in (smoke_run / "results" / "report.md").read_text()


def test_html_report_contains_every_table_and_figure(smoke_run):
    _run(smoke_run, "--report", str(smoke_run / "report.html"))
    html = (smoke_run / "report.html").read_text(errors="replace")
    assert "table1.csv" in html and "Table 1 of the paper" in html
    assert "findings.csv" in html and "{{" not in html.split("<script")[0]
    for png in (smoke_run / "results" / "figures").glob("*.png"):
        assert png.name in html, png.name
    for name in ("table2.csv", "table3.csv", "table4.csv", "table5.csv", "simulations_claims.csv"):
        assert name in html, name


def test_reports_render_in_headless_chromium(smoke_run, tmp_path):
    if chromium() is None:
        pytest.skip("Chromium is not installed (CI installs it: apt-get install chromium)")
    res = smoke_run / "results"
    # the page lives outside the shared run; its relative image links resolve against results/
    page = markdown_to_html(res / "report.md", tmp_path / "report_md.html", extra_head=f"<base href='{res.as_uri()}/'>")
    seen = check_page(page)
    n_png = len(list((res / "figures").glob("*.png")))
    n_tables = (res / "report.md").read_text().count("\n|---")
    assert seen["broken"] == [] and seen["n_img"] == n_png, seen
    assert seen["n_table"] == n_tables > 5, seen
    if not (smoke_run / "report.html").exists():
        _run(smoke_run, "--report", str(smoke_run / "report.html"))
    seen = check_page(smoke_run / "report.html")
    assert seen["broken"] == [] and seen["text"] > 100, seen


def test_every_rule_wrote_its_log(smoke_run):
    logs = list((smoke_run / "logs").rglob("*.log"))
    assert logs and all(p.stat().st_size > 0 for p in logs), [str(p) for p in logs if p.stat().st_size == 0]


def test_adding_a_mirror_or_changing_a_url_reruns_nothing(smoke_run, tmp_path):
    # A second mirror folder holding the same files, in the environment (two folders joined by
    # os.pathsep) and in the config, plus a different download URL: no job may rerun.
    other = tmp_path / "other-mirror"
    shutil.copytree(TEST_DATA, other)
    extra = tmp_path / "extra.yaml"
    extra.write_text(
        f"data: {{mirrors: ['{other}', tests/data]}}\n"
        "catalog:\n  scene-small:\n    files:\n      train: {name: scene-small-train.arff,"
        " sha256: 2e75fe0eab11477c7b9266619b557dc899c72534bb2ba0fe125d215f64e4c0b2, url: 'https://example.org/x.arff'}\n"
    )
    env = snakemake_env(os.pathsep.join([str(other), MIRROR]))
    cmd = snakemake_cmd(smoke_run, "--dry-run", configs=(SMOKE_CONFIG, extra))
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Nothing to be done" in out.stdout + out.stderr, (out.stdout + out.stderr)[-3000:]


def test_changing_an_inference_setting_of_pcc_does_not_refit_the_chain(smoke_run, tmp_path):
    # Figure 5's timing settings are read by the curve jobs only: they rerun, the fit does not.
    extra = tmp_path / "extra.yaml"
    extra.write_text("pcc: {figure5: {repeat_below_s: 0.5}, table4: {n_samples: 7}}\n")
    env = snakemake_env(MIRROR)
    cmd = snakemake_cmd(smoke_run, "--dry-run", configs=(SMOKE_CONFIG, extra))
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    assert "rule pcc_curve:" in text and "rule pcc_table4_rows:" in text, text[-3000:]  # the change is seen
    assert "rule pcc_fit:" not in text, text[-3000:]


def test_smoke_run_builds_the_ablations(smoke_run):
    res = smoke_run / "results"
    lfp = pd.read_csv(res / "ablations" / "lfp_never_empty" / "scene-small.csv")
    assert lfp.setting.tolist() == ["lfp_never_empty"] and lfp.method.tolist() == ["LFP"]
    few = pd.read_csv(res / "ablations" / "pcc_samples_20" / "yeast-small.csv")
    assert set(few.method) == {"MM", "JM", "FM", "GFM"} and set(few.n_samples) == {0, 20}
    assert (res / "ablations" / "pcc_f1_cv" / "scene-small.csv").is_file()
    assert not (res / "ablations" / "pcc_f1_cv" / "yeast-small.csv").exists()  # not configured for it
    table = pd.read_csv(res / "tables" / "ablations.csv")
    assert {"table", "dataset", "method", "measure", "paper", "default", "closest", "within"} <= set(table.columns)
    findings = pd.read_csv(res / "findings" / "ablations.csv")
    assert list(findings.columns) == ["claim_id", "claim", "section", "verdict", "margin", "se", "evidence", "link"]
    assert len(findings) == len(table)  # the smoke datasets have no paper numbers: no deviations
    assert (res / "tables" / "ablations_summary.md").read_text().startswith("# Ablations")


def test_lfp_predicts_from_brs_fitted_models_in_the_pipeline(smoke_run):
    """With BR and LFP both listed, LFP's job reads BR's fitted models instead of fitting them again
    (its record says so and its training time is BR's)."""
    import json

    for ds in ("scene-small", "yeast-small"):
        folder = smoke_run / "results" / "parametric" / ds
        br, lfp = (json.loads((folder / f"{name}.json").read_text()) for name in ("BR", "LFP"))
        assert lfp["fit_shared_with"] == "BR" and br["fit_shared_with"] is None
        assert lfp["train_time_s"] == br["train_time_s"]
