"""FM (Ye et al. 2012's dynamic program): the compiled program against the vectorised one.

For each number of labels m, ``fmeasure.inference.fm`` predicts random marginals of ``--instances``
instances (a share of exact zeros, as marginals estimated from samples have) twice: with the
compiled program, one instance at a time (:mod:`fmeasure.inference._fm_kernel`, the default), and
with the vectorised program over instances (numpy; the form ``fm`` keeps for more labels than the
compiled one's memory allows, selected here by setting that limit to 0). Printed per m: CPU seconds
of each (best of ``--repeats``), their ratio, and whether predictions and values are equal bit for
bit.

    PYTHONPATH=src python benchmarks/bench_fm.py
    PYTHONPATH=src python benchmarks/bench_fm.py --labels 983 --instances 3185
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fmeasure.inference import fm, independence


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
    fm(np.array([[0.5, 0.2]]))  # compile outside the timing
    limit = independence._KERNEL_BYTES

    def vectorised(P):
        independence._KERNEL_BYTES = 0
        try:
            return fm(P)
        finally:
            independence._KERNEL_BYTES = limit

    print(f"{'m':>6} {'instances':>9} {'compiled s':>11} {'vectorised s':>13} {'ratio':>7}  equal")
    for m in args.labels:
        P = rng.random((args.instances, m)) ** 3
        P[:, m // 4 :] *= rng.random((args.instances, m - m // 4)) < 0.5
        t_ours, (h, v) = _best(lambda P=P: fm(P), args.repeats)
        t_ref, (h_ref, v_ref) = _best(lambda P=P: vectorised(P), args.repeats)
        ratio = t_ref / t_ours if t_ours > 0 else np.inf
        equal = np.array_equal(h, h_ref) and np.array_equal(v, v_ref)
        print(f"{m:>6} {args.instances:>9} {t_ours:>11.3f} {t_ref:>13.3f} {ratio:>6.1f}x  {equal}")


if __name__ == "__main__":
    main()
