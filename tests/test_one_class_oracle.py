"""kernelkit.OneClassSVM against sklearn.svm.OneClassSVM (LIBSVM one-class, nu formulation)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kk_oracles import (
    agreement,
    assert_reported_objective,
    gram_for,
    ocsvm_alpha,
    ocsvm_dual_objective,
    ocsvm_kkt,
    rel_diff,
    row_groups,
    support_mismatch,
)
from sklearn import svm
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit

TOL = 1e-6
OBJ_RTOL = 1e-6
BOUND_TOL = 1e-6
PRED_AGREEMENT = 0.999

CASES: dict[str, tuple[dict[str, Any], bool]] = {
    "rbf-nu0.5": ({"kernel": "rbf", "nu": 0.5, "gamma": 0.05}, False),
    "rbf-nu0.1": ({"kernel": "rbf", "nu": 0.1, "gamma": 0.02}, False),
    "rbf-nu0.95": ({"kernel": "rbf", "nu": 0.95, "gamma": 0.05}, False),
    "poly": ({"kernel": "poly", "nu": 0.3, "gamma": 0.05, "degree": 2, "coef0": 1.0}, False),
    "sigmoid": ({"kernel": "sigmoid", "nu": 0.3, "gamma": 0.01, "coef0": 0.0}, False),
    "sample_weight": ({"kernel": "rbf", "nu": 0.2, "gamma": 0.05}, True),
}


def _compare(
    ours: Any,
    ref: Any,
    x: np.ndarray,
    x_test: np.ndarray,
    nu: float,
    sample_weight: np.ndarray | None,
) -> None:
    n = len(x)
    g_o, g_r = gram_for(ours, x), gram_for(ref, x)
    obj_o, obj_r = ocsvm_dual_objective(ours, g_o), ocsvm_dual_objective(ref, g_r)
    assert rel_diff(obj_o, obj_r) <= OBJ_RTOL, (obj_o, obj_r)
    assert_reported_objective(ours.objective_, obj_o, g_o, ours.support_, ours.dual_coef_[0])
    # intercept (= -rho) compared relative to its own scale (rho grows with nu * n)
    io, ir = float(np.ravel(ours.intercept_)[0]), float(np.ravel(ref.intercept_)[0])
    assert abs(io - ir) <= 1e-4 * max(1.0, abs(ir)), (io, ir)
    np.testing.assert_allclose(np.ravel(ours.offset_), -np.ravel(ours.intercept_), rtol=1e-12)
    upper = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    a_o, a_r = ocsvm_alpha(ours, n), ocsvm_alpha(ref, n)
    groups = row_groups(x)
    bad = support_mismatch(a_o, a_r, upper, BOUND_TOL, groups)
    assert bad.size == 0, bad
    assert np.all(a_o >= 0) and np.all(a_o <= upper * (1 + 1e-12))
    if sample_weight is None:
        # the equality constraint of the nu formulation: sum alpha = nu * n
        assert a_o.sum() == pytest.approx(nu * n, rel=1e-9)
    kkt = ocsvm_kkt(ours, g_o, n, upper)
    assert kkt.within(TOL), kkt
    lo, hi = kkt.bias_interval(slack=kkt.slack)
    assert lo <= io <= hi
    assert agreement(ours.predict(x_test), ref.predict(x_test)) >= PRED_AGREEMENT
    dec_o, dec_r = ours.decision_function(x_test), ref.decision_function(x_test)
    np.testing.assert_allclose(dec_o, dec_r, atol=1e-4 * max(1.0, abs(ir)), rtol=0)
    np.testing.assert_allclose(
        ours.score_samples(x_test), dec_o + np.ravel(ours.offset_)[0], rtol=1e-10, atol=1e-10
    )
    assert set(np.unique(ours.predict(x_test))) <= {-1, 1}


@pytest.mark.parametrize("case", list(CASES))
def test_one_class_breast_cancer_matches_libsvm(breast_cancer: Any, case: str) -> None:
    params, weighted = CASES[case]
    x = breast_cancer.X
    sw = np.random.default_rng(7).uniform(0.2, 2.0, len(x)) if weighted else None
    ours = kernelkit.OneClassSVM(tol=TOL, **params).fit(x, sample_weight=sw)
    ref = svm.OneClassSVM(tol=TOL, cache_size=500, **params).fit(x, sample_weight=sw)
    assert ours.status_ == "converged"
    _compare(ours, ref, x, breast_cancer.X_test, params["nu"], sw)


def test_one_class_digits_matches_libsvm(digits: Any) -> None:
    x = digits.X
    params = {"kernel": "rbf", "nu": 0.05, "gamma": 0.05}
    ours = kernelkit.OneClassSVM(tol=TOL, **params).fit(x)
    ref = svm.OneClassSVM(tol=TOL, cache_size=500, **params).fit(x)
    _compare(ours, ref, x, digits.X_test, params["nu"], None)


def test_one_class_precomputed_matches_libsvm(breast_cancer: Any) -> None:
    x = breast_cancer.X
    k = rbf_kernel(x, x, gamma=0.05)
    kt = rbf_kernel(breast_cancer.X_test, x, gamma=0.05)
    ours = kernelkit.OneClassSVM(kernel="precomputed", nu=0.3, tol=TOL).fit(k)
    ref = svm.OneClassSVM(kernel="precomputed", nu=0.3, tol=TOL).fit(k)
    _compare(ours, ref, k, kt, 0.3, None)


def test_one_class_score_samples_reconstruction(breast_cancer: Any) -> None:
    gamma = 0.05
    ours = kernelkit.OneClassSVM(nu=0.3, gamma=gamma, tol=1e-4).fit(breast_cancer.X)
    xt = breast_cancer.X_test
    scores = rbf_kernel(xt, ours.support_vectors_, gamma=gamma) @ ours.dual_coef_[0]
    np.testing.assert_allclose(ours.score_samples(xt), scores, rtol=1e-10, atol=1e-9)
    dec = scores + np.ravel(ours.intercept_)[0]
    np.testing.assert_array_equal(ours.predict(xt), np.where(dec > 0, 1, -1))


def test_one_class_nu_one_is_accepted(breast_cancer: Any) -> None:
    """nu = 1 is inside (0, 1]: the only feasible dual point is alpha = 1 everywhere.

    (LIBSVM/sklearn return a non-finite rho here, so there is no oracle for the intercept; we only
    require a finite model whose dual solution is the unique feasible one.)
    """
    x = breast_cancer.X
    model = kernelkit.OneClassSVM(nu=1.0, gamma=0.05, tol=1e-6).fit(x)
    a = ocsvm_alpha(model, len(x))
    np.testing.assert_allclose(a, 1.0, rtol=0, atol=1e-12)
    gram = gram_for(model, x)
    everyone = np.arange(len(x))
    recomputed = 0.5 * float(np.sum(gram(everyone, everyone)))
    assert_reported_objective(model.objective_, recomputed, gram, everyone, np.ones(len(x)))
    assert np.all(np.isfinite(model.decision_function(breast_cancer.X_test)))
