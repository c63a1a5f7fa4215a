"""The estimators trained as one dual problem (``SVR``, ``NuSVR``, ``OneClassSVM``,
``SparseKernelLogisticRegression``): the fit over the rows of positive sample weight (warm
started from the previous fit's dual with ``warm_start``), and the solve's scalar record.

The one-vs-one classifiers solve one problem per class pair instead (``_pair_fit``) and keep
the same record as arrays, one entry per pair.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._base import Float64Array, KernelParams, KernelSvmMixin, check_finite_model
from ._rbf_shift import solved_rows
from ._validation import check_bool
from ._warm_start import PreviousSolve, digest_once
from ._warn import warn_unconverged

__all__ = ["KeptRows", "SingleProblemSvm", "store_solve_record"]


class KeptRows(NamedTuple):
    """The dual problem of a fit over the rows of X of positive sample weight."""

    #: The rows as the core takes them (for a precomputed kernel, their block of the Gram matrix).
    rows: Any
    #: Their indices in X.
    positions: NDArray[np.intp]
    #: Their sample weights.
    weights: Float64Array
    kernel: _core.Kernel
    #: The previous fit's dual of them, to start from (``warm_start``), or None.
    previous: Float64Array | None
    #: The previous fit's solution and gradient, when it solved the same dual (``warm_start``:
    #: ``_warm_start``, "The gradient"), or None.
    solved: tuple[Float64Array, Float64Array] | None = None


class SingleProblemSvm(KernelSvmMixin):
    """An SVM estimator trained as one dual problem (SVR, OneClassSVM): scalar diagnostics."""

    objective_: float
    kkt_gap_: float
    n_iter_: int
    objective_increases_: int
    status_: str
    solver_stats_: dict[str, float | str]
    fit_status_: int
    n_support_: NDArray[np.int32]

    def _fit_one_problem(
        self, X: Any, sample_weight: Any, solve: Callable[[KeptRows], _core.Solution]
    ) -> _core.Solution:
        """Fits the model to the checked rows X: their dual problem over the rows of positive
        weight, solved by ``solve`` (from the previous fit's dual with ``warm_start``), then
        the fitted attributes; returns the solution."""
        self._check_precomputed_fit(X)
        weights, kept = self._positive_weights(sample_weight, X)
        kernel = self._kernel_spec(X)
        previous = self._previous_dual(X.shape[0])
        # The rows of the dual: one variable per kept row (the signs of a C-SVC pair's dual).
        signs = np.ones(len(kept))
        # The digest of X is taken only where it is compared or kept.
        digest = digest_once(X, kernel, bool(getattr(self, "_float32_input", False)))
        solved: PreviousSolve | None = getattr(self, "_warm_solves", None)
        if (
            previous is None
            or solved is None
            or (current := digest()) is None
            or not solved.continues(current, kept, signs)
        ):
            solved = None
        solution = solve(
            KeptRows(
                self._training_rows(solved_rows(X, kernel[0]), kept),
                kept,
                weights[kept],
                self._make_kernel(kernel, X),
                None if previous is None else previous[kept],
                None if solved is None else (solved.x, solved.gradient),
            )
        )
        x = np.asarray(solution.x)
        self._store_solution(X, kept, x, solution, kernel)
        self._remember_dual(X.shape[0], kept, x)
        gradient = solution.gradient
        self._warm_solves = (
            None
            if self._warm_duals is None or gradient is None or (kept_digest := digest()) is None
            else PreviousSolve(kept_digest, kept, signs, x, np.asarray(gradient))
        )
        self.n_support_ = np.array([self.support_.shape[0]], dtype=np.int32)
        return solution

    def _previous_dual(self, n_samples: int) -> Float64Array | None:
        """The dual a fit with ``warm_start`` starts from: the previous fit's, over every
        training row, when it had ``warm_start`` and as many rows (else None: a cold start)."""
        if not check_bool("warm_start", getattr(self, "warm_start", False)):
            return None
        stored = getattr(self, "_warm_duals", None)
        if stored is None or stored[0] != n_samples:
            return None
        dual: Float64Array = stored[1]
        return dual

    def _remember_dual(self, n_samples: int, kept: NDArray[np.intp], x: Float64Array) -> None:
        """Keeps the solution over every training row for the next warm fit (only with
        ``warm_start``: a model keeps no copy otherwise)."""
        if check_bool("warm_start", getattr(self, "warm_start", False)):
            full = np.zeros(n_samples)
            full[kept] = x
            self._warm_duals: tuple[int, Float64Array] | None = (n_samples, full)
        else:
            self._warm_duals = None

    def _store_solution(
        self,
        X: Float64Array,
        kept: NDArray[np.intp],
        coef: Float64Array,
        solution: _core.Solution,
        kernel: KernelParams,
    ) -> None:
        """Fitted attributes of a single dual problem whose coefficients of the rows ``kept``
        are ``coef``; the support vectors are the rows with a non-zero coefficient. Called once
        the solve has returned, so that a fit that fails in the solve cannot pair a previous
        model's support vectors with this fit's kernel."""
        check_finite_model(coef, solution.bias, statuses=[solution.status])
        self._store_kernel(kernel)
        self.shape_fit_ = self._fitted_shape(X)
        # The unused header lines of a LIBSVM file the model was loaded from (kernelkit.io).
        self._libsvm_extras: dict[str, Float64Array] = {}
        support = np.flatnonzero(coef != 0)
        self.support_ = kept[support].astype(np.int32)
        self.support_vectors_ = (
            np.empty((0, 0))
            if self.kernel == "precomputed" or callable(self.kernel)
            else self._support_rows(X, self.support_)
        )
        self._dual_coef_ = coef[support][np.newaxis, :]
        self.intercept_ = np.array([solution.bias])
        store_solve_record(self, solution)
        self.fit_status_ = 0 if solution.status == "converged" else 1
        warn_unconverged([solution.status], default_limit=self.max_iter == -1)


def store_solve_record(model: Any, solution: _core.Solution) -> None:
    """Sets the fitted attributes of ``model`` that record how its single dual problem's solve
    went: the objective, KKT gap, iterations, objective increases, status and solver statistics
    (the per-pair estimators hold these as arrays, one entry per pair)."""
    model.objective_ = float(solution.objective)
    model.kkt_gap_ = float(solution.gap)
    model.n_iter_ = int(solution.iterations)
    model.objective_increases_ = int(solution.stats["objective_increases"])
    model.status_ = solution.status
    model.solver_stats_ = dict(solution.stats)
