"""The core's AID steps for a driver that holds the rows in blocks (``kernelkit.dask``), each
against a NumPy reference written from the paper's definitions (Park & Klabjan 2016, Algorithm
1): the per-block evaluation (cells, purity counts, losses, per-key sums), its merge over any
split of the rows into blocks, the split of the impure clusters, the k-means update and the
driver's bookkeeping.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from kernelkit import _core

Array = np.ndarray[Any, Any]
TOL = 1e-9


def _cells_reference(kind: str, f: Array, y: Array) -> tuple[Array, Array]:
    """Every row's mask (bit c: the row fits cell c) and cell, from the definitions."""
    n = f.shape[0]
    masks, cells = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for i in range(n):
        if kind == "lad" or (kind == "s3vm" and y[i] != 0) or kind == "svm":
            v = f[i] if kind == "lad" else 1.0 - y[i] * f[i]
            # LAD: residual r = y − x·β, cells r > 0 | r ≤ 0; SVM: g = 1 − y f, g > 0 | g ≤ 0.
            low = v > -TOL if kind == "lad" else v >= -TOL
            masks[i] = int(low) | (int(v <= TOL) << 1)
            cells[i] = int(v <= 0)
        else:
            edges = [(-1.0, 2), (0.0, 3), (1.0, 4)]
            cell = 2 if f[i] <= -1 else 3 if f[i] <= 0 else 4 if f[i] < 1 else 5
            mask = 1 << cell
            for boundary, lo in edges:
                if abs(f[i] - boundary) <= TOL:
                    mask |= (1 << lo) | (1 << (lo + 1))
            masks[i], cells[i] = mask, cell
    return masks, cells


def _problem(kind: str, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    n, d, k = 157, 3, 7
    x = rng.normal(size=(n, d))
    clusters = rng.integers(0, k, size=n)
    if kind == "lad":
        beta = rng.normal(size=d + 1)
        y = x @ beta[:d] + beta[d] + rng.normal(size=n)
        y[:5] = x[:5] @ beta[:d] + beta[d]  # residual 0 up to rounding: fits both cells
        return {"x": x, "y": y, "clusters": clusters, "k": k, "solution": {"beta": beta}}
    w = rng.normal(size=d)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    if kind == "s3vm":
        y[rng.random(n) < 0.6] = 0.0
    return {"x": x, "y": y, "clusters": clusters, "k": k, "solution": {"w": w, "bias": 0.3}}


def _evaluate(p: dict[str, Any], kind: str, lo: int, hi: int) -> dict[str, Any]:
    return _core.aid_evaluate_block(
        kind,
        np.ascontiguousarray(p["x"][lo:hi]),
        p["y"][lo:hi],
        p["clusters"][lo:hi],
        p["k"],
        lo,
        TOL,
        True,
        **p["solution"],
    )


@pytest.mark.parametrize("kind", ["lad", "svm", "s3vm"])
@pytest.mark.parametrize("seed", [0, 1])
def test_block_evaluation_matches_the_definitions(kind: str, seed: int) -> None:
    p = _problem(kind, seed)
    x, y, clusters, k = p["x"], p["y"], p["clusters"], p["k"]
    n_cells = 6 if kind == "s3vm" else 2
    # The features summed left to right, as the core does: the rows whose residual is 0 up to
    # rounding get their cells from the same bits.
    coef = p["solution"]["beta"] if kind == "lad" else p["solution"]["w"]
    dot = np.zeros(x.shape[0])
    for j in range(x.shape[1]):
        dot = dot + x[:, j] * coef[j]
    f = y - (dot + coef[-1]) if kind == "lad" else dot + p["solution"]["bias"]
    masks, cells = _cells_reference(kind, f, y)
    whole = _evaluate(p, kind, 0, x.shape[0])
    np.testing.assert_array_equal(whole["keys"], clusters * n_cells + cells)
    for c in range(n_cells):
        lacking = ((masks >> c) & 1) == 0
        np.testing.assert_array_equal(whole["lack"][c], np.bincount(clusters[lacking], minlength=k))
    if kind == "lad":
        np.testing.assert_allclose(whole["loss"], [np.abs(f).sum()], rtol=1e-12)
    elif kind == "svm":
        np.testing.assert_allclose(whole["loss"], [np.maximum(1 - y * f, 0).sum()], rtol=1e-12)
        np.testing.assert_allclose(whole["sum_f"], np.bincount(clusters, f, k), atol=1e-12)
    else:
        labeled = y != 0
        expected = [
            np.maximum(1 - y[labeled] * f[labeled], 0).sum(),
            np.maximum(1 - np.abs(f[~labeled]), 0).sum(),
        ]
        np.testing.assert_allclose(whole["loss"], expected, rtol=1e-12)
    keys = whole["keys"]
    np.testing.assert_array_equal(whole["count"], np.bincount(keys, minlength=k * n_cells))
    for key in range(k * n_cells):
        rows = np.flatnonzero(keys == key)
        first = rows[0] if rows.size else np.iinfo(np.int64).max
        assert whole["min_first"][key] == first
        np.testing.assert_allclose(whole["sum_x"][key], x[rows].sum(axis=0), atol=1e-12)
        if kind == "lad":
            np.testing.assert_allclose(whole["sum_y"][key], y[rows].sum(), atol=1e-12)


@pytest.mark.parametrize("kind", ["lad", "svm", "s3vm"])
def test_blocks_merge_to_the_whole(kind: str) -> None:
    """Any split of the rows into blocks: the same keys, counts, first rows and purity counts;
    sums equal to rounding (the order of the additions changes)."""
    p = _problem(kind, 3)
    n = p["x"].shape[0]
    whole = _evaluate(p, kind, 0, n)
    bounds = [0, 1, 40, 41, 100, n]
    parts = [_evaluate(p, kind, lo, hi) for lo, hi in itertools.pairwise(bounds)]
    np.testing.assert_array_equal(np.concatenate([q["keys"] for q in parts]), whole["keys"])
    for name in ("lack", "count"):
        np.testing.assert_array_equal(sum(q[name] for q in parts), whole[name])
    np.testing.assert_array_equal(
        np.minimum.reduce([q["min_first"] for q in parts]), whole["min_first"]
    )
    for name in ("loss", "sum_x", "sum_y", "sum_f"):
        if name in whole:
            np.testing.assert_allclose(sum(q[name] for q in parts), whole[name], atol=1e-12)


def test_kernel_expansion_is_the_kernel_decision() -> None:
    rng = np.random.default_rng(4)
    x, support = rng.normal(size=(50, 2)), rng.normal(size=(9, 2))
    coef, bias, gamma = rng.normal(size=9), -0.2, 0.7
    y = np.where(rng.random(50) < 0.5, 1.0, -1.0)
    out = _core.aid_evaluate_block(
        "svm", x, y, np.zeros(50, dtype=np.int64), 1, 0, TOL, False,
        support=support, coef=coef, kernel=_core.Kernel("rbf", gamma=gamma), bias=bias,
    )  # fmt: skip
    distances = ((x[:, None, :] - support[None, :, :]) ** 2).sum(axis=2)
    f = np.exp(-gamma * distances) @ coef + bias
    np.testing.assert_allclose(out["sum_f"], [f.sum()], rtol=1e-12)
    np.testing.assert_allclose(out["loss"], [np.maximum(1 - y * f, 0).sum()], rtol=1e-12)
    assert "sum_x" not in out and "sum_y" not in out


def _split_reference(
    cluster_of: Array, cells: Array, impure: list[int], k: int
) -> tuple[Array, list[int]]:
    """Algorithm 1's step 5 with the core's numbering, from the rows: each impure cluster is
    split into its non-empty cells; the part with the cluster's first row keeps its id, the
    others get new ids in the order of their first rows, cluster after cluster."""
    new = cluster_of.copy()
    parent = list(range(k))
    for c in impure:
        rows = np.flatnonzero(cluster_of == c)
        seen: list[int] = []
        for i in rows:
            if cells[i] not in seen:
                seen.append(int(cells[i]))
        for cell in seen[1:]:
            new[rows[cells[rows] == cell]] = len(parent)
            parent.append(c)
    return new, parent


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_split_follows_the_core_numbering(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k, n_cells = 200, 9, 6
    cluster_of = rng.integers(0, k, size=n)
    cells = rng.integers(0, n_cells, size=n)
    impure = sorted(rng.choice(k, size=4, replace=False).tolist())
    keys = cluster_of * n_cells + cells
    count = np.bincount(keys, minlength=k * n_cells)
    first = np.full(k * n_cells, np.iinfo(np.int64).max)
    np.minimum.at(first, keys, np.arange(n))
    table, parent = _core.aid_split(count, first, np.array(impure), k, n_cells)
    expected, expected_parent = _split_reference(cluster_of, cells, impure, k)
    np.testing.assert_array_equal(table[keys], expected)
    np.testing.assert_array_equal(parent, expected_parent)
    assert np.all(table[count == 0] == -1)


def test_kmeans_update_is_the_mean_of_the_nonempty_centres() -> None:
    sums = np.array([[2.0, 4.0], [0.0, 0.0], [3.0, -3.0]])
    mass = np.array([2.0, 0.0, 3.0])
    np.testing.assert_array_equal(
        _core.aid_kmeans_centres(sums, mass), np.array([[1.0, 2.0], [1.0, -1.0]])
    )


def test_start_points_are_the_in_memory_values() -> None:
    """The LAD residuals (features summed left to right, the intercept last) and the sample
    SVM's decision values that the k-means starts cluster."""
    rng = np.random.default_rng(5)
    x, y, beta = rng.normal(size=(40, 3)), rng.normal(size=40), rng.normal(size=4)
    fit = np.zeros(40)
    for j in range(3):
        fit = fit + x[:, j] * beta[j]
    np.testing.assert_array_equal(_core.aid_lad_residuals(x, y, beta), y - (fit + beta[3]))
    np.testing.assert_array_equal(_core.aid_lad_residuals(x, y, beta[:3]), y - fit)
    with pytest.raises(ValueError, match="beta"):
        _core.aid_lad_residuals(x, y, beta[:2])
    support, coef = rng.normal(size=(6, 3)), rng.normal(size=6)
    kernel = _core.Kernel("poly", gamma=0.5, degree=2, coef0=1.0)
    expected = (0.5 * x @ support.T + 1.0) ** 2 @ coef + 0.25
    decision = _core.aid_sample_decision(x, support, coef, 0.25, kernel)
    np.testing.assert_allclose(decision, expected, rtol=1e-12, atol=1e-12)
    linear = _core.aid_sample_decision(x, support, coef, 0.25, _core.Kernel("linear"))
    np.testing.assert_allclose(linear, x @ support.T @ coef + 0.25, rtol=1e-12, atol=1e-12)


def test_driver_keeps_bounds_and_stops_as_algorithm_1() -> None:
    driver = _core.AidDriver(1e-3, 3, None, True)
    assert driver.status(False) is None  # nothing recorded yet
    record, improved = driver.record(8.0, 5.0, 10.0, True, 4, 2)
    assert improved and record["upper_bound"] == 10.0 and record["lower_bound"] == 5.0
    assert record["gap"] == pytest.approx(0.5) and driver.status(False) is None
    assert driver.status(True) == "stopped"  # the callback's word
    record, improved = driver.record(8.5, 4.0, 12.0, True, 6, 1)
    # A worse round: the best objective and the bound stay.
    assert not improved and (record["upper_bound"], record["lower_bound"]) == (10.0, 5.0)
    record, improved = driver.record(9.0, 6.0, 9.5, True, 8, 3)
    assert improved and driver.objective == 9.5 and driver.lower_bound == 6.0
    assert driver.status(False) == "max_iter"
    pure = _core.AidDriver(1e-3, 10, None, True)
    pure.record(1.0, 1.0, 1.0, False, 3, 0)
    assert pure.status(False) == "pure"  # an unsolved round certifies nothing
    certified = _core.AidDriver(1e-3, 10, None, True)
    certified.record(1.0, 1.0, 1.0, True, 3, 0)
    assert certified.status(False) == "optimal"
    heuristic = _core.AidDriver(1e-3, 10, None, False)
    heuristic.record(1.0, -math.inf, 1.0, True, 3, 0)
    assert heuristic.status(False) == "pure"
    gap = _core.AidDriver(1e-3, 10, None, True)
    gap.record(1.0, 0.9995, 1.0, True, 3, 2)
    assert gap.status(False) == "gap"
    with pytest.raises(ValueError, match="non-finite"):
        gap.record(1.0, 0.0, math.nan, True, 3, 2)
    with pytest.raises(ValueError, match="max_iter"):
        _core.AidDriver(1e-3, 0, None, True)
    with pytest.raises(ValueError, match="time_limit"):
        _core.AidDriver(1e-3, 5, -1.0, True)


def test_bad_block_input_is_rejected_with_its_name() -> None:
    x, y = np.zeros((3, 2)), np.ones(3)
    with pytest.raises(ValueError, match="clusters"):
        _core.aid_evaluate_block("svm", x, y, np.array([0, 5, 0]), 2, 0, TOL, False, w=np.ones(2))
    with pytest.raises(ValueError, match="formulation"):
        _core.aid_evaluate_block("svr", x, y, np.zeros(3, dtype=np.int64), 1, 0, TOL, False)
    with pytest.raises(ValueError, match="beta"):
        _core.aid_evaluate_block("lad", x, y, np.zeros(3, dtype=np.int64), 1, 0, TOL, False)
