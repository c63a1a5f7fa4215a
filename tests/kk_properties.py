"""Shared infrastructure of the property-based tests (hypothesis) of every estimator on small
adversarial problems: the settings, strategies, filters and checks of ``test_properties_*.py``.

Each test draws a small data set (1–40 rows, 1–5 columns, with duplicated rows, constant
columns, labels at random or by quantiles, column scales from 1e-102 to 1e102) and valid
hyperparameters, fits, and asserts that the fit

* does not raise, except a documented ``ValueError`` for a legitimately invalid input, which the
  test then requires: a class whose rows all have weight 0; ν above 2 min(W₊, W₋)/W; a ν-SVC
  optimum with scale r ≤ 0 (accepted only where cvxpy finds r* ≤ τ, or K is indefinite); KLR's
  bound_eps ≥ C/2 or an infeasible γ-box; CVM with a non-constant k(x, x); infeasible
  ConstrainedSVR constraints;
* returns finite fitted attributes, decision values and predictions;
* returns a solution that satisfies its optimality conditions, recomputed here in NumPy from the
  fitted attributes and a float64 kernel matrix (never from the solver's own report alone):

  - SMO family (SVC, NuSVC, SVR, NuSVR, OneClassSVM): the dual variables in their box, the
    equality constraints (one per class for the ν forms), the maximal violating pair gap ≤ tol
    (+ the float32-cache slack of ``kk_oracles``), and the intercept where the KKT conditions
    put it (SVR / NuSVR also through the ε-tube conditions with ``intercept_``, ``epsilon_``);
  - PUClassifier: USMO's four conditions (C1)–(C4) ≤ τ, the bias interval (digest 000 §2.3) and
    Φ(σ) − Φ* ≤ gap·‖σ − σ*‖₁/2 against cvxpy + Clarabel;
  - FrankWolfeSVC / MEBClassifier: α on the simplex, b = Σα_i y_i, the Frank–Wolfe certificate
    2(R − min K̃α) ≤ ε′ r² (digest 002, eq. 37) and the bound (1 − ε′) g* ≤ g(α) ≤ g* against
    the certified cvxpy + Clarabel optimum (``kk_frank_wolfe``);
  - ConstrainedSVR: dual feasibility, the GSMO violation Δ ≤ tol recomputed from θ, the
    duality-gap certificate P + f ≤ Δ(2Cn + ‖γ‖₁ + ‖μ‖₁) (derived in the test), and the
    cvxpy + Clarabel optimum P* inside [−f(θ), −f(θ) + that bound];
  - SparseKernelLogisticRegression: the γ-box, Σα_i y_i = 0, the KKT gap of (27) ≤ tol, the
    bias interval, and f(α) − f* ≤ gap·‖α − α*‖₁/2 against cvxpy + Clarabel (digest 004);
  - AIDRegressor / AIDClassifier: lower_bound_ ≤ E* ≤ objective_ against an exact LP (HiGHS)
    or a LIBSVM bracket, objective_ ≤ E*/(1 − tol) when AID claims "optimal" or "gap", and
    pure clusters at "optimal" (digest 001, Prop. 1 / 3);
  - AIDSemiSupervisedClassifier (a heuristic, digest 001 warning 1): the recomputed objective,
    the weak lower bound against the labeled-only SVM, and E^T = F^T with pure clusters at a
    "pure" stop.

Filtered out with ``hypothesis.assume`` (see each helper's docstring): kernel arguments γ‖x‖²
too large to compute the kernel accurately (``_well_conditioned``), gradients too large for
float64 to resolve tol (``_resolvable``), degenerate problems on which LIBSVM itself needs more
than MAX_ITER iterations (``_fit_smo``), and the inputs of the known bugs (strict xfail tests
with minimal repros in ``test_properties_regressions.py``). Every test is deterministic
(``derandomize=True``); ``KK_HYPOTHESIS_EXPLORE=k`` runs k times more random examples (and
reports examples slower than 5 s) when hunting for bugs.

The tests: ``test_properties_smo.py`` (SVC, NuSVC, SVR, NuSVR, OneClassSVM),
``test_properties_solvers.py`` (PUClassifier, FrankWolfeSVC / MEBClassifier, ConstrainedSVR,
SparseKernelLogisticRegression), ``test_properties_aid.py`` (AIDRegressor, AIDClassifier,
AIDSemiSupervisedClassifier) and ``test_properties_regressions.py`` (the minimal repros). The
helpers keep their underscore names (``_settings``, ``_resolvable``, …) from when this was one
module: a derandomized test's seed is a hash of its source, so renaming a helper that a test
calls would change the examples the test draws.

Oracles: ``kk_oracles.py`` (SMO family), ``kk_frank_wolfe.py``, ``kk_constrained_svr.py``,
``kk_klr.py``, ``kk_aid.py``, ``kk_aid_fits.py``. Digests: ``shared/papers/``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np
from hypothesis import HealthCheck, event, reject, settings
from hypothesis import strategies as st
from kk_aid import hinge
from kk_oracles import kernel_function
from numpy.typing import NDArray
from sklearn import svm as sk_svm

from kernelkit import ConvergenceWarning

Array = NDArray[np.float64]
Draw = Callable[..., Any]
T = TypeVar("T")

# --------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------
_EXPLORE = int(os.environ.get("KK_HYPOTHESIS_EXPLORE", "0"))


def _settings(max_examples: int) -> Callable[[Any], Any]:
    """Deterministic settings for CI (``derandomize``, no deadline); ``KK_HYPOTHESIS_EXPLORE``
    multiplies the examples, draws them at random and fails examples slower than 5 s."""
    return settings(
        max_examples=max_examples * max(1, _EXPLORE),
        deadline=5000 if _EXPLORE else None,  # exploring: report examples slower than 5 s
        derandomize=not _EXPLORE,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        print_blob=True,
    )


# A safety net: the solvers have no iteration limit by default (like scikit-learn's LIBSVM),
# so a fit that cannot reach ``tol`` would never return. Reaching it fails the test (the status
# must be "converged"), unless LIBSVM also needs that many iterations (``_fit_smo``).
MAX_ITER = 1_000_000

# A class without a sample of positive weight (scikit-learn's check when every weight is 0).
SAMPLE_WEIGHT_ERROR = r"(?i)sample.?weight"

# ``_resolvable``: the largest gradient magnitude for which a float64 solver with a float32
# kernel cache can resolve ``tol`` (see there).
GRADIENT_LIMIT = 1e6


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
@st.composite
def feature_matrices(
    draw: Draw,
    *,
    n_min: int = 2,
    n_max: int = 40,
    d_max: int = 5,
    max_exponent: int = 100,
) -> Array:
    """An n×d matrix, n ∈ [n_min, n_max], d ∈ [1, d_max]: rows drawn (with repetition, so rows
    are duplicated) from a pool of distinct rows; some columns made constant; each column
    scaled by 10^(e + e_j), e ∈ [−100, max_exponent], e_j ∈ [−2, 2]."""
    n = draw(st.integers(n_min, n_max))
    d = draw(st.integers(1, d_max))
    n_pool = draw(st.integers(1, n))
    values = st.floats(-1.0, 1.0, allow_nan=False, width=32)
    pool = np.array(
        draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n_pool, max_size=n_pool)),
        dtype=np.float64,
    ).reshape(n_pool, d)
    picks = draw(st.lists(st.integers(0, n_pool - 1), min_size=n, max_size=n))
    x = pool[np.asarray(picks, dtype=np.intp)]
    constant = draw(st.lists(st.booleans(), min_size=d, max_size=d))
    for j, is_constant in enumerate(constant):
        if is_constant:
            x[:, j] = draw(values)
    # moderate scales half of the time (tiny ones make every kernel constant: degenerate)
    exponent = draw(
        st.one_of(st.integers(-3, min(3, max_exponent)), st.integers(-100, max_exponent))
    )
    column_exponents = np.asarray(draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d)))
    return np.ascontiguousarray(x * 10.0 ** (exponent + column_exponents))


def labels(draw: Draw, n: int, n_classes: int) -> NDArray[np.int64]:
    """Labels 0..n_classes−1, every class present (the first rows get 0, 1, …)."""
    y = np.asarray(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    y[:n_classes] = np.arange(n_classes)
    return y.astype(np.int64)


def log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    """10^e with e uniform in [log10 low, log10 high] (and the end points)."""
    return st.floats(np.log10(low), np.log10(high)).map(lambda e: float(10.0**e))


@dataclass(frozen=True)
class KernelParams:
    """A kernel as passed to an estimator (``gamma_param``: a float or ``"scale"``) and its
    ``gamma`` resolved on the training data by scikit-learn's rule, computed here."""

    kernel: str
    gamma_param: float | str
    degree: int
    coef0: float
    gamma: float = 1.0

    def params(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "gamma": self.gamma_param,
            "degree": self.degree,
            "coef0": self.coef0,
        }

    def guaranteed_psd(self) -> bool:
        """Whether every Gram matrix of the kernel is positive semidefinite (linear, RBF,
        polynomial with coef0 ≥ 0 or degree 0; not sigmoid): the rule AID and sparse KLR
        certify by, checked independently in the kernels crate's tests."""
        if self.kernel == "sigmoid":
            return False
        return not (self.kernel == "poly" and self.coef0 < 0 and self.degree != 0)

    def resolve(self, x: Array) -> KernelParams:
        gamma = self.gamma_param
        if gamma == "scale":
            variance = float(x.var())
            gamma = 1.0 / (x.shape[1] * variance) if variance != 0 else 1.0
        return replace(self, gamma=float(gamma))

    def argument_scale(self, x: Array) -> float:
        """γ·max‖x‖² (‖x‖² for the linear kernel): the size of the kernel's argument."""
        gamma = 1.0 if self.kernel == "linear" else self.gamma
        with np.errstate(all="ignore"):
            return float(gamma * np.max(np.sum(x * x, axis=1)))

    def gram(self, a: Array, b: Array | None = None) -> Array:
        """K(a, b) in float64; RBF from the differences (exact for identical rows)."""
        b = a if b is None else b
        with np.errstate(all="ignore"):
            if self.kernel == "rbf":
                sq = np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
                return np.asarray(np.exp(-self.gamma * sq), dtype=np.float64)
            kfun = kernel_function(
                self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0
            )
            return np.asarray(kfun(a, b), dtype=np.float64)


@st.composite
def kernels(draw: Draw, names: tuple[str, ...] = ("linear", "rbf", "poly", "sigmoid")) -> Any:
    return KernelParams(
        kernel=draw(st.sampled_from(names)),
        gamma_param=draw(st.one_of(log_uniform(0.01, 10.0), st.just("scale"))),
        degree=draw(st.integers(1, 3)),
        coef0=draw(st.floats(-1.0, 1.0)),
    )


def max_exponent_for(kp: KernelParams) -> int:
    """Large scales only with ``gamma="scale"`` (which adapts to them) and a kernel other than
    the linear one: otherwise they make kernel arguments that ``_well_conditioned`` filters
    out, so they are not drawn."""
    return 100 if kp.gamma_param == "scale" and kp.kernel != "linear" else 3


@st.composite
def classification_problems(draw: Draw, max_classes: int = 4) -> Any:
    kp = draw(kernels())
    x = draw(feature_matrices(max_exponent=max_exponent_for(kp)))
    kp = kp.resolve(x)
    n_classes = draw(st.integers(2, min(max_classes, len(x))))
    if draw(st.booleans()):
        y = labels(draw, len(x), n_classes)
    else:  # classes by quantiles of a projection (separable up to ties and duplicates)
        order = np.argsort(x @ np.linspace(1.0, -0.5, x.shape[1]), kind="stable")
        y = np.empty(len(x), dtype=np.int64)
        y[order] = np.arange(len(x)) * n_classes // len(x)
    return kp, x, y


# The largest kernel argument γ·max‖x‖² accepted (see ``_well_conditioned``).
ARGUMENT_LIMIT = 1e6


def _well_conditioned(kp: KernelParams, x: Array) -> bool:
    """Whether the kernel values can be computed accurately from x.

    The RBF kernel is computed as exp(−γ(‖x‖² + ‖z‖² − 2⟨x, z⟩)) (kernelkit, LIBSVM and
    scikit-learn alike), whose argument carries an absolute rounding error ≈ 2⁻⁵² γ‖x‖²: once
    γ‖x‖² ≳ 1e13 the values of near-identical rows are meaningless, in every implementation
    (the dot-product kernels lose accuracy the same way), and the oracles' NumPy kernels with
    them. Such (γ, X) pairs are filtered out: γ‖x‖² ≤ 1e6 keeps the error below ~1e-9.
    (kernelkit's core recomputes such RBF values from the rows' differences, ``rbf_expansion.rs``;
    ``test_rbf_kernel_of_identical_rows_is_one`` in ``test_properties_regressions.py``.)
    """
    return kp.argument_scale(x) <= ARGUMENT_LIMIT


def _resolvable(k: Array, weight: Array, tol: float, extra: float = 1.0) -> bool:
    """Whether a dual solver can reach ``tol`` on this problem in float64 arithmetic.

    The dual gradient is G = Q a + p with |G_i| ≤ extra + Σ_j |K_ij| weight_j (weight: the
    upper bounds of the dual variables; ``extra`` bounds |p|). Its float64 rounding is
    ≈ 2⁻⁵² |G| per update and the float32 kernel cache adds 2⁻²⁴ Σ_j |K_ij| a_j: once |G| is
    ~1e10 the maximal violating pair gap cannot be resolved to ``tol`` = 1e-3 at all and the
    solver iterates forever (so does LIBSVM: scikit-learn's SVC on ``x * 1e10`` with a linear
    kernel never returns). Such problems (huge linear or polynomial kernel values, huge C) are
    legitimately unsolvable at this ``tol`` and are filtered out. GRADIENT_LIMIT = 1e6 (scaled
    with ``tol``) keeps the float32 slack of the KKT checks (≈ 2.4e-7 |G|) near ``tol``.
    """
    if not np.all(np.isfinite(k)):
        return False
    bound = extra + (float(np.max(np.abs(k) @ np.abs(weight))) if k.size else 0.0)
    return bound * max(1.0, 1e-3 / tol) <= GRADIENT_LIMIT


def _finite(*values: Any) -> None:
    for v in values:
        a = np.asarray(v, dtype=np.float64)
        assert np.all(np.isfinite(a)), f"non-finite values: {a}"


def _oracle(solve: Callable[[], T]) -> T | None:
    """An oracle's answer, or None when cvxpy + Clarabel cannot solve or certify the problem
    (the ``kk_*`` oracles assert their own status; ill-conditioned draws make Clarabel stop
    "optimal_inaccurate"): the comparison is then skipped, the oracle-free checks stand."""
    try:
        return solve()
    except AssertionError:
        event("oracle failed: comparison skipped")
        return None


def _fit_smo(
    model: Any, reference: Any | None, *args: Any, stalls_at: int = MAX_ITER, **kwargs: Any
) -> None:
    """Fits an estimator of the LIBSVM family and requires status "converged". The one excuse
    is LIBSVM itself: when kernelkit stops at MAX_ITER, ``reference`` (the scikit-learn
    estimator of the same problem) is fitted too, and the example is discarded only if LIBSVM
    also needs MAX_ITER iterations (degenerate problems where both take ~1e6 steps of tiny
    progress: kernelkit reproduces LIBSVM's iterates, so it stalls where LIBSVM does). A solver
    that does not reproduce LIBSVM's iterates passes a lower ``stalls_at``: LIBSVM must then
    need that many iterations (the same slow regime)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(*args, **kwargs)
    statuses = [str(s) for s in np.ravel(np.asarray(model.status_, dtype=object))]
    if "max_iterations" in statuses and reference is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference.set_params(max_iter=MAX_ITER).fit(*args, **kwargs)
        assert np.max(reference.n_iter_) >= stalls_at, (
            f"kernelkit needs more than {MAX_ITER} iterations, LIBSVM {reference.n_iter_}"
        )
        reject()
    assert statuses == ["converged"] * len(statuses), statuses


# --------------------------------------------------------------------------------------------
# checks shared by the test files
# --------------------------------------------------------------------------------------------
def _svc_decision_checks(model: Any, x: Array, y: NDArray[Any]) -> None:
    dec = model.decision_function(x)
    pred = model.predict(x)
    _finite(dec, model.dual_coef_, model.intercept_, model.objective_, model.kkt_gap_)
    assert set(np.unique(pred)) <= set(model.classes_)
    if len(model.classes_) == 2:
        # predict and decision_function agree (positive: classes_[1])
        np.testing.assert_array_equal(pred[dec > 0], model.classes_[1])
        np.testing.assert_array_equal(pred[dec < 0], model.classes_[0])


def _is_psd(k: Array) -> bool:
    """K positive semi-definite up to rounding (the cvxpy oracles need a convex problem; the
    sigmoid kernel and the polynomial one with coef0 < 0 can be indefinite)."""
    if k.size == 0:
        return True
    w = np.linalg.eigvalsh(0.5 * (k + k.T))
    return bool(w.min() >= -1e-10 * max(1.0, float(np.abs(w).max())))


def _scale(*arrays: Array) -> float:
    return max([1.0] + [float(np.abs(a).max()) for a in arrays if np.size(a)])


def _svm_bracket(k: Array, s: Array, c: float, weight: Array | None = None) -> tuple[float, float]:
    """[dual, primal] around the optimum E* of ½‖w‖² + Σ C_i hinge(s_i f_i) (C_i = C·weight_i):
    scikit-learn's LIBSVM on the precomputed kernel at tol 1e-10, both values recomputed in
    NumPy from its α (as ``kk_aid.svc_reference``, for any kernel matrix). LIBSVM can need
    ~5e8 iterations at this tol on degenerate draws, so it is capped at 1e5: every iterate is
    dual feasible, so [dual, primal] still brackets E*, only less tightly."""
    ci = c * (np.ones(len(s)) if weight is None else weight)
    ref = sk_svm.SVC(C=1.0, kernel="precomputed", tol=1e-10, cache_size=500, max_iter=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning at the cap
        ref.fit(k, s, sample_weight=ci)
    sv = np.asarray(ref.support_, dtype=np.intp)
    coef = np.asarray(ref.dual_coef_, dtype=np.float64)[0]
    f = k[:, sv] @ coef + float(ref.intercept_[0])
    quad = float(coef @ k[np.ix_(sv, sv)] @ coef)
    primal = 0.5 * quad + float(np.sum(ci * hinge(s * f)))
    dual = float(np.abs(coef).sum()) - 0.5 * quad
    return dual, primal
