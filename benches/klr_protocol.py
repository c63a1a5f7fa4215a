"""The protocol of ``reproduce_klr_tables.py`` (seed paper 004, digest §5.3): one fit of
``kernelkit.SparseKernelLogisticRegression`` (or the sklearn stand-in used to test the harness),
the fold preparation (min-max scaling on the training fold, 5% validation split), the (C, λ)
grids, the selection rules with their tie rules, and the per-(dataset, fold) tasks.

Selection rules (the paper gives no tie rule):

* "best": the highest validation accuracy; ties go to the first grid point in the order
  C ascending, then λ ascending (``numpy.argmax`` over the paper's nested loops, and what
  scikit-learn's ``GridSearchCV`` returns);
* "sparsest3" (sparsest of the 3 most accurate): rank by validation accuracy (descending, ties
  in the same grid order), keep the first 3, take the smallest ratio of selected points of the
  95% fit (ties: the better-ranked one);
* "best_sparse_ties" (not in the paper): the highest validation accuracy, ties to the smallest
  ratio, then grid order.
"""

from __future__ import annotations

import contextlib
import time
import traceback
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from klr_data import (
    DataMissing,
    Dataset,
    cv_folds,
    load,
    minmax_apply,
    minmax_fit,
    stratified_subsample,
    validation_split,
)


@dataclass(frozen=True)
class Config:
    C_grid: tuple[float, ...]
    n_lam: int
    folds: int
    val_fraction: float
    gamma: float
    bound_eps: float
    tol: float
    max_iter: int
    time_limit: float | None
    threads: int
    cache_size: float
    seed: int
    table4_folds: int  # folds on which the λ > 0 part of the 1ord grid runs
    lam_choice: bool
    max_rows: tuple[tuple[str, int], ...]
    stand_in: bool
    data_dir: str


# --------------------------------------------------------------------------- estimators
class StandInKLR:
    """Harness test only (``--stand-in``): sklearn SVC with the same interface subset.

    Raises the same "infeasible" ValueError as the real estimator; ``sparsity_`` is the
    fraction of support vectors. λ and the selection rule are ignored.
    """

    def __init__(self, *, C: float, lam: float, gamma: float, bound_eps: float = 1e-5, **_: Any):
        self.C, self.lam, self.gamma, self.bound_eps = C, lam, gamma, bound_eps

    def fit(self, X: Any, y: Any) -> StandInKLR:
        from sklearn.svm import SVC

        counts = np.unique(y, return_counts=True)[1]
        if self.bound_eps * counts.max() > (self.C - self.bound_eps) * counts.min():
            raise ValueError("infeasible box: bound_eps * n_majority > (C - bound_eps) * n_min")
        self._svc = SVC(C=self.C, gamma=self.gamma, tol=1e-3).fit(X, y)
        self.sparsity_ = len(self._svc.support_) / len(y)
        self.n_iter_ = int(self._svc.n_iter_[0])
        self.status_ = "converged"
        self.kkt_gap_ = 0.0
        return self

    def predict(self, X: Any) -> Any:
        return self._svc.predict(X)


def make_estimator(C: float, lam: float, selection: str, cfg: Config) -> Any:
    common = {"C": C, "lam": lam, "gamma": cfg.gamma, "bound_eps": cfg.bound_eps}
    if cfg.stand_in:
        return StandInKLR(**common)
    from kernelkit import SparseKernelLogisticRegression

    return SparseKernelLogisticRegression(
        **common,
        kernel="rbf",
        selection=selection,
        tol=cfg.tol,
        max_iter=cfg.max_iter,
        cache_size=cfg.cache_size,
        n_jobs=cfg.threads,
        time_limit=cfg.time_limit,
    )


def fit_one(
    X: Any, y: Any, Xe: Any, ye: Any, C: float, lam: float, selection: str, cfg: Config
) -> dict[str, Any]:
    """Fit on (X, y), score on (Xe, ye). Never raises: infeasible points and errors are
    recorded."""
    rec: dict[str, Any] = {"C": C, "lam": lam, "selection": selection}
    est = make_estimator(C, lam, selection, cfg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-convergence is counted through status_
        c0, t0 = time.process_time(), time.perf_counter()
        try:
            est.fit(X, y)
        except ValueError as exc:
            if "infeasible" in str(exc):
                rec["infeasible"] = True
                return rec
            rec["error"] = f"ValueError: {exc}"
            return rec
        except Exception as exc:
            rec["error"] = f"{type(exc).__name__}: {exc}"
            return rec
        rec["wall"] = time.perf_counter() - t0
        rec["cpu"] = time.process_time() - c0
    try:
        rec["accuracy"] = float(np.mean(np.asarray(est.predict(Xe)) == ye))
    except Exception as exc:
        rec["error"] = f"predict: {type(exc).__name__}: {exc}"
        return rec
    rec["ratio"] = float(est.sparsity_)
    rec["n_iter"] = int(est.n_iter_)
    rec["status"] = str(est.status_)
    rec["kkt_gap"] = float(est.kkt_gap_)
    return rec


def ok(rec: dict[str, Any]) -> bool:
    return "accuracy" in rec


# --------------------------------------------------------------------------- protocol
@lru_cache(maxsize=4)
def prepared(name: str, cfg: Config) -> Dataset:
    ds = load(name, Path(cfg.data_dir))
    return stratified_subsample(ds, dict(cfg.max_rows).get(name), cfg.seed)


def fold_data(name: str, fold: int, cfg: Config) -> dict[str, Any]:
    ds = prepared(name, cfg)
    tr, te = cv_folds(ds.y, cfg.folds, cfg.seed)[fold]
    lo, span = minmax_fit(ds.X[tr])
    Xtr, Xte = minmax_apply(ds.X[tr], lo, span), minmax_apply(ds.X[te], lo, span)
    ytr, yte = ds.y[tr], ds.y[te]
    fit, val = validation_split(ytr, cfg.val_fraction, cfg.seed + 1000 * (fold + 1))
    return {
        "Xtr": Xtr, "ytr": ytr, "Xte": Xte, "yte": yte,
        "Xf": np.ascontiguousarray(Xtr[fit]), "yf": ytr[fit],
        "Xv": np.ascontiguousarray(Xtr[val]), "yv": ytr[val],
    }  # fmt: skip


def lam_grid(C: float, n_lam: int) -> list[float]:
    return [float(v) for v in np.linspace(0.0, C, n_lam)]


def grid(d: dict[str, Any], cfg: Config, selection: str, lam_part: str) -> list[dict[str, Any]]:
    """Fits on the 95% part scored on the validation rows. ``lam_part``: "all" (the full λ
    grid), "zero" (λ = 0 only), "positive" (λ > 0 only), "choice" (λ = C/10)."""
    out = []
    for ci, C in enumerate(cfg.C_grid):
        lams = [C / 10.0] if lam_part == "choice" else lam_grid(C, cfg.n_lam)
        for li, lam in enumerate(lams):
            if (lam_part == "zero" and li > 0) or (lam_part == "positive" and li == 0):
                continue
            rec = fit_one(d["Xf"], d["yf"], d["Xv"], d["yv"], C, lam, selection, cfg)
            rec.update(ci=ci, li=li)
            out.append(rec)
    return out


def rank_key(r: dict[str, Any]) -> tuple[float, int, int]:
    return (-r["accuracy"], r["ci"], r["li"])


def select(records: Sequence[dict[str, Any]], rule: str) -> dict[str, Any] | None:
    """The tie rules of the module docstring."""
    cand = [r for r in records if ok(r)]
    if not cand:
        return None
    if rule == "best":
        return min(cand, key=rank_key)
    if rule == "sparsest3":
        top = sorted(cand, key=rank_key)[:3]
        return min(enumerate(top), key=lambda t: (t[1]["ratio"], t[0]))[1]
    if rule == "best_sparse_ties":
        top_acc = max(r["accuracy"] for r in cand)
        return min((r for r in cand if r["accuracy"] == top_acc),
                   key=lambda r: (r["ratio"], r["ci"], r["li"]))  # fmt: skip
    raise ValueError(rule)


def run_main(name: str, fold: int, cfg: Config) -> dict[str, Any]:
    """2ord grid, λ-choice column, 1ord λ = 0 column, selections and refits of one fold."""
    d = fold_data(name, fold, cfg)
    g2 = grid(d, cfg, "second_order", "all")
    g1 = grid(d, cfg, "first_order", "zero")
    gc = grid(d, cfg, "second_order", "choice") if cfg.lam_choice else []
    plans = {
        "S-KLR best": (g2, "best", "second_order"),
        "S-KLR sparsest-of-3": (g2, "sparsest3", "second_order"),
        "S-KLR best (sparse ties)": (g2, "best_sparse_ties", "second_order"),
        "KLR-1ord": (g1, "best", "first_order"),
        "KLR-2ord": ([r for r in g2 if r["li"] == 0], "best", "second_order"),
        "λ-choice best": (gc, "best", "second_order"),
        "λ-choice sparsest-of-3": (gc, "sparsest3", "second_order"),
    }
    refits: dict[tuple[float, float, str], dict[str, Any]] = {}
    methods: dict[str, Any] = {}
    for method, (records, rule, selection) in plans.items():
        chosen = select(records, rule)
        if chosen is None:
            continue
        key = (chosen["C"], chosen["lam"], selection)
        if key not in refits:
            refits[key] = fit_one(d["Xtr"], d["ytr"], d["Xte"], d["yte"], *key, cfg)
        methods[method] = {
            "C": chosen["C"],
            "lam": chosen["lam"],
            "val_accuracy": chosen["accuracy"],
            "val_ratio": chosen["ratio"],
            "refit": refits[key],
        }
    return {
        "n_train": len(d["ytr"]),
        "n_fit": len(d["yf"]),
        "n_val": len(d["yv"]),
        "n_test": len(d["yte"]),
        "grid2": g2,
        "grid1": g1,
        "lam_choice": gc,
        "methods": methods,
        "refits": list(refits.values()),
    }


def run_ord1(name: str, fold: int, cfg: Config) -> dict[str, Any]:
    """The λ > 0 part of the 1ord grid (Table 4)."""
    d = fold_data(name, fold, cfg)
    return {"grid1": grid(d, cfg, "first_order", "positive")}


def blas_threads(n: int) -> Any:
    """``threadpoolctl.threadpool_limits(n)`` (a no-op context when threadpoolctl is missing)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(n)


def run_task(task: tuple[str, int, str], cfg: Config) -> dict[str, Any]:
    """One (dataset, fold, part); never raises (errors are returned)."""
    t0 = time.perf_counter()
    try:
        with blas_threads(1):
            res = (run_main if task[2] == "main" else run_ord1)(task[0], task[1], cfg)
    except DataMissing as exc:
        res = {"missing": str(exc)}
    except Exception as exc:
        res = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
    res["task"] = list(task)
    res["seconds"] = time.perf_counter() - t0
    return res
