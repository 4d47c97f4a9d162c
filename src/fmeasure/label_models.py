"""The label models of Section 6 of Waegeman et al. (2014): data models over labels, their exact
summaries and Bayes-optimal references, and scoring from test-sample statistics.

Two data models over ``m`` labels (no features): label independence with logistic marginals, and a
chain model with strong label dependence. For each model, training samples of several sizes are
drawn; the four inference methods of Section 6 (MM, JM, FM, GFM) estimate their parameters from a
training sample by counting (``fmeasure.estimation``) and output one prediction ``h`` each
(``fmeasure.inference``); every prediction is scored on one large test sample. That protocol,
which reads the config block, runs in ``fmeasure.experiments.simulations.run_model``; this
module holds the models and the scoring it uses.

What makes it fast:

* Evaluation is done from sufficient statistics of the test sample, not row by row: the mean
  F-measure of ``h`` with ``k = |h| > 0`` labels is ``sum_i h_i Delta_test[i, k]`` (Theorem 5.1,
  with Delta estimated on the test sample) and ``P_test(y = 0)`` for ``h = 0``; the Hamming loss
  follows from the test marginals; the subset 0/1 loss from the test count of ``h``; the Jaccard
  index from one batched matrix product between the distinct predictions and the distinct test rows.
  Duplicate predictions (frequent: at large training sizes all 50 repetitions agree) are scored once.
* The Bayes-optimal reference for the chain model is exact: the probabilities of all ``2**m``
  label vectors are built by doubling (label ``i`` is bit ``i`` of the index) and reduced to the
  matrix ``P[i, s] = P(y_i = 1, s_y = s)`` by two matrix products over a split of the index bits.

Randomness: every random stream is derived from ``(seed, data model, model index, purpose, size
index)`` through :class:`numpy.random.SeedSequence`, so the results do not depend on how the models
are split over Snakemake jobs.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from fmeasure import estimation, inference
from fmeasure._arrays import label_vectors, row_codes
from fmeasure.metrics import MEASURE_SIGN  # noqa: F401 (re-exported)

log = logging.getLogger(__name__)

DATA_MODELS = ("independent", "chain")
#: Method names as tables and figures print them; config may spell them in either case.
METHODS = tuple(inference.METHOD_LABELS[k] for k in inference.SAMPLE_METHODS)
SCALE_KINDS = ("variance", "std")

_DATA_MODEL_ID = {"independent": 1, "chain": 2}
_PURPOSE_ID = {"weights": 1, "test": 2, "train": 3, "timing": 4}
_MAX_EXACT_LABELS = 26


# --------------------------------------------------------------------------------------------------
# seeds


def stream(seed: int, data_model: str, model: int, purpose: str, index: int = 0) -> np.random.Generator:
    """Independent random generator for one (data model, model index, purpose, index).

    Parameters
    ----------
    seed : int
        The experiment seed (config ``simulations.seed``).
    data_model : {"independent", "chain"}
        Data model.
    model : int
        Model index (0-based).
    purpose : {"weights", "test", "train", "timing"}
        What the stream is for.
    index : int, default 0
        Further index, e.g. the position of the training size.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> a = stream(1, "chain", 0, "test").random()
    >>> a == stream(1, "chain", 0, "test").random()
    True
    """
    check_data_model(data_model)
    if purpose not in _PURPOSE_ID:
        raise ValueError(f"purpose: expected one of {sorted(_PURPOSE_ID)}, got {purpose!r}")
    ss = np.random.SeedSequence([int(seed), _DATA_MODEL_ID[data_model], int(model), _PURPOSE_ID[purpose], int(index)])
    return np.random.default_rng(ss)


def check_data_model(data_model: str) -> None:
    """Raise ``ValueError`` unless ``data_model`` is one of ``DATA_MODELS`` (``"independent"``, ``"chain"``)."""
    if data_model not in DATA_MODELS:
        raise ValueError(f"data_model: expected one of {DATA_MODELS}, got {data_model!r}")


def normal_std(scale: float, scale_is: str) -> float:
    """Standard deviation of ``N(mean, scale)`` given whether ``scale`` is a variance or a std.

    Examples
    --------
    >>> normal_std(4.0, "variance"), normal_std(4.0, "std")
    (2.0, 4.0)
    """
    if scale_is not in SCALE_KINDS:
        raise ValueError(f"scale_is: expected one of {SCALE_KINDS}, got {scale_is!r}")
    if not scale > 0:
        raise ValueError(f"scale: must be > 0, got {scale!r}")
    return float(math.sqrt(scale)) if scale_is == "variance" else float(scale)


# --------------------------------------------------------------------------------------------------
# data models


@dataclass(frozen=True)
class ExactSummary:
    """What the Bayes-optimal references need from a joint distribution over ``{0,1}^m``.

    Attributes
    ----------
    P : ndarray (m, m)
        ``P[i, s - 1] = P(y_i = 1, s_y = s)``.
    p_zero : float
        ``P(y = 0)``.
    marginals : ndarray (m,)
        ``P(y_i = 1)``.
    mode : ndarray (m,) int8
        The joint mode.
    mode_prob : float
        Its probability.
    """

    P: np.ndarray
    p_zero: float
    marginals: np.ndarray
    mode: np.ndarray
    mode_prob: float


@dataclass(frozen=True)
class IndependentModel:
    """Labels independent with ``P(y_i = 1) = 1 / (1 + exp(-w_i))`` (Section 6.1).

    Examples
    --------
    >>> model = IndependentModel(np.array([0.0, 10.0]))
    >>> model.sample(3, np.random.default_rng(0))[:, 1].tolist()
    [1, 1, 1]
    """

    w: np.ndarray

    @property
    def n_labels(self) -> int:
        return int(self.w.shape[0])

    @property
    def marginals(self) -> np.ndarray:
        return expit(self.w)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``n`` label vectors, an int8 array (n, m)."""
        return (rng.random((int(n), self.n_labels)) < self.marginals).astype(np.int8)

    def prob(self, Y: np.ndarray) -> np.ndarray:
        """Exact probability of each row of ``Y`` (n, m)."""
        p = self.marginals
        Y = np.asarray(Y)
        return np.prod(np.where(Y == 1, p, 1.0 - p), axis=1)

    def summary(self) -> ExactSummary:
        """Exact marginals and joint mode (P is left empty: under independence FM is exact)."""
        p = self.marginals
        mode = (p > 0.5).astype(np.int8)
        return ExactSummary(
            P=np.empty((0, 0)),
            p_zero=float(np.prod(1.0 - p)),
            marginals=p,
            mode=mode,
            mode_prob=float(np.prod(np.maximum(p, 1.0 - p))),
        )


@dataclass(frozen=True)
class ChainModel:
    """Chain-rule model with strong label dependence (Section 6.2).

    ``P(y_i = 1 | y_1..y_{i-1}) = 1 / (1 + exp(-sum_{j<i} 2 W[i, j] (y_j - 1/2) - w0[i]))``.
    Only the strictly lower triangle of ``W`` is used.

    Examples
    --------
    >>> model = ChainModel(np.array([[0.0, 0.0], [5.0, 0.0]]), np.array([0.0, 0.0]))
    >>> float(model.prob(np.array([[1, 1]]))[0]) > 0.49
    True
    """

    W: np.ndarray
    w0: np.ndarray

    @property
    def n_labels(self) -> int:
        return int(self.w0.shape[0])

    def _coef(self) -> tuple[np.ndarray, np.ndarray]:
        # logit_i = base_i + sum_{j<i} C[i, j] y_j with C = 2 W (lower part), base = w0 - sum_{j<i} W[i, j]
        C = 2.0 * np.tril(self.W, k=-1)
        base = self.w0 - np.tril(self.W, k=-1).sum(axis=1)
        return C, base

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``n`` label vectors by the chain rule, an int8 array (n, m)."""
        n, m = int(n), self.n_labels
        C, base = self._coef()
        Yf = np.zeros((n, m), order="F")  # column-major: Yf[:, :i] is one contiguous block
        for i in range(m):
            logit = Yf[:, :i] @ C[i, :i] + base[i] if i else np.full(n, base[i])
            Yf[:, i] = rng.random(n) < expit(logit)
        return Yf.astype(np.int8)

    def prob(self, Y: np.ndarray) -> np.ndarray:
        """Exact probability of each row of ``Y`` (n, m), by the chain rule."""
        C, base = self._coef()
        Yf = np.asarray(Y, dtype=float)
        logits = base[None, :] + Yf @ C.T
        return np.prod(np.where(Yf == 1, expit(logits), expit(-logits)), axis=1)

    def all_probs(self, chunk: int = 1 << 20) -> np.ndarray:
        """Probabilities of all ``2**m`` label vectors; label ``i`` is bit ``i`` of the index.

        Built by doubling: after step ``i`` the first ``2**(i+1)`` entries hold the probabilities of
        the prefixes ``y_1..y_{i+1}``; the logits of label ``i`` over all ``2**i`` prefixes are
        built by doubling too. Work and memory are O(2**m); m <= 26 is enforced.
        """
        m = self.n_labels
        if m > _MAX_EXACT_LABELS:
            raise ValueError(f"n_labels: exact enumeration supports m <= {_MAX_EXACT_LABELS}, got {m}")
        C, base = self._coef()
        probs = np.empty(1 << m)
        probs[0] = 1.0
        logits = np.empty(1 << max(m - 1, 0))
        for i in range(m):
            half = 1 << i
            logits[0] = base[i]
            for j in range(i):
                logits[1 << j : 1 << (j + 1)] = logits[: 1 << j] + C[i, j]
            for lo in range(0, half, chunk):
                hi = min(half, lo + chunk)
                # p(prefix, y_i = 1) = p(prefix) q; p(prefix, y_i = 0) = p(prefix) - p(prefix) q
                # (absolute error <= eps * p(prefix): harmless for the sums we take)
                np.multiply(probs[lo:hi], expit(logits[lo:hi]), out=probs[half + lo : half + hi])
                probs[lo:hi] -= probs[half + lo : half + hi]
        return probs

    def summary(self) -> ExactSummary:
        """Exact P matrix, P(y = 0), marginals and joint mode from all ``2**m`` vectors."""
        return summarize_probs(self.all_probs(), self.n_labels)


def _popcount(n_bits: int) -> np.ndarray:
    return label_vectors(n_bits, first="lsb").sum(axis=1, dtype=np.int64)


def _bits(n_bits: int) -> np.ndarray:
    return label_vectors(n_bits, first="lsb").astype(float)


def summarize_probs(probs: np.ndarray, m: int) -> ExactSummary:
    """Reduce the probabilities of all ``2**m`` label vectors (label i = bit i) to an ExactSummary.

    ``P[i, s] = sum_y P(y) y_i [s_y = s]`` is computed without touching each vector ``m`` times:
    the index is split into high bits (rows) and low bits (columns) of a matrix ``Q``; one-hot
    encodings of the popcounts of each half turn the sums into two small matrix products.

    Examples
    --------
    >>> s = summarize_probs(np.array([0.1, 0.2, 0.3, 0.4]), 2)   # P(00), P(10), P(01), P(11)
    >>> s.P.round(2).tolist(), s.p_zero, s.mode.tolist()
    ([[0.2, 0.4], [0.3, 0.4]], 0.1, [1, 1])
    """
    probs = np.asarray(probs, dtype=float)
    if probs.shape != (1 << m,):
        raise ValueError(f"probs: expected shape ({1 << m},) for m={m}, got {probs.shape}")
    lb = (m + 1) // 2
    hb = m - lb
    Q = probs.reshape(1 << hb, 1 << lb)  # Q[hi, lo]
    pc_lo, pc_hi = _popcount(lb), _popcount(hb)
    A_lo = np.eye(lb + 1)[pc_lo]  # (2^lb, lb+1) one-hot of popcount
    A_hi = np.eye(hb + 1)[pc_hi]
    bits_lo, bits_hi = _bits(lb), _bits(hb)
    P = np.zeros((m, m + 1))  # columns s = 0..m
    # low labels: M[a, lo] = sum_{hi: pc(hi) = a} Q[hi, lo]; N[a, i, c] = sum_lo M[a, lo] bit_i(lo) [pc(lo) = c]
    M = A_hi.T @ Q
    N = np.einsum("al,li,lc->aic", M, bits_lo, A_lo, optimize=True)
    # high labels: M2[hi, c] = sum_{lo: pc(lo) = c} Q[hi, lo]; N2[i, a, c] = sum_hi bit_i(hi) [pc(hi) = a] M2[hi, c]
    M2 = Q @ A_lo
    N2 = np.einsum("hi,ha,hc->iac", bits_hi, A_hi, M2, optimize=True)
    for a in range(hb + 1):
        for c in range(lb + 1):
            P[:lb, a + c] += N[a, :, c]
            P[lb:, a + c] += N2[:, a, c]
    top = int(np.argmax(probs))
    mode = ((top >> np.arange(m)) & 1).astype(np.int8)
    return ExactSummary(
        P=P[:, 1:],
        p_zero=float(probs[0]),
        marginals=P.sum(axis=1),
        mode=mode,
        mode_prob=float(probs[top]),
    )


def draw_model(
    data_model: str,
    n_labels: int,
    rng: np.random.Generator,
    *,
    weight_mean: float,
    bias_mean: float = 0.0,
    scale: float,
    scale_is: str,
) -> IndependentModel | ChainModel:
    """Draw one model (one set of weights) of the given data model.

    Independent: ``w_i ~ N(weight_mean, scale)``. Chain: ``w_ij ~ N(weight_mean, scale)`` for
    ``j < i`` and ``w_i0 ~ N(bias_mean, scale)``. ``scale`` is a variance or a standard deviation
    according to ``scale_is``.

    Examples
    --------
    >>> draw_model("independent", 3, np.random.default_rng(0), weight_mean=0.0, scale=3.0,
    ...            scale_is="variance").n_labels
    3
    """
    check_data_model(data_model)
    if n_labels < 1:
        raise ValueError(f"n_labels: must be >= 1, got {n_labels}")
    sd = normal_std(scale, scale_is)
    if data_model == "independent":
        return IndependentModel(rng.normal(weight_mean, sd, size=n_labels))
    W = np.tril(rng.normal(weight_mean, sd, size=(n_labels, n_labels)), k=-1)
    w0 = rng.normal(bias_mean, sd, size=n_labels)
    return ChainModel(W, w0)


# --------------------------------------------------------------------------------------------------
# evaluation from sufficient statistics


@dataclass
class TestStatistics:
    """Sufficient statistics of a test sample for scoring predictions with the four measures.

    Build with :meth:`from_sample`; score with :meth:`evaluate`.

    Examples
    --------
    >>> Y = np.array([[1, 0], [1, 1], [0, 0]], dtype=np.int8)
    >>> ts = TestStatistics.from_sample(Y)
    >>> {k: round(float(v[0]), 4) for k, v in ts.evaluate(np.array([[1, 0]])).items()}
    {'hamming': 0.3333, 'subset01': 0.6667, 'f': 0.5556, 'jaccard': 0.5}
    """

    n: int
    marginals: np.ndarray
    delta: np.ndarray
    p_zero: float
    codes: np.ndarray  # sorted distinct row codes
    counts: np.ndarray  # their counts
    rows: np.ndarray = field(repr=False)  # distinct rows, float32 (n_u, m)
    sizes: np.ndarray = field(repr=False)  # their label counts
    jaccard_empty: float = 1.0

    @classmethod
    def from_sample(cls, Y: np.ndarray, *, jaccard_empty: float = 1.0) -> TestStatistics:
        """Compute the statistics of a test sample ``Y`` (n, m) of 0/1 values."""
        Y = np.asarray(Y)
        if Y.ndim != 2 or Y.shape[0] == 0 or Y.shape[1] == 0:
            raise ValueError(f"Y: expected a non-empty (n, m) array, got shape {Y.shape}")
        Y = Y.astype(np.int8, copy=False)
        codes, first, counts = np.unique(row_codes(Y), return_index=True, return_counts=True)
        rows = Y[first]
        delta, p_zero = estimation.delta_matrix(Y)
        return cls(
            n=int(Y.shape[0]),
            marginals=Y.mean(axis=0, dtype=float),
            delta=np.asarray(delta, dtype=float),
            p_zero=float(p_zero),
            codes=codes,
            counts=counts,
            rows=rows.astype(np.float32),
            sizes=rows.sum(axis=1, dtype=np.int64),
            jaccard_empty=float(jaccard_empty),
        )

    def evaluate(self, H: np.ndarray, *, chunk_elements: int = 1 << 24) -> dict[str, np.ndarray]:
        """Mean Hamming loss, subset 0/1 loss, F-measure and Jaccard index of each prediction.

        Parameters
        ----------
        H : ndarray (n_h, m)
            Predictions, 0/1.
        chunk_elements : int
            Bound on the size of the (predictions x distinct test rows) block of the Jaccard product.

        Returns
        -------
        dict of measure name -> ndarray (n_h,)
        """
        H = np.atleast_2d(np.asarray(H))
        m = self.marginals.shape[0]
        if H.shape[1] != m:
            raise ValueError(f"H: expected {m} columns, got shape {H.shape}")
        codes = row_codes(H)
        ucodes, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        Hu = H[first].astype(np.int64)
        k = Hu.sum(axis=1)
        p = self.marginals
        hamming = (Hu * (1.0 - p) + (1 - Hu) * p).mean(axis=1)
        pos = np.searchsorted(self.codes, ucodes).clip(max=len(self.codes) - 1)
        hits = np.where(self.codes[pos] == ucodes, self.counts[pos], 0)
        subset = 1.0 - hits / self.n
        kcol = np.maximum(k, 1) - 1
        f = np.where(k > 0, (Hu * self.delta[:, kcol].T).sum(axis=1), self.p_zero)
        # Jaccard: |y & h| / |y | h| = a / (s + k - a); for k > 0 the union is >= k > 0, so only
        # the empty prediction needs the empty/empty convention (float32 is exact for these integers).
        jac = np.empty(len(Hu))
        w = (self.counts / self.n).astype(np.float32)
        sizes = self.sizes.astype(np.float32)
        nz = np.flatnonzero(k > 0)
        jac[k == 0] = self.jaccard_empty * self.p_zero
        step = max(1, chunk_elements // max(1, len(self.codes)))
        for lo in range(0, len(nz), step):
            idx = nz[lo : lo + step]
            inter = Hu[idx].astype(np.float32) @ self.rows.T
            union = sizes[None, :] + k[idx, None].astype(np.float32) - inter
            np.divide(inter, union, out=inter)
            jac[idx] = (inter @ w).astype(float)
        out = {"hamming": hamming, "subset01": subset, "f": f, "jaccard": jac}
        return {name: vals[inverse] for name, vals in out.items()}


# --------------------------------------------------------------------------------------------------
# methods


def method_keys(methods) -> list[str]:
    """The inference methods of ``methods`` (any case: ``"GFM"`` or ``"gfm"``) as lower-case keys.

    Examples
    --------
    >>> method_keys(["MM", "gfm"])
    ['mm', 'gfm']
    """
    keys = [str(k).lower() for k in methods]
    bad = [k for k, low in zip(methods, keys) if low not in inference.SAMPLE_METHODS]
    if bad:
        raise ValueError(f"methods: unknown {bad}; expected a subset of {list(METHODS)}")
    return keys


def bayes_predictions(model: IndependentModel | ChainModel) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Bayes-optimal predictions and their exact (population) risks for Hamming, subset 0/1 and F.

    Returns
    -------
    predictions : dict measure -> int8 ndarray (m,)
        True marginal modes (Hamming), true joint mode (subset 0/1), true F-maximizer (F).
    values : dict measure -> float
        Exact expected measure of those predictions under the model. Jaccard has no exact
        reference (no efficient Jaccard maximizer exists) and is omitted.
    """
    s = model.summary()
    if isinstance(model, IndependentModel):
        h_f, v_f = inference.fm(s.marginals)
    else:
        h_f, v_f = inference.gfm_from_p(s.P, s.p_zero)
    preds = {
        "hamming": (s.marginals > 0.5).astype(np.int8),
        "subset01": s.mode,
        "f": np.asarray(h_f, dtype=np.int8).ravel(),
    }
    values = {
        "hamming": float(np.minimum(s.marginals, 1.0 - s.marginals).mean()),
        "subset01": 1.0 - s.mode_prob,
        "f": float(np.asarray(v_f).ravel()[0]),
    }
    return preds, values
