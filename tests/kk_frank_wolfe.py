"""Shared helpers of the Frank–Wolfe tests (seed paper 002: CVM, FW, MFW as a minimum enclosing
ball): data generators, the modified kernel K̃, the certified QP oracle, the assertions built on
it, and thin wrappers around the solver. Imported (like ``kk_oracles``) by
``test_frank_wolfe_oracle.py`` and ``test_frank_wolfe_estimator.py``; it holds no tests.

The oracle is the dual QP (12) itself, built in NumPy and solved by cvxpy + Clarabel:

    min αᵀK̃α  s.t.  α ≥ 0, Σα = 1,     K̃_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C,

with g(α) = Δ² − αᵀK̃α, Δ² = max_i K̃_ii, the objective the Frank–Wolfe methods maximise (digest
§1.5, eq. 34). Clarabel's solution is polished by an exact active-set solve on its support (K̃ is
positive definite because of δ_ij / C, so the optimum is unique) and *certified* by its own
Frank–Wolfe gap, recomputed in float64: R* lies in [R_ref − gap_ref, R_ref]. Each optimum is
solved once per problem key in the session (both test modules share the cache). All quantities
the assertions use (α, R, s = K̃α, the gap) are recomputed here from the returned α; nothing is
taken from the solver on trust.

Digest: ``shared/papers/seed-002-frank-wolfe.md`` (§1–2 formulas, §5 acceptance tests A1–A9,
§6 pitfalls P1–P3, P12–P15).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
from kk_estimators import assert_same_attributes
from kk_oracles import solve_optimal, svc_pairs
from numpy.typing import NDArray
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from kernelkit import _core

Array = NDArray[np.float64]
KernelFn = Callable[[Array, Array], Array]

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

# Relative tolerance on quantities the solver maintains incrementally (R, r²) against their
# float64 recomputation from α (digest A2: "within 1e-10 relative"; the kernel cache is f64).
MAINTAINED_RTOL = 1e-10
# Absolute slack (in units of Δ²) on the recomputed stopping certificate: s = K̃α recomputed here
# and the solver's incrementally updated s differ by float64 rounding only.
CERT_SLACK = 1e-11


# --------------------------------------------------------------------------------------------
# data and kernels
# --------------------------------------------------------------------------------------------
def make_data(kind: str, n: int, d: int, seed: int) -> tuple[Array, Array]:
    """Small synthetic binary problems with labels in {−1, +1} (both classes present)."""
    rng = np.random.default_rng(seed)
    if kind == "blobs":
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        centre = rng.normal(size=d)
        centre *= 1.2 / np.linalg.norm(centre)
        x = rng.normal(size=(n, d)) + np.outer(y, centre)
    elif kind == "xor":
        x = rng.normal(size=(n, d))
        y = np.where(x[:, 0] * x[:, 1] > 0, 1.0, -1.0)
    elif kind == "random":
        x = rng.uniform(-1.0, 1.0, size=(n, d))
        w = rng.normal(size=d)
        score = np.sin(2.0 * x @ w) + 0.3 * rng.normal(size=n)
        y = np.where(score > np.median(score), 1.0, -1.0)
    else:
        raise AssertionError(kind)
    assert (y > 0).any() and (y < 0).any()
    return np.ascontiguousarray(x), y


def gamma_rule(x: Array) -> float:
    """The paper's RBF width (digest P8 (a)): exp(−‖·‖²/(2σ²)) with σ² = the mean squared
    distance over distinct pairs, i.e. γ = 1/(2 d̄)."""
    sq = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    n = len(x)
    return float(1.0 / (2.0 * sq.sum() / (n * (n - 1))))


def rbf(gamma: float) -> KernelFn:
    return lambda a, b: rbf_kernel(a, b, gamma=gamma)


def poly(gamma: float, degree: int, coef0: float) -> KernelFn:
    return lambda a, b: polynomial_kernel(a, b, degree=degree, gamma=gamma, coef0=coef0)


def modified_kernel(x: Array, y: Array, kfun: KernelFn, c: float) -> Array:
    """K̃_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C (digest eq. 18)."""
    k = np.asarray(kfun(x, x), dtype=np.float64)
    return np.outer(y, y) * (k + 1.0) + np.eye(len(y)) / c


# The small RBF problems of the oracle-bound, certificate and KKT tests.
# (kind, n, d, seed, C)
PROBLEMS = [
    ("blobs", 60, 2, 0, 1.0),
    ("xor", 100, 2, 1, 10.0),
    ("random", 150, 5, 2, 100.0),
    ("blobs", 40, 3, 3, 100.0),
    ("xor", 80, 2, 4, 1.0),
    ("random", 120, 4, 5, 10.0),
]


def rbf_problem(problem: tuple[str, int, int, int, float]) -> tuple[Array, Array, float, Array]:
    kind, n, d, seed, c = problem
    x, y = make_data(kind, n, d, seed)
    gamma = gamma_rule(x)
    return x, y, gamma, modified_kernel(x, y, rbf(gamma), c)


def multiclass_blobs(n_classes: int, n: int, seed: int) -> tuple[Array, NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * np.arange(n_classes) / n_classes
    centres = 2.0 * np.c_[np.cos(angles), np.sin(angles)]
    y = rng.integers(0, n_classes, size=n)
    return centres[y] + rng.normal(size=(n, 2)), y * 10 + 1  # labels 1, 11, 21, ...


# --------------------------------------------------------------------------------------------
# the oracle: the simplex QP by cvxpy + Clarabel, polished and certified
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reference:
    alpha: Array
    r: float  # R_ref = α_refᵀK̃α_ref  (an upper bound on R*)
    gap: float  # 2 (R_ref − min_i s_i): R* ≥ R_ref − gap
    delta2: float  # Δ² = max_i K̃_ii

    @property
    def g_low(self) -> float:
        """A lower bound on g* = Δ² − R*."""
        return self.delta2 - self.r

    @property
    def g_high(self) -> float:
        """An upper bound on g* = Δ² − R*."""
        return self.delta2 - self.r + self.gap


def fw_gap(kt: Array, alpha: Array) -> tuple[float, float, Array]:
    """R = αᵀK̃α, the Frank–Wolfe gap 2 (R − min_i s_i) and s = K̃α, all in float64."""
    s = kt @ alpha
    r = float(alpha @ s)
    return r, 2.0 * (r - float(s.min())), s


def _polish(kt: Array, alpha: Array) -> Array:
    """Exact optimum on the support of a near-optimal α: K̃_SS α_S = μ 1, Σα_S = 1, with a
    primal active-set correction (add the most violating point, drop non-positive weights)."""
    support = alpha > 1e-6 * alpha.max()
    best = np.clip(alpha, 0.0, None)
    best /= best.sum()
    for _ in range(4 * len(alpha)):
        idx = np.flatnonzero(support)
        w = np.linalg.solve(kt[np.ix_(idx, idx)], np.ones(len(idx)))
        w /= w.sum()
        if (w <= 0).any():
            support[idx[w <= 0]] = False
            continue
        candidate = np.zeros_like(alpha)
        candidate[idx] = w
        r, gap, s = fw_gap(kt, candidate)
        if gap <= 1e-14 * max(1.0, r):
            return candidate
        support[int(np.argmin(s))] = True
    return best


def _solve_reference(kt: Array) -> Reference:
    n = len(kt)
    # The minimiser does not depend on K̃'s scale; the interior-point solver's accuracy does
    # (a diagonal of 1e5 beside one of 3 ended "optimal_inaccurate"): it sees K̃ / max_i K̃_ii.
    w, v = np.linalg.eigh(kt / np.abs(np.diag(kt)).max())
    factor = v * np.sqrt(np.clip(w, 0.0, None))  # K̃ / max_i K̃_ii = factor factorᵀ
    a = cp.Variable(n)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(factor.T @ a)), [a >= 0, cp.sum(a) == 1])
    solve_optimal(problem, 1e-12)
    alpha = _polish(kt, np.asarray(a.value, dtype=np.float64))
    r, gap, _ = fw_gap(kt, alpha)
    ref = Reference(alpha=alpha, r=r, gap=max(gap, 0.0), delta2=float(np.diag(kt).max()))
    # The oracle must itself be certified far below every tolerance used against it.
    assert ref.gap <= 1e-12 * ref.g_low, f"reference not certified: gap {ref.gap}"
    return ref


_REFERENCES: dict[tuple[Any, ...], tuple[Array, Reference]] = {}


def reference(key: tuple[Any, ...], kt: Array) -> Reference:
    """The certified QP optimum for K̃ (solved once per problem ``key`` in the session)."""
    if key not in _REFERENCES:
        _REFERENCES[key] = (kt, _solve_reference(kt))
    cached_kt, ref = _REFERENCES[key]
    assert np.array_equal(cached_kt, kt), f"two problems share the key {key}"
    return ref


def assert_oracle_bound(kt: Array, alpha: Array, ref: Reference, eps: float, what: str) -> None:
    """Digest T6 / eqs. 40–41: (1 − ε′) g* ≤ g(α) ≤ g*, ε′ = 2ε + ε², for a feasible α."""
    eps_prime = 2.0 * eps + eps**2
    g = ref.delta2 - float(alpha @ kt @ alpha)
    assert g >= (1.0 - eps_prime) * ref.g_low, (
        f"{what}: g(α) = {g!r} below (1−ε′) g* = {(1.0 - eps_prime) * ref.g_low!r} "
        f"(relative shortfall {(ref.g_low - g) / ref.g_low:.3e} > ε′ = {eps_prime:.3e})"
    )
    assert g <= ref.g_high * (1.0 + 1e-9), f"{what}: g(α) = {g!r} above g* = {ref.g_high!r}"


def assert_near_optimum(kt: Array, alpha: Array, ref: Reference, c: float, what: str) -> None:
    """α itself is close to the unique optimum α*: K̃ ⪰ I/C, so for any feasible α
    ‖α − α*‖² ≤ (α − α*)ᵀK̃(α − α*) · C ≤ (R(α) − R*) · C (first-order optimality of α*), and
    ‖α_ref − α*‖² ≤ C · gap_ref. A rigorous bound, unlike a fixed tolerance on ‖α − α*‖∞."""
    excess = max(float(alpha @ kt @ alpha) - ref.r + ref.gap, 0.0)
    bound = math.sqrt(c * excess) + math.sqrt(c * ref.gap) + 1e-12
    dist = float(np.linalg.norm(alpha - ref.alpha))
    assert dist <= bound, f"{what}: ‖α − α*‖ = {dist:.3e} > {bound:.3e}"


def assert_simplex(alpha: Array, what: str) -> None:
    assert np.all(alpha >= 0.0), f"{what}: negative weight {alpha.min()!r}"
    assert abs(alpha.sum() - 1.0) <= 1e-12, f"{what}: Σα = {alpha.sum()!r}"


# --------------------------------------------------------------------------------------------
# running the solver
# --------------------------------------------------------------------------------------------
def core_kernel(name: str, gamma: float, degree: int = 3, coef0: float = 0.0) -> _core.Kernel:
    return _core.Kernel(name, gamma=gamma, degree=degree, coef0=coef0)


def solve(
    x: Array,
    y: Array,
    kernel: _core.Kernel,
    c: float,
    method: str,
    eps: float,
    **kw: Any,
) -> _core.Solution:
    """``_core.solve_frank_wolfe`` in full-scan mode unless ``sample_size`` is given."""
    kw.setdefault("sample_size", None)
    kw.setdefault("seed", 0)
    return _core.solve_frank_wolfe(
        np.ascontiguousarray(x, dtype=np.float64),
        np.ascontiguousarray(y, dtype=np.float64),
        kernel,
        c,
        method,
        eps,
        **kw,
    )


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


def estimator_alpha(model: Any, labels: NDArray[Any]) -> tuple[Array, Array]:
    """α (in the training order) and the signs s (+1 for ``classes_[1]``) of a fitted binary
    FrankWolfeSVC, read from ``dual_coef_`` / ``support_`` (kk_oracles checks the sign
    convention: dual_coef_ = s·α)."""
    (pair,) = svc_pairs(model, labels)
    assert np.array_equal(pair.rows, np.arange(len(labels)))
    return pair.alpha, pair.s


# --------------------------------------------------------------------------------------------
# checks on a solver's output
# --------------------------------------------------------------------------------------------
def assert_certificate(
    sol: _core.Solution, kt: Array, y: Array, eps: float, *, constant_diagonal: bool = True
) -> None:
    """Recompute s = K̃α from scratch and check the exit state of a full-scan (or verified) run:
    max_i ‖z_i − c‖² ≤ (1+ε)² r² (constant diagonal), i.e. FW gap 2(R − min s) ≤ ε′ r² (ε′ (D − R)
    with an uneven diagonal); the reported objective, radius², Δ², gap, core-set size and bias
    against their recomputation."""
    alpha = np.asarray(sol.x)
    assert_simplex(alpha, "solution")
    r, gap, s = fw_gap(kt, alpha)
    diag = np.diag(kt)
    delta2 = float(diag.max())
    r2 = delta2 - r
    eps_prime = 2.0 * eps + eps**2
    slack = CERT_SLACK * delta2
    assert r2 > 0.0
    # The rule's scale: r² = Δ² − R, or with an uneven diagonal D − R, D = Σ α_i K̃_ii (the
    # α-weighted mean of ‖z_i − c‖², which is r² when the diagonal is constant).
    scale = r2 if constant_diagonal else float(alpha @ diag) - r
    assert gap <= eps_prime * scale + slack, f"FW gap {gap!r} > ε′ · {scale!r}"
    if constant_diagonal:
        dist2 = diag + r - 2.0 * s  # ‖z_i − c‖² (eq. 20)
        assert dist2.max() <= (1.0 + eps) ** 2 * r2 * (1.0 + 1e-12) + slack
    assert rel(sol.objective, r) <= MAINTAINED_RTOL, (sol.objective, r)
    assert rel(float(sol.stats["radius2"]), r2) <= MAINTAINED_RTOL, (sol.stats["radius2"], r2)
    assert rel(float(sol.stats["delta2"]), delta2) <= 1e-14
    assert abs(sol.gap - gap) <= 1e-9 * delta2, (sol.gap, gap)
    assert sol.stats["coreset_size"] == np.count_nonzero(alpha)
    assert abs(sol.bias - float(alpha @ y)) <= 1e-12


FITTED = ("dual_coef_", "support_", "intercept_", "n_iter_", "objective_", "n_support_")


def assert_same_model(a: Any, b: Any) -> None:
    assert_same_attributes(a, b, FITTED)
