"""``_core.kernel_matrix_product``: the decision values ``K(X, SV) @ coef`` of every kernel
estimator, computed in blocks without holding ``K``. Compared with the full kernel matrix times
the coefficients (``_core.kernel_matrix``, itself tested against scikit-learn's kernels) for
every storage pair (dense, CSR, 0/1 data on bit sets), several coefficient columns and a row
count that is not a multiple of the block size; and the estimators' decision values with a
NumPy evaluation of their fitted attributes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit
from kernelkit import _core


def _rows(n: int, d: int, seed: int, binary: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if binary:
        return (rng.random((n, d)) < 0.1).astype(np.float64)
    return np.where(rng.random((n, d)) < 0.4, rng.normal(size=(n, d)), 0.0)


KERNELS = [
    _core.Kernel("rbf", gamma=0.3),
    _core.Kernel("linear"),
    _core.Kernel("poly", gamma=0.2, degree=3, coef0=1.0),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=["rbf", "linear", "poly"])
@pytest.mark.parametrize("storage", ["dense", "csr", "binary"])
@pytest.mark.parametrize("k", [1, 3])
def test_product_is_the_kernel_matrix_times_the_coefficients(
    kernel: Any, storage: str, k: int
) -> None:
    binary = storage == "binary"
    a, b = _rows(257, 40, 0, binary), _rows(101, 40, 1, binary)
    coef = np.random.default_rng(2).normal(size=(101, k))
    if storage == "csr":
        from kernelkit._sparse import to_core_rows

        a_in, b_in = to_core_rows(sp.csr_matrix(a)), to_core_rows(sp.csr_matrix(b))
    else:
        a_in, b_in = a, b
    expected = _core.kernel_matrix(a, b, kernel) @ coef
    got = _core.kernel_matrix_product(a_in, b_in, kernel, coef, n_jobs=1)
    assert got.shape == (257, k)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * max(1.0, np.abs(expected).max()))
    # The blocks and the sums do not depend on the thread count.
    two = _core.kernel_matrix_product(a_in, b_in, kernel, coef, n_jobs=2)
    np.testing.assert_array_equal(two, got)


def test_bad_coefficients_are_named() -> None:
    a, b = _rows(5, 3, 0), _rows(4, 3, 1)
    kernel = _core.Kernel("rbf", gamma=1.0)
    with pytest.raises(ValueError, match="coef"):
        _core.kernel_matrix_product(a, b, kernel, np.ones((3, 1)))
    with pytest.raises(ValueError, match="coef"):
        _core.kernel_matrix_product(a, b, kernel, np.full((4, 1), np.nan))
    with pytest.raises(ValueError, match="feature"):
        _core.kernel_matrix_product(a, _rows(4, 2, 1), kernel, np.ones((4, 1)))


def test_no_support_vectors_give_zeros() -> None:
    out = _core.kernel_matrix_product(
        _rows(6, 3, 0), np.zeros((0, 3)), _core.Kernel("rbf", gamma=1.0), np.zeros((0, 2))
    )
    np.testing.assert_array_equal(out, np.zeros((6, 2)))


@pytest.mark.parametrize(
    "model", [kernelkit.SVR(gamma=0.2, C=3.0, epsilon=0.05), kernelkit.OneClassSVM(gamma=0.2)]
)
def test_estimator_decisions_are_the_fitted_expansion(model: Any) -> None:
    rng = np.random.default_rng(3)
    x, x_test = rng.normal(size=(300, 5)), rng.normal(size=(1000, 5))
    model.fit(x, np.sin(x[:, 0])) if isinstance(model, kernelkit.SVR) else model.fit(x)
    decision = model.predict if isinstance(model, kernelkit.SVR) else model.decision_function
    k = rbf_kernel(x_test, model.support_vectors_, gamma=0.2)
    expected = k @ model.dual_coef_[0] + model.intercept_[0]
    np.testing.assert_allclose(decision(x_test), expected, rtol=0, atol=1e-10)


def test_multiclass_pair_columns_match_the_libsvm_layout() -> None:
    rng = np.random.default_rng(4)
    x, x_test = rng.normal(size=(240, 4)), rng.normal(size=(300, 4))
    y = np.digitize(x[:, 0] + 0.3 * x[:, 1], [-0.5, 0.5])
    model = kernelkit.SVC(gamma=0.3, C=2.0, decision_function_shape="ovo").fit(x, y)
    k = rbf_kernel(x_test, model.support_vectors_, gamma=0.3)
    starts = np.concatenate([[0], np.cumsum(model.n_support_)])
    columns = []
    for a in range(3):
        for b in range(a + 1, 3):
            sa, sb = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
            columns.append(
                k[:, sa] @ model.dual_coef_[b - 1, sa] + k[:, sb] @ model.dual_coef_[a, sb]
            )
    expected = np.stack(columns, axis=1) + model.intercept_
    np.testing.assert_allclose(model.decision_function(x_test), expected, rtol=0, atol=1e-10)
