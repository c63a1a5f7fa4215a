"""AID (``kernelkit.AIDRegressor`` / ``AIDClassifier``, seed paper 001) against the full problem
solved directly, as n grows, same data and parameters, objectives recomputed in numpy.

* ``lad``: min Σ|y − Xβ − β0|; AID at tol 1e-3 (the paper's) and 1e-6 vs ``QuantileRegressor(
  quantile=0.5, alpha=0, solver="highs")`` (the full LP). Synthetic rows (Student-t(3) noise) for
  m in ``--lad-ms``, a larger m at modest n (``--lad-trend-*``), PMLB 344_mv and 564_fried.
* ``svm``: ½‖w‖² + C Σ hinge, C = 0.1 (the paper's M); AIDClassifier(kernel="linear", tol=1e-4)
  vs kernelkit.SVC, sklearn SVC, LinearSVC(loss="hinge") (it regularises the intercept: another
  problem, flagged) and sklearnex SVC; two Gaussian classes, a9a, w8a, kddcup (nested subsets).
* ``rbf``: kernel AID vs kernelkit.SVC and sklearn SVC on PMLB magic, gamma = 1/(m·var X).

Per instance: ρ = T_AID / T_peer (ρ < 1: AID faster), Δ = (E_AID − E_peer)/E_peer, AID's
certified bound, gap, status, iterations, aggregation rates and history; checks of the bound.
Each fit in a fresh process, one thread by default; a fit under 1 s is repeated (median of 3);
``--time-cap`` per solve (a time_limit where the solver has one), larger n of a ladder skipped
once a method cannot finish; ``--budget`` stops starting instances. Writes
``results/aid.{json,md}`` (``aid_quick.*``) and ``aid_gap_vs_iter.png``.

    python benches/bench_aid.py --quick
    python benches/bench_aid.py --parts lad --lad-ms 10 --max-rows 100000 --time-cap 120
"""

from __future__ import annotations

import contextlib
import itertools
import math
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import harness
import numpy as np
from harness import data, report, runner
from harness.machine import blas_threads, importable, kernelkit_build, peak_rss_mb, reset_peak_rss
from harness.objectives import rbf_quadratic_form
from harness.report import check, fmt
from harness.svm import estimator

QR, KKSVC, SKSVC = "QuantileRegressor(highs)", "kernelkit.SVC", "sklearn SVC"
LINSVC, SKLEARNEX = "LinearSVC*", "sklearnex SVC"
LADDER = [10**4, 3 * 10**4, 10**5, 3 * 10**5, 10**6]
HISTORY = ("n_clusters", "lower_bound", "upper_bound", "gap", "time", "aggregated_objective",
           "full_objective", "n_impure")  # fmt: skip
NOTES = [
    "sklearn QuantileRegressor minimises mean pinball loss (= ½·mean|r| at q = 0.5); E = Σ|r| is "
    "recomputed from its coef_/intercept_.",
    "LinearSVC (liblinear) regularises the intercept (intercept_scaling=1): it solves a slightly "
    "different problem; its E is our objective evaluated at its (w, b).",
]


def is_aid(method: str) -> bool:
    return method.startswith("AID")


def make(job: dict[str, Any]) -> Any:
    """The estimator of ``job["method"]`` with the job's shared settings."""
    method, cap, thr = job["method"], job["time_cap"], job["threads"]
    common = {"C": job.get("C"), "kernel": "linear" if job["part"] == "svm" else "rbf",
              "gamma": job.get("gamma", "scale"), "cache_size": job["cache_size"]}  # fmt: skip
    if is_aid(method):
        import kernelkit

        shared = {"tol": job["tol"], "max_iter": job["aid_max_iter"], "random_state": job["seed"],
                  "time_limit": cap, "n_jobs": thr}  # fmt: skip
        if job["part"] == "lad":
            return kernelkit.AIDRegressor(**shared)
        return kernelkit.AIDClassifier(**common, **shared)
    if method == QR:
        from sklearn.linear_model import QuantileRegressor

        return QuantileRegressor(quantile=0.5, alpha=0.0, solver="highs", fit_intercept=True)
    if method == LINSVC:
        from sklearn.svm import LinearSVC

        return LinearSVC(loss="hinge", C=job["C"], dual=True, max_iter=100_000)
    solver = {KKSVC: "kernelkit", SKSVC: "sklearn", SKLEARNEX: "sklearnex"}[method]
    extra = {"time_limit": cap} if solver == "kernelkit" else {}
    return estimator(solver, "SVC", common, thr, **extra)


def linear(est: Any) -> tuple[Any, float]:
    b = float(np.ravel(est.intercept_)[0])
    if hasattr(est, "coef_"):
        return np.asarray(est.coef_, dtype=np.float64).ravel(), b
    dc = np.asarray(est.dual_coef_, dtype=np.float64)
    return (dc @ np.asarray(est.support_vectors_, dtype=np.float64)).ravel(), b


def fit_job(case: runner.Case) -> dict[str, Any]:
    """A fresh process: an untimed warm-up fit on tiny data (first-call costs), the timed fit,
    the model's objective recomputed on the full data."""
    job = case.params
    X, y = data.unstash(job["data"], "X"), data.unstash(job["data"], "y")
    with blas_threads(job["threads"]), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rng = np.random.default_rng(0)
        Xw = rng.normal(size=(300, 3))
        lad = job["part"] == "lad"
        yw = Xw @ np.ones(3) + rng.normal(size=300) if lad else np.sign(Xw[:, 0] + 0.1)
        with contextlib.suppress(Exception):  # warm-up only
            make(dict(job, time_cap=30.0)).fit(Xw, yw)

        def one() -> dict[str, Any]:
            est = make(job)
            reset_peak_rss()
            caught.clear()
            t0 = time.perf_counter()
            est.fit(X, y)
            seconds = time.perf_counter() - t0
            warn = sorted({f"{w.category.__name__}: {str(w.message)[:160]}" for w in caught})
            return {"seconds": seconds, "est": est, "peak_rss_mb": peak_rss_mb(),
                    "warnings": warn[:6]}  # fmt: skip

        out = runner.median_time(one)
        est, method, part, C = out.pop("est"), job["method"], job["part"], job.get("C")
        out["times"] = out.pop("seconds_all")
        if part == "lad":
            coef, b = np.asarray(est.coef_, dtype=np.float64).ravel(), float(est.intercept_)
            out["objective"] = float(np.abs(y - X @ coef - b).sum())
            out["coef"] = [b, *coef.tolist()]
        else:
            if part == "svm":
                w, b = linear(est)
                f, w_sq = X @ w + b, float(w @ w)
                head = np.asarray(est.decision_function(X[:2000]), dtype=np.float64).ravel()
                out["decision_consistency"] = float(np.max(np.abs(head - f[:2000])))
                out["coef"] = [b, *w.tolist()]
            else:
                f = np.asarray(est.decision_function(X), dtype=np.float64).ravel()
                dc = np.asarray(est.dual_coef_, dtype=np.float64).ravel()
                sv = np.asarray(est.support_vectors_, dtype=np.float64)
                w_sq = rbf_quadratic_form(sv, dc, float(job["gamma"]))
            out["objective"] = float(0.5 * w_sq + C * np.maximum(0.0, 1.0 - y * f).sum())
            out["train_accuracy"] = float(np.mean(np.where(f > 0, 1.0, -1.0) == y))
    if hasattr(est, "support_"):
        out["n_sv"] = len(est.support_)
    if is_aid(method):
        hist = [{k: None if h.get(k) is None else float(h[k]) for k in HISTORY if k in h}
                for h in getattr(est, "history_", [])]  # fmt: skip
        k_final = int(np.unique(np.asarray(est.labels_)).size)
        out |= {"objective_reported": float(est.objective_), "history": hist,
                "lower_bound": float(est.lower_bound_), "gap": float(est.gap_),
                "status": str(est.status_), "n_iter": int(est.n_iter_), "rT": k_final / len(y),
                "n_clusters_final": k_final,
                "r0": hist[0]["n_clusters"] / len(y) if hist else None}  # fmt: skip
    elif method == KKSVC:
        st = est.status_
        out["status"] = ",".join(st) if isinstance(st, list) else str(st)
        out["n_iter"] = int(np.sum(est.n_iter_))
    elif method in (SKSVC, SKLEARNEX):
        out["n_iter"] = int(np.sum(getattr(est, "n_iter_", 0)))
        out["status"] = "fit_status_ " + str(getattr(est, "fit_status_", "?"))
    elif method == LINSVC:
        out["n_iter"] = int(est.n_iter_)
        out["status"] = "max_iter hit" if est.n_iter_ >= 100_000 else "converged"
    else:
        out["n_iter"] = int(getattr(est, "n_iter_", -1))
        out["status"] = "warning" if out["warnings"] else "converged"
    return out


# --------------------------------------------------------------------------- ladders
def finished(r: dict[str, Any], cap: float | None = None) -> bool:
    """Solved within the per-solve cap: not stopped by a time limit, not slower than the cap."""
    if "seconds" not in r or r.get("over_cap") or (cap is not None and r["seconds"] > cap):
        return False
    return not any(s in str(r.get("status", "")) for s in ("time_limit", "stopped"))


def why(r: dict[str, Any]) -> str:
    return (r.get("skipped") or r.get("error") or "?").splitlines()[0][:110]


def skip_reason(seen: list[tuple[int, Any]], method: str, n: int, cap: float) -> str | None:
    """Skip ``method`` at size n of a ladder once it did not finish at a size ≤ n, or when its
    time extrapolated from the last two sizes (∝ n^e, 1 ≤ e ≤ 2.5) exceeds the cap."""
    for n0, r in seen:
        if not finished(r) and n0 <= n:
            return f"skipped: at n={n0:,} it did not finish within the cap ({why(r)[:120]})"
    done = [(n0, r["seconds"]) for n0, r in seen if finished(r) and n0 < n]
    if not done:
        return None
    (n1, t1), exp = done[-1], 1.0 if is_aid(method) else 2.0
    if len(done) >= 2 and t1 > 0.5:
        exp = math.log(t1 / max(done[-2][1], 1e-3)) / math.log(n1 / done[-2][0])
    exp = min(max(exp, 1.0), 2.5)
    if (pred := t1 * (n / n1) ** exp) <= cap:
        return None
    took = f"(n={n1:,} took {t1:.1f} s; time ∝ n^{exp:.2f})"
    return f"skipped: predicted {pred:.0f} s > cap {cap:g} s {took}"


def compare(inst: dict[str, Any], cap: float) -> list[dict[str, Any]]:
    """ρ = T_AID/T_peer and Δ = (E_AID − E_peer)/E_peer for every AID variant × other method."""
    res, rows = inst["results"], []
    for (a, ra), (p, rp) in itertools.product(res.items(), res.items()):
        if not is_aid(a) or "objective" not in ra or p == a or is_aid(p):
            continue
        row: dict[str, Any] = {"aid": a, "peer": p, "peer_finished": finished(rp)}
        if "objective" in rp:
            row["rho"] = ra["seconds"] / rp["seconds"]
            row["delta"] = (ra["objective"] - rp["objective"]) / abs(rp["objective"])
        else:
            row["peer_note"] = why(rp)
            if "timed out" in row["peer_note"] or "time_limit" in row["peer_note"]:
                row["rho_upper"] = ra["seconds"] / cap  # the peer took > cap
        if len(ra.get("coef", [])) == len(rp.get("coef", [])) > 0:
            row["coef_max_abs_diff"] = float(np.max(np.abs(np.subtract(ra["coef"], rp["coef"]))))
        rows.append(row)
    return rows


def instance_checks(inst: dict[str, Any]) -> list[dict[str, Any]]:
    """AID's objective_ against numpy's, its gap against its certified lower bound, the bound
    against every other method's objective, Δ within what the gap guarantees, the history's
    monotone bounds."""
    out, tag, res = [], f"{inst['group']} n={inst['n']:,}", inst["results"]
    for a, ra in res.items():
        if not is_aid(a) or "objective" not in ra:
            continue
        name, e, lb = f"{tag} {a}", ra["objective"], ra["lower_bound"]
        rel = abs(ra["objective_reported"] - e) / max(abs(e), 1e-300)
        g = max((e - lb) / abs(e), 0.0) if e else 0.0  # from the numpy objective, not gap_
        out.append(check(f"{name}: objective_ = numpy objective", rel <= 1e-8, f"rel {rel:.1e}"))
        ok, detail = abs(ra["gap"] - g) <= 1e-9 + 1e-6 * g, (
            f"gap_ {ra['gap']:.3e}, recomputed {g:.3e}")  # fmt: skip
        out.append(check(f"{name}: gap_ = (objective_ − lower_bound_)/objective_", ok, detail))
        if ra["status"] == "gap":
            tol = float(inst["tols"].get(a, 0.0))
            ok, detail = g <= tol * (1 + 1e-9) + 1e-12, f"gap {g:.3e}, tol {tol:g}"
            out.append(check(f"{name}: status 'gap' ⇒ gap ≤ tol", ok, detail))
        for p, rp in res.items():
            if p == a or "objective" not in rp:
                continue
            ep = rp["objective"]
            detail = f"LB {lb:.10g}, E {ep:.10g}"
            out.append(check(f"{name}: lower_bound_ ≤ E[{p}]", ep >= lb - 1e-9 * abs(e), detail))
            if not is_aid(p):  # E_peer ≥ E* ≥ LB ⇒ Δ ≤ (E_AID − LB)/LB = g/(1 − g)
                bound, d = g / max(1.0 - g, 1e-12) + 1e-9, (e - ep) / abs(ep)
                what = f"{name}: Δ vs {p} ≤ g/(1−g) (g: certified gap)"
                out.append(check(what, d <= bound, f"Δ {d:+.2e}, bound {bound:.2e}"))
        if h := ra.get("history") or []:
            tol = 1e-9 * max(abs(e), 1.0)
            lbs = [x["lower_bound"] for x in h if x.get("lower_bound") is not None]
            ubs = [x["upper_bound"] for x in h if x.get("upper_bound") is not None]
            mono = all(y >= x - tol for x, y in itertools.pairwise(lbs))
            mono = mono and all(y <= x + tol for x, y in itertools.pairwise(ubs))
            out.append(check(f"{name}: history LB ↑, UB ↓", mono, f"{len(h)} iterations"))
        ok, detail = ra["status"] in ("optimal", "gap"), f"{ra['status']}, gap {ra['gap']:.1e}"
        out.append(check(f"{name}: status", ok, detail, gate=False))
    return out


# --------------------------------------------------------------------------- the run
def problem(spec: tuple[str, str, Any, int], seed: int, cache: dict[str, Any]) -> tuple[Any, ...]:
    """(X, y, description) of ``(kind, name, n, m)``: synthetic rows, or the first n rows of a
    seeded permutation of a real set (standardised columns, labels ±1; a9a and w8a as stored)."""
    kind, name, n, m = spec
    if kind == "lad":
        X, y, beta0 = data.lad_rows(n, m, seed)
        return X, y, f"synthetic lad: X~N(0,1), intercept {beta0:.4g} + beta ~ N(0,1), t(3) noise"
    if kind == "gauss":
        return *data.gauss_classes(n, m, seed), "synthetic gauss: x|y ~ N(y*1.5*u, I), |u| = 1"
    if name not in cache:
        cache.clear()  # one real set in memory at a time
        d = data.load(name)
        X = d.X if name in ("a9a", "w8a") else data.standardize(d.X)
        y = d.y if name in ("344_mv", "564_fried") else np.where(d.y > 0, 1.0, -1.0)
        y = np.where(d.y == data.KDD_NORMAL_ID, -1.0, 1.0) if name == "kddcup" else y
        cache[name] = (X, y, d.source)
    X, y, source = cache[name]
    return *data.nested_subset(X, y, n, seed), source


def plan(a: Any) -> list[tuple[str, str, tuple[str, str, Any, int]]]:
    """(part, group, problem) in run order."""

    def cap(ns: list[int]) -> list[int]:
        return [n for n in ns if a.max_rows is None or n <= a.max_rows]

    out: list[tuple[str, str, tuple[str, str, Any, int]]] = []
    if "lad" in a.parts:
        out += [("lad", f"lad synthetic m={m}", ("lad", "", n, m)) for m in a.lad_ms
                for n in cap(a.lad_sizes)]  # fmt: skip
    if "svm" in a.parts:
        out += [("svm", f"svm synthetic m={m}", ("gauss", "", n, m)) for m in a.svm_ms
                for n in cap(a.svm_sizes)]  # fmt: skip
    if "lad" in a.parts:
        out += [("lad", f"lad {name}", ("real", name, a.max_rows, 0)) for name in a.lad_real]
    if "svm" in a.parts:
        for name in a.svm_real:
            sizes = (cap(a.kdd_sizes) or [a.max_rows]) if name == "kddcup" else [a.max_rows]
            out += [("svm", f"svm {name}", ("real", name, n, 0)) for n in sizes]
    if "rbf" in a.parts:
        out += [("rbf", "rbf magic", ("real", "magic", n, 0)) for n in cap(a.rbf_sizes)]
    if "lad" in a.parts and (m := a.lad_trend_m):
        out += [("lad", f"lad synthetic m={m}", ("lad", "", n, m)) for n in cap(a.lad_trend_sizes)]
    return out


def run_instance(part: str, group: str, X: Any, y: Any, source: str, a: Any,
                 seen: dict[Any, Any], folder: Path, deadline: float) -> Any:  # fmt: skip
    """Every method of the part on one instance, each in a fresh process."""
    n, m = X.shape
    if part == "lad":
        methods = [(f"AID tol={t:g}", {"tol": t}) for t in a.lad_tols] + [(QR, {})]
    else:
        peers = (KKSVC, SKSVC) if part == "rbf" else (KKSVC, SKSVC, LINSVC, SKLEARNEX)
        methods = [(f"AID tol={a.svm_tol:g}", {"tol": a.svm_tol})]
        methods += [(p, {}) for p in peers if p != SKLEARNEX or importable("sklearnex")]
    stash = data.stash(folder / f"{group}_{n}".replace(" ", "_"), X=X, y=y)
    shared = {"part": part, "time_cap": a.time_cap, "threads": a.threads, "seed": a.seed,
              "cache_size": a.cache_size, "aid_max_iter": a.aid_max_iter, "data": stash,
              "C": a.C if part == "svm" else a.rbf_C}  # fmt: skip
    shared |= {"gamma": 1.0 / (m * float(X.var()))} if part == "rbf" else {}
    inst: dict[str, Any] = {"part": part, "group": group, "n": n, "m": m, "results": {},
                            "data": {"source": source, "n": n, "m": m},
                            "tols": {k: v["tol"] for k, v in methods if "tol" in v},
                            "kernelkit_build": kernelkit_build()}  # fmt: skip
    limit = a.time_cap + 45.0 + 4e-8 * n * m  # the cap and a margin for a loaded machine
    print(f"{group}  n={n:,} m={m}", flush=True)
    for method, extra in methods:
        history = seen.setdefault((group, method), [])
        reason = skip_reason(history, method, n, a.time_cap)
        if reason is None and time.monotonic() > deadline:
            reason = "skipped: run budget (--budget) exhausted"
        if reason is not None:
            res: dict[str, Any] = {"skipped": reason}
        else:
            job = {**shared, **extra, "method": method}
            res = runner.run_one(runner.Case(method, fit_job, job, {}, limit))
            if res.get("timed_out"):
                res["error"] = (
                    f"timed out: killed after {limit:.0f} s (cap {a.time_cap:g} s + load margin)"
                )
            if res.get("seconds", 0.0) > a.time_cap:
                res["over_cap"] = True  # a solver without a time limit ran past the cap
            history.append((n, res))
        inst["results"][method] = res
        brief = why(res)
        if "objective" in res:
            brief = f"{res['seconds']:9.3f} s  E {res['objective']:.10g}  "
            brief += f"LB {res['lower_bound']:.10g} gap {res['gap']:.1e} " if is_aid(method) else ""
            brief += f"{res.get('status', '')} it {res.get('n_iter', '?')}"
        print(f"    {method:<16} {brief}", flush=True)
    inst["comparisons"] = compare(inst, a.time_cap)
    return inst


# --------------------------------------------------------------------------- the report
def aid_cell(r: dict[str, Any]) -> str:
    if "objective" not in r:
        return why(r)
    r0, rt = 100 * (r.get("r0") or 0), 100 * r["rT"]
    return f"{r['status']}, {r['n_iter']} it, gap {r['gap']:.0e}, r⁰ {r0:.2f}% → r^T {rt:.2f}%"


def rho(c: dict[str, Any]) -> str:
    bound = "rho" not in c and "rho_upper" in c
    return f"< {c['rho_upper']:.3g}" if bound else fmt(c.get("rho"), ".3g")


def comparisons(result: dict[str, Any]) -> str:
    """One row per (instance, AID variant, peer)."""
    cap, rows = result["config"]["time_cap"], []
    for inst in result["instances"]:
        res, head = inst["results"], [inst["group"], f"{inst['n']:,}", str(inst["m"])]
        for c in inst["comparisons"]:
            ra, rp = res[c["aid"]], res[c["peer"]]
            t_peer = why(rp)
            if "objective" in rp:
                t_peer = f"{rp['seconds']:.3g}" + ("" if finished(rp, cap) else " (> cap)")
            rows.append([*head, c["aid"], f"{ra['seconds']:.3g}", aid_cell(ra), c["peer"], t_peer,
                         rho(c), f"{ra['objective']:.10g}", fmt(rp.get("objective"), ".10g"),
                         fmt(c.get("delta"), "+.2e")])  # fmt: skip
        rows += [[*head, k, "—", why(r), *[""] * 6]
                 for k, r in res.items() if is_aid(k) and "objective" not in r]  # fmt: skip
    header = ["data", "n", "m", "AID", "T_AID s", "AID run", "peer", "T_peer s", "ρ = T_AID/T_peer",
              "E_AID", "E_peer", "Δ = (E_AID−E_peer)/E_peer"]  # fmt: skip
    return report.markdown_table(header, rows, 4)


def largest(result: dict[str, Any]) -> str:
    """Per (group, peer): the largest n the peer finished within the cap, ρ and Δ there (vs the
    first AID variant), the first n it did not finish and the largest n AID ran."""
    cap, rows, groups = result["config"]["time_cap"], [], {}
    for inst in result["instances"]:
        groups.setdefault(inst["group"], []).append(inst)
    for group, insts in groups.items():
        insts = sorted(insts, key=lambda i: i["n"])
        if not (aids := [k for k in insts[0]["results"] if is_aid(k)]):
            continue
        ran = [i for i in insts if "objective" in i["results"].get(aids[0], {})]
        aid_ran = f"{ran[-1]['n']:,} ({ran[-1]['results'][aids[0]]['seconds']:.3g})" if ran else "—"
        for peer in (k for k in insts[0]["results"] if not is_aid(k)):
            done = [i for i in insts if finished(i["results"].get(peer, {}), cap)]
            first = "—"
            if fails := [i for i in insts if not finished(i["results"].get(peer, {}), cap)]:
                r0 = fails[0]["results"].get(peer, {})
                reason = str(r0.get("status")) if "objective" in r0 else why(r0)
                if "objective" in r0 and r0["seconds"] > cap:
                    reason = f"took {r0['seconds']:.0f} s > cap {cap:g} s"
                first = f"{fails[0]['n']:,} ({reason})"
            if not done:
                rows.append([group, peer, *["—"] * 5, first, aid_ran])
                continue
            i, ra = done[-1], done[-1]["results"].get(aids[0], {})
            c = next((c for c in i["comparisons"] if c["aid"] == aids[0] and c["peer"] == peer), {})
            rows.append([group, peer, f"{i['n']:,}", f"{i['results'][peer]['seconds']:.3g}",
                         fmt(ra.get("seconds"), ".3g"), fmt(c.get("rho"), ".3g"),
                         fmt(c.get("delta"), "+.2e"), first, aid_ran])  # fmt: skip
    header = ["group", "peer", "largest n finished", "T_peer s", "T_AID s", "ρ = T_AID/T_peer", "Δ",
              "first n not finished (why)", "largest n AID ran (T_AID s)"]  # fmt: skip
    return report.markdown_table(header, rows, 2)


def lad_trend(result: dict[str, Any]) -> str:
    """Synthetic LAD at equal n for different m: ρ of every AID variant vs the LP, and r^T."""
    lad, rows = [i for i in result["instances"] if i["group"].startswith("lad synthetic")], []
    for n in sorted({i["n"] for i in lad}):
        if len({i["m"] for i in lad if i["n"] == n}) < 2:
            continue
        for inst in sorted((i for i in lad if i["n"] == n), key=lambda i: i["m"]):
            for c in inst["comparisons"]:
                ra, rp = inst["results"][c["aid"]], inst["results"][c["peer"]]
                t_lp = f"{rp['seconds']:.3g}" if "seconds" in rp else "not run"
                rows.append([f"{n:,}", str(inst["m"]), c["aid"], f"{ra['seconds']:.3g}", t_lp,
                             rho(c), fmt(c.get("delta"), "+.2e"), str(ra["n_iter"]),
                             f"{100 * ra['rT']:.2f}%"])  # fmt: skip
    header = ["n", "m", "AID", "T_AID s", "T_LP s", "ρ = T_AID/T_LP", "Δ", "iterations", "r^T"]
    return report.markdown_table(header, rows, 3) if rows else "(fewer than two m at any n)"


def markdown(result: dict[str, Any]) -> str:
    cfg, checks = result["config"], result["checks"]
    fails = [f"- FAIL {c['name']}: {c['detail']}" for c in checks if c["status"] == "FAIL"]
    info = [
        f"- {c['name']}: {c['detail']}" for c in checks if c["status"] == "INFO" and not c["ok"]
    ]
    built = (result["kernelkit_build"] or {}).get("mtime", "?")
    n_pass = sum(c["status"] == "PASS" for c in checks)
    return "\n".join([
        "# AID (kernelkit) vs the full problem solved directly", "",
        f"Started {result['started']}; wall time {fmt(result.get('wall_seconds'), '.0f')} s; "
        f"per-solve cap {cfg['time_cap']} s; threads {cfg['threads']}; cache {cfg['cache_size']} "
        f"MB; seed {cfg['seed']}; kernelkit extension built {built}. Load at start: "
        f"`{result['load_before']['uptime']}`.", "",
        "ρ = T_AID / T_peer (the paper's ratio; ρ < 1: AID faster). Δ = (E_AID − E_peer)/E_peer, "
        "objectives recomputed in numpy from each model (LAD: Σ|r|; SVM: ½‖w‖² + C Σ hinge with "
        f"C = {cfg['C']} linear, {cfg['rbf_C']} RBF). 'AID run': status, aggregated solves, final "
        "certified gap, initial → final aggregation rate. A peer time marked '(> cap)' did not "
        "finish within the per-solve cap: it hit its time_limit (its E is that of the model it "
        "returned) or, having no time limit, ran past the cap.", "",
        *[f"- {n}" for n in result["notes"]], "",
        "## AID vs each direct solver", "", comparisons(result), "",
        "## Largest instance each direct solver finished (vs the first AID variant)", "",
        largest(result), "", "## LAD: speed ratio against m at equal n (synthetic)", "",
        lad_trend(result), "", f"## Checks: {n_pass} PASS, {len(fails)} FAIL", "",
        *(fails or ["(no failures)"]), *(["", "Non-gated notes:", *info] if info else []), "",
    ])  # fmt: skip


def plots(result: dict[str, Any], out: Path) -> None:
    """AID's certified gap and aggregation rate against the aggregated solve for the largest
    instance of each group."""
    top: dict[str, Any] = {}
    for inst in result["instances"]:
        with_history = any(is_aid(k) and r.get("history") for k, r in inst["results"].items())
        if with_history and inst["n"] > top.get(inst["group"], {}).get("n", -1):
            top[inst["group"]] = inst
    panels: dict[str, dict[str, Any]] = {}
    for g, inst in sorted(top.items(), key=lambda t: ("lad" not in t[0], t[0])):
        what = "LAD (AIDRegressor)" if g.startswith("lad") else "SVM (AIDClassifier)"
        aids = [k for k, r in inst["results"].items() if is_aid(k) and r.get("history")]
        name = min(aids, key=lambda k: inst["results"][k].get("gap", 1.0))  # the tightest
        h, label = inst["results"][name]["history"], f"{g} n={inst['n']:,} {name[4:]}"
        gap = [(t, max(x.get("gap") or 0.0, 1e-12)) for t, x in enumerate(h)]
        rate = [(t, x["n_clusters"] / inst["n"]) for t, x in enumerate(h)]
        panels.setdefault(f"{what}: certified gap (UB − LB)/UB", {})[label] = gap
        panels.setdefault(f"{what}: aggregation rate |K^t|/n", {})[label] = rate
    title = "AID history_ of the largest instance of every group"
    report.lines(out.parent / f"{out.stem}_gap_vs_iter.png", panels, title, "aggregated solve t",
                 "", logx=False, ncols=2)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, data=False)
    harness.options(p, quick=(False, "smoke run on tiny sizes (*_quick files)"),
                    parts=["lad", "svm", "rbf"], max_rows=(None, "cap n of every instance", int),
                    time_cap=(300.0, "s per solve"), budget=(2400.0, "s; no new instance after"),
                    threads=1, cache_size=(200.0, "MB (every SVC, AID)"), seed=0, aid_max_iter=500,
                    lad_sizes=(LADDER, None, harness.ints), lad_ms=[10, 50], lad_tols=[1e-3, 1e-6],
                    lad_real=["344_mv", "564_fried"], lad_trend_m=(200, "larger m (0: none)"),
                    lad_trend_sizes=[10000, 30000, 100000], svm_sizes=(LADDER, None, harness.ints),
                    svm_ms=[10], svm_real=["a9a", "w8a", "kddcup"],
                    kdd_sizes=[30000, 100000, 494020], C=(0.1, "linear SVM C (the paper's M)"),
                    svm_tol=1e-4, rbf_sizes=[2000, 4000, 8000], rbf_C=1.0, no_plots=False,
                    out=(None, None, Path))  # fmt: skip
    a = p.parse_args(argv)
    if a.quick:
        a.lad_sizes = a.svm_sizes = a.kdd_sizes = [2000, 5000]
        a.lad_ms, a.lad_trend_m, a.lad_trend_sizes, a.rbf_sizes = [5], 20, [3000], [500, 1000]
        a.max_rows, a.time_cap, a.budget = (
            a.max_rows or 5000, min(a.time_cap, 60.0), min(a.budget, 600.0)
        )  # fmt: skip
    harness.known(p, "parts", a.parts, ("lad", "svm", "rbf"))
    out = a.out or harness.RESULTS / ("aid_quick.json" if a.quick else "aid.json")
    run, notes = harness.Run(argv), list(NOTES)
    if not importable("sklearnex"):
        notes.append("scikit-learn-intelex not importable: its SVC was skipped.")
    result: dict[str, Any] = {"config": vars(a), "notes": notes, "instances": [], "checks": []}
    seen: dict[Any, Any] = {}
    cache: dict[str, Any] = {}
    deadline, tmp = time.monotonic() + a.budget, Path(tempfile.mkdtemp(prefix="aid_bench_"))
    try:
        for part, group, spec in plan(a):
            if time.monotonic() > deadline:
                notes.append(f"budget {a.budget:g} s exhausted before {group} {spec[1:3]}")
                continue
            try:
                X, y, source = problem(spec, a.seed, cache)
            except data.DataMissing as exc:
                notes.append(f"{group}: skipped ({exc})")
                continue
            inst = run_instance(part, group, X, y, source, a, seen, tmp, deadline)
            result["instances"].append(inst)
            result["checks"] += instance_checks(inst)
            report.write_json(out, run.record(**result))  # an interrupted run keeps what it did
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    record = run.record(**result)
    changed = [f"{i['group']} n={i['n']:,}" for i in result["instances"]
               if i["kernelkit_build"] != run.build]  # fmt: skip
    if changed or "build_note" in record:
        notes.append("WARNING: the kernelkit extension changed during the run; instances on a "
                     f"different build than at the start: {changed or 'none'}")  # fmt: skip
    report.print_checks([c for c in record["checks"] if c["status"] != "PASS"])
    if not a.no_plots:
        plots(record, out)
    run.write(out, record, markdown(record))
    return 1 if any(c["status"] == "FAIL" for c in record["checks"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
