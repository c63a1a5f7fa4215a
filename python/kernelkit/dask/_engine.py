"""The blockwise machinery of the distributed AID: row blocks of a dask array, passes that run a
NumPy function on every block (as dask tasks) and reduce its small per-cluster statistics in a
tree on the workers, and the partition of the rows held as one persisted key array per block.

A partition is stored lazily: block ``b`` holds an integer *key* per row (persisted on the
workers) and the client holds a small ``table``; the cluster of a row is
``table[offsets[b] + key]``. After an aggregated solve every row's key becomes
``cluster * n_cells + cell`` (its cell under the new solution), and splitting the impure
clusters is just a new table, so no pass is needed to apply a split.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from ._compat import dask, delayed

Float64Array = NDArray[np.float64]
IntArray = NDArray[np.int64]
Stats = dict[str, NDArray[Any]]
#: A row index larger than any real one (for "first row of a key" minima).
NO_ROW = np.iinfo(np.int64).max


@dataclass
class Rows:
    """The training data as row blocks (dask ``Delayed`` objects) with their offsets."""

    x: list[Any]
    y: list[Any]
    sizes: IntArray
    starts: IntArray
    n: int
    m: int
    extra: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def n_blocks(self) -> int:
        return len(self.x)


def as_float_block(block: Any) -> Float64Array:
    return np.ascontiguousarray(block, dtype=np.float64)


def combine(a: Stats, b: Stats) -> Stats:
    """Merges two blocks' statistics: ``min_*`` by minimum, ``max_*`` by maximum, the rest by
    sum."""
    out: Stats = {}
    for name, left in a.items():
        right = b[name]
        if name.startswith("min_"):
            out[name] = np.minimum(left, right)
        elif name.startswith("max_"):
            out[name] = np.maximum(left, right)
        else:
            out[name] = left + right
    return out


def tree_reduce(parts: Sequence[Any]) -> Any:
    """A binary tree of :func:`combine` tasks over ``parts`` (Delayed)."""
    level = list(parts)
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level), 2):
            if i + 1 < len(level):
                nxt.append(delayed(combine, pure=True)(level[i], level[i + 1]))
            else:
                nxt.append(level[i])
        level = nxt
    return level[0]


def run_pass(
    fn: Callable[..., Any],
    rows: Rows,
    shared: Any,
    per_block: Sequence[Sequence[Any]] = (),
    *,
    keep: bool = False,
    reduce: bool = True,
) -> Any:
    """Runs ``fn(x_b, y_b, start_b, shared, *per_block[·][b])`` on every block as dask tasks.

    ``shared`` is sent once (one task) whatever the number of blocks. Without ``keep`` the
    function returns statistics, reduced in a tree (``reduce``) or as a list; with ``keep`` it
    returns ``(kept, statistics)``, and the kept parts stay on the workers (persisted), one per
    block, as the new keys."""
    shared_task = delayed(shared, pure=True, traverse=False)
    outs = [
        delayed(fn, pure=True)(
            rows.x[b], rows.y[b], int(rows.starts[b]), shared_task, *(arg[b] for arg in per_block)
        )
        for b in range(rows.n_blocks)
    ]
    if not keep:
        if reduce:
            return dask.compute(tree_reduce(outs))[0]
        return list(dask.compute(*outs))
    persisted = dask.persist(*outs)
    stats_parts = [delayed(operator.getitem, pure=True)(p, 1) for p in persisted]
    if reduce:
        stats = dask.compute(tree_reduce(stats_parts))[0]
    else:
        stats = list(dask.compute(*stats_parts))
    kept = list(dask.persist(*[delayed(operator.getitem, pure=True)(p, 0) for p in persisted]))
    del persisted
    return kept, stats


def key_stats(
    key: IntArray, n_keys: int, start: int, x: Float64Array | None, y: Float64Array | None
) -> Stats:
    """Per key: row count, first row (global index), and the sums of ``x`` rows and ``y``
    (``_core.aid_key_sums``)."""
    return dict(_core.aid_key_sums(np.asarray(key, dtype=np.int64), n_keys, start, x, y))


@dataclass
class Partition:
    """AID's clusters: per block a persisted key array, and on the client the table that maps
    keys to cluster ids, each cluster's size, group (class label / unlabeled), parent (the
    cluster it was split from) and aggregated sums."""

    keys: list[Any]
    table: IntArray
    offsets: IntArray
    count: IntArray
    group: IntArray
    parent: IntArray | None
    sum_x: Float64Array | None
    sum_y: Float64Array | None

    @property
    def k(self) -> int:
        return int(self.count.shape[0])

    def centroids(self) -> Float64Array:
        assert self.sum_x is not None
        return np.asarray(self.sum_x / self.count[:, None], dtype=np.float64)

    def labels(self) -> list[Any]:
        """Per block, the cluster id of every row (Delayed)."""
        table = delayed(self.table, pure=True, traverse=False)
        return [
            delayed(_lookup, pure=True)(key, table, int(offset))
            for key, offset in zip(self.keys, self.offsets, strict=True)
        ]


def _lookup(key: IntArray, table: IntArray, offset: int) -> IntArray:
    return np.asarray(table[key + offset], dtype=np.int64)


def partition_from_keys(
    keys: list[Any],
    offsets: IntArray,
    count: IntArray,
    first: IntArray,
    key_group: IntArray,
    sum_x: Float64Array | None,
    sum_y: Float64Array | None,
) -> Partition:
    """The partition whose clusters are the keys present, numbered by first row (the core's
    ``Partition::from_labels``)."""
    present = np.flatnonzero(count > 0)
    order = present[np.argsort(first[present], kind="stable")]
    table = np.full(count.shape[0], -1, dtype=np.int64)
    table[order] = np.arange(order.shape[0])
    return Partition(
        keys=keys,
        table=table,
        offsets=offsets,
        count=count[order].astype(np.int64),
        group=key_group[order].astype(np.int64),
        parent=None,
        sum_x=None if sum_x is None else np.ascontiguousarray(sum_x[order]),
        sum_y=None if sum_y is None else np.ascontiguousarray(sum_y[order]),
    )


def split(
    part: Partition, keys: list[Any], n_cells: int, impure: IntArray, stats: Stats
) -> Partition:
    """The core's split of the impure clusters (``_core.aid_split``: each into its non-empty
    cells, numbered as ``Partition::split`` numbers them), then the new clusters' sizes and
    sums from the per-key sums of the pass that evaluated the last solution (key =
    cluster · n_cells + cell)."""
    table, parent = _core.aid_split(
        stats["count"], stats["min_first"], np.asarray(impure, dtype=np.int64), part.k, n_cells
    )
    present = np.flatnonzero(table >= 0)
    into, k_new = table[present], parent.shape[0]

    def merged(values: NDArray[Any]) -> Float64Array:
        return np.asarray(np.bincount(into, weights=values[present], minlength=k_new), float)

    sum_x = None
    if "sum_x" in stats:
        sum_x = np.stack([merged(column) for column in stats["sum_x"].T], axis=1)
    return Partition(
        keys=keys,
        table=table,
        offsets=np.zeros(len(keys), dtype=np.int64),
        count=merged(stats["count"]).astype(np.int64),
        group=part.group[parent].astype(np.int64),
        parent=parent,
        sum_x=sum_x,
        sum_y=merged(stats["sum_y"]) if "sum_y" in stats else None,
    )
