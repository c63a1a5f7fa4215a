"""``kernelkit.pu.estimate_prior``: the hull QP against cvxpy + Clarabel, KM against a
pipeline built on Clarabel, the estimators on mixtures with a known prior, invariances, bad
input, the PU paper's data sets with labels hidden at random, and PUClassifier with the
estimated prior.
"""

from __future__ import annotations

import doctest
import math
from pathlib import Path
from typing import Any

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.spatial.distance import cdist, pdist
from sklearn.base import BaseEstimator, ClassifierMixin
from test_pu_tables import PRIORS  # demo2.m's rounded priors

from kernelkit import PUClassifier
from kernelkit._pu_prior import _DistanceCurve, _nearest_in_hull, _pair_steps
from kernelkit.pu import estimate_prior

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
Array = NDArray[np.float64]


def gaussian_kernel(X: Array, width: float) -> Array:
    return np.exp(-cdist(X, X, "sqeuclidean") / (2.0 * width * width))


def clarabel_hull(K: Array, u: Array) -> float:
    """``min (v − u)ᵀK(v − u)`` over the simplex by cvxpy + Clarabel, through a factor of K."""
    values, vectors = np.linalg.eigh(K)
    factor = vectors * np.sqrt(np.clip(values, 0.0, None))
    v = cp.Variable(len(u))
    problem = cp.Problem(cp.Minimize(cp.sum_squares(factor.T @ (v - u))), [v >= 0, cp.sum(v) == 1])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert problem.status == cp.OPTIMAL
    return float(problem.value)


def two_gaussians(
    rng: np.random.Generator, n: int, m: int, prior: float, shift: float = 6.0, dim: int = 2
) -> tuple[Array, NDArray[np.int64], float]:
    """``n`` unlabeled rows with a fraction ``prior`` of positives (class means ``shift``
    apart, unit covariance) and ``m`` labeled positives drawn apart; the truth is the
    unlabeled rows' positive fraction."""
    positive = rng.random(n) < prior
    unlabeled = rng.normal(size=(n, dim))
    unlabeled[positive, 0] += shift
    labeled = rng.normal(size=(m, dim))
    labeled[:, 0] += shift
    X = np.vstack([unlabeled, labeled])
    y = np.r_[np.zeros(n, dtype=np.int64), np.ones(m, dtype=np.int64)]
    return X, y, float(positive.mean())


# --------------------------------------------------------------------------------------------
# The quadratic program


def hull_problems() -> list[Any]:
    rng = np.random.default_rng(7)
    problems = []
    X = rng.normal(size=(60, 3))
    a = np.r_[np.full(40, 1 / 40), np.zeros(20)]
    b = np.r_[np.zeros(40), np.full(20, 1 / 20)]
    for width in (0.3, 1.0, 5.0):
        K = gaussian_kernel(X, width)
        for lam in (1.05, 1.6, 3.0):
            problems.append((f"gaussian width {width} lambda {lam}", K, lam * a + (1 - lam) * b))
    # A rank-3 linear kernel: singular faces, the ridge fallback.
    K = X @ X.T
    problems.append(("linear rank 3", K, 2.0 * a - b))
    # Duplicated rows: identical columns of K.
    Xd = np.vstack([X[:30], X[:30]])
    problems.append(("duplicates", gaussian_kernel(Xd, 1.0), 2.5 * a - 1.5 * b))
    # Random signs, away from the mixture structure.
    u = rng.normal(size=60)
    problems.append(("random target", gaussian_kernel(X, 1.0), u / u.sum()))
    return [pytest.param(name, K, u, id=name) for name, K, u in problems]


@pytest.mark.parametrize(("name", "K", "u"), hull_problems())
def test_hull_matches_clarabel(name: str, K: Array, u: Array) -> None:
    rng = np.random.default_rng(1)
    reference = clarabel_hull(K, u)
    for start in (np.full(len(u), 1.0), rng.random(len(u)), np.eye(len(u))[0]):
        v, value = _nearest_in_hull(K, u, start)
        assert v.min() >= 0.0 and abs(v.sum() - 1.0) < 1e-12
        # The value returned is the objective at v, and v is at least as good as Clarabel's.
        assert value == pytest.approx(float((v - u) @ K @ (v - u)), abs=1e-12)
        assert value <= reference + 1e-9
        assert value == pytest.approx(reference, abs=1e-8, rel=1e-7)
        # KKT of ½(v − u)ᵀK(v − u) on the simplex: the Frank–Wolfe gap (bounds v's error).
        gradient = K @ (v - u)
        assert gradient @ v - gradient.min() <= 1e-9 * max(1.0, float(np.abs(gradient).max()))


def test_pair_steps_descend_to_the_optimum() -> None:
    """The SMO fallback of the hull solver on its own: every step keeps ``v`` on the simplex,
    keeps the gradient equal to ``K (v − u)`` and lowers the objective, and enough steps reach
    Clarabel's optimum."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 2))
    K = gaussian_kernel(X, 1.0)
    u = np.r_[np.full(15, 1.6 / 15), np.full(10, -0.6 / 10)]
    v = np.full(25, 1 / 25)
    gradient = K @ (v - u)
    values = [float((v - u) @ K @ (v - u))]
    for _ in range(300):
        _pair_steps(K, v, gradient, 10)
        assert v.min() >= 0.0 and abs(v.sum() - 1.0) < 1e-12
        np.testing.assert_allclose(gradient, K @ (v - u), atol=1e-12)
        values.append(float((v - u) @ K @ (v - u)))
    assert np.all(np.diff(values) <= 1e-15)
    assert values[-1] == pytest.approx(clarabel_hull(K, u), abs=1e-9)


def test_distance_curve_is_zero_at_one_nondecreasing_convex_and_lipschitz() -> None:
    """Properties ``d̂`` has by construction: ``d̂(1) = 0``; convex (a distance from an affine
    path to a convex set); so, being ≥ 0 and 0 at 1, nondecreasing; and Lipschitz with
    constant ``‖φ̂(F) − φ̂(H)‖`` (the path's speed)."""
    rng = np.random.default_rng(3)
    X, y, _ = two_gaussians(rng, 150, 60, 0.4, shift=3.0)
    curve = _DistanceCurve(X, np.flatnonzero(y == 0), np.flatnonzero(y == 1))
    grid = np.linspace(1.0, 4.0, 31)
    d = np.array([curve(float(lam)) for lam in grid])
    assert d[0] == 0.0
    steps = np.diff(d)
    assert np.all(steps >= -1e-10)
    assert np.all(np.diff(steps) >= -1e-9)
    assert np.all(steps <= curve.embedding_distance * np.diff(grid) + 1e-10)


def test_bandwidth_rule_with_repeated_rows() -> None:
    """The width is the one of {10^-1, ..., 10} × the median pairwise distance (``np.median``
    of every pair of rows, repeats included) that maximises ``‖φ̂(F) − φ̂(H)‖``, computed here
    on the full rows while ``_DistanceCurve`` works on the distinct ones."""
    rng = np.random.default_rng(8)
    X, y, _ = two_gaussians(rng, 40, 20, 0.5, shift=1.0)
    X = np.vstack([X, X[:15], X[50:55]])  # repeats inside each sample
    y = np.r_[y, y[:15], y[50:55]]
    mixture, component = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    curve = _DistanceCurve(X, mixture, component)
    pooled = X[np.r_[mixture, component]]
    median = math.sqrt(float(np.median(pdist(pooled, "sqeuclidean"))))
    a = np.r_[np.full(len(mixture), 1 / len(mixture)), np.zeros(len(component))]
    b = np.r_[np.zeros(len(mixture)), np.full(len(component), 1 / len(component))]
    scored = [
        (math.sqrt((a - b) @ gaussian_kernel(pooled, f * median) @ (a - b)), f * median)
        for f in np.logspace(-1, 1, 5)
    ]
    distance, width = max(scored)
    assert curve.width == pytest.approx(width, rel=1e-12)
    assert curve.embedding_distance == pytest.approx(distance, rel=1e-10)
    assert len(curve.kernel) == len(np.unique(pooled, axis=0))


def km_with_clarabel(X: Array, y: NDArray[np.int64], method: str) -> float:
    """KM1/KM2 written out plainly (module doc of ``_pu_prior``) with every ``d̂(λ)`` solved
    by Clarabel: the oracle of the whole estimator on rows without repeats."""
    mixture, component = X[y == 0], X[y == 1]
    n, m = len(mixture), len(component)
    pooled = np.vstack([mixture, component])
    median = math.sqrt(float(np.median(pdist(pooled, "sqeuclidean"))))
    a = np.r_[np.full(n, 1 / n), np.zeros(m)]
    b = np.r_[np.zeros(n), np.full(m, 1 / m)]
    scored = []
    for factor in np.logspace(-1, 1, 5):
        K = gaussian_kernel(pooled, factor * median)
        scored.append((math.sqrt((a - b) @ K @ (a - b)), K))
    distance, K = max(scored, key=lambda pair: pair[0])

    def d(lam: float) -> float:
        return 0.0 if lam == 1.0 else math.sqrt(max(clarabel_hull(K, lam * a + (1 - lam) * b), 0))

    threshold = 0.8 * (d(1.05) - d(1.0)) / 0.05 + 0.2 * distance
    if method == "km1" and 1 / math.sqrt(min(n, m)) <= 0.9 * distance:
        threshold = 1 / math.sqrt(min(n, m))
    low, high = 1.0, 8.0
    while high - low > 0.04:
        middle = (low + high) / 2
        if (d(middle + 0.02) - d(middle)) / 0.02 > threshold:
            high = middle
        else:
            low = middle
    return 1.0 - 2.0 / (low + high)


@pytest.mark.parametrize("method", ["km1", "km2"])
@pytest.mark.parametrize("prior", [0.3, 0.6])
def test_km_matches_the_estimator_built_on_clarabel(method: str, prior: float) -> None:
    rng = np.random.default_rng(11)
    X, y, _ = two_gaussians(rng, 90, 40, prior, shift=3.0)
    assert estimate_prior(X, y, method=method) == pytest.approx(
        km_with_clarabel(X, y, method), abs=1e-12
    )


# --------------------------------------------------------------------------------------------
# Mixtures with a known prior


@pytest.mark.parametrize("prior", [0.25, 0.5, 0.75])
def test_km2_on_separated_gaussians(prior: float) -> None:
    """Two Gaussian classes 6 standard deviations apart (irreducible, as any two Gaussians of
    one covariance are): Ramaswamy et al. bound KM's error by O(1/√min(n, m)), to which the
    bisection adds its resolution ``0.02/λ² ≤ 0.02``; tolerance ``1/√min(n, m) + 0.02``."""
    n, m = 500, 250
    X, y, truth = two_gaussians(np.random.default_rng(int(prior * 100)), n, m, prior)
    assert abs(estimate_prior(X, y) - truth) <= 1 / math.sqrt(min(n, m)) + 0.02


def single_pool(
    rng: np.random.Generator, size: int, prior: float, share: float
) -> tuple[Array, NDArray[np.int64], float]:
    """Elkan and Noto's setting: one pool, exactly ``round(share · positives)`` of its
    positives labeled (so ``c`` is exact), the rest unlabeled."""
    positive = rng.random(size) < prior
    X = rng.normal(size=(size, 2))
    X[positive, 0] += 6.0
    chosen = rng.permutation(np.flatnonzero(positive))[: round(share * positive.sum())]
    y = np.zeros(size, dtype=np.int64)
    y[chosen] = 1
    return X, y, float(positive[y == 0].mean())


@pytest.mark.parametrize(("prior", "share"), [(0.3, 0.5), (0.5, 0.6)])
def test_elkan_noto_on_separated_gaussians(prior: float, share: float) -> None:
    """Separable classes, so ``P(s = 1 | x) = c`` on every positive and ``e1`` is the labeled
    share of the ``P = p/c`` positives as the calibration sees it: off by ~``√(c(1 − c)/P)``
    (binomial), which ``π_U = p (1 − c)/(c n)`` multiplies by ``p/(c² n)``. Tolerance three
    times that."""
    X, y, truth = single_pool(np.random.default_rng(5), 800, prior, share)
    p, n = int(y.sum()), int((y == 0).sum())
    c = share
    tolerance = 3 * math.sqrt(c * (1 - c) / (p / c)) * p / (c * c * n)
    assert abs(estimate_prior(X, y, method="elkan_noto", random_state=0) - truth) <= tolerance


class ShareOfPositives(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """``P(s = 1 | x) = c · x₀`` for a 0/1 column ``x₀`` (the true class): the exact
    probabilities of Elkan and Noto's model."""

    def __init__(self, c: float = 0.5) -> None:
        self.c = c

    def fit(self, X: Any, y: Any) -> ShareOfPositives:
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X: Any) -> Array:
        g = self.c * np.asarray(X)[:, 0]
        return np.column_stack([1 - g, g])


@pytest.mark.parametrize("method", ["elkan_noto", "elkan_noto_e2", "elkan_noto_e3"])
def test_elkan_noto_conversion_is_exact_with_exact_probabilities(method: str) -> None:
    """200 positives, 50 of them labeled (``c = 0.25``), 400 negatives: with ``g = c`` on the
    positives and 0 elsewhere, ``e1 = e2 = e3 = c`` and ``p (1 − c)/(c n) = 150/550``."""
    rng = np.random.default_rng(0)
    positive = np.r_[np.ones(200), np.zeros(400)]
    X = np.column_stack([positive, rng.normal(size=600)])
    y = np.zeros(600, dtype=np.int64)
    y[:50] = 1
    value = estimate_prior(X, y, method=method, classifier=ShareOfPositives(0.25))
    assert value == pytest.approx(150 / 550, abs=1e-12)


# --------------------------------------------------------------------------------------------
# Invariances


@pytest.mark.parametrize("method", ["km1", "km2"])
def test_km_ignores_row_order_and_rigid_motions(method: str) -> None:
    rng = np.random.default_rng(2)
    X, y, _ = two_gaussians(rng, 200, 80, 0.45, shift=3.0, dim=3)
    reference = estimate_prior(X, y, method=method)
    order = rng.permutation(len(y))
    assert estimate_prior(X[order], y[order], method=method) == reference
    rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    moved = 3.0 * (X @ rotation) + rng.normal(size=3)  # distances scale, the median with them
    assert estimate_prior(moved, y, method=method) == pytest.approx(reference, abs=1e-9)
    # Repeated rows are merged exactly: sparse input (hashed rows) gives the dense result.
    assert estimate_prior(sp.csr_matrix(X), y, method=method) == pytest.approx(reference, abs=1e-9)


def test_subsamples_follow_random_state() -> None:
    rng = np.random.default_rng(4)
    X, y, truth = two_gaussians(rng, 300, 120, 0.5)
    full = estimate_prior(X, y)
    assert estimate_prior(X, y, max_samples=300, random_state=1) == full  # nothing drawn
    small = estimate_prior(X, y, max_samples=100, random_state=1)
    assert small == estimate_prior(X, y, max_samples=100, random_state=1)
    assert abs(small - truth) <= 1 / math.sqrt(100) + 0.02


def test_docstring_validates_and_its_example_runs() -> None:
    from numpydoc.validate import validate

    errors = [
        (code, message)
        for code, message in validate("kernelkit.pu.estimate_prior")["errors"]
        if code not in {"ES01", "SA01", "EX01"}
    ]
    assert errors == []
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(estimate_prior, "estimate_prior", globs={}):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# --------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("X", "y", "kwargs", "error", "match"),
    [
        (np.zeros((4, 2)), [0, 0, 0, 0], {}, ValueError, "no labeled positive"),
        (np.zeros((4, 2)), [1, 1, 1, 1], {}, ValueError, "no unlabeled row"),
        (np.zeros((4, 2)), [1, 0, -1, 0], {}, ValueError, "y must hold 1"),
        (np.zeros((4, 2)), [1, 0, np.nan, 0], {}, ValueError, "y contains NaN"),
        (np.zeros((4, 2)), ["a", "b", "a", "b"], {}, ValueError, "y must hold 1"),
        (np.zeros((4, 2)), [1, 0, 0], {}, ValueError, "one label per row"),
        (np.zeros((4, 2)), [[1, 0], [0, 0]], {}, ValueError, "y must"),
        (np.array([[0.0], [np.nan], [1], [2]]), [1, 0, 0, 0], {}, ValueError, "NaN"),
        (np.zeros((4, 2)), [1, 0, 0, 0], {"method": "tice"}, ValueError, "method must be one"),
        (np.zeros((4, 2)), [1, 0, 0, 0], {"max_samples": 0}, ValueError, "max_samples"),
        (np.zeros((4, 2)), [1, 0, 0, 0], {"max_samples": 2.5}, TypeError, "max_samples"),
        (np.zeros((4, 2)), [1, 0, 0, 0], {"method": "elkan_noto", "cv": 1}, ValueError, "cv"),
        (np.zeros((12, 2)), [1, 1] + [0] * 10, {"method": "elkan_noto"}, ValueError, "y has 2"),
    ],
)
def test_bad_input(X: Any, y: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        estimate_prior(X, y, **kwargs)


def test_identical_rows_everywhere() -> None:
    """Every row equal: the two samples' embeddings coincide, ``d̂ = 0`` on the whole path
    and KM returns the top of its range (0.875 up to the bisection's resolution)."""
    X = np.ones((30, 2))
    y = np.r_[np.ones(10, dtype=np.int64), np.zeros(20, dtype=np.int64)]
    assert estimate_prior(X, y) == pytest.approx(1 - 1 / 8, abs=0.01)


# --------------------------------------------------------------------------------------------
# The PU paper's data sets, labels hidden at random (benches/reproduce_pu_tables.py)


def hidden_labels(name: str, seed: int) -> tuple[Array, NDArray[np.int64], float]:
    """``reproduce_pu_tables.py``'s labeling: ``⌊0.2·π·N⌋`` random positives labeled."""
    with np.load(DATA / "pu-usmo" / f"{name}.npz") as z:
        X, y = np.asarray(z["X"], dtype=np.float64), np.asarray(z["y"], dtype=np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    labeled = np.zeros(len(y), dtype=bool)
    labeled[order[y[order] == 1][: math.floor(len(y) * PRIORS[name] * 0.2)]] = True
    return X, labeled.astype(np.int64), float(y[~labeled].mean())


@pytest.mark.slow
def test_km2_within_005_on_three_of_the_twelve_sets() -> None:
    """The issue's acceptance: KM2, with its published defaults, is within 0.05 of the truth
    on at least three of the 12 sets, here the mean of its estimates over labelings 0-2.
    Measured with benches/reproduce_pu_tables.py --prior (docs/pu_classifier.md, "The prior"): that
    mean is within 0.05 on exactly three sets, House, Isolet and Krvskp. It does not hold on
    every labeling: of labelings 0-4, 3, 1, 4, 4 and 3 sets are within 0.05 (on labeling 1
    only Krvskp)."""
    close = []
    for name in PRIORS:
        results = [hidden_labels(name, seed) for seed in range(3)]
        estimates = [estimate_prior(X, y) for X, y, _ in results]
        if abs(np.mean(estimates) - results[0][2]) <= 0.05:
            close.append(name)
    assert len(close) >= 3, close


def test_pu_classifier_with_the_estimated_prior() -> None:
    """A PU problem as in PUClassifier's docs (one pool, 30 % of the positives labeled):
    the classifier trained with the KM2 estimate is as accurate on the true labels as the one
    trained with the true prior, within 0.02, and predicts the same on 97 % of test rows."""
    rng = np.random.default_rng(0)

    def draw(size: int) -> tuple[Array, NDArray[np.int64]]:
        y_true = (rng.random(size) < 0.4).astype(np.int64)
        centres = np.where(y_true[:, None] == 1, [1.5, 1.5], [-1.0, -1.0])
        return rng.normal(size=(size, 2)) + centres, y_true

    X, y_true = draw(1000)
    X_test, y_test = draw(2000)
    s = ((y_true == 1) & (rng.random(1000) < 0.3)).astype(np.int64)
    truth = float(y_true[s == 0].mean())
    estimate = estimate_prior(X, s)
    assert abs(estimate - truth) <= 0.1
    with_truth = PUClassifier(prior=truth, gamma=0.5).fit(X, s)
    with_estimate = PUClassifier(prior=estimate, gamma=0.5).fit(X, s)
    assert with_estimate.score(X_test, y_test) >= with_truth.score(X_test, y_test) - 0.02
    agreement = np.mean(with_estimate.predict(X_test) == with_truth.predict(X_test))
    assert agreement >= 0.97


def test_pu_classifier_is_tagged_binary_and_refuses_other_targets_as_scikit_learn() -> None:
    """The tags said multiclass (scikit-learn's estimator checks then fed it three classes);
    PU labels are two, 1 and 0, and other targets get scikit-learn's errors."""
    from kernelkit import PUClassifier

    assert PUClassifier().__sklearn_tags__().classifier_tags.multi_class is False
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        PUClassifier(prior=0.5).fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        PUClassifier(prior=0.5).fit(X, np.linspace(0.0, 1.0, 30))
