"""kernelkit.SVC against scikit-learn's LIBSVM (sklearn.svm.SVC) with identical parameters.

For every problem we recompute the LIBSVM dual objective of *both* models from their fitted
attributes (kk_oracles.svc_dual_objective), and compare objective, predictions, support set and
intercepts. kernelkit's own ``objective_`` must equal the recomputed value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kk_oracles import (
    agreement,
    assert_reported_objective,
    gram_for,
    rel_diff,
    row_groups,
    support_mismatch,
    svc_dual_objective,
    svc_pair_kkt,
    svc_pairs,
    svc_upper,
)
from sklearn import svm
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit

TOL = 1e-6
OBJ_RTOL = 1e-6
INTERCEPT_ATOL = 1e-4
PRED_AGREEMENT = 0.999
BOUND_TOL = 1e-6  # alphas this close (relative to C_i) to 0 or C_i may differ in the support set
DECISION_ATOL = 1e-4

# name -> (svc params, sample weight spec, number of training rows (None = all))
BINARY_CASES: dict[str, tuple[dict[str, Any], str | None, int | None]] = {
    "rbf": ({"kernel": "rbf", "C": 1.0, "gamma": 0.05}, None, None),
    "rbf-C10": ({"kernel": "rbf", "C": 10.0, "gamma": 0.1}, None, None),
    "rbf-C0.05": ({"kernel": "rbf", "C": 0.05, "gamma": 0.02}, None, None),
    "linear": ({"kernel": "linear", "C": 0.5}, None, None),
    "poly": ({"kernel": "poly", "C": 1.0, "gamma": 0.05, "degree": 3, "coef0": 1.0}, None, None),
    "poly-deg2": (
        {"kernel": "poly", "C": 2.0, "gamma": 0.1, "degree": 2, "coef0": 0.5},
        None,
        None,
    ),
    "sigmoid-small": (
        {"kernel": "sigmoid", "C": 1.0, "gamma": 0.01, "coef0": -1.0},
        None,
        150,
    ),
    "class_weight-dict": (
        {"kernel": "rbf", "C": 1.0, "gamma": 0.05, "class_weight": {0: 2.0, 1: 0.5}},
        None,
        None,
    ),
    "class_weight-balanced": (
        {"kernel": "rbf", "C": 1.0, "gamma": 0.05, "class_weight": "balanced"},
        None,
        None,
    ),
    "sample_weight": ({"kernel": "rbf", "C": 1.0, "gamma": 0.05}, "uniform", None),
    "sample_weight+class_weight": (
        {"kernel": "rbf", "C": 2.0, "gamma": 0.05, "class_weight": {0: 0.7, 1: 1.5}},
        "uniform",
        None,
    ),
}


def _sample_weight(spec: str | None, n: int) -> np.ndarray | None:
    if spec is None:
        return None
    return np.random.default_rng(42).uniform(0.1, 2.0, n)


def _fit_both(
    params: dict[str, Any],
    x: np.ndarray,
    y: np.ndarray,
    sample_weight: np.ndarray | None = None,
    tol: float = TOL,
) -> tuple[Any, Any]:
    ours = kernelkit.SVC(tol=tol, **params).fit(x, y, sample_weight=sample_weight)
    ref = svm.SVC(tol=tol, cache_size=500, **params).fit(x, y, sample_weight=sample_weight)
    return ours, ref


def _alpha_full(pair: Any, n: int) -> np.ndarray:
    a = np.zeros(n)
    a[pair.rows] = pair.alpha
    return a


def _compare_svc(
    ours: Any,
    ref: Any,
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    c: float,
    sample_weight: np.ndarray | None = None,
) -> None:
    """All the acceptance checks shared by the binary and multiclass problems."""
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    gram_ours = gram_for(ours, x_train)
    gram_ref = gram_for(ref, x_train)
    pairs_ours = svc_pairs(ours, y_train)
    pairs_ref = svc_pairs(ref, y_train)
    assert len(pairs_ours) == len(pairs_ref)
    upper = svc_upper(ref, y_train, c, sample_weight)
    # the estimator's class weights must be the same as sklearn's
    if hasattr(ours, "class_weight_"):
        np.testing.assert_allclose(ours.class_weight_, ref.class_weight_, rtol=1e-12)

    objective = np.asarray(ours.objective_, dtype=np.float64)
    assert objective.shape == (len(pairs_ours),)
    n = len(y_train)
    groups = row_groups(x_train)
    for k, (po, pr) in enumerate(zip(pairs_ours, pairs_ref, strict=True)):
        obj_o = svc_dual_objective(po, gram_ours)
        obj_r = svc_dual_objective(pr, gram_ref)
        assert np.isfinite(obj_o)
        assert rel_diff(obj_o, obj_r) <= OBJ_RTOL, (k, obj_o, obj_r)
        assert_reported_objective(objective[k], obj_o, gram_ours, po.sv, po.coef, k)
        assert abs(po.intercept - pr.intercept) <= INTERCEPT_ATOL, (k, po.intercept, pr.intercept)
        bad = support_mismatch(_alpha_full(po, n), _alpha_full(pr, n), upper, BOUND_TOL, groups)
        assert bad.size == 0, (k, bad)
        # KKT residual of our solution at exit, recomputed in NumPy
        kkt = svc_pair_kkt(po, gram_ours, upper)
        assert kkt.within(TOL), (k, kkt)

    # predictions / decision function on held-out rows
    pred_o = ours.predict(x_test)
    pred_r = ref.predict(x_test)
    assert agreement(pred_o, pred_r) >= PRED_AGREEMENT
    dec_o = np.asarray(ours.decision_function(x_test))
    dec_r = np.asarray(ref.decision_function(x_test))
    assert dec_o.shape == dec_r.shape
    np.testing.assert_allclose(dec_o, dec_r, atol=DECISION_ATOL, rtol=0)


@pytest.mark.parametrize("case", list(BINARY_CASES))
def test_binary_breast_cancer_matches_libsvm(breast_cancer: Any, case: str) -> None:
    params, sw_spec, rows = BINARY_CASES[case]
    x, y = breast_cancer.X[:rows], breast_cancer.y[:rows]
    sw = _sample_weight(sw_spec, len(y))
    ours, ref = _fit_both(params, x, y, sw)
    assert ours.fit_status_ == 0
    assert list(ours.status_) == ["converged"]
    _compare_svc(ours, ref, x, y, breast_cancer.X_test, params["C"], sw)
    # support vectors are rows of X and the counts are consistent
    np.testing.assert_array_equal(ours.support_vectors_, x[ours.support_])
    assert ours.n_support_.sum() == len(ours.support_)
    assert ours.shape_fit_ == x.shape
    assert ours.n_features_in_ == x.shape[1]


def test_binary_precomputed_matches_libsvm(breast_cancer: Any) -> None:
    gamma = 0.05
    x, y = breast_cancer.X, breast_cancer.y
    k_train = rbf_kernel(x, x, gamma=gamma)
    k_test = rbf_kernel(breast_cancer.X_test, x, gamma=gamma)
    ours, ref = _fit_both({"kernel": "precomputed", "C": 1.0}, k_train, y)
    _compare_svc(ours, ref, k_train, y, k_test, 1.0)
    # same model as the rbf kernel computed internally
    ours_rbf = kernelkit.SVC(kernel="rbf", gamma=gamma, C=1.0, tol=TOL).fit(x, y)
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(ours_rbf.support_))
    np.testing.assert_allclose(ours.intercept_, ours_rbf.intercept_, atol=INTERCEPT_ATOL)
    np.testing.assert_allclose(
        ours.decision_function(k_test),
        ours_rbf.decision_function(breast_cancer.X_test),
        atol=DECISION_ATOL,
    )


def test_binary_string_labels(breast_cancer: Any) -> None:
    """Labels need not be numeric; classes_ is sorted and predictions use the same labels."""
    x = breast_cancer.X
    names = np.array(["benign", "malignant"])
    y = names[breast_cancer.y]
    ours, ref = _fit_both({"kernel": "rbf", "C": 1.0, "gamma": 0.05}, x, y)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    _compare_svc(ours, ref, x, y, breast_cancer.X_test, 1.0)
    y_test = names[breast_cancer.y_test]
    assert ours.score(breast_cancer.X_test, y_test) == pytest.approx(
        np.mean(ours.predict(breast_cancer.X_test) == y_test)
    )


def test_binary_decision_function_reconstruction(breast_cancer: Any) -> None:
    """decision_function == sum_k dual_coef_ K(sv_k, x) + intercept_ and predict == its sign."""
    gamma = 0.05
    ours = kernelkit.SVC(C=1.0, gamma=gamma, tol=1e-4).fit(breast_cancer.X, breast_cancer.y)
    xt = breast_cancer.X_test
    dec = rbf_kernel(xt, ours.support_vectors_, gamma=gamma) @ ours.dual_coef_[0]
    dec += ours.intercept_[0]
    np.testing.assert_allclose(ours.decision_function(xt), dec, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(xt), ours.classes_[(dec > 0).astype(int)])


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "C": 1.0, "gamma": 0.05},
        {"kernel": "rbf", "C": 10.0, "gamma": 0.02, "class_weight": "balanced"},
        {"kernel": "poly", "C": 1.0, "gamma": 0.1, "degree": 2, "coef0": 1.0},
    ],
    ids=["rbf", "rbf-balanced", "poly"],
)
def test_multiclass_digits_matches_libsvm(digits: Any, params: dict[str, Any]) -> None:
    x, y = digits.X, digits.y
    ours, ref = _fit_both(params, x, y)
    n_pairs = 10 * 9 // 2
    assert np.asarray(ours.intercept_).shape == (n_pairs,)
    assert np.asarray(ours.n_iter_).shape == (n_pairs,)
    assert len(ours.status_) == n_pairs
    assert all(s == "converged" for s in ours.status_)
    assert np.asarray(ours.dual_coef_).shape == (9, len(ours.support_))
    _compare_svc(ours, ref, x, y, digits.X_test, params["C"])
    # ovo decision function has one column per pair, in sklearn's order
    for shape in ("ovo", "ovr"):
        ours.set_params(decision_function_shape=shape)
        ref.set_params(decision_function_shape=shape)
        np.testing.assert_allclose(
            ours.decision_function(digits.X_test),
            ref.decision_function(digits.X_test),
            atol=DECISION_ATOL,
        )
    ours.set_params(break_ties=True)
    ref.set_params(break_ties=True)
    assert agreement(ours.predict(digits.X_test), ref.predict(digits.X_test)) >= PRED_AGREEMENT


def test_float32_exact_wide_rows_match_libsvm(digits: Any) -> None:
    """Digits upsampled to 16 x 16 (256 features, multiples of 1/16): dense rows wider than 64
    whose values are all exactly float32, so the kernel columns read a float32 copy of the rows
    (half the bytes). The model must still be LIBSVM's on the float64 values."""

    def upsample(x: np.ndarray) -> np.ndarray:
        images = x.reshape(-1, 8, 8)
        return np.kron(images, np.ones((1, 2, 2))).reshape(len(x), 256)

    x, xt = upsample(digits.X[:600]), upsample(digits.X_test)
    y = digits.y[:600]
    assert np.array_equal(x.astype(np.float32).astype(np.float64), x)
    params = {"kernel": "rbf", "C": 2.0, "gamma": 0.01}
    ours, ref = _fit_both(params, x, y)
    assert all(s == "converged" for s in ours.status_)
    _compare_svc(ours, ref, x, y, xt, params["C"])


def test_repeated_narrow_rows_match_libsvm(digits: Any) -> None:
    """2,000 rows drawn with replacement from 500 digits (64 features, about a quarter of the
    rows distinct), some copies of a row labelled differently: the kernel columns are computed
    over the distinct rows and gathered to the positions. The model must be LIBSVM's, and the
    same on one and two threads."""
    rng = np.random.default_rng(7)
    pick = rng.integers(0, 500, size=2000)
    x = digits.X[pick]
    y = np.where(digits.y[pick] >= 5, 1, -1)
    flip = rng.random(len(y)) < 0.05
    y[flip] = -y[flip]
    assert len(np.unique(x, axis=0)) < 0.3 * len(x)
    params = {"kernel": "rbf", "C": 3.0, "gamma": 0.05}
    ours, ref = _fit_both(params, x, y)
    assert list(ours.status_) == ["converged"]
    _compare_svc(ours, ref, x, y, digits.X_test, params["C"])
    one_thread = kernelkit.SVC(tol=TOL, n_jobs=1, **params).fit(x, y)
    two_threads = kernelkit.SVC(tol=TOL, n_jobs=2, **params).fit(x, y)
    np.testing.assert_array_equal(one_thread.dual_coef_, two_threads.dual_coef_)
    np.testing.assert_array_equal(one_thread.support_, two_threads.support_)


def test_a9a_subset_matches_libsvm(a9a: Any) -> None:
    """The 5,000-row a9a subset, gamma=0.5, C=1, tol=1e-6 (sklearn handles it in ~1.5 s)."""
    params = {"kernel": "rbf", "C": 1.0, "gamma": 0.5}
    ours, ref = _fit_both(params, a9a.X, a9a.y)
    assert list(ours.status_) == ["converged"]
    _compare_svc(ours, ref, a9a.X, a9a.y, a9a.X_test, 1.0)
    assert agreement(ours.predict(a9a.X), ref.predict(a9a.X)) >= PRED_AGREEMENT


def test_gamma_scale_and_auto_resolve_like_sklearn(breast_cancer: Any) -> None:
    """gamma='scale' = 1/(n_features X.var()), 'auto' = 1/n_features: same model as numeric."""
    x, y = breast_cancer.X * 3.0, breast_cancer.y  # variance != 1 so 'scale' != 'auto'
    n_features = x.shape[1]
    for name, value in (("scale", 1.0 / (n_features * x.var())), ("auto", 1.0 / n_features)):
        by_name = kernelkit.SVC(gamma=name, tol=TOL).fit(x, y)
        numeric = kernelkit.SVC(gamma=value, tol=TOL).fit(x, y)
        ref = svm.SVC(gamma=name, tol=TOL).fit(x, y)
        np.testing.assert_allclose(by_name.intercept_, numeric.intercept_, atol=1e-12)
        np.testing.assert_allclose(by_name.intercept_, ref.intercept_, atol=INTERCEPT_ATOL)
        np.testing.assert_array_equal(by_name.support_, numeric.support_)


@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_a_class_without_weight_is_left_out_as_libsvm_does(name: str) -> None:
    """Every sample of class 2 at weight 0: LIBSVM (scikit-learn's) fits the other two classes
    and predicts only them; kernelkit's model is that one, and classes_ says so (scikit-learn's
    keeps the class, and its decision_function then fails). It raised before, and so did every
    BaggingClassifier whose bootstrap missed a rare class."""
    from sklearn.datasets import load_iris
    from sklearn.ensemble import BaggingClassifier

    X, y = load_iris(return_X_y=True)
    # gamma="scale" is over every row given, as scikit-learn's: fixed here for the binary fit.
    params: dict[str, Any] = {"gamma": 0.2, "tol": 1e-8}
    weights = (y != 2).astype(float)
    with pytest.warns(UserWarning, match="no sample of class 2 has a positive sample_weight"):
        ours = getattr(kernelkit, name)(**params).fit(X, y, sample_weight=weights)
    binary = getattr(svm, name)(**params).fit(X[y != 2], y[y != 2])
    np.testing.assert_array_equal(ours.classes_, [0, 1])
    np.testing.assert_array_equal(ours.predict(X), binary.predict(X))
    if name == "SVC":  # scikit-learn's NuSVC counts the class in its check of ν, and raises
        np.testing.assert_array_equal(
            ours.predict(X), svm.SVC(**params).fit(X, y, weights).predict(X)
        )
    np.testing.assert_allclose(
        ours.decision_function(X), binary.decision_function(X), rtol=1e-5, atol=1e-5
    )
    with pytest.raises(ValueError, match="only one class has a sample of positive sample_weight"):
        getattr(kernelkit, name)().fit(X, y, sample_weight=(y == 0).astype(float))
    # A bootstrap without the rare class: the same bags as scikit-learn's, the same votes.
    if name == "NuSVC":
        return  # ν = 0.5 is infeasible for a pair with the rare class, in both libraries
    rows = np.r_[0:100, 100:103]
    bags = {
        library: BaggingClassifier(getattr(library, name)(), n_estimators=10, random_state=0)
        for library in (kernelkit, svm)
    }
    with pytest.warns(UserWarning, match="no sample of class 2"):
        bags[kernelkit].fit(X[rows], y[rows])
    bags[svm].fit(X[rows], y[rows])
    np.testing.assert_array_equal(bags[kernelkit].predict(X), bags[svm].predict(X))
