"""``AIDRegressor``: least absolute deviation regression by AID (see :mod:`kernelkit.aid`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._aid_base import (
    AidParams,
    _AidBase,
    _fit_on_dask,
    _is_dask,
    _run,
)
from ._base import Float64Array
from ._docstrings import shared_docstrings
from ._params import Controls
from ._progress import Callback
from ._validation import check_bool, check_not_overflowing, keeps_model_on_failure

__all__ = ["AIDRegressor"]


@dataclass(kw_only=True, eq=False, repr=False)
class _AIDRegressorParams:
    """Its own parameters, first in its signature (``_params``)."""

    fit_intercept: bool = True


@dataclass(kw_only=True, eq=False, repr=False)
class _AIDRegressorInit(Controls, AidParams, _AIDRegressorParams):
    """Its ``__init__``: its own parameters, then the groups'."""

    max_iter: int = 100


@shared_docstrings
class AIDRegressor(_AIDRegressorInit, RegressorMixin, _AidBase):  # type: ignore[misc]
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
        Wall-clock limit in seconds, > 0, or None: checked between aggregated solves, and each
        aggregated LP gets the time left.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The fitted coefficients β.
    intercept_ : float
        The fitted intercept ``β0`` (0 when ``fit_intercept=False``).
    objective_ : float
        ``Σ|y − X coef_ − intercept_|`` on the training data.
    lower_bound_ : float
        A certified lower bound of the optimum (the dual value of an aggregated LP solved to
        convergence; ``-inf`` while no LP has converged, e.g. one cut by ``time_limit``).
    gap_ : float
        The final certified relative gap ``(objective_ − lower_bound_) / objective_``.
    status_ : str
        How the fit ended: ``"optimal"`` (every cluster pure), ``"pure"`` (every cluster pure,
        but the last aggregated LP did not converge: no certificate), ``"gap"``,
        ``"max_iter"``, ``"time_limit"`` or ``"stopped"``; the last three warn with
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
    {{n_features_in_, feature_names_in_}}

    References
    ----------
    .. [1] Y. W. Park and D. Klabjan, "An aggregate and iterative disaggregate algorithm with
       proven optimality in machine learning", arXiv preprint, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import QuantileRegressor
    >>> from kernelkit import AIDRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 1.0 + rng.standard_t(df=2, size=200)
    >>> model = AIDRegressor(random_state=0).fit(X, y)
    >>> model.status_  # every cluster pure: the solution is optimal
    'optimal'
    >>> bool(np.allclose(model.coef_, [1.0, -2.0, 0.5], atol=0.25))
    True

    The same objective as scikit-learn's median regression, and the same optimum:

    >>> median = QuantileRegressor(quantile=0.5, alpha=0.0).fit(X, y)
    >>> exact = np.abs(y - median.predict(X)).sum()
    >>> bool(abs(model.objective_ - exact) <= 1e-6 * exact)
    True
    """

    coef_: Float64Array
    intercept_: float

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
