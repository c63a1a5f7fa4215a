"""Type stubs of the Rust extension ``kernelkit._core`` (hand-written, checked by stubtest)."""

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypedDict, final

import numpy as np
from numpy.typing import NDArray
from typing_extensions import Unpack

__all__ = [
    "AidDriver",
    "CsrMatrix",
    "DenseRowFacts",
    "Kernel",
    "RowSubset",
    "Solution",
    "StopFlag",
    "__version__",
    "_panic_in_solver_thread",
    "_simulate_interrupt_at",
    "aggregated_kernel",
    "aid_cluster_shares",
    "aid_evaluate_block",
    "aid_initial_sample",
    "aid_kernel_certifies",
    "aid_key_sums",
    "aid_kmeans_assign",
    "aid_kmeans_centres",
    "aid_kmeans_positions",
    "aid_kmeans_seed",
    "aid_lad",
    "aid_lad_residuals",
    "aid_random_labels",
    "aid_s3vm",
    "aid_s3vm_search",
    "aid_sample_decision",
    "aid_split",
    "aid_svm",
    "aid_svm_aggregated",
    "aid_svm_aggregated_objective",
    "aid_svm_tightened_tol",
    "first_occurrences",
    "kernel_matrix",
    "kernel_matrix_product",
    "simd_levels",
    "solve_box_qp",
    "solve_c_svc",
    "solve_c_svc_pairs",
    "solve_constrained_svr",
    "solve_epsilon_svr",
    "solve_frank_wolfe",
    "solve_klr",
    "solve_nu_svc",
    "solve_nu_svr",
    "solve_one_class",
    "solve_pu",
    "solve_weighted_lad",
]

__version__: str

_Callback = Callable[[Mapping[str, Any]], bool | None]

class _SolverOptions(TypedDict, total=False):
    """Keyword options of every solve entry point."""

    tol: float
    max_iter: int | None
    cache_size: float
    shrinking: bool
    n_jobs: int
    time_limit: float | None
    callback: _Callback | None
    stop: StopFlag | None
    float32_input: bool

@final
class StopFlag:
    """Stops the solves given it (solver option ``stop``) at their next report; read without
    the GIL."""

    def __new__(cls) -> StopFlag: ...
    def set(self) -> None: ...
    def is_set(self) -> bool: ...

@final
class Kernel:
    """A kernel: "linear", "rbf", "poly", "sigmoid", "precomputed", or "callable" with
    ``function(A, B) -> Gram block``."""

    @property
    def kind(self) -> str: ...
    @property
    def gamma(self) -> float: ...
    @property
    def degree(self) -> int: ...
    @property
    def coef0(self) -> float: ...
    @property
    def function(self) -> Callable[[Any, Any], Any] | None: ...
    def __new__(
        cls,
        kind: str,
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 0.0,
        function: Callable[[Any, Any], Any] | None = None,
    ) -> Kernel: ...

@final
class CsrMatrix:
    """A validated CSR matrix (scipy's layout) handed to the Rust core."""

    def __new__(
        cls,
        data: NDArray[np.float64],
        indices: NDArray[np.int64],
        indptr: NDArray[np.int64],
        n_cols: int,
    ) -> CsrMatrix: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...

@final
class DenseRowFacts:
    """A C-contiguous float64 or float32 training array (read in place) with what its row
    subsets share, computed once: finiteness, squared norms, the float32 copy of float64 rows
    that are exactly float32, non-zeros."""

    def __new__(
        cls, x: NDArray[np.float64] | NDArray[np.float32], n_jobs: int = 0
    ) -> DenseRowFacts: ...
    @property
    def shape(self) -> tuple[int, int]: ...

@final
class RowSubset:
    """The rows ``index`` (in that order) of a :class:`DenseRowFacts`' array, read in place."""

    def __new__(cls, facts: DenseRowFacts, index: NDArray[np.int64]) -> RowSubset: ...
    @property
    def shape(self) -> tuple[int, int]: ...

_Rows = NDArray[np.float64] | CsrMatrix | RowSubset

@final
class Solution:
    """The result of a solve."""

    @property
    def x(self) -> NDArray[np.float64]:
        """The solution vector (for a ``BoxQp``: α)."""
    @property
    def objective(self) -> float:
        """The objective at ``x``."""
    @property
    def bias(self) -> float:
        """The bias (intercept) recovered from the optimality conditions."""
    @property
    def gap(self) -> float:
        """The solver's optimality measure at exit (for SMO, the maximal KKT violation)."""
    @property
    def iterations(self) -> int:
        """Iterations done."""
    @property
    def status(self) -> str:
        """How the solve ended.

        One of ``"converged"``, ``"max_iterations"``, ``"time_limit"``, ``"stopped"``,
        ``"numerical_error"``, ``"stalled"`` and ``"not_convex"`` (sparse KLR with a kernel
        matrix that is not positive semidefinite).
        """
    @property
    def stats(self) -> dict[str, float | str]:
        """Counters of the solve (kernel cache, objective increases, shrinking)."""
    @property
    def gradient(self) -> NDArray[np.float64] | None:
        """The dual objective's gradient at ``x``, or None.

        Given where the solver ends with it exact: ``Qx + p`` for the C-SVC and one-class
        solves, ``Qx`` for ν-SVC (``x = α/r``; passed back times ``r``), ``Kβ`` for the
        regressions (``x = β = α − α*``; their dual's gradient is ``(Kβ + p₊, −Kβ + p₋)``).
        Passed back with ``x`` as ``previous``, a warm start updates it instead of computing it
        afresh.
        """

def simd_levels() -> tuple[list[str], str]: ...
def first_occurrences(
    x: NDArray[np.float64] | NDArray[np.float32] | CsrMatrix, n_jobs: int = 0
) -> NDArray[np.int64]: ...
def kernel_matrix(a: _Rows, b: _Rows, kernel: Kernel, n_jobs: int = 0) -> NDArray[np.float64]: ...
def kernel_matrix_product(
    a: _Rows, b: _Rows, kernel: Kernel, coef: NDArray[np.float64], n_jobs: int = 0
) -> NDArray[np.float64]: ...
def solve_c_svc(
    x: _Rows,
    y: NDArray[np.float64],
    upper: NDArray[np.float64],
    kernel: Kernel,
    alpha0: NDArray[np.float64] | None = None,
    previous: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    **options: Unpack[_SolverOptions],
) -> Solution: ...
def solve_c_svc_pairs(
    subsets: list[RowSubset],
    ys: list[NDArray[np.float64]],
    uppers: list[NDArray[np.float64]],
    kernel: Kernel,
    n_workers: int,
    alpha0s: list[NDArray[np.float64] | None] | None = None,
    previous: list[tuple[NDArray[np.float64], NDArray[np.float64]] | None] | None = None,
    **options: Unpack[_SolverOptions],
) -> list[Solution]: ...
def solve_one_class(
    x: _Rows,
    upper: NDArray[np.float64],
    nu: float,
    kernel: Kernel,
    alpha0: NDArray[np.float64] | None = None,
    previous: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    **options: Unpack[_SolverOptions],
) -> Solution: ...
def solve_epsilon_svr(
    x: _Rows,
    y: NDArray[np.float64],
    upper: NDArray[np.float64],
    epsilon: float,
    kernel: Kernel,
    alpha0: NDArray[np.float64] | None = None,
    previous: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    **options: Unpack[_SolverOptions],
) -> Solution: ...
def solve_box_qp(
    q: NDArray[np.float64],
    p: NDArray[np.float64],
    y: NDArray[np.float64],
    upper: NDArray[np.float64],
    alpha0: NDArray[np.float64] | None = None,
    **options: Unpack[_SolverOptions],
) -> Solution: ...
def solve_nu_svc(
    x: _Rows,
    y: NDArray[np.float64],
    upper: NDArray[np.float64],
    nu: float,
    kernel: Kernel,
    alpha0: NDArray[np.float64] | None = None,
    previous: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    capped: bool = False,
    **options: Unpack[_SolverOptions],
) -> tuple[Solution, float]: ...
def solve_nu_svr(
    x: _Rows,
    y: NDArray[np.float64],
    upper: NDArray[np.float64],
    nu: float,
    kernel: Kernel,
    alpha0: NDArray[np.float64] | None = None,
    previous: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    **options: Unpack[_SolverOptions],
) -> tuple[Solution, float]: ...
def solve_pu(
    x_positive: _Rows,
    x_unlabeled: _Rows,
    kernel: Kernel,
    prior: float,
    lam: float,
    selection: Literal["full", "paper"] = "full",
    **options: Unpack[_SolverOptions],
) -> tuple[Solution, float]: ...
def solve_frank_wolfe(
    x: _Rows,
    y: NDArray[np.float64],
    kernel: Kernel,
    c: float,
    method: str,
    epsilon: float,
    sample_size: int | None = None,
    seed: int = 0,
    sample_trials: int = 7,
    init_size: int = 20,
    verify_full: bool = False,
    radius_rule: str = "exact",
    init: str = "random",
    sample_pool: str = "all",
    **options: Unpack[_SolverOptions],
) -> Solution: ...
def solve_constrained_svr(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    c: float,
    nu: float,
    a_indptr: NDArray[np.int64],
    a_indices: NDArray[np.int64],
    a_data: NDArray[np.float64],
    b: NDArray[np.float64],
    gamma_indptr: NDArray[np.int64],
    gamma_indices: NDArray[np.int64],
    gamma_data: NDArray[np.float64],
    d: NDArray[np.float64],
    gamma_rule: str = "projected",
    record_history: bool = False,
    method: str = "auto",
    **options: Unpack[_SolverOptions],
) -> tuple[Solution, NDArray[np.float64], float, dict[str, NDArray[np.float64]] | None]: ...
def solve_klr(
    x: _Rows,
    y: NDArray[np.float64],
    kernel: Kernel,
    c: float,
    lam: float,
    bound_eps: float,
    selection: str = "second_order",
    record_history: bool = False,
    sample_weight: NDArray[np.float64] | None = None,
    **options: Unpack[_SolverOptions],
) -> tuple[Solution, dict[str, NDArray[np.float64]] | None]: ...

_AidInit = str | NDArray[np.int64]

def aid_lad(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    init: _AidInit,
    n_clusters: int,
    seed: int,
    gap_tol: float,
    max_solves: int,
    **options: Unpack[_SolverOptions],
) -> dict[str, Any]: ...
def aid_svm(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    kernel: Kernel,
    c: float,
    init: _AidInit,
    n_clusters: int,
    seed: int,
    gap_tol: float,
    max_solves: int,
    **options: Unpack[_SolverOptions],
) -> dict[str, Any]: ...
def aid_s3vm(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    c: float,
    c_unlabeled: float,
    exact_max_clusters: int,
    balance: Literal["constraint", "cost", "cost_as_printed"] | None,
    init: _AidInit,
    n_clusters: int,
    seed: int,
    gap_tol: float,
    max_solves: int,
    **options: Unpack[_SolverOptions],
) -> dict[str, Any]: ...
def aggregated_kernel(
    x: NDArray[np.float64], clusters: NDArray[np.int64], kernel: Kernel
) -> NDArray[np.float64]: ...
def solve_weighted_lad(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    weights: NDArray[np.float64],
    **options: Unpack[_SolverOptions],
) -> Solution: ...

# AID's steps for a driver that holds the rows in blocks (kernelkit.dask).
def aid_initial_sample(n: int, d: int, seed: int) -> NDArray[np.int64]: ...
def aid_random_labels(
    start: int, count: int, n_clusters: int, seed: int
) -> tuple[NDArray[np.int64], bool]: ...
def aid_cluster_shares(n_clusters: int, group_sizes: list[int]) -> list[int]: ...
def aid_kmeans_positions(n: int, seed: int, group: int) -> NDArray[np.int64]: ...
def aid_kmeans_seed(
    points: NDArray[np.float64], n: int, n_clusters: int, seed: int, group: int
) -> NDArray[np.float64]: ...
def aid_kmeans_assign(
    points: NDArray[np.float64], centres: NDArray[np.float64]
) -> NDArray[np.int64]: ...
def aid_s3vm_search(
    centroids: NDArray[np.float64],
    labels: NDArray[np.float64],
    weights: NDArray[np.float64],
    exact_max_clusters: int,
    remaining: float | None = None,
    **options: Unpack[_SolverOptions],
) -> dict[str, Any]: ...
def aid_evaluate_block(
    formulation: str,
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    clusters: NDArray[np.int64],
    n_clusters: int,
    start: int,
    tol: float,
    sums_x: bool,
    beta: NDArray[np.float64] | None = None,
    w: NDArray[np.float64] | None = None,
    bias: float = 0.0,
    support: NDArray[np.float64] | None = None,
    coef: NDArray[np.float64] | None = None,
    kernel: Kernel | None = None,
) -> dict[str, NDArray[Any]]: ...
def aid_key_sums(
    keys: NDArray[np.int64],
    n_keys: int,
    start: int,
    x: NDArray[np.float64] | None = None,
    y: NDArray[np.float64] | None = None,
) -> dict[str, NDArray[Any]]: ...
def aid_split(
    count: NDArray[np.int64],
    first: NDArray[np.int64],
    clusters: NDArray[np.int64],
    n_clusters: int,
    n_cells: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def aid_kmeans_centres(
    sums: NDArray[np.float64], mass: NDArray[np.float64]
) -> NDArray[np.float64]: ...
def aid_kernel_certifies(kernel: Kernel) -> bool: ...
def aid_svm_tightened_tol(
    tol: float, inner_gap: float, target: float, gap_before: float, converged: bool
) -> float | None: ...
def aid_svm_aggregated(
    points: NDArray[np.float64],
    labels: NDArray[np.float64],
    sizes: NDArray[np.float64],
    c: float,
    kernel: Kernel,
    shares: NDArray[np.float64] | None = None,
    parent: NDArray[np.int64] | None = None,
    **options: Unpack[_SolverOptions],
) -> dict[str, Any]: ...
def aid_svm_aggregated_objective(
    w_norm2: float,
    c: float,
    sizes: NDArray[np.float64],
    labels: NDArray[np.float64],
    sum_f: NDArray[np.float64],
) -> float: ...

@final
class AidDriver:
    def __new__(
        cls,
        tol: float,
        max_iter: int,
        time_limit: float | None,
        certifies: bool,
        needs_gap: bool = False,
    ) -> AidDriver: ...
    def purity_falls_short(self, lower_bound: float, full_objective: float) -> bool: ...
    def record(
        self,
        aggregated_objective: float,
        lower_bound: float,
        full_objective: float,
        solved: bool,
        n_clusters: int,
        n_impure: int,
    ) -> tuple[dict[str, Any], bool]: ...
    def status(self, stop: bool) -> str | None: ...
    @property
    def objective(self) -> float: ...
    @property
    def lower_bound(self) -> float: ...

def aid_lad_residuals(
    x: NDArray[np.float64], y: NDArray[np.float64], beta: NDArray[np.float64]
) -> NDArray[np.float64]: ...
def aid_sample_decision(
    x: NDArray[np.float64],
    support: NDArray[np.float64],
    coef: NDArray[np.float64],
    bias: float,
    kernel: Kernel,
) -> NDArray[np.float64]: ...
def _panic_in_solver_thread() -> None: ...
def _simulate_interrupt_at(point: str | None) -> None: ...
