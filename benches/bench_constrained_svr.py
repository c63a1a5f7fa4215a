"""``kernelkit.ConstrainedSVR`` (GSMO, seed paper 003) against cvxpy + Clarabel on the same
constrained ν-SVR QP and against problem-specific peers, as n and p grow (C = 1, ν = 0.5):

* ``nonnegative``: X ~ N(0, 1), β* = exp(N(0, 1)), y = Xβ* + noise at 10 dB; peer
  ``scipy.optimize.nnls`` (another problem: its time and error for orientation only);
* ``isotonic``: X = I, β* = sorted N(0, 1); peer ``IsotonicRegression`` (PAVA);
* ``simplex``: X ~ N(0, 1), β* = |N(0, 1)| normalised.

The primal objective P(β, β0, ε) is recomputed for every solver from its (β, β0, ε) with the optimal
slacks; rel. diff = (P − P_Clarabel)/|P_Clarabel|; violations, ‖β − β*‖/‖β*‖, iterations, status and
Δ beside the times. ``kernelkit`` is GSMO at the first of ``--tols`` (the ratios' base), ``kernelkit
default`` the estimator's own choice (``method="auto"``). One thread (``--threads``); a fit under 1
s repeated (median of 3); cvxpy skipped at larger n once a solve took over ``--cvxpy-cap`` s,
kernelkit after ``--kk-skip`` s (its time_limit: ``--kk-cap``).

    python benches/bench_constrained_svr.py --quick
    python benches/bench_constrained_svr.py --problems isotonic --iso-sizes 50,200,1000
"""

from __future__ import annotations

import math
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import harness
import numpy as np
from harness import report, runner
from harness.machine import blas_threads, importable

PROBLEMS = ("nonnegative", "isotonic", "simplex")
CONSTRAINT = {"nonnegative": "nonnegative", "isotonic": "increasing", "simplex": "simplex"}
KK, CVX = "kernelkit", "cvxpy-clarabel"
SNR_DB = 10.0


def make_data(problem: str, n: int, p: int, seed: int) -> tuple[Any, Any, Any]:
    """(X, y, β*); X is None for isotonic (X = I)."""
    rng = np.random.default_rng([seed, PROBLEMS.index(problem), n, p])
    if problem == "isotonic":
        beta = np.sort(rng.normal(size=n))
        return None, beta + rng.normal(0.0, beta.std() / math.sqrt(10 ** (SNR_DB / 10)), n), beta
    X = rng.normal(size=(n, p))
    beta = np.exp(rng.normal(size=p)) if problem == "nonnegative" else np.abs(rng.normal(size=p))
    beta = beta if problem == "nonnegative" else beta / beta.sum()
    signal = X @ beta
    return X, signal + rng.normal(0.0, signal.std() / math.sqrt(10 ** (SNR_DB / 10)), n), beta


def primal(X: Any, y: Any, beta: Any, b0: float, eps: float, C: float, nu: float) -> float:
    """P(β, β0, ε) with the optimal slacks ξ_i + ξ*_i = max(0, |r_i| − ε) (ε clipped at 0)."""
    eps = max(float(eps), 0.0)
    r = (beta if X is None else X @ beta) + b0 - y
    return float(0.5 * beta @ beta + C * (y.size * nu * eps + np.maximum(np.abs(r) - eps, 0).sum()))


def violation(problem: str, beta: Any) -> float:
    """Largest violation of the problem's constraint on β (0 when feasible)."""
    if problem == "nonnegative":
        return float(max(0.0, -beta.min()))
    if problem == "isotonic":
        return float(max(0.0, -np.diff(beta).min())) if beta.size > 1 else 0.0
    return float(max(0.0, -beta.min(), abs(beta.sum() - 1.0)))


def fit_kernelkit(problem: str, X: Any, y: Any, a: Any, tol: float, method: str) -> dict[str, Any]:
    from kernelkit import ConstrainedSVR

    est = ConstrainedSVR(C=a.C, nu=a.nu, constraint=CONSTRAINT[problem], tol=tol, method=method,
                         n_jobs=a.threads, cache_size=a.cache_size,
                         time_limit=a.kk_cap)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(np.eye(y.size) if X is None else X, y)
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "beta": np.asarray(est.coef_, dtype=np.float64),
            "b0": float(est.intercept_), "eps": float(est.epsilon_), "n_iter": int(est.n_iter_),
            "status": str(est.status_), "delta": float(est.delta_),
            "method": str(est.solver_stats_["method"]),
            "primal_reported": float(est.primal_objective_),
            "dual_reported": float(est.dual_objective_)}  # fmt: skip


def fit_cvxpy(problem: str, X: Any, y: Any, a: Any) -> dict[str, Any]:
    import cvxpy as cp

    n, p = y.size, y.size if X is None else X.shape[1]
    beta, b0, eps = cp.Variable(p), cp.Variable(), cp.Variable(nonneg=True)
    xi, xis = cp.Variable(n, nonneg=True), cp.Variable(n, nonneg=True)
    r = (beta if X is None else X @ beta) + b0 - y
    cons = [r <= eps + xi, -r <= eps + xis]
    cons += {"nonnegative": [beta >= 0], "isotonic": [cp.diff(beta) >= 0],
             "simplex": [beta >= 0, cp.sum(beta) == 1]}[problem]  # fmt: skip
    objective = 0.5 * cp.sum_squares(beta) + a.C * (n * a.nu * eps + cp.sum(xi) + cp.sum(xis))
    prob = cp.Problem(cp.Minimize(objective), cons)
    t0 = time.perf_counter()
    prob.solve(solver=cp.CLARABEL, time_limit=float(a.cvxpy_cap) * 3)
    seconds, stats = time.perf_counter() - t0, prob.solver_stats
    return {"seconds": seconds, "solver_seconds": getattr(stats, "solve_time", None),
            "status": str(prob.status), "n_iter": getattr(stats, "num_iters", None),
            "beta": np.asarray(beta.value, dtype=np.float64), "b0": float(b0.value),
            "eps": float(eps.value), "primal_reported": float(prob.value)}  # fmt: skip


def fit_peer(problem: str, X: Any, y: Any) -> dict[str, Any]:
    """NNLS (nonnegative) or PAVA (isotonic): another problem, for orientation."""
    t0 = time.perf_counter()
    if problem == "nonnegative":
        from scipy.optimize import nnls

        coef, status = nnls(X, y, maxiter=50 * X.shape[1])[0], "NNLS (other problem)"
    else:
        from sklearn.isotonic import IsotonicRegression

        grid = np.arange(y.size, dtype=np.float64)
        coef = IsotonicRegression(increasing=True).fit(grid, y).predict(grid)
        status = "IR (other problem)"
    return {"seconds": time.perf_counter() - t0, "beta": coef, "status": status}


def run_size(problem: str, n: int, p: int, a: Any, skip: dict[str, str]) -> list[dict[str, Any]]:
    """Every solver on one (problem, n, p); ``skip`` maps a solver to why it is skipped."""
    X, y, beta_true = make_data(problem, n, p, a.seed)
    jobs: list[tuple[str, Callable[[], dict[str, Any]]]] = []
    for tol in a.tols:
        name = KK if tol == a.tols[0] else f"{KK} tol={tol:g}"
        jobs.append((name, lambda t=tol: fit_kernelkit(problem, X, y, a, t, "gsmo")))
    if not a.no_default:
        jobs.append((f"{KK} default", lambda: fit_kernelkit(problem, X, y, a, a.tols[0], "auto")))
    jobs.append((CVX, lambda: fit_cvxpy(problem, X, y, a)))
    if problem != "simplex":
        peer = "nnls" if problem == "nonnegative" else "isotonic"
        jobs.append((peer, lambda: fit_peer(problem, X, y)))
    rows = []
    for name, job in jobs:
        row: dict[str, Any] = {"problem": problem, "n": n, "p": p, "solver": name}
        if name == CVX and not a.have_cvxpy:
            row["skipped"] = "cvxpy/clarabel not installed"
        elif name in skip:
            row["skipped"] = skip[name]
        else:
            try:
                row |= runner.median_time(job)
            except Exception as exc:
                row |= {"error": f"{type(exc).__name__}: {exc}",
                        "traceback": traceback.format_exc()}  # fmt: skip
        if "beta" in row:
            b = row["beta"]
            error = float(np.linalg.norm(b - beta_true) / np.linalg.norm(beta_true))
            row |= {"coef_rel_error": error, "violation": violation(problem, b)}
            if "b0" in row:
                row["primal"] = primal(X, y, b, row["b0"], row["eps"], a.C, a.nu)
        rows.append(row)
    ref, kk = rows[[r["solver"] for r in rows].index(CVX)], rows[0]
    for r in rows:
        if r is not ref and "primal" in r and "primal" in ref:
            r["primal_rel_diff"] = (r["primal"] - ref["primal"]) / abs(ref["primal"])
        if r is not ref and "beta" in r and "beta" in ref:
            r["beta_max_abs_diff_vs_clarabel"] = float(np.max(np.abs(r["beta"] - ref["beta"])))
        if "seconds" in r and kk.get("seconds"):
            r["time_ratio_vs_kernelkit"] = r["seconds"] / kk["seconds"]
    for r in rows:
        r.pop("beta", None)
    return rows


def status(r: dict[str, Any]) -> str:
    delta = f", Δ {r['delta']:.1e}" if "delta" in r else ""
    return str(r["status"]) + delta + (f", {r['method']}" if "method" in r else "")


COLUMNS: list[report.Column] = [
    ("problem", "problem"), ("n", "n"), ("p", "p"), ("solver", "solver"),
    ("time (s)", "~seconds:.4f"), ("time / kernelkit", "time_ratio_vs_kernelkit:.3g"),
    ("Clarabel solve (s)", "solver_seconds:.4f"),
    ("objective P", "primal:.8g"), ("rel. diff vs Clarabel", "primal_rel_diff:+.2e"),
    ("max violation", "violation:.1e"), ("‖β−β*‖/‖β*‖", "coef_rel_error:.4f"),
    ("iterations", "n_iter:,"), ("status", status),
]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "constrained_svr_bench.json", data=False)
    harness.options(p, quick=(False, "smoke run (< 1 min)"),
                    problems=(list(PROBLEMS), None, harness.strs),
                    sizes=([200, 1000, 5000, 20000], "n"), ps=([10, 50, 200], "p (not isotonic)"),
                    iso_sizes=([50, 200, 1000, 5000], "n = p"), C=(1.0, "sklearn-convention C"),
                    nu=0.5, no_default=(False, "no run of the default method"),
                    tols=([1e-3, 1e-6], "the first: baseline"), threads=1,
                    cache_size=(200.0, "kernelkit MB"), cvxpy_cap=(60.0, "s; skip larger n after"),
                    kk_cap=(300.0, "kernelkit time_limit (s)"),
                    kk_skip=(60.0, "s; skip larger n after"), seed=0)  # fmt: skip
    a = p.parse_args(argv)
    if a.quick:
        a.sizes, a.ps, a.iso_sizes, a.tols = [200, 1000], [10, 50], [50, 200], [1e-3]
        a.cvxpy_cap, a.kk_skip, a.kk_cap = 10.0, 10.0, 20.0
    harness.known(p, "problems", a.problems, PROBLEMS)
    a.have_cvxpy = importable("cvxpy", "clarabel")
    notes = [] if a.have_cvxpy else ["cvxpy or clarabel not installed: the same-QP reference "
                                     "was skipped."]  # fmt: skip
    run, rows = harness.Run(argv), []
    with blas_threads(a.threads):
        for problem in a.problems:
            grid = [(n, n) for n in a.iso_sizes] if problem == "isotonic" else [
                (n, q) for q in a.ps for n in a.sizes]  # fmt: skip
            slow: dict[int, dict[str, str]] = {}  # p -> solver -> why it is skipped from now on
            for n, q in grid:
                skip = slow.setdefault(0 if problem == "isotonic" else q, {})
                for r in run_size(problem, n, q, a, skip):
                    rows.append(r)
                    cap = a.cvxpy_cap if r["solver"] == CVX else a.kk_skip
                    took = r.get("seconds", 0.0)
                    if r["solver"].startswith((KK, CVX)) and r["solver"] not in skip and took > cap:
                        skip[r["solver"]] = f"skipped: n={n} took {took:.0f} s > {cap:g} s"
                    print(report.table([r], COLUMNS, done="seconds").splitlines()[-1], flush=True)
    ratios = [f"{r['problem']} n={r['n']} p={r['p']}: {r['time_ratio_vs_kernelkit']:.3g}"
              for r in rows if r["solver"] == CVX and "time_ratio_vs_kernelkit" in r]  # fmt: skip
    notes += ["time(cvxpy+Clarabel) / time(kernelkit): " + ", ".join(ratios)] if ratios else []
    if diffs := [abs(r["primal_rel_diff"]) for r in rows if r["solver"] == KK
                 and "primal_rel_diff" in r]:  # fmt: skip
        notes.append(f"kernelkit vs Clarabel objective: max |rel. diff| {max(diffs):.2e}.")
    text = (__doc__ or "").split("\n\n    python")[0]
    record = run.record(protocol_text=text, config=vars(a), rows=rows, notes=notes)
    m = record["machine"]
    md = ["# ConstrainedSVR benchmark: GSMO vs cvxpy+Clarabel (same QP) and problem-specific "
          "peers", "",
          f"Generated {run.started} by `benches/bench_constrained_svr.py {' '.join(run.argv)}` in "
          f"{run.wall:.0f} s.", "", record["protocol_text"], "",
          report.table(rows, COLUMNS, 1, done="seconds"), ""]  # fmt: skip
    md += [f"- {n}" for n in notes]
    md += ["", f"Machine: {m['cpu_model']}, {m['cpu_affinity']} CPU(s), "
           f"{m['mem_total_gb']} GB; load at start {run.load_before['loadavg']}, at end "
           f"{record['load_after']['loadavg']}.", ""]  # fmt: skip
    run.write(a.out, record, "\n".join(md), echo=False)
    print("\n" + "\n".join(notes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
