"""fmeasure: Bayes-optimal F-measure maximizers for multi-label classification.

Exact inference (GFM) and its competitors, estimators that feed them, and the pipeline that
regenerates Waegeman et al., "On the Bayes-optimality of F-measure Maximizers", JMLR 2014.
Submodules: :mod:`fmeasure.metrics`, :mod:`fmeasure.inference`, :mod:`fmeasure.estimation`,
:mod:`fmeasure.learners`, :mod:`fmeasure.datasets`, ...
"""

__version__ = "0.1.0"
