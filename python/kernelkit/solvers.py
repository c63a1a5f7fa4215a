"""Low-level access to the solvers: the uniform :class:`Solver` protocol, and the SMO engine on
a user-given box-constrained QP.

>>> import numpy as np
>>> from kernelkit.solvers import BoxQp, Smo
>>> Q = np.array([[2.0, 0.5], [0.5, 1.0]])
>>> problem = BoxQp(Q, p=np.array([-1.0, -1.0]), y=np.array([1.0, -1.0]), upper=np.ones(2))
>>> solution = Smo(tol=1e-8).solve(problem)
>>> solution.status
'converged'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core
from ._base import _check_kernel_parameters, _check_positive
from ._core import Solution
from ._docstrings import shared_docstrings
from ._rbf_shift import solved_rows
from ._threads import resolve_n_jobs
from ._validation import check_bool, core_max_iter, core_time_limit

__all__ = ["BoxQp", "Smo", "Solution", "Solver", "aggregated_kernel"]

ProgressCallback = Callable[[Mapping[str, Any]], "bool | None"]


@runtime_checkable
@shared_docstrings
class Solver(Protocol):
    """What every kernelkit solver offers: a name and ``solve(problem, *, callback=None)``.

    A structural protocol (``isinstance`` works at run time): any object with a ``name``
    property and a ``solve`` method of this signature is a solver, such as :class:`Smo`.
    """

    @property
    def name(self) -> str:
        """A short, stable name of the solver, such as ``"smo"``."""

    def solve(self, problem: Any, *, callback: ProgressCallback | None = None) -> Solution:
        """Solve ``problem``.

        Parameters
        ----------
        problem : object
            The problem, of the type the solver accepts (:class:`BoxQp` for :class:`Smo`).
        {{solve: callback}}

        Returns
        -------
        Solution
            The solution; hitting a limit is reported in ``Solution.status``, not raised.
        """


def _float_array(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """``value`` as contiguous float64; a ``ValueError`` naming ``name`` where an entry is an
    int beyond float's range (NumPy raised a bare ``OverflowError``)."""
    try:
        return np.ascontiguousarray(value, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{name} contains an integer beyond float's range") from None


def _vector(name: str, value: ArrayLike, n: int) -> NDArray[np.float64]:
    array = _float_array(name, value)
    if array.ndim != 1 or array.shape[0] != n:
        raise ValueError(f"{name} must be a vector of length {n}, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinity")
    return array


@dataclass(frozen=True)
class BoxQp:
    """``min ½αᵀQα + pᵀα  s.t.  yᵀα = yᵀα⁰,  0 ≤ α_i ≤ upper_i`` with ``y_i ∈ {−1, +1}``.

    ``Q`` is the (already signed) symmetric positive semi-definite Hessian; the solver reads it
    through a float32 column cache, as LIBSVM does. ``alpha0`` (default 0) must be feasible
    and fixes the right-hand side of the equality constraint. The arrays are checked and
    stored as contiguous float64 (the attributes of the same names).

    Parameters
    ----------
    Q : array-like of shape (n, n)
        The Hessian, non-empty, symmetric positive semi-definite. The solver checks the
        symmetry (to a relative 1e-6 of the entries, the rounding of its float32 cache) and
        raises ``ValueError`` naming the first pair that differs; ``(Q + Q.T) / 2`` has the
        same objective.
    p : array-like of shape (n,)
        The linear term (finite).
    y : array-like of shape (n,)
        The signs of the equality constraint, each -1 or +1.
    upper : array-like of shape (n,)
        The upper bounds, finite and > 0.
    alpha0 : array-like of shape (n,), default=None
        A feasible starting point, ``0 ≤ alpha0_i ≤ upper_i``; None starts from 0 (the
        equality's right-hand side is then 0).
    """

    Q: NDArray[np.float64]
    p: NDArray[np.float64]
    y: NDArray[np.float64]
    upper: NDArray[np.float64]
    alpha0: NDArray[np.float64] | None = field(default=None)

    def __init__(
        self,
        Q: ArrayLike,
        p: ArrayLike,
        y: ArrayLike,
        upper: ArrayLike,
        alpha0: ArrayLike | None = None,
    ) -> None:
        q = _float_array("Q", Q)
        if q.ndim != 2 or q.shape[0] != q.shape[1] or q.shape[0] == 0:
            raise ValueError(f"Q must be a non-empty square matrix, got shape {q.shape}")
        if not np.all(np.isfinite(q)):
            # (the core refused it at the solve, as a "precomputed kernel")
            raise ValueError("Q contains NaN or infinity")
        n = q.shape[0]
        object.__setattr__(self, "Q", q)
        object.__setattr__(self, "p", _vector("p", p, n))
        object.__setattr__(self, "y", _vector("y", y, n))
        object.__setattr__(self, "upper", _vector("upper", upper, n))
        object.__setattr__(self, "alpha0", None if alpha0 is None else _vector("alpha0", alpha0, n))


@shared_docstrings
@dataclass(frozen=True)
class Smo:
    """LIBSVM's SMO (second-order working set, shrinking) on a :class:`BoxQp`.

    The fields are checked when it is made, as the estimators' parameters of the same names
    (a ``ValueError`` or ``TypeError`` naming the field).

    Parameters
    ----------
    tol : float, default=1e-3
        Stop when the maximal KKT violation ``m(α) − M(α)`` falls below ``tol`` (> 0).
    max_iter : int or None, default=None
        Limit on the iterations (>= 1), or None or -1 for LIBSVM's limit,
        ``max(10**7, 100 * n)`` for ``n`` variables.
    shrinking : bool, default=True
        Whether to use LIBSVM's shrinking heuristic.
    cache_size : float, default=200.0
        Size of the column cache of ``Q`` in MB, >= 0.
    n_jobs : int or None, default=None
        Threads for the solver's O(n) passes; ``None`` or -1 use every core.
    time_limit : float or None, default=None
        Wall-clock seconds allowed (> 0), or None for no limit.
    """

    tol: float = 1e-3
    max_iter: int | None = None
    shrinking: bool = True
    cache_size: float = 200.0
    n_jobs: int | None = None
    time_limit: float | None = None

    def __post_init__(self) -> None:
        # Sent to the core unchecked before: a string or an int beyond float's range failed
        # in a conversion that did not name the field, max_iter=1.5 and shrinking="no" were
        # taken (by the AID estimators, whose inner solver this is).
        _check_positive("tol", self.tol)
        core_max_iter(self.max_iter)
        check_bool("shrinking", self.shrinking)
        _check_positive("cache_size", self.cache_size, allow_zero=True)
        resolve_n_jobs(self.n_jobs)
        if self.time_limit is not None:
            _check_positive("time_limit", self.time_limit)

    @property
    def name(self) -> str:
        """The solver's name, ``"smo"``."""
        return "smo"

    def solve(self, problem: BoxQp, *, callback: ProgressCallback | None = None) -> Solution:
        """Solve a box-constrained QP.

        Parameters
        ----------
        problem : BoxQp
            The problem; anything else raises ``TypeError``.
        {{solve: callback}}

        Returns
        -------
        Solution
            The solution: ``x`` is α, ``objective`` ``½αᵀQα + pᵀα``, ``gap`` the final KKT
            violation; hitting a limit is reported in ``status``, not raised.
        """
        if not isinstance(problem, BoxQp):
            raise TypeError(f"Smo solves a BoxQp, got {type(problem).__name__}")
        return _core.solve_box_qp(
            problem.Q,
            problem.p,
            problem.y,
            problem.upper,
            problem.alpha0,
            tol=self.tol,
            max_iter=core_max_iter(self.max_iter),
            cache_size=self.cache_size,
            shrinking=self.shrinking,
            n_jobs=resolve_n_jobs(self.n_jobs),
            time_limit=core_time_limit(self.time_limit),
            callback=callback,
        )


def aggregated_kernel(
    X: ArrayLike,
    clusters: ArrayLike,
    kernel: str = "rbf",
    gamma: float = 1.0,
    degree: int = 3,
    coef0: float = 0.0,
) -> NDArray[np.float64]:
    """Compute AID's aggregated kernel, the block means of the Gram matrix over clusters.

    ``K̄[k, q] = mean_{i ∈ C_k, j ∈ C_q} K(x_i, x_j)`` (Park & Klabjan, Appendix B).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows (finite values).
    clusters : array-like of int of shape (n_samples,)
        The cluster id of each row; any integers.
    kernel : {"linear", "poly", "rbf", "sigmoid"}, default="rbf"
        The kernel ``K``, as for :class:`kernelkit.SVC`.
    gamma : float, default=1.0
        Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``.
    degree : int, default=3
        Degree of the ``"poly"`` kernel.
    coef0 : float, default=0.0
        Independent term of the ``"poly"`` and ``"sigmoid"`` kernels.

    Returns
    -------
    ndarray of shape (n_clusters, n_clusters)
        ``K̄``; row and column ``k`` belong to the ``k``-th smallest cluster id.
    """
    rows = np.ascontiguousarray(X, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {rows.shape}")
    if not np.all(np.isfinite(rows)):
        raise ValueError("X contains NaN or infinity")
    ids = np.asarray(clusters)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError("clusters must be a 1-D array of integer cluster ids")
    _check_kernel_parameters(gamma, degree, coef0, rules=(), kernel=kernel)
    function = _core.Kernel(kernel, gamma=gamma, degree=degree, coef0=coef0)
    _, index = np.unique(ids, return_inverse=True)
    index = np.ascontiguousarray(index.ravel(), dtype=np.int64)
    # The core numbers clusters by first appearance; put them back in sorted-id order.
    _, first = np.unique(index, return_index=True)
    order = index[np.sort(first)]
    # RBF rows far from the origin are shifted to their mean (``_rbf_shift``).
    means = _core.aggregated_kernel(solved_rows(rows, kernel), index, function)
    out = np.empty_like(means)
    out[np.ix_(order, order)] = means
    return out
