"""Bad input through the real Snakemake engine: one line naming the culprit, rc != 0, no traceback
on the terminal (it goes to the rule's log), and no partial file left where an output belongs."""

import copy
import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _mirror import ROOT, TEST_DATA, snakemake_env
from _workflow import run_snakemake
from snakemake.cli import parse_config
from snakemake.utils import update_config

from fmeasure.experiments.config import ConfigError, check_config

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

SMOKE = ROOT / "config" / "smoke.yaml"
SCENE_TRAIN_SHA = "2e75fe0eab11477c7b9266619b557dc899c72534bb2ba0fe125d215f64e4c0b2"


def _snakemake(workdir: Path, *args, mirror=None):
    return run_snakemake(workdir, *args, configs=(), cores=1, mirror=mirror, timeout=600, check=False)


def _the_one_line(out, needle: str) -> str:
    """The single terminal line mentioning ``needle``; fails if there are none, several, or a traceback."""
    text = out.stdout + out.stderr
    assert out.returncode != 0, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    lines = [line for line in text.splitlines() if needle in line]
    assert len(lines) == 1, text[-3000:]
    return lines[0]


def _extra(tmp_path, text: str) -> Path:
    path = tmp_path / "extra.yaml"
    path.write_text(text)
    return path


def test_misspelt_config_key_is_one_line_with_a_suggestion(tmp_path):
    bad = _extra(tmp_path, "knn: {neighbors: [3]}\n")
    out = _snakemake(tmp_path, "-n", "--configfile", str(SMOKE), str(bad))
    line = _the_one_line(out, "neighbors")
    assert line == "Error: config key 'knn.neighbors' is unknown; did you mean 'knn.neighbours'?"
    assert "additionalProperties" not in out.stdout + out.stderr  # no schema dump


def test_unknown_dataset_name_is_one_line(tmp_path):
    out = _snakemake(tmp_path, "-n", "--configfile", str(SMOKE), "--config", "datasets=scene-smal")
    line = _the_one_line(out, "scene-smal'")
    assert line.startswith("Error: config key 'datasets': unknown dataset(s) ['scene-smal']")


def test_unknown_stage_is_one_line_listing_the_stages(tmp_path):
    out = _snakemake(tmp_path, "-n", "--configfile", str(SMOKE), "--config", "stages=data,knnn")
    line = _the_one_line(out, "knnn")
    assert line.startswith("Error: config key 'stages': 'knnn' is not one of ['data', 'theory', 'simulations',")


def test_a_number_in_a_nested_override_is_a_number(tmp_path):
    out = _snakemake(tmp_path, "-n", "--configfile", str(SMOKE), "--config", "data={download_timeout: 60}")
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]


def test_checksum_mismatch_in_a_mirror_is_one_line_and_leaves_no_file(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "scene-small").mkdir(parents=True)
    good = gzip.decompress((TEST_DATA / "scene-small" / "scene-small-train.arff.gz").read_bytes())
    bad = good.replace(b"@data", b"% tampered\n@data", 1)
    (mirror / "scene-small" / "scene-small-train.arff").write_bytes(bad)
    work = tmp_path / "work"
    out = _snakemake(work, "data/parsed/scene-small.npz", "--configfile", str(SMOKE), mirror=mirror)
    line = _the_one_line(out, "sha256 mismatch")
    assert line == (
        f"Error in fetch_dataset_file: {mirror}/scene-small/scene-small-train.arff: sha256 mismatch for "
        f"scene-small-train.arff: expected {SCENE_TRAIN_SHA}, got {hashlib.sha256(bad).hexdigest()}"
    )
    assert not (work / "data" / "raw" / "scene-small" / "scene-small-train.arff").exists()
    assert not any((work / "data" / "raw" / "scene-small").glob(".*"))  # no temporary file either
    log = (work / "logs" / "data" / "fetch_scene-small_scene-small-train.arff.log").read_text()
    assert "Traceback" in log and "sha256 mismatch" in log


def _broken_dataset(tmp_path, train: bytes, extra_entry: str = ""):
    """A catalog entry 'broken' whose train file is ``train`` (the rest: scene-small's test and XML)."""
    mirror = tmp_path / "mirror"
    (mirror / "broken").mkdir(parents=True)
    (mirror / "broken" / "broken-train.arff").write_bytes(train)
    sha = hashlib.sha256(train).hexdigest()
    return mirror, _extra(
        tmp_path,
        f"""datasets: [broken]
catalog:
  broken:
    format: arff
    mirror_dir: broken
    files:
      train: {{name: broken-train.arff, sha256: {sha}}}
      test: {{name: scene-small-test.arff, sha256: 5b5c95062b1c49f0bae62454eab6e0e7fcf736de4ddb0689ae66f069fb9c093a}}
      xml: {{name: scene.xml, sha256: 55d8b247b949ad5c52e5a73d8c6775ec6e5469ce9682465b45b333b68ee4bcc5}}
    expected: {{n_train: 100, n_test: 50, m: 6, d: 294}}
{extra_entry}""",
    )


@pytest.fixture
def scene_copies(tmp_path):
    """scene-small's test and XML files, also under the 'broken' mirror folder."""

    def make(mirror):
        for f in ("scene-small-test.arff.gz", "scene.xml"):
            (mirror / "broken" / f).write_bytes((TEST_DATA / "scene-small" / f).read_bytes())

    return make


def test_unparsable_arff_is_one_line_and_leaves_no_cache(tmp_path, scene_copies):
    good = gzip.decompress((TEST_DATA / "scene-small" / "scene-small-train.arff.gz").read_bytes())
    head, rows = good.split(b"@data\n", 1)
    broken = head + b"@data\n" + rows.split(b"\n", 1)[0].rsplit(b",", 3)[0] + b"\n" + rows.split(b"\n", 1)[1]
    mirror, extra = _broken_dataset(tmp_path, broken)
    scene_copies(mirror)
    work = tmp_path / "work"
    out = _snakemake(work, "data/parsed/broken.npz", "--configfile", str(SMOKE), str(extra), mirror=mirror)
    line = _the_one_line(out, "cannot parse ARFF")
    assert line.startswith(
        "Error in parse_dataset: data/raw/broken/broken-train.arff: cannot parse ARFF (BadDataFormat: Bad @DATA instance format in line"
    )
    assert len(line) < 300
    assert not (work / "data" / "parsed" / "broken.npz").exists()


def test_counts_differing_from_the_catalog_are_one_line(tmp_path, scene_copies):
    train = gzip.decompress((TEST_DATA / "scene-small" / "scene-small-train.arff.gz").read_bytes())
    mirror, extra = _broken_dataset(tmp_path, train)
    extra.write_text(extra.read_text().replace("n_train: 100", "n_train: 101"))
    scene_copies(mirror)
    out = _snakemake(tmp_path / "work", "data/parsed/broken.npz", "--configfile", str(SMOKE), str(extra), mirror=mirror)
    line = _the_one_line(out, "n_train is 100")
    assert line == (
        "Error in parse_dataset: data/raw/broken/broken-train.arff: n_train is 100 but catalog entry "
        "'broken' expects 101"
    )


def test_nominal_error_mode_is_one_line_naming_the_feature(tmp_path):
    extra = _extra(tmp_path, "data: {nominal: error}\n")
    out = _snakemake(
        tmp_path / "work",
        "data/parsed/flags.npz",
        "--configfile",
        str(SMOKE),
        str(ROOT / "tests" / "configs" / "nominal.yaml"),
        str(extra),
    )
    line = _the_one_line(out, "is nominal with")
    assert line == (
        "Error in parse_dataset: dataset 'flags': feature 'landmass' is nominal with 6 categories "
        "(set nominal: onehot or ordinal)"
    )


#: Runs Snakemake's command line in this process after wrapping check_config, so that the config
#: the Snakefile hands it (config.yaml, then --configfile, then --config) is written to argv[1].
PROBE = """
import json, sys
import fmeasure.experiments.config as config_module
checked = config_module.check_config
def check_config(config, schema):
    with open(sys.argv[1], "w") as fh:
        json.dump(config, fh)
    return checked(config, schema)
config_module.check_config = check_config
from snakemake.cli import main
main(sys.argv[2:])
"""


@pytest.mark.parametrize(
    "entry",
    [
        "stages=data,knn",
        "stages=data,knnn",
        "stages=nosuch",
        "data={download_timeout: 60}",
        "data={download_timeout: soon}",
        "data={timeout: 1}",
        "nosuchkey=1",
        "datasets=scene-small,nosuch",
        "knn={neighbours: [1, x]}",
        "peers={peers: {mlknn: {grid: {k: [5, 7]}}}}",
    ],
)
def test_a_dry_run_reads_the_config_as_the_in_process_check(tmp_path, entry):
    """The in-process path the config tests take (Snakemake's parser and merge, then check_config)
    is what a real ``snakemake -n --config ...`` does: same config handed over, same outcome."""
    probe, seen = tmp_path / "probe.py", tmp_path / "seen.json"
    probe.write_text(PROBE)
    args = ["--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path), "-n", "--cores", "1", "--nocolor"]
    args += ["--configfile", str(SMOKE), "--config", entry]
    out = subprocess.run(
        [sys.executable, str(probe), str(seen), *args], capture_output=True, text=True, timeout=300, env=snakemake_env()
    )
    merged = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    update_config(merged, yaml.safe_load(SMOKE.read_text()))
    update_config(merged, parse_config([entry]))
    assert json.loads(seen.read_text()) == merged
    try:
        check_config(copy.deepcopy(merged), ROOT / "config" / "schema.yaml")
    except ConfigError as error:
        assert _the_one_line(out, "config key") == f"Error: {error}"
    else:
        assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
