"""Parsing: MULAN ARFF with its XML label file (liac-arff), LibSVM multi-label (scikit-learn's
reader), nominal features encoded, counts checked against the catalog entry."""

from __future__ import annotations

import io
import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fmeasure.datasets._base import Dataset, DatasetError
from fmeasure.datasets._fetch import open_binary

log = logging.getLogger("fmeasure.datasets")


#: Above this many cells a feature matrix is kept sparse (CSR) instead of dense float64.
DENSE_LIMIT = 50_000_000


def open_text(path):
    """``path`` opened as UTF-8 text, decompressed if it is gzip (plain ``.arff`` or ``.arff.gz``)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8")


def xml_label_names(path) -> list[str]:
    """The label names of a MULAN XML label file (plain or gzip), in the file's order."""
    try:
        with open_binary(path) as fh:
            root = ET.parse(fh).getroot()
    except (ET.ParseError, OSError, EOFError) as exc:
        raise DatasetError(f"{path}: not a valid MULAN XML label file ({exc})") from None
    names = [el.attrib["name"] for el in root.iter() if el.tag.endswith("label") and "name" in el.attrib]
    if not names:
        raise DatasetError(f"{path}: XML label file names no labels")
    return names


# The name token of an ``@attribute`` line as ARFF writers (Weka, MULAN) emit it: a single- or
# double-quoted string in which a backslash escapes the next character (``'Bewick\\'s Wren'``), or a
# bare word. Only used to cut the token off the line; unquoting is left to liac-arff (below).
_NAME_TOKEN = re.compile(r"""^\s*@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{}%,]+)""", re.IGNORECASE)


def _unquote_names(tokens: list[str]) -> list[str]:
    """Attribute names from their tokens, unquoted with liac-arff's own value unquoting.

    liac-arff reads the header's structure and types but only strips the quotes of a name, so
    ``'Bewick\\'s Wren'`` would keep its backslash. Its value reader does unescape quoted strings
    (``\\'``, ``\\"``, ``\\\\``, ``\\t``, ``\\%``, octal and ``\\u`` codes) exactly as Weka writes them,
    so the quoted tokens are read back as the categories of one nominal attribute. A bare token is
    taken literally, backslashes included, as Weka reads it (delicious has ``TAG_m\\'usica``, and
    its XML label file names it so).
    """
    import arff

    quoted = [i for i, t in enumerate(tokens) if t[:1] in "'\""]
    names = list(tokens)
    if quoted:
        doc = arff.loads("@relation names\n@attribute n {" + ",".join(tokens[i] for i in quoted) + "}\n@data\n")
        values = doc["attributes"][0][1]
        if len(values) != len(quoted):
            raise ValueError("attribute names could not be unquoted one by one")
        for i, value in zip(quoted, values):
            names[i] = value
    return names


def read_arff_header(path) -> tuple[list[tuple[str, object]], bool, int]:
    """Attributes of an ARFF file as liac-arff types them, whether its data is sparse, and its row count.

    Returns ``(attributes, sparse, n_rows)`` where ``attributes`` is a list of ``(name, type)``:
    ``type`` is ``'NUMERIC'``, ``'REAL'``, ``'INTEGER'``, ``'STRING'`` or the list of a nominal
    attribute's categories. Names are read exactly as Weka and MULAN write them: quoted names with
    spaces, escaped quotes (``'Bewick\\'s Wren'`` is ``Bewick's Wren``) and non-ASCII characters (UTF-8).
    The file may be gzip-compressed.

    Raises :class:`DatasetError` naming the file if the header is not valid ARFF.
    """
    import arff

    path = Path(path)
    header, tokens, sparse_rows, rows, in_data = [], [], False, 0, False
    try:
        with open_text(path) as fh:
            for line in fh:
                if not in_data:
                    header.append(line)
                    m = _NAME_TOKEN.match(line)
                    if m:
                        tokens.append(m.group(1))
                    elif line.strip().lower().startswith("@data"):
                        in_data = True
                    continue
                s = line.strip()
                if not s or s.startswith("%"):
                    continue
                rows += 1
                if rows == 1:
                    sparse_rows = s.startswith("{")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc})") from None
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise DatasetError(f"{path}: cannot read ({exc.__class__.__name__}: {exc})") from None
    if not tokens or not in_data:
        raise DatasetError(f"{path}: not an ARFF file (no @attribute/@data section)")
    try:
        attributes = arff.loads("".join(header))["attributes"]
        names = _unquote_names(tokens)
    except Exception as exc:  # liac-arff raises many types for a broken header
        raise DatasetError(f"{path}: cannot parse ARFF header ({exc.__class__.__name__}: {exc})") from None
    if len(names) != len(attributes):
        raise DatasetError(f"{path}: cannot parse ARFF header ({len(attributes)} attributes, {len(names)} names)")
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise DatasetError(f"{path}: duplicate attribute names {dup[:5]}")
    return [(n, t) for n, (_, t) in zip(names, attributes)], sparse_rows, rows


def read_arff(path, labels: list[str]):
    """All attributes of an ARFF file (plain or gzip), labels split off.

    Returns ``(feature_attributes, F, Y, label_names)``: ``F`` holds the feature attributes'
    values (numeric values as they are, nominal values as category indices, NaN for a missing
    value, string attributes as NaN; CSR for a sparse file, else dense float64), ``Y`` the labels
    (int8 0/1), both in ARFF order.
    """
    import arff

    path = Path(path)
    attrs, is_sparse, n_rows = read_arff_header(path)
    names = [a[0] for a in attrs]
    absent = [lab for lab in labels if lab not in names]
    if absent:
        raise DatasetError(f"{path}: the XML label file names attributes missing from the ARFF: {absent[:5]}")
    m = len(labels)
    position = sorted(names.index(lab) for lab in labels)
    if position != list(range(len(attrs) - m, len(attrs))) and position != list(range(m)):
        raise DatasetError(f"{path}: label attributes are not a contiguous block at the start or end")
    for j in position:
        if not isinstance(attrs[j][1], list) or sorted(attrs[j][1]) != ["0", "1"]:
            raise DatasetError(f"{path}: label attribute {names[j]!r} is not nominal {{0,1}}")
    if n_rows == 0:
        raise DatasetError(f"{path}: ARFF file has no data rows")
    has_string = any(t == "STRING" for _, t in attrs)
    try:
        with open_text(path) as fh:
            if is_sparse:
                data, rows, cols = arff.load(fh, encode_nominal=True, return_type=arff.COO)["data"]
                if any(v is None or isinstance(v, str) for v in data):
                    raise ValueError("missing ('?') or string values in a sparse ARFF are not supported")
                M = sp.csr_matrix((np.asarray(data, dtype=np.float64), (rows, cols)), shape=(n_rows, len(attrs)))
            else:
                data = arff.load(fh, encode_nominal=True, return_type=arff.DENSE)["data"]
                if has_string:
                    keep = [j for j, (_, t) in enumerate(attrs) if t != "STRING"]
                    M = np.full((len(data), len(attrs)), np.nan)
                    M[:, keep] = np.array([[row[j] for j in keep] for row in data], dtype=np.float64)
                else:
                    M = np.array(data, dtype=np.float64)
    except DatasetError:
        raise
    except Exception as exc:  # liac-arff raises many types for a broken file
        text = str(exc) if len(str(exc)) <= 160 else str(exc)[:160] + "..."  # it may quote a whole row
        raise DatasetError(f"{path}: cannot parse ARFF ({exc.__class__.__name__}: {text})") from None
    if M.shape != (n_rows, len(attrs)):
        raise DatasetError(f"{path}: parsed shape {M.shape} does not fit the header ({n_rows} rows)")
    lab_idx = np.asarray(position)
    feat_idx = np.setdiff1d(np.arange(len(attrs)), lab_idx)
    Y = M[:, lab_idx]
    Y = Y.toarray() if sp.issparse(Y) else Y
    if np.isnan(Y).any():
        raise DatasetError(f"{path}: label columns hold missing values ('?')")
    # Category index -> 0/1 value (a label declared {1,0} has index 0 for '1').
    for k, j in enumerate(position):
        if attrs[j][1] == ["1", "0"]:
            Y[:, k] = 1 - Y[:, k]
    F = M[:, feat_idx]
    return [attrs[j] for j in feat_idx], F, Y.astype(np.int8), [names[j] for j in position]


#: How nominal features are turned into numbers (``data.nominal`` or a catalog entry's ``nominal``).
NOMINAL_MODES = ("onehot", "ordinal", "error")


#: An identifier takes a category of its own on at least this share of the instances.
IDENTIFIER_SHARE = 0.9


def _is_identifier(values: np.ndarray, categories: list) -> bool:
    """A nominal attribute naming the instance (e.g. genbase's protein): it declares at least as
    many categories as there are instances and (nearly) every instance takes its own category
    (genbase has one protein in both train and test)."""
    n = values.size
    if len(categories) <= 2 or len(categories) < n or np.isnan(values).any():
        return False
    return np.unique(values).size >= IDENTIFIER_SHARE * n


#: The words of a yes/no attribute, any case: a two-category nominal attribute whose categories are
#: one word of each set is 1 for its "yes" word, whichever it declares first (genbase's ``{YES,NO}``).
BOOLEAN_WORDS = (frozenset({"yes", "y", "true", "t", "1"}), frozenset({"no", "n", "false", "f", "0"}))


def positive_category(categories) -> int | None:
    """Which category of a two-category nominal attribute its 0/1 column is 1 for: the position of
    the "yes" word of a yes/no pair (:data:`BOOLEAN_WORDS`, any case: ``{YES,NO}``, ``{f,t}``,
    ``{1,0}``), else 1 (the second category declared). None for an attribute that is not a
    two-category nominal.

    >>> positive_category(["YES", "NO"]), positive_category(["0", "1"]), positive_category(["male", "female"])
    (0, 1, 1)
    """
    if not isinstance(categories, list) or len(categories) != 2:
        return None
    words = [str(c).strip().lower() for c in categories]
    yes, no = BOOLEAN_WORDS
    if words[0] in yes and words[1] in no:
        return 0
    return 1


def _is_yes_no(categories) -> bool:
    """Whether a two-category nominal attribute is a yes/no pair (:data:`BOOLEAN_WORDS`)."""
    if not isinstance(categories, list) or len(categories) != 2:
        return False
    words = {str(c).strip().lower() for c in categories}
    yes, no = BOOLEAN_WORDS
    return len(words & yes) == 1 and len(words & no) == 1


def _flip_columns(X, cols: list[int]):
    """``X`` with the 0/1 columns ``cols`` turned into 1 - column (dense: in place)."""
    if not cols:
        return X
    if not sp.issparse(X):
        X[:, cols] = 1.0 - X[:, cols]
        return X
    sign = np.ones(X.shape[1])
    sign[cols] = -1.0
    n = X.shape[0]
    ones = sp.csc_matrix(
        (np.ones(n * len(cols)), (np.tile(np.arange(n), len(cols)), np.repeat(cols, n))), shape=X.shape
    )
    out = (X @ sp.diags(sign) + ones).tocsc()
    out.eliminate_zeros()
    return out


def encode_features(name: str, attributes, F_train, F_test, nominal: str = "onehot"):
    """Numeric feature matrices from the raw attribute values of an ARFF file (``read_arff``).

    * numeric attributes are kept as they are (a missing value is an error);
    * string attributes and identifier attributes are dropped: a nominal attribute with at least
      as many categories as instances (train and test together), (nearly) each instance taking its
      own, such as genbase's ``protein``;
    * a nominal attribute with two categories becomes one 0/1 column. A yes/no pair (one word of
      each set of :data:`BOOLEAN_WORDS`, any case: yes/no, y/n, true/false, t/f, 1/0) is 1 for its
      "yes" word whichever it declares first, so ``{0,1}``, ``{NO,YES}`` and genbase's ``{YES,NO}``
      are all 1 for yes, named by the attribute alone; any other pair is 1 for the category declared
      second, and named ``attribute=category`` after it (``{male,female}``: ``sex=female``);
    * other nominal attributes follow ``nominal``: ``onehot`` (one 0/1 column per category,
      named ``attribute=category``), ``ordinal`` (the category's position in the declaration),
      or ``error``.

    Returns ``(X_train, X_test, feature_names)``. Logs one line per kind of change.
    """
    if nominal not in NOMINAL_MODES:
        raise DatasetError(f"dataset {name!r}: nominal must be one of {list(NOMINAL_MODES)}, got {nominal!r}")
    sparse = sp.issparse(F_train)
    F_train = F_train.tocsc() if sparse else F_train
    F_test = F_test.tocsc() if sparse else F_test

    def column(F, j):
        return F[:, j].toarray().ravel() if sparse else F[:, j]

    blocks_tr, blocks_te, names = [], [], []
    keep, kept_names, flip, dropped_id, dropped_str, expanded = [], [], [], [], [], []
    for j, (attr, kind) in enumerate(attributes):
        if kind == "STRING":
            dropped_str.append(attr)
            continue
        if not isinstance(kind, list) or len(kind) <= 2:
            one = positive_category(kind)
            if one == 0:  # a yes/no pair declared yes first: the column holds the index, 1 for "no"
                flip.append(len(keep))
            keep.append(j)
            kept_names.append(attr if one is None or _is_yes_no(kind) else f"{attr}={kind[one]}")
            continue
        both = np.concatenate([column(F_train, j), column(F_test, j)])
        if _is_identifier(both, kind):
            dropped_id.append(attr)
            continue
        if nominal == "error":
            raise DatasetError(
                f"dataset {name!r}: feature {attr!r} is nominal with {len(kind)} categories"
                " (set nominal: onehot or ordinal)"
            )
        if nominal == "ordinal":
            keep.append(j)
            kept_names.append(attr)
            continue
        expanded.append((attr, len(kind)))
        for F, blocks in ((F_train, blocks_tr), (F_test, blocks_te)):
            values = column(F, j)
            if np.isnan(values).any():
                raise DatasetError(f"dataset {name!r}: nominal feature {attr!r} has missing values ('?')")
            onehot = (values[:, None] == np.arange(len(kind))[None, :]).astype(np.float64)
            blocks.append(sp.csr_matrix(onehot) if sparse else onehot)
        names.extend(f"{attr}={c}" for c in kind)
    # Numeric and two-category columns first, in ARFF order, then the one-hot blocks.
    names = kept_names + names
    parts = []
    for F, blocks in ((F_train, blocks_tr), (F_test, blocks_te)):
        X = _flip_columns(F[:, keep], flip)  # F[:, keep] is a copy: the caller's F is unchanged
        X = sp.hstack([X, *blocks], format="csr") if sparse else np.hstack([X, *blocks])
        missing = (np.isnan(X.data) if sparse else np.isnan(X)).any()
        if missing:
            cols = np.flatnonzero(np.isnan(X.toarray() if sparse else X).any(axis=0))
            raise DatasetError(f"dataset {name!r}: feature {names[cols[0]]!r} has missing values ('?')")
        parts.append(X)
    if dropped_id:
        log.info(
            "%s: dropped %d identifier attribute(s) (a category per instance): %s", name, len(dropped_id), dropped_id
        )
    if dropped_str:
        log.info("%s: dropped %d string attribute(s): %s", name, len(dropped_str), dropped_str)
    if flip:
        log.info(
            "%s: %d yes/no feature(s) declared yes first (e.g. %s %s) encoded 1 for yes",
            name,
            len(flip),
            kept_names[flip[0]],
            "{" + ",".join(attributes[keep[flip[0]]][1]) + "}",
        )
    if expanded:
        log.info(
            "%s: %d nominal feature(s) one-hot encoded into %d columns: %s",
            name,
            len(expanded),
            sum(k for _, k in expanded),
            ", ".join(f"{a} ({k})" for a, k in expanded),
        )
    elif nominal == "ordinal" and any(isinstance(attributes[j][1], list) and len(attributes[j][1]) > 2 for j in keep):
        log.info("%s: nominal features with more than two categories used as ordinal codes", name)
    return parts[0], parts[1], names


def _read_libsvm(train: Path, test: Path, n_features, n_labels, zero_based_features):
    """Both LibSVM files of a dataset, read together (same feature indexing); ``n_features`` and
    ``n_labels`` None: the largest index found, plus one."""
    from sklearn.datasets import load_svmlight_files

    try:
        with open_binary(train) as f_train, open_binary(test) as f_test:
            X_train, y_train, X_test, y_test = load_svmlight_files(
                [f_train, f_test], n_features=n_features, multilabel=True, zero_based=zero_based_features
            )
    except (ValueError, OSError, EOFError) as exc:
        raise DatasetError(f"{train}, {test}: cannot parse LibSVM ({exc.__class__.__name__}: {exc})") from None
    if n_labels is None:
        n_labels = 1 + max((int(max(labels)) for y in (y_train, y_test) for labels in y if len(labels)), default=0)
    out = []
    for path, X, y in ((train, X_train, y_train), (test, X_test, y_test)):
        Y = np.zeros((X.shape[0], n_labels), dtype=np.int8)
        for row, labels in enumerate(y):
            idx = np.asarray(labels, dtype=int)
            if idx.size and (idx.min() < 0 or idx.max() >= n_labels):
                raise DatasetError(f"{path}: line {row + 1} has a label index outside 0..{n_labels - 1}")
            Y[row, idx] = 1
        out += [sp.csr_matrix(X, dtype=np.float64), Y]
    return out


def densify(X):
    """``X`` as dense float64, unless it is sparse with more than :data:`DENSE_LIMIT` cells (then CSR)."""
    if not sp.issparse(X):
        return np.ascontiguousarray(X, dtype=np.float64)
    return X.toarray() if X.shape[0] * X.shape[1] <= DENSE_LIMIT else X.tocsr()


#: The files each format needs.
ROLES = {"arff": ("train", "test", "xml"), "libsvm": ("train", "test")}


def check_entry(name: str, entry) -> None:
    """Raise :class:`DatasetError` if catalog entry ``entry`` lacks what :func:`parse` needs (its
    format, and the name of each file the format needs)."""
    if not isinstance(entry, dict):
        raise DatasetError(f"catalog entry {name!r}: not a mapping of keys ({entry!r})")
    fmt = entry.get("format")
    if fmt not in (*ROLES, "synthetic"):
        raise DatasetError(f"catalog entry {name!r}: unknown format {fmt!r} (use 'arff', 'libsvm' or 'synthetic')")
    if fmt == "synthetic":
        return
    files = entry.get("files")
    missing = [r for r in ROLES[fmt] if not isinstance(files, dict) or not (files.get(r) or {}).get("name")]
    if missing:
        raise DatasetError(
            f"catalog entry {name!r}: files.{missing[0]}.name is missing (a {fmt} entry names its {', '.join(ROLES[fmt])} files)"
        )


def raw_file(raw_dir, filename: str) -> Path:
    """``raw_dir/filename``, or ``raw_dir/filename.gz`` if only that exists; raises :class:`DatasetError`
    if neither does or the file is empty."""
    path = Path(raw_dir) / filename
    if not path.is_file() and path.with_name(filename + ".gz").is_file():
        path = path.with_name(filename + ".gz")
    if not path.is_file():
        raise DatasetError(f"{path}: raw file missing (run the fetch step)")
    if path.stat().st_size == 0:
        raise DatasetError(f"{path}: empty file")
    return path


def parse(name: str, entry: dict, raw_dir, nominal: str = "onehot") -> Dataset:
    """Parse the raw files of catalog entry ``entry`` from ``raw_dir`` and check the counts.

    Parameters
    ----------
    name : str
        The dataset's name (used in messages).
    entry : dict
        Catalog entry: ``format`` ("arff", "libsvm" or "synthetic": generated by
        :func:`fmeasure.datasets.synthetic.generate`, no files), ``files`` (train, test, and for ARFF
        xml, each with ``name``), optional ``expected`` counts (n_train, n_test, m, and d = feature
        attributes in the file, before encoding; each one given is checked), optional ``subset``
        (first ``train``/``test`` rows kept, for smoke tests), ``nominal`` (overrides the argument)
        and, for LibSVM, ``label_names`` and ``zero_based_features`` (without ``expected.m`` and
        ``expected.d`` the largest label and feature index found decide them).
    raw_dir : path
        Folder holding the verified raw files, each plain or gzip-compressed (``<name>`` or
        ``<name>.gz``).
    nominal : {"onehot", "ordinal", "error"}
        What to do with nominal features of more than two categories (see :func:`encode_features`).

    Raises
    ------
    DatasetError
        A file is missing, empty or malformed, the entry lacks a key it needs, or a count differs
        from ``expected``; the one-line message names the file or the entry.
    """
    check_entry(name, entry)
    if entry.get("format") == "synthetic":
        from fmeasure.datasets.synthetic import generate  # here: scipy.special only when generating

        return generate(name, entry)
    files = {role: raw_file(raw_dir, spec["name"]) for role, spec in entry["files"].items()}
    return parse_files(name, entry, files, nominal)


def parse_files(name: str, entry: dict, files: dict, nominal: str = "onehot") -> Dataset:
    """:func:`parse` with the path of each file given (``{"train": path, "test": path, "xml": path}``,
    each plain or gzip-compressed), wherever they are."""
    check_entry(name, entry)
    files = {role: Path(path) for role, path in files.items()}
    exp = entry.get("expected") or {}
    fmt = entry["format"]
    if fmt == "arff":
        labels = xml_label_names(files["xml"])
        attrs, Ftr, Ytr, lab = read_arff(files["train"], labels)
        attrs_te, Fte, Yte, lab_te = read_arff(files["test"], labels)
        if lab != lab_te or attrs != attrs_te:
            raise DatasetError(f"{files['test']}: attributes differ from {files['train'].name}")
        n_attributes = len(attrs)
    elif fmt == "libsvm":
        names = entry.get("label_names")
        m = exp.get("m") or (len(names) if names else None)
        Xtr, Ytr, Xte, Yte = _read_libsvm(
            files["train"], files["test"], exp.get("d"), m, entry.get("zero_based_features", "auto")
        )
        lab = list(names or [str(i) for i in range(Ytr.shape[1])])
        if len(lab) != Ytr.shape[1]:
            raise DatasetError(f"catalog entry {name!r}: {len(lab)} label_names for {Ytr.shape[1]} labels")
        feat = [f"f{j}" for j in range(Xtr.shape[1])]
        n_attributes = Xtr.shape[1]
    else:
        raise DatasetError(f"catalog entry {name!r}: format {fmt!r} has no files to parse")
    got = {"n_train": Ytr.shape[0], "n_test": Yte.shape[0], "m": Ytr.shape[1], "d": n_attributes}
    for key, value in got.items():
        if key in exp and exp[key] != value:
            which = files["xml"] if key == "m" and "xml" in files else files["train" if key != "n_test" else "test"]
            raise DatasetError(f"{which}: {key} is {value} but catalog entry {name!r} expects {exp[key]}")
    if fmt == "arff":
        Xtr, Xte, feat = encode_features(name, attrs, Ftr, Fte, entry.get("nominal", nominal))
    subset = entry.get("subset") or {}
    if subset.get("train"):
        Xtr, Ytr = Xtr[: subset["train"]], Ytr[: subset["train"]]
    if subset.get("test"):
        Xte, Yte = Xte[: subset["test"]], Yte[: subset["test"]]
    return Dataset(name, densify(Xtr), Ytr, densify(Xte), Yte, list(lab), list(feat), n_attributes)
