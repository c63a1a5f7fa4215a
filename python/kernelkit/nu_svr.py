"""Nu-Support Vector Regression: ``kernelkit.NuSVR``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from . import _core
from ._base import Float64Array, _check_positive
from .svr import SVR

__all__ = ["NuSVR"]


class NuSVR(SVR):
    """ν-Support Vector Regression (a drop-in replacement for :class:`sklearn.svm.NuSVR`).

    Solves LIBSVM's ν-SVR dual (Schölkopf et al. 2000; Chang & Lin 2011 §2.4)

    ``min ½ (α − α*)ᵀK(α − α*) − zᵀ(α − α*)``
    ``s.t. Σα_i = Σα*_i = C ν Σ w / 2,  0 ≤ α_i, α*_i ≤ C w_i``

    with the SMO engine's two-equality strategy (LIBSVM's ``Solver_NU``): ν bounds the fraction
    of support vectors from below and of errors from above, and the tube width is found by the
    solver (``epsilon_``). See :class:`kernelkit.SVC` for ``n_jobs``, ``callback``,
    ``time_limit`` and the extra fitted attributes.
    """

    epsilon_: float

    def __init__(
        self,
        *,
        nu: float = 0.5,
        C: float = 1.0,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        shrinking: bool = True,
        tol: float = 1e-3,
        cache_size: float = 200,
        verbose: bool | int = False,
        max_iter: int = -1,
        n_jobs: int | None = None,
        callback: Callable[[Mapping[str, Any]], bool | None] | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.callback = callback
        self.time_limit = time_limit

    def _check_params(self) -> None:
        self._check_common_params()
        _check_positive("C", self.C)
        _check_nu(self.nu)

    def _solve_regression(
        self, rows: Any, target: Float64Array, weights: Float64Array, kernel: _core.Kernel
    ) -> _core.Solution:
        solution, epsilon = self._solve(
            _core.solve_nu_svr,
            rows,
            target,
            float(self.C) * weights,
            float(self.nu),
            kernel,
            description=type(self).__name__,
        )
        self.epsilon_ = float(epsilon)
        return solution


def _check_nu(nu: object) -> float:
    """ν must be a real number in (0, 1]."""
    if isinstance(nu, bool) or not isinstance(nu, (int, float, np.integer, np.floating)):
        raise TypeError(f"nu must be a real number, got {type(nu).__name__}")
    if not 0.0 < float(nu) <= 1.0:
        raise ValueError(f"nu must be in (0, 1], got {nu!r}")
    return float(nu)
