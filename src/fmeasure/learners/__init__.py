"""scikit-learn-style multi-label learners whose predictions maximise the instance-wise F-measure."""

__all__ = ["KNeighborsFMeasure", "f_measure_scorer", "VotingEnsemble"]


def __getattr__(name):
    # Lazy exports: importing one learner module does not import the others.
    if name in ("KNeighborsFMeasure", "f_measure_scorer"):
        from fmeasure.learners import knn

        return getattr(knn, name)
    if name == "VotingEnsemble":
        from fmeasure.learners import voting

        return voting.VotingEnsemble
    raise AttributeError(f"module 'fmeasure.learners' has no attribute {name!r}")
