"""scikit-learn-style multi-label learners whose predictions maximise the instance-wise F-measure."""

__all__ = ["KNeighborsFMeasure", "f_measure_scorer", "FMeasureTree", "BaggedFMeasureTrees"]


def __getattr__(name):
    # Lazy exports: importing one learner module does not import the others.
    if name in ("KNeighborsFMeasure", "f_measure_scorer"):
        from fmeasure.learners import knn

        return getattr(knn, name)
    if name in ("FMeasureTree", "BaggedFMeasureTrees"):
        from fmeasure.learners import trees

        return getattr(trees, name)
    raise AttributeError(f"module 'fmeasure.learners' has no attribute {name!r}")
