"""One-vs-one pairs trained concurrently give the model trained one pair after the other."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import Dataset

from kernelkit import SVC, NuSVC, _core


def test_concurrent_pairs_give_the_sequential_model(digits: Dataset) -> None:
    d = digits
    for make in (lambda n: SVC(gamma=0.02, n_jobs=n), lambda n: NuSVC(nu=0.1, n_jobs=n)):
        sequential = make(1).fit(d.X, d.y)
        concurrent = make(2).fit(d.X, d.y)
        np.testing.assert_array_equal(sequential.support_, concurrent.support_)
        np.testing.assert_array_equal(sequential.dual_coef_, concurrent.dual_coef_)
        np.testing.assert_array_equal(sequential.intercept_, concurrent.intercept_)
        np.testing.assert_array_equal(sequential.n_iter_, concurrent.n_iter_)
        np.testing.assert_array_equal(
            sequential.decision_function(d.X_test), concurrent.decision_function(d.X_test)
        )


def test_an_exception_in_one_concurrent_pair_reaches_the_caller(digits: Dataset) -> None:
    def fail(progress: object) -> bool:
        raise RuntimeError("stop here")

    # Every pair reports at its 64th iteration, which these pairs reach at tol=1e-9.
    model = SVC(gamma=0.02, C=100.0, tol=1e-9, n_jobs=2, callback=fail)
    with pytest.raises(RuntimeError, match="stop here"):
        model.fit(digits.X, digits.y)
    assert not hasattr(model, "support_")


def test_pairs_given_one_thread_each_run_at_the_same_time(digits: Dataset) -> None:
    # n_jobs=2: two pairs at a time, one thread each; a callback runs on its solve's thread.
    # The first callback (or two) waits for a callback from another thread. Had the two pairs
    # shared one pool of one thread (as they once did), the second pair could not start while
    # the first waited, and the wait would time out.
    seen: set[int] = set()
    both = threading.Event()
    waits: list[bool] = []

    def meet(progress: object) -> bool:
        seen.add(threading.get_ident())
        if len(seen) >= 2:
            both.set()
        if not waits:
            waits.append(both.wait(timeout=10.0))
        return False

    # Every pair reports at its 64th iteration, which these pairs reach at tol=1e-9.
    SVC(gamma=0.02, C=100.0, tol=1e-9, n_jobs=2, callback=meet).fit(digits.X, digits.y)
    assert waits, "no callback"
    assert all(waits), "the pairs ran one after the other"
    assert len(seen) >= 2


def test_a_set_stop_flag_stops_every_solve_given_it(digits: Dataset) -> None:
    """The flag that stops one-vs-one's concurrent pairs (set when one fails or on Ctrl-C) is
    read by the solve without the GIL, at its reports: an unset flag changes nothing, a set
    one stops the solve at its first report."""
    X = np.ascontiguousarray(digits.X[:400])
    y = np.where(digits.y[:400] % 2 == 0, 1.0, -1.0)
    upper = np.full(len(y), 100.0)
    kernel = _core.Kernel("rbf", gamma=0.02)
    flag = _core.StopFlag()
    alone = _core.solve_c_svc(X, y, upper, kernel, tol=1e-9)
    free = _core.solve_c_svc(X, y, upper, kernel, tol=1e-9, stop=flag)
    assert free.status == alone.status == "converged"
    np.testing.assert_array_equal(free.x, alone.x)
    assert not flag.is_set()
    flag.set()
    assert flag.is_set()
    for _ in range(2):  # every solve given the flag
        stopped = _core.solve_c_svc(X, y, upper, kernel, tol=1e-9, stop=flag)
        assert stopped.status == "stopped"
        assert 0 < stopped.iterations < free.iterations
        # Its result is for discarding: no final gradient rebuild, so no objective.
        assert np.isnan(stopped.objective)
    with pytest.raises(TypeError, match="StopFlag"):
        _core.solve_c_svc(X, y, upper, kernel, stop=threading.Event())  # type: ignore[typeddict-item]
