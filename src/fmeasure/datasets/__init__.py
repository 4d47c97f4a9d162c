"""Multi-label datasets: fetch (local mirror first, then download), verify, parse, cache.

For library users, in scikit-learn's style: :func:`load_mulan` loads a dataset of the catalog by
name (train and test arrays in a Bunch, or ``return_X_y=True``), found in a mirror folder or
downloaded, verified, parsed once and cached under :func:`get_data_home`
(``~/scikit_learn_data/fmeasure``); :func:`list_datasets` lists the names with their counts;
:func:`read_mulan` reads your own MULAN ARFF file (plain or gzip) with its XML label file.

>>> from fmeasure.datasets import load_mulan
>>> X_train, Y_train, X_test, Y_test = load_mulan("emotions", return_X_y=True)  # doctest: +SKIP

A dataset is an entry of the package's catalog (:func:`load_catalog`, ``catalog.yaml`` beside this
module; the pipeline's config may add entries or change keys under ``catalog``) naming its files with
their expected sha256 (of the uncompressed content), optional download URLs, its format and the
expected counts. The life of a dataset:

1. :func:`fetch_file` copies one file from a local mirror folder (plain or ``.gz``) or downloads
   it, verifies its sha256 and writes it atomically under ``data/raw/<dataset>/``.
2. :func:`parse` reads the raw files with well-kept readers (liac-arff for MULAN ARFF (names unescaped as Weka writes them, nominal features encoded, see
   :func:`encode_features`), scikit-learn's ``load_svmlight_file`` for LibSVM),
   selects the label columns by the names in MULAN's XML label file (whose order differs from the
   ARFF order: we keep the ARFF order, which is the dataset's label order), checks the counts
   against the catalog, and returns a :class:`Dataset`.
3. :func:`save` / :func:`load` write and read the fast binary cache (``.npz``).

The modules follow these steps: ``_fetch`` (mirrors, downloads, sha256), ``_parse`` (ARFF, XML,
LibSVM, nominal features; plain or gzip files), ``_cache`` (``.npz`` and the counts sidecar);
``_catalog`` reads the catalog, ``_loaders`` holds the loaders above; ``_base`` holds
:class:`Dataset` and :class:`DatasetError`. Import from ``fmeasure.datasets``. Synthetic datasets
of a chosen shape (catalog entries with ``format: synthetic``) come from the public submodule
:mod:`fmeasure.datasets.synthetic` (``generate``, ``check_entry``), imported only when used: its
generator needs ``scipy.special``.

Every failure is a :class:`DatasetError` (a ``ValueError``) whose one-line message names the file
and the problem; nothing half-written is left behind.
"""

from fmeasure.datasets._base import Dataset, DatasetError
from fmeasure.datasets._cache import counts_path, load, read_counts, save, write_counts
from fmeasure.datasets._catalog import load_catalog
from fmeasure.datasets._fetch import (
    MIRROR_ENV,
    availability,
    describe_mirrors,
    fetch_file,
    find_in_mirror,
    mirror_folders,
    sha256_of,
    url_problem,
)
from fmeasure.datasets._loaders import get_data_home, list_datasets, load_mulan, read_mulan
from fmeasure.datasets._parse import (
    BOOLEAN_WORDS,
    DENSE_LIMIT,
    NOMINAL_MODES,
    encode_features,
    parse,
    positive_category,
    read_arff_header,
)

__all__ = [
    "load_mulan",
    "read_mulan",
    "list_datasets",
    "get_data_home",
    "Dataset",
    "DatasetError",
    "load_catalog",
    "MIRROR_ENV",
    "mirror_folders",
    "describe_mirrors",
    "find_in_mirror",
    "sha256_of",
    "fetch_file",
    "url_problem",
    "availability",
    "read_arff_header",
    "encode_features",
    "NOMINAL_MODES",
    "BOOLEAN_WORDS",
    "positive_category",
    "DENSE_LIMIT",
    "parse",
    "save",
    "load",
    "counts_path",
    "write_counts",
    "read_counts",
]
