"""scikit-learn-style multi-label learners whose predictions maximise the instance-wise F-measure.

- ``KNeighborsFMeasure`` (:mod:`.knn`): instance-based, with MM, JM, FM or GFM on the neighbours;
- ``ProbabilisticClassifierChain`` (:mod:`.pcc`): a logistic chain, inference from ancestral samples;
- ``BinaryRelevance`` (:mod:`.parametric`): one tuned logistic model per label (marginals);
- ``LFP`` (:mod:`.parametric`): BR's marginals with Ye et al.'s F-optimal dynamic program;
- ``EFP`` (:mod:`.parametric`): P and P(y = 0) estimated directly (multinomial models), then GFM;
- ``FMeasureTree``, ``BaggedFMeasureTrees`` (:mod:`.trees`): decision trees that split and predict
  for the F-measure (GFM in the leaves), and their bagging (Section 7.1.2);
- ``FMeasureSSVM`` (:mod:`.ssvm`): a linear structured SVM trained for the F-measure (the
  paper's RML, Section 7.2.4), with exact loss-augmented inference;
- ``VotingEnsemble`` (:mod:`.voting`): a vote over fitted members with the threshold chosen on a
  validation split (the JRS 2012 ensemble of Section 7.3);
- ``FOptimalClassifier`` (:mod:`.foptimal`): F-optimal predictions from any probabilistic
  scikit-learn multi-label model (FM on its marginals, or GFM on the label vectors of a chain's
  samples, a forest's leaves, the neighbours or a ``LabelPowerset``'s label sets);
- ``LabelPowerset`` (:mod:`.powerset`): a multiclass classifier over the distinct training label
  sets, a model of the joint label distribution;
- ``FOptimalMixture`` (:mod:`.mixture`): GFM on a weighted mixture of several sample routes'
  distributions;
- ``FOptimalSearchCV`` (:mod:`.search`): one route to F-optimal predictions, chosen among the above
  by cross-validation of the F-measure on the training set.

Every one follows the contract of :class:`fmeasure.learners.base.MultiLabelClassifier` and passes
scikit-learn's estimator checks: y is a 0/1 label matrix, or a 1-D y with two classes (one
label); predictions come in y's values; ``predict_expected_f`` and ``predict_marginals`` give the
expected F of the prediction and the marginals under the learner's own distribution of the labels
(all but the structured SVM). The mean instance-wise F-measure scorer for ``GridSearchCV`` is
:data:`fmeasure.metrics.f_measure_scorer`.
"""

_EXPORTS = {
    "KNeighborsFMeasure": "knn",
    "ProbabilisticClassifierChain": "pcc",
    "BinaryRelevance": "parametric",
    "LFP": "parametric",
    "EFP": "parametric",
    "FMeasureSSVM": "ssvm",
    "VotingEnsemble": "voting",
    "FMeasureTree": "trees",
    "BaggedFMeasureTrees": "trees",
    "FOptimalClassifier": "foptimal",
    "LabelPowerset": "powerset",
    "FOptimalMixture": "mixture",
    "FOptimalSearchCV": "search",
}

__all__ = list(_EXPORTS)


def __getattr__(name):
    # Lazy exports: importing one learner module does not import the others.
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f"fmeasure.learners.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'fmeasure.learners' has no attribute {name!r}")
