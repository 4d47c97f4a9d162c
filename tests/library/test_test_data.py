"""The data slices shipped in tests/data are the files their README and the smoke config describe."""

import gzip
import hashlib
import re

import yaml
from _mirror import ROOT, TEST_DATA


def _readme_rows():
    text = (TEST_DATA / "README.md").read_text()
    return re.findall(r"^\| ([\w./-]+) \| [\w.-]+ \| [^|]+ \| ([0-9a-f]{64}) \| (\d+) \|$", text, re.M)


def test_test_data_files_match_their_readme_sha256_and_size():
    rows = _readme_rows()
    listed = {path for path, _, _ in rows}
    on_disk = {str(p.relative_to(TEST_DATA)) for p in TEST_DATA.rglob("*") if p.is_file() and p.name != "README.md"}
    assert listed == on_disk
    for path, sha, size in rows:
        blob = (TEST_DATA / path).read_bytes()
        content = gzip.decompress(blob) if path.endswith(".gz") else blob
        assert hashlib.sha256(content).hexdigest() == sha, path
        assert len(content) == int(size), path


def test_test_data_stays_small():
    # the slices, and emotions whole (156 kB gzipped) for the documentation's examples
    total = sum(p.stat().st_size for p in TEST_DATA.rglob("*") if p.is_file())
    assert total < 450_000, total


def test_smoke_config_catalog_uses_the_shipped_slices():
    smoke = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    readme = {path.rsplit("/", 1)[-1].removesuffix(".gz"): sha for path, sha, _ in _readme_rows()}
    for name in smoke["datasets"]:
        for spec in smoke["catalog"][name]["files"].values():
            assert readme[spec["name"]] == spec["sha256"], (name, spec["name"])
