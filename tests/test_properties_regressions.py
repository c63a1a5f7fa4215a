"""Minimal repros of the bugs the property tests (``test_properties_*.py``, approach in
``kk_properties.py``) found: known, unfixed ones as strict xfails, fixed ones as regression
tests.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from kk_aid import lad_lp
from kk_constrained_svr import empty_constraints as empty_svr_constraints
from kk_constrained_svr import gsmo
from kk_properties import _svm_bracket
from sklearn import svm as sk_svm

import kernelkit
from kernelkit import ConvergenceWarning


# --------------------------------------------------------------------------------------------
# Bugs the property tests found (minimal repros). Known, unfixed ones are strict xfails: they
# start failing (XPASS) once fixed, then drop the marker and the matching ``assume`` in the
# property test.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(("scale", "gamma"), [(1e9, 1.0), (1.0, 1e300)])
def test_rbf_kernel_of_identical_rows_is_one(sparse: bool, scale: float, gamma: float) -> None:
    """Fixed: RBF columns computed ‖x‖² + ‖z‖² − 2⟨x, z⟩ with the dot product from a GEMM and
    the norms from a separate sum, so identical rows far apart in units of γ^(−1/2) (γ‖x‖² ≳
    1e13 after the shift to the rows' mean) got K(x, x) = 6.6e-112 instead of 1, and the SVC
    "converged" to decisions 1 off LIBSVM's. The core now recomputes the values whose expansion
    may be off from the rows' differences (``rbf_expansion.rs``)."""
    x = np.array([[1.0, 1 / 3], [1.0, 1 / 3], [0.0, 0.0], [0.5, 0.25]]) * scale
    y = np.array([0, 1, 1, 0])
    rows = sp.csr_array(x) if sparse else x
    ours = kernelkit.SVC(kernel="rbf", gamma=gamma).fit(rows, y)
    libsvm = sk_svm.SVC(kernel="rbf", gamma=gamma).fit(x, y)
    block = kernelkit._core.kernel_matrix(x, x, kernelkit._core.Kernel("rbf", gamma=gamma))
    # K = I but for the two identical rows, exactly (every other distance is huge for γ)
    expected = np.eye(4)
    expected[0, 1] = expected[1, 0] = 1.0
    np.testing.assert_array_equal(block, expected)
    np.testing.assert_allclose(ours.decision_function(rows), libsvm.decision_function(x), atol=1e-9)


def test_smo_counts_no_objective_increase_on_duplicated_rows() -> None:
    """Fixed: a step between rows with identical kernel columns moved α by one ulp (clipped to
    its bound) and its computed Δf, ~ulp·|G|, counted as an increase. The threshold now
    includes the rounding of α itself, 4ε(|G_i α_i| + |G_j α_j|)."""
    x = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, -0.9140625, -0.6875, 0.0, 0.0, 0.0])
    z = np.array([0.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    model = kernelkit.NuSVR(kernel="linear", nu=1.0, C=1.0).fit(x[:, None], z)
    assert model.status_ == "converged"
    assert model.objective_increases_ == 0


def test_s3vm_accepts_a_zero_unlabeled_weight() -> None:
    """Fixed: C_unlabeled = 0 passed the parameter check, then the core built aggregated
    problems whose unlabeled clusters had bound 0, which the SMO refused ('invalid upper').
    Zero-weight clusters are now left out of the aggregated SVM (core and dask)."""
    x = np.array([[0.0], [1.0], [0.5]])
    y = np.array([0, 1, -1])
    model = kernelkit.AIDSemiSupervisedClassifier(C=1.0, C_unlabeled=0.0, random_state=0)
    model.fit(x, y)
    # the unlabeled row then carries no loss: the labeled-only SVM
    e_low, e_high = _svm_bracket(x[:2] @ x[:2].T, np.array([-1.0, 1.0]), 1.0)
    assert e_low - 1e-9 <= model.objective_ <= e_high + 1e-6


@pytest.mark.parametrize("scale", [1e-8, 1e-3])
@pytest.mark.parametrize("column", [1e-9, 1e4])
def test_aid_lad_is_exact_at_any_scale(scale: float, column: float) -> None:
    """Fixed: AIDRegressor's purity test and LP tolerances were absolute, so small targets (or
    large columns) stopped "optimal" up to 70% above the LAD optimum, or failed in the LP.
    AID now solves on y / max|y| and columns scaled to max 1: the result scales exactly."""
    x = np.tile([column, 10 * column], (25, 1))
    x[:, 0] += column * np.arange(25) % 3
    u = np.zeros(25)
    u[20:23], u[23:] = 1.0, 0.5
    z = (u + x @ np.array([-1.0, 2.0]) / column) * scale
    model = kernelkit.AIDRegressor(fit_intercept=False, random_state=0).fit(x, z)
    columns = np.abs(x).max(axis=0)
    optimum = scale * lad_lp(x / columns, z / scale, fit_intercept=False).objective
    assert model.status_ == "optimal"
    assert model.objective_ == pytest.approx(optimum, rel=1e-6)
    assert model.lower_bound_ <= optimum * (1 + 1e-7)
    hist = model.history_[-1]
    assert hist["upper_bound"] == pytest.approx(model.objective_, rel=1e-12)


@pytest.mark.xfail(
    strict=True,
    reason="GSMO crawls when its violation Δ sits at tol: on 3 rows it takes ~2e6 steps of "
    "5e-6 in α* (each lowering f by 5e-9) while Δ stays at tol + 1 ulp; LIBSVM's NuSVR "
    "stops in 3 steps, the NumPy reference GSMO in 2. The first-order pair breaks a tie "
    "towards a row with η = ‖x_i − x_j‖² = 100 instead of the two x = 0 rows (η → 1e-12, one "
    "step). Rust fix: a second-order (gain Δg²/η) choice among tied pairs, as LIBSVM's WSS2",
)
def test_gsmo_stops_at_tol() -> None:
    x = np.array([[0.0], [10.0], [0.0]])
    z = np.array([0.0, 0.02 / 3, 0.001])
    reference = gsmo(x, z, empty_svr_constraints(1), 10.0, 1.0, tol=1e-3)
    assert reference.converged and reference.n_iter <= 10
    # GSMO itself (the default takes the interior-point method on 3 rows, which converges).
    model = kernelkit.ConstrainedSVR(C=10.0, nu=1.0, tol=1e-3, max_iter=100_000, method="gsmo")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x, z)
    assert model.status_ == "converged", (model.status_, model.delta_)
