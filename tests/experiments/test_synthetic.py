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
    entry = D.load_catalog()["mediamill-shape"]
    assert (entry["n_train"], entry["n_test"], entry["d"], entry["m"]) == (30993, 12914, 120, 101)
    assert entry["max_labels"] == 18 and abs(entry["cardinality"] - 4.4) < 0.05
    assert "mediamill-shape" not in cfg["datasets"]
    assert check_config(cfg, ROOT / "config" / "schema.yaml")["catalog"]["mediamill-shape"]["skew"] == 1.1
    cfg["catalog"] = {"mediamill-shape": {"skw": 1.0}}  # merged over the package's entry
    with pytest.raises(ConfigError, match="catalog.mediamill-shape.skw' is unknown; did you mean"):
        check_config(cfg, ROOT / "config" / "schema.yaml")


def test_dense_entries_generate_the_same_arrays_as_before_the_tfidf_option():
    # sha256 of the arrays the generator gave for this entry before the ``features`` option
    # existed: the default (dense) features draw the same numbers in the same order.
    assert _digest(generate("s", SMALL)) == "f4231c8c7b8f73ca77faa4de41badc3f79f314a5756ffa519b4c61d816a33972"
    assert _digest(generate("s", {**SMALL, "features": "dense", "words_per_row": 5})) == _digest(generate("s", SMALL))


def test_mediamill_shape_generated_counts():
    entry = D.load_catalog()["mediamill-shape"]
    assert entry["features"] == "factors"
    # with Gaussian features, the arrays this entry generated before the ``features`` option existed
    dense = generate("mediamill-shape", {**entry, "features": "dense"})
    assert _digest(dense) == "f4927bd9dd9f32c7fc5403ea391a8f1784b5d957bbac1672afdbb2d1561374fc"
    ds = generate("mediamill-shape", entry)
    assert ds.X_train.min() > 0 and ds.X_train.max() < 1
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


TFIDF = {**SMALL, "n_train": 1200, "n_test": 400, "d": 800, "m": 300, "cardinality": 5.3, "skew": 0.7}
TFIDF.update({"max_labels": 24, "features": "tfidf", "words_per_row": 40, "weight_density": 0.05})


def test_tfidf_features_are_sparse_nonnegative_unit_rows():
    import scipy.sparse as sp

    ds = generate("t", TFIDF)
    assert sp.issparse(ds.X_train) and ds.X_train.format == "csr" and ds.X_train.shape == (1200, 800)
    assert ds.X_test.shape == (400, 800) and ds.Y_train.shape == (1200, 300) and ds.Y_test.shape == (400, 300)
    X = sp.vstack([ds.X_train, ds.X_test]).tocsr()
    assert X.data.min() > 0
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0, rtol=1e-12)
    nnz = np.diff(X.indptr)
    # 40 words per row on average, repeats of frequent words merged: a few dozen distinct terms
    assert 20 <= nnz.mean() <= 40 and nnz.min() >= 1
    # Zipf vocabulary: the first terms are in many rows, the last ones in few
    df = np.bincount(X.indices, minlength=800)
    assert df[:10].mean() > 20 * max(1.0, df[-100:].mean())
    counts = np.concatenate([ds.Y_train.sum(axis=1), ds.Y_test.sum(axis=1)])
    assert abs(counts.mean() - 5.3) <= 1 / 1600 + 1e-12 and counts.max() <= 24
    freq = np.vstack([ds.Y_train, ds.Y_test]).mean(axis=0)
    ranks = np.argsort(np.argsort(-freq))
    assert np.corrcoef(ranks, np.arange(300))[0, 1] > 0.85 and freq[:10].mean() > 10 * freq[-100:].mean()


def test_tfidf_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    def digest(ds):
        import hashlib

        h = hashlib.sha256()
        for X in (ds.X_train, ds.X_test):
            for a in (X.data, X.indices, X.indptr):
                h.update(np.ascontiguousarray(a).tobytes())
        for a in (ds.Y_train, ds.Y_test):
            h.update(a.tobytes())
        return h.hexdigest()

    a = generate("t", TFIDF)
    assert digest(a) == digest(generate("t", TFIDF))
    assert digest(generate("t", {**TFIDF, "seed": 8})) != digest(a)
    D.save(D.parse("t", TFIDF, tmp_path), tmp_path / "t.npz")
    assert digest(D.load(tmp_path / "t.npz")) == digest(a)


def test_tfidf_labels_depend_on_features():
    ds = generate("t", {**TFIDF, "m": 20, "cardinality": 3.0, "max_labels": 6})
    base = np.clip(ds.Y_train.mean(axis=0), 1e-3, 1 - 1e-3)
    P = np.empty(ds.Y_test.shape)
    for j in range(ds.n_labels):
        P[:, j] = LogisticRegression(C=1.0).fit(ds.X_train, ds.Y_train[:, j]).predict_proba(ds.X_test)[:, 1]
    # sparse rows meet a label's sparse weights on a few terms only: weaker than dense features
    assert _log_loss(ds.Y_test, P) < 0.97 * _log_loss(ds.Y_test, np.broadcast_to(base, P.shape))


@pytest.mark.parametrize(
    "change, word",
    [
        ({"features": "bow"}, "features"),
        ({"words_per_row": 0}, "words_per_row"),
        ({"weight_density": 0}, "weight_density"),
    ],
)
def test_tfidf_bad_option_names_the_key(change, word):
    with pytest.raises(D.DatasetError, match=word):
        generate("t", {**TFIDF, **change})


def test_eurlex_shape_catalog_entry_has_eurlex_counts_and_validates():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    entry = D.load_catalog()["eurlex-shape"]
    assert (entry["n_train"], entry["n_test"], entry["d"], entry["m"]) == (15539, 3809, 5000, 3993)
    assert entry["cardinality"] == 5.3 and entry["features"] == "tfidf"
    assert "eurlex-shape" not in cfg["datasets"]
    check_config(cfg, ROOT / "config" / "schema.yaml")
    cfg["catalog"] = {"eurlex-shape": {"features": "bow"}}
    with pytest.raises(ConfigError, match="features"):
        check_config(cfg, ROOT / "config" / "schema.yaml")


FACTORS = {**SMALL, "n_train": 3000, "n_test": 1000, "d": 40, "features": "factors"}
FACTORS.update({"feature_factors": 4, "feature_noise": 0.05, "weight_density": 0.25})


def _eigenvalues(X):
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return np.linalg.eigvalsh(Z.T @ Z / len(Z))[::-1]


def test_factor_features_are_bounded_correlated_and_ill_conditioned():
    ds = generate("f", FACTORS)
    X = np.vstack([ds.X_train, ds.X_test])
    assert X.shape == (4000, 40) and X.dtype == np.float64 and 0 < X.min() and X.max() < 1
    ev = _eigenvalues(X)
    # 4 factors carry most of the variance (the squashing moves a little of it to other directions)
    assert ev[:4].sum() / ev.sum() > 0.8
    # the other directions hold about the noise share: a condition number of hundreds
    assert ev[0] / ev[-1] > 100 and ev[-1] < 0.1
    # Gaussian features of the same shape: near 1 everywhere
    dense = _eigenvalues(np.vstack([generate("d", {**FACTORS, "features": "dense"}).X_train]))
    assert dense[0] / dense[-1] < 2
    # less noise, more collinear
    assert _eigenvalues(generate("f", {**FACTORS, "feature_noise": 0.01}).X_train)[-1] < 0.5 * ev[-1]
    counts = np.concatenate([ds.Y_train.sum(axis=1), ds.Y_test.sum(axis=1)])
    assert abs(counts.mean() - 3.0) <= 1 / 4000 + 1e-12 and counts.max() <= 6


def test_factor_labels_depend_on_a_few_features():
    ds = generate("f", {**FACTORS, "dependence": 0.0, "signal": 4.0})
    Z = (ds.X_train - ds.X_train.mean(axis=0)) / ds.X_train.std(axis=0)
    Zt = (ds.X_test - ds.X_train.mean(axis=0)) / ds.X_train.std(axis=0)
    base = np.clip(ds.Y_train.mean(axis=0), 1e-3, 1 - 1e-3)
    P = np.empty(ds.Y_test.shape)
    for j in range(ds.n_labels):
        P[:, j] = LogisticRegression(C=1.0).fit(Z, ds.Y_train[:, j]).predict_proba(Zt)[:, 1]
    assert _log_loss(ds.Y_test, P) < 0.8 * _log_loss(ds.Y_test, np.broadcast_to(base, P.shape))
    # each label weighs 25% of the 40 features (10): the 10 largest weights of a fitted model
    # outweigh twice the other 30 together (with weight_density = 1 they about equal them)
    w = LogisticRegression(C=1.0).fit(Z, ds.Y_train[:, 0]).coef_[0]
    top = np.sort(np.abs(w))[::-1]
    assert top[:10].sum() > 2 * top[10:].sum()


def test_factors_same_seed_same_bytes_other_seed_other_bytes():
    a = generate("f", FACTORS)
    assert _digest(a) == _digest(generate("f", FACTORS))
    assert _digest(generate("f", {**FACTORS, "seed": 8})) != _digest(a)


@pytest.mark.parametrize(
    "change, word",
    [
        ({"feature_noise": 0}, "feature_noise"),
        ({"feature_noise": 1.5}, "feature_noise"),
        ({"feature_factors": 0}, "feature_factors"),
    ],
)
def test_factors_bad_option_names_the_key(change, word):
    with pytest.raises(D.DatasetError, match=word):
        generate("f", {**FACTORS, **change})
