"""Wall-clock timing shared by every measured step (the times the paper's tables report)."""

from __future__ import annotations

import math
import time

__all__ = ["best_of"]


def best_of(fn, repeats: int = 1):
    """Run ``fn()`` ``repeats`` times; return ``(smallest wall time in seconds, last result)``.

    The smallest of several runs (as :mod:`timeit` recommends) removes most of the noise of other
    work on the machine; ``repeats=1`` is a single timing.

    Examples
    --------
    >>> seconds, value = best_of(lambda: sum(range(10)), repeats=3)
    >>> value, seconds >= 0.0
    (45, True)
    """
    repeats = int(repeats)
    if repeats < 1:
        raise ValueError(f"repeats: must be >= 1, got {repeats}")
    best, out = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
