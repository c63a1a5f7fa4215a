"""float32 training rows: the kernel sums the inner products of wide rows in float32.

The kernel cache stores columns in float32 in any case; for float32 input the column passes
over rows of more than 64 features also sum in float32 (``DenseKernel::with_single_products``).
The fits must still be LIBSVM's to the tolerance: checked here against the exact (float64)
kernel's KKT conditions, with the float32 rounding of the products as an explicit bound, and
against scikit-learn's dual objective, for the binary and the one-vs-one paths.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kk_oracles import (
    gram_for,
    rel_diff,
    svc_dual_objective,
    svc_pair_kkt,
    svc_pairs,
    svc_upper,
)
from sklearn.svm import SVC as SkSVC

import kernelkit

GAMMA = 0.02
TOL = 1e-3
D = 80  # more than 64 features: read row-major, where the float32 sums apply


def _problem(n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7 + n_classes)
    n = 90 * n_classes
    y = np.repeat(np.arange(n_classes), n // n_classes)
    centres = rng.normal(size=(n_classes, D))
    x = (centres[y] * 0.6 + rng.normal(size=(n, D))).astype(np.float32)
    return x, y


def _products_slack(x: np.ndarray, rows: np.ndarray, sv: np.ndarray, coef: np.ndarray) -> float:
    """Bound on the gradient error from float32 sums of the RBF's inner products:
    ``|Δ⟨x, z⟩| ≤ (d/16 + 5) 2⁻²⁴ Σ_k |x_k z_k|`` (sixteen lanes, four additions, the tail),
    times ``|∂K/∂⟨x, z⟩| = 2γ K``, summed against ``|coef|``."""
    a, b = np.abs(x[rows]), np.abs(x[sv])
    dots = x[rows] @ x[sv].T
    sq = (x[rows] ** 2).sum(1)[:, None] + (x[sv] ** 2).sum(1)[None, :] - 2 * dots
    k = np.exp(-GAMMA * np.maximum(sq, 0.0))
    bound = (D / 16 + 5) * 2.0**-24 * (a @ b.T) * 2 * GAMMA * k
    return float(np.max(bound @ np.abs(coef))) if len(sv) else 0.0


@pytest.mark.parametrize("n_classes", [2, 3])
def test_float32_rows_meet_the_exact_kernels_kkt_conditions(n_classes: int) -> None:
    x32, y = _problem(n_classes)
    x = x32.astype(np.float64)
    model: Any = kernelkit.SVC(C=1.0, gamma=GAMMA, tol=TOL).fit(x32, y)
    gram = gram_for(model, x)
    upper = svc_upper(model, y, 1.0, None)
    pairs = svc_pairs(model, y)
    assert len(pairs) == n_classes * (n_classes - 1) // 2
    for pair in pairs:
        kkt = svc_pair_kkt(pair, gram, upper)
        extra = _products_slack(x, pair.rows, pair.sv, pair.coef)
        assert kkt.violation <= TOL + kkt.slack + extra, (kkt, extra)
        # The bound is far below the tolerance: the float32 sums cost no accuracy that matters.
        assert extra < 0.05 * TOL


@pytest.mark.parametrize("n_classes", [2, 3])
def test_float32_rows_reach_libsvms_objective(n_classes: int) -> None:
    x32, y = _problem(n_classes)
    x = x32.astype(np.float64)
    ours: Any = kernelkit.SVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x32, y)
    theirs = SkSVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x32, y)
    gram = gram_for(ours, x)
    for mine, libsvm in zip(svc_pairs(ours, y), svc_pairs(theirs, y), strict=True):
        assert mine.classes == libsvm.classes
        a, b = svc_dual_objective(mine, gram), svc_dual_objective(libsvm, gram)
        assert rel_diff(a, b) < 1e-6, (a, b)
    assert np.mean(ours.predict(x32) == theirs.predict(x32)) >= 0.99


def test_float64_rows_of_the_same_values_keep_float64_products() -> None:
    """The mode follows the dtype the user gave: float64 rows (even of float32 values) are
    summed in float64, so the two fits differ in the last bits, and the float64 fit is the fit
    of the float32 rows converted by the caller."""
    x32, y = _problem(3)
    x = x32.astype(np.float64)
    single: Any = kernelkit.SVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x32, y)
    double: Any = kernelkit.SVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x, y)
    again: Any = kernelkit.SVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x.copy(), y)
    np.testing.assert_array_equal(double.dual_coef_, again.dual_coef_)
    alphas = [
        (a.alpha, b.alpha) for a, b in zip(svc_pairs(single, y), svc_pairs(double, y), strict=True)
    ]
    assert any(not np.array_equal(a, b) for a, b in alphas)
    for a, b in alphas:
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-3)


def test_float32_svr_reaches_libsvms_objective() -> None:
    """ε-SVR (SvrQ, float32 columns) sums float32 rows in float32 too: same dual objective as
    LIBSVM's to 1e-6 relative, recomputed with the exact kernel."""
    from sklearn.svm import SVR as SkSVR

    x32, _ = _problem(2)
    rng = np.random.default_rng(3)
    target = x32[:, :5].astype(np.float64).sum(1) + 0.1 * rng.normal(size=len(x32))
    x = x32.astype(np.float64)
    ours: Any = kernelkit.SVR(C=1.0, gamma=GAMMA, epsilon=0.1, tol=1e-6).fit(x32, target)
    theirs = SkSVR(C=1.0, gamma=GAMMA, epsilon=0.1, tol=1e-6).fit(x32, target)

    def objective(model: Any) -> float:
        beta = np.zeros(len(x))
        beta[model.support_] = np.ravel(model.dual_coef_)
        sq = (x**2).sum(1)
        k = np.exp(-GAMMA * np.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0.0))
        return float(0.5 * beta @ k @ beta + 0.1 * np.abs(beta).sum() - target @ beta)

    assert rel_diff(objective(ours), objective(theirs)) < 1e-6


def test_estimators_with_float64_columns_keep_float64_products() -> None:
    """Sparse KLR caches float64 columns (its stopping rule needs them): float32 rows are summed
    in float64 there, so its fit is bitwise the fit of the same values as float64."""
    x32, y = _problem(2)
    single: Any = kernelkit.SparseKernelLogisticRegression(gamma=GAMMA).fit(x32, y)
    double: Any = kernelkit.SparseKernelLogisticRegression(gamma=GAMMA).fit(
        x32.astype(np.float64), y
    )
    np.testing.assert_array_equal(single.dual_coef_, double.dual_coef_)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_float32_rows_give_scikit_learns_fitted_attributes(n_classes: int) -> None:
    """The one-vs-one pairs read float32 rows in place (no float64 copy); what the model
    keeps is scikit-learn's: float64 support vectors equal to the rows, and gamma="scale"
    computed in float64."""
    x32, y = _problem(n_classes)
    ours: Any = kernelkit.SVC(C=1.0, tol=1e-6).fit(x32, y)
    theirs = SkSVC(C=1.0, tol=1e-6).fit(x32, y)
    assert ours._gamma == theirs._gamma
    assert ours.support_vectors_.dtype == np.float64
    np.testing.assert_array_equal(ours.support_vectors_, x32[ours.support_].astype(np.float64))
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=0, atol=1e-4)
    np.testing.assert_array_equal(ours.predict(x32), theirs.predict(x32))


def _fixed_point_problem(n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Grey levels ``k / 2000`` computed in float32, as USPS's pixels (not exactly ``k / 2000``:
    within a rounding of it), with zeros: rows of integer multiples of one quantum."""
    x32, y = _problem(n_classes)
    levels = np.clip(np.round((x32.astype(np.float64) + 2.5) * 400), 0, 2000)
    return (levels.astype(np.float32) / np.float32(2000)).astype(np.float32), y


def _fixed_point_slack(x: np.ndarray, rows: np.ndarray, sv: np.ndarray, coef: np.ndarray) -> float:
    """Bound on the gradient error from the integer sums (``kernelkit_kernels`` fixed_point):
    ``|Δ⟨x, z⟩| ≤ 2⁻²² M Σ_k (|x_k| + |z_k|)``, ``M`` the largest magnitude, times
    ``|∂K/∂⟨x, z⟩| = 2γ K``, summed against ``|coef|``."""
    largest = float(np.abs(x).max())
    sums = np.abs(x[rows]).sum(1)[:, None] + np.abs(x[sv]).sum(1)[None, :]
    dots = x[rows] @ x[sv].T
    sq = (x[rows] ** 2).sum(1)[:, None] + (x[sv] ** 2).sum(1)[None, :] - 2 * dots
    k = np.exp(-GAMMA * np.maximum(sq, 0.0))
    bound = 2.0**-22 * largest * sums * 2 * GAMMA * k
    return float(np.max(bound @ np.abs(coef))) if len(sv) else 0.0


@pytest.mark.parametrize("n_classes", [2, 3])
def test_fixed_point_float32_rows_meet_the_exact_kernels_kkt_and_libsvms_objective(
    n_classes: int,
) -> None:
    """Fixed-point float32 rows are summed exactly over their integers (16-bit lanes): the fit
    meets the exact float64 kernel's KKT conditions up to the documented bound of that
    quantization, and reaches LIBSVM's dual objective with the same predictions (that these
    rows take the integer path is checked in ``kernelkit_kernels``' row_facts tests)."""
    x32, y = _fixed_point_problem(n_classes)
    x = x32.astype(np.float64)
    model: Any = kernelkit.SVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x32, y)
    theirs = SkSVC(C=1.0, gamma=GAMMA, tol=1e-6).fit(x32, y)
    gram = gram_for(model, x)
    upper = svc_upper(model, y, 1.0, None)
    for mine, libsvm in zip(svc_pairs(model, y), svc_pairs(theirs, y), strict=True):
        kkt = svc_pair_kkt(mine, gram, upper)
        extra = _fixed_point_slack(x, mine.rows, mine.sv, mine.coef)
        assert kkt.violation <= 1e-6 + kkt.slack + extra, (kkt, extra)
        # A bound of worst cases, a tenth of the tolerance at most.
        assert extra < 0.1 * TOL
        a, b = svc_dual_objective(mine, gram), svc_dual_objective(libsvm, gram)
        assert rel_diff(a, b) < 1e-6, (a, b)
    np.testing.assert_array_equal(model.predict(x32), theirs.predict(x32))
