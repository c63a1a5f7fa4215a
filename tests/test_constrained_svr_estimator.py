"""ConstrainedSVR (seed paper 003) as a scikit-learn estimator: prediction, the constraint
matrices it builds, parameter and data validation, infeasible constraint sets, degenerate
inputs, stopping (max_iter, callback), persistence and input types.

Asserted here:

* predict(X) = X coef_ + intercept_ and score is R²;
* the named constraints produce the documented A_, b_, Gamma_, d_ (CSR), built independently
  with NumPy; user constraints are stacked after the named ones and the stacked problem is
  solved (cvxpy + Clarabel oracle); b and d default to zeros; sparse A equals dense A;
* bad parameters and bad data raise ValueError / TypeError naming the parameter; an infeasible
  polyhedron {Aβ ≤ b, Γβ = d} raises a ValueError mentioning "infeasible";
* duplicate rows (η = 0) give finite results equal to the QP's; ν = 1 with a tiny C on the
  simplex tends to the min-norm feasible point e/p (digest §5.7);
* max_iter = 1 and a callback returning True stop with the documented status and a
  ConvergenceWarning, at a feasible dual point;
* pickle, sklearn.base.clone, float32 / int / sparse X, and scikit-learn's estimator checks.

Helpers and the oracle: ``kk_constrained_svr.py``. Digest:
``shared/papers/seed-003-svr-constraints.md``.
"""

from __future__ import annotations

import pickle
import time
import warnings
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from kk_constrained_svr import (
    FITTED,
    Array,
    Constraints,
    assert_dual_feasible,
    constraint_violation,
    difference_matrix,
    dual_objective,
    general_constraints,
    make_problem,
    named_constraints,
    qp_reference,
    stack,
)
from kk_estimators import (
    assert_same_attributes,
    fit_converged,
    fit_stopped_by_callback,
    raises_naming,
    unfitted_clone,
)
from sklearn.metrics import r2_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit import ConstrainedSVR, ConvergenceWarning

NAMES = ["nonnegative", "simplex", "increasing", "decreasing"]
P = 5


def data(n: int = 50, p: int = P, seed: int = 0, kind: str = "none") -> tuple[Array, Array]:
    return make_problem(kind, n, p, seed)


def fitted_constraints(model: ConstrainedSVR) -> Constraints:
    """(A_, b_, Gamma_, d_) of a fitted model, dense; A_ and Gamma_ must be CSR matrices."""
    for name in ("A_", "Gamma_"):
        m = getattr(model, name)
        assert sp.issparse(m) and m.format == "csr", f"{name} is not CSR: {type(m)}"
    return Constraints(
        np.asarray(model.A_.toarray(), dtype=np.float64),
        np.asarray(model.b_, dtype=np.float64),
        np.asarray(model.Gamma_.toarray(), dtype=np.float64),
        np.asarray(model.d_, dtype=np.float64),
    )


def assert_same_constraints(got: Constraints, expected: Constraints) -> None:
    assert got.A.shape == expected.A.shape, (got.A.shape, expected.A.shape)
    assert got.G.shape == expected.G.shape, (got.G.shape, expected.G.shape)
    np.testing.assert_array_equal(got.A, expected.A)
    np.testing.assert_array_equal(got.b, expected.b)
    np.testing.assert_array_equal(got.G, expected.G)
    np.testing.assert_array_equal(got.d, expected.d)


def assert_matches_qp(
    model: ConstrainedSVR, x: Array, y: Array, cons: Constraints, key: Any
) -> None:
    """coef_ = the Clarabel β to 1e-6 relative; constraints within tol."""
    qp = qp_reference(key, x, y, cons, model.C, model.nu)
    err = np.max(np.abs(model.coef_ - qp.beta)) / max(1.0, float(np.max(np.abs(qp.beta))))
    assert err <= 1e-6, f"‖β − β_QP‖∞ = {err:.3e}"
    ineq, eq = constraint_violation(cons, np.asarray(model.coef_))
    assert ineq <= model.tol + 1e-12 and eq <= model.tol + 1e-12, (ineq, eq)


# --------------------------------------------------------------------------------------------
# prediction
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("constraint", [None, *NAMES])
def test_predict_is_linear_and_score_is_r2(constraint: str | None) -> None:
    x, y = data(seed=1, kind=constraint or "none")
    model = fit_converged(ConstrainedSVR(C=0.5, nu=0.4, constraint=constraint, tol=1e-6), x, y)
    x_test, y_test = data(n=30, seed=2, kind=constraint or "none")
    expected = x_test @ np.asarray(model.coef_) + model.intercept_
    np.testing.assert_allclose(model.predict(x_test), expected, rtol=0, atol=1e-12)
    assert model.score(x_test, y_test) == pytest.approx(r2_score(y_test, expected), abs=1e-12)
    assert isinstance(model.intercept_, float) and isinstance(model.epsilon_, float)
    assert not hasattr(model, "history_"), "history_ without record_history=True"
    assert model.n_features_in_ == P
    with pytest.raises(ValueError, match=r"(?i)features"):
        model.predict(x_test[:, :-1])


@parametrize_with_checks([ConstrainedSVR(), ConstrainedSVR(constraint="simplex")])
def test_sklearn_estimator_checks(estimator: Any, check: Any) -> None:
    """scikit-learn's estimator contract (clone, fit/predict shapes, idempotence, ...)."""
    check(estimator)


# --------------------------------------------------------------------------------------------
# the constraint matrices
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("constraint", [None, *NAMES])
def test_named_constraint_matrices(constraint: str | None) -> None:
    """A_, b_, Gamma_, d_ are the documented matrices (none: 0 rows), and the fit obeys them."""
    x, y = data(seed=3, kind=constraint or "none")
    model = fit_converged(ConstrainedSVR(C=0.5, nu=0.5, constraint=constraint, tol=1e-8), x, y)
    got = fitted_constraints(model)
    assert_same_constraints(got, named_constraints(constraint, P))
    assert model.dual_gamma_.shape == (got.k1,) and model.dual_mu_.shape == (got.k2,)
    assert_matches_qp(model, x, y, got, ("named", constraint))


def test_difference_matrix_is_the_documented_d() -> None:
    """The helper's D (rows e_iᵀ − e_{i+1}ᵀ) written out for p = 4."""
    expected = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 1.0, -1.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    np.testing.assert_array_equal(difference_matrix(4), expected)
    beta = np.array([0.1, 0.2, 0.2, 0.5])
    assert np.all(difference_matrix(4) @ beta <= 0)  # increasing ⇔ Dβ ≤ 0


def test_user_constraints_are_stacked_after_the_named_ones() -> None:
    """simplex + user A, b, Γ, d: A_ = [−I; A], Γ_ = [1ᵀ; Γ]; the stacked problem is solved."""
    p = 6
    x, y = data(n=80, p=p, seed=4, kind="simplex")
    rng = np.random.default_rng(4)
    A = rng.normal(size=(2, p))
    feasible = np.full(p, 1.0 / p)
    b = A @ feasible + np.array([0.0, 0.05])
    G = np.zeros((1, p))
    G[0, :2] = [1.0, -1.0]  # β_1 = β_2
    d = np.zeros(1)
    model = fit_converged(
        ConstrainedSVR(C=0.2, nu=0.5, constraint="simplex", A=A, b=b, Gamma=G, d=d, tol=1e-8),
        x,
        y,
    )
    expected = stack(named_constraints("simplex", p), Constraints(A, b, G, d))
    got = fitted_constraints(model)
    assert_same_constraints(got, expected)
    assert model.dual_gamma_.shape == (p + 2,) and model.dual_mu_.shape == (2,)
    assert_matches_qp(model, x, y, expected, ("stacked", 4))
    assert abs(model.coef_[0] - model.coef_[1]) <= 1e-8


@pytest.mark.parametrize("constraint", ["nonnegative", None])
def test_b_and_d_default_to_zero(constraint: str | None) -> None:
    """A without b means Aβ ≤ 0; Γ without d means Γβ = 0."""
    p = 4
    x, y = data(n=60, p=p, seed=5)
    A = np.array([[1.0, 1.0, 0.0, 0.0]])  # β_1 + β_2 ≤ 0
    G = np.array([[0.0, 0.0, 1.0, 1.0]])  # β_3 + β_4 = 0
    model = fit_converged(
        ConstrainedSVR(C=0.3, nu=0.5, constraint=constraint, A=A, Gamma=G, tol=1e-8), x, y
    )
    got = fitted_constraints(model)
    expected = stack(named_constraints(constraint, p), Constraints(A, np.zeros(1), G, np.zeros(1)))
    assert_same_constraints(got, expected)
    assert_matches_qp(model, x, y, expected, ("defaults", constraint))


def test_sparse_constraints_equal_dense() -> None:
    p = 6
    x, y = data(n=70, p=p, seed=6)
    cons, _ = general_constraints(p, 4, 2, seed=6)
    params: dict[str, Any] = {"C": 0.2, "nu": 0.5, "tol": 1e-8}
    dense = fit_converged(
        ConstrainedSVR(A=cons.A, b=cons.b, Gamma=cons.G, d=cons.d, **params), x, y
    )
    sparse = fit_converged(
        ConstrainedSVR(
            A=sp.csr_matrix(cons.A), b=cons.b, Gamma=sp.csc_matrix(cons.G), d=cons.d, **params
        ),
        x,
        y,
    )
    assert_same_constraints(fitted_constraints(sparse), cons)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-12)
    assert_matches_qp(dense, x, y, cons, ("general", 6))


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("C", {"C": 0.0}),
        ("C", {"C": -1.0}),
        ("C", {"C": np.nan}),
        ("C", {"C": "1"}),
        ("nu", {"nu": 0.0}),
        ("nu", {"nu": -0.2}),
        ("nu", {"nu": 1.5}),
        ("constraint", {"constraint": "positive"}),
        ("gamma_rule", {"gamma_rule": "literal"}),
        ("tol", {"tol": 0.0}),
        ("max_iter", {"max_iter": 0}),
        ("A", {"A": np.ones((2, P + 1)), "b": np.zeros(2)}),
        ("A", {"A": np.ones(P + 3)}),
        ("b", {"A": np.ones((2, P)), "b": np.zeros(3)}),
        ("b", {"b": np.zeros(2)}),
        ("Gamma", {"Gamma": np.ones((1, P - 1)), "d": np.ones(1)}),
        ("d", {"Gamma": np.ones((1, P)), "d": np.ones(2)}),
        ("d", {"d": np.ones(1)}),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_bad_parameters(name: str, params: dict[str, Any]) -> None:
    x, y = data()
    raises_naming(name, lambda: ConstrainedSVR(**params).fit(x, y))


@pytest.mark.parametrize("which", ["A", "Gamma"])
def test_zero_constraint_row_rejected(which: str) -> None:
    x, y = data()
    m = np.eye(P)[:3].copy()
    m[1] = 0.0
    params: dict[str, Any] = {"A": m} if which == "A" else {"Gamma": m, "d": np.zeros(3)}
    raises_naming(which, lambda: ConstrainedSVR(**params).fit(x, y), also=r"(?i)zero")
    sparse = sp.csr_matrix(m)
    params[which] = sparse
    raises_naming(which, lambda: ConstrainedSVR(**params).fit(x, y), also=r"(?i)zero")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("where", ["X", "y", "A", "b", "Gamma", "d"])
def test_non_finite_values_rejected(where: str, bad: float) -> None:
    x, y = data()
    params: dict[str, Any] = {
        "A": -np.eye(P),
        "b": np.zeros(P),
        "Gamma": np.ones((1, P)),
        "d": np.ones(1),
    }
    if where == "X":
        x[3, 2] = bad
    elif where == "y":
        y[7] = bad
    else:
        arr = np.array(params[where], dtype=np.float64)
        arr.flat[min(1, arr.size - 1)] = bad
        params[where] = arr
    raises_naming(where, lambda: ConstrainedSVR(**params).fit(x, y), also=r"(?i)nan|inf|finite")


@pytest.mark.parametrize(
    "params",
    [
        # Σβ = 1 and β ≤ −1
        {"Gamma": np.ones((1, P)), "d": np.ones(1), "A": np.eye(P), "b": -np.ones(P)},
        # β_1 ≤ −1 and −β_1 ≤ −1 (β_1 ≥ 1)
        {"A": np.vstack([np.eye(P)[:1], -np.eye(P)[:1]]), "b": -np.ones(2)},
        # β_1 = 0 and β_1 = 1
        {"Gamma": np.vstack([np.eye(P)[:1], np.eye(P)[:1]]), "d": np.array([0.0, 1.0])},
        # the simplex and β_1 ≥ 2
        {"constraint": "simplex", "A": -np.eye(P)[:1], "b": np.array([-2.0])},
    ],
    ids=["sum-and-upper", "two-inequalities", "two-equalities", "simplex-and-lower"],
)
def test_infeasible_constraints_raise(params: dict[str, Any]) -> None:
    """Checked before solving (never a hang; max_iter bounds the run anyway)."""
    x, y = data()
    with pytest.raises(ValueError, match=r"(?i)infeasible"):
        ConstrainedSVR(max_iter=100_000, **params).fit(x, y)


# --------------------------------------------------------------------------------------------
# degenerate problems
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("constraint", [None, "simplex"])
def test_duplicate_rows(constraint: str | None) -> None:
    """Repeated rows of X (η = ‖X_i − X_j‖² = 0 for some pairs) give the QP solution."""
    x, y = data(n=30, seed=8, kind=constraint or "none")
    x = np.vstack([x, x[:10], x[:5]])
    y = np.concatenate([y, y[:10] + 0.1, y[:5]])
    model = fit_converged(ConstrainedSVR(C=0.3, nu=0.5, constraint=constraint, tol=1e-8), x, y)
    for name in ("coef_", "intercept_", "epsilon_", "dual_alpha_", "dual_alpha_star_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    assert_matches_qp(model, x, y, named_constraints(constraint, P), ("duplicates", constraint))


def test_tiny_c_simplex_tends_to_min_norm_point() -> None:
    """ν = 1, C = 1e-5/n (the paper's C = 1e-5): β → argmin ‖β‖² on the simplex = e/p."""
    n, p = 100, 8
    x, y = data(n=n, p=p, seed=9, kind="simplex")
    c = 1e-5 / n
    model = fit_converged(ConstrainedSVR(C=c, nu=1.0, constraint="simplex", tol=1e-10), x, y)
    np.testing.assert_allclose(model.coef_, np.full(p, 1.0 / p), rtol=0, atol=1e-4)
    assert_matches_qp(model, x, y, named_constraints("simplex", p), ("tiny-C", p))
    assert_dual_feasible(model.dual_alpha_, model.dual_alpha_star_, model.dual_gamma_, c, 1.0)


# --------------------------------------------------------------------------------------------
# stopping early
# --------------------------------------------------------------------------------------------
def _assert_valid_iterate(model: ConstrainedSVR, x: Array, y: Array, c: float, nu: float) -> None:
    assert_dual_feasible(model.dual_alpha_, model.dual_alpha_star_, model.dual_gamma_, c, nu)
    cons = fitted_constraints(model)
    f = dual_objective(
        x, y, cons, model.dual_alpha_, model.dual_alpha_star_, model.dual_gamma_, model.dual_mu_
    )
    assert abs(model.dual_objective_ - f) <= 1e-10 * max(1.0, abs(f))
    assert np.all(np.isfinite(model.predict(x)))


def test_max_iter_one_warns() -> None:
    x, y = data(n=60, seed=10, kind="simplex")
    model = ConstrainedSVR(C=0.5, nu=0.5, constraint="simplex", max_iter=1, tol=1e-8, method="gsmo")
    with pytest.warns(ConvergenceWarning):
        model.fit(x, y)
    assert model.status_ == "max_iterations"
    assert model.n_iter_ == 1
    assert model.delta_ > 1e-8
    _assert_valid_iterate(model, x, y, 0.5, 0.5)


def test_method_is_checked_and_gsmo_only_options_refuse_the_interior_point() -> None:
    x, y = data(n=40, seed=5)
    with pytest.raises(ValueError, match="method"):
        ConstrainedSVR(method="newton").fit(x, y)
    for option in ({"record_history": True}, {"gamma_rule": "paper"}):
        with pytest.raises(ValueError, match=next(iter(option))):
            ConstrainedSVR(method="interior_point", **option).fit(x, y)
        # "auto" takes GSMO for them instead.
        model = fit_converged(ConstrainedSVR(tol=1e-6, **option), x, y)
        assert model.solver_stats_["method"] == "gsmo"


def test_interior_point_max_iter_and_callback_stop_it() -> None:
    """The interior-point method honours max_iter (Newton steps) and a callback returning True
    (it is called once per step), and says so (status_, ConvergenceWarning)."""
    x, y = data(n=60, seed=10, kind="simplex")
    params: dict[str, Any] = {"C": 0.5, "nu": 0.5, "constraint": "simplex"}
    full = fit_converged(ConstrainedSVR(method="interior_point", **params), x, y)
    assert full.solver_stats_["method"] == "interior_point" and full.n_iter_ > 3
    model = ConstrainedSVR(method="interior_point", max_iter=2, **params)
    with pytest.warns(ConvergenceWarning):
        model.fit(x, y)
    assert model.status_ == "max_iterations" and model.n_iter_ == 2
    assert abs(model.primal_objective_ - full.primal_objective_) > 1e-6 * full.primal_objective_
    _, stopped, _ = fit_stopped_by_callback(
        lambda callback: ConstrainedSVR(method="interior_point", callback=callback, **params), x, y
    )
    assert stopped.solver_stats_["method"] == "interior_point"


def test_callback_returning_true_stops() -> None:
    """A fit of ~3000 iterations stopped by its first progress report."""
    n, p = 60, 8
    x, y = make_problem("simplex", n, p, 0)
    params: dict[str, Any] = {
        "C": 10 / n,
        "nu": 0.5,
        "constraint": "simplex",
        "tol": 1e-8,
        "method": "gsmo",
    }
    full, model, _ = fit_stopped_by_callback(
        lambda callback: ConstrainedSVR(callback=callback, **params), x, y
    )
    assert model.dual_objective_ >= full.dual_objective_ - 1e-9 * max(
        1.0, abs(full.dual_objective_)
    )
    _assert_valid_iterate(model, x, y, 10 / n, 0.5)


def test_gap_and_constraint_violation_are_reported_and_a_large_gap_warns() -> None:
    """relative_gap_ and constraint_violation_ are the NumPy recomputations; a converged fit
    warns exactly when |relative_gap_| > 1e-3; and the gap tracks the distance from the QP
    optimum (Clarabel): a loose tol on a simplex problem ends far from it with GSMO, and says
    so; the default method (here the interior-point one) ends at it."""
    x, y = data(n=60, p=8, seed=3, kind="simplex")
    cons = named_constraints("simplex", 8)
    qp = qp_reference(("gap-warning",), x, y, cons, 1.0, 0.5)
    default = fit_converged(ConstrainedSVR(C=1.0, nu=0.5, constraint="simplex", tol=3e-2), x, y)
    assert default.solver_stats_["method"] == "interior_point"
    assert abs(default.primal_objective_ - qp.objective) <= 1e-9 * qp.objective
    assert abs(default.relative_gap_) <= 1e-9
    for tol in (3e-2, 1e-6):
        model = ConstrainedSVR(C=1.0, nu=0.5, constraint="simplex", tol=tol, method="gsmo")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(x, y)
        assert model.status_ == "converged"
        primal, dual = model.primal_objective_, model.dual_objective_
        gap = (primal + dual) / max(abs(primal), abs(dual))
        assert model.relative_gap_ == pytest.approx(gap, rel=1e-12, abs=1e-15)
        ineq, eq = constraint_violation(cons, np.asarray(model.coef_))
        assert model.constraint_violation_ == pytest.approx(max(0.0, ineq, eq), abs=1e-15)
        warned = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert bool(warned) == (abs(model.relative_gap_) > 1e-3), (tol, model.relative_gap_)
        # The dual objective is a lower bound on the optimum whatever the tolerance.
        assert -dual <= qp.objective * (1 + 1e-9)
        distance = abs(primal - qp.objective) / qp.objective
        if tol == 3e-2:
            assert warned and "differ by" in str(warned[0].message)
            assert distance > 1e-3 and model.constraint_violation_ > 0.0
        else:
            assert not warned and distance <= 1e-5 and abs(model.relative_gap_) <= 1e-5


# --------------------------------------------------------------------------------------------
# persistence and input types
# --------------------------------------------------------------------------------------------
def assert_same_fit(a: ConstrainedSVR, b: ConstrainedSVR) -> None:
    assert_same_attributes(a, b, FITTED)
    assert (a.A_ != b.A_).nnz == 0 and (a.Gamma_ != b.Gamma_).nnz == 0


def test_pickle_round_trip() -> None:
    x, y = data(seed=13, kind="increasing")
    model = fit_converged(ConstrainedSVR(C=0.5, constraint="increasing", record_history=True), x, y)
    back = pickle.loads(pickle.dumps(model))
    assert_same_fit(model, back)
    np.testing.assert_array_equal(back.predict(x), model.predict(x))
    np.testing.assert_array_equal(back.history_["objective"], model.history_["objective"])
    assert back.get_params() == model.get_params()


def test_clone_gives_an_unfitted_copy_that_refits_identically() -> None:
    x, y = data(seed=14, kind="nonnegative")
    A = np.ones((1, P))
    model = ConstrainedSVR(C=0.7, nu=0.3, constraint="nonnegative", A=A, b=np.ones(1), tol=1e-6)
    fit_converged(model, x, y)
    names = (
        "C nu constraint A b Gamma d tol max_iter gamma_rule record_history cache_size n_jobs "
        "callback verbose time_limit"
    )
    copy = unfitted_clone(model, "coef_", names)
    assert_same_fit(fit_converged(copy, x, y), model)


def test_float32_int_and_sparse_x() -> None:
    """float32 / int / sparse X are accepted and equal the float64 fit of the same values."""
    rng = np.random.default_rng(15)
    x_int = rng.integers(-5, 6, size=(60, P))
    y_int = x_int @ np.array([1, 0, 2, 0, 1]) + rng.integers(-3, 4, size=60)
    params: dict[str, Any] = {"C": 0.1, "nu": 0.5, "constraint": "nonnegative", "tol": 1e-8}
    ref = fit_converged(
        ConstrainedSVR(**params), x_int.astype(np.float64), y_int.astype(np.float64)
    )
    ints = fit_converged(ConstrainedSVR(**params), x_int, y_int)
    assert_same_fit(ints, ref)
    sparse = fit_converged(ConstrainedSVR(**params), sp.csr_matrix(x_int.astype(np.float64)), y_int)
    assert_same_fit(sparse, ref)

    # (With noiseless y the fit interpolates up to float32 rounding, ε → 0, and the first-order
    # GSMO needs ~10⁸ iterations to reach tol 1e-8 — as does the NumPy reference: keep noise.)
    x32 = rng.normal(size=(60, P)).astype(np.float32)
    y32 = (x32 @ np.ones(P) + rng.normal(size=60)).astype(np.float32)
    ref32 = fit_converged(ConstrainedSVR(**params), x32.astype(np.float64), y32.astype(np.float64))
    f32 = fit_converged(ConstrainedSVR(**params), x32, y32)
    assert f32.coef_.dtype == np.float64
    assert_same_fit(f32, ref32)


def test_interior_point_time_limit_ends_before_a_step_that_would_overrun_it() -> None:
    """The interior-point method meets ``time_limit`` at a Newton step's boundary when the next
    step would end past it, counted from the start of the solve: a fit given 1.6 times the
    time to its first boundary ends there, within the limit. (Clarabel's own limit, counted
    from after its setup and checked only after each step, let it run a whole further step:
    about twice the time to the first boundary, past the limit.)"""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20000, 50))
    y = x @ rng.normal(size=50) + rng.standard_t(2, 20000)
    first = ConstrainedSVR(method="interior_point", time_limit=1e-3)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning):
        first.fit(x, y)
    to_first_boundary = time.perf_counter() - start
    assert first.status_ == "time_limit" and first.n_iter_ == 0
    limit = 1.6 * to_first_boundary
    model = ConstrainedSVR(method="interior_point", time_limit=limit)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        model.fit(x, y)
    elapsed = time.perf_counter() - start
    assert model.status_ == "time_limit"
    assert elapsed < limit, (elapsed, limit)
    assert np.all(np.isfinite(model.predict(x[:5])))
