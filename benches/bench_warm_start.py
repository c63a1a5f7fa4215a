"""``warm_start=True`` along a path of C values (issue 44): warm against cold fits.

The first 16,000 rows of a9a (dense, binary features), RBF gamma=0.5, ``tol=1e-6``, C in
{0.1, 0.3, 1, 3, 10, 30}: one ``SVC(warm_start=True)`` refitted with each C in turn, against a
fresh ``SVC`` per C, with the same cache (200 MB) and thread count, per ``--engines`` and
``--threads``. Reported per C: fit time, SMO iterations and the dual objective of both (warm
must equal cold within 1e-6 relative), and the path's total times and their ratio.

``--limits`` (``warm_start_limits.*``): why that saves little, with ``_core.solve_c_svc`` on the
first of ``--threads``: cold fits at C = 1 and 30 per ``--tols``, and along the path the
iterations (the KKT gap at the first report) from each of ``--starts``: α = 0 (``cold``), or the
previous α' projected onto ``{0 ≤ α ≤ C, yᵀα = 0}`` as is (``projection``, what
``warm_start=True`` does), scaled by C/C' (``scaled``), moved from C' to C at the bound
(``bound``), or the secant of the last two solutions (``secant``).

    cd benches && python bench_warm_start.py --threads 1,2
    cd benches && python bench_warm_start.py --limits --threads 2

Writes ``<out>.json`` and ``<out>.md``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import harness
import numpy as np
from harness import data, report
from harness.report import markdown_table

PATH = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0]
PARAMS = {"kernel": "rbf", "gamma": 0.5, "tol": 1e-6, "cache_size": 200}
STARTS = ("cold", "projection", "scaled", "bound", "secant")


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


def start_from(strategy: str, C: float, history: list[tuple[float, Any]], y: Any) -> Any | None:
    """The start of the fit at ``C`` from the previous solutions ``history`` (C, α)."""
    from kernelkit._warm_start import project_onto

    if strategy == "cold" or not history:
        return None
    (c1, a1), upper = history[-1], np.full(len(y), C)
    guess = {"scaled": a1 * (C / c1), "bound": np.where(a1 >= c1 * (1 - 1e-12), C, a1)}.get(
        strategy, a1
    )
    if strategy == "secant" and len(history) > 1:
        c0, a0 = history[-2]
        guess = a1 + (C - c1) / (c1 - c0) * (a1 - a0)
    return project_onto(guess, upper, 0.0, y)


def limits(X: Any, y: Any, a: Any) -> tuple[dict[str, Any], str]:
    """``--limits``: cold fits per tolerance and the iterations from each start along the path."""
    from kernelkit import _core

    y, kernel = np.where(y > 0, 1.0, -1.0), _core.Kernel("rbf", gamma=0.5)

    def solve(C: float, tol: float, alpha0: Any | None) -> tuple[Any, float, float]:
        reports: list[float] = []
        started = time.perf_counter()
        solution = _core.solve_c_svc(
            X, y, np.full(len(y), C), kernel, alpha0, tol=tol, cache_size=200.0,
            n_jobs=a.threads[0], callback=lambda progress: reports.append(float(progress["gap"]))
        )  # fmt: skip
        return solution, time.perf_counter() - started, reports[0] if reports else float("nan")

    tols, starts = [], []
    for C, tol in ((C, tol) for C in (1.0, 30.0) for tol in a.tols):
        solution, seconds, _ = solve(C, tol, None)
        tols.append({"C": C, "tol": tol, "iterations": solution.iterations, "s": seconds})
        print(tols[-1], flush=True)
    for strategy in a.starts:
        history: list[tuple[float, Any]] = []
        for C in PATH:
            solution, seconds, first_gap = solve(C, 1e-6, start_from(strategy, C, history, y))
            history.append((C, np.asarray(solution.x)))
            starts.append({"start": strategy, "C": C, "iterations": solution.iterations,
                           "first_reported_gap": first_gap, "s": seconds,
                           "objective": solution.objective})  # fmt: skip
            print(starts[-1], flush=True)
    by_tol = [[f"{r['C']:g}", f"{r['tol']:g}", str(r["iterations"]), f"{r['s']:.2f}"] for r in tols]
    body = [[f"{C:g}", *(f"{r['iterations']} ({r['first_reported_gap']:.2g})" for r in starts
                         if r["C"] == C)] for C in PATH]  # fmt: skip
    body.append(["path", *(str(sum(r["iterations"] for r in starts if r["start"] == s))
                           for s in a.starts)])  # fmt: skip
    md = markdown_table(["C", "tol", "iterations", "s"], by_tol, n_text_cols=2) + "\n\n"
    md += markdown_table(["C", *a.starts], body, n_text_cols=1)
    return {"threads": a.threads[0], "tols": tols, "starts": starts}, md


def main(argv: list[str] | None = None) -> None:
    p = harness.parser(__doc__, "warm_start")
    harness.options(p, threads=[1, 2], engines=["auto"], rows=16000,
                    limits=(False, "the solver's limits instead"),
                    tols=[1e-1, 1e-2, 1e-3, 1e-4, 1e-6],
                    starts=(list(STARTS), None, harness.strs))  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "starts", a.starts, STARTS)
    run, ds = harness.Run(argv), data.load("a9a", a.data)
    X, y = ds.X[: a.rows], ds.y[: a.rows]
    if a.limits:
        out = a.out if "--out" in (argv or sys.argv) else a.out.with_name("warm_start_limits")
        record, md = limits(X, y, a)
        run.write(out, run.record(**record), md)
        return
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
