"""Why a warm start saves little on ``bench_warm_start.py``'s path (issue 44): a9a's first 16,000
rows, RBF gamma=0.5, 200 MB cache, the C-SVC dual solved by ``_core.solve_c_svc``. ``--tols``:
cold fits at C = 1 and 30 stopped at each tolerance (what the last decades cost from any
start). ``--starts``: along C = 0.1 … 30, the iterations from α = 0 (``cold``) and from the
previous α' mapped to the new C and projected onto ``{0 ≤ α ≤ C, yᵀα = 0}``: ``projection``
(α', what ``warm_start=True`` does), ``scaled`` (α'·C/C'), ``bound`` (α' at C' moved to C),
``secant`` (the linear prediction from the last two solutions); in parentheses the KKT gap at
the solver's first report.

    cd benches && python warm_start_limits.py --threads 2
"""

from __future__ import annotations

import time
from typing import Any

import harness
import numpy as np
from harness import data
from harness.report import markdown_table

PATH = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0]
STARTS = ("cold", "projection", "scaled", "bound", "secant")


def start_from(strategy: str, C: float, history: list[tuple[float, Any]], y: Any) -> Any | None:
    """The start of the fit at ``C`` from the previous solutions ``history`` (C, α)."""
    from kernelkit._warm_start import project_onto

    if strategy == "cold" or not history:
        return None
    (c1, a1), upper = history[-1], np.full(len(y), C)
    if strategy == "projection":
        guess = a1
    elif strategy == "scaled":
        guess = a1 * (C / c1)
    elif strategy == "bound":
        guess = np.where(a1 >= c1 * (1 - 1e-12), C, a1)
    else:  # secant
        guess = a1
        if len(history) > 1:
            c0, a0 = history[-2]
            guess = a1 + (C - c1) / (c1 - c0) * (a1 - a0)
    return project_onto(guess, upper, 0.0, y)


def main() -> None:
    from kernelkit import _core

    p = harness.parser(__doc__, "warm_start_limits")
    p.add_argument("--threads", default=2, type=int)
    p.add_argument("--tols", default=[1e-1, 1e-2, 1e-3, 1e-4, 1e-6], type=harness.floats)
    p.add_argument("--starts", default=list(STARTS), type=harness.strs)
    args = p.parse_args()
    harness.known(p, "starts", args.starts, STARTS)
    run, ds = harness.Run(), data.load("a9a", args.data)
    X, y = ds.X[:16000], np.where(ds.y[:16000] > 0, 1.0, -1.0)
    kernel = _core.Kernel("rbf", gamma=0.5)
    options = {"cache_size": 200.0, "n_jobs": args.threads}

    def solve(C: float, tol: float, alpha0: Any | None) -> tuple[Any, float, float]:
        reports: list[float] = []
        started = time.perf_counter()
        solution = _core.solve_c_svc(
            X, y, np.full(len(y), C), kernel, alpha0, tol=tol,
            callback=lambda progress: reports.append(float(progress["gap"])) and None, **options
        )  # fmt: skip
        seconds = time.perf_counter() - started
        return solution, seconds, reports[0] if reports else float("nan")

    tols = []
    for C in (1.0, 30.0):
        for tol in args.tols:
            solution, seconds, _ = solve(C, tol, None)
            tols.append({"C": C, "tol": tol, "iterations": solution.iterations, "s": seconds})
            print(tols[-1], flush=True)
    starts = []
    for strategy in args.starts:
        history: list[tuple[float, Any]] = []
        for C in PATH:
            solution, seconds, first_gap = solve(C, 1e-6, start_from(strategy, C, history, y))
            history.append((C, np.asarray(solution.x)))
            starts.append({"start": strategy, "C": C, "iterations": solution.iterations,
                           "first_reported_gap": first_gap, "s": seconds,
                           "objective": solution.objective})  # fmt: skip
            print(starts[-1], flush=True)
    by_tol = markdown_table(
        ["C", "tol", "iterations", "s"],
        [[f"{r['C']:g}", f"{r['tol']:g}", str(r["iterations"]), f"{r['s']:.2f}"] for r in tols],
        n_text_cols=2,
    )
    header = ["C", *args.starts]
    body = [
        [
            f"{C:g}",
            *(f"{r['iterations']} ({r['first_reported_gap']:.2g})" for r in starts if r["C"] == C),
        ]
        for C in PATH
    ]
    body.append(
        [
            "path",
            *(str(sum(r["iterations"] for r in starts if r["start"] == s)) for s in args.starts),
        ]
    )
    by_start = markdown_table(header, body, n_text_cols=1)
    record = run.record(threads=args.threads, tols=tols, starts=starts)
    run.write(args.out, record, by_tol + "\n\n" + by_start)


if __name__ == "__main__":
    main()
