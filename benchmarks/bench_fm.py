"""FM's dynamic program (Ye et al. 2012): the compiled program against the vectorised one.

For each number of labels m, random marginals of ``--instances`` instances (sorted, as ``fm``
sorts them; a share of exact zeros, as marginals estimated from samples have) go through both
forms of the program (``fmeasure.inference.independence``): the compiled one, one instance at a
time (:mod:`fmeasure.inference._fm_kernel`), and the vectorised one over instances (numpy). Printed
per m: CPU seconds of each (best of ``--repeats``), their ratio, and whether the values are equal
bit for bit.

    PYTHONPATH=src python benchmarks/bench_fm.py
    PYTHONPATH=src python benchmarks/bench_fm.py --labels 983 --instances 3185
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fmeasure.inference._fm_kernel import fm_values_rows
from fmeasure.inference.independence import _fm_values_vectorised


def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=int, nargs="+", default=[6, 14, 53, 101, 374, 983])
    ap.add_argument("--instances", type=int, default=800)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    warm = np.empty((1, 3))
    fm_values_rows(np.array([[0.5, 0.2]]), warm)  # compile outside the timing
    print(f"{'m':>6} {'instances':>9} {'compiled s':>11} {'vectorised s':>13} {'ratio':>7}  equal")
    for m in args.labels:
        P = rng.random((args.instances, m)) ** 3
        P[:, m // 4 :] *= rng.random((args.instances, m - m // 4)) < 0.5
        q = -np.sort(-P, axis=1)

        def compiled(q=q, m=m):
            E = np.empty((q.shape[0], m + 1))
            fm_values_rows(q, E)
            return E

        t_ours, ours = _best(compiled, args.repeats)
        t_ref, ref = _best(lambda q=q: _fm_values_vectorised(q), args.repeats)
        ratio = t_ref / t_ours if t_ours > 0 else np.inf
        print(f"{m:>6} {args.instances:>9} {t_ours:>11.3f} {t_ref:>13.3f} {ratio:>6.1f}x  {np.array_equal(ours, ref)}")


if __name__ == "__main__":
    main()
