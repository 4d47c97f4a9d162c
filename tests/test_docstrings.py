"""The examples in the public docstrings run and print what they claim."""

import doctest
import importlib

import pytest

MODULES = ["fmeasure.metrics", "fmeasure.estimation", "fmeasure.inference.general",
           "fmeasure.inference.independence", "fmeasure.inference.joint"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0
