"""Shared machinery of the AID estimators (:mod:`kernelkit.aid`): parameter checks, the initial
clusters, progress, the call into the core and the fitted bookkeeping."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import validate_data

from ._base import Float64Array, _check_positive, check_verbose
from ._progress import Callback, write_progress_line
from ._threads import resolve_n_jobs
from ._validation import (
    check_random_state_param,
    check_sparse_structure,
    core_max_iter,
    core_time_limit,
    regression_target,
)
from ._warn import warn_from_caller
from .exceptions import ConvergenceWarning, InvalidParameterError
from .solvers import Smo

AID_KERNELS = ("linear", "rbf", "poly", "sigmoid")
#: Statuses that end a fit before its tolerance is met.
UNFINISHED = ("max_iter", "time_limit", "stopped")
#: ``UNFINISHED``, and a pure partition whose certified gap stayed above ``tol`` (the SVM; a
#: kernel that is not PSD, whose lower bound is ``-inf``, never warns).
UNCERTIFIED = (*UNFINISHED, "pure")


@dataclass(kw_only=True, eq=False, repr=False)
class AidParams:
    """The parameters the three AID estimators share (``_params``)."""

    tol: float = 1e-4
    n_clusters: int | None = None
    init: str | Any = "kmeans"
    random_state: int | None = None


class _AidBase(BaseEstimator):  # type: ignore[misc]
    """Checks and bookkeeping shared by the AID estimators."""

    history_: list[dict[str, float]]
    objective_: float
    lower_bound_: float
    gap_: float
    status_: str
    n_iter_: int
    labels_: NDArray[np.int64]
    init_time_: float

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # densified
        return tags

    def _check_aid_params(self) -> None:
        _check_positive("tol", self.tol)
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral):
            raise InvalidParameterError(
                f"max_iter must be an int, got {type(self.max_iter).__name__}"
            )
        if self.max_iter < 1:
            raise ValueError(f"max_iter must be >= 1 (aggregated solves), got {self.max_iter}")
        if self.n_clusters is not None and (
            isinstance(self.n_clusters, bool) or not isinstance(self.n_clusters, numbers.Integral)
        ):
            raise InvalidParameterError(
                f"n_clusters must be an int or None, got {self.n_clusters!r}"
            )
        if self.n_clusters is not None and self.n_clusters < 1:
            raise ValueError(f"n_clusters must be >= 1, got {self.n_clusters}")
        if isinstance(self.init, str) and self.init not in ("kmeans", "random"):
            raise ValueError(
                f"init must be 'kmeans', 'random' or an array of cluster ids, got {self.init!r}"
            )
        if self.time_limit is not None:
            _check_positive("time_limit", self.time_limit)
        if self.callback is not None and not callable(self.callback):
            raise InvalidParameterError("callback must be callable or None")
        resolve_n_jobs(self.n_jobs)
        check_verbose(self.verbose)

    def _init_and_k(self, n: int, default_k: int) -> tuple[Any, int]:
        """The ``init`` argument of the core (a string or int64 ids) and the cluster count."""
        if isinstance(self.init, str):
            k = default_k if self.n_clusters is None else int(self.n_clusters)
            if k > n:
                raise ValueError(f"n_clusters = {k} exceeds the number of samples {n}")
            return self.init, max(1, min(k, n))
        ids = np.asarray(self.init)
        if ids.ndim != 1 or ids.shape[0] != n:
            raise ValueError(
                f"init must have one cluster id per sample ({n}), got shape {ids.shape}"
            )
        if not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"init cluster ids must be integers, got dtype {ids.dtype}")
        return np.ascontiguousarray(ids, dtype=np.int64), 1

    def _seed(self) -> int:
        check_random_state_param(self.random_state)
        if self.random_state is None:
            return int(np.random.default_rng().integers(0, 2**63 - 1))
        if isinstance(self.random_state, np.random.RandomState):
            return int(self.random_state.randint(0, 2**31 - 1))
        return int(self.random_state)

    def _progress(self) -> Callback | None:
        """The user's callback, with a line per aggregated solve on stderr when verbose."""
        callback: Callback | None = self.callback
        name = type(self).__name__
        if not self.verbose:
            return callback

        def report(info: Mapping[str, Any]) -> bool | None:
            write_progress_line(
                f"{name}: iteration {info['iteration']}, {info['n_clusters']} clusters, "
                f"bounds [{info['lower_bound']:.6g}, {info['upper_bound']:.6g}], "
                f"gap {info['gap']:.3g}"
            )
            return callback(info) if callback is not None else None

        return report

    def _core_options(self, inner: Smo | None = None) -> dict[str, Any]:
        options: dict[str, Any] = {
            "n_jobs": resolve_n_jobs(self.n_jobs),
            "callback": self._progress(),
            "time_limit": core_time_limit(self.time_limit),
            "seed": self._seed(),
            "tol": float(self.tol),
            "max_iter": core_max_iter(self.max_iter),
        }
        if inner is not None:
            options["inner"] = {
                "tol": float(inner.tol),
                "max_iter": core_max_iter(inner.max_iter),
                "shrinking": bool(inner.shrinking),
                "cache_size": float(inner.cache_size),
            }
        return options

    def _store_result(
        self,
        result: Mapping[str, Any],
        warn_on: tuple[str, ...] = UNFINISHED,
    ) -> None:
        """The fitted attributes of a run's ``result`` (``labels`` may be a dask array, kept
        lazy), and a :class:`~kernelkit.ConvergenceWarning` when its status is in
        ``warn_on`` (attributed to the user's call, :mod:`kernelkit._warn`)."""
        self.history_ = [dict(entry) for entry in result["history"]]
        self.objective_ = float(result["objective"])
        self.lower_bound_ = float(result["lower_bound"])
        self.gap_ = float(self.history_[-1]["gap"])
        self.status_ = str(result["status"])
        self.n_iter_ = int(result["n_iter"])
        self.init_time_ = float(result["init_time"])
        labels = result["labels"]
        lazy = hasattr(labels, "__dask_graph__")
        self.labels_ = labels if lazy else np.asarray(labels, dtype=np.int64)
        if self.status_ == "pure":
            if "pure" in warn_on and math.isfinite(self.lower_bound_) and self.gap_ > self.tol:
                warn_from_caller(
                    f"{type(self).__name__}: every cluster is pure but the certified relative "
                    f"gap {self.gap_:.3g} is above tol = {self.tol} (the aggregated optimum "
                    "could not be resolved further in float64, or its solve stopped at its "
                    "limits): the solution is not certified optimal",
                    ConvergenceWarning,
                )
        elif self.status_ in warn_on:
            warn_from_caller(
                f"{type(self).__name__} stopped ({self.status_}) after {self.n_iter_} aggregated "
                f"solves with relative gap {self.gap_:.3g} > tol = {self.tol}",
                ConvergenceWarning,
            )

    def _dense_xy(self, X: Any, y: Any, *, y_numeric: bool) -> tuple[Float64Array, NDArray[Any]]:
        """Validated training rows (dense, float64, C order) and a 1-D ``y``."""
        check_sparse_structure(X)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        if sp.issparse(X):
            X = X.toarray()
        target = regression_target(y) if y_numeric else np.asarray(y)
        return np.ascontiguousarray(X, dtype=np.float64), target

    def _dense(self, X: Any, *, reset: bool) -> Float64Array:
        check_sparse_structure(X)
        X = validate_data(self, X, reset=reset, accept_sparse="csr", dtype=np.float64)
        if sp.issparse(X):
            X = X.toarray()
        return np.ascontiguousarray(X, dtype=np.float64)


def _run(
    entry: Callable[..., dict[str, Any]], *args: Any, options: dict[str, Any]
) -> dict[str, Any]:
    """Calls a core AID entry point with the estimator options split into AID's own and the
    inner solver's."""
    inner = options.pop("inner", {})
    return entry(
        *args,
        options.pop("seed"),
        options.pop("tol"),
        options.pop("max_iter"),
        time_limit=options.pop("time_limit"),
        n_jobs=options["n_jobs"],
        callback=options["callback"],
        **inner,
    )


class _BinaryClassifierMixin(ClassifierMixin):  # type: ignore[misc]
    """scikit-learn's classifier mixin, tagged binary-only."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _check_binary(n_classes: int, what: str) -> None:
    if n_classes == 1:
        raise ValueError(f"{what} has 1 class: the AID classifiers need 2 classes")
    if n_classes != 2:
        raise ValueError(
            f"Only binary classification is supported: {what} needs exactly 2 classes, "
            f"got {n_classes}"
        )


def _default_svm_clusters(n: int, m: int) -> int:
    """The paper's SVM rule, ``1.1m + 1`` clusters per class (digest §3.2), as a total for
    two balanced classes: the core shares it among the classes by their sizes."""
    return min(n, max(math.ceil(2 * (1.1 * m + 1)), math.ceil(1e-4 * n), 2))


def _inner_solver(solver: Any) -> Smo:
    if solver is None:
        return Smo(tol=1e-6)
    if not isinstance(solver, Smo):
        raise TypeError(
            "solver must be None or a kernelkit.solvers.Smo (the aggregated problems are "
            f"weighted C-SVMs), got {type(solver).__name__}"
        )
    return solver


def _is_dask(value: Any) -> bool:
    """Whether ``value`` is a dask collection (dask array or DataFrame), checked without
    importing dask."""
    return callable(getattr(type(value), "__dask_graph__", None))


def _fit_on_dask(estimator: Any, X: Any, y: Any) -> None:
    """Fits an AID estimator on dask data with :mod:`kernelkit.dask` (imported only here)."""
    from .dask import fit_aid

    fit_aid(estimator, X, y)
