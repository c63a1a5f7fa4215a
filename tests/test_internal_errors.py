"""A Rust panic (a bug) inside a solver thread reaches Python as a RuntimeError naming it an
internal error, and the interpreter goes on working: never an abort, never a BaseException
that ``except Exception`` would miss."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit import SVC, _core


def test_a_panic_in_a_solver_thread_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match=r"internal error.*deliberate panic"):
        _core._panic_in_solver_thread()
    # The process is intact: a fit after the panic works and gives the usual answer.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    assert SVC(kernel="linear").fit(X, y).score(X, y) >= 0.95


def test_the_panic_is_an_ordinary_exception() -> None:
    try:
        _core._panic_in_solver_thread()
    except Exception as error:  # the point: Exception catches it
        assert isinstance(error, RuntimeError)
    else:  # pragma: no cover
        pytest.fail("no exception")
