"""Repeated fits of one ``run_all.py`` dataset in one process, for profiling and scaling runs.

    python benches/profile_fit.py a9a --n-jobs 1 2 1 2 1 2
    perf record -g python benches/profile_fit.py 537_houses --n-jobs 2 2

Loads the dataset as ``run_all.py`` does (same split, scaling, C, gamma, epsilon, tol and a
200 MB cache), then fits kernelkit once per ``--n-jobs`` entry and prints each fit time with the
iteration count and cache counters, and the best time per thread count (best of the fits in
this process; the ratio of 2 to 1 thread when both ran).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from run_all import ALL_DATASETS, DEFAULT_DATA_DIR, SVR_DATASETS, load_dataset

import kernelkit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", choices=ALL_DATASETS)
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    args = parser.parse_args()
    data = load_dataset(args.dataset, args.data, quick=False)
    meta, arrays = data["meta"], data["arrays"]
    params = {
        "C": meta["C"], "gamma": meta["gamma"], "tol": 1e-3, "cache_size": 200.0, "kernel": "rbf"
    }  # fmt: skip
    if args.dataset in SVR_DATASETS:
        params["epsilon"] = meta["epsilon"]
    estimator = kernelkit.SVR if args.dataset in SVR_DATASETS else kernelkit.SVC
    best: dict[int, float] = {}
    for n_jobs in args.n_jobs:
        clock = time.perf_counter()
        model = estimator(**params, n_jobs=n_jobs).fit(arrays["X_train"], arrays["y_train"])
        elapsed = time.perf_counter() - clock
        best[n_jobs] = min(best.get(n_jobs, elapsed), elapsed)
        stats = model.solver_stats_
        stats = stats if isinstance(stats, list) else [stats]
        misses = sum(int(s["cache_misses"]) for s in stats)
        print(
            f"n_jobs={n_jobs}: {elapsed:.3f} s, {int(np.sum(model.n_iter_))} iterations, "
            f"{misses} cache misses",
            flush=True,
        )
    print("best:", {k: round(v, 3) for k, v in best.items()})
    if 1 in best and 2 in best:
        print(f"time(2 threads) / time(1 thread): {best[2] / best[1]:.3f}")


if __name__ == "__main__":
    main()
