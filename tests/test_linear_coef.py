"""``coef_`` for ``kernel="linear"``: scikit-learn's weights (its layout, sparse for sparse
input), and ``X @ coef_.T + intercept_`` is the decision function."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm
from sklearn.datasets import load_iris, make_regression

import kernelkit


def _iris(binary: bool) -> tuple[np.ndarray, np.ndarray]:
    x, y = load_iris(return_X_y=True)
    return (x, (y == 1).astype(int)) if binary else (x, y)


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "three_classes"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(("ours", "theirs"), [("SVC", svm.SVC), ("NuSVC", svm.NuSVC)])
def test_classifier_coef_is_scikit_learns(
    ours: str, theirs: Any, binary: bool, sparse: bool
) -> None:
    x, y = _iris(binary)
    data = sp.csr_matrix(x) if sparse else x
    params = {"kernel": "linear", "tol": 1e-8}
    if ours == "NuSVC":
        # (ν = 0.3 has a degenerate scale r ≈ 0 on the binary problem: kernelkit refuses it, LIBSVM
        # divides by the negative r.)
        params["nu"] = 0.5
    mine = getattr(kernelkit, ours)(**params).fit(data, y).coef_
    reference = theirs(**params).fit(data, y).coef_
    assert sp.issparse(mine) == sp.issparse(reference)
    dense = mine.toarray() if sp.issparse(mine) else mine
    expected = reference.toarray() if sp.issparse(reference) else reference
    assert dense.shape == expected.shape
    # Both solved to tol=1e-8: the solutions agree to about that.
    np.testing.assert_allclose(dense, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("ours", "theirs", "params"),
    [
        ("SVR", svm.SVR, {"C": 10.0, "epsilon": 0.5}),
        ("NuSVR", svm.NuSVR, {"C": 10.0, "nu": 0.4}),
    ],
)
def test_regressor_coef_is_scikit_learns(ours: str, theirs: Any, params: dict[str, Any]) -> None:
    x, y = make_regression(n_samples=150, n_features=4, noise=5.0, random_state=0)
    y = y / y.std()
    mine = getattr(kernelkit, ours)(kernel="linear", tol=1e-8, **params).fit(x, y).coef_
    reference = theirs(kernel="linear", tol=1e-8, **params).fit(x, y).coef_
    np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-8)


def test_one_class_coef_is_scikit_learns() -> None:
    x, _ = _iris(False)
    mine = kernelkit.OneClassSVM(kernel="linear", nu=0.2, tol=1e-8).fit(x).coef_
    reference = svm.OneClassSVM(kernel="linear", nu=0.2, tol=1e-8).fit(x).coef_
    np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("SVC", {}),
        ("SVR", {}),
        ("OneClassSVM", {}),
        ("PUClassifier", {"prior": 0.4}),
        ("FrankWolfeSVC", {"random_state": 0}),
        ("SparseKernelLogisticRegression", {}),
    ],
)
def test_coef_gives_the_decision_function(name: str, params: dict[str, Any]) -> None:
    x, y = _iris(True)
    if name == "PUClassifier":
        y = np.where((y == 1) & (np.arange(len(y)) % 2 == 0), 1, 0)
    model = getattr(kernelkit, name)(kernel="linear", **params)
    model = model.fit(x) if name == "OneClassSVM" else model.fit(x, y)
    scores = model.predict(x) if name == "SVR" else model.decision_function(x)
    np.testing.assert_allclose(x @ model.coef_[0] + model.intercept_[0], scores, atol=1e-9)


def test_coef_needs_the_linear_kernel() -> None:
    x, y = _iris(True)
    model = kernelkit.SVC(kernel="rbf").fit(x, y)
    with pytest.raises(AttributeError, match="linear kernel"):
        _ = model.coef_
    assert not hasattr(kernelkit.SVC(kernel="linear"), "coef_")  # not fitted
