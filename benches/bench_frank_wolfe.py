"""Benchmark kernelkit's Frank–Wolfe L2-SVM solvers (CVM, FW, MFW; seed paper 002) against each
other and against scikit-learn ``SVC`` and scikit-learn-intelex ``SVC``, on a9a, w8a, USPS, letter,
shuttle and KDD Cup 99 (10%), all in one run (issue #5).

Protocol (digest §4.3, ../shared/BENCHMARKS.md):

* Our three methods: ``kernelkit.FrankWolfeSVC(method=…)`` with the paper's settings: RBF kernel,
  ε = 1e-6, sampled search with ``sample_size=59`` (LibCVM's 7 resampling trials), ``init_size=20``
  (random MEB initial core set), one-vs-one for multiclass. The same C, γ and seed for all three.
* γ: the paper's rule. d̄ = mean squared distance over distinct pairs of ≤ 5000 training rows
  (seeded random sample; closed form 2·s/(s−1)·mean‖x − x̄‖²). Convention (a) γ = 1/(2d̄) by default
  (paper text, exp(−‖·‖²/(2σ²)) with σ² = d̄); ``--gamma-rule b`` is γ = 1/d̄ (LibCVM help, CVM
  paper), ``c`` is γ = 2/d̄ (LibCVM code); digest P8. Computed once per dataset (not per OVO pair)
  and used by every solver.
* C: the paper tunes C on [2^0, 2^12] with CVM on a 30% validation split but does not report it.
  Default: a fixed C per dataset (``DEFAULT_C``: the paper's selection done once with CVM on 5,000
  rows), or ``--select-C`` to redo the selection in the run.
  The L2-SVM dual on the simplex, min αᵀ(Q + I/C)α, is the standard squared-hinge SVM
  ½‖w‖² + ½b² + (C/2)Σξ² (margin 1, regularised bias) rescaled, so its C has the usual SVM scale
  (squared instead of linear slack) — but it is not sklearn's hinge-loss C. The sklearn/sklearnex
  peers get the same γ and ``--svc-C`` (default 1, sklearn's default; ``same`` = our C).
* Peers: ``sklearn.svm.SVC`` (LIBSVM, tol 1e-3) and ``sklearnex.svm.SVC`` (oneDAL; explicit large
  max_iter), "not installed" is recorded when they cannot be imported. Same cache_size (200 MB) and
  thread count (``--n-jobs``, default 1: LibCVM and LIBSVM are single-threaded) for everyone.
* Each fit runs in a fresh 'spawn' subprocess; the peak-RSS high-water mark is reset just before
  ``fit``. Fit time excludes data loading and the γ rule (digest P17).

Datasets and splits (from ../shared/data, offline):

* a9a: official a9a / a9a.t (32,561 / 16,281; densified). Not in the paper, which uses Adult
  a1a–a7a (the largest, a7a, has 16,100 training rows; its row is shown for orientation).
* w8a: only the training file (49,749 rows) → seeded random 70/30 split. The paper used the
  official w8a.t test file (14,951 rows), which we do not have.
* USPS: the official 7,291 / 2,007 split (pixels in [0, 1]).
* letter (PMLB): first 15,000 rows train, last 5,000 test. PMLB's row order is not UCI's (PMLB's
  first row is a 'Z', UCI's a 'T'), so this is the LIBSVM/Statlog 15,000/5,000 *sizes*, not its
  rows. Features min-max scaled to [0, 1] on the training rows (affine-equivalent to LIBSVM's
  letter.scale under the d̄ rule).
* shuttle (PMLB): PMLB's file is the Statlog shuttle.trn (43,500 rows) followed by shuttle.tst
  (14,500): its row 43,501 is the first row of shuttle.tst. First 43,500 train / last 14,500 test is
  therefore the standard split. Min-max scaled to [0, 1] on the training rows.
* kddcup (PMLB, 494,020 rows; the original 10% file has 494,021, one 'normal' row fewer here):
  PMLB's class ids are the 23 original labels in alphabetical order, so id 11 = "normal."
  (97,277 rows). Default task (issue #5): binary normal (−1) vs attack (+1); ``--kdd-task 5class``
  maps the attacks to DoS/Probe/R2L/U2R as in the paper (K = 5, whose Table 1 sizes it matches).
  Seeded random 80/20 split (the paper: random 20% test). The categorical columns protocol_type,
  service and flag are one-hot encoded (38 + 3 + 66 + 11 = 118 features; the paper's copy had 127)
  unless ``--kdd-encoding ordinal``; all columns min-max scaled to [0, 1] on the training rows.
  The file has many duplicate rows, so test rows often equal training rows.

``--max-train``/``--max-test`` cap the rows (a seeded random subset of each split, order kept);
``--quick`` is a smoke run (1,000 / 1,000 rows per dataset, max_iter 100,000 per pair, 120 s
timeouts): it validates the script, its numbers are not the benchmark.

    python benches/bench_frank_wolfe.py --quick
    python benches/bench_frank_wolfe.py --datasets kddcup,letter
    python benches/bench_frank_wolfe.py --datasets usps --repeats 5 --gamma-rule b --svc-C same
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    current_rss_mb,
    load_snapshot,
    machine_info,
    package_versions,
    parse_str_list,
    peak_rss_mb,
    relative_difference,
    reset_peak_rss,
    run_isolated,
    write_json,
)
from frank_wolfe_data import ALL_DATASETS, load_dataset, mean_sq_dist, split_rows
from frank_wolfe_report import (
    METHODS,
    PAPER,
    PEERS,
    datasets_table,
    paper_speedup,
    paper_table,
    plot,
    results_table,
)
from numpy.typing import NDArray

ALL_SOLVERS = (*METHODS, *PEERS)
SOLVER_MODULES = {
    "cvm": "kernelkit",
    "fw": "kernelkit",
    "mfw": "kernelkit",
    "sklearn": "sklearn",
    "sklearnex": "sklearnex",
}
# C of the L2-SVM per dataset when --C / --select-C are not given. The paper does not report its
# C; these are the paper's selection redone once with CVM (``--select-C 1,4,16,64,256,1024,4096
# --select-max-train 5000``, γ rule (a), seed 0: 3,500 fit / 1,500 validation rows; ties → the
# smaller C). Validation accuracy was flat from 16 (w8a, kddcup) or 64 (shuttle) upwards.
DEFAULT_C = {
    "a9a": 4.0,
    "w8a": 16.0,
    "usps": 16.0,
    "letter": 64.0,
    "shuttle": 64.0,
    "kddcup": 16.0,
}
GAMMA_RULES = {"a": 0.5, "b": 1.0, "c": 2.0}  # γ = factor / d̄
GAMMA_MAX_POINTS = 5000
LIBCVM_ALPHA_THRESHOLD = 1e-5  # LibCVM zeroes α < 1e-5/|I| (digest §2.3, P13)
SKLEARNEX_MAX_ITER = 100_000_000  # its max_iter=-1 silently becomes 10,000 iterations
QUICK_ROWS = 1000
QUICK_TIMEOUT = 120.0
QUICK_MAX_ITER = 100_000  # per pair: FW's O(1/ε) tail would otherwise dominate a smoke run
EXTRA_PACKAGES = ("scikit-learn-intelex",)


@dataclass(frozen=True)
class FitConfig:
    solver: str
    C: float  # L2-SVM C (our methods)
    svc_C: float  # sklearn / sklearnex C
    gamma: float
    epsilon: float
    sample_size: int | None
    sample_trials: int
    sample_pool: str
    init_size: int
    verify_full: bool
    cache_size: float
    n_jobs: int
    tol: float  # peers only
    max_iter: int
    time_limit: float | None
    seed: int
    gap_budget: float  # max kernel evaluations for the full-scan certificate (binary only)


# --------------------------------------------------------------------------- fits (children)
def kernelkit_build() -> dict[str, Any] | None:
    """The installed kernelkit extension (path, size, mtime): it may be reinstalled mid-run."""
    spec = find_spec("kernelkit._core")
    if spec is None or spec.origin is None:
        return None
    st = Path(spec.origin).stat()
    return {
        "path": spec.origin,
        "size": st.st_size,
        "mtime": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(st.st_mtime)),
    }


def git_head(repo: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "log", "-1", "--format=%h %ci %s"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()[:120]


def make_estimator(cfg: FitConfig) -> Any:
    if cfg.solver in METHODS:
        import kernelkit

        return kernelkit.FrankWolfeSVC(
            method=cfg.solver,
            C=cfg.C,
            kernel="rbf",
            gamma=cfg.gamma,
            epsilon=cfg.epsilon,
            sample_size=cfg.sample_size,
            sample_trials=cfg.sample_trials,
            sample_pool=cfg.sample_pool,
            init_size=cfg.init_size,
            verify_full=cfg.verify_full,
            random_state=cfg.seed,
            cache_size=cfg.cache_size,
            max_iter=cfg.max_iter,
            n_jobs=cfg.n_jobs,
            time_limit=cfg.time_limit,
        )
    common: dict[str, Any] = {
        "C": cfg.svc_C,
        "kernel": "rbf",
        "gamma": cfg.gamma,
        "tol": cfg.tol,
        "cache_size": cfg.cache_size,
    }
    if cfg.solver == "sklearn":
        from sklearn.svm import SVC

        return SVC(**common)
    if cfg.solver == "sklearnex":
        from sklearnex.svm import SVC as SVCEx

        return SVCEx(**common, max_iter=SKLEARNEX_MAX_ITER, n_jobs=cfg.n_jobs)
    raise ValueError(f"unknown solver {cfg.solver!r}")


def pair_alphas(est: Any) -> list[tuple[NDArray[np.intp], NDArray[np.float64]]]:
    """(training indices, |dual coefficient|) of every OVO pair, from the LIBSVM layout."""
    dual = np.abs(np.asarray(est.dual_coef_, dtype=np.float64))
    support = np.asarray(est.support_, dtype=np.intp)
    if dual.shape[0] == 1:
        return [(support, dual[0])]
    starts = np.r_[0, np.cumsum(est.n_support_)]
    out = []
    k = len(est.n_support_)
    for i in range(k):
        for j in range(i + 1, k):
            bi, bj = slice(starts[i], starts[i + 1]), slice(starts[j], starts[j + 1])
            idx = np.r_[support[bi], support[bj]]
            alpha = np.r_[dual[j - 1, bi], dual[i, bj]]
            out.append((idx, alpha))
    return out


def sv_counts(est: Any) -> dict[str, Any]:
    """#SV (α > 0 in any pair) and the count after LibCVM's α > 1e-5/|I| threshold (digest P13)."""
    raw, kept, alpha_sum_dev = set(), set(), 0.0
    per_pair = []
    for idx, alpha in pair_alphas(est):
        pos = alpha > 0
        n_core = int(pos.sum())
        per_pair.append(n_core)
        raw.update(idx[pos].tolist())
        if n_core:
            kept.update(idx[alpha > LIBCVM_ALPHA_THRESHOLD / n_core].tolist())
        alpha_sum_dev = max(alpha_sum_dev, abs(float(alpha.sum()) - 1.0))
    return {
        "n_sv_alpha_pos": len(raw),
        "n_sv_thresholded": len(kept),
        "core_size_per_pair_total": int(sum(per_pair)),
        "alpha_sum_max_dev": alpha_sum_dev,
    }


def full_scan_certificate(
    X: NDArray[np.float64], y: NDArray[np.float64], est: Any, cfg: FitConfig
) -> dict[str, Any]:
    """Binary problem: recompute s = K̃α over *all* training rows (digest §2.1) and report the
    true relative gap δ+ = max_i γ²_i / r² − 1, the fraction of points outside B(c, (1+ε)r),
    R = αᵀK̃α against ``objective_``, and Σα_i y_i against the bias."""
    from sklearn.metrics.pairwise import rbf_kernel

    ((idx, alpha),) = pair_alphas(est)
    keep = alpha > 0
    idx, alpha = idx[keep], alpha[keep]
    yy = np.where(y == est.classes_[1], 1.0, -1.0)
    v = alpha * yy[idx]
    sign_agree = float(np.mean(np.sign(np.asarray(est.dual_coef_)[0][keep]) == np.sign(v)))
    Xsv = X[idx]
    n = X.shape[0]
    rows = max(1, min(4096, (128 * 2**20) // (8 * max(1, idx.size))))
    s = np.empty(n)
    bias = float(v.sum())
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        h = rbf_kernel(X[start:stop], Xsv, gamma=cfg.gamma) @ v + bias
        s[start:stop] = yy[start:stop] * h
    s[idx] += alpha / cfg.C
    R = float(alpha @ s[idx])
    delta2 = 2.0 + 1.0 / cfg.C  # k(x, x) = 1 for RBF
    r2 = delta2 - R
    gamma2 = delta2 + R - 2.0 * s
    threshold = (1.0 + cfg.epsilon) ** 2
    reported = float(np.ravel(est.objective_)[0])
    intercept = float(np.ravel(est.intercept_)[0])
    return {
        "R": R,
        "R_reported": reported,
        "R_rel_diff": relative_difference(reported, R),
        "r2": r2,
        "delta_plus": float(gamma2.max() / r2 - 1.0),
        "delta_plus_threshold": threshold - 1.0,
        "frac_outside": float(np.mean(gamma2 > threshold * r2)),
        "fw_gap_full": float(2.0 * (R - s.min())),
        "gap_reported": float(np.ravel(est.kkt_gap_)[0]),
        "bias_sum_alpha_y": bias,
        "intercept_reported": intercept,
        "dual_coef_sign_agreement": sign_agree,
    }


def fit_and_measure(cfg: FitConfig, data_dir: str) -> dict[str, Any]:
    """One fit + test accuracy + solver statistics. Runs inside a fresh subprocess."""
    X = np.load(Path(data_dir, "X.npy"))
    y = np.load(Path(data_dir, "y.npy"))
    Xt = np.load(Path(data_dir, "Xt.npy"))
    yt = np.load(Path(data_dir, "yt.npy"))
    est = make_estimator(cfg)  # imports the solver's package
    build = kernelkit_build() if cfg.solver in METHODS else None  # the extension loaded now

    peak_reset = reset_peak_rss()
    rss_start = current_rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, y)
    fit_s, fit_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    rss_fit = peak_rss_mb()

    t0 = time.perf_counter()
    y_pred = est.predict(Xt)
    predict_s = time.perf_counter() - t0

    n_classes = len(est.classes_)
    n_iter = np.ravel(np.asarray(getattr(est, "n_iter_", np.nan), dtype=np.float64))
    out: dict[str, Any] = {
        "fit_s": fit_s,
        "fit_cpu_s": fit_cpu_s,
        "predict_s": predict_s,
        "test_accuracy": float(np.mean(y_pred == yt)),
        "n_sv": int(np.asarray(est.support_).size),
        "n_pairs": n_classes * (n_classes - 1) // 2,
        "n_iter_total": float(np.nansum(n_iter)) if np.isfinite(n_iter).any() else None,
        "n_iter_max": float(np.nanmax(n_iter)) if np.isfinite(n_iter).any() else None,
        "rss_at_fit_start_mb": rss_start,
        "peak_rss_fit_mb": rss_fit,
        "peak_rss_reset": peak_reset,
        "seed": cfg.seed,
    }
    if build is not None:
        out["kernelkit_build"] = build
    if cfg.solver in METHODS:
        counts = sv_counts(est)
        out.update(counts)
        out["coreset_size"] = int(np.asarray(getattr(est, "coreset_", [])).size)
        statuses = list(np.ravel(np.asarray(est.status_, dtype=object)))
        out["status_counts"] = dict(Counter(str(s) for s in statuses))
        stats = est.solver_stats_
        stats = [stats] if isinstance(stats, dict) else list(stats)
        for key in ("fw_steps", "away_steps", "drop_steps"):
            out[key] = int(sum(int(st.get(key, 0)) for st in stats))
        for attr in ("kkt_gap_", "objective_", "radius2_"):
            vals = np.ravel(np.asarray(getattr(est, attr, np.nan), dtype=np.float64))
            out[f"{attr.rstrip('_')}_max"] = float(np.nanmax(vals)) if vals.size else None
        out["solver_stats_first_pair"] = dict(stats[0]) if stats else {}
        if n_classes == 2 and X.shape[0] * counts["n_sv_alpha_pos"] <= cfg.gap_budget:
            t0 = time.perf_counter()
            out["gap_check"] = full_scan_certificate(X, y, est, cfg)
            out["gap_check"]["seconds"] = time.perf_counter() - t0
    if cfg.solver == "sklearnex":
        out["backend"] = "onedal" if getattr(est, "_onedal_estimator", None) else "sklearn"
    return out


# --------------------------------------------------------------------------- orchestration
def run_one(cfg: FitConfig, data_dir: Path, isolate: bool, timeout: float) -> dict[str, Any]:
    try:
        if isolate:
            res: dict[str, Any] = run_isolated(fit_and_measure, (cfg, str(data_dir)), timeout)
        else:
            res = fit_and_measure(cfg, str(data_dir))
            res["rss_at_fit_start_mb"] = res["peak_rss_fit_mb"] = None
    except Exception as exc:
        msg = (str(exc) or type(exc).__name__).splitlines()[0]
        return {"error": msg, "timed_out": msg.startswith("timed out")}
    return res


def save_split(tmp: Path, X: Any, y: Any, Xt: Any, yt: Any) -> None:
    tmp.mkdir(parents=True, exist_ok=True)
    for name, arr in (("X", X), ("y", y), ("Xt", Xt), ("yt", yt)):
        np.save(tmp / f"{name}.npy", np.ascontiguousarray(arr))


def select_C(
    data: dict[str, Any], base: FitConfig, tmp: Path, args: argparse.Namespace
) -> tuple[float, list[dict[str, Any]]]:
    """The paper's C selection: a random 30% of the training rows as validation, ``--select-method``
    fitted for each C of the grid; the best validation accuracy wins (ties: the smaller C)."""
    rng = np.random.default_rng([args.seed, 99])
    X, y = data["X"], data["y"]
    if X.shape[0] > args.select_max_train:
        keep = np.sort(rng.choice(X.shape[0], args.select_max_train, replace=False))
        X, y = X[keep], y[keep]
    tr, va = split_rows(X.shape[0], 0.3, rng)
    save_split(tmp / "select", X[tr], y[tr], X[va], y[va])
    trials = []
    for C in args.select_C:
        cfg = replace(base, solver=args.select_method, C=C, gap_budget=0)
        res = run_one(cfg, tmp / "select", not args.no_isolate, args.timeout)
        acc = res.get("test_accuracy")
        trials.append({"C": C, "val_accuracy": acc, **{k: res.get(k) for k in ("fit_s", "error")}})
        print(
            f"  select C: {data['meta']['name']} {args.select_method} C={C:g}: "
            + (f"val acc {acc:.4f} in {res['fit_s']:.2f} s" if acc is not None else res["error"]),
            file=sys.stderr,
            flush=True,
        )
    ok = [t for t in trials if t["val_accuracy"] is not None]
    if not ok:
        raise RuntimeError("C selection: every fit failed")
    best = max(ok, key=lambda t: (t["val_accuracy"], -t["C"]))
    return best["C"], trials


def aggregate(key: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean ± std of time and accuracy over the successful repeats; the rest from the first."""
    ok = [r for r in runs if "error" not in r]
    row: dict[str, Any] = {**key, "repeats": len(runs), "ok_repeats": len(ok)}
    if not ok:
        row["error"] = runs[0]["error"] if runs else "not run"
        return row
    row.update(ok[0])
    times = [r["fit_s"] for r in ok]
    accs = [100.0 * r["test_accuracy"] for r in ok]
    row["fit_s"] = statistics.fmean(times)
    row["fit_s_median"] = statistics.median(times)
    row["fit_s_std"] = statistics.stdev(times) if len(ok) > 1 else None
    row["fit_s_all"] = times
    row["test_accuracy_pct"] = statistics.fmean(accs)
    row["test_accuracy_pct_std"] = statistics.stdev(accs) if len(ok) > 1 else None
    row["test_accuracy_pct_all"] = accs
    row["peak_rss_fit_mb"] = max((r["peak_rss_fit_mb"] or 0.0) for r in ok) or None
    if len(ok) > 1 and "status_counts" in ok[0]:
        total: Counter[str] = Counter()
        for r in ok:
            total.update(r["status_counts"])
        row["status_counts"] = dict(total)
    return row


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """Speed-ups t_CVM / t and t_sklearn / t per dataset (> 1: faster than the reference)."""
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        by = {r["solver"]: r for r in rows if r["dataset"] == dataset and "fit_s" in r}
        for r in by.values():
            for ref, field in (("cvm", "speedup_vs_cvm"), ("sklearn", "speedup_vs_sklearn")):
                r[field] = by[ref]["fit_s"] / r["fit_s"] if ref in by else None
            if r["solver"] in ("fw", "mfw"):
                r["paper_speedup_vs_cvm"] = paper_speedup(dataset, r["solver"])


def available_solvers(requested: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    ok, missing = [], {}
    for solver in requested:
        module = SOLVER_MODULES[solver]
        if find_spec(module) is None:
            missing[solver] = f"not installed ({module})"
        elif module == "kernelkit":
            import kernelkit

            if not hasattr(kernelkit, "FrankWolfeSVC"):
                missing[solver] = "installed kernelkit has no FrankWolfeSVC"
        if solver in missing:
            print(f"warning: {solver} skipped: {missing[solver]}", file=sys.stderr)
        else:
            ok.append(solver)
    return ok, missing


def run_dataset(
    name: str, solvers: list[str], base: FitConfig, args: argparse.Namespace, tmp: Path
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    t0 = time.perf_counter()
    data = load_dataset(name, args.data, args)
    meta = data["meta"]
    d_bar = mean_sq_dist(data["X"], GAMMA_MAX_POINTS, args.seed)
    gamma = args.gamma if args.gamma is not None else GAMMA_RULES[args.gamma_rule] / d_bar
    cfg = replace(base, gamma=gamma, C=args.C if args.C is not None else DEFAULT_C[name])
    if args.svc_C_same:
        cfg = replace(cfg, svc_C=cfg.C)
    meta.update({"mean_sq_dist": d_bar, "gamma": gamma, "prepare_s": time.perf_counter() - t0})
    print(
        f"{name}: {meta['n_train']:,} train / {meta['n_test']:,} test, {meta['n_features']} "
        f"features, {meta['n_classes']} classes, d̄ = {d_bar:.4g}, γ = {gamma:.4g}",
        file=sys.stderr,
        flush=True,
    )
    if args.select_C:
        cfg = replace(cfg, C=select_C(data, cfg, tmp, args)[0])
        meta["C_selection"] = {"method": args.select_method, "grid": args.select_C}
        if args.svc_C_same:
            cfg = replace(cfg, svc_C=cfg.C)
    meta.update({"C": cfg.C, "svc_C": cfg.svc_C})
    save_split(tmp, data["X"], data["y"], data["Xt"], data["yt"])
    del data
    meta["load_before"] = load_snapshot()
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in solvers}
    for rep in range(args.repeats):  # solvers interleaved: load drift hits all of them
        for solver in solvers:
            if runs[solver] and "error" in runs[solver][-1]:
                continue  # a failed or timed-out fit is not repeated
            fit_cfg = replace(cfg, solver=solver, seed=args.seed + rep)
            if solver == "fw" and args.fw_time_limit is not None:
                fit_cfg = replace(fit_cfg, time_limit=args.fw_time_limit)
            timeout = args.timeout if solver in METHODS else args.peer_timeout
            res = run_one(fit_cfg, tmp, not args.no_isolate, timeout)
            runs[solver].append(res)
            took = (
                f"fit {res['fit_s']:.3f} s, acc {res['test_accuracy']:.4f}"
                if "fit_s" in res
                else "FAILED: " + res["error"]
            )
            print(
                f"  {name} {solver:<9} repeat {rep + 1}/{args.repeats}: {took}",
                file=sys.stderr,
                flush=True,
            )
    meta["load_after"] = load_snapshot()
    rows = []
    for solver in solvers:
        key = {
            "dataset": name,
            "n_train": meta["n_train"],
            "solver": solver,
            "C": cfg.C if solver in METHODS else cfg.svc_C,
            "gamma": gamma,
        }
        rows.append(aggregate(key, runs[solver]))
    raw = [{"dataset": name, "solver": s, **r} for s in solvers for r in runs[s]]
    return meta, rows, raw


# --------------------------------------------------------------------------- main
def parse_float_list(text: str) -> list[float]:
    return [float(tok) for tok in text.split(",") if tok.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--datasets", type=parse_str_list, default=list(ALL_DATASETS))
    p.add_argument("--solvers", type=parse_str_list, default=list(ALL_SOLVERS))
    p.add_argument("--max-train", type=int, default=None, help="cap on training rows (random)")
    p.add_argument("--max-test", type=int, default=None, help="cap on test rows (random)")
    p.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: {QUICK_ROWS:,} train/test rows, max_iter {QUICK_MAX_ITER:,} per pair, "
        f"{QUICK_TIMEOUT:g} s timeouts",
    )
    p.add_argument("--repeats", type=int, default=1, help="fits per solver (seed + repeat)")
    p.add_argument("--C", type=float, default=None, help="L2-SVM C for every dataset")
    p.add_argument(
        "--select-C",
        type=parse_float_list,
        default=None,
        help="grid (e.g. 1,4,16,...,4096): choose C on a random 30%% validation split",
    )
    p.add_argument("--select-method", choices=METHODS, default="cvm")
    p.add_argument("--select-max-train", type=int, default=20_000)
    p.add_argument(
        "--svc-C", default="1", help="C of the sklearn/sklearnex peers; 'same' = the L2-SVM C"
    )
    p.add_argument("--gamma-rule", choices=tuple(GAMMA_RULES), default="a")
    p.add_argument("--gamma", type=float, default=None, help="numeric γ (overrides the rule)")
    p.add_argument("--epsilon", type=float, default=1e-6)
    p.add_argument("--sample-size", type=int, default=59, help="0 = full scan")
    p.add_argument("--sample-trials", type=int, default=7)
    p.add_argument(
        "--sample-pool", choices=("all", "noncore"), default="all", help="FW/MFW's sample"
    )
    p.add_argument("--init-size", type=int, default=20)
    p.add_argument("--verify-full", action="store_true")
    p.add_argument("--max-iter", type=int, default=-1, help="per pair, our methods (-1: none)")
    p.add_argument("--time-limit", type=float, default=None, help="s per pair (our methods)")
    p.add_argument(
        "--fw-time-limit",
        type=float,
        default=None,
        help="s per pair for FW only (overrides --time-limit; FW's O(1/ε) tail can be very long)",
    )
    p.add_argument("--cache-size", type=float, default=200.0, help="MB, every solver")
    p.add_argument("--n-jobs", type=int, default=1, help="threads (kernelkit, sklearnex)")
    p.add_argument("--tol", type=float, default=1e-3, help="peers' tol")
    p.add_argument(
        "--gap-budget",
        type=float,
        default=5e9,
        help="max n·#SV kernel evaluations for the full-scan certificate (binary; 0 = off)",
    )
    p.add_argument("--kdd-task", choices=("binary", "5class"), default="binary")
    p.add_argument("--kdd-encoding", choices=("onehot", "ordinal"), default="onehot")
    p.add_argument("--timeout", type=float, default=3600.0, help="s per fit of our methods")
    p.add_argument("--peer-timeout", type=float, default=3600.0, help="s per peer fit")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-isolate", action="store_true", help="fit in this process (no RSS)")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--out", type=Path, default=None, help="JSON path (.md and .png beside it)")
    args = p.parse_args(argv)
    for what, given, allowed in (
        ("datasets", args.datasets, ALL_DATASETS),
        ("solvers", args.solvers, ALL_SOLVERS),
    ):
        unknown = set(given) - set(allowed)
        if unknown:
            p.error(f"unknown {what}: {sorted(unknown)}")
    args.svc_C_same = args.svc_C == "same"
    args.svc_C_value = 1.0 if args.svc_C_same else float(args.svc_C)
    if args.quick:
        args.max_train = args.max_train or QUICK_ROWS
        args.max_test = args.max_test or QUICK_ROWS
        args.timeout = min(args.timeout, QUICK_TIMEOUT)
        args.peer_timeout = min(args.peer_timeout, QUICK_TIMEOUT)
        if args.max_iter < 0:
            args.max_iter = QUICK_MAX_ITER
    if args.out is None:
        results = Path(__file__).resolve().parent / "results"
        args.out = results / ("frank_wolfe_quick.json" if args.quick else "frank_wolfe.json")
    return args


def build_report(
    args: argparse.Namespace,
    datasets: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    raw: list[dict[str, Any]],
    missing: dict[str, str],
    base: FitConfig,
) -> str:
    sampling = "full scan" if base.sample_size is None else f"sample_size={base.sample_size}"
    builds = {
        (r["kernelkit_build"]["size"], r["kernelkit_build"]["mtime"])
        for r in raw
        if r.get("kernelkit_build")
    }
    lines = [
        "## Frank–Wolfe L2-SVM solvers (seed 002) vs scikit-learn / scikit-learn-intelex\n",
        f"Our methods: FrankWolfeSVC, RBF, ε={base.epsilon:g}, {sampling}, "
        f"sample_trials={base.sample_trials}, sample_pool={base.sample_pool}, "
        f"init_size={base.init_size}, "
        f"verify_full={base.verify_full}, max_iter={base.max_iter} and time_limit="
        f"{base.time_limit} s per pair (FW: {args.fw_time_limit or base.time_limit} s), cache "
        f"{base.cache_size:g} MB, n_jobs={base.n_jobs}, "
        f"seed {args.seed}+repeat. γ = {GAMMA_RULES[args.gamma_rule]:g}/d̄ (rule "
        f"({args.gamma_rule}), d̄ over ≤ {GAMMA_MAX_POINTS} training rows)"
        + (f" overridden by γ = {args.gamma:g}" if args.gamma is not None else "")
        + ". Peers: SVC (hinge loss) with the same γ, C = "
        + ("the L2-SVM C" if args.svc_C_same else f"{args.svc_C_value:g}")
        + f", tol {base.tol:g}, same cache and threads. The L2-SVM C (squared slack) is not "
        "sklearn's C.",
        "",
    ]
    if builds:
        lines.append(f"- kernelkit extension used: installed {sorted(b[1] for b in builds)}")
    for solver, why in missing.items():
        lines.append(f"- {solver}: {why}")
    for d in datasets:
        lines.append(
            f"- {d['name']}: {d['split']}; {d['scaling']}"
            + (
                f"; capped from {d['n_train_full']:,}/{d['n_test_full']:,}"
                if (d["n_train"], d["n_test"]) != (d["n_train_full"], d["n_test_full"])
                else ""
            )
            + f". Load before: `{d['load_before']['uptime']}`."
        )
    lines += [
        "",
        datasets_table(datasets),
        "",
        "Fit time: mean (± std) over repeats, each in a fresh subprocess. t_CVM / t and "
        "t_sklearn / t: speed-ups (> 1 = faster than that reference). #SV: rows with α > 0 in "
        "any OVO pair / after LibCVM's threshold α > 1e-5/|I| (our methods). Full-scan δ+ "
        "(binary only): max_i ‖z_i − c‖²/r² − 1 recomputed over all training rows (stop "
        f"threshold {(1 + base.epsilon) ** 2 - 1:.1e}).",
        "",
        results_table(rows),
        "",
        "Beside the paper (Tables 2–3, 5-run means; its machine, LibCVM code, tuned C and "
        "σ²; KDD99-10pc is 5-class there, a9a's row shows Adult a7a):",
        "",
        paper_table(rows),
    ]
    if len(builds) > 1:
        lines.append(
            "\nwarning: the installed kernelkit extension changed during this run (fits used "
            f"{len(builds)} builds: {sorted(b[1] for b in builds)}); rerun for comparable numbers"
        )
    for r in rows:
        g = r.get("gap_check")
        if g and (g["R_rel_diff"] is None or abs(g["R_rel_diff"]) > 1e-6):
            lines.append(
                f"\nwarning: {r['dataset']} {r['solver']}: objective_ {g['R_reported']:.10g} vs "
                f"recomputed αᵀK̃α {g['R']:.10g}"
            )
        if g and abs(abs(g["intercept_reported"]) - abs(g["bias_sum_alpha_y"])) > 1e-8:
            lines.append(
                f"\nwarning: {r['dataset']} {r['solver']}: intercept_ {g['intercept_reported']:.6g}"
                f" vs Σα_i y_i {g['bias_sum_alpha_y']:.6g}"
            )
        if r.get("alpha_sum_max_dev") is not None and r["alpha_sum_max_dev"] > 1e-6:
            lines.append(
                f"\nnote: {r['dataset']} {r['solver']}: |Σα − 1| up to "
                f"{r['alpha_sum_max_dev']:.1e} in some pair (α not normalised to the simplex?)"
            )
        if r.get("backend") == "sklearn":
            lines.append(f"\nwarning: sklearnex fell back to scikit-learn on {r['dataset']}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    solvers, missing = available_solvers(args.solvers)
    if not solvers:
        print("no solver available", file=sys.stderr)
        return 1
    base = FitConfig(
        solver="",
        C=1.0,
        svc_C=args.svc_C_value,
        gamma=1.0,
        epsilon=args.epsilon,
        sample_size=args.sample_size or None,
        sample_trials=args.sample_trials,
        sample_pool=args.sample_pool,
        init_size=args.init_size,
        verify_full=args.verify_full,
        cache_size=args.cache_size,
        n_jobs=args.n_jobs,
        tol=args.tol,
        max_iter=args.max_iter,
        time_limit=args.time_limit,
        seed=args.seed,
        gap_budget=args.gap_budget,
    )
    load_before = load_snapshot()
    build_at_start = kernelkit_build()
    print(f"load before: {load_before['uptime']}; kernelkit {build_at_start}", file=sys.stderr)
    t_start = time.perf_counter()
    datasets, rows, raw = [], [], []
    for name in args.datasets:
        with tempfile.TemporaryDirectory(prefix=f"kk_fw_{name}_") as tmp_name:
            meta, ds_rows, ds_raw = run_dataset(name, solvers, base, args, Path(tmp_name))
        datasets.append(meta)
        rows += ds_rows
        raw += ds_raw
    add_ratios(rows)
    load_after = load_snapshot()

    report = build_report(args, datasets, rows, raw, missing, base)
    print(report)
    out: Path = args.out
    payload = {
        "benchmark": "frank_wolfe",
        "datasets": datasets,
        "config": {
            **{k: v for k, v in asdict(base).items() if k not in ("solver", "C", "gamma", "seed")},
            "gamma_rule": args.gamma_rule,
            "gamma_override": args.gamma,
            "C_override": args.C,
            "default_C": DEFAULT_C,
            "svc_C": "same as L2-SVM C" if args.svc_C_same else args.svc_C_value,
            "select_C": args.select_C,
            "kdd_task": args.kdd_task,
            "kdd_encoding": args.kdd_encoding,
            "repeats": args.repeats,
            "seed": args.seed,
            "solvers": solvers,
            "missing_solvers": missing,
            "sklearnex_max_iter": SKLEARNEX_MAX_ITER,
            "fw_time_limit_s": args.fw_time_limit,
            "timeout_s": args.timeout,
            "peer_timeout_s": args.peer_timeout,
            "isolated": not args.no_isolate,
            "argv": sys.argv,
        },
        "paper": PAPER,
        "machine": {**machine_info(), "extra_packages": package_versions(EXTRA_PACKAGES)},
        "kernelkit_build_at_start": build_at_start,
        "kernelkit_build_at_end": kernelkit_build(),
        "repo_head": git_head(Path(__file__).resolve().parents[1]),
        "load_before": load_before,
        "load_after": load_after,
        "wall_s": time.perf_counter() - t_start,
        "results": rows,
        "runs": raw,
    }
    write_json(out, payload)
    md = out.with_suffix(".md")
    md.write_text(report)
    png = out.with_suffix(".png")
    title = (
        f"kernelkit CVM/FW/MFW vs sklearn/sklearnex SVC (RBF γ rule ({args.gamma_rule}), "
        f"ε={base.epsilon:g}, sample {base.sample_size}, cache {base.cache_size:g} MB)"
    )
    wrote_png = plot(rows, png, title)
    print(f"wrote {out}, {md}" + (f" and {png}" if wrote_png else ""), file=sys.stderr)
    return 2 if any("error" in r for r in rows if r["solver"] in METHODS) else 0


if __name__ == "__main__":
    sys.exit(main())
