"""PUClassifier's two working-set selections, ``"full"`` and ``"paper"`` (the paper's alternating
scheme, ``crates/solvers/src/usmo/paper.rs``): the same optimum as each other and as the dual QP
solved by cvxpy + Clarabel, on generated data and on two of the paper's data sets.

Issue 45's acceptance: decision values within ``1e-6·max|d|`` at ``tol=1e-8`` and within
``1e-4·max|d|`` at the default ``tol`` (``1e-5``), both asserted here, the latter on every one
of the paper's 12 small sets with both kernels and its four λ. At ``tol=1e-3`` two τ-optimal
points differ by about τ in ``f`` whichever scheme reached them (up to ``1.6e-3·max|d|`` on
those sets), so there the tests compare what that tolerance does fix: the dual objective and
the four optimality gaps, recomputed here.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from test_pu_oracle import cvxpy_dual, kernel_of, pu_problem

from kernelkit import ConvergenceWarning, PUClassifier

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
Array = NDArray[np.float64]


def usmo_split(name: str, prior: float) -> tuple[Array, NDArray[np.int64]]:
    """The authors' ``demo2.m`` split (seed 0): ⌊0.2·π·N⌋ random positives labeled."""
    data = np.load(DATA / "pu-usmo" / f"{name}.npz")
    x, labels = np.asarray(data["X"], dtype=np.float64), data["y"]
    rng = np.random.default_rng(0)
    chosen = rng.choice(np.flatnonzero(labels == 1), int(0.2 * prior * len(labels)), replace=False)
    y = np.zeros(len(labels), dtype=np.int64)
    y[chosen] = 1
    return x, y


def four_gaps(model: PUClassifier, x_unlabeled: Array) -> float:
    """The largest of the four gaps (C1)–(C4) of ``model.sigma_``, with ``f̂ = f − β`` from
    ``decision_function``: independent of the solver's function cache."""
    f = model.decision_function(x_unlabeled) - model.intercept_[0]
    sigma = model.sigma_
    c2 = 1 / (2 * model.lam * len(sigma))
    eps = 1e-12 * c2
    low, high = sigma < c2 / 2 - eps, sigma > c2 / 2 + eps
    free = (sigma > eps) & (sigma < c2 - eps)

    def top(mask: Any) -> float:
        return float(f[mask].max()) if mask.any() else -np.inf

    def bottom(mask: Any) -> float:
        return float(f[mask].min()) if mask.any() else np.inf

    gaps = [
        top(low) - bottom(free),
        top(free) - bottom(high),
        top(low) - bottom(high) + 2,
        top(free) - bottom(free) - 2,
    ]
    return max(0.0, *gaps)


def both(x: Array, y: Any, tol: float, **params: Any) -> list[PUClassifier]:
    return [
        PUClassifier(tol=tol, selection=selection, **params).fit(x, y)
        for selection in ("full", "paper")
    ]


# (data, kernel parameters, prior, λ): generated rows, then the C4 case of the digest (Isolet,
# linear: the paper's stopping test left a 30 % objective gap there) and Australian (RBF).
CASES = [
    ("generated", "rbf", 0.3, 0.01),
    ("generated", "linear", 0.5, 0.001),
    ("generated", "poly", 0.4, 0.05),
    ("isolet", "linear", 0.5, 0.01),
    ("australian", "rbf", 0.56, 0.01),
]


def case_data(name: str, prior: float) -> tuple[Array, NDArray[np.int64]]:
    if name == "generated":
        return pu_problem(40, 400, prior, 7)
    return usmo_split(name, prior)


@pytest.mark.filterwarnings("ignore:the solver stopped before convergence")
@pytest.mark.parametrize(("name", "kernel", "prior", "lam"), CASES)
def test_selections_reach_the_same_optimum(
    name: str, kernel: str, prior: float, lam: float
) -> None:
    x, y = case_data(name, prior)
    params, k = kernel_of(kernel)
    params.update(prior=prior, lam=lam)
    unlabeled = x[y == 0]

    # At tol = 1e-6 both reach the dual QP's objective (Clarabel, K_UU rounded to float32).
    optimum, _ = cvxpy_dual(x, y, k, prior, lam)
    for model in both(x, y, 1e-6, **params):
        assert model.status_ == "converged", model.selection
        assert abs(model.objective_ - optimum) <= 1e-6 * abs(optimum), model.selection

    # The default tol: both τ-optimal by the four conditions, with the same objective.
    full, paper = both(x, y, 1e-3, **params)
    for model in (full, paper):
        assert model.status_ == "converged", model.selection
        assert four_gaps(model, unlabeled) <= 1e-3 + 1e-7, model.selection
    assert abs(paper.objective_ - full.objective_) <= 1e-6 * abs(full.objective_)

    # tol = 1e-8: the same decision values, within 1e-6·max|d| (the float32 kernel cache may
    # stop a solve just short of 1e-8: "stalled" with the gap reached).
    full, paper = both(x, y, 1e-8, **params)
    d_full, d_paper = full.decision_function(x), paper.decision_function(x)
    scale = np.abs(d_full).max()
    assert np.abs(d_paper - d_full).max() <= 1e-6 * scale


PAPER_SETS = sorted(path.stem for path in (DATA / "pu-usmo").glob("*.npz"))


@pytest.mark.parametrize("name", PAPER_SETS)
def test_default_tol_gives_the_same_decision_values(name: str) -> None:
    # The paper's protocol (demo2.m's split, Gaussian "scale 1" = gamma 0.5, λ of Tables
    # III–IV), π the positive fraction of the unlabeled rows; the full scheme is the oracle.
    labels = np.load(DATA / "pu-usmo" / f"{name}.npz")["y"]
    x, y = usmo_split(name, float(np.mean(labels == 1)))
    prior = float(np.mean(labels[y == 0] == 1))
    assert PUClassifier().tol == 1e-5
    for kernel in ("linear", "rbf"):
        for lam in (1e-4, 1e-3, 1e-2, 1e-1):
            params = {"prior": prior, "lam": lam, "kernel": kernel, "gamma": 0.5}
            full, paper = both(x, y, PUClassifier().tol, **params)
            d_full, d_paper = full.decision_function(x), paper.decision_function(x)
            scale = np.abs(d_full).max()
            assert np.abs(d_paper - d_full).max() <= 1e-4 * scale, (kernel, lam)


def test_paper_selection_does_not_depend_on_threads_or_row_order() -> None:
    prior, lam = 0.3, 0.01
    x, y = pu_problem(40, 6000, prior, 3)  # above the parallel threshold (4096 rows)
    for kernel in ("rbf", "linear"):
        params: dict[str, Any] = {"prior": prior, "lam": lam, "kernel": kernel, "gamma": 0.5}
        params.update(tol=1e-5, selection="paper")
        one = PUClassifier(n_jobs=1, **params).fit(x, y)
        two = PUClassifier(n_jobs=2, **params).fit(x, y)
        np.testing.assert_array_equal(one.sigma_, two.sigma_)
        assert one.intercept_[0] == two.intercept_[0]
        assert one.solver_stats_["whole_set_passes"] == two.solver_stats_["whole_set_passes"]
        order = np.r_[np.arange(40), 40 + np.random.default_rng(1).permutation(6000)]
        permuted = PUClassifier(**params).fit(x[order], y[order])
        assert abs(permuted.objective_ - one.objective_) <= 1e-6 * abs(one.objective_)


def test_stats_name_the_selection_and_its_passes() -> None:
    x, y = pu_problem(20, 300, 0.4, 5)
    full, paper = both(x, y, 1e-3, prior=0.4, lam=0.01)
    assert full.solver_stats_["selection"] == "full"
    assert full.solver_stats_["whole_set_passes"] == 0
    assert paper.solver_stats_["selection"] == "paper"
    # The scheme starts in whole-set mode: its first steps are a whole-set pass's.
    assert paper.n_iter_ > 0
    assert paper.solver_stats_["whole_set_passes"] >= 1


@pytest.mark.parametrize("selection", ["Paper", "mvp", "", 1, None])
def test_unknown_selection_is_a_clear_error(selection: Any) -> None:
    x, y = pu_problem(5, 20, 0.3, 0)
    with pytest.raises(ValueError, match="selection"):
        PUClassifier(prior=0.3, selection=selection).fit(x, y)


def test_paper_selection_honours_the_limits() -> None:
    x, y = pu_problem(40, 3000, 0.4, 9)
    params: dict[str, Any] = {"prior": 0.4, "lam": 1e-4, "gamma": 0.05, "selection": "paper"}
    calls: list[Any] = []

    def stop(progress: Any) -> bool:
        calls.append(progress)
        return True

    stopped = PUClassifier(callback=stop, **params)
    limited = PUClassifier(max_iter=2, **params)
    timed = PUClassifier(time_limit=1e-3, **params)
    with pytest.warns(ConvergenceWarning):
        stopped.fit(x, y)
    with pytest.warns(ConvergenceWarning):
        limited.fit(x, y)
    with pytest.warns(ConvergenceWarning):
        timed.fit(x, y)
    assert len(calls) == 1 and stopped.status_ == "stopped"
    assert limited.status_ == "max_iterations" and limited.n_iter_ == 2
    assert timed.status_ == "time_limit"
    total = 0.4 / (2 * 1e-4)  # Σσ = c1·p = π/(2λ) at every iterate
    for model in (stopped, limited, timed):
        assert abs(model.sigma_.sum() - total) <= 1e-10 * total
        assert np.isfinite(model.decision_function(x[:50])).all()


def test_a_tol_below_rounding_stalls_and_keeps_the_model() -> None:
    """At ``tol=1e-10`` no pair step lowers Φ any more before the gaps reach ``tol`` (the
    float32 kernel columns): USMO reported that as ``"numerical_error"``, whose warning
    advised raising max_iter, and which a fit now refuses as a value that is not finite. It is
    ``"stalled"``, with a finite model kept and the advice to raise ``tol``."""
    x, y = pu_problem(40, 400, 0.3, 7)
    for selection in ("full", "paper"):
        model = PUClassifier(prior=0.3, lam=0.01, tol=1e-10, selection=selection)
        with pytest.warns(ConvergenceWarning, match=r"\(stalled\).*raise tol"):
            model.fit(x, y)
        assert model.status_ == "stalled", selection
        assert model.kkt_gap_ < 1e-6, selection
        assert np.isfinite(model.decision_function(x)).all()


@pytest.mark.parametrize("selection", ["paper", "full"])
@pytest.mark.parametrize(
    "params",
    [{"kernel": "sigmoid", "gamma": 2.0, "coef0": -1.0}, {"kernel": "poly", "coef0": -2.0}],
    ids=["sigmoid", "poly-negative-coef0"],
)
def test_an_indefinite_kernel_ends_not_convex(selection: str, params: dict[str, Any]) -> None:
    """Φ is convex only for a positive semidefinite kernel. With the sigmoid kernel or a
    polynomial one with coef0 < 0 the two selections stopped at different points (decision
    values 19 % of max|d| apart, 5 % of the predictions) and both said "converged": now both
    end "not_convex" with a ConvergenceWarning. The RBF kernel on the same rows converges
    without one."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    positive = x[:, 0] + 0.5 * rng.normal(size=200) > 0
    y = np.where(positive & (rng.random(200) < 0.5), 1, 0)
    with pytest.warns(ConvergenceWarning, match="not positive semidefinite"):
        model = PUClassifier(prior=0.4, selection=selection, **params).fit(x, y)
    assert model.status_ == "not_convex"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rbf = PUClassifier(prior=0.4, selection=selection, kernel="rbf").fit(x, y)
    assert rbf.status_ == "converged"
