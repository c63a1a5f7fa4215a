"""``probability=True`` on SVC and NuSVC (issue 44).

The two numerical pieces are checked against independent oracles: the sigmoid fit against
scipy's BFGS on the same cross-entropy, the pairwise coupling against cvxpy + Clarabel on the
same quadratic program (and against the probabilities that generated consistent pairwise
estimates). The estimators are checked against scikit-learn's LIBSVM, which draws its folds
from another generator, so the two agree statistically (the issue's bounds: mean absolute
difference of ``predict_proba`` at most 0.05, log-loss within 5 %, argmax agreeing on at least
97 % of rows) on generated data and on a9a and USPS; and for scikit-learn's semantics
(availability, default, warning, attributes).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.svm
from kk_oracles import pairwise_coupling
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.metrics import log_loss
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split

import kernelkit
from kernelkit._probability import (
    PROBABILITY_DEFAULT,
    couple_pairwise,
    fit_sigmoid,
    fold_of_positions,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DEPRECATED = PROBABILITY_DEFAULT == "deprecated"

pytestmark = pytest.mark.filterwarnings("ignore:.*probability.*:FutureWarning")


# -- the sigmoid ---------------------------------------------------------------------------


def _platt_objective(params: NDArray[np.float64], f: NDArray[np.float64], t: Any) -> float:
    p = np.clip(expit(-(params[0] * f + params[1])), 1e-300, 1.0)
    q = np.clip(1.0 - p, 1e-300, 1.0)
    return float(-np.sum(t * np.log(p) + (1 - t) * np.log(q)))


@pytest.mark.parametrize("seed", range(5))
def test_sigmoid_is_the_minimiser_of_platts_cross_entropy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    positive = rng.random(n) < rng.uniform(0.1, 0.9)
    f = np.where(positive, 1.0, -1.0) * rng.uniform(0.2, 2.0) + rng.normal(size=n)
    a, b = fit_sigmoid(f, positive)
    n_pos, n_neg = int(positive.sum()), n - int(positive.sum())
    t = np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    oracle = minimize(_platt_objective, x0=[0.0, 0.0], args=(f, t), method="BFGS", tol=1e-12)
    ours = _platt_objective(np.array([a, b]), f, t)
    assert ours <= oracle.fun * (1 + 1e-9) + 1e-12
    np.testing.assert_allclose([a, b], oracle.x, atol=1e-4)
    assert a < 0  # larger decision values mean the positive class


def test_sigmoid_of_separable_values_stays_finite() -> None:
    """Perfectly separated decision values: Platt's targets keep the minimiser finite."""
    f = np.concatenate([np.linspace(1, 3, 50), -np.linspace(1, 3, 50)])
    a, b = fit_sigmoid(f, f > 0)
    assert np.isfinite(a) and np.isfinite(b) and a < 0


# -- the coupling --------------------------------------------------------------------------


def _pairwise_from(p: NDArray[np.float64]) -> NDArray[np.float64]:
    k = p.shape[1]
    columns = [p[:, a] / (p[:, a] + p[:, b]) for a in range(k) for b in range(a + 1, k)]
    return np.column_stack(columns)


@pytest.mark.parametrize("k", [3, 4, 10])
def test_coupling_recovers_the_probabilities_of_consistent_pairs(k: int) -> None:
    rng = np.random.default_rng(k)
    p = rng.dirichlet(np.ones(k), size=50)
    coupled = couple_pairwise(_pairwise_from(p), k)
    np.testing.assert_allclose(coupled.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(coupled, p, atol=5e-3)


@pytest.mark.parametrize("k", [3, 5])
def test_coupling_solves_wu_lin_wengs_quadratic_program(k: int) -> None:
    """Inconsistent pairwise estimates: the result is the QP's solution (cvxpy + Clarabel),
    to the stopping rule's accuracy."""
    rng = np.random.default_rng(10 + k)
    pairwise = rng.uniform(0.05, 0.95, size=(20, k * (k - 1) // 2))
    coupled = couple_pairwise(pairwise, k)
    for row in range(pairwise.shape[0]):
        r = np.zeros((k, k))
        column = 0
        for a in range(k):
            for b in range(a + 1, k):
                r[a, b], r[b, a] = pairwise[row, column], 1 - pairwise[row, column]
                column += 1
        q = -r.T * r
        np.fill_diagonal(q, (r * r).sum(axis=0))
        p = cp.Variable(k)
        problem = cp.Problem(cp.Minimize(cp.quad_form(p, cp.psd_wrap(q))), [cp.sum(p) == 1, p >= 0])
        problem.solve(solver=cp.CLARABEL)
        np.testing.assert_allclose(coupled[row], p.value, atol=5e-3)
        assert coupled[row] @ q @ coupled[row] <= problem.value + 1e-4


@pytest.mark.parametrize("k", [3, 4])
def test_coupling_takes_pair_probabilities_of_exactly_zero_or_one(k: int) -> None:
    """Pair probabilities of exactly 0 or 1 (a logistic model's σ(d) for |d| beyond about 37
    in double precision): the coupling is the QP's solution in that limit (its KKT system,
    regular there), finite, rows summing to one, without a RuntimeWarning; a class that wins
    each of its pairs surely, where LIBSVM's step divides by Q_tt = 0, gets probability 1.
    (It was NaN, with a divide-by-zero warning.)"""
    rng = np.random.default_rng(20 + k)
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    pairwise = rng.uniform(0.05, 0.95, size=(60, len(pairs)))
    sure = rng.random(pairwise.shape) < 0.5
    pairwise[sure] = rng.integers(0, 2, size=int(sure.sum()))
    for winner in range(k):  # row `winner`: that class wins each of its pairs surely
        for column, (a, b) in enumerate(pairs):
            if winner in (a, b):
                pairwise[winner, column] = 1.0 if a == winner else 0.0
    reference = pairwise_coupling(pairwise, k)
    assert reference.min() >= -1e-12  # the oracle's premise: p ≥ 0 is inactive
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        coupled = couple_pairwise(pairwise, k)
    assert np.all(np.isfinite(coupled)) and coupled.min() >= 0.0
    np.testing.assert_allclose(coupled.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(coupled, reference, rtol=0, atol=5e-3)
    np.testing.assert_allclose(coupled[:k], np.eye(k), rtol=0, atol=1e-15)


def test_folds_are_a_balanced_partition() -> None:
    fold = fold_of_positions(23, np.random.RandomState(0))
    counts = np.bincount(fold, minlength=5)
    assert counts.sum() == 23 and counts.max() - counts.min() <= 1


# -- against scikit-learn ------------------------------------------------------------------


def _agreement(
    ours: Any, theirs: Any, X_test: Any, y_test: NDArray[Any], min_argmax: float = 0.97
) -> None:
    p, q = ours.predict_proba(X_test), theirs.predict_proba(X_test)
    assert p.shape == q.shape == (X_test.shape[0], len(theirs.classes_))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-9)
    assert np.all((p >= 0) & (p <= 1))
    assert np.abs(p - q).mean() <= 0.05
    loss, reference = log_loss(y_test, p, labels=ours.classes_), log_loss(y_test, q)
    assert abs(loss - reference) <= 0.05 * reference
    assert np.mean(p.argmax(axis=1) == q.argmax(axis=1)) >= min_argmax
    np.testing.assert_allclose(ours.predict_log_proba(X_test), np.log(p))


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_generated_data_agree_with_scikit_learn(name: str, n_classes: int) -> None:
    X, y = make_classification(
        900, 10, n_informative=6, n_classes=n_classes, flip_y=0.05, random_state=n_classes
    )
    params: dict[str, Any] = {"probability": True, "random_state": 0, "gamma": 0.1}
    ours = getattr(kernelkit, name)(**params).fit(X[:600], y[:600])
    theirs = getattr(sklearn.svm, name)(**params).fit(X[:600], y[:600])
    _agreement(ours, theirs, X[600:], y[600:])
    pairs = n_classes * (n_classes - 1) // 2
    assert ours._probA.shape == ours._probB.shape == (pairs,)
    # Same decision function as without probabilities: the main solves are unchanged.
    plain = getattr(kernelkit, name)(gamma=0.1).fit(X[:600], y[:600])
    np.testing.assert_array_equal(ours.decision_function(X[600:]), plain.decision_function(X[600:]))


def test_a9a_agrees_with_scikit_learn(a9a: Any) -> None:
    X, y = a9a.X[:3000], a9a.y[:3000]
    params: dict[str, Any] = {"probability": True, "random_state": 0, "gamma": 0.05}
    ours = kernelkit.SVC(**params).fit(X, y)
    theirs = sklearn.svm.SVC(**params).fit(X, y)
    _agreement(ours, theirs, a9a.X_test, a9a.y_test)


def test_usps_agrees_with_scikit_learn() -> None:
    z = np.load(DATA / "usps" / "usps.npz")
    X, y = z["X_train"][:1500], z["y_train"][:1500]
    X_test, y_test = z["X_test"][:600], z["y_test"][:600]
    params: dict[str, Any] = {"probability": True, "random_state": 0, "C": 10.0, "gamma": 1 / 256}
    ours = kernelkit.SVC(**params).fit(X, y)
    theirs = sklearn.svm.SVC(**params).fit(X, y)
    _agreement(ours, theirs, X_test, y_test)


def test_nu_svc_folds_a_nu_too_large_for_their_smaller_class() -> None:
    """ν = 0.39 is feasible for 80 of 400 rows (ν ≤ 2 · 80 / 400), but not for a fold of 320
    rows holding fewer than 62.4 of them. LIBSVM trains such a fold unchecked and its model is
    NaN (ρ = NaN: its r has no finite bound there), so scikit-learn's sigmoid is flat (A = 0)
    and its estimates are one constant; kernelkit's fold holds that class at its bounds
    (below) and its estimates stay informative: a lower held-out log-loss than the classes'
    shares and than scikit-learn's."""
    X, y = make_classification(600, 6, n_informative=4, weights=[0.8], flip_y=0.02, random_state=4)
    train = np.r_[np.flatnonzero(y == 1)[:80], np.flatnonzero(y == 0)[:320]]
    test = np.setdiff1d(np.arange(600), train)
    params: dict[str, Any] = {"nu": 0.39, "probability": True, "random_state": 0, "gamma": 0.2}
    ours = kernelkit.NuSVC(**params).fit(X[train], y[train])
    theirs = sklearn.svm.NuSVC(**params).fit(X[train], y[train])
    p = ours.predict_proba(X[test])
    assert np.all(np.isfinite(p)) and np.allclose(p.sum(axis=1), 1.0)
    shares = np.tile(np.bincount(y[train]) / len(train), (len(test), 1))
    loss = log_loss(y[test], p)
    assert loss <= 0.6 * log_loss(y[test], shares)
    assert loss <= log_loss(y[test], theirs.predict_proba(X[test]))


@pytest.mark.parametrize("case", ["heart", "generated"])
def test_nu_svc_folds_without_a_scale_decide_nothing(case: str) -> None:
    """A fold's ν-SVC optimum can have no positive scale r (a linear kernel, ν beyond what the
    rows separate: the model's own r is 5e-5 on heart and 4e-5 on the generated rows, every
    fold's is below 1e-3, some negative). Where r ≤ 0, w = 0 (ρν = ‖w‖² + Σξ/l with ρ = r): the
    fold's model is the zero function and decides 0 for its held-out rows, where LIBSVM's
    division by r flips its sign (the fit raised "invalid nu" before). A positive r, however
    small, is divided by, as LIBSVM does: those folds keep their direction. On heart the
    estimates are within the issue's bounds of scikit-learn's; on the generated rows they are
    better than the classes' shares and than scikit-learn's (log-loss 0.595 against 0.694 and
    0.641: its flipped folds cost it), where zeroing every fold with r ≤ tol gave the shares."""
    if case == "heart":
        z = np.load(DATA / "pu-usmo" / "heart.npz")
        X, y = (z["X"] - z["X"].mean(axis=0)) / z["X"].std(axis=0), z["y"]
        order = np.random.RandomState(0).permutation(len(y))
        X, y, nu = X[order], y[order], 0.1
    else:
        X, y = make_classification(500, 6, n_informative=4, n_classes=3, random_state=4)
        X, y, nu = X[y < 2] / 3, y[y < 2], 0.5
    n = int(0.7 * len(y))
    params: dict[str, Any] = {"kernel": "linear", "nu": nu, "probability": True, "random_state": 0}
    ours = kernelkit.NuSVC(**params).fit(X[:n], y[:n])
    theirs = sklearn.svm.NuSVC(**params).fit(X[:n], y[:n])
    if case == "heart":
        _agreement(ours, theirs, X[n:], y[n:])
        return
    p = ours.predict_proba(X[n:])
    shares = np.bincount(np.searchsorted(ours.classes_, y[:n])) / n
    loss = log_loss(y[n:], p)
    assert loss <= log_loss(y[n:], np.tile(shares, (len(p), 1))) - 0.05
    assert loss <= 1.05 * log_loss(y[n:], theirs.predict_proba(X[n:]))


def test_nu_svc_folds_with_a_small_positive_scale_keep_their_direction() -> None:
    """RBF, labels 15 % flipped, ν = 0.2: every fold's scale r is 1.4e-4 to 2.9e-4, below the
    default tol = 1e-3 (the folds are C-SVMs with C = 1/r > 1000), and each fold's model is
    77–80 % right on its held-out rows. Zeroing every fold with r ≤ tol made the estimates flat
    (probA_ = 0, log-loss log 2 against scikit-learn's 0.602); dividing by r, as LIBSVM does,
    meets the issue's bounds on the mean difference and the log-loss. The argmax agrees on
    fewer rows than elsewhere because the two libraries' own models do (their ``predict``
    agrees on 84.5 % of the test rows: r this small scales the rounding up)."""
    X, y = make_classification(800, 5, n_informative=3, flip_y=0.15, random_state=3)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
    params: dict[str, Any] = {"nu": 0.2, "probability": True, "random_state": 0}
    ours = kernelkit.NuSVC(**params).fit(X_train, y_train)
    theirs = sklearn.svm.NuSVC(**params).fit(X_train, y_train)
    assert abs(ours._probA[0]) > 0.1
    _agreement(ours, theirs, X_test, y_test, min_argmax=0.75)


def test_a_fold_stopped_early_is_warned_and_recorded() -> None:
    """max_iter one above the model's own iterations: its pair converges, but a fold needs
    more. The fold's statuses are not the model's (``status_``), so the fit says so in a
    ConvergenceWarning naming the fold, and ``fit_status_`` is 1 (they were dropped)."""
    X, y = make_classification(200, 5, n_informative=3, flip_y=0.1, random_state=7)
    params: dict[str, Any] = {"C": 10.0, "gamma": 0.5, "engine": "libsvm", "random_state": 0}
    iterations = int(kernelkit.SVC(**params).fit(X, y).n_iter_[0])
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        model = kernelkit.SVC(probability=True, max_iter=iterations + 1, **params).fit(X, y)
    assert model.status_ == ["converged"] and model.fit_status_ == 1
    stopped = [r for r in records if issubclass(r.category, kernelkit.ConvergenceWarning)]
    assert len(stopped) == 1
    assert "of the probability estimates' 5 fold solves" in str(stopped[0].message)
    assert "max_iterations" in str(stopped[0].message)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        converged = kernelkit.SVC(probability=True, **params).fit(X, y)
    assert converged.fit_status_ == 0
    assert not any(issubclass(r.category, kernelkit.ConvergenceWarning) for r in records)


def test_a_capped_nu_svc_solve_is_the_qp_with_the_class_sums_capped() -> None:
    """The fold's solve against cvxpy + Clarabel: min ½ αᵀQα over 0 ≤ α ≤ w with each
    class's sum min(ν Σw / 2, its Σw), the same optimum as LIBSVM's unchecked solver's."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = np.where(np.arange(60) < 18, 1.0, -1.0)
    X[y > 0] += 0.8
    weights = rng.uniform(0.5, 1.5, size=60)
    nu, gamma = 0.7, 0.5  # ν Σw / 2 exceeds the positive class's weight
    kernel = kernelkit._core.Kernel("rbf", gamma=gamma)
    with pytest.raises(ValueError, match="nu"):
        kernelkit._core.solve_nu_svc(X, y, weights, nu, kernel, tol=1e-10)
    solution, r = kernelkit._core.solve_nu_svc(
        X, y, weights, nu, kernel, None, None, True, tol=1e-10
    )
    with pytest.raises(ValueError, match="capped"):  # a fold starts from LIBSVM's point
        kernelkit._core.solve_nu_svc(
            X, y, weights, nu, kernel, np.asarray(solution.x) * r, None, True
        )
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    alpha = cp.Variable(60)
    sums = [min(nu * weights.sum() / 2, weights[y == side].sum()) for side in (1.0, -1.0)]
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.quad_form(alpha, cp.psd_wrap(Q))),
        [
            alpha >= 0,
            alpha <= weights,
            cp.sum(alpha[y > 0]) == sums[0],
            cp.sum(alpha[y < 0]) == sums[1],
        ],
    )
    problem.solve(solver=cp.CLARABEL)
    unscaled = np.asarray(solution.x) * r
    assert sums[0] == pytest.approx(weights[y > 0].sum())
    np.testing.assert_allclose(unscaled[y > 0], weights[y > 0], rtol=1e-12)
    assert 0.5 * unscaled @ Q @ unscaled == pytest.approx(problem.value, rel=1e-6)
    np.testing.assert_allclose(unscaled, alpha.value, atol=1e-4)


# -- inputs --------------------------------------------------------------------------------


def test_sparse_precomputed_and_callable_kernels_give_the_dense_estimates() -> None:
    """The folds are drawn the same way whatever the input: the same fold models, so the
    same sigmoids up to the rounding of the kernel values and the solver's tolerance."""
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=7)
    params: dict[str, Any] = {"probability": True, "random_state": 3, "tol": 1e-8}
    dense = kernelkit.SVC(gamma=0.2, **params).fit(X, y)
    sparse = kernelkit.SVC(gamma=0.2, **params).fit(sp.csr_matrix(X), y)
    gram = kernelkit.SVC(kernel="precomputed", **params).fit(rbf_kernel(X, gamma=0.2), y)
    function = kernelkit.SVC(kernel=lambda a, b: rbf_kernel(a, b, gamma=0.2), **params).fit(X, y)
    sparse_function = kernelkit.SVC(kernel=lambda a, b: rbf_kernel(a, b, gamma=0.2), **params)
    sparse_function.fit(sp.csr_matrix(X), y)
    expected = dense.predict_proba(X)
    np.testing.assert_allclose(sparse.predict_proba(sp.csr_matrix(X)), expected, atol=1e-6)
    np.testing.assert_allclose(gram.predict_proba(rbf_kernel(X, gamma=0.2)), expected, atol=1e-6)
    np.testing.assert_allclose(function.predict_proba(X), expected, atol=1e-6)
    np.testing.assert_allclose(sparse_function.predict_proba(sp.csr_matrix(X)), expected, atol=1e-6)


def test_float32_rows_give_the_estimates_of_their_float64_values() -> None:
    X, y = make_classification(400, 80, n_informative=10, random_state=1)
    X32 = X.astype(np.float32)
    single = kernelkit.SVC(probability=True, random_state=0).fit(X32, y)
    double = kernelkit.SVC(probability=True, random_state=0).fit(X32.astype(np.float64), y)
    np.testing.assert_allclose(single._probA, double._probA, rtol=1e-4)
    np.testing.assert_allclose(single.predict_proba(X32), double.predict_proba(X32), atol=1e-4)


def test_estimates_depend_on_random_state_not_on_threads() -> None:
    X, y = make_classification(500, 8, n_informative=5, n_classes=4, random_state=2)
    fits = {
        (seed, n_jobs): kernelkit.SVC(probability=True, random_state=seed, n_jobs=n_jobs).fit(X, y)
        for seed in (0, 1)
        for n_jobs in (1, 2)
    }
    np.testing.assert_array_equal(fits[0, 1]._probA, fits[0, 2]._probA)
    np.testing.assert_array_equal(fits[0, 1]._probB, fits[0, 2]._probB)
    np.testing.assert_array_equal(fits[0, 1].predict_proba(X), fits[0, 2].predict_proba(X))
    assert not np.array_equal(fits[0, 1]._probA, fits[1, 1]._probA)


def test_a_fold_with_one_class_decides_for_it() -> None:
    """Two rows of one class: some folds train on one class only, and LIBSVM's rule (the fold
    decides ±1 for the class it saw) keeps the fit going, as scikit-learn's does."""
    X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [2.0, 2.0], [2.1, 2.0], [2.0, 2.1], [9, 9]])
    y = np.array([0, 0, 0, 1, 1, 1, 2])
    model = kernelkit.SVC(probability=True, random_state=0).fit(X, y)
    p = model.predict_proba(X)
    assert np.all(np.isfinite(p)) and np.allclose(p.sum(axis=1), 1.0)


# -- scikit-learn's semantics --------------------------------------------------------------


@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_default_matches_scikit_learn_and_methods_exist_only_with_probability(name: str) -> None:
    ours, theirs = getattr(kernelkit, name)(), getattr(sklearn.svm, name)()
    assert ours.get_params()["probability"] == theirs.get_params()["probability"]
    assert not hasattr(ours, "predict_proba") and not hasattr(ours, "predict_log_proba")
    with pytest.raises(AttributeError, match="predict_proba") as raised:
        ours.predict_proba  # noqa: B018
    assert "probability=False" in str(raised.value.__cause__)
    on = getattr(kernelkit, name)(probability=True)
    assert hasattr(on, "predict_proba") and hasattr(on, "predict_log_proba")
    assert clone(on).get_params()["probability"] is True
    assert not hasattr(kernelkit.FrankWolfeSVC(), "predict_proba")
    assert not hasattr(kernelkit.FrankWolfeSVC(), "probA_")


def test_fitted_without_probability_is_not_fitted_for_it() -> None:
    X, y = make_classification(100, 4, random_state=0)
    model = kernelkit.SVC(probability=False).fit(X, y)
    assert model._probA.shape == (0,)
    model.set_params(probability=True)
    with pytest.raises(NotFittedError, match="probability=False"):
        model.predict_proba(X)


def test_warns_exactly_when_scikit_learn_does() -> None:
    X, y = make_classification(100, 4, random_state=0)
    for value in (True, False):
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            sklearn.svm.SVC(probability=value).fit(X, y)
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            kernelkit.SVC(probability=value).fit(X, y)

        def future(records: list[warnings.WarningMessage]) -> int:
            return sum(issubclass(r.category, FutureWarning) for r in records)

        assert future(ours) == future(theirs) == (1 if DEPRECATED else 0)
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        kernelkit.SVC().fit(X, y)
    assert not any(issubclass(r.category, FutureWarning) for r in quiet)
    if DEPRECATED:
        # A filter written for scikit-learn's words silences kernelkit's warnings too.
        with warnings.catch_warnings(record=True) as filtered:
            warnings.simplefilter("always")
            warnings.filterwarnings(
                "ignore", message="The `probability` parameter was deprecated in 1.9"
            )
            warnings.filterwarnings("ignore", message="Attribute `probA_` was deprecated in ")
            kernelkit.NuSVC(probability=True).fit(X, y).probA_  # noqa: B018
        assert not any(issubclass(r.category, FutureWarning) for r in filtered)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_probability_must_be_a_bool(value: Any) -> None:
    X, y = make_classification(50, 4, random_state=0)
    with pytest.raises(ValueError, match="probability must be"):
        kernelkit.SVC(probability=value).fit(X, y)
