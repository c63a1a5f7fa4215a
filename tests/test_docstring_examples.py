"""The ``Examples`` sections of the estimators' docstrings run, and print what they show.

Every estimator class of ``kernelkit.__all__`` (an alias such as ``MEBClassifier``, the same
class as ``FrankWolfeSVC``, once, under the class's own name) must have examples in its
docstring. They are collected with :class:`doctest.DocTestFinder` (the class docstring's, and
those of the methods the class itself defines, should any have some) and run with ``ELLIPSIS``
and ``NORMALIZE_WHITESPACE``, each docstring in an empty namespace of its own, so that an
example imports what it uses. A failing example fails here with the runner's report: the
example, the expected and the actual output.

The examples fit tiny data sets in well under a second each and print rounded values or
booleans, never floating-point arrays; where kernelkit promises scikit-learn's model
(``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``, ``OneClassSVM``, ``ConstrainedSVR`` without
constraints) they show the agreement. ``kernelkit.dask`` exports functions only, no estimator
class (its AID accepts dask arrays in the estimators of ``kernelkit``); a guard below checks
that it stays so, or that a class it exports is one of these.
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest
from sklearn.base import BaseEstimator

import kernelkit

OPTION_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _estimator_classes(module_name: str) -> dict[str, type]:
    """The estimator classes a module exports in ``__all__``, by class name (aliases once)."""
    module = importlib.import_module(module_name)
    found: dict[str, type] = {}
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found.setdefault(obj.__name__, obj)
    return found


ESTIMATORS = _estimator_classes("kernelkit")


def _doctests(klass: type) -> list[doctest.DocTest]:
    """The docstring examples of ``klass``, the class docstring's first."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = finder.find(klass, klass.__name__, globs={})
    return sorted(tests, key=lambda test: (test.name != klass.__name__, test.name))


def test_the_estimators_are_found() -> None:
    """A guard against a collection that silently checks nothing."""
    assert {"SVC", "NuSVC", "SVR", "FrankWolfeSVC", "AIDSemiSupervisedClassifier"} <= set(
        ESTIMATORS
    )
    assert "MEBClassifier" not in ESTIMATORS  # the alias of FrankWolfeSVC, run once
    assert kernelkit.MEBClassifier is ESTIMATORS["FrankWolfeSVC"]


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_docstring_examples_run(name: str) -> None:
    klass = ESTIMATORS[name]
    tests = _doctests(klass)
    assert tests and tests[0].name == name and tests[0].examples, (
        f"{name}'s docstring has no Examples section with examples"
    )
    runner = doctest.DocTestRunner(optionflags=OPTION_FLAGS, verbose=False)
    report: list[str] = []
    failed = attempted = 0
    for test in tests:
        result = runner.run(test, out=report.append)
        failed += result.failed
        attempted += result.attempted
    assert attempted > 0
    assert failed == 0, f"{failed} of {attempted} examples failed:\n" + "".join(report)


def test_kernelkit_dask_exports_no_estimator_of_its_own() -> None:
    """``kernelkit.dask``'s public estimator classes (none today) would need examples too:
    any it exports must be one of ``kernelkit``'s, whose examples run above."""
    pytest.importorskip("dask.array")  # the dask extra; kernelkit.dask imports it
    exported = _estimator_classes("kernelkit.dask")
    assert all(ESTIMATORS.get(name) is klass for name, klass in exported.items()), sorted(exported)
