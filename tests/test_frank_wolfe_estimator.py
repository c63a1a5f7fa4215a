"""FrankWolfeSVC (seed paper 002: CVM, FW, MFW as a minimum enclosing ball) as an estimator:
sampling, threads, multiclass, input validation and persistence.

Asserted here:

* sampled mode (r = 59) is deterministic for a fixed random_state, and the solution is
  bit-identical with 1 and 2 threads in full-scan and sampled mode (digest A8, B4);
* sampled-mode test accuracy is within 1 point of full-scan accuracy on a9a (MFW) and on USPS
  digits 3 / 5 / 8 (FW, MFW) (digest A8, B2);
* one-vs-one: each pair's α satisfies the oracle bound against the certified cvxpy + Clarabel
  optimum of its own pair problem, accuracy is within 1 point of scikit-learn's SVC (LIBSVM),
  and predict is the majority vote of separately fitted binary models (digest A9);
* bad parameters and bad data are refused (estimator and low level), and so are kernel values
  that overflow off the diagonal; a run stopped by max_iter warns, MEBClassifier is
  FrankWolfeSVC and a fitted model survives pickle bit for bit;
* Theorem 1, the r = 59 sampling bound, by its exact hypergeometric probability and a Monte
  Carlo simulation (pure NumPy, digest A8, T10).

The oracle and the helpers are in ``kk_frank_wolfe.py``; the data fixtures in ``conftest.py``.
Digest: ``shared/papers/seed-002-frank-wolfe.md``.
"""

from __future__ import annotations

import math
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from conftest import Dataset
from kk_frank_wolfe import (
    DATA,
    MAINTAINED_RTOL,
    Array,
    assert_oracle_bound,
    assert_same_model,
    assert_simplex,
    core_kernel,
    gamma_rule,
    make_data,
    modified_kernel,
    multiclass_blobs,
    rbf,
    reference,
    rel,
    solve,
)
from kk_oracles import svc_pairs
from numpy.typing import NDArray
from sklearn.svm import SVC as SklearnSVC

import kernelkit


# --------------------------------------------------------------------------------------------
# 1. sampling: determinism and accuracy (digest A8, B2)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["cvm", "fw", "mfw"])
def test_sampled_mode_is_deterministic(a9a: Dataset, method: str) -> None:
    """sample_size = 59 with a fixed random_state: two fits, and fits with n_jobs = 1 and 2, give
    bit-identical models (seeded RNG, ordered reductions, smallest-index tie break)."""
    x, y = a9a.X[:600], a9a.y[:600]
    params: dict[str, Any] = {
        "method": method,
        "C": 1.0,
        "gamma": 0.03,
        "epsilon": 1e-4,
        "sample_size": 59,
        "random_state": 5,
    }
    first = kernelkit.FrankWolfeSVC(**params, n_jobs=1).fit(x, y)
    again = kernelkit.FrankWolfeSVC(**params, n_jobs=1).fit(x, y)
    two = kernelkit.FrankWolfeSVC(**params, n_jobs=2).fit(x, y)
    assert int(np.ravel(first.n_iter_)[0]) > 0
    assert_same_model(first, again)
    assert_same_model(first, two)
    np.testing.assert_array_equal(
        first.decision_function(a9a.X_test), two.decision_function(a9a.X_test)
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "sample_size"),
    [("cvm", 59), ("fw", None), ("fw", 59), ("mfw", None), ("mfw", 59)],
    ids=lambda v: str(v),
)
def test_thread_count_does_not_change_the_solution(method: str, sample_size: int | None) -> None:
    """6000 points (above the length from which the O(m) passes and kernel blocks run in
    parallel, so n_jobs = 2 really splits the work): the solution with 1 and 2 threads is
    bit-identical (α, objective, iterations, step counts), in full-scan and sampled mode
    (digest A8, B4). CVM's full-scan mode is left out only for time (its SMO is sequential)."""
    x, y = make_data("random", 6000, 3, 21)
    kernel = core_kernel("rbf", gamma_rule(x[:500]))
    one, two = (
        solve(x, y, kernel, 10.0, method, 1e-4, sample_size=sample_size, seed=1, n_jobs=n_jobs)
        for n_jobs in (1, 2)
    )
    assert one.status == two.status == "converged"
    np.testing.assert_array_equal(np.asarray(one.x), np.asarray(two.x))
    assert (one.objective, one.bias, one.gap, one.iterations) == (
        two.objective,
        two.bias,
        two.gap,
        two.iterations,
    )
    for key in ("fw_steps", "away_steps", "drop_steps", "coreset_size", "radius2"):
        assert one.stats[key] == two.stats[key], key


def _accuracy_pair(
    x: Array, y: NDArray[Any], x_test: Array, y_test: NDArray[Any], **params: Any
) -> tuple[float, float]:
    full = kernelkit.FrankWolfeSVC(**params, sample_size=None).fit(x, y)
    sampled = kernelkit.FrankWolfeSVC(**params, sample_size=59).fit(x, y)
    assert all(s == "converged" for s in np.ravel(full.status_))
    return float(np.mean(full.predict(x_test) == y_test)), float(
        np.mean(sampled.predict(x_test) == y_test)
    )


@pytest.mark.slow
def test_sampled_accuracy_matches_full_scan_on_a9a(a9a: Dataset) -> None:
    """a9a (first 1000 training rows, 2000 test rows), MFW: sampled-mode (r = 59) test accuracy is
    within 1 point of full-scan accuracy (same C, γ, ε).

    Why ε = 1e-4: the stopping rule is relative to g = Δ² − R ≈ 2 + 1/C (eq. 37), while R*, which
    carries the classifier, is two orders of magnitude smaller, so ε must be well below R*/Δ² for
    the iterate to be a classifier at all (at ε = 1e-3 both modes still predict the majority
    class). 1e-4 gives models within a few tenths of a point of ε = 1e-5, and keeps the sampled
    run, whose iterations cost r·|core| kernel rows each, near a second (digest P12)."""
    x, y = a9a.X[:1000], a9a.y[:1000]
    params = {"method": "mfw", "C": 1.0, "gamma": gamma_rule(x), "epsilon": 1e-4}
    full, sampled = _accuracy_pair(x, y, a9a.X_test, a9a.y_test, random_state=0, **params)
    majority = max(np.mean(a9a.y_test == 1), np.mean(a9a.y_test == -1))
    assert full > majority + 0.03, (full, majority)
    assert abs(full - sampled) <= 0.01, (full, sampled)


@pytest.mark.slow
def test_sampled_accuracy_matches_full_scan_on_usps() -> None:
    """USPS digits 3 / 5 / 8 (one-vs-one, 1756 training rows, 492 test rows): sampled-mode test
    accuracy within 1 point of full scan, for FW and MFW (same C, γ; ε = 1e-4 as on a9a, within
    0.4 points of ε = 1e-5 here)."""
    z = np.load(DATA / "usps" / "usps.npz")
    keep, keep_test = np.isin(z["y_train"], [3, 5, 8]), np.isin(z["y_test"], [3, 5, 8])
    x = np.asarray(z["X_train"][keep], dtype=np.float64)
    y = np.asarray(z["y_train"][keep])
    x_test = np.asarray(z["X_test"][keep_test], dtype=np.float64)
    y_test = np.asarray(z["y_test"][keep_test])
    gamma = gamma_rule(x[::4])
    for method in ("fw", "mfw"):
        full, sampled = _accuracy_pair(
            x, y, x_test, y_test, method=method, C=10.0, gamma=gamma, epsilon=1e-4, random_state=0
        )
        assert full > 0.9, (method, full)
        assert abs(full - sampled) <= 0.01, (method, full, sampled)


# --------------------------------------------------------------------------------------------
# 2. multiclass one-vs-one (digest A9)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_classes", [3, 4])
def test_one_vs_one(n_classes: int) -> None:
    """K(K−1)/2 binary MEB problems: each pair's α (read from the LIBSVM layout) satisfies the
    oracle bound of its own pair problem and objective_[p] = αᵀK̃α; test accuracy ≥ sklearn's SVC
    (same kernel, γ, C) − 1 point; predict is the majority vote (ties → smaller class index) of
    binary FrankWolfeSVC models fitted separately on each pair."""
    x, y = multiclass_blobs(n_classes, 60 * n_classes, 20 + n_classes)
    x_test, y_test = multiclass_blobs(n_classes, 500, 40 + n_classes)
    gamma, c, eps = 0.5, 10.0, 1e-8
    params: dict[str, Any] = {
        "method": "mfw",
        "C": c,
        "gamma": gamma,
        "epsilon": eps,
        "sample_size": None,
        "random_state": 0,
    }
    model = kernelkit.FrankWolfeSVC(**params).fit(x, y)
    classes = np.unique(y)
    np.testing.assert_array_equal(model.classes_, classes)
    n_pairs = n_classes * (n_classes - 1) // 2
    assert len(np.ravel(model.objective_)) == n_pairs
    assert len(np.ravel(model.n_iter_)) == n_pairs

    for p, pair in enumerate(svc_pairs(model, y)):
        xs, ys = x[pair.rows], pair.s
        kt = modified_kernel(xs, ys, rbf(gamma), c)
        ref = reference(("ovo", n_classes, p), kt)
        assert_simplex(pair.alpha, f"pair {p}")
        assert_oracle_bound(kt, pair.alpha, ref, eps, f"pair {p}")
        r = float(pair.alpha @ kt @ pair.alpha)
        assert rel(float(np.ravel(model.objective_)[p]), r) <= MAINTAINED_RTOL
        assert abs(pair.intercept - float(pair.alpha @ ys)) <= 1e-12

    accuracy = float(np.mean(model.predict(x_test) == y_test))
    sklearn_accuracy = float(
        np.mean(SklearnSVC(C=c, gamma=gamma).fit(x, y).predict(x_test) == y_test)
    )
    assert accuracy >= sklearn_accuracy - 0.01, (accuracy, sklearn_accuracy)

    votes = np.zeros((len(x_test), n_classes), dtype=np.int64)
    smallest_margin = np.full(len(x_test), np.inf)
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            rows = np.isin(y, classes[[i, j]])
            binary = kernelkit.FrankWolfeSVC(**params).fit(x[rows], y[rows])
            h = binary.decision_function(x_test)  # positive for classes[j]
            votes[:, j] += h > 0
            votes[:, i] += h <= 0
            smallest_margin = np.minimum(smallest_margin, np.abs(h))
    majority = classes[np.argmax(votes, axis=1)]
    # Both solutions are within ε′ of the unique optimum; only a point whose pair decision is
    # ~0 could legitimately flip.
    clear = smallest_margin > 1e-6
    assert clear.mean() >= 0.98
    np.testing.assert_array_equal(model.predict(x_test)[clear], majority[clear])


# --------------------------------------------------------------------------------------------
# 3. bad input, max_iter, alias and pickle
# --------------------------------------------------------------------------------------------
def _bad_input_data() -> tuple[Array, Array]:
    return make_data("blobs", 30, 2, 0)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"method": "nope"}, r"method"),
        ({"epsilon": 0.0}, r"epsilon"),
        ({"epsilon": -1e-3}, r"epsilon"),
        ({"C": 0.0}, r"\bC\b"),
        ({"C": -1.0}, r"\bC\b"),
        ({"sample_size": 0}, r"sample_size"),
        ({"init_size": 1}, r"init_size"),
        ({"init_size": 0}, r"init_size"),
        ({"sample_pool": "core"}, r"sample_pool"),
    ],
    ids=lambda v: str(v),
)
def test_bad_parameters(params: dict[str, Any], match: str) -> None:
    """Each bad parameter is refused, naming the parameter, by the estimator and the low level."""
    x, y = _bad_input_data()
    with pytest.raises((ValueError, TypeError), match=match):
        kernelkit.FrankWolfeSVC(**params).fit(x, y)
    low: dict[str, Any] = {"C": 1.0, "method": "mfw", "epsilon": 1e-4, **params}
    extra = {k: v for k, v in params.items() if k not in ("C", "method", "epsilon")}
    with pytest.raises((ValueError, TypeError), match=match):
        solve(x, y, core_kernel("rbf", 0.5), low["C"], low["method"], low["epsilon"], **extra)


def test_bad_data() -> None:
    """One class, NaN in X, and (low level) labels other than ±1 (they enter K̃, digest P14)."""
    x, y = _bad_input_data()
    with pytest.raises(ValueError, match=r"(?i)class"):
        kernelkit.FrankWolfeSVC().fit(x, np.ones(len(y)))
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"(?i)nan|finite"):
        kernelkit.FrankWolfeSVC().fit(bad, y)
    with pytest.raises(ValueError, match=r"(?i)nan|finite"):
        kernelkit.FrankWolfeSVC().fit(x, y).decision_function(bad)
    with pytest.raises(ValueError, match=r"(?i)\by\b|label|±1|-1"):
        solve(x, (y > 0).astype(np.float64), core_kernel("rbf", 0.5), 1.0, "mfw", 1e-4)


@pytest.mark.parametrize("method", ["cvm", "fw", "mfw"])
@pytest.mark.parametrize("sample_size", [59, None])
def test_kernel_values_that_overflow_off_the_diagonal_are_refused(
    method: str, sample_size: int | None
) -> None:
    """``(⟨x, z⟩ − 1)^2000`` on unit rows: every ``k(x, x)`` is 0, but a pair of rows that point
    apart gives ``2^2000 = inf``. The searches skipped the NaN it made of ``s``: FW and MFW
    reported "converged" after 0 iterations with NaN decision values, CVM failed with "invalid
    gradient0". The solve now ends with ``numerical_error``, which the fit refuses, keeping
    the previous model."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 3))
    x /= np.linalg.norm(x, axis=1)[:, None]
    y = np.where(x[:, 0] > 0, 1, -1)
    params = {"method": method, "sample_size": sample_size, "random_state": 0}
    model = kernelkit.FrankWolfeSVC(kernel="rbf", **params).fit(x, y)
    before = model.decision_function(x)
    overflowing = {"kernel": "poly", "degree": 2000, "coef0": -1.0, "gamma": 1.0}
    with pytest.raises(ValueError, match=r"not finite \(status 'numerical_error'\)"):
        model.set_params(**overflowing).fit(x, y)
    np.testing.assert_array_equal(model.decision_function(x), before)


def test_estimator_warns_at_max_iter() -> None:
    """The estimator reports a run stopped by max_iter (status_ and a ConvergenceWarning); the low
    level only reports the status."""
    x, y = make_data("xor", 80, 2, 0)
    with pytest.warns(kernelkit.ConvergenceWarning):
        model = kernelkit.FrankWolfeSVC(method="fw", epsilon=1e-8, sample_size=None, max_iter=5)
        model.fit(x, y)
    assert list(np.ravel(model.status_)) == ["max_iterations"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = solve(x, y, core_kernel("rbf", 0.5), 1.0, "fw", 1e-8, max_iter=5)
    assert sol.status == "max_iterations" and sol.iterations == 5


def test_alias_and_pickle_round_trip() -> None:
    """MEBClassifier is FrankWolfeSVC; a fitted model survives pickle bit for bit."""
    assert kernelkit.MEBClassifier is kernelkit.FrankWolfeSVC
    x, y = make_data("random", 120, 3, 9)
    model = kernelkit.FrankWolfeSVC(gamma=1.0, random_state=0).fit(x, y)
    restored = pickle.loads(pickle.dumps(model))
    assert_same_model(model, restored)
    np.testing.assert_array_equal(restored.decision_function(x), model.decision_function(x))


# --------------------------------------------------------------------------------------------
# 4. Theorem 1: the sampling bound (digest A8, T10), pure NumPy
# --------------------------------------------------------------------------------------------
def test_theorem_1_monte_carlo() -> None:
    """For m reals and a random subset of r = 59 (without replacement), the subset's max is
    among the top 5% with probability ≥ 1 − 0.95^59 ≥ 0.95; 59 is the smallest such r. The
    exact (hypergeometric) probability and a 10⁴-trial simulation both meet the bound."""
    r, m = 59, 200
    assert 1 - 0.95**r >= 0.95 > 1 - 0.95 ** (r - 1)
    top = m - math.ceil(0.95 * m)  # the 5% largest
    exact = 1 - math.comb(m - top, r) / math.comb(m, r)
    assert exact >= 1 - 0.95**r
    rng = np.random.default_rng(0)
    trials = 10_000
    values = rng.random((trials, m))
    sample = rng.permuted(np.tile(np.arange(m), (trials, 1)), axis=1)[:, :r]
    threshold = np.sort(values, axis=1)[:, m - top]
    hit = np.take_along_axis(values, sample, axis=1).max(axis=1) >= threshold
    sigma = math.sqrt(exact * (1 - exact) / trials)
    assert abs(hit.mean() - exact) <= 4 * sigma, (hit.mean(), exact)
    assert hit.mean() >= 0.95


def test_mean_distance_gamma_is_the_papers_width() -> None:
    """gamma="mean_distance" is 1 / (2 d̄), d̄ the mean squared distance over distinct pairs:
    against scipy's pairwise distances, dense and CSR; on standardised columns about a quarter
    of "scale"; the model equals the one fitted with that float; the other estimators, which do
    not offer the rule, name gamma in their error."""
    import scipy.sparse as sp
    from scipy.spatial.distance import pdist
    from sklearn.preprocessing import StandardScaler

    from kernelkit._validation import mean_distance_gamma, scale_gamma

    rng = np.random.default_rng(11)
    x = rng.normal(size=(120, 7)) * rng.uniform(0.5, 3.0, size=7) + 4.0
    reference = 1.0 / (2.0 * float(np.mean(pdist(x, "sqeuclidean"))))
    assert math.isclose(mean_distance_gamma(x), reference, rel_tol=1e-12)
    sparse = np.where(rng.random(x.shape) < 0.6, 0.0, x)
    expected = 1.0 / (2.0 * float(np.mean(pdist(sparse, "sqeuclidean"))))
    assert math.isclose(mean_distance_gamma(sp.csr_matrix(sparse)), expected, rel_tol=1e-12)
    assert mean_distance_gamma(np.ones((5, 3))) == 1.0 and mean_distance_gamma(x[:1]) == 1.0
    standardised = StandardScaler().fit_transform(x)
    assert 3.9 < scale_gamma(standardised) / mean_distance_gamma(standardised) < 4.1
    y = (x[:, 0] > x[:, 0].mean()).astype(int)
    named = kernelkit.FrankWolfeSVC(gamma="mean_distance", random_state=0).fit(x, y)
    number = kernelkit.FrankWolfeSVC(gamma=reference, random_state=0).fit(x, y)
    np.testing.assert_allclose(named.dual_coef_, number.dual_coef_, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="gamma"):
        kernelkit.SVC(gamma="mean_distance").fit(x, y)


@pytest.mark.parametrize("method", ["cvm", "fw", "mfw"])
def test_furthest_pair_start_reaches_the_same_ball(method: str) -> None:
    """init="furthest" (the paper's Option A) starts elsewhere but stops on the same ball:
    the squared radius within the stopping rule's relative 2ε + ε² of the random start's, and
    predictions that agree; an unknown init is named. Plain FW's steps grow as 1/ε (4.7 minutes
    at ε = 1e-8 on a loaded 2-core machine), so it stops at ε = 1e-6."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 4))
    y = (x[:, 0] + 0.5 * x[:, 1] + 0.3 * rng.normal(size=300) > 0).astype(int)
    epsilon = 1e-6 if method == "fw" else 1e-8
    params: dict[str, Any] = {"method": method, "C": 10.0, "gamma": 0.3, "epsilon": epsilon}
    params.update(sample_size=None, random_state=0)
    random_start = kernelkit.FrankWolfeSVC(**params).fit(x, y)
    furthest = kernelkit.FrankWolfeSVC(init="furthest", **params).fit(x, y)
    relative = 2 * epsilon + epsilon**2
    np.testing.assert_allclose(furthest.radius2_, random_start.radius2_, rtol=2 * relative)
    assert np.mean(furthest.predict(x) == random_start.predict(x)) >= 0.99
    with pytest.raises(ValueError, match="init"):
        kernelkit.FrankWolfeSVC(init="kmeans").fit(x, y)


@pytest.mark.parametrize("kernel", ["sigmoid", "precomputed"])
def test_an_indefinite_kernel_ends_not_convex(kernel: str) -> None:
    """With a kernel matrix that is not positive semidefinite, min αᵀK̃α over the simplex is not
    convex, and a point meeting the stopping rule is only stationary: the sigmoid kernel (not
    PSD by construction) and a precomputed Gram with a negative eigenvalue (found by a step's
    negative curvature or αᵀK̃α < 0) end with status "not_convex" and a ConvergenceWarning,
    never "converged" (they did: seeds 0 and 1 "converged" to objectives −0.313 and −0.245).
    The same rows with the RBF kernel still converge without a warning."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = np.where(x[:, 0] + 0.5 * rng.normal(size=200) > 0, 1, -1)
    if kernel == "sigmoid":
        data, params = x, {"kernel": "sigmoid", "gamma": 2.0, "coef0": -1.0}
    else:
        data, params = x @ x.T - 3.0 * np.eye(200), {"kernel": "precomputed"}
        assert np.linalg.eigvalsh(data + 1.0).min() < -1.0  # K̃'s kernel part is indefinite
    with pytest.warns(kernelkit.ConvergenceWarning, match="not positive semidefinite"):
        model = kernelkit.FrankWolfeSVC(random_state=0, **params).fit(data, y)
    assert list(np.ravel(model.status_)) == ["not_convex"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rbf = kernelkit.FrankWolfeSVC(random_state=0, kernel="rbf").fit(x, y)
    assert list(np.ravel(rbf.status_)) == ["converged"]
