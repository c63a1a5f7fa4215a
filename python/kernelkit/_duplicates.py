"""Identical training rows with the same label solved as one C-SVC dual variable.

Rows ``x_s = x_t`` with ``y_s = y_t`` have identical columns of ``Q`` (``Q_st = y_s y_t K``)
and the same linear term ``−1``, so the C-SVC dual depends on their coefficients only through
their sum: with ``α_g = Σ_{t∈g} α_t`` the problem over the groups,

``min ½ Σ_gh α_g α_h y_g y_h K(x_g, x_h) − Σ_g α_g  s.t.  Σ_g y_g α_g = 0,  0 ≤ α_g ≤ U_g``

with ``U_g = Σ_{t∈g} u_t`` has the same optimal value, and every point of it is a point of the
original problem with the same objective, gradient and KKT violation once ``α_g`` is split
among the members. The split fills the members in position order up to their bounds,
``α_t = max(0, min(u_t, α_g − Σ_{s<t} u_s))``, so the fewest members become support vectors
and every ``α_t`` keeps its bound. The SMO path over the groups is not LIBSVM's path over the
rows (which moves the copies one pair at a time), but both stop at ``m(α) − M(α) < tol`` of the
same problem: the models agree up to that tolerance, and the decision function is computed
from the same rows.

Only problems where it pays are reduced: at least ``MIN_ROWS`` rows, of which at most
``MAX_GROUP_FRACTION`` remain as groups. Categorical and binary data repeat rows often (20,000
rows of KDD Cup '99 hold 8,181 distinct ones; a9a 26,008 distinct (row, label) pairs of 32,561).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from . import _core
from ._sparse import to_core_rows

__all__ = ["MAX_GROUP_FRACTION", "MIN_ROWS", "RowGroups", "first_occurrences", "group_rows"]

#: Problems with fewer rows keep LIBSVM's path exactly (the reduction saves little there).
MIN_ROWS = 1000
#: A problem is reduced only when its groups are at most this fraction of its rows.
MAX_GROUP_FRACTION = 0.95


def first_occurrences(X: Any, n_jobs: int = 0) -> NDArray[np.int64] | None:
    """For each row of the dense or sparse training ``X``, the first row equal to it (value
    bits, with ``-0.0`` read as ``0.0`` and stored zeros as absent: the core's ``repeats``;
    rows hashed on ``n_jobs`` threads, 0 for every core); ``None`` when no row repeats or X is
    too small to be reduced."""
    if X.shape[0] < MIN_ROWS:
        return None
    first = _core.first_occurrences(to_core_rows(X) if sp.issparse(X) else X, n_jobs)
    if np.all(first == np.arange(len(first))):
        return None
    return first


@dataclass(frozen=True)
class RowGroups:
    """The groups of one dual problem's positions: ``group[t]`` is the group of position ``t``,
    ``representatives[g]`` the first position of group ``g`` (increasing)."""

    group: NDArray[np.intp]
    representatives: NDArray[np.intp]

    @property
    def n_groups(self) -> int:
        return len(self.representatives)

    def merge(self, upper: NDArray[np.float64]) -> NDArray[np.float64]:
        """The bound of each group: the sum of its members' bounds."""
        merged: NDArray[np.float64] = np.bincount(
            self.group, weights=upper, minlength=self.n_groups
        ).astype(np.float64)
        return merged

    def split(
        self,
        alpha: NDArray[np.float64],
        upper: NDArray[np.float64],
        group_upper: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        """The coefficient of each position from the groups' ``alpha`` (see the module doc):
        members filled in position order up to their bounds ``upper``; a group at its bound
        ``group_upper`` (the one its solve used) puts every member exactly at its own."""
        # Only the members of groups with α_g > 0 get a share (every other α_t is 0).
        result = np.zeros_like(upper)
        members = np.flatnonzero((alpha > 0)[self.group])
        if len(members) == 0:
            return result
        order = members[np.argsort(self.group[members], kind="stable")]
        group_sorted = self.group[order]
        upper_sorted = upper[order]
        before = np.cumsum(upper_sorted) - upper_sorted
        starts = np.searchsorted(group_sorted, group_sorted, side="left")
        before -= before[starts]
        share = np.clip(alpha[group_sorted] - before, 0.0, upper_sorted)
        at_bound = alpha >= group_upper
        share = np.where(at_bound[group_sorted], upper_sorted, share)
        result[order] = share
        return result


def group_rows(
    first: NDArray[np.int64] | None, index: NDArray[np.intp], signs: NDArray[np.float64]
) -> RowGroups | None:
    """The groups of the problem over rows ``index`` with labels ``signs``: positions whose
    rows are equal (``first``) and whose labels agree; ``None`` when the problem is not worth
    reducing (see the module doc)."""
    if first is None or len(index) < MIN_ROWS:
        return None
    key = first[index] * 2 + (signs > 0)
    positions = np.arange(len(index))
    # The first position of each key, without sorting the keys.
    first_position = np.full(2 * len(first), len(index), dtype=np.intp)
    np.minimum.at(first_position, key, positions)
    # Groups numbered in the order of their first position, so that the reduced problem keeps
    # the positions' relative order.
    representatives = np.flatnonzero(first_position[key] == positions)
    n_groups = len(representatives)
    if n_groups > MAX_GROUP_FRACTION * len(index):
        return None
    rank = np.empty(len(first_position), dtype=np.intp)
    rank[key[representatives]] = np.arange(n_groups)
    return RowGroups(group=rank[key], representatives=representatives)
