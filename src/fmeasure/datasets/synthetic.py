"""Synthetic multi-label datasets of a chosen shape, generated deterministically from a seed.

A synthetic dataset is a catalog entry with ``format: synthetic`` (see ``config/config.yaml``):
it names the counts (``n_train``, ``n_test``, ``d`` features, ``m`` labels), the mean number of
labels per instance (``cardinality``), how unequal the label frequencies are (``skew``), how
strongly labels depend on each other beyond the features (``dependence``), the most labels an
instance may have (``max_labels``) and a ``seed``. :func:`generate` turns the entry into a
:class:`~fmeasure.datasets.Dataset`; the data stage saves it as the parsed cache, so every later
stage treats it like real data.

The model, for instance i and label j::

    x_i ~ N(0, I_d)                               features (``features: dense``)
    h_i ~ N(0, I_k)                               k latent factors shared by all labels, not in x
    s_ij = signal * (sqrt(1 - rho) * x_i . w_j + sqrt(rho) * h_i . v_j)
    P(y_ij = 1 | x_i, h_i) = sigmoid(s_ij + b_j + log c)

with ``w_j ~ N(0, I_d / d)`` and ``v_j ~ N(0, I_k / k)`` (so both parts have unit variance),
``rho = dependence``. Given x, labels that load on the same latent factors are correlated: rho = 0
gives labels independent given x, rho near 1 labels driven by a few hidden factors. Each offset
``b_j`` is found by bisection so that label j's mean probability is ``min(0.99, a * (j + 1)^-skew)``,
with ``a`` such that these frequencies sum to ``cardinality``: label 0 is the most frequent and the
frequencies fall as a power of the rank (a few frequent labels, a long tail of rare ones;
``skew = 0``: equal frequencies). An instance drawn with more than ``max_labels`` labels keeps its
``max_labels`` labels of highest score; a last shift ``log c`` of every score, found by bisection,
makes the mean number of labels after the cap equal ``cardinality`` (to within one label in the
whole dataset).

With ``features: tfidf`` the features are sparse, non-negative and tf-idf-like, as in text
collections (EUR-Lex): each instance draws about ``words_per_row`` words from a vocabulary of d
terms with Zipf frequencies (term f has probability proportional to 1 / (f + 1)); a word drawn
c times has term frequency c, and the row holds ``(1 + log c) * idf_f`` with the smoothed inverse
document frequency ``idf_f = log((1 + n) / (1 + df_f)) + 1`` over all n instances, then is scaled to
unit L2 norm (a scipy.sparse CSR matrix; repeated words make the distinct terms per row somewhat
fewer than ``words_per_row``). The label weights w_j are then sparse too: each label weighs a
random share ``weight_density`` of the terms, with N(0, 1 / weight_density) weights, so that
x_i . w_j keeps unit variance for a unit-norm x_i; the rest of the model is the same.

With ``features: factors`` the features are dense, bounded and correlated, as real descriptors
(audio, video, image features normalised to [0, 1]) are: q = ``feature_factors`` hidden factors
z_i ~ N(0, I_q) drive all d features, ``x_if = sigmoid(g_f * (sqrt(1 - e) * z_i . b_f + sqrt(e) * u_if - c_f))``
with unit-norm loadings b_f, own noise u_if ~ N(0, 1) of share e = ``feature_noise``, and a random gain
g_f in [0.5, 3] and centre c_f in [-1, 1] per feature. Each label weighs a share ``weight_density``
of the features with N(0, 1) weights; its term ``x_i . w_j`` is computed on the standardised features
and rescaled to unit variance over the dataset, so ``signal`` and ``dependence`` mean what they mean
for dense features. With e = 0.05 the standardised features' covariance has q eigenvalues near d / q
and d - q near e: a condition number of a few hundred, where lbfgs needs many iterations.

Time grows as O((n_train + n_test) * (d + m)) per bisection step (about 110 steps) and memory as
O(n * (d + m)) floats; Mediamill's shape (43,907 x 120, 101 labels) takes about ten CPU seconds
and 0.3 GB. At EUR-Lex's shape (19,348 instances, 3,993 labels) the dense scores and uniform draws
are 0.6 GB each (n * m float64 values), and a few such arrays are alive at once.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from fmeasure.datasets._base import Dataset, DatasetError

__all__ = ["FEATURES", "SYNTHETIC_KEYS", "SYNTHETIC_DEFAULTS", "check_entry", "generate"]

#: Keys a synthetic catalog entry must give.
SYNTHETIC_KEYS = ("n_train", "n_test", "d", "m", "cardinality", "seed")
#: Keys with a default (what each means: the module docstring and config/README.md).
SYNTHETIC_DEFAULTS = {
    "skew": 1.0,
    "dependence": 0.3,
    "max_labels": None,
    "n_factors": 5,
    "signal": 2.5,
    "features": "dense",
    "words_per_row": 60,
    "weight_density": 0.05,
    "feature_factors": 8,
    "feature_noise": 0.05,
}
#: Values of ``features``.
FEATURES = ("dense", "tfidf", "factors")


def check_entry(name: str, entry: dict) -> dict:
    """The entry's generator parameters with defaults filled in; one-line error for a bad value."""
    missing = [k for k in SYNTHETIC_KEYS if k not in entry]
    if missing:
        raise DatasetError(f"catalog entry {name!r}: synthetic dataset needs key {missing[0]!r}")
    p = {**SYNTHETIC_DEFAULTS, **{k: v for k, v in entry.items() if k in SYNTHETIC_KEYS or k in SYNTHETIC_DEFAULTS}}
    for key in ("n_train", "n_test", "d", "m", "n_factors", "feature_factors"):
        if int(p[key]) != p[key] or p[key] < 1:
            raise DatasetError(f"catalog entry {name!r}: {key} must be a positive integer, got {p[key]!r}")
    cap = p["m"] if p["max_labels"] is None else p["max_labels"]
    if int(cap) != cap or not 1 <= cap <= p["m"]:
        raise DatasetError(f"catalog entry {name!r}: max_labels must be an integer in [1, m={p['m']}], got {cap!r}")
    p["max_labels"] = int(cap)
    if not 0 < p["cardinality"] < p["max_labels"]:
        raise DatasetError(
            f"catalog entry {name!r}: cardinality must lie strictly between 0 and max_labels "
            f"({p['max_labels']}), got {p['cardinality']!r}"
        )
    if not 0 <= p["dependence"] <= 1:
        raise DatasetError(f"catalog entry {name!r}: dependence must lie in [0, 1], got {p['dependence']!r}")
    if p["skew"] < 0 or p["signal"] < 0:
        raise DatasetError(f"catalog entry {name!r}: skew and signal must be >= 0")
    if p["features"] not in FEATURES:
        raise DatasetError(f"catalog entry {name!r}: features must be one of {list(FEATURES)}, got {p['features']!r}")
    if not p["words_per_row"] >= 1:
        raise DatasetError(f"catalog entry {name!r}: words_per_row must be >= 1, got {p['words_per_row']!r}")
    if not 0 < p["weight_density"] <= 1:
        raise DatasetError(f"catalog entry {name!r}: weight_density must lie in (0, 1], got {p['weight_density']!r}")
    if not 0 < p["feature_noise"] <= 1:
        raise DatasetError(f"catalog entry {name!r}: feature_noise must lie in (0, 1], got {p['feature_noise']!r}")
    return p


def _factor_features(rng, n: int, d: int, q: int, noise: float) -> np.ndarray:
    """n rows of d bounded, correlated features driven by q latent factors.

    Each raw feature is ``sqrt(1 - noise) * z . b_f + sqrt(noise) * e`` (unit variance; z ~ N(0, I_q)
    shared by all features of a row, e ~ N(0, 1) its own), squashed into (0, 1) by a logistic
    function with a random gain and centre per feature, as descriptors normalised to [0, 1] are.
    """
    B = rng.standard_normal((q, d))
    B /= np.linalg.norm(B, axis=0)
    raw = np.sqrt(1 - noise) * (rng.standard_normal((n, q)) @ B) + np.sqrt(noise) * rng.standard_normal((n, d))
    gain = rng.uniform(0.5, 3.0, size=d)
    centre = rng.uniform(-1.0, 1.0, size=d)
    return expit(gain * (raw - centre))


def _dense_sparse_weights(rng, d: int, m: int, density: float) -> np.ndarray:
    """(d, m) label weights, each label on ``round(density * d)`` random features (at least 1)."""
    per = max(1, int(round(density * d)))
    W = np.zeros((d, m))
    rows = np.argsort(rng.random((m, d)), axis=1)[:, :per]
    W[rows.ravel(), np.repeat(np.arange(m), per)] = rng.standard_normal(m * per)
    return W


def _tfidf(rng, n: int, d: int, words: float) -> sp.csr_matrix:
    """n unit-norm tf-idf rows over d Zipf-distributed terms, about ``words`` words drawn per row."""
    lens = 1 + rng.poisson(words - 1, size=n)
    prob = 1.0 / np.arange(1, d + 1)
    terms = rng.choice(d, size=int(lens.sum()), p=prob / prob.sum())
    key = np.repeat(np.arange(n, dtype=np.int64), lens) * d + terms
    pairs, tf = np.unique(key, return_counts=True)  # (row, term) with its term frequency
    rows, cols = pairs // d, pairs % d
    df = np.bincount(cols, minlength=d)
    val = (1.0 + np.log(tf)) * (np.log((1.0 + n) / (1.0 + df[cols])) + 1.0)
    val /= np.sqrt(np.bincount(rows, weights=val**2, minlength=n))[rows]
    return sp.csr_matrix((val, (rows, cols)), shape=(n, d))


def _sparse_weights(rng, d: int, m: int, density: float) -> sp.csr_matrix:
    """(d, m) label weights: each label weighs ``round(density * d)`` random terms, N(0, 1 / density)."""
    per = max(1, int(round(density * d)))
    rows = np.argsort(rng.random((m, d)), axis=1)[:, :per].ravel()  # each label's terms
    cols = np.repeat(np.arange(m), per)
    vals = rng.standard_normal(m * per) / np.sqrt(per / d)
    return sp.csr_matrix((vals, (rows, cols)), shape=(d, m))


def _cap(scores: np.ndarray, Y: np.ndarray, max_labels: int) -> np.ndarray:
    """Y with each row's labels beyond ``max_labels`` dropped, keeping those of highest score."""
    over = np.flatnonzero(Y.sum(axis=1) > max_labels)
    if over.size:
        s = np.where(Y[over] == 1, scores[over], -np.inf)
        keep = np.argsort(-s, axis=1, kind="stable")[:, :max_labels]
        rows = np.zeros((over.size, Y.shape[1]), dtype=Y.dtype)
        np.put_along_axis(rows, keep, 1, axis=1)
        Y[over] = rows
    return Y


def _frequencies(m: int, skew: float, cardinality: float, top: float = 0.99) -> np.ndarray:
    """Label frequencies ``min(top, a * rank^-skew)`` summing to ``cardinality`` (label 0 first)."""
    shape = np.arange(1, m + 1, dtype=float) ** -skew
    lo, hi = 0.0, cardinality / shape[-1] + 1.0
    for _ in range(100):
        a = 0.5 * (lo + hi)
        lo, hi = (a, hi) if np.minimum(top, a * shape).sum() < cardinality else (lo, a)
    return np.minimum(top, 0.5 * (lo + hi) * shape)


def generate(name: str, entry: dict) -> Dataset:
    """The synthetic dataset of catalog entry ``entry`` (same entry, same arrays, bit for bit).

    Examples
    --------
    >>> ds = generate("toy", {"n_train": 200, "n_test": 100, "d": 5, "m": 8, "cardinality": 2.0,
    ...                       "max_labels": 4, "seed": 0})
    >>> ds.X_train.shape, ds.Y_test.shape, int(ds.Y_train.sum(axis=1).max()) <= 4
    ((200, 5), (100, 8), True)
    """
    p = check_entry(name, entry)
    n_train, n_test, d, m, k = (int(p[key]) for key in ("n_train", "n_test", "d", "m", "n_factors"))
    n = n_train + n_test
    rng = np.random.default_rng(p["seed"])
    if p["features"] == "dense":
        X = rng.standard_normal((n, d))
        W = rng.standard_normal((d, m)) / np.sqrt(d)
    elif p["features"] == "factors":
        X = _factor_features(rng, n, d, int(p["feature_factors"]), float(p["feature_noise"]))
        W = _dense_sparse_weights(rng, d, m, float(p["weight_density"]))
    else:
        X = _tfidf(rng, n, d, float(p["words_per_row"]))
        W = _sparse_weights(rng, d, m, float(p["weight_density"]))
    H = rng.standard_normal((n, k))
    V = rng.standard_normal((k, m)) / np.sqrt(k)
    U = rng.random((n, m))
    rho = float(p["dependence"])
    if p["features"] == "factors":
        # x . w_j on standardised features, rescaled to unit variance (the features are correlated)
        linear = ((X - X.mean(axis=0)) / X.std(axis=0)) @ W
        linear /= np.maximum(linear.std(axis=0), 1e-12)
    else:
        linear = X @ (W.toarray() if sp.issparse(W) else W)
    scores = p["signal"] * (np.sqrt(1 - rho) * linear + np.sqrt(rho) * (H @ V))
    del linear
    del H
    target = _frequencies(m, float(p["skew"]), float(p["cardinality"]))
    # Per-label offsets so that each label's mean probability is its target frequency.
    lo, hi = np.full(m, -40.0), np.full(m, 40.0)
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        low = expit(scores + mid).mean(axis=0) < target
        lo, hi = np.where(low, mid, lo), np.where(low, hi, mid)
    scores += 0.5 * (lo + hi)

    def draw(shift: float) -> np.ndarray:
        Y = (U < expit(scores + shift)).astype(np.int8)
        return _cap(scores, Y, p["max_labels"])

    # The cap and sampling move the mean label count: one shift of every score, found by
    # bisection on the realised data (the count grows with the shift), restores it.
    lo, hi = -40.0, 40.0
    total = float(p["cardinality"]) * n
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if draw(mid).sum() < total:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    Y = draw(hi if abs(draw(hi).sum() - total) <= abs(draw(lo).sum() - total) else lo)
    return Dataset(
        name,
        X[:n_train],
        Y[:n_train],
        X[n_train:],
        Y[n_train:],
        [f"L{j}" for j in range(m)],
        [f"x{j}" for j in range(d)],
        d,
    )
