"""Nu-Support Vector Classification: ``kernelkit.NuSVC``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._base import Float64Array, _check_nu
from ._docstrings import shared_docstrings
from ._pair_fit import PairProblem
from ._params import ClassWeightParams, Controls, KernelParams, OneVsOneParams, SmoParams
from ._probability import matching_default
from ._warm_start import repair_onto
from .svc import BaseSVC

__all__ = ["NuSVC"]


@dataclass(kw_only=True, eq=False, repr=False)
class _NuSVCParams:
    """Its own parameters, first in its signature (``_params``)."""

    nu: float = 0.5


@dataclass(kw_only=True, eq=False, repr=False)
class _NuSVCInit(
    Controls, OneVsOneParams, SmoParams, KernelParams, ClassWeightParams, _NuSVCParams
):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class NuSVC(_NuSVCInit, BaseSVC):
    """Nu-Support Vector Classification, a drop-in replacement for :class:`sklearn.svm.NuSVC`.

    Each pair of classes solves LIBSVM's ν-SVC dual (Schölkopf et al. 2000; Chang & Lin 2001)

    ``min ½ αᵀQα  s.t.  Σ_{y=+1} α_i = Σ_{y=−1} α_i = ν Σ w / 2,  0 ≤ α_i ≤ w_i``

    with the SMO engine's two-equality strategy (LIBSVM's ``Solver_NU``); the solution is
    rescaled by the ``r`` the solver finds into the C-SVC form with ``C = 1/r``, so
    ``dual_coef_`` and ``intercept_`` mean what they mean for :class:`kernelkit.SVC`. ν is an
    upper bound on the fraction of margin errors and a lower bound on the fraction of support
    vectors; it must satisfy ``ν ≤ 2 min(n₊, n₋)/n`` for every pair (weighted counts), else
    the fit raises ``ValueError``. As in LIBSVM and scikit-learn, ``class_weight`` has no effect
    on the ν formulation.

    Parameters
    ----------
    nu : float, default=0.5
        The ν in (0, 1]: an upper bound on the fraction of margin errors and a lower bound on the
        fraction of support vectors. Must not exceed ``2 min(n₊, n₋) / n`` for any pair.
    {{probability}}
    class_weight : dict, "balanced" or None, default=None
        Checked and stored in ``class_weight_`` but without effect on the ν formulation (as in
        LIBSVM and scikit-learn).
    {{kernel, degree, gamma, coef0, cache_size, tol, shrinking, engine, warm_start}}
        Meant for a refit on the same rows with another ``nu`` or ``sample_weight``.
    {{decision_function_shape, break_ties, random_state, max_iter, verbose}}
        The pairs are then solved one after the other.
    {{n_jobs}}
        The pairs of a multiclass problem are solved concurrently, each with a share of the
        threads.
    {{callback, time_limit}}

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        The class weights computed from ``class_weight`` (unused by the ν formulation).
    dual_coef_ : ndarray or sparse matrix of shape (n_classes - 1, n_SV)
        The coefficients ``y_i α_i / r`` of the support vectors, in :class:`SVC`'s layout.
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The constant ``−ρ / r`` of each pairwise decision function (sign flipped for two
        classes).
    objective_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The ν dual objective ``½αᵀQα`` of each pair at exit, divided by ``r²`` (LIBSVM's
        rescaling).
    {{pairs: *}}
    {{n_features_in_, feature_names_in_, shape_fit_, support_vectors_}}

    See Also
    --------
    SVC : The C-parametrised classifier.

    References
    ----------
    .. [1] B. Schölkopf, A. J. Smola, R. C. Williamson and P. L. Bartlett, "New support vector
       algorithms", Neural Computation 12(5), 2000.
    .. [2] C.-C. Chang and C.-J. Lin, "Training ν-support vector classifiers: theory and
       algorithms", Neural Computation 13(9), 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from sklearn.datasets import load_iris
    >>> from kernelkit import NuSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> model = NuSVC(nu=0.1).fit(X, y)
    >>> model.predict(X[[0, 50, 100]])
    array([0, 1, 2])
    >>> float(model.score(X, y)) > 0.95
    True

    The model is LIBSVM's, as scikit-learn fits it:

    >>> reference = svm.NuSVC(nu=0.1).fit(X, y)
    >>> bool(np.array_equal(model.support_, reference.support_))
    True
    >>> bool(np.allclose(model.decision_function(X), reference.decision_function(X), atol=1e-8))
    True
    """

    # ν-SVC's starting point and equalities are per row: kept exactly as LIBSVM's.
    _merges_repeated_rows = False

    def _check_params(self) -> None:
        _check_nu(self.nu)
        self._check_shape_params()

    def _fold_solve_options(self) -> dict[str, Any]:
        """A probability fold's class that cannot carry ``ν Σw / 2`` is held at its bounds
        (``capped``) instead of the ``nu`` being reported infeasible: the pair's ν was checked
        on all its rows, and LIBSVM trains the folds unchecked (to a NaN model there; see
        ``_probability``'s module doc)."""
        return {"capped": True}

    def _solve_pair(
        self, rows: Any, pair: PairProblem, kernel: _core.Kernel, **options: Any
    ) -> _core.Solution:
        """The ν-SVC dual of the pair's ``rows``: bounds are the sample weights alone;
        ``options["alpha0"]`` (the unscaled ``α``) starts it when given, with the gradient
        updated from ``options["previous"]`` (unscaled, :meth:`_kept_solve`) when given;
        ``options["capped"]`` as :meth:`_fold_solve_options` says."""
        alpha0 = options.pop("alpha0", None)
        previous = options.pop("previous", None)
        capped = bool(options.pop("capped", False))
        weights, nu = pair.rows_weights, float(self.nu)
        solution, _scale = self._solve(
            _core.solve_nu_svc,
            rows,
            pair.rows_signs,
            weights,
            nu,
            kernel,
            alpha0,
            previous,
            capped,
            **options,
        )
        return solution

    def _scale(self, signs: Float64Array, weights: Float64Array, x: Float64Array) -> float:
        """The ``r`` of a pair's solution ``x = α / r`` (C-SVC form): the one whose unscaled
        ``α`` sums to ``ν Σ w / 2`` over each class (the ν-SVC constraints)."""
        return float(self.nu) * float(np.sum(weights)) / 2.0 / float(np.sum(x[signs > 0]))

    def _full_dual(
        self,
        weights: Float64Array,
        result: tuple[NDArray[np.intp], Float64Array, Float64Array, Any],
    ) -> Float64Array:
        """The pair's unscaled ``α = r · α_C`` over every training row: ``r`` is the one whose
        ``α`` sums to ``ν Σ w / 2`` over each class (the ν-SVC constraints)."""
        index, signs, alpha, _ = result
        full = np.zeros(len(weights))
        full[index] = alpha * self._scale(signs, weights[index], alpha)
        return full

    def _kept_solve(
        self, problem: Any, solution: _core.Solution
    ) -> tuple[Float64Array, Float64Array] | None:
        """The pair's solve unscaled, ``(α, Qα) = r · (x, Qx)`` (the ν-SVC dual's ``p`` is 0),
        as a later warm fit passes it back (``previous``), or None without a gradient."""
        if solution.gradient is None:
            return None
        x = np.asarray(solution.x)
        upper = problem.rows_weights
        r = self._scale(problem.rows_signs, upper, x)
        alpha = x * r
        # The core solved α and returned α / r; this r is the one of the constraint's sum,
        # which the solve keeps up to its rounding, so the product leaves a variable at its
        # bound up to ~1e-14 beside it, where the next solve would take it for a free
        # variable violating the optimality conditions (an identical refit of 600 rows took
        # 106 pair steps to put them back, where none is needed). A free variable the solve
        # left that close to its bound, were there one, moves by less than its rounding.
        at_bound = np.abs(alpha - upper) <= 1e-12 * upper
        alpha[at_bound] = upper[at_bound]
        return alpha, np.asarray(solution.gradient) * r

    def _start_from_solve(self, problem: Any, x: Float64Array) -> Float64Array:
        """The kept unscaled solution moved into this fit's constraints (ν-SVC solves every
        row: its solved rows are the pair's positions)."""
        return self._warm_pair_start(problem, x)

    def _warm_pair_start(self, problem: Any, start: Float64Array) -> Float64Array:
        """The previous unscaled dual moved into this fit's ν-SVC constraints:
        ``0 ≤ α ≤ sample_weight`` and ``Σ_{y=±1} α = ν Σ w / 2`` on each side."""
        weights = problem.sample_weights
        target = float(np.sum(float(self.nu) * weights)) / 2.0
        alpha0 = np.empty_like(start)
        for side in (problem.signs > 0, problem.signs < 0):
            alpha0[side] = repair_onto(start[side], weights[side], target)
        return alpha0


NuSVC.__doc__ = matching_default(NuSVC.__doc__)
