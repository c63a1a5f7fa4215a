"""The random draws and the k-means steps of AID's initial clusters, exactly as the Rust core
makes them (``crates/solvers/src/aid/init.rs`` and ``kmeans.rs``), so that the distributed AID
starts from the same partition as the in-memory one.

Everything here works on NumPy arrays held by the client (the seeding sample, the centres) or
on one block of rows at a time (the assignment of rows to centres); the per-row arithmetic is
done in the same order as the core's loops (sums over features left to right, ties to the
lowest centre), so a row gets the same value whichever block it is in.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
#: Points the k-means++ seeding looks at (the core's ``SEEDING_SAMPLE``).
SEEDING_SAMPLE = 20_000
#: XOR-ed into the seed of the sample the initial SVM / LAD is fitted on.
SAMPLE_SALT = 0x5EED

Float64Array = NDArray[np.float64]
IntArray = NDArray[np.int64]


class SplitMix64:
    """The core's SplitMix64 generator (``frank_wolfe::search::Random``)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in ``0..n`` by rejection."""
        zone = MASK - MASK % n
        while True:
            v = self.next_u64()
            if v < zone:
                return v % n

    def distinct(self, lo: int, hi: int, count: int) -> list[int]:
        """``count`` distinct positions of ``lo..hi`` in drawing order (all when fewer)."""
        pool = max(hi - lo, 0)
        if pool <= count:
            return list(range(lo, hi))
        seen: set[int] = set()
        chosen: list[int] = []
        while len(chosen) < count:
            p = lo + self.below(pool)
            if p not in seen:
                seen.add(p)
                chosen.append(p)
        return chosen


def sample_rows(n: int, d: int, seed: int) -> list[int]:
    """The rows the initial LAD / SVM is fitted on (sorted)."""
    size = min(n, max(10 * d, 1000))
    return sorted(SplitMix64(seed ^ SAMPLE_SALT).distinct(0, n, size))


def random_labels(start: int, count: int, k: int, seed: int) -> IntArray:
    """Rows ``start .. start + count`` of the core's uniformly random partition into ``k``
    clusters (``Random::new(seed)``, one ``below(k)`` per row). Computed without the rows
    before ``start``, which holds unless a draw was rejected (probability below
    ``k / 2^64`` per row); a rejection is detected and reported."""
    steps = np.arange(start + 1, start + count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & MASK) + steps * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    zone = np.uint64(MASK - MASK % k)
    if np.any(z >= zone):
        raise RuntimeError(
            "init='random': a rejected random draw (probability < 1e-12) makes the distributed "
            "partition differ from the in-memory one; use another random_state"
        )
    draws: NDArray[np.int64] = (z % np.uint64(k)).astype(np.int64)
    return draws


def share(k: int, sizes: list[int]) -> list[int]:
    """``k`` clusters split over groups in proportion to their sizes, at least 1 each."""
    n = sum(sizes)
    out = []
    for s in sizes:
        if s == 0:
            out.append(0)
            continue
        x = k * s / n
        r = math.floor(x)
        if x - r >= 0.5:  # Rust's round(): half away from zero
            r += 1
        out.append(min(max(r, 1), s))
    return out


def squared_distances(points: Float64Array, centre: Float64Array) -> Float64Array:
    """``Σ_j (z_j − c_j)²`` per point, summed left to right."""
    acc = np.zeros(points.shape[0])
    for j in range(points.shape[1]):
        diff = points[:, j] - centre[j]
        acc += diff * diff
    return acc


def _draw(random: SplitMix64, mass: Float64Array) -> int | None:
    if mass.size == 0:
        return None
    cumulative = np.cumsum(mass)  # sequential, as the core's running sum
    total = float(cumulative[-1])
    if not total > 0.0:
        return None
    target = float(random.next_u64() >> 11) / float(1 << 53) * total
    hits = np.flatnonzero((cumulative > target) & (mass > 0.0))
    if hits.size:
        return int(hits[0])
    positive = np.flatnonzero(mass > 0.0)
    return int(positive[-1]) if positive.size else None


def seed_centres(random: SplitMix64, sample_points: Float64Array, k: int) -> Float64Array:
    """k-means++ seeding (unit weights) on the seeding sample, continuing ``random`` (which has
    drawn the sample already). Returns the centres, ``(k', d)``."""
    n, d = sample_points.shape
    weights = np.ones(n)
    first = _draw(random, weights)
    centres = [sample_points[first if first is not None else 0].copy()]
    nearest = squared_distances(sample_points, centres[0])
    while len(centres) < k:
        mass = nearest * weights
        nxt = _draw(random, mass)
        if nxt is None:
            break
        centres.append(sample_points[nxt].copy())
        nearest = np.minimum(nearest, squared_distances(sample_points, centres[-1]))
        if d == 0:
            break
    return np.asarray(centres, dtype=np.float64).reshape(len(centres), d)


def seeding_positions(random: SplitMix64, n: int) -> list[int]:
    """The positions (within the points being clustered) the seeding looks at."""
    if n <= SEEDING_SAMPLE:
        return list(range(n))
    return sorted(random.distinct(0, n, SEEDING_SAMPLE))


def assign(points: Float64Array, centres: Float64Array) -> IntArray:
    """The nearest centre of every point (lowest index on ties), as the core's ``assign``."""
    n, d = points.shape
    k = centres.shape[0]
    if d == 0 or k <= 1:
        return np.zeros(n, dtype=np.int64)
    if d == 1:
        values = centres[:, 0]
        order = np.lexsort((np.arange(k), values))
        ordered = values[order]
        z = points[:, 0]
        p = np.searchsorted(ordered, z, side="left")
        best = np.minimum(p, k - 1)
        has_left = p > 0
        left = np.searchsorted(ordered, ordered[np.maximum(p - 1, 0)], side="left")
        to_left = z - ordered[left]
        to_right = np.abs(ordered[best] - z)
        take_left = has_left & (
            (to_left < to_right) | ((to_left == to_right) & (order[left] < order[best]))
        )
        chosen = np.where(take_left, left, best)
        return order[chosen].astype(np.int64)
    # The nearest two centres by a k-d tree; where they are not clearly apart (a relative
    # margin far above rounding), the exact left-to-right distances decide, ties to the lowest.
    from scipy.spatial import cKDTree

    tree = cKDTree(centres)
    dist, index = tree.query(points, k=2)
    out = np.asarray(index[:, 0], dtype=np.int64)
    close = np.flatnonzero(dist[:, 1] - dist[:, 0] <= 1e-7 * np.maximum(dist[:, 1], 1e-300))
    step = max(1, (1 << 22) // max(k, 1))
    for lo in range(0, close.shape[0], step):
        rows = close[lo : lo + step]
        block = points[rows]
        exact = np.zeros((block.shape[0], k))
        for j in range(d):
            diff = block[:, j : j + 1] - centres[None, :, j]
            exact += diff * diff
        out[rows] = np.argmin(exact, axis=1)
    return out


def means_from_sums(sums: Float64Array, mass: Float64Array) -> Float64Array:
    """The centres of the non-empty clusters, in centre order (empty ones dropped)."""
    keep = mass > 0
    return np.asarray(sums[keep] / mass[keep, None], dtype=np.float64)
