"""One dispatch from label samples to the four inference methods of the paper: MM, JM, FM, GFM.

Every learner that ends in a sample of label vectors per instance -- the neighbours of kNN
(Section 7.1.1), the ancestral samples of a probabilistic classifier chain (Section 7.2.1), the
training samples of the simulations (Section 6) -- predicts through :func:`from_samples`:

- ``"mm"``  marginal modes (Hamming-optimal) of the estimated marginals;
- ``"jm"``  the most frequent label vector of the sample (subset 0/1-optimal); among equally
  frequent vectors the one seen first in the sample wins (:func:`fmeasure.estimation.joint_mode`);
- ``"fm"``  Ye et al.'s dynamic program on the estimated marginals (F-optimal under independence);
- ``"gfm"`` the exact General F-measure Maximizer on the estimated P and P(y = 0).

The estimates are counted from the sample by :mod:`fmeasure.estimation` (MM and FM share the
marginals), and each method's prediction comes from :mod:`fmeasure.inference`.
"""

from __future__ import annotations

import time

import numpy as np

from fmeasure import estimation
from fmeasure.inference.general import gfm_from_samples
from fmeasure.inference.independence import fm
from fmeasure.metrics import METHOD_LABELS, SAMPLE_METHODS

__all__ = ["SAMPLE_METHODS", "METHOD_LABELS", "from_samples"]


def from_samples(Ys, methods=SAMPLE_METHODS, *, weights=None, mm_half=0, return_times=False):
    """Predict with each of ``methods`` from one sample of label vectors per instance.

    Parameters
    ----------
    Ys : array-like of shape (n, n_samples, m) or (n_samples, m), values in {0, 1}
        For each of ``n`` instances a sample of label vectors (neighbours' labels, chain samples).
    methods : sequence of {"mm", "jm", "fm", "gfm"}, or one of them as a string
    weights : array-like of shape (n, n_samples) or (n_samples,), optional
        Non-negative weights of the sample rows (normalised per instance); default equal.
    mm_half : {0, 1}, default=0
        MM's prediction for a label whose estimated marginal is exactly 1/2 (both choices are
        Hamming-optimal). 1 reproduces the paper's kNN Table 2.
    return_times : bool, default=False
        Also return the seconds spent per method on estimation and inference (MM and FM each
        count the shared marginals).

    Returns
    -------
    predictions : dict method -> ndarray of int8, shape (n, m) (or (m,) for a single sample)
    times : dict method -> float, only with ``return_times=True``

    Examples
    --------
    >>> Ys = [[[1, 1, 0], [1, 0, 0], [0, 0, 1]]]
    >>> out = from_samples(Ys)
    >>> out["mm"], out["gfm"]
    (array([[1, 0, 0]], dtype=int8), array([[1, 0, 1]], dtype=int8))
    >>> from_samples(Ys, "jm")["jm"]
    array([[1, 1, 0]], dtype=int8)
    """
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    bad = [k for k in methods if k not in SAMPLE_METHODS]
    if bad or not methods:
        raise ValueError(f"methods: must be among {SAMPLE_METHODS}, got {list(methods)}")
    if mm_half not in (0, 1):
        raise ValueError(f"mm_half: must be 0 or 1, got {mm_half!r}")
    Ys = np.asarray(Ys)
    if Ys.ndim not in (2, 3):
        raise ValueError(f"Ys: expected shape (n, n_samples, m) or (n_samples, m), got {Ys.shape}")
    single = Ys.ndim == 2
    shape = (Ys.shape[-1],) if single else (Ys.shape[0], Ys.shape[-1])
    out, times = {}, dict.fromkeys(methods, 0.0)
    p, t_p = None, 0.0
    for k in methods:
        t0 = time.perf_counter()
        if k in ("mm", "fm") and p is None:
            p = estimation.marginals(Ys, weights)
            t_p = time.perf_counter() - t0
            t0 = time.perf_counter()
        if k == "gfm":
            h, _ = gfm_from_samples(Ys, weights)
        elif k == "jm":
            h, _ = estimation.joint_mode(Ys, weights)
        elif k == "fm":
            h = _fm_active(p)
        elif mm_half == 1:
            h = (1.0 - p <= 0.5).astype(np.int8)  # [p >= 1/2]; 1 - p is exact at 1/2
        else:
            h = (p > 0.5).astype(np.int8)  # marginal_modes' rule, without its expected F
        out[k] = np.asarray(h, dtype=np.int8).reshape(shape)
        times[k] = time.perf_counter() - t0 + (t_p if k in ("mm", "fm") else 0.0)
    return (out, times) if return_times else out


def _fm_active(p):
    """FM's prediction from marginals (n, m), computed on each instance's labels with p_i > 0.

    A label with p_i = 0 is never in an F-optimal prediction under independence (it adds to the
    size of h without ever being a true positive), so each instance's non-zero marginals are packed
    in label order into r columns, r = the most non-zero marginals of an instance, and the padding
    columns (zeros) are never chosen. Same prediction as ``fm(p)``; O(n r^2) instead of O(n m^2),
    which matters for samples of a few label vectors over many labels (kNN on delicious).
    """
    p = np.asarray(p, dtype=np.float64)
    single = p.ndim == 1
    P = p[None] if single else p
    n, m = P.shape
    act = P > 0
    r = int(act.sum(axis=1).max()) if n else 0
    if r == m:
        return fm(p)[0]
    H = np.zeros((n, m), dtype=np.int8)
    if r:
        idx = np.argsort(~act, axis=1, kind="stable")[:, :r]  # non-zero labels first, in label order
        h, _ = fm(np.take_along_axis(P, idx, axis=1))
        np.put_along_axis(H, idx, h, axis=1)
    return H[0] if single else H
