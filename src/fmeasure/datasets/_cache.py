"""The parsed cache: a :class:`~fmeasure.datasets.Dataset` as a compressed ``.npz``, and its counts
sidecar (``.json``) that job resources are sized from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fmeasure.datasets._base import Dataset, DatasetError
from fmeasure.io import atomic_output


def _pack(prefix: str, X, out: dict):
    if sp.issparse(X):
        X = X.tocsr()
        out.update(
            {
                f"{prefix}_data": X.data,
                f"{prefix}_indices": X.indices,
                f"{prefix}_indptr": X.indptr,
                f"{prefix}_shape": np.asarray(X.shape),
            }
        )
    else:
        out[prefix] = np.ascontiguousarray(X)


def _unpack(prefix: str, z):
    if prefix in z:
        return z[prefix]
    return sp.csr_matrix(
        (z[f"{prefix}_data"], z[f"{prefix}_indices"], z[f"{prefix}_indptr"]), shape=tuple(z[f"{prefix}_shape"])
    )


def save(ds: Dataset, path, extra: dict | None = None) -> None:
    """Write ``ds`` to a compressed ``.npz`` cache, atomically (``extra``: more arrays to store,
    which :func:`load` ignores)."""
    out = {
        **(extra or {}),
        "name": np.asarray(ds.name),
        "Y_train": ds.Y_train,
        "Y_test": ds.Y_test,
        "label_names": np.asarray(ds.label_names, dtype=str),
        "feature_names": np.asarray(ds.feature_names, dtype=str),
        "n_attributes": np.asarray(ds.n_attributes if ds.n_attributes is not None else ds.n_features),
    }
    _pack("X_train", ds.X_train, out)
    _pack("X_test", ds.X_test, out)
    with atomic_output(path, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **out)


def load(path) -> Dataset:
    """Read a dataset cache written by :func:`save` (the files under ``data/parsed/``).

    Examples
    --------
    >>> ds = load("data/parsed/scene.npz")  # doctest: +SKIP
    >>> ds.X_train.shape, ds.Y_train.shape  # doctest: +SKIP
    ((1211, 294), (1211, 6))
    """
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no parsed dataset here (run: snakemake {path})")
    try:
        with np.load(path, allow_pickle=False) as z:
            return Dataset(
                name=str(z["name"]),
                X_train=_unpack("X_train", z),
                Y_train=z["Y_train"],
                X_test=_unpack("X_test", z),
                Y_test=z["Y_test"],
                label_names=z["label_names"].tolist(),
                feature_names=z["feature_names"].tolist(),
                n_attributes=int(z["n_attributes"]) if "n_attributes" in z else None,
            )
    except (OSError, KeyError, ValueError) as exc:
        raise DatasetError(f"{path}: unreadable dataset cache ({exc})") from None


def counts_path(path) -> Path:
    """The counts sidecar of a parsed cache: ``<name>.json`` beside ``<name>.npz``."""
    return Path(path).with_suffix(".json")


def write_counts(ds: Dataset, path) -> dict:
    """Write the sizes of ``ds`` (n_train, n_test, d, m, columns, nnz) as JSON at ``path``, atomically.

    Job resources are sized from these counts without loading the cache.
    """
    import json

    counts = {
        "n_train": int(ds.Y_train.shape[0]),
        "n_test": int(ds.Y_test.shape[0]),
        "d": int(ds.n_attributes if ds.n_attributes is not None else ds.n_features),
        "m": int(ds.n_labels),
        "columns": int(ds.n_features),
        "max_labels": int(max(ds.Y_train.sum(axis=1).max(initial=0), ds.Y_test.sum(axis=1).max(initial=0))),
    }
    with atomic_output(path, suffix=".json") as tmp:
        Path(tmp).write_text(json.dumps(counts, indent=1) + "\n")
    return counts


def read_counts(path) -> dict:
    """The counts written by :func:`write_counts`; raises :class:`DatasetError` naming the file."""
    import json

    try:
        counts = json.loads(Path(path).read_text())
        return {k: int(counts[k]) for k in ("n_train", "n_test", "d", "m")} | counts
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{path}: unreadable counts file ({exc.__class__.__name__}: {exc})") from None
