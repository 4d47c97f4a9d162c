"""Compile the numba kernels that the learners use, once, in one process.

The kernels are compiled on first use and cached on disk by numba (``cache=True``): in the
package's ``__pycache__`` folders, or under ``NUMBA_CACHE_DIR`` when it is set. Many processes
that start at once on a fresh install (the pipeline's parallel jobs, test workers) would each
compile the same kernels, and numba's cache is not safe under concurrent first compilation: a
process can fail while it saves a kernel. :func:`compile_kernels` compiles them first, in the
calling process; the workflow calls it before its first job when :func:`kernels_compiled` is
false.
"""

import os
from pathlib import Path

__all__ = ["compile_kernels", "kernels_compiled"]

#: The package folders whose modules hold compiled kernels.
_KERNEL_PACKAGES = ("inference", "learners")


def kernels_compiled(folders=None) -> bool:
    """Whether numba has cached compiled kernels: a cache index file (``*.nbi``) in ``folders``,
    by default the package's ``__pycache__`` folders and ``NUMBA_CACHE_DIR`` when it is set.

    A package installed where it cannot write keeps its cache in a folder of the user (numba's
    choice); this function then answers False, and compiling again only loads that cache.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     before = kernels_compiled([tmp])
    ...     _ = (Path(tmp) / "sub").mkdir(), (Path(tmp) / "sub" / "_kernels.gfm_p-1.py311.nbi").touch()
    ...     before, kernels_compiled([tmp])
    (False, True)
    """
    if folders is None:
        root = Path(__file__).resolve().parents[1]
        folders = [root / p / "__pycache__" for p in _KERNEL_PACKAGES]
        if os.environ.get("NUMBA_CACHE_DIR"):
            folders.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return any(next(Path(f).rglob("*.nbi"), None) is not None for f in folders if Path(f).is_dir())


def compile_kernels() -> None:
    """Fit every learner that uses a compiled kernel once on tiny data, dense and sparse (a few
    seconds when the kernels are cached, about half a minute of CPU when they are not;
    ``benchmarks/bench_compile.py`` times each kernel)."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import ClassifierChain

    from fmeasure import inference
    from fmeasure.learners.foptimal import FOptimalClassifier
    from fmeasure.learners.knn import KNeighborsFMeasure
    from fmeasure.learners.pcc import ProbabilisticClassifierChain
    from fmeasure.learners.ssvm import FMeasureSSVM
    from fmeasure.learners.trees import BaggedFMeasureTrees, FMeasureTree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = (rng.random((40, 5)) < 0.4).astype(int)
    Y[:, 0] = 1 - Y[:, 1]  # no constant label
    for data in (X, sp.csr_matrix(X)):
        FMeasureTree(max_depth=3).fit(data, Y).predict(data)
        BaggedFMeasureTrees(n_estimators=2, max_depth=3, random_state=0).fit(data, Y).predict(data)
        KNeighborsFMeasure(n_neighbors=3, inference="gfm").fit(data, Y).predict(data)
    ProbabilisticClassifierChain(Cs=[1.0], cv=2, n_samples=20).fit(X, Y).predict(X)
    FMeasureSSVM(Cs=[1.0], cv=2, max_iter=3).fit(X, Y).predict(X)
    Xs = sp.random(40, 20, density=0.1, random_state=0, format="csr")  # sparse enough for its CSR kernel
    FMeasureSSVM(Cs=[1.0], cv=2, max_iter=3, solver="cutting_plane").fit(Xs, Y).predict(Xs)
    FOptimalClassifier(ClassifierChain(LogisticRegression(), random_state=0)).fit(X, Y).predict(X)
    inference.gfm_from_p(rng.random((3, 5, 5)) / 25, np.full(3, 0.1))
    inference.fm(rng.random((3, 5)))
