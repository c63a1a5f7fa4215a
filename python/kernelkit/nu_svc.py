"""Nu-Support Vector Classification: ``kernelkit.NuSVC``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import _core
from ._base import Float64Array
from .nu_svr import _check_nu
from .svc import SVC

__all__ = ["NuSVC"]


class NuSVC(SVC):
    """ν-Support Vector Classification (a drop-in replacement for :class:`sklearn.svm.NuSVC`).

    Each pair of classes solves LIBSVM's ν-SVC dual (Schölkopf et al. 2000; Chang & Lin 2001)

    ``min ½ αᵀQα  s.t.  Σ_{y=+1} α_i = Σ_{y=−1} α_i = ν Σ w / 2,  0 ≤ α_i ≤ w_i``

    with the SMO engine's two-equality strategy (LIBSVM's ``Solver_NU``); the solution is
    rescaled by the ``r`` the solver finds into the C-SVC form with ``C = 1/r``, so
    ``dual_coef_`` and ``intercept_`` mean what they mean for :class:`kernelkit.SVC`. ν is an
    upper bound on the fraction of margin errors and a lower bound on the fraction of support
    vectors; it must satisfy ``ν ≤ 2 min(n₊, n₋)/n`` for every pair (weighted counts), else
    the fit raises ``ValueError``. As in LIBSVM and scikit-learn, ``class_weight`` has no effect
    on the ν formulation. See :class:`kernelkit.SVC` for the other parameters.
    """

    def __init__(
        self,
        *,
        nu: float = 0.5,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        shrinking: bool = True,
        tol: float = 1e-3,
        cache_size: float = 200,
        class_weight: Mapping[Any, float] | str | None = None,
        verbose: bool | int = False,
        max_iter: int = -1,
        decision_function_shape: str = "ovr",
        break_ties: bool = False,
        random_state: Any = None,
        n_jobs: int | None = None,
        callback: Callable[[Mapping[str, Any]], bool | None] | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.callback = callback
        self.time_limit = time_limit

    def _check_params(self) -> None:
        _check_nu(self.nu)
        self._check_shape_params()

    def _solve_pair(
        self,
        rows: Any,
        signs: Float64Array,
        weights: Float64Array,
        class_weights: Float64Array,
        kernel: _core.Kernel,
        **options: Any,
    ) -> _core.Solution:
        """The ν-SVC dual of one pair: bounds are the sample weights alone."""
        solution, _scale = self._solve(
            _core.solve_nu_svc, rows, signs, weights, float(self.nu), kernel, **options
        )
        return solution
