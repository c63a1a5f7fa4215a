"""Epsilon-Support Vector Regression: ``kernelkit.SVR``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

if sys.version_info >= (3, 11):
    from typing import Self
else:  # pragma: no cover
    from typing_extensions import Self

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import Float64Array, SingleProblemSvm, _check_positive

__all__ = ["SVR"]


class SVR(RegressorMixin, SingleProblemSvm):  # type: ignore[misc]
    """Epsilon-Support Vector Regression (a drop-in replacement for :class:`sklearn.svm.SVR`).

    Solves LIBSVM's doubled dual

    ``min ½ (α − α*)ᵀK(α − α*) + ε Σ(α_i + α*_i) − Σ z_i (α_i − α*_i)``
    ``s.t. Σ(α_i − α*_i) = 0,  0 ≤ α_i, α*_i ≤ C · sample_weight_i``

    with the SMO engine; ``dual_coef_`` holds ``α − α*`` of the support vectors. See
    :class:`kernelkit.SVC` for ``n_jobs``, ``callback``, ``time_limit`` and the extra fitted
    attributes (here scalars: ``objective_``, ``kkt_gap_``, ``objective_increases_``,
    ``status_``, ``n_iter_``).
    """

    def __init__(
        self,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-3,
        C: float = 1.0,
        epsilon: float = 0.1,
        shrinking: bool = True,
        cache_size: float = 200,
        verbose: bool | int = False,
        max_iter: int = -1,
        n_jobs: int | None = None,
        callback: Callable[[Mapping[str, Any]], bool | None] | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.callback = callback
        self.time_limit = time_limit

    def _check_params(self) -> None:
        self._check_common_params()
        _check_positive("C", self.C)
        _check_positive("epsilon", self.epsilon, allow_zero=True)

    def _solve_regression(
        self, rows: Any, target: Float64Array, weights: Float64Array, kernel: _core.Kernel
    ) -> _core.Solution:
        """The ε-SVR dual: bounds ``C · sample_weight``, tube width ``epsilon``."""
        return self._solve(
            _core.solve_epsilon_svr,
            rows,
            target,
            float(self.C) * weights,
            float(self.epsilon),
            kernel,
            description=type(self).__name__,
        )

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Trains the model."""
        self._check_params()
        X_checked, target = self._validate_xy(X, y)
        try:
            target = target.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"y must be numeric for regression: {error}") from None
        if not np.all(np.isfinite(target)):
            raise ValueError("y contains NaN or infinity")
        self._check_precomputed_fit(X_checked)
        weights, kept = self._positive_weights(sample_weight, X_checked)
        kernel = self._kernel_spec(X_checked)
        solution = self._solve_regression(
            self._training_rows(X_checked, kept),
            np.ascontiguousarray(target[kept]),
            weights[kept],
            self._make_kernel(kernel),
        )
        self._store_solution(X_checked, kept, np.asarray(solution.x), solution, kernel)
        self.n_support_ = np.array([0, self.support_.shape[0]], dtype=np.int32)
        return self

    def predict(self, X: Any) -> Float64Array:
        """``Σ_i (α_i − α*_i) K(x_i, x) + b`` for every row of X."""
        check_is_fitted(self, "support_")
        X_checked = self._check_predict_input(X)
        coef = self.dual_coef_[0]
        prediction: Float64Array = self._blockwise(X_checked, lambda block: block @ coef)
        return prediction + float(self.intercept_[0])
