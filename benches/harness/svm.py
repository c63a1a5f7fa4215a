"""The SVM peers (kernelkit, scikit-learn's LIBSVM, scikit-learn-intelex) built the same way,
and the one fit every SVM benchmark measures (``fit_svm``, a ``Case`` child)."""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .data import unstash
from .machine import blas_threads
from .objectives import dual_objectives, r2
from .runner import Case, timed_fit, timed_predict

# sklearnex/oneDAL silently turns max_iter=-1 into 10,000 iterations: a large explicit cap.
SKLEARNEX_MAX_ITER = 100_000_000
SOLVER_MODULES = {"kernelkit": "kernelkit", "sklearn": "sklearn", "sklearnex": "sklearnex"}


def estimator(
    solver: str, kind: str, params: dict[str, Any], n_jobs: int | None = None, **kk: Any
) -> Any:
    """``kind`` (SVC, NuSVC, SVR, NuSVR) of ``solver`` with ``params``; kernelkit also gets
    ``n_jobs`` and ``kk``, scikit-learn-intelex ``n_jobs`` and an explicit ``max_iter``;
    scikit-learn's LIBSVM is single-threaded."""
    if solver == "kernelkit":
        import kernelkit

        return getattr(kernelkit, kind)(**params, n_jobs=n_jobs, **kk)
    if solver == "sklearn":
        import sklearn.svm

        return getattr(sklearn.svm, kind)(**params)
    if solver == "sklearnex":
        import sklearnex.svm

        params = {"max_iter": SKLEARNEX_MAX_ITER, **params}
        return getattr(sklearnex.svm, kind)(**params, n_jobs=n_jobs)
    raise ValueError(f"unknown solver {solver!r}")


def svm_case(
    label: str, solver: str, kind: str, params: dict[str, Any], data: Any, keys: dict[str, Any],
    **opts: Any
) -> Case:  # fmt: skip
    """A ``fit_svm`` case. ``data``: a stash folder (X_train, y_train and maybe X_test,
    y_test) or ``(function, args)`` that makes (X, y) in the child. ``opts``: ``n_jobs``,
    ``n`` (first rows), ``kk`` (kernelkit-only parameters), ``objective`` (False: none),
    ``proba`` (score predict_proba), ``blas`` (threadpool limit), ``timeout``, ``import_path``."""
    timeout, import_path = opts.pop("timeout", None), opts.pop("import_path", None)
    p = {"solver": solver, "kind": kind, "est": params, "data": data, **opts}
    return Case(label, fit_svm, p, keys, timeout, import_path)


def _arrays(p: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    data = p["data"]
    if isinstance(data, tuple):
        fn: Callable[..., Any] = data[0]
        return (*fn(*data[1]), None, None)
    n = p.get("n")
    return (unstash(data, "X_train", n), unstash(data, "y_train", n),
            unstash(data, "X_test"), unstash(data, "y_test"))  # fmt: skip


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray | np.generic):
        return np.ravel(np.asarray(value)).tolist()
    return repr(value)


def fit_svm(case: Case) -> dict[str, Any]:
    """Fit, predict the test rows, recompute the dual objective. Runs in a fresh process."""
    p = case.params
    with blas_threads(p["blas"]) if p.get("blas") else contextlib.nullcontext():
        X, y, Xt, yt = _arrays(p)
        est = estimator(p["solver"], p["kind"], p["est"], p.get("n_jobs"), **p.get("kk", {}))
        load1 = os.getloadavg()[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # max_iter cuts, deprecations: counted elsewhere
            out = timed_fit(est, X, y)
            out["load1_at_start"] = load1
            if Xt is not None:
                pred, stats = timed_predict(
                    est, Xt, "predict_proba" if p.get("proba") else "predict"
                )
                out.update(stats)
                if p.get("proba"):
                    out["proba"] = pred
                elif p["kind"] in ("SVR", "NuSVR"):
                    out["score"], out["y_pred"] = r2(yt, pred), np.asarray(pred, dtype=np.float32)
                else:
                    out["score"] = float(np.mean(pred == yt))
                    out["y_pred"] = np.asarray(pred, dtype=np.float32)
    if p.get("objective", True):  # after the peaks were read, so it does not inflate them
        t0 = time.perf_counter()
        gamma, eps = float(p["est"]["gamma"]), float(p["est"].get("epsilon", 0.0))
        pairs = dual_objectives(est, p["kind"], gamma, y, eps)
        out.update(
            objective=float(sum(pairs)), objective_pairs=pairs,
            objective_eval_s=time.perf_counter() - t0
        )  # fmt: skip
    dc = est.dual_coef_
    dc = np.abs(np.asarray(dc.toarray() if hasattr(dc, "toarray") else dc))
    out.update(
        n_sv=int(np.asarray(est.n_support_).sum()), n_support=np.asarray(est.n_support_).tolist(),
        n_iter=np.ravel(np.asarray(getattr(est, "n_iter_", np.nan), dtype=float)).tolist(),
        intercept=float(np.ravel(est.intercept_)[0]), sum_abs_dual_coef=float(dc.sum()),
        max_abs_dual_coef=float(dc.max()),
        support_vectors_sparse=hasattr(est.support_vectors_, "toarray")
    )  # fmt: skip
    if p["solver"] == "kernelkit":
        import kernelkit

        out["kernelkit_module"] = str(Path(kernelkit.__file__).parent)
        for attr in ("objective_", "kkt_gap_", "status_"):
            value = getattr(est, attr, None)
            out[f"reported_{attr[:-1]}"] = None if value is None else np.ravel(value).tolist()
        stats = _jsonable(getattr(est, "solver_stats_", None))
        out["reported_solver_stats"] = stats
        out["solver_stats"] = stats[0] if isinstance(stats, list) else stats
    if p["solver"] == "sklearnex":  # it falls back to scikit-learn for unsupported settings
        out["backend"] = "onedal" if getattr(est, "_onedal_estimator", None) else "sklearn"
    return out
