"""The L2-SVM through the minimum enclosing ball: ``kernelkit.FrankWolfeSVC``.

Frandi, Ñanculef, Gasparo, Lodi & Sartori, "Training Support Vector Machines Using Frank-Wolfe
Optimization Methods" (IJPRAI 2013): the core vector machine (CVM), Frank–Wolfe (FW) and
away-step Frank–Wolfe (MFW).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Annotations only (``from __future__ import annotations``): no runtime dependency on
    # typing_extensions, which Python 3.10 does not ship; mypy always has it.
    from typing_extensions import Self

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import check_random_state

from . import _core
from ._base import Float64Array, _check_positive
from ._pair_fit import PairProblem
from ._params import Controls, KernelParams, OneVsOneParams
from ._threads import resolve_n_jobs
from ._validation import (
    check_bool,
    core_max_iter,
    core_time_limit,
    keeps_model_on_failure,
    shown,
)
from .exceptions import InvalidParameterError
from .svc import BaseSVC

__all__ = ["FrankWolfeSVC", "MEBClassifier"]

METHODS = ("cvm", "fw", "mfw")
INITS = ("random", "furthest")
SAMPLE_POOLS = ("all", "noncore")
#: The largest ``sample_trials`` (the core's is a 32-bit unsigned integer).
MAX_SAMPLE_TRIALS = 2**32 - 1
#: The largest ``sample_size`` and ``init_size`` (the core's are ``usize``).
MAX_SIZE = int(np.iinfo(np.uintp).max)


def _check_int(name: str, value: object, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{name} must be an int, got {type(value).__name__}")
    number = int(value)
    if not minimum <= number <= maximum:
        raise ValueError(f"{name} must be >= {minimum} and <= {maximum}, got {shown(number)}")
    return number


@dataclass(kw_only=True, eq=False, repr=False)
class _FrankWolfeSVCParams:
    """Its own parameters, first in its signature (``_params``)."""

    method: str = "mfw"
    C: float = 1.0
    epsilon: float = 1e-6
    sample_size: int | None = 59
    sample_trials: int = 7
    sample_pool: str = "all"
    init_size: int = 20
    init: str = "random"
    verify_full: bool = False


@dataclass(kw_only=True, eq=False, repr=False)
class _FrankWolfeSVCInit(Controls, OneVsOneParams, KernelParams, _FrankWolfeSVCParams):
    """Its ``__init__``: its own parameters, then the groups'."""


class FrankWolfeSVC(_FrankWolfeSVCInit, BaseSVC):
    """L2-SVM classifier trained as a minimum enclosing ball by Frank–Wolfe methods.

    The model is the L2-SVM of Lee & Mangasarian with a regularised bias,

    ``min ½(‖w‖² + b² + C Σ ξ_i²) − ρ  s.t.  y_i (wᵀϕ(x_i) + b) ≥ ρ − ξ_i``,

    whose dual ``max −αᵀK̃α`` over the unit simplex, ``K̃_ij = y_i y_j (k(x_i, x_j) + 1) +
    δ_ij / C``, is a minimum-enclosing-ball problem. The decision function is
    ``h(x) = Σ α_i y_i (k(x_i, x) + 1)``. ``C`` here weighs *squared* slacks: it is not the ``C``
    of :class:`~kernelkit.SVC`, and the two models differ.

    Multiclass problems are trained one-vs-one (a binary model per pair of classes, majority
    vote), with the fitted attributes in scikit-learn's ``SVC`` layout.

    Parameters
    ----------
    method : {"mfw", "fw", "cvm"}, default="mfw"
        ``"mfw"``: Frank–Wolfe with away and drop steps (Algorithm 3; linear convergence),
        ``"fw"``: plain Frank–Wolfe (Algorithm 2), ``"cvm"``: the core vector machine
        (Algorithm 1: Bădoiu–Clarkson with SMO sub-problems; needs a kernel with constant
        ``k(x, x)``, such as ``"rbf"``).
    C : float, default=1.0
        Weight of the squared slacks, > 0.
    epsilon : float, default=1e-6
        The paper's ε: stop when no point lies outside the ball of radius ``(1 + ε) r``, which
        certifies ``(1 − ε′) g* ≤ g(α) ≤ g*`` with ``ε′ = 2ε + ε²`` and
        ``g(α) = Δ² − αᵀK̃α``, ``Δ² = max_i K̃_ii``, for a kernel with constant ``k(x, x)``
        (``"rbf"``). For other kernels the rule is ``2(R − min_i s_i) ≤ ε′ (D − R)``,
        ``R = αᵀK̃α``, ``s = K̃α``, ``D = Σ α_i K̃_ii`` (which is ``Δ²`` when the diagonal is
        constant), so that a few rows of large norm do not loosen it. Must be > 0.
    sample_size : int or None, default=59
        Points sampled per search, >= 1 (the paper's probabilistic speed-up: with 59 the
        sampled furthest point is in the top 5 % with probability 0.95). ``None`` scans every
        point, which makes the stopping certificate exact.
    sample_trials : int, default=7
        Samples drawn in a row without finding a point outside the ball before declaring
        convergence, >= 1 (LibCVM's rule; the paper leaves it open).
    sample_pool : {"all", "noncore"}, default="all"
        Which points ``"fw"`` and ``"mfw"`` sample. ``"all"``: every point, so the sampled
        stopping test also watches the core points and the fit ends near the optimum; plain
        FW then crawls (its core weights only decay geometrically: hundreds of thousands of
        steps on one of letter's pairs). ``"noncore"``: the points outside the core set
        (``α_i = 0``), as LibCVM's sampler, on whose code the paper's implementation is built:
        the test then asks only whether a point outside the core set lies outside the ball,
        so FW stops after a few hundred steps, with the core weights far from optimal (on
        letter about 3× faster than CVM, 9 points less accurate; see the Frank–Wolfe page's
        benchmarks). ``"cvm"`` always samples outside its core set, whose sub-problem it
        solves.
    init_size : int, default=20
        Random points (alternating classes) whose ball, solved by SMO, is the starting point,
        >= 2 (with ``init="random"``).
    init : {"random", "furthest"}, default="random"
        The start (§2.2): ``"random"``, the ball of ``init_size`` random points (Option B, as
        LibCVM and the paper's experiments); ``"furthest"``, Option A (Kumar, Mitchell &
        Yıldırım): a random point and the point furthest from it in the ball's feature space,
        each with weight ½ (one kernel column).
    verify_full : bool, default=False
        With sampling, confirm convergence with one full scan (and go on if it finds a point
        outside the ball).
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default="rbf"
        The kernel ``k``, as for :class:`SVC` (``"cvm"`` needs a constant ``k(x, x)``).
    degree : int, default=3
        Degree of the ``"poly"`` kernel, >= 0; ignored by the other kernels.
    gamma : {"scale", "auto", "mean_distance"} or float, default="scale"
        Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``: ``"scale"`` is
        ``1 / (n_features · X.var())``, ``"auto"`` is ``1 / n_features``, a float must be > 0
        (``"linear"``, ``"precomputed"`` and a callable ignore it and take 0).
        ``"mean_distance"`` is the paper's RBF width rule, ``σ²`` = the mean squared distance
        ``d̄`` between distinct training rows, i.e. ``gamma = 1 / (2 d̄)``: on standardised
        features ``d̄ ≈ 2 · n_features``, so ``"scale"`` is about 4 times the paper's value.
    coef0 : float, default=0.0
        Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).
    cache_size : float, default=200
        Kernel cache of each binary problem in MB, > 0 (columns of ``K̃`` in float64).
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of :meth:`decision_function` for three classes or more, as for :class:`SVC`.
    break_ties : bool, default=False
        With ``"ovr"`` and more than two classes, predict the argmax of
        :meth:`decision_function` instead of the vote. Must be False with ``"ovo"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial points and the samples. A fixed value makes fits reproducible
        (bit for bit, for any ``n_jobs``).
    max_iter : int, default=-1
        Frank–Wolfe steps (CVM: core-set insertions) per binary problem, >= 1, or -1 for
        LIBSVM's limit of ``max(10**7, 100 * n)``.
    verbose : bool or int, default=False
        When true, show a progress bar on stderr per binary problem (the pairs are then solved
        one after the other).
    n_jobs : int or None, default=None
        Threads for the kernel computations, the searches and concurrent pairs; ``None`` or -1
        use every core. The model does not depend on it.
    callback : callable or None, default=None
        Progress callback of each solve, as for :class:`SVC`: a true return value stops it.
    time_limit : float or None, default=None
        Wall-clock seconds allowed per binary problem (> 0), or None for no limit.

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        All ones: the L2-SVM has no class weights.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coreset_ : ndarray of shape (n_coreset,)
        Sorted indices of the training points with ``α_i > 0`` in some binary problem (int32).
    delta2_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        ``Δ² = max_i K̃_ii`` of each binary problem.
    coef_ : ndarray or sparse matrix of shape (n_classes * (n_classes - 1) / 2, n_features)
        Weights of the features, ``dual_coef_ @ support_vectors_`` per problem; only with
        ``kernel="linear"`` (an ``AttributeError`` otherwise), sparse when X was.
    dual_coef_ : ndarray or sparse matrix of shape (n_classes - 1, n_SV)
        ``α_i y_i`` of the support vectors in scikit-learn's SVC layout (signs flipped for two
        classes, so that a positive decision means ``classes_[1]``).
    fit_status_ : int
        0 when every binary problem converged, 1 otherwise.
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        ``b = Σ α_i y_i`` of each binary problem (sign flipped for two classes).
    kkt_gap_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The Frank–Wolfe duality gap ``2(R − min_i (K̃α)_i)`` at exit, over the points of the
        last search (every point when ``sample_size=None``). With sampling it is an estimate
        and can be negative: every sampled point was then strictly inside the ball.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, defined only when ``X`` has feature names that
        are all strings.
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Iterations of each binary problem (int32).
    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors of each class (int32).
    objective_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        ``R = αᵀK̃α`` at exit (the squared norm of the ball's centre).
    objective_increases_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The solver's count of objective increases per binary problem (0 for a correct solver).
    radius2_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The squared radius ``r² = Δ² − R`` maintained by the solver.
    radius_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The radius ``r`` (0 where ``r²`` is negative by round-off).
    shape_fit_ : tuple of int of shape (2,)
        Shape of the training ``X``.
    solver_stats_ : list of dict
        Per binary problem: kernel cache counters, ``radius2``, ``delta2``, ``fw_steps``,
        ``away_steps``, ``drop_steps``, ``coreset_size``, ``inner_iterations``,
        ``kernel_path`` (how kernel values were computed) and ``simd`` (the vector
        instructions used).
    status_ : list of str
        How each binary problem ended: ``"converged"``, ``"max_iterations"``,
        ``"time_limit"``, ``"stopped"`` (callback or Ctrl-C) or ``"not_convex"`` (the stopping
        rule holds, but the kernel matrix is not positive semidefinite: ``"sigmoid"``,
        ``"poly"`` with ``coef0 < 0``, or a precomputed or callable matrix on which a step met
        negative curvature; the point is stationary, not a certified optimum, and a
        ``ConvergenceWarning`` says so). A solve that meets a value that is not finite
        (``"numerical_error"``) raises ``ValueError`` instead.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (``α_i > 0``) in the training data (int32), grouped by
        class.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (CSR when ``X`` was sparse); empty, of shape (0, 0), for a
        precomputed kernel.

    See Also
    --------
    SVC : The C-SVM (hinge loss) trained by SMO.

    References
    ----------
    .. [1] E. Frandi, R. Ñanculef, M. G. Gasparo, S. Lodi and C. Sartori, "Training support
       vector machines using Frank-Wolfe optimization methods", International Journal of
       Pattern Recognition and Artificial Intelligence 27(3), 2013.
    .. [2] I. W. Tsang, J. T. Kwok and P.-M. Cheung, "Core vector machines: fast SVM training
       on very large data sets", JMLR 6, 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from kernelkit import FrankWolfeSVC, MEBClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = FrankWolfeSVC(C=1.0, random_state=0).fit(X, y)
    >>> model.status_  # one binary problem per pair of classes
    ['converged', 'converged', 'converged']
    >>> model.predict(X[[0, 50, 100]])
    array([0, 1, 2])
    >>> float(model.score(X, y)) > 0.95
    True
    >>> MEBClassifier is FrankWolfeSVC  # another name of the same estimator
    True
    """

    _GAMMA_RULES = ("scale", "auto", "mean_distance")

    # SVC's shared machinery reads these; they are not parameters of the L2-SVM.
    tol = 1e-3
    shrinking = True
    class_weight = None
    _offers_probability = False
    # Identical rows are not one variable here: the L2-SVM's squared slacks put δ_ij / C on
    # K̃'s diagonal, so m copies of a row are one row only with diagonal 1 / (mC), and the MEB
    # dual has no per-row C (SVC's merge would drop the copies).
    _merges_repeated_rows = False

    def _check_params(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        _check_positive("C", self.C)
        if not math.isfinite(1.0 / float(self.C)):
            # δ_ij / C on K̃'s diagonal (the L2-SVM's squared slacks) must be a number.
            raise ValueError(
                f"C must be large enough that 1 / C is finite (K̃'s diagonal adds 1 / C), got "
                f"{float(self.C)!r}"
            )
        _check_positive("epsilon", self.epsilon)
        if self.sample_size is not None:
            _check_int("sample_size", self.sample_size, 1, MAX_SIZE)
        _check_int("sample_trials", self.sample_trials, 1, MAX_SAMPLE_TRIALS)
        if self.sample_pool not in SAMPLE_POOLS:
            raise ValueError(f"sample_pool must be one of {SAMPLE_POOLS}, got {self.sample_pool!r}")
        _check_int("init_size", self.init_size, 2, MAX_SIZE)
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}, got {self.init!r}")
        check_bool("verify_full", self.verify_full)
        self._check_shape_params()

    def _solver_options(self) -> dict[str, Any]:
        return {
            "max_iter": core_max_iter(self.max_iter),
            "cache_size": float(self.cache_size),
            "n_jobs": resolve_n_jobs(self.n_jobs),
            "time_limit": core_time_limit(self.time_limit),
        }

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any) -> Self:  # type: ignore[override]
        """Fit the model: one minimum-enclosing-ball problem per pair of classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (scipy.sparse input is used as CSR, never densified), or the Gram
            matrix of shape (n_samples, n_samples) when ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
            Class labels, at least two distinct values.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        self._seed = int(check_random_state(self.random_state).randint(0, 2**31 - 1))
        super().fit(X, y)
        stats = self.solver_stats_
        self.radius2_ = np.asarray([s["radius2"] for s in stats], dtype=np.float64)
        self.radius_ = np.sqrt(np.maximum(self.radius2_, 0.0))
        self.delta2_ = np.asarray([s["delta2"] for s in stats], dtype=np.float64)
        self.coreset_ = np.sort(self.support_)
        return self

    def _solve_pair(
        self, rows: Any, pair: PairProblem, kernel: _core.Kernel, **options: Any
    ) -> _core.Solution:
        """The MEB dual of the pair's ``rows`` (its weights are all ones; no warm start:
        the estimator has no ``warm_start``)."""
        return self._solve(
            _core.solve_frank_wolfe,
            rows,
            pair.rows_signs,
            kernel,
            float(self.C),
            self.method,
            float(self.epsilon),
            None if self.sample_size is None else int(self.sample_size),
            self._seed,
            int(self.sample_trials),
            int(self.init_size),
            bool(self.verify_full),
            "exact",  # radius_rule: the paper's printed rule is for reproduction only
            str(self.init),
            str(self.sample_pool),
            **options,
        )

    coreset_: NDArray[np.int32]
    radius2_: Float64Array
    radius_: Float64Array
    delta2_: Float64Array
    _seed: int


#: The name used in the project brief for the same estimator.
MEBClassifier = FrankWolfeSVC
