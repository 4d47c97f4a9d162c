"""Stage ``data`` (Table 1): dataset statistics from the parsed files, beside the paper's counts.

:func:`write_table1` computes the paper's Table 1 (and more: label cardinality, density, distinct
label sets) and refuses counts that differ from the catalog. Fetching and parsing are library
functions of :mod:`fmeasure.datasets`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmeasure.datasets import Dataset, DatasetError
from fmeasure.tables import beside_paper, paper_numbers, write_table

__all__ = ["write_table1", "summary", "COUNTS"]

COUNTS = ["n_train", "n_test", "m", "d"]


def summary(ds: Dataset) -> dict:
    """Table 1's row for ``ds``: counts, label cardinality and density, distinct label sets.

    ``d`` counts the feature attributes of the source file (as MULAN and the paper do);
    ``columns`` the numeric columns after nominal features are encoded and identifiers dropped.
    """
    Y = np.vstack([ds.Y_train, ds.Y_test])
    card = float(Y.sum(axis=1).mean())
    return {
        "dataset": ds.name,
        "n_train": ds.Y_train.shape[0],
        "n_test": ds.Y_test.shape[0],
        "m": ds.n_labels,
        "d": ds.n_attributes if ds.n_attributes is not None else ds.n_features,
        "columns": ds.n_features,
        "cardinality": card,
        "density": card / ds.n_labels,
        "distinct_label_sets": int(np.unique(Y, axis=0).shape[0]),
        "cardinality_train": float(ds.Y_train.sum(axis=1).mean()),
        "cardinality_test": float(ds.Y_test.sum(axis=1).mean()),
    }


def write_table1(datasets, catalog: dict, csv_path, md_path) -> pd.DataFrame:
    """Write Table 1 for ``datasets`` (parsed :class:`~fmeasure.datasets.Dataset` objects).

    Raises :class:`~fmeasure.datasets.DatasetError` if a full (not subset) dataset's counts differ
    from its catalog entry.
    """
    rows = []
    for ds in datasets:
        row = summary(ds)
        entry = catalog.get(ds.name, {})
        # A synthetic entry gives its counts itself; a real one under ``expected``.
        counts = entry if entry.get("format") == "synthetic" else entry.get("expected", {})
        if not entry.get("subset"):
            for key in COUNTS:
                expected = counts.get(key)
                if expected is not None and expected != row[key]:
                    raise DatasetError(
                        f"table1: dataset {ds.name!r} has {key}={row[key]} but the catalog expects {expected}"
                    )
        rows.append(row)
    ours = pd.DataFrame(rows)
    paper = paper_numbers("table1")
    table = beside_paper(ours, paper, ["dataset"], COUNTS)
    shown = table[["dataset", *COUNTS, "cardinality", "density", "distinct_label_sets"]].copy()
    shown.insert(
        len(shown.columns),
        "paper (#train/#test/m/d)",
        [
            "/".join(str(int(r[f"{k}_paper"])) for k in COUNTS) if pd.notna(r["n_train_paper"]) else "not in the paper"
            for _, r in table.iterrows()
        ],
    )
    shown.insert(
        len(shown.columns),
        "matches paper",
        [
            "yes" if all(r[f"{k}_diff"] == 0 for k in COUNTS) else ("-" if pd.isna(r["n_train_paper"]) else "NO")
            for _, r in table.iterrows()
        ],
    )
    caption = (
        "Table 1. Datasets: #train, #test, m labels, d features, computed from the parsed files, "
        "with label cardinality (mean labels per instance), density (cardinality / m) and the number "
        "of distinct label sets (train and test together), beside the paper's counts."
    )
    write_table(table, csv_path, md_path, caption=caption, md_df=shown, float_format="{:.3f}")
    return table
