"""Writing the outputs of the ``fmeasure`` command: predictions chunk by chunk, an output file
renamed into place only when the run succeeded, and the progress bar."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import numpy as np

from fmeasure.cli._common import FLOAT_FORMAT, DataError, UsageError


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


def check_output(path, inputs=()):
    """A usage error, found before any work, for an output path that names a folder, lies in a
    folder that does not exist (no folder is created, as by ``cp`` or ``sort -o``), or is one of
    the ``inputs``, pairs (option, path) (the run would replace the file it reads)."""
    if path is None or str(path) == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"-o {path}: is a directory, expected a file name")
    if str(path).endswith(("/", os.sep)):
        raise UsageError(f"-o {path}: names a directory, expected a file name")
    folder = target.parent
    if not folder.is_dir():
        if folder.exists():
            raise UsageError(f"-o {path}: {folder} is not a directory")
        raise UsageError(f"-o {path}: no such directory {folder}: create it first")
    for option, source in inputs:
        with contextlib.suppress(OSError, TypeError):  # an input that does not exist is reported later
            if os.path.samefile(target, source):
                raise UsageError(f"-o {path}: is the input {option}: write the output to another file")


@contextlib.contextmanager
def open_output(path):
    """A text stream: stdout, or a temporary file beside ``path`` renamed to it on success.

    A file that cannot be created, written or renamed is a usage error naming ``-o``.
    """
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    from fmeasure.io import atomic_output

    check_output(path)
    try:
        with atomic_output(path) as tmp, open(tmp, "w", newline="") as f:
            yield f
    except OSError as exc:
        raise UsageError(f"-o {path}: cannot write ({exc.strerror or exc})") from None


def progress(desc, n=None, table=None, per_item=1):
    """A tqdm bar on standard error if it is a terminal, nothing otherwise.

    Its total is ``n``, else estimated from ``table`` (rows, ``per_item`` rows per unit).
    """
    from tqdm.auto import tqdm

    show = sys.stderr.isatty()
    if n is None and show and table is not None:
        rows = table.rows_estimate()
        n = None if rows is None else rows // per_item
    return tqdm(total=n, desc=desc, unit="rows", disable=not show, leave=False)
