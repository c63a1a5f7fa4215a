"""``warm_start=True`` along a path of C values (issue 44): warm against cold fits.

a9a's first 16,000 rows (``--dataset``, ``--rows``), RBF gamma=0.5 (``--gamma``), ``tol=1e-6``
(``--tol``), C = 0.1 … 30 (``--falling``: down): an ``SVC(warm_start=True)`` (``--estimator``)
refitted at each C against a fresh one and ``--peers``, same cache (200 MB), ``--threads``,
``--engines``. After an untimed fit, cold and warm alternate going first.

``--limits`` (``warm_start_limits.*``; ``_core.solve_c_svc``, first ``--threads``, ``--engines``):
why that saves little. Per solve, from each of ``--starts`` put into the set as ``warm_start`` does
(``cold``: 0; ``previous``: α'; ``scaled``: α'·C/C'; ``bound``: α' at C' moved to C; ``secant``;
``optimum_1e-2``, ``_1e-4``: the cold optimum, free α_i moved ≤ ±1e-2, 1e-4): iterations, the first
KKT gap reported, the iteration where it first fell to 1 … 1e-5, Σ active-set size over the
iterations, and iterations × the smallest (``floor_work``: a bound for starts that shrink sooner).

    cd benches && python bench_warm_start.py --threads 1,2 --peers sklearn,sklearnex
    cd benches && python bench_warm_start.py --dataset usps --gamma 0.02 --threads 1,2
    cd benches && python bench_warm_start.py --estimator SVR --dataset 537_houses --rows 12000
    cd benches && python bench_warm_start.py --limits --threads 2  # all: <out>.json, <out>.md
"""

from __future__ import annotations

import sys
import time
from itertools import pairwise
from typing import Any

import harness
import numpy as np
from harness import data, report
from harness.objectives import dual_objectives
from harness.runner import timed_fit
from harness.svm import estimator

PATH = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0]
PARAMS: dict[str, Any] = {"kernel": "rbf", "gamma": 0.5, "tol": 1e-6, "cache_size": 200}
STARTS = ("cold", "previous", "scaled", "bound", "secant", "optimum_1e-2", "optimum_1e-4")


def run_path(X: Any, y: Any, engine: str, threads: int, peers: list[str], a: Any) -> Any:
    import kernelkit

    cls, rows = getattr(kernelkit, a.estimator), []
    warm = cls(**PARAMS, engine=engine, n_jobs=threads, warm_start=True)
    cls(**PARAMS, engine=engine, n_jobs=threads).fit(X, y)  # untimed: the first fit's own costs
    for step, C in enumerate(PATH[:: -1 if a.falling else 1]):  # cold first at even steps
        cold, order = cls(**PARAMS, engine=engine, n_jobs=threads, C=C), (1, -1)[step % 2]
        pair = (cold, warm.set_params(C=C))
        cold_s, warm_s = [timed_fit(m, X, y)["fit_s"] for m in pair[::order]][::order]
        objective, reference = float(np.sum(warm.objective_)), float(np.sum(cold.objective_))
        rows.append({
            "engine": engine, "threads": threads, "C": f"{C:g}", "cold_s": cold_s, "warm_s": warm_s,
            "cold_iterations": int(np.sum(cold.n_iter_)),
            "warm_iterations": int(np.sum(warm.n_iter_)),
            "cold_objective": reference, "warm_objective": objective,
            "relative_difference": abs(objective - reference) / abs(reference),
            "solver_engine": np.atleast_1d(cold.solver_stats_)[0]["engine"],
        })  # fmt: skip
        for peer in peers:  # scikit-learn's LIBSVM runs on one thread whatever n_jobs says
            model = estimator(peer, a.estimator, {**PARAMS, "C": C}, n_jobs=threads)
            rows[-1][f"{peer}_s"] = timed_fit(model, X, y)["fit_s"]
            ours = sum(dual_objectives(model, a.estimator, PARAMS["gamma"], y, a.epsilon))
            rows[-1][f"{peer}_relative_difference"] = abs(ours / reference - 1)
        print(rows[-1], flush=True)
    return rows


def start_from(how: str, C: float, past: list[tuple[float, Any]], y: Any, optimum: Any) -> Any:
    """The start ``how`` at ``C`` from the previous solutions ``past`` (C, α) or the ``optimum``."""
    from kernelkit._warm_start import repair_onto

    if how.startswith("optimum_"):  # each free α_i moved by up to ± that part of itself, yᵀα kept
        free, u = (optimum > 0) & (optimum < C), np.random.default_rng(0).uniform(-1, 1, len(y))
        move = free * np.minimum(optimum, C - optimum) * float(how[8:]) * u
        move -= free * y * (y @ move) / free.sum()
        return repair_onto(optimum + move, np.full(len(y), C), 0.0, y)
    if how == "cold" or not past:
        return None
    (c1, a1), (c0, a0) = past[-1], past[max(len(past) - 2, 0)]
    guesses = {"scaled": a1 * (C / c1), "bound": np.where(a1 >= c1 * (1 - 1e-12), C, a1),
               "secant": a1 + (C - c1) / (c1 - c0) * (a1 - a0) if c0 != c1 else a1}  # fmt: skip
    return repair_onto(guesses.get(how, a1), np.full(len(y), C), 0.0, y)


def limits(X: Any, y: Any, a: Any, run: harness.Run) -> tuple[dict[str, Any], str]:
    """``--limits``: the iterations from each start along the path, and where the gap fell."""
    from kernelkit import _core

    y, kernel = np.where(y > 0, 1.0, -1.0), _core.Kernel("rbf", gamma=PARAMS["gamma"])

    def solve(C: float, alpha0: Any | None) -> tuple[Any, float, list[Any]]:
        reports: list[dict[str, Any]] = []  # the solver's progress, at most every 20 ms
        started = time.perf_counter()
        solution = _core.solve_c_svc(
            X, y, np.full(len(y), C), kernel, alpha0, tol=PARAMS["tol"], cache_size=200.0,
            n_jobs=a.threads[0], engine=a.engines[0], callback=reports.append)  # fmt: skip
        return solution, time.perf_counter() - started, reports

    starts: list[dict[str, Any]] = []
    optima: dict[float, Any] = {}  # the cold solutions, for the optimum_ starts
    for strategy in a.starts:
        past: list[tuple[float, Any]] = []
        for C in PATH:
            if strategy.startswith("optimum_") and C not in optima:
                optima[C] = np.asarray(solve(C, None)[0].x)
            solution, took, seen = solve(C, start_from(strategy, C, past, y, optima.get(C)))
            past.append((C, np.asarray(solution.x)))
            gaps = [(r["iteration"], r["gap"], r["active_size"]) for r in seen]
            below = [next((i for i, g, _ in gaps if g <= 10.0**-k), None) for k in range(6)]
            marks = [(0, 0.0, len(y)), *gaps, (solution.iterations, 0.0, 0)]
            work = sum((j - i) * n for (i, _, n), (j, _, _) in pairwise(marks))
            starts.append({"start": strategy, "C": C, "iterations": solution.iterations,
                           "first_reported_gap": gaps[0][1] if gaps else float("nan"),
                           "iterations_to_gap_1e-k": below, "s": took, "active_work": work,
                           "floor_work": solution.iterations * solution.stats["min_active_size"],
                           "objective": solution.objective})  # fmt: skip
            print(starts[-1], flush=True)
    body = [[f"{C:g}", *(f"{r['iterations']} ({r['first_reported_gap']:.2g})" for r in starts
                         if r["C"] == C)] for C in PATH]  # fmt: skip
    body += [[f"path {k}", *(str(sum(r[k] for r in starts if r["start"] == s)) for s in a.starts)]
             for k in ("iterations", "active_work", "floor_work")]  # fmt: skip
    md = report.markdown_table(["C", *a.starts], body, n_text_cols=1) + "\n\n"
    decades = [[r["start"], f"{r['C']:g}", *map(str, r["iterations_to_gap_1e-k"])] for r in starts]
    md += report.markdown_table(["start", "C", *(f"gap ≤ 1e-{k}" for k in range(6))], decades, 2)
    return run.record(threads=a.threads[0], engine=a.engines[0], starts=starts), md


def main(argv: list[str] | None = None) -> None:
    p = harness.parser(__doc__, "warm_start")
    harness.options(p, threads=[1, 2], engines=["auto"], rows=16000, dataset="a9a", gamma=0.5,
                    limits=(False, "the solver's limits instead (binary data)"),
                    falling=(False, "the path from the largest C down"), epsilon=0.1, tol=1e-6,
                    estimator=("SVC", "SVR: standardized X and y, epsilon", ("SVC", "SVR")),
                    peers=([], None, harness.strs),
                    starts=(list(STARTS), None, harness.strs))  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "starts", a.starts, STARTS)
    harness.known(p, "peers", a.peers, ("sklearn", "sklearnex"))
    run, ds, PARAMS["gamma"] = harness.Run(argv), data.load(a.dataset, a.data), a.gamma
    X, y, PARAMS["tol"] = ds.X[: a.rows], ds.y[: a.rows], a.tol
    if a.estimator == "SVR":
        X, y, PARAMS["epsilon"] = (X - X.mean(0)) / X.std(0), (y - y.mean()) / y.std(), a.epsilon
    if a.limits:
        out = a.out if "--out" in (argv or sys.argv) else a.out.with_name("warm_start_limits")
        return run.write(out, *limits(X, y, a, run))
    paths = [run_path(X, y, e, t, a.peers, a) for e in a.engines for t in a.threads]
    keys = ["cold_s", "warm_s", *(f"{peer}_s" for peer in a.peers)]
    totals = [{**path[0], "C": "path", **{k: sum(r[k] for r in path) for k in keys}}
              for path in paths]  # fmt: skip
    cols: list[report.Column] = [
        ("engine", "engine"), ("threads", "threads"), ("C", "C"), ("cold s", "cold_s:.2f"),
        ("warm s", "warm_s:.2f"), *((f"{q} s", f"{q}_s:.2f") for q in a.peers),
        ("cold iter", "cold_iterations"), ("warm iter", "warm_iterations"),
        ("Δobj rel", lambda r: f"{r['relative_difference']:.1e}"),
        *((f"{q} Δobj", lambda r, q=q: f"{r[q + '_relative_difference']:.1e}") for q in a.peers),
    ]  # fmt: skip
    body = [r for path in paths for r in path]
    md = report.table(body, cols, 3, done=None)
    total_cols = [*cols[: 5 + len(a.peers)], ("", lambda r: " · ".join(
        f"warm / {k[:-2]} {r['warm_s'] / r[k]:.2f}" for k in keys if k != "warm_s"))]  # fmt: skip
    md += "\n" + "\n".join(report.table(totals, total_cols, 3, done=None).splitlines()[2:])
    run.write(a.out, run.record(runs=paths), md)
    worst = max(r["relative_difference"] for r in body)
    print(f"largest relative objective difference warm vs cold: {worst:.1e}")
    if not np.isfinite(worst) or worst > max(1e-6, a.tol):  # both stop at a.tol's KKT gap
        raise SystemExit(f"a warm fit missed the cold optimum by more than {max(1e-6, a.tol):g}")


if __name__ == "__main__":
    main()
