"""Class-prior estimation from positive and unlabeled data: ``kernelkit.pu.estimate_prior``.

``PUClassifier`` needs ``prior``, the fraction of positives among the **unlabeled** rows
(``π_U``). PU data reveal it only under an assumption; each method here states its own.

* **KM1, KM2** (Ramaswamy, Scott & Tewari, "Mixture proportion estimation via kernel embedding
  of distributions", ICML 2016). The unlabeled rows are a sample of the mixture
  ``F = (1 − κ*) G + κ* H`` and the labeled positives a sample of the component ``H``, so the
  mixture proportion ``κ*`` is ``π_U`` itself, with no conversion, whether the labeled rows were
  taken out of the same pool or sampled apart. Embed both samples in the RKHS of a Gaussian
  kernel and let ``d(λ)`` be the distance from ``λ φ(F) + (1 − λ) φ(H)`` to the embeddings of
  all distributions, for ``λ ≥ 1``. It is 0 up to ``λ* = 1/(1 − κ*)`` and grows after it; with
  the samples' embeddings ``d̂(λ)`` is the distance to the convex hull of the rows' feature
  vectors, a quadratic program over simplex weights (below). The estimators take the first
  ``λ`` where the slope of ``d̂`` exceeds a threshold ("gradient thresholding") and return
  ``κ̂ = 1 − 1/λ``. KM2's threshold is ``0.8 s₀ + 0.2 ‖φ̂(F) − φ̂(H)‖`` with ``s₀`` the slope at
  ``λ = 1``; KM1's is ``1/√min(n, m)``, or KM2's when that exceeds ``0.9 ‖φ̂(F) − φ̂(H)‖``
  (close to the largest slope ``d̂`` can have, ``‖φ̂(F) − φ̂(H)‖``). The estimate is
  consistent when the negatives' distribution contains no part of the positives'
  ("irreducibility"); where it does, ``κ*`` exceeds ``π_U`` and so, in the limit, does the
  estimate.
* **Elkan–Noto** (Elkan & Noto, "Learning classifiers from only positive and unlabeled
  data", KDD 2008). Under "selected completely at random" labeling, a calibrated classifier
  of labeled versus unlabeled gives ``g(x) = P(s = 1 | x) = c P(y = 1 | x)`` with
  ``c = P(s = 1 | y = 1)``, the share of the positives that carry a label. Their estimators of
  ``c`` from held-out ``g``: ``e1`` the mean of ``g`` over the labeled rows, ``e2`` the sum of
  ``g`` over the labeled rows over its sum over all rows, ``e3`` the largest ``g``. Here every
  row's ``g`` is cross-fitted (predicted by a model fitted on the other folds). The ``p``
  labeled rows are then a fraction ``c`` of the ``p/c`` positives of the data set, so the
  ``n`` unlabeled rows hold ``p/c − p`` of them: ``π_U = p (1 − c) / (c n)``. This conversion
  holds only when the labeled positives were taken out of the same pool as the unlabeled rows
  (Elkan and Noto's single-training-set setting), which KM does not assume.

The kernel and constants of KM are those of the authors' released implementation
(``kernel_MPE``, linked from C. Scott's web page), read to understand, not copied: the Gaussian
``exp(−‖x − x'‖²/(2σ²))`` with ``σ`` the one of ``{10^-1, 10^-0.5, 1, 10^0.5, 10}`` times the median
pairwise distance of the pooled rows that maximises ``‖φ̂(F) − φ̂(H)‖``; slopes by forward
differences of step 0.02; bisection of ``λ`` on ``[1, 8]`` down to an interval of width 0.04
(``κ̂ ≤ 0.875``); ``s₀`` from ``d̂(1.05)``. Their code solves each quadratic program with
cvxopt; kernelkit solves it exactly with an active-set method (``_nearest_in_hull``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.spatial.distance import squareform
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_array, check_random_state

from ._validation import check_sparse_structure
from ._warn import warn_from_caller
from .exceptions import ConvergenceWarning

__all__ = ["estimate_prior"]

FloatArray = NDArray[np.float64]
IndexArray = NDArray[np.intp]

METHODS = ("km2", "km1", "elkan_noto", "elkan_noto_e2", "elkan_noto_e3")

#: Width multipliers of the median pairwise distance tried for the Gaussian kernel (KM).
WIDTH_FACTORS = (0.1, 10**-0.5, 1.0, 10**0.5, 10.0)
#: λ interval of the bisection, its final width, and the slope that starts KM2's threshold.
LAMBDA_MAX = 8.0
LAMBDA_WIDTH = 0.04
BEGIN_LAMBDA = 1.05
#: KM2's threshold: (1 − KM2_WEIGHT) s₀ + KM2_WEIGHT ‖φ̂(F) − φ̂(H)‖.
KM2_WEIGHT = 0.2
#: KM1 falls back to KM2's threshold above this fraction of ‖φ̂(F) − φ̂(H)‖.
KM1_CAP = 0.9

#: The hull solver stops when the Frank–Wolfe gap of ½‖·‖² is at most this; the distance it
#: returns is then within gap / distance of the optimum (Gilbert's bound).
HULL_TOL = 1e-12
#: Ridge added to the face matrices before their Cholesky factorisation, relative to max K_ii.
HULL_RIDGE = 1e-12
HULL_MAX_ROUNDS = 10_000


def estimate_prior(
    X: Any,
    y: Any,
    *,
    method: str = "km2",
    random_state: Any = None,
    max_samples: int = 2000,
    classifier: Any = None,
    cv: int = 5,
) -> float:
    """Estimate the class prior of the unlabeled rows from positive and unlabeled data.

    The result is ``π_U``, the fraction of positives among the rows with ``y = 0``: the
    ``prior`` that :class:`~kernelkit.PUClassifier` takes. The module documentation
    (``kernelkit/_pu_prior.py``) derives each method and its assumption; ``docs/
    pu_classifier.md`` ("The prior") measures them on the PU paper's 12 data sets.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows, labeled and unlabeled.
    y : array-like of shape (n_samples,)
        1 for a labeled positive, 0 for an unlabeled row (``PUClassifier``'s convention);
        both must occur.
    method : {"km2", "km1", "elkan_noto", "elkan_noto_e2", "elkan_noto_e3"}, default="km2"
        ``"km2"`` and ``"km1"``: Ramaswamy, Scott & Tewari's kernel mixture-proportion
        estimators, which estimate ``π_U`` directly. ``"elkan_noto"`` (their ``e1``),
        ``"elkan_noto_e2"``, ``"elkan_noto_e3"``: Elkan & Noto's estimators of the labeled
        share ``c`` of the positives, converted to ``π_U = p (1 − c) / (c n)`` (``p`` labeled,
        ``n`` unlabeled rows), which assumes the labeled positives were taken out of the same
        pool as the unlabeled rows.
    random_state : int, RandomState instance or None, default=None
        Seeds the subsamples of KM (only drawn when a side has more than ``max_samples``
        rows) and the folds of Elkan–Noto.
    max_samples : int, default=2000
        KM only: each of the two samples (unlabeled, labeled) larger than this is replaced by
        a random subsample of this size. KM keeps an ``N × N`` kernel matrix of the
        ``N ≤ 2 max_samples`` distinct rows; >= 1.
    classifier : estimator or None, default=None
        Elkan–Noto only: the classifier of labeled versus unlabeled, with ``predict_proba``
        (cloned for each fold). None uses ``kernelkit.SVC()`` calibrated by isotonic
        regression, ``CalibratedClassifierCV(SVC(), method="isotonic", ensemble=False)``:
        Elkan and Noto's SVM, without their Platt scaling, whose sigmoid cannot level off at
        ``P(s = 1 | x) = c < 1`` (``docs/pu_classifier.md`` measures the difference).
    cv : int, default=5
        Elkan–Noto only: the number of folds of the cross-fitting, >= 2.

    Returns
    -------
    float
        The estimate of ``π_U`` in ``[0, 1]`` (KM's lies in ``(0, 0.875]``).

    References
    ----------
    .. [1] H. G. Ramaswamy, C. Scott and A. Tewari, "Mixture proportion estimation via
       kernel embedding of distributions", ICML 2016, PMLR 48 (arXiv:1603.02501).
    .. [2] C. Elkan and K. Noto, "Learning classifiers from only positive and unlabeled
       data", KDD 2008, 213–220.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.pu import estimate_prior
    >>> rng = np.random.default_rng(0)
    >>> y_true = (rng.random(600) < 0.4).astype(int)
    >>> X = rng.normal(size=(600, 2)) + np.where(y_true[:, None] == 1, 2.0, -2.0)
    >>> y = ((y_true == 1) & (rng.random(600) < 0.5)).astype(int)
    >>> truth = float(y_true[y == 0].mean())  # the positives left among the unlabeled rows
    >>> abs(estimate_prior(X, y) - truth) < 0.05
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    rows, labeled = _check_xy(X, y)
    rng = check_random_state(random_state)
    if method in ("km1", "km2"):
        if isinstance(max_samples, bool) or not isinstance(max_samples, (int, np.integer)):
            raise TypeError(f"max_samples must be an integer, got {type(max_samples).__name__}")
        if max_samples < 1:
            raise ValueError(f"max_samples must be >= 1, got {max_samples}")
        mixture = _subsample(np.flatnonzero(~labeled), int(max_samples), rng)
        component = _subsample(np.flatnonzero(labeled), int(max_samples), rng)
        curve = _DistanceCurve(rows, mixture, component)
        return curve.estimate(method)
    return _elkan_noto(rows, labeled, method, classifier, cv, rng)


def _check_xy(X: Any, y: Any) -> tuple[Any, NDArray[np.bool_]]:
    """The rows (float64, dense or CSR) and the mask of labeled positives, with clear errors."""
    check_sparse_structure(X)
    rows = check_array(X, accept_sparse="csr", dtype=np.float64)
    labels = np.asarray(y)
    if labels.ndim != 1:
        labels = np.squeeze(labels)
        if labels.ndim != 1:
            raise ValueError(f"y must be one-dimensional, got shape {np.shape(y)}")
    if labels.shape[0] != rows.shape[0]:
        raise ValueError(
            f"y must have one label per row of X, got {labels.shape[0]} labels for "
            f"{rows.shape[0]} rows"
        )
    if labels.dtype.kind not in "biuf":
        raise ValueError(f"y must hold 1 (labeled positive) and 0 (unlabeled), got {labels.dtype}")
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError("y contains NaN: it must hold 1 (labeled positive) and 0 (unlabeled)")
    values = np.unique(labels)
    if not np.all(np.isin(values, [0, 1])):
        raise ValueError(
            f"y must hold 1 (labeled positive) and 0 (unlabeled), got values {values[:5]!r}"
        )
    labeled = labels == 1
    if not labeled.any():
        raise ValueError("y has no labeled positive (y == 1)")
    if labeled.all():
        raise ValueError("y has no unlabeled row (y == 0)")
    return rows, labeled


def _subsample(indices: IndexArray, size: int, rng: np.random.RandomState) -> IndexArray:
    """``indices``, or a random subset of ``size`` of them (in increasing order)."""
    if len(indices) <= size:
        return indices
    return np.sort(rng.choice(indices, size, replace=False))


# --------------------------------------------------------------------------------------------
# KM1 / KM2


def _row_groups(rows: Any) -> tuple[IndexArray, IndexArray]:
    """``(first, group)``: the index of the first of each set of identical rows, and the group
    of every row (``rows[i]`` equals ``rows[first[group[i]]]``), independent of the row order
    up to the numbering of the groups."""
    if sp.issparse(rows):
        canonical = sp.csr_matrix(rows, copy=True)
        canonical.sum_duplicates()
        canonical.eliminate_zeros()
        canonical.sort_indices()
        keys: dict[bytes, int] = {}
        group = np.empty(canonical.shape[0], dtype=np.intp)
        for i in range(canonical.shape[0]):
            start, end = canonical.indptr[i], canonical.indptr[i + 1]
            key = (
                canonical.indices[start:end].tobytes() + b"|" + canonical.data[start:end].tobytes()
            )
            group[i] = keys.setdefault(key, len(keys))
        return np.unique(group, return_index=True)[1].astype(np.intp), group
    dense = np.ascontiguousarray(rows, dtype=np.float64) + 0.0  # -0.0 and 0.0 alike
    as_bytes = dense.view(np.dtype((np.void, dense.dtype.itemsize * dense.shape[1])))[:, 0]
    _, first, group = np.unique(as_bytes, return_index=True, return_inverse=True)
    return first.astype(np.intp), group.reshape(-1).astype(np.intp)


def _weighted_median(values: FloatArray, weights: FloatArray) -> float:
    """The median of ``values`` repeated ``weights`` times (integers): ``np.median`` of the
    repeated values, which averages the two middle ones of an even count."""
    kept = weights > 0
    order = np.argsort(values[kept], kind="stable")
    ordered = values[kept][order]
    cumulative = np.cumsum(weights[kept][order])
    half = 0.5 * cumulative[-1]
    middle = int(np.searchsorted(cumulative, half))
    if cumulative[middle] == half and middle + 1 < len(ordered):
        return 0.5 * float(ordered[middle] + ordered[middle + 1])
    return float(ordered[middle])


class _DistanceCurve:
    """``d̂(λ)`` of one mixture sample (``rows[mixture]``) and one component sample
    (``rows[component]``), each value solved once and kept; every solve starts from the
    solution of the nearest ``λ`` already solved."""

    def __init__(self, rows: Any, mixture: IndexArray, component: IndexArray) -> None:
        self.n, self.m = len(mixture), len(component)
        sample = np.concatenate([mixture, component])
        first, group = _row_groups(rows[sample])
        distinct = rows[sample[first]]
        size = len(first)
        # Weights of the mixture and component embeddings on the distinct rows.
        self.a = np.bincount(group[: self.n], minlength=size) / self.n
        self.b = np.bincount(group[self.n :], minlength=size) / self.m
        squared = euclidean_distances(distinct, squared=True)
        squared = 0.5 * (squared + squared.T)
        np.fill_diagonal(squared, 0.0)
        # The median of the squared distances over every pair of rows, repeats included.
        counts = np.bincount(group, minlength=size).astype(np.float64)
        pairs = squareform(squared, checks=False)
        if counts.max() == 1.0:
            median_squared = float(np.median(pairs)) if len(pairs) else 0.0
        else:
            weights = np.outer(counts, counts)
            np.fill_diagonal(weights, 0.0)
            median_squared = _weighted_median(
                np.concatenate([pairs, np.zeros(size)]),
                np.concatenate([squareform(weights, checks=False), counts * (counts - 1) / 2]),
            )
        median = math.sqrt(max(median_squared, 0.0))
        if median == 0.0:
            median = 1.0  # every pair of rows equal: any width gives the same (zero) distances
        difference = self.a - self.b
        best = (-1.0, 0.0)
        for factor in WIDTH_FACTORS:
            width = factor * median
            kernel = np.exp(squared / (-2.0 * width * width))
            mmd = math.sqrt(max(float(difference @ kernel @ difference), 0.0))
            if mmd > best[0]:
                best = (mmd, width)
        self.embedding_distance, self.width = best
        self.kernel = np.exp(squared / (-2.0 * self.width * self.width))
        self.solved: dict[float, tuple[FloatArray, float]] = {1.0: (self.a.copy(), 0.0)}

    def __call__(self, lam: float) -> float:
        """``d̂(λ)``, the RKHS distance from ``λ φ̂(F) + (1 − λ) φ̂(H)`` to the hull of the
        rows (``d̂(1) = 0``: the mixture's own embedding is in it)."""
        if lam not in self.solved:
            nearest = min(self.solved, key=lambda known: abs(known - lam))
            target = lam * self.a + (1.0 - lam) * self.b
            weights, value = _nearest_in_hull(self.kernel, target, self.solved[nearest][0])
            self.solved[lam] = (weights, math.sqrt(max(value, 0.0)))
        return self.solved[lam][1]

    def threshold(self, method: str) -> float:
        """The slope threshold of KM1 or KM2 (module doc)."""
        begin_slope = (self(BEGIN_LAMBDA) - self(1.0)) / (BEGIN_LAMBDA - 1.0)
        km2 = (1.0 - KM2_WEIGHT) * begin_slope + KM2_WEIGHT * self.embedding_distance
        if method == "km2":
            return km2
        km1 = 1.0 / math.sqrt(min(self.n, self.m))
        return km1 if km1 <= KM1_CAP * self.embedding_distance else km2

    def estimate(self, method: str) -> float:
        """``κ̂ = 1 − 1/λ̂``, ``λ̂`` the first ``λ`` where the slope of ``d̂`` exceeds the
        method's threshold, found by bisection."""
        threshold = self.threshold(method)
        step = LAMBDA_WIDTH / 2.0
        low, high = 1.0, LAMBDA_MAX
        while high - low > LAMBDA_WIDTH:
            middle = (low + high) / 2.0
            slope = (self(middle + step) - self(middle)) / step
            if slope > threshold:
                high = middle
            else:
                low = middle
        lam = (low + high) / 2.0
        return 1.0 - 1.0 / lam


# --------------------------------------------------------------------------------------------
# The quadratic program of d̂(λ): the nearest point of a convex hull in the RKHS


def _nearest_in_hull(
    kernel: FloatArray, target: FloatArray, start: FloatArray, tol: float = HULL_TOL
) -> tuple[FloatArray, float]:
    """``min (v − u)ᵀ K (v − u)`` over the simplex ``v ≥ 0, Σ v = 1``: the squared RKHS
    distance from ``Σ u_i φ(x_i)`` to the convex hull of the ``φ(x_i)``.

    A primal active-set method. On the face of the current support ``S`` the problem is an
    equality-constrained quadratic, solved through a Cholesky factorisation of ``K_SS`` (plus
    a ridge of ``HULL_RIDGE · max K_ii``): when its solution is nonnegative it is the face's
    optimum; otherwise the rows it drives negative are dropped, all at once when that lowers
    the objective, else by a step to the first bound. At a face optimum the rows outside ``S``
    whose gradient is below the face's multiplier are added (a batch; one when a batch made
    no progress). Every accepted point lowers the objective, so no face repeats. The solve
    ends when the Frank–Wolfe gap ``vᵀ∇ − min ∇`` of ``½ (v − u)ᵀ K (v − u)`` is at most
    ``tol``, which bounds the objective's error by ``tol``; pair steps (SMO) take over in the
    rare case the face solutions stall.

    Parameters
    ----------
    kernel : ndarray of shape (N, N)
        ``K``, symmetric positive semi-definite.
    target : ndarray of shape (N,)
        ``u`` (any signs).
    start : ndarray of shape (N,)
        A starting point, nonnegative with a positive sum (normalised here).

    Returns
    -------
    weights : ndarray of shape (N,)
        The optimal ``v``.
    value : float
        ``(v − u)ᵀ K (v − u)`` at it.
    """
    weights = np.maximum(np.asarray(start, dtype=np.float64), 0.0)
    weights /= weights.sum()
    kernel_target = kernel @ target
    ridge = HULL_RIDGE * float(np.max(np.diag(kernel)))
    support = np.flatnonzero(weights > 0)
    previous = math.inf
    single = False
    gradient = kernel[:, support] @ weights[support] - kernel_target
    for _ in range(HULL_MAX_ROUNDS):
        weights, support, ridge = _face_optimum(kernel, kernel_target, weights, support, ridge)
        gradient = kernel[:, support] @ weights[support] - kernel_target
        multiplier = float(weights[support] @ gradient[support])
        gap = multiplier - float(gradient.min())
        # A ridge leaves the face's gradient uneven by up to ridge · max v.
        if gap <= max(tol, 2.0 * ridge * float(weights.max())):
            break
        value = 0.5 * float((weights - target) @ gradient)
        outside = np.ones(len(weights), dtype=bool)
        outside[support] = False
        candidates = np.flatnonzero(outside & (gradient < multiplier - 0.5 * gap))
        stalled = value >= previous - 1e-15 * abs(previous)
        previous = min(previous, value)
        if len(candidates) == 0 or (stalled and single):
            # The gap lies inside the face (a face solution not exact enough): pair steps.
            _pair_steps(kernel, weights, gradient, 10 * len(support) + 10)
            support = np.flatnonzero(weights > 0)
            single = False
            continue
        single = stalled
        size = 1 if single else max(1, len(support) // 5)
        if len(candidates) > size:
            candidates = candidates[np.argpartition(gradient[candidates], size - 1)[:size]]
        support = np.union1d(support, candidates)
    else:
        warn_from_caller(
            f"the hull distance of the prior estimate stopped after {HULL_MAX_ROUNDS} rounds "
            f"with a gap of {gap:.3g}",
            ConvergenceWarning,
        )
    gradient = kernel @ weights - kernel_target
    return weights, float((weights - target) @ gradient)


def _face_solution(
    kernel: FloatArray, kernel_target: FloatArray, support: IndexArray, ridge: float
) -> tuple[FloatArray, float, float]:
    """The minimiser ``w`` of ``½ wᵀK_SS w − (K u)_Sᵀ w`` subject to ``Σ w = 1`` (signs
    free), its objective value, and the ridge used (raised when the factorisation fails)."""
    block = kernel[np.ix_(support, support)]
    rhs = np.column_stack([kernel_target[support], np.ones(len(support))])
    while True:
        ridged = block.copy()
        ridged.flat[:: len(support) + 1] += ridge
        try:
            factor = sla.cho_factor(ridged, check_finite=False)
            break
        except np.linalg.LinAlgError:
            ridge = max(ridge * 100.0, 1e-14)
    solved = sla.cho_solve(factor, rhs, check_finite=False)
    w = solved[:, 0] + (1.0 - solved[:, 0].sum()) / solved[:, 1].sum() * solved[:, 1]
    value = 0.5 * float(w @ (block @ w)) - float(w @ kernel_target[support])
    return w, value, ridge


def _face_optimum(
    kernel: FloatArray,
    kernel_target: FloatArray,
    weights: FloatArray,
    support: IndexArray,
    ridge: float,
) -> tuple[FloatArray, IndexArray, float]:
    """From a feasible ``weights`` (zero outside ``support``), the optimum of a face inside
    ``support`` with an objective no higher; returns it, its support and the ridge."""
    weights = weights.copy()
    while True:
        w, _, ridge = _face_solution(kernel, kernel_target, support, ridge)
        if w.min() >= 0.0:
            weights[support] = w
            return weights, support[w > 0], ridge
        current = _face_value(kernel, kernel_target, support, weights[support])
        # Drop every row the face solution drives negative, again until none is.
        reduced, reduced_w = support, w
        for _ in range(20):
            kept = reduced_w > 0
            if kept.all() or not kept.any():
                break
            reduced = reduced[kept]
            reduced_w, value, ridge = _face_solution(kernel, kernel_target, reduced, ridge)
            if reduced_w.min() >= 0.0 and value < current:
                weights[support] = 0.0
                weights[reduced] = reduced_w
                return weights, reduced[reduced_w > 0], ridge
        # The Euclidean projection of the face solution onto the simplex.
        projected = _simplex_projection(w)
        if _face_value(kernel, kernel_target, support, projected) < current:
            weights[support] = projected
            support = support[projected > 0]
            continue
        # A step towards the face solution, to the first bound.
        direction = w - weights[support]
        falling = direction < 0
        ratios = np.full(len(support), np.inf)
        ratios[falling] = weights[support][falling] / -direction[falling]
        first = int(np.argmin(ratios))
        moved = weights[support] + ratios[first] * direction
        moved[first] = 0.0
        np.maximum(moved, 0.0, out=moved)
        weights[support] = moved / moved.sum()
        support = support[moved > 0]


def _face_value(
    kernel: FloatArray, kernel_target: FloatArray, support: IndexArray, w: FloatArray
) -> float:
    """``½ wᵀK_SS w − (K u)_Sᵀ w`` (the objective up to the constant ``½ uᵀKu``)."""
    return 0.5 * float(w @ (kernel[np.ix_(support, support)] @ w)) - float(
        w @ kernel_target[support]
    )


def _simplex_projection(w: FloatArray) -> FloatArray:
    """The Euclidean projection of ``w`` onto ``{v ≥ 0, Σ v = 1}``."""
    ordered = np.sort(w)[::-1]
    excess = np.cumsum(ordered) - 1.0
    count = np.arange(1, len(w) + 1)
    last = int(np.flatnonzero(ordered - excess / count > 0)[-1])
    projected: FloatArray = np.maximum(w - excess[last] / (last + 1), 0.0)
    return projected


def _pair_steps(kernel: FloatArray, weights: FloatArray, gradient: FloatArray, steps: int) -> None:
    """SMO pair steps in place: move weight to the row of the smallest gradient from the
    support row of the best second-order gain (LIBSVM's working-set rule); ``gradient``
    (``K (v − u)``) is updated with ``weights``."""
    diagonal = np.diag(kernel)
    for _ in range(steps):
        rising = int(np.argmin(gradient))
        excess = gradient - gradient[rising]
        curvature = np.maximum(diagonal[rising] + diagonal - 2.0 * kernel[rising], 1e-15)
        gain = np.where((weights > 0) & (excess > 0), excess * excess / curvature, -1.0)
        falling = int(np.argmax(gain))
        if gain[falling] <= 0.0:
            return
        amount = float(excess[falling] / curvature[falling])
        if amount >= weights[falling]:
            amount = float(weights[falling])
            weights[falling] = 0.0
        else:
            weights[falling] -= amount
        weights[rising] += amount
        gradient += amount * (kernel[rising] - kernel[falling])


# --------------------------------------------------------------------------------------------
# Elkan–Noto


def _elkan_noto(
    rows: Any,
    labeled: NDArray[np.bool_],
    method: str,
    classifier: Any,
    cv: Any,
    rng: np.random.RandomState,
) -> float:
    """``π_U = p (1 − c) / (c n)`` from Elkan & Noto's ``c`` (module doc), with cross-fitted
    probabilities."""
    if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}")
    p = int(labeled.sum())
    n = len(labeled) - p
    if min(p, n) < cv:
        raise ValueError(
            f"y has {p} labeled and {n} unlabeled rows: Elkan–Noto's cross-fitting needs at "
            f"least cv={cv} of each"
        )
    if classifier is None:
        from .svc import SVC

        classifier = CalibratedClassifierCV(SVC(), method="isotonic", ensemble=False)
    s = labeled.astype(np.int64)
    scores = np.empty(len(s))
    folds = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=rng)
    for train, test in folds.split(np.zeros(len(s)), s):
        model = clone(classifier).fit(rows[train], s[train])
        column = list(model.classes_).index(1)
        scores[test] = model.predict_proba(rows[test])[:, column]
    if method == "elkan_noto":
        c = float(scores[labeled].mean())
    elif method == "elkan_noto_e2":
        c = float(scores[labeled].sum() / scores.sum())
    else:
        c = float(scores.max())
    if c <= 0.0:
        return 1.0
    return float(min(max(p * (1.0 - c) / (c * n), 0.0), 1.0))
