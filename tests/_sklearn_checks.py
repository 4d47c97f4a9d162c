"""scikit-learn's estimator checks for the package's multilabel-only estimators.

These estimators take y as a 0/1 indicator matrix (or a 1-d 0/1 vector, read as one label). The
checks in NOT_APPLICABLE feed multiclass targets or binary targets coded other than 0/1 (e.g.
{1, 2}), so they do not apply; each estimator's tests check instead that such a target is
rejected with one clear error. check_array_api_input is left out too: no array-API claim is made
(scikit-learn skips it unless SCIPY_ARRAY_API is set).
"""

import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator

NOT_APPLICABLE = {
    "check_classifiers_train",
    "check_classifiers_classes",
    "check_supervised_y_2d",
    "check_estimators_dtypes",
    "check_classifier_data_not_an_array",
    "check_fit2d_1feature",
    "check_array_api_input",
}


def check_name(check) -> str:
    return str(getattr(check, "func", check).__name__)


def api_checks(*estimators):
    """pytest params (estimator, check) of every applicable check of each estimator."""
    return [
        pytest.param(est, check, id=f"{type(est).__name__}-{check_name(check)}-{i}")
        for base in estimators
        for i, (est, check) in enumerate(estimator_checks_generator(base, legacy=True))
        if check_name(check) not in NOT_APPLICABLE
    ]


def all_check_names(estimator) -> set:
    return {check_name(c) for _, c in estimator_checks_generator(estimator, legacy=True)}
