"""Loaders in scikit-learn's style: :func:`load_mulan` (a dataset of the catalog: found in a mirror,
the cache or its URL, verified, parsed once and cached), :func:`read_mulan` (your own MULAN files),
:func:`list_datasets` and :func:`get_data_home`."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import logging
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np

from fmeasure.datasets._base import DatasetError
from fmeasure.datasets._cache import load, save
from fmeasure.datasets._catalog import load_catalog
from fmeasure.datasets._fetch import MIRROR_ENV, content_digest, fetch_file, find_in_mirror, mirror_folders
from fmeasure.datasets._parse import (
    NOMINAL_MODES,
    check_entry,
    densify,
    encode_features,
    parse_files,
    read_arff,
    read_arff_header,
    xml_label_names,
)

log = logging.getLogger("fmeasure.datasets")

#: scikit-learn's variable for its data folder; ours is its subfolder ``fmeasure``.
DATA_HOME_ENV = "SCIKIT_LEARN_DATA"
#: Bumped when the parsed arrays of the same files change (a parser fix): older caches are rebuilt.
#: 2: a yes/no feature declared yes first (genbase's ``{YES,NO}``) is 1 for yes.
CACHE_VERSION = 2
#: The MULAN library and its datasets' collection, cited in every MULAN dataset's DESCR.
MULAN_CITATION = (
    "Tsoumakas, G., Spyromitros-Xioufis, E., Vilcek, J., and Vlahavas, I. (2011). MULAN: A Java library "
    "for multi-label learning. Journal of Machine Learning Research, 12, 2411-2414."
)


def get_data_home(data_home=None) -> Path:
    """The folder where :func:`load_mulan` keeps its downloads and parsed caches.

    ``<data_home>/fmeasure``, where ``data_home`` is, as in scikit-learn's loaders, the argument,
    else ``$SCIKIT_LEARN_DATA``, else ``~/scikit_learn_data``. The folder is not created here.

    Examples
    --------
    >>> get_data_home("/tmp/sk").as_posix()
    '/tmp/sk/fmeasure'
    """
    if data_home is None:
        data_home = os.environ.get(DATA_HOME_ENV) or Path("~") / "scikit_learn_data"
    return Path(data_home).expanduser() / "fmeasure"


def _bunch(**fields):
    from sklearn.utils import Bunch  # here: importing fmeasure.datasets stays free of scikit-learn

    return Bunch(**fields)


def _entry(name: str) -> dict:
    catalog = load_catalog()
    entry = catalog.get(name) if isinstance(name, str) else None
    loadable = sorted(n for n, e in catalog.items() if e.get("format") != "synthetic")
    if entry is None:
        close = difflib.get_close_matches(str(name), loadable, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise DatasetError(f"unknown dataset {name!r}{hint}; the catalog knows: {', '.join(loadable)}")
    if entry.get("format") == "synthetic":
        raise DatasetError(
            f"dataset {name!r} is synthetic, it has no files to load: generate it with "
            f"fmeasure.datasets.synthetic.generate({name!r}, fmeasure.datasets.load_catalog()[{name!r}])"
        )
    check_entry(name, entry)
    return entry


def _given(mirror) -> list[Path]:
    """The folders of ``mirror`` (None, one folder or several)."""
    given = [] if mirror is None else [mirror] if isinstance(mirror, (str, os.PathLike)) else list(mirror)
    return [Path(p).expanduser() for p in given]


def _describe(folders) -> str:
    if not folders:
        return f"mirror=None and ${MIRROR_ENV} unset"
    return ", ".join(f"{f}" + ("" if f.is_dir() else " (does not exist)") for f in folders)


def _verify(path: Path, spec: dict) -> None:
    digest, size = content_digest(path)
    if spec.get("bytes") is not None and size != spec["bytes"]:
        raise DatasetError(f"{path}: size mismatch for {spec['name']}: expected {spec['bytes']} bytes, got {size}")
    if digest != spec["sha256"]:
        raise DatasetError(f"{path}: sha256 mismatch for {spec['name']}: expected {spec['sha256']}, got {digest}")


def _source(name, entry, spec, given, home: Path, download: bool, timeout: float) -> Path:
    """A verified copy of one file: in a mirror (those ``given``, then ``$FMEASURE_DATA_MIRROR``),
    else kept in ``home`` by an earlier download, else downloaded into ``home``."""
    subdir = entry.get("mirror_dir", name)
    folders = [*given, *mirror_folders()]
    found = find_in_mirror(folders, subdir, spec["name"])
    if found is not None:
        _verify(found, spec)  # a mirror is the user's: a bad file there is an error, never replaced
        return found
    kept = home / spec["name"]
    if kept.is_file():
        try:
            _verify(kept, spec)
            return kept
        except DatasetError as exc:  # ours: an old or broken download, fetched again below
            log.warning("%s; downloading it again", exc)
            kept.unlink()
    looked = f"not in any mirror ({_describe(folders)}) nor in {home}"
    if not spec.get("url"):
        raise DatasetError(
            f"{spec['name']}: {looked}, and the catalog gives no URL; get it from "
            f"{entry.get('homepage', 'its homepage')} and pass mirror=<folder holding {subdir}/{spec['name']}>"
        )
    if not download:
        raise DatasetError(f"{spec['name']}: {looked}, and download=False")
    fetch_file(kept, sha256=spec["sha256"], mirrors=given, url=spec["url"], timeout=timeout, size=spec.get("bytes"))
    return kept


def _cache_key(entry: dict, nominal: str) -> str:
    """What decides the parsed arrays: the files' names and checksums, the parsing options."""
    content = {
        "version": CACHE_VERSION,
        "format": entry["format"],
        "files": {role: [spec["name"], spec["sha256"]] for role, spec in sorted(entry["files"].items())},
        "nominal": nominal,
        **{k: entry[k] for k in ("label_names", "zero_based_features", "subset") if k in entry},
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


#: A dense X with at most this share of non-zeros is cached as CSR (bibtex: 4%), which reads several
#: times faster than the compressed dense array, and is made dense again when read.
CACHE_SPARSE_BELOW = 0.25


def _write_cache(ds, path: Path, key: str) -> None:
    """``ds`` saved at ``path`` with ``key``; mostly-zero dense matrices stored as CSR."""
    import scipy.sparse as sp

    dense = isinstance(ds.X_train, np.ndarray)
    packed = ds
    if dense and max(np.count_nonzero(X) / max(X.size, 1) for X in (ds.X_train, ds.X_test)) <= CACHE_SPARSE_BELOW:
        packed = dataclasses.replace(ds, X_train=sp.csr_matrix(ds.X_train), X_test=sp.csr_matrix(ds.X_test))
    save(packed, path, extra={"cache_key": np.asarray(key), "dense": np.asarray(dense)})


def _cached(path: Path, key: str):
    """The dataset cached at ``path`` if it was parsed from the same files the same way, else None."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            stored = str(z["cache_key"]) if "cache_key" in z else None
            dense = bool(z["dense"]) if "dense" in z else False
        if stored == key:
            ds = load(path)
            if dense and not isinstance(ds.X_train, np.ndarray):
                ds = dataclasses.replace(ds, X_train=ds.X_train.toarray(), X_test=ds.X_test.toarray())
            return ds
        log.info("%s: parsed from other files or with other options; parsing again", path)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, DatasetError) as exc:
        log.warning("%s: unreadable cache (%s); parsing again", path, exc)
    return None


def _descr(name: str, entry: dict, ds) -> str:
    card = [float(Y.sum(axis=1).mean()) if Y.shape[0] else 0.0 for Y in (ds.Y_train, ds.Y_test)]
    d = ds.n_attributes if ds.n_attributes is not None else ds.n_features
    lines = [f"{name}: {entry.get('description', 'a multi-label dataset')}", ""]
    lines.append(
        f"Train: {ds.Y_train.shape[0]} instances, test: {ds.Y_test.shape[0]}; {ds.n_labels} labels; "
        f"{d} feature attributes in the files, {ds.n_features} columns in X after encoding "
        f"({'sparse' if not isinstance(ds.X_train, np.ndarray) else 'dense'}). Mean labels per instance: "
        f"{card[0]:.3f} (train), {card[1]:.3f} (test)."
    )
    lines.append(f"Files ({entry['format']}; sha256 of the uncompressed content):")
    for spec in entry["files"].values():
        lines.append(f"  {spec['name']}  {spec['sha256']}" + (f"  {spec['url']}" if spec.get("url") else ""))
    if entry.get("homepage"):
        lines.append(f"Homepage: {entry['homepage']}")
    if entry.get("citation"):
        lines.append(f"Cite: {entry['citation']}")
    if "mulan" in entry.get("homepage", ""):
        lines.append(f"and MULAN's collection: {MULAN_CITATION}")
    return "\n".join(lines)


def _prefixed(name: str, exc: Exception) -> DatasetError:
    text = str(exc)
    return DatasetError(text if text.startswith(f"dataset {name!r}") else f"dataset {name!r}: {text}")


def load_mulan(name, *, data_home=None, mirror=None, download=True, return_X_y=False, nominal=None, timeout=60.0):
    """Load a multi-label dataset of the catalog with its fixed train/test split.

    The first call finds each file, verifies its sha256, parses the files and caches the arrays
    under :func:`get_data_home`; later calls read the cache (no mirror, no network). Each file is
    taken from the first of: a ``mirror`` folder, ``$FMEASURE_DATA_MIRROR``, a copy an earlier call
    downloaded into the cache folder, the catalog's download URL. A mirror holds
    ``<mirror>/<dataset>/<file>`` or ``<file>.gz`` (``tmc2007-500``'s folder is ``tmc2007``), as in
    MULAN's archives. :func:`list_datasets` lists the names.

    Parameters
    ----------
    name : str
        A dataset of the catalog: ``"scene"``, ``"yeast"``, ``"enron"``, ``"emotions"``,
        ``"bibtex"``, ``"flags"``, ... (MULAN's ARFF files, and ``"yeast-libsvm"``).
    data_home : str or path, optional
        scikit-learn's data folder; the cache is its subfolder ``fmeasure/<name>/``. Default:
        ``$SCIKIT_LEARN_DATA``, else ``~/scikit_learn_data``.
    mirror : str, path or list of them, optional
        Folders holding the files, searched before ``$FMEASURE_DATA_MIRROR`` (several folders
        separated by ``os.pathsep``). Files are used where they are (plain or gzip), not copied.
    download : bool, default True
        Whether a file found nowhere else may be downloaded; with False such a file is an error.
    return_X_y : bool, default False
        Return ``(X_train, Y_train, X_test, Y_test)`` instead of a Bunch.
    nominal : {"onehot", "ordinal", "error"}, optional
        Nominal features with more than two categories (flags' ``landmass``): one 0/1 column per
        category (default, or the entry's own ``nominal``), the category's position, or an error.
        A two-category nominal is one 0/1 column: 1 for "yes" when its categories are a yes/no
        pair (yes/no, y/n, true/false, t/f, 1/0, any case, in either order: genbase's ``{YES,NO}``
        is 1 where the motif is present), else 1 for the category declared second (see
        :func:`encode_features`). An identifier attribute (genbase's ``protein``) is dropped.
    timeout : float, default 60
        Seconds before a download gives up.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``X_train``, ``X_test``: float64 arrays of shape (n, d), or CSR matrices when a dense
        array would exceed 50 million cells; ``Y_train``, ``Y_test``: int8 0/1 arrays of shape
        (n, m), labels in the ARFF file's order; ``feature_names`` (``attribute=category`` for a
        one-hot column) and ``target_names``: lists of str; ``name``; ``DESCR``: the counts, the
        files with their checksums and URLs, the homepage and the reference to cite.
    (X_train, Y_train, X_test, Y_test) : tuple
        With ``return_X_y=True``.

    Raises
    ------
    DatasetError
        Unknown name, a file found nowhere (or only by download, with ``download=False``), a
        checksum mismatch, a failed download, a malformed file, or counts differing from the
        catalog's. The message is one line naming the dataset and the file; nothing half-written
        is left in the cache.

    Examples
    --------
    >>> from fmeasure.datasets import load_mulan
    >>> emotions = load_mulan("emotions")  # doctest: +SKIP
    >>> emotions.X_train.shape, emotions.Y_train.shape, emotions.X_test.shape  # doctest: +SKIP
    ((391, 72), (391, 6), (202, 72))
    >>> emotions.target_names[:3]  # doctest: +SKIP
    ['amazed-suprised', 'happy-pleased', 'relaxing-calm']
    >>> X_train, Y_train, X_test, Y_test = load_mulan("scene", return_X_y=True)  # doctest: +SKIP
    >>> flags = load_mulan("flags", mirror="/data/mulan", download=False)  # doctest: +SKIP
    >>> flags.feature_names[:2], flags.feature_names[-1]  # doctest: +SKIP
    (['area', 'population'], 'religion=7')
    """
    entry = _entry(name)
    mode = nominal if nominal is not None else entry.get("nominal", "onehot")
    if mode not in NOMINAL_MODES:
        raise DatasetError(f"dataset {name!r}: nominal must be one of {list(NOMINAL_MODES)}, got {mode!r}")
    home = get_data_home(data_home) / name
    cache = home / (f"{name}.npz" if mode == "onehot" else f"{name}-{mode}.npz")
    key = _cache_key(entry, mode)
    ds = _cached(cache, key)
    if ds is None:
        made = [folder for folder in (home, *home.parents) if not folder.exists()]
        try:
            given = _given(mirror)
            files = {
                role: _source(name, entry, spec, given, home, download, timeout)
                for role, spec in entry["files"].items()
            }
            ds = parse_files(name, {**entry, "nominal": mode}, files)
        except DatasetError as exc:
            for folder in made:  # made for a download that failed: leave no trace
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
            raise _prefixed(name, exc) from None
        try:
            _write_cache(ds, cache, key)
        except OSError as exc:
            warnings.warn(
                f"dataset {name!r}: could not write the cache {cache} ({exc}); the next call parses again",
                stacklevel=2,
            )
    if return_X_y:
        return ds.X_train, ds.Y_train, ds.X_test, ds.Y_test
    return _bunch(
        X_train=ds.X_train,
        Y_train=ds.Y_train,
        X_test=ds.X_test,
        Y_test=ds.Y_test,
        feature_names=list(ds.feature_names),
        target_names=list(ds.label_names),
        name=name,
        DESCR=_descr(name, entry, ds),
    )


def read_mulan(arff, xml=None, *, n_labels=None, nominal="onehot", return_X_y=False):
    """Read one MULAN ARFF file of your own (plain or gzip), its labels named by a MULAN XML file.

    Parameters
    ----------
    arff : str or path
        The ARFF file (dense or sparse; ``.gz`` or not).
    xml : str or path, optional
        MULAN's XML label file naming the label attributes (anywhere in the ARFF; the ARFF's order
        is kept).
    n_labels : int, optional
        Without ``xml``: the last ``n_labels`` attributes are the labels (MULAN's convention).
        With it: the number of labels the XML file must name.
    nominal : {"onehot", "ordinal", "error"}, default "onehot"
        Nominal features with more than two categories, as in :func:`load_mulan`. The columns
        come from the categories the header declares, so a train and a test file with the same
        header give the same columns. A two-category nominal is one 0/1 column, 1 for "yes" in a
        yes/no pair (``{yes,no}``, ``{FALSE,TRUE}``, ``{1,0}``, ...), else 1 for the second category.
    return_X_y : bool, default False
        Return ``(X, Y)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data``: float64 array (n, d), CSR above 50 million cells; ``target``: int8 0/1 array
        (n, m); ``feature_names``, ``target_names``: lists of str; ``DESCR``.
    (X, Y) : tuple
        With ``return_X_y=True``.

    Raises
    ------
    DatasetError
        One line naming the file and the problem (not ARFF, labels missing or not {0,1}, a
        missing value, neither ``xml`` nor ``n_labels``, ...).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.arff"
    >>> _ = path.write_text(
    ...     "@relation toy\\n@attribute x numeric\\n@attribute live {YES,NO}\\n"
    ...     "@attribute colour {red,green,blue}\\n@attribute cat {0,1}\\n@attribute dog {0,1}\\n@data\\n"
    ...     "0.5,YES,red,1,0\\n1.5,NO,blue,1,1\\n2.5,YES,red,0,0\\n3.5,NO,green,0,1\\n"
    ... )
    >>> toy = read_mulan(path, n_labels=2)
    >>> toy.feature_names
    ['x', 'live', 'colour=red', 'colour=green', 'colour=blue']
    >>> toy.data
    array([[0.5, 1. , 1. , 0. , 0. ],
           [1.5, 0. , 0. , 0. , 1. ],
           [2.5, 1. , 1. , 0. , 0. ],
           [3.5, 0. , 0. , 1. , 0. ]])
    >>> toy.target_names, toy.target.tolist()
    (['cat', 'dog'], [[1, 0], [1, 1], [0, 0], [0, 1]])
    """
    path = Path(arff)
    if xml is not None:
        labels = xml_label_names(Path(xml))
        if n_labels is not None and len(labels) != n_labels:
            raise DatasetError(f"{xml}: names {len(labels)} labels, not n_labels={n_labels}")
    elif n_labels is not None:
        attributes = read_arff_header(path)[0]
        if not isinstance(n_labels, (int, np.integer)) or not 0 < n_labels < len(attributes):
            raise DatasetError(
                f"{path}: n_labels must be a whole number from 1 to {len(attributes) - 1}, got {n_labels!r}"
            )
        labels = [a for a, _ in attributes[-n_labels:]]
    else:
        raise DatasetError(
            f"{path}: which attributes are labels? Give MULAN's XML label file (xml=) or their number at the end (n_labels=)"
        )
    attributes, F, Y, label_names = read_arff(path, labels)
    X, _, feature_names = encode_features(path.name, attributes, F, F[:0], nominal)
    X = densify(X)
    if return_X_y:
        return X, Y
    descr = (
        f"{path.name}: {Y.shape[0]} instances, {Y.shape[1]} labels, {len(attributes)} feature attributes "
        f"({X.shape[1]} columns after encoding), read from {path}"
    )
    return _bunch(data=X, target=Y, feature_names=feature_names, target_names=label_names, DESCR=descr)


def list_datasets():
    """The datasets :func:`load_mulan` knows, with their counts, as a pandas DataFrame indexed by name.

    Columns: ``n_train``, ``n_test``, ``n_labels``, ``n_features`` (feature attributes in the
    files, before nominal ones are encoded), ``format`` and ``description``.

    Examples
    --------
    >>> table = list_datasets()
    >>> table.loc["emotions", ["n_train", "n_test", "n_labels", "n_features"]].tolist()
    [391, 202, 6, 72]
    >>> "mediamill-shape" in table.index  # synthetic: generated, not loaded
    False
    """
    import pandas as pd

    rows = []
    for name, entry in sorted(load_catalog().items()):
        if entry.get("format") == "synthetic":
            continue
        exp = entry.get("expected") or {}
        rows.append(
            {
                "name": name,
                "n_train": exp.get("n_train"),
                "n_test": exp.get("n_test"),
                "n_labels": exp.get("m"),
                "n_features": exp.get("d"),
                "format": entry["format"],
                "description": entry.get("description", ""),
            }
        )
    return pd.DataFrame(rows).set_index("name")
