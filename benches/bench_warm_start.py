"""``warm_start=True`` along a path of C values (issue 44): warm against cold fits.

The first 16,000 rows of a9a (dense, binary features), RBF gamma=0.5, ``tol=1e-6``, C in
{0.1, 0.3, 1, 3, 10, 30}: one ``SVC(warm_start=True)`` refitted with each C in turn, against a
fresh ``SVC`` per C, with the same cache (200 MB) and thread count, per ``--engines`` and
``--threads``. Reported per C: fit time, SMO iterations and the dual objective of both (warm
must equal cold within 1e-6 relative), and the path's total times and their ratio.

    cd benches && python bench_warm_start.py --threads 1,2

Writes ``<out>.json`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    load_svmlight_dense,
    machine_info,
    markdown_table,
    parse_int_list,
    parse_str_list,
    write_json,
)

PATH = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0]
PARAMS = {"kernel": "rbf", "gamma": 0.5, "tol": 1e-6, "cache_size": 200}


def run_path(X: Any, y: Any, engine: str, threads: int) -> list[dict[str, Any]]:
    import kernelkit

    warm = kernelkit.SVC(**PARAMS, engine=engine, n_jobs=threads, warm_start=True)
    rows = []
    for C in PATH:
        cold = kernelkit.SVC(**PARAMS, engine=engine, n_jobs=threads, C=C)
        started = time.perf_counter()
        cold.fit(X, y)
        cold_s = time.perf_counter() - started
        started = time.perf_counter()
        warm.set_params(C=C).fit(X, y)
        warm_s = time.perf_counter() - started
        objective, reference = float(warm.objective_[0]), float(cold.objective_[0])
        rows.append(
            {
                "C": C,
                "cold_s": cold_s,
                "warm_s": warm_s,
                "cold_iterations": int(cold.n_iter_[0]),
                "warm_iterations": int(warm.n_iter_[0]),
                "cold_objective": reference,
                "warm_objective": objective,
                "relative_difference": abs(objective - reference) / abs(reference),
                "engine": cold.solver_stats_[0]["engine"],
            }
        )
        print(engine, threads, rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default=[1, 2], type=parse_int_list)
    parser.add_argument("--engines", default=["auto"], type=parse_str_list)
    parser.add_argument("--rows", default=16000, type=int)
    parser.add_argument("--data", default=DEFAULT_DATA_DIR, type=Path)
    parser.add_argument("--out", default=Path("results/warm_start"), type=Path)
    args = parser.parse_args()
    X, y = load_svmlight_dense(args.data / "a9a" / "a9a.train.svm", 123, args.rows)
    runs = []
    for engine in args.engines:
        for threads in args.threads:
            path = run_path(X, y, engine, threads)
            cold = sum(r["cold_s"] for r in path)
            warm = sum(r["warm_s"] for r in path)
            runs.append(
                {"engine": engine, "threads": threads, "path": path, "cold_s": cold, "warm_s": warm}
            )
    body = [
        [
            run["engine"],
            str(run["threads"]),
            f"{r['C']:g}",
            f"{r['cold_s']:.2f}",
            f"{r['warm_s']:.2f}",
            f"{r['cold_iterations']}",
            f"{r['warm_iterations']}",
            f"{r['relative_difference']:.1e}",
        ]
        for run in runs
        for r in run["path"]
    ]
    body += [
        [
            run["engine"],
            str(run["threads"]),
            "path",
            f"{run['cold_s']:.2f}",
            f"{run['warm_s']:.2f}",
            "",
            "",
            f"warm / cold {run['warm_s'] / run['cold_s']:.2f}",
        ]
        for run in runs
    ]
    header = ["engine", "threads", "C", "cold s", "warm s", "cold iter", "warm iter", "Δobj rel"]
    table = markdown_table(header, body, n_text_cols=3)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out.with_suffix(".json"), {"machine": machine_info(), "runs": runs})
    args.out.with_suffix(".md").write_text(table + "\n")
    print(table)
    worst = max(r["relative_difference"] for run in runs for r in run["path"])
    print(f"largest relative objective difference warm vs cold: {worst:.1e}")
    if not np.isfinite(worst) or worst > 1e-6:
        raise SystemExit("a warm fit missed the cold optimum by more than 1e-6 relative")


if __name__ == "__main__":
    main()
