"""Callable kernels are called as scikit-learn's SVMs call them: on X as it was given (strings,
lists, dataframes, integer, float32 or sparse rows, never converted to float64), once on the
training rows for the whole Gram matrix at fit, and on the test rows against the training rows
at prediction. The models, the fitted attributes and the calls are scikit-learn's, taken from
scikit-learn in each test."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn import svm
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils.validation import _num_samples

import kernelkit

ESTIMATORS = ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"]

#: scikit-learn's ``test_custom_kernel_not_array_input``: strings whose kernel counts letters.
WORDS = ["A A", "A", "B", "B B", "A B"]
WORD_LABELS = np.array([1, 1, 2, 2, 1])


def string_kernel(X1: Any, X2: Any) -> NDArray[np.float64]:
    """scikit-learn's test kernel, as written there: it asserts that it is given strings, and
    fills the lower triangle from the upper one (it assumes ``X1`` holds the rows of ``X2``,
    as scikit-learn's calls, ``kernel(X, X_fit)``, do in that test)."""
    assert isinstance(X1[0], str)
    n1, n2 = _num_samples(X1), _num_samples(X2)
    K = np.zeros((n1, n2))
    for ii in range(n1):
        for jj in range(ii, n2):
            K[ii, jj] = X1[ii].count("A") * X2[jj].count("A")
            K[ii, jj] += X1[ii].count("B") * X2[jj].count("B")
            K[jj, ii] = K[ii, jj]
    return K


def letter_kernel(X1: Any, X2: Any) -> NDArray[np.float64]:
    """The same kernel for any two lists of strings (``string_kernel`` needs ``X1`` to be the
    rows of ``X2``), as the blocks of rows need."""
    assert isinstance(X1[0], str) and isinstance(X2[0], str)
    return np.array(
        [[a.count("A") * b.count("A") + a.count("B") * b.count("B") for b in X2] for a in X1],
        dtype=np.float64,
    )


def _fit(module: Any, name: str, kernel: Any, X: Any, y: Any, **params: Any) -> Any:
    estimator = getattr(module, name)(kernel=kernel, **params)
    return estimator.fit(X) if name == "OneClassSVM" else estimator.fit(X, y)


def _outputs(model: Any, X: Any) -> NDArray[np.float64]:
    method = "predict" if not hasattr(model, "decision_function") else "decision_function"
    return np.asarray(getattr(model, method)(X), dtype=np.float64)


def _targets(name: str, labels: NDArray[Any]) -> NDArray[Any]:
    return labels.astype(np.float64) if name in ("SVR", "NuSVR") else labels


@pytest.mark.parametrize("budget", ["whole", "blocks"])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_string_kernel_fits_as_scikit_learns(
    name: str, budget: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """X is a list of strings: scikit-learn does not validate X for a callable kernel, and
    neither does kernelkit (it converted X to float64: "could not convert string to float").
    The fitted attributes and the decisions are scikit-learn's, with the Gram matrix computed
    whole (scikit-learn's test kernel) or in blocks of rows (a kernel for any rows)."""
    kernel = string_kernel
    if budget == "blocks":
        monkeypatch.setattr("kernelkit._callable.GRAM_BYTES", 0)
        kernel = letter_kernel
    y = _targets(name, WORD_LABELS)
    theirs = _fit(svm, name, kernel, WORDS, y)
    ours = _fit(kernelkit, name, kernel, WORDS, y)
    np.testing.assert_allclose(_outputs(ours, WORDS), _outputs(theirs, WORDS), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(WORDS), theirs.predict(WORDS))
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-10)
    assert ours.support_vectors_.shape == theirs.support_vectors_.shape
    assert ours.shape_fit_ == theirs.shape_fit_
    assert hasattr(ours, "n_features_in_") == hasattr(theirs, "n_features_in_")
    if name != "OneClassSVM":
        assert ours.score(WORDS, y) == theirs.score(WORDS, y)


@pytest.mark.parametrize("name", ["SparseKernelLogisticRegression", "FrankWolfeSVC"])
def test_the_other_estimators_with_callable_kernels_take_strings(name: str) -> None:
    """kernelkit's own estimators with a callable kernel take X as given too: their model is
    the one of the precomputed Gram matrix of the strings."""
    gram = string_kernel(WORDS, WORDS)
    by_strings = getattr(kernelkit, name)(kernel=string_kernel).fit(WORDS, WORD_LABELS)
    by_gram = getattr(kernelkit, name)(kernel="precomputed").fit(gram, WORD_LABELS)
    np.testing.assert_allclose(
        by_strings.decision_function(WORDS), by_gram.decision_function(gram), atol=1e-10
    )


class KindRecorder:
    """A linear kernel over any numeric rows that records the kind of each argument."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str, str]] = []

    def __call__(self, A: Any, B: Any) -> Any:
        self.calls.append((type(A).__name__, _dtype(A), type(B).__name__, _dtype(B)))
        if sp.issparse(A):
            return A @ B.T
        return np.asarray(A, dtype=np.float64) @ np.asarray(B, dtype=np.float64).T


def _dtype(X: Any) -> str:
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None:
        return ",".join(str(d) for d in dtypes)
    return str(getattr(X, "dtype", type(X[0][0]).__name__))


def _kinds() -> dict[str, Any]:
    X, _ = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=0)
    return {
        "list": X.tolist(),
        "int": np.round(4 * X).astype(np.int64),
        "float32": X.astype(np.float32),
        "dataframe": pd.DataFrame(X, columns=["a", "b", "c"]),
        "csr": sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0)),
    }


@pytest.mark.parametrize("kind", list(_kinds()))
@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_callable_receives_x_as_scikit_learns_does(name: str, kind: str) -> None:
    """At fit and at prediction the callable is given the same kind of rows as scikit-learn's
    (a list, a dataframe, int64, float32 or CSR rows, not a float64 array), in the same calls
    (one at fit: the Gram matrix), and the model is scikit-learn's."""
    X = _kinds()[kind]
    _, labels = make_classification(40, 3, n_informative=2, n_redundant=0, random_state=0)
    y = _targets(name, labels)
    theirs_kernel, ours_kernel = KindRecorder(), KindRecorder()
    theirs = _fit(svm, name, theirs_kernel, X, y)
    ours = _fit(kernelkit, name, ours_kernel, X, y)
    assert ours_kernel.calls == theirs_kernel.calls
    theirs_values, ours_values = _outputs(theirs, X), _outputs(ours, X)
    assert ours_kernel.calls == theirs_kernel.calls
    np.testing.assert_allclose(ours_values, theirs_values, atol=1e-8)
    assert ours.shape_fit_ == theirs.shape_fit_
    assert hasattr(ours, "n_features_in_") == hasattr(theirs, "n_features_in_")
    assert hasattr(ours, "feature_names_in_") == hasattr(theirs, "feature_names_in_")


def _rbf(A: Any, B: Any) -> NDArray[np.float64]:
    return rbf_kernel(A, B, gamma=0.2)


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, A: Any, B: Any) -> NDArray[np.float64]:
        self.calls += 1
        return _rbf(A, B)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_solve_is_scikit_learns_over_the_same_gram_matrix(name: str) -> None:
    """scikit-learn computes ``kernel(X, X)`` once and solves it as a precomputed kernel;
    kernelkit called the kernel on blocks of rows, down to single rows, whose values differ
    in the last bits (the diagonal of ``rbf_kernel`` on one row is 1 - 2.2e-16, on (X, X)
    exactly 1), so the solve took another path (3 classes: 82 iterations where LIBSVM takes
    85, intercepts 2e-5 apart). Now the calls, iterations and model are scikit-learn's."""
    X, labels = make_classification(
        100, 5, n_informative=3, n_redundant=0, n_classes=3, random_state=3
    )
    y = _targets(name, labels)
    theirs_kernel, ours_kernel = Counting(), Counting()
    theirs = _fit(svm, name, theirs_kernel, X, y)
    ours = _fit(kernelkit, name, ours_kernel, X, y)
    assert ours_kernel.calls == theirs_kernel.calls
    np.testing.assert_array_equal(ours.n_iter_, theirs.n_iter_)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=0, atol=1e-12)


def test_a_callable_gives_the_named_kernels_model() -> None:
    """The user guide's promise: a callable computing the RBF kernel gives the model of
    ``kernel="rbf"`` to 1e-10 (the dual coefficients were 4.6e-3 apart on these rows)."""
    X, y = make_classification(100, 5, n_informative=3, n_redundant=0, n_classes=3, random_state=3)
    by_name = kernelkit.SVC(kernel="rbf", gamma=0.2).fit(X, y)
    by_callable = kernelkit.SVC(kernel=_rbf).fit(X, y)
    np.testing.assert_allclose(by_callable.dual_coef_, by_name.dual_coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(by_callable.intercept_, by_name.intercept_, rtol=0, atol=1e-10)
