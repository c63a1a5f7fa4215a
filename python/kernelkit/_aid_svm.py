"""``AIDClassifier``: the C-SVM by AID (see :mod:`kernelkit.aid`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._aid_base import (
    AID_KERNELS,
    UNCERTIFIED,
    AidParams,
    _AidBase,
    _BinaryClassifierMixin,
    _check_binary,
    _default_svm_clusters,
    _fit_on_dask,
    _inner_solver,
    _is_dask,
    _run,
)
from ._base import Float64Array, _check_kernel_parameters, _check_positive
from ._docstrings import shared_docstrings
from ._params import Controls, KernelParams
from ._rbf_shift import against_support, solved_rows
from ._threads import resolve_n_jobs
from ._validation import (
    check_linear_kernel_range,
    check_not_overflowing,
    keeps_model_on_failure,
    scale_gamma,
)
from .solvers import Smo

__all__ = ["AIDClassifier"]


@dataclass(kw_only=True, eq=False, repr=False)
class _AIDClassifierParams:
    """Its own parameters, first in its signature (``_params``)."""

    C: float = field(default=1.0, kw_only=False)
    solver: Smo | None = None


@dataclass(kw_only=True, eq=False, repr=False)
class _AIDClassifierInit(Controls, AidParams, KernelParams, _AIDClassifierParams):
    """Its ``__init__``: its own parameters, then the groups'."""

    max_iter: int = 100
    kernel: str = "linear"


@shared_docstrings
class AIDClassifier(_AIDClassifierInit, _BinaryClassifierMixin, _AidBase):
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
    solver : kernelkit.solvers.Smo or None, default=None
        The inner solver of the aggregated problems (``None``: ``Smo(tol=1e-6)``); its
        ``tol``, ``max_iter`` and ``shrinking`` are used, while ``cache_size``, ``n_jobs``
        and ``time_limit`` are the estimator's.
    kernel : {"linear", "rbf", "poly", "sigmoid"}, default="linear"
        The kernel, as for :class:`SVC` (no precomputed or callable kernels).
    degree : int, default=3
        Degree of the ``"poly"`` kernel, >= 0; ignored by the other kernels.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``: ``"scale"`` is
        ``1 / (n_features · X.var())``, ``"auto"`` is ``1 / n_features``, a float must be > 0
        (``"linear"`` ignores it and takes 0).
    coef0 : float, default=0.0
        Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).
    cache_size : float, default=200.0
        Kernel cache (MB, > 0) of the inner solver and of the aggregated kernel.
    tol : float, default=1e-4
        Stop when the certified relative gap ``(upper − lower)/upper`` is at most ``tol``, > 0
        (``status_ == "gap"``); AID also stops when every cluster is pure (``"optimal"``). The
        certificates need a positive semidefinite kernel: with ``"sigmoid"``, or ``"poly"``
        with ``coef0 < 0``, there is no lower bound and a pure partition ends the fit as
        ``"pure"``, a heuristic's answer.
    n_clusters : int or None, default=None
        Initial number of clusters (label-pure), between 1 and n_samples, shared among the
        two classes in proportion to their sizes (at least one each). ``None``:
        ``max(⌈2(1.1m + 1)⌉, ⌈0.0001 n⌉, 2)`` in all (at most n_samples), ``m`` the number of
        features: the paper's ``1.1m + 1`` per class when the classes are balanced, fewer for
        the smaller class otherwise (on 95/5 data with m = 5: 12 and 1).
    init : {"kmeans", "random"} or array-like of int, default="kmeans"
        ``"kmeans"``: k-means, per class, on the decision values of an SVM fitted on a
        sample; ``"random"``: a random partition; an array of shape (n_samples,): each row's
        cluster id (``n_clusters`` is then ignored).
    random_state : int, RandomState instance or None, default=None
        Seed of the sample and of k-means; None draws a new seed at every fit.
    max_iter : int, default=100
        Maximum number of aggregated solves, >= 1.
    verbose : bool or int, default=False
        When true, print one progress line per aggregated solve on stderr.
    n_jobs : int or None, default=None
        Threads of the Rust core; ``None`` or -1 use every core.
    callback : callable or None, default=None
        Called after every aggregated solve with the dict of its ``history_`` entry; a true
        return value stops the fit (``status_ == "stopped"``).
    time_limit : float or None, default=None
        Wall-clock limit in seconds, > 0 (checked between aggregated solves), or None.

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
        A certified lower bound of the optimum (the aggregated SVM's dual value); ``-inf``
        for a kernel that is not positive semidefinite (sigmoid, poly with ``coef0 < 0``).
    gap_ : float
        The final certified relative gap ``(objective_ − lower_bound_) / objective_`` (``inf``
        without a lower bound).
    status_ : str
        How the fit ended: ``"optimal"`` (every cluster pure and the certified gap at most
        ``tol``), ``"pure"`` (every cluster pure, but with a kernel that is not positive
        semidefinite, an inner solve that stopped at its limits, or a gap that stayed above
        ``tol``: no certificate; the last warns), ``"gap"``, ``"max_iter"``, ``"time_limit"``
        or ``"stopped"``; the last three warn with :class:`~kernelkit.ConvergenceWarning`.
    n_iter_ : int
        Number of aggregated solves.
    labels_ : ndarray of shape (n_samples,)
        The final cluster of each training row (int64).
    init_time_ : float
        Seconds spent on the initial clusters (``history_`` times start after them).
    history_ : list of dict
        One entry per aggregated solve, with the keys of :class:`AIDRegressor`'s
        ``history_`` (``aggregated_objective`` is the aggregated SVM's optimum ``F^t``).
    solver_stats_ : dict
        ``kernel_values_computed`` (full-kernel values, non-linear kernels), ``kernel_path``
        (how they were computed; ``"linear_primal"`` for the linear kernel, whose ``w`` comes
        from the clusters' centroids) and ``simd`` (the vector instructions used).
    {{n_features_in_, feature_names_in_}}

    References
    ----------
    .. [1] Y. W. Park and D. Klabjan, "An aggregate and iterative disaggregate algorithm with
       proven optimality in machine learning", arXiv preprint, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from kernelkit import AIDClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = (X @ [1.0, 2.0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    >>> model = AIDClassifier(C=1.0, random_state=0).fit(X, y)
    >>> model.status_  # every cluster pure: the solution is optimal
    'optimal'
    >>> model.predict([[-2.0, -2.0], [2.0, 2.0]])
    array([0, 1])

    The same objective as scikit-learn's linear ``SVC``, and the same predictions here:

    >>> reference = svm.SVC(kernel="linear", C=1.0).fit(X, y)
    >>> float(np.mean(model.predict(X) == reference.predict(X))) > 0.99
    True
    """

    classes_: NDArray[Any]
    intercept_: Float64Array
    dual_coef_: Float64Array
    support_: NDArray[np.int32]
    support_vectors_: Float64Array
    solver_stats_: dict[str, float | str]
    _coef: Float64Array | None
    _kernel_params: tuple[str, float, int, float]

    def _inner_smo(self) -> Smo:
        """The aggregated problems' SMO: ``solver``'s settings with ``cache_size``."""
        given = _inner_solver(self.solver)
        return Smo(
            tol=given.tol,
            max_iter=given.max_iter,
            shrinking=given.shrinking,
            cache_size=float(self.cache_size),
        )

    def _check_params(self) -> None:
        _check_positive("C", self.C)
        _check_positive("cache_size", self.cache_size)
        if not isinstance(self.kernel, str) or self.kernel not in AID_KERNELS:
            raise ValueError(f"kernel must be one of {AID_KERNELS}, got {self.kernel!r}")
        _check_kernel_parameters(self.gamma, self.degree, self.coef0, kernel=self.kernel)
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
            check_linear_kernel_range(X, "AIDClassifier's linear kernel")
        signs = self._labels(labels)
        n, m = X.shape
        params = (str(self.kernel), self._resolve_gamma(X), int(self.degree), float(self.coef0))
        kernel = _core.Kernel(params[0], gamma=params[1], degree=params[2], coef0=params[3])
        init, k = self._init_and_k(n, _default_svm_clusters(n, m))
        options = self._core_options(self._inner_smo())
        # RBF rows far from the origin are solved shifted to their mean (``_rbf_shift``).
        solved = solved_rows(X, params[0])
        result = _run(_core.aid_svm, solved, signs, kernel, float(self.C), init, k, options=options)
        dual = np.asarray(result["dual_coef"], dtype=np.float64)
        support = np.flatnonzero(dual).astype(np.int32)
        self.support_ = support
        self.support_vectors_ = np.ascontiguousarray(X[support])
        self.dual_coef_ = dual[support].reshape(1, -1)
        self.intercept_ = np.array([float(result["bias"])])
        coef = np.asarray(result["coef"], dtype=np.float64)
        self._coef = coef.reshape(1, -1) if params[0] == "linear" else None
        self._kernel_params = params
        self._store_result(result, warn_on=UNCERTIFIED)
        self.solver_stats_ = {
            "kernel_values_computed": int(result["kernel_values_computed"]),
            "kernel_path": str(result["kernel_path"]),
            "simd": str(result["simd"]),
        }
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
        X, support = against_support(X, self.support_vectors_, kind)
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], 4096):
            block = _core.kernel_matrix(
                X[start : start + 4096], support, kernel, resolve_n_jobs(self.n_jobs)
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
