"""The capped GFM search of ``example-wise-f1-maximizer`` against the exact GFM: :func:`capped_gfm`,
:func:`capped_losses` on given P matrices, and :func:`run_exactness` on EFP's P of a dataset."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["capped_gfm", "capped_losses", "run_exactness", "HAND_EXAMPLE", "write_exactness"]


def _delta(P):
    """Delta = P W, W[s, k] = 2 / (s + k) for counts s and sizes k = 1..m; P is (n, m, m)."""
    m = P.shape[-1]
    s = np.arange(1, m + 1, dtype=np.float64)
    return P @ (2.0 / (s[:, None] + s[None, :]))


def capped_gfm(P, p_zero, cap: int):
    """GFM searching label sets of at most ``cap`` labels (as ``example-wise-f1-maximizer`` does with
    the largest training label count): the best of the empty set and of sizes 1..cap.

    ``P`` is ``(m, m)`` or ``(n, m, m)`` with ``P[i, s-1] = P(y_i = 1, |y| = s)``. Returns ``(h,
    value)`` like :func:`fmeasure.inference.gfm_from_p` (same tie rules); ``cap >= m`` gives the
    exact GFM.

    >>> P = np.diag([0.0] * 4).astype(float); P[:, 0] = 0.25   # one label of four, uniformly
    >>> capped_gfm(P, 0.0, cap=1)[1], round(capped_gfm(P, 0.0, cap=4)[1], 3)
    (0.25, 0.4)
    """
    from fmeasure.inference import gfm

    P = np.asarray(P, dtype=np.float64)
    if int(cap) < 0:
        raise ValueError(f"cap: must be >= 0, got {cap}")
    D = _delta(P)
    D[..., int(cap) :] = 0.0  # sizes above the cap: expected F 0, never better than the empty set
    return gfm(D, p_zero)


def capped_losses(P, p_zero, cap: int, *, tol: float = 1e-9) -> dict:
    """How often, and by how much, the capped search falls short of the exact GFM on ``P``.

    Returns ``n``, ``n_wrong`` (instances whose capped value is below the exact one by more than
    ``tol``), ``share_wrong``, ``mean_loss`` and ``max_loss`` (expected F, in points, over all
    instances) and ``share_larger`` (instances whose exact optimum has more than ``cap`` labels).
    """
    from fmeasure.inference import gfm_from_p

    P = np.asarray(P, dtype=np.float64)
    P = P[None] if P.ndim == 2 else P
    h, v = gfm_from_p(P, p_zero)
    _, vc = capped_gfm(P, p_zero, cap)
    loss = 100.0 * (np.asarray(v) - np.asarray(vc))
    if loss.min(initial=0.0) < -100.0 * 1e-9:  # the capped search can never do better than the exact one
        raise RuntimeError(f"capped search above the exact GFM by {-loss.min():.3g} points")
    loss = np.maximum(loss, 0.0)  # rounding of the two computations of the same value
    n = len(loss)
    return {
        "n": n,
        "cap": int(cap),
        "n_wrong": int((loss > 100.0 * tol).sum()),
        "share_wrong": float((loss > 100.0 * tol).mean()),
        "mean_loss": float(loss.mean()),
        "max_loss": float(loss.max()) if n else 0.0,
        "share_larger": float((np.asarray(h).sum(axis=-1) > cap).mean()),
    }


def run_exactness(ds, parametric_cfg: dict, n_jobs: int | None = None) -> dict:
    """The capped search against the exact GFM on EFP's estimated P for ``ds``'s test set.

    EFP is fitted as the parametric stage fits it (``parametric_cfg``); the cap is the largest label
    count of the training set, as ``example-wise-f1-maximizer`` takes it. Returns
    :func:`capped_losses` with the dataset's name.
    """
    from fmeasure.experiments.parametric import make_learner

    efp = make_learner("EFP", parametric_cfg, n_jobs=n_jobs).fit(ds.X_train, ds.Y_train)
    P, p0 = efp.predict_p_matrix(ds.X_test)
    cap = int(np.asarray(ds.Y_train).sum(axis=1).max())
    return {"dataset": ds.name, "source": "EFP's P on the test set", **capped_losses(P, p0, cap)}


#: A distribution built by hand where every label set of the support has one label (so the cap
#: is 1) but the F-optimal prediction has all four: P(y = e_i) = 1/4 for i = 1..4.
HAND_EXAMPLE = "one label of four, uniformly: E[F] of k labels is k/4 * 2/(1 + k), best at k = 4"


def write_exactness(rows, csv_path, md_path) -> pd.DataFrame:
    """The exactness table: the hand-built case first, then one row per dataset."""
    from fmeasure.tables import write_table as _write

    P = np.zeros((4, 4))
    P[:, 0] = 0.25
    hand = {"dataset": "by hand", "source": HAND_EXAMPLE, **capped_losses(P, 0.0, cap=1)}
    table = pd.DataFrame([hand, *rows])
    caption = (
        "Exact GFM against the search capped at the largest training label count (as "
        "example-wise-f1-maximizer searches): n test instances, the cap, how many instances the capped "
        "search predicts a set of lower expected F (n_wrong, share_wrong), the loss in expected F in points "
        "(mean over all instances, max), and the share of instances whose exact optimum has more labels "
        "than the cap. P is EFP's estimate on each test set (the parametric stage's model)."
    )
    _write(table, csv_path, md_path, caption=caption, float_format="{:.4f}")
    return table
