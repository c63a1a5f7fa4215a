"""One-vs-one pairs trained concurrently give the model trained one pair after the other."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Dataset

from kernelkit import SVC, NuSVC


def test_concurrent_pairs_give_the_sequential_model(digits: Dataset) -> None:
    d = digits
    for make in (lambda n: SVC(gamma=0.02, n_jobs=n), lambda n: NuSVC(nu=0.1, n_jobs=n)):
        sequential = make(1).fit(d.X, d.y)
        concurrent = make(2).fit(d.X, d.y)
        np.testing.assert_array_equal(sequential.support_, concurrent.support_)
        np.testing.assert_array_equal(sequential.dual_coef_, concurrent.dual_coef_)
        np.testing.assert_array_equal(sequential.intercept_, concurrent.intercept_)
        np.testing.assert_array_equal(sequential.n_iter_, concurrent.n_iter_)
        np.testing.assert_array_equal(
            sequential.decision_function(d.X_test), concurrent.decision_function(d.X_test)
        )


def test_an_exception_in_one_concurrent_pair_reaches_the_caller(digits: Dataset) -> None:
    def fail(progress: object) -> bool:
        raise RuntimeError("stop here")

    # Every pair reports at its 64th iteration, which these pairs reach at tol=1e-9.
    model = SVC(gamma=0.02, C=100.0, tol=1e-9, n_jobs=2, callback=fail)
    with pytest.raises(RuntimeError, match="stop here"):
        model.fit(digits.X, digits.y)
    assert not hasattr(model, "support_")
