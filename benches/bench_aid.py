"""Benchmark the AID estimators (``kernelkit.AIDRegressor`` / ``AIDClassifier``, issue 8, seed paper
001) against the full problem solved directly, as n grows, in one run on the same data with the
same parameters. Objectives are recomputed here in numpy from each model's fitted coefficients,
so every solver is scored on the same objective.

Parts (data: ``aid_data.py``):

* ``lad``: min Σ|y − Xβ − β0|. AIDRegressor at tol 1e-3 (the paper's) and 1e-6 vs
  ``sklearn.linear_model.QuantileRegressor(quantile=0.5, alpha=0, solver="highs")`` (the full LP).
  sklearn minimises the *mean* pinball loss, ½·mean|r|: Σ|r| is recomputed from coef_/intercept_
  for both. Synthetic n ladder (``--lad-sizes``) for m in ``--lad-ms``, a larger m at modest n
  (``--lad-trend``, the paper's growth of the speed-up with m), and PMLB 344_mv, 564_fried.
* ``svm``: linear C-SVM, E = ½‖w‖² + C Σ max(0, 1 − y(w·x + b)), C = 0.1 (the paper's M).
  AIDClassifier(kernel="linear", tol=1e-4) vs kernelkit.SVC (our SMO on the full problem),
  sklearn SVC (LIBSVM), LinearSVC(loss="hinge", dual=True, max_iter=100000) (liblinear; it
  regularises the intercept, so it solves a slightly different problem: it is still scored on
  E, and flagged) and scikit-learn-intelex SVC when importable; same cache_size for every SVC.
  Synthetic Gaussian classes (``--svm-sizes``, ``--svm-ms``); real a9a, w8a, kddcup (binary
  normal vs attack; ``--kdd-sizes`` nested subsets).
* ``rbf``: kernel AID (RBF) vs kernelkit.SVC and sklearn SVC on PMLB magic subsets (small n:
  kernel AID needs O(n²) kernel evaluations); gamma = 1/(m·var X) ("scale") passed as a number
  to all; ‖w‖² = αᵀQα from dual_coef_/support_vectors_, hinge from decision_function.

Reported per instance: time, ρ = T_AID / T_peer (the paper's ratio: ρ < 1 means AID is faster),
the objective E of every method, Δ = (E_AID − E_peer)/E_peer, AID's certified lower bound, gap,
status, iterations (aggregated solves), aggregation rates r⁰ = |K⁰|/n and r^T, and the per-iteration
history. Every fit runs in a fresh 'spawn' subprocess (peak RSS per fit; a hung solver is killed),
single-threaded by default (``--threads``: n_jobs of the kernelkit/sklearnex estimators and BLAS
via threadpoolctl; LIBSVM, liblinear and HiGHS run single-threaded). A fit under 1 s is repeated
(median of 3). Per-solve time cap ``--time-cap`` (AID and kernelkit.SVC get it as time_limit; the
others are killed at cap + load margin). Within a ladder, a method is skipped at larger n once it
failed to finish or its time extrapolated from the previous sizes exceeds the cap (said so in the
results). ``--budget`` stops starting new instances after that many wall seconds.

Results: ``benches/results/aid.{json,md}`` (``aid_quick.*`` for ``--quick``) and the plots of
``aid_report.py`` (``aid_time_vs_n.png``, ``aid_gap_vs_iter.png``); the JSON is rewritten after
every instance, so an interrupted run keeps what it finished.

    python benches/bench_aid.py --quick
    python benches/bench_aid.py                       # full run (~40 min on 2 cores)
    python benches/bench_aid.py --parts lad --lad-ms 10 --max-rows 100000 --time-cap 120
"""

from __future__ import annotations

import argparse
import datetime as _dt
import itertools
import math
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    check,
    load_snapshot,
    machine_info,
    package_versions,
    parse_int_list,
    parse_str_list,
    peak_rss_mb,
    print_checks,
    reset_peak_rss,
    run_isolated,
    write_json,
)
from aid_data import (
    DATA_DIR,
    DataMissing,
    Problem,
    describe,
    load_arrays,
    load_real,
    make_gauss,
    make_lad,
    nested_subset,
    save_problem,
)
from harness.machine import kernelkit_build

RESULTS = Path(__file__).resolve().parent / "results"
PACKAGES = (
    "kernelkit",
    "numpy",
    "scipy",
    "scikit-learn",
    "scikit-learn-intelex",
    "matplotlib",
    "threadpoolctl",
)
PARTS = ("lad", "svm", "rbf")
QR = "QuantileRegressor(highs)"
KKSVC = "kernelkit.SVC"
SKSVC = "sklearn SVC"
LINSVC = "LinearSVC*"
SKLEARNEX = "sklearnex SVC"
SVM_PEERS = (KKSVC, SKSVC, LINSVC, SKLEARNEX)
RBF_PEERS = (KKSVC, SKSVC)
# sklearnex/oneDAL silently turns max_iter=-1 into 10,000 iterations: pass a large explicit cap.
SKLEARNEX_MAX_ITER = 100_000_000
REPEAT_BELOW_S = 1.0
HISTORY_KEYS = (
    "n_clusters",
    "lower_bound",
    "upper_bound",
    "gap",
    "time",
    "aggregated_objective",
    "full_objective",
    "n_impure",
)
NOTES = {
    LINSVC: "LinearSVC (liblinear) regularises the intercept (intercept_scaling=1): it solves a "
    "slightly different problem; its E is our objective evaluated at its (w, b).",
    QR: "sklearn QuantileRegressor minimises mean pinball loss (= ½·mean|r| at q = 0.5); E = Σ|r| "
    "is recomputed from its coef_/intercept_.",
}


def aid_name(tol: float) -> str:
    return f"AID tol={tol:g}"


def is_aid(method: str) -> bool:
    return method.startswith("AID")


# --------------------------------------------------------------------------- objectives
def lad_objective(X: Any, y: Any, coef: Any, intercept: float) -> float:
    return float(np.abs(y - X @ np.asarray(coef, dtype=np.float64).ravel() - intercept).sum())


def hinge_objective(f: Any, y: Any, w_sq: float, C: float) -> float:
    """½‖w‖² + C Σ max(0, 1 − y f) (y in ±1)."""
    return float(0.5 * w_sq + C * np.maximum(0.0, 1.0 - y * f).sum())


# --------------------------------------------------------------------------- child side
def _blas_limit(threads: int) -> Any:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(threads)


def make_estimator(job: dict[str, Any]) -> Any:
    """The estimator of ``job['method']`` with the shared settings of the job."""
    method, part = job["method"], job["part"]
    cap, thr, seed = job["time_cap"], job["threads"], job["seed"]
    kernel = "linear" if part == "svm" else "rbf"
    gamma = job.get("gamma", "scale")
    if is_aid(method):
        if part == "lad":
            from kernelkit import AIDRegressor

            return AIDRegressor(
                tol=job["tol"],
                max_iter=job["aid_max_iter"],
                random_state=seed,
                time_limit=cap,
                n_jobs=thr,
            )
        from kernelkit import AIDClassifier

        return AIDClassifier(
            C=job["C"],
            kernel=kernel,
            gamma=gamma,
            tol=job["tol"],
            max_iter=job["aid_max_iter"],
            cache_size=job["cache_size"],
            random_state=seed,
            time_limit=cap,
            n_jobs=thr,
        )
    if method == QR:
        from sklearn.linear_model import QuantileRegressor

        return QuantileRegressor(quantile=0.5, alpha=0.0, solver="highs", fit_intercept=True)
    common = {"C": job["C"], "kernel": kernel, "gamma": gamma, "cache_size": job["cache_size"]}
    if method == KKSVC:
        import kernelkit

        return kernelkit.SVC(**common, n_jobs=thr, time_limit=cap)
    if method == SKSVC:
        from sklearn.svm import SVC

        return SVC(**common)
    if method == SKLEARNEX:
        from sklearnex.svm import SVC as SVCEx

        return SVCEx(**common, max_iter=SKLEARNEX_MAX_ITER, n_jobs=thr)
    if method == LINSVC:
        from sklearn.svm import LinearSVC

        return LinearSVC(loss="hinge", C=job["C"], dual=True, max_iter=100_000)
    raise ValueError(method)


def _warm_up(job: dict[str, Any]) -> None:
    """One untimed fit on a tiny problem: first-call costs (thread pools, lazy imports)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = X @ np.ones(3) + rng.normal(size=300) if job["part"] == "lad" else np.sign(X[:, 0] + 0.1)
    est = make_estimator(dict(job, time_cap=30.0))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
    except Exception:  # warm-up only
        pass


def _linear_wb(est: Any) -> tuple[Any, float]:
    if hasattr(est, "coef_"):
        try:
            w = np.asarray(est.coef_, dtype=np.float64).ravel()
            return w, float(np.ravel(est.intercept_)[0])
        except AttributeError:
            pass
    dc = np.asarray(est.dual_coef_, dtype=np.float64)
    sv = np.asarray(est.support_vectors_, dtype=np.float64)
    return (dc @ sv).ravel(), float(np.ravel(est.intercept_)[0])


def _aid_fields(est: Any, n: int) -> dict[str, Any]:
    hist = [
        {k: (float(h[k]) if h.get(k) is not None else None) for k in HISTORY_KEYS if k in h}
        for h in getattr(est, "history_", [])
    ]
    labels = np.asarray(est.labels_)
    k_final = int(np.unique(labels).size)
    return {
        "objective_reported": float(est.objective_),
        "lower_bound": float(est.lower_bound_),
        "gap": float(est.gap_),
        "status": str(est.status_),
        "n_iter": int(est.n_iter_),
        "n_clusters_final": k_final,
        "r0": hist[0]["n_clusters"] / n if hist else None,
        "rT": k_final / n,
        "history": hist,
    }


def fit_job(job: dict[str, Any]) -> dict[str, Any]:
    """Child process: load the arrays, fit (timed), score the model on the full data."""
    X, y = load_arrays(job["paths"])
    n = X.shape[0]
    out: dict[str, Any] = {}
    with _blas_limit(job["threads"]):
        _warm_up(job)
        times: list[float] = []
        caught: list[str] = []
        est = None
        while True:
            est = make_estimator(job)
            reset_peak_rss()
            with warnings.catch_warnings(record=True) as wlist:
                warnings.simplefilter("always")
                t0 = time.perf_counter()
                est.fit(X, y)
                times.append(time.perf_counter() - t0)
            if not caught:
                caught = sorted({f"{w.category.__name__}: {str(w.message)[:160]}" for w in wlist})
            if len(times) == 1:
                out["peak_rss_mb"] = peak_rss_mb()
            if times[0] >= REPEAT_BELOW_S or len(times) >= 3:
                break
        out["seconds"] = statistics.median(times)
        out["times"] = times
        out["warnings"] = caught[:6]
        method, part, C = job["method"], job["part"], job.get("C")
        if part == "lad":
            coef = np.asarray(est.coef_, dtype=np.float64).ravel()
            b = float(est.intercept_)
            out["objective"] = lad_objective(X, y, coef, b)
            out["coef"] = [b, *coef.tolist()]
        elif part == "svm":
            w, b = _linear_wb(est)
            f = X @ w + b
            head = min(n, 2000)
            dfun = np.asarray(est.decision_function(X[:head]), dtype=np.float64).ravel()
            out["decision_consistency"] = float(np.max(np.abs(dfun - f[:head])))
            out["objective"] = hinge_objective(f, y, float(w @ w), C)
            out["train_accuracy"] = float(np.mean(np.where(f > 0, 1.0, -1.0) == y))
            out["coef"] = [b, *w.tolist()]
        else:
            from _common import rbf_quadratic_form

            f = np.asarray(est.decision_function(X), dtype=np.float64).ravel()
            dc = np.asarray(est.dual_coef_, dtype=np.float64).ravel()
            sv = np.asarray(est.support_vectors_, dtype=np.float64)
            wkw = rbf_quadratic_form(sv, dc, float(job["gamma"]))
            out["objective"] = hinge_objective(f, y, wkw, C)
            out["train_accuracy"] = float(np.mean(np.where(f > 0, 1.0, -1.0) == y))
        if hasattr(est, "support_"):
            out["n_sv"] = len(est.support_)
        if is_aid(method):
            out.update(_aid_fields(est, n))
        elif method == KKSVC:
            st = getattr(est, "status_", None)
            out["status"] = ",".join(st) if isinstance(st, list) else str(st)
            out["n_iter"] = int(np.sum(est.n_iter_))
        elif method in (SKSVC, SKLEARNEX):
            out["n_iter"] = int(np.sum(getattr(est, "n_iter_", 0)))
            out["status"] = "fit_status_ " + str(getattr(est, "fit_status_", "?"))
        elif method == LINSVC:
            out["n_iter"] = int(est.n_iter_)
            out["status"] = "max_iter hit" if int(est.n_iter_) >= 100_000 else "converged"
        elif method == QR:
            out["n_iter"] = int(getattr(est, "n_iter_", -1))
            out["status"] = "converged" if not caught else "warning"
    return out


# --------------------------------------------------------------------------- parent side
def finished(res: dict[str, Any]) -> bool:
    """A result that counts as a solve within the cap."""
    if "seconds" not in res or res.get("over_cap"):
        return False
    status = str(res.get("status", ""))
    return "time_limit" not in status and "stopped" not in status


class Ladder:
    """Per (group, method): what ran at which n, to skip sizes that cannot finish in the cap."""

    def __init__(self, cap: float) -> None:
        self.cap = cap
        self.seen: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}

    def add(self, group: str, method: str, n: int, res: dict[str, Any]) -> None:
        if "skipped" not in res:
            self.seen.setdefault((group, method), []).append((n, res))

    def skip_reason(self, group: str, method: str, n: int) -> str | None:
        hist = self.seen.get((group, method), [])
        for n0, r in hist:
            if not finished(r) and n0 <= n:
                why = r.get("error", r.get("status", "?")).splitlines()[0][:120]
                return f"skipped: at n={n0:,} it did not finish within the cap ({why})"
        done = [(n0, r["seconds"]) for n0, r in hist if finished(r) and n0 < n]
        if not done:
            return None
        n1, t1 = done[-1]
        exp = 1.0 if is_aid(method) else 2.0
        if len(done) >= 2 and t1 > 0.5:
            n0, t0 = done[-2]
            exp = math.log(t1 / max(t0, 1e-3)) / math.log(n1 / n0)
        exp = min(max(exp, 1.0), 2.5)
        pred = t1 * (n / n1) ** exp
        if pred > self.cap:
            return (
                f"skipped: predicted {pred:.0f} s > cap {self.cap:g} s "
                f"(n={n1:,} took {t1:.1f} s; time ∝ n^{exp:.2f})"
            )
        return None


def compare(inst: dict[str, Any], cap: float) -> list[dict[str, Any]]:
    """ρ = T_AID/T_peer and Δ = (E_AID − E_peer)/E_peer for every AID variant × other method."""
    res = inst["results"]
    rows = []
    for a, ra in res.items():
        if not is_aid(a) or "objective" not in ra:
            continue
        for p, rp in res.items():
            if p == a or is_aid(p):
                continue
            row: dict[str, Any] = {"aid": a, "peer": p}
            if "objective" in rp:
                row["rho"] = ra["seconds"] / rp["seconds"]
                row["delta"] = (ra["objective"] - rp["objective"]) / abs(rp["objective"])
                row["peer_finished"] = finished(rp)
            else:
                row["peer_finished"] = False
                row["peer_note"] = (rp.get("skipped") or rp.get("error", "?")).splitlines()[0]
                if "timed out" in row["peer_note"] or "time_limit" in row["peer_note"]:
                    row["rho_upper"] = ra["seconds"] / cap  # peer took > cap
            if "coef" in ra and "coef" in rp and len(ra["coef"]) == len(rp["coef"]):
                row["coef_max_abs_diff"] = float(
                    np.max(np.abs(np.subtract(ra["coef"], rp["coef"])))
                )
            rows.append(row)
    return rows


def brief(method: str, r: dict[str, Any]) -> str:
    if "objective" not in r:
        return (r.get("skipped") or r.get("error", "?")).splitlines()[0][:150]
    s = f"{r['seconds']:9.3f} s  E {r['objective']:.10g}"
    if is_aid(method):
        s += (
            f"  LB {r['lower_bound']:.10g} gap {r['gap']:.1e} {r['status']} it {r['n_iter']}"
            f" r0 {100 * (r['r0'] or 0):.2f}% rT {100 * r['rT']:.2f}%"
        )
    else:
        s += f"  {r.get('status', '')} it {r.get('n_iter', '?')}"
    if "train_accuracy" in r:
        s += f"  acc {r['train_accuracy']:.4f}"
    return s


def instance_checks(inst: dict[str, Any]) -> list[dict[str, Any]]:
    """Invariants that could fail: AID's objective_ vs numpy, the certified lower bound vs every
    other method's objective, Δ within what AID's gap guarantees, history monotonicity."""
    out = []
    tag = f"{inst['group']} n={inst['n']:,}"
    res = inst["results"]
    for a, ra in res.items():
        if not is_aid(a) or "objective" not in ra:
            continue
        e, rep, lb = ra["objective"], ra["objective_reported"], ra["lower_bound"]
        rel = abs(rep - e) / max(abs(e), 1e-300)
        out.append(check(f"{tag} {a}: objective_ = numpy objective", rel <= 1e-8, f"rel {rel:.1e}"))
        slack = 1e-9 * abs(e)
        # gap recomputed from the numpy objective and the certified bound (not gap_)
        g = max((e - lb) / abs(e), 0.0) if e else 0.0
        g_rep = float(ra["gap"])
        out.append(
            check(
                f"{tag} {a}: gap_ = (objective_ − lower_bound_)/objective_",
                abs(g_rep - g) <= 1e-9 + 1e-6 * g,
                f"gap_ {g_rep:.3e}, recomputed {g:.3e}",
            )
        )
        if ra["status"] == "gap":
            tol = float(inst["tols"].get(a, 0.0))
            out.append(
                check(
                    f"{tag} {a}: status 'gap' ⇒ gap ≤ tol",
                    g <= tol * (1 + 1e-9) + 1e-12,
                    f"gap {g:.3e}, tol {tol:g}",
                )
            )
        for p, rp in res.items():
            if p == a or "objective" not in rp:
                continue
            ok = rp["objective"] >= lb - slack
            out.append(
                check(
                    f"{tag} {a}: lower_bound_ ≤ E[{p}]",
                    ok,
                    f"LB {lb:.10g}, E {rp['objective']:.10g}",
                )
            )
            if not is_aid(p):
                # E_peer ≥ E* ≥ LB  ⇒  Δ ≤ (E_AID − LB)/LB = g/(1 − g)
                bound = g / max(1.0 - g, 1e-12) + 1e-9
                d = (e - rp["objective"]) / abs(rp["objective"])
                out.append(
                    check(
                        f"{tag} {a}: Δ vs {p} ≤ g/(1−g) (g: certified gap)",
                        d <= bound,
                        f"Δ {d:+.2e}, bound {bound:.2e}",
                    )
                )
        h = ra.get("history") or []
        if h:
            lbs = [x["lower_bound"] for x in h if x.get("lower_bound") is not None]
            ubs = [x["upper_bound"] for x in h if x.get("upper_bound") is not None]
            tol = 1e-9 * max(abs(e), 1.0)
            mono = all(b >= a_ - tol for a_, b in itertools.pairwise(lbs)) and all(
                b <= a_ + tol for a_, b in itertools.pairwise(ubs)
            )
            out.append(check(f"{tag} {a}: history LB ↑, UB ↓", mono, f"{len(h)} iterations"))
        out.append(
            check(
                f"{tag} {a}: status",
                ra["status"] in ("optimal", "gap"),
                f"{ra['status']}, gap {ra['gap']:.1e}",
                gate=False,
            )
        )
    return out


def run_instance(
    part: str,
    group: str,
    prob: Problem,
    methods: list[tuple[str, dict[str, Any]]],
    a: argparse.Namespace,
    ladder: Ladder,
    tmp: Path,
    deadline: float,
) -> dict[str, Any]:
    inst: dict[str, Any] = {
        "part": part,
        "group": group,
        "n": prob.n,
        "m": prob.m,
        "data": describe(prob),
        "tols": {mth: ex["tol"] for mth, ex in methods if "tol" in ex},
        "kernelkit_build": kernelkit_build(),
        "results": {},
    }
    paths = save_problem(prob, tmp)
    margin = 45.0 + 4e-8 * prob.n * prob.m
    print(f"{group}  n={prob.n:,} m={prob.m}", flush=True)
    try:
        for method, extra in methods:
            reason = ladder.skip_reason(group, method, prob.n)
            if reason is None and time.monotonic() > deadline:
                reason = "skipped: run budget (--budget) exhausted"
            if reason is not None:
                res: dict[str, Any] = {"skipped": reason}
            else:
                job = {
                    "method": method,
                    "part": part,
                    "paths": paths,
                    "time_cap": a.time_cap,
                    "threads": a.threads,
                    "seed": a.seed,
                    "cache_size": a.cache_size,
                    "aid_max_iter": a.aid_max_iter,
                    **extra,
                }
                try:
                    res = run_isolated(fit_job, (job,), timeout=a.time_cap + margin)
                except RuntimeError as exc:
                    msg = str(exc)
                    if msg.startswith("timed out"):
                        msg = (
                            f"timed out: killed after {a.time_cap + margin:.0f} s "
                            f"(cap {a.time_cap:g} s + load margin)"
                        )
                    res = {"error": msg}
            if res.get("seconds", 0.0) > a.time_cap:
                res["over_cap"] = True  # a solver without a time limit ran past the cap
            inst["results"][method] = res
            ladder.add(group, method, prob.n, res)
            print(f"    {method:<16} {brief(method, res)}", flush=True)
    finally:
        for p in paths:
            Path(p).unlink(missing_ok=True)
    inst["comparisons"] = compare(inst, a.time_cap)
    return inst


def lad_methods(a: argparse.Namespace) -> list[tuple[str, dict[str, Any]]]:
    return [(aid_name(t), {"tol": t}) for t in a.lad_tols] + [(QR, {})]


def svm_methods(a: argparse.Namespace, peers: Sequence[str], part: str, gamma: Any = None):
    base: dict[str, Any] = {"C": a.C if part == "svm" else a.rbf_C}
    if gamma is not None:
        base["gamma"] = gamma
    out = [(aid_name(a.svm_tol), dict(base, tol=a.svm_tol))]
    for p in peers:
        if p == SKLEARNEX and not a.have_sklearnex:
            continue
        out.append((p, dict(base)))
    return out


def build_plan(a: argparse.Namespace) -> list[tuple[str, str, Any, list[Any]]]:
    """(part, group, problem factory, methods) in run order."""
    plan: list[tuple[str, str, Any, list[Any]]] = []

    def cap_n(ns: Sequence[int]) -> list[int]:
        return [n for n in ns if a.max_rows is None or n <= a.max_rows]

    if "lad" in a.parts:
        for m in a.lad_ms:
            for n in cap_n(a.lad_sizes):
                plan.append(("lad", f"lad synthetic m={m}", (make_lad, n, m), lad_methods(a)))
    if "svm" in a.parts:
        for m in a.svm_ms:
            for n in cap_n(a.svm_sizes):
                plan.append(
                    (
                        "svm",
                        f"svm synthetic m={m}",
                        (make_gauss, n, m),
                        svm_methods(a, SVM_PEERS, "svm"),
                    )
                )
    if "lad" in a.parts:
        for name in a.lad_real:
            plan.append(("lad", f"lad {name}", (load_real, name, a.max_rows), lad_methods(a)))
    if "svm" in a.parts:
        for name in a.svm_real:
            sizes = [a.max_rows] if name != "kddcup" else cap_n(a.kdd_sizes) or [a.max_rows]
            for n in sizes:
                plan.append(
                    ("svm", f"svm {name}", (load_real, name, n), svm_methods(a, SVM_PEERS, "svm"))
                )
    if "rbf" in a.parts:
        for n in cap_n(a.rbf_sizes):
            plan.append(("rbf", "rbf magic", (load_real, "magic", n), RBF_PEERS))
    if "lad" in a.parts and a.lad_trend_m:
        for n in cap_n(a.lad_trend_sizes):
            plan.append(
                (
                    "lad",
                    f"lad synthetic m={a.lad_trend_m}",
                    (make_lad, n, a.lad_trend_m),
                    lad_methods(a),
                )
            )
    return plan


_REAL_CACHE: dict[str, Problem] = {}


def materialise(spec: tuple[Any, ...], seed: int) -> Problem:
    fn = spec[0]
    if fn is load_real:
        name, n = spec[1], spec[2]
        if name not in _REAL_CACHE:
            _REAL_CACHE.clear()  # keep one real set in memory at a time
            _REAL_CACHE[name] = load_real(name, DATA_DIR)
        return nested_subset(_REAL_CACHE[name], n, seed)
    return fn(spec[1], spec[2], seed)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smoke run on tiny sizes (*_quick files)")
    p.add_argument("--parts", default=",".join(PARTS))
    p.add_argument("--max-rows", type=int, default=None, help="cap n of every instance")
    p.add_argument("--time-cap", type=float, default=300.0, help="s per solve")
    p.add_argument("--budget", type=float, default=2400.0, help="s; no new instance after")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--cache-size", type=float, default=200.0, help="MB (every SVC, AID)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--aid-max-iter", type=int, default=500)
    p.add_argument("--lad-sizes", default="10000,30000,100000,300000,1000000")
    p.add_argument("--lad-ms", default="10,50")
    p.add_argument("--lad-tols", default="1e-3,1e-6")
    p.add_argument("--lad-real", default="344_mv,564_fried")
    p.add_argument("--lad-trend-m", type=int, default=200, help="larger m (0: none)")
    p.add_argument("--lad-trend-sizes", default="10000,30000,100000")
    p.add_argument("--svm-sizes", default="10000,30000,100000,300000,1000000")
    p.add_argument("--svm-ms", default="10")
    p.add_argument("--svm-real", default="a9a,w8a,kddcup")
    p.add_argument("--kdd-sizes", default="30000,100000,494020")
    p.add_argument("--C", type=float, default=0.1, help="linear SVM C (the paper's M)")
    p.add_argument("--svm-tol", type=float, default=1e-4)
    p.add_argument("--rbf-sizes", default="2000,4000,8000")
    p.add_argument("--rbf-C", type=float, default=1.0)
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args(argv)
    argv_used = sys.argv[1:] if argv is None else list(argv)
    if a.quick:
        a.lad_sizes, a.svm_sizes, a.kdd_sizes = "2000,5000", "2000,5000", "2000,5000"
        a.lad_ms, a.lad_trend_m, a.lad_trend_sizes = "5", 20, "3000"
        a.rbf_sizes, a.max_rows = "500,1000", a.max_rows or 5000
        a.time_cap, a.budget = min(a.time_cap, 60.0), min(a.budget, 600.0)
    a.parts = parse_str_list(a.parts)
    if bad := [x for x in a.parts if x not in PARTS]:
        raise SystemExit(f"unknown parts {bad}; choose from {list(PARTS)}")
    a.lad_sizes, a.svm_sizes = parse_int_list(a.lad_sizes), parse_int_list(a.svm_sizes)
    a.kdd_sizes, a.rbf_sizes = parse_int_list(a.kdd_sizes), parse_int_list(a.rbf_sizes)
    a.lad_trend_sizes = parse_int_list(a.lad_trend_sizes)
    a.lad_ms, a.svm_ms = parse_int_list(a.lad_ms), parse_int_list(a.svm_ms)
    a.lad_tols = [float(t) for t in parse_str_list(a.lad_tols)]
    a.lad_real, a.svm_real = parse_str_list(a.lad_real), parse_str_list(a.svm_real)
    a.have_sklearnex = find_spec("sklearnex") is not None
    out_path = a.out or RESULTS / ("aid_quick.json" if a.quick else "aid.json")
    try:
        from kernelkit import AIDClassifier, AIDRegressor  # noqa: F401
    except ImportError as exc:
        raise SystemExit(f"kernelkit AID estimators not available: {exc}") from None

    notes = [NOTES[QR], NOTES[LINSVC]]
    if not a.have_sklearnex:
        notes.append("scikit-learn-intelex not importable: its SVC was skipped.")
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    result: dict[str, Any] = {
        "title": "AID (kernelkit) vs the full problem solved directly",
        "started": started,
        "argv": argv_used,
        "protocol_text": (__doc__ or "").split("\n\n    python")[0],
        "config": {k: v for k, v in vars(a).items() if k != "out"},
        "machine": machine_info(),
        "packages": package_versions(PACKAGES),
        "load_start": load_snapshot(),
        "kernelkit_build": kernelkit_build(),
        "notes": notes,
        "instances": [],
        "checks": [],
    }
    wall = time.perf_counter()
    deadline = time.monotonic() + a.budget
    ladder = Ladder(a.time_cap)
    tmp = Path(tempfile.mkdtemp(prefix="aid_bench_"))
    try:
        for part, group, spec, methods in build_plan(a):
            if time.monotonic() > deadline:
                result["notes"].append(f"budget {a.budget:g} s exhausted before {group} {spec[1:]}")
                print(f"budget exhausted: not starting {group} {spec[1:]}", flush=True)
                continue
            try:
                prob = materialise(spec, a.seed)
            except DataMissing as exc:
                result["notes"].append(f"{group}: skipped ({exc})")
                print(f"{group}: skipped ({exc})", flush=True)
                continue
            if part == "rbf":
                gamma = 1.0 / (prob.m * float(prob.X.var()))
                methods = svm_methods(a, methods, "rbf", gamma)
            inst = run_instance(part, group, prob, methods, a, ladder, tmp, deadline)
            del prob
            result["instances"].append(inst)
            result["checks"] += instance_checks(inst)
            result["wall_seconds"] = time.perf_counter() - wall
            write_json(out_path, result)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["wall_seconds"] = time.perf_counter() - wall
    result["load_end"] = load_snapshot()
    result["kernelkit_build_end"] = kernelkit_build()
    builds = {str(i["kernelkit_build"]) for i in result["instances"]} | {
        str(result["kernelkit_build"]),
        str(result["kernelkit_build_end"]),
    }
    if len(builds) > 1:
        note = None
        changed = [
            f"{i['group']} n={i['n']:,}"
            for i in result["instances"]
            if i["kernelkit_build"] != result["kernelkit_build"]
        ]
        result["notes"].append(
            (note or "WARNING: the kernelkit extension changed during the run")
            + f"; instances on a different build than at the start: {changed or 'none'}"
        )
    write_json(out_path, result)

    import aid_report

    print()
    print_checks(result["checks"])
    md = aid_report.markdown_report(result)
    if not a.no_plots:
        for note in aid_report.write_plots(result, out_path):
            print(note)
    out_path.with_suffix(".md").write_text(md)
    print()
    print(md)
    print(f"wall time {result['wall_seconds']:.0f} s; wrote {out_path} and .md")
    fails = [c for c in result["checks"] if c["status"] == "FAIL"]
    return 1 if fails else 0


if __name__ == "__main__":
    raise SystemExit(main())
