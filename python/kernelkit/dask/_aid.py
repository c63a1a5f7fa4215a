"""AID over a dask array: the loop of ``crates/solvers/src/aid/driver.rs`` with the per-row work
(residuals or decision values, purity flags, cells, the sums of the next partition's clusters)
done blockwise on the workers, and only the aggregated problem solved in one task.

Per aggregated solve there is one pass over the rows; it brings back ``O(K · cells · d)``
numbers (``K`` clusters). The aggregated problems are the core's: the same clusters (numbered
as the core numbers them), the same centroids up to the order of floating-point sums, the same
inner solvers (Clarabel for LAD, SMO with the core's warm start for the SVM, the core's own
label search, ``_core.aid_s3vm_search``, for the S3VM), so the iterates, the iteration count
and the final model are the in-memory AID's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import _core
from . import _aid_init as ini
from ._compat import dask, delayed
from ._engine import (
    Float64Array,
    IntArray,
    Partition,
    Rows,
    Stats,
    as_float_block,
    run_pass,
    split,
    tree_reduce,
)

#: Purity tolerance of the SVM / S3VM cells (the core's ``purity_tol``).
PURITY_TOL = 1e-9


# -- the aggregated solves (one task each) --------------------------------------------------


def solve_lad(
    xbar: Float64Array, ybar: Float64Array, weights: Float64Array, options: dict[str, Any]
) -> tuple[Float64Array, float, float]:
    """The weighted LAD ``min_β Σ_k w_k |ȳ_k − x̄_k·β|`` by the core's Clarabel LP (the LP the
    core's AID-LAD solves). Returns ``β``, the objective and the LP's dual value (a lower
    bound)."""
    solution = _core.solve_weighted_lad(
        np.ascontiguousarray(xbar), np.ascontiguousarray(ybar), weights, **options
    )
    objective = float(solution.objective)
    return np.asarray(solution.x, dtype=np.float64), objective, objective - float(solution.gap)


def solve_box(
    gram: Float64Array,
    signs: Float64Array,
    upper: Float64Array,
    alpha0: Float64Array | None,
    options: dict[str, Any],
) -> tuple[Float64Array, float, str]:
    """The aggregated SVM dual (21) by the core's SMO: the C-SVC on the precomputed ``K̄`` from
    the warm start ``alpha0`` (``Q = y yᵀ ∘ K̄``, as the core builds it)."""
    kernel = _core.Kernel("precomputed")
    solution = _core.solve_c_svc(
        np.ascontiguousarray(gram), signs, upper, kernel, alpha0, **options
    )
    return np.asarray(solution.x, dtype=np.float64), float(solution.bias), str(solution.status)


def solve_linear_svm(
    centroids: Float64Array,
    signs: Float64Array,
    upper: Float64Array,
    alpha0: Float64Array,
    options: dict[str, Any],
) -> tuple[Float64Array, float, str]:
    """The linear aggregated SVM on one worker: the core's problem exactly, the C-SVC on the
    centroids with the linear kernel computed on the fly (no ``K × K`` matrix) from the core's
    warm start ``alpha0``."""
    kernel = _core.Kernel("linear")
    solution = _core.solve_c_svc(
        np.ascontiguousarray(centroids), signs, upper, kernel, alpha0, **options
    )
    return np.asarray(solution.x, dtype=np.float64), float(solution.bias), str(solution.status)


def linear_weights(centroids: Float64Array, alpha: Float64Array, signs: Float64Array) -> Any:
    """``Σ_k α_k y_k x̄_k`` over the clusters in order (the core's ``linear_weights``)."""
    w = np.zeros(centroids.shape[1])
    for k in np.flatnonzero(alpha * signs != 0):
        w += (alpha[k] * signs[k]) * centroids[k]
    return w


def seqsum(values: Float64Array) -> float:
    """A left-to-right sum (the core's ``iter().sum()``)."""
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def repeated_sum(value: float, count: int) -> float:
    """``value`` added ``count`` times left to right (the core's warm start sums the equal
    shares of a cluster's rows)."""
    if value == 0.0 or count == 0:
        return 0.0
    acc = 0.0
    step = 1 << 20
    done = 0
    while done < count:
        chunk = min(step, count - done)
        acc = float(np.cumsum(np.concatenate([[acc], np.full(chunk, value)]))[-1])
        done += chunk
    return acc


def s3vm_search(
    centroids: Float64Array,
    labels: Float64Array,
    weights: Float64Array,
    exact_max: int,
    options: dict[str, Any],
    remaining: float | None = None,
) -> dict[str, Any]:
    """The core's search over the labels of the unlabeled clusters (its ``search_labels``, the
    step of AID-S3VM's aggregated solve), in one task: branch and bound (or local search), an
    SMO solve per node, ended early after ``remaining`` seconds."""
    return _core.aid_s3vm_search(
        np.ascontiguousarray(centroids), labels, weights, exact_max, remaining, **options
    )


# -- the pass over the rows -----------------------------------------------------------------


def evaluate_block(
    x: Any, y: Any, start: int, shared: dict[str, Any], key: IntArray, offset: int
) -> tuple[IntArray, Stats]:
    """Evaluates the aggregated solution on one block by the core's per-block step
    (``_core.aid_evaluate_block``): per row the key ``cluster · n_cells + cell``, per cluster
    the purity counts and the losses, per key the sums of the next partition's clusters."""
    spec: ini.Spec = shared["spec"]
    solution = dict(shared["solution"])
    if "support" in solution:
        solution["kernel"] = ini.kernel_object(spec.kernel)
    stats = dict(
        _core.aid_evaluate_block(
            spec.kind,
            as_float_block(x),
            ini.core_labels(y, spec),
            np.asarray(shared["table"][key + offset], dtype=np.int64),
            shared["k"],
            start,
            shared["tol"],
            spec.sums_x,
            **solution,
        )
    )
    return stats.pop("keys"), stats


def gram_pair(
    xa: Any,
    xb: Any,
    la: IntArray,
    lb: IntArray,
    k: int,
    kernel: tuple[str, float, int, float],
    mirrored: bool,
) -> Stats:
    """``S(p, q) = Σ_{i∈C_p ∩ a, j∈C_q ∩ b} K(x_i, x_j)`` for the blocks ``a``, ``b`` (and its
    transpose when ``a ≠ b``)."""
    gram = _core.kernel_matrix(as_float_block(xa), as_float_block(xb), ini.kernel_object(kernel), 1)
    by_col = np.zeros((gram.shape[0], k))
    for q in range(k):
        cols = np.flatnonzero(lb == q)
        if cols.size:
            by_col[:, q] = gram[:, cols].sum(axis=1)
    sums = np.zeros((k, k))
    np.add.at(sums, la, by_col)
    if mirrored:
        sums = sums + sums.T
    return {"gram": sums}


def support_block(
    x: Any, y: Any, start: int, shared: dict[str, Any], labels: IntArray
) -> tuple[Float64Array, Float64Array, IntArray]:
    """The rows of the support clusters: values, ``α̂_i y_i`` and global indices."""
    coef = shared["row_coef"][labels]
    keep = np.flatnonzero(coef != 0)
    return as_float_block(x)[keep], coef[keep], start + keep


def gather_support(rows: Rows, part: Partition, row_coef: Float64Array) -> Any:
    """The support rows (Delayed tuple, concatenated in row order on a worker)."""
    shared = delayed({"row_coef": row_coef}, pure=True, traverse=False)
    labels = part.labels()
    pieces = [
        delayed(support_block, pure=True)(rows.x[b], None, int(rows.starts[b]), shared, labels[b])
        for b in range(rows.n_blocks)
    ]
    return delayed(_concat_support, pure=True)(pieces)


def _concat_support(pieces: list[Any]) -> tuple[Float64Array, Float64Array, IntArray]:
    return (
        np.ascontiguousarray(np.concatenate([p[0] for p in pieces])),
        np.concatenate([p[1] for p in pieces]),
        np.concatenate([p[2] for p in pieces]),
    )


# -- models ---------------------------------------------------------------------------------


class Fit(dict[str, Any]):
    """One round's solution (and what the pass over the rows needs of it)."""


class LadModel:
    n_cells = 2
    certifies = True

    def __init__(self, spec: ini.Spec, tol: float, options: dict[str, Any]) -> None:
        self.spec, self.tol, self.options = spec, tol, options

    def solve(self, rows: Rows, part: Partition) -> Fit:
        xbar = part.centroids()
        if self.spec.intercept:
            xbar = np.hstack([xbar, np.ones((part.k, 1))])
        assert part.sum_y is not None
        ybar = part.sum_y / part.count
        weights = part.count.astype(np.float64)
        task = delayed(solve_lad)(xbar, ybar, weights, self.options)
        beta, objective, lower = dask.compute(task)[0]
        return Fit(beta=beta, F=objective, lower=lower)

    def shared(self, fit: Fit) -> dict[str, Any]:
        return {"solution": {"beta": fit["beta"]}, "tol": self.tol}

    def full_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        return float(stats["loss"][0])


class SvmModel:
    n_cells = 2
    certifies = True

    def __init__(self, spec: ini.Spec, c: float, options: dict[str, Any]) -> None:
        self.spec, self.c, self.options = spec, c, options
        self.shares: Float64Array | None = None
        self.gram: Float64Array | None = None

    def solve(self, rows: Rows, part: Partition) -> Fit:
        k = part.k
        signs = np.where(part.group > 0, 1.0, -1.0)
        sizes = part.count.astype(np.float64)
        upper = self.c * sizes
        alpha0 = np.zeros(k)
        if self.shares is not None and part.parent is not None:
            for c in np.flatnonzero(self.shares[part.parent] != 0):
                share = float(self.shares[part.parent[c]])
                alpha0[c] = min(max(repeated_sum(share, int(part.count[c])), 0.0), upper[c])
        if self.spec.kernel[0] == "linear":
            centroids = part.centroids()
            task = delayed(solve_linear_svm)(centroids, signs, upper, alpha0, self.options)
            alpha, bias, _ = dask.compute(task)[0]
            w = linear_weights(centroids, alpha, signs)
            w_norm2 = seqsum(w * w)
            fit = Fit(w=w)
        else:
            sums = self.gram_sums(rows, part)
            means = sums / np.outer(sizes, sizes)
            task = delayed(solve_box)(means, signs, upper, alpha0, self.options)
            alpha, bias, _ = dask.compute(task)[0]
            coef = alpha * signs
            w_norm2 = float(coef @ means @ coef)
            fit = Fit()
        self.shares = alpha / sizes
        fit.update(
            alpha=alpha,
            b=bias,
            w_norm2=w_norm2,
            shares=self.shares,
            signs=signs,
            lower=seqsum(alpha) - 0.5 * w_norm2,
            part=part,
        )
        if self.spec.kernel[0] != "linear":
            fit["support"] = gather_support(rows, part, self.shares * signs)
        return fit

    def gram_sums(self, rows: Rows, part: Partition) -> Float64Array:
        """The block sums of the Gram matrix over the clusters: one task per pair of blocks."""
        labels = part.labels()
        pieces = []
        for a in range(rows.n_blocks):
            for b in range(a, rows.n_blocks):
                pieces.append(
                    delayed(gram_pair, pure=True)(
                        rows.x[a], rows.x[b], labels[a], labels[b], part.k, self.spec.kernel, a != b
                    )
                )
        return np.asarray(dask.compute(tree_reduce(pieces))[0]["gram"], dtype=np.float64)

    def shared(self, fit: Fit) -> dict[str, Any]:
        solution: dict[str, Any] = {"bias": fit["b"]}
        if "w" in fit:
            solution["w"] = fit["w"]
        else:
            sv, coef, _ = dask.compute(fit["support"])[0]
            solution["support"], solution["coef"] = sv, coef
        return {"solution": solution, "tol": PURITY_TOL}

    def full_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        return float(0.5 * fit["w_norm2"] + self.c * stats["loss"][0])

    def aggregated_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        sizes = part.count.astype(np.float64)
        cluster_f = stats["sum_f"] / sizes
        hinge = sizes * np.maximum(1.0 - fit["signs"] * cluster_f, 0.0)
        return float(0.5 * fit["w_norm2"] + self.c * seqsum(hinge))


class S3vmModel:
    n_cells = 6
    certifies = False

    def __init__(
        self, spec: ini.Spec, c: float, c_unlabeled: float, exact: int, options: dict[str, Any]
    ) -> None:
        self.spec, self.c, self.c_unlabeled = spec, c, c_unlabeled
        self.exact, self.options = exact, options
        self.svm_solves = 0
        self.started: float | None = None

    def solve(self, rows: Rows, part: Partition) -> Fit:
        labels = (part.group - 1).astype(np.float64)
        sizes = part.count.astype(np.float64)
        weights = sizes * np.where(labels == 0, self.c_unlabeled, self.c)
        if self.started is None:
            self.started = time.perf_counter()
        limit = self.options.get("time_limit")
        remaining = None if limit is None else limit - (time.perf_counter() - self.started)
        task = delayed(s3vm_search)(
            part.centroids(), labels, weights, self.exact, self.options, remaining
        )
        found = dask.compute(task)[0]
        self.svm_solves += int(found["svm_solves"])
        w = np.asarray(found["coef"], dtype=np.float64)
        return Fit(
            w=w,
            b=float(found["bias"]),
            F=float(found["objective"]),
            lower=float(found["lower_bound"]),
            w_norm2=seqsum(w * w),
        )

    def shared(self, fit: Fit) -> dict[str, Any]:
        return {"solution": {"w": fit["w"], "bias": fit["b"]}, "tol": PURITY_TOL}

    def full_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        labeled, unlabeled = stats["loss"]
        return float(0.5 * fit["w_norm2"] + self.c * labeled + self.c_unlabeled * unlabeled)


Model = LadModel | SvmModel | S3vmModel


# -- the loop -------------------------------------------------------------------------------


def run_aid(
    rows: Rows,
    spec: ini.Spec,
    model: Model,
    part: Partition,
    *,
    tol: float,
    max_iter: int,
    time_limit: float | None,
    callback: Callable[[Mapping[str, Any]], Any] | None,
) -> dict[str, Any]:
    """The core's ``Aid::run``: solve, evaluate on every row, keep the best, stop when pure,
    when the gap is at most ``tol``, on the callback's word, at ``max_iter`` solves or at the
    time limit; else split the impure clusters."""
    start = time.perf_counter()
    history: list[dict[str, Any]] = []
    best: tuple[float, Fit] | None = None
    lower = -math.inf
    offsets = part.offsets
    while True:
        fit = model.solve(rows, part)
        shared = {"spec": spec, "table": part.table, "k": part.k, **model.shared(fit)}
        keys, stats = run_pass(
            evaluate_block, rows, shared, [part.keys, [int(o) for o in offsets]], keep=True
        )
        full = model.full_objective(fit, part, stats)
        if not math.isfinite(full):
            raise ValueError("the aggregated solution has a non-finite objective")
        aggregated = (
            model.aggregated_objective(fit, part, stats)
            if isinstance(model, SvmModel)
            else float(fit["F"])
        )
        fit["F"] = aggregated
        if best is None or full < best[0]:
            best = (full, fit)
        upper = best[0]
        lower = max(lower, min(float(fit["lower"]), upper))
        gap = max((upper - lower) / upper, 0.0) if upper > 0 else 0.0
        impure = np.flatnonzero(np.all(stats["lack"] > 0, axis=0))
        record = {
            "iteration": len(history),
            "n_clusters": part.k,
            "lower_bound": lower,
            "upper_bound": upper,
            "gap": gap,
            "time": time.perf_counter() - start,
            "aggregated_objective": aggregated,
            "full_objective": full,
            "n_impure": int(impure.shape[0]),
        }
        history.append(record)
        stop = bool(callback(dict(record))) if callback is not None else False
        status = None
        if impure.shape[0] == 0:
            status = "optimal" if model.certifies else "pure"
        elif gap <= tol:
            status = "gap"
        elif stop:
            status = "stopped"
        elif len(history) >= max_iter:
            status = "max_iter"
        elif time_limit is not None and time.perf_counter() - start >= time_limit:
            status = "time_limit"
        if status is not None:
            return {
                "fit": best[1],
                "objective": best[0],
                "aggregated_objective": aggregated,
                "lower_bound": lower,
                "status": status,
                "n_iter": len(history),
                "history": history,
                "partition": part,
            }
        part = split(part, keys, model.n_cells, impure, stats)
        offsets = part.offsets
