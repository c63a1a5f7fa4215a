"""Linear ν-SVR with linear constraints on the weights: ``kernelkit.ConstrainedSVR``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core
from ._base import (
    Float64Array,
    _check_nu,
    _check_positive,
    check_solver_params,
)
from ._docstrings import shared_docstrings
from ._params import Controls
from ._progress import progress_callback, report_solution
from ._threads import resolve_n_jobs
from ._validation import (
    check_bool,
    check_not_overflowing,
    check_sparse_structure,
    core_max_iter,
    core_time_limit,
    keeps_model_on_failure,
    regression_target,
)
from ._warn import warn_from_caller, warn_unconverged
from .exceptions import ConvergenceWarning

__all__ = ["CONSTRAINTS", "ConstrainedSVR", "named_constraints"]

#: The named constraints of :class:`ConstrainedSVR`.
CONSTRAINTS = ("nonnegative", "simplex", "increasing", "decreasing")
GAMMA_RULES = ("projected", "paper")
METHODS = ("auto", "gsmo", "interior_point")

Constraints = tuple[sp.csr_array, Float64Array, sp.csr_array, Float64Array]


def named_constraints(name: str | None, n_features: int) -> Constraints:
    """``(A, b, Γ, d)`` of a named constraint on ``β ∈ R^p`` (digest §1.9).

    * ``"nonnegative"``: ``A = −I``, ``b = 0`` (β ≥ 0).
    * ``"simplex"``: ``A = −I``, ``b = 0``, ``Γ = 1ᵀ``, ``d = 1`` (β ≥ 0, Σβ = 1).
    * ``"increasing"``: ``A = D`` with rows ``e_iᵀ − e_{i+1}ᵀ``, ``b = 0`` (β_1 ≤ … ≤ β_p).
    * ``"decreasing"``: ``A = −D``, ``b = 0``.
    """
    p = n_features
    no_rows = sp.csr_array((0, p))
    if name is None:
        return no_rows, np.zeros(0), no_rows, np.zeros(0)
    if name in ("nonnegative", "simplex"):
        # sp.eye / sp.diags with csr_array rather than eye_array / diags_array (SciPy >= 1.11/1.12):
        # the same matrices on every SciPy that pyproject.toml admits.
        a = sp.csr_array(-sp.eye(p, format="csr"))
        if name == "nonnegative":
            return a, np.zeros(p), no_rows, np.zeros(0)
        return a, np.zeros(p), sp.csr_array(np.ones((1, p))), np.ones(1)
    if name in ("increasing", "decreasing"):
        if p < 2:
            return no_rows, np.zeros(0), no_rows, np.zeros(0)
        sign = 1.0 if name == "increasing" else -1.0
        differences = sp.diags(
            [np.full(p - 1, sign), np.full(p - 1, -sign)], offsets=[0, 1], shape=(p - 1, p)
        )
        return sp.csr_array(differences), np.zeros(p - 1), no_rows, np.zeros(0)
    raise ValueError(f"constraint must be None or one of {CONSTRAINTS}, got {name!r}")


def _user_rows(
    name: str, rhs_name: str, matrix: Any, rhs: Any, n_features: int
) -> tuple[sp.csr_array, Float64Array]:
    """A user's constraint matrix (dense or sparse) and right-hand side, checked."""
    if matrix is None:
        if rhs is not None:
            raise ValueError(f"{rhs_name} is given without {name}")
        return sp.csr_array((0, n_features)), np.zeros(0)
    if sp.issparse(matrix):
        check_sparse_structure(matrix, name)
        rows = sp.csr_array(matrix, dtype=np.float64)
    else:
        dense = np.asarray(matrix)
        if dense.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got dtype {dense.dtype}")
        dense = np.atleast_2d(dense.astype(np.float64))
        if dense.ndim != 2:
            raise ValueError(f"{name} must be a 2-D array, got {dense.ndim} dimensions")
        rows = sp.csr_array(dense)
    if rows.shape[1] != n_features:
        raise ValueError(f"{name} has {rows.shape[1]} columns, but X has {n_features} features")
    if not np.all(np.isfinite(rows.data)):
        raise ValueError(f"{name} contains NaN or infinity")
    rows.sum_duplicates()
    rows.eliminate_zeros()
    zero_rows = np.flatnonzero(np.diff(rows.indptr) == 0)
    if zero_rows.size:
        raise ValueError(
            f"{name} row {int(zero_rows[0])} is zero: a zero constraint row is void or infeasible"
        )
    if rhs is None:
        values = np.zeros(rows.shape[0])
    else:
        values = np.atleast_1d(np.asarray(rhs, dtype=np.float64))
        if values.ndim != 1 or values.shape[0] != rows.shape[0]:
            raise ValueError(
                f"{rhs_name} must have one value per row of {name} ({rows.shape[0]}), "
                f"got shape {values.shape}"
            )
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{rhs_name} contains NaN or infinity")
    return rows, values


def check_feasible(a: sp.csr_array, b: Float64Array, gamma: sp.csr_array, d: Float64Array) -> None:
    """Raises ``ValueError`` when ``{β : Aβ ≤ b, Γβ = d}`` is empty (an LP by HiGHS): the dual
    would be unbounded and GSMO would never stop."""
    from scipy.optimize import linprog

    p = a.shape[1]
    result = linprog(
        np.zeros(p),
        A_ub=a if a.shape[0] else None,
        b_ub=b if a.shape[0] else None,
        A_eq=gamma if gamma.shape[0] else None,
        b_eq=d if gamma.shape[0] else None,
        bounds=(None, None),
        method="highs",
    )
    if result.status == 2:
        raise ValueError(
            "the constraints are infeasible: no β satisfies A β <= b and Gamma β = d "
            f"({result.message})"
        )


# A converged fit whose primal and dual objectives differ by more than this (relative) warns.
_GAP_WARNING = 1e-3


@dataclass(kw_only=True, eq=False, repr=False)
class _ConstrainedSVRParams:
    """Its own parameters, first in its signature (``_params``)."""

    C: float = 1.0
    nu: float = 0.5
    constraint: str | None = None
    A: Any = None
    b: Any = None
    Gamma: Any = None
    d: Any = None
    method: str = "auto"
    tol: float = 1e-3
    gamma_rule: str = "projected"
    record_history: bool = False
    cache_size: float = 200


@dataclass(kw_only=True, eq=False, repr=False)
class _ConstrainedSVRInit(Controls, _ConstrainedSVRParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class ConstrainedSVR(_ConstrainedSVRInit, RegressorMixin, BaseEstimator):  # type: ignore[misc]
    """Linear ν-support vector regression with linear constraints on the weights.

    Solves (Klopfenstein & Vaiter, "Linear Support Vector Regression with Linear
    Constraints", LSVR-P)::

        min ½‖β‖² + C (n ν ε + Σ_i (ξ_i + ξ*_i))
        s.t. |y_i − x_iᵀβ − β0| ≤ ε + ξ_i(*),  ξ, ξ*, ε ≥ 0,  A β ≤ b,  Γ β = d

    by the paper's generalized SMO (Algorithm 2) on the dual, which keeps β and its images
    ``Xβ``, ``Aβ``, ``Γβ`` instead of the dual matrix, or, on problems small enough for it, as
    one quadratic program by an interior-point method (Clarabel), which reaches the optimum to
    about 1e-9 where GSMO's absolute stopping rule can stop percents away from it
    (``method``). The constraints act on
    ``coef_`` only, never on the intercept; the tube half-width ``epsilon_`` is learned (ν-SVR).

    **C is scikit-learn's**: without constraints this is exactly
    ``sklearn.svm.NuSVR(kernel="linear", C=C, nu=nu)``. The paper's ``C`` is ``C · n_samples``
    (its loss term is ``C(νε + (1/n)Σξ)``), so pass ``C=C_paper / n_samples`` to reproduce it.

    Parameters
    ----------
    C : float, default=1.0
        Penalty on the errors, > 0 (the dual box ``0 ≤ α, α* ≤ C``).
    nu : float, default=0.5
        The ν in (0, 1]: an upper bound on the fraction of errors and a lower bound on the
        fraction of support vectors.
    constraint : {None, "nonnegative", "simplex", "increasing", "decreasing"}, default=None
        A named constraint: ``β ≥ 0``; ``β ≥ 0, Σβ = 1``; ``β_1 ≤ … ≤ β_p`` (isotonic, the
        finite differences); ``β_1 ≥ … ≥ β_p``. None: no named constraint.
    A : {array-like, sparse matrix} of shape (k1, n_features), default=None
        Extra inequalities ``A β ≤ b``, after the named ones (finite values, no zero row).
    b : array-like of shape (k1,), default=None
        Right-hand side of ``A β ≤ b``; None means 0. Only with ``A``.
    Gamma : {array-like, sparse matrix} of shape (k2, n_features), default=None
        Extra equalities ``Γ β = d``, after the named ones (finite values, no zero row).
        Infeasible user constraints raise a ``ValueError`` before solving (checked by an LP).
    d : array-like of shape (k2,), default=None
        Right-hand side of ``Γ β = d``; None means 0. Only with ``Gamma``.
    method : {"auto", "gsmo", "interior_point"}, default="auto"
        ``"gsmo"``: the paper's generalized SMO. ``"interior_point"``: the primal as one QP
        by Clarabel's interior-point method on one thread, which stops on relative residuals
        and gap of 1e-12 (1e-9 where round-off prevents that), whatever ``tol``; 15–40 Newton
        steps whose cost grows like ``n_samples · n_features²`` (2,000 × 200: 11 s). ``"auto"``:
        the interior-point method when ``n_samples · n_features ≤ 10⁶``,
        ``n_samples · n_features² ≤ 2·10⁸`` (about 30 s), ``n_features ≤ n_samples`` and
        neither ``record_history`` nor ``gamma_rule="paper"`` is set, else GSMO.
        ``solver_stats_["method"]`` says which ran.
    tol : float, default=1e-3
        GSMO's stopping rule: stop when the largest violation ``Δ = max(Δ1..Δ4) ≤ tol``
        (> 0); in the units of ``y`` for the α blocks and of the constraint rows for γ and μ,
        so at convergence ``max(Aβ − b) ≤ tol`` and ``max|Γβ − d| ≤ tol``. Absolute and
        local: on ill-conditioned constrained problems it holds percents away from the
        optimum (see ``relative_gap_``). Not used by the interior-point method.
    gamma_rule : {"projected", "paper"}, default="projected"
        How the inequality multipliers are scored. ``"paper"`` is Definition 3.3 as printed,
        which misses positive multipliers on inactive constraints and can stop at a
        non-optimal point; keep it for reproducing the paper only.
    record_history : bool, default=False
        Keep ``f(θ^k)``, ``Δ^k`` and the updated block of every iteration in ``history_``.
    cache_size : float, default=200
        Megabytes of cached columns of ``XXᵀ``, > 0.
    max_iter : int, default=-1
        Iteration limit, >= 1, or -1 for LIBSVM's limit of ``max(10**7, 100 * l)`` GSMO
        iterations for ``l`` dual variables (the interior-point method: at most 1,000; 200 for
        -1).
    {{verbose}}
    n_jobs : int or None, default=None
        Threads for the O(n) passes (None or -1: every core); results do not depend on it.
    {{callback, time_limit}}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights ``β = −Xᵀ(α − α*) − Aᵀγ + Γᵀμ``.
    intercept_ : float
        The unconstrained intercept ``β0``.
    epsilon_ : float
        The learned tube half-width ε.
    dual_alpha_ : ndarray of shape (n_samples,)
        The dual variables α (one per sample, in ``[0, C]``).
    dual_alpha_star_ : ndarray of shape (n_samples,)
        The dual variables α* (one per sample, in ``[0, C]``).
    dual_gamma_ : ndarray of shape (k1,)
        The multipliers γ >= 0 of the inequalities ``A_ β ≤ b_``.
    dual_mu_ : ndarray of shape (k2,)
        The multipliers μ of the equalities ``Gamma_ β = d_``.
    A_ : scipy.sparse.csr_array of shape (k1, n_features)
        The inequality rows used: the named constraint's, then ``A``'s.
    b_ : ndarray of shape (k1,)
        The right-hand sides of ``A_``.
    Gamma_ : scipy.sparse.csr_array of shape (k2, n_features)
        The equality rows used: the named constraint's, then ``Gamma``'s.
    d_ : ndarray of shape (k2,)
        The right-hand sides of ``Gamma_``.
    dual_objective_ : float
        ``f(θ) = ½‖β‖² + yᵀ(α − α*) + bᵀγ − dᵀμ``.
    primal_objective_ : float
        The primal objective at ``(coef_, intercept_, epsilon_)``; equals
        ``−dual_objective_`` at the optimum.
    relative_gap_ : float
        ``(primal_objective_ + dual_objective_) / max(|primal_objective_|, |dual_objective_|)``:
        0 at the optimum. When ``constraint_violation_`` is 0 it bounds the relative distance
        of the primal objective from the optimum; while β still violates the constraints (by
        up to ``tol``) it can be negative, and it only indicates that distance. A converged
        fit whose ``|relative_gap_|`` exceeds ``1e-3`` warns (``ConvergenceWarning``): on
        ill-conditioned, strongly constrained problems GSMO meets ``tol`` far from the
        optimum (see the user guide, "Benchmarks").
    constraint_violation_ : float
        The largest violation of the constraints by ``coef_``:
        ``max(0, max(A_ β − b_), max |Gamma_ β − d_|)``.
    delta_ : float
        The final largest violation ``Δ`` (for the interior-point method, GSMO's scores at its
        multipliers).
    {{n_features_in_, feature_names_in_}}
    n_iter_ : int
        Iterations of the solver (GSMO: block updates; interior point: Newton steps).
    status_ : str
        ``"converged"``, ``"max_iterations"``, ``"time_limit"``, ``"stopped"`` (callback or
        Ctrl-C) or ``"numerical_error"`` (for the interior-point method also when Clarabel
        fails, which happened here with more features than samples).
    history_ : dict of ndarray
        Only with ``record_history=True``: ``"objective"``, ``"violation"`` and ``"block"``
        (1: α, 2: α*, 3: γ, 4: μ; 0 for the starting point), one entry per iterate.
    solver_stats_ : dict
        ``method`` (``"gsmo"`` or ``"interior_point"``), cache counters,
        ``objective_increases`` (0 for a correct run) and the steps per block (GSMO),
        ``kernel_path`` (how kernel values were computed) and ``simd`` (the vector
        instructions used).

    References
    ----------
    .. [1] Q. Klopfenstein and S. Vaiter, "Linear support vector regression with linear
       constraints", preprint (the LSVR-P model and its generalized SMO).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from sklearn.datasets import load_diabetes
    >>> from kernelkit import ConstrainedSVR
    >>> X, y = load_diabetes(return_X_y=True)
    >>> X = (X - X.mean(axis=0)) / X.std(axis=0)
    >>> y = (y - y.mean()) / y.std()

    Without constraints the model is scikit-learn's linear ``NuSVR`` (to the tolerance), with
    some negative weights:

    >>> model = ConstrainedSVR(C=1.0, nu=0.5, tol=1e-4).fit(X, y)
    >>> reference = svm.NuSVR(kernel="linear", C=1.0, nu=0.5, tol=1e-6).fit(X, y)
    >>> bool(np.allclose(model.coef_, reference.coef_[0], atol=1e-3))
    True
    >>> bool(model.coef_.min() < -0.1)
    True

    With ``constraint="nonnegative"`` every weight is >= 0, to ``tol``:

    >>> positive = ConstrainedSVR(C=1.0, nu=0.5, constraint="nonnegative", tol=1e-4).fit(X, y)
    >>> positive.status_
    'converged'
    >>> bool(positive.coef_.min() >= -1e-4)
    True
    """

    coef_: Float64Array
    intercept_: float
    epsilon_: float

    def _check_params(self) -> None:
        _check_positive("C", self.C)
        _check_nu(self.nu)
        if self.constraint is not None and self.constraint not in CONSTRAINTS:
            raise ValueError(
                f"constraint must be None or one of {CONSTRAINTS}, got {self.constraint!r}"
            )
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.gamma_rule not in GAMMA_RULES:
            raise ValueError(f"gamma_rule must be one of {GAMMA_RULES}, got {self.gamma_rule!r}")
        check_bool("record_history", self.record_history)
        check_solver_params(self)

    def _constraints(self, n_features: int) -> Constraints:
        """The named constraint's rows followed by the user's, checked for feasibility."""
        a, b, gamma, d = named_constraints(self.constraint, n_features)
        user_a, user_b = _user_rows("A", "b", self.A, self.b, n_features)
        user_gamma, user_d = _user_rows("Gamma", "d", self.Gamma, self.d, n_features)
        if user_a.shape[0] or user_gamma.shape[0]:
            a = sp.csr_array(sp.vstack([a, user_a]))
            b = np.concatenate([b, user_b])
            gamma = sp.csr_array(sp.vstack([gamma, user_gamma]))
            d = np.concatenate([d, user_d])
            check_feasible(a, b, gamma, d)
        return a, b, gamma, d

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any) -> ConstrainedSVR:
        """Fit the model.

        {{rows: Parameters}}
            Training rows, at least two (sparse input is densified).
        y : array-like of shape (n_samples,)
            Numeric targets.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        check_sparse_structure(X)
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=np.float64,
            ensure_min_samples=2,
        )
        rows = np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        check_not_overflowing(rows)
        target = np.ascontiguousarray(regression_target(y))
        n, p = rows.shape
        a, b, gamma, d = self._constraints(p)
        with progress_callback(self.callback, self.verbose, type(self).__name__) as callback:
            solution, coef, epsilon, history = _core.solve_constrained_svr(
                rows,
                target,
                float(self.C),
                float(self.nu),
                a.indptr.astype(np.int64),
                a.indices.astype(np.int64),
                a.data.astype(np.float64),
                b,
                gamma.indptr.astype(np.int64),
                gamma.indices.astype(np.int64),
                gamma.data.astype(np.float64),
                d,
                gamma_rule=self.gamma_rule,
                record_history=bool(self.record_history),
                method=self.method,
                callback=callback,
                tol=float(self.tol),
                max_iter=core_max_iter(self.max_iter),
                cache_size=float(self.cache_size),
                n_jobs=resolve_n_jobs(self.n_jobs),
                time_limit=core_time_limit(self.time_limit),
            )
            report_solution(callback, solution)
        theta = np.asarray(solution.x)
        k1 = a.shape[0]
        self.dual_alpha_ = theta[:n]
        self.dual_alpha_star_ = theta[n : 2 * n]
        self.dual_gamma_ = theta[2 * n : 2 * n + k1]
        self.dual_mu_ = theta[2 * n + k1 :]
        self.coef_ = np.asarray(coef)
        self.intercept_ = float(solution.bias)
        self.epsilon_ = float(epsilon)
        self.A_, self.b_, self.Gamma_, self.d_ = a, b, gamma, d
        self.dual_objective_ = float(solution.objective)
        self.primal_objective_ = self._primal_objective(rows, target)
        scale = max(abs(self.primal_objective_), abs(self.dual_objective_), np.finfo(float).tiny)
        self.relative_gap_ = (self.primal_objective_ + self.dual_objective_) / scale
        self.constraint_violation_ = max(
            0.0,
            float(np.max(a @ self.coef_ - b, initial=0.0)),
            float(np.max(np.abs(gamma @ self.coef_ - d), initial=0.0)),
        )
        self.delta_ = float(solution.gap)
        self.n_iter_ = int(solution.iterations)
        self.status_ = solution.status
        self.solver_stats_ = dict(solution.stats)
        if history is not None:
            self.history_ = {key: np.asarray(value) for key, value in history.items()}
            self.history_["block"] = self.history_["block"].astype(np.int8)
        if solution.status != "converged":
            warn_unconverged(
                [solution.status],
                default_limit=self.max_iter == -1 and self.solver_stats_["method"] == "gsmo",
            )
        elif abs(self.relative_gap_) > _GAP_WARNING:
            warn_from_caller(
                f"the solver met tol={self.tol:g}, but the primal and dual objectives still "
                f"differ by {abs(self.relative_gap_):.2%} (the constraints hold to "
                f"{self.constraint_violation_:.1e}): the model may be that far from the optimum. "
                'Lower tol, or use method="interior_point" (see the user guide\'s Benchmarks '
                "section).",
                ConvergenceWarning,
            )
        return self

    def _primal_objective(self, X: Float64Array, y: Float64Array) -> float:
        """``½‖β‖² + C (n ν ε + Σ (ξ + ξ*))`` at the fitted ``(β, β0, ε)``."""
        residual = y - X @ self.coef_ - self.intercept_
        slack = np.maximum(np.abs(residual) - self.epsilon_, 0.0).sum()
        loss = len(y) * float(self.nu) * self.epsilon_ + slack
        return float(0.5 * self.coef_ @ self.coef_ + float(self.C) * loss)

    def predict(self, X: Any) -> NDArray[np.float64]:
        """Predict the target of the samples in X.

        {{rows: Parameters}}
            Rows to evaluate.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``X @ coef_ + intercept_``.
        """
        check_is_fitted(self, "coef_")
        check_sparse_structure(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_ + self.intercept_, dtype=np.float64)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
