"""AID estimators: ``AIDRegressor`` (LAD), ``AIDClassifier`` (C-SVM) and
``AIDSemiSupervisedClassifier`` (linear S3VM).

AID (Park & Klabjan, "An Aggregate and Iterative Disaggregate Algorithm with Proven Optimality
in Machine Learning", 2016) trains on cluster means weighted by the cluster sizes, then splits
only the clusters whose rows disagree (different residual signs, different sides of the margin)
and solves again. For LAD and the SVM every aggregated optimum is a lower bound of the true
optimum and the aggregated solution evaluated on all rows an upper bound; when every cluster is
pure the two meet and the solution is optimal (``status_ == "optimal"``). For the S3VM the
paper's optimality claim is false (a counterexample is in the test suite), so
``AIDSemiSupervisedClassifier`` is a heuristic and never reports "optimal".
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._aid_base import (
    AID_KERNELS,
    Callback,
    _AidBase,
    _BinaryClassifierMixin,
    _check_binary,
    _default_svm_clusters,
    _fit_on_dask,
    _inner_solver,
    _is_dask,
    _run,
)
from ._base import Float64Array, _check_positive, resolve_n_jobs
from ._validation import check_bool, check_not_overflowing, keeps_model_on_failure, scale_gamma
from .solvers import Smo

__all__ = ["AIDClassifier", "AIDRegressor", "AIDSemiSupervisedClassifier"]


class AIDRegressor(RegressorMixin, _AidBase):  # type: ignore[misc]
    """Least absolute deviation regression by AID: ``min_{β, β0} Σ_i |y_i − x_i·β − β0|``.

    Unregularised LAD (scikit-learn's ``QuantileRegressor(quantile=0.5, alpha=0)`` minimises
    the same objective divided by ``2n``). Each aggregated problem is a weighted LAD on cluster
    means, solved as a linear program by the Clarabel interior-point solver; clusters whose
    residuals change sign are split (Park & Klabjan §3.1). The model is the aggregated solution
    with the smallest objective on all rows seen.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Fit ``β0`` (a column of ones in the LP); if False, ``intercept_`` is 0.
    tol : float, default=1e-4
        Stop when the certified relative gap ``(upper − lower)/upper`` is at most ``tol``, > 0
        (``status_ == "gap"``). AID also stops as soon as every cluster is pure, which proves
        optimality (``status_ == "optimal"``).
    max_iter : int, default=100
        Maximum number of aggregated solves, >= 1.
    n_clusters : int or None, default=None
        Initial number of clusters, between 1 and n_samples. ``None``: the paper's
        ``max(2m, 0.0005 n)`` (``3m`` when ``m·n > 5e8``), ``m`` the number of coefficients,
        and always more than ``m`` (at most n_samples).
    init : {"kmeans", "random"} or array-like of int, default="kmeans"
        ``"kmeans"``: LAD on a sample, then k-means on the standardised (residual, target)
        pairs (the paper's §4); ``"random"``: a random partition; an array of shape
        (n_samples,): each row's cluster id (``n_clusters`` is then ignored).
    random_state : int, RandomState instance or None, default=None
        Seed of the sample and of k-means; None draws a new seed at every fit.
    time_limit : float or None, default=None
        Wall-clock limit in seconds, > 0 (checked between aggregated solves), or None.
    n_jobs : int or None, default=None
        Threads of the Rust core; ``None`` or -1 use every core.
    verbose : bool or int, default=False
        When true, print one progress line per aggregated solve on stderr.
    callback : callable or None, default=None
        Called after every aggregated solve with the dict of its ``history_`` entry; a true
        return value stops the fit (``status_ == "stopped"``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The fitted coefficients β.
    intercept_ : float
        The fitted intercept ``β0`` (0 when ``fit_intercept=False``).
    objective_ : float
        ``Σ|y − X coef_ − intercept_|`` on the training data.
    lower_bound_ : float
        A certified lower bound of the optimum (the aggregated LP's dual value).
    gap_ : float
        The final certified relative gap ``(objective_ − lower_bound_) / objective_``.
    status_ : str
        How the fit ended: ``"optimal"`` (every cluster pure), ``"gap"``, ``"max_iter"``,
        ``"time_limit"`` or ``"stopped"``; the last three warn with
        :class:`~kernelkit.ConvergenceWarning`.
    n_iter_ : int
        Number of aggregated solves.
    labels_ : ndarray of shape (n_samples,)
        The final cluster of each training row (int64).
    init_time_ : float
        Seconds spent on the initial clusters (``history_`` times start after them).
    history_ : list of dict
        One entry per aggregated solve: ``iteration``, ``n_clusters``, ``lower_bound``
        (non-decreasing), ``upper_bound`` (non-increasing), ``gap``, ``time``,
        ``aggregated_objective`` (the weighted LAD optimum ``F^t``), ``full_objective``
        (``E^t``) and ``n_impure``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, defined only when ``X`` has feature names that
        are all strings.

    References
    ----------
    .. [1] Y. W. Park and D. Klabjan, "An aggregate and iterative disaggregate algorithm with
       proven optimality in machine learning", arXiv preprint, 2016.
    """

    coef_: Float64Array
    intercept_: float

    def __init__(
        self,
        *,
        fit_intercept: bool = True,
        tol: float = 1e-4,
        max_iter: int = 100,
        n_clusters: int | None = None,
        init: str | Any = "kmeans",
        random_state: int | None = None,
        time_limit: float | None = None,
        n_jobs: int | None = None,
        verbose: bool | int = False,
        callback: Callback | None = None,
    ) -> None:
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.n_clusters = n_clusters
        self.init = init
        self.random_state = random_state
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any) -> AIDRegressor:
        """Fit the LAD model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (sparse input is densified).
        y : array-like of shape (n_samples,)
            Numeric targets.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_aid_params()
        check_bool("fit_intercept", self.fit_intercept)
        if _is_dask(X):
            _fit_on_dask(self, X, y)
            return self
        X, y = self._dense_xy(X, y, y_numeric=True)
        check_not_overflowing(X)
        y = np.ascontiguousarray(y, dtype=np.float64)
        n, m = X.shape
        design = np.hstack([X, np.ones((n, 1))]) if self.fit_intercept else X
        # The LP is solved with absolute tolerances: columns scaled to max |x_ij| = 1 (β_j scales
        # back), so that large columns do not leave it inaccurate, or failing on collinear ones.
        column_scale = np.max(np.abs(design), axis=0, initial=0.0)
        column_scale[column_scale == 0] = 1.0
        design = np.ascontiguousarray(design / column_scale)
        d = design.shape[1]
        rate = 3 * d if d * n > 5e8 else 2 * d
        init, k = self._init_and_k(n, min(n, max(rate, math.ceil(0.0005 * n), d + 1)))
        options = self._core_options()
        # The LP's relative duality gap (the accuracy of each aggregated optimum).
        options["inner"] = {"tol": 1e-9}
        # The core's purity test counts residuals within 1e-9·max(1, max|y|) as zero: an absolute
        # tolerance when max|y| < 1, so small targets looked pure and AID stopped "optimal" far
        # above the optimum. LAD is positively homogeneous in y: solve on y / max|y| instead.
        y_scale = float(np.max(np.abs(y), initial=0.0))
        y_scale = y_scale if 0.0 < y_scale < 1.0 else 1.0
        if y_scale != 1.0 and options["callback"] is not None:
            options["callback"] = _rescaled_progress(options["callback"], y_scale)
        solved = _run(_core.aid_lad, design, y / y_scale, init, k, options=options)
        result = _rescaled_lad(solved, y_scale)
        coef = np.asarray(result["coef"], dtype=np.float64) / column_scale
        self.coef_ = coef[:m].copy()
        self.intercept_ = float(coef[m]) if self.fit_intercept else 0.0
        self._store_result(result)
        return self

    def predict(self, X: Any) -> Float64Array:
        """Predict the target of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to evaluate (sparse input is densified).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``X @ coef_ + intercept_``.
        """
        check_is_fitted(self, "coef_")
        X = self._dense(X, reset=False)
        return np.asarray(X @ self.coef_ + self.intercept_, dtype=np.float64)


#: The entries of an AID-LAD history / progress report that scale with y.
_LAD_SCALED = ("lower_bound", "upper_bound", "aggregated_objective", "full_objective")


def _rescaled_entry(entry: Mapping[str, Any], scale: float) -> dict[str, Any]:
    return {key: float(v) * scale if key in _LAD_SCALED else v for key, v in entry.items()}


def _rescaled_progress(callback: Callback, scale: float) -> Callback:
    """The progress callback of a solve on y / scale, reporting in the units of y."""

    def report(info: Mapping[str, Any]) -> bool | None:
        return callback(_rescaled_entry(info, scale))

    return report


def _rescaled_lad(result: dict[str, Any], scale: float) -> dict[str, Any]:
    """The result of ``_core.aid_lad`` on y / scale, in the units of y."""
    if scale == 1.0:
        return result
    out = dict(result)
    out["coef"] = np.asarray(result["coef"], dtype=np.float64) * scale
    out["objective"] = float(result["objective"]) * scale
    out["lower_bound"] = float(result["lower_bound"]) * scale
    out["history"] = [_rescaled_entry(entry, scale) for entry in result["history"]]
    return out


class AIDClassifier(_BinaryClassifierMixin, _AidBase):
    """Binary C-SVM by AID: ``min ½‖w‖² + C Σ_i max(0, 1 − y_i(w·φ(x_i) + b))``.

    The same objective as :class:`kernelkit.SVC` and scikit-learn's ``SVC`` with that ``C``
    (the paper's ``M``). Clusters are label-pure; each aggregated problem is the SVM on cluster
    means with bound ``C·|C_k|`` per mean, solved by SMO; clusters whose rows lie on both sides
    of their class's margin are split (Park & Klabjan §3.2). Non-linear kernels use the exact
    aggregated kernel, the block means of the Gram matrix (Appendix B), which costs at least one
    pass over the ``n × n`` Gram matrix: AID pays off for the linear kernel on many rows. The
    model is the aggregated solution with the smallest objective on all rows seen.

    Parameters
    ----------
    C : float, default=1.0
        Hinge-loss weight, > 0.
    kernel : {"linear", "rbf", "poly", "sigmoid"}, default="linear"
        The kernel, as for :class:`SVC` (no precomputed or callable kernels).
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``: ``"scale"`` is
        ``1 / (n_features · X.var())``, ``"auto"`` is ``1 / n_features``, a float must be > 0.
    degree : int, default=3
        Degree of the ``"poly"`` kernel, >= 0; ignored by the other kernels.
    coef0 : float, default=0.0
        Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).
    tol : float, default=1e-4
        Stop when the certified relative gap ``(upper − lower)/upper`` is at most ``tol``, > 0
        (``status_ == "gap"``); AID also stops when every cluster is pure (``"optimal"``).
    max_iter : int, default=100
        Maximum number of aggregated solves, >= 1.
    n_clusters : int or None, default=None
        Initial number of clusters (label-pure), between 1 and n_samples. ``None``: the
        paper's ``1.1m + 1`` per class, ``m`` the number of features, that is
        ``max(⌈2(1.1m + 1)⌉, ⌈0.0001 n⌉, 2)`` in all (at most n_samples).
    init : {"kmeans", "random"} or array-like of int, default="kmeans"
        ``"kmeans"``: k-means, per class, on the decision values of an SVM fitted on a
        sample; ``"random"``: a random partition; an array of shape (n_samples,): each row's
        cluster id (``n_clusters`` is then ignored).
    solver : kernelkit.solvers.Smo or None, default=None
        The inner solver of the aggregated problems (``None``: ``Smo(tol=1e-6)``); its
        ``tol``, ``max_iter`` and ``shrinking`` are used, while ``cache_size``, ``n_jobs``
        and ``time_limit`` are the estimator's.
    cache_size : float, default=200.0
        Kernel cache (MB, > 0) of the inner solver and of the aggregated kernel.
    random_state : int, RandomState instance or None, default=None
        Seed of the sample and of k-means; None draws a new seed at every fit.
    time_limit : float or None, default=None
        Wall-clock limit in seconds, > 0 (checked between aggregated solves), or None.
    n_jobs : int or None, default=None
        Threads of the Rust core; ``None`` or -1 use every core.
    verbose : bool or int, default=False
        When true, print one progress line per aggregated solve on stderr.
    callback : callable or None, default=None
        Called after every aggregated solve with the dict of its ``history_`` entry; a true
        return value stops the fit (``status_ == "stopped"``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels, sorted; positive decision values predict ``classes_[1]``.
    coef_ : ndarray of shape (1, n_features)
        The weights ``w`` (linear kernel only: reading it raises ``AttributeError`` for the
        other kernels).
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``α̂_i y_i`` of the support vectors, with ``α̂_i = α_k / |C_k|`` spread over the rows of
        each aggregated support vector ``k``.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data (int32).
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (dense).
    objective_ : float
        ``½‖w‖² + C Σ_i max(0, 1 − y_i(w·φ(x_i) + b))`` on the training data.
    lower_bound_ : float
        A certified lower bound of the optimum (the aggregated SVM's dual value).
    gap_ : float
        The final certified relative gap ``(objective_ − lower_bound_) / objective_``.
    status_ : str
        How the fit ended: ``"optimal"`` (every cluster pure), ``"gap"``, ``"max_iter"``,
        ``"time_limit"`` or ``"stopped"``; the last three warn with
        :class:`~kernelkit.ConvergenceWarning`.
    n_iter_ : int
        Number of aggregated solves.
    labels_ : ndarray of shape (n_samples,)
        The final cluster of each training row (int64).
    init_time_ : float
        Seconds spent on the initial clusters (``history_`` times start after them).
    history_ : list of dict
        One entry per aggregated solve, with the keys of :class:`AIDRegressor`'s
        ``history_`` (``aggregated_objective`` is the aggregated SVM's optimum ``F^t``).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, defined only when ``X`` has feature names that
        are all strings.

    References
    ----------
    .. [1] Y. W. Park and D. Klabjan, "An aggregate and iterative disaggregate algorithm with
       proven optimality in machine learning", arXiv preprint, 2016.
    """

    classes_: NDArray[Any]
    intercept_: Float64Array
    dual_coef_: Float64Array
    support_: NDArray[np.int32]
    support_vectors_: Float64Array
    _coef: Float64Array | None
    _kernel_params: tuple[str, float, int, float]

    def __init__(
        self,
        C: float = 1.0,
        *,
        kernel: str = "linear",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-4,
        max_iter: int = 100,
        n_clusters: int | None = None,
        init: str | Any = "kmeans",
        solver: Smo | None = None,
        cache_size: float = 200.0,
        random_state: int | None = None,
        time_limit: float | None = None,
        n_jobs: int | None = None,
        verbose: bool | int = False,
        callback: Callback | None = None,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.n_clusters = n_clusters
        self.init = init
        self.solver = solver
        self.cache_size = cache_size
        self.random_state = random_state
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def _check_params(self) -> None:
        _check_positive("C", self.C)
        _check_positive("cache_size", self.cache_size)
        if not isinstance(self.kernel, str) or self.kernel not in AID_KERNELS:
            raise ValueError(f"kernel must be one of {AID_KERNELS}, got {self.kernel!r}")
        if isinstance(self.gamma, str):
            if self.gamma not in ("scale", "auto"):
                raise ValueError(
                    f"gamma must be 'scale', 'auto' or a float > 0, got {self.gamma!r}"
                )
        else:
            _check_positive("gamma", self.gamma)
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral):
            raise TypeError(f"degree must be an int, got {type(self.degree).__name__}")
        if self.degree < 0:
            raise ValueError(f"degree must be >= 0, got {self.degree}")
        if not isinstance(self.coef0, numbers.Real) or not np.isfinite(self.coef0):
            raise ValueError(f"coef0 must be a finite real number, got {self.coef0!r}")
        self._check_aid_params()
        _inner_solver(self.solver)

    def _resolve_gamma(self, X: Float64Array) -> float:
        if self.gamma == "scale":
            return scale_gamma(X)
        if self.gamma == "auto":
            return 1.0 / int(X.shape[1])
        return float(self.gamma)

    def _labels(self, y: NDArray[Any]) -> Float64Array:
        check_classification_targets(y)
        self.classes_, encoded = np.unique(y, return_inverse=True)
        _check_binary(len(self.classes_), "y")
        return np.where(encoded == 1, 1.0, -1.0)

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any) -> AIDClassifier:
        """Fit the SVM.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (sparse input is densified).
        y : array-like of shape (n_samples,)
            Labels of exactly two classes.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        if _is_dask(X):
            _fit_on_dask(self, X, y)
            return self
        X, labels = self._dense_xy(X, y, y_numeric=False)
        if self.kernel == "linear":
            check_not_overflowing(X)
        signs = self._labels(labels)
        n, m = X.shape
        params = (str(self.kernel), self._resolve_gamma(X), int(self.degree), float(self.coef0))
        kernel = _core.Kernel(params[0], gamma=params[1], degree=params[2], coef0=params[3])
        init, k = self._init_and_k(n, _default_svm_clusters(n, m))
        inner = _inner_solver(self.solver)
        inner = Smo(
            tol=inner.tol,
            max_iter=inner.max_iter,
            shrinking=inner.shrinking,
            cache_size=float(self.cache_size),
        )
        options = self._core_options(inner)
        result = _run(_core.aid_svm, X, signs, kernel, float(self.C), init, k, options=options)
        dual = np.asarray(result["dual_coef"], dtype=np.float64)
        support = np.flatnonzero(dual).astype(np.int32)
        self.support_ = support
        self.support_vectors_ = np.ascontiguousarray(X[support])
        self.dual_coef_ = dual[support].reshape(1, -1)
        self.intercept_ = np.array([float(result["bias"])])
        coef = np.asarray(result["coef"], dtype=np.float64)
        self._coef = coef.reshape(1, -1) if params[0] == "linear" else None
        self._kernel_params = params
        self._store_result(result)
        return self

    @property
    def coef_(self) -> Float64Array:
        """Weights ``w`` of the linear kernel, of shape (1, n_features).

        Raises ``AttributeError`` when the kernel is not linear.
        """
        check_is_fitted(self, "_coef")
        if self._coef is None:
            raise AttributeError("coef_ is only available when using a linear kernel")
        return self._coef

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the decision function on the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to evaluate (sparse input is densified).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``w·φ(x) + b``; positive values predict ``classes_[1]``.
        """
        check_is_fitted(self, "dual_coef_")
        X = self._dense(X, reset=False)
        if self._coef is not None:
            return np.asarray(X @ self._coef[0] + self.intercept_[0], dtype=np.float64)
        kind, gamma, degree, coef0 = self._kernel_params
        kernel = _core.Kernel(kind, gamma=gamma, degree=degree, coef0=coef0)
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], 4096):
            block = _core.kernel_matrix(
                X[start : start + 4096], self.support_vectors_, kernel, resolve_n_jobs(self.n_jobs)
            )
            out[start : start + 4096] = block @ self.dual_coef_[0] + self.intercept_[0]
        return out

    def predict(self, X: Any) -> NDArray[Any]:
        """Predict the class of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify (sparse input is densified).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``classes_[1]`` where the decision function is >= 0, else ``classes_[0]``.
        """
        check_is_fitted(self, "classes_")
        return np.asarray(self.classes_[(self.decision_function(X) >= 0).astype(int)])


class AIDSemiSupervisedClassifier(_BinaryClassifierMixin, _AidBase):
    """Linear semi-supervised SVM (S3VM) by AID — a heuristic.

    Minimises ``½‖w‖² + C Σ_labeled max(0, 1 − y_i f_i) + C_unlabeled Σ_unlabeled
    max(0, 1 − |f_i|)`` with ``f = w·x + b`` (Park & Klabjan §3.3). Unlabeled rows are marked
    ``-1`` in ``y``, as in scikit-learn's semi-supervised estimators. Each aggregated problem
    gives one unknown label to every unlabeled cluster; it is solved exactly by branch and bound
    over those labels (an SMO solve per node) when there are at most ``exact_max_clusters``
    unlabeled clusters, and by local search (alternating SVM solves and relabelling) beyond.

    **AID-S3VM is a heuristic.** The paper claims that a pure partition is optimal (Prop. 5);
    that is false: the unlabeled loss is not convex, so the aggregated optimum is no lower bound
    and AID can stop, pure, above the optimum (``status_ == "pure"``, never ``"optimal"``). The
    regression test ``test_s3vm_counterexample_is_pure_but_not_optimal`` reproduces an instance.

    The model is the aggregated solution with the smallest objective on all rows seen.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the labeled hinge losses (the paper's ``M_l``), > 0.
    C_unlabeled : float, default=0.1
        Weight of the unlabeled losses (``M_u``), >= 0.
    tol : float, default=1e-4
        Stop when ``(upper − lower)/upper ≤ tol``, > 0 (``status_ == "gap"``): a valid
        certificate, but ``lower_bound_`` (the labeled-only SVM) is weak, so this rarely
        triggers.
    max_iter : int, default=5
        Aggregated solves, >= 1 (the paper's AID1 / AID5 are ``max_iter=1`` / ``5``); reaching
        it is the normal end of a fit and does not warn.
    n_clusters : int or None, default=None
        Initial number of clusters, between 1 and n_samples. ``None``:
        ``max(10, ⌈0.01 n⌉)`` (at most n_samples).
    init : {"kmeans", "random"} or array-like of int, default="kmeans"
        ``"kmeans"``: k-means on the features within each labeled class and within the
        unlabeled rows; ``"random"``: a random partition; an array of shape (n_samples,): each
        row's cluster id (``n_clusters`` is then ignored).
    exact_max_clusters : int, default=12
        Branch and bound up to this many unlabeled clusters, local search beyond; an int in
        [0, 30].
    solver : kernelkit.solvers.Smo or None, default=None
        The inner SVM solver (``None``: ``Smo(tol=1e-6)``); its ``tol``, ``max_iter``,
        ``shrinking`` and ``cache_size`` are used, while ``n_jobs`` and ``time_limit`` are the
        estimator's.
    random_state : int, RandomState instance or None, default=None
        Seed of k-means and of the random partition; None draws a new seed at every fit.
    time_limit : float or None, default=None
        Wall-clock limit in seconds, > 0 (checked between aggregated solves), or None.
    n_jobs : int or None, default=None
        Threads of the Rust core; ``None`` or -1 use every core.
    verbose : bool or int, default=False
        When true, print one progress line per aggregated solve on stderr.
    callback : callable or None, default=None
        Called after every aggregated solve with the dict of its ``history_`` entry; a true
        return value stops the fit (``status_ == "stopped"``).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels of the labeled rows, sorted; positive decision values predict
        ``classes_[1]``.
    coef_ : ndarray of shape (1, n_features)
        The weights ``w``.
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    transduction_ : ndarray of shape (n_samples,)
        The given labels on labeled rows, the predicted ones on unlabeled rows.
    objective_ : float
        The objective above on the training data.
    aggregated_objective_ : float
        ``F`` of the last aggregated problem (at a pure stop, equal to that problem's
        objective on all rows).
    lower_bound_ : float
        The labeled-only SVM's dual value: a valid but weak lower bound.
    gap_ : float
        The final relative gap ``(objective_ − lower_bound_) / objective_``.
    status_ : str
        How the fit ended: ``"pure"`` (every cluster pure; not a certificate of optimality),
        ``"gap"``, ``"max_iter"``, ``"time_limit"`` or ``"stopped"``; the last two warn with
        :class:`~kernelkit.ConvergenceWarning`.
    n_iter_ : int
        Number of aggregated solves.
    labels_ : ndarray of shape (n_samples,)
        The final cluster of each training row (int64).
    init_time_ : float
        Seconds spent on the initial clusters (``history_`` times start after them).
    history_ : list of dict
        One entry per aggregated solve, with the keys of :class:`AIDRegressor`'s
        ``history_``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, defined only when ``X`` has feature names that
        are all strings.

    References
    ----------
    .. [1] Y. W. Park and D. Klabjan, "An aggregate and iterative disaggregate algorithm with
       proven optimality in machine learning", arXiv preprint, 2016.
    """

    classes_: NDArray[Any]
    coef_: Float64Array
    intercept_: Float64Array
    transduction_: NDArray[Any]
    aggregated_objective_: float

    def __init__(
        self,
        C: float = 1.0,
        *,
        C_unlabeled: float = 0.1,
        tol: float = 1e-4,
        max_iter: int = 5,
        n_clusters: int | None = None,
        init: str | Any = "kmeans",
        exact_max_clusters: int = 12,
        solver: Smo | None = None,
        random_state: int | None = None,
        time_limit: float | None = None,
        n_jobs: int | None = None,
        verbose: bool | int = False,
        callback: Callback | None = None,
    ) -> None:
        self.C = C
        self.C_unlabeled = C_unlabeled
        self.tol = tol
        self.max_iter = max_iter
        self.n_clusters = n_clusters
        self.init = init
        self.exact_max_clusters = exact_max_clusters
        self.solver = solver
        self.random_state = random_state
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def _check_params(self) -> None:
        _check_positive("C", self.C)
        _check_positive("C_unlabeled", self.C_unlabeled, allow_zero=True)
        exact = self.exact_max_clusters
        if isinstance(exact, bool) or not isinstance(exact, numbers.Integral) or exact < 0:
            raise ValueError(f"exact_max_clusters must be an int >= 0, got {exact!r}")
        if exact > 30:
            raise ValueError(f"exact_max_clusters = {exact} would mean up to 2^{exact} solves")
        self._check_aid_params()
        _inner_solver(self.solver)

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any) -> AIDSemiSupervisedClassifier:
        """Fit the S3VM on labeled and unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (sparse input is densified).
        y : array-like of shape (n_samples,)
            Numeric labels: two classes on the labeled rows, -1 on the unlabeled rows.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        if _is_dask(X):
            _fit_on_dask(self, X, y)
            return self
        X, y = self._dense_xy(X, y, y_numeric=False)
        check_not_overflowing(X)
        n = X.shape[0]
        check_classification_targets(y)
        if not np.issubdtype(y.dtype, np.number):
            raise ValueError("y must be numeric, with -1 marking unlabeled rows")
        labeled = y != -1
        self.classes_ = np.unique(y[labeled])
        _check_binary(len(self.classes_), "the labeled rows of y (y != -1)")
        core_y = np.zeros(n)
        core_y[labeled] = np.where(y[labeled] == self.classes_[1], 1.0, -1.0)
        init, k = self._init_and_k(n, min(n, max(10, math.ceil(0.01 * n))))
        options = self._core_options(_inner_solver(self.solver))
        result = _run(
            _core.aid_s3vm,
            X,
            core_y,
            float(self.C),
            float(self.C_unlabeled),
            int(self.exact_max_clusters),
            init,
            k,
            options=options,
        )
        self.coef_ = np.asarray(result["coef"], dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(result["bias"])])
        self.aggregated_objective_ = float(result["aggregated_objective"])
        # max_iter is the S3VM's budget (the paper's AID1 / AID5), not a failure to converge:
        # its gap is measured against a weak bound.
        self._store_result(result, warn_on=("time_limit", "stopped"))
        # X is already validated: the decision values directly (``predict`` would check feature
        # names again, and warn when the fit saw a DataFrame).
        scores = X @ self.coef_[0] + self.intercept_[0]
        self.transduction_ = np.where(labeled, y, self.classes_[(scores >= 0).astype(int)])
        return self

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the decision function on the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to evaluate (sparse input is densified).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``w·x + b``; positive values predict ``classes_[1]``.
        """
        check_is_fitted(self, "coef_")
        X = self._dense(X, reset=False)
        return np.asarray(X @ self.coef_[0] + self.intercept_[0], dtype=np.float64)

    def predict(self, X: Any) -> NDArray[Any]:
        """Predict the class of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to classify (sparse input is densified).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``classes_[1]`` where ``f(x) >= 0``, else ``classes_[0]`` (the paper's Lemma 1).
        """
        check_is_fitted(self, "coef_")
        return np.asarray(self.classes_[(self.decision_function(X) >= 0).astype(int)])
