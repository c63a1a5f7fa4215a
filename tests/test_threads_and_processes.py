"""Threads and processes: concurrent fits in Python threads, the GIL released during a fit,
``n_jobs``'s meaning, and a fitted model used in forked and spawned worker processes."""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression

import kernelkit
from kernelkit._threads import available_cores, resolve_n_jobs

FORK_TIMEOUT_S = 120


def _classification(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return make_classification(
        n_samples=n, n_features=8, n_informative=5, n_classes=3, random_state=seed
    )


def _regression(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    x, y = make_regression(n_samples=n, n_features=6, noise=5.0, random_state=seed)
    return x, y / np.std(y)


def _models() -> list[tuple[Any, tuple[np.ndarray, np.ndarray]]]:
    """One fit of each solver family, small enough to run many times."""
    xc, yc = _classification()
    xb, yb = _classification(seed=1)
    yb = (yb == 0).astype(int)
    xr, yr = _regression()
    return [
        (kernelkit.SVC(C=3.0, gamma=0.1, n_jobs=2), (xc, yc)),
        (kernelkit.NuSVC(nu=0.3, gamma=0.1, n_jobs=1), (xc, yc)),
        (kernelkit.SVR(C=2.0, gamma=0.1, epsilon=0.05, n_jobs=2), (xr, yr)),
        (kernelkit.OneClassSVM(nu=0.2, gamma=0.1), (xc, None)),
        (kernelkit.FrankWolfeSVC(gamma=0.1, random_state=0), (xb, yb)),
        (kernelkit.SparseKernelLogisticRegression(C=5.0, gamma=0.1), (xb, yb)),
        (kernelkit.AIDRegressor(random_state=0), (xr, yr)),
    ]


def _fit_and_score(model: Any, data: tuple[np.ndarray, np.ndarray | None]) -> np.ndarray:
    x, y = data
    fitted = model.fit(x) if y is None else model.fit(x, y)
    method = "decision_function" if hasattr(fitted, "decision_function") else "predict"
    return np.asarray(getattr(fitted, method)(x))


def test_concurrent_fits_in_python_threads_give_the_sequential_models() -> None:
    cases = _models()
    sequential = [_fit_and_score(type(m)(**m.get_params()), data) for m, data in cases]
    # Every case three times over, on four threads: several fits in Rust at once, some sharing
    # a thread pool size.
    jobs = [
        (type(m)(**m.get_params()), data, i) for _ in range(3) for i, (m, data) in enumerate(cases)
    ]
    with ThreadPoolExecutor(max_workers=4) as executor:
        futures = [(i, executor.submit(_fit_and_score, model, data)) for model, data, i in jobs]
        results = [(i, future.result(timeout=300)) for i, future in futures]
    for i, result in results:
        np.testing.assert_array_equal(result, sequential[i], err_msg=type(cases[i][0]).__name__)


def test_a_fit_releases_the_gil() -> None:
    """While a fit runs in another thread, this thread keeps running: the longest pause it sees
    is a small part of the fit (were the GIL held, it would pause for the whole fit)."""
    # Random labels: a hard problem, cut by its time limit, so the fit lasts about a second
    # however fast the machine is.
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4000, 20)), rng.integers(0, 2, 4000)
    model = kernelkit.SVC(
        C=100.0, gamma=0.05, tol=1e-9, cache_size=1, n_jobs=1, shrinking=False, time_limit=1.0
    )
    fit_seconds: list[float] = []

    def fit() -> None:
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", kernelkit.ConvergenceWarning)
            model.fit(x, y)
        fit_seconds.append(time.perf_counter() - start)

    worker = threading.Thread(target=fit)
    worker.start()
    longest_pause, last = 0.0, time.perf_counter()
    while worker.is_alive():
        now = time.perf_counter()
        longest_pause = max(longest_pause, now - last)
        last = now
    worker.join()
    assert fit_seconds[0] > 0.3, "the fit is too short to tell"
    assert longest_pause < 0.5 * fit_seconds[0], (longest_pause, fit_seconds[0])


@pytest.mark.parametrize(
    ("n_jobs", "expected"),
    [(None, 0), (-1, 0), (1, 1), (3, 3), (-2, max(1, (os.cpu_count() or 1) - 1))],
)
def test_n_jobs_resolves_like_joblib(
    n_jobs: int | None, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0 asks the Rust core for one thread per core.
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert resolve_n_jobs(n_jobs) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [("1", 1), ("1,1", 1), ("0", 0), ("two", 0), ("", 0), ("4096", 0)]
)
def test_omp_num_threads_caps_the_default_n_jobs(
    value: str, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """n_jobs=None honours OMP_NUM_THREADS (a positive int, the first of a list; one at least
    every core is every core: 0); n_jobs=-1 and explicit counts do not."""
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert resolve_n_jobs(None) == expected
    assert resolve_n_jobs(-1) == 0 and resolve_n_jobs(3) == 3


def _threads_around_a_fit() -> tuple[str | None, int, int, int]:
    """In a worker: OMP_NUM_THREADS, the default n_jobs it resolves to, and the process's
    threads before and after a 3-class fit (read from /proc)."""

    def count() -> int:
        with open("/proc/self/status") as status:
            return int(next(line for line in status if line.startswith("Threads")).split()[1])

    x, y = make_classification(n_samples=600, n_features=5, n_informative=3, n_classes=3)
    before = count()
    kernelkit.SVC().fit(x, y)
    return os.environ.get("OMP_NUM_THREADS"), resolve_n_jobs(None), before, count()


def test_fits_in_joblibs_workers_take_the_cores_joblib_gives_them() -> None:
    """joblib's process workers (GridSearchCV(n_jobs=k), cross_val_score) set OMP_NUM_THREADS
    to the cores each may use; a fit there runs on that many threads, not on one per core
    (which started a thread per core in every worker: nested oversubscription)."""
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("needs /proc")
    from joblib import Parallel, delayed

    workers = 2
    share = max(1, available_cores() // workers)
    results = Parallel(n_jobs=workers)(delayed(_threads_around_a_fit)() for _ in range(workers))
    for omp, resolved, before, after in results:
        assert omp == str(share)
        assert resolved == (0 if share >= available_cores() else share)
        # A pool of `share` threads at most (before: a pool of one per core, and the pairs'
        # Python threads).
        assert after - before <= share, (before, after)


def _solver_thread_names() -> set[str]:
    """Names of this process's solver threads (``kkpool<size>-<index>``), read from /proc."""
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name.startswith("kkpool"):
            found.add(name)
    return found


@pytest.mark.parametrize("n_jobs", [1, 3, None])
def test_a_fit_runs_on_a_pool_of_n_jobs_threads(n_jobs: int | None) -> None:
    """The solve calls back from a thread of a pool of size ``n_jobs`` (``None``: one per
    core), and every pool of that size has exactly that many threads (read from /proc; pools
    are kept for the next fit). Callers that overlap get a pool each: ``kkpool<size>-<i>``
    for the first pool of a size, ``kkpool<size>.<k>-<i>`` for the others."""
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("needs /proc")
    x, y = make_classification(n_samples=1500, n_features=10, random_state=0)
    callers: set[str] = set()

    def callback(_: Any) -> None:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm") as f:
            callers.add(f.read().strip())

    kernelkit.SVC(gamma=0.1, n_jobs=n_jobs, callback=callback).fit(x, y)
    size = resolve_n_jobs(n_jobs)
    threads = size or os.cpu_count() or 1
    of_size = re.compile(rf"(kkpool{size}(?:\.[0-9]+)?)-([0-9]+)")
    assert callers and all(of_size.fullmatch(name) for name in callers), callers
    pools: dict[str, set[str]] = {}
    for name in _solver_thread_names():
        if match := of_size.fullmatch(name):
            pools.setdefault(match[1], set()).add(match[2])
    assert pools and all(index == {str(i) for i in range(threads)} for index in pools.values())


def _predict_in_child(model: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    refit = type(model)(**model.get_params()).fit(x, model.predict(x))
    return model.decision_function(x), refit.decision_function(x)


@pytest.mark.parametrize(
    "estimator",
    [
        kernelkit.SVC(gamma=0.1, n_jobs=2),
        kernelkit.AIDClassifier(kernel="rbf", gamma=0.1, random_state=0, n_jobs=2),
    ],
    ids=["SVC", "AIDClassifier"],
)
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_fitted_model_in_a_worker_process(start_method: str, estimator: Any) -> None:
    """Fit (which starts the solver's thread pool), then predict and fit again in a child
    process. A forked child inherits no pool threads: it must build its own, not wait forever
    on the parent's. (AIDClassifier's RBF fit built its kernel on rayon's global pool, which
    the fork leaves without threads: the child's fit waited forever.)"""
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method}")
    x, y = _classification()
    if isinstance(estimator, kernelkit.AIDClassifier):
        y = (y > 0).astype(int)  # binary only
    model = clone(estimator).fit(x, y)
    expected = model.decision_function(x)
    refit_expected = clone(estimator).fit(x, model.predict(x))
    context = multiprocessing.get_context(start_method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (Python 3.12+)
        with context.Pool(2) as pool:
            results = pool.starmap_async(_predict_in_child, [(model, x), (model, x)])
            outputs = results.get(timeout=FORK_TIMEOUT_S)
    for decision, refit in outputs:
        np.testing.assert_array_equal(decision, expected)
        np.testing.assert_array_equal(refit, refit_expected.decision_function(x))


def test_joblib_workers_predict_like_the_parent() -> None:
    """scikit-learn users parallelise prediction with joblib: both its process backends (loky
    spawns, multiprocessing forks on Linux) give the parent's predictions. To rounding only:
    the kernel rows times the dual coefficients are a BLAS product, whose summation order for
    a row can depend on where the row falls in its block."""
    x, y = _regression(n=1000)
    model = kernelkit.SVR(C=2.0, gamma=0.1, n_jobs=2).fit(x, y)
    expected = model.predict(x)
    chunks = np.array_split(x, 4)
    for backend in ("loky", "multiprocessing"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            parts = joblib.Parallel(n_jobs=2, backend=backend, timeout=FORK_TIMEOUT_S)(
                joblib.delayed(model.predict)(chunk) for chunk in chunks
            )
        np.testing.assert_allclose(np.concatenate(parts), expected, rtol=1e-12, err_msg=backend)


def test_n_jobs_beyond_any_machine_is_refused_by_name() -> None:
    """10**20 threads met an OverflowError in the conversion to Rust, naming nothing."""
    with pytest.raises(ValueError, match="n_jobs must be at most"):
        resolve_n_jobs(10**20)
    x, y = make_classification(n_samples=60, n_features=4, random_state=0)
    with pytest.raises(ValueError, match="n_jobs"):
        kernelkit.SVC(n_jobs=10**20).fit(x, y)
