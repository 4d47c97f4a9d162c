"""The ``fmeasure`` command: F-optimal predictions from probabilities computed elsewhere.

``fmeasure predict`` reads label probabilities written by any other program (a neural network, R,
Julia, ...) and writes the prediction that maximises the expected instance-wise F-measure;
``fmeasure evaluate`` scores predictions against true labels with bootstrap confidence intervals.
``fmeasure --help`` and ``fmeasure predict --help`` list every option; ``docs/cli.md`` describes
the file layouts.

Inputs (a suffix decides the reader):

* ``.csv`` (also ``.tsv``/``.tab`` with tabs, and any of these compressed as ``.gz``/``.bz2``/
  ``.xz``/``.zip``/``.zst``, as pandas infers from the name): one row per instance (or per
  sample), one column per label, read with ``pandas.read_csv``. With ``--header auto`` the first
  row is a header if none of its fields is a number, or if its fields are ``0,1,...,m-1`` (what
  ``pandas.DataFrame(P).to_csv(index=False)`` writes; for m <= 2 these are also valid data, so
  the command asks for ``--header yes`` or ``no``); a first row mixing numbers and other text is
  an error. Without a header the labels are called ``y1 .. ym``. Blank lines at the end of the
  file are ignored; elsewhere a blank line is an error.
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
exist, an unknown suffix, an output that cannot be written); 1 bad data. Bad data gets one line on
stderr naming the file, the row (1-based, the header not counted, blank lines counted) and the
problem, e.g. ``fmeasure: P.csv: row 17: column 'y3': probability 1.3 outside [0, 1]``; the row
named is the first bad one. An output file given with ``-o`` is written under a temporary name
beside it and renamed when everything succeeded, so a failed run leaves no file behind (on stdout,
the rows before the bad one have been printed).

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
import contextlib
import lzma
import re
import sys
import warnings
import zipfile
import zlib
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
indices/names format; a first row naming expected_f is its header, and the values of expected_f,
numbers, are not used). Columns are matched by name when both files have a header, by position
otherwise. Prints the mean Hamming loss, subset 0/1 loss, F-measure (F(0, 0) = 1) and Jaccard
index with percentile bootstrap intervals over instances.
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

#: compressions pandas infers from the last suffix of a CSV's name
_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst")
#: spellings of a missing value, named as such in messages (they are not numbers)
_NA_TEXT = {"nan", "-nan", "+nan", "na", "n/a", "#n/a", "null", "none", "<na>"}
#: what a value of each kind must be, and how a bad one is described
_KINDS = {
    "probability": (lambda a: (a >= 0.0) & (a <= 1.0), "probability {:g} outside [0, 1]"),
    "binary": (lambda a: (a == 0) | (a == 1), "value {:g} is not 0 or 1"),
    "number": (lambda a: ~np.isnan(a), "{:g}"),  # any number (a NaN is reported as missing)
}
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _suffixes(path: Path):
    """(format suffix, compression suffix or '') of ``path``: ``P.csv.gz`` -> ('.csv', '.gz')."""
    sfx = [s.lower() for s in path.suffixes]
    comp = sfx[-1] if sfx and sfx[-1] in _COMPRESSED else ""
    rest = sfx[:-1] if comp else sfx
    return (rest[-1] if rest else ""), comp


def _is_number(text: str) -> bool:
    """Whether a field reads as a number, as the data are read (``pandas.to_numeric``)."""
    import pandas as pd

    if not text.strip():
        return False
    try:
        pd.to_numeric(text)
    except (ValueError, TypeError):
        return False
    return True


def _is_missing(text) -> bool:
    """Whether a field is empty or spells a missing value (``NaN``, ``NA``, ...)."""
    return not isinstance(text, str) or not text.strip() or text.strip().lower() in _NA_TEXT


def _show(text: str, width: int = 40) -> str:
    """repr of a field for a one-line message, shortened."""
    r = repr(text)
    return r if len(r) <= width else r[: width - 4] + "...'"


def _check_exists(path: Path):
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, expected a file")


def _first_bad(bad):
    """(row, column) of the first True of the 2-D ``bad`` in row-major order."""
    i, j = np.unravel_index(int(np.argmax(bad.reshape(-1))), bad.shape)
    return int(i), int(j)


class Table:
    """A numeric table read in chunks of rows: a CSV file (``pandas.read_csv``) or a ``.npy`` array.

    CSV: the first row is the header if ``header`` is ``"yes"``, data if ``"no"``; with
    ``"auto"`` it is the header when none of its fields is a number, or when its fields are the
    integers ``0 .. m-1`` in order (what ``pandas.DataFrame(P).to_csv(index=False)`` writes; for
    m <= 2 these are also valid data, and the table asks for ``--header``), and data when all its
    fields are numbers (or missing). A first row mixing numbers and other text is an error.
    Rows are counted from 1 after the header, blank lines included; blank lines at the end of the
    file are ignored, elsewhere they are an error, as is a row of empty fields anywhere.

    Attributes: ``names`` (column names, from the header or ``y1 .. ym``), ``has_header``,
    ``n_rows`` (None for CSV: not known before the end), ``label`` (the path as given).
    """

    def __init__(
        self,
        path,
        header="auto",
        allow=(".csv", ".tsv", ".tab", ".npy"),
        delimiter=None,
        ndims=(2,),
        header_names=(),
        header_hint="pass --header yes or --header no",
    ):
        self.path = Path(path)
        self.label = str(path)
        _check_exists(self.path)
        self.fmt, self.comp = _suffixes(self.path)
        if self.fmt not in allow or (self.comp and self.fmt in (".npy", ".npz")):
            raise UsageError(f"{self.label}: unknown file type, expected one of {', '.join(allow)}")
        self.sep = "," if self.fmt == ".csv" else "\t"
        if delimiter is not None:
            self.sep = delimiter
        self.n_rows = None
        self.array = None
        self.header_guessed = header == "auto"
        if self.fmt == ".npy":
            self._open_npy(ndims)
        else:
            self._open_csv(header, header_names, header_hint)

    # -- .npy

    def _open_npy(self, ndims):
        try:
            self.array = np.load(self.path, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise DataError(f"{self.label}: not a readable .npy array ({exc})") from None
        if not isinstance(self.array, np.ndarray):  # an .npz archive under a .npy name
            with contextlib.suppress(AttributeError):
                self.array.close()
            raise DataError(f"{self.label}: not a readable .npy array (an .npz archive?)")
        if self.array.dtype.kind not in "fiub":
            raise DataError(f"{self.label}: dtype {self.array.dtype} is not numeric")
        if self.array.ndim not in ndims:
            want = " or ".join(f"{d}-D" for d in ndims)
            raise DataError(f"{self.label}: expected a {want} array, got shape {self.array.shape}")
        if self.array.shape[-1] == 0:
            raise DataError(f"{self.label}: no label columns (shape {self.array.shape})")
        if self.array.shape[0] == 0:
            raise DataError(f"{self.label}: no rows (shape {self.array.shape})")
        self.n_rows = self.array.shape[0]
        self.names = [f"y{j + 1}" for j in range(self.array.shape[-1])]
        self.has_header = False

    # -- CSV

    def _read(self, **options):
        """``pandas.read_csv`` of this file: no header, no text turned into NaN, blank lines kept."""
        import pandas as pd

        kw = dict(
            sep=self.sep,
            header=None,
            skipinitialspace=True,
            encoding="utf-8-sig",
            compression="infer",
            keep_default_na=False,
            skip_blank_lines=False,
            low_memory=False,
            engine="c",
        )
        kw.update(options)
        return pd.read_csv(self.path, **kw)

    @contextlib.contextmanager
    def _reading(self, parser_errors=False):
        """Turn the exceptions of reading the file (decoding, decompression, parsing) into one line;
        pandas' ParserWarning (it dropped or moved fields) is one of them. EmptyDataError, and
        ParserError if ``parser_errors``, are left to the caller."""
        import pandas as pd

        passed = (pd.errors.EmptyDataError, pd.errors.ParserError) if parser_errors else pd.errors.EmptyDataError
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", pd.errors.ParserWarning)
                yield
        except ImportError as exc:  # a compression whose package is missing (.zst: zstandard)
            raise UsageError(f"{self.label}: {exc}") from None
        except passed:
            raise
        except (ValueError, OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, Warning) as exc:
            text = str(exc).strip().splitlines()
            raise DataError(
                f"{self.label}: not a readable text table ({text[-1] if text else type(exc).__name__})"
            ) from None

    def _record(self, index):
        """Fields of record ``index`` (0-based, the header and blank lines counted) as text, or
        None for a blank line (or a line holding one empty field) or the end of the file."""
        import pandas as pd

        try:
            with self._reading():
                df = self._read(skiprows=index, nrows=1, dtype=str)
        except pd.errors.EmptyDataError:
            return None
        fields = [str(x) for x in df.iloc[0]] if len(df) else None
        return None if fields == [""] else fields  # a line of spaces (or "") is blank too

    def _open_csv(self, header, header_names, hint):
        import pandas as pd

        first = self._record(0)
        if first is None:
            try:
                with self._reading():
                    self._read(nrows=1, skip_blank_lines=True)
            except pd.errors.EmptyDataError:
                raise DataError(f"{self.label}: empty file") from None
            raise DataError(f"{self.label}: line 1 is blank: the file must start with its header or its first row")
        fields = [x.strip() for x in first]
        m = len(fields)
        if header == "auto":
            self.has_header = self._guess_header(fields, header_names, hint)
        else:
            self.has_header = header == "yes"
        self.skip = int(self.has_header)  # records before the first row of data
        self.names = fields if self.has_header else [f"y{j + 1}" for j in range(m)]
        if self.has_header and "" in self.names:
            j = self.names.index("")
            tip = " (a row index? write the CSV without it, e.g. pandas' to_csv(index=False))" if j == 0 else ""
            raise DataError(f"{self.label}: column {j + 1} of the header has no name{tip}")
        if len(set(self.names)) != len(self.names):
            dup = next(x for x in self.names if self.names.count(x) > 1)
            raise DataError(f"{self.label}: header names column {dup!r} twice")
        if self.has_header:
            # pandas would take the extra fields of a longer first row for a row index: count them
            row1 = self._record(1)
            if row1 is not None and len(row1) > m:
                raise DataError(f"{self.label}: row 1: {len(row1)} values, expected {m} (ragged row)")

    def _guess_header(self, fields, header_names, hint):
        m = len(fields)
        if fields == [str(j) for j in range(m)]:
            if m <= 2:
                raise DataError(
                    f"{self.label}: row 1 ({','.join(fields)}) may be a header (pandas' column names) or data: {hint}"
                )
            return True
        if any(x in header_names for x in fields):
            return True
        number = [_is_number(x) for x in fields]
        if not any(number):
            return True
        text = [j for j, x in enumerate(fields) if not number[j] and not _is_missing(x)]
        if text:
            j = text[0]
            raise DataError(
                f"{self.label}: row 1: column {j + 1}: {_show(fields[j])} is not a number, but the row holds numbers"
            )
        return False

    def _row_error(self, row):
        """The DataError of data row ``row`` (1-based) if its number of fields is wrong, else None."""
        fields = self._record(self.skip + row - 1)
        if fields is None:
            return DataError(f"{self.label}: row {row}: empty line")
        if len(fields) != len(self.names):
            return DataError(f"{self.label}: row {row}: {len(fields)} values, expected {len(self.names)} (ragged row)")
        return None

    def _pieces(self, rows, dtype):
        """Yield (offset, DataFrame or None, DataError or None): the file in frames of ``rows`` rows.

        A row with too many fields stops pandas: the rows before it are yielded, then its error.
        """
        import pandas as pd

        m = len(self.names)
        names = list(range(m))
        offset = 0
        with self._reading():
            reader = self._read(skiprows=self.skip, names=names, index_col=False, chunksize=rows, dtype=dtype)
        with reader:
            while True:
                try:
                    with self._reading(parser_errors=True):
                        df = next(reader)
                except StopIteration:
                    return
                except pd.errors.ParserError as exc:
                    found = _RAGGED.search(str(exc))
                    if found is None:
                        text = str(exc).strip().splitlines()
                        raise DataError(f"{self.label}: not a readable text table ({text[-1]})") from None
                    row = int(found[2]) - self.skip
                    before = None
                    if row - 1 > offset:
                        with self._reading():
                            before = self._read(
                                skiprows=self.skip + offset,
                                nrows=row - 1 - offset,
                                names=names,
                                index_col=False,
                                dtype=dtype,
                            )
                    error = DataError(f"{self.label}: row {row}: {found[3]} values, expected {m} (ragged row)")
                    yield offset, before, error
                    return
                yield offset, df, None
                offset += len(df)

    def frames(self, rows, dtype=None):
        """Yield (offset, DataFrame) covering every row of data, columns 0 .. m-1 as pandas read them.

        Blank lines at the end of the file are left out; a blank line followed by data, and a row
        of empty fields anywhere, are errors.
        """
        pending = None  # data row (1-based) of the first of the blank rows that ended the last frame
        total = 0
        for offset, df, error in self._pieces(rows, dtype):
            if df is not None and len(df):
                blank = _blank_rows(df)
                keep = len(df) - (np.argmin(blank[::-1]) if not blank.all() else len(df))
                if keep:
                    if pending is not None:
                        raise self._row_error(pending) or self._empty_row_error(pending)
                    yield offset, df.iloc[:keep]
                    total += keep
                if keep < len(df) and pending is None:
                    pending = offset + keep + 1
            if error is not None:
                if pending is not None:
                    raise self._row_error(pending) or self._empty_row_error(pending)
                raise error
        if pending is not None and not self._blank_from(pending):
            raise self._row_error(pending) or self._empty_row_error(pending)
        if total == 0:
            raise DataError(f"{self.label}: no rows (only a header)")

    def _blank_from(self, row):
        """Whether every line from data row ``row`` (1-based) to the end is blank (a row of empty
        fields, such as ``,,``, is not)."""
        import pandas as pd

        try:
            with self._reading():
                self._read(skiprows=self.skip + row - 1, nrows=1, skip_blank_lines=True)
        except pd.errors.EmptyDataError:
            return True
        return False

    def _empty_row_error(self, row):
        return DataError(f"{self.label}: row {row}: column {self.names[0]!r}: missing value or NaN")

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

    # -- numbers

    def chunks(self, rows: int, kind: str, columns=None):
        """Yield (offset, float64 array (r, m)) covering every row; the values of ``columns``
        (default all) checked to be of ``kind`` ("probability" or "binary"), those of the other
        columns to be numbers."""
        if self.array is not None:
            for start in range(0, self.n_rows, rows):
                a = np.asarray(self.array[start : start + rows], dtype=np.float64)
                self.check(a, start, kind, columns)
                yield start, a
            return
        for offset, df in self.frames(rows):
            yield offset, self._values(df, offset, kind, columns)

    def check(self, a, offset, kind, columns=None, texts=None):
        """Raise DataError at the first row holding a value that is not of ``kind`` (in
        ``columns``, default all) or not a number (in the other columns)."""
        if columns is None:
            ok = _KINDS[kind][0](a)
        else:
            ok = _KINDS["number"][0](a)
            ok[:, columns] = _KINDS[kind][0](a[:, columns])
        if ok.all():
            return
        i, j = _first_bad(~ok)
        row = offset + i + 1
        if texts is not None:
            if any(x == "" for x in texts[i]):  # a short row is padded with empty fields
                error = self._row_error(row)
                if error is not None:
                    raise error
        where = f"{self.label}: row {row}: column {self.names[j]!r}"
        if np.isnan(a[i, j]) and texts is not None and not _is_missing(texts[i][j]):
            raise DataError(f"{where}: {_show(texts[i][j])} is not a number")
        error = _bad_value(where, a[i, j], kind)
        if row == 1 and self.array is None and not self.has_header and self.header_guessed and not np.isnan(a[i, j]):
            error = DataError(f"{error} (if row 1 is a header, pass --header yes)")
        raise error

    def _values(self, df, offset, kind, columns):
        import pandas as pd

        if all(dt.kind in "fiub" for dt in df.dtypes):
            a = df.to_numpy(dtype=np.float64)
            self.check(a, offset, kind, columns)
            return a
        a = np.empty(df.shape)
        for j, name in enumerate(df.columns):
            col = df[name]
            if col.dtype.kind in "fiub":
                a[:, j] = col.to_numpy(dtype=np.float64)
            else:
                # stripped: pandas reads "3 " but not "inf " as a number
                a[:, j] = pd.to_numeric(col.str.strip(), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        self.check(a, offset, kind, columns, texts=df.to_numpy(dtype=object))
        return a


def _blank_rows(df):
    """Boolean (r,): rows whose every field is empty."""
    blank = np.ones(len(df), dtype=bool)
    for name in df.columns:
        col = df[name]
        if col.dtype.kind in "fiub":
            return np.zeros(len(df), dtype=bool)
        blank &= (col == "").to_numpy(dtype=bool, na_value=False)
    return blank


def _bad_value(where: str, value: float, kind: str) -> DataError:
    """The error for a value that is not of ``kind``, at ``where`` (file, row, column)."""
    if np.isnan(value):
        return DataError(f"{where}: missing value or NaN")
    return DataError(f"{where}: {_KINDS[kind][1].format(value)}")


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


def _check_output(path):
    """A usage error for an output path that is an existing folder (found before any work)."""
    if path is not None and str(path) != "-" and Path(path).is_dir():
        raise UsageError(f"-o {path}: is a directory, expected a file name")


@contextlib.contextmanager
def _output(path):
    """A text stream: stdout, or a temporary file beside ``path`` renamed to it on success.

    A file that cannot be created, written or renamed is a usage error naming ``-o``.
    """
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    _check_output(path)
    try:
        with atomic_output(path) as tmp, open(tmp, "w", newline="") as f:
            yield f
    except OSError as exc:
        raise UsageError(f"-o {path}: cannot write ({exc.strerror or exc})") from None


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
    allow = (".csv", ".tsv", ".tab", ".npy", ".npz")
    if fmt == ".npz":
        if comp:
            raise UsageError(f"{label}: unknown file type, expected one of {', '.join(allow)} (a .npz is read as is)")
        import scipy.sparse as sp

        try:
            S = sp.load_npz(path).tocsr()
        except (ValueError, OSError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise DataError(f"{label}: not a scipy.sparse .npz matrix ({exc})") from None
        if k is None:
            raise UsageError("--samples-per-instance is required with a .npz of samples (rows are n * k samples)")
        table = argparse.Namespace(label=label, names=[f"y{j + 1}" for j in range(S.shape[1])])
        if S.shape[1] == 0:
            raise DataError(f"{label}: no label columns (shape {S.shape})")
        if S.shape[0] == 0:
            raise DataError(f"{label}: no rows (shape {S.shape})")
        if S.dtype.kind not in "fiub":
            raise DataError(f"{label}: dtype {S.dtype} is not numeric")
        bad = (S.data != 0) & (S.data != 1)
        if bad.any():
            e = int(np.argmax(bad))
            row = int(np.searchsorted(S.indptr, e, side="right")) - 1
            raise _bad_value(f"{label}: row {row + 1}: column {table.names[S.indices[e]]!r}", S.data[e], "binary")
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

    table = Table(path, args.header, allow, args.delimiter, ndims=(2, 3))
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
                table.check(a.reshape(-1, m), start * kk, "binary")
                yield start, a.astype(np.int8)

        return table.names, kk, n, gen3(), table
    if k is None:
        raise UsageError(f"--samples-per-instance is required with a 2-D table of samples ({label})")
    per = _chunk_rows(args, m, k)
    if table.n_rows is not None and table.n_rows % k:
        raise DataError(f"{label}: {table.n_rows} rows is not a multiple of --samples-per-instance {k}")

    def gen2():
        # pieces of rows are cut into whole instances; the rows of a partial one wait for the next piece
        rest = np.zeros((0, m), np.int8)
        done = 0  # instances yielded
        for _, a in table.chunks(per * k, "binary"):
            a = a.astype(np.int8)
            if len(rest):
                a = np.concatenate([rest, a])
            whole = len(a) // k * k
            rest = a[whole:]
            if whole:
                yield done, a[:whole].reshape(-1, k, m)
                done += whole // k
        if len(rest):
            raise DataError(f"{label}: {done * k + len(rest)} rows is not a multiple of --samples-per-instance {k}")

    n = None if table.n_rows is None else table.n_rows // k
    return table.names, k, n, gen2(), table


def cmd_predict(args) -> int:
    from fmeasure.inference import fm, gfm_from_samples

    _check_output(args.output)
    if args.marginals is not None:
        if args.samples_per_instance is not None:
            raise UsageError("--samples-per-instance goes with --samples, not --marginals")
        table = Table(args.marginals, args.header, delimiter=args.delimiter)
        names, n, per_item, source = table.names, table.n_rows, 1, table.label

        def batches():
            for _, a in table.chunks(_chunk_rows(args, len(names)), "probability"):
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


def _labels_to_binary(df, offset, table: Table, true: Table):
    """Rows of space-separated label indices (or names of the true file) -> (r, m) int8."""
    m = len(true.names)
    pos = {x: j for j, x in enumerate(true.names)}
    col = df[table.names.index("labels")].to_numpy(dtype=object)
    blank = _blank_rows(df)
    H = np.zeros((len(col), m), np.int8)
    for i, text in enumerate(col):
        if blank[i]:  # a blank line between rows is not an empty prediction (that is ",<expected_f>")
            raise table._row_error(offset + i + 1) or table._empty_row_error(offset + i + 1)
        for tok in str(text).split():
            j = int(tok) if tok.isascii() and tok.isdigit() else pos.get(tok, -1)
            if not 0 <= j < m:
                raise DataError(
                    f"{table.label}: row {offset + i + 1}: label {_show(tok)} is not one of the {m} labels of {true.label}"
                )
            H[i, j] = 1
    return H


def _rebatch(pieces, size):
    """Blocks of exactly ``size`` rows (the last one shorter) from pieces (offset, rows) of any length."""
    buf, have = [], 0
    for _, a in pieces:
        buf.append(a)
        have += len(a)
        while have >= size:
            whole = np.concatenate(buf) if len(buf) > 1 else buf[0]
            yield whole[:size]
            buf, have = [whole[size:]], have - size
    if have:
        yield np.concatenate(buf) if len(buf) > 1 else buf[0]


def cmd_evaluate(args) -> int:
    if args.n_boot < 1:
        raise UsageError("--n-boot must be at least 1")
    if not 0.0 < args.confidence < 1.0:
        raise UsageError("--confidence must lie strictly between 0 and 1")
    _check_output(args.output)
    true = Table(args.true, args.header, delimiter=args.delimiter)
    pred = Table(args.pred, "auto", header_names=("expected_f",), header_hint="give the file a header row")
    kind, cols = _pred_layout(pred, true)
    rows = _chunk_rows(args, len(true.names))
    t_iter = _rebatch(true.chunks(rows, "binary"), rows)
    if kind == "labels":
        p_iter = _rebatch(((off, _labels_to_binary(df, off, pred, true)) for off, df in pred.frames(rows, str)), rows)
    else:
        p_iter = _rebatch(((off, a[:, cols]) for off, a in pred.chunks(rows, "binary", columns=cols)), rows)
    parts = []
    n_true = n_pred = 0
    with contextlib.ExitStack() as stack:
        # the output is opened first, so a path that cannot be written stops the command before the work
        stream = None if args.output is None else stack.enter_context(_output(args.output))
        with _progress("evaluate", true.n_rows, true) as bar:
            while True:
                Y = next(t_iter, None)
                H = next(p_iter, None)
                if Y is None or H is None or len(Y) != len(H):
                    # one file is shorter: count the rows of both for the message
                    n_true += (0 if Y is None else len(Y)) + sum(len(x) for x in t_iter)
                    n_pred += (0 if H is None else len(H)) + sum(len(x) for x in p_iter)
                    break
                v = per_instance(Y.astype(np.int8), H.astype(np.int8), jaccard_empty=args.jaccard_empty)
                parts.append(np.column_stack([v[k] for k in MEASURES]))
                n_true += len(Y)
                n_pred += len(H)
                bar.update(len(Y))
        if n_true != n_pred:
            raise DataError(f"{pred.label}: {n_pred} rows, but {true.label} has {n_true}")
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
        if stream is not None:
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
            table.to_csv(stream, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    print("\n".join(lines))
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
    if text in '\r\n"':
        raise argparse.ArgumentTypeError(f"{text!r} cannot separate fields (it ends lines or quotes them)")
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
        help="does the first row of a CSV input (evaluate: of --true) name the labels? auto (default): yes if "
        "none of its fields is a "
        "number, or if they are 0,1,...,m-1 (pandas' default names; for m <= 2 say yes or no); "
        "an error if it mixes numbers and text",
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
