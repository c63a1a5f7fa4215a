"""C-Support Vector Classification: ``kernelkit.SVC``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Annotations only (``from __future__ import annotations``): no runtime dependency on
    # typing_extensions, which Python 3.10 does not ship; mypy always has it.
    from typing_extensions import Self

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import ClassifierMixin

from . import _core
from ._base import (
    Float64Array,
    KernelSvmMixin,
    _check_positive,
    check_finite_model,
    read_only,
)
from ._callable import kernel_block, take_rows
from ._docstrings import shared_docstrings
from ._one_vs_one import OneVsOneModel
from ._pair_fit import PairFit, PairProblem
from ._params import ClassWeightParams, Controls, KernelParams, OneVsOneParams, SmoParams
from ._probability import (
    ProbabilityMixin,
    matching_default,
)
from ._sparse import to_core_rows
from ._threads import resolve_n_jobs
from ._validation import (
    check_bool,
    check_class_labels,
    check_random_state_param,
    class_index,
    keeps_model_on_failure,
    weights_of_classes,
)
from ._warm_start import repair_onto
from ._warn import warn_from_caller, warn_unconverged

__all__ = ["SVC", "BaseSVC"]


@dataclass(kw_only=True, eq=False, repr=False)
class _SVCParams:
    """Its own parameters, first in its signature (``_params``)."""

    C: float = 1.0


@dataclass(kw_only=True, eq=False, repr=False)
class _SVCInit(Controls, OneVsOneParams, SmoParams, KernelParams, ClassWeightParams, _SVCParams):
    """Its ``__init__``: its own parameters, then the groups'."""


@shared_docstrings
class BaseSVC(ProbabilityMixin, OneVsOneModel, ClassifierMixin, KernelSvmMixin):  # type: ignore[misc]
    """The fit and prediction the one-vs-one classifiers share (:class:`SVC`, ``NuSVC``,
    ``FrankWolfeSVC``), with the C-SVC dual by default, which the others override; their
    parameters come from their own ``__init__``. As scikit-learn's ``BaseSVC``: a ``NuSVC`` is
    not an ``SVC`` (``isinstance`` tells the estimators apart)."""

    C: float

    classes_: NDArray[Any]
    #: Whether identical rows with the same label are solved as one dual variable (C-SVC only).
    _merges_repeated_rows = True

    def _check_params(self) -> None:
        _check_positive("C", self.C)
        self._check_shape_params()

    def _check_shape_params(self) -> None:
        self._check_common_params()
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(
                "decision_function_shape must be 'ovr' or 'ovo', "
                f"got {self.decision_function_shape!r}"
            )
        # break_ties with "ovo" is refused by predict, as scikit-learn's: the fit, its
        # decision_function and predict_proba stand.
        check_bool("break_ties", self.break_ties)
        check_random_state_param(self.random_state)

    @keeps_model_on_failure
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit the model: one dual problem per pair of classes.

        {{fit: Parameters}}
        y : array-like of shape (n_samples,)
            Class labels, at least two distinct values.
        sample_weight : array-like of shape (n_samples,), default=None
            Finite non-negative weights (1 for None) that scale each sample's upper bound:
            ``C · class_weight[y_i] · sample_weight_i`` for :class:`SVC`, ``sample_weight_i``
            for :class:`NuSVC`. Samples of weight 0 are left out, and so is a class with
            no sample of positive weight (from ``classes_`` too, with a warning: a
            ``BaggingClassifier``'s bootstrap may miss a rare class); two classes must remain.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        self._check_params()
        probability = self._check_probability()
        warm = check_bool("warm_start", getattr(self, "warm_start", False))
        # float32 rows of a built-in kernel are read in place (``DenseRowFacts``); every other
        # use reads float64.
        reads_rows = isinstance(self.kernel, str) and self.kernel != "precomputed"
        X_checked, y_array = self._validate_xy(X, y, keep_float32=reads_rows)
        check_class_labels(y_array)
        classes, y_index = class_index(y_array)
        if len(classes) < 2:
            raise ValueError(
                f"The number of classes has to be greater than one; got {len(classes)} class"
            )
        self._check_precomputed_fit(X_checked)
        weights, _ = self._positive_weights(sample_weight, X_checked)
        class_weight = weights_of_classes(self.class_weight, classes, y_array)
        kernel_params = self._kernel_spec(X_checked)
        kernel = self._make_kernel(kernel_params, X_checked)

        classes, class_weight, y_index = _without_unweighted_classes(
            classes, class_weight, y_index, weights
        )
        run = PairFit(
            self,
            X_checked,
            kernel_params,
            kernel,
            classes,
            y_index,
            weights,
            class_weight,
            reads_rows=reads_rows,
            warm=warm,
        )
        results = run.solve_pairs(type(self)._solve_pair is BaseSVC._solve_pair)
        prob_a, prob_b, stopped_folds = (
            run.fit_sigmoids() if probability else (np.empty(0), np.empty(0), [])
        )
        pair_coefs = [(index, signs * alpha) for index, signs, alpha, _ in results]
        solutions = [solution for _, _, _, solution in results]
        biases = [s.bias for s in solutions]
        statuses = [s.status for s in solutions]
        check_finite_model(biases, *(coef for _, coef in pair_coefs), statuses=statuses)
        objectives = [s.objective for s in solutions]
        gaps = [s.gap for s in solutions]
        iterations = [s.iterations for s in solutions]
        increases = [s.stats["objective_increases"] for s in solutions]
        solver_stats = [dict(s.stats) for s in solutions]
        for stats, solution in zip(solver_stats, solutions, strict=True):
            # Positions of the dual problem solved: fewer than the pair's rows when repeated
            # rows were merged.
            stats["dual_variables"] = len(np.asarray(solution.x))

        # Every solve has returned: only now replace the model, so that a fit that fails in a
        # solve (an exception from the callback, Ctrl-C) cannot pair a previous model's support
        # vectors with this fit's kernel.
        self.classes_ = classes
        # The vote's tie order: sorted (a model loaded from a LIBSVM file may have had another).
        self._vote_order = None
        self.class_weight_ = class_weight
        self.shape_fit_ = self._fitted_shape(X_checked)
        self._store_kernel(kernel_params)
        self._store_libsvm_layout(y_index, pair_coefs, np.asarray(biases), X_checked)
        self._probA, self._probB = prob_a, prob_b
        self._warm_duals = run.warm_duals(results) if warm else None
        self._warm_solves = run.kept_solves()
        self.objective_ = np.asarray(objectives)
        self.kkt_gap_ = np.asarray(gaps)
        self.n_iter_ = np.asarray(iterations, dtype=np.int32)
        self.objective_increases_ = np.asarray(increases, dtype=np.int64)
        self.status_ = statuses
        self.solver_stats_ = solver_stats
        # A fold that stopped early (warned by _fit_sigmoids) leaves the model's own pairs
        # converged but its probabilities fitted to a last iterate.
        converged = all(s == "converged" for s in statuses) and not stopped_folds
        self.fit_status_ = 0 if converged else 1
        warn_unconverged(statuses, default_limit=self.max_iter == -1)
        return self

    def _fold_solve_options(self) -> dict[str, Any]:
        """Keywords of :meth:`_solve_pair` for a probability fold's solve (none for C-SVC)."""
        return {}

    def _solve_pair(
        self, rows: Any, pair: PairProblem, kernel: _core.Kernel, **options: Any
    ) -> _core.Solution:
        """The C-SVC dual of the pair's ``rows``: upper bounds ``C · class_weight ·
        sample_weight``, started from ``options["alpha0"]`` (feasible) when given."""
        upper = self._upper(pair.rows_weights, pair.rows_class_weights)
        alpha0 = options.pop("alpha0", None)
        previous = options.pop("previous", None)
        return self._solve(
            _core.solve_c_svc, rows, pair.rows_signs, upper, kernel, alpha0, previous, **options
        )

    # -- warm start (``_warm_start``) --------------------------------------------------------

    def _previous_duals(self, n_samples: int, classes: NDArray[Any]) -> list[Float64Array] | None:
        """The duals a warm fit starts from: the previous fit's, when it had ``warm_start``,
        as many rows and the same classes (else None: a cold start)."""
        stored = getattr(self, "_warm_duals", None)
        if stored is None:
            return None
        n, previous_classes, duals = stored
        if n != n_samples or not np.array_equal(previous_classes, classes):
            return None
        return [dual.dense() for dual in duals]

    def _full_dual(
        self,
        weights: Float64Array,
        result: tuple[NDArray[np.intp], Float64Array, Float64Array, Any],
    ) -> Float64Array:
        """One pair's dual over every training row (0 off the pair), as warm starts read it
        (``weights``: every row's sample weight)."""
        index, _, alpha, _ = result
        full = np.zeros(len(weights))
        full[index] = alpha
        return full

    def _warm_pair_start(self, problem: PairProblem, start: Float64Array) -> Float64Array:
        """The previous dual of a pair's positions moved into this fit's C-SVC
        constraints: ``0 ≤ α ≤ C · class_weight · sample_weight``, ``yᵀα = 0``."""
        upper = self._upper(problem.sample_weights, problem.class_weights)
        return repair_onto(start, upper, 0.0, problem.signs)

    def _kept_solve(
        self, problem: PairProblem, solution: _core.Solution
    ) -> tuple[Float64Array, Float64Array] | None:
        """A pair's solve as a later warm fit passes it back to the core (``previous``): its
        solution and gradient, or None without a gradient."""
        if solution.gradient is None:
            return None
        return np.asarray(solution.x), np.asarray(solution.gradient)

    def _start_from_solve(self, problem: PairProblem, x: Float64Array) -> Float64Array:
        """The start of a pair's dual variables (over its solved rows) from the kept solution
        ``x`` of the previous fit's solve of them, moved into this fit's constraints."""
        upper = self._upper(problem.rows_weights, problem.rows_class_weights)
        return repair_onto(x, upper, 0.0, problem.rows_signs)

    def _upper(self, weights: Float64Array, class_weights: Float64Array) -> Float64Array:
        """The C-SVC upper bounds ``C · class_weight · sample_weight``."""
        upper: Float64Array = float(self.C) * weights * class_weights
        return upper

    def _linear_coef(self) -> Any:
        """One-vs-one ``w`` per class pair (a, b), scikit-learn's order: class a's support
        vectors weighted by row ``b − 1`` of ``dual_coef_``, class b's by row ``a``."""
        if len(self.classes_) == 2:
            return super()._linear_coef()
        starts = np.concatenate([[0], np.cumsum(self.n_support_)])
        vectors = self.support_vectors_
        rows = []
        for a in range(len(self.classes_)):
            for b in range(a + 1, len(self.classes_)):
                in_a, in_b = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
                rows.append(
                    vectors[in_a].T @ self._dual_coef_[b - 1, in_a]
                    + vectors[in_b].T @ self._dual_coef_[a, in_b]
                )
        coef = np.vstack([np.asarray(row).ravel() for row in rows])
        return read_only(sp.csr_matrix(coef) if sp.issparse(vectors) else coef)

    def _training_kernel_product(
        self,
        X: Any,
        rows: NDArray[np.intp],
        support: NDArray[np.intp],
        kernel: _core.Kernel,
        coef: Float64Array,
        n_jobs: int | None,
    ) -> Float64Array:
        """``K(X[rows], X[support]) @ coef`` over training rows X (the Gram matrix itself for a
        precomputed kernel, or a callable's computed whole): the decision values of a model
        fitted on some training rows at others (the folds of ``probability=True``)."""
        if self.kernel == "precomputed" or self._solves_gram():
            values: Float64Array = X[np.ix_(rows, support)] @ coef
            return values
        if callable(self.kernel):
            block = kernel_block(
                self.kernel, take_rows(self._fit_X, rows), take_rows(self._fit_X, support)
            )
            values = block @ coef
            return values

        def rows_of(index: NDArray[np.intp]) -> Any:
            if sp.issparse(X):
                return to_core_rows(X[index])
            return np.ascontiguousarray(X[index], dtype=np.float64)

        column: Float64Array = _core.kernel_matrix_product(
            rows_of(rows),
            rows_of(support),
            kernel,
            np.ascontiguousarray(coef[:, None]),
            n_jobs=resolve_n_jobs(self.n_jobs) if n_jobs is None else n_jobs,
        )[:, 0]
        return column


@shared_docstrings
class SVC(_SVCInit, BaseSVC):
    """C-Support Vector Classification, solved by kernelkit's LIBSVM-faithful SMO engine.

    A drop-in replacement for :class:`sklearn.svm.SVC` (same parameters, defaults and fitted
    attributes): binary problems are one dual problem, multiclass
    problems are trained one-vs-one like LIBSVM. The dual problem of each pair is

    ``min ½ αᵀQα − eᵀα  s.t.  yᵀα = 0,  0 ≤ α_i ≤ C · class_weight[y_i] · sample_weight_i``

    with ``Q_ij = y_i y_j K(x_i, x_j)``, solved by SMO with the second-order working set
    selection of Fan, Chen & Lin (2005) and LIBSVM's shrinking (Chang & Lin, 2011): the
    iterates, and so the model, are LIBSVM's, except that many repeated rows are merged first
    (see Notes).

    Parameters
    ----------
    C : float, default=1.0
        Regularisation parameter, > 0: the upper bound of every dual variable (before the class
        and sample weights). Smaller values mean a smoother decision function.
    {{probability}}
    class_weight : dict, "balanced" or None, default=None
        Multiplies ``C`` by ``class_weight[label]`` for the samples of each class; ``"balanced"``
        uses ``n_samples / (n_classes · np.bincount(y))``; ``None`` gives every class weight 1.
    {{kernel, degree, gamma, coef0, cache_size, tol, shrinking, engine, warm_start}}
        Meant for a refit on the same rows with another ``C``, ``class_weight`` or
        ``sample_weight``.
    {{decision_function_shape, break_ties, random_state, max_iter, verbose}}
        The pairs of a multiclass problem are then solved one after the other.
    {{n_jobs}}
        The pairs of a multiclass problem are solved concurrently, each with a share of the
        threads.
    {{callback, time_limit}}

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        The weight of each class, multiplying ``C`` for its samples.
    dual_coef_ : ndarray or sparse matrix of shape (n_classes - 1, n_SV)
        The coefficients ``y_i α_i`` of the support vectors in the decision functions, in
        LIBSVM's one-vs-one layout (signs flipped for two classes, so that a positive decision
        means ``classes_[1]``, as in scikit-learn).
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The constant of each pairwise decision function (sign flipped for two classes).
    objective_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The dual objective ``½αᵀQα − eᵀα`` of each pair at exit.
    {{pairs: *}}
    {{n_features_in_, feature_names_in_, shape_fit_, support_vectors_}}

    See Also
    --------
    NuSVC : The ν-parametrised classifier.
    FrankWolfeSVC : The L2-SVM trained as a minimum enclosing ball.

    Notes
    -----
    Identical training rows with the same label (categorical or binary data repeats rows often)
    enter the dual only through the sum of their coefficients. When a pair has at least 1,000
    rows and at most 95 % of them remain distinct (row, label) groups, each group is solved as
    one dual variable bounded by the sum of its members' bounds, and its coefficient is then
    given to the members in row order, each up to its own bound. This is the same dual problem
    at a fraction of the size: the solution satisfies the same stopping rule ``m(α) − M(α) <
    tol``, but its path is no longer LIBSVM's, so the model agrees with scikit-learn's to the
    tolerance instead of bit for bit (on a9a the dual objectives differ by 3e-10 relative), and
    the copies of a support vector that LIBSVM would spread a coefficient over are fewer.

    References
    ----------
    .. [1] C.-C. Chang and C.-J. Lin, "LIBSVM: A library for support vector machines", ACM
       Transactions on Intelligent Systems and Technology 2(3), 2011.
    .. [2] R.-E. Fan, P.-H. Chen and C.-J. Lin, "Working set selection using second order
       information for training support vector machines", JMLR 6, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import svm
    >>> from sklearn.datasets import load_iris
    >>> from kernelkit import SVC
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SVC(C=1.0).fit(X, y)
    >>> model.predict(X[[0, 50, 100]])
    array([0, 1, 2])
    >>> round(float(model.score(X, y)), 3)
    0.973
    >>> model.n_support_.tolist()
    [7, 29, 24]

    The model is LIBSVM's, as scikit-learn fits it:

    >>> reference = svm.SVC(C=1.0).fit(X, y)
    >>> bool(np.array_equal(model.support_, reference.support_))
    True
    >>> bool((model.predict(X) == reference.predict(X)).all())
    True
    """


SVC.__doc__ = matching_default(SVC.__doc__)


def _without_unweighted_classes(
    classes: NDArray[Any],
    class_weight: Float64Array,
    y_index: NDArray[np.intp],
    weights: Float64Array,
) -> tuple[NDArray[Any], Float64Array, NDArray[np.intp]]:
    """The classes with a sample of positive weight, their class weights (computed over every
    class, as scikit-learn's are) and the labels' indices among them (-1 for the others' rows,
    whose weights are 0). scikit-learn keeps such a class in ``classes_`` while its LIBSVM
    model leaves it out (``decision_function`` then fails); here the model is the other
    classes', as each of ``BaggingClassifier``'s and ``cross_val_predict``'s estimators may be."""
    present = np.bincount(y_index[weights > 0], minlength=len(classes)) > 0
    if present.all():
        return classes, class_weight, y_index
    absent = classes[~present]
    labels = ("class " if len(absent) == 1 else "classes ") + ", ".join(
        repr(c.item() if isinstance(c, np.generic) else c) for c in absent
    )
    if np.count_nonzero(present) < 2:
        raise ValueError(
            f"only one class has a sample of positive sample_weight (no sample of {labels} has): "
            "the number of classes has to be greater than one"
        )
    warn_from_caller(
        f"no sample of {labels} has a positive sample_weight: the model is fitted to the other "
        "classes, and classes_ leaves them out",
        UserWarning,
    )
    keep = np.flatnonzero(present)
    position = np.full(len(classes), -1, dtype=np.intp)
    position[keep] = np.arange(len(keep))
    return classes[keep], class_weight[keep], position[y_index]
