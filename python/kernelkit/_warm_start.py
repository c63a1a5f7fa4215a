"""``warm_start=True`` for the LIBSVM-family estimators: a refit starts from the previous dual
solution, moved into the new problem's feasible set.

A refit with another ``C`` (``nu``), ``sample_weight`` or ``class_weight`` changes the box
``0 ≤ α ≤ u`` and, for the ν formulations, the right-hand sides of the equality constraints;
the previous optimum ``α_prev`` is then, in general, not feasible. The start
(:func:`repair_onto`) is ``α_prev`` clipped into the new box, with the residual ``r`` of the
equality ``Σ s_i α_i = t`` (``s_i = ±1``) then put on as few variables as it takes: each
variable can move ``s_i α_i`` towards ``t`` by its room (``u_i − α_i`` or ``α_i``), the free
variables (``0 < α_i < u_i``) are taken first and among them those with the most room, each
moved to its bound, the last one by what is left. A start already in the set stays where it is
(up to the rounding of its sum, put on at most three variables), so a refit with a larger ``C``
starts exactly from ``α_prev``. Each formulation repairs the parts it constrains together:

| formulation | variables | constraints of the start |
|---|---|---|
| C-SVC | ``α`` of the pair | ``yᵀα = 0``, ``0 ≤ α ≤ C·w·s`` |
| ν-SVC | ``α`` unscaled (``α_C · r``) | ``Σ_{y=±1} α = ν Σ s / 2`` each, ``0 ≤ α ≤ s`` |
| one-class | ``α`` | ``Σ α = ν Σ s``, ``0 ≤ α ≤ s`` |
| ε-SVR | ``(α, α*) = (β⁺, β⁻)`` | ``Σ α = Σ α*``, ``0 ≤ α, α* ≤ C·s`` |
| ν-SVR | ``(β⁺, β⁻)`` | ``Σ α = Σ α* = C ν Σ s / 2``, same box |

Why not the Euclidean projection ``clip(α_prev − λ s, 0, u)`` (one multiplier ``λ`` for the
equality), which the first version used: its shift ``λ`` moves every free variable and lifts the
variables at 0 on one side, and each moved variable costs the solver a kernel column (the
gradient, below) and often pair steps to undo a lift. Measured on falling paths (2 threads;
``docs/performance.md``, "The warm and cold paths, measured"), the warm path's time against the
cold path's with the projection / with this repair: C-SVC on a9a's first 16,000 rows, C = 30 …
0.1, 1.08 / 0.89; the one-class SVM on USPS, ν = 0.5 … 0.03 … 0.5, 1.21 / 0.74; ε-SVR 1.08 /
0.93 and ν-SVR 1.06 / 0.81 on USPS; along a rising C path both starts are the previous solution
itself.

The solver then runs from that point to the same stopping rule as a cold fit, so it reaches
the same optimum (to the tolerance); what changes is the path (``benches/bench_warm_start.py``).
Where that optimum is degenerate (no free variable, so that its offset is decided by the path's
rounding residues), the core solves the problem again from the cold start
(``crates/solvers/src/formulations.rs``; ``solver_stats_["restarted_cold"]``).
A warm start applies when the new fit has as many training rows as the previous one (and, for
classifiers, the same classes); otherwise the fit starts cold.

**The gradient.** A start ``α⁰`` costs the solver its gradient ``G = Qα⁰ + p``, one kernel
column per non-zero ``α⁰_i``: with most variables support vectors, as many columns as a cold fit
computes in its first thousands of iterations (0.4-0.6 s of a 2-4 s fit on a9a's first 16,000
rows). Where the previous fit solved the same dual variables (the same rows, labels, kernel and
training data, which :class:`PreviousSolve` records with a digest of the data), the C-SVC and
one-class fits pass the previous solution ``α'`` and its gradient ``G'`` back to the core,
which starts from ``G' + Q(α⁰ − α')``: one column per variable that the repair moved, none
when ``C`` grows (``α'`` is then feasible and kept). The regressions do the same with
``(β', Kβ')``: their ``Q(α, α*) = (Kβ, −Kβ)`` depends on ``β = α − α*`` alone and the targets
and ``ε`` enter ``p`` only, so ``Kβ'`` carries over to another ``C``, ``ε``, ``ν``, weights or
targets, and the core starts from the gradient at the split ``(β'⁺, β'⁻)``
(``crates/solvers/src/formulations.rs``, "The SVR gradients"); ν-SVC passes its solve back
unscaled, ``r · (x, Qx)``. Where the start moved more variables than it keeps non-zero (a much
smaller box or ν), the core computes ``G`` afresh, which then costs fewer columns; it also does
for another ``X`` and a callable kernel.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

__all__ = [
    "PreviousSolve",
    "SparseDual",
    "digest_once",
    "repair_onto",
    "training_digest",
]

Float64Array = NDArray[np.float64]


def repair_onto(
    start: Float64Array, upper: Float64Array, target: float, signs: Float64Array | None = None
) -> Float64Array:
    """``start`` moved into ``{0 ≤ α ≤ upper, Σ s_i α_i = target}`` with few moves: clipped
    into the box, then the equality's residual put on as few variables as it takes, the free
    ones (strictly inside the box) first and among them those with the most room, each moved to
    its bound but the last. A start in the set stays where it is (up to the rounding of its
    sum). ``target`` must lie between the sums at the box's corners,
    ``−Σ_{s<0} u ≤ target ≤ Σ_{s>0} u``, which a feasible problem guarantees."""
    s = np.ones_like(start) if signs is None else np.asarray(signs, dtype=np.float64)
    u = np.asarray(upper, dtype=np.float64)
    alpha: Float64Array = np.clip(np.asarray(start, dtype=np.float64), 0.0, u)
    residual = target - _signed_sum(s, alpha)
    if len(alpha) == 0 or residual == 0.0:
        return alpha
    room = np.where(s * residual > 0, u - alpha, alpha)  # how far each s_i α_i can go its way
    order = np.lexsort((-room, ~((alpha > 0.0) & (alpha < u))))  # free first, most room first
    reach = np.cumsum(room[order])
    need = abs(residual)
    count = min(int(np.searchsorted(reach, need * (1.0 - 1e-12))) + 1, len(order))
    taken = order[:count]
    step = room[taken]
    step[-1] = min(max(need - (reach[count - 1] - step[-1]), 0.0), step[-1])  # what is left
    alpha[taken] = np.clip(alpha[taken] + np.sign(residual) * s[taken] * step, 0.0, u[taken])
    return _settle_rounding(alpha, u, target, s, int(taken[-1]))


def _signed_sum(s: Float64Array, alpha: Float64Array) -> float:
    """``Σ s_i α_i`` rounded once (``math.fsum``; ``s_i α_i`` is exact for ``s_i = ±1``), so
    that the start is the same whatever the order of the variables, the machine or the thread
    count. ``s @ alpha`` is not: a BLAS dot product splits a long vector over its threads (with
    OpenBLAS, above 10,000 entries), and the rounding of the sum then decides which variables
    the repair moves by an ulp, and so the path of the solve that follows."""
    return math.fsum(np.multiply(s, alpha).tolist())


def _settle_rounding(
    alpha: Float64Array, u: Float64Array, target: float, s: Float64Array, first: int
) -> Float64Array:
    """``alpha`` with the rounding left in its equality put on variable ``first`` where it has
    room, else on free variables (which it leaves free), else on any with room."""
    for _ in range(3):
        residual = target - _signed_sum(s, alpha)
        if residual == 0.0:
            break
        room = np.where(s * residual > 0, u - alpha, alpha)
        free = (alpha > 0.0) & (alpha < u)
        if room[first] >= abs(residual):
            k = first
        else:
            k = int(np.argmax(np.where(free, room, -1.0))) if np.any(free) else int(np.argmax(room))
        alpha[k] = min(max(alpha[k] + s[k] * residual, 0.0), u[k])
    return alpha


class SparseDual(NamedTuple):
    """A pair's dual over every training row, as a multiclass warm fit keeps it: only its
    non-zero entries. Kept dense, the ``k (k − 1) / 2`` pairs' duals over every row made a
    26-class model on 3,000 rows of letter pickle to 11.2 MB instead of 1.0 MB."""

    n_rows: int
    nonzero: NDArray[np.intp]
    values: Float64Array

    @classmethod
    def of(cls, full: Float64Array) -> SparseDual:
        nonzero = np.flatnonzero(full)
        return cls(len(full), nonzero, full[nonzero])

    def dense(self) -> Float64Array:
        full = np.zeros(self.n_rows)
        full[self.nonzero] = self.values
        return full


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


def training_digest(X: Any, kernel_params: tuple[Any, ...], float32_input: bool) -> str | None:
    """A digest of what the dual's ``Q`` is computed from: the training rows as the core reads
    them (values, dtype, shape, sparse structure), the fitted kernel, and whether the rows were
    given in float32 (the core then sums wide rows' inner products in float32, even where the
    estimator hands it a float64 copy: the same values, another ``Q``); None for a callable
    kernel, whose values no digest of its inputs can vouch for."""
    if kernel_params[0] == "callable":
        return None
    # SHA-1 for speed, not security (it tells a changed X from the same one; the CPUs' SHA
    # instructions hash 1.6 GB/s here, BLAKE2b 0.78 GB/s: 4.6 against 9.6 ms on USPS's X).
    seed = repr((kernel_params, float32_input)).encode()
    digest = hashlib.sha1(seed, usedforsecurity=False)
    if sp.issparse(X):
        X = sp.csr_array(X)
        parts = [X.data, X.indices, X.indptr]
    else:
        parts = [np.asarray(X)]
    digest.update(repr((X.shape, [p.dtype.str for p in parts])).encode())
    for part in parts:
        digest.update(np.ascontiguousarray(part).data)  # the buffer itself, not a copy
    return digest.hexdigest()


def digest_once(
    X: Any, kernel_params: tuple[Any, ...], float32_input: bool
) -> Callable[[], str | None]:
    """:func:`training_digest` of ``X`` and the kernel, taken at the first call and only then: a
    fit asks for it only where it compares or keeps a solution with its gradient (hashing a
    large ``X`` costs a pass over it)."""
    return functools.cache(lambda: training_digest(X, kernel_params, float32_input))
