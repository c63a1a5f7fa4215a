"""Shared machinery of the SVM estimators: parameter checks, kernels, solving, prediction."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import (
    _check_sample_weight,
    _check_y,
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from . import _callable, _core
from ._callable import IndexedRowsKernel, kernel_block, n_rows, row_numbers, take_rows
from ._progress import progress_callback, report_solution
from ._rbf_shift import against_support
from ._sparse import to_core_rows
from ._threads import available_cores, resolve_n_jobs
from ._validation import (
    check_bool,
    check_sparse_structure,
    core_max_iter,
    core_time_limit,
    mean_distance_gamma,
    plain_rows,
    plain_target,
    real_value,
    scale_gamma,
    shown,
)
from .exceptions import InvalidParameterError

T = TypeVar("T")
J = TypeVar("J")

KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
Float64Array = NDArray[np.float64]
#: A fitted kernel as plain values (kind, gamma, degree, coef0): picklable, unlike ``_core.Kernel``.
KernelParams = tuple[str, float, int, float]


#: Rows of test data whose kernel values against the support vectors are held at once, for a
#: precomputed or callable kernel (the built-in kernels never hold them: ``_decision_values``).
PREDICT_BLOCK_ROWS = 4096


#: Seconds between two looks at a signal while waiting for a pair solved on another thread.
SIGNAL_POLL_S = 0.02


def _wait_interruptibly(future: Future[T]) -> T:
    """``future.result()``, waited for in slices of :data:`SIGNAL_POLL_S`: Python runs signal
    handlers between slices, so a Ctrl-C sent to the process from another thread (or by
    ``_thread.interrupt_main``) raises at once, where a wait without a timeout would have
    outlasted the whole fit."""
    while True:
        try:
            return future.result(timeout=SIGNAL_POLL_S)
        except FutureTimeout:
            continue


def read_only(coef: Any) -> Any:
    """``coef`` (an array, or a sparse matrix's values) made read-only, as scikit-learn's
    ``coef_``: it is computed afresh at each access, so a write to it would be lost without a
    word."""
    (coef.data if sp.issparse(coef) else coef).flags.writeable = False
    return coef


def _check_positive(name: str, value: object, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {type(value).__name__}")
    number = real_value(value)
    if not np.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {shown(value)}")
    return number


def _check_nu(nu: object) -> float:
    """ν must be a real number in (0, 1] (the ν-SVMs and ``ConstrainedSVR``)."""
    if isinstance(nu, bool) or not isinstance(nu, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(f"nu must be a real number, got {type(nu).__name__}")
    number = real_value(nu)
    if not 0.0 < number <= 1.0:
        raise ValueError(f"nu must be in (0, 1], got {shown(nu)}")
    return number


#: The largest polynomial degree: the core's is a 32-bit unsigned integer.
MAX_DEGREE = 2**32 - 1


#: The kernels whose values depend on ``gamma``: only these refuse ``gamma=0``.
GAMMA_KERNELS = ("rbf", "poly", "sigmoid")


def _check_kernel_parameters(
    gamma: Any,
    degree: Any,
    coef0: Any,
    rules: tuple[str, ...] = ("scale", "auto"),
    kernel: Any = "rbf",
) -> None:
    """The built-in kernels' parameters: ``degree`` an int in ``[0, MAX_DEGREE]``, ``gamma``
    one of ``rules`` or a finite float >= 0, ``coef0`` a finite real number (every estimator
    with those parameters). ``gamma=0`` makes the kernels of :data:`GAMMA_KERNELS` constant
    and is refused for them; the others (``"linear"``, ``"precomputed"``, a callable) ignore
    ``gamma`` and take 0, as scikit-learn does. A negative ``gamma`` is refused for every
    kernel, as scikit-learn refuses it."""
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral):
        raise InvalidParameterError(f"degree must be an int, got {type(degree).__name__}")
    if not 0 <= int(degree) <= MAX_DEGREE:
        raise ValueError(f"degree must be >= 0 and <= {MAX_DEGREE}, got {shown(degree)}")
    if isinstance(gamma, str):
        if gamma not in rules:
            named = ", ".join(repr(rule) for rule in rules)
            allowed = f"{named} or a float > 0" if rules else "a float > 0"
            raise ValueError(f"gamma must be {allowed}, got {gamma!r}")
    else:
        uses_gamma = isinstance(kernel, str) and kernel in GAMMA_KERNELS
        number = _check_positive("gamma", gamma, allow_zero=True)
        if number == 0 and uses_gamma:
            raise ValueError(
                f"gamma must be > 0 for kernel={kernel!r} (gamma=0 makes it a constant), "
                f"got {shown(gamma)}"
            )
    if not _is_finite_real(coef0):
        raise ValueError(f"coef0 must be a finite real number, got {shown(coef0)}")


def _is_finite_real(value: Any) -> bool:
    """A real number that is finite (an int beyond float's range is not)."""
    if not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def check_finite_model(*values: Any, statuses: Sequence[str] = ()) -> None:
    """Raises where a solve left non-finite coefficients or intercepts (kernel values near the
    float range: rows of 1e20 under a linear kernel), as scikit-learn does, instead of storing
    a model that predicts NaN; and where one of the solves' ``statuses`` is
    ``"numerical_error"``: the solve stopped on a value that was not finite (a kernel value
    beyond the range of the float32 column cache, 3.4e38, or of float64), so its last iterate
    is no solution, however finite its coefficients (the one step it took, or none).
    scikit-learn raises in both cases: LIBSVM has no such status, it carries the NaN or
    infinity into the model, which scikit-learn refuses; more iterations cannot help."""
    if not all(np.all(np.isfinite(np.asarray(v, dtype=np.float64))) for v in values):
        raise ValueError(
            "The dual coefficients or intercepts are not finite: the kernel values of these "
            "rows are too large for floating point (scale the features, or lower gamma, "
            "degree or |coef0|)"
        )
    if "numerical_error" in statuses:
        raise ValueError(
            "The solver met values that are not finite (status 'numerical_error'): kernel "
            "values or steps beyond the range of floating point (the kernel cache holds "
            "float32, whose range ends at 3.4e38, also for a float64 precomputed matrix), from "
            "features of large magnitude or kernel parameters that overflow (scale the "
            "features or the precomputed matrix, or lower gamma, degree or |coef0|)"
        )


#: The decompositions of the SMO estimators' ``engine`` parameter.
ENGINES = ("auto", "libsvm", "batched")


def check_solver_params(estimator: Any) -> None:
    """The solver options every estimator has: ``tol``, ``cache_size``, ``max_iter``,
    ``time_limit``, ``callback`` and ``n_jobs``."""
    _check_positive("tol", estimator.tol)
    _check_positive("cache_size", estimator.cache_size)
    max_iter = estimator.max_iter
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise InvalidParameterError(f"max_iter must be an int, got {type(max_iter).__name__}")
    if max_iter == 0 or max_iter < -1:
        raise ValueError(f"max_iter must be -1 or >= 1, got {shown(max_iter)}")
    if estimator.time_limit is not None:
        _check_positive("time_limit", estimator.time_limit)
    if estimator.callback is not None and not callable(estimator.callback):
        raise InvalidParameterError("callback must be callable or None")
    resolve_n_jobs(estimator.n_jobs)
    check_verbose(getattr(estimator, "verbose", False))


def check_verbose(verbose: Any) -> None:
    """``verbose``: a bool or an int >= 0, as scikit-learn's (``"yes"``, NaN and -1 were taken
    before)."""
    if not isinstance(verbose, (bool, numbers.Integral)):
        raise InvalidParameterError(
            f"verbose must be a bool or an int >= 0, got {type(verbose).__name__}"
        )
    if verbose < 0:
        raise ValueError(f"verbose must be a bool or an int >= 0, got {verbose}")


class KernelSvmMixin(BaseEstimator):  # type: ignore[misc]
    """Parameters and helpers common to every SVM estimator.

    Subclasses define ``__init__`` with scikit-learn's parameter names and call
    :meth:`_solve` for each dual problem.
    """

    #: The named ``gamma`` rules the estimator accepts (``FrankWolfeSVC`` adds its paper's).
    _GAMMA_RULES: tuple[str, ...] = ("scale", "auto")

    kernel: str | Callable[..., Any]
    degree: int
    gamma: str | float
    coef0: float
    tol: float
    shrinking: bool
    cache_size: float
    verbose: bool | int
    max_iter: int
    n_jobs: int | None
    callback: Callable[[Mapping[str, Any]], bool | None] | None
    time_limit: float | None

    # Fitted attributes shared by every SVM estimator.
    support_: NDArray[np.int32]
    support_vectors_: Float64Array
    # ``dual_coef_`` as the solver gave it, dense: the property ``dual_coef_`` shows it.
    _dual_coef_: Float64Array
    intercept_: Float64Array
    shape_fit_: tuple[int, ...]
    _kernel_params: KernelParams
    _gamma: float

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    @property
    def dual_coef_(self) -> Any:
        """The support vectors' coefficients in the decision function(s).

        Returns
        -------
        ndarray or sparse matrix of shape (n_problems, n_SV)
            An array, or a CSR matrix when the model was fitted on sparse rows, as
            scikit-learn's (the model keeps the coefficients dense, as ``_dual_coef_``).
        """
        try:
            coef = self.__dict__["_dual_coef_"]
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute 'dual_coef_'"
            ) from None
        if sp.issparse(self.__dict__.get("support_vectors_")):
            return sp.csr_matrix(coef)
        return coef

    @dual_coef_.setter
    def dual_coef_(self, value: Any) -> None:
        self._dual_coef_ = np.asarray(value.toarray() if sp.issparse(value) else value)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A model pickled before ``dual_coef_`` became a property kept it under that name.
        if "dual_coef_" in state:
            state = dict(state)
            state["_dual_coef_"] = state.pop("dual_coef_")
        super().__setstate__(state)

    @property
    def coef_(self) -> Any:
        """Weights of the features in the decision function, for ``kernel="linear"`` only.

        Returns
        -------
        ndarray or sparse matrix of shape (n_problems, n_features)
            ``dual_coef_ @ support_vectors_`` (one row per class pair for multiclass SVC,
            scikit-learn's layout); sparse when the support vectors are.
        """
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self, "dual_coef_")
        return self._linear_coef()

    def _linear_coef(self) -> Any:
        """``w = Σ_k dual_coef_[:, k] x_k`` over the support vectors."""
        if sp.issparse(self.support_vectors_):
            return read_only(sp.csr_matrix(self._dual_coef_) @ self.support_vectors_)
        return read_only(np.asarray(self._dual_coef_ @ self.support_vectors_))

    # -- parameters -------------------------------------------------------------------------

    def _check_common_params(self) -> None:
        if not callable(self.kernel) and (
            not isinstance(self.kernel, str) or self.kernel not in KERNELS
        ):
            raise ValueError(f"kernel must be one of {KERNELS} or a callable, got {self.kernel!r}")
        _check_kernel_parameters(
            self.gamma, self.degree, self.coef0, self._GAMMA_RULES, kernel=self.kernel
        )
        check_bool("shrinking", getattr(self, "shrinking", True))
        engine = getattr(self, "engine", "auto")
        if not isinstance(engine, str) or engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        check_solver_params(self)

    def _record_input_precision(self, X: Any) -> None:
        """Records whether the training rows are a float32 NumPy array (the core's plan then
        sums the inner products of wide rows in float32, as precise as the float32 columns of
        the kernel cache; float64 rows keep float64 products)."""
        self._float32_input = isinstance(X, np.ndarray) and X.dtype == np.float32

    def _validate_x(self, X: Any, *, reset: bool) -> Any:
        if callable(self.kernel):
            # Not validated, as scikit-learn's: the callable takes X as it is given.
            return self._callable_fit_rows(X) if reset else X
        if reset:
            self._record_input_precision(X)
        rows = plain_rows(X)
        if rows is not None and reset:
            self._set_n_features(rows)
            return rows
        if rows is not None and self._takes_plain_rows(rows):
            return rows
        check_sparse_structure(X)
        X = validate_data(self, X, reset=reset, **self._array_checks())
        return X if sp.issparse(X) else np.asarray(X, dtype=np.float64)

    def _takes_plain_rows(self, rows: NDArray[np.floating[Any]]) -> bool:
        """Whether ``validate_data(reset=False)`` would pass plain rows (:func:`plain_rows`)
        without a word: the model was fitted without feature names and on as many features."""
        return not hasattr(self, "feature_names_in_") and rows.shape[1] == getattr(
            self, "n_features_in_", None
        )

    def _set_n_features(self, rows: NDArray[np.floating[Any]]) -> None:
        """What ``validate_data(reset=True)`` records of plain rows: their number of features,
        and no feature names (those of an earlier fit on a dataframe are dropped)."""
        self.__dict__.pop("feature_names_in_", None)
        self.n_features_in_ = rows.shape[1]

    def _array_checks(self) -> dict[str, Any]:
        """What ``validate_data`` requires of X: at least one row, float64 in C order, and
        CSR for a sparse X (:meth:`_accept_sparse`)."""
        return {
            "dtype": np.float64,
            "order": "C",
            "accept_sparse": self._accept_sparse(),
            "ensure_min_samples": 1,
        }

    def _accept_sparse(self) -> str | bool:
        """scipy.sparse X is taken as CSR (never densified), except as a precomputed kernel; a
        callable kernel is handed sparse rows then, as scikit-learn's is."""
        if self.kernel == "precomputed":
            return False
        return "csr"

    def _validate_xy(
        self, X: Any, y: Any, *, keep_float32: bool = False
    ) -> tuple[Any, NDArray[Any]]:
        """X and y at fit, checked as scikit-learn's SVMs do: y is required (a clear error when
        it is None), a column vector y is flattened with a ``DataConversionWarning``, and the
        numbers of samples must agree; sets ``n_features_in_`` (and ``feature_names_in_``).
        X is float64, or with ``keep_float32`` the float32 NumPy array itself (C-contiguous).
        For a callable kernel, X is not validated (:meth:`_callable_fit_rows`)."""
        if callable(self.kernel):
            if y is None:
                raise ValueError(
                    f"{type(self).__name__} requires y to be passed, but the target y is None."
                )
            target = _check_y(y, estimator=self)
            check_consistent_length(X, target)
            return self._callable_fit_rows(X), np.asarray(target)
        self._record_input_precision(X)
        rows = plain_rows(X, keep_float32=keep_float32)
        target = None if rows is None else plain_target(y, rows.shape[0])
        if rows is not None and target is not None:
            self._set_n_features(rows)
            return rows, target
        check_sparse_structure(X)
        X_checked, y_checked = validate_data(self, X, y, reset=True, **self._array_checks())
        if not sp.issparse(X_checked):
            X_checked = np.asarray(X_checked, dtype=np.float64)
        return X_checked, np.asarray(y_checked)

    def _check_precomputed_fit(self, X: Float64Array) -> None:
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                "Precomputed kernel matrix must be square at fit: "
                f"X has shape {X.shape[0]}x{X.shape[1]}"
            )

    def _callable_fit_rows(self, X: Any) -> Float64Array:
        """The training rows of a callable kernel as the fit's machinery takes them. X itself
        is not validated, as scikit-learn does not (a list of strings, a dataframe, sparse or
        integer rows reach the callable as given), and is kept as ``_fit_X`` for prediction
        (scikit-learn keeps it too); no ``n_features_in_`` is recorded. Returns the Gram
        matrix ``kernel(X, X)``, computed once when it fits ``_callable.GRAM_BYTES`` (the fit then
        solves it as a precomputed kernel, as scikit-learn's does), else the column of row
        numbers, which the core hands back in blocks to :class:`IndexedRowsKernel`."""
        check_sparse_structure(X)
        n = n_rows(X)
        if n < 1:
            raise ValueError(
                f"Found array with 0 sample(s) while a minimum of 1 is required by "
                f"{type(self).__name__}."
            )
        self._float32_input = False
        self.__dict__.pop("n_features_in_", None)
        self.__dict__.pop("feature_names_in_", None)
        self._fit_X = X
        self._callable_gram = 8 * n * n <= _callable.GRAM_BYTES
        if self._callable_gram:
            return kernel_block(self.kernel, X, X)
        return row_numbers(n)

    def _solves_gram(self) -> bool:
        """Whether this fit solves over a callable kernel's whole Gram matrix (its rows, as
        :meth:`_callable_fit_rows` returned them, are that matrix)."""
        return callable(self.kernel) and bool(getattr(self, "_callable_gram", False))

    def _fitted_shape(self, X: Any) -> tuple[int, ...]:
        """``shape_fit_``: the shape of the training X, as given for a callable kernel
        (``(n_samples,)`` for a list, as scikit-learn records it)."""
        if callable(self.kernel):
            raw = self._fit_X
            return tuple(raw.shape) if hasattr(raw, "shape") else (n_rows(raw),)
        return tuple(X.shape)

    @staticmethod
    def _positive_weights(
        sample_weight: Any, X: Float64Array
    ) -> tuple[Float64Array, NDArray[np.intp]]:
        """The sample weights (1 by default) and the rows with a positive weight; rows of weight 0
        are left out of the dual problem, as scikit-learn's LIBSVM does."""
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if np.any(weights < 0) or not np.all(np.isfinite(weights)):
            raise ValueError("sample_weight must be finite and non-negative")
        kept = np.flatnonzero(weights > 0)
        if len(kept) == 0:
            raise ValueError("sample_weight is zero for every sample")
        return weights, kept

    def _training_rows(self, X: Any, index: NDArray[np.intp]) -> Any:
        """The rows ``index`` of X as one contiguous array (for a precomputed kernel, the
        ``index × index`` block of the Gram matrix); X itself, unless it needs converting,
        when ``index`` is every row in order."""
        every_row = len(index) == X.shape[0] and bool(np.all(index == np.arange(len(index))))
        if self.kernel == "precomputed" or self._solves_gram():
            return np.ascontiguousarray(X if every_row else X[np.ix_(index, index)])
        # A callable's rows in blocks: X is the column of their numbers (``_make_kernel``).
        if sp.issparse(X):
            return to_core_rows(X if every_row else X[index])
        # Every row in order (a binary fit without zero weights): X itself, not a copy.
        return np.ascontiguousarray(X if every_row else X[index])

    @staticmethod
    def _support_rows(X: Any, support: NDArray[np.integer[Any]]) -> Any:
        """The support vectors: rows of X, sparse (CSR, its indices sorted and without
        repeats: ``X[:, order]`` has neither) when X is sparse, as scikit-learn. Stored zeros
        are dropped, as a LIBSVM model file holds none: the model read back from its file
        then has the same vectors, and predicts bit for bit."""
        if sp.issparse(X):
            vectors = sp.csr_matrix(X[support])
            vectors.sum_duplicates()
            vectors.eliminate_zeros()
            return vectors
        return np.ascontiguousarray(X[support], dtype=np.float64)

    def _kernel_spec(self, X: Any) -> KernelParams:
        """The kernel with ``gamma`` resolved on the training data (scikit-learn's rules: the
        unweighted variance of every training row for ``"scale"``). Sets no attribute: the
        fitted kernel is stored with the solution, by :meth:`_store_kernel`."""
        if self.kernel == "precomputed":
            return ("precomputed", 1.0, 3, 0.0)
        if callable(self.kernel):
            return ("callable", 1.0, 3, 0.0)
        if self.gamma == "scale":
            gamma = scale_gamma(X)
        elif self.gamma == "auto":
            gamma = 1.0 / X.shape[1]
        elif self.gamma == "mean_distance":
            gamma = mean_distance_gamma(X)
        else:
            gamma = float(self.gamma)
        return (str(self.kernel), gamma, int(self.degree), float(self.coef0))

    def _make_kernel(self, params: KernelParams, X: Any = None) -> _core.Kernel:
        """The core's kernel. A callable one is solved as the precomputed kernel of its Gram
        matrix, or over blocks of the training rows, handed to the core as their numbers
        (:meth:`_callable_fit_rows`)."""
        kind, gamma, degree, coef0 = params
        if kind == "callable" and callable(self.kernel):
            if self._solves_gram():
                return _core.Kernel("precomputed", gamma=gamma, degree=degree, coef0=coef0)
            function = IndexedRowsKernel(self.kernel, self._fit_X)
            return _core.Kernel("callable", function=function)
        return _core.Kernel(kind, gamma=gamma, degree=degree, coef0=coef0)

    def _store_kernel(self, params: KernelParams) -> None:
        self._kernel_params = params
        self._gamma = params[1]

    @property
    def _kernel(self) -> _core.Kernel:
        """The fitted kernel, rebuilt from ``_kernel_params``: ``_core.Kernel`` cannot be
        pickled, so fitted estimators keep only its plain parameters."""
        return self._make_kernel(self._kernel_params)

    # -- solving ----------------------------------------------------------------------------

    def _solver_options(self) -> dict[str, Any]:
        return {
            "tol": float(self.tol),
            "max_iter": core_max_iter(self.max_iter),
            "cache_size": float(self.cache_size),
            "shrinking": bool(getattr(self, "shrinking", True)),
            "n_jobs": resolve_n_jobs(self.n_jobs),
            "time_limit": core_time_limit(self.time_limit),
            "float32_input": bool(getattr(self, "_float32_input", False)),
            "engine": str(getattr(self, "engine", "auto")),
        }

    def _solve(
        self,
        entry: Callable[..., T],
        *args: Any,
        description: str,
        n_jobs: int | None = None,
        stop: _core.StopFlag | None = None,
    ) -> T:
        """Calls a ``_core`` entry point with the estimator's solver options, the progress
        callback, and (for parallel pairs) a thread count and the flag that stops them all
        (read by the solve without the GIL)."""
        options = self._solver_options()
        if n_jobs is not None:
            options["n_jobs"] = n_jobs
        if stop is not None:
            options["stop"] = stop
        with progress_callback(self.callback, self.verbose, description) as callback:
            solution = entry(*args, **options, callback=callback)
            report_solution(callback, solution)
            return solution

    def _threads(self) -> int:
        """The number of threads ``n_jobs`` stands for (0, every core, counted)."""
        return resolve_n_jobs(self.n_jobs) or available_cores()

    def _pair_workers(self, n_solves: int) -> int:
        """Workers of one thread each for ``n_solves`` independent solves run by one core call
        (``_core.solve_c_svc_pairs``): one per thread of ``n_jobs``, or 0 when that route does
        not apply (a callback or progress bar reports each solve from Python; fewer solves than
        threads get several threads each from :meth:`_run_in_parallel`)."""
        if self.callback is not None or self.verbose:
            return 0
        threads = self._threads()
        return threads if n_solves >= threads else 0

    def _run_in_parallel(
        self, jobs: Sequence[J], run: Callable[[J, int | None, _core.StopFlag | None], T]
    ) -> list[T]:
        """Runs independent solves (the class pairs of one-vs-one): concurrently on threads
        when ``n_jobs`` allows (each solve releases the GIL and gets a share of the threads),
        else one after the other with every thread. The result does not depend on the split.
        On Ctrl-C (or any error) the running solves are stopped before the exception is
        raised."""
        threads = self._threads()
        workers = min(threads, len(jobs))
        if workers <= 1 or self.verbose:
            return [run(job, None, None) for job in jobs]
        per_job = max(1, threads // workers)
        stop = _core.StopFlag()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures: list[Future[T]] = []
            # The submissions inside the try: a Ctrl-C between two of them must stop the
            # solves already running, or leaving the pool would wait for every one to finish.
            try:
                futures.extend(pool.submit(run, job, per_job, stop) for job in jobs)
                return [_wait_interruptibly(future) for future in futures]
            except BaseException:
                stop.set()
                for future in futures:
                    future.cancel()
                raise

    # -- prediction -------------------------------------------------------------------------

    def _kernel_against_support(self, X: Any) -> Float64Array:
        """``K(X, support_vectors_)`` (for a precomputed kernel, the support columns of X)."""
        if self.kernel == "precomputed":
            n_train = self.shape_fit_[0]
            if X.shape[1] != n_train:
                raise ValueError(
                    f"X.shape[1] = {X.shape[1]} should be equal to {n_train}, the number of "
                    "samples at training time (precomputed kernel)"
                )
            return np.ascontiguousarray(X[:, self.support_])
        if callable(self.kernel):
            if "_fit_X" not in self.__dict__:
                # A model pickled before the training rows were kept: its support vectors.
                return kernel_block(self.kernel, X, self.support_vectors_)
            # Against every training row, as scikit-learn calls it (a kernel may assume its
            # arguments are the training rows), then the support vectors' columns.
            block = kernel_block(self.kernel, X, self._fit_X)
            return np.ascontiguousarray(block[:, self.support_])
        rows, support = against_support(X, self.support_vectors_, self._kernel_params[0])
        return _core.kernel_matrix(
            to_core_rows(rows),
            to_core_rows(support),
            self._kernel,
            n_jobs=resolve_n_jobs(self.n_jobs),
        )

    def _decision_values(self, X: Any, coef: Float64Array) -> Float64Array:
        """``K(X, support_vectors_) @ coef`` for ``coef`` of shape ``(n_SV, k)``. A built-in
        kernel is computed and multiplied in blocks by the core, which converts the support
        vectors once and never holds ``K`` (on 537_houses, 4,128 × 12,301, the whole block took
        0.24 s, mostly faulting in its fresh 400 MB, and the blocked product takes 0.06 s); a
        precomputed or callable kernel in blocks of ``PREDICT_BLOCK_ROWS`` rows."""
        coef = np.ascontiguousarray(coef, dtype=np.float64)
        if coef.shape[0] == 0:
            # No support vector (an SVR of constant targets, a LIBSVM file with total_sv 0,
            # which records no width): the decision is the constant alone, for any width.
            return np.zeros((n_rows(X), coef.shape[1]))
        if callable(self.kernel):
            # Test rows in blocks whose values against every training row fit ``GRAM_BYTES``.
            n, n_fit = n_rows(X), int(self.shape_fit_[0])
            step = max(1, min(PREDICT_BLOCK_ROWS, _callable.GRAM_BYTES // (8 * max(n_fit, 1))))
            if n <= step:
                return self._kernel_against_support(X) @ coef
            parts = [
                self._kernel_against_support(take_rows(X, slice(start, start + step))) @ coef
                for start in range(0, n, step)
            ]
            return np.concatenate(parts, axis=0)
        if self.kernel == "precomputed":
            parts = [
                self._kernel_against_support(X[start : start + PREDICT_BLOCK_ROWS]) @ coef
                for start in range(0, X.shape[0], PREDICT_BLOCK_ROWS)
            ]
            return np.concatenate(parts, axis=0)
        rows, support = against_support(X, self.support_vectors_, self._kernel_params[0])
        return _core.kernel_matrix_product(
            to_core_rows(rows),
            to_core_rows(support),
            self._kernel,
            coef,
            n_jobs=resolve_n_jobs(self.n_jobs),
        )

    def _check_predict_input(self, X: Any) -> Any:
        check_is_fitted(self, "support_")
        X_checked = self._validate_x(X, reset=False)
        return X_checked

    def _one_decision_function(self, X: Any) -> Float64Array:
        """``Σ_k dual_coef_[0, k] K(support_vectors_[k], x) + intercept_[0]`` for every row x
        of X: the decision function of a model of one dual problem."""
        X_checked = self._check_predict_input(X)
        coef = self._dual_coef_[0]
        decision: Float64Array = self._decision_values(X_checked, coef[:, None])[:, 0]
        return decision + float(self.intercept_[0])
