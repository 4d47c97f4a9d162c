"""The tuned label models' fits against the same fits through scikit-learn's own entry points.

Three shortcuts that change no number, each timed against its reference in the same run, on k labels
spread over the label frequencies of a parsed dataset (CPU seconds, the load-independent measure on
a shared machine):

* binary fits: ``fit_logistic_cv`` with its folds' and final binary lbfgs fits run by
  scikit-learn's own steps (``_fit_binary_lbfgs``) against ``LogisticRegression.fit`` (BR's label
  models over the paper's grid and 5 folds);
* chain links: a PCC link's features [x, y_1..y_j] of a mostly-zero dense X assembled as CSR from
  X's CSR form against the dense matrix converted by the regression (links spread over the chain);
* the label models' common X made CSR once per learner against once per model (BR's ``fit``).

Each line prints ours, the reference, their ratio (reference / ours: above 1, ours is faster) and
whether the fitted weights are equal bit for bit.

    PYTHONPATH=src python benchmarks/bench_label_fits.py data/parsed/delicious.npz --labels 12
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

from fmeasure import datasets
from fmeasure.learners import logistic, parametric, pcc
from fmeasure.learners.logistic import DEFAULT_CS, fit_logistic_cv


@contextmanager
def _patched(module, name, value):
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def _cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _spread(Y, k):
    """k labels with both classes, spread over the range of label frequencies."""
    freq = Y.mean(axis=0)
    usable = np.flatnonzero((freq > 0) & (freq < 1))
    order = usable[np.argsort(freq[usable], kind="stable")]
    return order[np.linspace(0, order.size - 1, min(k, order.size)).astype(int)]


def _line(what, ours, ref, equal):
    print(f"{what:<44} ours {ours:8.2f} s   reference {ref:8.2f} s   ratio {ref / ours:5.2f}x   equal: {equal}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", help="a parsed dataset (data/parsed/NAME.npz)")
    ap.add_argument("--labels", type=int, default=12, help="labels (and chain links) timed")
    args = ap.parse_args(argv)
    ds = datasets.load(args.dataset)
    X = np.asarray(ds.X_train.toarray() if sp.issparse(ds.X_train) else ds.X_train, dtype=np.float64)
    Y = np.asarray(ds.Y_train, dtype=np.int8)
    labels = _spread(Y, args.labels)
    print(f"{ds.name}: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels; {labels.size} labels timed")

    def binary():
        return [fit_logistic_cv(X, Y[:, j], Cs=DEFAULT_CS, cv=5, random_state=int(j)).coef_ for j in labels]

    ours, a = _cpu(binary)
    with _patched(logistic, "_fit_binary_lbfgs", lambda *args: False):
        ref, b = _cpu(binary)
    _line("binary fits (BR's label models)", ours, ref, all(np.array_equal(u, v) for u, v in zip(a, b)))

    links = np.linspace(0, Y.shape[1] - 1, min(args.labels, Y.shape[1])).astype(int)
    Xs = sp.csr_matrix(X)

    def chain(shortcut):
        out = []
        for j in links:
            model, _, _ = pcc._fit_one(X, Y, int(j), DEFAULT_CS, 5, 0, "log_loss", Xs if shortcut else None)
            out.append(np.asarray(model.coef_))
        return out

    ours, a = _cpu(lambda: chain(True))
    ref, b = _cpu(lambda: chain(False))
    _line("chain links (PCC)", ours, ref, all(np.array_equal(u, v) for u, v in zip(a, b)))

    Ysub = Y[:, labels]

    def learner():
        br = parametric.BinaryRelevance(Cs=DEFAULT_CS, cv=5).fit(X, Ysub)
        return [getattr(e, "coef_", None) for e in br.estimators_]

    ours, a = _cpu(learner)
    with _patched(parametric, "fit_matrix", lambda M: M):
        ref, b = _cpu(learner)
    same = all((u is None and v is None) or np.array_equal(u, v) for u, v in zip(a, b))
    _line("the common X made CSR once (BR's fit)", ours, ref, same)


if __name__ == "__main__":
    main()
