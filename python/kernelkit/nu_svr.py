"""Nu-Support Vector Regression: ``kernelkit.NuSVR``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _core
from ._base import Float64Array, _check_nu, _check_positive
from ._docstrings import shared_docstrings
from ._params import Controls, KernelParams, SmoParams
from ._warm_start import repair_onto
from .svr import SVR

__all__ = ["NuSVR"]


@dataclass(kw_only=True, eq=False, repr=False)
class _NuSVRParams:
    """Its own parameters, first in its signature (``_params``)."""

    nu: float = 0.5
    C: float = 1.0


@dataclass(kw_only=True, eq=False, repr=False)
class _NuSVRInit(Controls, SmoParams, KernelParams, _NuSVRParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class NuSVR(_NuSVRInit, SVR):
    """Nu-Support Vector Regression, a drop-in replacement for :class:`sklearn.svm.NuSVR`.

    Solves LIBSVM's ν-SVR dual (Schölkopf et al. 2000; Chang & Lin 2011 §2.4)

    ``min ½ (α − α*)ᵀK(α − α*) − zᵀ(α − α*)``
    ``s.t. Σα_i = Σα*_i = C ν Σ w / 2,  0 ≤ α_i, α*_i ≤ C w_i``

    with the SMO engine's two-equality strategy (LIBSVM's ``Solver_NU``): ν bounds the fraction
    of support vectors from below and of errors from above, and the tube width is found by the
    solver (``epsilon_``). ``w`` are the sample weights (1 by default).

    Parameters
    ----------
    nu : float, default=0.5
        The ν in (0, 1]: a lower bound on the fraction of support vectors and an upper bound on the
        fraction of training errors.
    C : float, default=1.0
        Regularisation parameter, > 0: the upper bound of ``α_i`` and ``α*_i`` (times the
        sample weight).
    {{kernel, degree, gamma, coef0, cache_size, tol, shrinking, engine, warm_start}}
        Meant for a refit on the same rows with another ``C``, ``nu`` or ``sample_weight``.
    {{max_iter, verbose, n_jobs, callback, time_limit}}

    Attributes
    ----------
    epsilon_ : float
        The tube half-width ε found by the solver.
    {{regression: *}}
    {{single: *}}
    {{n_features_in_, feature_names_in_, shape_fit_, support_vectors_}}

    See Also
    --------
    SVR : The regressor with a given tube width ``epsilon``.

    References
    ----------
    .. [1] B. Schölkopf, A. J. Smola, R. C. Williamson and P. L. Bartlett, "New support vector
       algorithms", Neural Computation 12(5), 2000.
    .. [2] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector machines", ACM
       Transactions on Intelligent Systems and Technology 2(3), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from kernelkit import NuSVR
    >>> rng = np.random.default_rng(0)
    >>> X = np.sort(rng.uniform(0, 6, size=(40, 1)), axis=0)
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    >>> model = NuSVR(nu=0.3, C=1.0).fit(X, y)
    >>> round(model.epsilon_, 2)  # the tube half-width, learned
    0.11
    >>> bool(len(model.support_) >= 0.3 * len(y))  # ν bounds the fraction of support vectors
    True

    The model is LIBSVM's, as scikit-learn fits it:

    >>> reference = svm.NuSVR(nu=0.3, C=1.0).fit(X, y)
    >>> bool(np.allclose(model.predict(X), reference.predict(X), atol=1e-8))
    True
    """

    epsilon_: float

    def _check_params(self) -> None:
        self._check_common_params()
        _check_positive("C", self.C)
        _check_nu(self.nu)

    def _solve_regression(
        self,
        rows: Any,
        target: Float64Array,
        weights: Float64Array,
        kernel: _core.Kernel,
        alpha0: Float64Array | None = None,
        previous: tuple[Float64Array, Float64Array] | None = None,
    ) -> _core.Solution:
        solution, epsilon = self._solve(
            _core.solve_nu_svr,
            rows,
            target,
            float(self.C) * weights,
            float(self.nu),
            kernel,
            alpha0,
            previous,
            description=type(self).__name__,
        )
        self.epsilon_ = float(epsilon)
        return solution

    def _warm_start_point(self, beta: Float64Array, weights: Float64Array) -> Float64Array:
        """The previous ``β = α − α*`` as ``(β⁺, β⁻)``, each moved into this fit's
        ``0 ≤ α ≤ C · sample_weight``, ``Σα = C ν Σ sample_weight / 2`` (``_warm_start``)."""
        upper = float(self.C) * weights
        target = float(np.sum(upper * float(self.nu))) / 2.0
        return np.concatenate(
            [
                repair_onto(np.maximum(beta, 0.0), upper, target),
                repair_onto(np.maximum(-beta, 0.0), upper, target),
            ]
        )
