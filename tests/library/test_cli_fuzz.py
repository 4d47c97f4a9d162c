"""Fuzzing the ``fmeasure`` command: every generated input is answered correctly or refused in one line.

Hypothesis writes files of every kind the command reads (CSV, TSV, ';'-separated CSV, UTF-16
text, ``.npy``, sparse ``.npz``, each sometimes compressed whatever its name says) from records it
draws: rows of probabilities or 0/1 samples, headers of names, of numbers or of pandas'
``0 .. m-1``, and corruptions (values out of range, NaN and missing values, words, short and long
rows, blank lines and rows of empty fields, empty files, arrays of the wrong shape or dtype). It
then runs ``fmeasure.cli.main`` in this process and asserts, for each input,

* either exit 0 and predictions that reach the optimum found by enumerating {0,1}^m (under label
  independence for ``--marginals``, under the samples' empirical distribution for ``--samples``),
  or, for ``evaluate``, the four measures computed here by hand;
* or exit 1 (2 for usage) with exactly one line on standard error, equal to the message that an
  independent reading of the drawn records predicts: the file, and the first bad row and column;
  no traceback, no warning, and no output file left behind.

The expected outcome is worked out from the records as drawn (which cell is a number, which row is
short), never from the command's own reading. Examples per test: 100 by default;
``FMEASURE_FUZZ_EXAMPLES=2000`` for a longer run (``--hypothesis-seed N`` fixes the draws)::

    FMEASURE_FUZZ_EXAMPLES=2000 pytest -n 0 tests/library/test_cli_fuzz.py --hypothesis-show-statistics
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import itertools
import lzma
import math
import os
import subprocess
import sys
import tempfile
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _dists import all_vectors, exp_f_plain
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fmeasure.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("FMEASURE_FUZZ_EXAMPLES", "100"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
HINT = "pass --header yes or --header no"
PRED_HINT = "give the file a header row"
CSV_SUFFIXES = [".csv", ".csv", ".csv", ".tsv", ".csv.gz", ".csv.bz2", ".csv.zip"]


# ------------------------------------------------------------------------------ records


@dataclass(frozen=True)
class Cell:
    """One field: ``text`` as written, ``field`` as a CSV reader hands it over (quotes and leading
    spaces gone), ``kind`` "num", "missing" (empty or a spelling of NaN) or "text"."""

    text: str
    field: str
    kind: str
    value: float = math.nan


@dataclass(frozen=True)
class Blank:
    """A blank line (nothing, or spaces)."""

    text: str = ""


@dataclass
class CsvFile:
    records: list  # Blank or list of Cell, in file order (the header, if any, first)
    suffix: str = ".csv"
    newline: str = "\n"
    final_newline: bool = True
    bom: bool = False
    semicolon: bool = False  # fields separated by ';' (in a file named .csv)
    utf16: bool = False  # UTF-16 with its byte-order mark (Excel's "Unicode text"), not UTF-8
    pack: str = "name"  # how the bytes are compressed: as the name says, or none/gzip/bz2/xz/zip whatever it says

    @property
    def sep(self):
        return ";" if self.semicolon else "\t" if self.suffix.startswith(".tsv") else ","

    def lines(self):
        """The lines of the file as a reader splits them (a blank last line without its newline is none)."""
        lines = [r.text if isinstance(r, Blank) else self.sep.join(c.text for c in r) for r in self.records]
        return lines if self.final_newline or not lines or lines[-1] else lines[:-1]

    def text(self):
        lines = [r.text if isinstance(r, Blank) else self.sep.join(c.text for c in r) for r in self.records]
        body = self.newline.join(lines) + (self.newline if self.final_newline and lines else "")
        return ("\ufeff" if self.bom else "") + body

    def write(self, path: Path):
        note(f"{path.name} ({self.pack}{', utf-16' if self.utf16 else ''}): {self.text()!r}")
        data = self.text().encode("utf-16" if self.utf16 else "utf-8")
        pack = self.pack if self.pack != "name" else path.suffix.lstrip(".")
        if pack in ("gz", "gzip"):
            data = gzip.compress(data)
        elif pack == "bz2":
            data = bz2.compress(data)
        elif pack == "xz":
            data = lzma.compress(data)
        elif pack == "zip":
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                z.writestr(path.name[: -len(".zip")], data)
            data = buf.getvalue()
        path.write_bytes(data)


def _normalised(records, sep):
    """A row whose line is only spaces is a blank line (a blank line last in a file without a
    final newline is no line at all: expect_csv drops it)."""
    out = []
    for r in records:
        if not isinstance(r, Blank) and not sep.join(c.text for c in r).strip(" "):
            r = Blank(sep.join(c.text for c in r))
        out.append(r)
    return out


def num_cell(draw, value):
    t = draw(st.sampled_from(["repr", "g", "e"]))
    text = {"repr": repr(value), "g": f"{value:g}", "e": f"{value:.3e}"}[t]
    if value == math.inf and draw(st.booleans()):
        text = draw(st.sampled_from(["inf", "Infinity", "1e400"]))
    v = float(text)
    deco = draw(st.sampled_from(["", "", "", "lead", "trail", "quote"]))
    if deco == "lead":
        return Cell(" " + text, text, "num", v)
    if deco == "trail":
        return Cell(text + " ", text + " ", "num", v)
    if deco == "quote":
        return Cell(f'"{text}"', text, "num", v)
    return Cell(text, text, "num", v)


WORDS = st.from_regex(r"[a-hj-mo-z][a-z0-9_]{0,5}", fullmatch=True)
ODD_TEXT = ["0x1F", "1_000", "1.2.3", "\u0661", "--1", "1e", "TRUE", "yes"]
NA_TEXT = ["nan", "NaN", "NA", "null", "None", "N/A", "#N/A", "<NA>"]


@st.composite
def text_cell(draw, sep=","):
    choice = draw(st.sampled_from(["word", "word", "odd", "quoted"]))
    if choice == "word":
        w = draw(WORDS)
        return Cell(w, w, "text")
    if choice == "odd":
        w = draw(st.sampled_from(ODD_TEXT))
        return Cell(w, w, "text")
    a, b = draw(WORDS), draw(WORDS)
    return Cell(f'"{a}{sep}{b}"', f"{a}{sep}{b}", "text")


@st.composite
def missing_cell(draw):
    t = draw(st.sampled_from(["", "", "  ", '""', *NA_TEXT]))
    return Cell(t, "" if t in ("", "  ", '""') else t, "missing")


@st.composite
def good_cell(draw, kind):
    if kind == "probability":
        v = draw(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 0.5, 0.25])))
    else:
        v = draw(st.sampled_from([0.0, 1.0]))
    return num_cell(draw, v)


@st.composite
def bad_cell(draw, kind, sep=","):
    what = draw(st.sampled_from(["value", "value", "missing", "text"]))
    if what == "missing":
        return draw(missing_cell())
    if what == "text":
        return draw(text_cell(sep))
    if kind == "probability":
        v = draw(
            st.one_of(
                st.floats(1.001, 1e6),
                st.floats(-1e6, -1e-3),
                st.sampled_from([math.inf, -math.inf, 2.0, -1.0, 1.5, 1.0000001, -1e-9]),
            )
        )
    else:
        v = draw(st.one_of(st.sampled_from([2.0, -1.0, 0.5, math.inf]), st.floats(-1e3, 1e3)))
        if v in (0.0, 1.0):
            v = 3.0
    return num_cell(draw, v)


@st.composite
def csv_file(draw, kind, m=None, n_max=8, header_style=None, semicolons=False):
    """A CsvFile of rows of ``kind`` values, possibly corrupted (with ``semicolons``, sometimes
    separated by ';')."""
    suffix = draw(st.sampled_from(CSV_SUFFIXES))
    m = draw(st.integers(1, 4)) if m is None else m
    semicolon = semicolons and suffix == ".csv" and m >= 2 and draw(st.integers(0, 4)) == 0
    sep = ";" if semicolon else "\t" if suffix.startswith(".tsv") else ","
    n = draw(st.one_of(st.integers(0, n_max), st.integers(0, 40) if n_max >= 8 else st.just(1)))
    rows = [[draw(good_cell(kind)) for _ in range(m)] for _ in range(n)]
    style = header_style or draw(st.sampled_from(["none", "names", "names", "pandas", "numbers", "odd names"]))
    header = None
    if style == "names":
        names = draw(st.lists(WORDS, min_size=m, max_size=m, unique=True))
        header = [Cell(x, x, "text") for x in names]
    elif style == "pandas":
        header = [Cell(str(j), str(j), "num", float(j)) for j in range(m)]
    elif style == "numbers":
        header = [num_cell(draw, float(draw(st.integers(0, 2020)))) for _ in range(m)]
    elif style == "odd names":  # duplicates, an empty name, expected_f, a number among names
        names = draw(st.lists(st.sampled_from(["a", "b", "expected_f", "", "nan", "7"]), min_size=m, max_size=m))
        header = []
        for x in names:
            kind_x = "num" if x == "7" else "missing" if x in ("", "nan") else "text"
            header.append(Cell(x, x, kind_x, 7.0 if x == "7" else math.nan))
    # corruptions: a few, or none (about half of the files are valid)
    for _ in range(draw(st.integers(0, 3)) if draw(st.booleans()) else 0):
        what = draw(st.sampled_from(["cell", "cell", "short", "long", "blank", "empty fields"]))
        full = [i for i, r in enumerate(rows) if not isinstance(r, Blank) and len(r) == m]
        if what in ("cell", "short", "long") and not full:
            continue
        if what in ("cell", "short", "long"):
            i = draw(st.sampled_from(full))
        if what == "cell":
            rows[i][draw(st.integers(0, m - 1))] = draw(bad_cell(kind, sep))
        elif what == "short" and m > 1:
            rows[i] = rows[i][: draw(st.integers(1, m - 1))]
        elif what == "long":
            rows[i] = rows[i] + [draw(good_cell(kind)) for _ in range(draw(st.integers(1, 2)))]
        elif what == "blank":
            rows.insert(draw(st.integers(0, len(rows))), Blank(draw(st.sampled_from(["", "  "]))))
        elif what == "empty fields":
            rows.insert(draw(st.integers(0, len(rows))), [Cell("", "", "missing") for _ in range(m)])
    trailing = draw(st.lists(st.one_of(st.just(Blank("")), st.just(Blank("  ")), st.just("empty fields")), max_size=2))
    for t in trailing:
        rows.append([Cell("", "", "missing") for _ in range(m)] if t == "empty fields" else t)
    records = ([header] if header is not None else []) + rows
    utf16 = draw(st.integers(0, 9)) == 0
    return CsvFile(
        _normalised(records, sep),
        suffix=suffix,
        newline=draw(st.sampled_from(["\n", "\n", "\r\n"])),
        final_newline=draw(st.booleans()),
        bom=not utf16 and draw(st.booleans()) and draw(st.booleans()),
        utf16=utf16,
        semicolon=semicolon,
        pack=draw(st.sampled_from(["name"] * 5 + ["none", "gzip", "bz2", "xz", "zip"])),
    )


# ------------------------------------------------------------------------------ the expected outcome


@dataclass
class Expect:
    """What the command must do: ``message`` (after ``fmeasure: <file>: ``) and the stage at which it
    is found ("open": on opening, "rows": while reading rows), or, if ``message`` is None, succeed
    with these label ``names`` and ``values`` (n, m)."""

    message: str | None = None
    stage: str = "rows"
    names: list = field(default_factory=list)
    has_header: bool = False
    values: np.ndarray | None = None


def semicolon_guessed(f: CsvFile):
    """Whether the command takes ';' for the separator of ``f`` (docs/cli.md, 'The separator'):
    every non-blank line holds it equally often, and none holds a comma, a quote or an empty field."""
    lines = [x for x in f.lines() if x.strip()]
    return (
        bool(lines)
        and not any("," in x or '"' in x for x in lines)
        and len({x.count(";") for x in lines}) == 1
        and ";" in lines[0]
        and all(part.strip() for x in lines for part in x.split(";"))
    )


def _is_blank(r):
    """A blank line: ignored at the end of a file."""
    return isinstance(r, Blank)


def _empty_line(r):
    """A line reported as empty: blank, or one empty field (such as ``""``)."""
    return _is_blank(r) or (len(r) == 1 and r[0].field == "")


def _valid(kind, v):
    return 0.0 <= v <= 1.0 if kind == "probability" else v in (0.0, 1.0)


def _describe(kind, text):
    """A bad value, quoted as the file writes it: its field, or for an array its value in its dtype."""
    return f"probability {text} outside [0, 1]" if kind == "probability" else f"value {text} is not 0 or 1"


def expect_csv(f: CsvFile, flag, kind, hint=HINT, header_names=(), writer_names=True):
    """The outcome of reading ``f`` as the documented rules say (docs/cli.md, 'Input files')."""
    recs = list(f.records)
    if not f.final_newline and recs and _is_blank(recs[-1]):
        recs = recs[:-1]  # no line at all
    if all(_is_blank(r) for r in recs):
        return Expect("empty file", "open")
    if _empty_line(recs[0]):
        return Expect("line 1 is blank: the file must start with its header or its first row", "open")
    first = recs[0]
    m = len(first)
    fields = [c.field.strip() for c in first]
    if flag == "auto":
        if fields == [str(j) for j in range(m)]:
            if m <= 2:
                return Expect(
                    f"row 1 ({','.join(fields)}) may be a header (pandas' column names) or data: {hint}", "open"
                )
            has = True
        elif any(x in header_names for x in fields) or not any(c.kind == "num" for c in first):
            has = True
        else:
            text = [j for j, c in enumerate(first) if c.kind == "text"]
            if text:
                j = text[0]
                return Expect(
                    f"row 1: column {j + 1}: {fields[j]!r} is not a number, but the row holds numbers", "open"
                )
            has = False
    else:
        has = flag == "yes"
    names = fields if has else [f"y{j + 1}" for j in range(m)]

    def fail(message, stage="rows"):  # the names are known from here on
        return Expect(message, stage, names=names, has_header=has)

    if "" in names:
        j = names.index("")
        tip = " (a row index? write the CSV without it, e.g. pandas' to_csv(index=False))" if j == 0 else ""
        return fail(f"column {j + 1} of the header has no name{tip}", "open")
    dup = [x for x in names if names.count(x) > 1]
    if dup:
        return fail(f"header names column {dup[0]!r} twice", "open")
    data = recs[1:] if has else recs
    if has and data and not _empty_line(data[0]) and len(data[0]) > m:
        return fail(f"row 1: {len(data[0])} values, expected {m} (ragged row)", "open")
    if writer_names and "expected_f" in names:
        return fail("a label is named 'expected_f', the output's value column: rename it", "writer")

    def blankish(r):
        return _is_blank(r) or all(c.field == "" for c in r)

    t = max((i + 1 for i, r in enumerate(data) if not blankish(r)), default=0)
    for i, r in enumerate(data[:t]):
        row = i + 1
        if _empty_line(r):
            return fail(f"row {row}: empty line")
        if len(r) != m:
            return fail(f"row {row}: {len(r)} values, expected {m} (ragged row)")
        for j, c in enumerate(r):
            where = f"row {row}: column {names[j]!r}"
            if c.kind == "missing":
                return fail(f"{where}: missing value or NaN")
            if c.kind == "text":
                return fail(f"{where}: {c.field!r} is not a number")
            if not _valid(kind, c.value):
                hint1 = " (if row 1 is a header, pass --header yes)" if row == 1 and flag == "auto" and not has else ""
                return fail(f"{where}: {_describe(kind, c.field.strip())}{hint1}")
    if any(not _is_blank(r) for r in data[t:]):
        r, row = data[t], t + 1
        if _empty_line(r):
            return fail(f"row {row}: empty line")
        if len(r) != m:
            return fail(f"row {row}: {len(r)} values, expected {m} (ragged row)")
        return fail(f"row {row}: column {names[0]!r}: missing value or NaN")
    if t == 0:
        return fail("no rows (only a header)")
    return Expect(
        names=names, has_header=has, values=np.array([[c.value for c in r] for r in data[:t]], dtype=np.float64)
    )


# ------------------------------------------------------------------------------ running


@dataclass
class Result:
    code: int
    out: str
    err: str
    caught: list
    output: Path
    folder: Path

    def left(self):
        return sorted(p.name for p in self.output.parent.iterdir()) if self.output.parent.exists() else []


@contextlib.contextmanager
def folder():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def run(argv, tmp: Path, output=True) -> Result:
    out_path = tmp / "out" / "H.csv"
    out_path.parent.mkdir(exist_ok=True)
    args = [str(a) for a in argv] + (["-o", str(out_path)] if output else [])
    out, err = io.StringIO(), io.StringIO()
    with (
        warnings.catch_warnings(record=True) as caught,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        warnings.simplefilter("always")
        code = main(args)
    return Result(code, out.getvalue(), err.getvalue(), caught, out_path, tmp)


def assert_refused(r: Result, label, message, code=1, prefix=False):
    """Exit ``code``, exactly one line on stderr (``fmeasure: <label>: <message>``), nothing left."""
    assert not r.caught, [str(w.message) for w in r.caught]
    lines = r.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    want = f"fmeasure: {label}: {message}"
    assert r.code == code, (r.code, r.err, want)
    assert lines[0].startswith(want) if prefix else lines[0] == want, (lines[0], want)
    assert r.left() == [], r.left()


def assert_usage(r: Result, start):
    assert not r.caught, [str(w.message) for w in r.caught]
    lines = r.err.splitlines()
    assert r.code == 2 and len(lines) == 1 and "Traceback" not in r.err, r.err
    assert lines[0].startswith(f"fmeasure predict: error: {start}"), lines[0]
    assert r.left() == []


def read_output(path: Path, fmt, names):
    """(H (n, m) int, expected_f (n,)) from what predict wrote; its header checked against ``names``."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if fmt == "binary":
        assert list(df.columns) == [*names, "expected_f"]
        H = df[names].to_numpy().astype(int) if len(df) else np.zeros((0, len(names)), int)
    else:
        assert list(df.columns) == ["labels", "expected_f"]
        H = np.zeros((len(df), len(names)), int)
        for i, text in enumerate(df["labels"]):
            for tok in text.split():
                H[i, int(tok)] = 1
    return H, df["expected_f"].astype(float).to_numpy()


def assert_optimal_independent(P, H, ef):
    """Each written h and expected F reach max_h E[F] under independence, by enumeration."""
    assert len(H) == len(P) == len(ef)
    m = P.shape[1]
    V = all_vectors(m)
    for p, h, v in zip(P, H, ef):
        pr = np.prod(np.where(V == 1, p, 1 - p), axis=1)
        best = max(exp_f_plain(V, pr, g) for g in V)
        assert v == pytest.approx(best, abs=1e-9)
        assert exp_f_plain(V, pr, h) == pytest.approx(best, abs=1e-9)


def assert_optimal_samples(S, H, ef):
    """Each written h and expected F reach the optimum over the empirical distribution of S[i]."""
    assert len(H) == len(S) == len(ef)
    V = all_vectors(S.shape[2])
    for Si, h, v in zip(S, H, ef):
        pr = np.full(len(Si), 1.0 / len(Si))
        best = max(exp_f_plain(Si, pr, g) for g in V)
        assert v == pytest.approx(best, abs=1e-9)
        assert exp_f_plain(Si, pr, h) == pytest.approx(best, abs=1e-9)


# ------------------------------------------------------------------------------ predict from a CSV


def run_csv(args, f: CsvFile, path: Path, tmp: Path, given_sep: bool) -> Result:
    """Run on the CSV ``f``, with ``--delimiter`` if ``given_sep``. A ';' file that the command
    does not take for one is first run without it: commas cannot read it (each line one field, or
    a blank line first), so one line and nothing written; then with ``--delimiter ';'``."""
    if f.semicolon and not semicolon_guessed(f):
        r = run(args, tmp)
        assert r.code == 1 and len(r.err.splitlines()) == 1 and r.left() == [] and not r.caught, r.err
        assert r.err.startswith(f"fmeasure: {path}: "), r.err
        given_sep = True
    return run(args + (["--delimiter", f.sep] if given_sep else []), tmp)


@FUZZ
@given(
    f=csv_file("probability", semicolons=True),
    flag=st.sampled_from(["auto", "auto", "auto", "yes", "no"]),
    chunk=st.one_of(st.none(), st.integers(1, 5)),
    fmt=st.sampled_from(["binary", "binary", "indices"]),
    given_sep=st.booleans(),
)
def test_fuzz_predict_marginals_csv(f, flag, chunk, fmt, given_sep):
    with folder() as tmp:
        path = tmp / f"P{f.suffix}"
        f.write(path)
        exp = expect_csv(f, flag, "probability", writer_names=fmt == "binary")
        args = ["predict", "--marginals", path, "--header", flag, "--format", fmt]
        r = run_csv(args + (["--chunksize", chunk] if chunk else []), f, path, tmp, given_sep)
        if exp.message is not None:
            assert_refused(r, path, exp.message)
            return
        assert r.code == 0 and r.err == "" and not r.caught, (r.err, [str(w.message) for w in r.caught])
        H, ef = read_output(r.output, fmt, exp.names)
        assert_optimal_independent(exp.values, H, ef)
        assert r.left() == ["H.csv"]


@FUZZ
@given(
    f=csv_file("binary", n_max=12, semicolons=True),
    k=st.integers(1, 4),
    flag=st.sampled_from(["auto", "auto", "yes", "no"]),
    chunk=st.one_of(st.none(), st.integers(1, 3)),
    given_sep=st.booleans(),
)
def test_fuzz_predict_samples_csv(f, k, flag, chunk, given_sep):
    with folder() as tmp:
        path = tmp / f"S{f.suffix}"
        f.write(path)
        exp = expect_csv(f, flag, "binary")
        if exp.message is None and len(exp.values) % k:
            exp = Expect(f"{len(exp.values)} rows is not a multiple of --samples-per-instance {k}")
        args = ["predict", "--samples", path, "--samples-per-instance", k, "--header", flag]
        r = run_csv(args + (["--chunksize", chunk] if chunk else []), f, path, tmp, given_sep)
        if exp.message is not None:
            assert_refused(r, path, exp.message)
            return
        assert r.code == 0 and r.err == "" and not r.caught, r.err
        H, ef = read_output(r.output, "binary", exp.names)
        S = exp.values.astype(np.int8).reshape(-1, k, len(exp.names))
        assert_optimal_samples(S, H, ef)


# ------------------------------------------------------------------------------ predict from .npy / .npz


@st.composite
def array_values(draw, kind, shape, dtype):
    """An array of ``shape`` with good values and, half of the time, a few bad ones."""
    size = int(np.prod(shape))
    good = st.floats(0, 1) if kind == "probability" else st.sampled_from([0.0, 1.0])
    a = draw(arrays(np.float64, size, elements=good))
    if size and draw(st.booleans()):
        bad = [math.nan, math.inf, -math.inf, 2.0, -0.5, 1.5, 1.0000001, -1e-9]
        if kind != "probability":
            bad = [2.0, -1.0, 0.5, math.nan, 1.0000001]
        for _ in range(draw(st.integers(1, 3))):
            a[draw(st.integers(0, size - 1))] = draw(st.sampled_from(bad))
    a = a.reshape(shape)
    if dtype == "bool":
        return a != 0
    if np.dtype(dtype).kind in "iu":  # an integer file holds no NaN, no infinity, no negative number
        a = np.where(np.isfinite(a) & (a >= 0), a, 7.0).round()
    return a.astype(dtype)


def _first_bad(a, kind):
    ok = (a >= 0) & (a <= 1) if kind == "probability" else (a == 0) | (a == 1)
    bad = np.flatnonzero(~ok.reshape(-1))
    return None if bad.size == 0 else int(bad[0])


def _pack(draw, path: Path):
    """Compress the file written at ``path`` in place, a third of the time (its name unchanged)."""
    how = draw(st.sampled_from(["none", "none", "none", "none", "gzip", "xz"]))
    if how != "none" and path.exists():
        pack = gzip.compress if how == "gzip" else lzma.compress
        path.write_bytes(pack(path.read_bytes()))
        note(f"{path.name}: {how}-compressed")


@FUZZ
@given(data=st.data(), samples=st.booleans())
def test_fuzz_predict_npy(data, samples):
    draw = data.draw
    kind = "binary" if samples else "probability"
    variant = draw(
        st.sampled_from(["array"] * 6 + ["empty file", "garbage", "npz inside", "object", "complex", "ndim"])
    )
    with folder() as tmp:
        path = tmp / "A.npy"
        k = None
        if variant == "array":
            layout = draw(st.sampled_from(["2d", "3d"] if samples else ["2d"]))
            n, m = draw(st.integers(0, 6)), draw(st.integers(0, 4))
            kk = draw(st.integers(0 if layout == "3d" else 1, 4))
            shape = (n, kk, m) if layout == "3d" else (n * (kk if samples else 1) + draw(st.integers(0, 1)), m)
            dtypes = ["float64", "float32"] + (["int8", "uint8", "bool"] if samples else [])
            dtype = draw(st.sampled_from(dtypes))
            a = draw(array_values(kind, shape, dtype))
            np.save(path, a)
            k = kk if samples and layout == "2d" else None
            af = np.asarray(a, dtype=np.float64)
            if a.shape[-1] == 0:
                message = f"no label columns (shape {a.shape})"
            elif a.shape[0] == 0:
                message = f"no rows (shape {a.shape})"
            elif layout == "3d" and a.shape[1] == 0:
                message = f"no samples (shape {a.shape})"
            elif samples and layout == "2d" and a.shape[0] % k:
                message = f"{a.shape[0]} rows is not a multiple of --samples-per-instance {k}"
            else:
                flat = af.reshape(-1, a.shape[-1])
                e = _first_bad(flat, kind)
                if e is None:
                    message = None
                else:
                    i, j = divmod(e, a.shape[-1])
                    where = f"row {i + 1}: column 'y{j + 1}'"
                    v = flat[i, j]
                    text = str(a.dtype.type(v))  # 1.0000001, also in float32, not %g's 1
                    message = f"{where}: missing value or NaN" if np.isnan(v) else f"{where}: {_describe(kind, text)}"
            prefix = False
        else:
            prefix = True
            message = "not a readable .npy array"
            if variant == "empty file":
                path.write_bytes(b"")
            elif variant == "garbage":
                path.write_bytes(draw(st.binary(min_size=1, max_size=200)))
            elif variant == "npz inside":
                with open(path, "wb") as fh:
                    np.savez(fh, a=np.zeros((2, 2)))
            elif variant == "object":
                np.save(path, np.array([[0.5, None]], dtype=object), allow_pickle=True)
            elif variant == "complex":
                np.save(path, np.full((2, 2), 0.5 + 0j))
                message = "dtype complex128 is not numeric"
            else:
                shape = draw(st.sampled_from([(3,), (2, 2, 2, 2), ()] if samples else [(3,), (2, 2, 2), ()]))
                np.save(path, np.full(shape, 0.0))
                want = "2-D or 3-D" if samples else "2-D"
                message = f"expected a {want} array, got shape {shape}"
        _pack(draw, path)
        args = ["predict", "--samples" if samples else "--marginals", path]
        if k is not None:
            args += ["--samples-per-instance", k]
        chunk = draw(st.one_of(st.none(), st.integers(1, 3)))
        r = run(args + (["--chunksize", chunk] if chunk else []), tmp)
        if message is not None:
            if variant == "garbage" and r.code == 1 and not r.err.startswith(f"fmeasure: {path}: not a readable"):
                # random bytes can spell a valid .npy header; then the array's own checks apply
                assert len(r.err.splitlines()) == 1 and r.err.startswith(f"fmeasure: {path}: "), r.err
                assert r.left() == []
                return
            assert_refused(r, path, message, prefix=prefix)
            return
        assert r.code == 0 and r.err == "" and not r.caught, r.err
        m = a.shape[-1]
        H, ef = read_output(r.output, "binary", [f"y{j + 1}" for j in range(m)])
        if samples:
            S = np.asarray(a, dtype=np.int8).reshape(-1, a.shape[1] if a.ndim == 3 else k, m)
            assert_optimal_samples(S, H, ef)
        else:
            assert_optimal_independent(np.asarray(a, dtype=np.float64), H, ef)


@FUZZ
@given(data=st.data())
def test_fuzz_predict_npz(data):
    draw = data.draw
    variant = draw(st.sampled_from(["sparse"] * 5 + ["garbage", "dense npz"]))
    with folder() as tmp:
        path = tmp / draw(st.sampled_from(["S.npz", "S.npz", "S.npz.gz"]))  # the content, not the name, decides
        k = draw(st.integers(1, 4))
        prefix = True
        if variant == "sparse":
            r_, m = draw(st.integers(0, 4)) * k + draw(st.sampled_from([0, 0, 0, 1])), draw(st.integers(0, 4))
            stored = draw(array_values("binary", (r_, m), draw(st.sampled_from(["float64", "int8", "bool"]))))
            with open(path, "wb") as fh:  # a file object: save_npz would add .npz to S.npz.gz
                sp.save_npz(fh, sp.csr_array(stored))
            af = np.asarray(stored, dtype=np.float64)
            prefix = False
            if m == 0:
                message = f"no label columns (shape {af.shape})"
            elif r_ == 0:
                message = f"no rows (shape {af.shape})"
            else:
                e = _first_bad(af, "binary")
                if e is not None:
                    i, j = divmod(e, m)
                    v = af[i, j]
                    where = f"row {i + 1}: column 'y{j + 1}'"
                    text = str(stored.dtype.type(v))
                    message = (
                        f"{where}: missing value or NaN" if np.isnan(v) else f"{where}: {_describe('binary', text)}"
                    )
                elif r_ % k:
                    message = f"{r_} rows is not a multiple of --samples-per-instance {k}"
                else:
                    message = None
        elif variant == "garbage":
            path.write_bytes(draw(st.binary(max_size=100)))
            message = "not a scipy.sparse .npz matrix"
        else:
            with open(path, "wb") as fh:
                np.savez(fh, a=np.zeros((2, 2)))
            message = "not a scipy.sparse .npz matrix"
        _pack(draw, path)
        r = run(["predict", "--samples", path, "--samples-per-instance", k], tmp)
        if message is not None:
            assert_refused(r, path, message, prefix=prefix)
            return
        assert r.code == 0 and r.err == "" and not r.caught, r.err
        H, ef = read_output(r.output, "binary", [f"y{j + 1}" for j in range(m)])
        assert_optimal_samples(af.astype(np.int8).reshape(-1, k, m), H, ef)


# ------------------------------------------------------------------------------ evaluate


def _measures(Y, H):
    """Means of the four measures, by hand: F(0, 0) = 1, Jaccard of two empty sets 1."""
    rows = []
    for y, h in zip(Y.astype(int), H.astype(int)):
        tp, sy, sh = int((y & h).sum()), int(y.sum()), int(h.sum())
        f = 1.0 if sy + sh == 0 else 2 * tp / (sy + sh)
        union = int((y | h).sum())
        jac = 1.0 if union == 0 else tp / union
        rows.append({"hamming": float(np.mean(y != h)), "subset01": float((y != h).any()), "f": f, "jaccard": jac})
    return pd.DataFrame(rows).mean()


@FUZZ
@given(data=st.data())
def test_fuzz_evaluate(data):
    draw = data.draw
    m = draw(st.integers(1, 4))
    true = draw(csv_file("binary", m=m, n_max=6, header_style=draw(st.sampled_from(["none", "names", "pandas"]))))
    pred_m = m if draw(st.integers(0, 5)) else draw(st.integers(1, 4))
    pred = draw(csv_file("binary", m=pred_m, n_max=6, header_style="none"))
    flag = draw(st.sampled_from(["auto", "auto", "yes", "no"]))
    exp_true = expect_csv(true, flag, "binary", writer_names=False)
    # predict's layout: the true file's names (or y1..ym) and an expected_f column, or no header at all
    if draw(st.booleans()) and pred.records and not _is_blank(pred.records[0]):
        names = exp_true.names
        if len(names) != pred_m:
            names = [f"y{j + 1}" for j in range(pred_m)]
        head = [Cell(f'"{x}"', x, "text") for x in names]  # quoted: a name may hold the separator
        head.append(Cell("expected_f", "expected_f", "text"))
        recs = [head]
        for r in pred.records:  # each row gets an expected_f value (ignored by evaluate)
            recs.append(r if _is_blank(r) or all(c.field == "" for c in r) else [*r, Cell("1", "1", "num", 1.0)])
        pred.records = recs
        pred_binary_names = names
    else:
        pred_binary_names = None
    exp_pred = expect_csv(pred, "auto", "binary", hint=PRED_HINT, header_names=("expected_f",), writer_names=False)
    if exp_pred.message is None and pred_binary_names is not None:
        exp_pred.values = exp_pred.values[:, :pred_m]  # expected_f is not a label
    with folder() as tmp:
        tp, pp = tmp / f"Y{true.suffix}", tmp / f"H{pred.suffix}"
        true.write(tp)
        pred.write(pp)
        r = run(["evaluate", "--true", tp, "--pred", pp, "--header", flag, "--n-boot", 20], tmp)
        if exp_true.message is not None and exp_true.stage == "open":
            assert_refused(r, tp, exp_true.message)
            return
        if exp_pred.message is not None and exp_pred.stage == "open":
            assert_refused(r, pp, exp_pred.message)
            return
        labels_true = len(exp_true.names)
        labels_pred = len([x for x in exp_pred.names if not (exp_pred.has_header and x == "expected_f")])
        if labels_pred != labels_true:
            assert_refused(r, pp, f"{labels_pred} label columns, but {tp} has {labels_true}")
            return
        # both named (and not y1..ym): the columns are matched by name, so every name must be there
        pred_names = [x for x in exp_pred.names if x != "expected_f"]
        default = [f"y{j + 1}" for j in range(labels_true)]
        if exp_true.has_header and exp_pred.has_header and default not in (pred_names, exp_true.names):
            missing = [x for x in exp_true.names if x not in pred_names]
            if missing:
                assert_refused(r, pp, f"no column {missing[0]!r} of {tp}")
                return
        if exp_true.message is not None or exp_pred.message is not None:
            options = []
            if exp_true.message is not None:
                options.append(f"fmeasure: {tp}: {exp_true.message}")
            if exp_pred.message is not None:
                options.append(f"fmeasure: {pp}: {exp_pred.message}")
            assert r.code == 1 and len(r.err.splitlines()) == 1 and not r.caught, r.err
            assert r.err.strip() in options, (r.err, options)
            assert r.left() == []
            return
        n_true, n_pred = len(exp_true.values), len(exp_pred.values)
        if n_true != n_pred:
            assert_refused(r, pp, f"{n_pred} rows, but {tp} has {n_true}")
            return
        assert r.code == 0 and not r.caught and r.err == "", r.err
        got = pd.read_csv(r.output).set_index("measure")["value"]
        want = _measures(exp_true.values, exp_pred.values)
        for key in ["hamming", "subset01", "f", "jaccard"]:
            assert got[key] == pytest.approx(want[key], abs=1e-9), key


# ------------------------------------------------------------------------------ the console command


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=csv_file("probability", n_max=4))
def test_fuzz_console_command_same_as_in_process(f):
    """``python -m fmeasure`` in a real process: the same exit code, stderr and output as main()."""
    with folder() as tmp:
        path = tmp / f"P{f.suffix}"
        f.write(path)
        mine = run(["predict", "--marginals", path], tmp, output=False)
        cmd = [sys.executable, "-m", "fmeasure", "predict", "--marginals", str(path)]
        proc = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=120)
        assert proc.returncode == mine.code
        assert proc.stderr == mine.err
        assert len(proc.stderr.splitlines()) <= 1 and "Traceback" not in proc.stderr
        if proc.returncode == 0:
            assert proc.stdout == mine.out


# ------------------------------------------------------------------------------ the generators themselves


def test_generated_cells_read_as_their_kind():
    """The oracle's kinds agree with pandas' reading of each kind of field (not with fmeasure's)."""
    for w in ODD_TEXT + ["cat", "b_2", "zz9"]:
        with pytest.raises(ValueError):
            pd.to_numeric(w)
    for t in ["0.5", " 0.5", "0.5 ", "1e400", "Infinity", "inf", "-0", "5.000e-01"]:
        assert pd.to_numeric(t) == float(t)
    text = "a,b\n" + "\n".join(f"{x},0.5" for x in ["0.5", '"0.5"', " 0.5", "0.5 "]) + "\n"
    df = pd.read_csv(io.StringIO(text), keep_default_na=False, skipinitialspace=True)
    assert df["a"].tolist() == [0.5] * 4
    for t in NA_TEXT:
        assert math.isnan(pd.to_numeric(pd.Series([t]), errors="coerce")[0])
    assert list(itertools.islice(all_vectors(2).tolist(), 4)) == [[0, 0], [0, 1], [1, 0], [1, 1]]
