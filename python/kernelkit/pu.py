"""Positive-unlabeled learning with the double hinge loss: ``kernelkit.PUClassifier``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import Float64Array, KernelSvmMixin, _check_positive

if sys.version_info >= (3, 11):
    from typing import Self
else:  # pragma: no cover
    from typing_extensions import Self

__all__ = ["PUClassifier"]


class PUClassifier(ClassifierMixin, KernelSvmMixin):  # type: ignore[misc]
    """Positive-unlabeled classifier trained by USMO (Sansone, De Natale & Zhou, TPAMI 2019).

    ``fit(X, y)`` takes ``y = 1`` for the labeled positives and ``y = 0`` for the unlabeled rows
    (positives and negatives mixed). It minimises the double-hinge PU risk of du Plessis et al.
    (ICML 2015) with an RKHS penalty,

    ``(π/p) Σ_{labeled} −f(x) + (1/n) Σ_{unlabeled} max(0, f(x), (1 + f(x))/2) + λ‖f‖²``,

    through its dual over the unlabeled rows, solved by an SMO-type method with the exact
    four-case pair step, the paper's optimality conditions plus the fourth condition the paper
    omits (see ``crates/solvers/src/usmo``), and the shared kernel cache.

    Parameters
    ----------
    prior : float
        π, the fraction of positives in the *whole* data (labeled and unlabeled alike, as the
        paper uses it), in (0, 1). Required: PU data cannot reveal it without extra assumptions.
    lam : float
        λ > 0, the RKHS regularisation weight.
    kernel, degree, gamma, coef0, tol, cache_size, max_iter, n_jobs, callback, verbose, time_limit
        As for :class:`kernelkit.SVC` (``tol`` is the τ of the optimality conditions).

    Fitted attributes
    -----------------
    support_vectors_, dual_coef_, intercept_
        ``f(x) = Σ dual_coef_[0, k] K(support_vectors_[k], x) + intercept_``: every labeled
        positive with coefficient ``c1 = π/(2λp)`` and every unlabeled row with ``σ_u > 0`` with
        ``−σ_u``.
    sigma_
        σ for every unlabeled row (in the order of the unlabeled rows of X).
    objective_, kkt_gap_, n_iter_, status_, solver_stats_
        The dual objective Φ, the largest of the four optimality gaps at exit, and the solver's
        diagnostics.
    """

    classes_: NDArray[Any]
    sigma_: Float64Array
    objective_: float
    kkt_gap_: float
    n_iter_: int
    status_: str
    solver_stats_: dict[str, float]

    def __init__(
        self,
        *,
        prior: float | None = None,
        lam: float = 0.01,
        kernel: str = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-3,
        cache_size: float = 200,
        verbose: bool | int = False,
        max_iter: int = -1,
        n_jobs: int | None = None,
        callback: Callable[[Mapping[str, Any]], bool | None] | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.prior = prior
        self.lam = lam
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.callback = callback
        self.time_limit = time_limit

    def _check_params(self) -> None:
        self._check_common_params()
        if self.kernel == "precomputed" or callable(self.kernel):
            raise ValueError("PUClassifier supports 'linear', 'rbf', 'poly' and 'sigmoid' kernels")
        if self.prior is None:
            raise ValueError("prior is required: the fraction of positives in the whole data")
        if isinstance(self.prior, bool) or not isinstance(self.prior, (int, float, np.number)):
            raise TypeError(f"prior must be a real number, got {type(self.prior).__name__}")
        if not 0.0 < float(self.prior) < 1.0:
            raise ValueError(f"prior must be in (0, 1), got {self.prior!r}")
        _check_positive("lam", self.lam)

    def _solver_options(self) -> dict[str, Any]:
        # USMO keeps every unlabeled row active: no shrinking option.
        options = super()._solver_options()
        options.pop("shrinking", None)
        return options

    def fit(self, X: Any, y: Any) -> Self:
        """Trains on labeled positives (``y == 1``) and unlabeled rows (``y == 0``)."""
        self._check_params()
        X_checked, labels = self._validate_xy(X, y)
        values = np.unique(labels)
        if not np.all(np.isin(values, [0, 1])):
            raise ValueError(
                f"y must hold 1 (labeled positive) and 0 (unlabeled), got values {values[:5]!r}"
            )
        positive = np.flatnonzero(labels == 1)
        unlabeled = np.flatnonzero(labels == 0)
        if len(positive) == 0:
            raise ValueError("y has no labeled positive (y == 1)")
        if len(unlabeled) == 0:
            raise ValueError("y has no unlabeled row (y == 0)")
        kernel_params = self._kernel_spec(X_checked)
        solution, c1 = self._solve(
            _core.solve_pu,
            self._training_rows(X_checked, positive),
            self._training_rows(X_checked, unlabeled),
            self._make_kernel(kernel_params),
            float(self.prior),  # type: ignore[arg-type]
            float(self.lam),
            description="PUClassifier",
        )
        sigma = np.asarray(solution.x)
        kept = unlabeled[sigma > 0]
        self._store_kernel(kernel_params)
        self.shape_fit_ = X_checked.shape
        self.classes_ = np.array([0, 1])
        self.support_ = np.concatenate([positive, kept]).astype(np.int32)
        self.support_vectors_ = self._support_rows(X_checked, self.support_)
        self.dual_coef_ = np.concatenate([np.full(len(positive), c1), -sigma[sigma > 0]])[
            np.newaxis, :
        ]
        self.intercept_ = np.array([solution.bias])
        self.sigma_ = sigma
        self.objective_ = float(solution.objective)
        self.kkt_gap_ = float(solution.gap)
        self.n_iter_ = int(solution.iterations)
        self.objective_increases_ = int(solution.stats["objective_increases"])
        self.status_ = solution.status
        self.solver_stats_ = dict(solution.stats)
        self._warn_unconverged([solution.status])
        return self

    def decision_function(self, X: Any) -> Float64Array:
        """``f(x)``: positive for the positive class."""
        check_is_fitted(self, "support_")
        X_checked = self._check_predict_input(X)
        coef = self.dual_coef_[0]
        decision: Float64Array = self._blockwise(X_checked, lambda block: block @ coef)
        return decision + float(self.intercept_[0])

    def predict(self, X: Any) -> NDArray[np.int64]:
        """1 where ``f(x) ≥ 0`` (the positive class), else 0."""
        return np.where(self.decision_function(X) >= 0, 1, 0)
