"""Compile the package's numba kernels in one process, before the test workers start.

The kernels are compiled on first use and cached next to their source (``cache=True``). In a fresh
checkout, many processes (test workers, Snakemake jobs) would otherwise compile the same kernels at
once, and numba's cache is not safe under concurrent first compilation: a process can fail while
saving a kernel that another one is writing. Run as a script (``python tests/_warm_kernels.py``)
by tests/conftest.py when the cache is empty; every learner that uses a kernel fits once on tiny
data, dense and sparse.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import ClassifierChain

from fmeasure import inference
from fmeasure.learners import (
    BaggedFMeasureTrees,
    FMeasureSSVM,
    FMeasureTree,
    FOptimalClassifier,
    KNeighborsFMeasure,
    ProbabilisticClassifierChain,
)


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = (rng.random((40, 5)) < 0.4).astype(int)
    Y[:, 0] = 1 - Y[:, 1]  # no label constant
    for data in (X, sp.csr_matrix(X)):
        FMeasureTree(max_depth=3).fit(data, Y).predict(data)
        BaggedFMeasureTrees(n_estimators=2, max_depth=3, random_state=0).fit(data, Y).predict(data)
        KNeighborsFMeasure(n_neighbors=3, inference="gfm").fit(data, Y).predict(data)
    ProbabilisticClassifierChain(Cs=[1.0], cv=2, n_samples=20).fit(X, Y).predict(X)
    FMeasureSSVM(Cs=[1.0], cv=2, max_iter=3).fit(X, Y).predict(X)
    FOptimalClassifier(ClassifierChain(LogisticRegression(), random_state=0)).fit(X, Y).predict(X)
    inference.gfm_from_p(rng.random((3, 5, 5)) / 25, np.full(3, 0.1))


if __name__ == "__main__":
    main()
