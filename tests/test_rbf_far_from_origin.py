"""RBF rows far from the origin for their spread (timestamps, coordinates in metres): the
kernel, which depends on x − z only, is computed on rows shifted to their mean, so that
fitting and predicting use the exact kernel values (``python/kernelkit/_rbf_shift.py``)."""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.svm

import kernelkit
from kernelkit._rbf_shift import SHIFT_RATIO, rbf_shift

OFFSET = 1.7e9


def _timestamps(n: int = 200) -> tuple[np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(0)
    centered = rng.normal(size=(n, 2)) * 100
    labels = (centered[:, 0] * centered[:, 1] > 0).astype(int)
    return centered, labels, 1 / (2 * centered.var())


def _exact_decision(model: Any, X: np.ndarray, gamma: float) -> np.ndarray:
    """Σ coef · exp(−γ Σ_k (x_k − z_k)²) + b, the differences taken first (LIBSVM's predict)."""
    squared = ((X[:, None, :] - model.support_vectors_[None]) ** 2).sum(axis=-1)
    return np.exp(-gamma * squared) @ model.dual_coef_[0] + model.intercept_[0]


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_rows_far_from_the_origin_give_the_model_of_the_centered_rows(name: str) -> None:
    """The model of rows at 1.7e9 ± 100 is that of the same rows centered (to rounding), and
    its decision values are the exact kernel's: the expanded distances had lost most of their
    digits (decision values off by up to 1.24, 4 % of the rows predicted otherwise)."""
    centered, labels, gamma = _timestamps()
    target = () if name == "OneClassSVM" else (labels,)
    params: dict[str, Any] = {"gamma": gamma, "tol": 1e-8}
    far = getattr(kernelkit, name)(**params).fit(centered + OFFSET, *target)
    near = getattr(kernelkit, name)(**params).fit(centered, *target)
    method = "predict" if name in ("SVR", "NuSVR") else "decision_function"
    values = getattr(far, method)(centered + OFFSET)
    # The rows at 1.7e9 are the centered ones rounded to 2.4e-7 (an ulp there).
    np.testing.assert_allclose(values, getattr(near, method)(centered), atol=1e-4)
    np.testing.assert_allclose(
        np.ravel(values) if name != "OneClassSVM" else values,
        _exact_decision(far, centered + OFFSET, gamma),
        atol=1e-9,
    )
    np.testing.assert_allclose(far.dual_coef_, near.dual_coef_, atol=1e-4)


def test_libsvm_predicts_the_exact_kernel_too() -> None:
    """The oracle: scikit-learn's predict (LIBSVM's k_function sums the squared differences)
    agrees with the exact decision values of its own model; kernelkit's model of the centered
    rows is the exact-kernel model, which LIBSVM reaches on centered rows."""
    centered, labels, gamma = _timestamps()
    theirs = sklearn.svm.SVC(gamma=gamma, tol=1e-8).fit(centered, labels)
    ours = kernelkit.SVC(gamma=gamma, tol=1e-8).fit(centered + OFFSET, labels)
    np.testing.assert_allclose(
        ours.decision_function(centered + OFFSET), theirs.decision_function(centered), atol=1e-6
    )


def test_rows_near_the_origin_are_not_shifted() -> None:
    """Standardized or 0/1 rows keep the core's fast paths: no shift below the ratio."""
    rng = np.random.default_rng(1)
    assert rbf_shift(rng.normal(size=(100, 5)), "rbf") is None
    assert rbf_shift((rng.random((100, 30)) < 0.1).astype(float), "rbf") is None
    assert rbf_shift(rng.normal(size=(100, 5)) + 1e6, "linear") is None
    shift = rbf_shift(rng.normal(size=(100, 5)) + 1e3, "rbf")
    assert shift is not None and np.all(np.abs(shift - 1e3) < 1)
    # The rule's boundary: |mean|² against SHIFT_RATIO times the spread.
    spread_one = np.array([[0.0], [2.0]])  # mean 1, spread 1
    assert rbf_shift(spread_one + np.sqrt(SHIFT_RATIO) * 0.99 - 1, "rbf") is None
    assert rbf_shift(spread_one + np.sqrt(SHIFT_RATIO) * 1.01 - 1, "rbf") is not None


@pytest.mark.parametrize(
    "name",
    [
        "PUClassifier",
        "SparseKernelLogisticRegression",
        "AIDClassifier",
        "FrankWolfeSVC",
        "MEBClassifier",
    ],
)
def test_the_other_kernel_estimators_shift_too(name: str) -> None:
    """AIDClassifier's kernel was computed on the rows as given: at 1.7e9 its decision values
    were off by up to 28 (of 2.3) from the centered rows' model."""
    centered, labels, gamma = _timestamps()
    params: dict[str, Any] = {"gamma": gamma}
    if name == "PUClassifier":
        params["prior"] = 0.5
    if name == "AIDClassifier":
        params["kernel"] = "rbf"
    if "random_state" in getattr(kernelkit, name)().get_params():
        # the same start for both fits: AID's first clustering (and Frank–Wolfe's samples) are
        # random, and two of its "optimal" stops within tol differ by ~2e-3 in decisions
        params["random_state"] = 0
    far = getattr(kernelkit, name)(**params).fit(centered + OFFSET, labels)
    near = getattr(kernelkit, name)(**params).fit(centered, labels)
    np.testing.assert_allclose(
        far.decision_function(centered + OFFSET), near.decision_function(centered), atol=1e-4
    )


def test_aggregated_kernel_of_rows_far_from_the_origin() -> None:
    """``kernelkit.solvers.aggregated_kernel`` against NumPy's block means of the exact kernel
    (differences first): at 1.7e9 it gave 6.6e-112 for every block, identical rows included."""
    centered, _, gamma = _timestamps(60)
    clusters = np.arange(60) % 7
    far = kernelkit.solvers.aggregated_kernel(centered + OFFSET, clusters, gamma=gamma)
    exact = np.exp(-gamma * ((centered[:, None] - centered[None]) ** 2).sum(axis=-1))
    means = np.array(
        [[exact[np.ix_(clusters == a, clusters == b)].mean() for b in range(7)] for a in range(7)]
    )
    # the rows at 1.7e9 are the centered ones rounded to 2.4e-7 (an ulp there)
    np.testing.assert_allclose(far, means, atol=1e-6)


@pytest.mark.parametrize("name", ["SVC", "SVR", "OneClassSVM", "SparseKernelLogisticRegression"])
def test_sparse_rows_far_from_the_origin_are_shifted_too(name: str) -> None:
    """CSR rows were never shifted: at 1.7e9 the SVC's decision values were off by up to 1.8
    from the exact kernel's (16 of 300 labels), the SVR's by 8.7, worse than scikit-learn's
    (LIBSVM's sparse prediction sums the differences). The columns far from the origin are now
    shifted (stored in full), the others stay sparse; a model fitted on dense rows predicts
    sparse rows (it raised "setting an array element with a sequence")."""
    centered, labels, gamma = _timestamps()
    noise = np.random.default_rng(1).normal(size=(len(centered), 1))
    rows = np.hstack([centered + OFFSET, noise])
    target = () if name == "OneClassSVM" else (labels,)
    params: dict[str, Any] = {"gamma": gamma}
    if name != "SparseKernelLogisticRegression":
        params["tol"] = 1e-8
    csr = sp.csr_matrix(rows)
    from_sparse = getattr(kernelkit, name)(**params).fit(csr, *target)
    from_dense = getattr(kernelkit, name)(**params).fit(rows, *target)
    method = "predict" if name == "SVR" else "decision_function"
    expected = getattr(from_dense, method)(rows)
    np.testing.assert_allclose(getattr(from_sparse, method)(csr), expected, atol=1e-6)
    np.testing.assert_allclose(getattr(from_dense, method)(csr), expected, atol=1e-9)
    if name != "SparseKernelLogisticRegression":
        support = from_sparse.support_vectors_.toarray()
        squared = ((rows[:, None, :] - support[None]) ** 2).sum(axis=-1)
        exact = np.exp(-gamma * squared) @ from_sparse.dual_coef_.toarray()[0]
        exact += from_sparse.intercept_[0]
        np.testing.assert_allclose(np.ravel(getattr(from_sparse, method)(csr)), exact, atol=1e-9)
    # the shift fills the two far columns only (a 1-row CSR matrix of them)
    shift = rbf_shift(csr, "rbf")
    assert shift is not None and sp.issparse(shift)
    assert np.count_nonzero(shift.toarray()) == 2 and shift.toarray()[0, 2] == 0.0


def test_sparse_rows_near_the_origin_keep_their_sparsity() -> None:
    rng = np.random.default_rng(0)
    assert rbf_shift(sp.csr_matrix((rng.random((300, 40)) < 0.1).astype(float)), "rbf") is None
    assert rbf_shift(sp.random(300, 40, density=0.2, random_state=0, format="csr"), "rbf") is None


def test_the_sparse_shift_leaves_the_callers_rows_alone() -> None:
    """Shifting unsorted or repeated CSR rows sorted the caller's own index arrays in place
    (a canonical copy of them shared their buffers); the shifted rows equal NumPy's."""
    centered, _, _ = _timestamps(50)
    rows = sp.csr_matrix(np.hstack([centered + OFFSET, np.ones((50, 1))]))[:, [2, 0, 1]]
    assert not rows.has_sorted_indices
    indices, data = rows.indices.copy(), rows.data.copy()
    shift = rbf_shift(rows, "rbf")
    assert shift is not None
    moved = kernelkit._rbf_shift.shifted(rows, shift)
    np.testing.assert_array_equal(rows.indices, indices)
    np.testing.assert_array_equal(rows.data, data)
    np.testing.assert_array_equal(moved.toarray(), rows.toarray() - shift.toarray())


def test_sparse_rows_of_a_hashed_feature_space_cost_their_values_not_their_columns() -> None:
    """The sparse shift's column moments were dense vectors of ``n_features``: a fit of 200
    rows with 4,000 values in 2**24 columns (a hashed text space) took 1.1-2.7 s and 780 MB
    and a prediction of one row 0.21 s, and a LIBSVM file whose support vector has index
    2**31 - 1 asked 16 GiB to predict. They now cost the sample's stored values."""
    rng = np.random.default_rng(0)
    n_features = 1 << 24
    rows = np.repeat(np.arange(200), 20)
    columns = rng.integers(0, n_features, 4000)
    x = sp.csr_matrix((rng.normal(size=4000), (rows, columns)), shape=(200, n_features))
    y = rng.integers(0, 2, 200)
    tracemalloc.start()
    try:
        model = kernelkit.SVC(gamma=0.05).fit(x, y)
        ours = model.decision_function(x[:5])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, f"{peak / 1e6:.0f} MB"
    # the same model as scikit-learn's (LIBSVM, which sums over the stored values)
    libsvm = sklearn.svm.SVC(gamma=0.05).fit(x, y)
    np.testing.assert_allclose(ours, libsvm.decision_function(x[:5]), atol=1e-6)
