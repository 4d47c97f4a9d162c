"""Theory of Sections 2-4 of the paper, computed rather than quoted (library: no tables, no plots).

* :mod:`fmeasure.theory.constructions` -- the worst-case distributions of the appendix and the
  worked examples, evaluated exactly with :mod:`fmeasure.inference`; re-exported here, so
  ``from fmeasure import theory; theory.subset_worst_case_distribution(...)`` works. The tables
  the pipeline builds from them are in :mod:`fmeasure.experiments.theory`.
* :mod:`fmeasure.theory.lp` -- exact worst-case regrets by linear programming.
"""

#: The surrogate predictions whose worst-case F-regret :mod:`fmeasure.theory.lp` computes: marginal
#: modes (Hamming), the joint mode (subset 0/1) and thresholding of the marginals.
SURROGATES = ("hamming", "subset", "threshold")

from .constructions import *  # noqa: E402,F401,F403
from .constructions import __all__ as _constructions_all  # noqa: E402

__all__ = ["SURROGATES", *_constructions_all]
