"""Synthetic datasets: deterministic, of the requested shape, skewed, capped, and learnable."""

import hashlib

import numpy as np
import pytest
import yaml
from _mirror import ROOT
from sklearn.linear_model import LogisticRegression

from fmeasure import datasets as D
from fmeasure.datasets.synthetic import generate
from fmeasure.experiments.config import ConfigError, check_config
from fmeasure.experiments.data import summary

SMALL = {
    "format": "synthetic",
    "n_train": 1500,
    "n_test": 700,
    "d": 12,
    "m": 20,
    "cardinality": 3.0,
    "skew": 1.0,
    "dependence": 0.3,
    "max_labels": 6,
    "seed": 7,
}


def _digest(ds):
    h = hashlib.sha256()
    for a in (ds.X_train, ds.Y_train, ds.X_test, ds.Y_test):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def test_synthetic_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    a, b = generate("s", SMALL), generate("s", SMALL)
    assert _digest(a) == _digest(b)
    assert _digest(generate("s", {**SMALL, "seed": 8})) != _digest(a)
    # Through the parsed cache as the data stage writes it.
    D.save(D.parse("s", SMALL, tmp_path), tmp_path / "s.npz")
    assert _digest(D.load(tmp_path / "s.npz")) == _digest(a)


def test_synthetic_counts_cardinality_and_cap():
    ds = generate("s", SMALL)
    assert ds.X_train.shape == (1500, 12) and ds.X_test.shape == (700, 12)
    assert ds.Y_train.shape == (1500, 20) and ds.Y_test.shape == (700, 20)
    assert ds.Y_train.dtype == np.int8 and set(np.unique(ds.Y_train)) <= {0, 1}
    counts = np.concatenate([ds.Y_train.sum(axis=1), ds.Y_test.sum(axis=1)])
    # Bisection on the realised data: within one label over the 2200 instances.
    assert abs(counts.mean() - 3.0) <= 1 / 2200 + 1e-12
    assert counts.max() <= 6
    # The cap binds: without it, some instances have more than 6 labels.
    uncapped = generate("s", {**SMALL, "max_labels": 20})
    assert np.concatenate([uncapped.Y_train.sum(axis=1), uncapped.Y_test.sum(axis=1)]).max() > 6


def test_synthetic_skew_orders_label_frequencies():
    m = 20
    skewed = generate("s", {**SMALL, "skew": 1.5, "max_labels": m})
    freq = np.vstack([skewed.Y_train, skewed.Y_test]).mean(axis=0)
    # Label 0 is the most frequent, the head carries most of the mass, the tail is rare.
    assert freq.argmax() == 0
    assert freq[:4].sum() > 0.5 * freq.sum()
    assert freq[0] > 10 * freq[-1]
    # Spearman correlation of frequency with rank is strongly negative.
    ranks = np.argsort(np.argsort(-freq))
    assert np.corrcoef(ranks, np.arange(m))[0, 1] > 0.9
    flat = generate("s", {**SMALL, "skew": 0.0, "max_labels": m})
    f = np.vstack([flat.Y_train, flat.Y_test]).mean(axis=0)
    assert f.max() < 3 * f.min()


def test_synthetic_dependence_correlates_labels_given_x():
    # With many features, the random feature weights of two labels are nearly orthogonal, so the
    # features alone leave labels nearly uncorrelated; the shared latent factors correlate them.
    # Compare the mean absolute off-diagonal correlation of the labels.
    def mean_corr(rho):
        shape = {"n_train": 4000, "d": 300, "dependence": rho, "skew": 0.0, "max_labels": 20}
        ds = generate("s", {**SMALL, **shape})
        c = np.corrcoef(ds.Y_train.T)
        return np.abs(c[~np.eye(c.shape[0], dtype=bool)]).mean()

    assert mean_corr(0.8) > 3 * mean_corr(0.0)


def _log_loss(Y, P):
    P = np.clip(P, 1e-12, 1 - 1e-12)
    return float(-(Y * np.log(P) + (1 - Y) * np.log(1 - P)).mean())


def test_synthetic_labels_depend_on_features():
    """A logistic model per label (BR) beats the label-frequency baseline on held-out data."""
    ds = generate("s", SMALL)
    base = np.clip(ds.Y_train.mean(axis=0), 1e-3, 1 - 1e-3)
    P = np.empty(ds.Y_test.shape)
    for j in range(ds.n_labels):
        y = ds.Y_train[:, j]
        if y.min() == y.max():
            P[:, j] = y[0]
            continue
        P[:, j] = LogisticRegression(C=1.0).fit(ds.X_train, y).predict_proba(ds.X_test)[:, 1]
    model, baseline = _log_loss(ds.Y_test, P), _log_loss(ds.Y_test, np.broadcast_to(base, P.shape))
    assert model < 0.9 * baseline


@pytest.mark.parametrize(
    "change, words",
    [
        ({"cardinality": 7.0}, ["cardinality", "max_labels"]),
        ({"max_labels": 21}, ["max_labels"]),
        ({"dependence": 1.5}, ["dependence"]),
    ],
)
def test_synthetic_impossible_shape_names_the_key(change, words):
    with pytest.raises(D.DatasetError) as err:
        generate("s", {**SMALL, **change})
    assert all(w in str(err.value) for w in words) and "\n" not in str(err.value)


def test_mediamill_shape_catalog_entry_has_mediamill_counts_and_validates():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    entry = cfg["catalog"]["mediamill-shape"]
    assert (entry["n_train"], entry["n_test"], entry["d"], entry["m"]) == (30993, 12914, 120, 101)
    assert entry["max_labels"] == 18 and abs(entry["cardinality"] - 4.4) < 0.05
    assert "mediamill-shape" not in cfg["datasets"]
    check_config(cfg, ROOT / "config" / "schema.yaml")
    entry["skw"] = 1.0
    with pytest.raises(ConfigError, match="catalog.mediamill-shape.skw' is unknown; did you mean"):
        check_config(cfg, ROOT / "config" / "schema.yaml")


def test_mediamill_shape_generated_counts():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    ds = generate("mediamill-shape", cfg["catalog"]["mediamill-shape"])
    row = summary(ds)
    assert (row["n_train"], row["n_test"], row["m"], row["d"]) == (30993, 12914, 101, 120)
    assert abs(row["cardinality"] - 4.376) < 0.01
    counts = np.concatenate([ds.Y_train.sum(axis=1), ds.Y_test.sum(axis=1)])
    assert counts.max() <= 18
    assert (ds.Y_train.sum(axis=0) > 0).all()


def test_table1_lists_a_synthetic_dataset_and_checks_its_counts(tmp_path):
    from fmeasure.experiments.data import write_table1

    ds = generate("toy-shape", SMALL)
    table = write_table1([ds], {"toy-shape": SMALL}, tmp_path / "t1.csv", tmp_path / "t1.md")
    row = table.set_index("dataset").loc["toy-shape"]
    assert (row["n_train"], row["n_test"], row["m"], row["d"]) == (1500, 700, 20, 12)
    assert "toy-shape" in (tmp_path / "t1.md").read_text()
    with pytest.raises(D.DatasetError, match="toy-shape.*n_train=1500.*expects 1501"):
        write_table1([ds], {"toy-shape": {**SMALL, "n_train": 1501}}, tmp_path / "t2.csv", tmp_path / "t2.md")
