"""The kernel cache and the data representation change the cost of a fit, never its result."""

from __future__ import annotations

import numpy as np
from conftest import Dataset

from kernelkit import SVC, SVR, _core


def test_cache_budget_bounds_memory_and_does_not_change_the_model(breast_cancer: Dataset) -> None:
    X, y = breast_cancer.X, breast_cancer.y
    n = X.shape[0]
    big = SVC(gamma=0.05, tol=1e-5, cache_size=200).fit(X, y)
    tiny = SVC(gamma=0.05, tol=1e-5, cache_size=0.01).fit(X, y)
    np.testing.assert_array_equal(big.dual_coef_, tiny.dual_coef_)
    np.testing.assert_array_equal(big.intercept_, tiny.intercept_)
    big_stats, tiny_stats = big.solver_stats_[0], tiny.solver_stats_[0]
    # A cache that holds every column computes each kernel value at most once.
    assert big_stats["kernel_values_computed"] <= n * n
    # The small budget (raised to two full columns) is never exceeded, and it costs recomputation.
    assert tiny_stats["cache_budget_bytes"] >= 2 * n * 4
    assert tiny_stats["cache_bytes_in_use"] <= tiny_stats["cache_budget_bytes"]
    assert tiny_stats["kernel_values_computed"] > big_stats["kernel_values_computed"]
    assert tiny_stats["cache_misses"] > big_stats["cache_misses"]


def test_mostly_zero_data_gives_the_same_model_as_dense_data(a9a: Dataset) -> None:
    """a9a is one-hot (11% non-zeros) and is solved through CSR rows internally; shifting it by a
    constant makes it dense without changing any RBF kernel value. Both must give one model."""
    X, y = a9a.X[:1500], a9a.y[:1500]
    assert np.count_nonzero(X) < 0.2 * X.size
    sparse_path = SVC(gamma=0.5, tol=1e-6).fit(X, y)
    dense_path = SVC(gamma=0.5, tol=1e-6).fit(X + 1.0, y)
    assert abs(sparse_path.objective_[0] - dense_path.objective_[0]) <= 1e-6 * abs(
        dense_path.objective_[0]
    )
    np.testing.assert_allclose(sparse_path.intercept_, dense_path.intercept_, atol=1e-4)
    agreement = np.mean(sparse_path.predict(a9a.X_test) == dense_path.predict(a9a.X_test + 1.0))
    assert agreement >= 0.999


def test_svr_cache_budget_is_respected(cpu_act: Dataset) -> None:
    model = SVR(gamma=0.1, C=3.0, cache_size=0.05).fit(cpu_act.X, cpu_act.y)
    stats = model.solver_stats_
    assert stats["cache_bytes_in_use"] <= stats["cache_budget_bytes"]
    assert stats["cache_hits"] + stats["cache_misses"] > 0


def test_memory_order_of_an_array_passed_to_the_core_does_not_change_the_result(
    breast_cancer: Dataset,
) -> None:
    # A Fortran-ordered array is contiguous too, column-major: it must be read by index, not
    # as row-major memory (it once was, a silent wrong answer for direct `_core` callers).
    X, y = breast_cancer.X[:200], breast_cancer.y[:200]
    labels = np.where(y == y[0], 1.0, -1.0)
    kernel = _core.Kernel("rbf", gamma=0.05)
    for other in (np.asfortranarray(X), np.repeat(X, 2, axis=1)[:, ::2]):
        assert not other.flags.c_contiguous
        np.testing.assert_array_equal(
            _core.kernel_matrix(other, X[:5], kernel), _core.kernel_matrix(X, X[:5], kernel)
        )
        got = _core.solve_c_svc(other, labels, np.ones(200), kernel)
        want = _core.solve_c_svc(np.ascontiguousarray(X), labels, np.ones(200), kernel)
        np.testing.assert_array_equal(got.x, want.x)
