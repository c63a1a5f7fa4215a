"""Shared helpers of the AID tests (seed paper 001: Aggregate and Iterative Disaggregate, Park &
Klabjan 2016). Imported by ``test_aid_oracle.py``; it holds no tests and does not import
kernelkit.

Here:

* seeded data: linear regression with Student-t(3) noise, two Gaussian classes, PMLB 564_fried
  and a9a subsamples (``None`` when the shared data are missing);
* NumPy evaluations of the three full objectives (LAD Σ|r|, the C-SVM primal, linear S3VM) and
  of kernel-SVM primal values from dual coefficients;
* direct oracles: LAD as a sparse LP solved by HiGHS (vertex-exact), the C-SVM by
  sklearn.svm.SVC at a tight tolerance together with its dual value (so [dual, primal] brackets
  the optimum E*), the S3VM optimum by brute force over all labelings of the unlabeled rows
  (one weighted SVC per labeling), the aggregated kernel as block means of the full Gram matrix;
* the §8.3 counterexample to the S3VM optimality claim (digest, full precision);
* the history sandwich checks of digest §4 (L1, L2, L4, L5; S2, S4).

Digest: ``shared/papers/seed-001-aid.md``.
"""

from __future__ import annotations

import gzip
import io
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import linprog
from sklearn.datasets import load_svmlight_file
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel
from sklearn.svm import SVC

Array = NDArray[np.float64]
Ints = NDArray[np.intp]

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def lad_data(n: int, m: int, seed: int, *, intercept: float = 1.5) -> tuple[Array, Array]:
    """X ~ N(0, 1)^{n×m}, β ~ N(0, 1), y = Xβ + intercept + Student-t(3) noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    beta = rng.normal(size=m)
    y = x @ beta + intercept + rng.standard_t(3, size=n)
    return x, y


def two_gaussians(n: int, m: int, seed: int, *, sep: float = 1.5) -> tuple[Array, Array]:
    """Two overlapping Gaussian classes (unit covariance, centres ±sep/2 along a random unit
    direction), labels ±1 in random order."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    direction = rng.normal(size=m)
    direction /= np.linalg.norm(direction)
    x = rng.normal(size=(n, m)) + 0.5 * sep * np.outer(y, direction)
    return x, y


def fried(n: int, seed: int) -> tuple[Array, Array] | None:
    """A seeded n-row subsample of PMLB 564_fried (40,768 × 10, Friedman #1 with noise), or None
    when the file is missing."""
    path = DATA / "pmlb" / "564_fried.tsv.gz"
    if not path.exists():
        return None
    with gzip.open(path, "rt") as fh:
        a = np.loadtxt(fh, skiprows=1, delimiter="\t")
    rows = np.random.default_rng(seed).choice(len(a), size=n, replace=False)
    a = a[np.sort(rows)]
    return np.ascontiguousarray(a[:, :-1]), np.ascontiguousarray(a[:, -1])


def a9a(n: int) -> tuple[Array, Array] | None:
    """The first n rows of a9a.train (123 binary features, labels ±1), densified, or None when
    the file is missing."""
    path = DATA / "a9a" / "a9a.train.svm"
    if not path.exists():
        return None
    with path.open("rb") as fh:
        head = b"".join(itertools.islice(fh, n))
    x, y = load_svmlight_file(io.BytesIO(head), n_features=123)
    return np.ascontiguousarray(x.toarray()), np.asarray(y, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# full objectives (NumPy)
# --------------------------------------------------------------------------------------------
def lad_objective(x: Array, y: Array, coef: Array, intercept: float) -> float:
    """Σ_i |y_i − x_i·β − β0|."""
    return float(np.sum(np.abs(y - x @ np.asarray(coef, dtype=np.float64) - intercept)))


def hinge(margins: Array) -> Array:
    return np.maximum(0.0, 1.0 - margins)


def svm_primal(x: Array, s: Array, w: Array, b: float, c: float) -> float:
    """½‖w‖² + C Σ_i max(0, 1 − s_i(w·x_i + b)), labels s ∈ {−1, +1}."""
    w = np.ravel(np.asarray(w, dtype=np.float64))
    return float(0.5 * w @ w + c * np.sum(hinge(s * (x @ w + b))))


def kernel_svm_primal(
    k_sv_sv: Array, k_all_sv: Array, coef: Array, b: float, s: Array, c: float
) -> tuple[float, Array]:
    """Primal value of w = Σ_j coef_j φ(sv_j): ½ coefᵀK coef + C Σ_i hinge(s_i f_i) with
    f = K(all, sv)·coef + b. Returns (value, f)."""
    coef = np.ravel(np.asarray(coef, dtype=np.float64))
    f = k_all_sv @ coef + b
    return float(0.5 * coef @ k_sv_sv @ coef + c * np.sum(hinge(s * f))), f


def s3vm_objective(
    x: Array,
    labeled: NDArray[np.bool_],
    s: Array,
    w: Array,
    b: float,
    c: float | Array,
    c_u: float,
) -> float:
    """½‖w‖² + Σ_labeled C_i hinge(s_i f_i) + C_u Σ_unlabeled max(0, 1 − |f_i|); s ∈ {−1, +1} on
    the labeled rows (ignored elsewhere); ``c`` is one C or one per row (class weights)."""
    w = np.ravel(np.asarray(w, dtype=np.float64))
    f = x @ w + b
    c_labeled = np.broadcast_to(np.asarray(c, dtype=np.float64), f.shape)[labeled]
    return float(
        0.5 * w @ w
        + np.sum(c_labeled * hinge(s[labeled] * f[labeled]))
        + c_u * np.sum(hinge(np.abs(f[~labeled])))
    )


def s3vm_targets(labeled: Any, s: Array, neg: int, pos: int) -> Array:
    """The fit target: pos / neg on labeled rows, −1 on unlabeled rows."""
    return np.where(labeled, np.where(s > 0, pos, neg), -1)


def tiny_s3vm(
    seed: int, labeled_rows: tuple[int, ...] = (0, 1, 2, 7, 8, 9)
) -> tuple[Array, Array, Any]:
    """14 rows in 2-D, 7 per class (centres ±1 along a random direction; rows 0–6 are +1, 7–13
    are −1); ``labeled_rows`` labeled, the others unlabeled (``s`` is 0 there)."""
    rng = np.random.default_rng(seed)
    s = np.repeat([1.0, -1.0], 7)
    direction = rng.normal(size=2)
    direction /= np.linalg.norm(direction)
    x = rng.normal(size=(14, 2)) + np.outer(s, direction)
    labeled = np.isin(np.arange(14), labeled_rows)
    return x, np.where(labeled, s, 0.0), labeled


# --------------------------------------------------------------------------------------------
# oracles
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LadOptimum:
    objective: float
    coef: Array
    intercept: float


def lad_lp(x: Array, y: Array, *, fit_intercept: bool = True) -> LadOptimum:
    """min Σ (u + v)  s.t.  Xβ + β0 + u − v = y,  u, v ≥ 0,  β, β0 free; HiGHS (dual simplex,
    an exact vertex), constraint matrix sparse [X | 1 | I | −I]."""
    n, m = x.shape
    p = m + int(fit_intercept)
    blocks = [sp.csr_matrix(x)]
    if fit_intercept:
        blocks.append(sp.csr_matrix(np.ones((n, 1))))
    eye = sp.identity(n, format="csr")
    a_eq = sp.hstack([*blocks, eye, -eye], format="csc")
    cost = np.concatenate([np.zeros(p), np.ones(2 * n)])
    bounds = [(None, None)] * p + [(0.0, None)] * (2 * n)
    res = linprog(cost, A_eq=a_eq, b_eq=y, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    beta = res.x[:p]
    coef = beta[:m]
    intercept = float(beta[m]) if fit_intercept else 0.0
    # the value at the returned β, recomputed (HiGHS' own value carries its feasibility tol)
    return LadOptimum(lad_objective(x, y, coef, intercept), coef, intercept)


@dataclass(frozen=True)
class SvmOptimum:
    primal: float  # primal value of the oracle's (w, b): an upper bound on E*
    dual: float  # dual value of the oracle's α: a lower bound on E*
    decision: Array  # oracle decision values on the training rows


def svc_reference(
    x: Array,
    s: Array,
    c: float,
    *,
    kernel: str = "linear",
    gamma: float = 1.0,
    sample_weight: Array | None = None,
    tol: float = 1e-10,
) -> SvmOptimum:
    """sklearn SVC (LIBSVM) at a tight tolerance; the primal value of its (w, b) and the dual
    value Σα − ½ αᵀQα of its α bracket the optimum E* of
    ½‖w‖² + Σ_i C_i hinge(s_i f_i), C_i = C·sample_weight_i."""
    model = SVC(C=c, kernel=kernel, gamma=gamma, tol=tol, max_iter=-1, cache_size=500)
    model.fit(x, s, sample_weight=sample_weight)
    sv = np.asarray(model.support_, dtype=np.intp)
    coef = np.asarray(model.dual_coef_, dtype=np.float64)[0]  # α_j s_j, positive = class +1
    kfun = kernel_fn(kernel, gamma=gamma)
    k_sv_sv = kfun(x[sv], x[sv])
    k_all_sv = kfun(x, x[sv])
    ci = c * (np.ones(len(s)) if sample_weight is None else np.asarray(sample_weight))
    f = k_all_sv @ coef + float(model.intercept_[0])
    quad = float(coef @ k_sv_sv @ coef)
    primal = 0.5 * quad + float(np.sum(ci * hinge(s * f)))
    dual = float(np.sum(np.abs(coef))) - 0.5 * quad
    return SvmOptimum(primal, dual, f)


def kernel_fn(
    kernel: str, *, gamma: float = 1.0, degree: int = 3, coef0: float = 0.0
) -> Callable[[Array, Array], Array]:
    """k(A, B) -> Gram matrix, from sklearn.metrics.pairwise (the spec's parametrisation)."""
    if kernel == "linear":
        return lambda a, b: linear_kernel(a, b)
    if kernel == "rbf":
        return lambda a, b: rbf_kernel(a, b, gamma=gamma)
    if kernel == "poly":
        return lambda a, b: polynomial_kernel(a, b, degree=degree, gamma=gamma, coef0=coef0)
    raise AssertionError(f"no oracle for kernel {kernel!r}")


def block_mean_kernel(x: Array, clusters: Ints, kfun: Callable[[Array, Array], Array]) -> Array:
    """K̄(k, q) = mean over i ∈ C_k, j ∈ C_q of K(x_i, x_j) (digest §2.2, Appendix B)."""
    n_clusters = int(clusters.max()) + 1
    onehot = np.zeros((len(clusters), n_clusters))
    onehot[np.arange(len(clusters)), clusters] = 1.0
    sizes = onehot.sum(axis=0)
    return (onehot.T @ kfun(x, x) @ onehot) / np.outer(sizes, sizes)


def centroids(x: Array, clusters: Ints) -> Array:
    n_clusters = int(clusters.max()) + 1
    return np.stack([x[clusters == k].mean(axis=0) for k in range(n_clusters)])


def s3vm_brute_force(
    x: Array,
    labeled: NDArray[np.bool_],
    s: Array,
    c: float,
    c_u: float,
    *,
    tol: float = 1e-10,
    lower: bool = False,
) -> float:
    """E* of the linear S3VM: min over all labelings d of the unlabeled rows of the weighted SVM
    with labels (s on labeled, d on unlabeled) and C_i = C (labeled) or C_u (unlabeled), each by
    sklearn SVC(C=1, sample_weight=C_i) (sample_weight scales C per row). Exponential: tiny
    instances only. LIBSVM's float32 kernel leaves each SVM's primal value ~1e-8 relative above
    its optimum: ``lower`` takes the dual values instead, a certified lower bound of E*."""
    unl = np.flatnonzero(~labeled)
    assert len(unl) <= 12, "brute force over 2^u labelings"
    weights = np.where(labeled, c, c_u)
    best = np.inf
    for bits in itertools.product((-1.0, 1.0), repeat=len(unl)):
        t = s.copy()
        t[unl] = bits
        optimum = svc_reference(x, t, 1.0, sample_weight=weights, tol=tol)
        best = min(best, optimum.dual if lower else optimum.primal)
    return float(best)


def s3vm_aggregated_brute_force(
    x: Array,
    labeled: NDArray[np.bool_],
    s: Array,
    clusters: Ints,
    c: float,
    c_u: float,
) -> float:
    """F of the aggregated S3VM (15) for given clusters (labeled clusters label-pure): centroids
    weighted by |C_k|·C (labeled) or |D_k|·C_u (unlabeled), min over the labels of the unlabeled
    clusters, each by a tight weighted SVC."""
    ids = np.unique(clusters)
    cx = np.stack([x[clusters == k].mean(axis=0) for k in ids])
    size = np.array([np.sum(clusters == k) for k in ids], dtype=np.float64)
    lab = np.array([bool(labeled[clusters == k][0]) for k in ids])
    for k, is_lab in zip(ids, lab, strict=True):
        members = clusters == k
        assert np.all(labeled[members] == is_lab)
        if is_lab:
            assert len(np.unique(s[members])) == 1, "labeled clusters must be label-pure"
    cs = np.array(
        [s[clusters == k][0] if is_lab else 0.0 for k, is_lab in zip(ids, lab, strict=True)]
    )
    weights = size * np.where(lab, c, c_u)
    unl = np.flatnonzero(~lab)
    best = np.inf
    for bits in itertools.product((-1.0, 1.0), repeat=len(unl)):
        t = cs.copy()
        t[unl] = bits
        best = min(best, svc_reference(cx, t, 1.0, sample_weight=weights).primal)
    return float(best)


# --------------------------------------------------------------------------------------------
# the §8.3 counterexample to Prop. 5 (digest, full precision)
# --------------------------------------------------------------------------------------------
S3VM_XL = np.array(
    [
        [0.8916122155234119, 1.8144604997673728],
        [0.20330949437098766, 2.1889871203074502],
        [-1.4309529073488443, -4.4875957073615735],
        [-1.0473224241970343, -0.9081861979290371],
    ]
)
S3VM_YL = np.array([1.0, 1.0, -1.0, -1.0])
S3VM_XU = np.array(
    [
        [-2.350201041222289, 0.9483438837883948],
        [2.3739863658103646, -2.3122003491613996],
        [1.5119200189951172, 1.7347695999188917],
        [-1.9007691129550595, -0.8861873527727842],
        [-2.1864004502714027, -1.1574301735286947],
        [-0.10001032165079214, 2.3324370192729154],
        [-1.2778335217016896, -3.1093459151316014],
    ]
)
S3VM_C = 0.5  # M_l
S3VM_C_U = 0.1  # M_u
S3VM_F = 0.3241388  # aggregated optimum at the final partition (= E^T)
S3VM_E_STAR = 0.2639187  # brute-force optimum
# final partition of the unlabeled rows (0-based): {0}, {1, 5}, {2}, {3}, {4, 6}
S3VM_UNLABELED_CLUSTERS: Sequence[Sequence[int]] = ((0,), (1, 5), (2,), (3,), (4, 6))


def s3vm_counterexample() -> tuple[Array, Array, NDArray[np.bool_], Ints]:
    """(X, s, labeled, init): rows = the 4 labeled then the 7 unlabeled points; s = ±1 on the
    labeled rows (0 elsewhere); init = labeled singletons 0..3, unlabeled clusters 4..8."""
    x = np.vstack([S3VM_XL, S3VM_XU])
    labeled = np.arange(len(x)) < len(S3VM_XL)
    s = np.concatenate([S3VM_YL, np.zeros(len(S3VM_XU))])
    init = np.empty(len(x), dtype=np.intp)
    init[: len(S3VM_XL)] = np.arange(len(S3VM_XL))
    for k, members in enumerate(S3VM_UNLABELED_CLUSTERS):
        init[len(S3VM_XL) + np.asarray(members)] = len(S3VM_XL) + k
    return x, s, labeled, init


# --------------------------------------------------------------------------------------------
# history checks (digest §4: L1, L2, L4, L5; S2, S4)
# --------------------------------------------------------------------------------------------
HISTORY_KEYS = {
    "n_clusters",
    "lower_bound",
    "upper_bound",
    "gap",
    "time",
    "aggregated_objective",
    "full_objective",
    "n_impure",
}


def check_history(
    history: Sequence[dict[str, Any]],
    *,
    e_low: float,
    e_high: float,
    n_samples: int,
    agg_slack: float = 1e-7,
    lb_slack: float = 1e-7,
    ub_slack: float = 1e-9,
) -> None:
    """[e_low, e_high] brackets the true optimum E* (an exact LP gives e_low = e_high).

    Per entry: lower_bound non-decreasing and ≤ E*; upper_bound non-increasing, = min of the
    full objectives so far, ≥ E*; every full objective ≥ E*; aggregated_objective F^t
    non-decreasing and ≤ E* up to ``agg_slack`` (relative; the inner solver's tolerance);
    ``lb_slack`` / ``ub_slack`` are the relative slacks of the two certified bounds;
    gap = (ub − lb)/ub; n_clusters non-decreasing and ≤ n; time non-decreasing."""
    assert len(history) >= 1
    for h in history:
        missing = HISTORY_KEYS - set(h)
        assert not missing, f"history entry lacks {sorted(missing)}"
    lb = np.array([float(h["lower_bound"]) for h in history])
    ub = np.array([float(h["upper_bound"]) for h in history])
    agg = np.array([float(h["aggregated_objective"]) for h in history])
    full = np.array([float(h["full_objective"]) for h in history])
    gap = np.array([float(h["gap"]) for h in history])
    k = np.array([int(h["n_clusters"]) for h in history])
    times = np.array([float(h["time"]) for h in history])
    scale = abs(e_high)
    assert np.all(np.diff(lb) >= 0.0), f"lower_bound decreases: {lb}"
    assert np.all(np.diff(ub) <= 0.0), f"upper_bound increases: {ub}"
    np.testing.assert_allclose(ub, np.minimum.accumulate(full), rtol=1e-12, atol=0.0)
    assert np.all(lb <= e_high + lb_slack * scale), f"lower_bound above E* ({e_high}): {lb}"
    assert np.all(ub >= e_low - ub_slack * scale), f"upper_bound below E* ({e_low}): {ub}"
    assert np.all(full >= e_low - ub_slack * scale), f"full objective below E*: {full}"
    assert np.all(lb <= ub * (1 + 1e-12)), "lower_bound above upper_bound"
    np.testing.assert_allclose(gap, (ub - lb) / ub, rtol=1e-9, atol=1e-12)
    # F^t ≤ E* (L1, S2) and F^{t−1} ≤ F^t (L4, S4), up to the inner solver's tolerance
    assert np.all(agg <= e_high + agg_slack * scale), f"F^t above E* ({e_high}): {agg}"
    drops = agg[:-1] - agg[1:]
    assert np.all(drops <= agg_slack * scale), f"F^t decreases by {drops.max():.3e}: {agg}"
    assert np.all(np.diff(k) >= 0) and k[-1] <= n_samples and k[0] >= 1, f"n_clusters: {k}"
    assert np.all(np.diff(times) >= 0.0), f"time: {times}"


# --------------------------------------------------------------------------------------------
# partitions and purity (digest §3.3)
# --------------------------------------------------------------------------------------------
def check_labels(labels: Any, n_samples: int, n_clusters: int | None = None) -> Ints:
    """labels_ holds ints 0..K−1 for every row, every id used (K = n_clusters when given)."""
    lab = np.asarray(labels)
    assert lab.shape == (n_samples,), lab.shape
    assert np.issubdtype(lab.dtype, np.integer), lab.dtype
    ids = np.unique(lab)
    np.testing.assert_array_equal(ids, np.arange(len(ids)))
    if n_clusters is not None:
        assert len(ids) == n_clusters, (len(ids), n_clusters)
    return lab.astype(np.intp)


def impure_clusters(values: Array, labels: Ints, eps: float) -> list[int]:
    """Clusters whose rows have values on both sides of 0 beyond the eps band (|v| ≤ eps counts
    as compatible with both signs, digest §7.4)."""
    pos = np.zeros(int(labels.max()) + 1, dtype=bool)
    neg = np.zeros_like(pos)
    np.logical_or.at(pos, labels, values > eps)
    np.logical_or.at(neg, labels, values < -eps)
    return [int(k) for k in np.flatnonzero(pos & neg)]


def s3vm_cell(f: Array) -> NDArray[np.int64]:
    """The four Lemma-1 cells of an unlabeled row: (−∞,−1] → 0, (−1,0] → 1, (0,1) → 2,
    [1,∞) → 3."""
    return np.where(f <= -1.0, 0, np.where(f <= 0.0, 1, np.where(f < 1.0, 2, 3)))


def same_partition(a: Any, b: Any) -> bool:
    """Two labelings of the rows define the same partition (ids may differ)."""
    a, b = np.asarray(a), np.asarray(b)
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))
