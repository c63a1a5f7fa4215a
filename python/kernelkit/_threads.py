"""How many threads a fit takes: ``n_jobs`` as the Rust core's thread count.

``-1`` is every core the process may run on; ``None`` the same unless ``OMP_NUM_THREADS`` is
set, which caps it. joblib sets that variable in its worker processes to the cores each may
use (``GridSearchCV(n_jobs=k)``, ``cross_val_score``), so that a fit in each worker takes its
share instead of starting a thread per core (nested oversubscription), as scikit-learn's OpenMP
estimators do. Negative values follow joblib's rule. The model never depends on the count.
"""

from __future__ import annotations

import numbers
import os

from .exceptions import InvalidParameterError

#: The most threads ``n_jobs`` may ask for (a pool of them is started).
MAX_THREADS = 1 << 16


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, as Rust's thread pool counts them)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def omp_num_threads() -> int | None:
    """``OMP_NUM_THREADS`` as a positive int (the first of a list), else None. joblib sets it in
    its worker processes to the cores each may use (``GridSearchCV(n_jobs=k)``,
    ``cross_val_score``), and scikit-learn's OpenMP estimators honour it."""
    value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def resolve_n_jobs(n_jobs: int | None) -> int:
    """Threads for the Rust core: ``-1`` means every core (``0`` to Rust), ``None`` the same
    unless ``OMP_NUM_THREADS`` is set, which then caps it (so that a fit in each of joblib's
    workers does not start a thread per core: nested parallelism)."""
    if n_jobs is None:
        limit = omp_num_threads()
        return 0 if limit is None or limit >= available_cores() else limit
    if n_jobs == -1:
        return 0
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise InvalidParameterError(f"n_jobs must be an int or None, got {type(n_jobs).__name__}")
    if n_jobs == 0:
        raise ValueError("n_jobs must be None, a positive int, or negative (joblib's rule), got 0")
    if n_jobs < -1:
        return max(1, available_cores() + 1 + int(n_jobs))
    if n_jobs > MAX_THREADS:
        raise ValueError(f"n_jobs must be at most {MAX_THREADS} threads, got {n_jobs}")
    return int(n_jobs)
