"""Prediction over a dask array or dask DataFrame: the fitted model is one task of the graph
(sent once to each worker that needs it), every block of rows is evaluated by the model's own
method, and the result is a dask array with the input's row chunks."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._compat import da, dask, loaded_dataframe, pandas


def _frame(block: Any, names: Any) -> Any:
    """A block as the model saw its training data: a pandas DataFrame when it was fitted on
    named columns, else a float array."""
    if names is None:
        return block
    return pandas().DataFrame(np.asarray(block), columns=names)


def _call(block: Any, model: Any, method: str, names: Any, empty: Any) -> Any:
    """``model.<method>`` of a block; ``empty`` (the output of no row) for a block of no row,
    which the estimators refuse (a filtered DataFrame's partitions are often empty)."""
    if block.shape[0] == 0:
        return empty
    return np.asarray(getattr(model, method)(_frame(block, names)))


def _check_columns(X: Any, names: list[str] | None) -> None:
    """A DataFrame's columns must be the ones the model was fitted on, in their order, as
    scikit-learn requires of ``predict``: the blocks are handed over as arrays, so columns in
    another order would otherwise be read as the fitted ones."""
    dd = loaded_dataframe()
    if names is None or dd is None or not isinstance(X, dd.DataFrame):
        return
    columns = [str(c) for c in X.columns]
    if columns != names:
        raise ValueError(
            "The feature names should match those that were passed during fit, in the same "
            f"order: the model was fitted on {names}, X has {columns}"
        )


def _rows(X: Any) -> Any:
    """A 2-D dask array with one chunk across the features."""
    dd = loaded_dataframe()
    if dd is not None and isinstance(X, dd.DataFrame):
        X = X.to_dask_array()
    elif not isinstance(X, da.Array):
        X = da.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array, got {X.ndim}D (shape {X.shape})")
    return X.rechunk({0: X.chunks[0], 1: -1})


def apply(model: Any, X: Any, method: str = "predict") -> Any:
    """``model.<method>`` over the rows of ``X`` (dask array or DataFrame), blockwise.

    Parameters
    ----------
    model : fitted estimator
        Any fitted scikit-learn-style estimator (kernelkit's or not).
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        The rows; each block holds all the features (columns are rechunked into one).
    method : str, default="predict"
        The method to call: ``"predict"``, ``"decision_function"``, ``"predict_proba"``, ….

    Returns
    -------
    dask.array.Array
        Shape (n_samples,) or (n_samples, k), with the row chunks of ``X`` (unknown sizes for a
        DataFrame whose partition lengths are unknown).
    """
    check_is_fitted(model)
    if not callable(getattr(model, method, None)):
        raise AttributeError(f"{type(model).__name__} has no method {method!r}")
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(n) for n in names]
    _check_columns(X, names)
    rows = _rows(X)
    n_features = int(rows.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe = _call(np.zeros((1, n_features)), model, method, names, None)
    task = dask.delayed(model, pure=True, traverse=False)
    if probe.ndim == 1:
        return rows.map_blocks(
            _call, task, method, names, probe[:0], drop_axis=1, dtype=probe.dtype, meta=probe[:0]
        )
    width = int(probe.shape[1])
    return rows.map_blocks(
        _call,
        task,
        method,
        names,
        probe[:0],
        chunks=(rows.chunks[0], (width,)),
        dtype=probe.dtype,
        meta=probe[:0],
    )


def predict(model: Any, X: Any) -> Any:
    """``model.predict`` over a dask array or DataFrame (see :func:`apply`)."""
    return apply(model, X, "predict")


def decision_function(model: Any, X: Any) -> Any:
    """``model.decision_function`` over a dask array or DataFrame (see :func:`apply`)."""
    return apply(model, X, "decision_function")
