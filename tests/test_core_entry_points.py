"""The two low-level entry points the distributed AID solves its aggregated problems with.

* ``_core.solve_c_svc(..., alpha0=...)``: the C-SVC dual started from a feasible point keeps
  ``yᵀα = yᵀα⁰`` and reaches the optimum of that problem: the same objective as the explicit
  ``Q = (y ∘ X)(y ∘ X)ᵀ`` given to ``solve_box_qp`` from the same start, and as cvxpy + Clarabel
  on the same QP; its KKT residual is within the tolerance.
* ``_core.solve_weighted_lad``: ``min_β Σ_k w_k |y_k − x_k·β|`` equals the LP optimum that
  SciPy's HiGHS finds; the reported dual value is a lower bound no further than the gap.
* Bad input is a ``ValueError`` naming the problem.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from kk_oracles import F32_FACTOR, KKT_SLACK, kkt_residual
from scipy.optimize import linprog

from kernelkit import _core


def _svm_data(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _feasible_start(y: np.ndarray, upper: np.ndarray, seed: int) -> np.ndarray:
    """A random point of the box (the equality is the one it satisfies)."""
    rng = np.random.default_rng(seed)
    return upper * rng.random(y.shape[0]) * (rng.random(y.shape[0]) < 0.5)


def _dual_objective(X: np.ndarray, y: np.ndarray, alpha: np.ndarray) -> float:
    v = (alpha * y) @ X
    return float(0.5 * v @ v - alpha.sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_warm_started_c_svc_solves_the_box_qp_from_that_point(seed: int) -> None:
    n, d = 120, 5
    X, y = _svm_data(seed, n, d)
    upper = np.random.default_rng(seed + 10).uniform(0.2, 3.0, n)
    alpha0 = _feasible_start(y, upper, seed + 20)
    warm = _core.solve_c_svc(X, y, upper, _core.Kernel("linear"), alpha0, tol=1e-8)
    alpha = np.asarray(warm.x)
    assert warm.status == "converged"
    # The equality constraint is the start's, the box holds.
    assert abs(y @ alpha - y @ alpha0) <= 1e-10 * max(1.0, np.abs(upper).sum())
    assert np.all(alpha >= 0.0) and np.all(alpha <= upper)
    scaled = X * y[:, None]
    q = scaled @ scaled.T
    # Within the tolerance, up to the float32 kernel columns' rounding (kk_oracles.KKT_SLACK).
    slack = KKT_SLACK + F32_FACTOR * float(np.max(np.abs(q) @ alpha))
    assert kkt_residual(q @ alpha - 1.0, y, alpha, upper, slack).within(1e-8)
    # The same problem as the explicit Q from the same start.
    explicit = _core.solve_box_qp(q, -np.ones(n), y, upper, alpha0, tol=1e-8)
    np.testing.assert_allclose(warm.objective, explicit.objective, rtol=1e-10)
    # The reported objective comes from the gradient kept with float32 kernel columns.
    np.testing.assert_allclose(warm.objective, _dual_objective(X, y, alpha), rtol=1e-6)
    # And the QP's optimum by an interior-point method.
    a = cp.Variable(n)
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(scaled.T @ a) - cp.sum(a)),
        [a >= 0, a <= upper, y @ a == y @ alpha0],
    )
    problem.solve(solver=cp.CLARABEL)
    np.testing.assert_allclose(warm.objective, problem.value, rtol=1e-6)


def test_warm_start_changes_the_problem_only_through_its_equality() -> None:
    """From a start with yᵀα⁰ = 0 the warm solve is the cold C-SVC's problem."""
    X, y = _svm_data(5, 80, 3)
    upper = np.full(80, 1.0)
    positive, negative = np.flatnonzero(y > 0)[:3], np.flatnonzero(y < 0)[:3]
    alpha0 = np.zeros(80)
    alpha0[positive] = 0.5
    alpha0[negative] = 0.5
    kernel = _core.Kernel("linear")
    warm = _core.solve_c_svc(X, y, upper, kernel, alpha0, tol=1e-9)
    cold = _core.solve_c_svc(X, y, upper, kernel, tol=1e-9)
    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-9)


@pytest.mark.parametrize(
    ("alpha0", "match"),
    [
        (np.full(10, 2.0), "alpha|upper|bound"),
        (np.full(10, -0.1), "alpha|bound|negative|>= 0"),
        (np.zeros(9), "alpha|length|10"),
        (np.full(10, np.nan), "alpha|finite|NaN"),
    ],
)
def test_a_bad_start_is_a_named_error(alpha0: np.ndarray, match: str) -> None:
    X, y = _svm_data(3, 10, 2)
    with pytest.raises(ValueError, match=match):
        _core.solve_c_svc(X, y, np.ones(10), _core.Kernel("linear"), alpha0)


def _lad_by_highs(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    k, d = x.shape
    # Variables (β, t): min wᵀt  s.t.  xβ − t ≤ y,  −xβ − t ≤ −y.
    cost = np.concatenate([np.zeros(d), w])
    a_ub = np.block([[x, -np.eye(k)], [-x, -np.eye(k)]])
    b_ub = np.concatenate([y, -y])
    bounds = [(None, None)] * d + [(0, None)] * k
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    assert result.status == 0
    return float(result.fun)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_weighted_lad_matches_highs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k, d = 60, 4
    x = np.hstack([rng.standard_normal((k, d - 1)), np.ones((k, 1))])
    y = x @ rng.standard_normal(d) + rng.standard_t(2, k)
    w = rng.integers(1, 50, k).astype(np.float64)
    solution = _core.solve_weighted_lad(x, y, w, tol=1e-9)
    beta = np.asarray(solution.x)
    optimum = _lad_by_highs(x, y, w)
    value = float(w @ np.abs(y - x @ beta))
    np.testing.assert_allclose(solution.objective, value, rtol=1e-12)
    np.testing.assert_allclose(value, optimum, rtol=1e-7)
    lower = solution.objective - solution.gap
    assert lower <= optimum * (1 + 1e-9)
    assert solution.gap <= 1e-7 * optimum


@pytest.mark.parametrize(
    ("x", "y", "w", "match"),
    [
        (np.ones((3, 2)), np.ones(3), np.array([1.0, 0.0, 1.0]), "weight"),
        (np.ones((3, 2)), np.ones(3), np.array([1.0, -1.0, 1.0]), "weight"),
        (np.ones((3, 2)), np.ones(3), np.array([1.0, np.inf, 1.0]), "weight"),
        (np.ones((3, 2)), np.ones(2), np.ones(3), "rows|y"),
        (np.ones((3, 2)), np.ones(3), np.ones(2), "weights|targets"),
    ],
)
def test_weighted_lad_bad_input(x: np.ndarray, y: np.ndarray, w: np.ndarray, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _core.solve_weighted_lad(x, y, w)
