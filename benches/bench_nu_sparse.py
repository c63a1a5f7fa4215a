"""Benchmark kernelkit's ν-SVC and sparse-input SVC against scikit-learn and scikit-learn-intelex.

Two tasks on a9a (123 features) and w8a (300 features), RBF kernel, same numeric gamma, tol and
cache budget for every solver, in one run (../shared/BENCHMARKS.md):

* ``nu``: ``NuSVC`` on dense float64 input (kernelkit, sklearn, sklearnex).
* ``sparse``: ``SVC(C=1)`` fitted on the scipy.sparse CSR matrix directly (kernelkit, sklearn,
  sklearnex; sklearnex's backend is recorded in case it falls back), plus kernelkit on the
  densified array for reference (``kernelkit-dense``: the same model is expected).

Every fit runs in a fresh 'spawn' subprocess; the peak-RSS high-water mark is reset just before
``fit``, so "growth" is what the fit itself allocated. For the CSR fits the size ``n*d*8`` of a
dense copy is printed beside it. Beside every time: the C-SVC-form dual objective
``0.5 dc'K dc - sum|dc|`` recomputed from ``support_vectors_``/``dual_coef_`` (sklearn's NuSVC
stores ``dual_coef_`` in C-SVC form scaled by 1/r, so the formula holds for ν-SVC too; CSR
support vectors stay sparse), #SV, test accuracy and agreement with sklearn's predictions. A fit
whose objective differs from sklearn's by more than 1e-3 (relative) is flagged, with the number of
all-zero training rows (w8a has many; oneDAL's CSR path has been seen to mishandle them).
kernelkit's own ``objective_`` is printed as a cross-check (for ν-SVC it is LIBSVM's ν objective
divided by r², i.e. ``0.5 dc'K dc``, so ``objective_ - sum|dc|`` is the C-form value).

ν must satisfy ν <= 2 min(n+, n-)/n. a9a has ~24% positives, so ν=0.5 is infeasible there (LIBSVM
raises "specified nu is infeasible"); each dataset's requested ν is therefore capped at
``0.9 * 2 min(n+, n-)/n`` of the training subset, and the ν used is reported.

w8a has no test split: the last 9,749 rows are held out. The w8a file is sorted by label (740
negatives, then all 1,479 positives, then 47,530 negatives), so by default its rows are first
permuted with a fixed seed (``--w8a-order shuffled``); ``--w8a-order file`` keeps the file order
(then the test rows are all negative and the first rows are not a representative sample).

    python benches/bench_nu_sparse.py --quick
    python benches/bench_nu_sparse.py --sizes 4000,16000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from _common import (
    DEFAULT_DATA_DIR,
    current_rss_mb,
    load_snapshot,
    machine_info,
    parse_int_list,
    parse_str_list,
    peak_rss_mb,
    relative_difference,
    reset_peak_rss,
    run_isolated,
    svc_binary_dual_objective,
    write_json,
)
from nu_sparse_report import (
    KK_DENSE,
    group_key,
    plot,
    ratios_table,
    results_table,
    sklearn_sv,
)
from numpy.typing import NDArray

ALL_DATASETS = ("a9a", "w8a")
ALL_TASKS = ("nu", "sparse")
ALL_SOLVERS = ("kernelkit", "sklearn", "sklearnex")
SOLVER_MODULES = {"kernelkit": "kernelkit", "sklearn": "sklearn", "sklearnex": "sklearnex"}
# Row labels: the solver, plus kernelkit on the densified array in the sparse task.
# sklearnex/oneDAL silently turns max_iter=-1 into 10,000 iterations: pass a large explicit cap.
SKLEARNEX_MAX_ITER = 100_000_000
NU_FEASIBILITY_MARGIN = 0.9
W8A_N_TEST = 9_749
W8A_SEED = 0
# |objective - sklearn's| / |sklearn's| above this is flagged as a different optimum.
OBJECTIVE_MISMATCH = 1e-3


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    n_features: int
    gamma: float
    nu: float  # requested; capped per training subset to stay feasible
    train_file: str
    test_file: str | None  # None: hold out the last ``n_test_holdout`` rows of ``train_file``
    n_test_holdout: int = 0


DATASETS = {
    "a9a": DatasetSpec("a9a", 123, 0.5, 0.5, "a9a/a9a.train.svm", "a9a/a9a.test.svm"),
    "w8a": DatasetSpec("w8a", 300, 0.1, 0.05, "w8a/w8a.svm", None, W8A_N_TEST),
}


@dataclass(frozen=True)
class FitConfig:
    task: str  # "nu" (NuSVC) or "sparse" (SVC)
    solver: str  # "kernelkit", "sklearn" or "sklearnex"
    layout: str  # "dense" or "csr": the representation handed to fit and predict
    gamma: float
    C: float
    nu: float
    tol: float
    cache_size: float
    n_jobs: int

    @property
    def label(self) -> str:
        return KK_DENSE if self.task == "sparse" and self.layout == "dense" else self.solver


def make_estimator(cfg: FitConfig) -> Any:
    """The estimator of ``cfg.solver`` for ``cfg.task`` with the shared settings."""
    common: dict[str, Any] = {
        "kernel": "rbf",
        "gamma": cfg.gamma,
        "tol": cfg.tol,
        "cache_size": cfg.cache_size,
    }
    common.update({"nu": cfg.nu} if cfg.task == "nu" else {"C": cfg.C})
    nu = cfg.task == "nu"
    if cfg.solver == "kernelkit":
        import kernelkit

        return (kernelkit.NuSVC if nu else kernelkit.SVC)(**common, n_jobs=cfg.n_jobs)
    if cfg.solver == "sklearn":
        from sklearn.svm import SVC, NuSVC

        return (NuSVC if nu else SVC)(**common)  # LIBSVM, single-threaded
    if cfg.solver == "sklearnex":
        from sklearnex.svm import SVC as SVCEx
        from sklearnex.svm import NuSVC as NuSVCEx

        return (NuSVCEx if nu else SVCEx)(**common, max_iter=SKLEARNEX_MAX_ITER, n_jobs=cfg.n_jobs)
    raise ValueError(f"unknown solver {cfg.solver!r}")


def load_split(data_dir: str, split: str, layout: str, n: int | None = None) -> Any:
    """``X_<split>`` as C-contiguous float64 (dense) or CSR with sorted indices; first n rows."""
    if layout == "csr":
        X = sp.load_npz(Path(data_dir, f"X_{split}.npz")).tocsr()
        X = X[:n] if n is not None else X
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        return X
    X = np.load(Path(data_dir, f"X_{split}.npy"), mmap_mode="r")
    return np.ascontiguousarray(X[:n] if n is not None else X, dtype=np.float64)


def _jsonable(value: Any) -> Any:
    """Fitted diagnostics (arrays, dicts, enums, objects) as JSON-friendly values."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray | np.generic):
        return np.ravel(np.asarray(value)).tolist()
    if hasattr(value, "__dict__"):
        return {k: _jsonable(v) for k, v in vars(value).items() if not k.startswith("_")}
    return repr(value)


def fit_and_measure(cfg: FitConfig, data_dir: str, n: int) -> dict[str, Any]:
    """One fit + predict + independent objective. Runs inside a fresh subprocess."""
    X = load_split(data_dir, "train", cfg.layout, n)
    y = np.ascontiguousarray(np.load(Path(data_dir, "y_train.npy"), mmap_mode="r")[:n])
    X_test = load_split(data_dir, "test", cfg.layout)
    y_test = np.load(Path(data_dir, "y_test.npy"))
    est = make_estimator(cfg)

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
    objective = svc_binary_dual_objective(
        est.support_vectors_, est.dual_coef_, cfg.gamma, keep_sparse=True
    )
    objective_s = time.perf_counter() - t0

    out: dict[str, Any] = {
        "fit_s": fit_s,
        "fit_cpu_s": fit_cpu_s,
        "predict_s": predict_s,
        "objective": objective,
        "objective_eval_s": objective_s,
        "n_sv": int(est.support_vectors_.shape[0]),
        "n_support": np.asarray(est.n_support_).tolist(),
        "support_vectors_sparse": bool(sp.issparse(est.support_vectors_)),
        "intercept": float(np.ravel(est.intercept_)[0]),
        "max_abs_dual_coef": float(np.abs(np.asarray(_dense(est.dual_coef_))).max()),
        "sum_abs_dual_coef": float(np.abs(np.asarray(_dense(est.dual_coef_))).sum()),
        "n_iter": np.ravel(np.asarray(getattr(est, "n_iter_", np.nan))).tolist(),
        "test_accuracy": float(np.mean(y_pred == y_test)),
        "rss_at_fit_start_mb": rss_start,
        "peak_rss_fit_mb": rss_fit,
        "peak_rss_predict_mb": rss_predict,
        "peak_rss_reset": peak_reset,
        "y_pred": np.asarray(y_pred, dtype=np.int8),
    }
    if cfg.solver == "kernelkit":
        for attr in ("objective_", "kkt_gap_", "status_", "solver_stats_"):
            out[f"reported_{attr.rstrip('_')}"] = _jsonable(getattr(est, attr, None))
    if cfg.solver == "sklearnex":
        # sklearnex falls back to scikit-learn for unsupported settings: record what ran.
        out["backend"] = "onedal" if getattr(est, "_onedal_estimator", None) else "sklearn"
    return out


def _dense(a: Any) -> Any:
    return a.toarray() if hasattr(a, "toarray") else a


# --------------------------------------------------------------------------- data
@dataclass(frozen=True)
class PreparedData:
    folder: Path
    n_train: int
    n_test: int
    y_train: NDArray[np.float64]
    row_nnz: NDArray[np.int64]  # stored entries per training row (0: an all-zero row)
    description: dict[str, Any]


def prepare_dataset(spec: DatasetSpec, data_dir: Path, tmp: Path, w8a_order: str) -> PreparedData:
    """Split one dataset and store CSR (.npz) and dense (.npy) copies for the subprocesses."""
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(data_dir / spec.train_file), n_features=spec.n_features)
    desc: dict[str, Any] = {"train": str(data_dir / spec.train_file), "subset": "first n"}
    if spec.test_file is not None:
        X_test, y_test = load_svmlight_file(
            str(data_dir / spec.test_file), n_features=spec.n_features
        )
        desc["test"] = str(data_dir / spec.test_file)
    else:
        if w8a_order == "shuffled":
            perm = np.random.default_rng(W8A_SEED).permutation(X.shape[0])
            X, y = X[perm], y[perm]
            desc["row_order"] = f"permuted with numpy default_rng({W8A_SEED}).permutation"
        else:
            desc["row_order"] = "file order (sorted by label)"
        cut = X.shape[0] - spec.n_test_holdout
        X, X_test, y, y_test = X[:cut], X[cut:], y[:cut], y[cut:]
        desc["test"] = f"last {spec.n_test_holdout:,} rows"
    folder = tmp / spec.name
    folder.mkdir()
    for split, Xs, ys in (("train", X, y), ("test", X_test, y_test)):
        Xs = sp.csr_matrix(Xs, dtype=np.float64)
        Xs.sort_indices()
        sp.save_npz(folder / f"X_{split}.npz", Xs, compressed=False)
        np.save(folder / f"X_{split}.npy", np.ascontiguousarray(Xs.toarray()))
        np.save(folder / f"y_{split}.npy", np.ascontiguousarray(ys, dtype=np.float64))
    desc.update(
        {
            "n_features": spec.n_features,
            "n_train_available": X.shape[0],
            "n_test": X_test.shape[0],
            "train_positive_fraction": float(np.mean(y > 0)),
            "test_positive_fraction": float(np.mean(y_test > 0)),
            "train_density": X.nnz / (X.shape[0] * spec.n_features),
        }
    )
    row_nnz = np.diff(sp.csr_matrix(X).indptr).astype(np.int64)
    return PreparedData(folder, X.shape[0], X_test.shape[0], np.asarray(y), row_nnz, desc)


def feasible_nu(y: NDArray[np.float64], requested: float) -> tuple[float, float]:
    """(ν used, ν_max = 2 min(n+, n-)/n): the request capped at 0.9 ν_max."""
    n_pos = int(np.sum(y > 0))
    nu_max = 2.0 * min(n_pos, y.size - n_pos) / y.size
    return min(requested, NU_FEASIBILITY_MARGIN * nu_max), nu_max


# --------------------------------------------------------------------------- orchestration
def run_one(cfg: FitConfig, folder: Path, n: int, isolate: bool, timeout: float) -> dict[str, Any]:
    args = (cfg, str(folder), n)
    try:
        if isolate:
            result: dict[str, Any] = run_isolated(fit_and_measure, args, timeout=timeout)
        else:
            result = fit_and_measure(*args)
            for key in ("rss_at_fit_start_mb", "peak_rss_fit_mb", "peak_rss_predict_mb"):
                result[key] = None  # not meaningful without a fresh process
    except Exception as exc:
        print(f"  {cfg.task} {cfg.label} n={n}: FAILED: {exc}", file=sys.stderr)
        return {"error": (str(exc) or type(exc).__name__).splitlines()[0]}
    return result


def configs_for(
    task: str, solvers: list[str], spec: DatasetSpec, nu: float, args: argparse.Namespace
) -> list[FitConfig]:
    """Fits of one (dataset, size, task): dense for ν-SVC; CSR (+ kernelkit dense) for SVC."""
    base: dict[str, Any] = {
        "task": task,
        "gamma": spec.gamma,
        "C": args.C,
        "nu": nu,
        "tol": args.tol,
        "cache_size": args.cache_size,
        "n_jobs": args.n_jobs,
    }
    if task == "nu":
        return [FitConfig(solver=s, layout="dense", **base) for s in solvers]
    cfgs = [FitConfig(solver=s, layout="csr", **base) for s in solvers]
    if "kernelkit" in solvers:
        cfgs.append(FitConfig(solver="kernelkit", layout="dense", **base))
    return cfgs


def aggregate(key: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median times over the successful repeats; the other fields from the first one."""
    ok = [r for r in runs if "error" not in r]
    row: dict[str, Any] = {**key, "repeats": len(runs), "ok_repeats": len(ok)}
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
        row["rss_growth_fit_mb"] = max(
            (
                r["peak_rss_fit_mb"] - r["rss_at_fit_start_mb"]
                for r in ok
                if r.get("rss_at_fit_start_mb") is not None
            ),
            default=None,
        )
    return row


def kernel_cache_mb(row: dict[str, Any]) -> float | None:
    """Kernel-cache bytes in use at the end of a kernelkit fit (``solver_stats_``), in MiB."""
    stats = row.get("reported_solver_stats")
    if isinstance(stats, list) and stats and isinstance(stats[0], dict):
        stats = stats[0]
    if not isinstance(stats, dict) or stats.get("cache_bytes_in_use") is None:
        return None
    return float(stats["cache_bytes_in_use"]) / 2**20


def add_comparisons(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (dataset, task, n): peer / kernelkit times and objective differences to sklearn."""
    summary = []
    for gk in sorted(dict.fromkeys(group_key(r) for r in rows), key=lambda k: (k[0], k[1], k[2])):
        group = [r for r in rows if group_key(r) == gk]
        by = {r["solver"]: r for r in group if "error" not in r}
        kk, sk = by.get("kernelkit"), by.get("sklearn")
        for row in by.values():
            row["time_ratio_vs_kernelkit"] = row["fit_s"] / kk["fit_s"] if kk else None
            row["objective_rel_diff_vs_sklearn"] = relative_difference(
                row["objective"], sk["objective"] if sk else None
            )
            row["prediction_agreement_vs_sklearn"] = (
                float(np.mean(row["y_pred"] == sk["y_pred"])) if sk else None
            )
        entry: dict[str, Any] = {"dataset": gk[0], "task": gk[1], "n": gk[2]}
        entry["nu"] = group[0]["nu"] if gk[1] == "nu" else None
        for peer in ("sklearn", "sklearnex", KK_DENSE):
            entry[f"{peer}_over_kernelkit_time"] = (
                by[peer]["time_ratio_vs_kernelkit"] if peer in by else None
            )
        for solver in ("kernelkit", "sklearnex", KK_DENSE):
            entry[f"{solver}_objective_rel_diff_vs_sklearn"] = (
                by[solver]["objective_rel_diff_vs_sklearn"] if solver in by else None
            )
        if "kernelkit" in by and gk[1] == "sparse":
            growth = by["kernelkit"].get("rss_growth_fit_mb")
            cache = kernel_cache_mb(by["kernelkit"])
            entry["kernelkit_csr_rss_growth_mb"] = growth
            entry["kernelkit_csr_cache_mb"] = cache
            entry["kernelkit_csr_rss_growth_excl_cache_mb"] = (
                growth - cache if growth is not None and cache is not None else None
            )
            entry["dense_copy_mb"] = by["kernelkit"]["dense_copy_mb"]
        summary.append(entry)
    return summary


# --------------------------------------------------------------------------- reporting
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--sizes",
        type=parse_int_list,
        default=[4000, 16000],
        help="training subset sizes (first n rows), comma separated",
    )
    p.add_argument("--quick", action="store_true", help="size 2000 only")
    for flag, choices in (("datasets", ALL_DATASETS), ("tasks", ALL_TASKS)):
        p.add_argument(
            f"--{flag}",
            type=parse_str_list,
            default=list(choices),
            help="comma separated subset of " + ",".join(choices),
        )
    p.add_argument(
        "--solvers",
        type=parse_str_list,
        default=list(ALL_SOLVERS),
        help="comma separated subset of "
        + ",".join(ALL_SOLVERS)
        + f" (kernelkit also adds {KK_DENSE} in the sparse task)",
    )
    p.add_argument("--repeats", type=int, default=1, help="timings per fit (median reported)")
    p.add_argument("--cache-size", type=float, default=200.0, help="kernel cache in MB (all)")
    p.add_argument("--n-jobs", type=int, default=2, help="threads for kernelkit and sklearnex")
    p.add_argument("--C", type=float, default=1.0, help="C of the sparse-input SVC")
    p.add_argument("--tol", type=float, default=1e-3)
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per fit")
    p.add_argument(
        "--w8a-order",
        choices=("shuffled", "file"),
        default="shuffled",
        help="w8a rows permuted with a fixed seed before the split (default) or in file order",
    )
    p.add_argument(
        "--no-isolate",
        action="store_true",
        help="fit in this process (no subprocess; peak memory not reported)",
    )
    p.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="shared data folder")
    p.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results" / "nu_sparse.json"
    )
    args = p.parse_args(argv)
    if args.quick:
        args.sizes = [2000]
    for name, allowed in (
        ("datasets", ALL_DATASETS),
        ("tasks", ALL_TASKS),
        ("solvers", ALL_SOLVERS),
    ):
        unknown = set(getattr(args, name)) - set(allowed)
        if unknown:
            p.error(f"unknown {name}: {sorted(unknown)}")
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    return args


def available_solvers(requested: list[str], tasks: list[str]) -> list[str]:
    """The requested solvers that import; kernelkit also needs NuSVC for the ν task."""
    solvers = [s for s in requested if find_spec(SOLVER_MODULES[s]) is not None]
    for s in sorted(set(requested) - set(solvers)):
        print(f"warning: {s} is not importable, skipped", file=sys.stderr)
    if "kernelkit" in solvers and "nu" in tasks:
        import kernelkit

        if not hasattr(kernelkit, "NuSVC"):
            print(
                "warning: this kernelkit build has no NuSVC: its ν fits will fail", file=sys.stderr
            )
    return solvers


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    solvers = available_solvers(args.solvers, args.tasks)
    if not solvers:
        print("no solver available", file=sys.stderr)
        return 1

    load_before = load_snapshot()
    print(f"load before: {load_before['uptime']}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    data_info: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="kk_nu_sparse_") as tmp_name:
        tmp = Path(tmp_name)
        for ds in args.datasets:
            spec = DATASETS[ds]
            data = prepare_dataset(spec, args.data, tmp, args.w8a_order)
            data_info[ds] = {**data.description, "gamma": spec.gamma, "nu_requested": spec.nu}
            sizes = sorted({min(n, data.n_train) for n in args.sizes})
            for n in sizes:
                nu, nu_max = feasible_nu(data.y_train[:n], spec.nu)
                data_info[ds].setdefault("by_size", {})[str(n)] = {
                    "nu": nu,
                    "nu_max": nu_max,
                    "n_positive": int(np.sum(data.y_train[:n] > 0)),
                    "empty_rows": int(np.sum(data.row_nnz[:n] == 0)),
                }
                for task in args.tasks:
                    cfgs = configs_for(task, solvers, spec, nu, args)
                    runs: dict[str, list[dict[str, Any]]] = {c.label: [] for c in cfgs}
                    for rep in range(args.repeats):  # interleaved: load drift hits all solvers
                        for cfg in cfgs:
                            res = run_one(cfg, data.folder, n, not args.no_isolate, args.timeout)
                            runs[cfg.label].append(res)
                            took = f"{res['fit_s']:.3f} s" if "fit_s" in res else "failed"
                            print(
                                f"  {ds} n={n:>6} {task:<6} {cfg.label:<16} "
                                f"repeat {rep + 1}/{args.repeats}: fit {took}",
                                file=sys.stderr,
                                flush=True,
                            )
                    for cfg in cfgs:
                        key = {
                            "dataset": ds,
                            "task": task,
                            "n": n,
                            "solver": cfg.label,
                            "layout": cfg.layout,
                            "gamma": cfg.gamma,
                            "C": cfg.C if task == "sparse" else None,
                            "nu": cfg.nu if task == "nu" else None,
                            "nu_max": nu_max if task == "nu" else None,
                            "dense_copy_mb": n * spec.n_features * 8 / 2**20,
                        }
                        rows.append(aggregate(key, runs[cfg.label]))
    load_after = load_snapshot()
    summary = add_comparisons(rows)

    title = (
        f"RBF, tol={args.tol:g}, cache {args.cache_size:g} MB, n_jobs={args.n_jobs} "
        "(kernelkit, sklearnex; sklearn is single-threaded)"
    )
    print(f"## ν-SVC (dense) and sparse-input SVC (CSR): {title}\n")
    print(f"Load before: `{load_before['uptime']}`; after: `{load_after['uptime']}`.\n")
    for ds, info in data_info.items():
        per_size = ", ".join(
            f"n={int(k):,}: ν={v['nu']:.4f} (max {v['nu_max']:.4f}), "
            f"{v['n_positive']:,} positive, {v['empty_rows']:,} all-zero rows"
            for k, v in info["by_size"].items()
        )
        order = f"rows {info['row_order']}; " if "row_order" in info else ""
        print(
            f"- **{ds}**: gamma={info['gamma']:g}; {order}test: {info['test']} "
            f"({info['n_test']:,} rows, {info['test_positive_fraction']:.1%} positive); "
            f"requested ν={info['nu_requested']:g}; {per_size}"
        )
    print(
        "\nFit time: median over `reps` fresh subprocesses. Dual objective: "
        "0.5 dc'K dc - sum|dc| from support_vectors_/dual_coef_ (LIBSVM sign: <= 0; for ν-SVC "
        "the C-SVC form with C = 1/r). RSS growth: peak RSS during fit minus RSS at fit start "
        "(includes the kernel cache, up to cache_size; kernelkit reports the cache bytes in use "
        "in solver_stats_, subtracted in the Ratios table).\n"
    )
    task_titles = {
        "nu": "### ν-SVC (NuSVC), dense float64 input, C-form objective",
        "sparse": f"### SVC(C={args.C:g}) on scipy.sparse CSR input ({KK_DENSE}: densified)",
    }
    for task in args.tasks:
        task_rows = [r for r in rows if r["task"] == task]
        if task_rows:
            print(task_titles[task] + "\n")
            print(results_table(task_rows) + "\n")
    print("### Ratios\n")
    print(ratios_table(summary))
    for r in rows:
        if r["solver"] == "kernelkit" and r.get("reported_objective"):
            rep = r["reported_objective"]
            rep0 = float(rep[0] if isinstance(rep, list) else rep)
            # ν-SVC: objective_ is LIBSVM's ν obj / r² = ½dc'K dc (no linear term).
            rep_c = rep0 - r["sum_abs_dual_coef"] if r["task"] == "nu" else rep0
            form = "ν form ½dc'K dc; minus Σ|dc|: " if r["task"] == "nu" else ""
            print(
                f"\nkernelkit {r['dataset']} {r['task']} n={r['n']:,}: reported objective_ "
                f"{rep0:.6f} ({form}C form {rep_c:.6f}), independent {r['objective']:.6f} "
                f"(rel. diff {relative_difference(rep_c, r['objective']):+.2e}), kkt_gap_ "
                f"{r.get('reported_kkt_gap')}, status_ {r.get('reported_status')}"
            )
        rel = r.get("objective_rel_diff_vs_sklearn")
        if rel is not None and abs(rel) > OBJECTIVE_MISMATCH:
            empty = data_info[r["dataset"]]["by_size"][str(r["n"])]["empty_rows"]
            print(
                f"\nwarning: {r['solver']} {r['dataset']} {r['task']} ({r['layout']}) "
                f"n={r['n']:,}: objective {rel:+.2e} relative to sklearn, {r['n_sv']:,} SVs vs "
                f"{sklearn_sv(rows, r)}: not the same optimum"
                + (f" (training rows include {empty:,} all-zero rows)" if empty else "")
            )
        if r.get("backend") == "sklearn":
            print(
                f"\nwarning: sklearnex fell back to scikit-learn for {r['dataset']} {r['task']} "
                f"({r['layout']}) at n={r['n']:,}"
            )
        if r["layout"] == "csr" and "error" not in r and not r.get("support_vectors_sparse"):
            print(f"\nnote: {r['solver']} returned dense support_vectors_ for CSR input")

    for r in rows:
        r.pop("y_pred", None)
    out: Path = args.out
    payload = {
        "benchmark": "nu_sparse",
        "description": "ν-SVC (dense) and sparse-input SVC (CSR) vs sklearn/sklearnex; " + title,
        "data": data_info,
        "config": {
            "tasks": args.tasks,
            "datasets": args.datasets,
            "sizes": args.sizes,
            "solvers": solvers,
            "kernel": "rbf",
            "C": args.C,
            "tol": args.tol,
            "cache_size": args.cache_size,
            "n_jobs": args.n_jobs,
            "repeats": args.repeats,
            "nu_rule": f"min(requested, {NU_FEASIBILITY_MARGIN} * 2 min(n+, n-)/n)",
            "w8a_order": args.w8a_order,
            "w8a_seed": W8A_SEED,
            "sklearnex_max_iter": SKLEARNEX_MAX_ITER,
            "isolated": not args.no_isolate,
            "argv": sys.argv,
            "fit_config_fields": list(FitConfig.__dataclass_fields__),
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
        f"kernelkit vs peers: ν-SVC (dense) and SVC on CSR, a9a/w8a\nRBF, tol={args.tol:g}, "
        f"cache {args.cache_size:g} MB, n_jobs={args.n_jobs}"
    )
    wrote_png = plot(summary, png, plot_title)
    print(f"\nwrote {out}" + (f" and {png}" if wrote_png else ""), file=sys.stderr)
    return 0 if all("error" not in r for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
