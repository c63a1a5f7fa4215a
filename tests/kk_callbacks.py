"""A shared check of the progress callback: it is called during a fit, and returning True
stops the fit at its first report (status "stopped", a ConvergenceWarning, fewer iterations)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from kernelkit import ConvergenceWarning


def fit_stopped_by_callback(make: Callable[..., Any], x: Any, y: Any) -> tuple[Any, Any, int]:
    """Fits ``make(callback=...)`` twice: once recording every report (it must converge and
    report at least once), once returning True at the first report. Returns the full fit, the
    stopped fit and the iteration of the stopping report."""
    calls: list[dict[str, Any]] = []

    def record(progress: Any) -> None:
        calls.append(dict(progress))

    full = make(callback=record)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        full.fit(x, y)
    assert full.status_ == "converged", full.status_
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
