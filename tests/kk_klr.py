"""Shared helpers of the SparseKernelLogisticRegression tests (seed paper 004: sparse binary
kernel logistic regression, the γ-box dual (22) and its SMO). Imported by
``test_klr_oracle.py`` and ``test_klr_estimator.py``; it holds no tests and does not import
kernelkit.

The problem (labels y ∈ {−1, +1}, γ = bound_eps):

    min_α f(α) = ½ (α∘y)ᵀK(α∘y) + Σ_i [α_i log(α_i/C) + (C−α_i) log((C−α_i)/C)] − λ Σ_i α_i
    s.t.  Σ_i α_i y_i = 0,   γ ≤ α_i ≤ C − γ,

with ∇f_i = y_i F_i + log(α_i/(C−α_i)) − λ, F = K(α∘y), gneg = −y∘∇f and the KKT gap
max_{I_up} gneg − min_{I_low} gneg (digest §2.5, eq. 26–27).

Here:

* seeded data: two overlapping Gaussian blobs and Wisconsin (sklearn ``load_breast_cancer``),
  min-max scaled to [0, 1] as in the paper, labels ±1 (benign = +1);
* NumPy evaluations of f, ∇f, gneg, I_up / I_low, the KKT gap and the bias from α alone;
* the oracle: (22) by cvxpy + Clarabel with the exponential cone,
  C·G(α/C) = −C·(entr(α/C) + entr(1 − α/C)) and the quadratic ‖Lᵀ(α∘y)‖² with K = LLᵀ from an
  eigendecomposition (tiny negative eigenvalues clipped), cached per problem key;
* the factor L of K for the λ = 0 reduction to LogisticRegression on features L (digest §6.2)
  and the primal (28) min ½‖w‖² + C Σ g(ρ − y_i(w·z_i − b)) − νρ, ρ ≥ 0, in the same feature
  space, by cvxpy + Clarabel (Observation 1, digest §2.4);
* a NumPy reference SMO (digest §3, §9): both working-set rules, the bracketed Newton solve of
  the two-variable subproblem with exact snapping onto the bounds, and the spec's initial point.

Digest: ``shared/papers/seed-004-sparse-klr.md``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import NDArray
from sklearn.datasets import load_breast_cancer
from sklearn.metrics.pairwise import rbf_kernel

Array = NDArray[np.float64]
Mask = NDArray[np.bool_]

# The paper's kernel exp(−‖x − x'‖²/2) (σ = 1) is gamma = 0.5 in scikit-learn terms.
PAPER_GAMMA = 0.5
BOUND_EPS = 1e-5


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def minmax(x: Array) -> Array:
    """Columns scaled to [0, 1]; a constant column becomes 0 (digest §5.3, zero-range guard)."""
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.ascontiguousarray((x - lo) / span)


def blobs(
    n: int, seed: int, p: int = 2, sep: float = 1.0, frac_pos: float = 0.5
) -> tuple[Array, Array]:
    """Two overlapping Gaussian blobs (unit covariance, centres ±sep/2 along a random direction),
    ⌈frac_pos·n⌉ positives, min-max scaled; labels ±1 (the first rows are positive)."""
    rng = np.random.default_rng(seed)
    n_pos = int(np.ceil(frac_pos * n))
    y = np.where(np.arange(n) < n_pos, 1.0, -1.0)
    direction = rng.normal(size=p)
    direction /= np.linalg.norm(direction)
    x = rng.normal(size=(n, p)) + 0.5 * sep * np.outer(y, direction)
    return minmax(x), y


def wisconsin(n: int | None = None, seed: int = 0) -> tuple[Array, Array]:
    """Wisconsin (569 × 30) min-max scaled over the rows returned; labels ±1 (benign = +1).
    With ``n``, a seeded random subset of n rows (both classes present)."""
    x, t = load_breast_cancer(return_X_y=True)
    y = np.where(t == 1, 1.0, -1.0)
    if n is not None:
        idx = np.sort(np.random.default_rng(seed).permutation(len(y))[:n])
        x, y = x[idx], y[idx]
    assert (y > 0).any() and (y < 0).any()
    return minmax(x), np.ascontiguousarray(y)


def rbf(x: Array, z: Array | None = None, gamma: float = PAPER_GAMMA) -> Array:
    return np.asarray(rbf_kernel(x, x if z is None else z, gamma=gamma), dtype=np.float64)


# --------------------------------------------------------------------------------------------
# the dual (22) evaluated from α
# --------------------------------------------------------------------------------------------
def entropy_term(alpha: Array, c: float) -> float:
    """Σ C·G(α_i/C) = Σ α log(α/C) + (C − α) log((C − α)/C) (α strictly inside (0, C))."""
    rest = c - alpha
    return float(np.sum(alpha * np.log(alpha / c) + rest * np.log(rest / c)))


def objective(k: Array, y: Array, alpha: Array, c: float, lam: float) -> float:
    """f(α) of (23) in float64."""
    ay = alpha * y
    return float(0.5 * ay @ (k @ ay)) + entropy_term(alpha, c) - lam * float(alpha.sum())


def gradient(k: Array, y: Array, alpha: Array, c: float, lam: float) -> Array:
    """∇f_i = y_i F_i + log(α_i/(C − α_i)) − λ, F = K(α∘y) recomputed from scratch."""
    return y * (k @ (alpha * y)) + np.log(alpha) - np.log(c - alpha) - lam


def gneg(k: Array, y: Array, alpha: Array, c: float, lam: float) -> Array:
    """−y∘∇f."""
    return -y * gradient(k, y, alpha, c, lam)


def up_low(y: Array, alpha: Array, c: float, eps: float = BOUND_EPS) -> tuple[Mask, Mask]:
    """I_up and I_low of (26) with exact comparisons against 0̄ = γ and C̄ = C − γ."""
    below_top, above_bottom = alpha < c - eps, alpha > eps
    up = (below_top & (y > 0)) | (above_bottom & (y < 0))
    low = (below_top & (y < 0)) | (above_bottom & (y > 0))
    return up, low


@dataclass(frozen=True)
class Kkt:
    m: float  # max_{I_up} gneg
    M: float  # min_{I_low} gneg
    gneg: Array
    free: Mask  # γ < α < C − γ

    @property
    def gap(self) -> float:
        return self.m - self.M


def kkt(k: Array, y: Array, alpha: Array, c: float, lam: float, eps: float = BOUND_EPS) -> Kkt:
    """The KKT quantities of (27) recomputed from α alone."""
    g = gneg(k, y, alpha, c, lam)
    up, low = up_low(y, alpha, c, eps)
    free = (alpha > eps) & (alpha < c - eps)
    return Kkt(float(g[up].max()), float(g[low].min()), g, free)


def bias(state: Kkt) -> float:
    """b_KKT (digest §2.6): the mean of gneg over free i, else the midpoint (m + M)/2."""
    if state.free.any():
        return float(state.gneg[state.free].mean())
    return 0.5 * (state.m + state.M)


def sigmoid(t: Array) -> Array:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * t)), dtype=np.float64)


def logit_over_c(alpha: Array, c: float) -> Array:
    """g'^{-1}(α/C) = log(α/(C − α))."""
    return np.log(alpha) - np.log(c - alpha)


# --------------------------------------------------------------------------------------------
# factor of K and the oracles
# --------------------------------------------------------------------------------------------
def factor(k: Array, rel_cut: float = 1e-13) -> Array:
    """L with K ≈ LLᵀ: K = V diag(w) Vᵀ, L = V diag(√w) over the eigenvalues w > rel_cut·max w
    (the rest, including tiny negative rounding, are clipped to 0 and their columns dropped).
    K = 0 gives one zero column rather than none: older cvxpy rejects (n, 0) data."""
    w, v = np.linalg.eigh(0.5 * (k + k.T))
    keep = w > rel_cut * w.max()
    if not keep.any():
        return np.zeros((k.shape[0], 1))
    return np.ascontiguousarray(v[:, keep] * np.sqrt(w[keep]))


def clarabel(problem: cp.Problem) -> None:
    """Solve by Clarabel at tolerances 1e-12, loosened by decades (to 1e-9) only while Clarabel
    reports OPTIMAL_INACCURATE (exponential cones near the γ-box can stall its last digits);
    the assertions using the oracle are far looser than 1e-9.

    If no tolerance ends OPTIMAL, the same again with Clarabel's equilibration off. Measured
    where it mattered (Clarabel 0.9.0 with cvxpy 1.5.0, the floors, on an AVX-512 AMD EPYC;
    Wisconsin's 60 rows, C = 10, λ = 0): the default settings stall after 17 iterations at
    OPTIMAL_INACCURATE for every tolerance, with α 1.5e-4 from the optimum; without
    equilibration it ends OPTIMAL after 51 iterations, α within 1.4e-11 of Clarabel 0.11's."""
    for settings in ({}, {"equilibrate_enable": False}):
        for tol in (1e-12, 1e-11, 1e-10, 1e-9):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # cvxpy's "may be inaccurate"
                problem.solve(
                    solver=cp.CLARABEL,
                    tol_gap_abs=tol,
                    tol_gap_rel=tol,
                    tol_feas=tol,
                    tol_ktratio=1e-8,
                    max_iter=500,
                    **settings,
                )
            if problem.status == cp.OPTIMAL:
                return
    raise AssertionError(f"Clarabel: {problem.status}")


@dataclass(frozen=True)
class DualSolution:
    alpha: Array
    objective: float  # f(α) recomputed in float64 (α clipped into the box)


def solve_dual(k: Array, y: Array, c: float, lam: float, eps: float = BOUND_EPS) -> DualSolution:
    """(22) by cvxpy + Clarabel in the scaled variable δ = α/C (objective divided by C):

    min ½ C ‖Lᵀ(δ∘y)‖² − Σ (entr(δ) + entr(1 − δ)) − λ Σ δ
    s.t. yᵀδ = 0,  γ/C ≤ δ ≤ 1 − γ/C.
    """
    ell = factor(k)
    n = len(y)
    delta = cp.Variable(n)
    quad = 0.5 * c * cp.sum_squares(ell.T @ cp.multiply(y, delta))
    ent = -cp.sum(cp.entr(delta) + cp.entr(1.0 - delta))
    problem = cp.Problem(
        cp.Minimize(quad + ent - lam * cp.sum(delta)),
        [y @ delta == 0, delta >= eps / c, delta <= 1.0 - eps / c],
    )
    clarabel(problem)
    alpha = np.clip(c * np.asarray(delta.value, dtype=np.float64), eps, c - eps)
    return DualSolution(alpha, objective(k, y, alpha, c, lam))


_DUAL_CACHE: dict[tuple[Any, ...], DualSolution] = {}


def dual_reference(
    key: tuple[Any, ...], k: Array, y: Array, c: float, lam: float, eps: float = BOUND_EPS
) -> DualSolution:
    """``solve_dual`` cached per problem key for the session."""
    if key not in _DUAL_CACHE:
        _DUAL_CACHE[key] = solve_dual(k, y, c, lam, eps)
    return _DUAL_CACHE[key]


@dataclass(frozen=True)
class PrimalSolution:
    w: Array
    b: float  # primal sign: decision w·z − b
    rho: float
    objective: float


def primal_objective(
    ell: Array, y: Array, c: float, nu: float, w: Array, b: float, rho: float
) -> float:
    """(28): ½‖w‖² + C Σ log(1 + exp(ρ − y_i(w·z_i − b))) − νρ, z_i = row i of L."""
    xi = rho - y * (ell @ w - b)
    return float(0.5 * w @ w + c * np.sum(np.logaddexp(0.0, xi)) - nu * rho)


def solve_primal(ell: Array, y: Array, c: float, nu: float) -> PrimalSolution:
    """(28) with ρ ≥ 0 by cvxpy + Clarabel (logistic loss through the exponential cone), with
    the objective divided by C (better conditioned for large C).

    At ν = Σα(0) (λ = 0) the bound ρ ≥ 0 is degenerate (ρ* = 0 with a zero multiplier), and the
    interior point method only reaches ρ* to ~1e-6."""
    w = cp.Variable(ell.shape[1])
    b = cp.Variable()
    rho = cp.Variable(nonneg=True)
    loss = cp.sum(cp.logistic(rho - cp.multiply(y, ell @ w - b)))
    problem = cp.Problem(cp.Minimize(0.5 / c * cp.sum_squares(w) + loss - nu / c * rho))
    clarabel(problem)
    wv = np.asarray(w.value, dtype=np.float64)
    bv, rv = float(b.value), float(rho.value)
    return PrimalSolution(wv, bv, rv, primal_objective(ell, y, c, nu, wv, bv, rv))


# --------------------------------------------------------------------------------------------
# NumPy reference SMO (digest §3, §9)
# --------------------------------------------------------------------------------------------
def initial_alpha(y: Array, c: float, eps: float = BOUND_EPS) -> Array:
    """α_i = s/m_{class(i)}: s = 1 if n_maj·γ ≤ 1 ≤ n_min·(C − γ), else
    clamp(n_min·C/2, n_maj·γ·(1 + 1e-9), n_min·(C − γ)) (digest §3.6, API spec)."""
    n_pos, n_neg = int(np.sum(y > 0)), int(np.sum(y < 0))
    n_min, n_maj = min(n_pos, n_neg), max(n_pos, n_neg)
    lo, hi = n_maj * eps, n_min * (c - eps)
    if lo > hi:
        raise ValueError("infeasible box")
    s = 1.0 if lo <= 1.0 <= hi else min(max(n_min * c / 2.0, lo * (1.0 + 1e-9)), hi)
    return np.where(y > 0, s / n_pos, s / n_neg)


def _phi_prime(
    t: float, v: float, eta: float, ai: float, aj: float, yi: float, yj: float, c: float
) -> tuple[float, float]:
    """φ'(t) and φ''(t) of the pair subproblem (digest §3.3)."""
    ni, nj = ai + t * yi, aj - t * yj

    def gal(a: float) -> float:
        return float(np.log(a) - np.log(c - a))

    d1 = -v + t * eta + yi * (gal(ni) - gal(ai)) - yj * (gal(nj) - gal(aj))
    d2 = eta + c / (ni * (c - ni)) + c / (nj * (c - nj))
    return d1, d2


@dataclass
class SmoResult:
    alpha: Array
    n_iter: int
    gap: float
    converged: bool
    objective: list[float] = field(default_factory=list)  # f(α^k), k = 0..n_iter (history)
    step_norm2: list[float] = field(default_factory=list)  # ‖α^k − α^{k−1}‖², 0 at k = 0
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (i*, j*) of step k + 1


def smo(
    k: Array,
    y: Array,
    c: float,
    lam: float,
    eps: float = BOUND_EPS,
    tol: float = 1e-5,
    selection: str = "second_order",
    max_iter: int = 10**6,
    history: bool = False,
) -> SmoResult:
    """Full-K SMO on (22): i* = argmax_{I_up} gneg, j* = argmin_{I_low} gneg (first order) or
    argmax v²/q over I_low with gneg < gneg_i* (second order); lowest index on ties; the pair step
    by bracketed Newton on φ' inside the γ-box, snapping exactly onto a bound at t_max."""
    lo_b, hi_b = eps, c - eps
    alpha = initial_alpha(y, c, eps)
    f_vec = k @ (alpha * y)
    diag = np.diag(k).copy()
    res = SmoResult(alpha, 0, np.inf, False)
    if history:
        res.objective.append(objective(k, y, alpha, c, lam))
        res.step_norm2.append(0.0)
    it = 0
    while True:
        g = -f_vec - y * logit_over_c(alpha, c) + lam * y
        up, low = up_low(y, alpha, c, eps)
        i = int(np.argmax(np.where(up, g, -np.inf)))
        m = g[i]
        big_m = float(np.min(np.where(low, g, np.inf)))
        res.gap = float(m - big_m)
        if res.gap <= tol:
            res.converged = True
            break
        if it >= max_iter:
            break
        if selection == "first_order":
            j = int(np.argmin(np.where(low, g, np.inf)))
        else:
            h = c / (alpha * (c - alpha))
            v = m - g
            q = k[i, i] + diag - 2.0 * k[i] + h[i] + h
            score = np.where(low & (g < m), v * v / q, -np.inf)
            j = int(np.argmax(score))
        yi, yj, ai, aj = y[i], y[j], alpha[i], alpha[j]
        v = float(m - g[j])
        eta = float(k[i, i] + k[j, j] - 2.0 * k[i, j])
        ui = hi_b - ai if yi > 0 else ai - lo_b
        uj = aj - lo_b if yj > 0 else hi_b - aj
        t_max = min(ui, uj)
        d_max, _ = _phi_prime(t_max, v, eta, ai, aj, yi, yj, c)
        if d_max <= 0.0:
            ni, nj = ai + t_max * yi, aj - t_max * yj
            if ui <= uj:
                ni = hi_b if yi > 0 else lo_b
            if uj <= ui:
                nj = lo_b if yj > 0 else hi_b
        else:
            lo_t, hi_t = 0.0, t_max
            qq = eta + c / (ai * (c - ai)) + c / (aj * (c - aj))
            t = min(v / qq, 0.5 * t_max)
            for _ in range(200):
                d1, d2 = _phi_prime(t, v, eta, ai, aj, yi, yj, c)
                if abs(d1) <= 1e-14 * max(1.0, v):
                    break
                if d1 > 0:
                    hi_t = t
                else:
                    lo_t = t
                if hi_t - lo_t <= 4.0 * np.spacing(max(hi_t, 1e-300)):
                    break
                t_new = t - d1 / d2
                t = t_new if lo_t < t_new < hi_t else 0.5 * (lo_t + hi_t)
            ni, nj = ai + t * yi, aj - t * yj
        ni, nj = min(max(ni, lo_b), hi_b), min(max(nj, lo_b), hi_b)
        dai, daj = ni - ai, nj - aj
        alpha[i], alpha[j] = ni, nj
        f_vec += yi * dai * k[:, i] + yj * daj * k[:, j]
        it += 1
        if history:
            res.objective.append(objective(k, y, alpha, c, lam))
            res.step_norm2.append(dai * dai + daj * daj)
            res.pairs.append((i, j))
    res.n_iter = it
    return res
