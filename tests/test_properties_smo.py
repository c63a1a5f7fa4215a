"""Property tests of the SMO family: SVC, NuSVC, SVR, NuSVR and OneClassSVM.

The approach, and the settings, strategies, filters and shared checks, are in
``kk_properties.py``. Here, per estimator: the dual variables in their box, the equality
constraints (one per class for the ν forms), the maximal violating pair gap ≤ tol (+ the
float32-cache slack of ``kk_oracles``), the intercept where the KKT conditions put it (SVR /
NuSVR also through the ε-tube conditions with ``intercept_``, ``epsilon_``), no objective
increase counted by the solver, and the documented ValueErrors (a class whose rows all have
weight 0, an infeasible ν, a ν-SVC optimum with scale r ≤ 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st
from kk_klr import clarabel
from kk_klr import factor as klr_factor
from kk_oracles import (
    F32_FACTOR,
    KKT_SLACK,
    kkt_residual,
    ocsvm_alpha,
    svc_pair_kkt,
    svc_pairs,
    svc_upper,
)
from kk_properties import (
    MAX_ITER,
    SAMPLE_WEIGHT_ERROR,
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
    kernels,
    log_uniform,
    max_exponent_for,
)
from numpy.typing import NDArray
from sklearn import svm as sk_svm

import kernelkit

Array = NDArray[np.float64]

#: Sample weights, one for each row of a problem of up to 40 rows (zeros included).
WEIGHT_VALUES = st.lists(st.sampled_from([0.0, 0.3, 1.0, 2.5]), min_size=40, max_size=40)


def _classes_without_weight_are_left_out(model: Any, x: Array, y: Array, sw: Array) -> None:
    """A class without a sample of positive weight is left out of the model and of
    ``classes_`` (as LIBSVM's model leaves it out), with a warning; with fewer than two
    classes left the fit is refused."""
    present = np.unique(y[sw > 0])
    if len(present) < 2:
        with pytest.raises(ValueError, match=SAMPLE_WEIGHT_ERROR):
            model.fit(x, y, sample_weight=sw)
        event("ValueError: fewer than two classes of positive weight")
        return
    with pytest.warns(UserWarning, match="positive sample_weight"):
        try:
            model.fit(x, y, sample_weight=sw)
        except ValueError as error:  # ν infeasible for the classes left
            assert "nu" in str(error)
            event("ValueError: nu infeasible once a class is left out")
            return
    np.testing.assert_array_equal(model.classes_, present)
    assert set(np.unique(model.predict(x))) <= set(present)
    event("a class without positive weight left out")


def _no_phantom_increases(model: Any, x: Array) -> None:
    """objective_increases_ == 0: the monotone decrease SMO guarantees, duplicated rows
    included (``test_smo_counts_no_objective_increase_on_duplicated_rows`` in
    ``test_properties_regressions.py``)."""
    assert np.all(np.asarray(model.objective_increases_) == 0), model.objective_increases_


# --------------------------------------------------------------------------------------------
# SVC (extends test_kkt_and_invariants: multiclass, sigmoid, sample / class weights,
# duplicated rows, constant columns, extreme scales)
# --------------------------------------------------------------------------------------------
@_settings(max_examples=150)
@given(
    problem=classification_problems(),
    c=log_uniform(1e-3, 1e3),
    tol=st.sampled_from([1e-3, 1e-5]),
    weighting=st.sampled_from(["none", "balanced", "sample"]),
    sample_weight_values=WEIGHT_VALUES,
    shrinking=st.booleans(),
)
def test_svc_kkt(
    problem: tuple[KernelParams, Array, NDArray[np.int64]],
    c: float,
    tol: float,
    weighting: str,
    sample_weight_values: list[float],
    shrinking: bool,
) -> None:
    kp, x, y = problem
    n = len(y)
    sw = np.asarray(sample_weight_values[:n]) if weighting == "sample" else None
    params: dict[str, Any] = {"C": c, "tol": tol, "shrinking": shrinking, "max_iter": MAX_ITER}
    if weighting == "balanced":
        params["class_weight"] = "balanced"
    model = kernelkit.SVC(**kp.params(), **params)
    reference = sk_svm.SVC(**kp.params(), **params)
    classes = np.unique(y)
    if sw is not None and any(not np.any(sw[y == cl] > 0) for cl in classes):
        _classes_without_weight_are_left_out(model, x, y, sw)
        return
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    cw = np.bincount(y) if weighting == "balanced" else np.ones(len(classes))
    weight_bound = c * (n / (len(classes) * cw.min()) if weighting == "balanced" else 1.0)
    weight = np.full(n, weight_bound) * (1.0 if sw is None else sw)
    assume(_resolvable(k, weight, tol))
    _fit_smo(model, reference, x, y, sample_weight=sw)
    _svc_decision_checks(model, x, y)
    _no_phantom_increases(model, x)
    gaps = np.asarray(model.kkt_gap_)  # the solver's own report, besides the recomputation
    assert np.all((gaps >= 0) & (gaps <= tol)), gaps
    gram = _gram_oracle(k)
    upper = svc_upper(model, y, c, sw)
    for pair in svc_pairs(model, y):
        ub = upper[pair.rows]
        assert np.all(pair.alpha >= 0) and np.all(pair.alpha <= ub * (1 + 1e-12))
        assert abs(pair.s @ pair.alpha) <= 1e-9 * max(1.0, ub.sum())
        kkt = svc_pair_kkt(pair, gram, upper)
        assert kkt.within(tol), kkt
        # The intercept lies in the interval the KKT conditions allow, widened by tol: ρ is the
        # mean gradient of the variables the solver counts as free, and one within rounding of
        # its bound (α = C·class_weight·w up to an ulp) is free for the solver but bounded
        # here; its gradient is then only τ-close to the interval (LIBSVM gives the same ρ).
        lo, hi = kkt.bias_interval(slack=kkt.slack + tol)
        assert lo <= pair.intercept <= hi, (lo, pair.intercept, hi)


def _gram_oracle(k: Array) -> Callable[[NDArray[np.intp], NDArray[np.intp]], Array]:
    return lambda rows, cols: k[np.ix_(rows, cols)]


# --------------------------------------------------------------------------------------------
# NuSVC: LIBSVM's ν-SVC dual per pair, min ½αᵀQα s.t. Σ_{s=+1} α = Σ_{s=−1} α = ν W/2,
# 0 ≤ α_i ≤ w_i (W = Σ w over the pair), returned rescaled into the C-SVC form α_c = α/r
# ---------------------------------------------------------------------------------------------
def _nu_feasibility(nu: float, w: Array, y: NDArray[Any]) -> float:
    """max over class pairs of ν W / (2 min(W₊, W₋)): the ν-SVC dual is feasible iff ≤ 1."""
    classes = np.unique(y)
    worst = 0.0
    for i, a in enumerate(classes):
        for b in classes[i + 1 :]:
            wa, wb = float(w[y == a].sum()), float(w[y == b].sum())
            worst = max(worst, nu * (wa + wb) / (2.0 * min(wa, wb)))
    return worst


@_settings(max_examples=120)
@given(
    problem=classification_problems(max_classes=3),
    # ν relative to the largest feasible value ν_max (with "relative": ν = fraction · ν_max;
    # a small ν makes the reduced convex hulls the full hulls, which intersect on most draws:
    # r* = 0, the documented error below), or absolute in (0, 1] (infeasible ones included)
    nu_mode=st.sampled_from(["relative", "relative", "absolute"]),
    nu_value=st.floats(0.01, 1.0),
    tol=st.sampled_from([1e-3, 1e-5]),
    weighted=st.booleans(),
    sample_weight_values=WEIGHT_VALUES,
)
def test_nu_svc_kkt(
    problem: tuple[KernelParams, Array, NDArray[np.int64]],
    nu_mode: str,
    nu_value: float,
    tol: float,
    weighted: bool,
    sample_weight_values: list[float],
) -> None:
    kp, x, y = problem
    n = len(y)
    w = np.asarray(sample_weight_values[:n]) if weighted else np.ones(n)
    sw = w if weighted else None
    if any(not np.any(w[y == cl] > 0) for cl in np.unique(y)):
        _classes_without_weight_are_left_out(kernelkit.NuSVC(**kp.params()), x, y, w)
        return
    nu = nu_value
    if nu_mode == "relative":
        nu = min(1.0, nu_value * _nu_feasibility(1.0, w, y) ** -1)
    model = kernelkit.NuSVC(nu=nu, tol=tol, max_iter=MAX_ITER, **kp.params())
    reference = sk_svm.NuSVC(nu=nu, tol=tol, **kp.params())
    ratio = _nu_feasibility(nu, w, y)
    # documented: ν must satisfy ν ≤ 2 min(W₊, W₋)/W for every pair (ValueError naming nu);
    # within 1e-9 of the boundary the outcome depends on rounding
    assume(abs(ratio - 1.0) > 1e-9)
    if ratio > 1.0:
        with pytest.raises(ValueError, match="nu"):
            model.fit(x, y, sample_weight=sw)
        event("ValueError: infeasible nu")
        return
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    assume(_resolvable(k, w, tol, extra=0.0))
    try:
        _fit_smo(model, reference, x, y, sample_weight=sw)
    except ValueError as error:
        # documented in the solver: a ν-SVC optimum whose scale r = αᵀQα/(νW) is not positive
        # has no C-SVC form (the reduced convex hulls of a pair intersect). At a τ-KKT point
        # r ≥ r* − τ, so the error is legitimate only if some pair has r* ≤ τ (checked with
        # cvxpy + Clarabel); an indefinite kernel (sigmoid, polynomial with coef0 < 0) can make
        # r* < 0 outright.
        assert "non-positive scale" in str(error), error
        if _is_psd(k):
            scales = _oracle(lambda: [_nu_svc_scale(k, y, w, nu, a, b) for a, b in _class_pairs(y)])
            assume(scales is not None)  # no oracle: the error cannot be judged
            assert min(scales) <= tol + KKT_SLACK, scales
        event("ValueError: non-positive scale r")
        return
    _svc_decision_checks(model, x, y)
    _no_phantom_increases(model, x)
    for pair in svc_pairs(model, y):
        ub = w[pair.rows]
        total = float(ub.sum())
        coef_sum = float(pair.alpha.sum())
        assert coef_sum > 0
        r = nu * total / coef_sum  # Σ α = ν W fixes the scale r of the C-SVC form
        a = r * pair.alpha
        pos = pair.s > 0
        # the two equalities, and the box 0 ≤ α ≤ w
        assert abs(a[pos].sum() - a[~pos].sum()) <= 1e-9 * nu * total
        assert np.all(a <= ub * (1 + 1e-9)), (a.max(), ub)
        k_rows = k[np.ix_(pair.rows, pair.sv)]
        grad = r * pair.s * (k_rows @ pair.coef)  # G = Qα
        slack = KKT_SLACK + r * _f32(k_rows, pair.coef)
        for side in (pos, ~pos):  # one maximal violating pair per equality
            kkt = kkt_residual(grad[side], pair.s[side], a[side], ub[side], slack)
            assert kkt.within(tol), kkt
        # intercept: at a τ-KKT point r·s_i·d(x_i) = G_i − s_i ρ is r on free SVs, ≥ r − τ
        # at α = 0 and ≤ r + τ at α = w (d: the pair's decision function, in the C-SVC form)
        margin = r * pair.s * (k_rows @ pair.coef + pair.intercept)
        allow = tol + 2 * slack
        free = (a > 1e-12 * ub) & (a < ub * (1 - 1e-12))
        # (rows of weight 0 are not in the dual problem)
        at_zero = (a <= 1e-12 * ub) & (ub > 0)
        at_upper = (a >= ub * (1 - 1e-12)) & (ub > 0)
        assert np.all(np.abs(margin[free] - r) <= allow), (margin[free] - r, r)
        assert np.all(margin[at_zero] >= r - allow), (margin[at_zero] - r, r)
        assert np.all(margin[at_upper] <= r + allow), (margin[at_upper] - r, r)


def _f32(k_rows: Array, coef: Array) -> float:
    """The float32-cache bound of kk_oracles: F32_FACTOR · max_i Σ_j |K_ij| |coef_j|."""
    if k_rows.size == 0:
        return 0.0
    return float(F32_FACTOR * np.max(np.abs(k_rows) @ np.abs(coef)))


def _class_pairs(y: NDArray[Any]) -> list[tuple[Any, Any]]:
    classes = np.unique(y)
    return [(a, b) for i, a in enumerate(classes) for b in classes[i + 1 :]]


def _nu_svc_scale(k: Array, y: NDArray[Any], w: Array, nu: float, a: Any, b: Any) -> float:
    """r* = αᵀQα/(νW) at the optimum of the ν-SVC dual of the pair (a, b), by cvxpy +
    Clarabel: min ‖Lᵀ(s∘α)‖² s.t. Σ_{s=+1} α = Σ_{s=−1} α = νW/2, 0 ≤ α ≤ w."""
    rows = np.flatnonzero((y == a) | (y == b))
    s = np.where(y[rows] == a, 1.0, -1.0)
    ub = w[rows]
    total = float(ub.sum())
    ell = klr_factor(k[np.ix_(rows, rows)])
    if ell.shape[1] == 0:  # K = 0
        return 0.0
    alpha = cp.Variable(len(rows))
    problem = cp.Problem(
        cp.Minimize(cp.sum_squares(ell.T @ cp.multiply(s, alpha))),
        [alpha >= 0, alpha <= ub, s @ alpha == 0, cp.sum(alpha) == nu * total],
    )
    clarabel(problem)
    return float(problem.value) / (nu * total)


# --------------------------------------------------------------------------------------------
# SVR, NuSVR (extends test_kkt_and_invariants: every kernel, sample weights, duplicated rows,
# constant columns, extreme scales of X and y)
# --------------------------------------------------------------------------------------------
@st.composite
def regression_problems(draw: Draw) -> Any:
    kp = draw(kernels())
    x = draw(feature_matrices(max_exponent=max_exponent_for(kp)))
    kp = kp.resolve(x)
    n = len(x)
    values = st.floats(-1.0, 1.0, allow_nan=False, width=32)
    z = np.asarray(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64)
    if draw(st.booleans()):  # a target that depends on X (else pure noise)
        z = z + np.sin(x @ np.linspace(1.0, -1.0, x.shape[1]) / max(1e-300, np.abs(x).max()))
    z = z * 10.0 ** draw(st.integers(-50, 3))
    return kp, x, z


def _beta(model: Any, n: int) -> Array:
    beta = np.zeros(n)
    beta[np.asarray(model.support_)] = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    return beta


@dataclass(frozen=True)
class RegressionCase:
    """A drawn SVR / NuSVR problem: the kernel, X, the target z, C, tol and the sample weights
    (``sample_weight``: None when unweighted, and ``w`` is then all ones)."""

    kp: KernelParams
    x: Array
    z: Array
    c: float
    tol: float
    sample_weight: Array | None

    @property
    def w(self) -> Array:
        return np.ones(len(self.z)) if self.sample_weight is None else self.sample_weight

    @property
    def upper(self) -> Array:
        """The bounds C·w of the dual variables."""
        return self.c * self.w

    def params(self) -> dict[str, Any]:
        """C, tol and the kernel, as kernelkit and scikit-learn both take them."""
        return {"C": self.c, "tol": self.tol, **self.kp.params()}

    def fit(self, model: Any, reference: Any, extra: float) -> Array | None:
        """:func:`_fit_weighted` on this problem (``extra``: the size of the linear term)."""
        return _fit_weighted(
            model, reference, self.kp, self.x, (self.z,), self.sample_weight, self.upper, extra
        )

    def checked_beta(self, model: Any, *attributes: Any) -> Array:
        """β = α − α* of the fitted ``model``, after checking that its predictions, dual
        coefficients, intercept, objective and ``attributes`` are finite, that the solver
        counted no objective increase and that |β| ≤ C·w."""
        _finite(model.predict(self.x), model.dual_coef_, model.intercept_, model.objective_)
        _finite(*attributes)
        _no_phantom_increases(model, self.x)
        beta = _beta(model, len(self.z))
        assert np.all(np.abs(beta) <= self.upper * (1 + 1e-12))
        return beta

    def assert_tube(self, model: Any, k: Array, beta: Array, eps: float, allow: float) -> None:
        """predict(X) = Kβ + b, and the ε-tube KKT conditions of (β, b, ``eps``) within
        ``allow`` (:func:`_assert_tube_kkt`)."""
        kb = k @ beta
        intercept = float(model.intercept_[0])
        np.testing.assert_allclose(
            model.predict(self.x), kb + intercept, rtol=1e-9, atol=1e-9 * _scale(kb, self.z)
        )
        _assert_tube_kkt(beta, self.z - kb - intercept, eps, self.upper, allow)


@st.composite
def regression_cases(draw: Draw) -> RegressionCase:
    """A :func:`regression_problems` draw with C, tol and sample weights (or none)."""
    kp, x, z = draw(regression_problems())
    c = draw(log_uniform(1e-3, 1e3))
    tol = draw(st.sampled_from([1e-3, 1e-5]))
    weights = draw(st.one_of(st.none(), WEIGHT_VALUES))
    sample_weight = None if weights is None else np.asarray(weights[: len(z)])
    return RegressionCase(kp, x, z, c, tol, sample_weight)


def _assert_tube_kkt(beta: Array, residual: Array, eps: float, upper: Array, allow: float) -> None:
    """The KKT conditions of the ε-insensitive primal with the returned (β, b, ε), residual
    r = y − f(x): 0 < β_i < C_i ⇒ r_i = ε, −C_i < β_i < 0 ⇒ r_i = −ε, β_i = ±C_i ⇒ ±r_i ≥ ε,
    β_i = 0 ⇒ |r_i| ≤ |ε| (ε < 0, LIBSVM's ν-SVR with ν = 1: α_i = α*_i = C), each within
    ``allow`` (rows of bound 0 are not in the problem)."""
    inside = upper > 0
    tiny = 1e-12 * upper
    pos_free = inside & (beta > tiny) & (beta < upper - tiny)
    neg_free = inside & (beta < -tiny) & (beta > -upper + tiny)
    pos_bound = inside & (beta >= upper - tiny) & (beta > tiny)
    neg_bound = inside & (beta <= -upper + tiny) & (beta < -tiny)
    zero = inside & (np.abs(beta) <= tiny)
    assert np.all(np.abs(residual[pos_free] - eps) <= allow), (residual[pos_free], eps)
    assert np.all(np.abs(residual[neg_free] + eps) <= allow), (residual[neg_free], eps)
    assert np.all(residual[pos_bound] >= eps - allow), (residual[pos_bound], eps)
    assert np.all(residual[neg_bound] <= -eps + allow), (residual[neg_bound], eps)
    assert np.all(np.abs(residual[zero]) <= abs(eps) + allow), (residual[zero], eps)


@_settings(max_examples=100)
@given(case=regression_cases(), epsilon=st.one_of(st.just(0.0), st.floats(0.0, 1.0)))
def test_svr_kkt(case: RegressionCase, epsilon: float) -> None:
    model = kernelkit.SVR(epsilon=epsilon, max_iter=MAX_ITER, **case.params())
    reference = sk_svm.SVR(epsilon=epsilon, **case.params())
    k = case.fit(model, reference, extra=float(np.abs(case.z).max()) + epsilon)
    if k is None:
        return
    beta = case.checked_beta(model, model.kkt_gap_)
    assert 0.0 <= model.kkt_gap_ <= case.tol
    upper, n = case.upper, len(beta)
    assert abs(beta.sum()) <= 1e-9 * max(1.0, upper.sum())
    kb = k @ beta
    # LIBSVM's doubled dual: a = (α, α*) = (β⁺, β⁻), s = (+1, −1), one equality Σ s a = 0
    a = np.concatenate([np.maximum(beta, 0.0), np.maximum(-beta, 0.0)])
    grad = np.concatenate([kb + epsilon - case.z, -kb + epsilon + case.z])
    s = np.concatenate([np.ones(n), -np.ones(n)])
    slack = KKT_SLACK + _f32(k, beta)
    kkt = kkt_residual(grad, s, a, np.concatenate([upper, upper]), slack)
    assert kkt.within(case.tol), kkt
    intercept = float(model.intercept_[0])
    lo, hi = kkt.bias_interval(slack=kkt.slack + case.tol)  # widened by tol: see test_svc_kkt
    assert lo <= intercept <= hi, (lo, intercept, hi)
    case.assert_tube(model, k, beta, epsilon, case.tol + 2 * slack)


def _fit_weighted(
    model: Any,
    reference: Any,
    kp: KernelParams,
    x: Array,
    target: tuple[Array, ...],
    sample_weight: Array | None,
    upper: Array,
    extra: float,
) -> Array | None:
    """Fits a single-problem ``model`` on ``x`` and ``target`` (none for OneClassSVM) with
    ``sample_weight`` by :func:`_fit_smo`, and returns the Gram matrix; ``upper`` holds the
    bounds of the dual variables and ``extra`` the size of the linear term (for
    :func:`_resolvable`). Weights that are all 0 must be refused (None is returned then); an
    ill-conditioned kernel or a problem unresolvable at the model's ``tol`` rejects the draw."""
    if sample_weight is not None and not np.any(sample_weight > 0):
        with pytest.raises(ValueError, match=SAMPLE_WEIGHT_ERROR):
            model.fit(x, *target, sample_weight=sample_weight)
        event("ValueError: every weight is 0")
        return None
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    assume(_resolvable(k, upper, model.tol, extra=extra))
    _fit_smo(model, reference, x, *target, sample_weight=sample_weight)
    return k


@_settings(max_examples=100)
@given(case=regression_cases(), nu=st.floats(0.01, 1.0))
def test_nu_svr_kkt(case: RegressionCase, nu: float) -> None:
    """ν-SVR: min ½βᵀKβ − zᵀβ over β = α − α*, Σα = Σα* = CνW/2, 0 ≤ α, α* ≤ C w. β alone
    does not give the split (α_i and α*_i are both positive when ε = 0), so the KKT
    conditions are checked in the primal form with the returned b and ε = ``epsilon_``:
    the tube conditions, Σβ = 0, Σ|β| ≤ CνW with equality when ε > 0, and ε ≥ 0 for ν < 1."""
    model = kernelkit.NuSVR(nu=nu, max_iter=MAX_ITER, **case.params())
    reference = sk_svm.NuSVR(nu=nu, **case.params())
    k = case.fit(model, reference, extra=np.abs(case.z).max())
    if k is None:
        return
    beta = case.checked_beta(model, model.epsilon_)
    total = case.c * nu * float(case.w.sum())
    assert abs(beta.sum()) <= 1e-9 * max(1.0, total)
    assert np.abs(beta).sum() <= total * (1 + 1e-9)
    slack = KKT_SLACK + _f32(k, beta)
    eps = float(model.epsilon_)
    tol = case.tol
    if nu < 1.0:
        # LIBSVM's dual has Σ(α + α*) = CνW as an equality, so ε is a free multiplier; for
        # ν < 1 the primal objective strictly decreases as ε < 0 grows to 0, so ε ≥ 0 at the
        # optimum (for ν = 1 it is flat there, and LIBSVM can return ε < 0)
        assert eps >= -(tol + 2 * slack), eps
    if eps > tol + 2 * slack:  # a tube of positive width: α_i α*_i = 0
        assert np.abs(beta).sum() == pytest.approx(total, rel=1e-9)
    case.assert_tube(model, k, beta, eps, tol + 2 * slack)


# --------------------------------------------------------------------------------------------
# OneClassSVM (extends test_kkt_and_invariants: every kernel, sample weights, duplicated rows,
# constant columns, extreme scales)
# --------------------------------------------------------------------------------------------
@_settings(max_examples=100)
@given(
    kernel=kernels(),
    data=st.data(),
    nu=st.floats(0.01, 1.0),
    tol=st.sampled_from([1e-3, 1e-5]),
    weighted=st.booleans(),
    sample_weight_values=WEIGHT_VALUES,
)
def test_one_class_kkt(
    kernel: KernelParams,
    data: st.DataObject,
    nu: float,
    tol: float,
    weighted: bool,
    sample_weight_values: list[float],
) -> None:
    x = data.draw(feature_matrices(n_min=1, max_exponent=max_exponent_for(kernel)))
    kp = kernel.resolve(x)
    n = len(x)
    w = np.asarray(sample_weight_values[:n]) if weighted else np.ones(n)
    model = kernelkit.OneClassSVM(nu=nu, tol=tol, max_iter=MAX_ITER, **kp.params())
    reference = sk_svm.OneClassSVM(nu=nu, tol=tol, **kp.params())
    k = _fit_weighted(model, reference, kp, x, (), w if weighted else None, w, 0.0)
    if k is None:
        return
    dec = model.decision_function(x)
    _finite(dec, model.dual_coef_, model.intercept_, model.objective_, model.kkt_gap_)
    assert set(np.unique(model.predict(x))) <= {-1, 1}
    _no_phantom_increases(model, x)
    assert 0.0 <= model.kkt_gap_ <= tol
    alpha = ocsvm_alpha(model, n)
    assert np.all(alpha >= 0) and np.all(alpha <= w * (1 + 1e-12))
    assert alpha.sum() == pytest.approx(nu * w.sum(), rel=1e-9)
    grad = k @ alpha
    slack = KKT_SLACK + _f32(k, alpha)
    kkt = kkt_residual(grad, np.ones(n), alpha, w, slack)
    assert kkt.within(tol), kkt
    intercept = float(model.intercept_[0])
    lo, hi = kkt.bias_interval(slack=kkt.slack + tol)  # widened by tol: see test_svc_kkt
    assert lo <= intercept <= hi, (lo, intercept, hi)
    np.testing.assert_allclose(dec, grad + intercept, rtol=1e-9, atol=1e-9 * _scale(grad))
