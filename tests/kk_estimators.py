"""Checks shared by the estimator tests: a fit that must converge, two fits that must be equal,
the clone of a fitted model, errors that name the bad parameter, and the progress callback
(called during a fit; returning True stops the fit at its first report, with status "stopped",
a ConvergenceWarning and fewer iterations)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone

from kernelkit import ConvergenceWarning


def fit_converged(model: Any, x: Any, y: Any) -> Any:
    """Fits ``model`` on ``(x, y)`` with a ConvergenceWarning raised as an error; its ``status_``
    must be "converged". Returns the model."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(x, y)
    assert model.status_ == "converged", model.status_
    return model


def assert_same_attributes(a: Any, b: Any, names: Iterable[str]) -> None:
    """The attributes ``names`` of two fitted models are equal, value for value."""
    for name in names:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def unfitted_clone(model: Any, fitted: str, names: str) -> Any:
    """``sklearn.base.clone`` of the fitted ``model``: it must have no ``fitted`` attribute and
    the same parameters as ``model``, value for value (arrays compared element by element),
    among them at least the space-separated ``names``. Returns the clone."""
    copy = clone(model)
    assert not hasattr(copy, fitted)
    params, copied = model.get_params(), copy.get_params()
    assert set(params) >= set(names.split())
    assert set(params) == set(copied)
    for key, value in params.items():
        np.testing.assert_array_equal(copied[key], value, err_msg=key)
    return copy


def fit_stopped_by_callback(make: Callable[..., Any], x: Any, y: Any) -> tuple[Any, Any, int]:
    """Fits ``make(callback=...)`` twice: once recording every report (it must converge and
    report at least once), once returning True at the first report. Returns the full fit, the
    stopped fit and the iteration of the stopping report."""
    calls: list[dict[str, Any]] = []

    def record(progress: Any) -> None:
        calls.append(dict(progress))

    full = fit_converged(make(callback=record), x, y)
    if not calls:
        pytest.fail(f"no progress report in a {full.n_iter_}-iteration fit")
    assert all("iteration" in c for c in calls)
    stops: list[dict[str, Any]] = []

    def stop(progress: Any) -> bool:
        stops.append(dict(progress))
        return True

    stopped = make(callback=stop)
    with pytest.warns(ConvergenceWarning):
        stopped.fit(x, y)
    assert stopped.status_ == "stopped"
    assert len(stops) == 1, "the callback was called again after returning True"
    assert 0 < stopped.n_iter_ < full.n_iter_
    assert stopped.n_iter_ <= int(stops[0]["iteration"]) + 1
    return full, stopped, int(stops[0]["iteration"])


def raises_naming(name: str, fit: Callable[[], Any], also: str | None = None) -> str:
    """fit() raises ValueError or TypeError whose message names ``name`` (as a word); returns
    the message."""
    with pytest.raises((ValueError, TypeError)) as info:
        fit()
    message = str(info.value)
    assert re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", message), (
        f"{type(info.value).__name__} does not name {name!r}: {message!r}"
    )
    if also is not None:
        assert re.search(also, message), f"{message!r} does not match {also!r}"
    return message
