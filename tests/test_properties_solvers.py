"""Property tests of the other dual solvers: PUClassifier (USMO), FrankWolfeSVC /
MEBClassifier, ConstrainedSVR (GSMO) and SparseKernelLogisticRegression.

The approach, and the settings, strategies, filters and shared checks, are in
``kk_properties.py``. Here: USMO's conditions (C1)–(C4) and the bias interval; the Frank–Wolfe
certificate; the GSMO violation and the duality-gap certificate of ConstrainedSVR; the KKT gap
of KLR's γ-box dual; each solution also against the cvxpy + Clarabel optimum, and the
documented ValueErrors (CVM with a non-constant k(x, x), infeasible ConstrainedSVR constraints,
KLR's bound_eps ≥ C/2 or an infeasible γ-box).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import partial
from typing import Any

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st
from kk_constrained_svr import (
    Constraints,
    assert_dual_feasible,
    beta_from_dual,
    constraint_violation,
    dual_objective,
    qp_problem,
)
from kk_constrained_svr import named_constraints as named_svr_constraints
from kk_constrained_svr import primal_objective as svr_primal_objective
from kk_constrained_svr import stack as stack_constraints
from kk_frank_wolfe import assert_oracle_bound, fw_gap
from kk_frank_wolfe import reference as fw_reference
from kk_klr import clarabel
from kk_klr import factor as klr_factor
from kk_klr import kkt as klr_kkt
from kk_klr import objective as klr_objective
from kk_klr import solve_dual as klr_solve_dual
from kk_oracles import F32_FACTOR, KKT_SLACK, svc_pairs
from kk_properties import (
    MAX_ITER,
    Draw,
    KernelParams,
    _finite,
    _fit_smo,
    _is_psd,
    _oracle,
    _resolvable,
    _scale,
    _settings,
    _svc_decision_checks,
    _well_conditioned,
    classification_problems,
    feature_matrices,
    log_uniform,
)
from numpy.typing import NDArray
from sklearn import svm as sk_svm

import kernelkit
from kernelkit import ConvergenceWarning

Array = NDArray[np.float64]


def _fit_converged(est: Any, *args: Any, **kwargs: Any) -> Any:
    """Fit with ConvergenceWarning as an error (a fit must converge within MAX_ITER)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return est.fit(*args, **kwargs)


def _fit_stationary(kp: KernelParams, est: Any, *args: Any) -> str:
    """Fit, and the status the kernel calls for: ``"converged"`` (no ConvergenceWarning) for a
    kernel positive semidefinite by construction, else ``"not_convex"`` with its warning (the
    stopping rule holds, but the problem is not convex)."""
    if kp.guaranteed_psd():
        _fit_converged(est, *args)
        return "converged"
    with pytest.warns(ConvergenceWarning, match="not positive semidefinite"):
        est.fit(*args)
    return "not_convex"


# --------------------------------------------------------------------------------------------
# PUClassifier (USMO, digest 000): the dual over the unlabeled rows
#   min Φ(σ) = ½σᵀK_UUσ − c1 1ᵀK_PUσ + Σ max(−σ_u, σ_u − c2)  s.t. 0 ≤ σ ≤ c2, Σσ = c1·p,
# c1 = π/(2λp), c2 = 1/(2λn); f̂(x) = c1 Σ_P k(x, x_q) − Σ_U σ_v k(x, x_v), f = f̂ + β.
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PuGaps:
    """USMO's optimality conditions (digest 000 §2.3): (C1) m1max − m3min, (C2) m3max − m2min,
    (C3) m1max − m2min + 2, (C4) m3max − m3min − 2 (the condition the paper omits), each ≤ τ;
    D1 = {σ < c2/2}, D2 = {σ > c2/2}, D3 = {0 < σ < c2}."""

    gaps: tuple[float, float, float, float]
    d1: NDArray[np.bool_]
    d2: NDArray[np.bool_]
    d3: NDArray[np.bool_]

    @property
    def worst(self) -> float:
        return max(self.gaps)


# σ within 1e-12·c2 of a breakpoint (0, c2/2, c2) counts as on it, as in the solver: a pair step
# keeps σ_i + σ_j exact, so one of the two can sit a rounding error away from the breakpoint.
PU_BAND = 1e-12


def _pu_gaps(f_hat: Array, sigma: Array, c2: float) -> PuGaps:
    eps = PU_BAND * c2
    d1, d2 = sigma < c2 / 2 - eps, sigma > c2 / 2 + eps
    d3 = (sigma > eps) & (sigma < c2 - eps)

    def top(mask: NDArray[np.bool_]) -> float:
        return float(f_hat[mask].max()) if mask.any() else -np.inf

    def bottom(mask: NDArray[np.bool_]) -> float:
        return float(f_hat[mask].min()) if mask.any() else np.inf

    m1max, m2min, m3min, m3max = top(d1), bottom(d2), bottom(d3), top(d3)
    gaps = (m1max - m3min, m3max - m2min, m1max - m2min + 2.0, m3max - m3min - 2.0)
    return PuGaps(tuple(max(g, -np.inf) for g in gaps), d1, d2, d3)  # type: ignore[arg-type]


def _pu_objective(k_uu: Array, k_up: Array, sigma: Array, c1: float, c2: float) -> float:
    return float(
        0.5 * sigma @ k_uu @ sigma
        - c1 * k_up.sum(axis=1) @ sigma
        + np.maximum(-sigma, sigma - c2).sum()
    )


def _pu_oracle(k_uu: Array, k_up: Array, c1: float, c2: float, p: int) -> tuple[float, Array]:
    """Φ* and σ* by cvxpy + Clarabel (PSD kernels)."""
    ell = klr_factor(k_uu)
    n = len(k_uu)
    sigma = cp.Variable(n)
    quad = 0.5 * cp.sum_squares(ell.T @ sigma) if ell.shape[1] else cp.Constant(0.0)
    objective = quad - (c1 * k_up.sum(axis=1)) @ sigma + cp.sum(cp.maximum(-sigma, sigma - c2))
    problem = cp.Problem(cp.Minimize(objective), [sigma >= 0, sigma <= c2, cp.sum(sigma) == c1 * p])
    clarabel(problem)
    s = np.clip(np.asarray(sigma.value, dtype=np.float64), 0.0, c2)
    return _pu_objective(k_uu, k_up, s, c1, c2), s


@_settings(max_examples=80)
@given(
    problem=classification_problems(max_classes=2),
    prior=st.floats(0.01, 0.99),
    log_lam=st.floats(-4.0, 1.0),
    tol=st.sampled_from([1e-3, 1e-5]),
)
def test_pu_optimality(
    problem: tuple[KernelParams, Array, NDArray[np.int64]],
    prior: float,
    log_lam: float,
    tol: float,
) -> None:
    kp, x, y = problem  # y = 1: labeled positive, y = 0: unlabeled
    lam = 10.0**log_lam
    positive, unlabeled = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    p, n = len(positive), len(unlabeled)
    c1, c2 = prior / (2 * lam * p), 1 / (2 * lam * n)
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    k_uu, k_up = k[np.ix_(unlabeled, unlabeled)], k[np.ix_(unlabeled, positive)]
    coef_bound = np.where(y == 1, c1, c2)
    assume(_resolvable(k[unlabeled], coef_bound, tol, extra=2.0))
    model = kernelkit.PUClassifier(prior=prior, lam=lam, tol=tol, max_iter=MAX_ITER, **kp.params())
    expected = _fit_stationary(kp, model, x, y)
    dec = model.decision_function(x)
    _finite(dec, model.dual_coef_, model.intercept_, model.sigma_, model.objective_)
    assert model.status_ == expected
    np.testing.assert_array_equal(model.predict(x), np.where(dec >= 0, 1, 0))
    sigma = np.asarray(model.sigma_, dtype=np.float64)
    # feasibility (digest §3 item 4)
    assert sigma.shape == (n,)
    assert np.all(sigma >= 0) and np.all(sigma <= c2), (sigma.min(), sigma.max(), c2)
    assert abs(sigma.sum() - c1 * p) <= 1e-10 * c1 * p
    # the expansion (7): α = c1 on every positive, −σ_u on the unlabeled rows with σ_u > 0
    np.testing.assert_array_equal(np.sort(model.support_[:p]), positive)
    np.testing.assert_allclose(model.dual_coef_[0, :p], c1, rtol=1e-12)
    np.testing.assert_array_equal(np.sort(model.support_[p:]), unlabeled[sigma > 0])
    f_hat = c1 * k_up.sum(axis=1) - k_uu @ sigma
    slack = KKT_SLACK + F32_FACTOR * float(
        np.max(
            np.abs(k[unlabeled]) @ np.where(y == 1, c1, np.abs(_scatter(sigma, unlabeled, len(y))))
        )
    )
    # (C1)–(C4) ≤ τ
    gaps = _pu_gaps(f_hat, sigma, c2)
    assert gaps.worst <= tol + 2 * slack, gaps.gaps
    # the bias: f = f̂ + β ≤ −1 on D1, ≥ 1 on D2, in [−1, 1] on D3, within τ
    f = f_hat + float(model.intercept_[0])
    allow = tol + 2 * slack
    assert np.all(f[gaps.d1] <= -1 + allow), f[gaps.d1]
    assert np.all(f[gaps.d2] >= 1 - allow), f[gaps.d2]
    assert np.all(np.abs(f[gaps.d3]) <= 1 + allow), f[gaps.d3]
    np.testing.assert_allclose(dec[unlabeled], f, rtol=1e-9, atol=1e-9 * _scale(f))
    # the objective, and Φ(σ) − Φ* ≤ gap·‖σ − σ*‖₁/2 (convexity, digest §2.3: each pair
    # transfer of σ → σ* has slope ≥ −gap) against cvxpy (PSD kernels only)
    phi = _pu_objective(k_uu, k_up, sigma, c1, c2)
    phi_slack = F32_FACTOR * float(
        np.abs(sigma) @ np.abs(k_uu) @ np.abs(sigma) + c1 * np.abs(k_up).sum()
    )
    assert abs(model.objective_ - phi) <= 1e-6 * max(1.0, abs(phi)) + phi_slack
    pu_optimum = _oracle(lambda: _pu_oracle(k_uu, k_up, c1, c2, p)) if _is_psd(k_uu) else None
    if pu_optimum is not None:
        phi_star, sigma_star = pu_optimum
        oracle_slack = 1e-7 * max(1.0, abs(phi_star))
        assert phi >= phi_star - oracle_slack - phi_slack, (phi, phi_star)
        bound = max(gaps.worst, 0.0) * float(np.abs(sigma - sigma_star).sum()) / 2
        assert phi <= phi_star + bound + oracle_slack + phi_slack, (phi, phi_star, bound)


def _scatter(values: Array, index: NDArray[np.intp], n: int) -> Array:
    out = np.zeros(n)
    out[index] = values
    return out


# --------------------------------------------------------------------------------------------
# FrankWolfeSVC / MEBClassifier (digest 002): per pair, the simplex QP
#   min αᵀK̃α  s.t. α ≥ 0, Σα = 1,  K̃_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C,
# solved to the (1 + ε) certificate, g(α) = Δ² − αᵀK̃α, Δ² = max_i K̃_ii.
# --------------------------------------------------------------------------------------------
@_settings(max_examples=80)
@given(
    problem=classification_problems(max_classes=3),
    alias=st.sampled_from(["FrankWolfeSVC", "MEBClassifier"]),
    method=st.sampled_from(["mfw", "fw", "cvm"]),
    c=log_uniform(1e-3, 1e3),
    eps=st.sampled_from([1e-2, 1e-3, 1e-4]),
    sample_size=st.sampled_from([None, 3]),
    init_size=st.integers(2, 25),
)
def test_frank_wolfe_certificate(
    problem: tuple[KernelParams, Array, NDArray[np.int64]],
    alias: str,
    method: str,
    c: float,
    eps: float,
    sample_size: int | None,
    init_size: int,
) -> None:
    kp, x, y = problem
    model = getattr(kernelkit, alias)(
        method=method,
        C=c,
        epsilon=eps,
        sample_size=sample_size,
        verify_full=True,  # with sampling, a final full scan makes the certificate exact
        init_size=init_size,
        random_state=0,
        max_iter=MAX_ITER,
        **kp.params(),
    )
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    assume(_resolvable(k, np.full(len(y), 1.0), 1e-3, extra=1.0 + 1.0 / c))
    diag = np.diag(k) + 1.0 + 1.0 / c
    spread = float(np.ptp(diag)) / float(np.abs(diag).max())
    if method == "cvm" and spread > 1e-9:
        # documented: CVM is the MEB only for a constant k(x, x) (digest 002 §1.3)
        with pytest.raises(ValueError, match=r"(?i)diagonal|k\(x, x\)"):
            model.fit(x, y)
        event("ValueError: cvm with a non-constant diagonal")
        return
    assume(method != "cvm" or spread == 0.0)  # within rounding of constant: either outcome
    expected = _fit_stationary(kp, model, x, y)
    _svc_decision_checks(model, x, y)
    statuses = [str(s) for s in np.ravel(np.asarray(model.status_, dtype=object))]
    assert statuses == [expected] * len(statuses), statuses
    eps_prime = 2 * eps + eps**2
    for pair in svc_pairs(model, y):
        alpha, s = pair.alpha, pair.s
        sub = k[np.ix_(pair.rows, pair.rows)]
        kt = np.outer(s, s) * (sub + 1.0) + np.eye(len(s)) / c
        # α on the simplex, b = Σ α_i y_i (digest §1.4)
        assert np.all(alpha >= 0.0) and abs(alpha.sum() - 1.0) <= 1e-12, alpha.sum()
        assert abs(pair.intercept - float(alpha @ s)) <= 1e-12
        # the certificate (eq. 37): FW gap 2(R − min_i (K̃α)_i) ≤ ε′ r², r² = Δ² − R
        r, gap, kt_alpha = fw_gap(kt, alpha)
        delta2 = float(np.diag(kt).max())
        slack = 1e-10 * delta2
        assert delta2 - r > 0.0
        assert gap <= eps_prime * (delta2 - r) + slack, (gap, eps_prime * (delta2 - r))
        # the decision function: y_i h(x_i) = (K̃α)_i − α_i / C
        margin = s * (k[np.ix_(pair.rows, pair.sv)] @ pair.coef + pair.intercept)
        np.testing.assert_allclose(margin, kt_alpha - alpha / c, rtol=0, atol=1e-9 * delta2)
        # against the certified optimum of cvxpy + Clarabel (eq. 40–41): (1 − ε′) g* ≤ g(α)
        if _is_psd(kt):
            ref = _oracle(partial(fw_reference, ("test_properties", kt.tobytes()), kt))
            if ref is not None:
                assert_oracle_bound(kt, alpha, ref, eps, f"{alias} {method} pair {pair.classes}")


# --------------------------------------------------------------------------------------------
# ConstrainedSVR (digest 003): linear ν-SVR with Aβ ≤ b, Γβ = d, by GSMO on the dual
#   min f(θ) = ½‖β‖² + yᵀ(α − α*) + bᵀγ − dᵀμ,  β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ,
#   0 ≤ α, α* ≤ C, Σα = Σα* = C n ν / 2, γ ≥ 0;  primal P = ½‖β‖² + C(nνε + Σ ξ + ξ*).
# --------------------------------------------------------------------------------------------
def _gsmo_violation(
    x: Array,
    z: Array,
    cons: Any,
    c: float,
    alpha: Array,
    alpha_star: Array,
    gamma: Array,
    mu: Array,
    beta: Array,
) -> float:
    """Δ = max(Δ1, Δ2, Δ3, Δ4) of Algorithm 2 with the projected γ score (digest §2.5),
    from θ: g = ∇_α f = y − Xβ, ∇_α* f = −g, ∇_γ f = b − Aβ, ∇_μ f = Γβ − d."""
    g = z - x @ beta
    below, above = alpha < c, alpha > 0
    below_s, above_s = alpha_star < c, alpha_star > 0
    d1 = float(g[above].max() - g[below].min()) if above.any() and below.any() else 0.0
    d2 = (
        float((-g)[above_s].max() - (-g)[below_s].min()) if above_s.any() and below_s.any() else 0.0
    )
    grad_gamma = cons.b - cons.A @ beta
    scores = [d1, d2]
    if cons.k1:
        scores.append(
            float(np.max(np.where(gamma > 0, np.abs(grad_gamma), np.maximum(-grad_gamma, 0.0))))
        )
    if cons.k2:
        scores.append(float(np.max(np.abs(cons.G @ beta - cons.d))))
    return max(scores)


def _constrained_svr_optimum(x: Array, z: Array, cons: Any, c: float, nu: float) -> float:
    """P* of the constrained ν-SVR primal (``kk_constrained_svr.qp_problem``, the QP of
    ``solve_qp``), by cvxpy + Clarabel with ``kk_klr.clarabel``'s tolerance loosening
    (degenerate draws, such as X = 0, leave Clarabel "optimal_inaccurate" at 1e-13)."""
    problem = qp_problem(x, z, cons, c, nu)[0]
    clarabel(problem)
    return float(problem.value)


@st.composite
def constraint_sets(draw: Draw, p: int) -> tuple[dict[str, Any], Constraints, bool]:
    """Estimator keyword arguments and the full constraint set (named rows first): a named
    constraint, optionally extra rows around a feasible point β_f (b = Aβ_f + slack,
    d = Γβ_f), or two contradictory equalities (the documented infeasible ValueError)."""
    name = draw(st.sampled_from([None, "nonnegative", "simplex", "increasing", "decreasing"]))
    named = named_svr_constraints(
        name if (name not in ("increasing", "decreasing") or p >= 2) else None, p
    )
    kwargs: dict[str, Any] = {"constraint": name}
    extra = draw(st.sampled_from(["none", "general", "contradictory"]))
    if extra == "none":
        return kwargs, named, True
    small = st.integers(-3, 3).map(float)
    if extra == "contradictory":
        row = np.asarray(draw(st.lists(small, min_size=p, max_size=p)))
        assume(np.any(row != 0))
        kwargs.update(Gamma=np.vstack([row, row]), d=np.array([0.0, 1.0]))
        return kwargs, named, False
    beta_f = np.asarray(draw(st.lists(small, min_size=p, max_size=p)))
    if name in ("nonnegative", "simplex"):
        beta_f = np.abs(beta_f)
        if name == "simplex":
            beta_f = (beta_f + 1.0) / (beta_f + 1.0).sum()
    if name == "increasing":
        beta_f = np.sort(beta_f)
    if name == "decreasing":
        beta_f = np.sort(beta_f)[::-1].copy()
    k1, k2 = draw(st.integers(0, 3)), draw(st.integers(0, 1))
    a = np.asarray(draw(st.lists(small, min_size=k1 * p, max_size=k1 * p))).reshape(k1, p)
    g = np.asarray(draw(st.lists(small, min_size=k2 * p, max_size=k2 * p))).reshape(k2, p)
    a, g = a[np.any(a != 0, axis=1)], g[np.any(g != 0, axis=1)]  # zero rows are refused
    slack = np.asarray(
        draw(st.lists(st.sampled_from([0.0, 0.5]), min_size=len(a), max_size=len(a)))
    )
    if len(a):
        kwargs.update(A=a, b=a @ beta_f + slack)
    if len(g):
        kwargs.update(Gamma=g, d=g @ beta_f)
    user = Constraints(a, a @ beta_f + slack, g, g @ beta_f)
    return kwargs, stack_constraints(named, user), True


@_settings(max_examples=80)
@given(
    data=st.data(),
    c=log_uniform(1e-3, 1e2),
    nu=st.floats(0.01, 1.0),
    tol=st.sampled_from([1e-3, 1e-5]),
    target_exponent=st.integers(-50, 2),
)
def test_constrained_svr_certificate(
    data: st.DataObject, c: float, nu: float, tol: float, target_exponent: int
) -> None:
    x = data.draw(feature_matrices(max_exponent=2))
    n, p = x.shape
    values = st.floats(-1.0, 1.0, allow_nan=False, width=32)
    z = np.asarray(data.draw(st.lists(values, min_size=n, max_size=n)))
    z = (z + x @ np.linspace(1.0, 0.5, p)) * 10.0**target_exponent
    kwargs, cons, feasible = data.draw(constraint_sets(p))
    # GSMO: the certificate below is GSMO's (Δ with its free-variable recovery of β0, ε); the
    # interior-point method is checked against cvxpy + Clarabel in test_constrained_svr_oracle.
    model = kernelkit.ConstrainedSVR(
        C=c, nu=nu, tol=tol, max_iter=MAX_ITER, method="gsmo", **kwargs
    )
    if not feasible:
        with pytest.raises(ValueError, match=r"(?i)infeasible"):
            model.fit(x, z)
        event("ValueError: infeasible constraints")
        return
    k = x @ x.T
    rows = np.vstack([cons.A, cons.G]) if cons.k1 + cons.k2 else np.zeros((0, p))
    assume(_resolvable(k, np.full(n, c), tol, extra=float(np.abs(z).max()) + 10.0))
    # the γ and μ gradients b − Aβ, Γβ − d must be resolvable too (|β| ~ |y|/|x|)
    assume(float(np.abs(rows).sum(axis=1).max(initial=0.0)) * float(np.abs(x).max()) <= 1e3)
    # without constraints the problem is scikit-learn's NuSVR(kernel="linear"), whose LIBSVM
    # solver also stalls on some degenerate draws (e.g. X = 0 but two equal rows: ~1e6 steps);
    # GSMO's selection is first order, LIBSVM's second order: only the regime is compared
    plain = cons.k1 + cons.k2 == 0
    reference = sk_svm.NuSVR(kernel="linear", C=c, nu=nu, tol=tol) if plain else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, z)
    # known bug: GSMO crawls (~1e6 tiny steps) when Δ sits at tol (test_gsmo_stops_at_tol)
    assume(not (model.status_ == "max_iterations" and model.delta_ <= tol * (1 + 1e-9)))
    _fit_smo(model, reference, x, z, stalls_at=MAX_ITER // 10)
    pred = model.predict(x)
    alpha, alpha_star = model.dual_alpha_, model.dual_alpha_star_
    gamma, mu = model.dual_gamma_, model.dual_mu_
    _finite(pred, model.coef_, model.intercept_, model.epsilon_, alpha, alpha_star, gamma, mu)
    assert model.status_ == "converged"
    # dual feasibility (digest §3), and β from θ (Prop. 2.1-3)
    assert_dual_feasible(alpha, alpha_star, gamma, c, nu, "ConstrainedSVR")
    beta = beta_from_dual(x, cons, alpha, alpha_star, gamma, mu)
    scale = _scale(z, x @ beta, beta)
    np.testing.assert_allclose(model.coef_, beta, rtol=1e-9, atol=1e-9 * scale)
    slack = KKT_SLACK + 1e-9 * scale
    # Δ ≤ tol from θ, so the constraints hold within tol
    delta = _gsmo_violation(x, z, cons, c, alpha, alpha_star, gamma, mu, beta)
    assert delta <= tol + slack, delta
    ineq, eq = constraint_violation(cons, beta)
    assert ineq <= tol + slack and eq <= tol + slack, (ineq, eq)
    # the duality-gap certificate: with (β0, ε) inside the KKT intervals of the free-SV
    # recovery, P + f = Σ_i [(C − α_i)(u_i)₊ + α_i(−u_i)₊] + (same for α*) + (b − Aβ)ᵀγ
    # + (Γβ − d)ᵀμ, u_i = β0 − ε − g_i, each bracket ≤ C·Δ: P + f ≤ Δ (2Cn + ‖γ‖₁ + ‖μ‖₁)
    f = dual_objective(x, z, cons, alpha, alpha_star, gamma, mu)
    primal = svr_primal_objective(x, z, c, nu, beta, model.intercept_, model.epsilon_)
    bound = max(delta, 0.0) * (2 * c * n + np.abs(gamma).sum() + np.abs(mu).sum())
    fp_slack = 1e-9 * max(1.0, abs(f), abs(primal), c * n * scale)
    assert primal + f <= bound + fp_slack, (primal + f, bound)
    assert model.dual_objective_ == pytest.approx(f, rel=1e-9, abs=fp_slack)
    assert model.primal_objective_ == pytest.approx(primal, rel=1e-9, abs=fp_slack)
    # against the QP optimum P* = −min f (cvxpy + Clarabel): −f(θ) ≤ P* ≤ −f(θ) + bound
    optimum = _oracle(lambda: _constrained_svr_optimum(x, z, cons, c, nu))
    if optimum is None:
        return
    oracle_slack = 1e-7 * max(1.0, abs(optimum))
    assert -f <= optimum + oracle_slack + fp_slack, (-f, optimum)
    assert optimum + f <= bound + oracle_slack + fp_slack, (optimum + f, bound)


# --------------------------------------------------------------------------------------------
# SparseKernelLogisticRegression (digest 004): the γ-box dual (22)
#   min f(α) = ½(α∘y)ᵀK(α∘y) + Σ C·G(α_i/C) − λΣα  s.t. Σα_i y_i = 0, γ ≤ α_i ≤ C − γ,
# KKT gap max_{I_up} gneg − min_{I_low} gneg ≤ τ, gneg = −y∘∇f (kk_klr).
# --------------------------------------------------------------------------------------------
@_settings(max_examples=80)
@given(
    problem=classification_problems(max_classes=2),
    c=log_uniform(1e-3, 1e2),
    lam_mode=st.sampled_from(["zero", "C/10", "any"]),
    lam_fraction=st.floats(0.0, 1.0),
    bound_eps=st.sampled_from([1e-5, 1e-4, 1e-3]),
    tol=st.sampled_from([1e-5, 1e-3]),
    selection=st.sampled_from(["second_order", "first_order"]),
)
def test_klr_optimality(
    problem: tuple[KernelParams, Array, NDArray[np.int64]],
    c: float,
    lam_mode: str,
    lam_fraction: float,
    bound_eps: float,
    tol: float,
    selection: str,
) -> None:
    kp, x, labels_ = problem
    y = np.where(labels_ == 1, 1.0, -1.0)
    lam = {"zero": 0.0, "C/10": c / 10, "any": lam_fraction * c}[lam_mode]
    model = kernelkit.SparseKernelLogisticRegression(
        C=c,
        lam=lam,
        bound_eps=bound_eps,
        tol=tol,
        selection=selection,
        max_iter=MAX_ITER,
        **kp.params(),
    )
    if bound_eps >= c / 2:
        with pytest.raises(ValueError, match="bound_eps"):
            model.fit(x, labels_)
        event("ValueError: bound_eps >= C/2")
        return
    n_pos, n_neg = int(np.sum(y > 0)), int(np.sum(y < 0))
    n_min, n_maj = min(n_pos, n_neg), max(n_pos, n_neg)
    # documented: Σα_i y_i = 0 has no point in the γ-box when γ·n_maj > (C − γ)·n_min
    margin = (c - bound_eps) * n_min - bound_eps * n_maj
    assume(abs(margin) > 1e-9 * c * n_min)
    if margin < 0:
        with pytest.raises(ValueError, match=r"(?i)infeasible"):
            model.fit(x, labels_)
        event("ValueError: infeasible box")
        return
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    extra = lam + abs(np.log(bound_eps / c)) + 1.0
    assume(_resolvable(k, np.full(len(y), c), tol, extra=extra))
    if kp.guaranteed_psd():
        _fit_converged(model, x, labels_)
        assert model.status_ == "converged"
    else:  # the stopping rule holds, but no certificate without a PSD kernel (issue 46)
        with pytest.warns(ConvergenceWarning, match="not positive semidefinite"):
            model.fit(x, labels_)
        assert model.status_ == "not_convex"
    dec = model.decision_function(x)
    alpha = np.asarray(model.alpha_, dtype=np.float64)
    _finite(dec, alpha, model.dual_coef_, model.intercept_, model.objective_)
    proba = model.predict_proba(x)
    assert np.all((proba >= 0) & (proba <= 1)) and np.allclose(proba.sum(axis=1), 1.0)
    # feasibility: the γ-box and Σα_i y_i = 0
    assert np.all(alpha >= bound_eps) and np.all(alpha <= c - bound_eps), (alpha.min(), alpha.max())
    assert abs(float(alpha @ y)) <= 1e-10 * float(alpha.sum())
    # the KKT gap (27), recomputed from α with a float64 kernel
    slack = KKT_SLACK + F32_FACTOR * float(np.max(np.abs(k) @ alpha))
    state = klr_kkt(k, y, alpha, c, lam, bound_eps)
    assert state.gap <= tol + 2 * slack, state.gap
    # the bias lies in the KKT interval [min_{I_low} gneg, max_{I_up} gneg] (widened by τ)
    intercept = float(model.intercept_[0])
    lo, hi = min(state.m, state.M), max(state.m, state.M)
    assert lo - tol - 2 * slack <= intercept <= hi + tol + 2 * slack, (lo, intercept, hi)
    # the model: d(x) = Σ_{α_i > γ} α_i y_i K(x_i, x) + b
    used = alpha > bound_eps
    np.testing.assert_array_equal(np.sort(model.support_), np.flatnonzero(used))
    expected = k[:, used] @ (alpha * y)[used] + intercept
    np.testing.assert_allclose(dec, expected, rtol=1e-9, atol=1e-9 * _scale(expected))
    # the objective, and f(α) − f* ≤ gap·‖α − α*‖₁/2 (convexity and Σ y(α − α*) = 0) against
    # the cvxpy + Clarabel optimum of (22) (PSD kernels; digest §2.5)
    f = klr_objective(k, y, alpha, c, lam)
    f_slack = F32_FACTOR * float(alpha @ np.abs(k) @ alpha) + 1e-12 * abs(f)
    assert abs(model.objective_ - f) <= 1e-9 * max(1.0, abs(f)) + f_slack
    ref = _oracle(lambda: klr_solve_dual(k, y, c, lam, bound_eps)) if _is_psd(k) else None
    if ref is not None:
        oracle_slack = 1e-7 * max(1.0, abs(ref.objective))
        assert f >= ref.objective - oracle_slack - f_slack, (f, ref.objective)
        bound = max(state.gap, 0.0) * float(np.abs(alpha - ref.alpha).sum()) / 2
        assert f <= ref.objective + bound + oracle_slack + f_slack, (f, ref.objective, bound)
