"""Work over the rows of an array split into blocks, one per thread (for compiled kernels that
release the GIL): each row is computed alone, so the result is that of one thread."""

from __future__ import annotations

import concurrent.futures
import functools

import numpy as np

__all__ = ["in_row_blocks"]


@functools.cache
def _pool(k):
    """A pool of k threads, kept for the process's life (idle threads cost nothing)."""
    return concurrent.futures.ThreadPoolExecutor(k, thread_name_prefix="fmeasure-rows")


def in_row_blocks(n, threads, work):
    """Call ``work(lo, hi)`` on blocks of rows that cover 0 .. n - 1, at most ``threads`` of them
    at once (one when ``threads`` <= 1 or n <= 1), and wait for all; an error in a block is raised."""
    k = max(1, min(int(threads), n))
    if k == 1:
        work(0, n)
        return
    cuts = np.linspace(0, n, k + 1).astype(int)
    pool = _pool(k)
    for job in [pool.submit(work, lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]:
        job.result()
