"""Progress callbacks, early stopping, max_iter and verbose output."""

from __future__ import annotations

import itertools
import time
import warnings
from typing import Any

import numpy as np
import pytest

import kernelkit

KEYS = {"iteration", "gap", "objective", "active_size", "cache_hits", "cache_misses"}
A9A_PARAMS: dict[str, Any] = {"C": 1.0, "gamma": 0.5, "tol": 1e-3}


class Recorder:
    def __init__(self, stop_at: int | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.stop_at = stop_at

    def __call__(self, progress: dict[str, Any]) -> bool | None:
        assert isinstance(progress, dict)
        self.calls.append(dict(progress))
        if self.stop_at is not None and len(self.calls) >= self.stop_at:
            return True
        return None


@pytest.fixture(scope="module")
def a9a_full_fit(a9a: Any) -> tuple[Any, Recorder]:
    rec = Recorder()
    with warnings.catch_warnings():
        warnings.simplefilter("error", kernelkit.ConvergenceWarning)
        model = kernelkit.SVC(callback=rec, **A9A_PARAMS).fit(a9a.X, a9a.y)
    return model, rec


def test_convergence_warning_is_a_user_warning() -> None:
    assert issubclass(kernelkit.ConvergenceWarning, UserWarning)


def test_callback_progress_dicts(a9a: Any, a9a_full_fit: tuple[Any, Recorder]) -> None:
    model, rec = a9a_full_fit
    assert len(rec.calls) >= 1
    n = len(a9a.y)
    for p in rec.calls:
        assert set(p) >= KEYS, set(p)
        assert isinstance(p["iteration"], (int, np.integer))
        assert 0 <= p["iteration"] <= int(model.n_iter_[0])
        assert np.isfinite(p["gap"]) and p["gap"] >= 0
        assert np.isfinite(p["objective"])
        assert 0 < p["active_size"] <= n
        assert p["cache_hits"] >= 0 and p["cache_misses"] >= 0
    its = [p["iteration"] for p in rec.calls]
    assert its == sorted(its) and len(set(its)) == len(its), its
    # the reported objective never increases, and is never below the final one
    objs = np.array([p["objective"] for p in rec.calls])
    assert np.all(np.diff(objs) <= 1e-9 * np.maximum(1.0, np.abs(objs[1:])))
    assert np.all(objs >= float(model.objective_[0]) - 1e-9 * max(1.0, abs(objs[-1])))
    assert list(model.status_) == ["converged"]
    assert int(model.objective_increases_[0]) == 0


def test_callback_returning_none_does_not_change_the_model(
    a9a: Any, a9a_full_fit: tuple[Any, Recorder]
) -> None:
    with_cb, _ = a9a_full_fit
    without = kernelkit.SVC(**A9A_PARAMS).fit(a9a.X, a9a.y)
    np.testing.assert_array_equal(with_cb.support_, without.support_)
    np.testing.assert_array_equal(with_cb.dual_coef_, without.dual_coef_)
    np.testing.assert_array_equal(with_cb.intercept_, without.intercept_)


@pytest.mark.parametrize("stop_at", [1, 3])
def test_callback_true_stops_the_fit(
    a9a: Any, a9a_full_fit: tuple[Any, Recorder], stop_at: int
) -> None:
    full, full_rec = a9a_full_fit
    if len(full_rec.calls) <= stop_at:
        pytest.skip(f"the full fit reports progress only {len(full_rec.calls)} time(s)")
    rec = Recorder(stop_at=stop_at)
    with pytest.warns(kernelkit.ConvergenceWarning):
        model = kernelkit.SVC(callback=rec, **A9A_PARAMS).fit(a9a.X, a9a.y)
    assert len(rec.calls) == stop_at, "the callback was called again after returning True"
    assert list(model.status_) == ["stopped"]
    assert int(model.n_iter_[0]) < int(full.n_iter_[0])
    assert int(model.n_iter_[0]) <= rec.calls[-1]["iteration"] + 1
    # stopped early: the dual objective cannot be better than at convergence
    assert float(model.objective_[0]) >= float(full.objective_[0]) - 1e-9
    assert float(model.kkt_gap_[0]) > float(full.kkt_gap_[0]) or float(model.kkt_gap_[0]) > 1e-3
    # the stopped model is a valid, usable model
    dec = model.decision_function(a9a.X_test)
    assert np.all(np.isfinite(dec))
    assert np.all(np.abs(model.dual_coef_[0]) <= 1.0 + 1e-12)
    assert abs(np.sum(model.dual_coef_[0])) <= 1e-8 * len(a9a.y)


def test_callback_exception_propagates(a9a: Any) -> None:
    class Boom(Exception):
        pass

    def cb(progress: dict[str, Any]) -> bool:
        raise Boom("from callback")

    with pytest.raises(Boom, match="from callback"):
        kernelkit.SVC(callback=cb, **A9A_PARAMS).fit(a9a.X, a9a.y)


def test_a_slow_callback_leaves_the_solver_as_much_time(a9a: Any) -> None:
    """The solve waits while the callback runs, so the next call comes after at least 20 ms
    of solving and at least as long as the last call took: timed from the start of each call,
    a 300 ms callback was called again at every report (a 0.7 s fit took 250 s)."""
    spans: list[tuple[float, float]] = []

    def slow(progress: dict[str, Any]) -> None:
        start = time.perf_counter()
        time.sleep(0.03)
        spans.append((start, time.perf_counter()))

    model = kernelkit.SVC(callback=slow, **A9A_PARAMS).fit(a9a.X[:6000], a9a.y[:6000])
    assert list(model.status_) == ["converged"]
    assert len(spans) >= 3
    # The core times each call around the Python one (same monotonic clock), so these hold
    # exactly, whatever the machine's speed.
    for (start, end), (following, _) in itertools.pairwise(spans):
        assert following - end >= max(0.02, end - start)


def test_a_callback_answer_without_a_truth_value_is_named(a9a: Any) -> None:
    def array_answer(progress: dict[str, Any]) -> Any:
        return np.array([1.0, 2.0])

    with pytest.raises(ValueError, match="callback must return None or a bool"):
        kernelkit.SVC(callback=array_answer, **A9A_PARAMS).fit(a9a.X[:3000], a9a.y[:3000])


@pytest.mark.parametrize("name", ["SVR", "OneClassSVM"])
def test_callback_stops_svr_and_one_class(cpu_act_large: Any, name: str) -> None:
    cpu_act = cpu_act_large  # big enough for several progress reports (they are throttled)
    est_cls = getattr(kernelkit, name)
    params: dict[str, Any] = {"gamma": 0.05, "tol": 1e-8}
    full_rec = Recorder()
    full = est_cls(callback=full_rec, **params).fit(cpu_act.X, cpu_act.y)
    assert full.status_ == "converged"
    assert all(set(p) >= KEYS for p in full_rec.calls)
    if len(full_rec.calls) < 2:
        pytest.skip("the full fit reports progress only once")
    rec = Recorder(stop_at=1)
    with pytest.warns(kernelkit.ConvergenceWarning):
        model = est_cls(callback=rec, **params).fit(cpu_act.X, cpu_act.y)
    assert model.status_ == "stopped"
    assert len(rec.calls) == 1
    assert int(model.n_iter_) < int(full.n_iter_)
    assert float(model.objective_) >= float(full.objective_) - 1e-9


def test_max_iter_svc(breast_cancer: Any, digits: Any) -> None:
    with pytest.warns(kernelkit.ConvergenceWarning):
        model = kernelkit.SVC(max_iter=5, gamma=0.05, tol=1e-6).fit(
            breast_cancer.X, breast_cancer.y
        )
    assert list(model.status_) == ["max_iterations"]
    assert int(model.n_iter_[0]) <= 5
    assert float(model.kkt_gap_[0]) > 1e-6
    assert np.all(np.isfinite(model.decision_function(breast_cancer.X_test)))
    with pytest.warns(kernelkit.ConvergenceWarning):
        multi = kernelkit.SVC(max_iter=5, gamma=0.05, tol=1e-6).fit(digits.X, digits.y)
    assert len(multi.status_) == 45
    assert all(s in ("max_iterations", "converged") for s in multi.status_)
    assert "max_iterations" in list(multi.status_)
    assert np.all(np.asarray(multi.n_iter_) <= 5)


@pytest.mark.parametrize("name", ["SVR", "OneClassSVM"])
def test_max_iter_svr_one_class(cpu_act: Any, name: str) -> None:
    with pytest.warns(kernelkit.ConvergenceWarning):
        model = getattr(kernelkit, name)(max_iter=5, gamma=0.05, tol=1e-6).fit(cpu_act.X, cpu_act.y)
    assert model.status_ == "max_iterations"
    assert int(model.n_iter_) <= 5


def test_converged_fit_emits_no_convergence_warning(breast_cancer: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", kernelkit.ConvergenceWarning)
        model = kernelkit.SVC(gamma=0.05, tol=1e-6).fit(breast_cancer.X, breast_cancer.y)
    assert list(model.status_) == ["converged"]


def test_verbose_writes_progress_to_stderr(
    breast_cancer: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    quiet = kernelkit.SVC(gamma=0.05, tol=1e-6).fit(breast_cancer.X, breast_cancer.y)
    capfd.readouterr()
    loud = kernelkit.SVC(gamma=0.05, tol=1e-6, verbose=True).fit(breast_cancer.X, breast_cancer.y)
    err = capfd.readouterr().err
    assert err.strip(), "verbose=True wrote nothing to stderr"
    np.testing.assert_array_equal(quiet.dual_coef_, loud.dual_coef_)
    np.testing.assert_array_equal(quiet.intercept_, loud.intercept_)


@pytest.mark.parametrize("name", ["SVR", "OneClassSVM"])
def test_verbose_svr_one_class(cpu_act: Any, name: str, capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    model = getattr(kernelkit, name)(gamma=0.05, verbose=True).fit(cpu_act.X, cpu_act.y)
    assert capfd.readouterr().err.strip()
    assert model.status_ == "converged"


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_time_limit_ends_the_fit_with_a_status(name: str) -> None:
    """A fit far longer than its time limit stops on it, keeps a usable last iterate, and warns."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5000, 20))
    y = rng.integers(0, 2, size=5000)  # random labels: a long problem at this tol and C
    estimator = {
        "SVC": lambda: kernelkit.SVC(C=100.0, tol=1e-12, time_limit=0.2),
        "SVR": lambda: kernelkit.SVR(C=100.0, tol=1e-12, time_limit=0.2),
        "NuSVR": lambda: kernelkit.NuSVR(C=100.0, tol=1e-12, time_limit=0.2),
        # The whole ν-SVC and one-class fits take about 0.2 s and 0.08 s here (SVC 3 s, SVR
        # 20 s), so their limits must be much shorter. Their gradient initialisation (thousands
        # of columns for the starting α) alone outlasts 0.02 s, and the limit is then checked
        # at iteration 64 of thousands.
        "NuSVC": lambda: kernelkit.NuSVC(nu=0.9, tol=1e-12, time_limit=0.02),
        "OneClassSVM": lambda: kernelkit.OneClassSVM(nu=0.5, tol=1e-12, time_limit=0.02),
    }[name]()
    with pytest.warns(kernelkit.ConvergenceWarning, match="time_limit"):
        estimator.fit(X, y.astype(float) if "SVR" in name else y)
    statuses = np.atleast_1d(estimator.status_)
    assert set(statuses) == {"time_limit"}
    assert estimator.fit_status_ == 1
    assert np.all(
        np.isfinite(
            estimator.decision_function(X[:10])
            if name != "SVR" and name != "NuSVR"
            else estimator.predict(X[:10])
        )
    )
