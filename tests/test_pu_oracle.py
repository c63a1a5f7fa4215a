"""PUClassifier (USMO) against the same dual solved by cvxpy + Clarabel, plus its optimality
conditions, invariances and input checks."""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
import pytest
from kk_oracles import solve_optimal
from numpy.typing import NDArray
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from kernelkit import PUClassifier

Array = NDArray[np.float64]


def pu_problem(n_labeled: int, n_unlabeled: int, prior: float, seed: int) -> tuple[Array, Any]:
    """Labeled positives first, then unlabeled rows mixing positives (fraction ``prior``)."""
    rng = np.random.default_rng(seed)
    d = 3
    positives = rng.normal(0.8, 1.0, size=(n_labeled, d))
    is_positive = rng.random(n_unlabeled) < prior
    unlabeled = np.where(
        is_positive[:, None],
        rng.normal(0.8, 1.0, size=(n_unlabeled, d)),
        rng.normal(-0.8, 1.0, size=(n_unlabeled, d)),
    )
    x = np.vstack([positives, unlabeled])
    y = np.r_[np.ones(n_labeled), np.zeros(n_unlabeled)].astype(int)
    return x, y


def kernel_of(name: str) -> tuple[dict[str, Any], Any]:
    if name == "linear":
        return {"kernel": "linear"}, linear_kernel
    if name == "rbf":
        return {"kernel": "rbf", "gamma": 0.5}, lambda a, b: rbf_kernel(a, b, gamma=0.5)
    return (
        {"kernel": "poly", "gamma": 0.3, "degree": 2, "coef0": 1.0},
        lambda a, b: polynomial_kernel(a, b, degree=2, gamma=0.3, coef0=1.0),
    )


def cvxpy_dual(x: Array, y: Any, k: Any, prior: float, lam: float) -> tuple[float, Array]:
    """min ½σᵀK_UUσ − pᵀσ + Σ max(−σ, σ − c2) s.t. 0 ≤ σ ≤ c2, Σσ = c1·p (digest §1.4),
    with K_UU rounded to float32 as the solver's kernel cache holds it."""
    positive, unlabeled = x[y == 1], x[y == 0]
    p, n = len(positive), len(unlabeled)
    c1, c2 = prior / (2 * lam * p), 1 / (2 * lam * n)
    k_uu = k(unlabeled, unlabeled).astype(np.float32).astype(np.float64)
    linear_term = c1 * k(unlabeled, positive).sum(axis=1)
    sigma = cp.Variable(n)
    objective = (
        0.5 * cp.quad_form(sigma, cp.psd_wrap(k_uu))
        - linear_term @ sigma
        + cp.sum(cp.maximum(-sigma, sigma - c2))
    )
    problem = cp.Problem(cp.Minimize(objective), [sigma >= 0, sigma <= c2, cp.sum(sigma) == c1 * p])
    solve_optimal(problem, 1e-12)
    return float(problem.value), np.asarray(sigma.value)


CASES = [
    (kernel, n, prior, lam, seed)
    for seed, (kernel, n, prior, lam) in enumerate(
        [
            ("linear", 20, 0.3, 0.1),
            ("linear", 150, 0.5, 0.01),
            ("rbf", 40, 0.4, 0.05),
            ("rbf", 300, 0.3, 0.01),
            ("rbf", 120, 0.6, 0.001),
            ("poly", 60, 0.4, 0.1),
            ("poly", 200, 0.2, 0.01),
        ]
    )
]


@pytest.mark.parametrize("selection", ["full", "paper"])
@pytest.mark.parametrize(("kernel", "n", "prior", "lam", "seed"), CASES)
def test_usmo_reaches_the_qp_optimum(
    kernel: str, n: int, prior: float, lam: float, seed: int, selection: str
) -> None:
    x, y = pu_problem(max(5, n // 5), n, prior, seed)
    params, k = kernel_of(kernel)
    model = PUClassifier(prior=prior, lam=lam, tol=1e-6, selection=selection, **params).fit(x, y)
    optimum, sigma = cvxpy_dual(x, y, k, prior, lam)
    assert model.status_ == "converged"
    assert model.objective_increases_ == 0
    assert abs(model.objective_ - optimum) <= 1e-6 * abs(optimum)
    c2 = 1 / (2 * lam * n)
    # σ is unique up to the solver tolerance when K_UU is positive definite (RBF).
    if kernel == "rbf":
        np.testing.assert_allclose(model.sigma_, sigma, atol=1e-3 * c2)
    # Feasibility and the recovered expansion: α = c1 on positives, −σ on unlabeled rows.
    assert np.all(model.sigma_ >= 0) and np.all(model.sigma_ <= c2)
    c1 = prior / (2 * lam * (y == 1).sum())
    assert abs(model.sigma_.sum() - c1 * (y == 1).sum()) <= 1e-9 * c1 * (y == 1).sum()


@pytest.mark.parametrize("selection", ["full", "paper"])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_kkt_conditions_hold_at_exit(kernel: str, selection: str) -> None:
    """f = f̂ + β (with the returned β): f ≤ −1 on D1, f ≥ 1 on D2, −1 ≤ f ≤ 1 on D3, within τ."""
    prior, lam, tol = 0.4, 0.02, 1e-4
    x, y = pu_problem(30, 200, prior, 11)
    params, _ = kernel_of(kernel)
    model = PUClassifier(prior=prior, lam=lam, tol=tol, selection=selection, **params).fit(x, y)
    sigma = model.sigma_
    c2 = 1 / (2 * lam * len(sigma))
    f = model.decision_function(x[y == 0])
    slack = tol + 1e-5
    eps = 1e-12 * c2
    assert np.all(f[sigma < c2 / 2 - eps] <= -1 + slack)
    assert np.all(f[sigma > c2 / 2 + eps] >= 1 - slack)
    free = (sigma > eps) & (sigma < c2 - eps)
    assert np.all(np.abs(f[free]) <= 1 + slack)
    assert model.kkt_gap_ <= tol


def test_permuting_unlabeled_rows_and_threads_do_not_change_the_model() -> None:
    prior, lam = 0.3, 0.01
    x, y = pu_problem(40, 5000, prior, 3)  # above the parallel threshold
    reference = PUClassifier(prior=prior, lam=lam, tol=1e-5, n_jobs=1).fit(x, y)
    threads = PUClassifier(prior=prior, lam=lam, tol=1e-5, n_jobs=2).fit(x, y)
    np.testing.assert_array_equal(reference.sigma_, threads.sigma_)
    assert reference.intercept_[0] == threads.intercept_[0]
    rng = np.random.default_rng(0)
    order = np.r_[np.arange(40), 40 + rng.permutation(5000)]
    permuted = PUClassifier(prior=prior, lam=lam, tol=1e-5).fit(x[order], y[order])
    assert abs(permuted.objective_ - reference.objective_) <= 1e-6 * abs(reference.objective_)
    test = pu_problem(10, 500, prior, 4)[0]
    agreement = np.mean(permuted.predict(test) == reference.predict(test))
    assert agreement >= 0.995


@pytest.mark.parametrize(
    ("prior", "y_values", "x_patch", "match"),
    [
        (0.3, [1] * 10, None, "unlabeled"),
        (0.3, [0] * 10, None, "positive"),
        (1.2, [1] * 5 + [0] * 5, None, "prior"),
        (0.0, [1] * 5 + [0] * 5, None, "prior"),
        (0.3, [1] * 5 + [2] * 5, None, "0"),
        (0.3, [1] * 5 + [0] * 5, np.nan, "NaN|finite"),
    ],
)
def test_bad_input_is_a_clear_error(
    prior: float, y_values: list[int], x_patch: float | None, match: str
) -> None:
    x = np.random.default_rng(0).normal(size=(10, 2))
    if x_patch is not None:
        x[3, 1] = x_patch
    with pytest.raises(ValueError, match=match):
        PUClassifier(prior=prior).fit(x, np.array(y_values))


def test_prior_is_required() -> None:
    x, y = pu_problem(5, 20, 0.3, 0)
    with pytest.raises(ValueError, match="prior"):
        PUClassifier().fit(x, y)


def cvxpy_primal(x: Array, y: Any, k: Any, prior: float, lam: float) -> tuple[Array, float]:
    """The primal QP (5) of the digest §1.2: min −c1·1̃ᵀKα − c1·p·β + c2·Σξ + ½αᵀKα with
    ξ ≥ 0, ξ ≥ f(x_u), ξ ≥ (1 + f(x_u))/2 and f = Kα + β on the unlabeled rows."""
    order = np.r_[np.flatnonzero(y == 1), np.flatnonzero(y == 0)]
    x = x[order]
    p = int((y == 1).sum())
    n = len(x) - p
    c1, c2 = prior / (2 * lam * p), 1 / (2 * lam * n)
    gram = k(x, x)
    alpha, xi, beta = cp.Variable(p + n), cp.Variable(n), cp.Variable()
    f_unlabeled = gram[p:] @ alpha + beta
    objective = (
        -c1 * np.ones(p) @ (gram[:p] @ alpha)
        - c1 * p * beta
        + c2 * cp.sum(xi)
        + 0.5 * cp.quad_form(alpha, cp.psd_wrap(gram))
    )
    constraints = [xi >= 0, xi >= f_unlabeled, xi >= 0.5 + 0.5 * f_unlabeled]
    problem = cp.Problem(cp.Minimize(objective), constraints)
    solve_optimal(problem, 1e-12)
    return np.asarray(alpha.value), float(beta.value)


@pytest.mark.parametrize("seed", [21, 22])
def test_expansion_and_bias_match_the_primal_qp(seed: int) -> None:
    """Digest §5.2: on RBF problems α = [c1; −σ] and β match the primal QP."""
    prior, lam = 0.4, 0.05
    x, y = pu_problem(15, 80, prior, seed)
    params, k = kernel_of("rbf")
    model = PUClassifier(prior=prior, lam=lam, tol=1e-8, **params).fit(x, y)
    alpha_qp, beta_qp = cvxpy_primal(x, y, k, prior, lam)
    p = int((y == 1).sum())
    c1, c2 = prior / (2 * lam * p), 1 / (2 * lam * 80)
    np.testing.assert_allclose(alpha_qp[:p], c1, rtol=1e-5)
    np.testing.assert_allclose(alpha_qp[p:], -model.sigma_, atol=1e-5 * c2 + 1e-6)
    assert abs(model.intercept_[0] - beta_qp) <= 1e-4
