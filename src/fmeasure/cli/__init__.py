"""The ``fmeasure`` command: F-optimal predictions from probabilities computed elsewhere.

``fmeasure predict`` reads label probabilities written by any other program (a neural network, R,
Julia, ...) and writes the prediction that maximises the expected instance-wise F-measure;
``fmeasure evaluate`` scores predictions against true labels with bootstrap confidence intervals.
``fmeasure --help`` and ``fmeasure predict --help`` list every option; ``docs/cli.md`` describes
the file layouts.

Inputs (a suffix decides the reader; the first bytes, not the name, say whether the content is
compressed with gzip, bzip2, xz, zstd or zip, so ``P.csv.gz`` and a gzipped ``P.csv`` are the same):

* ``.csv`` (also ``.tsv``/``.tab`` with tabs): one row per instance (or per sample), one column
  per label, read with ``pandas.read_csv``. ``--delimiter`` sets another separator; without it,
  ``;`` (or a tab) is taken when every line holds it the same number of times and no comma. With ``--header auto`` the first
  row is a header if none of its fields is a number, or if its fields are ``0,1,...,m-1`` (what
  ``pandas.DataFrame(P).to_csv(index=False)`` writes; for m <= 2 these are also valid data, so
  the command asks for ``--header yes`` or ``no``); a first row mixing numbers and other text is
  an error. Without a header the labels are called ``y1 .. ym``. Blank lines at the end of the
  file are ignored; elsewhere a blank line is an error.
* ``.npy``: a 2-D array (n, m), or for ``--samples`` also a 3-D array (n, k, m); opened with
  ``np.load(mmap_mode="r")`` so it can be larger than memory (compressed, read in order).
* ``.npz`` (``--samples`` only): ``scipy.sparse.save_npz`` of an (n * k, m) 0/1 matrix; rows
  ``i * k .. i * k + k - 1`` are the k samples of instance i (k = ``--samples-per-instance``).
  The same (n * k, m) layout is read from a 2-D ``.csv`` or ``.npy`` of samples.

Every input is read, checked and processed in chunks of rows, and each chunk's predictions are
written before the next is read: memory is O(chunk x m) whatever n is; time is O(n m^2) for
``--marginals`` (Ye et al.'s DP) and O(n k m + n m s_max) for ``--samples`` (GFM, s_max the
largest label count in the samples). ``evaluate`` keeps four floats per instance for the
bootstrap.

Exit codes: 0 success; 2 usage error (bad or missing arguments, an input file that does not
exist or cannot be read, an unknown suffix, an output that cannot be written); 1 bad data. Bad
data gets one line on stderr naming the file, the row (1-based, the header not counted, blank
lines counted) and the problem, e.g. ``fmeasure: P.csv: row 17: column 'y3': probability 1.3
outside [0, 1]``; the row named is the first bad one. An output file given with ``-o`` is written
under a temporary name beside it and renamed when everything succeeded, so a failed run leaves
no file behind (on stdout, the rows before the bad one have been printed); its folder must exist
(none is created), and it must not be one of the inputs.

The code: ``_files`` (opening a file: its compression, content that is not text), ``_read``
(CSV and ``.npy`` through one reader, the header rule, ``.npz`` samples), ``_write``
(predictions, the output file, the progress bar), ``_predict`` and ``_evaluate`` (the
subcommands), ``_main`` (the arguments and :func:`main`). Importing this module loads ``_main``
only: numpy, pandas and the inference are imported when a command runs.

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

from fmeasure.cli._common import DataError
from fmeasure.cli._main import build_parser, main

__all__ = ["main", "build_parser", "bootstrap_ci", "DataError"]


def __getattr__(name):
    # bootstrap_ci lives with evaluate, which imports numpy and fmeasure.metrics: loaded on first use
    if name == "bootstrap_ci":
        from fmeasure.cli._evaluate import bootstrap_ci

        return bootstrap_ci
    raise AttributeError(f"module 'fmeasure.cli' has no attribute {name!r}")
