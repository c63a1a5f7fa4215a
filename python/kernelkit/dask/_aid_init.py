"""AID's first partition over row blocks: ``init`` given as cluster ids, ``"random"``, or the
paper's k-means recipes (LAD: k-means of the standardised (residual, target) pairs; SVM: 1-D
k-means of a sample SVM's decision values per class; S3VM: k-means of the features per group),
by the core's steps (``crates/solvers/src/aid/init.rs``, ``kmeans.rs``): its random sample and
random ids, the points it clusters (residuals, sample decision values), its k-means++ seeding
on the points it names, its nearest-centre assignment and its Lloyd update, mapped over the
blocks; here only the blocks' per-centre sums are reduced. Each function
returns the :class:`~kernelkit.dask._engine.Partition` and never brings more than a sample of
rows or per-cluster sums to the client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from .._validation import rows_overflow
from ._engine import (
    Float64Array,
    IntArray,
    Partition,
    Rows,
    Stats,
    as_float_block,
    key_stats,
    partition_from_keys,
    run_pass,
)


@dataclass
class Spec:
    """What the blocks need to know about the problem: ``kind`` ("lad", "svm", "s3vm"), the
    classes, the intercept (LAD), the kernel (SVM)."""

    kind: str
    classes: Any = None
    intercept: bool = False
    kernel: tuple[str, float, int, float] = ("linear", 1.0, 3, 0.0)

    @property
    def n_groups(self) -> int:
        return {"lad": 1, "svm": 2, "s3vm": 3}[self.kind]

    @property
    def sums_x(self) -> bool:
        """Whether the aggregated problem needs the cluster sums of ``X``."""
        return self.kind != "svm" or self.kernel[0] == "linear"


def core_labels(y: Any, spec: Spec) -> Float64Array:
    """``y`` as the core sees it: LAD targets, SVM ±1, S3VM ±1 and 0 for unlabeled rows."""
    y = np.asarray(y)
    if spec.kind == "lad":
        return np.asarray(y, dtype=np.float64)
    signs = np.where(y == spec.classes[1], 1.0, -1.0)
    if spec.kind == "svm":
        return signs
    return np.where(y == -1, 0.0, signs)


def groups(y: Any, spec: Spec) -> IntArray:
    """The core's groups: LAD 0; SVM 1 for +1, 0 for −1; S3VM label + 1."""
    labels = core_labels(y, spec)
    if spec.kind == "lad":
        return np.zeros(labels.shape[0], dtype=np.int64)
    if spec.kind == "svm":
        return (labels > 0).astype(np.int64)
    return (labels + 1).astype(np.int64)


def kernel_object(params: tuple[str, float, int, float]) -> Any:
    kind, gamma, degree, coef0 = params
    return _core.Kernel(kind, gamma=gamma, degree=degree, coef0=coef0)


# -- blocks ---------------------------------------------------------------------------------


def scan_block(x: Any, y: Any, start: int, spec: Spec) -> dict[str, Any]:
    """Non-finite values, whether a row's squared norm overflows, the maxima of |X|, of |y|
    and of each |column| (LAD), or the values of ``y`` with their counts."""
    xb = as_float_block(x)
    out: dict[str, Any] = {"nonfinite": int(np.count_nonzero(~np.isfinite(xb)))}
    # What the in-memory fits' `check_not_overflowing` needs.
    out["overflows"] = rows_overflow(xb)
    out["max_abs"] = float(np.max(np.abs(xb), initial=0.0))
    yb = np.asarray(y)
    if spec.kind == "lad":
        yf = np.asarray(yb, dtype=np.float64)
        out["nonfinite"] += int(np.count_nonzero(~np.isfinite(yf)))
        out["max_absy"] = float(np.max(np.abs(yf))) if yf.size else 0.0
        out["max_absx"] = np.max(np.abs(xb), axis=0, initial=0.0)
    else:
        values, counts = np.unique(yb, return_counts=True)
        out["values"], out["counts"] = values, counts
    return out


def take_block(x: Any, y: Any, start: int, spec: Spec, positions: IntArray) -> Any:
    return as_float_block(x)[positions], np.asarray(y)[positions]


def take(rows: Rows, spec: Spec, index: IntArray) -> tuple[Float64Array, Any]:
    """The rows ``index`` (sorted global row numbers) of ``X`` and ``y``."""
    per_block = []
    for b in range(rows.n_blocks):
        lo, hi = rows.starts[b], rows.starts[b] + rows.sizes[b]
        inside = index[(index >= lo) & (index < hi)] - lo
        per_block.append(inside.astype(np.int64))
    parts = run_pass(take_block, rows, spec, [per_block], reduce=False)
    xs = np.concatenate([p[0] for p in parts]) if parts else np.empty((0, rows.m))
    ys = np.concatenate([p[1] for p in parts])
    return np.ascontiguousarray(xs, dtype=np.float64), ys


def lad_residuals(x: Float64Array, y: Any, beta: Float64Array) -> Float64Array:
    """``y − [x, 1]·β`` by the core (``_core.aid_lad_residuals``: the in-memory bits)."""
    return _core.aid_lad_residuals(x, np.asarray(y, dtype=np.float64), beta)


def points_of(x: Any, y: Any, shared: dict[str, Any]) -> Float64Array:
    """The points the k-means of the first partition clusters, for one block."""
    spec: Spec = shared["spec"]
    xb = as_float_block(x)
    if spec.kind == "s3vm":
        return xb
    if spec.kind == "lad":
        yf = np.asarray(y, dtype=np.float64)
        r = lad_residuals(xb, yf, shared["beta"])
        out = np.zeros((xb.shape[0], 2))
        for j, (v, mean, sd) in enumerate(
            ((r, shared["means"][0], shared["sds"][0]), (yf, shared["means"][1], shared["sds"][1]))
        ):
            if sd > 0:
                out[:, j] = (v - mean) / sd
        return out
    return sample_decision(xb, shared["sample"])[:, None]


def sample_decision(x: Float64Array, sample: dict[str, Any] | None) -> Float64Array:
    """The decision values of the SVM fitted on the sample (0 without one), by the core
    (``_core.aid_sample_decision``: the in-memory bits)."""
    if sample is None:
        return np.zeros(x.shape[0])
    kernel = kernel_object(sample["kernel"])
    return _core.aid_sample_decision(x, sample["sv"], sample["coef"], sample["bias"], kernel)


def moments_block(x: Any, y: Any, start: int, shared: dict[str, Any]) -> Stats:
    """LAD: sums (or, with ``means``, squared deviations) of the residuals and targets."""
    xb = as_float_block(x)
    yf = np.asarray(y, dtype=np.float64)
    r = lad_residuals(xb, yf, shared["beta"])
    if shared.get("means") is None:
        return {"s": np.array([r.sum(), yf.sum()])}
    dr, dy = r - shared["means"][0], yf - shared["means"][1]
    return {"s": np.array([(dr * dr).sum(), (dy * dy).sum()])}


def group_points_block(
    x: Any, y: Any, start: int, shared: dict[str, Any], wanted: list[IntArray]
) -> list[Float64Array]:
    """Per group, the points at the wanted positions (within the block's rows of the group)."""
    pts = points_of(x, y, shared)
    g = groups(y, shared["spec"])
    return [pts[np.flatnonzero(g == group)[want]] for group, want in enumerate(wanted)]


def lloyd_block(x: Any, y: Any, start: int, shared: dict[str, Any]) -> Stats:
    """Per group and centre: the sum and count of the points nearest to it."""
    pts = points_of(x, y, shared)
    g = groups(y, shared["spec"])
    centres: list[Float64Array | None] = shared["centres"]
    width = shared["width"]
    sums = np.zeros((len(centres), width, pts.shape[1]))
    mass = np.zeros((len(centres), width))
    for group, c in enumerate(centres):
        if c is None:
            continue
        points = np.ascontiguousarray(pts[g == group])
        found = key_stats(_core.aid_kmeans_assign(points, c), width, start, points, None)
        mass[group], sums[group] = found["count"], found["sum_x"]
    return {"sums": sums, "mass": mass}


def assign_block(x: Any, y: Any, start: int, shared: dict[str, Any]) -> tuple[IntArray, Stats]:
    """The key (group · width + centre) of every row and the per-key sums."""
    spec: Spec = shared["spec"]
    pts = points_of(x, y, shared)
    g = groups(y, spec)
    width = shared["width"]
    key = np.zeros(pts.shape[0], dtype=np.int64)
    for group, c in enumerate(shared["centres"]):
        if c is None:
            continue
        rows = np.flatnonzero(g == group)
        key[rows] = group * width + _core.aid_kmeans_assign(np.ascontiguousarray(pts[rows]), c)
    xb = as_float_block(x) if spec.sums_x else None
    yb = np.asarray(y, dtype=np.float64) if spec.kind == "lad" else None
    return key, key_stats(key, len(shared["centres"]) * width, start, xb, yb)


def pairs_block(
    x: Any, y: Any, start: int, shared: dict[str, Any], ids: Any
) -> tuple[IntArray, dict[str, Any]]:
    """Given or random cluster ids: the block's distinct (id, group) pairs, each row's pair and
    the per-pair sums."""
    spec: Spec = shared["spec"]
    xb = as_float_block(x)
    n_b = xb.shape[0]
    if ids is None:
        ids, rejected = _core.aid_random_labels(start, n_b, shared["k"], shared["seed"])
        if rejected:
            raise RuntimeError(
                "init='random': a rejected random draw (probability < 1e-12) makes the "
                "distributed partition differ from the in-memory one; use another random_state"
            )
    ids = np.asarray(ids, dtype=np.int64)
    g = groups(y, spec)
    pairs, _, inverse = np.unique(
        np.stack([ids, g], axis=1), axis=0, return_index=True, return_inverse=True
    )
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    stats = key_stats(
        inverse,
        pairs.shape[0],
        start,
        xb if spec.sums_x else None,
        np.asarray(y, dtype=np.float64) if spec.kind == "lad" else None,
    )
    stats["pairs"] = pairs
    return inverse, stats


# -- partitions -----------------------------------------------------------------------------


def from_ids(rows: Rows, spec: Spec, ids: list[Any] | None, k: int, seed: int) -> Partition:
    """``init`` = cluster ids per row (``ids``: one array per block), or ``"random"`` (``ids``
    None): the core's ``Partition::from_labels`` then ``refine_by`` the groups."""
    shared = {"spec": spec, "k": k, "seed": seed}
    per_block = ids if ids is not None else [None] * rows.n_blocks
    keys, parts = run_pass(pairs_block, rows, shared, [per_block], keep=True, reduce=False)
    sizes = np.array([p["pairs"].shape[0] for p in parts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    local_pairs = np.concatenate([p["pairs"] for p in parts])
    uniq, inverse = np.unique(local_pairs, axis=0, return_inverse=True)
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    n_global = uniq.shape[0]
    first = np.full(n_global, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, inverse, np.concatenate([p["min_first"] for p in parts]))
    count = np.bincount(inverse, weights=np.concatenate([p["count"] for p in parts]))
    sum_x: Float64Array | None = None
    sum_y: Float64Array | None = None
    if spec.sums_x:
        flat = np.concatenate([p["sum_x"] for p in parts])
        sum_x = np.empty((n_global, flat.shape[1]))
        for j in range(flat.shape[1]):
            sum_x[:, j] = np.bincount(inverse, weights=flat[:, j], minlength=n_global)
    if spec.kind == "lad":
        weights = np.concatenate([p["sum_y"] for p in parts])
        sum_y = np.asarray(np.bincount(inverse, weights=weights, minlength=n_global), float)
    part = partition_from_keys(
        keys, offsets, count.astype(np.int64), first, uniq[:, 1], sum_x, sum_y
    )
    # Keys are local pair numbers: the table goes through the global pair numbers.
    part.table = part.table[inverse]
    return part


def _kmeans(
    rows: Rows,
    spec: Spec,
    shared: dict[str, Any],
    group_sizes: list[int],
    block_group_counts: IntArray,
    k: int,
    seed: int,
) -> Partition:
    """k-means (k-means++ seeding, one Lloyd iteration) per group, ``k`` shared by group
    size: the core's ``kmeans_per_group`` (LAD: one group)."""
    n_groups = len(group_sizes)
    ks = _core.aid_cluster_shares(k, group_sizes) if n_groups > 1 else [k]
    wanted_global = [
        _core.aid_kmeans_positions(size, seed, g) if size else np.empty(0, dtype=np.int64)
        for g, size in enumerate(group_sizes)
    ]
    offsets = np.vstack([np.zeros(n_groups, dtype=np.int64), np.cumsum(block_group_counts, axis=0)])
    per_block = []
    for b in range(rows.n_blocks):
        wanted = []
        for g in range(n_groups):
            lo, hi = offsets[b, g], offsets[b + 1, g]
            w = wanted_global[g]
            wanted.append(w[(w >= lo) & (w < hi)] - lo)
        per_block.append(wanted)
    parts = run_pass(group_points_block, rows, shared, [per_block], reduce=False)
    centres: list[Float64Array | None] = []
    for g in range(n_groups):
        if group_sizes[g] == 0:
            centres.append(None)
            continue
        pts = np.ascontiguousarray(np.concatenate([p[g] for p in parts]), dtype=np.float64)
        centres.append(_core.aid_kmeans_seed(pts, group_sizes[g], ks[g], seed, g))
    width = max(c.shape[0] for c in centres if c is not None)
    stats = run_pass(lloyd_block, rows, {**shared, "centres": centres, "width": width})
    moved: list[Float64Array | None] = [
        None if c is None else _core.aid_kmeans_centres(stats["sums"][g], stats["mass"][g])
        for g, c in enumerate(centres)
    ]
    width = max(c.shape[0] for c in moved if c is not None)
    keys, st = run_pass(assign_block, rows, {**shared, "centres": moved, "width": width}, keep=True)
    key_group = np.repeat(np.arange(n_groups, dtype=np.int64), width)
    return partition_from_keys(
        keys,
        np.zeros(rows.n_blocks, dtype=np.int64),
        st["count"],
        st["min_first"],
        key_group,
        st.get("sum_x"),
        st.get("sum_y"),
    )


def block_group_counts(rows: Rows, spec: Spec, scans: list[dict[str, Any]]) -> IntArray:
    """Rows of each group in each block, from the scan pass."""
    counts = np.zeros((rows.n_blocks, spec.n_groups), dtype=np.int64)
    for b, scan in enumerate(scans):
        if spec.kind == "lad":
            counts[b, 0] = rows.sizes[b]
            continue
        for value, c in zip(scan["values"], scan["counts"], strict=True):
            counts[b, int(groups(np.array([value]), spec)[0])] += c
    return counts


def kmeans_lad(rows: Rows, spec: Spec, k: int, seed: int, n_jobs: int) -> Partition:
    """LAD on a sample, then k-means of the standardised (residual, target) pairs."""
    d = rows.m + int(spec.intercept)
    index = _core.aid_initial_sample(rows.n, d, seed)
    xs, ys = take(rows, spec, index)
    design = np.hstack([xs, np.ones((xs.shape[0], 1))]) if spec.intercept else xs
    s = design.shape[0]
    fit = _core.aid_lad(
        np.ascontiguousarray(design),
        np.ascontiguousarray(ys, dtype=np.float64),
        np.arange(s, dtype=np.int64),
        s,
        0,
        1e-12,
        1,
        tol=1e-8,
        n_jobs=0,
    )
    beta = np.asarray(fit["coef"], dtype=np.float64)
    shared: dict[str, Any] = {"spec": spec, "beta": beta, "means": None}
    sums = run_pass(moments_block, rows, shared)["s"]
    means = sums / rows.n
    shared["means"] = means
    squares = run_pass(moments_block, rows, shared)["s"]
    shared["sds"] = np.sqrt(squares / rows.n)
    counts = np.asarray(rows.sizes, dtype=np.int64).reshape(-1, 1)
    return _kmeans(rows, spec, shared, [rows.n], counts, k, seed)


def sample_svm(
    rows: Rows, spec: Spec, c: float, seed: int, inner: dict[str, Any]
) -> dict[str, Any] | None:
    """The C-SVM on the core's random sample (tolerance 1e-3), or None with one class."""
    index = _core.aid_initial_sample(rows.n, rows.m, seed)
    xs, ys = take(rows, spec, index)
    labels = core_labels(ys, spec)
    if not (np.any(labels == 1) and np.any(labels == -1)):
        return None
    options = {**inner, "tol": 1e-3}
    solution = _core.solve_c_svc(
        xs, labels, np.full(labels.shape[0], c), kernel_object(spec.kernel), **options
    )
    alpha = np.asarray(solution.x)
    support = np.flatnonzero(alpha > 0)
    coef = alpha[support] * labels[support]
    sv = np.ascontiguousarray(xs[support])
    return {"kernel": spec.kernel, "bias": float(solution.bias), "sv": sv, "coef": coef}


def kmeans_grouped(
    rows: Rows,
    spec: Spec,
    scans: list[dict[str, Any]],
    k: int,
    seed: int,
    sample: dict[str, Any] | None,
) -> Partition:
    """SVM (1-D decision values of the sample SVM) and S3VM (features): k-means per group."""
    counts = block_group_counts(rows, spec, scans)
    sizes = [int(v) for v in counts.sum(axis=0)]
    shared = {"spec": spec, "sample": sample}
    return _kmeans(rows, spec, shared, sizes, counts, k, seed)
