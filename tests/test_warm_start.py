"""``warm_start=True`` on the LIBSVM-family estimators (issue 44).

The start is the previous dual moved into the new feasible set (clipped into the box, the
equality's residual put on the fewest variables, free ones first): checked against a brute
force over the subsets of variables; a warm refit must reach the optimum of a cold fit of the
same problem (dual objective within 1e-6 relative at ``tol=1e-7``), whatever changed (``C``,
``nu``, ``sample_weight``, ``class_weight``), and a refit that cannot use the previous solution
starts cold.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from threadpoolctl import threadpool_limits

import kernelkit
from kernelkit._warm_start import repair_onto

pytestmark = pytest.mark.filterwarnings("ignore::kernelkit.ConvergenceWarning")


def _fewest(rooms: Any, need: float) -> int:
    """The fewest of ``rooms`` that sum to at least ``need``, by trying every subset."""
    for k in range(len(rooms) + 1):
        if any(sum(c) >= need for c in itertools.combinations(rooms, k)):
            return k
    return len(rooms) + 1


@pytest.mark.parametrize("seed", range(40))
def test_repair_moves_the_fewest_variables_into_the_set(seed: int) -> None:
    """In the box and on the equality (to its rounding); besides the clipped variables, it moves
    as few as any point of the set needs: free variables only when their room covers the
    residual (the fewest of them, by brute force), else every free one and the fewest others;
    each towards the target, all but one to its bound."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 11))
    upper = rng.uniform(0.1, 2.0, n)
    signs = rng.choice([-1.0, 1.0], n) if seed % 2 else np.ones(n)
    start = np.where(rng.random(n) < 0.3, rng.choice([0.0, 1.0], n) * upper, rng.normal(0.5, 1, n))
    low, high = -float(upper[signs < 0].sum()), float(upper[signs > 0].sum())
    target = float(rng.uniform(low, high)) if seed % 3 else 0.0
    ours = repair_onto(start, upper, target, signs)
    assert np.all((ours >= 0) & (ours <= upper))
    assert abs(float(signs @ ours) - target) <= 1e-12 * max(1.0, float(np.abs(ours).sum()))
    clipped = np.clip(start, 0.0, upper)
    residual = target - float(signs @ clipped)
    moved = np.flatnonzero(ours != clipped)
    assert np.all(signs[moved] * (ours - clipped)[moved] * residual > 0)  # towards the target
    at_bound = (ours[moved] == 0.0) | (ours[moved] == upper[moved])
    assert np.count_nonzero(~at_bound) <= 1
    room = np.where(signs * residual > 0, upper - clipped, clipped)
    free = (clipped > 0) & (clipped < upper)
    if residual == 0.0:
        assert len(moved) == 0
    elif room[free].sum() >= abs(residual):
        assert np.all(free[moved])
        assert len(moved) == _fewest(list(room[free]), abs(residual) * (1 - 1e-12))
    else:
        assert np.all(np.isin(np.flatnonzero(free & (room > 0)), moved))
        rest = abs(residual) - float(room[free].sum())
        others = len(moved) - np.count_nonzero(free & (room > 0))
        assert others == _fewest(list(room[~free]), rest * (1 - 1e-12))
    again = repair_onto(ours, upper, target, signs)  # a start in the set stays (to rounding)
    assert np.count_nonzero(again != ours) <= 3
    np.testing.assert_allclose(again, ours, rtol=0, atol=1e-12 * max(1.0, float(upper.sum())))


@pytest.mark.parametrize("seed", range(3))
def test_the_repair_depends_on_no_order_and_no_thread_count(seed: int) -> None:
    """The repaired start of a long dual is the same, bit for bit, whatever the order of its
    variables and however many threads the BLAS has: the equality's residual is summed exactly,
    where ``signs @ alpha`` (OpenBLAS splits dot products above 10,000 entries over its threads)
    rounds the sum differently with the order and the thread count, and so moves other
    variables by an ulp and changes the path of the solve that follows."""
    rng = np.random.default_rng(seed)
    n = 20_001
    upper = rng.uniform(0.5, 2.0, n)
    signs = rng.choice([-1.0, 1.0], n)
    start = rng.uniform(0.0, 1.0, n) * upper * 10.0 ** rng.uniform(-9, 0, n)
    start[rng.random(n) < 0.2] = 0.0
    at_upper = rng.random(n) < 0.1
    start[at_upper] = upper[at_upper]
    target = 0.0 if seed else float(signs @ start) * (1 + 1e-9)  # near the start's sum, or not
    order = rng.permutation(n)
    ours = repair_onto(start, upper, target, signs)
    permuted = repair_onto(start[order], upper[order], target, signs[order])
    np.testing.assert_array_equal(permuted, ours[order])
    with threadpool_limits(1):
        one = repair_onto(start, upper, target, signs)
    with threadpool_limits(2):
        two = repair_onto(start, upper, target, signs)
    np.testing.assert_array_equal(one, ours)
    np.testing.assert_array_equal(two, ours)
    assert math.fsum((signs * ours).tolist()) == pytest.approx(target, abs=1e-12 * n)


def _classes(n_classes: int) -> tuple[Any, Any]:
    return make_classification(
        400, 8, n_informative=5, n_classes=n_classes, flip_y=0.05, random_state=n_classes
    )


def _regression() -> tuple[Any, Any]:
    X, y = make_regression(400, 6, noise=3.0, random_state=0)
    return X / X.std(axis=0), y / y.std()


def _objective_sum(model: Any) -> float:
    return float(np.sum(model.objective_))


# (estimator, base parameters, parameter changes along the path, fit data)
PATHS = [
    ("SVC", {"gamma": 0.1}, [{"C": 0.3}, {"C": 3.0}, {"C": 30.0}, {"C": 1.0}], 2),
    ("SVC", {"gamma": 0.1}, [{"C": 1.0}, {"C": 10.0}, {"class_weight": {0: 2.0, 1: 0.5}}], 3),
    ("NuSVC", {"gamma": 0.1}, [{"nu": 0.5}, {"nu": 0.3}, {"nu": 0.6}], 3),
    ("SVR", {"gamma": 0.2, "epsilon": 0.1}, [{"C": 0.3}, {"C": 3.0}, {"C": 30.0}], 0),
    ("NuSVR", {"gamma": 0.2}, [{"C": 0.3}, {"nu": 0.3}, {"C": 3.0, "nu": 0.6}], 0),
    ("OneClassSVM", {"gamma": 0.2}, [{"nu": 0.5}, {"nu": 0.1}, {"nu": 0.3}], -1),
]


@pytest.mark.parametrize(("name", "base", "steps", "data"), PATHS)
def test_warm_refits_reach_the_cold_optimum(
    name: str, base: dict[str, Any], steps: list[dict[str, Any]], data: int
) -> None:
    X, y = _regression() if data <= 0 else _classes(data)
    args = (X,) if data < 0 else (X, y)
    cls = getattr(kernelkit, name)
    warm = cls(warm_start=True, tol=1e-7, **base)
    params = dict(base)
    for step in steps:
        params.update(step)
        warm.set_params(**step).fit(*args)
        cold = cls(tol=1e-7, **params).fit(*args)
        assert warm.fit_status_ == 0
        ours, reference = _objective_sum(warm), _objective_sum(cold)
        assert abs(ours - reference) <= 1e-6 * abs(reference)


def test_new_sample_weights_start_from_the_repaired_solution() -> None:
    X, y = _classes(2)
    rng = np.random.default_rng(0)
    warm = kernelkit.SVC(warm_start=True, tol=1e-7, gamma=0.1).fit(X, y)
    for _ in range(3):
        weights = rng.uniform(0.0, 2.0, len(y))
        weights[rng.random(len(y)) < 0.1] = 0.0  # some rows leave the problem
        warm.fit(X, y, sample_weight=weights)
        cold = kernelkit.SVC(tol=1e-7, gamma=0.1).fit(X, y, sample_weight=weights)
        assert abs(warm.objective_[0] - cold.objective_[0]) <= 1e-6 * abs(cold.objective_[0])


def test_repeated_rows_merge_their_starts() -> None:
    """SVC merges identical rows into one dual variable: the warm start of the group is the
    sum of its members' starts (within the group's bound)."""
    X, y = _classes(2)
    X = np.repeat(X[:300], 5, axis=0)[:1500]
    y = np.repeat(y[:300], 5)[:1500]
    warm = kernelkit.SVC(warm_start=True, tol=1e-7, gamma=0.1, C=0.5).fit(X, y)
    assert warm.solver_stats_[0]["dual_variables"] < len(y)  # merged
    warm.set_params(C=5.0).fit(X, y)
    cold = kernelkit.SVC(tol=1e-7, gamma=0.1, C=5.0).fit(X, y)
    assert abs(warm.objective_[0] - cold.objective_[0]) <= 1e-6 * abs(cold.objective_[0])


def test_what_cannot_use_the_previous_solution_starts_cold() -> None:
    X, y = _classes(3)
    warm = kernelkit.SVC(warm_start=True, gamma=0.1).fit(X, y)
    cold = kernelkit.SVC(gamma=0.1)
    # Other rows, other classes: the same model as a cold fit, iteration for iteration.
    for rows, labels in ((X[:300], y[:300]), (X, np.where(y == 2, 1, y))):
        warm.fit(rows, labels)
        cold.fit(rows, labels)
        np.testing.assert_array_equal(warm.n_iter_, cold.n_iter_)
        np.testing.assert_array_equal(warm.dual_coef_, cold.dual_coef_)
    # Without warm_start, nothing is kept for a later warm fit.
    assert kernelkit.SVC().fit(X, y)._warm_duals is None
    assert kernelkit.SVR().fit(*_regression())._warm_duals is None


def test_a_multiclass_fit_keeps_only_the_non_zero_duals() -> None:
    """Each pair's dual over every row was kept dense: k (k − 1) / 2 vectors of n values (a
    26-class model on 3,000 rows pickled to 11.2 MB, 1.0 MB without warm_start). Kept are the
    non-zero values of each pair, which give the next fit the same start."""
    X, y = make_classification(
        600, 8, n_informative=6, n_classes=6, n_clusters_per_class=1, random_state=3
    )
    model = kernelkit.SVC(warm_start=True, gamma=0.2).fit(X, y)
    n_rows, _, duals = model._warm_duals
    assert n_rows == 600 and len(duals) == 15
    kept = sum(dual.values.size for dual in duals)
    assert kept == sum(int(np.count_nonzero(dual.dense())) for dual in duals)
    assert kept == int(np.count_nonzero(model._dual_coef_libsvm))  # one per pair and vector
    assert kept < 0.25 * 15 * 600
    warm = model.set_params(C=3.0).fit(X, y)
    cold = kernelkit.SVC(gamma=0.2, C=3.0).fit(X, y)
    np.testing.assert_allclose(warm.objective_, cold.objective_, rtol=1e-6)


def _sine(seed: int, n: int, d: int, skip: int = 0) -> tuple[Any, Any]:
    """Rows and targets ``sin(x₀) + noise``, |y| < 1.3 (``skip`` normal draws in between)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    rng.normal(size=skip)
    return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)


# Degenerate optima (no variable strictly inside its box, or none of one label for the ν
# formulations): the offset is any point of an interval, and a path's rounding residues decide
# it. Each case gave another model warm than cold before the core restarted such solves cold.
# (estimator, data, parameters, first fit's changes and targets' scale, refit's)
DEGENERATE = [
    # Every target inside the new tube, β = 0: intercept 3.79 warm, -0.018 cold.
    (
        "SVR",
        (1, 200, 5),
        {"C": 1.0, "gamma": 0.3},
        ({"epsilon": 0.1}, 1.0),
        ({"epsilon": 5.0}, 1.0),
    ),
    ("SVR", (1, 200, 5), {"C": 1.0, "gamma": 0.3, "epsilon": 0.5}, ({}, 3.0), ({}, 0.1)),
    # ν n / 2 = 50 whole bounds, no free α (a 4.4e-16 coefficient kept warm).
    ("NuSVR", (1, 200, 5, 25), {"C": 1.0, "gamma": 0.3}, ({}, 1.0), ({}, 100.0)),
    ("NuSVR", (6, 200, 4, 600), {"C": 0.01, "gamma": 0.5}, ({"nu": 0.1}, 1.0), ({"nu": 0.5}, 1.0)),
    # ν n = 320 whole bounds (a 2.4e-12 coefficient kept cold, as by LIBSVM).
    ("OneClassSVM", (0, 400, 5), {"gamma": 0.2}, ({"nu": 0.1}, None), ({"nu": 0.8}, None)),
]


@pytest.mark.parametrize(("name", "data", "params", "first", "then"), DEGENERATE)
def test_a_degenerate_optimum_gives_the_cold_model(
    name: str, data: tuple[int, ...], params: dict[str, Any], first: Any, then: Any
) -> None:
    """The core solves a warm start that ends at a degenerate optimum again from the cold
    start (``formulations.rs``): the warm refit is the cold fit, bit for bit, and both are
    scikit-learn's."""
    import sklearn.svm

    X, y = _sine(*data)
    cls = getattr(kernelkit, name)
    (start, first_scale), (change, scale) = first, then
    fit_args = lambda factor: (X,) if factor is None else (X, y * factor)  # noqa: E731
    warm = cls(warm_start=True, tol=1e-12, **params, **start).fit(*fit_args(first_scale))
    warm.set_params(**change).fit(*fit_args(scale))
    assert warm.solver_stats_["restarted_cold"]
    final = {**params, **start, **change}
    cold = cls(tol=1e-12, **final).fit(*fit_args(scale))
    assert not cold.solver_stats_["restarted_cold"]
    for attribute in ("support_", "dual_coef_", "intercept_"):
        np.testing.assert_array_equal(getattr(warm, attribute), getattr(cold, attribute))
    reference = getattr(sklearn.svm, name)(tol=1e-12, **final).fit(*fit_args(scale))
    np.testing.assert_allclose(warm.intercept_, reference.intercept_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(np.sort(warm.support_), np.sort(reference.support_))


def test_a_warm_start_to_a_regular_optimum_is_kept() -> None:
    X, y = _regression()
    warm = kernelkit.SVR(warm_start=True, gamma=0.2, C=0.3).fit(X, y)
    warm.set_params(C=3.0).fit(X, y)
    assert not warm.solver_stats_["restarted_cold"]


# --------------------------------------------------------------------------------------------
# The gradient carried from one fit to the next (``_warm_start``, "The gradient")


def _dual_gradient(X: Any, signs: Any, alpha: Any, gamma: float, linear: float) -> tuple[Any, Any]:
    """NumPy's ``Qα + p`` of an RBF dual (``Q_ij = s_i s_j exp(−γ‖x_i − x_j‖²)``, ``p =
    linear``) and its tolerance: the solver caches its columns in float32, so each term may be
    off by 2⁻²⁴ of itself (2⁻²² is allowed for the rounding of the updates as well)."""
    squared = np.sum(X**2, axis=1)
    distances = squared[:, None] + squared[None, :] - 2.0 * X @ X.T
    q = signs[:, None] * signs[None, :] * np.exp(-gamma * np.maximum(distances, 0.0))
    return q @ alpha + linear, 2.0**-22 * (np.abs(q) @ np.abs(alpha)) + 1e-12


@pytest.mark.parametrize("formulation", ["c_svc", "one_class"])
def test_solution_gradient_is_the_dual_gradient(formulation: str) -> None:
    """The gradient a C-SVC or one-class solve returns is ``Qα + p`` at its solution (NumPy's),
    and a solve started from a moved point with ``previous`` ends where one that computes its
    gradient afresh ends."""
    from kernelkit import _core

    X, y = _classes(2)
    signs = np.where(y > 0, 1.0, -1.0)
    kernel = _core.Kernel("rbf", gamma=0.1)
    if formulation == "c_svc":

        def solve(upper: Any, alpha0: Any = None, previous: Any = None) -> Any:
            return _core.solve_c_svc(X, signs, upper, kernel, alpha0, previous, tol=1e-9)

        first = solve(np.full(len(y), 2.0))
        expected, slack = _dual_gradient(X, signs, np.asarray(first.x), 0.1, -1.0)
        upper, target, s = np.full(len(y), 0.5), 0.0, signs  # C falls: the start moves
    else:

        def solve(upper: Any, alpha0: Any = None, previous: Any = None) -> Any:
            return _core.solve_one_class(X, upper, 0.3, kernel, alpha0, previous, tol=1e-9)

        first = solve(np.ones(len(y)))
        expected, slack = _dual_gradient(X, np.ones(len(y)), np.asarray(first.x), 0.1, 0.0)
        upper, target, s = (
            np.linspace(0.5, 1.5, len(y)),
            0.3 * np.linspace(0.5, 1.5, len(y)).sum(),
            None,
        )
    assert np.all(np.abs(np.asarray(first.gradient) - expected) <= slack)
    start = repair_onto(np.asarray(first.x), upper, float(target), s)
    assert np.count_nonzero(start != np.asarray(first.x)) > 0  # the start moved
    carried = solve(upper, start, (np.asarray(first.x), np.asarray(first.gradient)))
    fresh = solve(upper, start)
    assert abs(carried.objective - fresh.objective) <= 1e-9 * abs(fresh.objective)
    np.testing.assert_allclose(carried.gradient, fresh.gradient, rtol=0, atol=1e-6)


def _spy_on(monkeypatch: pytest.MonkeyPatch, entry: str, arguments: slice | int) -> list[Any]:
    """The list into which each call of ``_core.<entry>`` (still made) records
    ``args[arguments]``: what the estimators pass to the core."""
    from kernelkit import _core

    calls: list[Any] = []
    solve = getattr(_core, entry)

    def spy(*args: Any, **options: Any) -> Any:
        calls.append(args[arguments])
        return solve(*args, **options)

    monkeypatch.setattr(_core, entry, spy)
    return calls


def test_a_warm_fit_carries_the_gradient_only_over_the_same_dual(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refit with a larger C passes the previous solution and gradient to the core, and its
    start is that solution (at most three variables moved, by the repair of the rounding of
    ``yᵀα``); a refit on other values of X (same shape) or with another gamma, whose ``Q``
    differs, passes none and reaches the cold optimum of its own problem."""

    calls = _spy_on(monkeypatch, "solve_c_svc", slice(4, 6))
    X, y = _classes(2)
    warm = kernelkit.SVC(warm_start=True, tol=1e-7, gamma=0.1, C=0.5).fit(X, y)
    warm.set_params(C=5.0).fit(X, y)
    alpha0, previous = calls[-1]
    assert previous is not None
    assert np.count_nonzero(alpha0 != previous[0]) <= 3  # the rounding repair's moves
    cold = kernelkit.SVC(tol=1e-7, gamma=0.1, C=5.0).fit(X, y)
    assert abs(warm.objective_[0] - cold.objective_[0]) <= 1e-6 * abs(cold.objective_[0])
    X_other = X + np.random.default_rng(0).normal(0.0, 0.3, X.shape)
    for rows, gamma in ((X_other, 0.1), (X_other, 0.3)):
        warm.set_params(gamma=gamma).fit(rows, y)
        assert calls[-1][0] is not None and calls[-1][1] is None  # warm α, fresh gradient
        cold = kernelkit.SVC(tol=1e-7, gamma=gamma, C=5.0).fit(rows, y)
        assert abs(warm.objective_[0] - cold.objective_[0]) <= 1e-6 * abs(cold.objective_[0])


def test_warm_pairs_take_the_one_call_route_and_the_thread_count_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With two threads, a warm multiclass refit solves its pairs in one core call
    (``solve_c_svc_pairs``, with each pair's start and previous solve), and every model along
    the path, warm or cold, is the one fitted on one thread, bit for bit."""

    calls = _spy_on(monkeypatch, "solve_c_svc_pairs", slice(5, 7))
    X, y = _classes(3)
    one, two = (kernelkit.SVC(warm_start=True, tol=1e-7, gamma=0.1, n_jobs=t) for t in (1, 2))
    for C in (0.3, 3.0, 1.0):
        for model in (one, two):
            model.set_params(C=C).fit(X, y)
        np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
        np.testing.assert_array_equal(one.intercept_, two.intercept_)
        np.testing.assert_array_equal(one.n_iter_, two.n_iter_)
    assert len(calls) == 3
    assert all(a is None for a in calls[0][0])  # the cold fit
    for alpha0s, previous in calls[1:]:
        assert all(a is not None for a in alpha0s) and all(p is not None for p in previous)


def test_nu_svc_returns_q_x_and_starts_from_it_unscaled() -> None:
    """A ν-SVC solve returns ``Qx`` for its rescaled ``x = α/r`` (NumPy's); a solve from the
    start at a smaller ν, given ``previous = r · (x, Qx)``, ends where one that computes its
    gradient afresh ends."""
    from kernelkit import _core

    X, y = _classes(2)
    signs, ones = np.where(y > 0, 1.0, -1.0), np.ones(len(y))
    kernel = _core.Kernel("rbf", gamma=0.1)
    first, r = _core.solve_nu_svc(X, signs, ones, 0.5, kernel, tol=1e-9)
    x = np.asarray(first.x)
    expected, slack = _dual_gradient(X, signs, x, 0.1, 0.0)
    assert np.all(np.abs(np.asarray(first.gradient) - expected) <= slack)
    alpha, gradient = x * r, np.asarray(first.gradient) * r
    start = np.empty_like(alpha)
    for side in (signs > 0, signs < 0):  # each class sums to ν n / 2 at ν = 0.3
        start[side] = repair_onto(alpha[side], ones[side], 0.3 * len(y) / 2.0)
    assert np.count_nonzero(start != alpha) > 0
    carried, _ = _core.solve_nu_svc(X, signs, ones, 0.3, kernel, start, (alpha, gradient), tol=1e-9)
    fresh, _ = _core.solve_nu_svc(X, signs, ones, 0.3, kernel, start, tol=1e-9)
    assert carried.status == fresh.status == "converged"
    assert abs(carried.objective - fresh.objective) <= 1e-9 * abs(fresh.objective)
    np.testing.assert_allclose(carried.gradient, fresh.gradient, rtol=0, atol=1e-6)


def test_a_warm_nu_svc_fit_passes_its_unscaled_solves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm NuSVC refit with another ν passes each pair's previous solve back to the core,
    and reaches the cold optimum."""

    calls = _spy_on(monkeypatch, "solve_nu_svc", slice(5, 7))
    X, y = _classes(3)
    warm = kernelkit.NuSVC(warm_start=True, tol=1e-7, gamma=0.1, nu=0.5, n_jobs=1).fit(X, y)
    assert all(call == (None, None) for call in calls)
    for nu in (0.3, 0.4):
        calls.clear()
        warm.set_params(nu=nu).fit(X, y)
        assert len(calls) == 3 and all(a is not None and p is not None for a, p in calls)
        cold = kernelkit.NuSVC(tol=1e-7, gamma=0.1, nu=nu).fit(X, y)
        np.testing.assert_allclose(warm.objective_, cold.objective_, rtol=1e-6)


@pytest.mark.parametrize("formulation", ["epsilon_svr", "nu_svr"])
def test_regression_solves_return_k_beta_and_start_from_it(formulation: str) -> None:
    """An SVR solve returns ``Kβ`` (NumPy's) as its gradient, ``x`` being ``β = α − α*``; a
    solve from the estimator's warm start at a smaller C, given ``previous = (β', Kβ')``, ends
    where one that computes its gradient afresh ends."""
    from kernelkit import _core

    X, z = _regression()
    kernel, n = _core.Kernel("rbf", gamma=0.2), len(z)
    model = kernelkit.SVR(C=0.5) if formulation == "epsilon_svr" else kernelkit.NuSVR(C=0.5)

    def solve(upper: Any, alpha0: Any = None, previous: Any = None) -> Any:
        if formulation == "epsilon_svr":
            return _core.solve_epsilon_svr(X, z, upper, 0.1, kernel, alpha0, previous, tol=1e-9)
        return _core.solve_nu_svr(X, z, upper, 0.5, kernel, alpha0, previous, tol=1e-9)[0]

    first = solve(np.full(n, 2.0))
    beta = np.asarray(first.x)
    expected, slack = _dual_gradient(X, np.ones(n), beta, 0.2, 0.0)
    assert np.all(np.abs(np.asarray(first.gradient) - expected) <= slack)
    start = model._warm_start_point(beta, np.ones(n))  # C falls to 0.5: the start moves
    split = np.concatenate([np.maximum(beta, 0.0), np.maximum(-beta, 0.0)])
    assert np.count_nonzero(start != split) > 0
    carried = solve(np.full(n, 0.5), start, (beta, np.asarray(first.gradient)))
    fresh = solve(np.full(n, 0.5), start)
    assert carried.status == fresh.status == "converged"
    assert abs(carried.objective - fresh.objective) <= 1e-9 * abs(fresh.objective)
    np.testing.assert_allclose(carried.gradient, fresh.gradient, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="previous"):  # (α, α*) instead of β
        solve(np.full(n, 0.5), start, (start, start))


@pytest.mark.parametrize("name", ["SVR", "NuSVR"])
def test_a_warm_regression_carries_k_beta_over_new_targets(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Kβ`` depends on X and the kernel only: a warm SVR refit with another C, other targets
    or another ε (ν) passes the previous ``(β, Kβ)`` to the core and reaches the cold optimum;
    a refit on other values of X passes none."""

    entry = "solve_epsilon_svr" if name == "SVR" else "solve_nu_svr"
    calls = _spy_on(monkeypatch, entry, 6)
    X, z = _regression()
    cls = getattr(kernelkit, name)
    other = {"epsilon": 0.3} if name == "SVR" else {"nu": 0.3}
    warm = cls(warm_start=True, tol=1e-7, gamma=0.2, C=0.3).fit(X, z)
    assert calls[-1] is None
    rng = np.random.default_rng(1)
    for step, targets in (
        ({"C": 3.0}, z),
        ({}, z + rng.normal(0.0, 0.5, len(z))),
        (other, z),
        ({"C": 0.5}, z),
    ):
        warm.set_params(**step).fit(X, targets)
        assert calls[-1] is not None
        cold = cls(**{**warm.get_params(), "warm_start": False}).fit(X, targets)
        assert abs(warm.objective_ - cold.objective_) <= 1e-6 * abs(cold.objective_)
    warm.fit(X + rng.normal(0.0, 0.1, X.shape), z)
    assert calls[-1] is None


def test_previous_needs_a_start_and_matching_lengths() -> None:
    from kernelkit import _core

    X, y = _classes(2)
    signs = np.where(y > 0, 1.0, -1.0)
    kernel, upper = _core.Kernel("rbf", gamma=0.1), np.ones(len(y))
    first = _core.solve_c_svc(X, signs, upper, kernel)
    previous = (np.asarray(first.x), np.asarray(first.gradient))
    with pytest.raises(ValueError, match="previous"):
        _core.solve_c_svc(X, signs, upper, kernel, None, previous)
    with pytest.raises(ValueError, match="previous"):
        _core.solve_c_svc(X, signs, upper, kernel, previous[0], (previous[0], previous[1][:-1]))
    broken = previous[1].copy()
    broken[3] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        _core.solve_c_svc(X, signs, upper, kernel, previous[0], (previous[0], broken))


def test_a_cold_restart_after_shrinking_solves_the_problem_in_its_order() -> None:
    """The cold restart of a degenerate warm solve reused the kernel matrix, whose rows the
    first solve's shrinking had swapped: the restart paired them with the labels, bounds and
    linear term in their own order. Its objective and intercept came out right, its
    coefficients on the wrong rows (a binary SVC's decision values -179 … 181 where the cold
    fit's are all 1; a one-class SVM 2.15 off, 8 of 50 predictions different). The problem is
    now put back in order first. Oracles: the cold fit, scikit-learn, and the dual objective
    recomputed from the coefficients."""
    import sklearn.svm

    X = np.array([-2.0, 1, 0, -1, 0, -1, 1, 0, -1, 2, -1, -1, 1, 1, 1, 0, 1, 1, 0])[:, None]
    y = np.array([1, 3, 3, 3, 1, 3, 1, 3, 3, 3, 1, 3, 1, 1, 3, 3, 3, 1, 3])
    T = np.linspace(-3, 3, 7)[:, None]
    params = {"kernel": "poly", "degree": 1, "gamma": 0.3, "coef0": 0.0, "tol": 1e-9}
    warm = kernelkit.SVC(C=1e-4, warm_start=True, **params).fit(X, y)
    warm.set_params(C=100.0).fit(X, y)
    assert warm.solver_stats_[0]["restarted_cold"]
    cold = kernelkit.SVC(C=100.0, **params).fit(X, y)
    reference = sklearn.svm.SVC(C=100.0, **params).fit(X, y)
    np.testing.assert_allclose(warm.decision_function(T), cold.decision_function(T), atol=1e-9)
    np.testing.assert_allclose(warm.decision_function(T), reference.decision_function(T), atol=1e-9)
    coef = warm.dual_coef_[0]
    gram = 0.3 * warm.support_vectors_ @ warm.support_vectors_.T
    objective = 0.5 * coef @ gram @ coef - np.abs(coef).sum()
    np.testing.assert_allclose(objective, warm.objective_[0], rtol=1e-9)

    rng = np.random.default_rng(168)
    X = rng.normal(size=(101, 1))
    T = rng.normal(size=(50, 1)) * 1.5
    warm = kernelkit.OneClassSVM(nu=0.0846, gamma=0.5, tol=1e-8, warm_start=True).fit(X)
    warm.set_params(nu=93 / 101).fit(X)  # ν n = 93: whole bounds, no free α
    assert warm.solver_stats_["restarted_cold"]
    cold = kernelkit.OneClassSVM(nu=93 / 101, gamma=0.5, tol=1e-8).fit(X)
    np.testing.assert_array_equal(warm.support_, cold.support_)
    np.testing.assert_allclose(warm.decision_function(T), cold.decision_function(T), atol=1e-9)


def test_float32_rows_then_the_same_rows_in_float64_do_not_share_a_gradient() -> None:
    """SVR, NuSVR and OneClassSVM fit float32 rows through a float64 copy, but the core sums
    wide float32 rows' products in float32: the same values, another Q. The digest that lets a
    warm fit carry the previous gradient saw the same float64 values, so a refit with the
    float64 rows started from the float32 Q's gradient, and NuSVR never converged (10**7
    iterations, 12 s, its gap stuck at 3.6e-7). The digest now records the input's precision."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 100)).astype(np.float32)
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=200)
    params = {"C": 10.0, "gamma": 0.01, "tol": 1e-8, "max_iter": 10**6}
    warm = kernelkit.NuSVR(warm_start=True, **params).fit(X, y)
    warm.fit(X.astype(np.float64), y)
    cold = kernelkit.NuSVR(**params).fit(X.astype(np.float64), y)
    assert warm.status_ == cold.status_ == "converged", (warm.status_, warm.kkt_gap_)
    np.testing.assert_allclose(warm.predict(X), cold.predict(X), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_an_identical_refit_takes_no_step(name: str) -> None:
    """Refitting the same data with the same parameters starts at the optimum: no pair step,
    the same model. NuSVC's kept solve, ``r · (α / r)``, left its variables at a bound a few
    ulps inside it, each then a violator: 106 steps on these rows (517 on 2,000)."""
    X, target = make_regression(600, 8, noise=5.0, random_state=0)
    X /= X.std(axis=0)
    target /= target.std()
    labels = (target > 0).astype(int)
    args: tuple[Any, ...] = {"SVR": (X, target), "NuSVR": (X, target), "OneClassSVM": (X,)}.get(
        name, (X, labels)
    )
    params: dict[str, Any] = {"nu": 0.3} if name == "NuSVC" else {}
    model = getattr(kernelkit, name)(gamma=0.2, tol=1e-6, warm_start=True, **params).fit(*args)
    first = model.dual_coef_.copy(), model.intercept_.copy()
    assert np.all(np.asarray(model.n_iter_) > 0)
    model.fit(*args)
    assert np.all(np.asarray(model.n_iter_) == 0), model.n_iter_
    # to the rounding of the repaired sums (ε-SVR and ν-SVR split β = α − α* again)
    np.testing.assert_allclose(model.dual_coef_, first[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, first[1], rtol=0, atol=1e-12)
