"""Callable kernels: called once on the training rows for their Gram matrix (on blocks of rows
beyond ``GRAM_BYTES``), they give the model of the kernel they compute; errors raised by the
callable reach the caller."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import Dataset
from numpy.typing import NDArray
from sklearn import svm
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit import SVC, SVR, NuSVC, OneClassSVM


def gaussian(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    return rbf_kernel(a, b, gamma=0.05)


class CountingKernel:
    """An RBF kernel that records the shape of every block it is asked for."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        self.calls.append((a.shape[0], b.shape[0]))
        return rbf_kernel(a, b, gamma=0.05)


@pytest.mark.parametrize(
    ("ours", "builtin"),
    [
        (SVC(kernel=gaussian, tol=1e-6), SVC(gamma=0.05, tol=1e-6)),
        (NuSVC(nu=0.3, kernel=gaussian, tol=1e-6), NuSVC(nu=0.3, gamma=0.05, tol=1e-6)),
        (OneClassSVM(nu=0.2, kernel=gaussian, tol=1e-6), OneClassSVM(nu=0.2, gamma=0.05, tol=1e-6)),
    ],
)
def test_callable_gives_the_model_of_its_kernel(
    breast_cancer: Dataset, ours: Any, builtin: Any
) -> None:
    d = breast_cancer
    ours.fit(d.X, d.y)
    builtin.fit(d.X, d.y)
    np.testing.assert_allclose(ours.objective_, builtin.objective_, rtol=1e-6)
    np.testing.assert_allclose(ours.intercept_, builtin.intercept_, atol=1e-5)
    assert np.mean(ours.predict(d.X_test) == builtin.predict(d.X_test)) >= 0.999


def test_callable_matches_scikit_learn_callable(cpu_act: Dataset) -> None:
    d = cpu_act
    ours = SVR(kernel=gaussian, C=2.0, tol=1e-6).fit(d.X, d.y)
    theirs = svm.SVR(kernel=gaussian, C=2.0, tol=1e-6).fit(d.X, d.y)
    np.testing.assert_allclose(ours.predict(d.X_test), theirs.predict(d.X_test), atol=1e-4)


def test_callable_is_evaluated_in_blocks_beyond_the_gram_budget(
    breast_cancer: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the n x n Gram matrix would exceed ``GRAM_BYTES``, the kernel is never asked for
    it: diagonal blocks and single columns, and the model is the whole Gram matrix's."""
    import kernelkit._callable

    d = breast_cancer
    n = d.X.shape[0]
    whole = SVC(kernel=gaussian, tol=1e-8).fit(d.X, d.y)
    monkeypatch.setattr(kernelkit._callable, "GRAM_BYTES", 8 * n * n - 1)
    kernel = CountingKernel()
    blocked = SVC(kernel=kernel, tol=1e-8).fit(d.X, d.y)
    assert kernel.calls
    assert max(rows * cols for rows, cols in kernel.calls) < n * n
    assert blocked.solver_stats_[0]["kernel_path"] == "callable"
    np.testing.assert_allclose(blocked.dual_coef_, whole.dual_coef_, atol=1e-6)
    np.testing.assert_allclose(blocked.intercept_, whole.intercept_, atol=1e-6)


@pytest.mark.parametrize("budget", ["whole", "blocks"])
def test_errors_of_the_callable_are_raised(
    breast_cancer: Dataset, monkeypatch: pytest.MonkeyPatch, budget: str
) -> None:
    import kernelkit._callable

    if budget == "blocks":
        monkeypatch.setattr(kernelkit._callable, "GRAM_BYTES", 0)

    def failing(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        raise RuntimeError("kernel failed")

    with pytest.raises(RuntimeError, match="kernel failed"):
        SVC(kernel=failing).fit(breast_cancer.X, breast_cancer.y)

    def wrong_shape(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.ones((a.shape[0], b.shape[0] + 1))

    with pytest.raises(ValueError, match="shape"):
        SVC(kernel=wrong_shape).fit(breast_cancer.X, breast_cancer.y)


def _sparse_product(a: Any, b: Any) -> Any:
    """A linear kernel that keeps sparse rows sparse: its Gram block is a sparse matrix."""
    return 2.0 * (a @ b.T)


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_callable_takes_sparse_rows_as_scikit_learns_does(name: str) -> None:
    """With sparse X, scikit-learn calls the kernel on sparse rows and takes a sparse or dense
    Gram block; so does kernelkit. The model equals scikit-learn's and that of the same
    kernel on dense rows; ``support_vectors_`` is scikit-learn's (empty: the model keeps the
    training rows)."""
    import scipy.sparse as sp

    import kernelkit

    X = sp.random(200, 40, density=0.1, random_state=0, format="csr")
    sums = np.asarray(X.sum(axis=1)).ravel()
    y = (sums > np.median(sums)).astype(int)
    target = () if name == "OneClassSVM" else (y,)
    ours = getattr(kernelkit, name)(kernel=_sparse_product, tol=1e-8).fit(X, *target)
    dense = getattr(kernelkit, name)(kernel=_sparse_product, tol=1e-8).fit(X.toarray(), *target)
    theirs = getattr(svm, name)(kernel=_sparse_product, tol=1e-8).fit(X, *target)
    method = "predict" if name in ("SVR", "NuSVR") else "decision_function"
    values = getattr(ours, method)(X)
    np.testing.assert_allclose(values, getattr(dense, method)(X.toarray()), atol=1e-7)
    np.testing.assert_allclose(values, getattr(theirs, method)(X), atol=1e-6)
    assert sp.issparse(X) and ours.support_vectors_.shape == theirs.support_vectors_.shape
    assert ours.__sklearn_tags__().input_tags.sparse


def test_a_text_pipeline_with_a_callable_kernel_fits() -> None:
    """TF-IDF rows (sparse) into a cosine kernel, as scikit-learn's SVC takes them."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity
    from sklearn.pipeline import make_pipeline

    docs = ["good movie", "great film", "bad movie", "awful film", "good great", "bad awful"]
    labels = [1, 1, 0, 0, 1, 0]
    ours = make_pipeline(TfidfVectorizer(), SVC(kernel=cosine_similarity)).fit(docs, labels)
    theirs = make_pipeline(TfidfVectorizer(), svm.SVC(kernel=cosine_similarity)).fit(docs, labels)
    queries = ["great movie", "awful movie", "good bad film"]
    np.testing.assert_allclose(
        ours.decision_function(queries), theirs.decision_function(queries), atol=1e-6
    )


def _sparse_gram(a: Any, b: Any) -> Any:
    import scipy.sparse as sp

    return sp.csr_matrix(rbf_kernel(a, b, gamma=0.3))


@pytest.mark.parametrize(
    "name",
    [
        "SVC",
        "NuSVC",
        "SVR",
        "NuSVR",
        "OneClassSVM",
        "SparseKernelLogisticRegression",
    ],
)
def test_a_callable_may_return_a_sparse_gram_block_for_dense_rows(name: str) -> None:
    """scikit-learn takes a sparse Gram block from a callable kernel on dense rows too; the
    core read it as an array ("setting an array element with a sequence"). The model is the
    one of the same kernel returning arrays."""
    import kernelkit

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    target = () if name == "OneClassSVM" else (y,)
    dense_gram = lambda a, b: rbf_kernel(a, b, gamma=0.3)  # noqa: E731
    ours = getattr(kernelkit, name)(kernel=_sparse_gram).fit(X, *target)
    plain = getattr(kernelkit, name)(kernel=dense_gram).fit(X, *target)
    method = "predict" if name in ("SVR", "NuSVR") else "decision_function"
    np.testing.assert_array_equal(getattr(ours, method)(X), getattr(plain, method)(X))
