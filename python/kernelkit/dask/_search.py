"""Many fits as Dask tasks: scikit-learn's meta-estimators (``GridSearchCV``,
``OneVsRestClassifier``, ``OneVsOneClassifier``) run under joblib's Dask backend, with the
training data scattered to the workers once and each task a normal fit using
``threads_per_fit`` threads of the Rust core. joblib's Dask backend needs a
``distributed.Client``; without one, the helpers run the same fits on a pool of threads in this
process (joblib's threading backend, one thread per core as dask's local threaded scheduler
has; the Rust core releases the GIL), which gives the same fitted meta-estimator."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sklearn.base import clone

from ._compat import joblib


def _client(client: Any) -> Any:
    if client is not None:
        return client
    from distributed import get_client

    return get_client()


def _current_client(client: Any) -> Any | None:
    """``client``, else the current ``distributed.Client``, else None (no client exists, or
    distributed is not installed)."""
    if client is not None:
        return client
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:  # "No global client found and no address provided"
        return None


def _with_threads(estimator: Any, threads: int | None) -> Any:
    """A clone with ``n_jobs = threads`` when the estimator has that parameter."""
    estimator = clone(estimator)
    if threads is not None and "n_jobs" in estimator.get_params(deep=False):
        estimator.set_params(n_jobs=threads)
    return estimator


@contextlib.contextmanager
def dask_backend(*data: Any, client: Any = None) -> Iterator[Any]:
    """joblib's Dask backend on ``client`` (default: the current one), with ``data`` scattered
    to the workers once (tasks then refer to it instead of carrying a copy)."""
    client = _client(client)
    with client.as_current(), joblib().parallel_backend("dask", scatter=list(data)):
        yield client


def _fit_as_tasks(meta: Any, X: Any, y: Any, client: Any) -> Any:
    """Fits a scikit-learn meta-estimator (``n_jobs=-1``) under :func:`dask_backend`, so that
    joblib sends its inner fits to the workers as tasks; returns it. Without a client, under
    joblib's threading backend (one thread per core)."""
    client = _current_client(client)
    if client is None:
        with joblib().parallel_backend("threading"):
            meta.fit(X, y)
        return meta
    with dask_backend(X, y, client=client):
        meta.fit(X, y)
    return meta


def grid_search(
    estimator: Any,
    param_grid: Any,
    X: Any,
    y: Any,
    *,
    cv: Any = 5,
    scoring: Any = None,
    refit: bool = True,
    threads_per_fit: int | None = 1,
    client: Any = None,
    **search_params: Any,
) -> Any:
    """A cross-validated grid search whose fits run as Dask tasks.

    The same search as ``sklearn.model_selection.GridSearchCV(estimator, param_grid, cv=cv,
    scoring=scoring, refit=refit, **search_params)`` fitted sequentially — the same folds,
    scores and best parameters — with every (parameter set, fold) fit a task on the cluster.

    Parameters
    ----------
    estimator : estimator
        The estimator to tune (cloned).
    param_grid : dict or list of dict
        As in scikit-learn's ``GridSearchCV``.
    X, y : array-like
        Training data (NumPy arrays, scattered to the workers once).
    cv, scoring, refit, **search_params
        As in scikit-learn's ``GridSearchCV``.
    threads_per_fit : int or None, default=1
        ``n_jobs`` of each fit (threads of the Rust core); ``None`` keeps the estimator's.
    client : distributed.Client or None, default=None
        The cluster; ``None`` uses the current client, or where none exists runs the fits on
        a pool of threads in this process (one per core).

    Returns
    -------
    sklearn.model_selection.GridSearchCV
        The fitted search (``best_params_``, ``cv_results_``, ``best_estimator_``, …).
    """
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(
        _with_threads(estimator, threads_per_fit),
        param_grid,
        cv=cv,
        scoring=scoring,
        refit=refit,
        n_jobs=-1,
        **search_params,
    )
    return _fit_as_tasks(search, X, y, client)


def one_vs_rest(
    estimator: Any, X: Any, y: Any, *, threads_per_fit: int | None = 1, client: Any = None
) -> Any:
    """scikit-learn's ``OneVsRestClassifier`` with one Dask task per class (see
    :func:`grid_search` for ``threads_per_fit`` and ``client``)."""
    from sklearn.multiclass import OneVsRestClassifier

    return _fit_as_tasks(
        OneVsRestClassifier(_with_threads(estimator, threads_per_fit), n_jobs=-1), X, y, client
    )


def one_vs_one(
    estimator: Any, X: Any, y: Any, *, threads_per_fit: int | None = 1, client: Any = None
) -> Any:
    """scikit-learn's ``OneVsOneClassifier`` with one Dask task per pair of classes (see
    :func:`grid_search` for ``threads_per_fit`` and ``client``)."""
    from sklearn.multiclass import OneVsOneClassifier

    return _fit_as_tasks(
        OneVsOneClassifier(_with_threads(estimator, threads_per_fit), n_jobs=-1), X, y, client
    )
