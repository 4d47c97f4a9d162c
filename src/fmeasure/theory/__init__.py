"""Theory of Sections 2-4 of the paper, computed rather than quoted (library: no tables, no plots).

* :mod:`fmeasure.theory.constructions` -- the worst-case distributions of the appendix and the
  worked examples, evaluated exactly with :mod:`fmeasure.inference`; re-exported here, so
  ``from fmeasure import theory; theory.subset_worst_case_distribution(...)`` works. The tables
  the pipeline builds from them are in ``fmeasure.experiments.theory``.
* :mod:`fmeasure.theory.lp` -- exact worst-case regrets by linear programming.

The re-exports are loaded on first use, so that ``from fmeasure.theory import SURROGATES`` (the
workflow reads it when it builds its jobs) does not import the inference's compiled kernels.
"""

import importlib

#: The surrogate predictions whose worst-case F-regret :mod:`fmeasure.theory.lp` computes: marginal
#: modes (Hamming), the joint mode (subset 0/1) and thresholding of the marginals.
SURROGATES = ("hamming", "subset", "threshold")


def __getattr__(name):
    # ``__all__`` and the names of fmeasure.theory.constructions, imported on first use
    if name == "__all__" or not (name.startswith("_") or name in ("constructions", "lp")):
        constructions = importlib.import_module("fmeasure.theory.constructions")
        if name == "__all__":
            return ["SURROGATES", *constructions.__all__]
        if name in constructions.__all__:
            return getattr(constructions, name)
    raise AttributeError(f"module 'fmeasure.theory' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__getattr__("__all__")})
