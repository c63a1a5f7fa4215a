"""kernelkit.SVR against sklearn.svm.SVR (LIBSVM epsilon-SVR) on PMLB 197_cpu_act."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kk_oracles import (
    assert_reported_objective,
    gram_for,
    rel_diff,
    row_groups,
    support_mismatch,
    svr_beta,
    svr_dual_objective,
    svr_kkt,
)
from sklearn import svm
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit

TOL = 1e-6
OBJ_RTOL = 1e-6
INTERCEPT_ATOL = 1e-4
PREDICT_ATOL = 1e-4
BOUND_TOL = 1e-6

CASES: dict[str, dict[str, Any]] = {
    "rbf": {"kernel": "rbf", "C": 1.0, "epsilon": 0.1, "gamma": 0.05},
    "rbf-C10-eps0.5": {"kernel": "rbf", "C": 10.0, "epsilon": 0.5, "gamma": 0.02},
    "rbf-eps0": {"kernel": "rbf", "C": 0.5, "epsilon": 0.0, "gamma": 0.05},
    "linear": {"kernel": "linear", "C": 0.1, "epsilon": 0.2},
    "poly": {"kernel": "poly", "C": 1.0, "epsilon": 0.1, "gamma": 0.05, "degree": 2, "coef0": 1.0},
    "sigmoid": {"kernel": "sigmoid", "C": 0.5, "epsilon": 0.1, "gamma": 0.005, "coef0": -1.0},
}
ROWS = {"sigmoid": 300, "linear": 800}


def _compare_svr(
    ours: Any,
    ref: Any,
    x: np.ndarray,
    y: np.ndarray,
    x_test: np.ndarray,
    c: float,
    epsilon: float,
) -> None:
    g_o = gram_for(ours, x)
    g_r = gram_for(ref, x)
    obj_o = svr_dual_objective(ours, g_o, y, epsilon)
    obj_r = svr_dual_objective(ref, g_r, y, epsilon)
    assert rel_diff(obj_o, obj_r) <= OBJ_RTOL, (obj_o, obj_r)
    assert_reported_objective(ours.objective_, obj_o, g_o, ours.support_, ours.dual_coef_[0])
    assert abs(float(ours.intercept_[0]) - float(ref.intercept_[0])) <= INTERCEPT_ATOL
    beta_o, beta_r = svr_beta(ours, len(y)), svr_beta(ref, len(y))
    groups = row_groups(x)
    bad = support_mismatch(beta_o, beta_r, np.full(len(y), c), BOUND_TOL, groups)
    assert bad.size == 0, bad
    # box and equality constraints of the dual
    assert np.all(np.abs(beta_o) <= c * (1 + 1e-12))
    assert abs(beta_o.sum()) <= 1e-8 * max(1.0, c * len(y))
    kkt = svr_kkt(ours, g_o, y, c, epsilon)
    assert kkt.within(TOL), kkt
    lo, hi = kkt.bias_interval(slack=kkt.slack)
    assert lo <= float(ours.intercept_[0]) <= hi
    np.testing.assert_allclose(ours.predict(x_test), ref.predict(x_test), atol=PREDICT_ATOL, rtol=0)


@pytest.mark.parametrize("case", list(CASES))
def test_svr_cpu_act_matches_libsvm(cpu_act: Any, case: str) -> None:
    params = CASES[case]
    rows = ROWS.get(case)
    x, y = cpu_act.X[:rows], cpu_act.y[:rows]
    ours = kernelkit.SVR(tol=TOL, **params).fit(x, y)
    ref = svm.SVR(tol=TOL, cache_size=500, **params).fit(x, y)
    assert ours.status_ == "converged"
    _compare_svr(ours, ref, x, y, cpu_act.X_test, params["C"], params["epsilon"])
    np.testing.assert_array_equal(ours.support_vectors_, x[ours.support_])
    assert np.asarray(ours.dual_coef_).shape == (1, len(ours.support_))


def test_svr_precomputed_matches_libsvm(cpu_act: Any) -> None:
    gamma, c, eps = 0.05, 1.0, 0.1
    x, y = cpu_act.X[:1000], cpu_act.y[:1000]
    k = rbf_kernel(x, x, gamma=gamma)
    kt = rbf_kernel(cpu_act.X_test, x, gamma=gamma)
    ours = kernelkit.SVR(kernel="precomputed", C=c, epsilon=eps, tol=TOL).fit(k, y)
    ref = svm.SVR(kernel="precomputed", C=c, epsilon=eps, tol=TOL).fit(k, y)
    _compare_svr(ours, ref, k, y, kt, c, eps)


def test_svr_prediction_reconstruction(cpu_act: Any) -> None:
    gamma = 0.05
    ours = kernelkit.SVR(C=1.0, gamma=gamma, tol=1e-4).fit(cpu_act.X, cpu_act.y)
    pred = rbf_kernel(cpu_act.X_test, ours.support_vectors_, gamma=gamma) @ ours.dual_coef_[0]
    pred += ours.intercept_[0]
    np.testing.assert_allclose(ours.predict(cpu_act.X_test), pred, atol=1e-9)
    # score is R^2 of the predictions
    yt = cpu_act.y_test
    r2 = 1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2)
    assert ours.score(cpu_act.X_test, yt) == pytest.approx(r2, abs=1e-9)
