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

import time
from typing import Any

import harness
import numpy as np
from harness import data, report

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
        rows.append({
            "engine": engine, "threads": threads, "C": f"{C:g}", "cold_s": cold_s, "warm_s": warm_s,
            "cold_iterations": int(cold.n_iter_[0]), "warm_iterations": int(warm.n_iter_[0]),
            "cold_objective": reference, "warm_objective": objective,
            "relative_difference": abs(objective - reference) / abs(reference),
            "solver_engine": cold.solver_stats_[0]["engine"],
        })  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    p = harness.parser(__doc__, "warm_start")
    p.add_argument("--threads", default=[1, 2], type=harness.ints)
    p.add_argument("--engines", default=["auto"], type=harness.strs)
    p.add_argument("--rows", default=16000, type=int)
    a = p.parse_args(argv)
    run, ds = harness.Run(argv), data.load("a9a", a.data)
    X, y = ds.X[: a.rows], ds.y[: a.rows]
    paths = [run_path(X, y, e, t) for e in a.engines for t in a.threads]
    totals = [{**path[0], "C": "path", "cold_s": sum(r["cold_s"] for r in path),
               "warm_s": sum(r["warm_s"] for r in path)} for path in paths]  # fmt: skip
    cols: list[report.Column] = [
        ("engine", "engine"), ("threads", "threads"), ("C", "C"), ("cold s", "cold_s:.2f"),
        ("warm s", "warm_s:.2f"), ("cold iter", "cold_iterations"),
        ("warm iter", "warm_iterations"),
        ("Δobj rel", lambda r: f"{r['relative_difference']:.1e}"),
    ]  # fmt: skip
    body = [r for path in paths for r in path]
    md = report.table(body, cols, 3, done=None)
    total_cols = [*cols[:5], ("cold iter", lambda r: ""), ("warm iter", lambda r: "")]
    total_cols.append(("", lambda r: f"warm / cold {r['warm_s'] / r['cold_s']:.2f}"))
    more = report.table(totals, total_cols, 3, done=None).splitlines()[2:]
    md += "\n" + "\n".join(more)
    run.write(a.out, run.record(runs=paths), md)
    worst = max(r["relative_difference"] for r in body)
    print(f"largest relative objective difference warm vs cold: {worst:.1e}")
    if not np.isfinite(worst) or worst > 1e-6:
        raise SystemExit("a warm fit missed the cold optimum by more than 1e-6 relative")


if __name__ == "__main__":
    main()
