"""kernelkit on Dask (issue 11), on a ``LocalCluster`` of worker processes:

* ``aid``: AIDRegressor (LAD) and the linear AIDClassifier (C = 0.1) on ``--rows`` rows made
  chunk by chunk inside the workers by a seeded generator (no process holds the whole data),
  persisted (``--persist``) or regenerated at every pass; wall time, initial clusters, solves,
  status, gap, clusters and the peak memory of every worker and of the client;
* ``grid``: a 24-point RBF ``kernelkit.SVC`` grid, 3-fold CV on USPS: ``GridSearchCV`` one fit
  after the other (1 and 2 threads) against ``kernelkit.dask.grid_search`` on 2 workers; the
  searches must agree.

Writes ``benches/results/dask.{json,md}``.

    python benches/bench_dask.py --rows 1000000            # quick
    python benches/bench_dask.py --rows 10000000           # the issue's size
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path
from typing import Any

import harness
import numpy as np
from harness import data, report
from harness.machine import current_rss_mb, package_versions, peak_rss_mb, reset_peak_rss

# -- data made inside the workers ------------------------------------------------------------


def _chunk_rng(seed: int, block: int) -> np.random.Generator:
    return np.random.default_rng([seed, block])


def _x_chunk(block_id: Any = None, *, sizes: tuple[int, ...], m: int, seed: int) -> Any:
    rng = _chunk_rng(seed, block_id[0])
    return rng.standard_normal((sizes[block_id[0]], m))


def _y_chunk(
    block_id: Any = None, *, sizes: tuple[int, ...], m: int, seed: int, kind: str, coef: Any
) -> Any:  # fmt: skip
    rng = _chunk_rng(seed, block_id[0])
    x = rng.standard_normal((sizes[block_id[0]], m))
    if kind == "lad":
        return x @ coef + 1.0 + rng.standard_t(3, size=x.shape[0])
    return np.where(x @ coef + 0.5 * rng.standard_normal(x.shape[0]) > 0, 1.0, -1.0)


def generated(kind: str, n: int, m: int, chunk: int, seed: int) -> tuple[Any, Any]:
    """Lazy dask arrays ``X`` (n × m) and ``y``: chunk ``b`` is drawn from ``rng([seed, b])``."""
    import dask.array as da

    n_chunks = math.ceil(n / chunk)
    sizes = tuple([chunk] * (n_chunks - 1) + [n - chunk * (n_chunks - 1)])
    coef = np.random.default_rng(seed).standard_normal(m)
    x = da.map_blocks(_x_chunk, chunks=(sizes, (m,)), dtype=np.float64, sizes=sizes, m=m, seed=seed)
    y = da.map_blocks(
        _y_chunk, chunks=(sizes,), dtype=np.float64, sizes=sizes, m=m, seed=seed, kind=kind,
        coef=coef
    )  # fmt: skip
    return x, y


# -- parts ---------------------------------------------------------------------------------


def run_aid(client: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    import dask

    import kernelkit

    out = []
    for kind in ("lad", "svm"):
        x, y = generated(kind, args.rows, args.features, args.chunk, args.seed)
        if args.persist:
            x, y = dask.persist(x, y)
            from distributed import wait

            wait([x, y])
        if kind == "lad":
            model = kernelkit.AIDRegressor(random_state=0, n_jobs=args.solve_threads)
        else:
            model = kernelkit.AIDClassifier(
                C=0.1, kernel="linear", random_state=0, n_jobs=args.solve_threads,
                time_limit=args.svm_time_limit
            )  # fmt: skip
        client.run(reset_peak_rss)
        reset_peak_rss()
        before = client.run(current_rss_mb)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", kernelkit.ConvergenceWarning)
            model.fit(x, y)
        seconds = time.perf_counter() - start
        peaks = client.run(peak_rss_mb)
        history = model.history_
        row = {
            "problem": "AID LAD" if kind == "lad" else "linear AID SVM (C = 0.1)",
            "rows": args.rows, "features": args.features, "chunk_rows": args.chunk,
            "persisted": args.persist, "seconds": seconds, "init_seconds": model.init_time_,
            "aggregated_solves": model.n_iter_, "status": model.status_, "gap": model.gap_,
            "objective": model.objective_, "clusters_first": history[0]["n_clusters"],
            "clusters_last": history[-1]["n_clusters"],
            "worker_rss_before_mb": sorted(before.values()),
            "worker_peak_mb": sorted(peaks.values()), "client_peak_mb": peak_rss_mb(),
            "history": history
        }  # fmt: skip
        print(
            f"{row['problem']}: {seconds:.1f} s ({model.init_time_:.1f} s initial clusters), "
            f"{model.n_iter_} solves, {model.status_}, gap {model.gap_:.2e}, clusters "
            f"{row['clusters_first']} -> {row['clusters_last']}, worker peaks "
            f"{[round(v) for v in row['worker_peak_mb']]} MiB, client {row['client_peak_mb']:.0f}"
            " MiB",
            flush=True,
        )
        out.append(row)
        del x, y
    return out


def run_grid(client: Any, args: argparse.Namespace) -> dict[str, Any]:
    from sklearn.model_selection import GridSearchCV

    import kernelkit
    from kernelkit.dask import grid_search

    usps = data.load("usps", Path(args.data_dir))
    x, y = np.ascontiguousarray(usps.X, dtype=np.float64), np.asarray(usps.y)
    if args.grid_rows:
        x, y = x[: args.grid_rows], y[: args.grid_rows]
    grid = {"C": [1.0, 4.0, 16.0, 64.0], "gamma": [0.002, 0.005, 0.01, 0.02, 0.05, 0.1]}
    timings: dict[str, float] = {}
    searches = {}
    for threads in (1, 2):
        search = GridSearchCV(kernelkit.SVC(n_jobs=threads), grid, cv=3, n_jobs=1)
        start = time.perf_counter()
        search.fit(x, y)
        name = f"sequential, {threads} thread(s) per fit"
        timings[name] = time.perf_counter() - start
        searches[threads] = search
        print(f"{name}: {timings[name]:.1f} s", flush=True)
    start = time.perf_counter()
    distributed_search = grid_search(
        kernelkit.SVC(), grid, x, y, cv=3, threads_per_fit=1, client=client
    )
    timings["kernelkit.dask.grid_search, 2 workers x 1 thread"] = time.perf_counter() - start
    print(f"dask: {timings['kernelkit.dask.grid_search, 2 workers x 1 thread']:.1f} s", flush=True)
    reference = searches[1]
    same = bool(
        reference.best_params_ == distributed_search.best_params_
        and np.array_equal(
            reference.cv_results_["mean_test_score"],
            distributed_search.cv_results_["mean_test_score"],
        )
    )
    base = timings["sequential, 1 thread(s) per fit"]
    return {
        "rows": int(x.shape[0]),
        "features": int(x.shape[1]),
        "grid": grid,
        "points": 24,
        "cv": 3,
        "fits": 72,
        "seconds": timings,
        "speedup_vs_sequential_1_thread": base
        / timings["kernelkit.dask.grid_search, 2 workers x 1 thread"],
        "speedup_vs_sequential_2_threads": timings["sequential, 2 thread(s) per fit"]
        / timings["kernelkit.dask.grid_search, 2 workers x 1 thread"],
        "best_params": distributed_search.best_params_,
        "best_score": float(distributed_search.best_score_),
        "same_results_as_sequential": same,
    }


AID_COLUMNS: list[report.Column] = [
    ("problem", "problem"), ("rows", "rows:,"), ("time (s)", "seconds:.1f"),
    ("initial clusters (s)", "init_seconds:.1f"), ("aggregated solves", "aggregated_solves"),
    ("status", "status"), ("gap", "gap:.1e"),
    ("clusters first → last", lambda r: f"{r['clusters_first']:,} → {r['clusters_last']:,}"),
    ("peak per worker (MiB)", lambda r: ", ".join(f"{v:,.0f}" for v in r["worker_peak_mb"])),
    ("client peak (MiB)", "client_peak_mb:,.0f"),
]  # fmt: skip


def markdown(payload: dict[str, Any]) -> str:
    lines = ["# kernelkit on Dask", ""]
    if aid := payload.get("aid", []):
        lines += [f"AID on generated rows ({payload['cluster']}); peak memory = VmHWM of each "
                  "process.", "", report.table(aid, AID_COLUMNS, done=None), ""]  # fmt: skip
    if grid := payload.get("grid"):
        lines += [
            f"Grid search, {grid['points']} points × {grid['cv']} folds = {grid['fits']} fits of "
            f"RBF kernelkit.SVC on USPS ({grid['rows']:,} × {grid['features']}); same results "
            f"as the sequential search: {grid['same_results_as_sequential']}.", "",
        ]  # fmt: skip
        base = grid["seconds"]["sequential, 1 thread(s) per fit"]
        rows = [[name, f"{sec:.1f}", f"{base / sec:.2f}"] for name, sec in grid["seconds"].items()]
        lines += [report.markdown_table(["run", "time (s)", "speed-up"], rows), ""]
    return "\n".join(lines)


def main() -> None:
    p = harness.parser(__doc__, "dask.json", data=False)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--features", type=int, default=10)
    p.add_argument("--chunk", type=int, default=250_000)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--solve-threads", type=int, default=2)
    p.add_argument("--persist", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--svm-time-limit", type=float, default=None, help="the AID SVM's (s)")
    p.add_argument("--parts", default="aid,grid")
    p.add_argument("--grid-rows", type=int, default=0, help="USPS rows (0: all)")
    p.add_argument("--data-dir", default=str(data.DATA_DIR))
    args = p.parse_args()

    from distributed import Client, LocalCluster

    run = harness.Run()
    cluster = LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = Client(cluster)
    parts = set(args.parts.split(","))
    payload: dict[str, Any] = {
        "versions": package_versions(("kernelkit", "numpy", "scikit-learn", "dask", "distributed")),
        "cluster": f"LocalCluster, {args.workers} worker processes × 1 thread",
        "args": vars(args),
    }
    try:
        if "aid" in parts:
            payload["aid"] = run_aid(client, args)
        if "grid" in parts:
            payload["grid"] = run_grid(client, args)
    finally:
        client.close()
        cluster.close()
    run.write(Path(args.out).with_suffix(""), run.record(**payload), markdown(payload))


if __name__ == "__main__":
    main()
