"""Frank–Wolfe solvers of the L2-SVM as a minimum enclosing ball (seed paper 002: CVM, FW, MFW):
the solution against the certified cvxpy + Clarabel optimum of the dual QP (12) and against the
float64 recomputation of everything the solver maintains incrementally.

Asserted here, on small synthetic problems in full-scan mode unless stated:

* the oracle bound (1 − ε′) g* ≤ g(α) ≤ g*, ε′ = 2ε + ε², and closeness of α to the unique α*,
  through ``_core.solve_frank_wolfe`` and through FrankWolfeSVC (whose dual_coef_, intercept_,
  objective_, radius2_, kkt_gap_, coreset_ and decision_function are recomputed in NumPy)
  (digest A1, T6);
* the termination certificate: every point in B(c, (1+ε) r), maintained R and r² equal to their
  recomputation to 1e-10 relative, also for sampled mode with ``verify_full`` (A2, A8, T7, T8);
* the maintained r² after every MFW step, and the regression for the paper's sign error in the
  away-step radius update (A4, P3);
* MFW's linear rate against FW's sublinear one (A6, T2, T3);
* non-normalised (polynomial) kernels: Δ² = max_i K̃_ii, and CVM refusing them (A7, P1, P2);
* the KKT identity y_i h(x_i) = s_i − α_i/C tying decision_function to K̃ (A5, §1.4).

The oracle and the helpers are in ``kk_frank_wolfe.py``. Digest:
``shared/papers/seed-002-frank-wolfe.md``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from kk_frank_wolfe import (
    CERT_SLACK,
    MAINTAINED_RTOL,
    PROBLEMS,
    Array,
    assert_certificate,
    assert_near_optimum,
    assert_oracle_bound,
    assert_simplex,
    core_kernel,
    estimator_alpha,
    fw_gap,
    gamma_rule,
    make_data,
    modified_kernel,
    poly,
    rbf,
    rbf_problem,
    reference,
    rel,
    solve,
)
from numpy.typing import NDArray
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

import kernelkit

# --------------------------------------------------------------------------------------------
# 1. acceptance: the oracle bound (digest A1 / T6), low level and estimator
# --------------------------------------------------------------------------------------------
# (method, ε): the paper's three methods at ε = 1e-4, and MFW (linear rate) tight at 1e-8.
METHODS = [("cvm", 1e-4), ("fw", 1e-4), ("mfw", 1e-4), ("mfw", 1e-8)]
#: Iteration limit of the solves here: far above what they need (they must converge).
MAX_ITER = 5_000_000


def full_scan_estimator(method: str, c: float, eps: float, **kernel: Any) -> Any:
    """FrankWolfeSVC solving what the low-level ``solve`` calls here solve: every point scanned
    (``sample_size=None``), seed 0, at most MAX_ITER iterations."""
    return kernelkit.FrankWolfeSVC(
        method=method,
        C=c,
        epsilon=eps,
        sample_size=None,
        random_state=0,
        max_iter=MAX_ITER,
        **kernel,
    )


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: f"{p[0]}-{p[1]}-C{p[4]:g}")
@pytest.mark.parametrize(("method", "eps"), METHODS, ids=lambda v: str(v))
def test_oracle_bound_low_level(
    problem: tuple[str, int, int, int, float], method: str, eps: float
) -> None:
    """Full scan: the returned α is on the simplex and (1 − ε′) g* ≤ g(α) ≤ g* with g recomputed
    from α in NumPy and g* from the certified cvxpy + Clarabel optimum (digest A1, T6)."""
    x, y, gamma, kt = rbf_problem(problem)
    ref = reference(("rbf", *problem), kt)
    sol = solve(x, y, core_kernel("rbf", gamma), problem[4], method, eps, max_iter=MAX_ITER)
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
    model = full_scan_estimator(method, c, eps, kernel="rbf", gamma=gamma).fit(x, labels)
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
    _, gap, _ = fw_gap(kt, alpha)
    assert abs(float(np.ravel(model.kkt_gap_)[0]) - gap) <= 1e-9 * ref.delta2
    assert model.solver_stats_[0]["coreset_size"] == np.count_nonzero(alpha)

    x_test, _ = make_data(kind, 50, d, seed + 100)
    expected = (alpha * y) @ (rbf_kernel(x, x_test, gamma=gamma) + 1.0)
    np.testing.assert_allclose(model.decision_function(x_test), expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(x_test), np.where(expected > 0, 7, 3))


def test_repeated_rows_are_not_merged() -> None:
    """Rows repeated many times (1,200 rows rounded to integers: 60 distinct): the L2-SVM's
    δ_ij / C diagonal makes each copy its own variable. SVC's merge of identical rows, which
    FrankWolfeSVC inherited, solved the problem with the copies dropped: "converged", with a
    Frank–Wolfe gap of 2e-2 on the full problem, objective 0.00617 against 0.00213 (2,000
    such rows). The certificate on every row must hold."""
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(1200, 2)) * 1.5) + 0.0
    y = np.where(x.sum(axis=1) + 0.5 * rng.normal(size=1200) > 0, 1.0, -1.0)
    assert len(np.unique(x, axis=0)) < 100
    c, eps, gamma = 10.0, 1e-6, 0.5
    model = full_scan_estimator("mfw", c, eps, kernel="rbf", gamma=gamma).fit(x, y)
    assert list(np.ravel(model.status_)) == ["converged"]
    alpha, s = estimator_alpha(model, y)
    np.testing.assert_array_equal(s, y)
    assert_simplex(alpha, "repeated rows")
    kt = modified_kernel(x, y, rbf(gamma), c)
    r, gap, _ = fw_gap(kt, alpha)
    eps_prime = 2.0 * eps + eps**2
    scale = float(np.diag(kt).max()) - r
    assert gap <= eps_prime * scale + CERT_SLACK, f"FW gap {gap:.3e} on the full problem"


# --------------------------------------------------------------------------------------------
# 2. the termination certificate (digest A2, T7, T8)
# --------------------------------------------------------------------------------------------
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
    sol = solve(x, y, core_kernel("rbf", gamma), problem[4], method, eps, max_iter=MAX_ITER)
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
    for method, pool in [("cvm", "all"), ("fw", "all"), ("fw", "noncore"), ("mfw", "all")]:
        kw = {"sample_size": 59, "seed": 3, "sample_pool": pool}
        sol = solve(x, y, kernel, c, method, eps, verify_full=True, **kw)
        assert sol.status == "converged"
        assert_certificate(sol, kt, y, eps)
        loose = solve(x, y, kernel, c, method, eps, **kw)
        assert_simplex(np.asarray(loose.x), f"{method} sampled")


def test_the_noncore_pool_stops_fw_early_and_only_on_points_outside_the_core_set() -> None:
    """``sample_pool="noncore"`` (LibCVM's sampler) ends FW when no sampled point outside the core
    set lies outside B(c, (1+ε) r): recomputed from α in NumPy, every non-core point of a small
    problem is inside (the sample covers them all once fewer than 59 remain, so the test is
    exact there), while core points may still violate; the pool ``"all"`` reaches the oracle
    bound with many more steps."""
    x, y = make_data("random", 300, 3, 11)
    gamma, c, eps = gamma_rule(x), 10.0, 1e-6
    kt = modified_kernel(x, y, rbf(gamma), c)
    kernel = core_kernel("rbf", gamma)
    ref = reference(("rbf", "random", 300, 3, 11, c), kt)
    kw: dict[str, Any] = {"sample_size": 59, "seed": 5, "sample_trials": 50}
    early = solve(x, y, kernel, c, "fw", eps, sample_pool="noncore", **kw)
    full = solve(x, y, kernel, c, "fw", eps, sample_pool="all", max_iter=MAX_ITER, **kw)
    assert early.status == full.status == "converged"
    alpha = np.asarray(early.x)
    assert_simplex(alpha, "fw noncore")
    s = kt @ alpha
    r_big = float(alpha @ s)
    delta2 = float(np.diag(kt).max())
    violation = 2.0 * (r_big - s) - (2.0 * eps + eps * eps) * (delta2 - r_big)
    outside = alpha == 0
    # With 50 trials of 59 of the few non-core points left, none was missed.
    assert np.all(violation[outside] <= 1e-9 * delta2), violation[outside].max()
    # The early exit is far from the optimum; the full pool is within the paper's bound.
    assert delta2 - r_big < (1.0 - 1e-4) * ref.g_low
    assert_oracle_bound(kt, np.asarray(full.x), ref, eps, "fw all")
    assert early.iterations * 10 < full.iterations


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
        stopped = sol.status in ("converged", "not_convex")
        if stopped and rule == "paper":
            # The wrong r² also enters the stopping test (ε′ r²); later k repeat this state. The
            # wrong R it implies can be negative, which ends the solve "not_convex".
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
        if stopped:
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
    fw = solve(x, y, kernel, c, "fw", eps, max_iter=MAX_ITER, n_jobs=1)
    mfw = solve(x, y, kernel, c, "mfw", eps, max_iter=MAX_ITER, n_jobs=1)
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
    sol = solve(x, y, kernel, c, method, eps, max_iter=MAX_ITER)
    assert sol.status == "converged"
    assert sol.iterations > 0
    assert_oracle_bound(kt, np.asarray(sol.x), ref, eps, f"poly {method}")
    assert_certificate(sol, kt, y, eps, constant_diagonal=False)

    kernel_params = {"kernel": "poly", "gamma": gamma, "degree": degree, "coef0": coef0}
    model = full_scan_estimator(method, c, eps, **kernel_params).fit(x, y)
    alpha, s = estimator_alpha(model, y)
    np.testing.assert_array_equal(s, y)
    assert_oracle_bound(kt, alpha, ref, eps, f"estimator poly {method}")
    expected = (alpha * y) @ (
        polynomial_kernel(x, x[:20], degree=degree, gamma=gamma, coef0=coef0) + 1
    )
    np.testing.assert_allclose(model.decision_function(x[:20]), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", ["poly", "linear"])
@pytest.mark.parametrize(("method", "sample_size"), [("fw", None), ("mfw", None), ("mfw", 59)])
def test_a_few_rows_of_large_norm_do_not_loosen_the_stopping_rule(
    kernel: str, method: str, sample_size: int | None
) -> None:
    """Five rows five times the others' scale make Δ² = max_i K̃_ii dwarf R (cubic kernel:
    Δ² ≈ 5.5e6, R* ≈ 0.067; linear: Δ² ≈ 177, R* ≈ 0.039), so the relative rule
    2(R − s_i*) ≤ ε′(Δ² − R) held far from the optimum: before the fix the cubic fit stopped at
    R ≈ 2.38, 35 times R*, and the linear one with a Frank–Wolfe gap of 3e-4 where ε′ (D − R) is
    8.5e-6. The rule's scale is D − R, D = Σ α_i K̃_ii (r² itself for a constant diagonal): the
    solve iterates, and R is within ε′ (D − R) of the certified optimum R*."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 3))
    x[:5] *= 5.0
    y = np.where(x[:, 0] + 0.3 * rng.normal(size=120) > 0, 1.0, -1.0)
    c, eps = 1.0, 1e-6
    kfun = poly(1.0, 3, 1.0) if kernel == "poly" else poly(1.0, 1, 0.0)
    kt = modified_kernel(x, y, kfun, c)
    ref = reference(("uneven", kernel), kt)
    core = core_kernel("poly", 1.0, 3, 1.0) if kernel == "poly" else core_kernel("linear", 1.0)
    sol = solve(x, y, core, c, method, eps, sample_size=sample_size, verify_full=True)
    assert sol.status == "converged"
    alpha = np.asarray(sol.x)
    r = float(alpha @ kt @ alpha)
    scale = float(alpha @ np.diag(kt)) - r
    assert sol.iterations > 0
    assert r - (ref.r - ref.gap) <= (2 * eps + eps**2) * scale + 1e-12 * r
    assert_certificate(sol, kt, y, eps, constant_diagonal=False)

    model = kernelkit.FrankWolfeSVC(
        method=method,
        C=c,
        epsilon=eps,
        sample_size=sample_size,
        verify_full=True,
        kernel=kernel,
        gamma=1.0,
        degree=3,
        coef0=1.0,
        random_state=0,
    ).fit(x, y)
    oracle_decision = kfun(x, x) @ (ref.alpha * y) + ref.alpha @ y
    np.testing.assert_array_equal(model.predict(x), np.where(oracle_decision > 0, 1.0, -1.0))


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
# 6. classifier recovery: the KKT identity (digest A5, §1.4)
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
