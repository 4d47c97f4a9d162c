"""The ``fmeasure`` command: F-optimal predictions from probabilities computed elsewhere.

``fmeasure predict`` reads label probabilities written by any other program (a neural network, R,
Julia, ...) and writes the prediction that maximises the expected instance-wise F-measure;
``fmeasure evaluate`` scores predictions against true labels with bootstrap confidence intervals.
``fmeasure --help`` and ``fmeasure predict --help`` list every option; ``docs/cli.md`` describes
the file layouts.

Inputs (a suffix decides the reader):

* ``.csv`` (also ``.tsv``/``.tab`` with tabs, and any of these compressed as ``.gz``/``.bz2``/
  ``.xz``): one row per instance (or per sample), one column per label. A first row holding a
  field that is not a number is a header and names the labels (``--header`` overrides); without
  one the labels are called ``y1 .. ym``.
* ``.npy``: a 2-D array (n, m), or for ``--samples`` also a 3-D array (n, k, m); opened with
  ``np.load(mmap_mode="r")`` so it can be larger than memory.
* ``.npz`` (``--samples`` only): ``scipy.sparse.save_npz`` of an (n * k, m) 0/1 matrix; rows
  ``i * k .. i * k + k - 1`` are the k samples of instance i (k = ``--samples-per-instance``).
  The same (n * k, m) layout is read from a 2-D ``.csv`` or ``.npy`` of samples.

Every input is read, checked and processed in chunks of rows, and each chunk's predictions are
written before the next is read: memory is O(chunk x m) whatever n is; time is O(n m^2) for
``--marginals`` (Ye et al.'s DP) and O(n k m + n m s_max) for ``--samples`` (GFM, s_max the
largest label count in the samples). ``evaluate`` keeps four floats per instance for the
bootstrap.

Exit codes: 0 success; 2 usage error (bad or missing arguments, an input file that does not
exist, an unknown suffix); 1 bad data. Bad data gets one line on stderr naming the file, the row
(1-based, the header not counted) and the problem, e.g.
``fmeasure: P.csv: row 17: column 'y3': probability 1.3 outside [0, 1]``. An output file given
with ``-o`` is written under a temporary name beside it and renamed when everything succeeded, so
a failed run leaves no file behind (on stdout, the rows before the bad one have been printed).

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "P.csv").write_text("cat,dog,bird\\n0.9,0.45,0.4\\n0.3,0.25,0.2\\n")
>>> main(["predict", "--marginals", str(d / "P.csv"), "-o", str(d / "H.csv")])
0
>>> print((d / "H.csv").read_text().strip())
cat,dog,bird,expected_f
1,1,1,0.7022
0,0,0,0.42
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import csv
import gzip
import lzma
import sys
from pathlib import Path

import numpy as np

from fmeasure.io import atomic_output
from fmeasure.metrics import MEASURE_TITLES, MEASURES, per_instance

__all__ = ["main", "build_parser", "bootstrap_ci", "DataError"]

EXIT_OK, EXIT_DATA, EXIT_USAGE = 0, 1, 2
#: values held in memory per chunk (rows x columns), about 32 MB of float64
CHUNK_VALUES = 2**22
#: digits of the expected F written to the output
FLOAT_FORMAT = "%.12g"

EPILOG_PREDICT = """\
examples:
  fmeasure predict --marginals P.csv -o H.csv       # one row of P(y_j = 1 | x) per instance (FM)
  fmeasure predict --marginals P.npy --format indices > H.csv
  fmeasure predict --samples S.npy -o H.csv         # S of shape (n, k, m): k joint samples (GFM)
  fmeasure predict --samples S.npz --samples-per-instance 100 -o H.csv

output: one row per input instance; the m label columns (0/1, named as in the input, or y1..ym)
then expected_f. --format indices writes one column `labels` with the 0-based indices of the
predicted labels separated by spaces (empty for the empty prediction); --format names writes the
label names instead. expected_f is exact under label independence (--marginals) or under the
empirical distribution of the samples (--samples).
"""

EPILOG_EVALUATE = """\
examples:
  fmeasure evaluate --true Y.csv --pred H.csv
  fmeasure evaluate --true Y.npy --pred H.csv --n-boot 2000 --seed 1 -o scores.csv

Y holds the true 0/1 labels, one row per instance; H is what `fmeasure predict` wrote (binary or
indices/names format; its expected_f column is ignored). Columns are matched by name when both
files have a header, by position otherwise. Prints the mean Hamming loss, subset 0/1 loss,
F-measure (F(0, 0) = 1) and Jaccard index with percentile bootstrap intervals over instances.
"""

EPILOG_MAIN = """\
examples:
  fmeasure predict --marginals P.csv -o H.csv
  fmeasure predict --samples S.npy -o H.csv
  fmeasure evaluate --true Y.csv --pred H.csv

exit codes: 0 success, 1 bad data (one line naming the file, the row and the problem),
2 usage error. `fmeasure <command> --help` describes each command.
"""


class DataError(Exception):
    """Bad content in an input file: the message names the file, the row and the problem."""


class UsageError(Exception):
    """Arguments that cannot work together, or an input file that cannot be opened."""


# --------------------------------------------------------------------------------------- reading

_COMPRESSED = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _suffixes(path: Path):
    """(format suffix, compression suffix or '') of ``path``: ``P.csv.gz`` -> ('.csv', '.gz')."""
    sfx = [s.lower() for s in path.suffixes]
    comp = sfx[-1] if sfx and sfx[-1] in _COMPRESSED else ""
    rest = sfx[:-1] if comp else sfx
    return (rest[-1] if rest else ""), comp


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_exists(path: Path):
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, expected a file")


class Table:
    """A numeric table read in chunks of rows: a CSV file or a 2-D ``.npy`` array.

    Attributes: ``names`` (column names, from the header or ``y1 .. ym``), ``has_header``,
    ``n_rows`` (None for CSV: not known before the end), ``label`` (the path as given).
    """

    def __init__(self, path, header="auto", allow=(".csv", ".tsv", ".tab", ".npy"), delimiter=None, ndims=(2,)):
        self.path = Path(path)
        self.label = str(path)
        _check_exists(self.path)
        self.fmt, self.comp = _suffixes(self.path)
        if self.fmt not in allow or (self.comp and self.fmt == ".npy"):
            raise UsageError(f"{self.label}: unknown file type, expected one of {', '.join(allow)}")
        self.sep = "," if self.fmt == ".csv" else "\t"
        if delimiter is not None:
            self.sep = delimiter
        self.n_rows = None
        self.array = None
        if self.fmt == ".npy":
            self._open_npy(ndims)
        else:
            self._open_csv(header)

    def _open_npy(self, ndims):
        try:
            self.array = np.load(self.path, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise DataError(f"{self.label}: not a readable .npy array ({exc})") from None
        if self.array.dtype.kind not in "fiub":
            raise DataError(f"{self.label}: dtype {self.array.dtype} is not numeric")
        if self.array.ndim not in ndims:
            want = " or ".join(f"{d}-D" for d in ndims)
            raise DataError(f"{self.label}: expected a {want} array, got shape {self.array.shape}")
        if self.array.shape[-1] == 0:
            raise DataError(f"{self.label}: no label columns (shape {self.array.shape})")
        self.n_rows = self.array.shape[0]
        self.names = [f"y{j + 1}" for j in range(self.array.shape[-1])]
        self.has_header = False

    def _text(self):
        opener = _COMPRESSED.get(self.comp, open)
        return opener(self.path, "rt", newline="", encoding="utf-8-sig")

    def _rows(self):
        """Non-blank rows of the file as lists of fields (the csv module; blank lines skipped)."""
        with self._text() as f:
            for row in csv.reader(f, delimiter=self.sep):
                if row and any(x.strip() for x in row):
                    yield row

    def _open_csv(self, header):
        try:
            with contextlib.closing(self._rows()) as rows:
                first = next(rows, None)
        except (UnicodeDecodeError, OSError, EOFError, csv.Error) as exc:
            raise DataError(f"{self.label}: not a readable text table ({exc})") from None
        if first is None:
            raise DataError(f"{self.label}: empty file")
        fields = [x.strip() for x in first]
        guess = not all(_is_number(x) for x in fields if x)  # an empty field is a missing value
        self.has_header = {"yes": True, "no": False}.get(header, guess)
        self.names = fields if self.has_header else [f"y{j + 1}" for j in range(len(fields))]
        if self.has_header and "" in self.names:
            j = self.names.index("")
            hint = " (a row index? write the CSV without it, e.g. pandas' to_csv(index=False))" if j == 0 else ""
            raise DataError(f"{self.label}: column {j + 1} of the header has no name{hint}")
        if len(set(self.names)) != len(self.names):
            dup = next(x for x in self.names if self.names.count(x) > 1)
            raise DataError(f"{self.label}: header names column {dup!r} twice")

    def rows_estimate(self):
        """Number of rows for a progress bar: exact for .npy, the count of line ends of an
        uncompressed CSV (one fast pass, made only when a bar is shown), else None."""
        if self.n_rows is not None or self.comp:
            return self.n_rows
        lines = 0
        with open(self.path, "rb") as f:
            while block := f.read(2**24):
                lines += block.count(b"\n")
        return max(0, lines - int(self.has_header))

    # -- chunks

    def raw_chunks(self, rows: int, dtype=None):
        """Yield (offset, pandas DataFrame) of ``rows`` rows each (CSV only)."""
        import pandas as pd

        reader = pd.read_csv(
            self.path,
            sep=self.sep,
            header=0 if self.has_header else None,
            names=self.names,  # the header's names, stripped as the csv module read them
            index_col=False,
            chunksize=rows,
            skipinitialspace=True,
            encoding="utf-8-sig",
            dtype=dtype,
            keep_default_na=dtype is None,
        )
        offset = 0
        try:
            for df in reader:
                yield offset, df
                offset += len(df)
        except pd.errors.ParserError as exc:
            raise self._ragged_error(str(exc).strip().splitlines()[-1]) from None
        except (UnicodeDecodeError, EOFError, OSError) as exc:
            raise DataError(f"{self.label}: not a readable text table ({exc})") from None

    def chunks(self, rows: int):
        """Yield (offset, float64 array (r, m)) covering every row, each checked to be numeric."""
        if self.array is not None:
            for start in range(0, self.n_rows, rows):
                yield start, np.asarray(self.array[start : start + rows], dtype=np.float64)
            return
        for offset, df in self.raw_chunks(rows):
            yield offset, self._numeric(df, offset)

    def _numeric(self, df, offset):
        import pandas as pd

        for name in df.columns:
            col = df[name]
            if col.dtype.kind not in "fiub":
                conv = pd.to_numeric(col, errors="coerce")
                bad = np.flatnonzero(conv.isna().to_numpy() & col.notna().to_numpy())
                if bad.size:
                    i = int(bad[0])
                    where = f"{self.label}: row {offset + i + 1}: column {name!r}"
                    raise DataError(f"{where}: {col.iloc[i]!r} is not a number")
                df[name] = conv
        a = df.to_numpy(dtype=np.float64)
        if np.isnan(a).any():
            i, j = (int(x[0]) for x in np.nonzero(np.isnan(a)))
            ragged = self._first_ragged()
            if ragged is not None and ragged[0] <= offset + i + 1:
                raise self._ragged_error()
            raise DataError(f"{self.label}: row {offset + i + 1}: column {self.names[j]!r}: missing value or NaN")
        return a

    def _first_ragged(self):
        """(1-based data row, number of fields) of the first row whose length differs, or None."""
        m = len(self.names)
        rows = self._rows()
        if self.has_header:
            next(rows, None)
        for r, row in enumerate(rows, start=1):
            if len(row) != m:
                return r, len(row)
        return None

    def _ragged_error(self, fallback=""):
        found = self._first_ragged()
        if found is None:
            return DataError(f"{self.label}: {fallback or 'cannot be parsed as a table'}")
        r, k = found
        return DataError(f"{self.label}: row {r}: {k} values, expected {len(self.names)} (ragged row)")


def _first_bad(a, bad):
    """(row, column) of the first True of ``bad`` in row-major order."""
    i, j = np.unravel_index(int(np.argmax(bad.reshape(-1))), bad.shape)
    return int(i), int(j)


def check_probabilities(a, table: Table, offset: int):
    """Raise DataError at the first value outside [0, 1] (or not finite)."""
    bad = ~((a >= 0.0) & (a <= 1.0))
    if bad.any():
        i, j = _first_bad(a, bad)
        where = f"{table.label}: row {offset + i + 1}: column {table.names[j]!r}"
        if np.isnan(a[i, j]):
            raise DataError(f"{where}: missing value or NaN")
        raise DataError(f"{where}: probability {a[i, j]:g} outside [0, 1]")


def check_binary(a, table: Table, offset: int, names=None):
    """Raise DataError at the first value other than 0 or 1; return the int8 array."""
    bad = (a != 0) & (a != 1)
    if bad.any():
        i, j = _first_bad(a, bad)
        name = (names or table.names)[j]
        raise DataError(f"{table.label}: row {offset + i + 1}: column {name!r}: value {a[i, j]:g} is not 0 or 1")
    return a.astype(np.int8)


def _chunk_rows(args, m, per_row=1):
    if args.chunksize is not None:
        return args.chunksize
    return max(1, CHUNK_VALUES // max(1, m * per_row))


# ------------------------------------------------------------------------------------- writing


class PredictionWriter:
    """Write predictions chunk by chunk as CSV: label columns + expected_f, or a `labels` column."""

    def __init__(self, stream, names, fmt="binary", source="input"):
        if "expected_f" in names and fmt == "binary":
            raise DataError(f"{source}: a label is named 'expected_f', the output's value column: rename it")
        if fmt == "names":
            bad = next((x for x in names if not x or any(c.isspace() for c in x)), None)
            if bad is not None:
                raise DataError(f"{source}: label name {bad!r} holds a space: use --format indices")
        self.stream, self.names, self.fmt = stream, list(names), fmt
        self.first = True
        self.rows = 0

    def write(self, H, V):
        import pandas as pd

        if self.fmt == "binary":
            df = pd.DataFrame(H, columns=self.names)
        else:
            lookup = np.asarray(self.names, dtype=object) if self.fmt == "names" else None
            sets = []
            for h in H:
                idx = np.flatnonzero(h)
                sets.append(" ".join(lookup[idx]) if lookup is not None else " ".join(map(str, idx)))
            df = pd.DataFrame({"labels": sets})
        df["expected_f"] = V
        df.to_csv(self.stream, header=self.first, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
        self.first = False
        self.rows += len(H)

    def close(self):
        if self.first:  # no rows at all: still write the header
            self.write(np.zeros((0, len(self.names)), np.int8), np.zeros(0))


@contextlib.contextmanager
def _output(path):
    """A text stream: stdout, or a temporary file beside ``path`` renamed to it on success."""
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_output(path) as tmp, open(tmp, "w", newline="") as f:
        yield f


def _progress(desc, n=None, table=None, per_item=1):
    """A tqdm bar on standard error if it is a terminal, nothing otherwise.

    Its total is ``n``, else estimated from ``table`` (rows, ``per_item`` rows per unit).
    """
    from tqdm.auto import tqdm

    show = sys.stderr.isatty()
    if n is None and show and table is not None:
        rows = table.rows_estimate()
        n = None if rows is None else rows // per_item
    return tqdm(total=n, desc=desc, unit="rows", disable=not show, leave=False)


# ------------------------------------------------------------------------------------- predict


def _sample_source(args):
    """(names, k, n or None, iterator of (offset_instances, int8 (c, k, m)), Table or None) for --samples."""
    path = Path(args.samples)
    _check_exists(path)
    fmt, comp = _suffixes(path)
    k = args.samples_per_instance
    label = str(path)
    if fmt == ".npz" and not comp:
        import scipy.sparse as sp

        try:
            S = sp.load_npz(path).tocsr()
        except (ValueError, OSError, KeyError) as exc:
            raise DataError(f"{label}: not a scipy.sparse .npz matrix ({exc})") from None
        if k is None:
            raise UsageError("--samples-per-instance is required with a .npz of samples (rows are n * k samples)")
        table = argparse.Namespace(label=label, names=[f"y{j + 1}" for j in range(S.shape[1])])
        if S.shape[1] == 0:
            raise DataError(f"{label}: no label columns (shape {S.shape})")
        bad = (S.data != 0) & (S.data != 1)
        if bad.any():
            e = int(np.argmax(bad))
            row = int(np.searchsorted(S.indptr, e, side="right")) - 1
            raise DataError(
                f"{label}: row {row + 1}: column {table.names[S.indices[e]]!r}: value {S.data[e]:g} is not 0 or 1"
            )
        if S.shape[0] % k:
            raise DataError(f"{label}: {S.shape[0]} rows is not a multiple of --samples-per-instance {k}")
        n, m = S.shape[0] // k, S.shape[1]
        per = _chunk_rows(args, m, k)

        def gen():
            for start in range(0, n, per):
                stop = min(n, start + per)
                block = S[start * k : stop * k].toarray().astype(np.int8, copy=False)
                yield start, block.reshape(stop - start, k, m)

        return table.names, k, n, gen(), None

    table = Table(path, args.header, (".csv", ".tsv", ".tab", ".npy", ".npz"), args.delimiter, ndims=(2, 3))
    m = len(table.names)
    if table.array is not None and table.array.ndim == 3:
        n, kk = table.array.shape[:2]
        if k is not None and k != kk:
            raise UsageError(f"--samples-per-instance {k} contradicts {label}, of shape {table.array.shape}")
        if kk == 0:
            raise DataError(f"{label}: no samples (shape {table.array.shape})")
        per = _chunk_rows(args, m, kk)

        def gen3():
            for start in range(0, n, per):
                a = np.asarray(table.array[start : start + per], dtype=np.float64)
                yield start, check_binary(a.reshape(-1, m), table, start * kk).reshape(a.shape)

        return table.names, kk, n, gen3(), table
    if k is None:
        raise UsageError(f"--samples-per-instance is required with a 2-D table of samples ({label})")
    per = _chunk_rows(args, m, k)
    if table.n_rows is not None and table.n_rows % k:
        raise DataError(f"{label}: {table.n_rows} rows is not a multiple of --samples-per-instance {k}")

    def gen2():
        for offset, a in table.chunks(per * k):
            if len(a) % k:
                raise DataError(f"{label}: {offset + len(a)} rows is not a multiple of --samples-per-instance {k}")
            yield offset // k, check_binary(a, table, offset).reshape(-1, k, m)

    n = None if table.n_rows is None else table.n_rows // k
    return table.names, k, n, gen2(), table


def cmd_predict(args) -> int:
    from fmeasure.inference import fm, gfm_from_samples

    if args.marginals is not None:
        if args.samples_per_instance is not None:
            raise UsageError("--samples-per-instance goes with --samples, not --marginals")
        table = Table(args.marginals, args.header, delimiter=args.delimiter)
        names, n, per_item, source = table.names, table.n_rows, 1, table.label

        def batches():
            for offset, a in table.chunks(_chunk_rows(args, len(names))):
                check_probabilities(a, table, offset)
                yield len(a), fm(a)

    else:
        names, per_item, n, gen, table = _sample_source(args)
        source = args.samples

        def batches():
            for _, Y in gen:
                yield len(Y), gfm_from_samples(Y)

    with _output(args.output) as stream:
        writer = PredictionWriter(stream, names, args.format, source)
        with _progress("predict", n, table, per_item) as bar:
            for rows, (H, V) in batches():
                if rows:
                    writer.write(H, V)
                bar.update(rows)
        writer.close()
    return EXIT_OK


# ------------------------------------------------------------------------------------ evaluate


def bootstrap_ci(scores, n_boot=1000, seed=0, confidence=0.95):
    """Mean of each column of ``scores`` (n, q) and its percentile bootstrap interval.

    Resamples are ``numpy.random.default_rng(seed).integers(0, n, size=(n_boot, n))``, drawn in
    batches of rows (same stream, bounded memory). Returns (mean (q,), low (q,), high (q,)).

    Examples
    --------
    >>> mean, lo, hi = bootstrap_ci(np.array([[1.0], [1.0], [1.0]]), n_boot=50)
    >>> mean.tolist(), lo.tolist(), hi.tolist()
    ([1.0], [1.0], [1.0])
    """
    scores = np.asarray(scores, dtype=np.float64)
    n, q = scores.shape
    rng = np.random.default_rng(seed)
    means = np.empty((n_boot, q))
    batch = max(1, CHUNK_VALUES // max(1, n))
    for start in range(0, n_boot, batch):
        stop = min(n_boot, start + batch)
        idx = rng.integers(0, n, size=(stop - start, n))
        for j in range(q):
            means[start:stop, j] = scores[idx, j].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
    return scores.mean(axis=0), lo, hi


def _pred_layout(table: Table, true: Table):
    """How to turn the prediction file's rows into (r, m) 0/1 arrays matching the true file."""
    names = [x for x in table.names if x != "expected_f"] if table.has_header else table.names
    if table.has_header and names == ["labels"]:
        return "labels", None
    if len(names) != len(true.names):
        raise DataError(f"{table.label}: {len(names)} label columns, but {true.label} has {len(true.names)}")
    default = [f"y{j + 1}" for j in range(len(names))]  # what predict names unnamed labels
    if table.has_header and true.has_header and default not in (names, true.names):
        if set(names) != set(true.names):
            miss = next(x for x in true.names if x not in names)
            raise DataError(f"{table.label}: no column {miss!r} of {true.label}")
        return "binary", [table.names.index(x) for x in true.names]
    return "binary", [table.names.index(x) for x in names]


def _labels_to_binary(col, offset, table: Table, true: Table):
    """Rows of space-separated label indices (or names of the true file) -> (r, m) int8."""
    m = len(true.names)
    pos = {x: j for j, x in enumerate(true.names)}
    H = np.zeros((len(col), m), np.int8)
    for i, text in enumerate(col):
        for tok in str(text).split():
            j = int(tok) if tok.isdigit() else pos.get(tok, -1)
            if not 0 <= j < m:
                raise DataError(
                    f"{table.label}: row {offset + i + 1}: label {tok!r} is not one of the {m} labels of {true.label}"
                )
            H[i, j] = 1
    return H


def cmd_evaluate(args) -> int:
    if args.n_boot < 1:
        raise UsageError("--n-boot must be at least 1")
    if not 0.0 < args.confidence < 1.0:
        raise UsageError("--confidence must lie strictly between 0 and 1")
    true = Table(args.true, args.header, delimiter=args.delimiter)
    pred = Table(args.pred, "auto")
    kind, cols = _pred_layout(pred, true)
    rows = _chunk_rows(args, len(true.names))
    t_iter = true.chunks(rows)
    if kind == "labels":
        p_iter = ((off, df["labels"].to_numpy()) for off, df in pred.raw_chunks(rows, dtype=str))
    else:
        p_iter = pred.chunks(rows)
    parts = []
    n_true = n_pred = 0
    with _progress("evaluate", true.n_rows, true) as bar:
        while True:
            t = next(t_iter, None)
            p = next(p_iter, None)
            if t is None or p is None or len(t[1]) != len(p[1]):
                # one file is shorter: count the rows of both for the message
                n_true += sum(len(x[1]) for x in ([] if t is None else [t])) + sum(len(x[1]) for x in t_iter)
                n_pred += sum(len(x[1]) for x in ([] if p is None else [p])) + sum(len(x[1]) for x in p_iter)
                break
            (off, Y), (_, Hraw) = t, p
            Y = check_binary(Y, true, off)
            if kind == "labels":
                H = _labels_to_binary(Hraw, off, pred, true)
            else:
                H = check_binary(Hraw[:, cols], pred, off, [pred.names[c] for c in cols])
            v = per_instance(Y, H, jaccard_empty=args.jaccard_empty)
            parts.append(np.column_stack([v[k] for k in MEASURES]))
            n_true += len(Y)
            n_pred += len(H)
            bar.update(len(Y))
    if n_true != n_pred:
        raise DataError(f"{pred.label}: {n_pred} rows, but {true.label} has {n_true}")
    if n_true == 0:
        raise DataError(f"{true.label}: no rows to evaluate")
    scores = np.concatenate(parts)
    mean, lo, hi = bootstrap_ci(scores, args.n_boot, args.seed, args.confidence)
    pct = f"{100 * args.confidence:g}%"
    width = max(len(MEASURE_TITLES[k]) for k in MEASURES)
    lines = [
        f"{len(scores)} instances, {args.n_boot} bootstrap resamples (seed {args.seed}), {pct} percentile intervals",
        f"{'measure':<{width}}  {'value':>8}  {pct + ' interval':>22}",
    ]
    for j, k in enumerate(MEASURES):
        lines.append(f"{MEASURE_TITLES[k]:<{width}}  {mean[j]:8.4f}  [{lo[j]:8.4f}, {hi[j]:8.4f}]")
    print("\n".join(lines))
    if args.output is not None:
        import pandas as pd

        table = pd.DataFrame(
            {
                "measure": list(MEASURES),
                "value": mean,
                "ci_low": lo,
                "ci_high": hi,
                "n": len(scores),
                "n_boot": args.n_boot,
                "confidence": args.confidence,
                "seed": args.seed,
            }
        )
        with _output(args.output) as stream:
            table.to_csv(stream, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return EXIT_OK


# ---------------------------------------------------------------------------------------- main


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {v}")
    return v


def _delimiter(text):
    text = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(text) != 1:
        raise argparse.ArgumentTypeError(f"expected one character (or \\t, tab), got {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fmeasure`` command (subcommands ``predict`` and ``evaluate``)."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="fmeasure",
        description="F-measure optimal multi-label predictions from probabilities computed elsewhere.",
        epilog=EPILOG_MAIN,
        formatter_class=fmt,
    )
    from fmeasure import __version__

    parser.add_argument("--version", action="version", version=f"fmeasure {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{predict,evaluate}")

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--header",
        choices=["auto", "yes", "no"],
        default="auto",
        help="does the first row of a CSV input name the labels? auto: yes if a field is not a number (default)",
    )
    common.add_argument(
        "--delimiter",
        metavar="CHAR",
        type=_delimiter,
        help="field separator of the input CSV (evaluate: of --true) (default: ',' for .csv, a tab for .tsv/.tab)",
    )
    common.add_argument(
        "--chunksize",
        type=_positive_int,
        default=None,
        help="rows (instances for --samples) read and processed at a time (default: about 4 million values)",
    )

    p = sub.add_parser(
        "predict",
        parents=[common],
        help="F-optimal predictions from marginals (FM) or joint samples (GFM)",
        description="Write the prediction that maximises the expected F-measure of each instance.",
        epilog=EPILOG_PREDICT,
        formatter_class=fmt,
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--marginals",
        metavar="P",
        help="CSV or .npy, (n, m): P(y_j = 1 | x) per instance and label; labels assumed independent (FM)",
    )
    src.add_argument(
        "--samples",
        metavar="S",
        help=".npy (n, k, m), or (n * k, m) rows as .npz (scipy.sparse), .npy or CSV: joint label samples (GFM)",
    )
    p.add_argument(
        "--samples-per-instance", type=_positive_int, metavar="K", help="k, for an (n * k, m) layout of --samples"
    )
    p.add_argument("-o", "--output", metavar="H.csv", help="output CSV (default: standard output)")
    p.add_argument(
        "--format",
        choices=["binary", "indices", "names"],
        default="binary",
        help="binary: one 0/1 column per label (default); indices / names: one column `labels`",
    )
    p.set_defaults(func=cmd_predict)

    e = sub.add_parser(
        "evaluate",
        parents=[common],
        help="score predictions against true labels, with bootstrap confidence intervals",
        description="Mean Hamming loss, subset 0/1 loss, F-measure and Jaccard index over instances.",
        epilog=EPILOG_EVALUATE,
        formatter_class=fmt,
    )
    e.add_argument("--true", required=True, metavar="Y", help="true labels, CSV or .npy of 0/1, (n, m)")
    e.add_argument("--pred", required=True, metavar="H", help="predictions, as written by `fmeasure predict`")
    e.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples (default 1000)")
    e.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    e.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default 0.95)")
    e.add_argument(
        "--jaccard-empty",
        type=float,
        choices=[0.0, 1.0],
        default=1.0,
        help="Jaccard index of an empty prediction for an empty truth (default 1, as F(0, 0) = 1)",
    )
    e.add_argument("-o", "--output", metavar="scores.csv", help="also write the table as CSV")
    e.set_defaults(func=cmd_evaluate)
    return parser


def main(argv=None) -> int:
    """Run the ``fmeasure`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"fmeasure {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DataError as exc:
        print(f"fmeasure: {exc}", file=sys.stderr)
        return EXIT_DATA
    except BrokenPipeError:  # the reader of stdout went away (`| head`): stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(Path("/dev/null") if sys.platform != "win32" else "nul", "w")  # noqa: SIM115
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
