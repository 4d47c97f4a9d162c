"""The 1-slack cutting-plane solver of RML's structured SVM, with OCAS's line search.

The problem (:mod:`fmeasure.learners.ssvm`)::

    min_W  P(W) = lam / 2 ||W||^2 + 1 / n  sum_n  max_h [Delta(y_n, h) + <W' x_n, h - y_n>]

with lam = 1 / C. Any labelling H = (h_1, ..., h_n) of the training set gives a *plane*: with
g = X' (Y - H) / n (a d x m matrix) and c = mean_n Delta(y_n, h_n), the mean structured hinge is at
least c - <W, g> for every W, with equality where every h_n is the most violating label vector at
W (Joachims, Finley and Yu, 2009, "Cutting-plane training of structural SVMs": the 1-slack
formulation). The planes do not depend on C.

Given a working set of planes g_1 .. g_t, the master problem replaces the hinge by the largest of
them (and 0, the plane of H = Y). Its dual is a QP over {alpha >= 0, sum alpha <= 1}::

    D(alpha) = alpha . c - 1 / (2 lam) alpha' K alpha,     K = [<g_i, g_j>],

whose solution gives W(alpha) = sum_j alpha_j g_j / lam. Every feasible alpha gives a lower bound
D(alpha) on min P (each plane bounds the hinge from below), and every W an upper bound P(W) from
one call of the exact loss-augmented oracle on all examples: P(W) - D(alpha) is a certificate of
sub-optimality (the duality gap), and the solver stops when it is at most ``tol``.

Each iteration solves the master QP (DAQP, a dual active-set method, on the t x t matrix K) and
adds the plane of the oracle's labelling at a point near the best one, between it and the master's
solution, which becomes the best point when its primal value is lower (Franc and Sonnenburg, 2009,
"Optimized cutting plane algorithm for large-scale risk minimization", OCAS; their search of the
ray through the master's solution is there, ``ls_max``, but off: each of its oracle calls costs as
much as the cut): a C path takes several times fewer iterations than the plain cutting-plane
method (``line_search=False``). Planes unused by the master for ``prune_after`` iterations leave the
working set; the working set carries over from one C to the next, a warm start.

An iteration costs two products with X (the scores X W, n x m, and the new plane X' H, d x m, over
the labels each example's labelling holds when X is sparse), one oracle call on all examples (at
the cut point; a line search moves along a line of scores: no product), and a QP of the working
set's size. The oracle and the scores run in ``threads`` blocks of examples (the same numbers).

Near W = 0 (the smallest C), every example's most violating labelling has the largest loss, 1, and
the mean hinge is linear: the optimum is C v* for a fixed v*, the min-norm point of the hull of
those labellings' planes, and predicts the same at every such C. Any W within ``tol`` is certified
there, in any direction, so the solver asks more of it: it ends at the master's solution
W(alpha) = C v, with its gap also at most ``rel_tol`` lam ||W||^2 = ``rel_tol`` C ||v||^2. Where the
planes in use have c = 1, that gap is C (||v||^2 - min_H <g_H, v>), the minimum over the labellings
of loss 1 (the oracle's at W): C times v's Frank-Wolfe gap as a point of their hull. Then ||v - v*||
<= sqrt(2 rel_tol) ||v||; the gap and its bound both scale with C, so the next C of a path starts
from the same v already certified: the same predictions from one small C to the next (a plateau of
the cross-validated F), as the exact optimum has. At most ``rel_iter`` iterations go to this once
the gap is within ``tol``, along a whole path of C (the working set counts them: every C of the
plateau has the same v*, so a larger C would only resume the same search: once they are spent, a
larger C returns the last fit's v at its own C where that is within ``tol``, the same predictions);
they are plain cutting-plane steps (the plane of the oracle's labelling
at the master's solution, the master solved again over all planes: Wolfe's min-norm-point method),
one oracle call each, as the best point needs no line search any more.
"""

from __future__ import annotations

import logging
import numbers
import time

import numpy as np
import scipy.sparse as sp
from numba import njit

from fmeasure._blocks import in_row_blocks
from fmeasure.blas import single_threaded_blas
from fmeasure.inference.structured import solve_batch

__all__ = ["Design", "WorkingSet", "load_daqp", "one_slack"]

log = logging.getLogger("fmeasure.learners.ssvm")

#: Default ``rel_tol`` of :func:`one_slack`.
REL_TOL = 1e-3

#: Default ``rel_iter`` of :func:`one_slack`.
REL_ITER = 100

#: A gap this small is rounding (the objective is about 1 near W = 0): ``rel_tol`` asks no less.
ROUNDING = 1e-12

#: X is multiplied as a CSR matrix when at most this fraction of its entries are non-zero.
SPARSE_BELOW = 0.3

#: With ``threads`` > 1, the oracle and the scores run in threads only when the score matrix has at
#: least this many entries (below, starting the threads costs more than it saves).
THREADS_ABOVE = 100_000


def load_daqp():
    """The DAQP module, imported on first use: only the cutting-plane solver needs it (``import
    fmeasure`` and the default solver do not). Without it, one ImportError line naming the fix."""
    try:
        import daqp
    except ImportError:
        raise ImportError(
            "RML's cutting-plane solver (FMeasureSSVM(solver='cutting_plane')) needs the package daqp, "
            "a dependency of fmeasure that is not installed here: pip install daqp"
        ) from None
    return daqp


@njit(cache=True, nogil=True)
def _back_csr(indptr, indices, data, H, d):  # pragma: no cover - compiled
    """X' H for X in CSR (n x d) and a 0/1 matrix H (n x m, int8): for each row i, its features
    added to the columns of the labels that H[i] holds. O(n m + nnz(X) k) for k labels a row,
    against O(nnz(X) m) for the product with H as a dense matrix. Each entry's sum runs over the
    rows in order, as in scipy's product of X' (CSR) with H: the same numbers."""
    n, m = H.shape
    out = np.zeros((d, m))
    cols = np.empty(m, np.int64)
    for i in range(n):
        c = 0
        for j in range(m):
            if H[i, j]:
                cols[c] = j
                c += 1
        if c == 0:
            continue
        for p in range(indptr[i], indptr[i + 1]):
            k = indices[p]
            v = data[p]
            for q in range(c):
                out[k, cols[q]] += v
    return out


@njit(cache=True, nogil=True)
def _scores_csr(indptr, indices, data, W, lo, hi, out):  # pragma: no cover - compiled
    """Rows lo .. hi - 1 of X W for X in CSR, into ``out`` (their rows of the result): each row the
    sum of W's rows of its features, in the order of the row's entries, as scipy's product: the
    same numbers (four entries are added per pass over the output row, one after the other: a
    quarter of its loads and stores). Releases the GIL: blocks of rows run in threads."""
    m = W.shape[1]
    for i in range(lo, hi):
        row = out[i]
        row[:] = 0.0
        p = indptr[i]
        end = indptr[i + 1]
        while p + 4 <= end:  # four entries per pass over the row, added in the same order
            v0, v1, v2, v3 = data[p], data[p + 1], data[p + 2], data[p + 3]
            w0, w1, w2, w3 = W[indices[p]], W[indices[p + 1]], W[indices[p + 2]], W[indices[p + 3]]
            for j in range(m):
                row[j] = (((row[j] + v0 * w0[j]) + v1 * w1[j]) + v2 * w2[j]) + v3 * w3[j]
            p += 4
        while p < end:
            v = data[p]
            w = W[indices[p]]
            for j in range(m):
                row[j] += v * w[j]
            p += 1


class Design:
    """Products with the training features (bias column included), dense or CSR by density."""

    def __init__(self, Xa, threads=1):
        n, d = Xa.shape
        nnz = Xa.nnz if sp.issparse(Xa) else int(np.count_nonzero(Xa))
        self.sparse = nnz <= SPARSE_BELOW * n * d
        if self.sparse:
            self.X = sp.csr_matrix(Xa, dtype=np.float64)  # X' H by the kernel: no transpose kept
        else:
            self.X = np.ascontiguousarray(Xa.toarray() if sp.issparse(Xa) else Xa, dtype=np.float64)
            self.XT = self.X.T
        self.n, self.d = n, d
        self.threads = threads

    def scores(self, W, out=None):
        """X W, (n, m), into ``out`` when given (a float64 C-ordered array of that shape): with
        sparse X, a compiled product over blocks of rows, one per thread."""
        if not self.sparse:
            return np.matmul(self.X, W, out=out)
        W = np.ascontiguousarray(W, dtype=np.float64)
        out = np.empty((self.n, W.shape[1])) if out is None else out
        X = self.X
        in_row_blocks(self.n, self.threads, lambda lo, hi: _scores_csr(X.indptr, X.indices, X.data, W, lo, hi, out))
        return out

    def back(self, H):
        """X' H for a 0/1 matrix H (int8 or bool), (d, m)."""
        if self.sparse:
            H = np.ascontiguousarray(H.view(np.int8) if H.dtype == np.bool_ else H, dtype=np.int8)
            return _back_csr(self.X.indptr, self.X.indices, self.X.data, H, self.d)
        return np.asarray(self.XT @ H.astype(np.float64))


@njit(cache=True, nogil=True)
def _combine(G, slots, alpha, out):  # pragma: no cover - compiled
    """sum_j alpha_j G[slots[j]] into ``out``, the planes in the order of j (that of the working
    set, whatever rows hold them), those of weight 0 skipped (they add exactly 0)."""
    out[:] = 0.0
    for j in range(slots.size):
        a = alpha[j]
        if a != 0.0:
            row = G[slots[j]]
            for q in range(out.size):
                out[q] += a * row[q]
    return out


class WorkingSet:
    """The planes (g_j, c_j) of the 1-slack problem, their Gram matrix and how long each has been
    unused by the master problem. Independent of C: the warm start along a path of C.

    A plane is p floats (4 MB on delicious), so the planes stay in the rows they were written to:
    plane j is row ``slot[j]`` of G, a pruned plane's row is reused by the next plane added, and
    pruning moves none of them. What is computed from them does not depend on the rows: each Gram
    entry is one dot product of two planes, and :meth:`combine` sums in the order of the planes."""

    def __init__(self, p, cap=32):
        self.p = p
        self.t = 0
        self.G = np.empty((cap, p))
        self.c = np.empty(cap)
        self.K = np.empty((cap, cap))
        self.idle = np.empty(cap, dtype=np.int64)
        self.slot = np.empty(cap, dtype=np.int64)
        self.free = []  # rows of G below ``used`` that hold no plane
        self.used = 0  # rows of G written so far
        self.towards_v = 0  # iterations spent on ``rel_tol`` along the path (:func:`one_slack`)
        self.v = None  # W / C of the last fit that ended on the plateau near W = 0

    def planes(self):
        """The planes g_j in order, (t, p): a copy."""
        return self.G[self.slot[: self.t]]

    def __getstate__(self):  # to and from the fold workers: the planes only, in order, no spare rows
        t = self.t
        planes = self.planes()
        return {
            "p": self.p,
            "t": t,
            "G": planes,
            "c": self.c[:t],
            "K": self.K[:t, :t],
            "idle": self.idle[:t],
            "towards_v": self.towards_v,
            "v": self.v,
        }

    def __setstate__(self, state):
        t = state["t"]
        self.__init__(state["p"], cap=max(t, 1))
        self.G[:t], self.c[:t], self.K[:t, :t], self.idle[:t] = state["G"], state["c"], state["K"], state["idle"]
        self.slot[:t] = np.arange(t)
        self.t = self.used = t
        self.towards_v, self.v = state["towards_v"], state["v"]

    def _grow(self):
        cap = 2 * self.G.shape[0]
        G, K = np.empty((cap, self.p)), np.empty((cap, cap))
        G[: self.used] = self.G[: self.used]
        K[: self.t, : self.t] = self.K[: self.t, : self.t]
        self.G, self.K = G, K
        self.c = np.resize(self.c, cap)
        self.idle = np.resize(self.idle, cap)
        self.slot = np.resize(self.slot, cap)

    def add(self, g, c):
        if not self.free and self.used == self.G.shape[0]:
            self._grow()
        if self.free:
            r = self.free.pop()
        else:
            r, self.used = self.used, self.used + 1
        t = self.t
        self.G[r] = g
        self.c[t] = c
        row = np.array([self.G[s] @ g for s in self.slot[:t]])
        self.K[t, :t] = row
        self.K[:t, t] = row
        self.K[t, t] = float(g @ g)
        self.idle[t] = 0
        self.slot[t] = r
        self.t += 1

    def keep(self, mask):
        """Keep the planes where ``mask`` is True (in order); the others' rows are free."""
        idx = np.flatnonzero(mask)
        k = idx.size
        self.free.extend(int(r) for r in self.slot[: self.t][~np.asarray(mask, dtype=bool)])
        self.slot[:k] = self.slot[idx]
        self.c[:k] = self.c[idx]
        self.K[:k, :k] = self.K[np.ix_(idx, idx)]
        self.idle[:k] = self.idle[idx]
        self.t = k

    def combine(self, alpha):
        """sum_j alpha_j g_j."""
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        return _combine(self.G, self.slot[: self.t], alpha, np.empty(self.p))


def _master(ws, lam):
    """The master QP's solution: alpha maximising alpha . c - alpha' K alpha / (2 lam) over
    {alpha >= 0, sum alpha <= 1}, i.e. min 1/2 alpha' K alpha - lam c . alpha there.

    Solved with a slack alpha_0 = 1 - sum alpha, the weight of the plane of H = Y (g = 0, c = 0),
    on the simplex of (alpha_0, alpha), where every c may be lowered by c_max = max_j c_j: the
    linear term is then lam (c_max - c_j) >= 0, 0 for the planes of the largest c. The problem
    solved is min 1/2 alpha' K alpha + lam (c_max - c) . alpha + lam c_max alpha_0 over alpha_0,
    alpha >= 0 and alpha_0 + sum alpha >= 1 (at the optimum the sum is 1: with a linear term >= 0,
    scaling down never increases the objective). Where every plane in use has the largest c (the
    smallest C, W near 0) the objective is alpha' K alpha alone, as well scaled at any lam; in the
    form without the slack its linear term, lam c, grows with lam until it swamps the quadratic
    term the solution depends on.

    Solved by DAQP (Arnstroem, Bemporad and Axehill's dual active-set method) on K scaled to unit
    mean diagonal, with proximal-point iterations (K is only semi-definite: planes can be linearly
    dependent, and once there are more planes than weights they always are): a fixed proximal
    weight, iterated until alpha moves by less than 1e-12, reaches the optimum where DAQP's
    automatic weight can stop 1e-5 short of it in the dual on such K. Should that not report an
    optimum, DAQP's automatic weight, then small ridges on K; the best of what they returned
    otherwise. The returned alpha is made feasible (clipped at 0, scaled to sum at most 1), so the
    dual value computed from it is a valid lower bound whatever the QP's accuracy.
    """
    daqp = load_daqp()
    t = ws.t
    K, c = ws.K[:t, :t], ws.c[:t]
    scale = max(float(np.trace(K)) / t, np.finfo(float).tiny)
    H = np.zeros((t + 1, t + 1))  # DAQP reads the memory as a C-ordered block
    H[1:, 1:] = K / scale
    c_max = max(float(c.max()), 0.0)
    f = (lam / scale) * (c_max - np.concatenate(([0.0], c)))
    A = np.ones((1, t + 1))
    upper = np.full(t + 2, 1.0)
    upper[t + 1] = 1e30
    lower = np.zeros(t + 2)
    lower[t + 1] = 1.0
    best, best_value = None, -np.inf
    attempts = [(0.0, dict(eps_prox=1e-4, eta_prox=1e-12)), (0.0, dict(eps_prox=-1.0))]
    attempts += [(ridge, dict(eps_prox=-1.0)) for ridge in (1e-10, 1e-8, 1e-6)]
    for ridge, settings in attempts:
        Hr = H + ridge * np.eye(t + 1) if ridge else H
        x, _, flag, _ = daqp.solve(Hr, f, A, upper, lower, **settings)
        x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
        alpha = x[1:] / max(float(x.sum()), 1.0)
        s = float(alpha.sum())
        alpha = alpha / s if s > 1.0 else alpha
        if flag == 1:
            return alpha
        value = float(alpha @ c) - float(alpha @ K @ alpha) / (2.0 * lam)
        if np.isfinite(value) and value > best_value:
            best, best_value = alpha, value
    log.debug("master QP of %d planes: no attempt reported an optimum; the best feasible point kept", t)
    return best if best is not None else np.zeros(t)


@njit(cache=True, nogil=True)
def _loss_rows(Yb, counts, H):  # pragma: no cover - compiled
    """1 - F(y_n, h_n) for every row n (F(0, 0) = 1), in one pass over Y and H."""
    n, m = H.shape
    out = np.empty(n)
    for i in range(n):
        tp = 0
        k = 0
        for j in range(m):
            if H[i, j]:
                k += 1
                if Yb[i, j]:
                    tp += 1
        den = counts[i] + k
        out[i] = 0.0 if den == 0 else 1.0 - 2.0 * tp / den
    return out


def _loss(Yb, counts, H):
    """Delta(y_n, h_n) = 1 - F(y_n, h_n), F(0, 0) = 1, for every row."""
    H = H.view(np.int8) if H.dtype == np.bool_ else np.ascontiguousarray(H, dtype=np.int8)
    return _loss_rows(Yb, counts, H)


@njit(cache=True, nogil=True)
def _mix(A, B, mu, out):  # pragma: no cover - compiled
    """(1 - mu) A + mu B into ``out`` in one pass (each product rounded, then their sum: numpy's
    numbers)."""
    a = 1.0 - mu
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            out[i, j] = a * A[i, j] + mu * B[i, j]
    return out


class _ScoreBuffers:
    """The n x m score matrices of :func:`one_slack`, reused from one iteration to the next.

    An array that large is mapped fresh from the system at every allocation, and its first writes
    fault in each page: on delicious (10,336 x 983, 81 MB) a product or a mix into a new array
    took 1.5 to 5 times as long as into one already written. :meth:`take` returns an array of the
    pool that is none of the live ones (a new one only when all are live: three at most)."""

    def __init__(self, shape):
        self.shape = shape
        self.pool = []

    def take(self, *live):
        for buf in self.pool:
            if not any(buf is x for x in live):
                return buf
        buf = np.empty(self.shape)
        self.pool.append(buf)
        return buf


@single_threaded_blas
def one_slack(
    Xa,
    Y,
    C,
    *,
    tol=1e-3,
    max_iter=1000,
    init=None,
    label=None,
    log_every=30.0,
    line_search=True,
    mu=0.1,
    ls_max=0,
    prune_after=30,
    rel_tol=None,
    rel_iter=None,
    threads=1,
):
    """The 1-slack cutting-plane method for the F-measure structured SVM (features with bias).

    Parameters
    ----------
    Xa : ndarray or sparse matrix of shape (n, d)
        Features, the constant bias feature included.
    Y : ndarray of shape (n, m), 0/1
    C : float > 0
        Regularisation (objective 1/2 ||w||^2 + C / n * sum of structured hinge losses).
    tol : float
        Stop when the duality gap is at most ``tol``.
    max_iter : int
        Most iterations (each adds one plane).
    init : WorkingSet, optional
        Planes to start from (from another C on the same data): a warm start. It is updated in
        place and returned as ``planes``.
    label : str, optional
        When given, progress lines are logged (after the first iteration, then at most every
        ``log_every`` seconds, and at the end).
    log_every : float
        Seconds between progress lines.
    line_search : bool
        OCAS's line search and cut point (False: the plain cutting-plane method, each plane at
        the master's solution).
    mu : float
        The plane is cut at (1 - mu) W_best + mu W_master (OCAS).
    ls_max : int
        Most oracle calls of the line search after each master problem (0: none; the best point
        then moves only to the cut point, when that is lower). A call is a pass of the oracle over
        every example: with 6, a C path took fewer iterations (scene: 299 against 415) but more
        calls (1,474 against 427), 2.4 times the CPU on delicious; with 1, the call never found a
        lower point on the paths of scene, yeast and enron (the same iterations as with 0).
    prune_after : int
        A plane whose dual variable has been 0 this many iterations in a row leaves the working set.
    rel_tol : float, optional
        Near W = 0 (every example's most violating labelling at the master's solution has loss
        1), the fit ends at the master's solution once its gap is also at most ``rel_tol`` times
        lam ||W||^2, which makes its direction, and so its predictions, those of the exact optimum
        to within about sqrt(2 rel_tol) (None: :data:`REL_TOL`).
    rel_iter : int, optional
        Most iterations spent on ``rel_tol`` once the gap is within ``tol``, counted along a path
        by the working set (``init``); then the best point is returned, certified by ``tol``
        (None: :data:`REL_ITER`).
    threads : int
        Threads for the oracle and, with sparse X, the scores X W (blocks of examples; the same
        numbers as one thread). Used when n m is at least :data:`THREADS_ABOVE`.

    Returns
    -------
    dict
        ``W`` (d, m), ``gap``, ``primal``, ``dual``, ``n_iter``, ``stopped_by`` ("tol" or
        "max_iter"), ``dual_history`` and ``gap_history`` (the start first, then one value per
        iteration), ``oracle_calls`` (loss-augmented inferences, in passes over all examples),
        ``planes`` (the working set, for a warm start) and ``n_planes``.
    """
    if not (isinstance(C, numbers.Real) and C > 0):
        raise ValueError(f"C must be a positive number, got {C!r}")
    if not (isinstance(threads, numbers.Integral) and threads >= 1):
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    load_daqp()  # before any work: a missing package is reported at once
    n, m = Y.shape
    lam = 1.0 / C
    Yb = np.asarray(Y).astype(bool)
    Yf = Yb.astype(np.float64)
    counts = Yb.sum(axis=1)
    threads = int(threads) if n * m >= THREADS_ABOVE else 1
    X = Design(Xa, threads=threads)
    d = X.d
    XtY = X.back(Yb)
    ws = WorkingSet(d * m) if init is None else init
    calls = 0

    def primal(S, W):
        """P(W) from the scores S = X W, and the oracle's labelling."""
        nonlocal calls
        H, value = solve_batch(S, Yb, threads=threads)
        calls += 1
        hinge = value - np.einsum("ij,ij->i", S, Yf)
        return 0.5 * lam * float(np.sum(W * W)) + float(np.mean(hinge)), H

    def master():
        alpha = _master(ws, lam) if ws.t else np.zeros(0)
        W = ws.combine(alpha).reshape(d, m) / lam
        dual = float(alpha @ ws.c[: ws.t]) - 0.5 * lam * float(np.sum(W * W))
        return alpha, W, dual

    buffers = _ScoreBuffers((n, m))
    alpha, Wc, dual = master()
    Sc = X.scores(Wc, out=buffers.take())
    Pc, Hc = primal(Sc, Wc)
    Wb, Sb, Pb, Hb = Wc, Sc, Pc, Hc
    dual_hist, gap_hist = [dual], [Pb - dual]
    stopped_by = "tol"
    rel = REL_TOL if rel_tol is None else rel_tol
    rel_iter = REL_ITER if rel_iter is None else rel_iter

    it = 0
    settled = None  # the iteration at which the best point's gap first came within tol
    exact = True  # whether Pb was computed from the scores X Wb themselves (not along a line)
    start = last = time.perf_counter()
    while True:
        plateau = False
        if Pb - dual <= tol:
            if not exact:
                # The certificate from scratch: the scores of the best point were updated along lines.
                Sb = X.scores(Wb, out=buffers.take(Sc))
                Pb, Hb = primal(Sb, Wb)
                gap_hist[-1] = Pb - dual
                exact = True
            if Pb - dual <= tol:
                settled = it if settled is None else settled
                Pc, Hc = primal(Sc, Wc) if Wc is not Wb else (Pb, Hb)
                if not np.all(_loss(Yb, counts, Hc) == 1.0):
                    break
                if Pc < Pb:
                    Wb, Sb, Pb, Hb = Wc, Sc, Pc, Hc
                    gap_hist[-1] = Pb - dual
                # Near W = 0, where every example's labelling has the largest loss (the mean hinge
                # is linear there, W(alpha) = C v with v the master's combination of planes): the
                # master's solution, its gap also at most rel_tol times lam ||W||^2 (C times v's
                # Frank-Wolfe gap as the min-norm point of the planes' hull). Both are
                # proportional to C there, so the next C of a path starts certified from the same
                # v: the same predictions from one small C to the next, as for the exact optimum.
                if Pc - dual <= min(tol, max(rel * lam * float(np.sum(Wc * Wc)), ROUNDING)):
                    Wb, Sb, Pb, Hb = Wc, Sc, Pc, Hc
                    gap_hist[-1] = Pb - dual
                    ws.v = Wb / C
                    break
                if ws.towards_v + it - settled >= rel_iter:
                    if it == settled and ws.v is not None:
                        # The smaller C of the path spent the search: their direction at this C,
                        # where it is within tol (the same predictions as theirs).
                        Wv = ws.v * C
                        Sv = X.scores(Wv, out=buffers.take(Sb, Sc))
                        Pv, Hv = primal(Sv, Wv)
                        if Pv - dual <= tol:
                            Wb, Sb, Pb, Hb = Wv, Sv, Pv, Hv
                            gap_hist[-1] = Pb - dual
                    ws.v = Wb / C
                    break
                plateau = True
        if it >= max_iter:
            stopped_by = "max_iter"
            break
        if plateau:
            # Towards the min-norm point v: the plane of the oracle's labelling at the master's
            # solution, the master solved again over every plane (Wolfe's method; the best point
            # is already within tol, so no line search and no cut point near it).
            Hk = Hc
        elif line_search and Wc is not Wb:
            # The new plane: the oracle's labelling at a point near the best one (OCAS).
            Wk = (1.0 - mu) * Wb + mu * Wc
            Sk = _mix(Sb, Sc, mu, buffers.take(Sb, Sc))
            Pk, Hk = primal(Sk, Wk)
            if Pk < Pb:
                Wb, Sb, Pb, Hb = Wk, Sk, Pk, Hk
                exact = False
        else:
            Hk = Hb
        g = (XtY - X.back(Hk)) / n
        ws.add(g.ravel(), float(np.mean(_loss(Yb, counts, Hk))))
        if ws.t > 1:
            used = alpha > 1e-10 * float(alpha.max(initial=0.0))
            ws.idle[: ws.t - 1] = np.where(used, 0, ws.idle[: ws.t - 1] + 1)
            stale = ws.idle[: ws.t] >= prune_after
            if stale.any():
                ws.keep(~stale)
        alpha, Wc, dual = master()
        Sc = X.scores(Wc, out=buffers.take(Sb))
        if plateau:
            pass  # the oracle at the new master's solution opens the next iteration
        elif line_search:
            if ls_max > 0:
                Wn = Wb
                Wb, Sb, Pb, Hb = _line_search(primal, lam, n, Yf, Wb, Sb, Pb, Hb, Wc, Sc, ls_max, 0.1 * tol)
                exact = exact and Wb is Wn
        else:
            Pc, Hc = primal(Sc, Wc)
            Wb, Sb, Pb, Hb = Wc, Sc, Pc, Hc
            exact = True
        it += 1
        dual_hist.append(dual)
        gap_hist.append(Pb - dual)
        now = time.perf_counter()
        if label is not None and (it == 1 or now - last >= log_every):
            log.info(
                "%s: iteration %d of at most %d, duality gap %.2e (tol %.0e), %d planes, %.0f s",
                label,
                it,
                max_iter,
                Pb - dual,
                tol,
                ws.t,
                now - start,
            )
            last = now
    if settled is not None:
        ws.towards_v += it - settled  # the next C of the path has what is left of rel_iter
    if label is not None:
        log.info(
            "%s: done after %d iterations (%s), duality gap %.2e, %.0f s",
            label,
            it,
            "gap <= tol" if stopped_by == "tol" else "iteration cap",
            Pb - dual,
            time.perf_counter() - start,
        )
    return {
        "W": Wb,
        "gap": Pb - dual,
        "primal": Pb,
        "dual": dual,
        "n_iter": it,
        "stopped_by": stopped_by,
        "dual_history": dual_hist,
        "gap_history": gap_hist,
        "oracle_calls": calls,
        "planes": ws,
        "n_planes": ws.t,
    }


def _line_search(primal, lam, n, Yf, Wb, Sb, Pb, Hb, Wc, Sc, ls_max, precision):
    """The best point found on the ray Wb + k (Wc - Wb), k >= 0 (OCAS's line search, inexact).

    phi(k) = q(k) + r(k): q the regulariser, quadratic in k; r the mean hinge, convex and piecewise
    linear, whose slope at k is mean <dS, h(k) - y> for the oracle's labelling h(k). The search
    keeps a bracket [lo, hi] of the minimiser (phi's slope negative at lo, non-negative at hi) and
    tries the minimiser of q plus the larger of r's two tangent lines at lo and hi; it stops when
    that model's value is within ``precision`` of the best value found, or after ``ls_max``
    oracle calls. Returns the best point evaluated (Wb itself if none is lower).
    """
    D = Wc - Wb
    dS = Sc - Sb
    a2 = lam * float(np.sum(D * D))
    a1 = lam * float(np.sum(Wb * D))
    if a2 <= 0.0:
        return Wb, Sb, Pb, Hb
    q0 = 0.5 * lam * float(np.sum(Wb * Wb))
    dSy = float(np.sum(dS * Yf))

    def q(k):
        return q0 + a1 * k + 0.5 * a2 * k * k

    def slope(H):
        return (float(np.sum(dS[H.view(bool)])) - dSy) / n

    lo, r_lo, p_lo = 0.0, Pb - q0, slope(Hb)
    hi = r_hi = p_hi = None
    best = (Wb, Sb, Pb, Hb)
    for _ in range(ls_max):
        if a1 + a2 * lo + p_lo >= 0.0:  # phi does not decrease beyond lo
            break
        k_lo = -(a1 + p_lo) / a2
        if hi is None:
            k = k_lo
            model = q(k) + r_lo + p_lo * (k - lo)
        else:
            k_hi = -(a1 + p_hi) / a2
            kx = lo + (r_hi - r_lo - p_hi * (hi - lo)) / (p_lo - p_hi) if p_lo < p_hi else hi
            k = k_lo if k_lo <= kx else (k_hi if k_hi >= kx else kx)
            k = min(max(k, lo), hi)
            model = q(k) + max(r_lo + p_lo * (k - lo), r_hi + p_hi * (k - hi))
        if best[2] - model <= precision:
            break
        Wk = Wb + k * D
        Sk = k * dS
        Sk += Sb  # n x m: one temporary fewer
        Pk, Hk = primal(Sk, Wk)
        if Pk < best[2]:
            best = (Wk, Sk, Pk, Hk)
        pk = slope(Hk)
        if a1 + a2 * k + pk < 0.0:
            lo, r_lo, p_lo = k, Pk - q(k), pk
        else:
            hi, r_hi, p_hi = k, Pk - q(k), pk
    return best
