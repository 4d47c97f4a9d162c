"""Start-up configuration: dataset selection, command-line lists, missing datasets, schema typos."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _mirror import snakemake_env
from snakemake.cli import parse_config
from snakemake.utils import update_config

from fmeasure.datasets import load_catalog
from fmeasure.experiments.config import (
    FIXED_KEYS,
    OVERRIDE_STAGES,
    ConfigError,
    as_list,
    check_config,
    content_entry,
    dataset_view,
    exit_on_config_error,
    override_lines,
    select_datasets,
    with_catalog,
)
from fmeasure.experiments.registry import STAGES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "config" / "schema.yaml"


def _with_cli(*entries) -> dict:
    """config.yaml with ``--config`` entries merged on top, read by Snakemake's own parser, as the
    Snakefile receives it."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    update_config(cfg, parse_config(list(entries)))
    return cfg


def _one_line(entries) -> str:
    with pytest.raises(ConfigError) as err:
        check_config(_with_cli(*entries), SCHEMA)
    assert "\n" not in str(err.value)
    return str(err.value)


@pytest.mark.parametrize(
    "entry, bad",
    [("stages=data,knnn", "'knnn'"), ("stages=nosuch", "'nosuch'"), ("stages=[knn, scaling]", "'scaling'")],
)
def test_unknown_stage_stops_naming_the_key_the_value_and_the_stages(entry, bad):
    line = _one_line([entry])
    assert line.startswith(f"config key 'stages': {bad} is not one of ['data', 'theory',")
    assert all(f"'{s}'" in line for s in STAGES)


def test_stages_from_the_command_line_become_a_list():
    assert check_config(_with_cli("stages=data,knn"), SCHEMA)["stages"] == ["data", "knn"]
    assert check_config(_with_cli("stages=peers"), SCHEMA)["stages"] == ["peers"]
    assert check_config(_with_cli("stages=[data, knn]"), SCHEMA)["stages"] == ["data", "knn"]


@pytest.mark.parametrize(
    "entry, path, value",
    [
        ("data={download_timeout: 60}", ("data", "download_timeout"), 60),
        ("data={download_timeout: 2.5}", ("data", "download_timeout"), 2.5),
        ("metrics={jaccard_empty: 0}", ("metrics", "jaccard_empty"), 0),
        ("structured={tol: 1e-9}", ("structured", "tol"), 1e-9),  # YAML 1.1 alone reads 1e-9 as text
        ("pcc={standardize: false}", ("pcc", "standardize"), False),
        ("knn={mem_mb: null}", ("knn", "mem_mb"), None),
        ("knn={mm_half: 0}", ("knn", "mm_half"), 0),  # an enum of numbers
        ("knn={neighbours: [1, 5]}", ("knn", "neighbours"), [1, 5]),
        ("trees={max_features: 0.5}", ("trees", "max_features"), 0.5),
        ("trees={max_features: sqrt}", ("trees", "max_features"), "sqrt"),
        ("theory={figure1: {eps: 0.0005}}", ("theory", "figure1", "eps"), 0.0005),
        ("catalog={scene: {zero_based_features: true}}", ("catalog", "scene", "zero_based_features"), True),
        ("parametric={learners: [BR, EFP]}", ("parametric", "learners"), ["BR", "EFP"]),
        ("report={title: 2014}", ("report", "title"), "2014"),  # the schema wants text here: kept as written
        ("peers={peers: {mlknn: {grid: {k: [5, 7]}}}}", ("peers", "peers", "mlknn", "grid", "k"), [5, 7]),
        (
            "peers={peers: {boomer: {grid: {shrinkage: [0.3]}}}}",
            ("peers", "peers", "boomer", "grid", "shrinkage"),
            [0.3],
        ),
        ("peers={peers: {mlknn: {grid: {k: [x]}}}}", ("peers", "peers", "mlknn", "grid", "k"), ["x"]),  # text or number
    ],
)
def test_typed_values_in_nested_overrides_are_read_as_the_schema_types(entry, path, value):
    cfg = check_config(_with_cli(entry), SCHEMA)
    node = cfg
    for key in path:
        node = node[key]
    assert node == value and type(node) is type(value)
    assert [type(v) for v in node] == [type(v) for v in value] if isinstance(value, list) else True


@pytest.mark.parametrize(
    "entry, line",
    [
        ("data={download_timeout: soon}", "config key 'data.download_timeout': 'soon' is not of type 'number'"),
        ("data={download_timeout: -5}", "config key 'data.download_timeout': -5 is less than or equal to the minimum"),
        ("pcc={standardize: maybe}", "config key 'pcc.standardize': 'maybe' is not of type 'boolean'"),
        ("knn={neighbours: [1, x]}", "config key 'knn.neighbours': 'x' is not of type 'integer'"),
        ("nosuchkey=1", "config key 'nosuchkey' is unknown; valid keys here: ablations, catalog, data,"),
        ("data={nosuch: 1}", "config key 'data.nosuch' is unknown; valid keys here: dir, download_timeout,"),
        ("data={timeout: 1}", "config key 'data.timeout' is unknown; did you mean 'data.download_timeout'?"),
        ("knn=3", "config key 'knn': 3 is not of type 'object'"),
        (
            "trees={max_features: most}",
            "config key 'trees.max_features': 'most' is not of type 'null' or is not of type 'integer' or "
            "is not of type 'number' or is not one of ['sqrt']",
        ),
        ("datasets=scene,nosuch", "config key 'datasets': unknown dataset(s) ['nosuch']; the catalog knows ["),
        ("datasets=scene,scene", "config key 'datasets': duplicate names in ['scene', 'scene']"),
        ("peers={run: [mlknn]}", None),
        ("datasets=>", "config key 'datasets': '' is not of type 'array'"),  # Snakemake reads '>' as ''
        ("stages= , ", "config key 'stages': ' , ' is not of type 'array'"),  # no name: not an empty list
    ],
)
def test_wrong_values_in_overrides_are_one_line_naming_the_key(entry, line):
    if line is None:  # a valid override, for contrast
        assert check_config(_with_cli(entry), SCHEMA)["peers"]["run"] == ["mlknn"]
        return
    assert _one_line([entry]).startswith(line)


_SETTING = "reading: r, default: d, default_because: b"


@pytest.mark.parametrize(
    "entry, line",
    [
        (
            "voting={members: [{name: x, fit: nosuch}]}",
            "config key 'voting.members[0].fit': unknown fit 'nosuch'; voting.fits defines ['br', 'br_wide', 'efp', 'pcc']",
        ),
        (
            "voting={members: [{name: x, fit: br}, {name: x, fit: pcc}]}",
            "config key 'voting.members': names must be unique, got ['x', 'x']",
        ),
        (
            f"ablations={{settings: {{few: {{stage: pcc, overrides: {{table4: {{samples: 9}}}}, {_SETTING}}}}}}}",
            "config key 'ablations.settings.few.overrides.table4.samples' is unknown; did you mean "
            "'ablations.settings.few.overrides.table4.n_samples'?",
        ),
        (
            f"ablations={{settings: {{few: {{stage: pcc, overrides: {{table4: {{n_samples: 0}}}}, {_SETTING}}}}}}}",
            "config key 'ablations.settings.few.overrides.table4.n_samples': 0 is less than the minimum of 1",
        ),
    ],
)
def test_names_that_must_exist_elsewhere_in_the_config_are_one_line(entry, line):
    assert _one_line([entry]) == line


@pytest.mark.parametrize(
    "entry, line",
    [
        (
            "dataset_overrides={nosuch: {voting: {refit: false}}}",
            "config key 'dataset_overrides.nosuch': unknown dataset; the catalog knows ['bibtex', 'birds',",
        ),
        (
            "dataset_overrides={scene: {voting: {refitt: false}}}",
            "config key 'dataset_overrides.scene.voting.refitt' is unknown; did you mean "
            "'dataset_overrides.scene.voting.refit'?",
        ),
        (
            "dataset_overrides={scene: {voting: {refit: maybe}}}",
            "config key 'dataset_overrides.scene.voting.refit': 'maybe' is not of type 'boolean'",
        ),
        ("dataset_overrides={scene: {peers: {cv: 2}}}", "config key 'dataset_overrides.scene.peers' is unknown"),
        ("dataset_overrides={scene: 3}", "config key 'dataset_overrides.scene': '3' is not of type 'object'"),
        (
            "dataset_overrides={scene: {parametric: {learners: [BR]}}}",
            "config key 'dataset_overrides.scene.parametric.learners': cannot differ between datasets",
        ),
        (
            "dataset_overrides={yeast: {pcc: {figure5: {n_samples: [10]}}}}",
            "config key 'dataset_overrides.yeast.pcc.figure5.n_samples': cannot differ between datasets",
        ),
        (
            "dataset_overrides={enron: {voting: {members: [{name: x, fit: br}]}}}",
            "config key 'dataset_overrides.enron.voting.members': cannot differ between datasets",
        ),
    ],
)
def test_wrong_dataset_overrides_are_one_line_naming_the_key(entry, line):
    assert _one_line([entry]).startswith(line)


def test_the_stages_that_take_dataset_overrides_are_those_of_the_schema_and_their_keys_exist():
    schema = yaml.safe_load(SCHEMA.read_text())
    assert set(schema["properties"]["dataset_overrides"]["additionalProperties"]["properties"]) == set(OVERRIDE_STAGES)
    for stage, paths in FIXED_KEYS.items():
        assert stage in OVERRIDE_STAGES
        for path in paths:  # each fixed key is a real key of its stage's block
            node = schema["properties"][stage]
            for key in path:
                node = node["properties"][key]


def test_dataset_overrides_are_read_as_the_stage_types_and_change_that_dataset_alone():
    cfg = check_config(
        _with_cli("dataset_overrides={scene: {structured: {tol: 1e-9}, voting: {refit: false}}}"), SCHEMA
    )
    assert cfg["dataset_overrides"]["scene"] == {"structured": {"tol": 1e-9}, "voting": {"refit": False}}
    assert type(cfg["dataset_overrides"]["scene"]["structured"]["tol"]) is float  # YAML 1.1 alone reads text
    scene, yeast = dataset_view(cfg, "scene"), dataset_view(cfg, "yeast")
    assert scene["structured"]["tol"] == 1e-9 and scene["voting"]["refit"] is False
    assert yeast["structured"]["tol"] == 1e-3 and yeast["voting"]["refit"] is True  # config.yaml's values
    assert scene["structured"]["Cs"] == yeast["structured"]["Cs"]  # keys not overridden stay the stage's
    assert cfg["structured"]["tol"] == 1e-3 and cfg["voting"]["refit"] is True  # the blocks themselves unchanged
    assert override_lines(cfg, ["scene"]) == ["scene: structured.tol = 1e-09; voting.refit = false"]
    # the default config gives delicious alone a protocol of its own, added to by the command line
    assert set(cfg["dataset_overrides"]) == {"scene", "delicious"}
    default = check_config(_with_cli(), SCHEMA)
    assert set(default["dataset_overrides"]) == {"delicious"}
    delicious = dataset_view(default, "delicious")
    assert delicious["structured"] == default["structured"]  # RML: the paper's grid, as every dataset
    assert delicious["voting"]["refit"] is False and delicious["parametric"]["patience"] == 1
    assert (
        delicious["pcc"]["figure5"]["runs"] == 3
        and delicious["pcc"]["figure5"]["n_samples"] == yeast["pcc"]["figure5"]["n_samples"]
    )
    assert override_lines(default, default["datasets"]) == []  # not in the default list: the report says nothing


def test_ablation_overrides_are_read_as_the_stage_types():
    entry = f"ablations={{settings: {{few: {{stage: pcc, overrides: {{table4: {{n_samples: 9}}}}, {_SETTING}}}}}}}"
    overrides = check_config(_with_cli(entry), SCHEMA)["ablations"]["settings"]["few"]["overrides"]
    assert overrides == {"table4": {"n_samples": 9}} and type(overrides["table4"]["n_samples"]) is int


def test_exit_on_config_error_prints_the_one_line_and_exits_1(capsys):
    with pytest.raises(SystemExit) as stop:
        exit_on_config_error(check_config, _with_cli("stages=data,knnn"), SCHEMA)
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: config key 'stages': 'knnn' is not one of") and err.count("\n") == 1


def test_as_list_accepts_yaml_lists_and_comma_strings():
    assert as_list("scene, yeast", "datasets") == ["scene", "yeast"]
    assert as_list(["scene"], "datasets") == ["scene"]
    with pytest.raises(ConfigError, match="'datasets'"):
        as_list(3, "datasets")


def _config(tmp_path, on_missing="skip"):
    cfg = with_catalog(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
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
    files = load_catalog()["mediamill"]["files"]
    base = (
        "https://media.githubusercontent.com/media/mrapp-ke/Boomer-Datasets/f7e13d57a83f95c00098252641d69f78a8d0c204/"
    )
    assert [files[k]["url"] for k in ("train", "test", "xml")] == [
        base + "mediamill_training.arff",
        base + "mediamill_test.arff",
        base + "mediamill.xml",
    ]


def test_content_entry_leaves_out_sources_and_adds_the_nominal_mode():
    cfg = with_catalog(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    entry = content_entry(cfg, "scene")
    assert "url" not in entry["files"]["train"] and "homepage" not in entry and entry["nominal"] == "onehot"
    assert "citation" not in entry and "description" not in entry  # describing the data changes no content
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
