"""BLAS thread control for the small, batched matrix products of inference and estimation."""

from __future__ import annotations

import functools

__all__ = ["single_threaded_blas"]

_BLAS_CONTROLLER = None


def single_threaded_blas(fn):
    """Run ``fn`` with BLAS limited to one thread.

    Our matrix products are small and batched; a multi-threaded BLAS spends
    most of its time waiting for its threads on such small products. The controller is created
    once; entering/leaving the limit costs ~30 microseconds.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global _BLAS_CONTROLLER
        if _BLAS_CONTROLLER is None:
            from threadpoolctl import ThreadpoolController

            _BLAS_CONTROLLER = ThreadpoolController()
        with _BLAS_CONTROLLER.limit(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper
