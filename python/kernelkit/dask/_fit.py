"""``fit`` of the AID estimators on a dask array or dask DataFrame: the same checks, defaults,
random seed and fitted attributes as the in-memory ``fit``, with the rows left on the workers
(``labels_`` and the S3VM's ``transduction_`` are dask arrays)."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._aid_base import UNCERTIFIED, UNFINISHED, _check_binary, _default_svm_clusters, _inner_solver
from .._aid_lad import _rescaled_lad, _rescaled_progress
from .._rbf_shift import SAMPLE_ROWS, rbf_shift
from .._validation import gamma_of_variance, overflow_error
from . import _aid_init as ini
from ._aid import LadModel, Model, S3vmModel, SvmModel, gather_support, run_aid
from ._compat import da, dask, loaded_dataframe
from ._engine import Partition, Rows, run_pass


def is_dask_collection(value: Any) -> bool:
    return hasattr(value, "__dask_graph__") and callable(value.__dask_graph__)


def _as_array(value: Any) -> tuple[Any, list[Any] | None]:
    """A dask array (and the column names of a DataFrame)."""
    dd = loaded_dataframe()
    if dd is not None and isinstance(value, dd.DataFrame):
        return value.to_dask_array(lengths=True), list(value.columns)
    if dd is not None and isinstance(value, dd.Series):
        return value.to_dask_array(lengths=True), None
    return da.asarray(value), None


def _float_block(block: Any, what: str) -> Any:
    """A block of an object or string array as float64, as the in-memory fit converts such an
    array; a value that is not a number raises, ``what`` (the parameter, and what it must be)
    first, as the in-memory message."""
    try:
        return np.asarray(block, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what}: {error}") from None


def _numeric(array: Any, name: str, what: str) -> Any:
    """The dask array ``array`` (the parameter ``name``) checked as the in-memory fits check
    theirs: numbers are kept, object and string arrays converted to float64 block by block
    (a value that is not a number raises in the first pass, the message starting with
    ``what``), complex and other dtypes refused now. dask's own errors were internal ones (a
    TypeError of its ufunc machinery)."""
    kind = array.dtype.kind
    if kind in "biuf":
        return array
    if kind in "OSU":
        return array.map_blocks(_float_block, what, dtype=np.float64)
    if kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {array.dtype}")
    raise ValueError(f"{name} must be numeric, got a dask array of dtype {array.dtype}")


def _numpy_target(y: Any, n: int) -> Any:
    """A NumPy (or list) ``y`` for ``n`` rows: one value per row, a column of one accepted.
    ``da.from_array`` with X's row chunks raised dask's "Chunks do not add up to shape" for a
    ``y`` one row short."""
    target = np.asarray(y)
    if target.ndim == 2 and target.shape[1] == 1:
        target = target.ravel()
    if target.ndim != 1 or target.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has shape {np.shape(y)}")
    return target


def to_rows(X: Any, y: Any, numeric_y: bool = False) -> tuple[Rows, Any, Any, list[Any] | None]:
    """Row blocks of ``X`` (one chunk across the features) and ``y`` (same row chunks), checked
    before any pass over them: ``X`` numeric (:func:`_numeric`), ``y`` one value per row, and
    numeric too where ``numeric_y`` (a regression's target)."""
    array, names = _as_array(X)
    if array.ndim != 2:
        raise ValueError(f"Expected a 2D array, got {array.ndim}D (shape {array.shape})")
    array = _numeric(array, "X", "X must hold numbers")
    if any(math.isnan(c) for c in array.chunks[0]):
        array = array.compute_chunk_sizes()
    array = array.rechunk({0: array.chunks[0], 1: -1})
    n, m = int(array.shape[0]), int(array.shape[1])
    if n == 0 or m == 0:
        raise ValueError(f"Found array with shape {array.shape}: AID needs rows and features")
    if is_dask_collection(y):
        target, _ = _as_array(y)
        if any(math.isnan(c) for c in target.chunks[0]):
            target = target.compute_chunk_sizes()
    else:
        target = da.from_array(_numpy_target(y, n), chunks=(array.chunks[0],))
    if target.ndim != 1:
        target = target.reshape(-1) if target.ndim == 2 and target.shape[1] == 1 else target
    if target.ndim != 1 or int(target.shape[0]) != n:
        raise ValueError(f"X has {n} rows but y has shape {target.shape}")
    if numeric_y:
        target = _numeric(target, "y", "y must be numeric for regression")
    target = target.rechunk((array.chunks[0],))
    sizes = np.asarray(array.chunks[0], dtype=np.int64)
    rows = Rows(
        x=list(array.to_delayed()[:, 0]),
        y=list(target.to_delayed()),
        sizes=sizes,
        starts=np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
        n=n,
        m=m,
    )
    return rows, array, target, names


def _initial(
    estimator: Any, rows: Rows, array: Any, default_k: int
) -> tuple[str, int, list[Any] | None]:
    """``init`` as ``("kmeans" | "random", k, None)`` or ``("given", 1, ids per block)``."""
    init = estimator.init
    if is_dask_collection(init):
        ids, _ = _as_array(init)
        if ids.ndim != 1 or int(ids.shape[0]) != rows.n:
            raise ValueError(
                f"init must have one cluster id per sample ({rows.n}), got shape {ids.shape}"
            )
        if not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"init cluster ids must be integers, got dtype {ids.dtype}")
        return "given", 1, list(ids.rechunk((array.chunks[0],)).to_delayed())
    kind, k = estimator._init_and_k(rows.n, default_k)
    if isinstance(kind, str):
        return kind, k, None
    blocks = [kind[s : s + z] for s, z in zip(rows.starts, rows.sizes, strict=True)]
    return "given", 1, blocks


def _scan(rows: Rows, spec: ini.Spec, linear: bool = True) -> list[dict[str, Any]]:
    """The blocks' facts (``scan_block``), with the in-memory fits' checks of them: no
    non-finite value, and (for a linear model: ``linear``) no row whose squared norm
    overflows float64."""
    scans: list[dict[str, Any]] = run_pass(ini.scan_block, rows, spec, reduce=False)
    if sum(s["nonfinite"] for s in scans):
        raise ValueError("Input contains NaN or infinity.")
    if linear and any(s["overflows"] for s in scans):
        raise overflow_error(max(s["max_abs"] for s in scans))
    return scans


def _scale_gamma(array: Any, n_features: int) -> float:
    """``gamma="scale"`` over a dask array, as :func:`scale_gamma` computes it in memory: the
    variance of every value in two passes of sums (dask's ``var`` takes a mean per chunk, NaN
    for an empty one)."""
    values = array.astype(np.float64)
    size = float(values.size)
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(values.sum().compute()) / size
        variance = float(((values - mean) ** 2).sum().compute()) / size
    return gamma_of_variance(variance, n_features, lambda: float(abs(values).max().compute()))


def _solved_rows(rows: Rows, array: Any, kind: str) -> Rows:
    """The rows the core solves over: RBF rows far from the origin shifted as the in-memory
    fit shifts them (``_rbf_shift``; the sample of :data:`SAMPLE_ROWS` evenly spaced rows is the
    in-memory one, so is the shift), else the rows as given."""
    if kind != "rbf":
        return rows
    sample = np.asarray(array[:: max(1, rows.n // SAMPLE_ROWS)].compute(), dtype=np.float64)
    shift = rbf_shift(sample, kind)
    if shift is None:
        return rows
    return replace(rows, x=list((array.astype(np.float64) - shift).to_delayed()[:, 0]))


def _values(scans: list[dict[str, Any]]) -> Any:
    return np.unique(np.concatenate([s["values"] for s in scans]))


def _start(
    rows: Rows,
    spec: ini.Spec,
    scans: list[dict[str, Any]],
    kind: str,
    k: int,
    ids: Any,
    seed: int,
    sample: Any = None,
) -> Partition:
    if kind == "random":
        return ini.from_ids(rows, spec, None, k, seed)
    if kind == "given":
        return ini.from_ids(rows, spec, ids, 1, seed)
    if spec.kind == "lad":
        return ini.kmeans_lad(rows, spec, k, seed, 0)
    return ini.kmeans_grouped(rows, spec, scans, k, seed, sample() if sample else None)


def _labels_array(rows: Rows, part: Partition) -> Any:
    return da.concatenate(
        [
            da.from_delayed(lab, shape=(int(size),), dtype=np.int64)
            for lab, size in zip(part.labels(), rows.sizes, strict=True)
        ]
    )


def _store(
    estimator: Any,
    result: dict[str, Any],
    rows: Rows,
    init_time: float,
    names: list[Any] | None,
    warn_on: tuple[str, ...] = UNFINISHED,
) -> None:
    labels = _labels_array(rows, result["partition"])
    fitted = {**result, "init_time": init_time, "labels": labels}
    estimator._store_result(fitted, warn_on)
    estimator.n_features_in_ = rows.m
    if names is not None and all(isinstance(name, str) for name in names):
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


def _loop(
    estimator: Any,
    rows: Rows,
    spec: ini.Spec,
    model: Model,
    part: Partition,
    options: dict[str, Any],
) -> dict[str, Any]:
    return run_aid(
        rows,
        spec,
        model,
        part,
        tol=float(options["tol"]),
        max_iter=int(options["max_iter"]),
        time_limit=options["time_limit"],
        callback=options["callback"],
    )


def fit_regressor(estimator: Any, X: Any, y: Any) -> Any:
    """``AIDRegressor.fit`` on dask data."""
    estimator._check_aid_params()
    rows, array, target, names = to_rows(X, y, numeric_y=True)
    spec = ini.Spec("lad", intercept=bool(estimator.fit_intercept))
    scans = _scan(rows, spec)
    # As the in-memory AIDRegressor: columns scaled to max |x_ij| = 1 (the intercept's column of
    # ones is already), and y / max|y| when max|y| < 1, so that the LP's and the purity test's
    # absolute tolerances are relative ones; the model is scaled back at the end.
    column_scale = np.max([s["max_absx"] for s in scans], axis=0)
    column_scale[column_scale == 0] = 1.0
    y_scale = max(s["max_absy"] for s in scans)
    y_scale = y_scale if 0.0 < y_scale < 1.0 else 1.0
    rows, array, _, _ = to_rows(array / column_scale, target / y_scale)
    n, m = rows.n, rows.m
    d = m + int(spec.intercept)
    rate = 3 * d if d * n > 5e8 else 2 * d
    kind, k, ids = _initial(estimator, rows, array, min(n, max(rate, math.ceil(0.0005 * n), d + 1)))
    options = estimator._core_options()
    if y_scale != 1.0 and options["callback"] is not None:
        options["callback"] = _rescaled_progress(options["callback"], y_scale)
    clock = time.perf_counter()
    part = _start(rows, spec, scans, kind, k, ids, options["seed"])
    init_time = time.perf_counter() - clock
    scale = max([1.0] + [s["max_absy"] / y_scale for s in scans])
    inner = {"tol": 1e-9, "n_jobs": options["n_jobs"], "time_limit": options["time_limit"]}
    result = _loop(estimator, rows, spec, LadModel(spec, 1e-9 * scale, inner), part, options)
    result = _rescaled_lad({**result, "coef": result["fit"]["beta"]}, y_scale)
    design_scale = np.append(column_scale, 1.0) if spec.intercept else column_scale
    coef = np.asarray(result["coef"], dtype=np.float64) / design_scale
    estimator.coef_ = coef[:m].copy()
    estimator.intercept_ = float(coef[m]) if spec.intercept else 0.0
    _store(estimator, result, rows, init_time, names)
    return estimator


def _inner_options(options: dict[str, Any]) -> dict[str, Any]:
    return {**options["inner"], "n_jobs": options["n_jobs"], "time_limit": options["time_limit"]}


def fit_classifier(estimator: Any, X: Any, y: Any) -> Any:
    """``AIDClassifier.fit`` on dask data."""
    estimator._check_params()
    rows, array, _, names = to_rows(X, y)
    spec = ini.Spec("svm")
    scans = _scan(rows, spec, linear=estimator.kernel == "linear")
    values = _values(scans)
    check_classification_targets(values)
    _check_binary(len(values), "y")
    spec.classes = values
    n, m = rows.n, rows.m
    if estimator.gamma == "scale":
        gamma = _scale_gamma(array, m)
    elif estimator.gamma == "auto":
        gamma = 1.0 / m
    else:
        gamma = float(estimator.gamma)
    params = (str(estimator.kernel), gamma, int(estimator.degree), float(estimator.coef0))
    spec.kernel = params
    kind, k, ids = _initial(estimator, rows, array, _default_svm_clusters(n, m))
    options = estimator._core_options(estimator._inner_smo())
    solver_options = _inner_options(options)
    c = float(estimator.C)
    seed = options["seed"]
    clock = time.perf_counter()
    solved = _solved_rows(rows, array, params[0])
    part = _start(
        solved,
        spec,
        scans,
        kind,
        k,
        ids,
        seed,
        lambda: ini.sample_svm(solved, spec, c, seed, solver_options),
    )
    init_time = time.perf_counter() - clock
    result = _loop(estimator, solved, spec, SvmModel(spec, c, solver_options), part, options)
    fit = result["fit"]
    row_coef = fit["shares"] * fit["signs"]
    # the support vectors as given (the model shifts them with the rows it predicts)
    sv, coef, index = dask.compute(gather_support(rows, fit["part"], row_coef))[0]
    estimator.classes_ = values
    estimator.support_ = index.astype(np.int32)
    estimator.support_vectors_ = np.ascontiguousarray(sv)
    estimator.dual_coef_ = coef.reshape(1, -1)
    estimator.intercept_ = np.array([float(fit["b"])])
    estimator._coef = fit["w"].reshape(1, -1) if params[0] == "linear" else None
    estimator._kernel_params = params
    _store(estimator, result, rows, init_time, names, warn_on=UNCERTIFIED)
    return estimator


def fit_semi_supervised(estimator: Any, X: Any, y: Any) -> Any:
    """``AIDSemiSupervisedClassifier.fit`` on dask data."""
    estimator._check_params()
    if estimator.balance is not None:
        raise NotImplementedError(
            f"balance={estimator.balance!r} is not implemented for dask input yet; fit on a "
            "NumPy array, or set balance=None"
        )
    rows, array, target, names = to_rows(X, y)
    spec = ini.Spec("s3vm")
    scans = _scan(rows, spec)
    values = _values(scans)
    check_classification_targets(values)
    if not np.issubdtype(values.dtype, np.number):
        raise ValueError("y must be numeric, with -1 marking unlabeled rows")
    classes = values[values != -1]
    _check_binary(len(classes), "the labeled rows of y (y != -1)")
    spec.classes = classes
    n = rows.n
    kind, k, ids = _initial(estimator, rows, array, min(n, max(10, math.ceil(0.01 * n))))
    options = estimator._core_options(_inner_solver(estimator.solver))
    clock = time.perf_counter()
    part = _start(rows, spec, scans, kind, k, ids, options["seed"])
    init_time = time.perf_counter() - clock
    model = S3vmModel(
        spec,
        float(estimator.C),
        float(estimator.C_unlabeled),
        int(estimator.exact_max_clusters),
        _inner_options(options),
    )
    result = _loop(estimator, rows, spec, model, part, options)
    fit = result["fit"]
    estimator.classes_ = classes
    estimator.coef_ = np.asarray(fit["w"], dtype=np.float64).reshape(1, -1)
    estimator.intercept_ = np.array([float(fit["b"])])
    estimator.aggregated_objective_ = float(result["aggregated_objective"])
    estimator.n_svm_solves_ = int(model.svm_solves)
    _store(estimator, result, rows, init_time, names, warn_on=("time_limit", "stopped"))
    w, b = estimator.coef_[0], float(estimator.intercept_[0])
    predicted = array.map_blocks(
        lambda block: classes[(np.asarray(block, dtype=np.float64) @ w + b >= 0).astype(int)],
        drop_axis=1,
        dtype=classes.dtype,
    )
    estimator.transduction_ = da.where(target != -1, target, predicted)
    return estimator


def fit_aid(estimator: Any, X: Any, y: Any) -> Any:
    """Dispatches ``fit`` of an AID estimator on dask data."""
    from ..aid import AIDClassifier, AIDRegressor, AIDSemiSupervisedClassifier

    if isinstance(estimator, AIDRegressor):
        return fit_regressor(estimator, X, y)
    if isinstance(estimator, AIDSemiSupervisedClassifier):
        return fit_semi_supervised(estimator, X, y)
    if isinstance(estimator, AIDClassifier):
        return fit_classifier(estimator, X, y)
    raise TypeError(f"no distributed fit for {type(estimator).__name__}")
