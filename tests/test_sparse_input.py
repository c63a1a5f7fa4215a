"""scipy.sparse input: the same model as the dense input, without densifying the data, and
precomputed kernels equal to the kernel they hold."""

from __future__ import annotations

import io
import itertools
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA, Dataset
from sklearn.datasets import load_svmlight_file
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit import SVC, SVR, NuSVC, NuSVR, OneClassSVM


def _svmlight_head(name: str, rows: int, n_features: int) -> tuple[sp.csr_matrix, Any]:
    with (DATA / name).open("rb") as fh:
        head = b"".join(itertools.islice(fh, rows))
    x, y = load_svmlight_file(io.BytesIO(head), n_features=n_features)
    return sp.csr_matrix(x), y


@pytest.fixture(scope="module")
def w8a_sparse() -> tuple[sp.csr_matrix, Any]:
    return _svmlight_head("w8a/w8a.svm", 3000, 300)


@pytest.fixture(scope="module")
def a9a_sparse() -> tuple[sp.csr_matrix, Any]:
    return _svmlight_head("a9a/a9a.train.svm", 3000, 123)


def _same_model(sparse_model: Any, dense_model: Any, x_test: Any) -> None:
    objective_sparse = np.atleast_1d(sparse_model.objective_)
    objective_dense = np.atleast_1d(dense_model.objective_)
    np.testing.assert_allclose(objective_sparse, objective_dense, rtol=1e-10)
    np.testing.assert_array_equal(sparse_model.support_, dense_model.support_)
    assert sp.issparse(sparse_model.dual_coef_)  # as scikit-learn's
    np.testing.assert_allclose(
        sparse_model.dual_coef_.toarray(), dense_model.dual_coef_, atol=1e-10
    )
    np.testing.assert_allclose(sparse_model.intercept_, dense_model.intercept_, atol=1e-10)
    np.testing.assert_array_equal(sparse_model.predict(x_test), dense_model.predict(x_test))


@pytest.mark.parametrize("dataset", ["a9a_sparse", "w8a_sparse"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: SVC(gamma=0.2, tol=1e-5),
        lambda: NuSVC(nu=0.05, gamma=0.2, tol=1e-5),
        lambda: OneClassSVM(nu=0.2, gamma=0.2, tol=1e-5),
    ],
    ids=["SVC", "NuSVC", "OneClassSVM"],
)
def test_sparse_and_dense_inputs_give_one_model(
    dataset: str, make: Any, request: pytest.FixtureRequest
) -> None:
    x, y = request.getfixturevalue(dataset)
    x_train, y_train, x_test = x[:2500], y[:2500], x[2500:]
    sparse_model = make().fit(x_train, y_train)
    dense_model = make().fit(x_train.toarray(), y_train)
    assert sp.issparse(sparse_model.support_vectors_)
    _same_model(sparse_model, dense_model, x_test.toarray())
    # Sparse and dense test rows predict the same with either model.
    np.testing.assert_array_equal(sparse_model.predict(x_test), dense_model.predict(x_test))
    np.testing.assert_allclose(
        sparse_model.decision_function(x_test), dense_model.decision_function(x_test), atol=1e-9
    )


@pytest.mark.parametrize("make", [lambda: SVR(C=2.0, gamma=0.2), lambda: NuSVR(C=2.0, gamma=0.2)])
def test_sparse_regression(a9a_sparse: tuple[sp.csr_matrix, Any], make: Any) -> None:
    x, y = a9a_sparse
    sparse_model = make().fit(x[:2000], y[:2000])
    dense_model = make().fit(x[:2000].toarray(), y[:2000])
    _same_model(sparse_model, dense_model, x[2000:].toarray())


def test_precomputed_fit_equals_the_kernel_fit(breast_cancer: Dataset) -> None:
    d = breast_cancer
    gram = rbf_kernel(d.X, gamma=0.05)
    direct = SVC(gamma=0.05, tol=1e-6).fit(d.X, d.y)
    precomputed = SVC(kernel="precomputed", tol=1e-6).fit(gram, d.y)
    np.testing.assert_allclose(precomputed.objective_, direct.objective_, rtol=1e-6)
    np.testing.assert_array_equal(precomputed.support_, direct.support_)
    np.testing.assert_allclose(precomputed.dual_coef_, direct.dual_coef_, atol=1e-6)
    np.testing.assert_allclose(precomputed.intercept_, direct.intercept_, atol=1e-6)
    test_gram = rbf_kernel(d.X_test, d.X, gamma=0.05)
    np.testing.assert_array_equal(precomputed.predict(test_gram), direct.predict(d.X_test))


def test_wide_sparse_data_is_never_densified() -> None:
    """5 million features: a dense copy of the 1,500 x 5,000,000 training matrix would need
    60 GB, far beyond this machine, so a fit that returns proves the CSR path end to end (NumPy
    validation, training, prediction) never densifies the data."""
    rng = np.random.default_rng(5)
    n, d, per_row = 1500, 5_000_000, 8
    y = rng.integers(0, 2, size=n)
    rows = np.repeat(np.arange(n), per_row)
    # Every row has a few shared "signal" features for its class and random rare features.
    cols = rng.integers(100, d, size=n * per_row)
    cols[::per_row] = y * 7 + rng.integers(0, 5, size=n)
    x = sp.csr_matrix((np.ones(n * per_row), (rows, cols)), shape=(n, d))
    x.sum_duplicates()
    model = SVC(kernel="rbf", gamma=0.5, C=1.0).fit(x[:1200], y[:1200])
    assert sp.issparse(model.support_vectors_)
    accuracy = np.mean(model.predict(x[1200:]) == y[1200:])
    assert accuracy > 0.9  # the class features separate the classes
    assert model.status_ == ["converged"]
