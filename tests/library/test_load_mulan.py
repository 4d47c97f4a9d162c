"""The loaders for library users: load_mulan (catalog name -> verified, parsed, cached arrays),
read_mulan (a user's own ARFF), list_datasets.

The data is flags, whole in tests/data (129 + 65 rows, gzip-compressed, with the catalog's sha256),
and small ARFF files written here; the arrays are compared with the files read independently here
(liac-arff's plain reading, then the encoding the docs state: a two-category nominal is one 0/1
column, 1 for the yes word of a yes/no pair and else for its second category, a larger one a 0/1
column per category named ``attribute=category``). The docs' example loads emotions, whole in
tests/data too. The tests on the full datasets of a mirror run when a full-data mirror is found and
are skipped otherwise. The network is never used.
"""

import gzip
import io
import os
import re
import shutil
import urllib.request
from pathlib import Path

import arff
import numpy as np
import pytest
import scipy.sparse as sp
from _mirror import ROOT, TEST_DATA, full_mirror, no_mirror_reason

from fmeasure import datasets as D
from fmeasure.datasets import DatasetError, load_mulan, read_mulan

FLAGS = TEST_DATA / "flags"
LABELS = ["red", "green", "blue", "yellow", "white", "black", "orange"]
#: the words of a yes/no attribute (any case), as the docs list them
YES, NO = ("yes", "y", "true", "t", "1"), ("no", "n", "false", "f", "0")


@pytest.fixture(autouse=True)
def no_environment(monkeypatch):
    """No mirror or data folder from the environment, and no network: a download must be asked for."""
    monkeypatch.delenv(D.MIRROR_ENV, raising=False)
    monkeypatch.delenv("SCIKIT_LEARN_DATA", raising=False)

    def offline(*args, **kwargs):
        raise OSError("offline in the tests")

    monkeypatch.setattr(urllib.request, "urlopen", offline)


def _by_hand(path: Path, labels=LABELS):
    """(features by column name, Y) of an ARFF file read with liac-arff, without this package."""
    with gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8") as fh:
        doc = arff.load(fh)
    rows, columns = doc["data"], {}
    for j, (name, kind) in enumerate(doc["attributes"]):
        if name in labels:
            continue
        values = [row[j] for row in rows]
        if kind in ("NUMERIC", "REAL", "INTEGER"):
            columns[name] = np.array(values, dtype=float)
        elif len(kind) == 2:
            a, b = (k.lower() for k in kind)
            yes_first = a in YES and b in NO
            yes_no = yes_first or (a in NO and b in YES)
            one = kind[0] if yes_first else kind[1]
            columns[name if yes_no else f"{name}={one}"] = np.array([v == one for v in values], dtype=float)
        else:
            for category in kind:
                columns[f"{name}={category}"] = np.array([v == category for v in values], dtype=float)
    Y = np.array([[int(row[j]) for j, (n, _) in enumerate(doc["attributes"]) if n in labels] for row in rows])
    return columns, Y


def _assert_matches(X, Y, feature_names, path):
    columns, Y_hand = _by_hand(path)
    assert sorted(feature_names) == sorted(columns)
    for j, name in enumerate(feature_names):
        np.testing.assert_array_equal(X[:, j], columns[name], err_msg=name)
    np.testing.assert_array_equal(Y, Y_hand)


def _mirror_of_flags(tmp_path, gz=True) -> Path:
    mirror = tmp_path / "mirror"
    shutil.copytree(FLAGS, mirror / "flags")
    if not gz:
        for f in (mirror / "flags").glob("*.gz"):
            f.with_suffix("").write_bytes(gzip.decompress(f.read_bytes()))
            f.unlink()
    return mirror


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_load_from_a_gzip_mirror_gives_the_files_arrays_and_caches_them(tmp_path):
    mirror = _mirror_of_flags(tmp_path)
    home = tmp_path / "home"
    flags = load_mulan("flags", data_home=home, mirror=mirror, download=False)
    # tests/data/README.md: all 129 training and 65 test rows; 7 labels in the ARFF's order
    assert flags.X_train.shape == (129, 43) and flags.X_test.shape == (65, 43)
    assert flags.Y_train.shape == (129, 7) and flags.Y_train.dtype == np.int8
    assert flags.target_names == LABELS and flags.name == "flags"
    _assert_matches(flags.X_train, flags.Y_train, flags.feature_names, FLAGS / "flags-train.arff.gz")
    _assert_matches(flags.X_test, flags.Y_test, flags.feature_names, FLAGS / "flags-test.arff.gz")
    assert _files(home) == ["fmeasure/flags/flags.npz"]  # the mirror's files used where they are
    # the next call needs neither the mirror nor the network
    shutil.rmtree(mirror)
    again = load_mulan("flags", data_home=home, download=False)
    for key in ("X_train", "Y_train", "X_test", "Y_test"):
        np.testing.assert_array_equal(again[key], flags[key])
        assert again[key].dtype == flags[key].dtype
    assert again.feature_names == flags.feature_names and again.DESCR == flags.DESCR


def test_plain_and_gzip_mirrors_give_the_same_arrays_and_return_x_y_the_same_four(tmp_path):
    plain = load_mulan("flags", data_home=tmp_path / "a", mirror=_mirror_of_flags(tmp_path / "p", gz=False))
    X_train, Y_train, X_test, Y_test = load_mulan(
        "flags", data_home=tmp_path / "b", mirror=_mirror_of_flags(tmp_path / "g"), return_X_y=True
    )
    for got, key in ((X_train, "X_train"), (Y_train, "Y_train"), (X_test, "X_test"), (Y_test, "Y_test")):
        np.testing.assert_array_equal(got, plain[key])


def test_the_mirror_can_come_from_the_environment_and_the_data_home_from_scikit_learns(tmp_path, monkeypatch):
    monkeypatch.setenv(D.MIRROR_ENV, os.pathsep.join([str(tmp_path / "none"), str(_mirror_of_flags(tmp_path))]))
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "sk"))
    assert D.get_data_home() == tmp_path / "sk" / "fmeasure"
    load_mulan("flags", download=False)
    assert (tmp_path / "sk" / "fmeasure" / "flags" / "flags.npz").is_file()


def test_the_descr_gives_counts_files_and_what_to_cite(tmp_path):
    descr = load_mulan("flags", data_home=tmp_path, mirror=_mirror_of_flags(tmp_path)).DESCR
    entry = D.load_catalog()["flags"]
    assert descr.startswith(f"flags: {entry['description']}")
    assert "Train: 129 instances, test: 65; 7 labels; 19 feature attributes in the files, 43 columns" in descr
    assert entry["files"]["train"]["sha256"] in descr and entry["files"]["xml"]["url"] in descr
    assert entry["citation"] in descr and "MULAN: A Java library for multi-label learning" in descr


def test_a_checksum_mismatch_names_the_file_and_leaves_nothing_behind(tmp_path):
    mirror = _mirror_of_flags(tmp_path, gz=False)
    with open(mirror / "flags" / "flags-train.arff", "a") as fh:
        fh.write("% one more line\n")
    home = tmp_path / "home"
    with pytest.raises(DatasetError) as err:
        load_mulan("flags", data_home=home, mirror=mirror)
    line = str(err.value)
    assert line.startswith(
        f"dataset 'flags': {mirror / 'flags' / 'flags-train.arff'}: sha256 mismatch for flags-train.arff"
    )
    assert D.load_catalog()["flags"]["files"]["train"]["sha256"] in line and "\n" not in line
    assert not home.exists()


def test_unknown_and_synthetic_names_are_one_line_listing_the_datasets(tmp_path):
    with pytest.raises(DatasetError) as err:
        load_mulan("emotion", data_home=tmp_path)
    line = str(err.value)
    assert line.startswith("unknown dataset 'emotion' (did you mean 'emotions'?); the catalog knows: bibtex, birds,")
    assert "flags" in line and "scene" in line and "mediamill-shape" not in line and "\n" not in line
    with pytest.raises(DatasetError, match=r"^dataset 'mediamill-shape' is synthetic.*synthetic\.generate"):
        load_mulan("mediamill-shape", data_home=tmp_path)
    with pytest.raises(DatasetError, match=r"^dataset 'flags': nominal must be one of"):
        load_mulan("flags", data_home=tmp_path, nominal="hash")
    assert not tmp_path.joinpath("fmeasure").exists()


def test_a_file_found_nowhere_says_where_it_looked_and_download_false_never_downloads(tmp_path, monkeypatch):
    def must_not_download(*args, **kwargs):
        raise AssertionError("download=False downloaded")

    monkeypatch.setattr(urllib.request, "urlopen", must_not_download)
    home = tmp_path / "home"
    with pytest.raises(DatasetError) as err:
        load_mulan("emotions", data_home=home, mirror=tmp_path / "nothing", download=False)
    assert str(err.value) == (
        f"dataset 'emotions': emotions-train.arff: not in any mirror ({tmp_path / 'nothing'} (does not exist)) "
        f"nor in {home / 'fmeasure' / 'emotions'}, and download=False"
    )
    assert not home.exists()


def test_a_failed_download_is_one_line_and_leaves_no_folder(tmp_path):
    home = tmp_path / "home"
    with pytest.raises(DatasetError) as err:
        load_mulan("emotions", data_home=home, timeout=1)
    line = str(err.value)
    assert line.startswith("dataset 'emotions': emotions-train.arff: not in any mirror")
    assert "download of https://raw.githubusercontent.com/" in line and "offline in the tests" in line
    assert "\n" not in line and not home.exists()


def _serve(monkeypatch, folder: Path, seen: list):
    """urlopen answering each URL with the file of that name in ``folder`` (decompressed)."""

    def urlopen(url, timeout=None):
        name = url.rsplit("/", 1)[-1]
        seen.append(name)
        path = folder / name if (folder / name).is_file() else folder / f"{name}.gz"
        return io.BytesIO(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)


def test_downloads_are_kept_verified_and_used_again_when_the_cache_is_gone(tmp_path, monkeypatch):
    seen = []
    _serve(monkeypatch, FLAGS, seen)
    home = tmp_path / "home"
    first = load_mulan("flags", data_home=home)
    assert sorted(seen) == ["flags-test.arff", "flags-train.arff", "flags.xml"]
    kept = home / "fmeasure" / "flags"
    assert _files(kept) == ["flags-test.arff", "flags-train.arff", "flags.npz", "flags.xml"]
    (kept / "flags.npz").unlink()
    (kept / "flags.npz").write_bytes(b"not a zip file")  # a broken cache is parsed again, not an error
    seen.clear()
    again = load_mulan("flags", data_home=home, download=False)
    assert seen == [] and np.array_equal(again.X_train, first.X_train)
    # a kept download that no longer matches its checksum is fetched again
    (kept / "flags.xml").write_text("<labels/>")
    (kept / "flags.npz").unlink()
    load_mulan("flags", data_home=home)
    assert seen == ["flags.xml"]


def _catalog_with(monkeypatch, **entries):
    catalog = D.load_catalog(entries)
    monkeypatch.setattr("fmeasure.datasets._loaders.load_catalog", lambda: catalog)
    return catalog


def test_an_entry_without_expected_counts_loads(tmp_path, monkeypatch):
    catalog = _catalog_with(monkeypatch)
    del catalog["flags"]["expected"]
    flags = load_mulan("flags", data_home=tmp_path, mirror=_mirror_of_flags(tmp_path))
    assert flags.Y_train.shape == (129, 7) and "Train: 129 instances, test: 65" in flags.DESCR


def test_an_incomplete_entry_is_one_line_naming_the_key(tmp_path, monkeypatch):
    catalog = _catalog_with(monkeypatch)
    del catalog["flags"]["files"]["xml"]
    with pytest.raises(DatasetError, match=r"^catalog entry 'flags': files\.xml\.name is missing"):
        load_mulan("flags", data_home=tmp_path, mirror=TEST_DATA)


def test_counts_differing_from_the_catalog_are_one_line_naming_the_file(tmp_path, monkeypatch):
    catalog = _catalog_with(monkeypatch)
    catalog["flags"]["expected"]["n_train"] = 130
    mirror = _mirror_of_flags(tmp_path)
    with pytest.raises(DatasetError) as err:
        load_mulan("flags", data_home=tmp_path / "home", mirror=mirror)
    assert str(err.value) == (
        f"dataset 'flags': {mirror / 'flags' / 'flags-train.arff.gz'}: n_train is 129 but catalog entry 'flags' expects 130"
    )
    assert not (tmp_path / "home").exists()


def test_a_changed_entry_or_option_is_parsed_again_not_read_from_an_old_cache(tmp_path, monkeypatch):
    mirror, home = _mirror_of_flags(tmp_path), tmp_path / "home"
    onehot = load_mulan("flags", data_home=home, mirror=mirror)
    ordinal = load_mulan("flags", data_home=home, mirror=mirror, nominal="ordinal")
    assert onehot.X_train.shape[1] == 43 and ordinal.X_train.shape[1] == 19  # 15 + 4 codes, not one-hot
    assert _files(home / "fmeasure" / "flags") == ["flags-ordinal.npz", "flags.npz"]
    catalog = _catalog_with(monkeypatch)
    catalog["flags"]["files"]["test"]["sha256"] = "0" * 64  # a new version of a file: the cache is stale
    with pytest.raises(DatasetError, match="sha256 mismatch for flags-test.arff"):
        load_mulan("flags", data_home=home, mirror=mirror)


def test_a_mostly_zero_dataset_is_cached_compactly_and_read_back_dense_and_equal(tmp_path, monkeypatch):
    # 40 sparse rows of 60 word counts, 2 words each, and 3 labels: 3% of X is non-zero
    rng = np.random.default_rng(0)
    header = "@relation words\n" + "".join(f"@attribute w{j} numeric\n" for j in range(60))
    header += "".join(f"@attribute L{k} {{0,1}}\n" for k in range(3)) + "@data\n"
    rows = []
    for _ in range(40):
        words = sorted(rng.choice(60, size=2, replace=False))
        labels = [60 + k for k in range(3) if rng.random() < 0.4]
        rows.append("{" + ",".join([f"{j} {rng.integers(1, 5)}" for j in words] + [f"{k} 1" for k in labels]) + "}")
    text = header + "\n".join(rows) + "\n"
    xml = '<labels xmlns="http://mulan.sourceforge.net/labels">' + "".join(f'<label name="L{k}"/>' for k in range(3))
    xml += "</labels>"
    mirror = tmp_path / "mirror" / "words"
    mirror.mkdir(parents=True)
    (mirror / "words-train.arff").write_text(text)
    (mirror / "words-test.arff").write_text(text)
    (mirror / "words.xml").write_text(xml)
    files = {
        role: {"name": f.name, "sha256": D.sha256_of(f)}
        for role, f in (
            ("train", mirror / "words-train.arff"),
            ("test", mirror / "words-test.arff"),
            ("xml", mirror / "words.xml"),
        )
    }
    _catalog_with(monkeypatch, words={"format": "arff", "files": files})
    home = tmp_path / "home"
    first = load_mulan("words", data_home=home, mirror=tmp_path / "mirror")
    assert isinstance(first.X_train, np.ndarray) and first.X_train.shape == (40, 60)
    assert np.count_nonzero(first.X_train) == 80 and first.X_train.sum() > 80
    with np.load(home / "fmeasure" / "words" / "words.npz") as z:
        assert "X_train_indptr" in z and "X_train" not in z  # stored as CSR
    again = load_mulan("words", data_home=home, download=False)
    assert isinstance(again.X_train, np.ndarray) and np.array_equal(again.X_train, first.X_train)
    assert np.array_equal(again.X_test, first.X_test) and np.array_equal(again.Y_train, first.Y_train)


SPARSE_ARFF = """@relation toy
@attribute w1 numeric
@attribute w2 numeric
@attribute w3 numeric
@attribute A {0,1}
@attribute B {0,1}
@data
{0 1,3 1}
{1 2.5,4 1}
{}
{2 4,3 1,4 1}
"""
XML = '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="B"/><label name="A"/></labels>'


def test_a_sparse_arff_entry_loads_its_values(tmp_path, monkeypatch):
    import hashlib

    mirror = tmp_path / "mirror" / "toy"
    mirror.mkdir(parents=True)
    with gzip.open(mirror / "toy-train.arff.gz", "wt") as fh:
        fh.write(SPARSE_ARFF)
    (mirror / "toy-test.arff").write_text(SPARSE_ARFF)
    (mirror / "toy.xml").write_text(XML)
    sha = {t: hashlib.sha256(t.encode()).hexdigest() for t in (SPARSE_ARFF, XML)}
    files = {
        "train": {"name": "toy-train.arff", "sha256": sha[SPARSE_ARFF]},
        "test": {"name": "toy-test.arff", "sha256": sha[SPARSE_ARFF]},
        "xml": {"name": "toy.xml", "sha256": sha[XML]},
    }
    _catalog_with(monkeypatch, toy={"format": "arff", "files": files})
    toy = load_mulan("toy", data_home=tmp_path / "home", mirror=tmp_path / "mirror")
    np.testing.assert_array_equal(toy.X_train, [[1, 0, 0], [0, 2.5, 0], [0, 0, 0], [0, 0, 4]])
    np.testing.assert_array_equal(toy.Y_test, [[1, 0], [0, 1], [0, 0], [1, 1]])
    assert toy.target_names == ["A", "B"] and toy.feature_names == ["w1", "w2", "w3"]
    assert "toy: a multi-label dataset" in toy.DESCR


# ------------------------------------------------------------------- read_mulan


def test_read_mulan_reads_a_users_gzip_arff_with_its_xml_as_the_loader_does(tmp_path):
    user = tmp_path / "user"
    shutil.copytree(FLAGS, user)
    bunch = read_mulan(user / "flags-train.arff.gz", user / "flags.xml")
    _assert_matches(bunch.data, bunch.target, bunch.feature_names, FLAGS / "flags-train.arff.gz")
    assert bunch.target_names == LABELS and bunch.data.shape == (129, 43)
    assert bunch.DESCR.startswith("flags-train.arff.gz: 129 instances, 7 labels, 19 feature attributes")
    loaded = load_mulan("flags", data_home=tmp_path / "home", mirror=TEST_DATA)
    assert bunch.feature_names == loaded.feature_names and np.array_equal(bunch.data, loaded.X_train)
    (user / "flags-test.arff").write_bytes(gzip.decompress((user / "flags-test.arff.gz").read_bytes()))
    X, Y = read_mulan(user / "flags-test.arff", n_labels=7, return_X_y=True)
    assert np.array_equal(X, loaded.X_test) and np.array_equal(Y, loaded.Y_test)


def test_read_mulan_sparse_arff_without_xml(tmp_path):
    path = tmp_path / "toy.arff"
    path.write_text(SPARSE_ARFF)
    X, Y = read_mulan(path, n_labels=2, return_X_y=True)
    np.testing.assert_array_equal(X, [[1, 0, 0], [0, 2.5, 0], [0, 0, 0], [0, 0, 4]])
    np.testing.assert_array_equal(Y, [[1, 0], [0, 1], [0, 0], [1, 1]])
    assert not sp.issparse(X)


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda d: read_mulan(d / "toy.arff"), r"toy\.arff: which attributes are labels\? Give MULAN's XML"),
        (lambda d: read_mulan(d / "toy.arff", n_labels=5), r"toy\.arff: n_labels must be a whole number from 1 to 4"),
        (lambda d: read_mulan(d / "toy.arff", d / "toy.xml", n_labels=3), r"toy\.xml: names 2 labels, not n_labels=3"),
        (lambda d: read_mulan(d / "nope.arff", n_labels=1), r"nope\.arff: cannot read \(FileNotFoundError"),
        (lambda d: read_mulan(d / "toy.xml", n_labels=1), r"toy\.xml: not an ARFF file"),
        (lambda d: read_mulan(d / "bad.arff.gz", n_labels=1), r"bad\.arff\.gz: cannot read \((BadGzipFile|EOFError)"),
        (
            lambda d: read_mulan(d / "toy.arff", d / "other.xml"),
            r"toy\.arff: the XML label file names attributes missing",
        ),
    ],
)
def test_read_mulan_errors_are_one_line_naming_the_file(tmp_path, call, pattern):
    (tmp_path / "toy.arff").write_text(SPARSE_ARFF)
    (tmp_path / "toy.xml").write_text(XML)
    (tmp_path / "other.xml").write_text(XML.replace('"B"', '"C"'))
    (tmp_path / "bad.arff.gz").write_bytes(gzip.compress(SPARSE_ARFF.encode())[:40])  # truncated
    with pytest.raises(DatasetError) as err:
        call(tmp_path)
    assert re.search(pattern, str(err.value)) and "\n" not in str(err.value), str(err.value)


def test_list_datasets_gives_the_catalogs_counts():
    table = D.list_datasets()
    catalog = D.load_catalog()
    assert list(table.index) == sorted(n for n, e in catalog.items() if e["format"] != "synthetic")
    for name, row in table.iterrows():
        exp = catalog[name]["expected"]
        assert (row.n_train, row.n_test, row.n_labels, row.n_features) == (
            exp["n_train"],
            exp["n_test"],
            exp["m"],
            exp["d"],
        )
    assert table.loc["scene", ["n_train", "n_test", "n_labels", "n_features"]].tolist() == [1211, 1196, 6, 294]


# ------------------------------------------------------------------- the full datasets of a mirror

MIRROR = full_mirror()
needs_mirror = pytest.mark.skipif(MIRROR is None, reason=no_mirror_reason())
#: MANIFEST.md's verified counts (n_train, n_test, m, d), and the columns after encoding.
FULL = {
    "emotions": (391, 202, 6, 72, 72),
    "scene": (1211, 1196, 6, 294, 294),
    "yeast": (1500, 917, 14, 103, 103),
    "flags": (129, 65, 7, 19, 43),
    "bibtex": (4880, 2515, 159, 1836, 1836),
}


@needs_mirror
@pytest.mark.parametrize("name", sorted(FULL))
def test_full_datasets_load_from_the_mirror_to_their_counts_and_values(name, tmp_path):
    data = load_mulan(name, data_home=tmp_path, mirror=MIRROR, download=False)
    n_train, n_test, m, d, columns = FULL[name]
    assert data.X_train.shape == (n_train, columns) and data.X_test.shape == (n_test, columns)
    assert data.Y_train.shape == (n_train, m) and data.Y_test.shape == (n_test, m)
    assert f"{d} feature attributes in the files" in data.DESCR
    folder = MIRROR / name
    xml = D.load_catalog()[name]["files"]["xml"]["name"]
    labels = [lab.split('"')[1] for lab in re.findall(r'<label name="[^"]*"', (folder / xml).read_text())]
    test_file = next(folder.glob(f"{name}-test.arff*"))
    with gzip.open(test_file, "rt", encoding="utf-8") if test_file.suffix == ".gz" else open(test_file) as fh:
        doc = arff.load(fh, return_type=arff.COO if name == "bibtex" else arff.DENSE)
    names = [a for a, _ in doc["attributes"]]
    if name == "bibtex":  # sparse ARFF: every stored (row, column) value, features and labels
        values, rows, cols = doc["data"]
        dense = np.zeros((n_test, len(names)))
        dense[rows, cols] = np.asarray(values, dtype=float)
        features = [j for j, a in enumerate(names) if a not in labels]
        np.testing.assert_array_equal(data.X_test, dense[:, features])
        np.testing.assert_array_equal(data.Y_test, dense[:, [names.index(a) for a in data.target_names]])
    elif name == "flags":
        _assert_matches(data.X_test, data.Y_test, data.feature_names, test_file)
    else:
        rows = np.array(doc["data"], dtype=float)
        np.testing.assert_array_equal(data.X_test, rows[:, [names.index(a) for a in data.feature_names]])
        np.testing.assert_array_equal(data.Y_test, rows[:, [names.index(a) for a in data.target_names]])
    again = load_mulan(name, data_home=tmp_path, download=False)
    assert np.array_equal(again.X_train, data.X_train) and np.array_equal(again.Y_test, data.Y_test)


def _loader_snippet(text: str) -> str:
    blocks = [b for b in re.findall(r"```py\n(.*?)```", text, flags=re.S) if "load_mulan" in b]
    assert len(blocks) == 1, blocks
    return blocks[0]


@pytest.mark.parametrize("doc", ["README.md", "docs/data.md"])
def test_the_docs_loader_example_runs_and_prints_what_it_says(doc, tmp_path, monkeypatch, capsys):
    code = _loader_snippet((ROOT / doc).read_text())
    monkeypatch.setenv(D.MIRROR_ENV, str(TEST_DATA))  # emotions, whole
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    exec(compile(code, doc, "exec"), {})
    printed = capsys.readouterr().out.split()
    claims = [line.split("#", 1)[1].split()[0] for line in code.splitlines() if line.startswith("print(")]
    assert claims and printed[: len(claims)] == claims, (claims, printed)


def test_the_docs_loader_example_is_one_and_names_what_exists():
    """The example is the same in both places, and what it imports exists."""
    readme, docs = (_loader_snippet((ROOT / doc).read_text()) for doc in ("README.md", "docs/data.md"))
    assert readme == docs
    compile(readme, "README.md", "exec")
    for module, names in re.findall(r"^from ([\w.]+) import (.+)$", readme, flags=re.M):
        imported = __import__(module, fromlist=["_"])
        assert all(hasattr(imported, n.strip()) for n in names.split(",")), (module, names)
    assert 'load_mulan("emotions", return_X_y=True)' in readme
