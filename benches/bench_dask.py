"""kernelkit on Dask (issue 11), on a ``LocalCluster`` of worker processes:

* ``aid``: AIDRegressor (LAD) and the linear AIDClassifier (C = 0.1) on ``--rows`` rows made
  chunk by chunk inside the workers by a seeded generator (no process holds the whole data),
  persisted (``--persist``) or regenerated at every pass; wall time, initial clusters, solves,
  status, gap, clusters and the peak memory of every worker and of the client;
* ``grid``: a 24-point RBF ``kernelkit.SVC`` grid, 3-fold CV on USPS: ``GridSearchCV`` one fit
  after the other (1 and 2 threads) against ``kernelkit.dask.grid_search`` on 2 workers; the
  searches must agree;
* ``memory`` (not by default; ``dask_vs_memory.*``): ``--kind`` (the linear AID SVM or LAD,
  ``tol=1e-4``) in memory against distributed on the same rows, per solve and in the end.

Writes ``benches/results/dask.{json,md}``.

    python benches/bench_dask.py --rows 1000000            # quick
    python benches/bench_dask.py --rows 10000000           # the issue's size
    python benches/bench_dask.py --rows 1000000 --parts memory --kind svm
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

PER_FIT = "thread(s) per fit"

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
        print(f"{row['problem']}: {seconds:.1f} s ({model.init_time_:.1f} s initial clusters), "
              f"{model.n_iter_} solves, {model.status_}, gap {model.gap_:.2e}, clusters "
              f"{row['clusters_first']} -> {row['clusters_last']}, worker peaks "
              f"{[round(v) for v in row['worker_peak_mb']]} MiB, client "
              f"{row['client_peak_mb']:.0f} MiB", flush=True)  # fmt: skip
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
        name = f"sequential, {threads} {PER_FIT}"
        timings[name] = time.perf_counter() - start
        searches[threads] = search
        print(f"{name}: {timings[name]:.1f} s", flush=True)
    start, dask_name = time.perf_counter(), "kernelkit.dask.grid_search, 2 workers x 1 thread"
    distributed = grid_search(kernelkit.SVC(), grid, x, y, cv=3, threads_per_fit=1, client=client)
    timings[dask_name] = time.perf_counter() - start
    print(f"dask: {timings[dask_name]:.1f} s", flush=True)
    ref, scores = searches[1].cv_results_["mean_test_score"], "mean_test_score"
    same = bool(searches[1].best_params_ == distributed.best_params_
                and np.array_equal(ref, distributed.cv_results_[scores]))  # fmt: skip
    speedup = {f"speedup_vs_sequential_{t}_thread{'s' * (t > 1)}": timings[f"sequential, {t} "
               f"{PER_FIT}"] / timings[dask_name] for t in (1, 2)}  # fmt: skip
    return {"rows": int(x.shape[0]), "features": int(x.shape[1]), "grid": grid, "points": 24,
            "cv": 3, "fits": 72, "seconds": timings, **speedup,
            "best_params": distributed.best_params_, "best_score": float(distributed.best_score_),
            "same_results_as_sequential": same}  # fmt: skip


def run_memory(client: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The same rows fitted in memory and distributed; per solve the counts, bounds and
    objectives of both."""
    import dask

    import kernelkit

    warnings.simplefilter("ignore")
    X, y = generated(args.kind, args.rows, args.features, args.chunk, args.seed)
    svm = {"C": 0.1, "kernel": "linear"} if args.kind == "svm" else {}
    make = kernelkit.AIDClassifier if svm else kernelkit.AIDRegressor
    fits, seconds = [], []
    for Xf, yf in (dask.compute(X, y), (X.persist(), y.persist())):
        start = time.perf_counter()
        fits.append(make(**svm, random_state=0, tol=1e-4).fit(Xf, yf))
        seconds.append(time.perf_counter() - start)
        print(f"{('in memory:', 'dask:     ')[len(fits) - 1]} {seconds[-1]:.1f} s, "
              f"{fits[-1].n_iter_} solves, {fits[-1].status_}", flush=True)  # fmt: skip
    memory, dist = fits
    keys = ("n_clusters", "n_impure", "lower_bound", "full_objective")
    solves = [{**{k: a[k] for k in keys}, **{f"dask_{k}": b[k] for k in keys[1:]}}
              for a, b in zip(memory.history_, dist.history_, strict=False)]  # fmt: skip
    for r in solves:
        print(" ".join(f"{r[k]:.15g}" if isinstance(r[k], float) else str(r[k]) for k in r))
    moved = int(np.sum(memory.labels_ != np.asarray(dist.labels_)))
    out = {"kind": args.kind, "rows": args.rows, "memory_seconds": seconds[0],
           "dask_seconds": seconds[1], "solves": solves, "rows_in_another_cluster": moved,
           "max_abs_coef_diff": float(np.max(np.abs(memory.coef_ - dist.coef_)))}  # fmt: skip
    print(f"max |coef difference|: {out['max_abs_coef_diff']}; rows in another cluster: "
          f"{out['rows_in_another_cluster']} of {args.rows}")  # fmt: skip
    return out


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
        base = grid["seconds"][f"sequential, 1 {PER_FIT}"]
        rows = [[name, f"{sec:.1f}", f"{base / sec:.2f}"] for name, sec in grid["seconds"].items()]
        lines += [report.markdown_table(["run", "time (s)", "speed-up"], rows), ""]
    if mem := payload.get("memory"):
        lines += [
            f"{mem['kind']} on {mem['rows']:,} rows: {mem['memory_seconds']:.1f} s in memory, "
            f"{mem['dask_seconds']:.1f} s distributed; max \\|coef difference\\| "
            f"{mem['max_abs_coef_diff']:.1e}, {mem['rows_in_another_cluster']} rows in another "
            "cluster.", "", report.table(mem["solves"], [(k, k) for k in mem["solves"][0]],
                                         done=None) if mem["solves"] else "", "",
        ]  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    p = harness.parser(__doc__, "dask.json", data=False)
    harness.options(p, rows=1_000_000, features=10, chunk=250_000, seed=11, workers=2,
                    solve_threads=2)  # fmt: skip
    p.add_argument("--persist", action=argparse.BooleanOptionalAction, default=True)
    harness.options(p, svm_time_limit=(None, "the AID SVM's (s)", float),
                    parts=("aid,grid", "aid, grid, memory"),
                    kind=("svm", "of the memory part", ("svm", "lad")),
                    grid_rows=(0, "USPS rows (0: all)"), data_dir=str(data.DATA_DIR))  # fmt: skip
    args = p.parse_args()

    from distributed import Client, LocalCluster

    run = harness.Run()
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)  # fmt: skip
    client, parts = Client(cluster), set(args.parts.split(","))
    payload: dict[str, Any] = {
        "versions": package_versions(("kernelkit", "numpy", "scikit-learn", "dask", "distributed")),
        "cluster": f"LocalCluster, {args.workers} worker processes × 1 thread", "args": vars(args),
    }  # fmt: skip
    try:
        if "aid" in parts:
            payload["aid"] = run_aid(client, args)
        if "grid" in parts:
            payload["grid"] = run_grid(client, args)
        if "memory" in parts:
            payload["memory"] = run_memory(client, args)
    finally:
        client.close()
        cluster.close()
    out = Path(args.out)
    if parts == {"memory"} and out == harness.RESULTS / "dask.json":  # keep dask.* whole
        out = out.with_name("dask_vs_memory.json")
    run.write(out.with_suffix(""), run.record(**payload), markdown(payload))


if __name__ == "__main__":
    main()
