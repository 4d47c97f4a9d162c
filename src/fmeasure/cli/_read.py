"""Reading the inputs of the ``fmeasure`` command: CSV (the header rule, blank lines, ragged rows)
and ``.npy`` in chunks of rows through :class:`Table`, and sparse ``.npz`` samples whole. Every
file is opened by :func:`fmeasure.cli._files.open_input`, so its content, not its name, says
whether it is compressed."""

from __future__ import annotations

import contextlib
import io
import math
import re
import warnings
import weakref
from pathlib import Path

import numpy as np

from fmeasure.cli._common import DataError, UsageError
from fmeasure.cli._files import DECOMPRESSION_ERRORS, check_exists, first_undecodable, open_input, text_head

#: compression suffixes a name may end with (the content, not the suffix, decides how it is read)
_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst")
#: spellings of a missing value, named as such in messages (they are not numbers)
_NA_TEXT = {"nan", "-nan", "+nan", "na", "n/a", "#n/a", "null", "none", "<na>"}
#: what a value of each kind must be, and how a bad one (its text) is described
_KINDS = {
    "probability": (lambda a: (a >= 0.0) & (a <= 1.0), "probability {} outside [0, 1]"),
    "binary": (lambda a: (a == 0) | (a == 1), "value {} is not 0 or 1"),
    "number": (lambda a: ~np.isnan(a), "{}"),  # any number (a NaN is reported as missing)
}
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def format_suffix(path: Path) -> str:
    """The suffix that names the format of ``path``, after a compression suffix if any:
    ``P.csv.gz`` -> '.csv' (whether the content is compressed, its first bytes say)."""
    sfx = [s.lower() for s in path.suffixes]
    if sfx and sfx[-1] in _COMPRESSED:
        sfx = sfx[:-1]
    return sfx[-1] if sfx else ""


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


def show(text: str, width: int = 40) -> str:
    """repr of a field for a one-line message, shortened."""
    r = repr(text)
    return r if len(r) <= width else r[: width - 4] + "...'"


#: separators guessed when every line holds one of them instead of the default (not ',': in a
#: file of decimal commas, "0,5" would be read as two values)
_GUESSED = (";", "\t")
#: (separator, how a message names it, how --delimiter takes it)
_SEPARATORS = ((";", "';'", "';'"), ("\t", "tabs", "tab"), (",", "','", "','"), ("|", "'|'", "'|'"))
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")


def guess_separator(text: str, complete: bool, default: str) -> str | None:
    """';' or a tab if it separates the fields of the start of a file that ``default`` cannot read.

    ``text`` is the decoded start of the file (``complete``: all of it). The guess is made only
    when every non-blank line (of the first 200) holds the candidate the same number of times,
    none holds ``default`` or a quote, and no field between candidates is empty: ``default``
    would then read each line as one field that is not a number, an error, so the guess never
    changes a file that reads. Otherwise None (``default`` is used, and messages name the
    separator a field holds, see :func:`separator_hint`).

    >>> guess_separator("a;b\\n0.5;0.25\\n", True, ","), guess_separator("a;b\\n0,5;0,25\\n", True, ",")
    (';', None)
    """
    lines = text.splitlines()
    if not complete:
        lines = lines[:-1]  # the last line may be cut
    lines = [x for x in lines if x.strip()][:200]
    if not lines or any(default in x or '"' in x for x in lines):
        return None
    found = [
        c
        for c in _GUESSED
        if c != default
        and len({x.count(c) for x in lines}) == 1
        and c in lines[0]
        and all(f.strip() for x in lines for f in x.split(c))
    ]
    return found[0] if len(found) == 1 else None


def separator_hint(field: str, sep: str) -> str:
    """A hint for a field that is not a number: it holds another separator than ``sep``, or a
    decimal comma; else ''.

    >>> separator_hint("0.3;0.8", ",")
    " (fields separated by ';'? pass --delimiter ';')"
    """
    f = str(field).strip()
    hints = []
    decimal = _DECIMAL_COMMA.fullmatch(f) is not None
    if decimal:
        hints.append("a decimal comma? write numbers with a decimal point")
    for c, name, arg in _SEPARATORS:
        if c != sep and c in f and not (c == "," and decimal and sep == ";"):
            hints.append(f"fields separated by {name}? pass --delimiter {arg}")
            break
    return f" ({'; '.join(hints)})" if hints else ""


def unclosed_quote_line(content, encoding: str, sep: str) -> int | None:
    """The line (1-based) where a quoted field opens that the file never closes, read as pandas
    reads quotes: one opens a field only at its start, "" inside is a quote. None if there is none.
    One pass over the file, made when pandas stopped at the end of the file inside a quote."""
    inside, opened = False, None
    with content.open() as raw:
        # newline="": \r, \n and \r\n end lines, and are kept, as in the file
        for n, line in enumerate(io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline=""), 1):
            i, start = 0, True  # start: at the start of a field (spaces skipped)
            while i < len(line):
                c = line[i]
                if inside:
                    if c == '"' and line[i + 1 : i + 2] == '"':
                        i += 1
                    elif c == '"':
                        inside = False
                elif c == '"' and start:
                    inside, opened = True, n
                elif c == sep:
                    start = True
                elif c != " ":
                    start = False
                i += 1
    return opened if inside else None


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
        check_exists(self.path)
        self.fmt = format_suffix(self.path)
        if self.fmt not in allow:
            raise UsageError(f"{self.label}: unknown file type, expected one of {', '.join(allow)}")
        # a zip holding an .npy is an .npz archive, which np.load recognises and refuses
        self.content = open_input(self.path, zip_is_compression=self.fmt != ".npy")
        self.sep = "," if self.fmt == ".csv" else "\t"
        self.sep_given = delimiter is not None
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
        first = self.content.read(512, failing="not a readable .npy array")
        if not first.startswith((b"\x93NUMPY", b"PK")):  # PK: a zip, an .npz that np.load names
            try:
                looks_text = "\x00" not in first.decode("utf-8")
            except UnicodeDecodeError:
                looks_text = False
            why = "not NumPy's format"
            if not first:
                why = "an empty file"
            elif looks_text:
                why = "it holds text: name a CSV .csv"
            raise DataError(f"{self.label}: not a readable .npy array ({why})")
        try:
            if self.content.compression is None:
                self.array = np.load(self.path, mmap_mode="r", allow_pickle=False)
            else:
                self.array = CompressedNpy(self.content)
        except (ValueError, EOFError, *DECOMPRESSION_ERRORS) as exc:
            raise DataError(f"{self.label}: not a readable .npy array ({exc})") from None
        if not isinstance(self.array, np.ndarray | CompressedNpy):  # an .npz archive under a .npy name
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
            encoding=self.encoding,
            compression=self.content.compression,
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
        except UnicodeDecodeError:  # pandas names a position in its buffer: find the line
            error = first_undecodable(self.content, self.encoding)
            name = "UTF-16" if self.encoding == "utf-16" else "UTF-8"
            raise error or DataError(f"{self.label}: not {name} text: save the file as UTF-8") from None
        except (ValueError, EOFError, *DECOMPRESSION_ERRORS, Warning) as exc:
            raise self._unreadable(exc) from None

    def _unreadable(self, exc):
        """The DataError for what pandas could not parse: a quote never closed names its line."""
        if "EOF inside string" in str(exc):
            line = unclosed_quote_line(self.content, self.encoding, self.sep)
            if line is not None:
                return DataError(f'{self.label}: line {line}: a quote (") that is never closed')
        text = str(exc).strip().splitlines()
        return DataError(f"{self.label}: not a readable text table ({text[-1] if text else type(exc).__name__})")

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
        if fields is not None and len(fields) == 1 and not fields[0].strip():
            return None  # a line of spaces or tabs (or "") is blank too
        return fields

    def _open_csv(self, header, header_names, hint):
        import pandas as pd

        self.encoding, head, complete = text_head(self.content)
        if not self.sep_given:
            self.sep = guess_separator(head, complete, self.sep) or self.sep
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
        # one field on the first line: if it holds ';' (say), longer rows are likely ';'-separated too
        self._ragged_hint = separator_hint(fields[0], self.sep) if m == 1 else ""
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
                raise DataError(
                    f"{self.label}: row 1: {len(row1)} values, expected {m} (ragged row){self._ragged_hint}"
                )

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
                f"{self.label}: row 1: column {j + 1}: {show(fields[j])} is not a number, but the row holds numbers"
                + separator_hint(fields[j], self.sep)
            )
        return False

    def row_error(self, row):
        """The DataError of data row ``row`` (1-based) if its number of fields is wrong, else None."""
        fields = self._record(self.skip + row - 1)
        if fields is None:
            return DataError(f"{self.label}: row {row}: empty line")
        if len(fields) != len(self.names):
            return DataError(
                f"{self.label}: row {row}: {len(fields)} values, expected {len(self.names)} (ragged row){self._ragged_hint}"
            )
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
                        raise self._unreadable(exc) from None
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
                    error = DataError(
                        f"{self.label}: row {row}: {found[3]} values, expected {m} (ragged row){self._ragged_hint}"
                    )
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
                blank = blank_rows(df)
                keep = len(df) - (np.argmin(blank[::-1]) if not blank.all() else len(df))
                if keep:
                    if pending is not None:
                        raise self.row_error(pending) or self.empty_row_error(pending)
                    yield offset, df.iloc[:keep]
                    total += keep
                if keep < len(df) and pending is None:
                    pending = offset + keep + 1
            if error is not None:
                if pending is not None:
                    raise self.row_error(pending) or self.empty_row_error(pending)
                raise error
        if pending is not None and not self._blank_from(pending):
            raise self.row_error(pending) or self.empty_row_error(pending)
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

    def empty_row_error(self, row):
        return DataError(f"{self.label}: row {row}: column {self.names[0]!r}: missing value or NaN")

    def rows_estimate(self):
        """Number of rows for a progress bar: exact for .npy, the count of line ends of an
        uncompressed CSV (one fast pass, made only when a bar is shown), else None."""
        if self.n_rows is not None or self.content.compression:
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
                error = self.row_error(row)
                if error is not None:
                    raise error
        where = f"{self.label}: row {row}: column {self.names[j]!r}"
        if np.isnan(a[i, j]) and texts is not None and not _is_missing(texts[i][j]):
            raise DataError(f"{where}: {show(texts[i][j])} is not a number{separator_hint(texts[i][j], self.sep)}")
        error = bad_value(where, a[i, j], kind, self._text(a, i, j, row, texts))
        if row == 1 and self.array is None and not self.has_header and self.header_guessed and not np.isnan(a[i, j]):
            error = DataError(f"{error} (if row 1 is a header, pass --header yes)")
        raise error

    def _text(self, a, i, j, row, texts):
        """The value ``a[i, j]`` of data row ``row`` as the file holds it: the field's text for a
        CSV (re-read if pandas parsed its column), the value printed in its own dtype for .npy."""
        if texts is not None and isinstance(texts[i][j], str):  # not in a column pandas parsed
            return texts[i][j].strip()
        if self.array is not None:
            return str(self.array.dtype.type(a[i, j]))
        fields = self._record(self.skip + row - 1)
        return fields[j].strip() if fields is not None and j < len(fields) else f"{a[i, j]!r}"

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


def blank_rows(df):
    """Boolean (r,): rows whose every field is empty (or white space)."""
    blank = np.ones(len(df), dtype=bool)
    for name in df.columns:
        col = df[name]
        if col.dtype.kind in "fiub":
            return np.zeros(len(df), dtype=bool)
        blank &= (col.str.strip() == "").to_numpy(dtype=bool, na_value=False)  # spaces, tabs
    return blank


def bad_value(where: str, value: float, kind: str, text: str) -> DataError:
    """The error for a value that is not of ``kind``, at ``where`` (file, row, column); ``text``
    is the value as the file writes it (1.0000001, not the 1 that %g would print)."""
    if np.isnan(value):
        return DataError(f"{where}: missing value or NaN")
    return DataError(f"{where}: {_KINDS[kind][1].format(text)}")


def load_sparse_samples(path: Path):
    """(label names ``y1 .. ym``, CSR matrix) of a ``scipy.sparse.save_npz`` file of 0/1 samples,
    loaded whole (compressed too) and checked: a numeric dtype, at least one row and one column,
    only 0 and 1."""
    import scipy.sparse as sp

    content = open_input(path, zip_is_compression=False)  # an .npz is a zip archive itself
    label = content.label
    source = path if content.compression is None else io.BytesIO(content.read(failing="not a scipy.sparse .npz matrix"))
    try:
        S = sp.load_npz(source).tocsr()
    except (ValueError, KeyError, EOFError, *DECOMPRESSION_ERRORS) as exc:
        raise DataError(f"{label}: not a scipy.sparse .npz matrix ({exc})") from None
    names = [f"y{j + 1}" for j in range(S.shape[1])]
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
        where = f"{label}: row {row + 1}: column {names[S.indices[e]]!r}"
        raise bad_value(where, S.data[e], "binary", str(S.data[e]))
    return names, S


class CompressedNpy:
    """The rows of a compressed ``.npy`` file, read in order from the decompressed stream (it
    cannot be memory-mapped): ``shape``, ``ndim``, ``dtype``, and ``array[start:stop]`` for
    consecutive slices, so memory stays O(chunk). A Fortran-ordered array is read whole."""

    def __init__(self, content):
        self.label = content.label
        self._what = content.what()
        self._stack = contextlib.ExitStack()
        weakref.finalize(self, self._stack.close)
        self._f = self._stack.enter_context(content.open())
        fmt = np.lib.format
        version = fmt.read_magic(self._f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(self._f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(self._f)
        else:
            raise ValueError(f".npy format version {version[0]}.{version[1]} is not read compressed")
        if dtype.hasobject:
            raise ValueError("Object arrays cannot be loaded when allow_pickle=False")
        self.shape, self.dtype, self.ndim = tuple(shape), dtype, len(shape)
        self._row_bytes = dtype.itemsize * math.prod(shape[1:])
        self._next = 0
        self._whole = None
        if fortran and self.ndim > 1:
            data = self._take(math.prod(shape) * dtype.itemsize, 0)
            self._whole = np.frombuffer(data, dtype).reshape(shape[::-1]).T

    def _take(self, nbytes, row):
        data = io.BytesIO()
        while data.tell() < nbytes:
            try:
                block = self._f.read(min(nbytes - data.tell(), 2**24))
            except DECOMPRESSION_ERRORS as exc:
                raise DataError(f"{self.label}: not a readable .npy array ({self._what}: {exc})") from None
            if not block:
                got = row + data.tell() // max(1, self._row_bytes)
                raise DataError(
                    f"{self.label}: not a readable .npy array ({self._what} ends in row {got + 1} of {self.shape[0]})"
                )
            data.write(block)
        return data.getvalue()

    def __getitem__(self, rows: slice):
        start, stop = rows.start or 0, min(rows.stop, self.shape[0])
        if self._whole is not None:
            return self._whole[start:stop]
        if start != self._next:
            raise ValueError("the rows of a compressed .npy are read in order")
        a = np.frombuffer(self._take((stop - start) * self._row_bytes, start), self.dtype)
        self._next = stop
        if stop == self.shape[0]:
            self._stack.close()
        return a.reshape((stop - start, *self.shape[1:]))
