"""scikit-learn-style multi-label learners whose predictions maximise the instance-wise F-measure."""

__all__ = ["KNeighborsFMeasure", "f_measure_scorer", "FMeasureSSVM"]


def __getattr__(name):
    # Lazy exports: importing one learner module does not import the others.
    if name in ("KNeighborsFMeasure", "f_measure_scorer"):
        from fmeasure.learners import knn

        return getattr(knn, name)
    if name == "FMeasureSSVM":
        from fmeasure.learners import ssvm

        return ssvm.FMeasureSSVM
    raise AttributeError(f"module 'fmeasure.learners' has no attribute {name!r}")
