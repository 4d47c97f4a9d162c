"""Every dataset of the full-data mirror parses to the counts its MANIFEST.md states.

The counts and checksums are read from the mirror's MANIFEST.md (written when the files were staged,
from their ARFF headers and data sections), independently of this package. The package's catalog
must agree with them, and parsing must find them. Skipped, with the reason, when
no mirror is found (CI sets FMEASURE_DATA_MIRROR).
"""

import re

import numpy as np
import pytest
from _mirror import full_mirror, no_mirror_reason

from fmeasure import datasets as D

MIRROR = full_mirror()
pytestmark = pytest.mark.skipif(MIRROR is None, reason=no_mirror_reason())

CATALOG = D.load_catalog()
# MANIFEST name -> catalog names parsed from its files.
NAMES = {
    "scene": ["scene"],
    "yeast": ["yeast", "yeast-libsvm"],
    "enron": ["enron"],
    "bibtex": ["bibtex"],
    "delicious": ["delicious"],
    "tmc2007": ["tmc2007-500"],
    "flags": ["flags"],
    "genbase": ["genbase"],
    "emotions": ["emotions"],
    "birds": ["birds"],
    "medical": ["medical"],
    "corel5k": ["corel5k"],
}


def _manifest():
    """(counts by MANIFEST dataset name, sha256 by file name) from MANIFEST.md."""
    text = (MIRROR / "MANIFEST.md").read_text()
    counts, sha = {}, {}
    for name, a, b, c, d in re.findall(
        r"^\| (\w+)\s*\|[^\n]*?\| (\d+) / (\d+) / (\d+) / (\d+): exact match[^|\n]*\|$", text, re.M
    ):
        counts[name.lower()] = (int(a), int(b), int(c), int(d))
    for name, a, b, c, d in re.findall(
        r"^\| (\w+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| \S+ \| [0-9a-f]{64} \|", text, re.M
    ):
        counts[name] = (int(a), int(b), int(c), int(d))
    # the later sections: one row per file, "<n> rows, <a> attrs = <d> features + <m> labels"
    rows = {}
    for name, part, n, d, m in re.findall(
        r"^\| (\w+)/[\w-]*?-(train|test)[\w-]*\.arff\.gz \|.*\| (\d+) rows, \d+ attrs = (\d+) features \+ (\d+) labels \|$",
        text,
        re.M,
    ):
        rows.setdefault(name, {})[part] = (int(n), int(d), int(m))
    for name, parts in rows.items():
        if {"train", "test"} <= set(parts) and parts["train"][1:] == parts["test"][1:]:
            counts.setdefault(name, (parts["train"][0], parts["test"][0], parts["train"][2], parts["train"][1]))
    for line in text.splitlines():
        path = re.search(r"\| ([\w-]+/(?:[\w-]+/)?[\w.-]+?\.(?:arff|xml|svm))(?:\.gz)?\s+\|", line)
        digest = re.search(r"\| ([0-9a-f]{64}) \|", line)
        if path and digest and line.startswith("|"):
            sha[path.group(1).rsplit("/", 1)[-1]] = digest.group(1)
    return counts, sha


COUNTS, SHA = _manifest() if MIRROR is not None else ({}, {})
CASES = [(m, c) for m, names in NAMES.items() for c in names]


def test_manifest_lists_every_mirrored_dataset():
    assert set(NAMES) <= set(COUNTS), sorted(COUNTS)
    assert {"scene-train.arff", "yeast_test.svm", "genbase.xml", "tmc2007-500-test.arff"} <= set(SHA), sorted(SHA)
    assert {"emotions-train.arff", "birds.xml", "Corel5k-test-sparse.arff"} <= set(SHA), sorted(SHA)


@pytest.mark.parametrize("manifest_name, name", CASES)
def test_mirror_dataset_parses_to_manifest_counts(manifest_name, name, tmp_path):
    entry = CATALOG[name]
    n_train, n_test, m, d = COUNTS[manifest_name]
    assert entry["expected"] == {"n_train": n_train, "n_test": n_test, "m": m, "d": d}
    for spec in entry["files"].values():
        if spec["name"] in SHA:
            assert spec["sha256"] == SHA[spec["name"]], spec["name"]
        D.fetch_file(
            tmp_path / spec["name"], sha256=spec["sha256"], mirrors=[str(MIRROR)], subdir=entry.get("mirror_dir", name)
        )
    ds = D.parse(name, entry, tmp_path)
    assert (ds.Y_train.shape[0], ds.Y_test.shape[0], ds.n_labels, ds.n_attributes) == (n_train, n_test, m, d)
    assert ds.X_train.shape == (n_train, ds.n_features) and ds.X_test.shape == (n_test, ds.n_features)
    assert len(set(ds.label_names)) == m and set(np.unique(ds.Y_train)) <= {0, 1}


def test_mirror_flags_and_genbase_nominal_features_are_encoded(tmp_path):
    # flags: 19 attributes, of which landmass (6), zone (4), language (10), religion (8) have more
    # than two categories: 15 columns kept as they are + 28 one-hot columns. genbase: protein is an
    # identifier (dropped), the other 1185 are {YES,NO}: one column each, 1 for YES.
    for name, columns in (("flags", 15 + 6 + 4 + 10 + 8), ("genbase", 1185)):
        entry = CATALOG[name]
        raw = tmp_path / name
        for spec in entry["files"].values():
            D.fetch_file(raw / spec["name"], sha256=spec["sha256"], mirrors=[str(MIRROR)], subdir=name)
        ds = D.parse(name, entry, raw)
        assert ds.n_features == columns, name
        assert "protein" not in ds.feature_names
        if name == "genbase":
            assert set(np.unique(ds.X_train)) == {0.0, 1.0}


def test_mediamill_catalog_urls_and_checksums_match_the_manifest():
    text = (MIRROR / "MANIFEST.md").read_text()
    commit = re.search(r"mrapp-ke/Boomer-Datasets : mediamill\.xml @ ([0-9a-f]{40})", text).group(1)
    expected = {}
    for local, boomer, sha, size in re.findall(
        r"^\| (mediamill-\w+\.arff) \(Boomer (?:name )?`(\w+\.arff)`\) \| ([0-9a-f]{64}) \| (\d+) \|", text, re.M
    ):
        expected[local] = (boomer, sha, int(size))
    xml = re.search(r"^\| mediamill/mediamill\.xml \| [^|]+ \| ([0-9a-f]{64}) \| (\d+) \|", text, re.M)
    expected["mediamill.xml"] = ("mediamill.xml", xml.group(1), int(xml.group(2)))
    files = CATALOG["mediamill"]["files"]
    assert {f["name"] for f in files.values()} == {"mediamill-train.arff", "mediamill-test.arff", "mediamill.xml"}
    for spec in files.values():
        boomer, sha, size = expected[spec["name"]]
        assert spec["url"] == f"https://media.githubusercontent.com/media/mrapp-ke/Boomer-Datasets/{commit}/{boomer}"
        assert (spec["sha256"], spec["bytes"]) == (sha, size)
    assert CATALOG["mediamill"]["expected"] == {"n_train": 30993, "n_test": 12914, "m": 101, "d": 120}
