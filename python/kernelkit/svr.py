"""Epsilon-Support Vector Regression: ``kernelkit.SVR``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Annotations only (``from __future__ import annotations``): no runtime dependency on
    # typing_extensions, which Python 3.10 does not ship; mypy always has it.
    from typing_extensions import Self

import numpy as np
from sklearn.base import RegressorMixin

from . import _core
from ._base import Float64Array, _check_positive
from ._docstrings import shared_docstrings
from ._params import Controls, KernelParams, SmoParams
from ._single_problem import KeptRows, SingleProblemSvm
from ._validation import keeps_model_on_failure, regression_target
from ._warm_start import repair_onto

__all__ = ["SVR"]


@dataclass(kw_only=True, eq=False, repr=False)
class _SVRParams:
    """Its own parameters, first in its signature (``_params``)."""

    C: float = 1.0
    epsilon: float = 0.1


@dataclass(kw_only=True, eq=False, repr=False)
class _SVRInit(Controls, SmoParams, KernelParams, _SVRParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class SVR(_SVRInit, RegressorMixin, SingleProblemSvm):  # type: ignore[misc]
    """Epsilon-Support Vector Regression (a drop-in replacement for :class:`sklearn.svm.SVR`).

    Solves LIBSVM's doubled dual

    ``min ½ (α − α*)ᵀK(α − α*) + ε Σ(α_i + α*_i) − Σ z_i (α_i − α*_i)``
    ``s.t. Σ(α_i − α*_i) = 0,  0 ≤ α_i, α*_i ≤ C · sample_weight_i``

    with the SMO engine (LIBSVM's iterates, Chang & Lin 2011); ``dual_coef_`` holds ``α − α*``
    of the support vectors.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation parameter, > 0: the upper bound of ``α_i`` and ``α*_i`` (times the
        sample weight).
    epsilon : float, default=0.1
        Half-width of the insensitive tube, >= 0: errors smaller than ``epsilon`` cost nothing.
    {{kernel, degree, gamma, coef0, cache_size, tol, shrinking, engine, warm_start}}
        Meant for a refit on the same rows with another ``C`` or ``sample_weight``.
    {{max_iter, verbose, n_jobs, callback, time_limit}}

    Attributes
    ----------
    {{regression: *}}
    {{single: *}}
    {{n_features_in_, feature_names_in_, shape_fit_, support_vectors_}}

    See Also
    --------
    NuSVR : The ν-parametrised regressor, which learns the tube width.

    References
    ----------
    .. [1] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector machines", ACM
       Transactions on Intelligent Systems and Technology 2(3), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from kernelkit import SVR
    >>> rng = np.random.default_rng(0)
    >>> X = np.sort(rng.uniform(0, 6, size=(40, 1)), axis=0)
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    >>> model = SVR(C=1.0, epsilon=0.1).fit(X, y)
    >>> float(model.score(X, y)) > 0.95
    True

    The model is LIBSVM's, as scikit-learn fits it:

    >>> reference = svm.SVR(C=1.0, epsilon=0.1).fit(X, y)
    >>> bool(np.array_equal(model.support_, reference.support_))
    True
    >>> bool(np.allclose(model.predict(X), reference.predict(X), atol=1e-8))
    True
    """

    def _check_params(self) -> None:
        self._check_common_params()
        _check_positive("C", self.C)
        _check_positive("epsilon", self.epsilon, allow_zero=True)

    def _solve_regression(
        self,
        rows: Any,
        target: Float64Array,
        weights: Float64Array,
        kernel: _core.Kernel,
        alpha0: Float64Array | None = None,
        previous: tuple[Float64Array, Float64Array] | None = None,
    ) -> _core.Solution:
        """The ε-SVR dual: bounds ``C · sample_weight``, tube width ``epsilon``; started from
        ``alpha0 = (α, α*)`` when given, with the gradient updated from ``previous = (β', Kβ')``
        (``_warm_start``, "The gradient") when given."""
        return self._solve(
            _core.solve_epsilon_svr,
            rows,
            target,
            float(self.C) * weights,
            float(self.epsilon),
            kernel,
            alpha0,
            previous,
            description=type(self).__name__,
        )

    def _warm_start_point(self, beta: Float64Array, weights: Float64Array) -> Float64Array:
        """The previous ``β = α − α*`` as ``(β⁺, β⁻)`` moved into this fit's constraints:
        ``0 ≤ α, α* ≤ C · sample_weight`` and ``Σα = Σα*`` (``_warm_start``)."""
        upper = float(self.C) * weights
        start = np.concatenate([np.maximum(beta, 0.0), np.maximum(-beta, 0.0)])
        signs = np.concatenate([np.ones(len(beta)), -np.ones(len(beta))])
        return repair_onto(start, np.concatenate([upper, upper]), 0.0, signs)

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit the model.

        {{fit: Parameters}}
        y : array-like of shape (n_samples,)
            Finite numeric targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Finite non-negative weights (1 for None) multiplying ``C`` per sample; samples of
            weight 0 are left out.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        X_checked, y_checked = self._validate_xy(X, y)
        target = regression_target(y_checked)

        def solve(kept: KeptRows) -> _core.Solution:
            previous, weights = kept.previous, kept.weights
            start = None if previous is None else self._warm_start_point(previous, weights)
            kept_target = np.ascontiguousarray(target[kept.positions])
            return self._solve_regression(
                kept.rows, kept_target, weights, kept.kernel, start, kept.solved
            )

        self._fit_one_problem(X_checked, sample_weight, solve)
        return self

    def predict(self, X: Any) -> Float64Array:
        """Predict the target of the samples in X.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,)
            ``Σ_i dual_coef_[0, i] K(support_vectors_[i], x) + intercept_[0]`` for every row.
        """
        return self._one_decision_function(X)
