"""Wall-clock timing shared by every measured step (the times the paper's tables report).

A timed step runs ``k`` times; its time is the smallest of the ``k`` (as :mod:`timeit`
recommends: other work on the machine only ever adds time), and its *spread* says how far that
smallest time can be trusted: ``100 ln(t_(2) / t_(1))``, the gap between the two fastest repeats
in percent (log scale). When the delays that other work adds are exponential, the expected gap
between the two fastest of ``k`` repeats is ``k / (k - 1)`` times the expected excess of the
fastest over the undisturbed time, so the spread is an error bar of a best-of-``k`` time. The ``k`` times are kept
(:func:`format_repeats`) so that a comparison of two steps can show both.
"""

from __future__ import annotations

import math
import time

import numpy as np

__all__ = ["best_of", "repeat_times", "spread", "format_repeats", "parse_repeats"]


def repeat_times(fn, repeats: int = 1):
    """Run ``fn()`` ``repeats`` times; return ``(wall seconds of each run, last result)``.

    Examples
    --------
    >>> seconds, value = repeat_times(lambda: sum(range(10)), repeats=3)
    >>> value, seconds.shape, bool((seconds >= 0).all())
    (45, (3,), True)
    """
    repeats = int(repeats)
    if repeats < 1:
        raise ValueError(f"repeats: must be >= 1, got {repeats}")
    out, times = None, np.empty(repeats)
    for r in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times[r] = time.perf_counter() - t0
    return times, out


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
    times, out = repeat_times(fn, repeats)
    return float(times.min()), out


def spread(times) -> float:
    """``100 ln(second fastest / fastest)`` of repeated timings, in percent; NaN for fewer than two.

    The error bar of the best time (see the module's docstring); 0 when the two fastest agree.

    Examples
    --------
    >>> round(spread([0.30, 0.10, 0.11]), 2)
    9.53
    >>> spread([0.2])
    nan
    """
    t = np.sort(np.asarray(times, dtype=float).ravel())
    if t.size < 2:
        return math.nan
    if not np.all(np.isfinite(t)) or t[0] <= 0:
        raise ValueError(f"times: must be finite and > 0, got {t.tolist()}")
    return float(100.0 * math.log(t[1] / t[0]))


def format_repeats(times) -> str:
    """The repeats' times as one CSV cell: seconds to 4 significant digits, ``;``-separated, in the
    order they were measured.

    Examples
    --------
    >>> format_repeats([0.0123456, 1.5, 2e-05])
    '0.01235;1.5;2e-05'
    >>> parse_repeats(format_repeats([0.5, 0.25])).tolist()
    [0.5, 0.25]
    """
    return ";".join(f"{float(t):.4g}" for t in np.asarray(times, dtype=float).ravel())


def parse_repeats(cell) -> np.ndarray:
    """The times of a cell written by :func:`format_repeats` (a number: one time; empty: none)."""
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return np.empty(0)
    if isinstance(cell, (int, float, np.number)):
        return np.array([float(cell)])
    parts = [p for p in str(cell).split(";") if p.strip()]
    return np.array([float(p) for p in parts])
