"""Unsupervised outlier detection: ``kernelkit.OneClassSVM``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import OutlierMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import Float64Array, SingleProblemSvm
from ._validation import keeps_model_on_failure
from ._warm_start import project_onto

__all__ = ["OneClassSVM"]


class OneClassSVM(OutlierMixin, SingleProblemSvm):  # type: ignore[misc]
    """One-class SVM (Schölkopf et al. 2001), a drop-in for :class:`sklearn.svm.OneClassSVM`.

    Solves LIBSVM's dual ``min ½ αᵀKα  s.t.  Σα_i = ν Σ w_i,  0 ≤ α_i ≤ w_i`` (``w``: sample
    weights, 1 by default) with the SMO engine, from LIBSVM's starting point (LIBSVM's iterates).
    ``decision_function(x) = Σ α_i K(x_i, x) − ρ``; ``offset_ = ρ``.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default="rbf"
        The kernel, as for :class:`SVC`.
    degree : int, default=3
        Degree of the ``"poly"`` kernel, >= 0; ignored by the other kernels.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``: ``"scale"`` is
        ``1 / (n_features · X.var())``, ``"auto"`` is ``1 / n_features``, a float must be > 0.
    coef0 : float, default=0.0
        Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation, > 0.
    nu : float, default=0.5
        The ν in (0, 1]: an upper bound on the fraction of training outliers and a lower bound on
        the fraction of support vectors.
    shrinking : bool, default=True
        Whether to use LIBSVM's shrinking heuristic.
    engine : {"auto", "libsvm", "batched"}, default="auto"
        The decomposition of the solver. ``"libsvm"`` is LIBSVM's: one pair of variables per
        iteration, with shrinking (LIBSVM's iterations exactly). ``"batched"`` takes batches of
        up to 256 variables: their kernel columns computed together, pair steps on the batch on
        one thread, the gradient updated once per batch (shrinking as LIBSVM's from 20,000
        variables on), so the threads meet far less often. Both stop by the same rule on the
        whole problem.
        ``"auto"`` chooses from the size of the problem, never from ``n_jobs`` (the model does
        not depend on the thread count); ``solver_stats_["engine"]`` says which ran.
    cache_size : float, default=200
        Size of the kernel cache in MB (> 0).
    verbose : bool or int, default=False
        When true, show a progress bar of the solve on stderr.
    max_iter : int, default=-1
        Limit on the SMO iterations, >= 1, or -1 for no limit.
    n_jobs : int or None, default=None
        Threads for the kernel computations and the solver's O(n) passes; ``None`` or -1 use
        every core. The model does not depend on it.
    callback : callable or None, default=None
        Progress callback of the solve, as for :class:`SVC`: a true return value stops it.
    time_limit : float or None, default=None
        Wall-clock seconds allowed for the solve (> 0), or None for no limit.
    warm_start : bool, default=False
        When true, a refit on as many rows (the same rows, with another ``nu`` or ``sample_weight``)
        starts from the previous fit's dual solution projected onto the new constraints (see
        ``docs/index.md``, "Warm starts") and reaches the cold fit's optimum; any other refit starts
        cold. The model keeps one dual value per row (and pair) for this.

    Attributes
    ----------
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        Weights of the features, ``dual_coef_ @ support_vectors_`` per problem; only with
        ``kernel="linear"`` (an ``AttributeError`` otherwise), sparse when X was.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``α_i`` of the support vectors.
    fit_status_ : int
        0 when the solve converged, 1 otherwise.
    intercept_ : ndarray of shape (1,)
        ``−ρ``, the constant of the decision function.
    kkt_gap_ : float
        The maximal KKT violation at exit (< ``tol`` when converged).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, defined only when ``X`` has feature names that
        are all strings.
    n_iter_ : int
        SMO iterations.
    n_support_ : ndarray of shape (1,)
        Number of support vectors (int32).
    objective_ : float
        The dual objective ``½αᵀKα`` at exit.
    objective_increases_ : int
        Steps that increased the dual objective (0 for a correct solver).
    offset_ : float
        ``ρ``: ``decision_function = score_samples − offset_``.
    shape_fit_ : tuple of int of shape (2,)
        Shape of the training ``X``.
    solver_stats_ : dict
        Kernel cache counters, gradient reconstructions, objective increases, the smallest
        active set reached by shrinking, ``parallel_passes`` (the passes over the data where
        the threads meet, the same for any ``n_jobs``) and ``serial_seconds`` (the solve's
        time outside them, which no number of threads shortens), ``engine``
        (which ran), ``batches`` (of the batched engine), ``kernel_path`` (how kernel values
        were computed) and ``simd`` (the vector instructions used).
    status_ : str
        How the solve ended: ``"converged"``, ``"max_iterations"``, ``"time_limit"``,
        ``"stopped"`` (callback or Ctrl-C) or ``"numerical_error"``.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (``α_i > 0``) in the training data (int32).
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (CSR when ``X`` was sparse); empty, of shape (0, 0), for a
        precomputed kernel.

    References
    ----------
    .. [1] B. Schölkopf, J. C. Platt, J. Shawe-Taylor, A. J. Smola and R. C. Williamson,
       "Estimating the support of a high-dimensional distribution", Neural Computation 13(7),
       2001.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from kernelkit import OneClassSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2))
    >>> model = OneClassSVM(nu=0.1, gamma=0.1).fit(X)
    >>> model.predict([[0.0, 0.0], [4.0, 4.0]])  # 1: inlier, -1: outlier
    array([ 1, -1])

    The model is LIBSVM's, as scikit-learn fits it:

    >>> reference = svm.OneClassSVM(nu=0.1, gamma=0.1).fit(X)
    >>> bool(np.allclose(model.decision_function(X), reference.decision_function(X), atol=1e-8))
    True
    """

    def __init__(
        self,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-3,
        nu: float = 0.5,
        shrinking: bool = True,
        engine: str = "auto",
        cache_size: float = 200,
        verbose: bool | int = False,
        max_iter: int = -1,
        n_jobs: int | None = None,
        callback: Callable[[Mapping[str, Any]], bool | None] | None = None,
        time_limit: float | None = None,
        warm_start: bool = False,
    ) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.engine = engine
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.callback = callback
        self.time_limit = time_limit
        self.warm_start = warm_start

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> OneClassSVM:
        """Fit the model to the training rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (scipy.sparse input is used as CSR, never densified), or the Gram
            matrix of shape (n_samples, n_samples) when ``kernel="precomputed"``.
        y : None, default=None
            Ignored; present for scikit-learn's API.
        sample_weight : array-like of shape (n_samples,), default=None
            Finite non-negative weights (1 for None): the upper bound of each ``α_i``. Samples
            of weight 0 are left out.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_common_params()
        nu = self.nu
        if isinstance(nu, bool) or not isinstance(nu, (int, float, np.floating, np.integer)):
            raise TypeError(f"nu must be a real number, got {type(nu).__name__}")
        if not (0.0 < float(nu) <= 1.0):
            raise ValueError(f"nu must be in (0, 1], got {nu!r}")
        X_checked = self._validate_x(X, reset=True)
        self._check_precomputed_fit(X_checked)
        weights, kept = self._positive_weights(sample_weight, X_checked)
        kernel = self._kernel_spec(X_checked)
        previous = self._previous_dual(X_checked.shape[0])
        # A warm start: the previous α projected onto 0 ≤ α ≤ w, Σα = ν Σw (``_warm_start``).
        alpha0 = (
            None
            if previous is None
            else project_onto(previous[kept], weights[kept], float(np.sum(weights[kept] * nu)))
        )
        solution = self._solve(
            _core.solve_one_class,
            self._training_rows(X_checked, kept),
            weights[kept],
            float(nu),
            self._make_kernel(kernel),
            alpha0,
            description="OneClassSVM",
        )
        self._store_solution(X_checked, kept, np.asarray(solution.x), solution, kernel)
        self._remember_dual(X_checked.shape[0], kept, np.asarray(solution.x))
        self.n_support_ = np.array([self.support_.shape[0]], dtype=np.int32)
        self.offset_ = -solution.bias
        return self

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the signed decision function ``Σ α_i K(x_i, x) − ρ``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to evaluate, or their kernel values against the training rows, of shape
            (n_samples, n_train), when ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The decision values: positive for inliers, negative for outliers.
        """
        check_is_fitted(self, "support_")
        X_checked = self._check_predict_input(X)
        coef = self.dual_coef_[0]
        decision: Float64Array = self._decision_values(X_checked, coef[:, None])[:, 0]
        return decision + float(self.intercept_[0])

    def score_samples(self, X: Any) -> Float64Array:
        """Compute the raw score ``Σ α_i K(x_i, x)`` of the samples in X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to evaluate, or their kernel values against the training rows, of shape
            (n_samples, n_train), when ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores, ``decision_function(X) + offset_``.
        """
        return self.decision_function(X) + self.offset_

    def predict(self, X: Any) -> NDArray[np.int64]:
        """Predict whether the samples in X are inliers.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to evaluate, or their kernel values against the training rows, of shape
            (n_samples, n_train), when ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_samples,)
            +1 where the decision function is positive (inliers), −1 elsewhere (outliers).
        """
        return np.where(self.decision_function(X) > 0, 1, -1)
