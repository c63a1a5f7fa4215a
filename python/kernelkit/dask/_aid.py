"""AID over a dask array: the core's AID with the rows left in blocks. Per aggregated solve
one pass maps the core's per-block step (``_core.aid_evaluate_block``: every row's cell, the
purity counts, the losses and the sums of the next partition's clusters) over the blocks and
reduces its per-cluster sums in a tree; the aggregated problem is solved in one task by the
core's own step (``_core.solve_weighted_lad`` for LAD, ``_core.aid_svm_aggregated`` with the
core's warm start for the SVM, ``_core.aid_s3vm_search`` for the S3VM); the core's
``AidDriver`` keeps the bounds and the history and says when to stop; ``_core.aid_split``
splits the impure clusters. The clusters are numbered as the core numbers them, so the
iterates, the iteration count and the final model are the in-memory AID's (up to the order of
the floating-point sums over the rows: docs/dask.md).

Per aggregated solve there is one pass over the rows; it brings back ``O(K · cells · d)``
numbers (``K`` clusters).
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
) -> tuple[Float64Array, float, float, bool]:
    """The weighted LAD ``min_β Σ_k w_k |ȳ_k − x̄_k·β|`` by the core's Clarabel LP (the LP the
    core's AID-LAD solves). Returns ``β``, the objective, the LP's dual value (a lower bound;
    ``−∞`` unless the LP converged) and whether it converged."""
    solution = _core.solve_weighted_lad(
        np.ascontiguousarray(xbar), np.ascontiguousarray(ybar), weights, **options
    )
    beta = np.asarray(solution.x, dtype=np.float64)
    if solution.status == "numerical_error" or not np.all(np.isfinite(beta)):
        raise ValueError("the LP solver failed on the aggregated problem")
    objective = float(solution.objective)
    solved = solution.status == "converged"
    lower = objective - float(solution.gap) if solved else -math.inf
    return beta, objective, lower, solved


def svm_step(
    points: Float64Array,
    labels: Float64Array,
    sizes: Float64Array,
    c: float,
    kernel: tuple[str, float, int, float],
    warm: dict[str, Any],
    options: dict[str, Any],
) -> dict[str, Any]:
    """The core's aggregated SVM step (``_core.aid_svm_aggregated``) in one task: SMO on the
    centroids (linear) or on ``K̄``, from the core's warm start."""
    return _core.aid_svm_aggregated(
        np.ascontiguousarray(points), labels, sizes, c, ini.kernel_object(kernel), **warm, **options
    )


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
    needs_gap = False

    def __init__(self, spec: ini.Spec, tol: float, options: dict[str, Any]) -> None:
        self.spec, self.tol, self.options = spec, tol, options

    def solve(self, rows: Rows, part: Partition, *, again: bool = False) -> Fit:
        xbar = part.centroids()
        if self.spec.intercept:
            xbar = np.hstack([xbar, np.ones((part.k, 1))])
        assert part.sum_y is not None
        ybar = part.sum_y / part.count
        weights = part.count.astype(np.float64)
        task = delayed(solve_lad)(xbar, ybar, weights, self.options)
        beta, objective, lower, solved = dask.compute(task)[0]
        return Fit(beta=beta, F=objective, lower=lower, solved=solved)

    def shared(self, fit: Fit) -> dict[str, Any]:
        return {"solution": {"beta": fit["beta"]}, "tol": self.tol}

    def tighten(self, fit: Fit, aggregated: float, target: float) -> bool:
        return False

    def full_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        return float(stats["loss"][0])

    def aggregated_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        return float(fit["F"])


class SvmModel:
    """The aggregated SVM of each round, as the core's ``SvmModel``: a pure partition certifies
    optimality only with a certified gap of at most ``tol`` (``needs_gap``), so while the
    partition is pure but the aggregated problem's duality gap keeps that gap above ``tol``,
    the round solves the same problem again, warm, with a tighter inner tolerance (the core's
    rule, ``_core.aid_svm_tightened_tol``)."""

    n_cells = 2
    needs_gap = True

    def __init__(self, spec: ini.Spec, c: float, options: dict[str, Any]) -> None:
        self.spec, self.c, self.options = spec, c, options
        self.base_tol = float(options["tol"])
        self.gap_before = math.inf
        self.shares: Float64Array | None = None
        self.points: Float64Array | None = None
        self.certifies = bool(_core.aid_kernel_certifies(ini.kernel_object(spec.kernel)))

    def solve(self, rows: Rows, part: Partition, *, again: bool = False) -> Fit:
        """One solve of ``part``'s aggregated SVM, warm from the previous round's (``again``:
        the same partition's, after :meth:`tighten`; its points are kept)."""
        labels = np.where(part.group > 0, 1.0, -1.0)
        sizes = part.count.astype(np.float64)
        linear = self.spec.kernel[0] == "linear"
        if not again or self.points is None:
            self.options = {**self.options, "tol": self.base_tol}
            self.gap_before = math.inf
            self.points = (
                part.centroids() if linear else self.gram_sums(rows, part) / np.outer(sizes, sizes)
            )
        points = self.points
        warm = {}
        if self.shares is not None and again:
            warm = {"shares": self.shares, "parent": np.arange(part.k, dtype=np.int64)}
        elif self.shares is not None and part.parent is not None:
            warm = {"shares": self.shares, "parent": part.parent}
        task = delayed(svm_step)(
            points, labels, sizes, self.c, self.spec.kernel, warm, self.options
        )
        found = dask.compute(task)[0]
        self.shares = np.asarray(found["shares"], dtype=np.float64)
        fit = Fit(
            alpha=found["alpha"],
            b=float(found["bias"]),
            w_norm2=float(found["w_norm2"]),
            shares=self.shares,
            signs=labels,
            lower=float(found["lower_bound"]),
            solved=bool(found["solved"]),
            part=part,
        )
        if linear:
            fit["w"] = np.asarray(found["coef"], dtype=np.float64)
        else:
            fit["support"] = gather_support(rows, part, self.shares * labels)
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

    def tighten(self, fit: Fit, aggregated: float, target: float) -> bool:
        """Whether to solve a pure partition again: its aggregated duality gap ``F − D``
        (``aggregated`` less the dual value, ``fit["lower"]``) is above ``target`` and the
        core's rule gives a tighter inner tolerance (which the next ``solve(again=True)``
        uses)."""
        if not self.certifies:
            return False
        inner_gap = aggregated - float(fit["lower"])
        tol = _core.aid_svm_tightened_tol(
            float(self.options["tol"]), inner_gap, target, self.gap_before, bool(fit["solved"])
        )
        if tol is None:
            return False
        self.options = {**self.options, "tol": tol}
        self.gap_before = inner_gap
        return True

    def full_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        return float(0.5 * fit["w_norm2"] + self.c * stats["loss"][0])

    def aggregated_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        sizes = part.count.astype(np.float64)
        return float(
            _core.aid_svm_aggregated_objective(
                fit["w_norm2"], self.c, sizes, fit["signs"], stats["sum_f"]
            )
        )


class S3vmModel:
    n_cells = 6
    certifies = False
    needs_gap = False

    def __init__(
        self, spec: ini.Spec, c: float, c_unlabeled: float, exact: int, options: dict[str, Any]
    ) -> None:
        self.spec, self.c, self.c_unlabeled = spec, c, c_unlabeled
        self.exact, self.options = exact, options
        self.svm_solves = 0
        self.started: float | None = None

    def solve(self, rows: Rows, part: Partition, *, again: bool = False) -> Fit:
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
        return Fit(
            w=np.asarray(found["coef"], dtype=np.float64),
            b=float(found["bias"]),
            F=float(found["objective"]),
            lower=float(found["lower_bound"]),
            solved=not found["cut"],
            w_norm2=float(found["w_norm2"]),
        )

    def shared(self, fit: Fit) -> dict[str, Any]:
        return {"solution": {"w": fit["w"], "bias": fit["b"]}, "tol": PURITY_TOL}

    def tighten(self, fit: Fit, aggregated: float, target: float) -> bool:
        return False

    def full_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        labeled, unlabeled = stats["loss"]
        return float(0.5 * fit["w_norm2"] + self.c * labeled + self.c_unlabeled * unlabeled)

    def aggregated_objective(self, fit: Fit, part: Partition, stats: Stats) -> float:
        return float(fit["F"])


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
    """The core's ``Aid::run`` over blocks: solve (while a pure partition's certificate wants
    it, again with a tighter inner tolerance: ``SvmModel.tighten``), evaluate on every block,
    record the round in the core's ``AidDriver`` (which keeps the best objective, the bound and
    the history, and says when the run ends), else split the impure clusters (by the strict
    cells when a pure partition falls short of a certificate only for its gap)."""
    driver = _core.AidDriver(tol, max_iter, time_limit, model.certifies, model.needs_gap)
    history: list[dict[str, Any]] = []
    best: Fit | None = None
    while True:
        fit = model.solve(rows, part)
        while True:
            shared = {"spec": spec, "table": part.table, "k": part.k, **model.shared(fit)}
            keys, stats = run_pass(
                evaluate_block, rows, shared, [part.keys, [int(o) for o in part.offsets]], keep=True
            )
            aggregated = model.aggregated_objective(fit, part, stats)
            full = model.full_objective(fit, part, stats)
            impure = np.flatnonzero(np.all(stats["lack"] > 0, axis=0))
            if impure.shape[0] or not model.tighten(fit, aggregated, 0.5 * tol * full):
                break
            fit = model.solve(rows, part, again=True)
        fit["F"] = aggregated
        lower = float(fit["lower"])
        if not impure.shape[0] and fit["solved"] and driver.purity_falls_short(lower, full):
            # Rows within the purity tolerance of their margin fit both cells, but their hinges
            # are in the full objective, not in the aggregated one: split by the strict cells.
            impure = np.flatnonzero(np.all(stats["lack_strict"] > 0, axis=0))
        record, improved = driver.record(
            aggregated, lower, full, bool(fit["solved"]), part.k, int(impure.shape[0])
        )
        if improved:
            best = fit
        history.append(record)
        stop = bool(callback(dict(record))) if callback is not None else False
        status = driver.status(stop)
        if status is not None:
            return {
                "fit": best,
                "objective": driver.objective,
                "aggregated_objective": aggregated,
                "lower_bound": driver.lower_bound,
                "status": status,
                "n_iter": len(history),
                "history": history,
                "partition": part,
            }
        part = split(part, keys, model.n_cells, impure, stats)
