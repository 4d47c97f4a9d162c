"""Datasets: fetch from a mirror, verify, parse by XML label names, and refuse every kind of bad input.

Tiny ARFF/LibSVM files are written by the tests, so expected values are known by construction.
"""

import gzip
import hashlib
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import yaml

from fmeasure import datasets as D
from fmeasure.experiments.data import summary
from fmeasure.experiments.knn import describe_empty_label_sets

ROOT = Path(__file__).resolve().parents[2]

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


def test_parse_libsvm_without_expected_counts_takes_the_largest_indices(tmp_path):
    # train's largest feature index is 3 and label index 2; test reaches feature 4 and label 3:
    # both files read together, so both get 4 columns and 4 labels
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "t.svm").write_text("0,2 1:0.5 3:1.0\n1 2:2.0\n")
    (raw / "s.svm").write_text("3 4:1.5\n")
    entry = {
        "format": "libsvm",
        "zero_based_features": False,
        "files": {"train": {"name": "t.svm", "sha256": "0" * 64}, "test": {"name": "s.svm", "sha256": "0" * 64}},
    }
    ds = D.parse("lib", entry, raw)
    np.testing.assert_array_equal(ds.Y_train, [[1, 0, 1, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(ds.Y_test, [[0, 0, 0, 1]])
    np.testing.assert_array_equal(ds.X_test, [[0, 0, 0, 1.5]])
    assert ds.label_names == ["0", "1", "2", "3"] and ds.n_attributes == 4


def test_parse_reads_gzip_raw_files_as_the_plain_ones(tmp_path):
    plain = _write_raw(tmp_path / "plain")
    packed = tmp_path / "packed"
    packed.mkdir()
    for f in plain.iterdir():  # every file gzip-compressed, named <file>.gz as in a mirror
        with gzip.open(packed / f"{f.name}.gz", "wb") as fh:
            fh.write(f.read_bytes())
    a, b = D.parse("toy", _entry(), plain), D.parse("toy", _entry(), packed)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    np.testing.assert_array_equal(b.Y_test, [[1, 0], [0, 1], [1, 1]])
    assert a.label_names == b.label_names == ["L1", "L2"]


def test_parse_without_expected_counts_checks_nothing_and_reads_the_data(tmp_path):
    raw = _write_raw(tmp_path / "raw")
    entry = _entry()
    del entry["expected"]
    ds = D.parse("toy", entry, raw)
    assert (ds.Y_train.shape, ds.X_test.shape) == ((3, 2), (3, 2))
    entry["expected"] = {"m": 2}  # a partial block: only what is given is checked
    assert D.parse("toy", entry, raw).n_labels == 2
    entry["expected"] = {"n_test": 4}
    with pytest.raises(D.DatasetError, match=r"toy-test\.arff: n_test is 3 but catalog entry 'toy' expects 4"):
        D.parse("toy", entry, raw)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda e: e.pop("format"), "catalog entry 'toy': unknown format None"),
        (lambda e: e.pop("files"), "catalog entry 'toy': files.train.name is missing"),
        (lambda e: e["files"].pop("xml"), "catalog entry 'toy': files.xml.name is missing"),
        (lambda e: e["files"]["test"].pop("name"), "catalog entry 'toy': files.test.name is missing"),
    ],
)
def test_an_incomplete_entry_is_a_dataset_error_naming_the_key(tmp_path, change, words):
    raw = _write_raw(tmp_path / "raw")
    entry = _entry()
    change(entry)
    with pytest.raises(D.DatasetError) as err:
        D.parse("toy", entry, raw)
    assert str(err.value).startswith(words) and "\n" not in str(err.value)


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
    row = summary(ds)
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
    monkeypatch.setattr("os.access", lambda path, mode: False)
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
    assert D.availability("toy", entry, tmp_path / "data", probe_timeout=None) is None
    # With a check of the URLs: a machine without internet is told so, before any job runs.
    monkeypatch.setattr("fmeasure.datasets._fetch.url_problem", lambda url, timeout=10: "URLError: offline")
    msg = D.availability("toy", entry, tmp_path / "data")
    assert "download failed: http://x (URLError: offline)" in msg
    monkeypatch.setattr("fmeasure.datasets._fetch.url_problem", lambda url, timeout=10: None)
    assert D.availability("toy", entry, tmp_path / "data") is None


# ------------------------------------------------------------------- ARFF names as Weka/MULAN write them

QUOTED_XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="Bewick&apos;s Wren"></label>
<label name="Brown Creeper"></label>
<label name='say "hi"'></label>
<label name="Grünfink"></label>
<label name="a\\b, 100% {x}"></label>
</labels>
"""

# One attribute per quoting case of Weka's writer: escaped single quote, spaces, double quotes
# escaped inside single quotes, a bare non-ASCII word, and backslash/percent/comma/braces.
QUOTED_ARFF = """% written the way Weka quotes names
@relation 'birds: quoted'
@attribute 'feature one' numeric
@attribute "feature two" numeric
@attribute 'Bewick\\'s Wren' {0,1}
@attribute 'Brown Creeper' {0,1}
@attribute 'say \\"hi\\"' {0,1}
@attribute Grünfink {0,1}
@attribute 'a\\\\b, 100\\% {x}' {0,1}
@data
1.5,2,1,0,0,1,0
3,4,0,1,1,0,1
"""

QUOTED_LABELS = ["Bewick's Wren", "Brown Creeper", 'say "hi"', "Grünfink", "a\\b, 100% {x}"]


def _write_quoted(tmp_path, text=QUOTED_ARFF, xml=QUOTED_XML, d=2):
    raw = tmp_path / "raw"
    raw.mkdir(exist_ok=True)
    for f in ("toy-train.arff", "toy-test.arff"):
        (raw / f).write_text(text, encoding="utf-8")
    (raw / "toy.xml").write_text(xml, encoding="utf-8")
    entry = _entry(train=text, test=text, xml=xml, n_train=2, n_test=2, m=5, d=d)
    return raw, entry


def test_arff_header_reads_names_exactly_as_weka_writes_them(tmp_path):
    path = tmp_path / "q.arff"
    path.write_text(QUOTED_ARFF, encoding="utf-8")
    attrs, sparse, rows = D.read_arff_header(path)
    assert [a for a, _ in attrs] == ["feature one", "feature two", *QUOTED_LABELS]
    assert attrs[0][1] == "NUMERIC" and attrs[2][1] == ["0", "1"]
    assert (sparse, rows) == (False, 2)


@pytest.mark.parametrize("label", QUOTED_LABELS)
def test_parse_finds_each_quoted_label_named_in_the_xml(tmp_path, label):
    raw, entry = _write_quoted(tmp_path)
    ds = D.parse("toy", entry, raw)
    assert ds.label_names == QUOTED_LABELS
    column = ds.label_names.index(label)
    expected = {0: [1, 0], 1: [0, 1], 2: [0, 1], 3: [1, 0], 4: [0, 1]}[column]
    np.testing.assert_array_equal(ds.Y_train[:, column], expected)
    assert ds.feature_names == ["feature one", "feature two"]
    np.testing.assert_array_equal(ds.X_train, [[1.5, 2], [3, 4]])


def test_sparse_arff_with_quoted_names(tmp_path):
    sparse = QUOTED_ARFF.split("@data")[0] + "@data\n{0 1.5,1 2,2 1,5 1}\n{0 3,1 4,3 1,4 1,6 1}\n"
    raw, entry = _write_quoted(tmp_path, text=sparse)
    ds = D.parse("toy", entry, raw)
    assert ds.label_names == QUOTED_LABELS
    np.testing.assert_array_equal(ds.Y_train, [[1, 0, 0, 1, 0], [0, 1, 1, 0, 1]])


def test_arff_with_duplicate_names_after_unquoting_is_refused(tmp_path):
    text = QUOTED_ARFF.replace('@attribute "feature two"', "@attribute 'feature one'")
    path = tmp_path / "dup.arff"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(
        D.DatasetError, match=r"dup\.arff: (duplicate attribute names|cannot parse ARFF header).*feature one"
    ):
        D.read_arff_header(path)


# ------------------------------------------------------------------- nominal features

NOMINAL_XML = XML  # labels L1, L2
# location: 4 categories declared in a non-sorted order; colour: a two-category nominal;
# id: a category per instance (an identifier); size: numeric.
NOMINAL_ARFF = """@relation nominal
@attribute id {p1,p2,p3,p4,p5,p6,p7,p8,p9,p10,p11,p12}
@attribute location {2,10,1,7}
@attribute colour {NO,YES}
@attribute size numeric
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
p1,2,NO,0.5,1,0
p2,10,YES,1.5,0,1
p3,1,YES,2.5,1,1
p4,7,NO,3.5,0,0
p5,10,NO,4.5,1,0
p6,2,YES,5.5,0,1
"""


# The test file: the same rows for other instances (ids p7..p12).
NOMINAL_TEST = (
    NOMINAL_ARFF.split("@data")[0]
    + "@data"
    + "".join(
        f"\np{i + 7}," + row.split(",", 1)[1]
        for i, row in enumerate(NOMINAL_ARFF.split("@data\n")[1].strip().split("\n"))
    )
    + "\n"
)


def _nominal(tmp_path, **kw):
    raw = _write_raw(tmp_path / "raw", train=NOMINAL_ARFF, test=NOMINAL_TEST)
    entry = _entry(train=NOMINAL_ARFF, test=NOMINAL_TEST, n_train=6, n_test=6, m=2, d=4)
    entry.update(kw)
    return raw, entry


def test_nominal_features_are_one_hot_by_default_and_logged_once(tmp_path, caplog):
    raw, entry = _nominal(tmp_path)
    with caplog.at_level("INFO", logger="fmeasure.datasets"):
        ds = D.parse("toy", entry, raw)
    # Identifier dropped; colour one 0/1 column (1 = YES); size as is; location one column per
    # category in declaration order (2, 10, 1, 7).
    assert ds.feature_names == ["colour", "size", "location=2", "location=10", "location=1", "location=7"]
    np.testing.assert_array_equal(
        ds.X_train,
        [
            [0, 0.5, 1, 0, 0, 0],
            [1, 1.5, 0, 1, 0, 0],
            [1, 2.5, 0, 0, 1, 0],
            [0, 3.5, 0, 0, 0, 1],
            [0, 4.5, 0, 1, 0, 0],
            [1, 5.5, 1, 0, 0, 0],
        ],
    )
    assert ds.n_attributes == 4 and summary(ds)["d"] == 4 and summary(ds)["columns"] == 6
    onehot = [r for r in caplog.records if "one-hot" in r.getMessage()]
    ident = [r for r in caplog.records if "identifier" in r.getMessage()]
    assert len(onehot) == 1 and "location (4)" in onehot[0].getMessage()
    assert len(ident) == 1 and "['id']" in ident[0].getMessage()


def test_nominal_ordinal_keeps_declaration_positions(tmp_path):
    raw, entry = _nominal(tmp_path, nominal="ordinal")
    ds = D.parse("toy", entry, raw)
    assert ds.feature_names == ["location", "colour", "size"]
    np.testing.assert_array_equal(ds.X_train[:, 0], [0, 1, 2, 3, 1, 0])


def test_nominal_error_names_the_attribute(tmp_path):
    raw, entry = _nominal(tmp_path)
    with pytest.raises(D.DatasetError, match=r"^dataset 'toy': feature 'location' is nominal with 4 categories"):
        D.parse("toy", entry, raw, nominal="error")
    with pytest.raises(D.DatasetError, match="nominal must be one of"):
        D.parse("toy", entry, raw, nominal="hash")


def test_nominal_one_hot_on_sparse_arff_and_saved_cache(tmp_path):
    def sparse(first):
        return (
            NOMINAL_ARFF.split("@data")[0]
            + "@data\n"
            + "".join(
                f"{{0 p{first + i},1 {loc},3 {i}{',4 1' if i % 2 else ''}}}\n"
                for i, loc in enumerate([2, 10, 1, 7, 10, 2])
            )
        )

    text, test = sparse(1), sparse(7)
    raw = _write_raw(tmp_path / "raw", train=text, test=test)
    ds = D.parse("toy", _entry(train=text, test=test, n_train=6, n_test=6, d=4), raw)
    assert ds.feature_names == ["colour", "size", "location=2", "location=10", "location=1", "location=7"]
    np.testing.assert_array_equal(ds.X_train[:, 2:], np.eye(4)[[0, 1, 2, 3, 1, 0]])
    np.testing.assert_array_equal(ds.X_train[:, 1], np.arange(6))
    D.save(ds, tmp_path / "c.npz")
    back = D.load(tmp_path / "c.npz")
    assert back.n_attributes == 4 and back.feature_names == ds.feature_names


# Two-category nominal features: a yes/no pair (any case, either order) is 1 for yes; any other
# pair is 1 for its second category and named after it.
BOOLEAN_ARFF = """@relation booleans
@attribute motif {YES,NO}
@attribute seen {no,yes}
@attribute live {True,False}
@attribute tf {f,t}
@attribute one {1,0}
@attribute yn {Y,n}
@attribute sex {male,female}
@attribute bit {0,1}
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
YES,no,True,f,1,Y,male,0,1,0
NO,yes,False,t,0,n,female,1,0,1
NO,no,True,t,1,n,female,0,1,1
"""
#: each column is 1 where the row's value is the yes word (sex: where it is female)
BOOLEAN_X = [
    [1, 0, 1, 0, 1, 1, 0, 0],
    [0, 1, 0, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 1, 0, 1, 0],
]
BOOLEAN_NAMES = ["motif", "seen", "live", "tf", "one", "yn", "sex=female", "bit"]


def test_a_yes_no_feature_is_1_for_yes_whatever_its_declared_order(tmp_path, caplog):
    raw = _write_raw(tmp_path / "raw", train=BOOLEAN_ARFF, test=BOOLEAN_ARFF)
    with caplog.at_level("INFO", logger="fmeasure.datasets"):
        ds = D.parse("toy", _entry(train=BOOLEAN_ARFF, test=BOOLEAN_ARFF, d=8), raw)
    assert ds.feature_names == BOOLEAN_NAMES
    np.testing.assert_array_equal(ds.X_train, BOOLEAN_X)
    np.testing.assert_array_equal(ds.X_test, BOOLEAN_X)
    # the declared-yes-first pairs (motif, live, one, yn) are logged, once
    flipped = [r.getMessage() for r in caplog.records if "yes/no" in r.getMessage()]
    assert len(flipped) == 1 and "4 yes/no feature(s)" in flipped[0] and "motif {YES,NO}" in flipped[0]
    # read_mulan reads a user's file by the same rule
    bunch = D.read_mulan(raw / "toy-train.arff", n_labels=2)
    assert bunch.feature_names == BOOLEAN_NAMES
    np.testing.assert_array_equal(bunch.data, BOOLEAN_X)


def test_a_yes_no_feature_of_a_sparse_arff_is_1_for_yes(tmp_path):
    # sparse ARFF: an omitted nominal value is the first category declared (YES for motif, male
    # for sex); the flipped columns stay exact and X stays sparse
    from fmeasure.datasets._parse import read_arff

    head = BOOLEAN_ARFF.split("@data")[0]
    text = head + "@data\n{8 1}\n{0 NO,1 yes,2 False,3 t,4 0,5 n,6 female,7 1,9 1}\n{0 NO,2 True,6 female}\n"
    path = tmp_path / "sparse.arff"
    path.write_text(text)
    attrs, F, _, _ = read_arff(path, ["L1", "L2"])
    assert sp.issparse(F)
    X, _, names = D.encode_features("toy", attrs, F, F[:0])
    assert names == BOOLEAN_NAMES and sp.issparse(X)
    np.testing.assert_array_equal(
        X.toarray(),
        [[1, 0, 1, 0, 1, 1, 0, 0], [0, 1, 0, 1, 0, 0, 1, 1], [0, 0, 1, 0, 1, 1, 1, 0]],
    )


@pytest.mark.parametrize(
    "categories,one",
    [
        (["YES", "NO"], 0),
        (["NO", "YES"], 1),
        (["true", "FALSE"], 0),
        (["F", "T"], 1),
        (["1", "0"], 0),
        (["0", "1"], 1),
        (["y", "n"], 0),
        (["male", "female"], 1),
        (["yes", "y"], 1),  # two yes words: no yes/no pair, the second category
        (["no", "maybe"], 1),
        (["a", "b", "c"], None),
        ("NUMERIC", None),
    ],
)
def test_positive_category_is_the_yes_word_else_the_second(categories, one):
    assert D.positive_category(categories) == one


def test_genbase_motif_columns_are_1_where_the_file_says_yes(tmp_path):
    # genbase declares every motif {YES,NO}: a column is 1 where the motif is present
    src = ROOT / "tests" / "data" / "genbase-small"
    entry = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["catalog"]["genbase-small"]
    ds = D.parse("genbase-small", entry, src)
    with gzip.open(src / "genbase-small-train.arff.gz", "rt") as fh:
        text = fh.read()
    header, data = text.split("@data", 1)
    assert header.count("{YES,NO}") == 1185
    rows = [line.split(",") for line in data.split() if line.strip()]
    attrs = [line.split()[1] for line in header.splitlines() if line.lower().startswith("@attribute")]
    for name in ("PS00010", ds.feature_names[0], ds.feature_names[-1]):
        j = attrs.index(name)
        np.testing.assert_array_equal(ds.X_train[:, ds.feature_names.index(name)], [r[j] == "YES" for r in rows])
    assert 0 < ds.X_train.sum() < ds.X_train.size / 2  # motifs are rare: mostly 0, as they should be


def test_missing_value_in_a_numeric_feature_names_it(tmp_path):
    text = NOMINAL_ARFF.replace("p3,1,YES,2.5", "p3,1,YES,?")
    raw = _write_raw(tmp_path / "raw", train=text, test=text)
    with pytest.raises(D.DatasetError, match=r"feature 'size' has missing values"):
        D.parse("toy", _entry(train=text, test=text, n_train=6, n_test=6, d=4), raw)


def test_empty_label_set_caption_counts_what_the_data_hold():
    Y = np.array([[0, 0], [1, 0], [0, 0]], dtype=np.int8)
    ds = D.Dataset("e", np.zeros((3, 1)), Y, np.zeros((3, 1)), Y)
    k = int((ds.Y_test.sum(axis=1) == 0).sum())
    text = describe_empty_label_sets({"e": (k, 3), "scene": (0, 5)}, 0.0)
    assert text.startswith("2 of 8 test instances have an empty label set (e 2 of 3, scene 0 of 5)")
    assert "Jaccard(empty, empty) = 0" in text
    assert "changes no number" in describe_empty_label_sets({"scene": (0, 5)}, 1.0)


# ------------------------------------------------------------------- the catalog


def test_the_catalog_ships_with_the_package_and_the_config_holds_none_of_it():
    import fnmatch
    import tomllib

    catalog = D.load_catalog()
    assert {"scene", "yeast", "enron", "mediamill", "emotions", "flags", "bibtex", "mediamill-shape"} <= set(catalog)
    assert catalog["scene"]["expected"] == {"n_train": 1211, "n_test": 1196, "m": 6, "d": 294}
    shipped = Path(D.__file__).parent / "catalog.yaml"
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["fmeasure"]
    assert any(fnmatch.fnmatch("datasets/catalog.yaml", pattern) for pattern in data), data
    assert yaml.safe_load(shipped.read_text()) == catalog
    assert yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["catalog"] == {}
    catalog["scene"]["files"] = {}  # a copy: the next call is whole again
    assert D.load_catalog()["scene"]["files"]["train"]["name"] == "scene-train.arff"


def test_every_catalog_entry_is_valid_under_the_config_schema_and_cites_its_source():
    import jsonschema

    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    entries = jsonschema.Draft202012Validator({"$defs": schema["$defs"], **schema["properties"]["catalog"]})
    entries.validate(D.load_catalog())
    for name, entry in D.load_catalog().items():
        if entry["format"] != "synthetic":
            assert entry["description"] and entry["citation"] and entry["homepage"], name


def test_a_config_adds_entries_and_changes_keys_of_shipped_ones_still_validated():
    from fmeasure.experiments.config import ConfigError, check_config, with_catalog

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["catalog"] = {"flags": {"nominal": "ordinal"}, "toy": _entry()}
    checked = check_config(cfg, ROOT / "config" / "schema.yaml")
    assert checked["catalog"]["flags"]["nominal"] == "ordinal"
    assert checked["catalog"]["flags"]["files"] == D.load_catalog()["flags"]["files"]  # the rest kept
    assert checked["catalog"]["toy"]["files"]["xml"]["name"] == "toy.xml"
    assert set(D.load_catalog()) < set(checked["catalog"])
    assert with_catalog({})["catalog"] == D.load_catalog()
    cfg["catalog"] = {"flags": {"nominal": "hash"}}
    with pytest.raises(ConfigError, match=r"^config key 'catalog\.flags\.nominal': 'hash' is not one of"):
        check_config(cfg, ROOT / "config" / "schema.yaml")
    cfg["catalog"] = {"toy": {k: v for k, v in _entry().items() if k != "files"}}
    with pytest.raises(ConfigError, match=r"^config key 'catalog\.toy': 'files' is a required property"):
        check_config(cfg, ROOT / "config" / "schema.yaml")
