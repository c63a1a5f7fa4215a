"""Row subsets (``_core.RowSubset``): one-vs-one reads each class pair's rows from the whole
training array, with the facts every pair shares computed once (``_core.DenseRowFacts``).

A solve over a subset must be bit for bit the solve over a copy of those rows, on every path
the copy would take: wide rows read in float32 (exactly float32 values) or in float64, narrow
rows (feature-major), repeated narrow rows (computed over the distinct rows), and mostly-zero
rows (read as CSR).
"""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit import _core


def _datasets() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    wide_single = np.round(rng.uniform(0, 1, size=(500, 100)) * 64) / 64
    wide_double = rng.normal(size=(500, 100))
    wide_double[:250] = wide_single[:250]  # some subsets exactly float32, not all rows
    narrow = rng.normal(size=(500, 9))
    repeated = rng.normal(size=(200, 6))[rng.integers(0, 200, size=2400)]
    mostly_zero = rng.normal(size=(500, 120)) * (rng.uniform(size=(500, 120)) < 0.1)
    return {
        "wide_single": wide_single,
        "wide_double": wide_double,
        "narrow": narrow,
        "repeated": repeated,
        "mostly_zero": mostly_zero,
    }


DATASETS = _datasets()


def _assert_same_solution(got: _core.Solution, want: _core.Solution) -> None:
    """Both converged to the same solution, bit for bit, by the same iterations."""
    assert got.status == want.status == "converged"
    np.testing.assert_array_equal(got.x, want.x)
    assert (got.objective, got.bias, got.iterations) == (
        want.objective,
        want.bias,
        want.iterations,
    )


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_a_subset_solve_is_the_solve_of_the_copied_rows(name: str) -> None:
    X = DATASETS[name]
    n = len(X)
    rng = np.random.default_rng(0)
    facts = _core.DenseRowFacts(X)
    assert facts.shape == X.shape
    kernel = _core.Kernel("rbf", gamma=0.3 / X.shape[1])
    # Two "classes" of a one-vs-one pair: rows ≡ 0 (mod 3) backwards, then rows ≡ 1 (mod 3).
    index = np.concatenate([np.arange(0, n, 3)[::-1], np.arange(1, n, 3)]).astype(np.int64)
    y = np.where(rng.uniform(size=len(index)) < 0.5, 1.0, -1.0)
    upper = np.full(len(index), 2.0)
    subset = _core.RowSubset(facts, index)
    assert subset.shape == (len(index), X.shape[1])
    copied = np.ascontiguousarray(X[index])
    for got, want in [
        (_core.solve_c_svc(subset, y, upper, kernel), _core.solve_c_svc(copied, y, upper, kernel)),
        (
            _core.solve_one_class(subset, upper / len(index), 0.3, kernel),
            _core.solve_one_class(copied, upper / len(index), 0.3, kernel),
        ),
    ]:
        _assert_same_solution(got, want)
    # The other entry points read a subset as its rows (gathered).
    np.testing.assert_array_equal(
        _core.kernel_matrix(subset, X[:7], kernel), _core.kernel_matrix(copied, X[:7], kernel)
    )


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_float32_rows_read_in_place_solve_as_their_float64_copy(name: str) -> None:
    """Facts of a float32 array (read in place, no float64 copy) give every subset the solve
    of the same values given as float64, bit for bit, on every path (wide rows read in
    float32, narrow, repeated, mostly zero); their repeated rows are found the same."""
    single = DATASETS[name].astype(np.float32)
    double = single.astype(np.float64)
    n = len(single)
    index = np.concatenate([np.arange(0, n, 3)[::-1], np.arange(1, n, 3)]).astype(np.int64)
    y = np.where(np.arange(len(index)) % 3 == 0, 1.0, -1.0)
    upper = np.full(len(index), 2.0)
    kernel = _core.Kernel("rbf", gamma=0.3 / single.shape[1])
    got, want = (
        _core.solve_c_svc(_core.RowSubset(_core.DenseRowFacts(rows), index), y, upper, kernel)
        for rows in (single, double)
    )
    assert got.status == want.status == "converged"
    np.testing.assert_array_equal(got.x, want.x)
    assert (got.objective, got.iterations) == (want.objective, want.iterations)
    np.testing.assert_array_equal(_core.first_occurrences(single), _core.first_occurrences(double))


def test_bad_subsets_are_clear_errors() -> None:
    X = DATASETS["narrow"]
    facts = _core.DenseRowFacts(X)
    for bad in ([0, len(X)], [-1]):
        with pytest.raises(ValueError, match=r"index: row -?[0-9]+ out of range for 500 rows"):
            _core.RowSubset(facts, np.asarray(bad, dtype=np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.DenseRowFacts(np.asfortranarray(X))
    for dtype in (np.int64, np.float16):
        with pytest.raises(TypeError, match="float64 or float32"):
            _core.DenseRowFacts(X.astype(dtype))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.DenseRowFacts(np.asfortranarray(X.astype(np.float32)))
    bad_single = X.astype(np.float32)
    bad_single[4, 1] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        _core.DenseRowFacts(bad_single)
    bad_values = X.copy()
    bad_values[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        _core.DenseRowFacts(bad_values)
    subset = _core.RowSubset(facts, np.arange(10, dtype=np.int64))
    y, upper = np.tile([1.0, -1.0], 5), np.ones(10)
    with pytest.raises(ValueError, match="precomputed kernel cannot be a row subset"):
        _core.solve_c_svc(subset, y, upper, _core.Kernel("precomputed"))
    with pytest.raises(ValueError, match="callable kernel needs dense rows"):
        _core.solve_c_svc(subset, y, upper, _core.Kernel("callable", function=np.dot))


def test_pairs_solved_in_one_call_are_the_solves_of_each_pair() -> None:
    """``solve_c_svc_pairs`` (one-vs-one's pairs on the core's workers, no Python between two
    solves) gives each pair the solution ``solve_c_svc`` gives it, bit for bit, in the pairs'
    order, whatever the number of workers; a set stop flag stops every pair."""
    X = DATASETS["wide_single"]
    facts = _core.DenseRowFacts(X)
    kernel = _core.Kernel("rbf", gamma=0.3 / X.shape[1])
    rng = np.random.default_rng(3)
    groups = [np.flatnonzero(np.arange(len(X)) % 4 == c) for c in range(4)]
    subsets, ys, uppers = [], [], []
    for a in range(4):
        for b in range(a + 1, 4):
            index = np.concatenate([groups[a], groups[b]]).astype(np.int64)
            subsets.append(_core.RowSubset(facts, index))
            ys.append(np.concatenate([np.ones(len(groups[a])), -np.ones(len(groups[b]))]))
            uppers.append(rng.uniform(0.5, 2.0, size=len(index)))
    alone = [
        _core.solve_c_svc(s, y, u, kernel, n_jobs=1)
        for s, y, u in zip(subsets, ys, uppers, strict=True)
    ]
    for workers in (1, 2, 3):
        together = _core.solve_c_svc_pairs(subsets, ys, uppers, kernel, workers, n_jobs=1)
        assert len(together) == len(alone)
        for got, want in zip(together, alone, strict=True):
            _assert_same_solution(got, want)
            # Every counter but the serial time (a clock reading) is the same.
            timing = {"serial_seconds"}
            assert {k: v for k, v in got.stats.items() if k not in timing} == {
                k: v for k, v in want.stats.items() if k not in timing
            }
            assert got.stats["serial_seconds"] >= 0.0
    flag = _core.StopFlag()
    flag.set()
    stopped = _core.solve_c_svc_pairs(subsets, ys, uppers, kernel, 2, tol=1e-12, stop=flag)
    assert all(s.status == "stopped" for s in stopped)

    # Warm starts (a warm fit's route): each pair from its start, with the previous solution
    # and gradient or without, or cold where the entry is None, as ``solve_c_svc`` solves it.
    larger = [2.0 * u for u in uppers]
    alpha0s = [None if k == 1 else np.asarray(a.x) for k, a in enumerate(alone)]
    previous = [
        (np.asarray(a.x), np.asarray(a.gradient)) if k % 2 == 0 else None
        for k, a in enumerate(alone)
    ]
    previous[1] = None  # no start, so no previous solve either
    warm_alone = [
        _core.solve_c_svc(s, y, u, kernel, a0, prev, n_jobs=1)
        for s, y, u, a0, prev in zip(subsets, ys, larger, alpha0s, previous, strict=True)
    ]
    assert warm_alone[0].iterations < alone[0].iterations
    for workers in (1, 2):
        together = _core.solve_c_svc_pairs(
            subsets, ys, larger, kernel, workers, alpha0s, previous, n_jobs=1
        )
        for got, want in zip(together, warm_alone, strict=True):
            _assert_same_solution(got, want)
            np.testing.assert_array_equal(got.gradient, want.gradient)


def test_pairs_in_one_call_refuse_what_they_cannot_solve() -> None:
    X = DATASETS["narrow"]
    facts = _core.DenseRowFacts(X)
    subset = _core.RowSubset(facts, np.arange(10, dtype=np.int64))
    y, upper = np.tile([1.0, -1.0], 5), np.ones(10)
    rbf = _core.Kernel("rbf", gamma=0.1)
    with pytest.raises(ValueError, match="one entry per pair"):
        _core.solve_c_svc_pairs([subset, subset], [y], [upper, upper], rbf, 2)
    with pytest.raises(ValueError, match="built-in kernel"):
        _core.solve_c_svc_pairs([subset], [y], [upper], _core.Kernel("precomputed"), 2)
    with pytest.raises(ValueError, match="no callback"):
        _core.solve_c_svc_pairs([subset], [y], [upper], rbf, 2, callback=lambda p: None)
    with pytest.raises(ValueError, match=r"y\[0\] = 2 is not -1 or \+1"):
        _core.solve_c_svc_pairs([subset], [2 * y], [upper], rbf, 2)
    with pytest.raises(ValueError, match="upper"):
        _core.solve_c_svc_pairs([subset], [y], [-upper], rbf, 2)
    with pytest.raises(ValueError, match="one entry per pair"):
        _core.solve_c_svc_pairs([subset], [y], [upper], rbf, 2, [upper, upper])
    with pytest.raises(ValueError, match="previous"):  # a previous solve needs its start
        _core.solve_c_svc_pairs([subset], [y], [upper], rbf, 2, [None], [(upper, upper)])
    with pytest.raises(ValueError, match="previous"):
        _core.solve_c_svc_pairs([subset], [y], [upper], rbf, 2, [upper], [(upper, upper[:-1])])
