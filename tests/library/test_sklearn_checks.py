"""scikit-learn's own estimator checks on every estimator of fmeasure.learners (tests/_sklearn_checks.py)."""

import warnings

import pytest
from _sklearn_checks import ESTIMATORS, estimators, expected_failed_checks
from sklearn.utils.estimator_checks import estimator_checks_generator, parametrize_with_checks

from fmeasure import learners


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_sklearn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)  # e.g. convergence on the checks' tiny data
        check(estimator)


def test_sklearn_checks_cover_every_exported_estimator():
    assert {type(est).__name__ for est in estimators()} == set(learners._EXPORTS)


@pytest.mark.parametrize("estimator", estimators(), ids=lambda est: type(est).__name__)
def test_sklearn_checks_expected_failures_are_real_checks_with_reasons(estimator):
    names = {getattr(check, "func", check).__name__ for _, check in estimator_checks_generator(estimator)}
    expected = expected_failed_checks(estimator)
    assert set(expected) <= names
    assert all(isinstance(why, str) and len(why) > 20 for why in expected.values())


@pytest.mark.parametrize("estimator", estimators(), ids=lambda est: type(est).__name__)
def test_sklearn_checks_see_multilabel_tags(estimator):
    tags = estimator.__sklearn_tags__()
    assert tags.target_tags.multi_output and tags.target_tags.single_output
    assert not tags.classifier_tags.multi_class
    assert tags.classifier_tags.multi_label or isinstance(estimator, learners.FOptimalClassifier)
