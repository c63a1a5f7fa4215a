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
from ._base import resolve_n_jobs
from ._core import Solution

__all__ = ["BoxQp", "Smo", "Solution", "Solver", "aggregated_kernel"]

ProgressCallback = Callable[[Mapping[str, Any]], "bool | None"]


@runtime_checkable
class Solver(Protocol):
    """What every kernelkit solver offers: a name and ``solve(problem, *, callback=None)``."""

    @property
    def name(self) -> str: ...

    def solve(self, problem: Any, *, callback: ProgressCallback | None = None) -> Solution: ...


def _vector(name: str, value: ArrayLike, n: int) -> NDArray[np.float64]:
    array = np.ascontiguousarray(value, dtype=np.float64)
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
    and fixes the right-hand side of the equality constraint.
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
        q = np.ascontiguousarray(Q, dtype=np.float64)
        if q.ndim != 2 or q.shape[0] != q.shape[1] or q.shape[0] == 0:
            raise ValueError(f"Q must be a non-empty square matrix, got shape {q.shape}")
        n = q.shape[0]
        object.__setattr__(self, "Q", q)
        object.__setattr__(self, "p", _vector("p", p, n))
        object.__setattr__(self, "y", _vector("y", y, n))
        object.__setattr__(self, "upper", _vector("upper", upper, n))
        object.__setattr__(self, "alpha0", None if alpha0 is None else _vector("alpha0", alpha0, n))


@dataclass(frozen=True)
class Smo:
    """LIBSVM's SMO (second-order working set, shrinking) on a :class:`BoxQp`."""

    tol: float = 1e-3
    max_iter: int | None = None
    shrinking: bool = True
    cache_size: float = 200.0
    n_jobs: int | None = None
    time_limit: float | None = None

    @property
    def name(self) -> str:
        return "smo"

    def solve(self, problem: BoxQp, *, callback: ProgressCallback | None = None) -> Solution:
        """Solves ``problem``; hitting a limit is reported in ``Solution.status``."""
        if not isinstance(problem, BoxQp):
            raise TypeError(f"Smo solves a BoxQp, got {type(problem).__name__}")
        return _core.solve_box_qp(
            problem.Q,
            problem.p,
            problem.y,
            problem.upper,
            problem.alpha0,
            tol=self.tol,
            max_iter=self.max_iter,
            cache_size=self.cache_size,
            shrinking=self.shrinking,
            n_jobs=resolve_n_jobs(self.n_jobs),
            time_limit=self.time_limit,
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
    """AID's aggregated kernel: ``K̄[k, q] = mean_{i ∈ C_k, j ∈ C_q} K(x_i, x_j)``, the block
    means of the Gram matrix over the clusters (Park & Klabjan, Appendix B). Cluster ids may be
    any integers; row and column ``k`` of the result belong to the ``k``-th smallest id."""
    rows = np.ascontiguousarray(X, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {rows.shape}")
    if not np.all(np.isfinite(rows)):
        raise ValueError("X contains NaN or infinity")
    ids = np.asarray(clusters)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError("clusters must be a 1-D array of integer cluster ids")
    function = _core.Kernel(kernel, gamma=gamma, degree=degree, coef0=coef0)
    _, index = np.unique(ids, return_inverse=True)
    index = np.ascontiguousarray(index.ravel(), dtype=np.int64)
    # The core numbers clusters by first appearance; put them back in sorted-id order.
    _, first = np.unique(index, return_index=True)
    order = index[np.sort(first)]
    means = _core.aggregated_kernel(rows, index, function)
    out = np.empty_like(means)
    out[np.ix_(order, order)] = means
    return out
