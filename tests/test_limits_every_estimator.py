"""Every estimator obeys the same limits: a callback returning True, ``max_iter`` and
``time_limit`` end the fit with the matching ``status_`` and a ``ConvergenceWarning``, leaving
a usable model; Ctrl-C raises ``KeyboardInterrupt`` promptly, in every estimator's solver."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kernelkit

N, D = 2000, 20


def _problem(kind: str, n: int = N, d: int = D) -> tuple[np.ndarray, np.ndarray | None]:
    """Random labels and targets: hard problems that need many iterations."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, d))
    labels = rng.integers(0, 2, n)
    targets = {
        "classes": labels,
        "regression": rng.normal(size=n),
        "none": None,
        "pu": np.where((labels == 1) & (np.arange(n) % 3 == 0), 1, 0),
        "semi": np.where(np.arange(n) % 5 == 0, labels, -1),
    }
    return x, targets[kind]


#: (estimator, parameters, data, the status names of "max_iter reached").
ESTIMATORS: list[tuple[str, dict[str, Any], str]] = [
    ("SVC", {"gamma": 0.05}, "classes"),
    ("NuSVC", {"gamma": 0.05}, "classes"),
    ("SVR", {"gamma": 0.05, "epsilon": 0.0}, "regression"),
    ("NuSVR", {"gamma": 0.05}, "regression"),
    ("OneClassSVM", {"gamma": 0.05}, "none"),
    ("PUClassifier", {"prior": 0.5, "lam": 1e-4, "gamma": 0.05}, "pu"),
    ("FrankWolfeSVC", {"gamma": 0.05, "random_state": 0}, "classes"),
    ("ConstrainedSVR", {}, "regression"),
    ("SparseKernelLogisticRegression", {"gamma": 0.05}, "classes"),
    ("AIDClassifier", {"random_state": 0}, "classes"),
    ("AIDRegressor", {"random_state": 0}, "regression"),
    ("AIDSemiSupervisedClassifier", {"random_state": 0}, "semi"),
]
IDS = [name for name, _, _ in ESTIMATORS]


def _fit(name: str, params: dict[str, Any], kind: str, **limits: Any) -> tuple[Any, list[Any]]:
    x, y = _problem(kind)
    model = getattr(kernelkit, name)(**params, **limits)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(x) if y is None else model.fit(x, y)
    return model, [w.category for w in caught]


def _statuses(model: Any) -> set[str]:
    status = model.status_
    return set(status) if isinstance(status, list) else {status}


def _usable(model: Any, kind: str) -> None:
    x, _ = _problem(kind, n=50)
    scores = model.decision_function(x) if hasattr(model, "decision_function") else None
    predictions = model.predict(x)
    assert predictions.shape == (50,)
    if scores is not None:
        assert np.all(np.isfinite(scores))


@pytest.mark.parametrize(("name", "params", "kind"), ESTIMATORS, ids=IDS)
def test_a_callback_returning_true_stops_the_fit(
    name: str, params: dict[str, Any], kind: str
) -> None:
    calls: list[int] = []

    def stop(progress: Any) -> bool:
        calls.append(1)
        return True

    model, caught = _fit(name, params, kind, callback=stop)
    assert len(calls) == 1, "the fit went on after the callback asked to stop"
    assert _statuses(model) == {"stopped"}
    assert kernelkit.ConvergenceWarning in caught
    _usable(model, kind)


@pytest.mark.parametrize(("name", "params", "kind"), ESTIMATORS, ids=IDS)
def test_max_iter_ends_the_fit(name: str, params: dict[str, Any], kind: str) -> None:
    model, caught = _fit(name, params, kind, max_iter=2)
    # The AID estimators count aggregated solves; the others, solver iterations.
    assert _statuses(model) <= {"max_iterations", "max_iter"}
    assert np.all(np.asarray(model.n_iter_) <= 2)
    if name == "AIDSemiSupervisedClassifier":
        # Its max_iter is the paper's solve budget (AID1 / AID5), not a failure: no warning.
        assert kernelkit.ConvergenceWarning not in caught
    else:
        assert kernelkit.ConvergenceWarning in caught
    _usable(model, kind)


@pytest.mark.parametrize(("name", "params", "kind"), ESTIMATORS, ids=IDS)
def test_time_limit_ends_the_fit(name: str, params: dict[str, Any], kind: str) -> None:
    start = time.perf_counter()
    model, caught = _fit(name, params, kind, time_limit=1e-3)
    elapsed = time.perf_counter() - start
    assert _statuses(model) == {"time_limit"}
    assert kernelkit.ConvergenceWarning in caught
    # Not a speed test: the fit must end long before it would have converged (seconds), even
    # on a loaded machine.
    assert elapsed < 5.0
    _usable(model, kind)


#: Each estimator on a problem that takes far more than a second (random labels, tight
#: tolerances, a tiny cache); the child prints a JSON line per estimator.
SIGINT_SCRIPT = textwrap.dedent(
    """
    import json, os, signal, threading, time, warnings
    # Python's own handler, even when pytest was started with SIGINT ignored (kk_interrupt.py).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import kernelkit
    from kernelkit.solvers import Smo
    # This file's data (the script runs in the tests folder): the same rows for every kind.
    from test_limits_every_estimator import _problem

    kinds = ("classes", "regression", "pu", "semi")
    targets = {kind: _problem(kind, n=6000, d=40)[1] for kind in kinds}
    x = _problem("none", n=6000, d=40)[0]
    # One-class problems converge in a few thousand iterations: more rows (8 s uninterrupted).
    wide = _problem("none", n=20000, d=40)[0]
    hard = dict(tol=1e-12, cache_size=1, n_jobs=1)
    cases = [
        ("SVC", dict(C=1000.0, gamma=0.05, **hard), "classes"),
        ("NuSVC", dict(gamma=0.05, **hard), "classes"),
        ("SVR", dict(C=1000.0, gamma=0.05, epsilon=0.0, **hard), "regression"),
        ("NuSVR", dict(C=1000.0, gamma=0.05, **hard), "regression"),
        ("OneClassSVM", dict(nu=0.5, gamma=2.0, **hard), "none"),
        ("PUClassifier", dict(prior=0.5, lam=1e-6, gamma=0.05, **hard), "pu"),
        ("FrankWolfeSVC", dict(C=1000.0, gamma=0.05, epsilon=1e-12, random_state=0,
                               cache_size=1, n_jobs=1), "classes"),
        ("ConstrainedSVR", dict(C=1000.0, **hard), "regression"),
        ("SparseKernelLogisticRegression", dict(C=1000.0, gamma=0.05, **hard), "classes"),
        ("AIDClassifier", dict(C=1000.0, kernel="rbf", gamma=0.05, tol=1e-12,
                               solver=Smo(tol=1e-12), cache_size=1, n_jobs=1, random_state=0),
         "classes"),
        ("AIDRegressor", dict(tol=1e-12, random_state=0, n_jobs=1), "regression"),
        ("AIDSemiSupervisedClassifier", dict(C=1000.0, tol=1e-12, random_state=0, n_jobs=1),
         "semi"),
    ]
    warnings.simplefilter("ignore")
    for name, params, kind in cases:
        model = getattr(kernelkit, name)(**params)
        y = targets.get(kind)
        data = wide if kind == "none" else x
        sent = []
        def interrupt():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)
        timer = threading.Timer(0.7, interrupt)
        timer.start()
        try:
            model.fit(data) if y is None else model.fit(data, y)
            outcome = "finished"
        except KeyboardInterrupt:
            outcome = "interrupted"
        ended = time.monotonic()
        timer.cancel()
        delay = ended - sent[0] if sent else None
        print(json.dumps({"name": name, "outcome": outcome, "delay": delay}), flush=True)
    """
)


def test_ctrl_c_interrupts_every_estimator() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SIGINT_SCRIPT],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parent,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["name"] for row in rows] == IDS
    for row in rows:
        assert row["outcome"] == "interrupted", row
        # The bound: within a second (measured 0.01-0.25 s; the solvers check for
        # signals every ~20 ms, AID between and inside its inner solves).
        assert row["delay"] < 1.0, row


@pytest.mark.parametrize(("name", "params", "kind"), ESTIMATORS, ids=IDS)
def test_a_fit_that_fails_in_the_solver_keeps_the_previous_model(
    name: str, params: dict[str, Any], kind: str
) -> None:
    """An exception from the callback ends a refit on other data (more features); the
    estimator keeps its previous model, usable on the previous data."""
    x, y = _problem(kind, n=300)
    model = getattr(kernelkit, name)(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x) if y is None else model.fit(x, y)
    method = "decision_function" if hasattr(model, "decision_function") else "predict"
    before = getattr(model, method)(x)

    def fail(progress: Any) -> None:
        raise RuntimeError("from the callback")

    wider = np.hstack([x, x[:, :3]])
    model.set_params(callback=fail)
    with pytest.raises(RuntimeError, match="from the callback"):
        model.fit(wider) if y is None else model.fit(wider, y)
    assert model.n_features_in_ == x.shape[1]
    np.testing.assert_array_equal(getattr(model, method)(x), before)


def test_scikit_learns_convergence_warning_filter_silences_kernelkits() -> None:
    """kernelkit.ConvergenceWarning is a subclass of scikit-learn's, so the filters that users
    (and scikit-learn's own utilities) write for that one apply."""
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

    assert issubclass(kernelkit.ConvergenceWarning, SklearnConvergenceWarning)
    x, y = _problem("classes", n=300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=SklearnConvergenceWarning)
        kernelkit.SVC(max_iter=2).fit(x, y)
    assert not [w for w in caught if issubclass(w.category, SklearnConvergenceWarning)]
    with pytest.warns(SklearnConvergenceWarning):
        kernelkit.SVC(max_iter=2).fit(x, y)


def test_max_iter_minus_one_stops_where_libsvm_does(capfd: pytest.CaptureFixture[str]) -> None:
    """A tolerance below the problem's rounding never converges (a linear kernel of full rank
    at tol=1e-8: the violation stalls near 1e-6, the kernel columns being float32 in both).
    LIBSVM stops such a solve after max(10**7, 100·l) iterations; max_iter=-1 stops at the same
    count, with a warning that names the cause, where scikit-learn's copy runs forever."""
    from libsvm.svmutil import svm_problem, svm_train

    x = np.random.default_rng(0).standard_normal((20, 5))
    svm_train(svm_problem(np.zeros(len(x)), x), "-s 2 -t 0 -n 0.5 -e 1e-8")
    captured = capfd.readouterr()
    printed = captured.out + captured.err
    libsvm_iterations = int(printed.split("#iter = ")[1].split()[0])
    assert libsvm_iterations == 10**7 and "reaching max number of iterations" in printed
    with pytest.warns(kernelkit.ConvergenceWarning, match=r"LIBSVM's limit.*raise tol"):
        model = kernelkit.OneClassSVM(kernel="linear", tol=1e-8, n_jobs=1).fit(x)
    assert model.status_ == "max_iterations" and model.fit_status_ == 1
    assert model.n_iter_ == libsvm_iterations
    assert model.kkt_gap_ > 1e-8
    # A stated max_iter still rules, and its warning keeps the usual advice.
    with pytest.warns(kernelkit.ConvergenceWarning, match="Raise max_iter"):
        capped = kernelkit.OneClassSVM(kernel="linear", tol=1e-8, max_iter=1000).fit(x)
    assert capped.n_iter_ == 1000


def test_gsmo_without_max_iter_stops_at_libsvm_limit() -> None:
    """ConstrainedSVR's GSMO had no limit with max_iter=-1, so a tol that the rounding cannot
    meet ran forever (a probe's simplex-constrained fit passed 10**8 iterations). It now stops
    where the SMO engines do, at LIBSVM's max(10**7, 100·l) for l = 2n + constraints dual
    variables (here 10**7), with the advice to raise tol; a stated max_iter still rules."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 5))
    y = x @ rng.standard_normal(5) + 0.1 * rng.standard_normal(20)
    with pytest.warns(kernelkit.ConvergenceWarning, match=r"LIBSVM's limit.*raise tol"):
        model = kernelkit.ConstrainedSVR(method="gsmo", tol=1e-300, n_jobs=1).fit(x, y)
    assert model.status_ == "max_iterations" and model.n_iter_ == 10**7
    assert model.delta_ > 1e-300 and np.all(np.isfinite(model.coef_))
    with pytest.warns(kernelkit.ConvergenceWarning, match="Raise max_iter"):
        capped = kernelkit.ConstrainedSVR(method="gsmo", tol=1e-300, max_iter=1000).fit(x, y)
    assert capped.n_iter_ == 1000
