"""Property tests of AID (digest 001): AIDRegressor (LAD), AIDClassifier (C-SVM) and
AIDSemiSupervisedClassifier (a heuristic).

The approach, and the settings, strategies, filters and shared checks, are in
``kk_properties.py``. Here: lower_bound_ ≤ E* ≤ objective_ against an exact LP (HiGHS) or a
LIBSVM bracket, objective_ ≤ E*/(1 − tol) when AID claims "optimal" or "gap", pure clusters at
"optimal", and for AID-S3VM the recomputed objective, the weak lower bound against the
labeled-only SVM and E^T = F^T with pure clusters at a "pure" stop.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st
from kk_aid import check_labels as check_aid_labels
from kk_aid import hinge, impure_clusters, lad_lp, lad_objective, s3vm_objective
from kk_aid_fits import assert_pure_partition
from kk_properties import (
    KernelParams,
    _finite,
    _is_psd,
    _resolvable,
    _scale,
    _settings,
    _svm_bracket,
    _well_conditioned,
    classification_problems,
    feature_matrices,
    labels,
    log_uniform,
)
from numpy.typing import NDArray

import kernelkit
from kernelkit import ConvergenceWarning

Array = NDArray[np.float64]


# --------------------------------------------------------------------------------------------
# AID (digest 001): AIDRegressor (LAD), AIDClassifier (C-SVM), AIDSemiSupervisedClassifier
# --------------------------------------------------------------------------------------------
aid_inits = st.one_of(
    st.just({"init": "kmeans"}),
    st.integers(1, 40).map(lambda k: {"init": "random", "n_clusters": k}),
)


def _aid_fit(model: Any, x: Array, y: Any) -> None:
    """Fit; a ConvergenceWarning is allowed only for the documented budget (status max_iter:
    AID's certificate is then simply not reached)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(x, y)
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        assert model.status_ == "max_iter", model.status_
        event("AID stopped at max_iter")


def _check_aid_bookkeeping(est: Any, n: int) -> None:
    """history_ / objective_ / lower_bound_ / gap_ / labels_ agree (kk_aid_fits.assert_history
    needs a fit with several solves; here only what holds for every fit)."""
    hist = est.history_
    assert len(hist) == est.n_iter_ >= 1
    last = hist[-1]
    assert float(last["upper_bound"]) == pytest.approx(est.objective_, rel=1e-12, abs=1e-300)
    assert float(last["lower_bound"]) == pytest.approx(est.lower_bound_, rel=1e-12, abs=1e-300)
    assert float(last["gap"]) == pytest.approx(est.gap_, rel=1e-12, abs=1e-15)
    labels_ = check_aid_labels(est.labels_, n)
    assert len(np.unique(labels_)) <= n


@_settings(max_examples=60)
@given(
    data=st.data(),
    fit_intercept=st.booleans(),
    tol=st.sampled_from([1e-4, 1e-2]),
    init=aid_inits,
    target_exponent=st.integers(-50, 3),
)
def test_aid_regressor_lad(
    data: st.DataObject,
    fit_intercept: bool,
    tol: float,
    init: dict[str, Any],
    target_exponent: int,
) -> None:
    """LAD by AID against the HiGHS LP optimum E*: lower_bound_ ≤ E* ≤ objective_ =
    Σ|y − predict(X)|, objective_ ≤ E*/(1 − tol) when AID claims "optimal" or "gap" (the
    certified gap), and every final cluster sign-pure at "optimal" (Prop. 1)."""
    x = data.draw(feature_matrices(max_exponent=3))
    n, m = x.shape
    values = st.floats(-1.0, 1.0, allow_nan=False, width=32)
    z = np.asarray(data.draw(st.lists(values, min_size=n, max_size=n)))
    z = (z + x @ np.linspace(-1.0, 2.0, m)) * 10.0**target_exponent
    if init["init"] == "random":
        init = {**init, "n_clusters": min(init["n_clusters"], n)}
    model = kernelkit.AIDRegressor(fit_intercept=fit_intercept, tol=tol, random_state=0, **init)
    _aid_fit(model, x, z)
    pred = model.predict(x)
    _finite(pred, model.coef_, model.intercept_, model.objective_, model.lower_bound_)
    _check_aid_bookkeeping(model, n)
    if not fit_intercept:
        assert model.intercept_ == 0.0
    own = lad_objective(x, z, model.coef_, float(model.intercept_))
    scale = max(1.0, float(np.abs(z).sum()))
    assert abs(model.objective_ - own) <= 1e-9 * scale, (model.objective_, own)
    assert abs(own - float(np.abs(z - pred).sum())) <= 1e-9 * scale
    # HiGHS on y / max|y| and the columns of X scaled to max 1 (its tolerances are absolute,
    # 1e-7 per row; LAD is invariant under both scalings)
    z_max = max(float(np.abs(z).max()), 1e-300)
    columns = np.max(np.abs(x), axis=0)
    x_lp = x / np.where(columns > 0, columns, 1.0)
    optimum = z_max * lad_lp(x_lp, z / z_max, fit_intercept=fit_intercept).objective
    lp_slack = 1e-7 * n * z_max + 1e-9 * scale
    assert model.objective_ >= optimum - lp_slack, (model.objective_, optimum)
    assert model.lower_bound_ <= optimum + lp_slack, (model.lower_bound_, optimum)
    if model.status_ in ("optimal", "gap"):
        assert model.objective_ <= optimum / (1 - tol) + lp_slack, (model.objective_, optimum)
    if model.status_ == "optimal":
        residual = z - pred
        bad = impure_clusters(residual, model.labels_.astype(np.intp), 1e-7 * scale)
        assert not bad, f"status optimal but clusters {bad} mix residual signs"


@_settings(max_examples=80)
@given(
    problem=classification_problems(max_classes=2),
    c=log_uniform(1e-3, 1e2),
    tol=st.sampled_from([1e-4, 1e-2]),
    init=aid_inits,
)
def test_aid_classifier_svm(
    problem: tuple[KernelParams, Array, NDArray[np.int64]],
    c: float,
    tol: float,
    init: dict[str, Any],
) -> None:
    """The C-SVM by AID against LIBSVM's bracket [dual, primal] of E*: lower_bound_ ≤ E* ≤
    objective_ (the primal at the returned model, recomputed in NumPy), objective_ ≤ E*/(1 −
    tol) (+ the inner SMO's duality gap) when AID claims "optimal" or "gap", label-pure
    clusters, and margin-pure clusters at "optimal" (Prop. 3). Indefinite kernels (sigmoid,
    polynomial with coef0 < 0) have no convex SVM: no certificate (no lower bound, never
    "optimal" or "gap") and the bookkeeping are checked."""
    kp, x, labels_ = problem
    n = len(labels_)
    if init["init"] == "random":
        init = {**init, "n_clusters": min(init["n_clusters"], n)}
    model = kernelkit.AIDClassifier(C=c, tol=tol, random_state=0, **init, **kp.params())
    assume(_well_conditioned(kp, x))
    k = kp.gram(x)
    # the inner SMO runs at tol 1e-6
    assume(_resolvable(k, np.full(n, c), 1e-6))
    _aid_fit(model, x, labels_)
    dec = model.decision_function(x)
    dual_coef = np.asarray(model.dual_coef_, dtype=np.float64)[0]
    _finite(dec, dual_coef, model.intercept_, model.objective_)
    if kp.guaranteed_psd():
        _finite(model.lower_bound_)
    else:  # no certificate without a PSD kernel (issue 46)
        assert model.lower_bound_ == -np.inf and model.gap_ == np.inf
        assert model.status_ not in ("optimal", "gap"), model.status_
    _check_aid_bookkeeping(model, n)
    s = np.where(labels_ == model.classes_[1], 1.0, -1.0)
    np.testing.assert_array_equal(model.predict(x), model.classes_[(dec >= 0).astype(int)])
    # the model: f = Σ dual_coef_ K(support_vectors_, ·) + b, with α̂ = |dual_coef_| ≤ C, Σ = 0
    support = np.asarray(model.support_, dtype=np.intp)
    assert np.all(np.abs(dual_coef) <= c * (1 + 1e-9)) and np.all(dual_coef != 0)
    assert abs(dual_coef.sum()) <= 1e-9 * max(1.0, c * n)
    b = float(model.intercept_[0])
    f = k[:, support] @ dual_coef + b
    scale = _scale(f)
    np.testing.assert_allclose(dec, f, rtol=0, atol=1e-8 * scale)
    own = 0.5 * float(dual_coef @ k[np.ix_(support, support)] @ dual_coef)
    own += c * float(np.sum(hinge(s * f)))
    assert abs(model.objective_ - own) <= 1e-9 * max(1.0, abs(own)) + 1e-12 * c * n * scale
    # clusters never mix the classes
    assert not impure_clusters(s, model.labels_.astype(np.intp), 0.5)
    if not _is_psd(k):
        return
    e_low, e_high = _svm_bracket(k, s, c)
    inner = 10 * 1e-6 * c * n  # the duality gap of an aggregated solve at the inner tol 1e-6
    assert model.objective_ >= e_low - 1e-9 * max(1.0, abs(e_low)), (model.objective_, e_low)
    assert model.lower_bound_ <= e_high + inner, (model.lower_bound_, e_high)
    if model.status_ in ("optimal", "gap"):
        assert model.objective_ <= e_high / (1 - tol) + inner, (model.objective_, e_high)
    if model.status_ == "optimal":
        bad = impure_clusters(1.0 - s * f, model.labels_.astype(np.intp), 1e-6 * scale)
        assert not bad, f"status optimal but clusters {bad} straddle the margin"


@_settings(max_examples=60)
@given(
    data=st.data(),
    c=log_uniform(1e-2, 1e2),
    unlabeled_weight=st.floats(0.0, 1.0),
    exact_max_clusters=st.integers(0, 6),
    max_iter=st.integers(1, 5),
    init=aid_inits,
)
def test_aid_s3vm_heuristic(
    data: st.DataObject,
    c: float,
    unlabeled_weight: float,
    exact_max_clusters: int,
    max_iter: int,
    init: dict[str, Any],
) -> None:
    """AID-S3VM is a heuristic (digest 001 warning 1: Prop. 5 is false), so no optimality: the
    objective_ is the S3VM objective of the returned (w, b) (recomputed), it is ≥ the
    labeled-only SVM optimum ≥ lower_bound_ (the weak certified bound, checked against LIBSVM's
    bracket), transduction_ = the labels / the predictions, objective_ = the best full
    objective of history_, and at status "pure" F^T = E^T with every cluster pure (Lemma 1)."""
    x = data.draw(feature_matrices(max_exponent=3))
    n = len(x)
    y = labels(data.draw, n, 2)
    unlabeled = np.asarray(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    unlabeled[:2] = False  # both classes keep a labeled row
    y_semi = np.where(unlabeled, -1, y)
    c_u = unlabeled_weight * c
    if init["init"] == "random":
        init = {**init, "n_clusters": min(init["n_clusters"], n)}
    model = kernelkit.AIDSemiSupervisedClassifier(
        C=c,
        C_unlabeled=c_u,
        exact_max_clusters=exact_max_clusters,
        max_iter=max_iter,
        random_state=0,
        **init,
    )
    k = x @ x.T
    assume(_resolvable(k, np.full(n, c), 1e-6))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(x, y_semi)
    dec = model.decision_function(x)
    w = np.asarray(model.coef_, dtype=np.float64)[0]
    b = float(model.intercept_[0])
    _finite(dec, w, b, model.objective_, model.lower_bound_, model.aggregated_objective_)
    _check_aid_bookkeeping(model, n)
    assert model.status_ in ("pure", "gap", "max_iter"), model.status_
    np.testing.assert_allclose(dec, x @ w + b, rtol=0, atol=1e-9 * _scale(dec))
    pred = model.predict(x)
    np.testing.assert_array_equal(pred, model.classes_[(dec >= 0).astype(int)])
    np.testing.assert_array_equal(model.transduction_, np.where(unlabeled, pred, y))
    labeled = ~unlabeled
    s = np.where(y == model.classes_[1], 1.0, -1.0)
    own = s3vm_objective(x, labeled, s, w, b, c, c_u)
    assert abs(model.objective_ - own) <= 1e-9 * max(1.0, abs(own)), (model.objective_, own)
    # the labeled-only SVM: lower_bound_ ≤ its optimum ≤ objective_
    e_low, e_high = _svm_bracket(k[np.ix_(labeled, labeled)], s[labeled], c)
    inner = 10 * 1e-6 * c * n
    assert model.lower_bound_ <= e_high + inner, (model.lower_bound_, e_high)
    assert model.objective_ >= e_low - 1e-9 * max(1.0, abs(e_low)), (model.objective_, e_low)
    # objective_ is the best full objective E^t seen (the returned model), F^T the last F^t
    full = [float(h["full_objective"]) for h in model.history_]
    assert model.objective_ == pytest.approx(min(full), rel=1e-12)
    last = model.history_[-1]
    assert model.aggregated_objective_ == pytest.approx(float(last["aggregated_objective"]))
    if model.status_ == "pure":
        # on a pure partition the last aggregated problem's objective is its objective on all
        # rows (E^T = F^T); when the returned model is the last one, its clusters are pure
        # (Lemma 1; an earlier, better model need not be)
        assert model.aggregated_objective_ == pytest.approx(full[-1], rel=1e-8, abs=inner)
        if model.objective_ == full[-1]:
            assert_pure_partition(model, x, y_semi)
