"""A dataset's own protocol (config key ``dataset_overrides``) through the real Snakemake engine.

On a copy of the session's smoke run, RML's C grid is changed for scene-small alone. Snakemake must
plan to redo that dataset's RML job (and what is built from it), not yeast-small's; the rerun's RML
row must have walked the new grid while yeast-small's kept the smoke config's, and the report must
say which dataset ran under which change.
"""

import re
import shutil

import pandas as pd
import pytest
from _workflow import run_snakemake

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

#: The smoke config's grid is [0.1, 10.0] (extended by a decade at an edge: 0.01 or 100); 1.0 is
#: only in the override.
OVERRIDE = "dataset_overrides={scene-small: {structured: {Cs: [0.1, 1.0, 10.0]}}}"


def _grid(workdir, dataset) -> set[float]:
    row = pd.read_csv(workdir / "results" / "structured" / dataset / "rml.csv").iloc[0]
    return {float(c) for c in str(row["Cs"]).split()}


def test_an_override_reruns_its_datasets_jobs_alone_and_the_report_names_it(smoke_run, tmp_path):
    workdir = tmp_path / "override"
    shutil.copytree(smoke_run, workdir, symlinks=True)  # keeps the files' times: nothing is out of date
    assert 1.0 not in _grid(workdir, "scene-small") | _grid(workdir, "yeast-small")
    dry = run_snakemake(workdir, "--dry-run", "--config", OVERRIDE)
    outputs = {f for line in re.findall(r"^\s+output: (.+)$", dry.stdout, flags=re.M) for f in line.split(", ")}
    assert "results/structured/scene-small/rml.csv" in outputs, dry.stdout[-3000:]
    assert not any("yeast-small" in f for f in outputs), sorted(outputs)
    run_snakemake(workdir, "--config", OVERRIDE)
    assert 1.0 in _grid(workdir, "scene-small")
    assert _grid(workdir, "yeast-small") == _grid(smoke_run, "yeast-small")
    report = (workdir / "results" / "report.md").read_text()
    assert "- scene-small: structured.Cs = [0.1, 1.0, 10.0]" in report
    assert "dataset_overrides" not in (smoke_run / "results" / "report.md").read_text()
