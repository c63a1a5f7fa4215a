"""Unsupervised outlier detection: ``kernelkit.OneClassSVM``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import OutlierMixin

from . import _core
from ._base import Float64Array, _check_nu
from ._docstrings import shared_docstrings
from ._params import Controls, KernelParams, SmoParams
from ._single_problem import KeptRows, SingleProblemSvm
from ._validation import keeps_model_on_failure
from ._warm_start import repair_onto

__all__ = ["OneClassSVM"]


@dataclass(kw_only=True, eq=False, repr=False)
class _OneClassSVMParams:
    """Its own parameters, first in its signature (``_params``)."""

    nu: float = 0.5


@dataclass(kw_only=True, eq=False, repr=False)
class _OneClassSVMInit(Controls, SmoParams, KernelParams, _OneClassSVMParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class OneClassSVM(_OneClassSVMInit, OutlierMixin, SingleProblemSvm):  # type: ignore[misc]
    """One-class SVM (Schölkopf et al. 2001), a drop-in for :class:`sklearn.svm.OneClassSVM`.

    Solves LIBSVM's dual ``min ½ αᵀKα  s.t.  Σα_i = ν Σ w_i,  0 ≤ α_i ≤ w_i`` (``w``: sample
    weights, 1 by default) with the SMO engine, from LIBSVM's starting point (LIBSVM's iterates).
    ``decision_function(x) = Σ α_i K(x_i, x) − ρ``; ``offset_ = ρ``.

    Parameters
    ----------
    nu : float, default=0.5
        The ν in (0, 1]: an upper bound on the fraction of training outliers and a lower bound on
        the fraction of support vectors.
    {{kernel, degree, gamma, coef0, cache_size, tol, shrinking, engine, warm_start}}
        Meant for a refit on the same rows with another ``nu`` or ``sample_weight``.
    {{max_iter, verbose, n_jobs, callback, time_limit}}

    Attributes
    ----------
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        ``α_i`` of the support vectors.
    intercept_ : ndarray of shape (1,)
        ``−ρ``, the constant of the decision function.
    offset_ : ndarray of shape (1,)
        ``ρ``: ``decision_function = score_samples − offset_`` (an array, as scikit-learn's).
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (``α_i > 0``) in the training data (int32).
    {{single: *}}
    {{n_features_in_, feature_names_in_, shape_fit_, support_vectors_}}

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

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> OneClassSVM:
        """Fit the model to the training rows.

        {{fit: Parameters}}
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
        nu = _check_nu(self.nu)
        X_checked = self._validate_x(X, reset=True)

        def solve(kept: KeptRows) -> _core.Solution:
            previous, weights = kept.previous, kept.weights
            # A warm start: the previous α moved into 0 ≤ α ≤ w, Σα = ν Σw (``_warm_start``).
            start = (
                None
                if previous is None
                else repair_onto(previous, weights, float(np.sum(weights * nu)))
            )
            return self._solve(
                _core.solve_one_class,
                kept.rows,
                weights,
                nu,
                kept.kernel,
                start,
                kept.solved,
                description="OneClassSVM",
            )

        solution = self._fit_one_problem(X_checked, sample_weight, solve)
        self.offset_ = np.array([-solution.bias])
        return self

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the signed decision function ``Σ α_i K(x_i, x) − ρ``.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,)
            The decision values: positive for inliers, negative for outliers.
        """
        return self._one_decision_function(X)

    def score_samples(self, X: Any) -> Float64Array:
        """Compute the raw score ``Σ α_i K(x_i, x)`` of the samples in X.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores, ``decision_function(X) + offset_``.
        """
        scores: Float64Array = self.decision_function(X) + self.offset_
        return scores

    def predict(self, X: Any) -> NDArray[np.int64]:
        """Predict whether the samples in X are inliers.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,)
            +1 where the decision function is positive (inliers), −1 elsewhere (outliers).
        """
        return np.where(self.decision_function(X) > 0, 1, -1)
