"""Start-up configuration: dataset selection, command-line lists, missing datasets, schema typos."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fmeasure.experiments.config import ConfigError, apply_aliases, as_list, select_datasets

ROOT = Path(__file__).resolve().parents[1]


def test_as_list_accepts_yaml_lists_and_comma_strings():
    assert as_list("scene, yeast", "datasets") == ["scene", "yeast"]
    assert as_list(["scene"], "datasets") == ["scene"]
    with pytest.raises(ConfigError, match="'datasets'"):
        as_list(3, "datasets")


def _config(tmp_path, on_missing="skip"):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["data"].update(dir=str(tmp_path / "data"), mirrors=[str(tmp_path / "nomirror")], on_missing=on_missing)
    return cfg


def test_select_datasets_unknown_name_lists_the_catalog(tmp_path):
    cfg = _config(tmp_path)
    cfg["datasets"] = "scene,sceen"
    with pytest.raises(ConfigError, match=r"unknown dataset\(s\) \['sceen'\]"):
        select_datasets(cfg)


def test_select_datasets_skips_mediamill_with_instructions(tmp_path, monkeypatch):
    monkeypatch.delenv("FMEASURE_DATA_MIRROR", raising=False)
    cfg = _config(tmp_path)
    cfg["datasets"] = ["scene", "mediamill"]
    available, skipped = select_datasets(cfg)
    assert available == ["scene"]  # scene has download URLs; mediamill has none
    assert len(skipped) == 1 and "mediamill-train.arff" in skipped[0] and "--config datasets=" in skipped[0]
    cfg["data"]["on_missing"] = "error"
    with pytest.raises(ConfigError, match="mediamill"):
        select_datasets(cfg)


def _snakemake(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(cwd), *args],
        capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize(
    "override, key",
    [("datsets: [scene]", "datsets"), ("metrics: {jaccard_empty: high}", "high"), ("data: {on_missing: maybe}", "maybe")],
)
def test_schema_stops_a_misspelt_key_or_wrong_type_naming_it(tmp_path, override, key):
    bad = tmp_path / "bad.yaml"
    bad.write_text(override + "\n")
    out = _snakemake("-n", "--configfile", str(bad), cwd=tmp_path)
    assert out.returncode != 0
    assert key in out.stderr + out.stdout


def test_lint_is_clean(tmp_path):
    out = _snakemake("--lint", cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Congratulations" in out.stdout + out.stderr


def test_apply_aliases_lets_the_users_old_name_override_the_default():
    cfg = {"pcc": {"cv_folds": 3, "cv": 5}, "parametric": {"runtime_min": 9}}
    messages = apply_aliases(cfg, warn=lambda m: None)
    assert cfg == {"pcc": {"cv": 3}, "parametric": {"runtime_min": 9}}
    assert messages == ["config key 'pcc.cv_folds' is deprecated: use 'pcc.cv' (the old name still works)"]


def test_old_key_names_still_run_with_a_deprecation_message(tmp_path):
    # a config file written for an earlier release: renamed keys, real engine, dry run
    old = tmp_path / "old.yaml"
    old.write_text("pcc: {cv_folds: 3, fit_runtime_min: 5}\nparametric: {runtime_minutes: 7}\n"
                   "stages: [data, pcc, parametric]\ndatasets: [scene]\n")
    out = _snakemake("-n", "--configfile", str(ROOT / "config" / "config.yaml"), str(old), cwd=tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    for old_key, new_key in [("pcc.cv_folds", "pcc.cv"), ("pcc.fit_runtime_min", "pcc.runtime_min"),
                             ("parametric.runtime_minutes", "parametric.runtime_min")]:
        assert f"'{old_key}' is deprecated: use '{new_key}'" in text
