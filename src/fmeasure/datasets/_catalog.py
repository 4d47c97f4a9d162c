"""The catalog of known datasets, shipped with the package (``fmeasure/datasets/catalog.yaml``)."""

from __future__ import annotations

import copy
import functools
from importlib import resources

from fmeasure.datasets._base import DatasetError

#: The catalog's file inside the package.
CATALOG_FILE = "catalog.yaml"


@functools.lru_cache(maxsize=1)
def _shipped() -> dict:
    import yaml

    text = resources.files("fmeasure.datasets").joinpath(CATALOG_FILE).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def merge_entries(base: dict, overrides: dict) -> dict:
    """``base`` updated by ``overrides``, nested mappings merged key by key (as Snakemake merges a
    config file over another); neither argument is changed."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = merge_entries(out[key], value) if both else copy.deepcopy(value)
    return out


def load_catalog(overrides: dict | None = None) -> dict:
    """The catalog of known datasets: name -> entry (a new copy on each call).

    Each entry gives the dataset's ``format`` (``arff``: MULAN's ARFF with its XML label file;
    ``libsvm``; ``synthetic``: generated, no files), its ``files`` (``train``, ``test``, ``xml``,
    each with ``name``, the ``sha256`` of its uncompressed content and a download ``url``), the
    ``expected`` counts (n_train, n_test, m labels, d feature attributes), a ``description``, a
    ``citation`` and a ``homepage``. ``config/README.md`` (section ``catalog``) explains every key.

    Parameters
    ----------
    overrides : dict, optional
        Entries to add, or keys of shipped entries to change (nested keys merged: ``{"scene":
        {"nominal": "ordinal"}}`` changes that key alone). The pipeline passes its config's
        ``catalog`` here.

    Examples
    --------
    >>> catalog = load_catalog()
    >>> catalog["emotions"]["expected"]
    {'n_train': 391, 'n_test': 202, 'm': 6, 'd': 72}
    >>> load_catalog({"emotions": {"nominal": "ordinal"}})["emotions"]["nominal"]
    'ordinal'
    """
    if overrides is not None and not isinstance(overrides, dict):
        raise DatasetError(f"catalog overrides must map names to entries, got {overrides!r}")
    return merge_entries(_shipped(), overrides or {})
