"""Distributed against in-memory AID on the same generated rows (issue 11).

    python benches/dask_vs_memory.py --rows 1000000 --kind svm

Generates the rows as ``bench_dask.py`` does, fits the in-memory estimator on the computed
arrays and the distributed one on the persisted dask arrays (LocalCluster, 2 worker processes ×
1 thread), and prints both times, the per-solve cluster and impurity counts, bounds and
objectives, and the differences of the models and of ``labels_``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import dask
import numpy as np
from bench_dask import generated
from distributed import Client, LocalCluster

import kernelkit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--kind", choices=["svm", "lad"], default="svm")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        X, y = generated(args.kind, args.rows, args.features, 250_000, 11)
        X_memory, y_memory = dask.compute(X, y)
        if args.kind == "svm":
            make = lambda: kernelkit.AIDClassifier(  # noqa: E731
                C=0.1, kernel="linear", random_state=0, tol=1e-4
            )
        else:
            make = lambda: kernelkit.AIDRegressor(random_state=0, tol=1e-4)  # noqa: E731
        clock = time.perf_counter()
        memory = make().fit(X_memory, y_memory)
        memory_time = time.perf_counter() - clock
        clock = time.perf_counter()
        distributed = make().fit(X.persist(), y.persist())
        distributed_time = time.perf_counter() - clock
        labels = np.asarray(distributed.labels_)
    print(f"in memory: {memory_time:.1f} s, {memory.n_iter_} solves, {memory.status_}")
    d = distributed
    print(f"dask:      {distributed_time:.1f} s, {d.n_iter_} solves, {d.status_}")
    print("clusters  impure (memory, dask)  lower bound (memory, dask)  objective (memory, dask)")
    for a, b in zip(memory.history_, distributed.history_, strict=False):
        print(
            f"{a['n_clusters']:8d}  {a['n_impure']:6d} {b['n_impure']:6d}  "
            f"{a['lower_bound']:.15g} {b['lower_bound']:.15g}  "
            f"{a['full_objective']:.15g} {b['full_objective']:.15g}"
        )
    print("max |coef difference|:", float(np.max(np.abs(memory.coef_ - distributed.coef_))))
    print("rows in another cluster:", int(np.sum(memory.labels_ != labels)), "of", args.rows)


if __name__ == "__main__":
    main()
