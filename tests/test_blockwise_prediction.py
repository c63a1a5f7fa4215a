"""Prediction is computed in blocks of test rows (kernelkit._base.PREDICT_BLOCK_VALUES): the
result must not depend on the block size beyond rounding (a block of fewer than four rows takes
dot products, a larger one a GEMM, which sums in another order), and equals a NumPy evaluation
of the fitted model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit
import kernelkit._base


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5))
    return x, np.sin(x[:, 0]) + 0.3 * x[:, 1] + 0.1 * rng.normal(size=n)


ESTIMATORS: list[tuple[Any, str]] = [
    (kernelkit.SVR(gamma=0.2, C=3.0, epsilon=0.05), "regression"),
    (kernelkit.SVC(gamma=0.2, C=3.0), "three classes"),
    (kernelkit.OneClassSVM(gamma=0.2, nu=0.3), "none"),
]


@pytest.mark.parametrize(("model", "kind"), ESTIMATORS, ids=["SVR", "SVC", "OneClassSVM"])
@pytest.mark.parametrize("values", [1, 37, 1000])
def test_prediction_does_not_depend_on_the_block_size(
    model: Any, kind: str, values: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    x, t = _data(300, 0)
    x_test, _ = _data(257, 1)
    if kind == "regression":
        model.fit(x, t)
    elif kind == "three classes":
        model.fit(x, np.digitize(t, np.quantile(t, [1 / 3, 2 / 3])))
    else:
        model.fit(x)
    decision = getattr(model, "decision_function", model.predict)
    whole = decision(x_test)
    # NumPy: the fitted attributes give the same values (binary / regression / one-class).
    if kind != "three classes":
        k = rbf_kernel(x_test, model.support_vectors_, gamma=0.2)
        expected = k @ model.dual_coef_[0] + model.intercept_[0]
        np.testing.assert_allclose(whole, expected, rtol=0, atol=1e-10)
    # Blocks of values // n_SV rows (at least one row): 257 blocks of one row, then a few.
    monkeypatch.setattr(kernelkit._base, "PREDICT_BLOCK_VALUES", values * len(model.support_))
    np.testing.assert_allclose(decision(x_test), whole, rtol=0, atol=1e-12)
    reversed_order = decision(x_test[::-1])[::-1]
    np.testing.assert_allclose(reversed_order, whole, rtol=0, atol=1e-12)
