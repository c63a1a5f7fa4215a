"""The class pairs of one one-vs-one fit (``SVC``, ``NuSVC``, ``FrankWolfeSVC``).

A fit over ``k`` classes solves ``k (k − 1) / 2`` dual problems, one per pair of classes, each
over the pair's rows of positive weight. :class:`PairFit` holds what they share, prepared once:

* the rows as the core reads them: dense rows of a built-in kernel are handed over once, as
  they are (float64 or float32), with their facts (norms, checks, float32 narrowing) computed
  once (``_core.DenseRowFacts``); each pair names its rows (``_core.RowSubset``), so no row is
  copied per pair. The core reads them in place, so they must be C-contiguous and aligned (an
  array unpickled from a byte stream, a Dask or joblib worker's, may not be, and is copied
  once). Far from the origin, RBF rows are solved shifted to their mean (``_rbf_shift``);
* the groups of identical rows with the same label, each solved as one C-SVC dual variable
  (``_duplicates``): a pair's :class:`PairProblem` is over its positions or over their groups;
* the warm start (``_warm_start``): each pair starts from the previous fit's dual moved into
  this fit's set, or, where the previous fit solved the same dual variables, from its solution
  with its gradient (one kernel column per variable the move changed);

and it solves the pairs: all in one core call when the pairs are C-SVC over dense rows and
run in parallel (no Python between two solves), else through the estimator's
``_run_in_parallel``; and the folds of ``probability=True`` (each fold's problem merged as the
pair's own). The estimator supplies the dual: ``_solve_pair`` (C-SVC, ν-SVC or the MEB of
Frank–Wolfe), its bounds ``_upper`` and its warm starts.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._base import KernelParams
from ._duplicates import RowGroups, first_occurrences, group_rows
from ._probability import PairPositions
from ._rbf_shift import solved_rows
from ._threads import resolve_n_jobs
from ._warm_start import PreviousSolve, SparseDual, digest_once

__all__ = ["PairFit", "PairProblem", "PairResult"]

Float64Array = NDArray[np.float64]

#: One pair's model: its positions (rows of X), signs, dual values ``α`` over the positions,
#: and the core's solution.
PairResult = tuple[NDArray[np.intp], Float64Array, Float64Array, _core.Solution]


class PairProblem(NamedTuple):
    """One class pair's dual: its positions (rows of X), signs, weights, and the rows solved
    (the positions, or one per group of identical rows)."""

    positions: NDArray[np.intp]
    signs: Float64Array
    sample_weights: Float64Array
    class_weights: Float64Array
    groups: RowGroups | None
    rows_index: NDArray[np.intp]
    rows_signs: Float64Array
    rows_weights: Float64Array
    rows_class_weights: Float64Array


class PairFit:
    """The class pairs of one fit of ``model`` (module documentation): ``classes`` (those
    with a sample of positive weight), each row's index among them (``y_index``), the rows'
    ``weights`` and the classes' ``class_weight``."""

    def __init__(
        self,
        model: Any,
        X: Any,
        kernel_params: KernelParams,
        kernel: _core.Kernel,
        classes: NDArray[Any],
        y_index: NDArray[np.intp],
        weights: Float64Array,
        class_weight: Float64Array,
        *,
        reads_rows: bool,
        warm: bool,
    ) -> None:
        self.model, self.kernel, self.classes = model, kernel, classes
        self.weights, self.class_weight = weights, class_weight
        k = len(classes)
        self.members = [np.flatnonzero((y_index == c) & (weights > 0)) for c in range(k)]
        self.pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        # The previous fit's duals, one full-length vector per pair, when this fit starts warm,
        # and the duals as solved with their gradients (``_warm_start``, "The gradient").
        self.previous = model._previous_duals(len(y_index), classes) if warm else None
        # Taken where first compared or kept.
        float32_input = bool(getattr(model, "_float32_input", False))
        self.digest = digest_once(X, kernel_params, float32_input) if warm else lambda: None
        self.previous_solves: list[PreviousSolve] | None = (
            getattr(model, "_warm_solves", None) if self.previous is not None else None
        )
        self.solves: dict[int, PreviousSolve] = {}
        threads = resolve_n_jobs(model.n_jobs)
        self.X = solved_rows(X, kernel_params[0])
        self.facts = None
        if isinstance(self.X, np.ndarray) and reads_rows:
            self.X = np.require(self.X, requirements=["C_CONTIGUOUS", "ALIGNED"])
            self.facts = _core.DenseRowFacts(self.X, threads)
        self.first = (
            first_occurrences(self.X, threads)
            if model._merges_repeated_rows
            and isinstance(model.kernel, str)
            and model.kernel != "precomputed"
            else None
        )

    # -- the problems -----------------------------------------------------------------------

    def positions(self, pair: tuple[int, int]) -> PairPositions:
        """The pair's rows of positive weight, signs (+1: the first class), weights."""
        a, b = pair
        index = np.concatenate([self.members[a], self.members[b]])
        signs = np.concatenate([np.ones(len(self.members[a])), -np.ones(len(self.members[b]))])
        class_weights = np.where(signs > 0, self.class_weight[a], self.class_weight[b])
        return PairPositions(index, signs, self.weights[index], class_weights)

    def problem(self, pair: tuple[int, int]) -> PairProblem:
        return self.reduced(*self.positions(pair))

    def reduced(
        self,
        index: NDArray[np.intp],
        signs: Float64Array,
        sample_weights: Float64Array,
        class_weights: Float64Array,
    ) -> PairProblem:
        """The problem solved: over the positions, or over their groups of identical rows."""
        groups = group_rows(self.first, index, signs)
        solved = (
            (index, signs, sample_weights, class_weights)
            if groups is None
            else (
                index[groups.representatives],
                signs[groups.representatives],
                groups.merge(sample_weights),
                class_weights[groups.representatives],
            )
        )
        return PairProblem(index, signs, sample_weights, class_weights, groups, *solved)

    def describe(self, pair: tuple[int, int]) -> str:
        a, b = pair
        name = type(self.model).__name__
        return f"{name} {_label(self.classes[a])} vs {_label(self.classes[b])}"

    # -- warm start -------------------------------------------------------------------------

    def warm_start_of(self, problem: PairProblem, p: int | None) -> dict[str, Any]:
        """The start of pair ``p`` of a warm fit (``alpha0``, and ``previous`` where the
        gradient carries over), as ``_solve_pair``'s keywords; none for a cold solve."""
        model = self.model
        start = None if self.previous is None or p is None else self.previous[p]
        solved = None if self.previous_solves is None or p is None else self.previous_solves[p]
        if (
            solved is not None
            and (current := self.digest()) is not None
            and solved.continues(current, problem.rows_index, problem.rows_signs)
        ):
            # The same dual variables as the previous fit's solve: its solution moved into
            # this fit's set, the gradient updated from the previous one.
            alpha0 = model._start_from_solve(problem, solved.x)
            return {"alpha0": alpha0, "previous": (solved.x, solved.gradient)}
        if start is None:
            return {}
        # The start of every position, moved into this fit's set; merged rows start at their
        # sum.
        alpha0 = model._warm_pair_start(problem, start[problem.positions])
        if problem.groups is not None:
            merged = np.bincount(
                problem.groups.group, weights=alpha0, minlength=problem.groups.n_groups
            ).astype(np.float64)
            upper = model._upper(problem.rows_weights, problem.rows_class_weights)
            alpha0 = np.minimum(merged, upper)
        return {"alpha0": alpha0}

    def remember(self, p: int, problem: PairProblem, solution: _core.Solution) -> None:
        """Keeps what the next warm fit may continue from (a solve that returned its
        gradient)."""
        if (carried := self.model._kept_solve(problem, solution)) is not None and (
            kept := self.digest()
        ) is not None:
            self.solves[p] = PreviousSolve(kept, problem.rows_index, problem.rows_signs, *carried)

    def kept_solves(self) -> list[PreviousSolve] | None:
        """Every pair's solve as kept by :meth:`remember`, or None if one is missing."""
        if len(self.solves) != len(self.pairs):
            return None
        return [self.solves[p] for p in range(len(self.pairs))]

    def warm_duals(self, results: list[PairResult]) -> tuple[int, NDArray[Any], list[SparseDual]]:
        """This fit's duals as the next warm fit reads them (``_previous_duals``)."""
        n = len(self.weights)
        duals = [SparseDual.of(self.model._full_dual(self.weights, r)) for r in results]
        return n, self.classes, duals

    # -- the solves -------------------------------------------------------------------------

    def finish(self, problem: PairProblem, solution: _core.Solution) -> PairResult:
        """The pair's ``α`` over its positions (merged rows' values given to their members)."""
        alpha = np.asarray(solution.x)
        if problem.groups is not None:
            # The bounds as `_solve_pair` computes them, per position and per group.
            upper = self.model._upper
            alpha = problem.groups.split(
                alpha,
                upper(problem.sample_weights, problem.class_weights),
                upper(problem.rows_weights, problem.rows_class_weights),
            )
        return problem.positions, problem.signs, alpha, solution

    def solve_problem(
        self,
        problem: PairProblem,
        description: str,
        n_jobs: int | None,
        stop: _core.StopFlag | None,
        p: int | None = None,
        fold: bool = False,
    ) -> _core.Solution:
        model = self.model
        rows = (
            model._training_rows(self.X, problem.rows_index)
            if self.facts is None
            else _core.RowSubset(self.facts, problem.rows_index.astype(np.int64))
        )
        extra = model._fold_solve_options() if fold else self.warm_start_of(problem, p)
        return model._solve_pair(  # type: ignore[no-any-return]
            rows, problem, self.kernel, description=description, n_jobs=n_jobs, stop=stop, **extra
        )

    def solve_pair(
        self, pair: tuple[int, int], n_jobs: int | None, stop: _core.StopFlag | None
    ) -> PairResult:
        problem, p = self.problem(pair), self.pairs.index(pair)
        solution = self.solve_problem(problem, self.describe(pair), n_jobs, stop, p)
        self.remember(p, problem, solution)
        return self.finish(problem, solution)

    def solve_pairs(self, one_core_call: bool) -> list[PairResult]:
        """Every pair's model. ``one_core_call``: the pairs are C-SVC duals (not a subclass's),
        fitted without callback or progress bar; over dense rows of a built-in kernel, with
        more than one worker, they then go to the core in one call, its workers taking the
        pairs in order (the same solves as one by one, warm ones included)."""
        model = self.model
        workers = model._pair_workers(len(self.pairs))
        if not (self.facts is not None and workers > 1 and one_core_call):
            return model._run_in_parallel(self.pairs, self.solve_pair)  # type: ignore[no-any-return]
        problems = [self.problem(pair) for pair in self.pairs]
        starts = [self.warm_start_of(problem, p) for p, problem in enumerate(problems)]
        solutions = _core.solve_c_svc_pairs(
            [_core.RowSubset(self.facts, p.rows_index.astype(np.int64)) for p in problems],
            [p.rows_signs for p in problems],
            [model._upper(p.rows_weights, p.rows_class_weights) for p in problems],
            self.kernel,
            workers,
            [start.get("alpha0") for start in starts],
            [start.get("previous") for start in starts],
            **{**model._solver_options(), "n_jobs": 1},
        )
        for p, (problem, solution) in enumerate(zip(problems, solutions, strict=True)):
            self.remember(p, problem, solution)
        return [self.finish(p, s) for p, s in zip(problems, solutions, strict=True)]

    # -- probability folds ------------------------------------------------------------------

    def solve_fold(
        self,
        pair: PairPositions,
        train: NDArray[np.bool_],
        n_jobs: int | None,
        stop: _core.StopFlag | None,
        description: str,
    ) -> tuple[NDArray[np.intp], Float64Array, float, str]:
        """The pair's problem over its training positions (repeated rows merged as in the
        pair's own fit): the support rows and coefficients of the fold's model."""
        problem = self.reduced(
            pair.positions[train],
            pair.signs[train],
            pair.sample_weights[train],
            pair.class_weights[train],
        )
        solution = self.solve_problem(problem, description, n_jobs, stop, fold=True)
        coef = problem.rows_signs * np.asarray(solution.x)
        kept = coef != 0
        return problem.rows_index[kept], coef[kept], float(solution.bias), solution.status

    def decide_fold(
        self,
        rows: NDArray[np.intp],
        support: NDArray[np.intp],
        coef: Float64Array,
        n_jobs: int | None,
    ) -> Float64Array:
        """The decision values of a fold's model at its held-out ``rows``."""
        values: Float64Array = self.model._training_kernel_product(
            self.X, rows, support, self.kernel, coef, n_jobs
        )
        return values

    def fit_sigmoids(self) -> tuple[Float64Array, Float64Array, list[Any]]:
        """``probA_``, ``probB_`` and the folds that stopped early (``ProbabilityMixin``)."""
        fitted: tuple[Float64Array, Float64Array, list[Any]] = self.model._fit_sigmoids(
            [self.positions(pair) for pair in self.pairs],
            self.solve_fold,
            self.decide_fold,
            self.model._run_in_parallel,
            self.describe_index,
        )
        return fitted

    def describe_index(self, p: int) -> str:
        return self.describe(self.pairs[p])


def _label(value: Any) -> str:
    """A class label for progress messages: ``1.0`` or ``'cat'``, not ``np.float64(1.0)``."""
    plain = value.item() if isinstance(value, np.generic) else value
    return repr(plain)
