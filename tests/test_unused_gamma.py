"""``gamma=0`` where the kernel does not use ``gamma`` (``"linear"``, ``"precomputed"``, a
callable): scikit-learn fits, and so does kernelkit, to scikit-learn's model; it was refused
("gamma must be finite and > 0") for every kernel. A negative ``gamma`` is refused for every
kernel, as scikit-learn refuses it; ``gamma=0`` stays refused for the kernels it makes constant
(a documented difference: scikit-learn fits the constant kernel)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from sklearn import svm
from sklearn.datasets import make_classification

import kernelkit

ESTIMATORS = ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"]


def _linear(A: Any, B: Any) -> Any:
    return A @ B.T


def _data(kernel: Any) -> tuple[Any, Any]:
    X, y = make_classification(60, 4, n_informative=3, n_redundant=0, random_state=1)
    return (X @ X.T if kernel == "precomputed" else X), y


def _fit(module: Any, name: str, X: Any, y: Any, **params: Any) -> Any:
    estimator = getattr(module, name)(**params)
    with warnings.catch_warnings():
        # scikit-learn's ConvergenceWarning or FutureWarning are not what is compared.
        warnings.simplefilter("ignore")
        return estimator.fit(X) if name == "OneClassSVM" else estimator.fit(X, y)


@pytest.mark.parametrize("gamma", [0, 0.0])
@pytest.mark.parametrize("kernel", ["linear", "precomputed", _linear])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_gamma_zero_is_taken_where_the_kernel_ignores_it(
    name: str, kernel: Any, gamma: Any
) -> None:
    X, y = _data(kernel)
    if name in ("SVR", "NuSVR"):
        y = y.astype(np.float64)
    theirs = _fit(svm, name, X, y, kernel=kernel, gamma=gamma)
    ours = _fit(kernelkit, name, X, y, kernel=kernel, gamma=gamma)
    # The kernel ignores gamma: the model of the default gamma, bit for bit.
    default = _fit(kernelkit, name, X, y, kernel=kernel)
    method = "predict" if name in ("SVR", "NuSVR") else "decision_function"
    np.testing.assert_array_equal(getattr(ours, method)(X), getattr(default, method)(X))
    # scikit-learn's model (its dual coefficients: the linear NuSVR's intercept differs from
    # scikit-learn's for every gamma, an unrelated difference).
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-6)
    assert ours.get_params()["gamma"] is gamma
    # A negative gamma is refused for these kernels too, as scikit-learn refuses it.
    for module in (svm, kernelkit):
        with pytest.raises(ValueError, match="gamma"):
            _fit(module, name, X, y, kernel=kernel, gamma=-0.5)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid"])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_gamma_zero_is_refused_where_it_makes_the_kernel_constant(name: str, kernel: str) -> None:
    X, y = _data(kernel)
    with pytest.raises(ValueError, match=rf"gamma must be > 0 for kernel='{kernel}'"):
        _fit(kernelkit, name, X, y, kernel=kernel, gamma=0.0)


def test_the_linear_aid_classifier_and_aggregated_kernel_take_gamma_zero() -> None:
    """The other users of the kernel parameters follow the same rule: AIDClassifier's default
    kernel (linear) takes gamma=0, to the model of its default gamma; ``aggregated_kernel``
    with a linear kernel too, and refuses gamma=0 for the RBF kernel."""
    from kernelkit.solvers import aggregated_kernel

    X, y = make_classification(60, 4, random_state=0)
    zero = kernelkit.AIDClassifier(gamma=0.0, random_state=0).fit(X, y)
    default = kernelkit.AIDClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(zero.decision_function(X), default.decision_function(X))
    clusters = np.arange(60) % 5
    np.testing.assert_array_equal(
        aggregated_kernel(X, clusters, kernel="linear", gamma=0.0),
        aggregated_kernel(X, clusters, kernel="linear", gamma=1.0),
    )
    with pytest.raises(ValueError, match="gamma must be > 0 for kernel='rbf'"):
        aggregated_kernel(X, clusters, kernel="rbf", gamma=0.0)
