"""Benchmark ``kernelkit.ConstrainedSVR`` (GSMO, seed paper 003) against cvxpy + Clarabel on the
same constrained ν-SVR QP and against problem-specific peers, as n and p grow, in one run on the
same data.

Problems (all with sklearn's C convention, C = 1, ν = 0.5: per-sample box C, so paper C = C·n):

* ``nonnegative``: X (n×p) i.i.d. N(0, 1), β* = exp(N(0, 1)), y = Xβ* + Gaussian noise at a
  per-sample SNR of 10 dB (σ = std(Xβ*)/√10). Solvers: ConstrainedSVR(constraint="nonnegative"),
  cvxpy + Clarabel on the same primal QP, and ``scipy.optimize.nnls`` (a different problem,
  NNLS: its time and its coefficient error vs β* are reported for orientation only).
* ``isotonic``: X = I (n = p), β* = sorted N(0, 1), y = β* + noise (same SNR).
  ConstrainedSVR(constraint="increasing") on the dense identity, cvxpy + Clarabel on the same QP
  (written with β + β0 − y instead of a dense I: the same problem), ``sklearn IsotonicRegression``
  (IR: a different problem, PAVA).
* ``simplex``: X ~ N(0, 1), β* = |N(0, 1)| normalised to sum 1, y = Xβ* + noise.
  ConstrainedSVR(constraint="simplex") vs cvxpy + Clarabel.

The QP (API.md): min ½‖β‖² + C(nνε + Σ(ξ_i + ξ*_i)) s.t. |y_i − x_iβ − β0| ≤ ε + ξ_i^(*), ξ, ξ*,
ε ≥ 0, plus the constraint on β. For every solver the primal objective P(β, β0, ε) is recomputed
here from its (β, β0, ε) with the optimal slacks, so the objectives are comparable;
``rel. diff`` = (P − P_Clarabel)/|P_Clarabel|. Constraint violations, ‖β − β*‖/‖β*‖ and
kernelkit's iterations / status / final Δ are reported beside the times. Ratios are
time(peer)/time(kernelkit at tol 1e-3, the estimator's default); kernelkit is also run at tol
1e-6 (``--tols``), closer to Clarabel's 1e-8 gap tolerances: at tol τ, GSMO's β may violate the
constraint by up to τ, so its P can be slightly *below* Clarabel's. cvxpy's time is the whole
``solve`` call (canonicalisation + Clarabel); Clarabel's own solve time is given separately.

``kernelkit`` and ``kernelkit tol=…`` are GSMO (``method="gsmo"``, the paper's algorithm);
``kernelkit default`` is the estimator with its defaults (``method="auto"``: the interior-point
method on problems with n·p ≤ 10⁶, n·p² ≤ 2·10⁸ and p ≤ n, GSMO beyond; ``--no-default`` drops it).

Every solver runs single-threaded by default (``--threads``: ConstrainedSVR ``n_jobs`` and BLAS
via threadpoolctl); Clarabel is single-threaded. A fit under 1 s is repeated 3 times (median).
cvxpy is skipped for larger n of a (problem, p) once one of its solves took more than
``--cvxpy-cap`` seconds (recorded as skipped); likewise each kernelkit line after ``--kk-skip``
seconds, and kernelkit fits get ``time_limit=--kk-cap`` (status "time_limit" if hit).

    python benches/bench_constrained_svr.py --quick
    python benches/bench_constrained_svr.py                      # full grid
    python benches/bench_constrained_svr.py --problems isotonic --iso-sizes 50,200,1000
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import statistics
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from contextlib import nullcontext
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    fmt,
    load_snapshot,
    machine_info,
    package_versions,
    parse_int_list,
    parse_str_list,
    write_json,
)
from constrained_svr_report import (
    FloatArray,
    bench_markdown,
    build_note,
    kernelkit_build,
    plot_bench,
)

RESULTS = Path(__file__).resolve().parent / "results"
PROBLEMS = ("nonnegative", "isotonic", "simplex")
PACKAGES = (
    "kernelkit",
    "numpy",
    "scipy",
    "scikit-learn",
    "cvxpy",
    "clarabel",
    "matplotlib",
    "threadpoolctl",
)
KK = "kernelkit"
CVX = "cvxpy-clarabel"
PEER = {"nonnegative": "nnls", "isotonic": "isotonic", "simplex": None}
SNR_DB = 10.0
REPEAT_BELOW_S = 1.0


# --------------------------------------------------------------------------- data
def make_data(problem: str, n: int, p: int, seed: int) -> tuple[Any, FloatArray, FloatArray]:
    """(X, y, β*); X is None for isotonic (X = I)."""
    rng = np.random.default_rng([seed, PROBLEMS.index(problem), n, p])
    if problem == "isotonic":
        beta = np.sort(rng.normal(size=n))
        return None, beta + rng.normal(0.0, beta.std() / math.sqrt(10 ** (SNR_DB / 10)), n), beta
    X = rng.normal(size=(n, p))
    if problem == "nonnegative":
        beta = np.exp(rng.normal(size=p))
    else:
        beta = np.abs(rng.normal(size=p))
        beta /= beta.sum()
    signal = X @ beta
    y = signal + rng.normal(0.0, signal.std() / math.sqrt(10 ** (SNR_DB / 10)), n)
    return X, y, beta


def predict(X: Any, beta: FloatArray, b0: float) -> FloatArray:
    return (beta if X is None else X @ beta) + b0


def primal(
    X: Any, y: FloatArray, beta: FloatArray, b0: float, eps: float, C: float, nu: float
) -> float:
    """P(β, β0, ε) with the optimal slacks ξ_i + ξ*_i = max(0, |r_i| − ε) (ε clipped at 0)."""
    eps = max(float(eps), 0.0)
    r = predict(X, beta, b0) - y
    n = y.size
    return float(0.5 * beta @ beta + C * (n * nu * eps + np.maximum(np.abs(r) - eps, 0.0).sum()))


def violation(problem: str, beta: FloatArray) -> float:
    """Largest violation of the problem's constraint on β (0 when feasible)."""
    if problem == "nonnegative":
        return float(max(0.0, -beta.min()))
    if problem == "isotonic":
        return float(max(0.0, -np.diff(beta).min())) if beta.size > 1 else 0.0
    return float(max(0.0, -beta.min(), abs(beta.sum() - 1.0)))


# --------------------------------------------------------------------------- solvers
def fit_kernelkit(
    problem: str, X: Any, y: FloatArray, args: argparse.Namespace, tol: float, method: str
) -> dict[str, Any]:
    from kernelkit import ConstrainedSVR

    constraint = {"nonnegative": "nonnegative", "isotonic": "increasing", "simplex": "simplex"}
    Xd = np.eye(y.size) if X is None else X
    est = ConstrainedSVR(
        C=args.C,
        nu=args.nu,
        constraint=constraint[problem],
        tol=tol,
        method=method,
        n_jobs=args.threads,
        cache_size=args.cache_size,
        time_limit=args.kk_cap,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(Xd, y)
        seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "beta": np.asarray(est.coef_, dtype=np.float64),
        "b0": float(est.intercept_),
        "eps": float(est.epsilon_),
        "n_iter": int(est.n_iter_),
        "status": str(est.status_),
        "delta": float(est.delta_),
        "method": str(est.solver_stats_["method"]),
        "primal_reported": float(est.primal_objective_),
        "dual_reported": float(est.dual_objective_),
    }


def fit_cvxpy(problem: str, X: Any, y: FloatArray, args: argparse.Namespace) -> dict[str, Any]:
    import cvxpy as cp

    n = y.size
    p = n if X is None else X.shape[1]
    beta, b0 = cp.Variable(p), cp.Variable()
    eps = cp.Variable(nonneg=True)
    xi, xis = cp.Variable(n, nonneg=True), cp.Variable(n, nonneg=True)
    r = (beta if X is None else X @ beta) + b0 - y
    cons = [r <= eps + xi, -r <= eps + xis]
    if problem == "nonnegative":
        cons.append(beta >= 0)
    elif problem == "isotonic":
        cons.append(cp.diff(beta) >= 0)
    else:
        cons += [beta >= 0, cp.sum(beta) == 1]
    obj = 0.5 * cp.sum_squares(beta) + args.C * (n * args.nu * eps + cp.sum(xi) + cp.sum(xis))
    prob = cp.Problem(cp.Minimize(obj), cons)
    t0 = time.perf_counter()
    prob.solve(solver=cp.CLARABEL, time_limit=float(args.cvxpy_cap) * 3)
    seconds = time.perf_counter() - t0
    stats = prob.solver_stats
    return {
        "seconds": seconds,
        "solver_seconds": getattr(stats, "solve_time", None),
        "status": str(prob.status),
        "n_iter": getattr(stats, "num_iters", None),
        "beta": np.asarray(beta.value, dtype=np.float64),
        "b0": float(b0.value),
        "eps": float(eps.value),
        "primal_reported": float(prob.value),
    }


def fit_nnls(problem: str, X: Any, y: FloatArray, args: argparse.Namespace) -> dict[str, Any]:
    from scipy.optimize import nnls

    t0 = time.perf_counter()
    coef = nnls(X, y, maxiter=50 * X.shape[1])[0]
    return {"seconds": time.perf_counter() - t0, "beta": coef, "status": "NNLS (other problem)"}


def fit_isotonic(problem: str, X: Any, y: FloatArray, args: argparse.Namespace) -> dict[str, Any]:
    from sklearn.isotonic import IsotonicRegression

    grid = np.arange(y.size, dtype=np.float64)
    t0 = time.perf_counter()
    coef = IsotonicRegression(increasing=True).fit(grid, y).predict(grid)
    return {"seconds": time.perf_counter() - t0, "beta": coef, "status": "IR (other problem)"}


def timed(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``fn``; repeat twice more when it took < 1 s and keep the median time."""
    first = fn()
    if first["seconds"] >= REPEAT_BELOW_S:
        first["repeats"] = 1
        return first
    times = [first["seconds"], *(fn()["seconds"] for _ in range(2))]
    first["seconds"] = statistics.median(times)
    first["repeats"] = len(times)
    return first


# --------------------------------------------------------------------------- one size
def run_size(
    problem: str, n: int, p: int, args: argparse.Namespace, skip: dict[str, str]
) -> dict[str, Any]:
    """All solvers on one (problem, n, p); ``skip`` maps a solver name to why it is skipped."""
    X, y, beta_true = make_data(problem, n, p, args.seed)
    row: dict[str, Any] = {"problem": problem, "n": n, "p": p, "solvers": {}}
    jobs: list[tuple[str, Callable[[], dict[str, Any]]]] = []
    for tol in args.tols:
        name = KK if tol == args.tols[0] else f"{KK} tol={tol:g}"
        jobs.append((name, lambda tol=tol: fit_kernelkit(problem, X, y, args, tol, "gsmo")))
    if not args.no_default:
        jobs.append(
            (f"{KK} default", lambda: fit_kernelkit(problem, X, y, args, args.tols[0], "auto"))
        )
    jobs.append((CVX, lambda: fit_cvxpy(problem, X, y, args)))
    peer = PEER[problem]
    if peer is not None:
        fn = fit_nnls if peer == "nnls" else fit_isotonic
        jobs.append((peer, lambda fn=fn: fn(problem, X, y, args)))
    for name, job in jobs:
        if name == CVX and not args.have_cvxpy:
            row["solvers"][name] = {"skipped": "cvxpy/clarabel not installed"}
            continue
        if name in skip:
            row["solvers"][name] = {"skipped": skip[name]}
            continue
        try:
            res = timed(job)
        except Exception as exc:
            res = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
            print(f"    {name}: ERROR {res['error']}", file=sys.stderr, flush=True)
        if "beta" in res:
            b = res.pop("beta")
            res["coef_rel_error"] = float(np.linalg.norm(b - beta_true) / np.linalg.norm(beta_true))
            res["violation"] = violation(problem, b)
            if "b0" in res:
                res["primal"] = primal(X, y, b, res["b0"], res["eps"], args.C, args.nu)
            res["_beta"] = b
        row["solvers"][name] = res
    ref = row["solvers"].get(CVX, {})
    kk = row["solvers"].get(KK, {})
    ref_beta = ref.get("_beta")
    for name, res in row["solvers"].items():
        if name == CVX:
            continue
        if "primal" in res and "primal" in ref:
            res["primal_rel_diff"] = (res["primal"] - ref["primal"]) / abs(ref["primal"])
        if ref_beta is not None and "_beta" in res:
            res["beta_max_abs_diff_vs_clarabel"] = float(np.max(np.abs(res["_beta"] - ref_beta)))
    for res in row["solvers"].values():
        res.pop("_beta", None)
        if "seconds" in res and kk.get("seconds"):
            res["time_ratio_vs_kernelkit"] = res["seconds"] / kk["seconds"]
    return row


def print_row(row: dict[str, Any]) -> None:
    for name, r in row["solvers"].items():
        head = f"{row['problem']:<11} n={row['n']:<6} p={row['p']:<5} {name:<22}"
        if "skipped" in r or "error" in r:
            print(f"{head} {r.get('skipped') or r.get('error')}", flush=True)
            continue
        extra = f"  iters {r['n_iter']}" if r.get("n_iter") is not None else ""
        print(
            f"{head} {r['seconds']:9.4f} s  ×{fmt(r.get('time_ratio_vs_kernelkit'), '.2f'):>7}"
            f"  P {fmt(r.get('primal'), '.6g'):>12}"
            f"  relP {fmt(r.get('primal_rel_diff'), '+.1e'):>9}"
            f"  viol {r['violation']:.1e}  err {r['coef_rel_error']:.3f}  {r['status']}{extra}",
            flush=True,
        )


def table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    header = ["problem", "n", "p", "solver", "time (s)", "time / kernelkit", "Clarabel solve (s)",
              "objective P", "rel. diff vs Clarabel", "max violation", "‖β−β*‖/‖β*‖",
              "iterations", "status"]  # fmt: skip
    out = []
    for row in rows:
        for name, r in row["solvers"].items():
            if "skipped" in r or "error" in r:
                out.append([row["problem"], str(row["n"]), str(row["p"]), name,
                            r.get("skipped") or r.get("error", "")] + [""] * 8)  # fmt: skip
                continue
            out.append(
                [
                    row["problem"],
                    str(row["n"]),
                    str(row["p"]),
                    name,
                    f"{r['seconds']:.4f}",
                    fmt(r.get("time_ratio_vs_kernelkit"), ".3g"),
                    fmt(r.get("solver_seconds"), ".4f"),
                    fmt(r.get("primal"), ".8g"),
                    fmt(r.get("primal_rel_diff"), "+.2e"),
                    f"{r['violation']:.1e}",
                    f"{r['coef_rel_error']:.4f}",
                    fmt(r.get("n_iter"), ","),
                    str(r["status"])
                    + (f", Δ {r['delta']:.1e}" if "delta" in r else "")
                    + (f", {r['method']}" if "method" in r else ""),
                ]
            )
    return header, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="smoke run (< 1 min)")
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--sizes", default="200,1000,5000,20000", help="n (nonnegative, simplex)")
    parser.add_argument("--ps", default="10,50,200", help="p (nonnegative, simplex)")
    parser.add_argument("--iso-sizes", default="50,200,1000,5000", help="n = p (isotonic)")
    parser.add_argument("--C", type=float, default=1.0, help="sklearn-convention C")
    parser.add_argument("--nu", type=float, default=0.5)
    parser.add_argument(
        "--no-default", action="store_true", help="no run of the estimator's default method"
    )
    parser.add_argument(
        "--tols", default="1e-3,1e-6", help="kernelkit tols; the first is the time baseline"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache-size", type=float, default=200.0, help="kernelkit MB")
    parser.add_argument("--cvxpy-cap", type=float, default=60.0, help="s; skip larger n after")
    parser.add_argument("--kk-cap", type=float, default=300.0, help="kernelkit time_limit (s)")
    parser.add_argument("--kk-skip", type=float, default=60.0, help="s; skip larger n after")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS / "constrained_svr_bench.json")
    args = parser.parse_args(argv)
    argv_used = sys.argv[1:] if argv is None else list(argv)
    if args.quick:
        args.sizes, args.ps, args.iso_sizes = "200,1000", "10,50", "50,200"
        args.cvxpy_cap, args.kk_skip, args.kk_cap, args.tols = 10.0, 10.0, 20.0, "1e-3"
    args.tols = [float(t) for t in parse_str_list(args.tols)]
    problems = parse_str_list(args.problems)
    if bad := [p for p in problems if p not in PROBLEMS]:
        raise SystemExit(f"unknown problems {bad}; choose from {list(PROBLEMS)}")
    args.have_cvxpy = find_spec("cvxpy") is not None and find_spec("clarabel") is not None
    notes = []
    if not args.have_cvxpy:
        notes.append("cvxpy or clarabel not installed: the same-QP reference was skipped.")
    if find_spec("matplotlib") is None:
        notes.append("matplotlib not installed: no PNG.")

    try:
        from threadpoolctl import threadpool_limits

        limiter: Any = threadpool_limits(limits=args.threads)
    except ImportError:
        limiter = nullcontext()
        notes.append("threadpoolctl not installed: BLAS threads not limited.")
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    load_start = load_snapshot()
    build_start = kernelkit_build()
    wall = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with limiter:
        for problem in problems:
            if problem == "isotonic":
                grid = [(n, n) for n in parse_int_list(args.iso_sizes)]
            else:
                grid = [(n, p) for p in parse_int_list(args.ps) for n in parse_int_list(args.sizes)]
            slow: dict[int, dict[str, str]] = {}  # p -> solver -> why it is skipped from now on
            for n, p in grid:
                key = 0 if problem == "isotonic" else p
                skip = slow.setdefault(key, {})
                row = run_size(problem, n, p, args, skip)
                print_row(row)
                rows.append(row)
                for name, res in row["solvers"].items():
                    cap = args.cvxpy_cap if name == CVX else args.kk_skip
                    took = res.get("seconds", 0.0)
                    if name.startswith((KK, CVX)) and name not in skip and took > cap:
                        skip[name] = f"skipped: n={n} took {took:.0f} s > {cap:g} s"
    wall_s = time.perf_counter() - wall

    ratios = [
        (r["problem"], r["n"], r["p"], r["solvers"][CVX]["time_ratio_vs_kernelkit"])
        for r in rows
        if "time_ratio_vs_kernelkit" in r["solvers"].get(CVX, {})
    ]
    if ratios:
        notes.append(
            "time(cvxpy+Clarabel) / time(kernelkit): "
            + ", ".join(f"{pr} n={n} p={p}: {x:.3g}" for pr, n, p, x in ratios)
        )
    diffs = [
        abs(r["solvers"][KK]["primal_rel_diff"])
        for r in rows
        if "primal_rel_diff" in r["solvers"].get(KK, {})
    ]
    if diffs:
        notes.append(f"kernelkit vs Clarabel objective: max |rel. diff| {max(diffs):.2e}.")
    if note := build_note(build_start, kernelkit_build()):
        notes.append(note)
    header, tab = table(rows)
    result: dict[str, Any] = {
        "started": started,
        "argv": argv_used,
        "protocol_text": (__doc__ or "").split("\n\n    python")[0],
        "config": {k: v for k, v in vars(args).items() if k != "out"},
        "machine": machine_info(),
        "packages": package_versions(PACKAGES),
        "kernelkit_build": build_start,
        "load_start": load_start,
        "load_end": load_snapshot(),
        "wall_seconds": wall_s,
        "rows": rows,
        "notes": notes,
    }
    png = args.out.with_suffix(".png")
    note = plot_bench(rows, png, f"ConstrainedSVR vs peers, C = {args.C:g}, ν = {args.nu:g}")
    result["png"] = None if note else str(png)
    if note:
        notes.append(note)
    write_json(args.out, result)
    args.out.with_suffix(".md").write_text(bench_markdown(result, header, tab))
    print("\n" + "\n".join(notes))
    print(f"wall time {wall_s:.0f} s; wrote {args.out}, .md" + ("" if note else ", .png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
