"""Sparse kernel logistic regression: ``kernelkit.SparseKernelLogisticRegression`` (binary; more
classes through :mod:`kernelkit._klr_multiclass`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Annotations only (``from __future__ import annotations``): no runtime dependency on
    # typing_extensions, which Python 3.10 does not ship; mypy always has it.
    from typing_extensions import Self

import numpy as np
from numpy.typing import NDArray
from sklearn.base import ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import Float64Array, _check_positive
from ._docstrings import shared_docstrings
from ._klr_multiclass import MULTI_CLASS, MulticlassKlr
from ._params import Controls, KernelParams
from ._rbf_shift import solved_rows
from ._single_problem import SingleProblemSvm
from ._validation import (
    check_bool,
    check_class_labels,
    class_index,
    keeps_model_on_failure,
    weights_of_classes,
)

__all__ = ["SparseKernelLogisticRegression"]

SELECTIONS = ("second_order", "first_order")


@dataclass(kw_only=True, eq=False, repr=False)
class _SparseKlrParams:
    """Its own parameters, first in its signature (``_params``)."""

    C: float = 1.0
    lam: float | str = 0.0
    bound_eps: float = 1e-5
    selection: str = "second_order"
    tol: float = 1e-5
    record_history: bool = False
    multi_class: str = "ovr"
    class_weight: Mapping[Any, float] | str | None = None


@dataclass(kw_only=True, eq=False, repr=False)
class _SparseKlrInit(Controls, KernelParams, _SparseKlrParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class SparseKernelLogisticRegression(_SparseKlrInit, ClassifierMixin, SingleProblemSvm):  # type: ignore[misc]
    """Kernel logistic regression with a sparsity-inducing term (S-KLR).

    Solves the dual (22) of Consolo, Manno & Amaldi, "Binary Kernel Logistic Regression: a
    sparsity-inducing formulation and a convergent decomposition training algorithm"::

        min_α ½ Σ_ij y_i y_j α_i α_j K_ij + C Σ_i G(α_i / C) − λ Σ_i α_i
        s.t.  Σ_i α_i y_i = 0,   γ ≤ α_i ≤ C − γ,        G(δ) = δ log δ + (1 − δ) log(1 − δ)

    by SMO with the paper's second-order working set and a safeguarded Newton solve of each
    two-variable subproblem. ``lam = 0`` is ordinary kernel logistic regression (the dual of
    ``½‖w‖² + C Σ log(1 + exp(−y_i (w·φ(x_i) + b)))``); ``lam > 0`` is the paper's sparse model,
    whose primal subtracts a margin ``ρ`` from every point (``ρ = lam`` at the optimum,
    Observation 1) so that well-classified points get ``α_i = γ`` and leave the model. The paper
    suggests ``lam = C / 10``, spelled ``lam="C/10"``.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the logistic loss, > 0.
    lam : float or "C/10", default=0.0
        The sparsity parameter λ >= 0; ``"C/10"`` is the paper's suggestion, ``C / 10``.
    bound_eps : float, default=1e-5
        The box tolerance γ of the paper, in (0, C/2): ``α_i`` lives in ``[γ, C − γ]``, and a
        point with ``α_i = γ`` is not used by the model. Needs
        ``γ · n_majority ≤ (C − γ) · n_minority``.
    selection : {"second_order", "first_order"}, default="second_order"
        The second index of the working pair: the paper's second-order rule or the maximal
        violating pair (Keerthi et al. 2005). Both reach the same solution.
    tol : float, default=1e-5
        Stop when ``max_{I_up} −y_i∇f_i − min_{I_low} −y_i∇f_i ≤ tol`` (the paper's τ), > 0.
    record_history : bool, default=False
        Keep ``f(α^k)`` and ``‖α^k − α^{k−1}‖²`` of every iteration in ``history_``.
    multi_class : {"ovr", "ovo"}, default="ovr"
        With more than two classes: one binary model per class against the rest, whose
        probabilities are normalised (``"ovr"``), or one per pair of classes on their rows,
        whose probabilities are coupled by Wu, Lin & Weng's method 2 (``"ovo"``, as LIBSVM's
        ``probability=True``). Unused for two classes.
    class_weight : dict, "balanced" or None, default=None
        Multiplies ``C`` by ``class_weight[label]`` for the rows of each class (as for
        :class:`SVC`); ``"balanced"`` weighs classes by ``n_samples / (n_classes ·
        count)``. Each row's box becomes ``[bound_eps, C_i − bound_eps]``, ``C_i`` its weighted
        ``C``, which must exceed ``2 · bound_eps``.
    {{kernel}}
        The paper's kernel is ``exp(−‖x − x'‖²/2)`` (``kernel="rbf", gamma=0.5``) on features
        scaled to [0, 1].
    {{degree, gamma, coef0, cache_size}}
    max_iter : int, default=-1
        Iteration limit, >= 1, or -1 for LIBSVM's limit of ``max(10**7, 100 * n)`` (the
        paper stops at 10,000).
    {{verbose, n_jobs, callback, time_limit}}

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples,)
        Every dual variable, in ``[bound_eps, C_i − bound_eps]`` (``C_i`` the row's weighted
        ``C``); 0 for rows of weight 0, which are left out.
    class_weight_ : ndarray of shape (n_classes,)
        The weight of each class (1 without ``class_weight``).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted; for two classes ``classes_[1]`` is the positive class
        (``y = +1``).
    estimators_ : list of SparseKernelLogisticRegression
        Only for more than two classes: the binary models (``"ovr"``: class ``c`` positive
        against the rest, in the order of ``classes_``; ``"ovo"``: classes ``a < b`` with ``b``
        positive, ``(0, 1), (0, 2), …``). The binary attributes below (``alpha_``,
        ``dual_coef_``, ``support_``, ``status_`` …) are then theirs, not the estimator's.
    {{single: coef_}}
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        ``α_i y_i`` of the support vectors, in the model
        ``d(x) = Σ_{i ∈ support} α_i y_i K(x_i, x) + b``.
    {{single: fit_status_}}
    history_ : dict of ndarray
        Only with ``record_history=True``: ``"objective"`` and ``"step_norm2"``, one entry per
        iterate.
    intercept_ : ndarray of shape (1,)
        The bias ``b``: the mean of ``−y_i∇f_i`` over the free variables (the midpoint of the
        KKT interval when none is free).
    kkt_gap_ : float
        ``max_{I_up} −y_i∇f_i − min_{I_low} −y_i∇f_i`` at exit (at most ``tol`` when
        converged).
    {{n_features_in_, feature_names_in_}}
    n_iter_ : int or ndarray of shape (n_models,)
        SMO iterations (for more than two classes, those of each model of ``estimators_``).
    n_support_ : ndarray of shape (2,)
        Support vectors of ``classes_[0]`` and of ``classes_[1]`` (int32).
    {{single: objective_, objective_increases_}}
    rho_ : float
        The margin slack ρ of the primal (equal to ``lam``).
    {{shape_fit_}}
    solver_stats_ : dict or list of dict
        The solver's counters, among them the kernel cache hits, misses, values computed,
        bytes in use and budget, the objective increases, ``kernel_path`` (how kernel values were
        computed) and ``simd`` (the vector instructions used); for more than two classes, those
        of each model of ``estimators_``.
    sparsity_ : float
        ``len(support_) / n_samples``, the paper's ratio of selected points.
    status_ : str
        How the solve ended: ``"converged"``, ``"max_iterations"``, ``"time_limit"``,
        ``"stopped"`` (callback or Ctrl-C), ``"stalled"`` (``tol`` is below what round-off
        resolves), ``"numerical_error"`` or ``"not_convex"``: the stopping rule holds but the
        kernel matrix is not positive semidefinite (``kernel="sigmoid"``, ``"poly"`` with
        ``coef0 < 0``, or a precomputed or callable kernel in which the solver met a pair of
        negative curvature), so the solution is stationary, not a certified optimum; every
        status but ``"converged"`` warns with :class:`~kernelkit.ConvergenceWarning`.
    support_ : ndarray of shape (n_SV,)
        The points used by the model (``α_i > bound_eps``), as indices in the training data
        (int32); prediction uses only them.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The rows of ``support_`` (CSR when ``X`` was sparse); empty, of shape (0, 0), for a
        precomputed kernel.

    References
    ----------
    .. [1] A. Consolo, A. Manno and E. Amaldi, "Binary kernel logistic regression: a
       sparsity-inducing formulation and a convergent decomposition training algorithm",
       preprint.
    .. [2] S. S. Keerthi, K. B. Duan, S. K. Shevade and A. N. Poo, "A fast dual algorithm for
       kernel logistic regression", Machine Learning 61, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import MinMaxScaler
    >>> from kernelkit import SparseKernelLogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = MinMaxScaler().fit_transform(X)
    >>> model = SparseKernelLogisticRegression(C=100.0, lam="C/10", gamma=0.5).fit(X, y)
    >>> model.status_
    'converged'
    >>> float(model.score(X, y)) > 0.95
    True
    >>> bool(np.allclose(model.predict_proba(X[:5]).sum(axis=1), 1.0))
    True

    The sparse model uses fewer than 60 % of the rows; plain kernel logistic regression
    (``lam=0``) uses almost all of them:

    >>> bool(model.sparsity_ < 0.6)
    True
    >>> dense = SparseKernelLogisticRegression(C=100.0, lam=0.0, gamma=0.5).fit(X, y)
    >>> bool(dense.sparsity_ > 0.9)
    True
    """

    _estimator_type = "classifier"

    def _check_params(self) -> None:
        self._check_common_params()
        c = _check_positive("C", self.C)
        self._lam_value()
        check_bool("record_history", self.record_history)
        bound = _check_positive("bound_eps", self.bound_eps)
        if bound >= c / 2:
            raise ValueError(f"bound_eps must be < C / 2 = {c / 2}, got {self.bound_eps!r}")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {self.selection!r}")
        if not isinstance(self.multi_class, str) or self.multi_class not in MULTI_CLASS:
            raise ValueError(f"multi_class must be one of {MULTI_CLASS}, got {self.multi_class!r}")

    def _lam_value(self) -> float:
        """``lam`` as a number: ``"C/10"`` is the paper's suggestion ``C / 10``."""
        if isinstance(self.lam, str):
            if self.lam.replace(" ", "") != "C/10":
                raise ValueError(f"lam must be a float >= 0 or 'C/10', got {self.lam!r}")
            return _check_positive("C", self.C) / 10.0
        return _check_positive("lam", self.lam, allow_zero=True)

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit the model (binary, or several binary models for more classes: ``multi_class``).

        {{fit: Parameters}}
        y : array-like of shape (n_samples,)
            Labels of at least two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (finite, >= 0): the loss of row ``i`` is weighted by
            ``C · class_weight[y_i] · sample_weight_i``. Rows of weight 0 are left out.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        X_checked, labels = self._validate_xy(X, y)
        check_class_labels(labels)
        classes, encoded = class_index(labels)
        if len(classes) == 1:
            raise ValueError(
                f"y has 1 class ({classes[0]!r}): SparseKernelLogisticRegression needs 2 classes"
            )
        self._check_precomputed_fit(X_checked)
        weights, _ = self._positive_weights(sample_weight, X_checked)
        # A class whose weights are all 0 would leave a solve of one class (the core then
        # said only "invalid y: both classes must be present").
        unweighted = classes[np.bincount(encoded, weights=weights, minlength=len(classes)) == 0]
        if len(unweighted):
            named = ", ".join(
                repr(c.item() if isinstance(c, np.generic) else c) for c in unweighted
            )
            raise ValueError(
                f"{'class' if len(unweighted) == 1 else 'classes'} {named} "
                f"{'has' if len(unweighted) == 1 else 'have'} zero total sample_weight: "
                "SparseKernelLogisticRegression needs a sample of positive weight in every class"
            )
        class_weight = weights_of_classes(self.class_weight, classes, labels)
        row_weights = weights * class_weight[encoded]
        if len(classes) > 2:
            return self._fit_multiclass(X_checked, classes, encoded, row_weights, class_weight)
        self.__dict__.pop("estimators_", None)
        self.__dict__.pop("_multiclass", None)
        kept = np.flatnonzero(row_weights > 0)
        signs = np.where(encoded[kept] == 1, 1.0, -1.0)
        kernel = self._kernel_spec(X_checked)
        with_history = bool(self.record_history)
        # Unit weights take the unweighted solver (its start is bitwise the historical one).
        unit = bool(np.all(row_weights[kept] == 1.0))
        solution, history = self._solve(
            _core.solve_klr,
            self._training_rows(solved_rows(X_checked, kernel[0]), kept),
            signs,
            self._make_kernel(kernel, X_checked),
            float(self.C),
            self._lam_value(),
            float(self.bound_eps),
            self.selection,
            with_history,
            None if unit else np.ascontiguousarray(row_weights[kept]),
            description=type(self).__name__,
        )
        alpha = np.asarray(solution.x)
        coef = np.where(alpha > float(self.bound_eps), alpha * signs, 0.0)
        self.classes_ = classes
        self.class_weight_ = class_weight
        self.alpha_ = np.zeros(X_checked.shape[0])
        self.alpha_[kept] = alpha
        self._store_solution(X_checked, kept, coef, solution, kernel)
        self.sparsity_ = float(len(self.support_) / len(alpha))
        self.rho_ = self._lam_value()
        self.n_support_ = np.array(
            [np.sum(encoded[self.support_] == 0), np.sum(encoded[self.support_] == 1)],
            dtype=np.int32,
        )
        if history is not None:
            self.history_ = {key: np.asarray(value) for key, value in history.items()}
        return self

    def _fit_multiclass(
        self,
        X: Any,
        classes: NDArray[Any],
        encoded: NDArray[np.intp],
        row_weights: Float64Array,
        class_weight: Float64Array,
    ) -> Self:
        """More than two classes: one binary model per subproblem of ``multi_class``
        (:mod:`kernelkit._klr_multiclass`), each with ``gamma`` resolved on every row and the
        rows' weights (sample times class weight) passed as sample weights."""
        kind, gamma, _, _ = self._kernel_spec(X)
        template = clone(self).set_params(class_weight=None)
        if kind not in ("precomputed", "callable"):
            template.set_params(gamma=gamma)
        precomputed = self.kernel == "precomputed"
        combined = MulticlassKlr(str(self.multi_class), len(classes))
        # A callable's binary models take the rows as given, and call it on them.
        rows = self._fit_X if callable(self.kernel) else X
        combined.fit(template, rows, encoded, precomputed, row_weights)
        # The binary attributes of an earlier fit describe another model: dropped.
        kept = ("n_features_in_", "feature_names_in_")
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            if name not in kept:
                delattr(self, name)
        self._multiclass = combined
        self.classes_ = classes
        self.class_weight_ = class_weight
        self.estimators_ = combined.estimators
        self.shape_fit_ = self._fitted_shape(X)
        # One count per binary solve, as scikit-learn's LogisticRegression gives for "ovr" (the
        # base class declares the binary case's int).
        iterations = np.array([model.n_iter_ for model in combined.estimators])
        self.n_iter_ = iterations  # type: ignore[assignment]
        # One dict per binary solve, as the one-vs-one classifiers give one per pair.
        stats = [model.solver_stats_ for model in combined.estimators]
        self.solver_stats_ = stats  # type: ignore[assignment]
        return self

    def _multiclass_input(self, X: Any) -> tuple[MulticlassKlr, Any] | None:
        """The multiclass model and the checked X, or None for a binary model."""
        combined: MulticlassKlr | None = getattr(self, "_multiclass", None)
        if combined is None:
            return None
        check_is_fitted(self, "estimators_")
        return combined, self._validate_x(X, reset=False)

    def decision_function(self, X: Any) -> Float64Array:
        """Evaluate the decision function on the samples in X.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``d(x) = Σ_{i ∈ support} α_i y_i K(x_i, x) + b``; positive means ``classes_[1]``.
            For more than two classes, one column per class whose largest entry is the
            predicted class: each class's ``d`` against the rest (``multi_class="ovr"``), or
            the logarithms of the coupled probabilities (``"ovo"``).
        """
        multiclass = self._multiclass_input(X)
        if multiclass is not None:
            combined, X_checked = multiclass
            return combined.decisions(X_checked, self.kernel == "precomputed")
        return self._one_decision_function(X)

    def predict_proba(self, X: Any) -> Float64Array:
        """Estimate the probability of each class for the samples in X.

        The paper leaves ρ out of prediction; for ``lam > 0`` the probabilities grow more
        extreme with λ (‖w‖ grows) and are not calibrated.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``[σ(−d(x)), σ(d(x))]`` with the logistic function σ: the model's probabilities
            of ``classes_[0]`` and ``classes_[1]``. For more than two classes, the binary
            models' probabilities normalised (``multi_class="ovr"``) or coupled by Wu, Lin &
            Weng's method 2 (``"ovo"``); each row sums to one.
        """
        multiclass = self._multiclass_input(X)
        if multiclass is not None:
            combined, X_checked = multiclass
            return combined.probabilities(X_checked, self.kernel == "precomputed")
        decision = self.decision_function(X)
        positive = 0.5 * (1.0 + np.tanh(0.5 * decision))
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X: Any) -> NDArray[Any]:
        """Predict the class of the samples in X.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples,)
            The class with the larger probability: ``classes_[1]`` where ``d(x) > 0``, else
            ``classes_[0]`` (for more classes, the class of the largest probability).
        """
        multiclass = self._multiclass_input(X)
        if multiclass is not None:
            combined, X_checked = multiclass
            scores = combined.decisions(X_checked, self.kernel == "precomputed")
            chosen: NDArray[Any] = self.classes_[np.argmax(scores, axis=1)]
            return chosen
        check_is_fitted(self, "support_")
        decision = self.decision_function(X)
        labels: NDArray[Any] = self.classes_[(decision > 0).astype(int)]
        return labels
