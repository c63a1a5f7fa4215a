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
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["project_onto"]

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
