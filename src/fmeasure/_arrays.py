"""Input validation, batching and small numeric helpers shared by :mod:`fmeasure.inference` and
:mod:`fmeasure.estimation` (private: neither imports the other's private names, both import these)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: absolute tolerance when checking that probabilities lie in [0, 1] and masses do not exceed 1
TOL = 1e-8
#: Expected F-values closer than this are ties: the earlier candidate (the smaller prediction)
#: wins, so that exact ties are not settled by floating-point round-off.
TIE_TOL = 1e-12
#: target size (bytes) of the largest temporary array a chunk may allocate (keeps every call < ~1 GB)
CHUNK_BYTES = 64 * 2**20


def as_float(x, name, ndims, check_finite=True):
    """Convert ``x`` to a float64 array with ``x.ndim in ndims``; reject NaN/inf and sparse.

    With ``check_finite=False`` numeric arrays keep their dtype (the caller converts and checks
    them chunk by chunk, so that a large float32 input is never copied whole).
    """
    if sp.issparse(x):
        raise ValueError(f"{name}: sparse input is not supported here, pass a dense array")
    try:
        a = np.asarray(x)
        if a.dtype.kind not in "fiub" or (check_finite and a.dtype != np.float64):
            a = a.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot convert to a float array ({exc})") from None
    if a.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name}: expected a {want} array, got shape {a.shape}")
    if a.ndim >= 1 and a.shape[-1] == 0:
        raise ValueError(f"{name}: empty input (m = 0 labels), got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name}: empty input (no rows), got shape {a.shape}")
    if check_finite and not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return a


def check_unit(a, name, what="probabilities"):
    """Check ``0 <= a <= 1`` (up to TOL) and clip tiny excursions."""
    lo, hi = a.min(), a.max()
    if lo < -TOL or hi > 1 + TOL:
        raise ValueError(f"{name}: {what} must lie in [0, 1], got values in [{lo:.6g}, {hi:.6g}]")
    return np.clip(a, 0.0, 1.0) if lo < 0 or hi > 1 else a


def p_zero_vector(p_zero, n, single):
    """Validate ``p_zero`` (scalar, or (n,) for a batch) and return an (n,) float array."""
    pz = as_float(p_zero, "p_zero", (0, 1)) if np.ndim(p_zero) else None
    if pz is None:
        try:
            pz = np.asarray(float(p_zero), dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"p_zero: expected a number, got {p_zero!r}") from None
        if not np.isfinite(pz):
            raise ValueError("p_zero: is NaN or infinite")
    if pz.ndim == 1:
        if single:
            raise ValueError(f"p_zero: expected a scalar for a single instance, got shape {pz.shape}")
        if pz.shape[0] != n:
            raise ValueError(f"p_zero: expected shape ({n},), got {pz.shape}")
    pz = check_unit(np.broadcast_to(pz, (n,)).astype(np.float64), "p_zero", "P(y = 0)")
    return pz


def marginals_input(p, name="p"):
    """Validate marginals: (m,) or (n, m) in [0, 1]. Returns ((n, m) array, single)."""
    a = as_float(p, name, (1, 2))
    single = a.ndim == 1
    a = check_unit(a, name)
    return (a[None, :] if single else a), single


def binary_input(Y, name, ndims):
    """Dense {0,1} array (sparse densified) as int8; checks values."""
    if sp.issparse(Y):
        Y = Y.toarray()
    a = np.asarray(Y)
    if a.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name}: expected a {want} array, got shape {a.shape}")
    if a.shape[-1] == 0:
        raise ValueError(f"{name}: m = 0 labels (shape {a.shape})")
    if a.dtype != np.int8 or a.size and (a.min() < 0 or a.max() > 1):
        if a.size and not np.all((a == 0) | (a == 1)):
            raise ValueError(f"{name}: values must be 0 or 1")
        a = a.astype(np.int8)
    return a


def support_input(support, probs):
    """Validate a distribution given by support vectors and probabilities.

    ``support`` (r, m) with ``probs`` (r,), or a batch (n, r, m) with (n, r). Probabilities
    must be in [0, 1] and sum to 1 (within 1e-6) per instance. Returns (Y int8 (n, r, m),
    probs (n, r), single).
    """
    Y = binary_input(support, "support", (2, 3))
    single = Y.ndim == 2
    if single:
        Y = Y[None]
    pr = as_float(probs, "probs", (1, 2))
    if single and pr.ndim != 1 or not single and pr.ndim != 2:
        raise ValueError(f"probs: expected shape {Y.shape[:-1] if not single else Y.shape[1:2]}, got {pr.shape}")
    if single:
        pr = pr[None]
    if pr.shape != Y.shape[:2]:
        raise ValueError(
            f"probs: shape {pr.shape if not single else pr.shape[1:]} does not match the {Y.shape[1]} support vectors"
        )
    pr = check_unit(pr, "probs")
    tot = pr.sum(axis=1)
    bad = np.abs(tot - 1.0) > 1e-6
    if bad.any():
        raise ValueError(f"probs: must sum to 1 per instance, got {tot[bad][0]:.9g}")
    return Y, pr, single


def chunks(n, bytes_per_item, budget=CHUNK_BYTES):
    """Yield slices covering range(n) with about ``budget`` bytes of work memory each."""
    step = max(1, int(budget // max(1, bytes_per_item)))
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def w_matrix(smax, kmax, s0=1):
    """W[s, k] = 2 / (s + k) for s = s0..smax (rows) and k = 1..kmax (columns)."""
    s = np.arange(s0, smax + 1, dtype=np.float64)[:, None]
    k = np.arange(1, kmax + 1, dtype=np.float64)[None, :]
    return 2.0 / (s + k)


def out(h, value, single):
    """Return (h int8, value) as (m,), float for one instance or (n, m), (n,) for a batch."""
    h = h.astype(np.int8, copy=False)
    if single:
        return h[0], float(value[0])
    return h, np.asarray(value, dtype=np.float64)


def first_max(vals, tol=TIE_TOL):
    """Index of the first entry of each row within ``tol`` of the row's maximum.

    Candidates are ordered by preference (the empty prediction, then growing sizes), so among
    (numerically) tied expected F-values the earlier one wins deterministically.

    >>> first_max(np.array([[0.5, 0.5 + 1e-15, 0.2]]))
    array([0])
    """
    vals = np.asarray(vals)
    best = vals.max(axis=-1, keepdims=True)
    return np.argmax(vals >= best - tol, axis=-1)


def _matrix_batch(x, name):
    """A float (n, a, b) batch from one (a, b) matrix or a batch; returns (batch, single)."""
    A = as_float(x, name, (2, 3), check_finite=False)
    single = A.ndim == 2
    return (A[None] if single else A), single


def square_batch(x, name, what=""):
    """A float (n, m, m) batch from one (m, m) matrix or a batch; returns (batch, single).

    Raises a ValueError naming ``name`` if the matrices are not square.
    """
    A, single = _matrix_batch(x, name)
    if A.shape[1] != A.shape[2]:
        raise ValueError(f"{name}: expected square (m, m) matrices{what}, got shape {A.shape[-2:]}")
    return A, single


def count_batch(x, name, what=""):
    """A float (n, m, S) batch of P matrices (rows labels, columns counts s = 1..S, 1 <= S <= m)
    from one (m, S) matrix or a batch; returns (batch, single).

    Raises a ValueError naming ``name`` if a matrix has more count columns than label rows.
    """
    A, single = _matrix_batch(x, name)
    if A.shape[2] > A.shape[1] or (A.shape[1] > 0 and A.shape[2] == 0):
        raise ValueError(f"{name}: expected (m, S) matrices with 1 <= S <= m{what}, got shape {A.shape[-2:]}")
    return A, single


# ---- label samples (shared by fmeasure.estimation and fmeasure.inference.gfm_from_samples)


def sample_input(Y, weights):
    """Normalise input. Returns (Y, w, single, sparse): Y dense (n, S, m) int8 or CSR (S, m)."""
    if sp.issparse(Y):
        Yc = sp.csr_array(Y)
        if Yc.ndim != 2:
            raise ValueError(f"Y: a sparse sample must be 2-D (n_samples, m), got shape {Yc.shape}")
        Yc.sum_duplicates()
        if Yc.data.size and not np.all(Yc.data == 1):
            if not np.all((Yc.data == 0) | (Yc.data == 1)):
                raise ValueError("Y: values must be 0 or 1")
            Yc.eliminate_zeros()
        single, sparse = True, True
        S, m = Yc.shape
        Y = Yc
    else:
        a = np.asarray(Y)
        if a.ndim not in (2, 3):
            raise ValueError(f"Y: expected shape (n_samples, m) or (n, n_samples, m), got {a.shape}")
        if a.dtype != np.int8 and a.dtype != np.bool_:
            if a.size and not np.all((a == 0) | (a == 1)):
                raise ValueError("Y: values must be 0 or 1")
        elif a.dtype == np.int8 and a.size and (a.min() < 0 or a.max() > 1):
            raise ValueError("Y: values must be 0 or 1")
        single, sparse = a.ndim == 2, False
        Y = (a[None] if single else a).astype(np.int8, copy=False)
        S, m = Y.shape[1:]
    if m == 0:
        raise ValueError("Y: m = 0 labels")
    if S == 0:
        raise ValueError("Y: the sample is empty (n_samples = 0)")
    n = 1 if single else Y.shape[0]
    if weights is None:
        w = np.full((n, S), 1.0 / S)
    else:
        w = np.asarray(weights, dtype=np.float64)
        want = (S,) if single else (n, S)
        if w.shape != want:
            raise ValueError(f"weights: expected shape {want}, got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("weights: contains NaN or infinite values")
        if w.size and w.min() < 0:
            raise ValueError(f"weights: must be non-negative, got minimum {w.min():.6g}")
        w = w.reshape(n, S)
        tot = w.sum(axis=1, keepdims=True)
        if np.any(tot <= 0):
            raise ValueError("weights: sum to 0 for an instance")
        w = w / tot
    return Y, w, single, sparse


def row_counts(Y, sparse):
    """Number of relevant labels of every sample row: (n, n_samples) int64 (n = 1 for sparse)."""
    if sparse:
        return np.asarray(Y.sum(axis=1)).ravel()[None].astype(np.int64)
    return Y.sum(axis=2, dtype=np.int64)


def p_counts(Y, w, sparse, smax=None):
    """P with columns s = 1..smax (default: the largest count in the sample): (n, m, smax)."""
    s = row_counts(Y, sparse)
    n, S = s.shape
    m = Y.shape[-1]
    top = max(1, int(s.max()))  # columns above the largest count are zero
    smax = top if smax is None else smax
    out = np.zeros((n, m, smax))
    if sparse:
        rows = np.repeat(np.arange(S), np.diff(Y.indptr))
        idx = Y.indices * top + (s[0, rows] - 1)
        out[0, :, :top] = np.bincount(idx, weights=w[0, rows], minlength=m * top).reshape(m, top)
        return out
    # P[i, s] = sum_j w_j y_ji [s_j = s]: a batched product of the samples with the weighted
    # one-hot matrix of their counts (faster than scattering the nonzeros with bincount).
    for sl in chunks(n, S * (m + top) * 16):
        onehot = np.zeros((sl.stop - sl.start, S, top))
        np.put_along_axis(onehot, np.maximum(s[sl] - 1, 0)[:, :, None], (w[sl] * (s[sl] > 0))[:, :, None], axis=2)
        out[sl, :, :top] = np.matmul(Y[sl].transpose(0, 2, 1).astype(np.float64), onehot)
    return out


def label_vectors(m: int, *, first: str = "msb") -> np.ndarray:
    """All 2^m label vectors as an int8 (2^m, m) array; row k is the binary digits of k.

    ``first="msb"``: label 0 is the most significant bit (lexicographic order, as the paper lists
    {0,1}^m); ``"lsb"``: label i is bit i of the row index (k = :func:`row_codes` of row k).

    Examples
    --------
    >>> label_vectors(2).tolist(), label_vectors(2, first="lsb").tolist()
    ([[0, 0], [0, 1], [1, 0], [1, 1]], [[0, 0], [1, 0], [0, 1], [1, 1]])
    """
    if first not in ("msb", "lsb"):
        raise ValueError(f"first must be 'msb' or 'lsb', got {first!r}")
    k = np.arange(2**m, dtype=np.int64)
    shifts = np.arange(m, dtype=np.int64)
    if first == "msb":
        shifts = shifts[::-1]
    return ((k[:, None] >> shifts[None, :]) & 1).astype(np.int8)


def row_codes(Y) -> np.ndarray:
    """The integer code sum_i y_i 2^i of each 0/1 label vector (the last axis of ``Y``), int64;
    the inverse of ``label_vectors(m, first="lsb")``.

    Examples
    --------
    >>> row_codes([[1, 0, 1], [0, 1, 0]]).tolist()
    [5, 2]
    """
    Y = np.asarray(Y)
    if Y.shape[-1] > 62:
        raise ValueError(f"Y: row codes support m <= 62 labels, got {Y.shape[-1]}")
    return Y.astype(np.int64) @ (1 << np.arange(Y.shape[-1], dtype=np.int64))
