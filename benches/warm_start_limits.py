"""Why a warm start saves little on ``bench_warm_start.py``'s path: SMO's iterations per decade
of the stopping tolerance, and the iterations from four starting points (issue 44).

Same data and parameters as ``bench_warm_start.py`` (a9a's first 16,000 rows, dense, RBF
gamma=0.5, cache 200 MB), the C-SVC dual solved directly by ``_core.solve_c_svc``:

* ``--tols``: cold fits at C = 1 and C = 30 stopped at each tolerance: how many iterations the
  last decades cost, which no start can skip;
* ``--starts``: along C = 0.1, 0.3, 1, 3, 10, 30, the iterations from the cold start (α = 0) and
  from the previous solution α' (at C'), mapped to the new C four ways, each then projected onto
  ``{0 ≤ α ≤ C, yᵀα = 0}`` (``kernelkit._warm_start.project_onto``):

  - ``projection``: α' itself (what ``warm_start=True`` does);
  - ``scaled``: α' · C / C' (every variable at its bound stays at the bound);
  - ``bound``: the variables at C' moved to C, the others kept;
  - ``secant``: α' + (C − C')/(C' − C'') · (α' − α''), the linear prediction from the last two
    solutions (exact while no variable changes its bound: the free α are affine in C).

  Each cell gives the iterations and, in parentheses, the KKT gap at the solver's first
  progress report: how far from optimal the start was.

    cd benches && python warm_start_limits.py --threads 2

Writes ``<out>.json`` and ``<out>.md``.
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
            X,
            y,
            np.full(len(y), C),
            kernel,
            alpha0,
            tol=tol,
            callback=lambda progress: reports.append(float(progress["gap"])) and None,
            **options,
        )
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
            starts.append(
                {
                    "start": strategy,
                    "C": C,
                    "iterations": solution.iterations,
                    "first_reported_gap": first_gap,
                    "s": seconds,
                    "objective": solution.objective,
                }
            )
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
