"""Independent NumPy oracles shared by the test modules, and the Clarabel solve of the cvxpy
oracles (:func:`solve_optimal`).

Everything here is computed from the *fitted attributes* of a model (scikit-learn layout), so
the same functions are applied to kernelkit's estimators and to scikit-learn's LIBSVM ones.
Nothing here imports kernelkit.

Conventions (scikit-learn's, which kernelkit promises to follow):

* binary SVC: ``dual_coef_[0, k] = s_k * alpha_k`` with ``s = +1`` for ``classes_[1]``, and the
  decision function ``sum_k dual_coef_[0, k] K(sv_k, x) + intercept_[0]`` is positive for
  ``classes_[1]``;
* multiclass SVC, pair ``(i, j)`` with ``i < j`` (pairs in the order (0,1), (0,2), ..., (1,2), ...):
  the coefficients of class ``i`` support vectors are in row ``j - 1``, those of class ``j`` in
  row ``i``, and the pair decision function (positive for class ``i``) has intercept
  ``intercept_[pair]``;
* SVR: ``dual_coef_[0] = beta = alpha - alpha*``; prediction ``K beta + intercept_``;
* OneClassSVM: ``dual_coef_[0] = alpha`` (``0 <= alpha_i <= 1``, ``sum alpha = nu * n``);
  ``decision_function = K alpha + intercept_``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from sklearn.metrics.pairwise import (
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)

if TYPE_CHECKING:
    import cvxpy as cp

Array = NDArray[np.float64]
# gram(rows, cols) -> K[rows][:, cols] (training indices)
Gram = Callable[[NDArray[np.intp], NDArray[np.intp]], Array]

# Slack added to ``tol`` when checking the KKT residual recomputed in float64. The solver's kernel
# cache holds float32 values, so its gradient G_i = sum_j Q_ij a_j differs from ours by at most
# about 2**-24 * sum_j |K_ij| |a_j| (one rounding per entry). Each residual therefore carries
# ``slack = KKT_SLACK + F32_FACTOR * max_i sum_j |K_ij| |a_j|`` (covering the two gradients of the
# violating pair and a couple of ulps of kernel arithmetic).
KKT_SLACK = 1e-5
F32_FACTOR = 4.0 * 2.0**-24


def kernel_function(
    kernel: str, *, gamma: float = 1.0, degree: int = 3, coef0: float = 0.0
) -> Callable[[Array, Array], Array]:
    """A NumPy kernel k(A, B) -> Gram matrix, from sklearn.metrics.pairwise."""
    if kernel == "rbf":
        return lambda a, b: rbf_kernel(a, b, gamma=gamma)
    if kernel == "linear":
        return lambda a, b: linear_kernel(a, b)
    if kernel == "poly":
        return lambda a, b: polynomial_kernel(a, b, degree=degree, gamma=gamma, coef0=coef0)
    if kernel == "sigmoid":
        return lambda a, b: sigmoid_kernel(a, b, gamma=gamma, coef0=coef0)
    raise AssertionError(f"no oracle for kernel {kernel!r}")


def gram_from_features(x: Array, kfun: Callable[[Array, Array], Array]) -> Gram:
    def gram(rows: NDArray[np.intp], cols: NDArray[np.intp]) -> Array:
        if len(rows) == 0 or len(cols) == 0:
            return np.zeros((len(rows), len(cols)))
        return np.asarray(kfun(x[rows], x[cols]), dtype=np.float64)

    return gram


def gram_from_matrix(k: Array) -> Gram:
    return lambda rows, cols: k[np.ix_(rows, cols)]


def f32_slack(k_rows_sv: Array, coef: Array) -> float:
    """Bound on the float32-cache gradient error: F32_FACTOR * max_i sum_j |K_ij| |coef_j|."""
    if k_rows_sv.size == 0:
        return 0.0
    return float(F32_FACTOR * np.max(np.abs(k_rows_sv) @ np.abs(coef)))


def gram_for(model: Any, x_train: Array) -> Gram:
    """Gram oracle matching a fitted model's kernel parameters (numeric gamma expected)."""
    kernel = model.kernel
    if kernel == "precomputed":
        return gram_from_matrix(np.asarray(x_train, dtype=np.float64))
    gamma = model.gamma
    if kernel == "linear":
        gamma = 1.0
    assert not isinstance(gamma, str), "tests must pass a numeric gamma"
    kfun = kernel_function(kernel, gamma=float(gamma), degree=model.degree, coef0=model.coef0)
    return gram_from_features(np.asarray(x_train, dtype=np.float64), kfun)


# --------------------------------------------------------------------------------------------
# generic KKT residual of   min 1/2 a'Qa + p'a   s.t. s'a = c, 0 <= a <= upper,   s in {+-1}
# --------------------------------------------------------------------------------------------
@dataclass
class Kkt:
    violation: float  # max_{I_up} -s G - min_{I_low} -s G   (LIBSVM's stopping quantity)
    m_up: float  # max over I_up of -s G
    m_low: float  # min over I_low of -s G
    slack: float = 0.0  # allowed excess over tol (float32 kernel cache, see KKT_SLACK)

    def within(self, tol: float) -> bool:
        return self.violation <= tol + self.slack

    def bias_interval(self, slack: float = 0.0) -> tuple[float, float]:
        """Interval that must contain the optimal bias b = -rho (any b with the KKT conditions)."""
        lo, hi = min(self.m_up, self.m_low), max(self.m_up, self.m_low)
        return lo - slack, hi + slack


def kkt_residual(grad: Array, s: Array, a: Array, upper: Array, slack: float = 0.0) -> Kkt:
    """LIBSVM's maximal-violating-pair residual, computed from the full gradient."""
    grad = np.asarray(grad, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    below_upper = a < upper * (1.0 - 1e-12)
    above_zero = a > 1e-12 * upper
    pos = s > 0
    i_up = (below_upper & pos) | (above_zero & ~pos)
    i_low = (below_upper & ~pos) | (above_zero & pos)
    msg = -s * grad
    m_up = float(np.max(msg[i_up])) if i_up.any() else -np.inf
    m_low = float(np.min(msg[i_low])) if i_low.any() else np.inf
    return Kkt(violation=max(m_up - m_low, 0.0), m_up=m_up, m_low=m_low, slack=slack)


# --------------------------------------------------------------------------------------------
# SVC
# --------------------------------------------------------------------------------------------
@dataclass
class SvcPair:
    """One binary sub-problem of a fitted SVC, expressed on training indices."""

    classes: tuple[int, int]  # indices into classes_ (positive class first)
    rows: NDArray[np.intp]  # training indices of the two classes
    s: Array  # +1 / -1 for each row (positive = decision > 0)
    alpha: Array  # alpha >= 0 for each row
    sv: NDArray[np.intp]  # training indices with nonzero coefficient
    coef: Array  # s * alpha on sv
    intercept: float


def svc_pairs(model: Any, y_train: NDArray[Any]) -> list[SvcPair]:
    """Decompose a fitted (sklearn-layout) SVC into its one-vs-one binary problems."""
    classes = np.asarray(model.classes_)
    y_train = np.asarray(y_train)
    n_classes = len(classes)
    support = np.asarray(model.support_, dtype=np.intp)
    dual = np.asarray(model.dual_coef_, dtype=np.float64)
    intercept = np.asarray(model.intercept_, dtype=np.float64)
    n_support = np.asarray(model.n_support_)
    assert n_support.sum() == len(support)
    assert dual.shape == (n_classes - 1, len(support))
    starts = np.concatenate([[0], np.cumsum(n_support)])
    pairs = []
    k = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            sl_i = slice(starts[i], starts[i + 1])
            sl_j = slice(starts[j], starts[j + 1])
            sv = np.concatenate([support[sl_i], support[sl_j]])
            coef = np.concatenate([dual[j - 1, sl_i], dual[i, sl_j]])
            if n_classes == 2:
                # sklearn flips the binary problem: positive decision = classes_[1]
                pos, neg = 1, 0
            else:
                pos, neg = i, j
            rows = np.flatnonzero((y_train == classes[i]) | (y_train == classes[j]))
            s = np.where(y_train[rows] == classes[pos], 1.0, -1.0)
            alpha = np.zeros(len(rows))
            where = np.searchsorted(rows, sv)
            assert np.array_equal(rows[where], sv), "support vector outside its pair"
            alpha[where] = np.abs(coef)
            nz = coef != 0
            # sign convention: coefficient = s * alpha
            assert np.all(np.sign(coef[nz]) == s[where][nz]), "dual_coef_ sign convention"
            keep = coef != 0
            pairs.append(
                SvcPair(
                    classes=(pos, neg),
                    rows=rows,
                    s=s,
                    alpha=alpha,
                    sv=sv[keep],
                    coef=coef[keep],
                    intercept=float(intercept[k]),
                )
            )
            k += 1
    return pairs


def svc_dual_objective(pair: SvcPair, gram: Gram) -> float:
    """1/2 c'Kc - sum|c| among support vectors (LIBSVM minimisation form)."""
    k = gram(pair.sv, pair.sv)
    return float(0.5 * pair.coef @ k @ pair.coef - np.abs(pair.coef).sum())


def svc_upper(
    model: Any, y_train: NDArray[Any], c: float, sample_weight: Array | None = None
) -> Array:
    """Per-sample upper bound C_i = C * class_weight_[y_i] * sample_weight_i."""
    classes = np.asarray(model.classes_)
    cw = np.asarray(getattr(model, "class_weight_", np.ones(len(classes))), dtype=np.float64)
    idx = np.searchsorted(classes, np.asarray(y_train))
    upper = c * cw[idx]
    if sample_weight is not None:
        upper = upper * np.asarray(sample_weight, dtype=np.float64)
    return upper


def svc_pair_kkt(pair: SvcPair, gram: Gram, upper_all: Array) -> Kkt:
    k = gram(pair.rows, pair.sv)
    f = k @ pair.coef
    grad = pair.s * f - 1.0
    slack = KKT_SLACK + f32_slack(k, pair.coef)
    return kkt_residual(grad, pair.s, pair.alpha, upper_all[pair.rows], slack)


# --------------------------------------------------------------------------------------------
# SVR
# --------------------------------------------------------------------------------------------
def svr_beta(model: Any, n: int) -> Array:
    beta = np.zeros(n)
    beta[np.asarray(model.support_)] = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    return beta


def svr_dual_objective(model: Any, gram: Gram, y_train: Array, epsilon: float) -> float:
    sv = np.asarray(model.support_, dtype=np.intp)
    b = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    k = gram(sv, sv)
    return float(0.5 * b @ k @ b + epsilon * np.abs(b).sum() - np.asarray(y_train)[sv] @ b)


def svr_kkt(model: Any, gram: Gram, y_train: Array, c: float, epsilon: float) -> Kkt:
    y = np.asarray(y_train, dtype=np.float64)
    n = len(y)
    sv = np.asarray(model.support_, dtype=np.intp)
    b = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    k = gram(np.arange(n), sv)
    kb = k @ b
    a = np.concatenate([np.maximum(b, 0.0), np.maximum(-b, 0.0)])
    a_full = np.zeros(2 * n)
    a_full[sv] = a[: len(sv)]
    a_full[n + sv] = a[len(sv) :]
    s = np.concatenate([np.ones(n), -np.ones(n)])
    grad = np.concatenate([kb + epsilon - y, -kb + epsilon + y])
    slack = KKT_SLACK + f32_slack(k, b)
    return kkt_residual(grad, s, a_full, np.full(2 * n, c), slack)


# --------------------------------------------------------------------------------------------
# One-class SVM
# --------------------------------------------------------------------------------------------
def ocsvm_alpha(model: Any, n: int) -> Array:
    a = np.zeros(n)
    a[np.asarray(model.support_)] = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    return a


def ocsvm_dual_objective(model: Any, gram: Gram) -> float:
    sv = np.asarray(model.support_, dtype=np.intp)
    a = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    return float(0.5 * a @ gram(sv, sv) @ a)


def ocsvm_kkt(model: Any, gram: Gram, n: int, upper: Array | None = None) -> Kkt:
    sv = np.asarray(model.support_, dtype=np.intp)
    a_sv = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    k = gram(np.arange(n), sv)
    grad = k @ a_sv
    ub = np.ones(n) if upper is None else np.asarray(upper, dtype=np.float64)
    slack = KKT_SLACK + f32_slack(k, a_sv)
    return kkt_residual(grad, np.ones(n), ocsvm_alpha(model, n), ub, slack)


# --------------------------------------------------------------------------------------------
# comparisons
# --------------------------------------------------------------------------------------------
def rel_diff(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(a), abs(b))


def assert_reported_objective(
    reported: Any, recomputed: float, gram: Gram, sv: NDArray[np.intp], coef: Array, *context: Any
) -> None:
    """The solver's own objective ``reported`` equals the float64 recomputation up to 1e-6
    relative or the bound on the error of the objective evaluated with a float32 kernel cache
    (the solver computes ``objective_`` from its cache), whichever is larger: with ``c`` the
    coefficients ``coef`` of the support vectors ``sv``, F32_FACTOR * 1/2 |c|' |K| |c|.
    ``context`` goes into the assertion's message."""
    f32_slack = 0.0
    if len(sv) > 0:
        c = np.abs(np.asarray(coef, dtype=np.float64))
        f32_slack = float(F32_FACTOR * 0.5 * c @ np.abs(gram(sv, sv)) @ c)
    allowed = max(1e-6 * max(1.0, abs(recomputed)), f32_slack)
    reported = float(reported)
    assert abs(reported - recomputed) <= allowed, (*context, reported, recomputed, allowed)


def row_groups(x: Array) -> NDArray[np.intp]:
    """Group id of every training row: identical rows share a group.

    With duplicated rows (a9a has hundreds) the dual solution is not unique: only the total
    coefficient of a group of identical points is determined, so support sets are compared per
    group.
    """
    _, inverse = np.unique(np.asarray(x), axis=0, return_inverse=True)
    return np.asarray(inverse, dtype=np.intp).ravel()


def support_mismatch(
    alpha_a: Array,
    alpha_b: Array,
    upper: Array,
    bound_tol: float,
    groups: NDArray[np.intp] | None = None,
) -> NDArray[np.intp]:
    """Indices (of groups of identical rows, if ``groups`` is given) where one model has a
    support vector and the other does not, excluding points whose nonzero alpha is within
    ``bound_tol * upper`` of 0 or of the bound (ambiguous)."""
    alpha_a = np.abs(np.asarray(alpha_a, dtype=np.float64))
    alpha_b = np.abs(np.asarray(alpha_b, dtype=np.float64))
    upper = np.asarray(upper, dtype=np.float64)
    if groups is not None:
        alpha_a = np.bincount(groups, weights=alpha_a)
        alpha_b = np.bincount(groups, weights=alpha_b)
        upper = np.bincount(groups, weights=upper)
    sv_a = alpha_a != 0
    sv_b = alpha_b != 0
    differ = np.flatnonzero(sv_a != sv_b)
    a = np.maximum(alpha_a[differ], alpha_b[differ])
    u = upper[differ]
    ambiguous = (a <= bound_tol * u) | (a >= u * (1.0 - bound_tol))
    return differ[~ambiguous]


def agreement(a: NDArray[Any], b: NDArray[Any]) -> float:
    return float(np.mean(np.asarray(a) == np.asarray(b)))


def solve_optimal(problem: cp.Problem, tol: float, **options: Any) -> None:
    """Solves a cvxpy ``problem`` by Clarabel at the gap and feasibility tolerances ``tol``
    (and Clarabel's ``options``, such as ``tol_ktratio`` or ``max_iter``); it must end
    OPTIMAL. (cvxpy is imported here, not by every test module that reads this one.)"""
    import cvxpy

    problem.solve(solver=cvxpy.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, **options)
    assert problem.status == cvxpy.OPTIMAL, problem.status


def pairwise_coupling(pairwise: Array, k: int) -> Array:
    """Wu, Lin & Weng's method 2 solved directly: for each row, the minimiser of ``pᵀQp``
    subject to ``Σ p = 1`` (``Q_tt = Σ_{s≠t} r_st²``, ``Q_ts = −r_st r_ts``, with
    ``r_ab = P(a | a or b)`` in column ``(a, b)``, ``a < b``, of ``pairwise`` and
    ``r_ba = 1 − r_ab``) from its KKT system ``[Q 1; 1ᵀ 0] [p; μ] = [0; 1]``. The system is
    regular whenever ``Q`` is positive definite on ``Σ p = 0``, which holds even where pair
    probabilities are exactly 0 or 1 (``Q`` is then singular only along the sure winner's
    ``e_t``). Wu, Lin & Weng show the constraint ``p ≥ 0`` is then inactive; the caller checks
    it."""
    n = pairwise.shape[0]
    r = np.zeros((n, k, k))
    column = 0
    for a in range(k):
        for b in range(a + 1, k):
            r[:, a, b] = pairwise[:, column]
            r[:, b, a] = 1.0 - pairwise[:, column]
            column += 1
    system = np.zeros((n, k + 1, k + 1))
    system[:, :k, :k] = -r.transpose(0, 2, 1) * r
    system[:, np.arange(k), np.arange(k)] = (r * r).sum(axis=1)
    system[:, :k, k] = 1.0
    system[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1, 1))
    rhs[:, k, 0] = 1.0
    solution: Array = np.linalg.solve(system, rhs)[:, :k, 0]
    return solution
