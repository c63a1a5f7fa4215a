"""One runner for every benchmark: a ``Case`` is one fit (what to fit, on which data, with
which parameters); ``run`` repeats the cases interleaved, each fit in a fresh process (or in
this one), and keeps one row per case: medians of the times with their ranges, the peak
memory, and the objective, score and everything else the fit measured, beside the time."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .machine import current_rss_mb, peak_rss_mb, reset_peak_rss, run_isolated
from .objectives import relative_difference

TIMES = ("fit_s", "fit_cpu_s", "predict_s", "seconds")
PEAKS = ("peak_rss_fit_mb", "peak_rss_predict_mb")


@dataclass(frozen=True)
class Case:
    """One fit. ``child(case)`` runs it (in a fresh process: a module-level function) and
    returns its measurements; ``keys`` are the columns that identify it in the tables."""

    label: str
    child: Callable[[Case], dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    import_path: str | None = None  # a folder with another build of kernelkit, imported first


def _enter(case: Case) -> dict[str, Any]:
    if case.import_path is not None:
        sys.path.insert(0, case.import_path)  # before kernelkit's first import in this process
    return case.child(case)


def run_one(case: Case, isolate: bool = True) -> dict[str, Any]:
    """One fit; a failure becomes ``{"error": first line, "timed_out": bool}``."""
    try:
        if isolate:
            result: dict[str, Any] = run_isolated(_enter, (case,), timeout=case.timeout)
        else:
            result = _enter(case)
            for key in [k for k in result if k.startswith(("peak_rss", "rss_"))]:
                result[key] = None  # not meaningful without a fresh process
    except Exception as exc:
        msg = (str(exc) or type(exc).__name__).splitlines()[0]
        print(f"  {case.label} {case.keys}: FAILED: {msg}", file=sys.stderr, flush=True)
        return {"error": msg, "timed_out": msg.startswith("timed out")}
    return result


def summarize(case: Case, runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The row of a case: median of each time over the good repeats (``<time>_all`` keeps
    them all), the largest peak memory, every other field from the first good repeat."""
    ok = [r for r in runs if "error" not in r]
    row: dict[str, Any] = {
        "label": case.label, **case.keys, "repeats": len(runs), "ok_repeats": len(ok)
    }  # fmt: skip
    if not ok:
        row["error"] = runs[0]["error"] if runs else "not run"
        return row
    row.update(ok[0])
    for key in TIMES:
        if ok[0].get(key) is not None:
            row[f"{key}_all"] = [r[key] for r in ok]
            row[key] = statistics.median(row[f"{key}_all"])
    for key in PEAKS:
        if ok[0].get(key) is not None:
            row[key] = max(r[key] for r in ok)
    return row


def run(
    cases: Sequence[Case], repeats: int = 1, isolate: bool = True,
    log: Callable[..., str] | None = None, below: float | None = None
) -> list[dict[str, Any]]:  # fmt: skip
    """``repeats`` fits of every case, interleaved (all cases once, then again: a spell of load
    on a shared machine slows every case alike, which keeps their ratios honest); a case that
    failed is not repeated, nor (with ``below``) one whose first fit took ``below`` s or more.
    One row per case, in order."""
    runs: list[list[dict[str, Any]]] = [[] for _ in cases]
    for rep in range(repeats):
        for case, done in zip(cases, runs, strict=True):
            if done and ("error" in done[-1] or (below or np.inf) <= done[0]["fit_s"]):
                continue
            done.append(run_one(case, isolate))
            took = f"{done[-1]['fit_s']:.3f} s" if "fit_s" in done[-1] else "failed"
            where = " ".join(str(v) for v in case.keys.values() if isinstance(v, str | int))
            where = log(case) if log else f"{where} {case.label}"
            print(f"  {where} repeat {rep + 1}/{repeats}: fit {took}", file=sys.stderr, flush=True)
    return [summarize(case, done) for case, done in zip(cases, runs, strict=True)]


# --------------------------------------------------------------------------- in the child
def timed_fit(est: Any, X: Any, y: Any) -> dict[str, Any]:
    """Fit with the peak-RSS mark reset just before: the fit's time, CPU time and memory."""
    reset = reset_peak_rss()
    start = current_rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, y)
    fit_s, cpu_s = time.perf_counter() - t0, time.process_time() - c0
    return {"fit_s": fit_s, "fit_cpu_s": cpu_s, "rss_at_fit_start_mb": start,
            "peak_rss_fit_mb": peak_rss_mb(), "peak_rss_reset": reset}  # fmt: skip


def timed_predict(est: Any, X: Any, method: str = "predict") -> tuple[Any, dict[str, Any]]:
    reset_peak_rss()
    start = current_rss_mb()
    t0 = time.perf_counter()
    out = getattr(est, method)(X)
    stats = {"predict_s": time.perf_counter() - t0, "rss_at_predict_start_mb": start,
             "peak_rss_predict_mb": peak_rss_mb()}  # fmt: skip
    return out, stats


def median_time(
    fn: Callable[[], dict[str, Any]], key: str = "seconds", below: float = 1.0
) -> dict[str, Any]:
    """``fn()``; when it took less than ``below`` seconds, twice more, keeping the median time
    (``<key>_all`` holds every time and ``repeats`` their number)."""
    first = fn()
    times = [first[key]] + ([fn()[key] for _ in range(2)] if first[key] < below else [])
    first.update({key: statistics.median(times), f"{key}_all": times, "repeats": len(times)})
    return first


# --------------------------------------------------------------------------- comparisons
def groups(
    rows: Iterable[dict[str, Any]], keys: Sequence[str]
) -> dict[tuple[Any, ...], dict[str, dict[str, Any]]]:
    """Rows by ``keys`` (in first-seen order), each group by label."""
    out: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(tuple(r.get(k) for k in keys), {})[r["label"]] = r
    return out


def pivot(
    rows: Iterable[dict[str, Any]], keys: Sequence[str], picks: dict[str, tuple[str, str]]
) -> list[dict[str, Any]]:
    """One row per group of ``keys``: its keys and, per ``name: (label, field)``, that field of
    the group's row of that label (None where there is none)."""
    return [
        {**dict(zip(keys, k, strict=True)),
         **{name: by.get(label, {}).get(fld) for name, (label, fld) in picks.items()}}
        for k, by in groups(rows, keys).items()
    ]  # fmt: skip


def compare(
    rows: list[dict[str, Any]], keys: Sequence[str], base: str = "kernelkit",
    ref: str | None = "sklearn"
) -> None:  # fmt: skip
    """Per group of ``keys``: ``fit_ratio`` and ``predict_ratio`` (this row's time over the
    ``base`` row's), and against the ``ref`` row: ``objective_rel_diff``, the worst pair's
    ``pair_rel_diff``, ``score_diff`` and the agreement of the predictions (classes:
    ``agreement``, values: ``max_abs_pred_diff``). Stored in the rows."""
    for by in groups(rows, keys).values():
        kk, sk = by.get(base), by.get(ref or "")
        kk = kk if kk is not None and "fit_s" in kk else None
        sk = sk if sk is not None and "fit_s" in sk else None
        for r in by.values():
            if "fit_s" not in r:
                continue
            r["fit_ratio"] = r["fit_s"] / kk["fit_s"] if kk else None
            if kk and r.get("predict_s") is not None and kk.get("predict_s"):
                r["predict_ratio"] = r["predict_s"] / kk["predict_s"]
            if sk is None:
                continue
            r["objective_rel_diff"] = relative_difference(r.get("objective"), sk.get("objective"))
            pairs = zip(r.get("objective_pairs", []), sk.get("objective_pairs", []), strict=False)
            diffs = [relative_difference(a, b) for a, b in pairs]
            r["pair_rel_diff"] = max((abs(d) for d in diffs if d is not None), default=None)
            if r.get("score") is not None and sk.get("score") is not None:
                r["score_diff"] = r["score"] - sk["score"]
            if r.get("y_pred") is not None and sk.get("y_pred") is not None:
                a, b = np.asarray(r["y_pred"]), np.asarray(sk["y_pred"])
                if r.get("task", "svc") == "svr":
                    r["max_abs_pred_diff"] = float(np.max(np.abs(a - b)))
                else:
                    r["agreement"] = float(np.mean(a == b))


def gate(rows: list[dict[str, Any]], keys: Sequence[str], gated: Sequence[str],
         ref: str = "sklearn", rtol: float = 1e-4, atol: float = 1e-3,
         info: Sequence[str] = ()) -> list[dict[str, Any]]:  # fmt: skip
    """The objective gate, after ``compare``: per group, every ``gated`` row ran, its dual
    objective is within ``rtol`` (relative, worst pair) of the ``ref`` row's and its score within
    ``atol``; the ``info`` rows are checked the same way but not gated."""
    from .report import check

    out = []
    for k, by in groups(rows, keys).items():
        tag, sk = " ".join(map(str, k)), by.get(ref)
        sk_why = f"LIBSVM ({ref}) " + (
            "not run" if sk is None else sk.get("skipped") or f"failed: {sk.get('error')}"
        )
        for label in [x for x in (*gated, *info) if x in by]:
            r, gate_it = by[label], label in gated
            if gate_it:
                detail = r.get("error", "fit, predict and objective evaluated")
                out.append(check(f"{tag} {label} ran", "error" not in r, detail))
            if "fit_s" not in r:
                continue
            rel, diff = r.get("pair_rel_diff"), r.get("score_diff")
            if sk is None or "fit_s" not in sk or rel is None or diff is None:
                out.append(check(f"{tag} {label} vs LIBSVM", None, sk_why, gate_it))
                continue
            metric = "R^2" if r.get("task") == "svr" else "test accuracy"
            obj = (f"{r['objective']:.6f} vs {sk['objective']:.6f}; worst relative diff "
                   f"{rel:.2e} over {len(r['objective_pairs'])} pair(s) "
                   f"(limit {rtol:g})")  # fmt: skip
            score = f"{r['score']:.5f} vs {sk['score']:.5f} (diff {diff:+.5f}, ±{atol:g})"
            out.append(check(f"{tag} {label} dual objective vs LIBSVM", rel <= rtol, obj, gate_it))
            out.append(
                check(f"{tag} {label} {metric} vs LIBSVM", abs(diff) <= atol, score, gate_it)
            )
    return out
