"""Datasets: fetch from a mirror, verify, parse by XML label names, and refuse every kind of bad input.

Tiny ARFF/LibSVM files are written by the tests, so expected values are known by construction.
"""

import gzip
import hashlib
import os

import numpy as np
import pytest
import scipy.sparse as sp

from fmeasure import datasets as D

XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="L2"></label>
<label name="L1"></label>
</labels>
"""

# Labels L1, L2 are the last two attributes; the XML lists them in the other order.
DENSE_ARFF = """@relation toy
@attribute a numeric
@attribute b numeric
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
1.0,2.0,1,0
3.0,4.0,0,1
5.0,6.0,1,1
"""

# Sparse ARFF whose last label (index 3) is never 1 and whose last row is empty.
SPARSE_ARFF = """@relation toy
@attribute a numeric
@attribute b numeric
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
{0 1.5,2 1}
{1 2.5}
{}
"""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _entry(train=DENSE_ARFF, test=DENSE_ARFF, xml=XML, n_train=3, n_test=3, m=2, d=2):
    return {
        "format": "arff",
        "files": {
            "train": {"name": "toy-train.arff", "sha256": _sha(train)},
            "test": {"name": "toy-test.arff", "sha256": _sha(test)},
            "xml": {"name": "toy.xml", "sha256": _sha(xml)},
        },
        "expected": {"n_train": n_train, "n_test": n_test, "m": m, "d": d},
    }


def _write_raw(folder, train=DENSE_ARFF, test=DENSE_ARFF, xml=XML):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "toy-train.arff").write_text(train)
    (folder / "toy-test.arff").write_text(test)
    (folder / "toy.xml").write_text(xml)
    return folder


def test_parse_arff_selects_labels_by_xml_names_in_arff_order(tmp_path):
    raw = _write_raw(tmp_path / "raw")
    ds = D.parse("toy", _entry(), raw)
    assert ds.label_names == ["L1", "L2"]  # the dataset's (ARFF) order, not the XML's
    np.testing.assert_array_equal(ds.Y_train, [[1, 0], [0, 1], [1, 1]])
    np.testing.assert_array_equal(ds.X_train, [[1, 2], [3, 4], [5, 6]])
    assert ds.Y_train.dtype == np.int8


def test_parse_sparse_arff_keeps_trailing_empty_rows_and_label_columns(tmp_path):
    raw = _write_raw(tmp_path / "raw", train=SPARSE_ARFF, test=SPARSE_ARFF)
    ds = D.parse("toy", _entry(train=SPARSE_ARFF, test=SPARSE_ARFF), raw)
    np.testing.assert_array_equal(ds.Y_train, [[1, 0], [0, 0], [0, 0]])
    np.testing.assert_array_equal(ds.X_train, [[1.5, 0], [0, 2.5], [0, 0]])


def test_parse_libsvm_multilabel(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    text = "0,2 1:0.5 3:1.0\n1 2:2.0\n"
    (raw / "t.svm").write_text(text)
    (raw / "s.svm").write_text(text)
    entry = {
        "format": "libsvm",
        "zero_based_features": False,
        "files": {"train": {"name": "t.svm", "sha256": _sha(text)}, "test": {"name": "s.svm", "sha256": _sha(text)}},
        "expected": {"n_train": 2, "n_test": 2, "m": 3, "d": 3},
    }
    ds = D.parse("lib", entry, raw)
    np.testing.assert_array_equal(ds.Y_train, [[1, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(ds.X_train, [[0.5, 0, 1.0], [0, 2.0, 0]])


def test_save_load_roundtrip_dense_and_sparse(tmp_path):
    Y = np.array([[1, 0], [0, 1]], dtype=np.int8)
    ds = D.Dataset("x", np.eye(2), Y, sp.csr_matrix(np.eye(2)), Y, ["a", "b"], ["f", "g"])
    D.save(ds, tmp_path / "x.npz")
    back = D.load(tmp_path / "x.npz")
    np.testing.assert_array_equal(back.X_train, np.eye(2))
    assert sp.issparse(back.X_test) and (back.X_test != sp.csr_matrix(np.eye(2))).nnz == 0
    assert back.label_names == ["a", "b"] and back.name == "x"


def test_summary_counts_cardinality_and_distinct_sets():
    Y = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.int8)
    ds = D.Dataset("x", np.zeros((3, 4)), Y, np.zeros((1, 4)), Y[:1], ["a", "b"], list("abcd"))
    row = D.summary(ds)
    assert (row["n_train"], row["n_test"], row["m"], row["d"]) == (3, 1, 2, 4)
    assert row["cardinality"] == pytest.approx(5 / 4)
    assert row["density"] == pytest.approx(5 / 8)
    assert row["distinct_label_sets"] == 3


# ------------------------------------------------------------------- fetching


def test_fetch_from_gzip_mirror_verifies_and_decompresses(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror" / "toy"
    mirror.mkdir(parents=True)
    with gzip.open(mirror / "toy-train.arff.gz", "wt") as fh:
        fh.write(DENSE_ARFF)
    monkeypatch.setenv(D.MIRROR_ENV, str(tmp_path / "mirror"))
    target = tmp_path / "data" / "toy-train.arff"
    origin = D.fetch_file(target, sha256=_sha(DENSE_ARFF), subdir="toy")
    assert origin.endswith("toy-train.arff.gz")
    assert target.read_text() == DENSE_ARFF


def test_fetch_checksum_mismatch_names_file_and_both_checksums(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy-train.arff").write_text(DENSE_ARFF + "% tampered\n")
    target = tmp_path / "data" / "toy-train.arff"
    expected = _sha(DENSE_ARFF)
    actual = _sha(DENSE_ARFF + "% tampered\n")
    with pytest.raises(D.DatasetError) as err:
        D.fetch_file(target, sha256=expected, mirrors=[str(mirror)])
    msg = str(err.value)
    assert "toy-train.arff" in msg and expected in msg and actual in msg and "\n" not in msg
    assert not target.exists() and os.listdir(target.parent) == []


def test_fetch_truncated_gzip_is_refused_without_partial_file(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    blob = gzip.compress(DENSE_ARFF.encode() * 50)
    (mirror / "toy-train.arff.gz").write_bytes(blob[: len(blob) // 2])
    target = tmp_path / "data" / "toy-train.arff"
    with pytest.raises(D.DatasetError, match="corrupt or truncated"):
        D.fetch_file(target, sha256=_sha(DENSE_ARFF), mirrors=[str(mirror)])
    assert os.listdir(target.parent) == []


def test_fetch_empty_file_is_refused(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy-train.arff").write_text("")
    with pytest.raises(D.DatasetError, match="empty file"):
        D.fetch_file(tmp_path / "d" / "toy-train.arff", sha256=_sha(""), mirrors=[str(mirror)])


def test_fetch_missing_everywhere_says_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.delenv(D.MIRROR_ENV, raising=False)
    with pytest.raises(D.DatasetError, match="does not exist"):
        D.fetch_file(tmp_path / "d" / "x.arff", sha256="0" * 64, mirrors=[str(tmp_path / "nowhere")])


def test_unreadable_mirror_folder_is_a_clear_error(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    # chmod 0 does not stop root (CI runs as root), so make the permission check answer "no".
    monkeypatch.setattr(D.os, "access", lambda path, mode: False)
    with pytest.raises(D.DatasetError, match=f"{mirror}: data mirror folder is not a readable directory"):
        D.find_in_mirror([mirror], "toy", "x.arff")


def test_mirror_that_is_not_a_directory_is_a_clear_error(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.write_text("not a folder")
    with pytest.raises(D.DatasetError, match="not a readable directory"):
        D.find_in_mirror([mirror], "toy", "x.arff")


# ------------------------------------------------------------------- bad input at parse time


def test_label_count_differs_from_catalog(tmp_path):
    raw = _write_raw(tmp_path / "raw")
    with pytest.raises(D.DatasetError, match=r"toy\.xml: m is 2 but catalog entry 'toy' expects 3"):
        D.parse("toy", _entry(m=3), raw)


def test_row_count_differs_from_catalog(tmp_path):
    raw = _write_raw(tmp_path / "raw")
    with pytest.raises(D.DatasetError, match=r"toy-train\.arff: n_train is 3 but .* expects 4"):
        D.parse("toy", _entry(n_train=4), raw)


def test_xml_names_attribute_missing_from_arff(tmp_path):
    xml = XML.replace('name="L2"', 'name="Nope"')
    raw = _write_raw(tmp_path / "raw", xml=xml)
    with pytest.raises(D.DatasetError, match=r"toy-train\.arff: the XML label file names attributes missing .*Nope"):
        D.parse("toy", _entry(xml=xml), raw)


def test_truncated_arff_is_refused(tmp_path):
    broken = DENSE_ARFF.rsplit("\n", 3)[0] + "\n5.0,6.0,1\n"  # last row lacks a value
    raw = _write_raw(tmp_path / "raw", train=broken)
    with pytest.raises(D.DatasetError, match=r"toy-train\.arff: cannot parse ARFF"):
        D.parse("toy", _entry(train=broken), raw)


def test_empty_raw_file_is_refused(tmp_path):
    raw = _write_raw(tmp_path / "raw", train="")
    with pytest.raises(D.DatasetError, match=r"toy-train\.arff: empty file"):
        D.parse("toy", _entry(train=""), raw)


def test_not_an_arff_and_bad_xml(tmp_path):
    raw = _write_raw(tmp_path / "raw", train="hello\n")
    with pytest.raises(D.DatasetError, match="not an ARFF file"):
        D.parse("toy", _entry(train="hello\n"), raw)
    raw2 = _write_raw(tmp_path / "raw2", xml="<labels")
    with pytest.raises(D.DatasetError, match="not a valid MULAN XML"):
        D.parse("toy", _entry(xml="<labels"), raw2)


def test_load_missing_cache_names_the_file(tmp_path):
    with pytest.raises(D.DatasetError, match="no parsed dataset here"):
        D.load(tmp_path / "nope.npz")


def test_availability_reports_missing_files_and_how_to_skip(tmp_path, monkeypatch):
    monkeypatch.delenv(D.MIRROR_ENV, raising=False)
    entry = _entry()
    msg = D.availability("toy", entry, tmp_path / "data", mirrors=[str(tmp_path)])
    assert "toy-train.arff" in msg and "--config datasets=" in msg
    entry["files"]["train"]["url"] = entry["files"]["test"]["url"] = entry["files"]["xml"]["url"] = "http://x"
    assert D.availability("toy", entry, tmp_path / "data") is None
