"""Input and parameter checks shared by every estimator, so that bad input gives the same clear
``ValueError`` / ``TypeError`` everywhere (``tests/kk_bad_input.py`` holds the matrix of
estimators × bad inputs, ``tests/test_bad_input_*.py`` test it)."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.utils.multiclass import check_classification_targets

from .exceptions import InvalidParameterError

Fit = TypeVar("Fit", bound=Callable[..., Any])


def keeps_model_on_failure(fit: Fit) -> Fit:
    """Decorates ``fit`` so that a fit that raises (bad input, an exception from the callback,
    Ctrl-C) leaves the estimator exactly as it was: unfitted, or with its previous model. Without
    it, validation would already have set ``n_features_in_`` for the new data."""

    @functools.wraps(fit)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        saved = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            # One assignment, not clear() then update(): a second Ctrl-C between two calls
            # would leave the estimator empty.
            self.__dict__ = saved
            raise

    return guarded  # type: ignore[return-value]


#: ``max_iter`` values from here on are sent to the core as this value: no solve can reach it,
#: and larger Python ints do not fit the core's 64-bit counters.
MAX_ITER_CAP = 2**62
#: Seconds (about 31 years): a larger ``time_limit`` is sent to the core as no limit, which it
#: cannot be told apart from (the core's clock cannot represent some of them).
TIME_LIMIT_CAP = 1e9


def plain_rows(X: Any, *, keep_float32: bool = False) -> NDArray[np.floating[Any]] | None:
    """X as ``check_array(X, dtype=np.float64, order="C")`` returns it, when X is a plain NumPy
    array that passes every check (2-D, floating, at least one row and one column, all finite),
    computed without scikit-learn's validation: the first call of that in a process looks for
    dataframe plug-ins (narwhals' entry points, about 8 ms with 160 installed distributions),
    which a NumPy array never needs. ``None`` for anything else, for scikit-learn to check (and
    to word the error). With ``keep_float32``, float32 rows stay float32 (C-contiguous), for
    a caller that reads them in place."""
    if type(X) is not np.ndarray or X.ndim != 2 or X.dtype.kind != "f" or 0 in X.shape:
        return None
    single = keep_float32 and X.dtype == np.float32
    rows: NDArray[np.floating[Any]] = (
        np.ascontiguousarray(X, dtype=np.float32)
        if single
        else np.ascontiguousarray(X, dtype=np.float64)
    )
    # A finite sum means every value is finite (an infinite or NaN value makes it so); a sum
    # that overflows sends finite X to scikit-learn's own check, which passes it.
    with np.errstate(over="ignore", invalid="ignore"):
        return rows if np.isfinite(rows.sum(dtype=np.float64)) else None


def plain_target(y: Any, n_samples: int) -> NDArray[Any] | None:
    """y as ``check_X_y`` returns it, when y is a plain 1-D NumPy array of ``n_samples`` finite
    real numbers (``None`` otherwise: see :func:`plain_rows`)."""
    if type(y) is not np.ndarray or y.ndim != 1 or len(y) != n_samples:
        return None
    if y.dtype.kind not in "biuf":
        return None
    if y.dtype.kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(y.sum()):
                return None
    return y


def check_class_labels(y: NDArray[Any]) -> None:
    """scikit-learn's ``check_classification_targets``: a ``ValueError`` unless y holds class
    labels. A 1-D array of integers (or of whole floating values) is such without asking
    scikit-learn, whose check would look for dataframe plug-ins first (:func:`plain_rows`)."""
    if type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biuf":
        if y.dtype.kind != "f":
            return
        with np.errstate(invalid="ignore"):
            # The test of scikit-learn's ``type_of_target`` for "continuous".
            if np.all(np.isfinite(y)) and not np.any(y != y.astype(np.int64).astype(y.dtype)):
                return
    check_classification_targets(y)


def class_index(y: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """``np.unique(y, return_inverse=True)``: the sorted classes and each label's index among
    them. Binary numeric labels (the common case) are indexed without sorting y; a zero label
    (whose sign ``np.unique`` may keep either way) and everything else go to ``np.unique``."""
    if type(y) is np.ndarray and y.ndim == 1 and len(y) > 0 and y.dtype.kind in "biuf":
        low, high = y.min(), y.max()
        is_high = y == high
        exact = y.dtype.kind != "f" or (low != 0 and high != 0)
        if exact and low != high and np.count_nonzero(is_high | (y == low)) == len(y):
            return np.array([low, high], dtype=y.dtype), is_high.astype(np.intp)
    classes, index = np.unique(y, return_inverse=True)
    return classes, index.astype(np.intp, copy=False)


def real_value(value: Any) -> float:
    """``float(value)`` of a real number; ±inf for one beyond float's range (an int of more
    than 308 digits), which a range check then refuses, where ``float`` raised a bare
    ``OverflowError``."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def shown(value: Any) -> str:
    """``repr(value)`` for an error message; an int too long to write out (Python refuses more
    than 4300 digits, and a few hundred help no one) by its size."""
    if isinstance(value, int) and abs(value) >= 10**50:
        sign = "-" if value < 0 else ""
        return f"an int of about {sign}10**{math.log10(abs(value)):.0f}"
    return repr(value)


def check_bool(name: str, value: object) -> bool:
    """``value`` as a bool; a ``TypeError`` naming ``name`` for anything else (a string such as
    ``"no"`` would otherwise be silently true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def core_max_iter(max_iter: int | None) -> int | None:
    """A checked ``max_iter`` as the core takes it: ``None`` for ``-1`` or ``None`` (the core's
    default limit, ``SolveOptions::iteration_limit``),
    else capped at :data:`MAX_ITER_CAP`."""
    if max_iter is None:
        return None
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise InvalidParameterError(
            f"max_iter must be an int or None, got {type(max_iter).__name__}"
        )
    if max_iter == -1:
        return None
    if max_iter < 1:
        raise ValueError(
            f"max_iter must be -1 or None (the default limit) or >= 1, got {shown(max_iter)}"
        )
    return min(int(max_iter), MAX_ITER_CAP)


def core_time_limit(time_limit: float | None) -> float | None:
    """A checked ``time_limit`` as the core takes it: ``None`` (no limit) at or beyond
    :data:`TIME_LIMIT_CAP` seconds."""
    if time_limit is None or float(time_limit) >= TIME_LIMIT_CAP:
        return None
    return float(time_limit)


def regression_target(y: Any) -> NDArray[np.float64]:
    """A regression ``y`` as float64: a ``ValueError`` that says so when it is not numeric or
    not finite."""
    try:
        target = np.asarray(y).astype(np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"y must be numeric for regression: {error}") from None
    if not np.all(np.isfinite(target)):
        raise ValueError("y contains NaN or infinity")
    return target


def scale_gamma(X: Any) -> float:
    """``gamma="scale"``: ``1 / (n_features · X.var())`` (1 when the variance is 0), with a
    ``ValueError`` when the variance overflows float64 instead of a silent ``gamma = 0``."""
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below
        if sp.issparse(X):
            variance = float(X.multiply(X).mean() - X.mean() ** 2)
        else:
            # float32 rows (kept for a kernel that reads them in place) in float64, as
            # scikit-learn computes it.
            variance = float(np.var(np.asarray(X, dtype=np.float64)))
    return gamma_of_variance(variance, X.shape[1], lambda: float(abs(X).max()))


def gamma_of_variance(variance: float, n_features: int, max_abs: Callable[[], float]) -> float:
    """``gamma="scale"`` from the variance of every value of X: ``1 / (n_features ·
    variance)`` (1 when it is 0), or a ``ValueError`` when the variance overflowed float64
    (``max_abs``: the largest |X|, for the message)."""
    if not np.isfinite(variance):
        raise ValueError(
            "gamma='scale' is undefined: the variance of X overflows float64 (values too large, "
            f"max |X| = {max_abs():.3g}); rescale X or pass a float gamma"
        )
    if variance == 0:
        return 1.0
    gamma = 1.0 / (n_features * variance)  # inf when it overflows (float division)
    if not math.isfinite(gamma):
        raise ValueError(
            "gamma='scale' is undefined: 1 / (n_features * variance of X) overflows float64 "
            f"(values too small: variance {variance:.3g}, max |X| = {max_abs():.3g}); rescale X "
            "or pass a float gamma"
        )
    return gamma


def mean_distance_gamma(X: Any) -> float:
    """``gamma="mean_distance"``: ``1 / (2 d̄)`` with ``d̄`` the mean squared distance over the
    distinct pairs of rows, the RBF width ``σ² = d̄`` of Frandi et al.'s text (digest P8, rule
    (a)), computed exactly in one pass,
    ``Σ_{i≠j} ‖x_i − x_j‖² = 2n Σ_i ‖x_i‖² − 2 ‖Σ_i x_i‖²``, so ``d̄`` is that over
    ``n (n − 1)`` (1 when it is 0, or with one row). On standardised columns ``d̄ ≈ 2 ·
    n_features``, so it is about a quarter of ``"scale"``'s ``1 / n_features``."""
    n = X.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below
        if sp.issparse(X):
            squares = float(X.multiply(X).sum())
            sums = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
        else:
            values = np.asarray(X, dtype=np.float64)
            squares = float(np.einsum("ij,ij->", values, values))
            sums = values.sum(axis=0)
        total = 2.0 * n * squares - 2.0 * float(sums @ sums)
    if not np.isfinite(total):
        raise ValueError(
            "gamma='mean_distance' is undefined: the squared distances of X overflow float64; "
            "rescale X or pass a float gamma"
        )
    # The two terms cancel for (nearly) equal rows: a negative rounding error means 0.
    mean = max(total, 0.0) / (n * (n - 1)) if n > 1 else 0.0
    if mean <= 0:
        return 1.0
    gamma = 1.0 / (2.0 * mean)
    if not math.isfinite(gamma):
        raise ValueError(
            "gamma='mean_distance' is undefined: 1 / (2 * mean squared distance of X) overflows "
            f"float64 (values too small: mean squared distance {mean:.3g}); rescale X or pass a "
            "float gamma"
        )
    return gamma


def rows_overflow(X: NDArray[np.float64]) -> bool:
    """Whether a squared norm of the rows of (dense) X overflows float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        squared_norms = np.einsum("ij,ij->i", X, X)
    return not bool(np.all(np.isfinite(squared_norms)))


def overflow_error(max_abs: float) -> ValueError:
    """The error of rows whose squared norms overflow float64 (:func:`rows_overflow`)."""
    return ValueError(
        "X has values too large: the squared norms of its rows overflow float64 "
        f"(max |X| = {max_abs:.3g}); rescale X"
    )


def check_not_overflowing(X: NDArray[np.float64]) -> None:
    """A ``ValueError`` when the squared norms of the rows of (dense) X overflow float64: the
    inner products of a linear model would be infinite."""
    if rows_overflow(X):
        raise overflow_error(float(np.abs(X).max()))


#: The largest float32, the range of the SMO engine's kernel columns (LIBSVM's ``Qfloat``).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_linear_kernel_range(X: NDArray[np.float64], what: str) -> None:
    """A ``ValueError`` when a linear kernel value of (dense) X can exceed the float32 range:
    ``|x_i·x_j| ≤ max_i ‖x_i‖²`` (Cauchy–Schwarz; cluster means are no larger), and SMO keeps
    the Hessian's columns in float32, where such a value is infinite. The AID classifiers'
    aggregated problems then failed opaquely or returned a trivial or NaN model (rows of 1e20,
    1e100)."""
    with np.errstate(over="ignore", invalid="ignore"):
        largest = float(np.einsum("ij,ij->i", X, X).max(initial=0.0))
    if not largest <= FLOAT32_MAX:
        raise ValueError(
            f"X has values too large for {what}: the linear kernel values x_i·x_j reach "
            f"{largest:.3g}, beyond the float32 range ({FLOAT32_MAX:.3g}) of the SMO engine's "
            f"kernel columns (max |X| = {float(np.abs(X).max()):.3g}); rescale X"
        )


def weights_of_classes(
    class_weight: Any, classes: NDArray[Any], y: NDArray[Any]
) -> NDArray[np.float64]:
    """The weight of each class of ``classes`` (``class_weight``: None, "balanced" or a dict),
    checked finite and > 0. Without class weights every class weighs 1 (scikit-learn's helper
    would import its preprocessing module on a process's first fit only to say so: 12 ms)."""
    if class_weight is None:
        return np.ones(len(classes))
    from sklearn.utils.class_weight import compute_class_weight

    weights: NDArray[np.float64] = compute_class_weight(class_weight, classes=classes, y=y)
    check_class_weight(weights, classes)
    return weights


def check_class_weight(weights: NDArray[np.float64], classes: NDArray[Any]) -> None:
    """Every class weight (after ``compute_class_weight``) must be finite and > 0."""
    bad = ~(np.isfinite(weights) & (weights > 0))
    if np.any(bad):
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"class_weight must be finite and > 0 for every class, got {weights[first]!r} "
            f"for class {classes[first]!r}"
        )


def check_random_state_param(value: Any) -> None:
    """``random_state`` as scikit-learn's parameter checks take it: None, an int in
    [0, 2**32 - 1] (NumPy's seeds) or a ``numpy.random.RandomState``; anything else is a
    ``ValueError`` naming the parameter, at fit, before any solve."""
    if value is None or isinstance(value, np.random.RandomState):
        return
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if integer and 0 <= int(value) <= 2**32 - 1:
        return
    raise ValueError(
        "random_state must be None, an int in [0, 2**32 - 1] or a numpy.random.RandomState "
        f"instance, got {value!r}"
    )


def check_sparse_structure(X: Any, name: str = "X") -> None:
    """Raises a ``ValueError`` naming ``name`` for a sparse X whose structure is broken (an index
    out of range, a decreasing ``indptr``): scipy converts and multiplies such matrices without
    checking, and crashed the process (a segmentation fault in a product, an abort in
    ``sum_duplicates``) or raised its own C++ errors."""
    if not sp.issparse(X):
        return
    if X.format in ("csr", "csc", "bsr"):
        try:
            X.check_format(full_check=True)
        except ValueError as error:
            raise ValueError(f"{name} is not a valid {X.format.upper()} matrix: {error}") from None
        if np.any(np.diff(X.indptr) < 0):
            raise ValueError(f"{name} is not a valid {X.format.upper()} matrix: indptr decreases")
    elif X.format == "coo":
        rows, cols = X.coords if hasattr(X, "coords") else (X.row, X.col)
        if len(rows) and (
            rows.min() < 0 or cols.min() < 0 or rows.max() >= X.shape[0] or cols.max() >= X.shape[1]
        ):
            raise ValueError(f"{name} is not a valid COO matrix: an index is out of range")
