"""The ``fmeasure`` command's arguments (argparse, with the examples of ``--help``) and
:func:`main`, which runs a subcommand and turns its errors into one line and an exit code."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from fmeasure.cli._common import EXIT_DATA, EXIT_OK, EXIT_USAGE, DataError, UsageError

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
        help="field separator of the input CSV (evaluate: of --true); default: ',' for .csv, a tab for .tsv/.tab, "
        "or ';' (a tab) if every line holds it instead, the same number of times",
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
    p.add_argument(
        "-o", "--output", metavar="H.csv", help="output CSV, in an existing folder (default: standard output)"
    )
    p.add_argument(
        "--format",
        choices=["binary", "indices", "names"],
        default="binary",
        help="binary: one 0/1 column per label (default); indices / names: one column `labels`",
    )

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
    e.add_argument("-o", "--output", metavar="scores.csv", help="also write the table as CSV (in an existing folder)")
    return parser


def _command(name):
    """The function running subcommand ``name``, imported when it runs (``--help`` stays light)."""
    if name == "predict":
        from fmeasure.cli._predict import cmd_predict

        return cmd_predict
    from fmeasure.cli._evaluate import cmd_evaluate

    return cmd_evaluate


def main(argv=None) -> int:
    """Run the ``fmeasure`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return _command(args.command)(args)
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
