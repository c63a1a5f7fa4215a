"""Unsupervised outlier detection: ``kernelkit.OneClassSVM``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import OutlierMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import Float64Array, SingleProblemSvm

__all__ = ["OneClassSVM"]


class OneClassSVM(OutlierMixin, SingleProblemSvm):  # type: ignore[misc]
    """One-class SVM (Schölkopf et al. 2001), a drop-in for :class:`sklearn.svm.OneClassSVM`.

    Solves LIBSVM's dual ``min ½ αᵀKα  s.t.  Σα_i = ν Σ w_i,  0 ≤ α_i ≤ w_i`` (``w``: sample
    weights, 1 by default) with the SMO engine. ``decision_function(x) = Σ α_i K(x_i, x) − ρ``;
    ``offset_ = ρ``. See :class:`kernelkit.SVC` for ``n_jobs``, ``callback``, ``time_limit``
    and the extra fitted attributes (scalars here).
    """

    def __init__(
        self,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-3,
        nu: float = 0.5,
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
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.callback = callback
        self.time_limit = time_limit

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> OneClassSVM:
        """Trains the model (``y`` is ignored)."""
        self._check_common_params()
        nu = self.nu
        if isinstance(nu, bool) or not isinstance(nu, (int, float, np.floating, np.integer)):
            raise TypeError(f"nu must be a real number, got {type(nu).__name__}")
        if not (0.0 < float(nu) <= 1.0):
            raise ValueError(f"nu must be in (0, 1], got {nu!r}")
        X_checked = self._validate_x(X, reset=True)
        self._check_precomputed_fit(X_checked)
        weights, kept = self._positive_weights(sample_weight, X_checked)
        kernel = self._kernel_spec(X_checked)
        solution = self._solve(
            _core.solve_one_class,
            self._training_rows(X_checked, kept),
            weights[kept],
            float(nu),
            self._make_kernel(kernel),
            description="OneClassSVM",
        )
        self._store_solution(X_checked, kept, np.asarray(solution.x), solution, kernel)
        self.n_support_ = np.array([self.support_.shape[0]], dtype=np.int32)
        self.offset_ = -solution.bias
        return self

    def decision_function(self, X: Any) -> Float64Array:
        """``Σ α_i K(x_i, x) − ρ``: positive for inliers."""
        check_is_fitted(self, "support_")
        X_checked = self._check_predict_input(X)
        coef = self.dual_coef_[0]
        decision: Float64Array = self._blockwise(X_checked, lambda block: block @ coef)
        return decision + float(self.intercept_[0])

    def score_samples(self, X: Any) -> Float64Array:
        """``Σ α_i K(x_i, x)`` (the decision function before the offset)."""
        return self.decision_function(X) + self.offset_

    def predict(self, X: Any) -> NDArray[np.int64]:
        """+1 for inliers, −1 for outliers."""
        return np.where(self.decision_function(X) > 0, 1, -1)
