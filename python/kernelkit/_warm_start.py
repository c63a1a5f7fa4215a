"""``warm_start=True`` for the LIBSVM-family estimators: a refit starts from the previous dual
solution, projected onto the new problem's feasible set.

A refit with another ``C`` (``nu``), ``sample_weight`` or ``class_weight`` changes the box
``0 ≤ α ≤ u`` and, for the ν formulations, the right-hand sides of the equality constraints;
the previous optimum ``α_prev`` is then, in general, not feasible. The start is its Euclidean
projection onto the new set ``{0 ≤ α ≤ u, Σ s_i α_i = t}`` (``s_i = ±1``), which is

``α(λ) = clip(α_prev − λ s, 0, u)``  for the ``λ`` with  ``Σ s_i α_i(λ) = t``

(the KKT conditions of ``min ‖α − α_prev‖²`` over the set: one multiplier ``λ`` for the
equality, the box clipping the rest). ``h(λ) = Σ s_i α_i(λ)`` does not increase in ``λ``, so
``λ`` is found by bisection, and the rounding left in the equality is moved onto one free
variable, so that the constraint holds to the last bit the solver checks. Each formulation
projects the parts it constrains together:

| formulation | variables | constraints of the start |
|---|---|---|
| C-SVC | ``α`` of the pair | ``yᵀα = 0``, ``0 ≤ α ≤ C·w·s`` |
| ν-SVC | ``α`` unscaled (``α_C · r``) | ``Σ_{y=±1} α = ν Σ s / 2`` each, ``0 ≤ α ≤ s`` |
| one-class | ``α`` | ``Σ α = ν Σ s``, ``0 ≤ α ≤ s`` |
| ε-SVR | ``(α, α*) = (β⁺, β⁻)`` | ``Σ α = Σ α*``, ``0 ≤ α, α* ≤ C·s`` |
| ν-SVR | ``(β⁺, β⁻)`` | ``Σ α = Σ α* = C ν Σ s / 2``, same box |

The solver then runs from that point to the same stopping rule as a cold fit, so it reaches
the same optimum (to the tolerance); what changes is the path, usually far shorter along a
path of ``C`` values (``benches/bench_warm_start.py``). A warm start applies when the new fit has
as many training rows as the previous one (and, for classifiers, the same classes); otherwise
the fit starts cold.

**The gradient.** A start ``α⁰`` costs the solver its gradient ``G = Qα⁰ + p``, one kernel
column per non-zero ``α⁰_i``: with most variables support vectors, as many columns as a cold fit
computes in its first thousands of iterations (0.4-0.6 s of a 2-4 s fit on a9a's first 16,000
rows). Where the previous fit solved the same dual variables (the same rows, labels, kernel and
training data, which :class:`PreviousSolve` records with a digest of the data), the C-SVC and
one-class fits pass the previous solution ``α'`` and its gradient ``G'`` back to the core,
which starts from ``G' + Q(α⁰ − α')``: one column per variable that the projection moved, none
when ``C`` grows (``α'`` is then feasible and the projection keeps it). Elsewhere (another
``X``, a callable kernel, ν-SVC and the regressions, whose solutions the core returns
transformed), the core computes ``G`` afresh.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

__all__ = ["PreviousSolve", "project_onto", "training_digest"]

Float64Array = NDArray[np.float64]

_BISECTIONS = 200


def project_onto(
    start: Float64Array, upper: Float64Array, target: float, signs: Float64Array | None = None
) -> Float64Array:
    """The Euclidean projection of ``start`` onto ``{0 ≤ α ≤ upper, Σ s_i α_i = target}``
    (``s = signs``, all +1 by default). ``target`` must lie between the sums at the box's
    corners, ``−Σ_{s<0} u ≤ target ≤ Σ_{s>0} u``, which a feasible problem guarantees."""
    s = np.ones_like(start) if signs is None else np.asarray(signs, dtype=np.float64)
    x0 = np.asarray(start, dtype=np.float64)
    u = np.asarray(upper, dtype=np.float64)
    if len(x0) == 0:
        empty: Float64Array = np.zeros(0)
        return empty

    def at(lam: float) -> Float64Array:
        alpha: Float64Array = np.clip(x0 - lam * s, 0.0, u)
        return alpha

    if _feasible_but_rounding(x0, u, target, s):
        # Its own projection: kept as it is (a shift λ of the size of the rounding would move
        # every free variable by an ulp, and a warm start pays a kernel column for each
        # variable that moved).
        alpha: Float64Array = x0.copy()
    else:
        reach = float(np.max(np.abs(x0)) + np.max(u) + 1.0)
        low, high = -reach, reach  # h(low) is the largest sum, h(high) the smallest
        for _ in range(_BISECTIONS):
            middle = 0.5 * (low + high)
            if middle in (low, high):
                break
            if float(s @ at(middle)) > target:
                low = middle
            else:
                high = middle
        alpha = at(high)
    # The rounding left in the equality, put on the variables with room for it.
    for _ in range(3):
        residual = target - float(s @ alpha)
        if residual == 0.0:
            break
        room = np.where(s * residual > 0, u - alpha, alpha)
        k = int(np.argmax(room))
        alpha[k] = min(max(alpha[k] + s[k] * residual, 0.0), u[k])
    return alpha


def _feasible_but_rounding(
    x: Float64Array, upper: Float64Array, target: float, signs: Float64Array
) -> bool:
    """Whether ``x`` is in the box and meets the equality up to the rounding of its sum
    (``1e-12`` of ``Σ|x_i|``, as a solver's iterate does)."""
    in_box = bool(np.all(x >= 0.0) and np.all(x <= upper))
    return in_box and abs(float(signs @ x) - target) <= 1e-12 * max(1.0, float(np.sum(x)))


class PreviousSolve(NamedTuple):
    """One dual solved by a fit with ``warm_start``: its variables (``rows``: rows of X, or
    representatives of identical rows, and their ``signs``), and the solution ``x`` with the
    gradient the core returned for it, valid for a fit whose :func:`training_digest` is
    ``digest``."""

    digest: str
    rows: NDArray[np.intp]
    signs: Float64Array
    x: Float64Array
    gradient: Float64Array

    def continues(self, digest: str, rows: NDArray[np.intp], signs: Float64Array) -> bool:
        """Whether a dual of these rows and signs, on training data of ``digest``, is the one
        solved (its ``Q`` and ``p`` the same, so that the gradient carries over)."""
        return (
            digest == self.digest
            and np.array_equal(rows, self.rows)
            and np.array_equal(signs, self.signs)
        )


def training_digest(X: Any, kernel_params: tuple[Any, ...]) -> str | None:
    """A digest of what the dual's ``Q`` is computed from: the training rows as the core reads
    them (values, dtype, shape, sparse structure) and the fitted kernel; None for a callable
    kernel, whose values no digest of its inputs can vouch for."""
    if kernel_params[0] == "callable":
        return None
    digest = hashlib.blake2b(repr(kernel_params).encode(), digest_size=16)
    if sp.issparse(X):
        X = sp.csr_array(X)
        parts = [X.data, X.indices, X.indptr]
    else:
        parts = [np.asarray(X)]
    digest.update(repr((X.shape, [p.dtype.str for p in parts])).encode())
    for part in parts:
        digest.update(np.ascontiguousarray(part).data)  # the buffer itself, not a copy
    return digest.hexdigest()
