"""Start-up configuration: dataset selection, command-line lists, missing datasets, schema typos."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _mirror import snakemake_env

from fmeasure.experiments.config import (
    ConfigError,
    as_list,
    check_config,
    content_entry,
    select_datasets,
)

ROOT = Path(__file__).resolve().parents[2]


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
    # No network here: every download URL fails, except (pretend) those of scene.
    monkeypatch.delenv("FMEASURE_DATA_MIRROR", raising=False)
    monkeypatch.setattr(
        "fmeasure.datasets._fetch.url_problem",
        lambda url, timeout=10: None if "/scene/" in url else "URLError: offline",
    )
    cfg = _config(tmp_path)
    cfg["datasets"] = ["scene", "mediamill"]
    available, skipped = select_datasets(cfg)
    assert available == ["scene"]
    assert len(skipped) == 1 and "mediamill-train.arff" in skipped[0] and "--config datasets=" in skipped[0]
    assert "download failed: https://media.githubusercontent.com/" in skipped[0] and "URLError: offline" in skipped[0]
    cfg["data"]["on_missing"] = "error"
    with pytest.raises(ConfigError, match="mediamill"):
        select_datasets(cfg)


def test_mediamill_urls_are_boomer_lfs_media_at_a_fixed_commit():
    files = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["catalog"]["mediamill"]["files"]
    base = (
        "https://media.githubusercontent.com/media/mrapp-ke/Boomer-Datasets/f7e13d57a83f95c00098252641d69f78a8d0c204/"
    )
    assert [files[k]["url"] for k in ("train", "test", "xml")] == [
        base + "mediamill_training.arff",
        base + "mediamill_test.arff",
        base + "mediamill.xml",
    ]


def test_content_entry_leaves_out_sources_and_adds_the_nominal_mode():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    entry = content_entry(cfg, "scene")
    assert "url" not in entry["files"]["train"] and "homepage" not in entry and entry["nominal"] == "onehot"
    assert entry["files"]["train"] == {
        "name": "scene-train.arff",
        "sha256": cfg["catalog"]["scene"]["files"]["train"]["sha256"],
    }
    cfg["catalog"]["scene"]["nominal"] = "error"
    assert content_entry(cfg, "scene")["nominal"] == "error"


@pytest.mark.parametrize(
    "change, line",
    [
        (
            lambda c: c["knn"].update(neighbors=[3]),
            "config key 'knn.neighbors' is unknown; did you mean 'knn.neighbours'?",
        ),
        (lambda c: c.update(datsets=["scene"]), "config key 'datsets' is unknown; did you mean 'datasets'?"),
        (
            lambda c: c["data"].update(nominal="hash"),
            "config key 'data.nominal': 'hash' is not one of ['onehot', 'ordinal', 'error']",
        ),
        (lambda c: c["knn"].pop("neighbours"), "config key 'knn': 'neighbours' is a required property"),
        (lambda c: c["voting"].pop("members"), "config key 'voting': 'members' is a required property"),
        (
            lambda c: c["knn"].update(zzz=1),
            "config key 'knn.zzz' is unknown; valid keys here: mem_mb, methods, mm_half,",
        ),
    ],
)
def test_check_config_one_line_with_closest_key(change, line):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    change(cfg)
    with pytest.raises(ConfigError) as err:
        check_config(cfg, ROOT / "config" / "schema.yaml")
    assert str(err.value).startswith(line) and "\n" not in str(err.value)


def test_every_default_is_written_once_in_config_yaml():
    """The schema holds types and ranges; config.yaml holds every default, and the schema requires
    each of its keys, so the two cannot drift apart."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    check_config(cfg, schema)  # the shipped config is valid
    twice, not_required = [], []

    def walk(node, values, path):
        props = node.get("properties") or {}
        missing = sorted(set(values) - set(node.get("required") or []))
        not_required.extend(f"{path}{k}" for k in missing if k in props)
        for key, value in values.items():
            sub = props.get(key) or {}
            if "default" in sub:
                twice.append(path + key)
            if isinstance(value, dict) and "properties" in sub:
                walk(sub, value, f"{path}{key}.")

    walk(schema, cfg, "")
    assert twice == [] and not_required == []


def _snakemake(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(cwd), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=snakemake_env(),
    )


@pytest.mark.e2e  # runs the Snakemake engine
@pytest.mark.parametrize(
    "override, key",
    [
        ("datsets: [scene]", "datsets"),
        ("metrics: {jaccard_empty: high}", "high"),
        ("data: {on_missing: maybe}", "maybe"),
    ],
)
def test_schema_stops_a_misspelt_key_or_wrong_type_naming_it(tmp_path, override, key):
    bad = tmp_path / "bad.yaml"
    bad.write_text(override + "\n")
    out = _snakemake("-n", "--configfile", str(bad), cwd=tmp_path)
    assert out.returncode != 0
    assert key in out.stderr + out.stdout


@pytest.mark.e2e  # runs the Snakemake engine
def test_lint_is_clean(tmp_path):
    out = _snakemake("--lint", cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Congratulations" in out.stdout + out.stderr


def test_config_readme_states_the_defaults_of_config_yaml():
    """config/README.md's tables show each key's default; each one must be config.yaml's value."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    section, checked, wrong = None, 0, []
    for line in (ROOT / "config" / "README.md").read_text().splitlines():
        heading = re.match(r"^##+ `([\w-]+)`", line)
        if heading:
            section = heading.group(1)
        row = re.match(r"^\| `([\w.\-]+)` \| `([^`|]*)` \|", line)
        if not row or "..." in row.group(2):  # "[10, ..., 2000]" abbreviates a list
            continue
        key, shown = row.groups()
        for path in (key.split("."), [section, *key.split(".")]):
            node = cfg
            for part in path:
                node = node.get(part, KeyError) if isinstance(node, dict) else KeyError
            if node is not KeyError:
                break
        if node is KeyError:  # an entry's own key (catalog), documented with its schema default
            continue
        value = yaml.safe_load(shown)
        if isinstance(value, str) and isinstance(node, float):
            value = float(value)  # YAML 1.1 reads 1e-9 as a string
        checked += 1
        if value != node:
            wrong.append(f"{key}: README {shown!r}, config.yaml {node!r}")
    assert checked > 80 and wrong == []
