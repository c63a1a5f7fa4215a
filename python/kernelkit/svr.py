"""Epsilon-Support Vector Regression: ``kernelkit.SVR``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import _core
from ._base import Float64Array, KernelSvmMixin, _check_positive

__all__ = ["SVR"]


class SVR(RegressorMixin, KernelSvmMixin):  # type: ignore[misc]
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
        kernel: str = "rbf",
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

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SVR:
        """Trains the model."""
        self._check_common_params()
        _check_positive("C", self.C)
        _check_positive("epsilon", self.epsilon, allow_zero=True)
        X_checked = self._validate_x(X, reset=True)
        target = np.asarray(y)
        if target.ndim == 2 and target.shape[1] == 1:
            target = target.ravel()
        if target.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {target.shape}")
        if target.shape[0] != X_checked.shape[0]:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: {X_checked.shape[0]} and "
                f"{target.shape[0]}"
            )
        try:
            target = target.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"y must be numeric for regression: {error}") from None
        if not np.all(np.isfinite(target)):
            raise ValueError("y contains NaN or infinity")
        self._check_precomputed_fit(X_checked)
        weights = _check_sample_weight(sample_weight, X_checked, dtype=np.float64)
        if np.any(weights < 0) or not np.all(np.isfinite(weights)):
            raise ValueError("sample_weight must be finite and non-negative")
        kept = np.flatnonzero(weights > 0)
        if len(kept) == 0:
            raise ValueError("sample_weight is zero for every sample")
        self._kernel = self._kernel_spec(X_checked)
        self.shape_fit_ = X_checked.shape
        if self.kernel == "precomputed":
            X_fit = np.ascontiguousarray(X_checked[np.ix_(kept, kept)])
        else:
            X_fit = np.ascontiguousarray(X_checked[kept])
        solution = self._solve(
            _core.solve_epsilon_svr,
            X_fit,
            np.ascontiguousarray(target[kept]),
            float(self.C) * weights[kept],
            float(self.epsilon),
            self._kernel,
            description="SVR",
        )
        beta = np.asarray(solution.x)
        support = np.flatnonzero(beta != 0)
        self.support_ = kept[support].astype(np.int32)
        self.support_vectors_ = (
            np.empty((0, 0))
            if self.kernel == "precomputed"
            else np.ascontiguousarray(X_checked[self.support_])
        )
        self.n_support_ = np.array([0, len(support)], dtype=np.int32)
        self.dual_coef_ = beta[support][np.newaxis, :]
        self.intercept_ = np.array([solution.bias])
        self.objective_ = float(solution.objective)
        self.kkt_gap_ = float(solution.gap)
        self.n_iter_ = int(solution.iterations)
        self.objective_increases_ = int(solution.stats["objective_increases"])
        self.status_ = solution.status
        self.solver_stats_ = dict(solution.stats)
        self.fit_status_ = 0 if solution.status == "converged" else 1
        self._warn_unconverged([solution.status])
        return self

    def predict(self, X: Any) -> Float64Array:
        """``Σ_i (α_i − α*_i) K(x_i, x) + b`` for every row of X."""
        check_is_fitted(self, "support_")
        X_checked = self._check_predict_input(X)
        coef = self.dual_coef_[0]
        prediction: Float64Array = self._blockwise(X_checked, lambda block: block @ coef)
        return prediction + float(self.intercept_[0])
