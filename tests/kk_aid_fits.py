"""Data, NumPy objectives and history / partition checks shared by the AID estimator tests
(``test_aid_estimator.py``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit
from kernelkit import AIDRegressor, AIDSemiSupervisedClassifier, ConvergenceWarning

Array = NDArray[Any]
REG, CLF, S3VM = "AIDRegressor", "AIDClassifier", "AIDSemiSupervisedClassifier"
NAMES = [REG, CLF, S3VM]
HISTORY_KEYS = {"n_clusters", "lower_bound", "upper_bound", "gap", "time",
                "aggregated_objective", "full_objective", "n_impure"}  # fmt: skip
PARAMS = {
    REG: {"fit_intercept", "tol", "max_iter", "n_clusters", "init", "random_state",
          "time_limit", "n_jobs", "verbose", "callback"},
    CLF: {"C", "kernel", "gamma", "degree", "coef0", "tol", "max_iter", "n_clusters", "init",
          "solver", "cache_size", "random_state", "time_limit", "n_jobs", "verbose", "callback"},
    S3VM: {"C", "C_unlabeled", "tol", "max_iter", "n_clusters", "init", "exact_max_clusters",
           "balance", "solver", "random_state", "time_limit", "n_jobs", "verbose", "callback"},
}  # fmt: skip
# A start far from pure (a random partition into few clusters), so that fits take several
# aggregated solves; S3VM needs max_iter above its default 5 to reach a pure partition.
SEVERAL = {
    REG: {"init": "random", "n_clusters": 6, "random_state": 0},
    CLF: {"init": "random", "n_clusters": 4, "random_state": 0},
    S3VM: {"init": "random", "n_clusters": 4, "random_state": 0, "max_iter": 50},
}


# --------------------------------------------------------------------------------------------
# data, objectives (NumPy oracles)
# --------------------------------------------------------------------------------------------
def regression(n: int = 200, m: int = 3, seed: int = 0) -> tuple[Array, Array]:
    """y = xβ + 0.5 + Student-t(3) noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    return x, x @ rng.normal(size=m) + 0.5 + rng.standard_t(3, size=n)


def classification(n: int = 200, m: int = 4, seed: int = 0) -> tuple[Array, Array]:
    """Two overlapping Gaussian classes, labels 0 / 1 (both present)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.45).astype(np.int64)
    y[:2] = [0, 1]
    x = rng.normal(size=(n, m)) + np.where(y[:, None] == 1, 0.7, -0.7) * np.linspace(1, 0.2, m)
    return x, y


def semi_supervised(n: int = 150, labeled: int = 30, seed: int = 0) -> tuple[Array, Array]:
    """2-D classes 0 / 1; all but ``labeled`` rows (both classes among them) get -1."""
    x, y = classification(n, 2, seed)
    y = y.copy()
    y[np.random.default_rng(seed + 100).permutation(np.arange(2, n))[: n - labeled]] = -1
    return x, y


def data(name: str, seed: int = 0) -> tuple[Array, Array]:
    return {REG: regression, CLF: classification, S3VM: semi_supervised}[name](seed=seed)


def make(name: str, **params: Any) -> Any:
    return getattr(kernelkit, name)(**params)


def signed(est: Any, y: Array) -> Array:
    return np.where(y == est.classes_[1], 1.0, -1.0)


def linear_f(est: Any, x: Array) -> Array:
    if isinstance(est, AIDRegressor):
        return x @ np.asarray(est.coef_) + est.intercept_
    return x @ np.asarray(est.coef_).ravel() + float(np.asarray(est.intercept_)[0])


def objective(est: Any, x: Array, y: Array) -> float:
    """The documented objective of the fitted linear model, recomputed with NumPy."""
    f = linear_f(est, x)
    if isinstance(est, AIDRegressor):
        return float(np.abs(y - f).sum())
    w = np.asarray(est.coef_).ravel()
    lab = y != -1 if isinstance(est, AIDSemiSupervisedClassifier) else np.ones(len(y), bool)
    value = 0.5 * w @ w + est.C * np.maximum(0.0, 1.0 - signed(est, y[lab]) * f[lab]).sum()
    if isinstance(est, AIDSemiSupervisedClassifier):
        value += est.C_unlabeled * np.maximum(0.0, 1.0 - np.abs(f[~lab])).sum()
    return float(value)


def kernel_svm_objective(est: Any, x: Array, y: Array, gamma: float) -> float:
    """½‖w‖² + C Σ hinge with w = Σ dual_coef_ φ(sv) (RBF), from the fitted dual coefficients."""
    dc = np.asarray(est.dual_coef_).ravel()
    k = rbf_kernel(np.asarray(est.support_vectors_), gamma=gamma)
    f = np.asarray(est.decision_function(x))
    return float(0.5 * dc @ k @ dc + est.C * np.maximum(0.0, 1.0 - signed(est, y) * f).sum())


def close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def quiet_fit(est: Any, x: Any, y: Any) -> Any:
    """Fit and require no ConvergenceWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return est.fit(x, y)


# --------------------------------------------------------------------------------------------
# history and partition checks
# --------------------------------------------------------------------------------------------
def column(est: Any, key: str) -> Array:
    return np.array([float(entry[key]) for entry in est.history_])


def assert_history(est: Any, x: Array, y: Array) -> None:
    """The history_ invariants of the spec, and objective_ / lower_bound_ / gap_ / status_."""
    h = est.history_
    assert isinstance(h, list) and len(h) == est.n_iter_ >= 1, (len(h), est.n_iter_)
    for entry in h:
        assert set(entry) >= HISTORY_KEYS, sorted(HISTORY_KEYS - set(entry))
    k, t, imp = column(est, "n_clusters"), column(est, "time"), column(est, "n_impure")
    lb, ub, gap = column(est, "lower_bound"), column(est, "upper_bound"), column(est, "gap")
    e, f = column(est, "full_objective"), column(est, "aggregated_objective")
    assert np.all(np.diff(k) > 0), k
    assert t[0] >= 0 and np.all(np.diff(t) >= 0), t
    np.testing.assert_allclose(gap, (ub - lb) / ub, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ub, np.minimum.accumulate(e), rtol=1e-12)
    assert np.all(imp[:-1] > 0), f"an earlier solve was already pure: {imp}"
    assert est.lower_bound_ == pytest.approx(lb[-1], rel=1e-12)
    if not isinstance(est, AIDSemiSupervisedClassifier):
        assert est.gap_ == pytest.approx(gap[-1], rel=1e-12, abs=1e-15)
    assert close(est.objective_, objective(est, x, y), 1e-9), (est.objective_, objective(est, x, y))
    n = len(y)
    assert est.labels_.shape == (n,) and np.issubdtype(est.labels_.dtype, np.integer)
    n_final = len(np.unique(est.labels_))
    np.testing.assert_array_equal(np.unique(est.labels_), np.arange(n_final))
    pure = "pure" if isinstance(est, AIDSemiSupervisedClassifier) else "optimal"
    assert (imp[-1] == 0) == (est.status_ == pure), (est.status_, imp[-1])
    if est.status_ == pure:
        assert n_final == k[-1]
        assert close(f[-1], e[-1], 1e-8), (f[-1], e[-1])  # E^T = F^T on a pure partition
    if est.status_ == "gap":
        assert gap[-1] <= est.tol
    if est.status_ == "max_iter":
        assert est.n_iter_ == est.max_iter
    if isinstance(est, AIDSemiSupervisedClassifier):
        assert est.status_ in ("pure", "max_iter", "time_limit", "stopped")
        split = np.diff(k)
        assert np.all(split >= imp[:-1]) and np.all(split <= 3 * imp[:-1]), (split, imp)
        assert est.aggregated_objective_ == pytest.approx(f[-1], rel=1e-12)
        assert np.any(np.abs(e - est.objective_) <= 1e-9 * abs(est.objective_)), "not solved"
    else:
        assert est.status_ in ("optimal", "gap", "max_iter", "time_limit", "stopped")
        assert np.all(np.diff(lb) >= 0) and np.all(np.diff(ub) <= 0), (lb, ub)
        np.testing.assert_array_equal(np.diff(k), imp[:-1])  # each impure cluster → 2
        assert np.all(lb <= ub * (1 + 1e-12)), (lb, ub)
        assert np.all(f <= ub[-1] * (1 + 1e-6) + 1e-9), (f, ub[-1])  # F^t ≤ E* ≤ E_best
        assert est.objective_ == pytest.approx(ub[-1], rel=1e-9)


def assert_pure_partition(est: Any, x: Array, y: Array) -> None:
    """Every final cluster is pure for the returned model (residual / margin / cell signs),
    with a band of 1e-6 around the boundaries."""
    eps = 1e-6 * max(1.0, float(np.abs(y).max()))
    f = linear_f(est, x)
    labeled = y != -1 if isinstance(est, AIDSemiSupervisedClassifier) else np.ones(len(y), bool)
    v = y - f if isinstance(est, AIDRegressor) else 1.0 - signed(est, y) * f
    for c in np.unique(est.labels_):
        rows = est.labels_ == c
        if np.all(labeled[rows]):
            assert v[rows].min() >= -eps or v[rows].max() <= eps, (c, v[rows])
        else:
            fc = f[rows]
            cells = [fc.max() <= -1 + eps, fc.min() >= -1 - eps and fc.max() <= eps,
                     fc.min() >= -eps and fc.max() <= 1 + eps, fc.min() >= 1 - eps]  # fmt: skip
            assert any(cells), (c, fc)


def groups(name: str, y: Array) -> Array:
    """Rows that may share a cluster: all (LAD), one class (SVM), one class or unlabeled (S3VM)."""
    return np.zeros(len(y), dtype=np.int64) if name == REG else np.asarray(y)
