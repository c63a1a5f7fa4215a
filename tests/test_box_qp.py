"""The low-level SMO engine (kernelkit.solvers) against cvxpy + Clarabel.

Problem:  min 1/2 a'Qa + p'a   s.t.  y'a = y'alpha0,  0 <= a <= upper.
Q is built from float32-representable values because the engine caches Q in float32; the very
same float64 matrix is given to cvxpy.
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kk_oracles import kkt_residual, solve_optimal

from kernelkit import solvers

SOLVE_TOL = 1e-8
OBJ_RTOL = 1e-6
X_ATOL = 1e-4


def _f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def _random_problem(
    seed: int, n: int, *, rank: int | None = None, nonzero_start: bool = False
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    r = n + 10 if rank is None else rank
    a = rng.standard_normal((n, r)) / np.sqrt(r)
    q = _f32(a @ a.T)
    q = 0.5 * (q + q.T)  # exactly symmetric (it already is; keep it explicit)
    p = rng.standard_normal(n)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[1] = 1.0, -1.0
    upper = rng.uniform(0.5, 3.0, n)
    alpha0 = rng.uniform(0.0, 1.0, n) * upper if nonzero_start else np.zeros(n)
    return {"Q": q, "p": p, "y": y, "upper": upper, "alpha0": alpha0}


def _cvxpy_solve(prob: dict[str, np.ndarray]) -> tuple[np.ndarray, float]:
    n = len(prob["p"])
    a = cp.Variable(n)
    objective = 0.5 * cp.quad_form(a, cp.psd_wrap(prob["Q"])) + prob["p"] @ a
    constraints = [
        prob["y"] @ a == float(prob["y"] @ prob["alpha0"]),
        a >= 0,
        a <= prob["upper"],
    ]
    problem = cp.Problem(cp.Minimize(objective), constraints)
    solve_optimal(problem, 1e-11, tol_ktratio=1e-9, max_iter=500)
    x = np.clip(np.asarray(a.value), 0.0, prob["upper"])
    return x, float(0.5 * x @ prob["Q"] @ x + prob["p"] @ x)


def _box_qp(prob: dict[str, np.ndarray], with_alpha0: bool) -> Any:
    return solvers.BoxQp(
        prob["Q"],
        prob["p"],
        prob["y"],
        prob["upper"],
        alpha0=prob["alpha0"] if with_alpha0 else None,
    )


def _check_solution(sol: Any, prob: dict[str, np.ndarray], tol: float) -> None:
    q, p, y, upper = prob["Q"], prob["p"], prob["y"], prob["upper"]
    x = np.asarray(sol.x, dtype=np.float64)
    assert x.shape == p.shape
    assert np.all(np.isfinite(x))
    assert np.all(x >= 0.0)
    assert np.all(x <= upper)
    assert y @ x == pytest.approx(y @ prob["alpha0"], abs=1e-9 * max(1.0, upper.sum()))
    obj = 0.5 * x @ q @ x + p @ x
    assert float(sol.objective) == pytest.approx(obj, rel=1e-9, abs=1e-10)
    assert sol.status == "converged"
    assert 0.0 <= float(sol.gap) <= tol
    assert isinstance(sol.iterations, int)
    assert isinstance(sol.stats, dict)
    grad = q @ x + p
    kkt = kkt_residual(grad, y, x, upper)
    assert kkt.violation <= tol + 1e-9, kkt
    # bias = -rho: for a free variable i, -y_i G_i = bias
    lo, hi = kkt.bias_interval(slack=1e-7)
    assert lo <= float(sol.bias) <= hi, (lo, float(sol.bias), hi)


@pytest.mark.parametrize(
    ("seed", "n", "rank", "nonzero_start"),
    [
        (0, 30, None, False),
        (1, 45, None, False),
        (2, 60, None, False),
        (3, 40, None, True),
        (4, 60, None, True),
    ],
)
def test_smo_matches_clarabel(seed: int, n: int, rank: int | None, nonzero_start: bool) -> None:
    prob = _random_problem(seed, n, rank=rank, nonzero_start=nonzero_start)
    x_ref, obj_ref = _cvxpy_solve(prob)
    engine = solvers.Smo(tol=SOLVE_TOL)
    assert engine.name == "smo"
    sol = engine.solve(_box_qp(prob, with_alpha0=nonzero_start))
    _check_solution(sol, prob, SOLVE_TOL)
    assert abs(sol.objective - obj_ref) <= OBJ_RTOL * max(1.0, abs(obj_ref)), (
        sol.objective,
        obj_ref,
    )
    np.testing.assert_allclose(sol.x, x_ref, atol=X_ATOL, rtol=0)


@pytest.mark.parametrize("seed", [10, 11])
def test_smo_rank_deficient_objective_matches_clarabel(seed: int) -> None:
    """Q of rank 5: the minimiser is not unique, the optimal value is."""
    prob = _random_problem(seed, 40, rank=5, nonzero_start=seed % 2 == 1)
    _, obj_ref = _cvxpy_solve(prob)
    sol = solvers.Smo(tol=SOLVE_TOL).solve(_box_qp(prob, with_alpha0=True))
    _check_solution(sol, prob, SOLVE_TOL)
    assert abs(sol.objective - obj_ref) <= OBJ_RTOL * max(1.0, abs(obj_ref))


def test_smo_one_class_shape_problem() -> None:
    """All y = +1, p = 0 (the one-class dual) from a feasible start with sum = nu * n."""
    rng = np.random.default_rng(5)
    n = 50
    x = rng.standard_normal((n, 3))
    d = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    q = _f32(np.exp(-0.5 * d))
    alpha0 = np.zeros(n)
    alpha0[:15] = 1.0  # nu = 0.3
    prob = {"Q": q, "p": np.zeros(n), "y": np.ones(n), "upper": np.ones(n), "alpha0": alpha0}
    x_ref, obj_ref = _cvxpy_solve(prob)
    sol = solvers.Smo(tol=SOLVE_TOL).solve(_box_qp(prob, with_alpha0=True))
    _check_solution(sol, prob, SOLVE_TOL)
    assert abs(sol.objective - obj_ref) <= OBJ_RTOL * max(1.0, abs(obj_ref))
    np.testing.assert_allclose(sol.x, x_ref, atol=X_ATOL, rtol=0)
    assert np.sum(sol.x) == pytest.approx(15.0, rel=1e-12)


@pytest.mark.parametrize("shrinking", [True, False])
def test_smo_shrinking_and_jobs_do_not_change_solution(shrinking: bool) -> None:
    prob = _random_problem(21, 60)
    x_ref, _ = _cvxpy_solve(prob)
    sols = [
        solvers.Smo(tol=SOLVE_TOL, shrinking=shrinking, n_jobs=jobs).solve(
            _box_qp(prob, with_alpha0=False)
        )
        for jobs in (1, 2)
    ]
    for sol in sols:
        _check_solution(sol, prob, SOLVE_TOL)
        np.testing.assert_allclose(sol.x, x_ref, atol=X_ATOL, rtol=0)
    np.testing.assert_array_equal(sols[0].x, sols[1].x)


def test_smo_max_iter_and_callback() -> None:
    prob = _random_problem(31, 60)
    sol = solvers.Smo(tol=SOLVE_TOL, max_iter=3).solve(_box_qp(prob, with_alpha0=False))
    assert sol.status == "max_iterations"
    assert sol.iterations <= 3
    x = np.asarray(sol.x)
    assert np.all(x >= 0) and np.all(x <= prob["upper"])
    assert prob["y"] @ x == pytest.approx(0.0, abs=1e-9)

    seen: list[dict[str, Any]] = []

    def stop_at_second(progress: dict[str, Any]) -> bool:
        seen.append(dict(progress))
        return len(seen) >= 2

    full = solvers.Smo(tol=SOLVE_TOL).solve(_box_qp(prob, with_alpha0=False))
    sol = solvers.Smo(tol=SOLVE_TOL).solve(
        _box_qp(prob, with_alpha0=False), callback=stop_at_second
    )
    if len(seen) >= 2:
        assert sol.status == "stopped"
        assert sol.iterations <= full.iterations
        assert sol.objective >= full.objective - 1e-12
    else:
        # the solve finished before a second progress report: it must then have converged
        assert sol.status == "converged"
    for progress in seen:
        assert {"iteration", "gap", "objective"} <= set(progress)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 15),
    rank=st.integers(1, 20),
    nonzero_start=st.booleans(),
)
def test_smo_property_matches_clarabel(seed: int, n: int, rank: int, nonzero_start: bool) -> None:
    prob = _random_problem(seed, n, rank=rank, nonzero_start=nonzero_start)
    _, obj_ref = _cvxpy_solve(prob)
    sol = solvers.Smo(tol=SOLVE_TOL).solve(_box_qp(prob, with_alpha0=True))
    _check_solution(sol, prob, SOLVE_TOL)
    assert sol.objective <= obj_ref + OBJ_RTOL * max(1.0, abs(obj_ref))
    assert sol.objective >= obj_ref - OBJ_RTOL * max(1.0, abs(obj_ref))


def test_a_q_that_is_not_symmetric_is_refused() -> None:
    """``BoxQp`` documents ``Q`` as symmetric, and SMO reads its columns as its rows, but a
    non-symmetric ``Q`` was solved without a word ("converged", at a point that is not the
    optimum of ``½αᵀQα + pᵀα``). It is refused, naming the first pair that differs; a
    difference at rounding level (``Q`` from float32 arithmetic) still passes, and
    ``(Q + Qᵀ)/2``, the matrix with the same objective, solves."""
    prob = _random_problem(3, 8)
    q = prob["Q"].copy()
    q[1, 5] += 0.25
    with pytest.raises(ValueError, match=r"not symmetric: Q\[1, 5\] = .* and Q\[5, 1\] = "):
        solvers.Smo(tol=SOLVE_TOL).solve(solvers.BoxQp(q, prob["p"], prob["y"], prob["upper"]))
    rounded = prob["Q"] * (1 + 1e-8 * np.triu(np.ones_like(q), 1))
    symmetric = {**prob, "Q": 0.5 * (q + q.T)}
    for matrix in (rounded, symmetric["Q"]):
        sol = solvers.Smo(tol=SOLVE_TOL).solve(
            solvers.BoxQp(matrix, prob["p"], prob["y"], prob["upper"])
        )
        assert sol.status == "converged"
    _check_solution(
        solvers.Smo(tol=SOLVE_TOL).solve(_box_qp(symmetric, with_alpha0=False)),
        symmetric,
        SOLVE_TOL,
    )


@pytest.mark.parametrize("name", ["Q", "p", "upper", "alpha0"])
def test_numbers_beyond_float_range_are_named(name: str) -> None:
    """An int beyond float's range in ``Q``, ``p``, ``upper`` or ``alpha0`` met NumPy's bare
    ``OverflowError`` ("int too large to convert to float"), and an infinite ``Q`` entry was
    refused only at the solve, as a "precomputed kernel"; both name the argument now."""
    args: dict[str, Any] = {
        "Q": [[1.0, 0.0], [0.0, 1.0]],
        "p": [-1.0, -1.0],
        "y": [1.0, -1.0],
        "upper": [1.0, 1.0],
        "alpha0": [0.5, 0.5],
    }
    huge = [[10**400, 0], [0, 1]] if name == "Q" else [10**400, 1]
    with pytest.raises(ValueError, match=f"^{name} contains an integer beyond float's range"):
        solvers.BoxQp(**{**args, name: huge})
    if name == "Q":
        with pytest.raises(ValueError, match=r"^Q contains NaN or infinity"):
            solvers.BoxQp(**{**args, "Q": [[np.inf, 0.0], [0.0, 1.0]]})
