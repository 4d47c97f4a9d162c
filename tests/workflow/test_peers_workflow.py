"""The peers stage through the real Snakemake engine on the smoke data: its own target, then the
report picks its section up once its outputs exist.

It runs in a copy of the session's smoke run (tests/conftest.py), whose data and parametric stages
the peers stage reads."""

import shutil

import pandas as pd
import pytest
from _workflow import run_snakemake

pytestmark = pytest.mark.e2e  # runs the Snakemake engine


def _snakemake(workdir, *extra):
    return run_snakemake(workdir, *extra, "--quiet", "progress", "--config", "stages=data,parametric", timeout=900)


def test_peers_stage_on_smoke_data_then_in_the_report(smoke_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(smoke_run, workdir, symlinks=True)
    out = _snakemake(workdir, "peers_all")
    assert "rule parametric_fit_predict" not in out.stdout + out.stderr  # the copied fits are used
    table = pd.read_csv(workdir / "results" / "tables" / "peers.csv")
    cols = ["dataset", "method", "source", "setting", "f", "se", "diff_to_best_ours", "diff_se"]
    assert table.columns[: len(cols)].tolist() == cols
    assert {"fit_s", "predict_s", "mean_set_size"} <= set(table.columns)
    peers = table[table.source == "peer"]
    assert set(peers.method) == {"mlknn", "sklearn_br", "sklearn_cc"} and set(peers.setting) == {"default", "tuned"}
    assert set(table[table.source == "ours"].method) == {"br", "lfp", "efp", "fopt_extratrees"}
    # a route of ours run under the protocol has its own times, and counts as ours in the findings
    assert table.loc[table.method == "fopt_extratrees", "fit_s"].notna().all()
    assert table.f.between(0, 100).all() and (table.diff_se >= 0).all()
    # every row's difference is its F minus the best of ours on its dataset
    best = table[table.source == "ours"].groupby("dataset").f.max()
    assert (table.f - table.dataset.map(best) - table.diff_to_best_ours).abs().max() < 1e-9
    findings = pd.read_csv(workdir / "results" / "findings" / "peers.csv")
    assert findings.claim_id.tolist() == ["peers.paper_best", "peers.our_best"]
    assert (workdir / "results" / "figures" / "peers.png").stat().st_size > 10_000
    # the default target: the report shows the peers section now that its outputs exist
    _snakemake(workdir)
    report = (workdir / "results" / "report.md").read_text()
    assert "## Public F-maximizers beside ours" in report and "peers.png" in report
    collected = pd.read_csv(workdir / "results" / "findings.csv")
    assert {"peers.paper_best", "peers.our_best"} <= set(collected.claim_id)
