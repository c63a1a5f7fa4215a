"""Frank–Wolfe solvers of the L2-SVM as a minimum enclosing ball (seed paper 002: CVM, FW, MFW)
against independent oracles.

The oracle is the dual QP (12) itself, built in NumPy and solved by cvxpy + Clarabel:

    min αᵀK̃α  s.t.  α ≥ 0, Σα = 1,     K̃_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C,

with g(α) = Δ² − αᵀK̃α, Δ² = max_i K̃_ii, the objective the Frank–Wolfe methods maximise (digest
§1.5, eq. 34). Clarabel's solution is polished by an exact active-set solve on its support (K̃ is
positive definite because of δ_ij / C, so the optimum is unique) and *certified* by its own
Frank–Wolfe gap, recomputed in float64: R* lies in [R_ref − gap_ref, R_ref]. All quantities the
assertions use (α, R, s = K̃α, the gap) are recomputed here from the returned α; nothing is taken
from the solver on trust.

Digest: ``shared/papers/seed-002-frank-wolfe.md`` (§1–2 formulas, §5 acceptance tests A1–A9,
§6 pitfalls P1–P3, P12–P15).
"""

from __future__ import annotations

import functools
import math
import pickle
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
import pytest
from conftest import Dataset
from kk_oracles import svc_pairs
from numpy.typing import NDArray
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.svm import SVC as SklearnSVC

import kernelkit
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


@functools.cache
def _reference_cached(key: tuple[Any, ...]) -> Reference:
    kt = _KT_REGISTRY[key]
    n = len(kt)
    w, v = np.linalg.eigh(kt)
    factor = v * np.sqrt(np.clip(w, 0.0, None))  # K̃ = factor factorᵀ
    a = cp.Variable(n)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(factor.T @ a)), [a >= 0, cp.sum(a) == 1])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert problem.status == cp.OPTIMAL, problem.status
    alpha = _polish(kt, np.asarray(a.value, dtype=np.float64))
    r, gap, _ = fw_gap(kt, alpha)
    delta2 = float(np.diag(kt).max())
    ref = Reference(alpha=alpha, r=r, gap=max(gap, 0.0), delta2=delta2)
    # The oracle must itself be certified far below every tolerance used against it.
    assert ref.gap <= 1e-12 * ref.g_low, f"reference not certified: gap {ref.gap}"
    return ref


_KT_REGISTRY: dict[tuple[Any, ...], Array] = {}


def reference(key: tuple[Any, ...], kt: Array) -> Reference:
    """The certified QP optimum for K̃ (cached per problem ``key``)."""
    _KT_REGISTRY[key] = kt
    return _reference_cached(key)


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
# 1. acceptance: the oracle bound (digest A1 / T6), low level and estimator
# --------------------------------------------------------------------------------------------
# (kind, n, d, seed, C)
PROBLEMS = [
    ("blobs", 60, 2, 0, 1.0),
    ("xor", 100, 2, 1, 10.0),
    ("random", 150, 5, 2, 100.0),
    ("blobs", 40, 3, 3, 100.0),
    ("xor", 80, 2, 4, 1.0),
    ("random", 120, 4, 5, 10.0),
]
# (method, ε): the paper's three methods at ε = 1e-4, and MFW (linear rate) tight at 1e-8.
METHODS = [("cvm", 1e-4), ("fw", 1e-4), ("mfw", 1e-4), ("mfw", 1e-8)]


def rbf_problem(problem: tuple[str, int, int, int, float]) -> tuple[Array, Array, float, Array]:
    kind, n, d, seed, c = problem
    x, y = make_data(kind, n, d, seed)
    gamma = gamma_rule(x)
    return x, y, gamma, modified_kernel(x, y, rbf(gamma), c)


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: f"{p[0]}-{p[1]}-C{p[4]:g}")
@pytest.mark.parametrize(("method", "eps"), METHODS, ids=lambda v: str(v))
def test_oracle_bound_low_level(
    problem: tuple[str, int, int, int, float], method: str, eps: float
) -> None:
    """Full scan: the returned α is on the simplex and (1 − ε′) g* ≤ g(α) ≤ g* with g recomputed
    from α in NumPy and g* from the certified cvxpy + Clarabel optimum (digest A1, T6)."""
    x, y, gamma, kt = rbf_problem(problem)
    ref = reference(("rbf", *problem), kt)
    sol = solve(x, y, core_kernel("rbf", gamma), problem[4], method, eps, max_iter=5_000_000)
    assert sol.status == "converged", sol.status
    alpha = np.asarray(sol.x)
    assert alpha.shape == (len(y),)
    assert_simplex(alpha, method)
    assert_oracle_bound(kt, alpha, ref, eps, f"{method} ε={eps:g}")
    assert_near_optimum(kt, alpha, ref, problem[4], method)


@pytest.mark.parametrize("problem", PROBLEMS[:4], ids=lambda p: f"{p[0]}-{p[1]}-C{p[4]:g}")
@pytest.mark.parametrize(("method", "eps"), METHODS, ids=lambda v: str(v))
def test_oracle_bound_estimator(
    problem: tuple[str, int, int, int, float], method: str, eps: float
) -> None:
    """FrankWolfeSVC (binary, full scan): α read from dual_coef_/support_ satisfies the oracle
    bound; intercept_ = Σ α_i y_i; decision_function(X) = Σ α_i y_i (k(x_i, x) + 1) recomputed
    in NumPy (positive for classes_[1]); objective_ = αᵀK̃α and radius2_ = Δ² − αᵀK̃α."""
    kind, _, d, seed, c = problem
    x, y, gamma, kt = rbf_problem(problem)
    ref = reference(("rbf", *problem), kt)
    # Labels 3 / 7: classes_[1] = 7 is the positive class of decision_function.
    labels = np.where(y > 0, 7, 3)
    model = kernelkit.FrankWolfeSVC(
        method=method,
        C=c,
        kernel="rbf",
        gamma=gamma,
        epsilon=eps,
        sample_size=None,
        random_state=0,
        max_iter=5_000_000,
    ).fit(x, labels)
    assert list(model.classes_) == [3, 7]
    assert list(np.ravel(model.status_)) == ["converged"]
    alpha, s = estimator_alpha(model, labels)
    np.testing.assert_array_equal(s, y)
    assert_simplex(alpha, method)
    assert_oracle_bound(kt, alpha, ref, eps, f"estimator {method} ε={eps:g}")
    assert_near_optimum(kt, alpha, ref, c, f"estimator {method}")

    # intercept_ = b = Σ α_i y_i (digest §1.4; not a LIBSVM-style KKT bias)
    assert abs(float(model.intercept_[0]) - float(alpha @ y)) <= 1e-12
    np.testing.assert_allclose(model.dual_coef_[0], (alpha * y)[model.support_], rtol=0, atol=0)
    r = float(alpha @ kt @ alpha)
    assert rel(float(np.ravel(model.objective_)[0]), r) <= MAINTAINED_RTOL
    assert rel(float(np.ravel(model.radius2_)[0]), ref.delta2 - r) <= MAINTAINED_RTOL
    assert rel(float(np.ravel(model.delta2_)[0]), ref.delta2) <= 1e-14
    assert rel(float(np.ravel(model.radius_)[0]), math.sqrt(ref.delta2 - r)) <= MAINTAINED_RTOL
    assert sorted(model.coreset_) == sorted(np.flatnonzero(alpha > 0))

    x_test, _ = make_data(kind, 50, d, seed + 100)
    expected = (alpha * y) @ (rbf_kernel(x, x_test, gamma=gamma) + 1.0)
    np.testing.assert_allclose(model.decision_function(x_test), expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(x_test), np.where(expected > 0, 7, 3))


# --------------------------------------------------------------------------------------------
# 2. the termination certificate (digest A2, T7, T8)
# --------------------------------------------------------------------------------------------
def assert_certificate(
    sol: _core.Solution, kt: Array, y: Array, eps: float, *, constant_diagonal: bool = True
) -> None:
    """Recompute s = K̃α from scratch and check the exit state of a full-scan (or verified) run:
    max_i ‖z_i − c‖² ≤ (1+ε)² r² (constant diagonal), i.e. FW gap 2(R − min s) ≤ ε′ r²; the
    reported objective, radius², Δ², gap, core-set size and bias against their recomputation."""
    alpha = np.asarray(sol.x)
    assert_simplex(alpha, "solution")
    r, gap, s = fw_gap(kt, alpha)
    diag = np.diag(kt)
    delta2 = float(diag.max())
    r2 = delta2 - r
    eps_prime = 2.0 * eps + eps**2
    slack = CERT_SLACK * delta2
    assert r2 > 0.0
    assert gap <= eps_prime * r2 + slack, f"FW gap {gap!r} > ε′ r² = {eps_prime * r2!r}"
    if constant_diagonal:
        dist2 = diag + r - 2.0 * s  # ‖z_i − c‖² (eq. 20)
        assert dist2.max() <= (1.0 + eps) ** 2 * r2 * (1.0 + 1e-12) + slack
    assert rel(sol.objective, r) <= MAINTAINED_RTOL, (sol.objective, r)
    assert rel(float(sol.stats["radius2"]), r2) <= MAINTAINED_RTOL, (sol.stats["radius2"], r2)
    assert rel(float(sol.stats["delta2"]), delta2) <= 1e-14
    assert abs(sol.gap - gap) <= 1e-9 * delta2, (sol.gap, gap)
    assert sol.stats["coreset_size"] == np.count_nonzero(alpha)
    assert abs(sol.bias - float(alpha @ y)) <= 1e-12


@pytest.mark.parametrize("problem", PROBLEMS[:3], ids=lambda p: f"{p[0]}-{p[1]}-C{p[4]:g}")
@pytest.mark.parametrize(
    ("method", "eps"),
    [("cvm", 1e-3), ("cvm", 1e-6), ("fw", 1e-3), ("fw", 1e-5), ("mfw", 1e-3), ("mfw", 1e-7)],
    ids=lambda v: str(v),
)
def test_termination_certificate(
    problem: tuple[str, int, int, int, float], method: str, eps: float
) -> None:
    """At exit in full-scan mode every point lies in B(c, (1+ε) r) and the maintained R, r²
    equal their float64 recomputation to 1e-10 relative (digest A2)."""
    x, y, gamma, kt = rbf_problem(problem)
    sol = solve(x, y, core_kernel("rbf", gamma), problem[4], method, eps, max_iter=5_000_000)
    assert sol.status == "converged"
    assert sol.iterations > 0
    assert_certificate(sol, kt, y, eps)


def test_verify_full_gives_the_full_certificate() -> None:
    """Sampled mode with ``verify_full=True`` ends with a full scan, so its exit state passes the
    same certificate as full-scan mode (digest A8); without it the sampled exit is only
    probabilistic, so nothing is asserted about it beyond feasibility."""
    x, y = make_data("random", 400, 3, 7)
    gamma, c, eps = gamma_rule(x), 10.0, 1e-4
    kt = modified_kernel(x, y, rbf(gamma), c)
    kernel = core_kernel("rbf", gamma)
    for method in ("cvm", "fw", "mfw"):
        sol = solve(x, y, kernel, c, method, eps, sample_size=59, seed=3, verify_full=True)
        assert sol.status == "converged"
        assert_certificate(sol, kt, y, eps)
        loose = solve(x, y, kernel, c, method, eps, sample_size=59, seed=3)
        assert_simplex(np.asarray(loose.x), f"{method} sampled")


# --------------------------------------------------------------------------------------------
# 3. the maintained radius after every step, and the paper's sign error (digest A4, P3)
# --------------------------------------------------------------------------------------------
RADIUS_STEPS = 300


def _radius_trajectory(rule: str) -> tuple[Array, Array, NDArray[np.int64], NDArray[np.int64]]:
    """Runs MFW for max_iter = 1..N on the 80-point XOR toy (full scan, seed 0) and returns per k:
    the relative deviation of stats["radius2"] from Δ² − αᵀK̃α, the true r², and the cumulative
    away / drop step counts. The low-level call does not warn at max_iter."""
    x, y = make_data("xor", 80, 2, 0)
    gamma, c = gamma_rule(x), 10.0
    kt = modified_kernel(x, y, rbf(gamma), c)
    delta2 = float(np.diag(kt).max())
    kernel = core_kernel("rbf", gamma)
    dev, r2, away, drop = [], [], [], []
    for k in range(1, RADIUS_STEPS + 1):
        sol = solve(x, y, kernel, c, "mfw", 1e-6, max_iter=k, radius_rule=rule)
        if sol.status == "converged" and rule == "paper":
            # The wrong r² also enters the stopping test (ε′ r²); later k repeat this state.
            assert sol.iterations <= k
        else:
            assert sol.status == "max_iterations", (k, sol.status)
            assert sol.iterations == k
        alpha = np.asarray(sol.x)
        true_r2 = delta2 - float(alpha @ kt @ alpha)
        dev.append(rel(float(sol.stats["radius2"]), true_r2))
        r2.append(true_r2)
        away.append(int(sol.stats["away_steps"]))
        drop.append(int(sol.stats["drop_steps"]))
        if sol.status == "converged":
            break
    return np.array(dev), np.array(r2), np.array(away), np.array(drop)


def test_radius_update_is_exact_after_every_step() -> None:
    """After each of the first N MFW steps the incrementally maintained r² equals Δ² − αᵀK̃α
    recomputed from scratch to 1e-10 relative, across FW, away and drop steps (the corrected
    away-step formula r²_new = (1+λ)(r² − λγ²_j), digest §2.1); r² never decreases (T5)."""
    dev, r2, away, drop = _radius_trajectory("exact")
    assert away[-1] > 0, "the toy problem must exercise away steps"
    assert drop[-1] > 0, "the toy problem must exercise drop steps"
    assert np.all(np.diff(away) >= 0) and np.all(np.diff(drop) >= 0)
    worst = int(np.argmax(dev))
    assert dev[worst] <= MAINTAINED_RTOL, f"step {worst + 1}: relative deviation {dev[worst]:.3e}"
    assert np.all(np.diff(r2) >= -1e-12 * r2[1:]), "r² decreased"


def test_paper_radius_rule_fails_the_same_check() -> None:
    """Regression for the sign typo of Alg. 3 step 21 (digest P3): with the printed formula the
    maintained r² is exact until the first away step, then deviates far beyond 1e-10."""
    dev, _, away, _ = _radius_trajectory("paper")
    assert away[-1] > 0
    first_away = int(np.argmax(away > 0))  # index of the first k whose run took an away step
    assert np.all(dev[:first_away] <= MAINTAINED_RTOL), "FW steps must be exact under both rules"
    assert dev[first_away:].max() > 1e4 * MAINTAINED_RTOL, dev[first_away:].max()


# --------------------------------------------------------------------------------------------
# 4. linear vs sublinear convergence (digest A6, T2, T3)
# --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_mfw_needs_far_fewer_iterations_than_fw() -> None:
    """80-point RBF XOR toy, C = 10, ε = 1e-6, full scan: both converge within the oracle bound,
    and MFW (linear rate) needs fewer than 1/20 of FW's iterations (the digest's NumPy run:
    3,223 vs 626,506)."""
    x, y = make_data("xor", 80, 2, 0)
    gamma, c, eps = gamma_rule(x), 10.0, 1e-6
    kt = modified_kernel(x, y, rbf(gamma), c)
    ref = reference(("toy-xor-80",), kt)
    kernel = core_kernel("rbf", gamma)
    fw = solve(x, y, kernel, c, "fw", eps, max_iter=5_000_000, n_jobs=1)
    mfw = solve(x, y, kernel, c, "mfw", eps, max_iter=5_000_000, n_jobs=1)
    assert fw.status == "converged" and mfw.status == "converged"
    assert_oracle_bound(kt, np.asarray(fw.x), ref, eps, "fw")
    assert_oracle_bound(kt, np.asarray(mfw.x), ref, eps, "mfw")
    assert mfw.iterations * 20 < fw.iterations, (mfw.iterations, fw.iterations)
    assert mfw.stats["away_steps"] > 0 and fw.stats["away_steps"] == 0


# --------------------------------------------------------------------------------------------
# 5. non-normalised kernels (digest A7, P1, P2)
# --------------------------------------------------------------------------------------------
# (gamma, degree, coef0): inhomogeneous quadratic and cubic, and the homogeneous (γ xᵀx')² of §5.8
POLY = [(0.5, 2, 1.0), (0.3, 3, 0.5), (1.0, 2, 0.0)]


@pytest.mark.parametrize(("gamma", "degree", "coef0"), POLY, ids=lambda v: str(v))
@pytest.mark.parametrize(("method", "eps"), [("fw", 1e-4), ("mfw", 1e-4), ("mfw", 1e-8)])
def test_polynomial_kernel(
    gamma: float, degree: int, coef0: float, method: str, eps: float
) -> None:
    """k(x, x) varies, so Δ² must be max_i K̃_ii (P1: with Δ² = K̃_11 the loop can exit at
    iteration 0 with garbage). FW/MFW still run (iterations > 0), converge, satisfy the oracle
    bound with g = Δ² − αᵀK̃α and the FW-gap certificate (eq. 37), through the low level and the
    estimator."""
    x, y = make_data("random", 90, 3, 11)
    x = x * np.linspace(0.3, 1.5, len(x))[:, None]  # spread the norms: a non-constant diagonal
    c = 10.0
    kt = modified_kernel(x, y, poly(gamma, degree, coef0), c)
    assert np.ptp(np.diag(kt)) > 0.1 * np.diag(kt).max()
    ref = reference(("poly", gamma, degree, coef0), kt)
    kernel = core_kernel("poly", gamma, degree, coef0)
    sol = solve(x, y, kernel, c, method, eps, max_iter=5_000_000)
    assert sol.status == "converged"
    assert sol.iterations > 0
    assert_oracle_bound(kt, np.asarray(sol.x), ref, eps, f"poly {method}")
    assert_certificate(sol, kt, y, eps, constant_diagonal=False)

    model = kernelkit.FrankWolfeSVC(
        method=method,
        C=c,
        kernel="poly",
        gamma=gamma,
        degree=degree,
        coef0=coef0,
        epsilon=eps,
        sample_size=None,
        random_state=0,
        max_iter=5_000_000,
    ).fit(x, y)
    alpha, s = estimator_alpha(model, y)
    np.testing.assert_array_equal(s, y)
    assert_oracle_bound(kt, alpha, ref, eps, f"estimator poly {method}")
    expected = (alpha * y) @ (
        polynomial_kernel(x, x[:20], degree=degree, gamma=gamma, coef0=coef0) + 1
    )
    np.testing.assert_allclose(model.decision_function(x[:20]), expected, rtol=1e-12, atol=1e-12)


def test_cvm_refuses_a_non_constant_diagonal() -> None:
    """CVM is only the MEB when k(x, x) is constant (eq. 17): the polynomial kernel is refused
    with a ValueError that says why, at the low level and in the estimator."""
    x, y = make_data("random", 40, 3, 12)
    x = x * np.linspace(0.3, 1.5, len(x))[:, None]
    with pytest.raises(ValueError, match=r"(?i)diagonal|kernel"):
        solve(x, y, core_kernel("poly", 0.5, 2, 1.0), 1.0, "cvm", 1e-4)
    with pytest.raises(ValueError, match=r"(?i)diagonal|kernel"):
        kernelkit.FrankWolfeSVC(method="cvm", kernel="poly", gamma=0.5, degree=2, coef0=1.0).fit(
            x, y
        )


# --------------------------------------------------------------------------------------------
# 6. sampling: determinism and accuracy (digest A8, B2)
# --------------------------------------------------------------------------------------------
FITTED = ("dual_coef_", "support_", "intercept_", "n_iter_", "objective_", "n_support_")


def _assert_same_model(a: Any, b: Any) -> None:
    for name in FITTED:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("method", ["cvm", "fw", "mfw"])
def test_sampled_mode_is_deterministic(a9a: Dataset, method: str) -> None:
    """sample_size = 59 with a fixed random_state: two fits, and fits with n_jobs = 1 and 2, give
    bit-identical models (seeded RNG, ordered reductions, smallest-index tie break)."""
    x, y = a9a.X[:600], a9a.y[:600]
    params: dict[str, Any] = {
        "method": method,
        "C": 1.0,
        "gamma": 0.03,
        "epsilon": 1e-4,
        "sample_size": 59,
        "random_state": 5,
    }
    first = kernelkit.FrankWolfeSVC(**params, n_jobs=1).fit(x, y)
    again = kernelkit.FrankWolfeSVC(**params, n_jobs=1).fit(x, y)
    two = kernelkit.FrankWolfeSVC(**params, n_jobs=2).fit(x, y)
    assert int(np.ravel(first.n_iter_)[0]) > 0
    _assert_same_model(first, again)
    _assert_same_model(first, two)
    np.testing.assert_array_equal(
        first.decision_function(a9a.X_test), two.decision_function(a9a.X_test)
    )


def _accuracy_pair(
    x: Array, y: NDArray[Any], x_test: Array, y_test: NDArray[Any], **params: Any
) -> tuple[float, float]:
    full = kernelkit.FrankWolfeSVC(**params, sample_size=None).fit(x, y)
    sampled = kernelkit.FrankWolfeSVC(**params, sample_size=59).fit(x, y)
    assert all(s == "converged" for s in np.ravel(full.status_))
    return float(np.mean(full.predict(x_test) == y_test)), float(
        np.mean(sampled.predict(x_test) == y_test)
    )


@pytest.mark.slow
def test_sampled_accuracy_matches_full_scan_on_a9a(a9a: Dataset) -> None:
    """a9a (first 1000 training rows, 2000 test rows), MFW: sampled-mode (r = 59) test accuracy is
    within 1 point of full-scan accuracy (same C, γ, ε).

    Why ε = 1e-4: the stopping rule is relative to g = Δ² − R ≈ 2 + 1/C (eq. 37), while R*, which
    carries the classifier, is two orders of magnitude smaller, so ε must be well below R*/Δ² for
    the iterate to be a classifier at all (at ε = 1e-3 both modes still predict the majority
    class). 1e-4 gives models within a few tenths of a point of ε = 1e-5, and keeps the sampled
    run, whose iterations cost r·|core| kernel rows each, near a second (digest P12)."""
    x, y = a9a.X[:1000], a9a.y[:1000]
    params = {"method": "mfw", "C": 1.0, "gamma": gamma_rule(x), "epsilon": 1e-4}
    full, sampled = _accuracy_pair(x, y, a9a.X_test, a9a.y_test, random_state=0, **params)
    majority = max(np.mean(a9a.y_test == 1), np.mean(a9a.y_test == -1))
    assert full > majority + 0.03, (full, majority)
    assert abs(full - sampled) <= 0.01, (full, sampled)


@pytest.mark.slow
def test_sampled_accuracy_matches_full_scan_on_usps() -> None:
    """USPS digits 3 / 5 / 8 (one-vs-one, 1756 training rows, 492 test rows): sampled-mode test
    accuracy within 1 point of full scan, for FW and MFW (same C, γ; ε = 1e-4 as on a9a, within
    0.4 points of ε = 1e-5 here)."""
    z = np.load(DATA / "usps" / "usps.npz")
    keep, keep_test = np.isin(z["y_train"], [3, 5, 8]), np.isin(z["y_test"], [3, 5, 8])
    x = np.asarray(z["X_train"][keep], dtype=np.float64)
    y = np.asarray(z["y_train"][keep])
    x_test = np.asarray(z["X_test"][keep_test], dtype=np.float64)
    y_test = np.asarray(z["y_test"][keep_test])
    gamma = gamma_rule(x[::4])
    for method in ("fw", "mfw"):
        full, sampled = _accuracy_pair(
            x, y, x_test, y_test, method=method, C=10.0, gamma=gamma, epsilon=1e-4, random_state=0
        )
        assert full > 0.9, (method, full)
        assert abs(full - sampled) <= 0.01, (method, full, sampled)


# --------------------------------------------------------------------------------------------
# 7. classifier recovery: the KKT identity (digest A5, §1.4)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("problem", PROBLEMS[:3], ids=lambda p: f"{p[0]}-{p[1]}-C{p[4]:g}")
def test_kkt_identity_at_a_tight_optimum(problem: tuple[str, int, int, int, float]) -> None:
    """MFW, full scan, ε = 1e-10: with h = decision_function (positive for classes_[1], y_i = +1
    there), y_i h(x_i) = s_i − α_i/C equals R − α_i/C on the support vectors and is ≥ R on the
    other points (every SV on the sphere, every other point inside the ball)."""
    c = problem[4]
    x, y, gamma, kt = rbf_problem(problem)
    labels = np.where(y > 0, "pos", "neg")
    model = kernelkit.FrankWolfeSVC(
        method="mfw", C=c, gamma=gamma, epsilon=1e-10, sample_size=None, random_state=1
    ).fit(x, labels)
    assert list(model.classes_) == ["neg", "pos"]
    alpha, s = estimator_alpha(model, labels)
    np.testing.assert_array_equal(s, y)
    r = float(np.ravel(model.objective_)[0])
    margin = y * model.decision_function(x)
    # The identity y_i h(x_i) = s_i − α_i/C (digest §1.4) ties decision_function to K̃.
    np.testing.assert_allclose(margin, kt @ alpha - alpha / c, rtol=0, atol=1e-12)
    sv = alpha > 0
    assert sv.any() and (~sv).any()
    np.testing.assert_allclose(margin[sv], r - alpha[sv] / c, rtol=0, atol=1e-7)
    assert np.all(margin[~sv] >= r - 1e-7), float((margin[~sv] - r).min())


# --------------------------------------------------------------------------------------------
# 8. multiclass one-vs-one (digest A9)
# --------------------------------------------------------------------------------------------
def _multiclass_blobs(n_classes: int, n: int, seed: int) -> tuple[Array, NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * np.arange(n_classes) / n_classes
    centres = 2.0 * np.c_[np.cos(angles), np.sin(angles)]
    y = rng.integers(0, n_classes, size=n)
    return centres[y] + rng.normal(size=(n, 2)), y * 10 + 1  # labels 1, 11, 21, ...


@pytest.mark.parametrize("n_classes", [3, 4])
def test_one_vs_one(n_classes: int) -> None:
    """K(K−1)/2 binary MEB problems: each pair's α (read from the LIBSVM layout) satisfies the
    oracle bound of its own pair problem and objective_[p] = αᵀK̃α; test accuracy ≥ sklearn's SVC
    (same kernel, γ, C) − 1 point; predict is the majority vote (ties → smaller class index) of
    binary FrankWolfeSVC models fitted separately on each pair."""
    x, y = _multiclass_blobs(n_classes, 60 * n_classes, 20 + n_classes)
    x_test, y_test = _multiclass_blobs(n_classes, 500, 40 + n_classes)
    gamma, c, eps = 0.5, 10.0, 1e-8
    params: dict[str, Any] = {
        "method": "mfw",
        "C": c,
        "gamma": gamma,
        "epsilon": eps,
        "sample_size": None,
        "random_state": 0,
    }
    model = kernelkit.FrankWolfeSVC(**params).fit(x, y)
    classes = np.unique(y)
    np.testing.assert_array_equal(model.classes_, classes)
    n_pairs = n_classes * (n_classes - 1) // 2
    assert len(np.ravel(model.objective_)) == n_pairs
    assert len(np.ravel(model.n_iter_)) == n_pairs

    for p, pair in enumerate(svc_pairs(model, y)):
        xs, ys = x[pair.rows], pair.s
        kt = modified_kernel(xs, ys, rbf(gamma), c)
        ref = reference(("ovo", n_classes, p), kt)
        assert_simplex(pair.alpha, f"pair {p}")
        assert_oracle_bound(kt, pair.alpha, ref, eps, f"pair {p}")
        r = float(pair.alpha @ kt @ pair.alpha)
        assert rel(float(np.ravel(model.objective_)[p]), r) <= MAINTAINED_RTOL
        assert abs(pair.intercept - float(pair.alpha @ ys)) <= 1e-12

    accuracy = float(np.mean(model.predict(x_test) == y_test))
    sklearn_accuracy = float(
        np.mean(SklearnSVC(C=c, gamma=gamma).fit(x, y).predict(x_test) == y_test)
    )
    assert accuracy >= sklearn_accuracy - 0.01, (accuracy, sklearn_accuracy)

    votes = np.zeros((len(x_test), n_classes), dtype=np.int64)
    smallest_margin = np.full(len(x_test), np.inf)
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            rows = np.isin(y, classes[[i, j]])
            binary = kernelkit.FrankWolfeSVC(**params).fit(x[rows], y[rows])
            h = binary.decision_function(x_test)  # positive for classes[j]
            votes[:, j] += h > 0
            votes[:, i] += h <= 0
            smallest_margin = np.minimum(smallest_margin, np.abs(h))
    majority = classes[np.argmax(votes, axis=1)]
    # Both solutions are within ε′ of the unique optimum; only a point whose pair decision is
    # ~0 could legitimately flip.
    clear = smallest_margin > 1e-6
    assert clear.mean() >= 0.98
    np.testing.assert_array_equal(model.predict(x_test)[clear], majority[clear])


# --------------------------------------------------------------------------------------------
# 9. bad input
# --------------------------------------------------------------------------------------------
def _bad_input_data() -> tuple[Array, Array]:
    return make_data("blobs", 30, 2, 0)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"method": "nope"}, r"method"),
        ({"epsilon": 0.0}, r"epsilon"),
        ({"epsilon": -1e-3}, r"epsilon"),
        ({"C": 0.0}, r"\bC\b"),
        ({"C": -1.0}, r"\bC\b"),
        ({"sample_size": 0}, r"sample_size"),
        ({"init_size": 1}, r"init_size"),
        ({"init_size": 0}, r"init_size"),
    ],
    ids=lambda v: str(v),
)
def test_bad_parameters(params: dict[str, Any], match: str) -> None:
    """Each bad parameter is refused, naming the parameter, by the estimator and the low level."""
    x, y = _bad_input_data()
    with pytest.raises((ValueError, TypeError), match=match):
        kernelkit.FrankWolfeSVC(**params).fit(x, y)
    low: dict[str, Any] = {"C": 1.0, "method": "mfw", "epsilon": 1e-4, **params}
    extra = {k: v for k, v in params.items() if k not in ("C", "method", "epsilon")}
    with pytest.raises((ValueError, TypeError), match=match):
        solve(x, y, core_kernel("rbf", 0.5), low["C"], low["method"], low["epsilon"], **extra)


def test_bad_data() -> None:
    """One class, NaN in X, and (low level) labels other than ±1 (they enter K̃, digest P14)."""
    x, y = _bad_input_data()
    with pytest.raises(ValueError, match=r"(?i)class"):
        kernelkit.FrankWolfeSVC().fit(x, np.ones(len(y)))
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"(?i)nan|finite"):
        kernelkit.FrankWolfeSVC().fit(bad, y)
    with pytest.raises(ValueError, match=r"(?i)nan|finite"):
        kernelkit.FrankWolfeSVC().fit(x, y).decision_function(bad)
    with pytest.raises(ValueError, match=r"(?i)\by\b|label|±1|-1"):
        solve(x, (y > 0).astype(np.float64), core_kernel("rbf", 0.5), 1.0, "mfw", 1e-4)


def test_estimator_warns_at_max_iter() -> None:
    """The estimator reports a run stopped by max_iter (status_ and a ConvergenceWarning); the low
    level only reports the status."""
    x, y = make_data("xor", 80, 2, 0)
    with pytest.warns(kernelkit.ConvergenceWarning):
        model = kernelkit.FrankWolfeSVC(method="fw", epsilon=1e-8, sample_size=None, max_iter=5)
        model.fit(x, y)
    assert list(np.ravel(model.status_)) == ["max_iterations"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = solve(x, y, core_kernel("rbf", 0.5), 1.0, "fw", 1e-8, max_iter=5)
    assert sol.status == "max_iterations" and sol.iterations == 5


def test_alias_and_pickle_round_trip() -> None:
    """MEBClassifier is FrankWolfeSVC; a fitted model survives pickle bit for bit."""
    assert kernelkit.MEBClassifier is kernelkit.FrankWolfeSVC
    x, y = make_data("random", 120, 3, 9)
    model = kernelkit.FrankWolfeSVC(gamma=1.0, random_state=0).fit(x, y)
    restored = pickle.loads(pickle.dumps(model))
    _assert_same_model(model, restored)
    np.testing.assert_array_equal(restored.decision_function(x), model.decision_function(x))


# --------------------------------------------------------------------------------------------
# 10. Theorem 1: the sampling bound (digest A8, T10), pure NumPy
# --------------------------------------------------------------------------------------------
def test_theorem_1_monte_carlo() -> None:
    """For m reals and a random subset of r = 59 (without replacement), the subset's max is
    among the top 5% with probability ≥ 1 − 0.95^59 ≥ 0.95; 59 is the smallest such r. The
    exact (hypergeometric) probability and a 10⁴-trial simulation both meet the bound."""
    r, m = 59, 1000
    assert 1 - 0.95**r >= 0.95 > 1 - 0.95 ** (r - 1)
    top = m - math.ceil(0.95 * m)  # the 5% largest
    exact = 1 - math.comb(m - top, r) / math.comb(m, r)
    assert exact >= 1 - 0.95**r
    rng = np.random.default_rng(0)
    trials = 10_000
    values = rng.random((trials, m))
    sample = rng.permuted(np.tile(np.arange(m), (trials, 1)), axis=1)[:, :r]
    threshold = np.sort(values, axis=1)[:, m - top]
    hit = np.take_along_axis(values, sample, axis=1).max(axis=1) >= threshold
    sigma = math.sqrt(exact * (1 - exact) / trials)
    assert abs(hit.mean() - exact) <= 4 * sigma, (hit.mean(), exact)
    assert hit.mean() >= 0.95
