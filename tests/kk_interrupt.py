"""The child process of ``tests/test_interrupt.py``: fits under Ctrl-C, one JSON line per fit.

``python tests/kk_interrupt.py points CASE [CASE ...]``
    For each case and each point where a Ctrl-C can meet a fit, makes one arrive there
    deterministically and reports the outcome. The points: ``before_watch`` (in Rust, GIL held,
    before the watcher polls), ``in_solver`` (on the solving thread, not Python's main thread),
    ``after_solve`` (after the solver's last check, pending when the core returns to Python:
    it must still raise before ``fit`` returns), through the core's test hook
    ``_core._simulate_interrupt_at``; and ``between_solves`` (in Python, between two solves of a
    multiclass fit, by ``signal.raise_signal``).

``python tests/kk_interrupt.py stress TRIALS SEED [pandas] CASE [CASE ...]``
    Times one uninterrupted fit of each case, then sends SIGINT (``os.kill``) at a time drawn
    uniformly over that window after the call of ``fit``, TRIALS times; ``pandas`` imports
    pandas and pyarrow first (libarrow starts a jemalloc background thread).

Each line: ``{"case", "point" | "at", "outcome", "delay", "state"}``. ``outcome``:
``interrupted`` (KeyboardInterrupt out of ``fit``), ``after_return`` (``fit`` returned a
complete model, then KeyboardInterrupt: the signal came after its last bytecode that checks),
``finished`` (no KeyboardInterrupt although a signal was sent: the failure this file hunts) or
``no_signal`` (the fit ended before the timer fired). ``delay``: seconds from the signal to the
KeyboardInterrupt. ``state``: ``unchanged`` (the estimator pickles as before the call),
``fitted`` (a complete new model) or ``partial`` (neither: a failure).
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

# A process started in the background by a non-interactive shell (`cmd &`) inherits SIGINT
# ignored (POSIX), and Python then installs no handler of its own: Ctrl-C does nothing in it
# and its children. That, not kernelkit, made a full suite run print "finished" (issue 41).
# This child restores Python's handler so that what is tested is kernelkit.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

import numpy as np  # noqa: E402

import kernelkit  # noqa: E402
from kernelkit import _core  # noqa: E402
from kernelkit.solvers import Smo  # noqa: E402

Data = tuple[Any, Any]


def _problems() -> dict[str, Callable[[int], Data]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 20))

    def classes(k: int) -> Callable[[int], Data]:
        return lambda n: (x[:n], rng.integers(0, k, n))

    return {
        "classes": classes(2),
        "four_classes": classes(4),
        "regression": lambda n: (x[:n], rng.normal(size=n)),
        "none": lambda n: (x[:n], None),
        "pu": lambda n: (x[:n], (np.arange(n) % 3 == 0).astype(int)),
        "semi": lambda n: (x[:n], np.where(np.arange(n) % 5 == 0, np.arange(n) % 2, -1)),
    }


HARD = {"tol": 1e-6, "n_jobs": 1}
RBF = {"gamma": 0.05}
#: name -> (estimator class, parameters, problem, rows of the interrupted fit). The rows make
#: an uninterrupted fit last about a second here.
CASES: dict[str, tuple[str, dict[str, Any], str, int]] = {
    "SVC": ("SVC", {"C": 10.0, **RBF, **HARD}, "classes", 2500),
    # 6 pairs on 2 threads in one core call (`_core.solve_c_svc_pairs`, Rust workers).
    "SVC_pairs_in_rust": (
        "SVC",
        {"C": 10.0, **RBF, "tol": 1e-6, "n_jobs": 2},
        "four_classes",
        2500,
    ),
    # A callback sends the pairs to Python threads (`_run_in_parallel`, one core call each).
    "SVC_pairs_on_threads": (
        "SVC",
        {"C": 10.0, **RBF, "tol": 1e-6, "n_jobs": 2, "callback": "noop"},
        "four_classes",
        2500,
    ),
    # One pair after another on the calling thread (between_solves hits between two of them).
    "SVC_pairs_in_sequence": ("SVC", {"C": 10.0, **RBF, **HARD}, "four_classes", 1500),
    "NuSVC": ("NuSVC", {"nu": 0.5, **RBF, **HARD}, "classes", 2500),
    "SVR": ("SVR", {"C": 10.0, "epsilon": 0.0, **RBF, **HARD}, "regression", 2000),
    "NuSVR": ("NuSVR", {"C": 10.0, **RBF, **HARD}, "regression", 2000),
    "OneClassSVM": ("OneClassSVM", {"nu": 0.5, "gamma": 2.0, **HARD}, "none", 4000),
    "PUClassifier": ("PUClassifier", {"prior": 0.5, "lam": 1e-4, **RBF, **HARD}, "pu", 2500),
    "FrankWolfeSVC": (
        "FrankWolfeSVC",
        {"C": 100.0, **RBF, "epsilon": 1e-9, "random_state": 0, "n_jobs": 1},
        "classes",
        2500,
    ),
    "ConstrainedSVR": ("ConstrainedSVR", {"C": 100.0, **HARD}, "regression", 4000),
    "SparseKernelLogisticRegression": (
        "SparseKernelLogisticRegression",
        {"C": 10.0, **RBF, **HARD},
        "classes",
        1500,
    ),
    "AIDClassifier": (
        "AIDClassifier",
        {"C": 10.0, "kernel": "rbf", **RBF, "tol": 1e-6, "solver": "smo", "random_state": 0},
        "classes",
        1500,
    ),
    "AIDRegressor": (
        "AIDRegressor",
        {"tol": 1e-9, "random_state": 0, "n_jobs": 1},
        "regression",
        4000,
    ),
    "AIDSemiSupervisedClassifier": (
        "AIDSemiSupervisedClassifier",
        {"C": 10.0, "tol": 1e-9, "random_state": 0, "n_jobs": 1},
        "semi",
        4000,
    ),
}


def _noop(progress: Any) -> None:
    """A callback that only makes the fit report (module-level: the estimator pickles)."""


def _make(case: str, quick: bool = False) -> tuple[Callable[[], Any], Data, Data]:
    """A factory of the case's estimator, a small problem (the previous model) and the problem
    of the interrupted fit: the case's own, or with ``quick`` one of 600 rows at the default
    tolerance (``points`` lets a whole solve run before ``after_solve``)."""
    name, params, problem, rows = CASES[case]
    params = dict(params)
    if quick:
        rows = 600
        for key in ("tol", "epsilon"):
            params.pop(key, None)
    if params.get("callback") == "noop":
        params["callback"] = _noop
    if params.get("solver") == "smo":
        params["solver"] = Smo(tol=1e-6)
    make_data = _problems()[problem]
    return (lambda: getattr(kernelkit, name)(**params)), make_data(200), make_data(rows)


def _fit(model: Any, data: Data) -> Any:
    x, y = data
    return model.fit(x) if y is None else model.fit(x, y)


def _state(model: Any, before: bytes) -> str:
    """``unchanged``, ``fitted`` (every fitted attribute of a complete fit) or ``partial``."""
    if pickle.dumps(model) == before:
        return "unchanged"
    try:
        kernelkit_attrs = [k for k in vars(model) if k.endswith("_") and not k.startswith("_")]
        probe = np.zeros((1, model.n_features_in_))
        model.predict(probe)
        return "fitted" if kernelkit_attrs else "partial"
    except Exception:
        return "partial"


def _report(**row: Any) -> None:
    print(json.dumps(row), flush=True)


def _interrupt() -> None:
    """Ctrl-C now, in Python (raises KeyboardInterrupt here)."""
    signal.raise_signal(signal.SIGINT)


def _interrupting_second_call(real: Callable[..., Any]) -> Callable[..., Any]:
    """``real``, with a Ctrl-C before its second call: between two solves of a fit."""
    calls: list[None] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        calls.append(None)
        if len(calls) == 2:
            _interrupt()
        return real(*args, **kwargs)

    return call


def points(cases: list[str]) -> None:
    for case in cases:
        make, small, data = _make(case, quick=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            before = pickle.dumps(_fit(make(), small))
        hooks = ["before_watch", "in_solver", "after_solve"]
        for point in hooks + (["between_solves"] if case == "SVC_pairs_in_sequence" else []):
            model = pickle.loads(before)
            reference = pickle.dumps(model)  # (a copy's pickle can differ in its memo)
            real = _core.solve_c_svc
            if point == "between_solves":
                _core.solve_c_svc = _interrupting_second_call(real)  # type: ignore[assignment]
            else:
                _core._simulate_interrupt_at(point)
            start = time.monotonic()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _fit(model, data)
                outcome = "finished"
            except KeyboardInterrupt:
                outcome = "interrupted"
            finally:
                _core.solve_c_svc = real  # type: ignore[assignment]
                _core._simulate_interrupt_at(None)
            elapsed = time.monotonic() - start
            state = _state(model, reference)
            _report(case=case, point=point, outcome=outcome, delay=elapsed, state=state)


def _one_trial(
    make_model: Callable[[], Any], data: Data, at: float, bound: float
) -> dict[str, Any]:
    model = make_model()
    before = pickle.dumps(model)
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(at, interrupt)
    outcome = "no_signal"
    try:
        timer.start()
        try:
            _fit(model, data)
        finally:
            timer.cancel()
            timer.join()
        if sent:
            # A signal sent during the last bytecodes of fit raises at the next check: wait
            # for it as long as the bound allows, else it was lost.
            while time.monotonic() < sent[0] + bound:
                pass
            outcome = "finished"
    except KeyboardInterrupt:
        outcome = "interrupted"
    ended = time.monotonic()
    state = _state(model, before)
    if outcome == "interrupted" and state == "fitted":
        outcome = "after_return"
    delay = ended - sent[0] if sent else None
    return {"at": at, "outcome": outcome, "delay": delay, "state": state}


def stress(trials: int, seed: int, bound: float, cases: list[str]) -> None:
    rng = np.random.default_rng(seed)
    for case in cases:
        make, _, data = _make(case)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.monotonic()
            _fit(make(), data)
            window = time.monotonic() - start
            for _ in range(trials):
                _report(
                    case=case,
                    window=window,
                    **_one_trial(make, data, rng.uniform(0, window), bound),
                )


if __name__ == "__main__":
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "points":
        points(rest)
    else:
        n_trials, trial_seed, wait_bound = int(rest[0]), int(rest[1]), float(rest[2])
        rest = rest[3:]
        if rest and rest[0] == "pandas":
            import pandas  # noqa: F401

            with contextlib.suppress(ImportError):
                import pyarrow  # noqa: F401
            rest = rest[1:]
        stress(n_trials, trial_seed, wait_bound, rest)
