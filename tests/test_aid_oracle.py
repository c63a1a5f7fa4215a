"""AIDRegressor (LAD), AIDClassifier (C-SVM, linear and RBF) and AIDSemiSupervisedClassifier
(linear S3VM) against independent oracles and the paper's invariants (seed paper 001, Park &
Klabjan: Aggregate and Iterative Disaggregate).

Asserted here:

1. LAD exactness (digest §2.1, L1–L5): objective_ equals the HiGHS LP optimum of
   min Σ(u+v) s.t. Xβ + β0 + u − v = y to 1e-6 relative and equals Σ|y − predict(X)|; along
   history_ the certified bounds sandwich the optimum and are monotone, F^t is non-decreasing and
   ≤ E*; with init "kmeans" and "random", with and without intercept, m ∈ {5, 20}, and on a
   PMLB 564_fried subsample; at "optimal" every final cluster is sign-pure (Prop. 1);
2. linear SVM exactness (§2.2, S2–S4): objective_ equals sklearn SVC's primal at tol 1e-10 to
   1e-6 relative and lies in [SVC dual, SVC primal·(1+1e-6)]; the same history checks; also a9a;
3. RBF SVM exactness (Appendix B): the same against SVC rbf; objective_ and decision_function
   recomputed from dual_coef_ / support_vectors_ / intercept_ in NumPy;
4. the dual reconstruction α̂_i = ᾱ_k/|C_k| (S5): coef_ = dual_coef_·support_vectors_,
   0 < |dual_coef_| ≤ C, Σ dual_coef_ = 0, the dual value of α̂ is the optimum;
5. the aggregated kernel is the block mean of the full Gram matrix, not K(centroid, centroid)
   (§7.8);
6. degenerate starts: all-singleton clusters solve the full problem in one pure iteration;
   clusters of exact duplicate rows are pure at t = 0 (and give 3× / C→3C of the base problem);
7. S3VM: the §8.3 counterexample (pure at t = 0, F = E^T = 0.3241388 > E* = 0.2639187 by
   brute force, status "pure", never "optimal"); transduction_ is the sign of f (f ≥ 0 →
   classes_[1]); with singleton clusters the exact aggregated solve equals the brute-force E*;
8. invariance: a row permutation gives the same optimum; n_jobs = 1 and 2 give bitwise-identical
   fits.

Helpers and oracles: ``kk_aid.py``. Digest: ``shared/papers/seed-001-aid.md``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pytest
from kk_aid import (
    S3VM_C,
    S3VM_C_U,
    S3VM_E_STAR,
    S3VM_F,
    S3VM_XL,
    S3VM_YL,
    Array,
    LadOptimum,
    SvmOptimum,
    a9a,
    block_mean_kernel,
    centroids,
    check_history,
    check_labels,
    fried,
    impure_clusters,
    kernel_fn,
    kernel_svm_primal,
    lad_data,
    lad_lp,
    lad_objective,
    s3vm_aggregated_brute_force,
    s3vm_brute_force,
    s3vm_cell,
    s3vm_counterexample,
    s3vm_objective,
    s3vm_targets,
    same_partition,
    svc_reference,
    svm_primal,
    tiny_s3vm,
    two_gaussians,
)

from kernelkit import (
    AIDClassifier,
    AIDRegressor,
    AIDSemiSupervisedClassifier,
    ConvergenceWarning,
)
from kernelkit.solvers import Smo, aggregated_kernel

TIGHT = 1e-9  # AID's certified-gap tolerance in the exactness tests
OBJ_RTOL = 1e-6  # objective_ vs the oracle optimum
SELF_RTOL = 1e-9  # objective_ vs its own NumPy recomputation
INNER = Smo(tol=1e-9)  # a tight inner SMO, so that F^t is the aggregated optimum
RBF_GAMMA = 0.2

E = TypeVar("E")


def rel(a: float, b: float) -> float:
    return abs(float(a) - float(b)) / max(abs(float(b)), 1e-300)


def fit_clean(est: E, x: Array, y: Any) -> E:
    """Fit, failing on a ConvergenceWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(x, y)  # type: ignore[attr-defined]
    return est


def signs(est: Any, y: Any) -> Array:
    """±1 labels with +1 = classes_[1] (the sign convention of decision_function)."""
    assert len(est.classes_) == 2
    return np.where(np.asarray(y) == est.classes_[1], 1.0, -1.0)


def check_common(est: Any, n: int, tol: float) -> None:
    """Bookkeeping shared by LAD and SVM: status, history length, last upper bound = returned
    objective, gap_ = (objective_ − lower_bound_)/objective_, labels_ = the last clusters."""
    assert est.status_ in ("optimal", "gap"), est.status_
    hist = est.history_
    assert len(hist) == est.n_iter_ >= 1
    last = hist[-1]
    assert rel(last["upper_bound"], est.objective_) <= 1e-12, (last, est.objective_)
    assert rel(last["lower_bound"], est.lower_bound_) <= 1e-12, (last, est.lower_bound_)
    expected_gap = (est.objective_ - est.lower_bound_) / est.objective_
    assert abs(est.gap_ - expected_gap) <= 1e-9, (est.gap_, expected_gap)
    if est.status_ == "gap":
        assert est.gap_ <= tol, est.gap_
    else:
        assert last["n_impure"] == 0
        assert est.gap_ <= OBJ_RTOL, est.gap_  # pure: F^T = E^T = E*
    check_labels(est.labels_, n, int(last["n_clusters"]))


# --------------------------------------------------------------------------------------------
# 1. LAD exactness
# --------------------------------------------------------------------------------------------
@functools.cache
def lad_problem(name: str) -> tuple[Array, Array]:
    if name == "m5":
        return lad_data(3000, 5, 0)
    if name == "m20":
        return lad_data(3000, 20, 1)
    if name == "fried":
        data = fried(4000, 0)
        if data is None:
            pytest.skip("shared/data/pmlb/564_fried.tsv.gz missing")
        return data
    raise AssertionError(name)


@functools.cache
def lad_oracle(name: str, fit_intercept: bool) -> LadOptimum:
    x, y = lad_problem(name)
    return lad_lp(x, y, fit_intercept=fit_intercept)


def lad_model(**kw: Any) -> AIDRegressor:
    kw.setdefault("tol", TIGHT)
    kw.setdefault("max_iter", 500)
    kw.setdefault("random_state", 0)
    return AIDRegressor(**kw)


LAD_CASES = [
    ("m5", True, "kmeans"),
    ("m5", True, "random"),
    ("m5", False, "kmeans"),
    ("m5", False, "random"),
    ("m20", True, "kmeans"),
    ("m20", True, "random"),
    ("m20", False, "kmeans"),
    ("fried", True, "kmeans"),
]


@pytest.mark.parametrize(("name", "fit_intercept", "init"), LAD_CASES)
def test_lad_matches_lp(name: str, fit_intercept: bool, init: str) -> None:
    """objective_ = the HiGHS optimum (1e-6 rel) = Σ|y − predict(X)|; the history sandwich;
    sign-pure final clusters when "optimal"."""
    x, y = lad_problem(name)
    n, m = x.shape
    ref = lad_oracle(name, fit_intercept)
    est = fit_clean(lad_model(fit_intercept=fit_intercept, init=init), x, y)
    assert est.n_features_in_ == m
    coef = np.asarray(est.coef_, dtype=np.float64)
    assert coef.shape == (m,)
    if not fit_intercept:
        assert est.intercept_ == 0.0
    own = lad_objective(x, y, coef, float(est.intercept_))
    assert rel(est.objective_, own) <= SELF_RTOL, (est.objective_, own)
    via_predict = float(np.sum(np.abs(y - est.predict(x))))
    assert rel(est.objective_, via_predict) <= SELF_RTOL, (est.objective_, via_predict)
    assert rel(est.objective_, ref.objective) <= OBJ_RTOL, (est.objective_, ref.objective)
    assert est.objective_ >= ref.objective * (1 - 1e-9), "better than the LP optimum"
    assert est.lower_bound_ <= ref.objective * (1 + 1e-7), (est.lower_bound_, ref.objective)
    check_common(est, n, TIGHT)
    check_history(
        est.history_, e_low=ref.objective, e_high=ref.objective, n_samples=n, agg_slack=1e-7
    )
    if est.status_ == "optimal":  # Prop. 1: every final cluster is sign-pure
        res = y - x @ coef - float(est.intercept_)
        eps = 1e-7 * (1.0 + float(np.max(np.abs(y))))
        bad = impure_clusters(res, np.asarray(est.labels_, dtype=np.intp), eps)
        assert not bad, f"status optimal but clusters {bad[:5]} mix residual signs"


# --------------------------------------------------------------------------------------------
# 2.–4. SVM exactness (linear and RBF) and the dual reconstruction
# --------------------------------------------------------------------------------------------
@functools.cache
def svm_problem(name: str) -> tuple[Array, Array]:
    if name == "gauss":
        return two_gaussians(3000, 5, 2)
    if name == "a9a":
        data = a9a(3000)
        if data is None:
            pytest.skip("shared/data/a9a/a9a.train.svm missing")
        return data
    if name == "rbf":
        return two_gaussians(800, 5, 3, sep=2.0)
    raise AssertionError(name)


def svm_kernel(name: str) -> dict[str, Any]:
    return {"kernel": "rbf", "gamma": RBF_GAMMA} if name == "rbf" else {"kernel": "linear"}


@functools.cache
def svm_oracle(name: str, c: float) -> SvmOptimum:
    x, y = svm_problem(name)
    kw = svm_kernel(name)
    return svc_reference(x, y, c, kernel=kw["kernel"], gamma=kw.get("gamma", 1.0))


@functools.cache
def svm_fit(name: str, c: float, init: str) -> AIDClassifier:
    x, y = svm_problem(name)
    est = AIDClassifier(
        C=c, tol=TIGHT, max_iter=500, init=init, solver=INNER, random_state=0, **svm_kernel(name)
    )
    return fit_clean(est, x, y)


def check_svm(est: AIDClassifier, x: Array, y: Array, c: float, ref: SvmOptimum) -> None:
    """objective_ = own NumPy primal (1e-9) = oracle (1e-6); in [oracle dual, oracle primal];
    history sandwich; label-pure clusters, margin-pure when "optimal" (Prop. 3)."""
    n = len(y)
    s = signs(est, y)
    coef = np.asarray(est.dual_coef_, dtype=np.float64)[0]
    sv = np.asarray(est.support_vectors_, dtype=np.float64)
    b = float(np.asarray(est.intercept_)[0])
    if est.kernel == "linear":
        w = np.asarray(est.coef_, dtype=np.float64)
        assert w.shape == (1, x.shape[1])
        own = svm_primal(x, s, w[0], b, c)
        f = x @ w[0] + b
    else:
        with pytest.raises(AttributeError):
            _ = est.coef_
        kfun = kernel_fn(est.kernel, gamma=RBF_GAMMA)
        own, f = kernel_svm_primal(kfun(sv, sv), kfun(x, sv), coef, b, s, c)
    # the decision function on the training rows, recomputed in NumPy
    dec = np.asarray(est.decision_function(x), dtype=np.float64)
    np.testing.assert_allclose(dec, f, rtol=0.0, atol=1e-8 * (1.0 + np.max(np.abs(f))))
    np.testing.assert_array_equal(
        est.predict(x), np.where(dec > 0, est.classes_[1], est.classes_[0])
    )
    assert rel(est.objective_, own) <= SELF_RTOL, (est.objective_, own)
    assert rel(est.objective_, ref.primal) <= OBJ_RTOL, (est.objective_, ref.primal)
    assert est.objective_ <= ref.primal * (1 + OBJ_RTOL)
    assert est.objective_ >= ref.dual * (1 - 1e-9), "below the oracle's dual value"
    assert est.lower_bound_ <= ref.primal * (1 + 1e-7), (est.lower_bound_, ref.primal)
    check_common(est, n, TIGHT)
    check_history(est.history_, e_low=ref.dual, e_high=ref.primal, n_samples=n, agg_slack=1e-7)
    labels = np.asarray(est.labels_, dtype=np.intp)
    mixed = impure_clusters(s, labels, 0.5)
    assert not mixed, f"clusters {mixed[:5]} mix the two classes"
    if est.status_ == "optimal":
        g = 1.0 - s * f
        bad = impure_clusters(g, labels, 1e-7)
        assert not bad, f"status optimal but clusters {bad[:5]} straddle the margin"


SVM_CASES = [
    ("gauss", 0.1, "kmeans"),
    ("gauss", 1.0, "kmeans"),
    ("gauss", 0.1, "random"),
    ("gauss", 1.0, "random"),
    ("a9a", 0.1, "kmeans"),
]


@pytest.mark.parametrize(("name", "c", "init"), SVM_CASES)
def test_linear_svm_matches_libsvm(name: str, c: float, init: str) -> None:
    x, y = svm_problem(name)
    check_svm(svm_fit(name, c, init), x, y, c, svm_oracle(name, c))


@pytest.mark.parametrize("init", ["kmeans", "random"])
def test_rbf_svm_matches_libsvm(init: str) -> None:
    """Kernel AID (Appendix B) on 800 rows, gamma 0.2, C = 1: objective_ = SVC rbf's primal
    (1e-6), decision_function = Σ dual_coef_·K(support_vectors_, x) + intercept_ (1e-8)."""
    x, y = svm_problem("rbf")
    check_svm(svm_fit("rbf", 1.0, init), x, y, 1.0, svm_oracle("rbf", 1.0))


@pytest.mark.parametrize("c", [0.1, 1.0])
def test_linear_dual_reconstruction(c: float) -> None:
    """S5: dual_coef_ = α̂_i y_i with α̂_i = ᾱ_k/|C_k| is dual-feasible (0 < α̂ ≤ C,
    Σ α̂_i y_i = 0), reproduces w, and its dual value Σα̂ − ½‖w‖² is the optimum."""
    x, y = svm_problem("gauss")
    n = len(y)
    ref = svm_oracle("gauss", c)
    est = svm_fit("gauss", c, "kmeans")
    s = signs(est, y)
    dual = np.asarray(est.dual_coef_, dtype=np.float64)
    support = np.asarray(est.support_)
    assert dual.shape == (1, len(support)) and len(support) > 0
    assert np.all(np.diff(support) > 0), "support_ not sorted / unique"
    np.testing.assert_array_equal(est.support_vectors_, x[support])
    coef = dual[0]
    w = np.asarray(est.coef_, dtype=np.float64)[0]
    w_dual = coef @ x[support]
    np.testing.assert_allclose(w_dual, w, rtol=0.0, atol=1e-8 * float(np.linalg.norm(w)))
    assert np.all(np.abs(coef) > 0.0)
    assert np.all(np.abs(coef) <= c * (1 + 1e-12)), np.max(np.abs(coef))
    np.testing.assert_array_equal(np.sign(coef), s[support])
    assert abs(float(np.sum(coef))) <= 1e-8 * c * n, float(np.sum(coef))
    dual_value = float(np.sum(np.abs(coef)) - 0.5 * w @ w)
    assert dual_value <= ref.primal * (1 + 1e-9), "weak duality violated: α̂ infeasible?"
    assert rel(dual_value, ref.dual) <= OBJ_RTOL, (dual_value, ref.dual)
    # α̂ is constant on each cluster of the solve that produced the returned model
    hist = est.history_
    if est.status_ == "optimal" and rel(hist[-1]["full_objective"], est.objective_) <= 1e-12:
        alpha = np.zeros(n)
        alpha[support] = np.abs(coef)
        labels = np.asarray(est.labels_, dtype=np.intp)
        hi = np.full(labels.max() + 1, -np.inf)
        lo = np.full(labels.max() + 1, np.inf)
        np.maximum.at(hi, labels, alpha)
        np.minimum.at(lo, labels, alpha)
        assert np.max(hi - lo) <= 1e-12 * c, "α̂ differs within a cluster"


# --------------------------------------------------------------------------------------------
# 5. the aggregated kernel
# --------------------------------------------------------------------------------------------
KERNELS = [
    ("rbf", {"gamma": 0.7}),
    ("poly", {"gamma": 0.3, "degree": 3, "coef0": 1.0}),
    ("linear", {}),
]


def in_first_appearance_order(ids: Any) -> Any:
    """Relabel cluster ids 0..K−1 by order of first appearance (so that row k of K̄ is cluster k
    under either ordering convention)."""
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.intp)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse]


@pytest.mark.parametrize(("kernel", "params"), KERNELS, ids=[k for k, _ in KERNELS])
def test_aggregated_kernel_is_block_mean(kernel: str, params: dict[str, Any]) -> None:
    """K̄(k, q) = mean of K over C_k × C_q (sklearn.metrics.pairwise); singletons give K itself;
    for nonlinear kernels K(centroid_k, centroid_q) is detectably different. (Cluster ids in
    first-appearance order: the row order is tested separately below.)"""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(60, 4))
    clusters = in_first_appearance_order(rng.permutation(np.arange(60) % 9))
    kfun = kernel_fn(kernel, **params)
    got = np.asarray(aggregated_kernel(x, clusters, kernel=kernel, **params), dtype=np.float64)
    want = block_mean_kernel(x, clusters, kfun)
    assert got.shape == (9, 9)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    singles = aggregated_kernel(x, np.arange(60), kernel=kernel, **params)
    np.testing.assert_allclose(singles, kfun(x, x), rtol=1e-10, atol=1e-12)
    cx = centroids(x, clusters)
    wrong = kfun(cx, cx)
    if kernel == "linear":  # bilinear: the block mean is the centroid kernel
        np.testing.assert_allclose(want, wrong, rtol=1e-10, atol=1e-12)
    else:
        assert np.max(np.abs(want - wrong)) > 1e-2
        assert np.max(np.abs(got - wrong)) > 1e-2, "aggregated_kernel = K(centroid, centroid)"


def test_aggregated_kernel_rows_follow_cluster_ids() -> None:
    """API spec: ``clusters`` holds ids 0..K−1 (every id used) and the result is (K, K), so
    K̄[k, q] belongs to clusters k and q, whatever order the ids first appear in."""
    rng = np.random.default_rng(6)
    x = rng.normal(size=(40, 3))
    clusters = rng.permutation(np.arange(40) % 5)
    assert not np.array_equal(in_first_appearance_order(clusters), clusters)
    got = np.asarray(aggregated_kernel(x, clusters, kernel="rbf", gamma=0.5), dtype=np.float64)
    want = block_mean_kernel(x, clusters, kernel_fn("rbf", gamma=0.5))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------------
# 6. degenerate starts
# --------------------------------------------------------------------------------------------
def degenerate_problem(model: str, n: int) -> tuple[Array, Array, Callable[..., Any]]:
    if model == "lad":
        x, y = lad_data(n, 5, 4)
        return x, y, lambda **kw: lad_model(**kw)
    x, y = two_gaussians(n, 5, 4)
    return x, y, lambda **kw: AIDClassifier(C=1.0, tol=TIGHT, solver=INNER, **kw)


def one_pure_solve(est: Any, n_clusters: int) -> None:
    assert est.n_iter_ == 1 and len(est.history_) == 1, est.n_iter_
    assert est.status_ == "optimal", est.status_
    h = est.history_[0]
    assert h["n_clusters"] == n_clusters and h["n_impure"] == 0, h
    assert est.gap_ <= OBJ_RTOL, est.gap_


@pytest.mark.parametrize("model", ["lad", "svm"])
def test_singleton_start_solves_the_full_problem(model: str) -> None:
    """init = arange(n): the aggregated problem is the full one, pure at t = 0."""
    x, y, make = degenerate_problem(model, 400)
    n = len(y)
    est = fit_clean(make(init=np.arange(n)), x, y)
    one_pure_solve(est, n)
    ref = lad_lp(x, y).objective if model == "lad" else svc_reference(x, y, 1.0).primal
    assert rel(est.objective_, ref) <= OBJ_RTOL, (est.objective_, ref)
    assert same_partition(est.labels_, np.arange(n))


@pytest.mark.parametrize("model", ["lad", "svm"])
def test_duplicate_clusters_are_pure_at_start(model: str) -> None:
    """Every row tripled, shuffled, each triple one cluster (arbitrary int ids): pure at t = 0;
    the optimum is 3× the base LAD optimum, resp. the base SVM with C → 3C."""
    x, y, make = degenerate_problem(model, 300)
    rng = np.random.default_rng(11)
    perm = rng.permutation(3 * len(y))
    x3, y3 = np.repeat(x, 3, axis=0)[perm], np.repeat(y, 3)[perm]
    ids = (1000 + 7 * np.repeat(np.arange(len(y)), 3))[perm]
    est = fit_clean(make(init=ids), x3, y3)
    one_pure_solve(est, len(y))
    ref = 3.0 * lad_lp(x, y).objective if model == "lad" else svc_reference(x, y, 3.0).primal
    assert rel(est.objective_, ref) <= OBJ_RTOL, (est.objective_, ref)
    assert same_partition(est.labels_, ids)


# --------------------------------------------------------------------------------------------
# 7. S3VM
# --------------------------------------------------------------------------------------------
@functools.cache
def counterexample_fit() -> AIDSemiSupervisedClassifier:
    x, s, labeled, init = s3vm_counterexample()
    est = AIDSemiSupervisedClassifier(
        C=S3VM_C, C_unlabeled=S3VM_C_U, init=init, solver=Smo(tol=1e-10), random_state=0
    )
    return fit_clean(est, x, s3vm_targets(labeled, s, 0, 1))


@functools.cache
def tiny_fit(seed: int, exact_max_clusters: int = 12) -> AIDSemiSupervisedClassifier:
    x, s, labeled = tiny_s3vm(seed)
    est = AIDSemiSupervisedClassifier(
        C=1.0,
        C_unlabeled=0.3,
        init=np.arange(14),
        exact_max_clusters=exact_max_clusters,
        solver=Smo(tol=1e-10),
        random_state=0,
    )
    return fit_clean(est, x, s3vm_targets(labeled, s, 3, 7))


def test_s3vm_counterexample_is_pure_but_not_optimal() -> None:
    """Digest §8.3: from its final partition AID-S3VM is pure at t = 0 with
    F = E^T = 0.3241388, 23% above the brute-force optimum E* = 0.2639187 (Prop. 5 is false);
    status_ is "pure", never "optimal"; lower_bound_ = the labeled-only SVM optimum."""
    x, s, labeled, init = s3vm_counterexample()
    e_star = s3vm_brute_force(x, labeled, s, S3VM_C, S3VM_C_U)
    assert rel(e_star, S3VM_E_STAR) <= 1e-6, e_star  # the oracle reproduces the digest
    f_ref = s3vm_aggregated_brute_force(x, labeled, s, init, S3VM_C, S3VM_C_U)
    assert rel(f_ref, S3VM_F) <= 1e-6, f_ref
    est = counterexample_fit()
    assert est.status_ == "pure", est.status_
    assert est.n_iter_ == 1 and len(est.history_) == 1
    assert est.history_[0]["n_impure"] == 0
    assert rel(est.aggregated_objective_, S3VM_F) <= 1e-5, est.aggregated_objective_
    assert rel(est.aggregated_objective_, f_ref) <= 1e-6, (est.aggregated_objective_, f_ref)
    assert abs(est.objective_ - est.aggregated_objective_) <= 1e-6 * est.aggregated_objective_
    w, b = np.asarray(est.coef_, dtype=np.float64)[0], float(np.asarray(est.intercept_)[0])
    own = s3vm_objective(x, labeled, s, w, b, S3VM_C, S3VM_C_U)
    assert rel(est.objective_, own) <= SELF_RTOL, (est.objective_, own)
    assert est.objective_ > 1.2 * e_star, (est.objective_, e_star)
    np.testing.assert_allclose(w, [0.5841, 0.4099], atol=1e-3)
    assert abs(b + 0.0160) <= 1e-3, b
    assert same_partition(est.labels_, init)
    f = x @ w + b
    for k in np.unique(init[~labeled]):
        assert len(np.unique(s3vm_cell(f[init == k]))) == 1, f"cluster {k} spans two f-cells"
    labeled_only = svc_reference(S3VM_XL, S3VM_YL, S3VM_C).primal
    assert rel(est.lower_bound_, labeled_only) <= 1e-6, (est.lower_bound_, labeled_only)
    assert est.lower_bound_ <= e_star


@pytest.mark.parametrize("case", ["counterexample", "tiny0", "tiny1", "tiny2"])
def test_s3vm_transduction_is_sign_of_f(case: str) -> None:
    """transduction_: the given label on labeled rows, classes_[1] iff f = w·x + b ≥ 0 on
    unlabeled rows (digest §7.6: Lemma 1, not the misprinted reverse)."""
    if case == "counterexample":
        x, s, labeled, _ = s3vm_counterexample()
        est, y = counterexample_fit(), s3vm_targets(labeled, s, 0, 1)
    else:
        x, s, labeled = tiny_s3vm(int(case[-1]))
        est, y = tiny_fit(int(case[-1])), s3vm_targets(labeled, s, 3, 7)
    np.testing.assert_array_equal(np.sort(est.classes_), np.unique(y[labeled]))
    f = x @ np.asarray(est.coef_, dtype=np.float64)[0] + float(np.asarray(est.intercept_)[0])
    t = np.asarray(est.transduction_)
    np.testing.assert_array_equal(t[labeled], y[labeled])
    clear = ~labeled & (np.abs(f) > 1e-12)
    want = np.where(f >= 0, est.classes_[1], est.classes_[0])
    np.testing.assert_array_equal(t[clear], want[clear])
    if hasattr(est, "decision_function"):
        np.testing.assert_allclose(est.decision_function(x), f, rtol=0.0, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_s3vm_singletons_exact(seed: int) -> None:
    """All-singleton clusters with u = 8 ≤ exact_max_clusters: the exact aggregated solve is the
    original S3VM, so objective_ = aggregated_objective_ = brute-force E* (1e-6)."""
    x, s, labeled = tiny_s3vm(seed)
    e_star = s3vm_brute_force(x, labeled, s, 1.0, 0.3)
    est = tiny_fit(seed)
    assert est.status_ == "pure" and est.n_iter_ == 1, (est.status_, est.n_iter_)
    assert rel(est.objective_, e_star) <= OBJ_RTOL, (est.objective_, e_star)
    assert rel(est.aggregated_objective_, e_star) <= OBJ_RTOL, (est.aggregated_objective_, e_star)
    w, b = np.asarray(est.coef_, dtype=np.float64)[0], float(np.asarray(est.intercept_)[0])
    own = s3vm_objective(x, labeled, s, w, b, 1.0, 0.3)
    assert rel(est.objective_, own) <= SELF_RTOL, (est.objective_, own)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_s3vm_local_search_is_feasible_and_no_better_than_exact(seed: int) -> None:
    """exact_max_clusters=0 takes the local search: its answer is a feasible point, so it is
    never below the brute-force optimum (its certified lower bound: the aggregated solves are
    refined to float64, below LIBSVM's float32 primal values), and its objective is its own
    model's objective."""
    x, s, labeled = tiny_s3vm(seed)
    e_star = s3vm_brute_force(x, labeled, s, 1.0, 0.3, lower=True)
    est = tiny_fit(seed, exact_max_clusters=0)
    assert est.objective_ >= e_star * (1 - 1e-9), (est.objective_, e_star)
    assert est.aggregated_objective_ >= e_star * (1 - 1e-9)
    w, b = np.asarray(est.coef_, dtype=np.float64)[0], float(np.asarray(est.intercept_)[0])
    own = s3vm_objective(x, labeled, s, w, b, 1.0, 0.3)
    assert rel(est.objective_, own) <= SELF_RTOL, (est.objective_, own)
    assert est.lower_bound_ <= e_star * (1 + 1e-9)


# --------------------------------------------------------------------------------------------
# 8. invariance
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["lad", "svm"])
def test_row_permutation_gives_the_same_optimum(model: str) -> None:
    """kmeans init with a fixed random_state: the permuted data reach the same objective."""
    if model == "lad":
        x, y = lad_problem("m5")
        make: Callable[[], Any] = lambda: lad_model(init="kmeans")  # noqa: E731
    else:
        x, y = svm_problem("gauss")
        make = lambda: AIDClassifier(  # noqa: E731
            C=1.0, tol=TIGHT, max_iter=500, init="kmeans", solver=INNER, random_state=0
        )
    perm = np.random.default_rng(7).permutation(len(y))
    a = fit_clean(make(), x, y)
    b = fit_clean(make(), x[perm], y[perm])
    assert rel(a.objective_, b.objective_) <= OBJ_RTOL, (a.objective_, b.objective_)


@pytest.mark.parametrize("model", ["lad", "svm", "rbf"])
def test_n_jobs_bitwise_identical(model: str) -> None:
    """n_jobs = 1 and 2 give bitwise-identical fits (same clusters, same model)."""
    if model == "lad":
        x, y = lad_data(20000, 5, 9)
        make: Callable[[int], Any] = lambda j: AIDRegressor(random_state=0, n_jobs=j)  # noqa: E731
    elif model == "svm":
        x, y = two_gaussians(20000, 5, 9)
        make = lambda j: AIDClassifier(C=0.1, random_state=0, n_jobs=j)  # noqa: E731
    else:
        x, y = svm_problem("rbf")
        make = lambda j: AIDClassifier(  # noqa: E731
            C=1.0, kernel="rbf", gamma=RBF_GAMMA, random_state=0, n_jobs=j
        )
    one, two = make(1).fit(x, y), make(2).fit(x, y)
    assert one.objective_ == two.objective_
    assert one.n_iter_ == two.n_iter_
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert [h["n_clusters"] for h in one.history_] == [h["n_clusters"] for h in two.history_]
    np.testing.assert_array_equal(one.intercept_, two.intercept_)
    if model == "rbf":
        np.testing.assert_array_equal(one.support_, two.support_)
        np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
    else:
        np.testing.assert_array_equal(one.coef_, two.coef_)


def test_kernel_aid_bounds_do_not_depend_on_the_thread_count() -> None:
    """The kernel AID-SVM's ½‖w‖² = cᵀK̄c was a rayon parallel sum, whose order follows the
    work stealing: objective_, lower_bound_ and gap_ differed in the last bits between n_jobs=1
    and 2, and between runs (a probe: 10 of 10 runs on these data), and they choose the round
    whose model is kept. It is now summed in row order."""
    from sklearn.datasets import make_classification

    x, y = make_classification(n_samples=800, n_features=10, n_informative=6, random_state=0)
    one = AIDClassifier(kernel="rbf", random_state=0, n_jobs=1).fit(x, y)
    for _ in range(3):
        two = AIDClassifier(kernel="rbf", random_state=0, n_jobs=2).fit(x, y)
        assert (one.objective_, one.lower_bound_, one.gap_) == (
            two.objective_,
            two.lower_bound_,
            two.gap_,
        )
        untimed = [
            [{k: v for k, v in h.items() if k != "time"} for h in m.history_] for m in (one, two)
        ]
        assert untimed[0] == untimed[1]
        np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
