"""Positive-unlabeled learning with the double hinge loss: ``kernelkit.PUClassifier``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import Float64Array, KernelSvmMixin, _check_positive, check_finite_model
from ._docstrings import shared_docstrings
from ._params import Controls, KernelParams
from ._pu_prior import estimate_prior
from ._pu_scoring import lee_liu_score, make_pu_scorer, pu_accuracy_score
from ._rbf_shift import solved_rows
from ._single_problem import store_solve_record
from ._validation import keeps_model_on_failure, real_value, shown
from ._warn import warn_unconverged
from .exceptions import InvalidParameterError

if TYPE_CHECKING:
    # Annotations only (``from __future__ import annotations``): no runtime dependency on
    # typing_extensions, which Python 3.10 does not ship; mypy always has it.
    from typing_extensions import Self

__all__ = [
    "PUClassifier",
    "estimate_prior",
    "lee_liu_score",
    "make_pu_scorer",
    "pu_accuracy_score",
]


@dataclass(kw_only=True, eq=False, repr=False)
class _PUClassifierParams:
    """Its own parameters, first in its signature (``_params``)."""

    prior: float | None = None
    lam: float = 0.01
    tol: float = 1e-5
    selection: str = "paper"


@dataclass(kw_only=True, eq=False, repr=False)
class _PUClassifierInit(Controls, KernelParams, _PUClassifierParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class PUClassifier(_PUClassifierInit, ClassifierMixin, KernelSvmMixin):  # type: ignore[misc]
    """Positive-unlabeled classifier trained by USMO (Sansone, De Natale & Zhou, TPAMI 2019).

    ``fit(X, y)`` takes ``y = 1`` for the labeled positives and ``y = 0`` for the unlabeled rows
    (positives and negatives mixed). It minimises the double-hinge PU risk of du Plessis et al.
    (ICML 2015) with an RKHS penalty,

    ``(π/p) Σ_{labeled} −f(x) + (1/n) Σ_{unlabeled} max(0, f(x), (1 + f(x))/2) + λ‖f‖²``,

    through its dual over the unlabeled rows, solved by an SMO-type method with the exact
    four-case pair step, the paper's optimality conditions plus the fourth condition the paper
    omits (see ``crates/solvers/src/usmo``), and the shared kernel cache.

    Here ``p`` is the number of labeled positives and ``n`` the number of unlabeled rows. The
    dual has one variable ``0 ≤ σ_u ≤ 1/(2λn)`` per unlabeled row, with ``Σ σ_u = π/(2λ)``.

    Parameters
    ----------
    prior : float, default=None
        The class prior π in (0, 1) of the unlabeled rows: the fraction of positives among them
        (the risk replaces those positives by the labeled ones). When the labeled positives
        were taken from the same pool as the unlabeled rows (a fraction ``c`` of its positives
        labeled), this is ``π_all (1 − c) / (1 − c π_all)``, less than the pool's fraction
        ``π_all``. Required (the default None raises at fit): PU data cannot reveal it without
        extra assumptions.
    lam : float, default=0.01
        The RKHS regularisation weight λ, > 0.
    tol : float, default=1e-5
        The τ of the optimality conditions, > 0: the solve stops when the largest of the four
        optimality gaps is at most ``tol``. At ``1e-3`` (``SVC``'s default) the decision values
        are fixed only to about ``1e-3 · max|d|``, so two correct solves (the two
        ``selection`` schemes) can differ near the boundary; at ``1e-5`` they agree within
        ``1e-4 · max|d|`` on the paper's data sets, for about 15 % more time
        (``docs/pu_classifier.md``, "Working-set selection").
    selection : {"full", "paper"}, default="paper"
        How USMO chooses its pairs. ``"paper"``: the paper's scheme, from a start with almost
        every row on a bound (ranked by the rows' kernel sums with the labeled positives):
        passes over the non-bound rows, whose function cache alone is kept current, and a pass
        over every row only when a non-bound pass changes nothing. ``"full"`` (the only scheme
        before this option): the maximal violating pair over every unlabeled row at each step,
        the function cache of every row kept current (``O(n)`` per step). Both stop on the same
        test (all four optimality gaps over every row at most ``tol``), so they reach the same
        optimum. ``"paper"`` was faster at every size measured on a9a and
        ``make_classification`` (17–175× with the linear kernel, 2–7.3× with RBF), but
        ``"full"`` can be faster with an RBF kernel when the uniform start is already close
        to the optimum (``docs/pu_classifier.md``, "Working-set selection").
    kernel : {"linear", "poly", "rbf", "sigmoid"}, default="rbf"
        The kernel, as for :class:`SVC` (no precomputed or callable kernel).
    degree : int, default=3
        Degree of the ``"poly"`` kernel, >= 0; ignored by the other kernels.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``: ``"scale"`` is
        ``1 / (n_features · X.var())``, ``"auto"`` is ``1 / n_features``, a float must be > 0
        (``"linear"`` ignores it and takes 0).
    coef0 : float, default=0.0
        Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).
    cache_size : float, default=200
        Size of the kernel cache in MB (> 0).
    max_iter : int, default=-1
        Limit on the pair steps, >= 1, or -1 for LIBSVM's limit of ``max(10**7, 100 * n)``.
    verbose : bool or int, default=False
        When true, show a progress bar of the solve on stderr.
    n_jobs : int or None, default=None
        Threads for the kernel computations and the solver's O(n) passes; ``None`` or -1 use
        every core. The model does not depend on it.
    callback : callable or None, default=None
        Progress callback of the solve, as for :class:`SVC`: a true return value stops it.
    time_limit : float or None, default=None
        Wall-clock seconds allowed for the solve (> 0), or None for no limit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[0, 1]``: 0 for the negative class, 1 for the positive class.
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        Weights of the features, ``dual_coef_ @ support_vectors_`` per problem; only with
        ``kernel="linear"`` (an ``AttributeError`` otherwise), sparse when X was.
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        The coefficients of ``f(x) = Σ dual_coef_[0, k] K(support_vectors_[k], x) +
        intercept_[0]``: ``c1 = π/(2λp)`` for every labeled positive, then ``−σ_u`` for every
        unlabeled row with ``σ_u > 0``.
    intercept_ : ndarray of shape (1,)
        The bias of ``f``.
    kkt_gap_ : float
        The largest of the four optimality gaps at exit (at most ``tol`` when converged).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, defined only when ``X`` has feature names that
        are all strings.
    n_iter_ : int
        Pair steps taken by the solver.
    objective_ : float
        The dual objective Φ at exit.
    objective_increases_ : int
        Steps that increased the dual objective (0 for a correct solver).
    shape_fit_ : tuple of int of shape (2,)
        Shape of the training ``X``.
    sigma_ : ndarray of shape (n_unlabeled,)
        The dual variable σ of every unlabeled row, in the order of the unlabeled rows of ``X``.
    solver_stats_ : dict
        The solver's counters, among them the kernel cache hits, misses, values computed, bytes
        in use and budget, the objective increases, ``kernel_path`` (how kernel values were
        computed; ``"linear_primal"`` for the linear kernel), ``simd`` (the vector
        instructions used), ``selection`` (the scheme that ran) and ``whole_set_passes``
        (``"paper"``: its passes over every unlabeled row; 0 for ``"full"``, whose every
        step scans every row).
    status_ : str
        How the solve ended: ``"converged"``, ``"max_iterations"``, ``"time_limit"``,
        ``"stopped"`` (callback or Ctrl-C) or ``"stalled"`` (no pair step lowers the objective
        any more: ``tol`` is below what the float32 kernel columns resolve) or
        ``"not_convex"`` (the stopping rule holds, but the kernel is not positive semidefinite:
        ``"sigmoid"``, ``"poly"`` with ``coef0 < 0``, or a pair of negative curvature met; the
        point is stationary, not a certified optimum, and a ``ConvergenceWarning`` says so). A
        solve that meets a value that is not finite (``"numerical_error"``) raises
        ``ValueError`` instead.
    support_ : ndarray of shape (n_SV,)
        Indices in the training data of the labeled positives, then of the unlabeled rows with
        ``σ_u > 0`` (int32).
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The rows of ``support_`` (CSR when ``X`` was sparse).

    References
    ----------
    .. [1] E. Sansone, F. G. B. De Natale and Z.-H. Zhou, "Efficient training for positive
       unlabeled learning", IEEE Transactions on Pattern Analysis and Machine Intelligence
       41(11), 2019.
    .. [2] M. C. du Plessis, G. Niu and M. Sugiyama, "Convex formulation for learning from
       positive and unlabeled data", ICML 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import PUClassifier
    >>> rng = np.random.default_rng(0)
    >>> y_true = (rng.random(300) < 0.5).astype(int)
    >>> X = rng.normal(size=(300, 2)) + np.where(y_true[:, None] == 1, 1.5, -1.5)

    30 % of the positives are labeled (``y = 1``), the other rows are unlabeled (``y = 0``); the
    positives make up ``π = 0.5 · 0.7 / (1 − 0.5 · 0.3)`` of the unlabeled rows:

    >>> y = ((y_true == 1) & (rng.random(300) < 0.3)).astype(int)
    >>> model = PUClassifier(prior=0.5 * 0.7 / (1 - 0.5 * 0.3)).fit(X, y)
    >>> model.status_
    'converged'
    >>> model.predict([[-1.5, -1.5], [1.5, 1.5]])
    array([0, 1])
    >>> float(model.score(X, y_true)) > 0.95  # accuracy on the true labels
    True
    """

    classes_: NDArray[Any]
    sigma_: Float64Array
    objective_: float
    kkt_gap_: float
    n_iter_: int
    status_: str
    solver_stats_: dict[str, float | str]

    def _check_params(self) -> None:
        self._check_common_params()
        if self.kernel == "precomputed" or callable(self.kernel):
            raise ValueError(
                "kernel must be 'linear', 'rbf', 'poly' or 'sigmoid' for PUClassifier (no "
                f"precomputed or callable kernel), got {self.kernel!r}"
            )
        if self.prior is None:
            raise ValueError(
                "prior is required: the fraction of positives among the unlabeled rows"
            )
        if isinstance(self.prior, bool) or not isinstance(self.prior, (int, float, np.number)):
            raise InvalidParameterError(
                f"prior must be a real number, got {type(self.prior).__name__}"
            )
        if not 0.0 < real_value(self.prior) < 1.0:
            raise ValueError(f"prior must be in (0, 1), got {shown(self.prior)}")
        _check_positive("lam", self.lam)
        if not isinstance(self.selection, str) or self.selection not in ("full", "paper"):
            raise ValueError(f"selection must be 'full' or 'paper', got {self.selection!r}")

    def _solver_options(self) -> dict[str, Any]:
        # USMO keeps every unlabeled row active: no shrinking option.
        options = super()._solver_options()
        options.pop("shrinking", None)
        return options

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        # y holds PU labels: 1 (labeled positive) or 0 (unlabeled), never more classes.
        tags.classifier_tags.multi_class = False
        return tags

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any) -> Self:
        """Fit the model on labeled positives and unlabeled rows.

        {{rows: Parameters}}
            Training rows (scipy.sparse input is used as CSR, never densified).
        y : array-like of shape (n_samples,)
            1 for a labeled positive, 0 for an unlabeled row; both must occur.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        X_checked, labels = self._validate_xy(X, y)
        # scikit-learn's errors for a continuous or a multiclass y ("Unknown label type",
        # "Only binary classification is supported"), then the PU labels' own.
        check_classification_targets(labels)
        values = np.unique(labels)
        if len(values) > 2:
            raise ValueError(
                "Only binary classification is supported: y must hold 1 (labeled positive) "
                f"and 0 (unlabeled), got {len(values)} values {values[:5]!r}"
            )
        if not np.all(np.isin(values, [0, 1])):
            raise ValueError(
                f"y must hold 1 (labeled positive) and 0 (unlabeled), got values {values[:5]!r}"
            )
        positive = np.flatnonzero(labels == 1)
        unlabeled = np.flatnonzero(labels == 0)
        if len(positive) == 0:
            raise ValueError("y has no labeled positive (y == 1)")
        if len(unlabeled) == 0:
            raise ValueError("y has no unlabeled row (y == 0)")
        kernel_params = self._kernel_spec(X_checked)
        X_solved = solved_rows(X_checked, kernel_params[0])
        solution, c1 = self._solve(
            _core.solve_pu,
            self._training_rows(X_solved, positive),
            self._training_rows(X_solved, unlabeled),
            self._make_kernel(kernel_params),
            float(self.prior),  # type: ignore[arg-type]
            float(self.lam),
            self.selection,
            description="PUClassifier",
        )
        sigma = np.asarray(solution.x)
        check_finite_model(c1, sigma, solution.bias, statuses=[solution.status])
        kept = unlabeled[sigma > 0]
        self._store_kernel(kernel_params)
        self.shape_fit_ = X_checked.shape
        self.classes_ = np.array([0, 1])
        self.support_ = np.concatenate([positive, kept]).astype(np.int32)
        self.support_vectors_ = self._support_rows(X_checked, self.support_)
        self.dual_coef_ = np.concatenate([np.full(len(positive), c1), -sigma[sigma > 0]])[
            np.newaxis, :
        ]
        self.intercept_ = np.array([solution.bias])
        self.sigma_ = sigma
        store_solve_record(self, solution)
        warn_unconverged([solution.status], default_limit=self.max_iter == -1)
        return self

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the decision function ``f`` on the samples in X.

        {{rows: Parameters}}
            Rows to evaluate.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``f(x) = Σ dual_coef_[0, k] K(support_vectors_[k], x) + intercept_[0]``, >= 0 for
            the positive class.
        """
        check_is_fitted(self, "support_")
        X_checked = self._check_predict_input(X)
        coef = self._dual_coef_[0]
        decision: Float64Array = self._decision_values(X_checked, coef[:, None])[:, 0]
        return decision + float(self.intercept_[0])

    def predict(self, X: Any) -> NDArray[np.int64]:
        """Predict the class of the samples in X.

        {{rows: Parameters}}
            Rows to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            1 (positive) where ``f(x) >= 0``, else 0 (negative).
        """
        return np.where(self.decision_function(X) >= 0, 1, 0)
