"""fmeasure: Bayes-optimal F-measure maximizers for multi-label classification.

Exact inference (GFM) and its competitors, estimators that feed them, and the pipeline that
regenerates Waegeman et al., "On the Bayes-optimality of F-measure Maximizers", JMLR 2014.
Submodules: :mod:`fmeasure.metrics`, :mod:`fmeasure.inference`, :mod:`fmeasure.estimation`,
:mod:`fmeasure.learners`, :mod:`fmeasure.datasets`, ... The one-line route to F-optimal
predictions from any probabilistic scikit-learn model: ``fmeasure.FOptimalClassifier(model)``;
the route chosen for you by cross-validation on the training set: ``fmeasure.FOptimalSearchCV()``.
"""

__version__ = "0.1.0"

__all__ = ["FOptimalClassifier", "FOptimalSearchCV"]


def __getattr__(name):
    # fmeasure.FOptimalClassifier and fmeasure.FOptimalSearchCV, imported on first use (importing
    # fmeasure stays light).
    if name == "FOptimalClassifier":
        from fmeasure.learners.foptimal import FOptimalClassifier

        return FOptimalClassifier
    if name == "FOptimalSearchCV":
        from fmeasure.learners.search import FOptimalSearchCV

        return FOptimalSearchCV
    raise AttributeError(f"module 'fmeasure' has no attribute {name!r}")
