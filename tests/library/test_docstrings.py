"""Every example in every docstring of the package runs and prints what it claims.

One collector for the whole package: each module of ``fmeasure`` is imported and its doctests
run. A module that gains examples is covered without touching this file.
"""

import doctest
import importlib
import pkgutil

import pytest

import fmeasure

MODULES = sorted(m.name for m in pkgutil.walk_packages(fmeasure.__path__, prefix="fmeasure."))


def _examples(name):
    return [t for t in doctest.DocTestFinder().find(importlib.import_module(name)) if t.examples]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    res = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0


def test_docstring_examples_are_collected():
    # the collector finds the modules it must: a broken walk would pass every test above vacuously
    with_examples = {name for name in MODULES if _examples(name)}
    must = {
        "fmeasure.metrics",
        "fmeasure.estimation",
        "fmeasure.inference.general",
        "fmeasure.inference.samples",
        "fmeasure.learners.knn",
        "fmeasure.learners.pcc",
        "fmeasure.learners.parametric",
        "fmeasure.label_models",
        "fmeasure.experiments.config",
        "fmeasure.timing",
    }
    assert must <= with_examples, f"no examples found in {sorted(must - with_examples)}"
