"""What every part of the ``fmeasure`` command shares: its two errors, exit codes and chunk size."""

from __future__ import annotations

EXIT_OK, EXIT_DATA, EXIT_USAGE = 0, 1, 2
#: values held in memory per chunk (rows x columns), about 32 MB of float64
CHUNK_VALUES = 2**22
#: digits of the expected F written to the output
FLOAT_FORMAT = "%.12g"


class DataError(Exception):
    """Bad content in an input file: the message names the file, the row and the problem."""


class UsageError(Exception):
    """Arguments that cannot work together, or an input file that cannot be opened."""


def chunk_rows(args, m, per_row=1):
    """Rows (instances for samples) per chunk: ``--chunksize``, else about CHUNK_VALUES values."""
    if args.chunksize is not None:
        return args.chunksize
    return max(1, CHUNK_VALUES // max(1, m * per_row))
