"""Shared helpers of the ConstrainedSVR tests (seed paper 003: ν-SVR with linear constraints on
the weight vector, solved by the generalized SMO of Algorithm 2). Imported by
``test_constrained_svr_oracle.py`` and ``test_constrained_svr_estimator.py``; it holds no tests
and does not import kernelkit.

Convention (the estimator's, API spec): C is scikit-learn's C, so the dual box is
0 ≤ α_i, α*_i ≤ C and Σα = Σα* = C n ν / 2 (the paper's C is C·n). The primal is

    min_{β, β0, ξ, ξ*, ε}  ½‖β‖² + C (n ν ε + Σ_i (ξ_i + ξ*_i))
    s.t.  Xβ + β0 − y ≤ ε + ξ,  y − Xβ − β0 ≤ ε + ξ*,  ξ, ξ*, ε ≥ 0,  Aβ ≤ b,  Γβ = d

and the dual objective f(θ) = ½‖β‖² + yᵀ(α − α*) + bᵀγ − dᵀμ with β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ;
strong duality: min P = −min f.

Here:

* seeded data generators whose unconstrained fit violates the constraints (so they are active);
* the named constraint matrices (nonnegative, simplex, increasing, decreasing), built with NumPy
  from their definitions, and random general constraints around a known feasible point;
* the oracle: the primal QP above by cvxpy + Clarabel at tolerances 1e-13 (β is unique: the
  objective is strongly convex in β; at 1e-10 Clarabel's β was only good to ~1e-6, since
  ‖β − β*‖ ≤ √(2·gap); the interior point converges fast, so 1e-13 costs 2–3 iterations);
* NumPy evaluations of P and f from fitted attributes, and of the dual feasibility;
* a NumPy reference GSMO (the digest's Appendix A prototype, in the sklearn-C convention), with
  ``gamma_rule`` "projected" (the fix of digest §2.5) or "paper" (the literal Δ3 = −min ∇_γ f).

Digest: ``shared/papers/seed-003-svr-constraints.md`` (§1 formulas, §2 algorithm, §3 theory,
§5 acceptance tests, Appendix A).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from kk_oracles import solve_optimal
from numpy.typing import NDArray

Array = NDArray[np.float64]

KINDS = ("none", "nonnegative", "simplex", "increasing", "decreasing", "general")
# Relative gap under which two candidates of the greedy selection count as tied. Ties are
# systematic, not accidental: after an unclipped pair step the two gradients are equal in exact
# arithmetic, so free variables share one gradient value up to rounding.
TIE_RTOL = 1e-9

#: The fitted attributes of a ConstrainedSVR that two fits of the same problem must share,
#: value for value.
FITTED = (
    "coef_",
    "intercept_",
    "epsilon_",
    "dual_alpha_",
    "dual_alpha_star_",
    "dual_gamma_",
    "dual_mu_",
    "b_",
    "d_",
    "dual_objective_",
    "primal_objective_",
    "relative_gap_",
    "constraint_violation_",
    "delta_",
    "n_iter_",
    "status_",
)


# --------------------------------------------------------------------------------------------
# constraints
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Constraints:
    """Aβ ≤ b (k1 rows) and Γβ = d (k2 rows), dense."""

    A: Array
    b: Array
    G: Array
    d: Array

    @property
    def k1(self) -> int:
        return int(self.A.shape[0])

    @property
    def k2(self) -> int:
        return int(self.G.shape[0])


def empty_constraints(p: int) -> Constraints:
    return Constraints(np.zeros((0, p)), np.zeros(0), np.zeros((0, p)), np.zeros(0))


def difference_matrix(p: int) -> Array:
    """D, (p−1)×p, row i = e_iᵀ − e_{i+1}ᵀ (so Dβ ≤ 0 ⇔ β_1 ≤ … ≤ β_p), built entry by entry."""
    D = np.zeros((p - 1, p))
    for i in range(p - 1):
        D[i, i] = 1.0
        D[i, i + 1] = -1.0
    return D


def named_constraints(name: str | None, p: int) -> Constraints:
    """The documented matrices of the named constraints (API spec / digest §1.9)."""
    if name is None or name == "none":
        return empty_constraints(p)
    if name == "nonnegative":
        return Constraints(-np.eye(p), np.zeros(p), np.zeros((0, p)), np.zeros(0))
    if name == "simplex":
        return Constraints(-np.eye(p), np.zeros(p), np.ones((1, p)), np.ones(1))
    if name == "increasing":
        return Constraints(difference_matrix(p), np.zeros(p - 1), np.zeros((0, p)), np.zeros(0))
    if name == "decreasing":
        return Constraints(-difference_matrix(p), np.zeros(p - 1), np.zeros((0, p)), np.zeros(0))
    raise AssertionError(name)


def general_constraints(p: int, k1: int, k2: int, seed: int) -> tuple[Constraints, Array]:
    """Random A (k1×p), Γ (k2×p) around a known feasible point β_f: b = Aβ_f + s with s ≥ 0
    (half of the rows tight at β_f), d = Γβ_f. Returns the constraints and β_f."""
    rng = np.random.default_rng(seed)
    beta_f = rng.normal(size=p)
    A = rng.normal(size=(k1, p))
    slack = rng.uniform(0.0, 0.5, size=k1)
    slack[: k1 // 2] = 0.0
    G = rng.normal(size=(k2, p))
    return Constraints(A, A @ beta_f + slack, G, G @ beta_f), beta_f


def stack(first: Constraints, second: Constraints) -> Constraints:
    """User constraints stacked after the named ones (API spec)."""
    return Constraints(
        np.vstack([first.A, second.A]),
        np.concatenate([first.b, second.b]),
        np.vstack([first.G, second.G]),
        np.concatenate([first.d, second.d]),
    )


def constraint_violation(cons: Constraints, beta: Array) -> tuple[float, float]:
    """max(Aβ − b) (−inf without rows) and max|Γβ − d| (0 without rows)."""
    ineq = float(np.max(cons.A @ beta - cons.b)) if cons.k1 else -np.inf
    eq = float(np.max(np.abs(cons.G @ beta - cons.d))) if cons.k2 else 0.0
    return ineq, eq


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def true_beta(kind: str, p: int, rng: np.random.Generator) -> Array:
    """A coefficient vector that lies (roughly) in the constraint set of ``kind``."""
    z = rng.normal(size=p)
    if kind == "nonnegative":
        return np.maximum(z, 0.0)
    if kind == "simplex":  # clip and normalise (digest pitfall 16)
        w = np.maximum(z, 0.0) + 0.05
        return w / w.sum()
    if kind == "increasing":
        return np.sort(z)
    if kind == "decreasing":
        return np.sort(z)[::-1].copy()
    return z


def make_problem(
    kind: str, n: int, p: int, seed: int, noise: float = 1.0, intercept: float = 0.3
) -> tuple[Array, Array]:
    """X ~ N(0, 1) (n×p), y = Xβ* + intercept + noise·N(0, 1), β* near the constraint set of
    ``kind``; the noise is large enough for the unconstrained fit to violate the constraints."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    beta = true_beta(kind, p, rng)
    y = x @ beta + intercept + noise * rng.normal(size=n)
    return np.ascontiguousarray(x), y


def problem_constraints(kind: str, p: int, seed: int) -> Constraints:
    """The constraints of an oracle problem: the named ones, or random general ones (k1 = p/2+1
    inequalities, k2 = 2 equalities around a feasible point) for ``kind == "general"``."""
    if kind == "general":
        return general_constraints(p, p // 2 + 1, 2, seed + 1000)[0]
    return named_constraints(kind, p)


# --------------------------------------------------------------------------------------------
# objectives and the QP oracle
# --------------------------------------------------------------------------------------------
def primal_objective(
    x: Array, y: Array, c: float, nu: float, beta: Array, beta0: float, eps: float
) -> float:
    """P(β, β0, ε) = ½‖β‖² + C (n ν ε + Σ ξ_i + ξ*_i) with the optimal slacks for (β, β0, ε)."""
    r = x @ beta + beta0 - y
    xi = np.maximum(r - eps, 0.0)
    xis = np.maximum(-r - eps, 0.0)
    return float(0.5 * beta @ beta + c * (len(y) * nu * eps + xi.sum() + xis.sum()))


def beta_from_dual(
    x: Array, cons: Constraints, alpha: Array, alpha_star: Array, gamma: Array, mu: Array
) -> Array:
    """β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ (Prop 2.1-3)."""
    return -x.T @ (alpha - alpha_star) - cons.A.T @ gamma + cons.G.T @ mu


def dual_objective(
    x: Array,
    y: Array,
    cons: Constraints,
    alpha: Array,
    alpha_star: Array,
    gamma: Array,
    mu: Array,
) -> float:
    """f(θ) = ½‖β‖² + yᵀ(α − α*) + bᵀγ − dᵀμ (digest §1.6, paper eq. 16)."""
    beta = beta_from_dual(x, cons, alpha, alpha_star, gamma, mu)
    return float(0.5 * beta @ beta + y @ (alpha - alpha_star) + cons.b @ gamma - cons.d @ mu)


@dataclass(frozen=True)
class QpSolution:
    beta: Array
    beta0: float
    epsilon: float
    objective: float


def qp_problem(
    x: Array,
    y: Array,
    cons: Constraints,
    c: float,
    nu: float,
    unit: float = 1.0,
    beta_unit: float = 1.0,
) -> tuple[cp.Problem, Any, cp.Variable, cp.Variable]:
    """The constrained ν-SVR primal (sklearn C) as a cvxpy problem, with β (an expression)
    and the variables β0 and ε (the slacks ξ, ξ* are not returned), its objective divided by
    ``unit`` and β in units of ``beta_unit`` (the same optimum; at a tiny C, ``unit = C``
    keeps the objective and the multipliers of order one, and ``beta_unit = C`` β where its
    constraints do not fix its scale, so that Clarabel's absolute tolerances are relative)."""
    n, p = x.shape
    beta = beta_unit * cp.Variable(p)
    beta0 = cp.Variable()
    xi = cp.Variable(n, nonneg=True)
    xis = cp.Variable(n, nonneg=True)
    eps = cp.Variable(nonneg=True)
    pred = x @ beta + beta0
    constraints = [pred - y <= eps + xi, y - pred <= eps + xis]
    if cons.k1:
        constraints.append(cons.A @ beta <= cons.b)
    if cons.k2:
        constraints.append(cons.G @ beta == cons.d)
    loss = n * nu * eps + cp.sum(xi) + cp.sum(xis)
    objective = (0.5 / unit) * cp.sum_squares(beta) + (c / unit) * loss
    return cp.Problem(cp.Minimize(objective), constraints), beta, beta0, eps


def solve_qp(
    x: Array,
    y: Array,
    cons: Constraints,
    c: float,
    nu: float,
    unit: float = 1.0,
    beta_unit: float = 1.0,
) -> QpSolution:
    """The constrained ν-SVR primal (sklearn C) by cvxpy + Clarabel at tolerances 1e-13, in
    the units of :func:`qp_problem`."""
    problem, beta, beta0, eps = qp_problem(x, y, cons, c, nu, unit, beta_unit)
    solve_optimal(problem, 1e-13, tol_ktratio=1e-10, max_iter=400)
    b = np.asarray(beta.value, dtype=np.float64)
    b0, e = float(beta0.value), float(eps.value)
    # P recomputed in float64 from (β, β0, ε): the slacks are the optimal ones for them.
    return QpSolution(b, b0, e, primal_objective(x, y, c, nu, b, b0, e))


_QP_CACHE: dict[tuple[Any, ...], QpSolution] = {}


def qp_reference(
    key: tuple[Any, ...], x: Array, y: Array, cons: Constraints, c: float, nu: float
) -> QpSolution:
    """``solve_qp`` cached per problem key for the session."""
    if key not in _QP_CACHE:
        _QP_CACHE[key] = solve_qp(x, y, cons, c, nu)
    return _QP_CACHE[key]


# --------------------------------------------------------------------------------------------
# dual feasibility
# --------------------------------------------------------------------------------------------
def assert_dual_feasible(
    alpha: Array,
    alpha_star: Array,
    gamma: Array,
    c: float,
    nu: float,
    what: str = "",
) -> None:
    """θ ∈ F: 0 ≤ α, α* ≤ C, Σα = Σα* = C n ν / 2 (1e-12 relative), γ ≥ 0 (digest §3, D3.5)."""
    n = len(alpha)
    half = c * n * nu / 2.0
    for name, v in (("α", alpha), ("α*", alpha_star)):
        assert v.shape == (n,), f"{what}: {name} shape {v.shape}"
        assert np.all(v >= 0.0), f"{what}: {name} min {v.min()!r} < 0"
        assert np.all(v <= c), f"{what}: {name} max {v.max()!r} > C = {c!r}"
        assert abs(v.sum() - half) <= 1e-12 * half, (
            f"{what}: Σ{name} = {v.sum()!r}, expected C n ν / 2 = {half!r}"
        )
    assert np.all(gamma >= 0.0), f"{what}: γ min {gamma.min()!r} < 0"


# --------------------------------------------------------------------------------------------
# NumPy reference GSMO (digest Appendix A, sklearn C: box C, sums C n ν / 2)
# --------------------------------------------------------------------------------------------
@dataclass
class GsmoResult:
    coef: Array
    intercept: float
    epsilon: float
    alpha: Array
    alpha_star: Array
    gamma: Array
    mu: Array
    n_iter: int
    delta: float
    converged: bool
    objective: list[float] = field(default_factory=list)  # f(θ^k), k = 0..n_iter (history)
    block: list[int] = field(default_factory=list)  # 0 for k = 0, then 1..4
    # near_tie[k]: the selection at θ^k (of step k + 1) had a runner-up within TIE_RTOL (two
    # blocks, or two candidates of the chosen block): rounding may decide it either way.
    near_tie: list[bool] = field(default_factory=list)
    betas: list[Array] = field(default_factory=list)  # β^k (history with keep_betas)


def gsmo(
    x: Array,
    y: Array,
    cons: Constraints,
    c: float,
    nu: float,
    tol: float = 1e-3,
    max_iter: int = 10**6,
    gamma_rule: str = "projected",
    history: bool = False,
    keep_betas: bool = False,
) -> GsmoResult:
    """Algorithm 2 with β-state gradients (digest §1.6, §2.4), LIBSVM initialisation, exact
    bound assignment on clipped steps, the η guard and free-SV recovery of (β0, ε) (§1.8)."""
    n = x.shape[0]
    A, b, G, d = cons.A, cons.b, cons.G, cons.d
    ub = c
    al, als = np.zeros(n), np.zeros(n)
    s = c * n * nu / 2
    for i in range(n):
        al[i] = als[i] = min(s, ub)
        s -= al[i]
    ga, mu = np.zeros(A.shape[0]), np.zeros(G.shape[0])
    beta = -x.T @ (al - als) - A.T @ ga + G.T @ mu
    r = x @ beta
    qd, aad, ggd = (x * x).sum(1), (A * A).sum(1), (G * G).sum(1)
    res = GsmoResult(beta, 0.0, 0.0, al, als, ga, mu, 0, np.inf, False)

    def record(block: int) -> None:
        if history:
            res.objective.append(float(0.5 * beta @ beta + y @ (al - als) + b @ ga - d @ mu))
            res.block.append(block)
            if keep_betas:
                res.betas.append(beta.copy())

    record(0)
    k, delta = 0, np.inf
    while True:
        g = y - r
        up, lo, ups, los = al < ub, al > 0, als < ub, als > 0
        i = np.flatnonzero(up)[np.argmin(g[up])]
        j = np.flatnonzero(lo)[np.argmax(g[lo])]
        i2 = np.flatnonzero(ups)[np.argmin(-g[ups])]
        j2 = np.flatnonzero(los)[np.argmax(-g[los])]
        d1, d2 = g[j] - g[i], -g[j2] + g[i2]
        gg, gm = b - A @ beta, G @ beta - d
        v = np.where(ga > 0, np.abs(gg), np.maximum(-gg, 0.0)) if gamma_rule == "projected" else -gg
        u3 = int(np.argmax(v)) if len(gg) else -1
        d3 = float(v[u3]) if len(gg) else -np.inf
        u4 = int(np.argmax(np.abs(gm))) if len(gm) else -1
        d4 = float(abs(gm[u4])) if len(gm) else -np.inf
        delta = max(d1, d2, d3, d4)
        if delta <= tol:
            res.converged = True
            break
        if k >= max_iter:
            break
        blk = [d1, d2, d3, d4].index(delta)  # first block on ties
        if history:
            # per block: the candidates it minimises and those it maximises (γ, μ: maximised)
            blocks = [(g[up], g[lo]), (-g[ups], -g[los]), (gg[:0], v), (gm[:0], np.abs(gm))]
            res.near_tie.append(_near_tie([d1, d2, d3, d4], blocks[blk]))
        if blk <= 1:
            ii, jj, vec, gv, sg = (i, j, al, g, -1.0) if blk == 0 else (i2, j2, als, -g, 1.0)
            eta = max(qd[ii] + qd[jj] - 2 * x[ii] @ x[jj], 1e-12)
            lo_b, hi_b = max(-vec[ii], vec[jj] - ub), min(vec[jj], ub - vec[ii])
            t = min(max(lo_b, -(gv[ii] - gv[jj]) / eta), hi_b)
            oi, oj = vec[ii], vec[jj]
            tot = oi + oj
            vi, vj = oi + t, oj - t
            if t == hi_b:
                vi, vj = (tot, 0.0) if hi_b == oj else (ub, tot - ub)
            elif t == lo_b:
                vi, vj = (0.0, tot) if lo_b == -oi else (tot - ub, ub)
            vec[ii], vec[jj] = min(max(vi, 0.0), ub), min(max(vj, 0.0), ub)
            dbeta = sg * (vec[ii] - oi) * (x[ii] - x[jj])
        elif blk == 2:
            new = max(ga[u3] - gg[u3] / aad[u3], 0.0)
            dbeta = -(new - ga[u3]) * A[u3]
            ga[u3] = new
        else:
            dm = -gm[u4] / ggd[u4]
            mu[u4] += dm
            dbeta = dm * G[u4]
        beta += dbeta
        r += x @ dbeta
        k += 1
        record(blk + 1)
    beta = -x.T @ (al - als) - A.T @ ga + G.T @ mu
    g = y - x @ beta

    def thr(gv: Array, v: Array) -> float:
        free = (v > 1e-12 * ub) & (v < (1 - 1e-12) * ub)
        if free.any():
            return float(gv[free].mean())
        return float(0.5 * (gv[v < ub].min() + gv[v > 0].max()))

    ra, rs = thr(g, al), thr(-g, als)
    res.coef, res.intercept, res.epsilon = beta, 0.5 * (ra - rs), -0.5 * (ra + rs)
    res.n_iter, res.delta = k, float(delta)
    return res


def _runner_up_close(values: Array, largest: bool) -> bool:
    """Whether the best two entries of ``values`` (max or min) are within TIE_RTOL."""
    if len(values) < 2:
        return False
    v = np.sort(values)
    a, b = (v[-1], v[-2]) if largest else (v[0], v[1])
    return bool(abs(a - b) <= TIE_RTOL * max(1.0, abs(a)))


def _near_tie(deltas: list[float], block: tuple[Array, Array]) -> bool:
    """Whether a selection had a runner-up within TIE_RTOL: among the block scores ``deltas``
    (−inf: an empty block), or in the chosen block among the candidates it minimises or those
    it maximises (``block``)."""
    smallest, largest = block
    if _runner_up_close(np.array(deltas), True):
        return True
    return _runner_up_close(smallest, False) or _runner_up_close(largest, True)


def gamma_kkt_violation(cons: Constraints, beta: Array, gamma: Array) -> tuple[int, float]:
    """The largest ∇_γj f = b_j − A_jβ over the multipliers with γ_j > 0 (a positive multiplier
    on an inactive constraint: the state the paper's Δ3 never corrects, digest §2.5); returns
    (j, ∇_γj f), or (−1, −inf) when every γ_j is 0."""
    pos = np.flatnonzero(gamma > 0)
    if len(pos) == 0:
        return -1, -np.inf
    grad = cons.b[pos] - cons.A[pos] @ beta
    j = int(np.argmax(grad))
    return int(pos[j]), float(grad[j])
