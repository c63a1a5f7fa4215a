"""Benchmark kernelkit.SVC against scikit-learn and scikit-learn-intelex on a9a.

Protocol (../shared/BENCHMARKS.md): same data (a9a, densified, float64), same C, numeric gamma,
tol and cache budget for every solver, in one run; machine load recorded before and after. Each
fit runs in a fresh 'spawn' subprocess, whose peak RSS (high-water mark reset just before fit)
is the peak memory of that fit.
Beside every time the script reports the dual objective (recomputed independently from
``support_vectors_`` and ``dual_coef_``), #SV and test accuracy.

    python benches/bench_svc_a9a.py --quick
    python benches/bench_svc_a9a.py --sizes 4000,8000,16000,32561 --cache-size 200
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    current_rss_mb,
    fmt,
    load_snapshot,
    load_svmlight_dense,
    machine_info,
    markdown_table,
    parse_int_list,
    parse_str_list,
    peak_rss_mb,
    relative_difference,
    reset_peak_rss,
    run_isolated,
    svc_binary_dual_objective,
    write_json,
)

A9A_N_FEATURES = 123
A9A_N_TRAIN = 32_561
ALL_SOLVERS = ("kernelkit", "sklearn", "sklearnex")
SOLVER_MODULES = {"kernelkit": "kernelkit", "sklearn": "sklearn", "sklearnex": "sklearnex"}
# sklearnex/oneDAL silently turns max_iter=-1 into 10,000 iterations: pass a large explicit cap.
SKLEARNEX_MAX_ITER = 100_000_000


@dataclass(frozen=True)
class SVCConfig:
    C: float
    gamma: float
    tol: float
    cache_size: float
    n_jobs: int


def make_estimator(solver: str, cfg: SVCConfig) -> Any:
    """The estimator of ``solver`` with the shared settings (RBF kernel, numeric gamma)."""
    common: dict[str, Any] = {
        "C": cfg.C,
        "kernel": "rbf",
        "gamma": cfg.gamma,
        "tol": cfg.tol,
        "cache_size": cfg.cache_size,
    }
    if solver == "kernelkit":
        import kernelkit

        return kernelkit.SVC(**common, n_jobs=cfg.n_jobs)
    if solver == "sklearn":
        from sklearn.svm import SVC

        return SVC(**common)  # LIBSVM, single-threaded
    if solver == "sklearnex":
        from sklearnex.svm import SVC as SVCEx

        return SVCEx(**common, max_iter=SKLEARNEX_MAX_ITER, n_jobs=cfg.n_jobs)
    raise ValueError(f"unknown solver {solver!r}")


def fit_and_measure(solver: str, cfg: SVCConfig, data_dir: str, n: int) -> dict[str, Any]:
    """One fit + predict + independent objective. Runs inside a fresh subprocess."""
    X = np.ascontiguousarray(np.load(Path(data_dir, "X_train.npy"), mmap_mode="r")[:n])
    y = np.ascontiguousarray(np.load(Path(data_dir, "y_train.npy"), mmap_mode="r")[:n])
    X_test = np.load(Path(data_dir, "X_test.npy"))
    y_test = np.load(Path(data_dir, "y_test.npy"))
    est = make_estimator(solver, cfg)

    # Peak memory per phase: reset the high-water mark just before fit and before predict.
    peak_reset = reset_peak_rss()
    rss_start = current_rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, y)
    fit_s, fit_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    rss_fit = peak_rss_mb()

    reset_peak_rss()
    t0 = time.perf_counter()
    y_pred = est.predict(X_test)
    predict_s = time.perf_counter() - t0
    rss_predict = peak_rss_mb()

    # Measured after the peaks above were read, so it does not inflate them.
    t0 = time.perf_counter()
    objective = svc_binary_dual_objective(est.support_vectors_, est.dual_coef_, cfg.gamma)
    objective_s = time.perf_counter() - t0

    out: dict[str, Any] = {
        "fit_s": fit_s,
        "fit_cpu_s": fit_cpu_s,
        "predict_s": predict_s,
        "objective": objective,
        "objective_eval_s": objective_s,
        "n_sv": int(est.support_vectors_.shape[0]),
        "n_support": np.asarray(est.n_support_).tolist(),
        "intercept": float(np.ravel(est.intercept_)[0]),
        "n_iter": np.ravel(np.asarray(getattr(est, "n_iter_", np.nan))).tolist(),
        "test_accuracy": float(np.mean(y_pred == y_test)),
        "rss_at_fit_start_mb": rss_start,
        "peak_rss_fit_mb": rss_fit,
        "peak_rss_predict_mb": rss_predict,
        "peak_rss_reset": peak_reset,
        "y_pred": np.asarray(y_pred, dtype=np.int8),
    }
    if solver == "kernelkit":
        for attr in ("objective_", "kkt_gap_", "status_", "objective_increases_"):
            value = getattr(est, attr, None)
            out[f"reported_{attr.rstrip('_')}"] = (
                np.ravel(np.asarray(value)).tolist() if value is not None else None
            )
    if solver == "sklearnex":
        # sklearnex falls back to scikit-learn for unsupported settings: record what ran.
        out["backend"] = "onedal" if getattr(est, "_onedal_estimator", None) else "sklearn"
    return out


# --------------------------------------------------------------------------- orchestration
def prepare_data(data_dir: Path, tmp: Path) -> tuple[int, int]:
    """Densify a9a once and store it as .npy for the subprocesses. Returns (n_train, n_test)."""
    X, y = load_svmlight_dense(data_dir / "a9a" / "a9a.train.svm", A9A_N_FEATURES)
    X_test, y_test = load_svmlight_dense(data_dir / "a9a" / "a9a.test.svm", A9A_N_FEATURES)
    for name, arr in (("X_train", X), ("y_train", y), ("X_test", X_test), ("y_test", y_test)):
        np.save(tmp / f"{name}.npy", arr)
    return X.shape[0], X_test.shape[0]


def run_one(
    solver: str, cfg: SVCConfig, tmp: Path, n: int, isolate: bool, timeout: float
) -> dict[str, Any]:
    args = (solver, cfg, str(tmp), n)
    try:
        if isolate:
            result: dict[str, Any] = run_isolated(fit_and_measure, args, timeout=timeout)
        else:
            result = fit_and_measure(*args)
            for key in ("rss_at_fit_start_mb", "peak_rss_fit_mb", "peak_rss_predict_mb"):
                result[key] = None  # not meaningful without a fresh process
    except Exception as exc:
        print(f"  {solver} n={n}: FAILED: {exc}", file=sys.stderr)
        return {"error": (str(exc) or type(exc).__name__).splitlines()[0]}
    return result


def aggregate(n: int, solver: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median times over the successful repeats; the other fields from the first one."""
    ok = [r for r in runs if "error" not in r]
    row: dict[str, Any] = {"n": n, "solver": solver, "repeats": len(runs), "ok_repeats": len(ok)}
    if not ok:
        row["error"] = runs[0]["error"] if runs else "not run"
        return row
    first = ok[0]
    row.update({k: v for k, v in first.items() if k not in ("fit_s", "fit_cpu_s", "predict_s")})
    row["fit_s"] = statistics.median(r["fit_s"] for r in ok)
    row["fit_s_all"] = [r["fit_s"] for r in ok]
    row["fit_cpu_s"] = statistics.median(r["fit_cpu_s"] for r in ok)
    row["predict_s"] = statistics.median(r["predict_s"] for r in ok)
    row["objective_all"] = [r["objective"] for r in ok]
    if first.get("peak_rss_fit_mb") is not None:
        row["peak_rss_fit_mb"] = max(r["peak_rss_fit_mb"] for r in ok)
        row["peak_rss_predict_mb"] = max(r["peak_rss_predict_mb"] for r in ok)
    return row


def add_comparisons(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per size: time ratios (peer / kernelkit) and objective differences relative to sklearn."""
    summary = []
    for n in sorted({r["n"] for r in rows}):
        by = {r["solver"]: r for r in rows if r["n"] == n and "error" not in r}
        kk, sk = by.get("kernelkit"), by.get("sklearn")
        for row in by.values():
            row["time_ratio_vs_kernelkit"] = row["fit_s"] / kk["fit_s"] if kk else None
            row["objective_rel_diff_vs_sklearn"] = relative_difference(
                row["objective"], sk["objective"] if sk else None
            )
            row["prediction_agreement_vs_sklearn"] = (
                float(np.mean(row["y_pred"] == sk["y_pred"])) if sk else None
            )
        entry: dict[str, Any] = {"n": n}
        for peer in ("sklearn", "sklearnex"):
            entry[f"{peer}_over_kernelkit_time"] = (
                by[peer].get("time_ratio_vs_kernelkit") if (peer in by) else None
            )
        for solver in ("kernelkit", "sklearnex"):
            entry[f"{solver}_objective_rel_diff_vs_sklearn"] = (
                by[solver]["objective_rel_diff_vs_sklearn"] if solver in by else None
            )
        summary.append(entry)
    return summary


# --------------------------------------------------------------------------- reporting
def results_table(rows: list[dict[str, Any]]) -> str:
    header = [
        "n",
        "solver",
        "reps",
        "fit s (median)",
        "time / kernelkit",
        "predict s",
        "#SV",
        "test acc",
        "dual objective",
        "rel. obj. diff vs sklearn",
        "agree w/ sklearn",
        "fit peak RSS MB (+growth)",
        "iters",
    ]
    body = []
    for r in rows:
        if "error" in r:
            body.append(
                [f"{r['n']:,}", r["solver"], str(r["repeats"]), "FAILED: " + r["error"][:60]]
                + ["—"] * (len(header) - 4)
            )
            continue
        body.append(
            [
                f"{r['n']:,}",
                r["solver"],
                str(r["ok_repeats"]),
                fmt(r["fit_s"], ".3f"),
                fmt(r.get("time_ratio_vs_kernelkit"), ".2f"),
                fmt(r["predict_s"], ".3f"),
                f"{r['n_sv']:,}",
                fmt(r["test_accuracy"], ".5f"),
                fmt(r["objective"], ".4f"),
                fmt(r.get("objective_rel_diff_vs_sklearn"), "+.2e"),
                fmt(r.get("prediction_agreement_vs_sklearn"), ".5f"),
                rss_cell(r),
                iters_cell(r["n_iter"]),
            ]
        )
    return markdown_table(header, body, n_text_cols=2)


def iters_cell(n_iter: list[Any]) -> str:
    """Iterations (one entry per class pair); '—' when the solver does not report them."""
    try:
        return "/".join(f"{float(i):.0f}" for i in n_iter)
    except (TypeError, ValueError):
        return "—"


def rss_cell(r: dict[str, Any]) -> str:
    """Peak RSS of the process during fit, and its growth over the RSS at the start of fit."""
    peak, start = r.get("peak_rss_fit_mb"), r.get("rss_at_fit_start_mb")
    if peak is None:
        return "—"
    return f"{peak:.0f}" if start is None else f"{peak:.0f} (+{peak - start:.0f})"


def ratios_table(summary: list[dict[str, Any]]) -> str:
    header = [
        "n",
        "sklearn / kernelkit time",
        "sklearnex / kernelkit time",
        "kernelkit obj. rel. diff",
        "sklearnex obj. rel. diff",
    ]
    body = [
        [
            f"{s['n']:,}",
            fmt(s["sklearn_over_kernelkit_time"], ".2f"),
            fmt(s["sklearnex_over_kernelkit_time"], ".2f"),
            fmt(s["kernelkit_objective_rel_diff_vs_sklearn"], "+.2e"),
            fmt(s["sklearnex_objective_rel_diff_vs_sklearn"], "+.2e"),
        ]
        for s in summary
    ]
    return markdown_table(header, body)


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for solver in dict.fromkeys(r["solver"] for r in rows):
        pts = sorted((r["n"], r["fit_s"]) for r in rows if r["solver"] == solver and "fit_s" in r)
        if pts:
            ax.plot(*zip(*pts, strict=True), marker="o", label=solver)
    ax.set_xscale("log")
    ax.set_yscale("log")
    sizes = sorted({r["n"] for r in rows})
    ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
    ax.set_xticks([], minor=True)  # only the measured sizes on the x axis
    ax.set_xlabel("training rows n")
    ax.set_ylabel("fit time (s)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--sizes",
        type=parse_int_list,
        default=[4000, 8000, 16000, A9A_N_TRAIN],
        help="training subset sizes (first n rows), comma separated",
    )
    p.add_argument("--quick", action="store_true", help="sizes 2000,4000 only")
    p.add_argument(
        "--solvers",
        type=parse_str_list,
        default=list(ALL_SOLVERS),
        help="comma separated subset of " + ",".join(ALL_SOLVERS),
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timings per (size, solver); default 3 for n <= 8000, else 1",
    )
    p.add_argument("--cache-size", type=float, default=200.0, help="kernel cache in MB (all)")
    p.add_argument("--n-jobs", type=int, default=2, help="threads for kernelkit and sklearnex")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--gamma", type=float, default=0.5)
    p.add_argument("--tol", type=float, default=1e-3)
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per fit")
    p.add_argument(
        "--no-isolate",
        action="store_true",
        help="fit in this process (no subprocess; peak memory not reported)",
    )
    p.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="shared data folder")
    p.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results" / "svc_a9a.json"
    )
    args = p.parse_args(argv)
    if args.quick:
        args.sizes = [2000, 4000]
    unknown = set(args.solvers) - set(ALL_SOLVERS)
    if unknown:
        p.error(f"unknown solvers: {sorted(unknown)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = SVCConfig(
        C=args.C, gamma=args.gamma, tol=args.tol, cache_size=args.cache_size, n_jobs=args.n_jobs
    )
    solvers = [s for s in args.solvers if find_spec(SOLVER_MODULES[s]) is not None]
    for s in sorted(set(args.solvers) - set(solvers)):
        print(f"warning: {s} is not importable, skipped", file=sys.stderr)
    if not solvers:
        print("no solver available", file=sys.stderr)
        return 1

    load_before = load_snapshot()
    print(f"load before: {load_before['uptime']}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kk_a9a_") as tmp_name:
        tmp = Path(tmp_name)
        n_train, n_test = prepare_data(args.data, tmp)
        sizes = sorted({min(n, n_train) for n in args.sizes})
        for n in sizes:
            repeats = args.repeats or (3 if n <= 8000 else 1)
            runs: dict[str, list[dict[str, Any]]] = {s: [] for s in solvers}
            for rep in range(repeats):  # solvers interleaved: load drift hits all of them
                for solver in solvers:
                    res = run_one(solver, cfg, tmp, n, not args.no_isolate, args.timeout)
                    runs[solver].append(res)
                    took = f"{res['fit_s']:.3f} s" if "fit_s" in res else "failed"
                    print(
                        f"  n={n:>6} {solver:<10} repeat {rep + 1}/{repeats}: fit {took}",
                        file=sys.stderr,
                        flush=True,
                    )
            rows += [aggregate(n, s, runs[s]) for s in solvers]
    load_after = load_snapshot()
    summary = add_comparisons(rows)

    title = (
        f"a9a (dense float64, {A9A_N_FEATURES} features), RBF gamma={cfg.gamma:g}, "
        f"C={cfg.C:g}, tol={cfg.tol:g}, cache {cfg.cache_size:g} MB, "
        f"n_jobs={cfg.n_jobs} (kernelkit, sklearnex; sklearn is single-threaded)"
    )
    print(f"## SVC on {title}\n")
    print(
        f"Test set: a9a.t, {n_test:,} rows. Load before: `{load_before['uptime']}`; "
        f"after: `{load_after['uptime']}`."
    )
    print(
        "Fit time: median over `reps` fresh subprocesses. Dual objective: "
        "0.5 a'Qa - e'a recomputed from support_vectors_/dual_coef_ (LIBSVM sign: <= 0).\n"
    )
    print(results_table(rows) + "\n")
    print(ratios_table(summary))
    for r in rows:
        if r["solver"] == "kernelkit" and r.get("reported_objective"):
            rep = r["reported_objective"][0]
            print(
                f"\nkernelkit n={r['n']:,}: reported objective_ {rep:.6f}, independent "
                f"{r['objective']:.6f} (rel. diff {relative_difference(rep, r['objective']):+.2e})"
                f", kkt_gap_ {r.get('reported_kkt_gap')}, status_ {r.get('reported_status')}"
            )
        if r.get("backend") == "sklearn":
            print(f"\nwarning: sklearnex fell back to scikit-learn at n={r['n']:,}")

    for r in rows:
        r.pop("y_pred", None)
    out: Path = args.out
    payload = {
        "benchmark": "svc_a9a",
        "description": title,
        "data": {
            "train": str(args.data / "a9a" / "a9a.train.svm"),
            "n_train_available": n_train,
            "test": str(args.data / "a9a" / "a9a.test.svm"),
            "n_test": n_test,
            "layout": "dense float64 (densified from LIBSVM sparse)",
            "subset": "first n",
        },
        "config": {
            **asdict(cfg),
            "kernel": "rbf",
            "sizes": sizes,
            "solvers": solvers,
            "repeats": args.repeats or "3 if n <= 8000 else 1",
            "sklearnex_max_iter": SKLEARNEX_MAX_ITER,
            "isolated": not args.no_isolate,
            "argv": sys.argv,
        },
        "machine": machine_info(),
        "load_before": load_before,
        "load_after": load_after,
        "results": rows,
        "ratios": summary,
    }
    write_json(out, payload)
    png = out.with_suffix(".png")
    plot_title = (
        f"kernelkit vs peers: SVC fit on a9a (dense)\nRBF gamma={cfg.gamma:g}, C={cfg.C:g}, "
        f"tol={cfg.tol:g}, cache {cfg.cache_size:g} MB, n_jobs={cfg.n_jobs}"
    )
    wrote_png = plot(rows, png, plot_title)
    print(f"\nwrote {out}" + (f" and {png}" if wrote_png else ""), file=sys.stderr)
    return 0 if all("error" not in r for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
