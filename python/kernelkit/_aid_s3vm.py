"""``AIDSemiSupervisedClassifier``: the linear S3VM by AID, a heuristic (see
:mod:`kernelkit.aid`)."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._aid_base import (
    AidParams,
    _AidBase,
    _BinaryClassifierMixin,
    _check_binary,
    _fit_on_dask,
    _inner_solver,
    _is_dask,
    _run,
)
from ._base import Float64Array, _check_positive
from ._docstrings import shared_docstrings
from ._params import Controls
from ._validation import (
    check_linear_kernel_range,
    check_not_overflowing,
    keeps_model_on_failure,
)
from .solvers import Smo

__all__ = ["AIDSemiSupervisedClassifier"]

#: The values of ``balance``.
_BALANCES = (None, "constraint", "cost", "cost_as_printed")


@dataclass(kw_only=True, eq=False, repr=False)
class _AIDS3vmParams:
    """Its own parameters, first in its signature (``_params``)."""

    C: float = field(default=1.0, kw_only=False)
    C_unlabeled: float = 0.1
    exact_max_clusters: int = 12
    balance: str | None = None
    solver: Smo | None = None


@dataclass(kw_only=True, eq=False, repr=False)
class _AIDS3vmInit(Controls, AidParams, _AIDS3vmParams):
    """Its ``__init__``: its own parameters, then the groups'."""

    max_iter: int = 5


@shared_docstrings
class AIDSemiSupervisedClassifier(_AIDS3vmInit, _BinaryClassifierMixin, _AidBase):
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
    exact_max_clusters : int, default=12
        Branch and bound up to this many unlabeled clusters, local search beyond; an int in
        [0, 30]. The default partition of 1,500 rows (the paper's data size) has 14–15
        unlabeled clusters, beyond the default: raise it (up to ``2^k`` SVM solves per
        aggregated problem) or lower ``n_clusters`` for an exact inner solve.
    balance : {"constraint", "cost", "cost_as_printed"} or None, default=None
        The paper's options for unbalanced data (§4.3), which it found to change results
        markedly. ``"constraint"``: the mean decision value over the unlabeled rows equals the
        mean label (±1) of the labeled rows, ``Σ_U f_i/|U| = Σ_L y_i/|L|``, so the unlabeled
        rows are split between the classes in about the labeled rows' proportion.
        ``"cost"``: the labeled rows of the minority class weigh ``C`` times the class ratio
        (``C · max(1, n_majority/n_minority)``), the paper's stated intent. ``"cost_as_printed"``:
        the paper's formula as printed, which up-weights the majority class instead (kept for
        reproducing its tables). ``None``: neither. With a cost, ``objective_`` and the bounds
        use the weighted ``C``. Not available for Dask input yet.
    solver : kernelkit.solvers.Smo or None, default=None
        The inner SVM solver (``None``: ``Smo(tol=1e-6)``); its ``tol``, ``max_iter``,
        ``shrinking`` and ``cache_size`` are used, while ``n_jobs`` and ``time_limit`` are the
        estimator's.
    tol : float, default=1e-4
        Stop when ``(upper − lower)/upper ≤ tol``, > 0 (``status_ == "gap"``): a valid
        certificate, but ``lower_bound_`` (the labeled-only SVM) is weak, so this rarely
        triggers.
    n_clusters : int or None, default=None
        Initial number of clusters, between 1 and n_samples. ``None``:
        ``max(10, ⌈0.01 n⌉)`` (at most n_samples).
    init : {"kmeans", "random"} or array-like of int, default="kmeans"
        ``"kmeans"``: k-means on the features within each labeled class and within the
        unlabeled rows; ``"random"``: a random partition; an array of shape (n_samples,): each
        row's cluster id (``n_clusters`` is then ignored).
    random_state : int, RandomState instance or None, default=None
        Seed of k-means and of the random partition; None draws a new seed at every fit.
    max_iter : int, default=5
        Aggregated solves, >= 1 (the paper's AID1 / AID5 are ``max_iter=1`` / ``5``); reaching
        it is the normal end of a fit and does not warn.
    verbose : bool or int, default=False
        When true, print one progress line per aggregated solve on stderr.
    n_jobs : int or None, default=None
        Threads of the Rust core; ``None`` or -1 use every core.
    callback : callable or None, default=None
        Called after every aggregated solve with the dict of its ``history_`` entry; a true
        return value stops the fit (``status_ == "stopped"``).
    time_limit : float or None, default=None
        Wall-clock limit in seconds, > 0, or None: checked between aggregated solves and
        after each SVM of an aggregated solve's label search, which then ends with the best
        point found (``status_ == "time_limit"``).

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
    n_svm_solves_ : int
        Weighted SVMs solved over the fit: one per node of each aggregated solve's label
        search (``exact_max_clusters``), so it says how much the branch and bound pruned.
    labels_ : ndarray of shape (n_samples,)
        The final cluster of each training row (int64).
    init_time_ : float
        Seconds spent on the initial clusters (``history_`` times start after them).
    history_ : list of dict
        One entry per aggregated solve, with the keys of :class:`AIDRegressor`'s
        ``history_``.
    {{n_features_in_, feature_names_in_}}

    References
    ----------
    .. [1] Y. W. Park and D. Klabjan, "An aggregate and iterative disaggregate algorithm with
       proven optimality in machine learning", arXiv preprint, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import AIDSemiSupervisedClassifier
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, size=200)
    >>> X = rng.normal(size=(200, 2)) + np.where(truth[:, None] == 1, [2.0, 0.5], [-2.0, -0.5])

    Six labeled rows; ``-1`` marks the 194 unlabeled ones:

    >>> y = np.full(200, -1)
    >>> y[:6] = truth[:6]
    >>> model = AIDSemiSupervisedClassifier(C=1.0, C_unlabeled=0.1, random_state=0).fit(X, y)
    >>> model.classes_
    array([0, 1])
    >>> model.predict([[-3.0, 0.0], [3.0, 0.0]])
    array([0, 1])
    >>> float(np.mean(model.transduction_[6:] == truth[6:])) > 0.9  # the unlabeled rows' labels
    True
    """

    classes_: NDArray[Any]
    coef_: Float64Array
    intercept_: Float64Array
    transduction_: NDArray[Any]
    aggregated_objective_: float

    def _check_params(self) -> None:
        _check_positive("C", self.C)
        _check_positive("C_unlabeled", self.C_unlabeled, allow_zero=True)
        exact = self.exact_max_clusters
        if isinstance(exact, bool) or not isinstance(exact, numbers.Integral) or exact < 0:
            raise ValueError(f"exact_max_clusters must be an int >= 0, got {exact!r}")
        if exact > 30:
            raise ValueError(f"exact_max_clusters = {exact} would mean up to 2^{exact} solves")
        if self.balance not in _BALANCES:
            raise ValueError(
                "balance must be None, 'constraint', 'cost' or 'cost_as_printed', "
                f"got {self.balance!r}"
            )
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
        check_linear_kernel_range(X, "AIDSemiSupervisedClassifier's linear kernel")
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
            self.balance,
            init,
            k,
            options=options,
        )
        self.coef_ = np.asarray(result["coef"], dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(result["bias"])])
        self.aggregated_objective_ = float(result["aggregated_objective"])
        self.n_svm_solves_ = int(result["svm_solves"])
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
