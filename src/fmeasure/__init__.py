"""fmeasure: Bayes-optimal F-measure maximizers for multi-label classification.

Reproduces Waegeman et al. (JMLR 2014), "On the Bayes-optimality of F-measure Maximizers".
Submodules: :mod:`fmeasure.metrics`, :mod:`fmeasure.inference`, :mod:`fmeasure.estimation`, ...
"""

__version__ = "0.1.0"
