"""Scaling benchmark of kernelkit.PUClassifier (USMO) against the dense dual QP and pulearn.

Setting of the paper's large-scale experiments (digest §5.11): p = 100 labeled positives, an
increasing number n of unlabeled points, λ = 0.01; linear and RBF kernels. Peers, in one run:

- ``kernelkit``: kernelkit.PUClassifier (n_jobs, tol, cache_size as given);
- ``cvxpy``: the same dual, δ eliminated (digest §1.4), solved by cvxpy + Clarabel on the dense
  n x n K_UU (``cp.psd_wrap``), as the paper's QP baseline [7]. It is skipped once a size exceeds
  ``--qp-timeout`` (larger sizes are then not tried) or when ``3 * 8 * n^2`` bytes exceed 40% of
  the RAM; its process is also capped at 70% of the RAM (RLIMIT_AS), so that an out-of-memory
  failure is recorded instead of triggering the OOM killer;
- ``pulearn``: ElkanotoPuClassifier around a calibrated SVC (same kernel and gamma; the
  deprecated ``SVC(probability=True)`` is replaced by ``CalibratedClassifierCV(SVC, cv=5,
  ensemble=False)``, i.e. the same Platt scaling over 5 folds plus one full fit). The SVC uses
  ``class_weight="balanced"`` by default: unweighted, with 100 labeled points against thousands
  of unlabeled ones, its calibrated scores are nearly flat and Elkan-Noto then predicts almost
  everything positive. Different model (no dual objective): compared on time, memory and F1.
  Skipped for larger sizes once a fit exceeds ``--pulearn-timeout``.

Data: a seeded synthetic PU Gaussian mixture (d = 10, π = 0.5; each class is a mixture of two
unit Gaussians) with a held-out labeled test set, and optionally a9a (100 labeled positives of
class +1, the unlabeled points drawn from the rest, π = the class proportion; test on a9a.t).
The sizes of one dataset are nested (the first n of one shuffled pool). gamma is numeric and
the same for every solver: by default scikit-learn's "scale" rule 1/(d Var X) on the pool.

Each fit runs in a fresh 'spawn' subprocess; its peak RSS (high-water mark reset just before
fit) is the peak memory of the fit. Beside every time: the dual objective Φ(σ) recomputed
independently from σ (kernelkit and cvxpy), and the F1 of the positive class on the test set.

    python benches/bench_pu.py --quick
    python benches/bench_pu.py --rbf-sizes 1000,2000,5000,10000 --linear-sizes 1000,5000,20000,50000
    python benches/bench_pu.py --dataset synthetic,a9a
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    current_rss_mb,
    load_snapshot,
    load_svmlight_dense,
    machine_info,
    mem_total_bytes,
    package_versions,
    parse_int_list,
    parse_str_list,
    peak_rss_mb,
    relative_difference,
    reset_peak_rss,
    run_isolated,
    write_json,
)
from numpy.typing import NDArray
from pu_problem import (
    SYNTH_D,
    kernel_block,
    kernel_expansion,
    make_synthetic,
    pu_constants,
    pu_dual_objective,
    scale_gamma,
)
from pu_report import plot, ratios_table, results_table

ALL_SOLVERS = ("kernelkit", "cvxpy", "pulearn")
SOLVER_MODULES = {
    "kernelkit": ("kernelkit",),
    "cvxpy": ("cvxpy", "clarabel"),
    "pulearn": ("pulearn",),
}
ALL_DATASETS = ("synthetic", "a9a")
ALL_KERNELS = ("rbf", "linear")
DEFAULT_SIZES = {
    "rbf": [1000, 2000, 5000, 10000, 20000, 50000],
    "linear": [1000, 5000, 20000, 50000, 100000, 200000],
}
QUICK_SIZES = {"rbf": [1000, 2000], "linear": [1000, 2000]}
A9A_N_FEATURES = 123
SYNTH_PRIOR = 0.5
QP_MEMORY_FRACTION = 0.4  # skip cvxpy when 3 dense n x n float64 matrices exceed this of RAM
QP_MATRIX_COPIES = 3
# The guard above undercounts cvxpy's canonicalisation (≈ 10 GiB at n = 10,000): the cvxpy child
# also gets an address-space limit, so that it fails with MemoryError (or aborts) instead of
# calling the OOM killer onto a shared machine.
QP_ADDRESS_SPACE_FRACTION = 0.7
EXTRA_PACKAGES = ("cvxpy", "clarabel", "pulearn")


@dataclass(frozen=True)
class PUConfig:
    n_labeled: int
    lam: float
    tol: float
    cache_size: float
    n_jobs: int
    svc_C: float
    svc_class_weight: str | None
    calib_cv: int
    qp_tol: float
    seed: int


@dataclass(frozen=True)
class Task:
    """One fit: which solver on which prepared dataset, kernel and size."""

    solver: str
    kernel: str
    n: int
    prior: float
    gamma: float
    data_dir: str


def save_arrays(tmp: Path, **arrays: NDArray[Any]) -> None:
    for name, arr in arrays.items():
        np.save(tmp / f"{name}.npy", np.ascontiguousarray(arr))


def prepare_synthetic(tmp: Path, n_max: int, n_test: int, cfg: PUConfig) -> dict[str, Any]:
    """Labeled positives, a pool of ``n_max`` unlabeled points (π = 0.5) and a labeled test set."""
    # Independent streams: the pool prefix and the test set do not depend on n_max.
    X_pos = make_synthetic(cfg.n_labeled, 1.0, np.random.default_rng([cfg.seed, 0]))[0]
    X_unl, y_unl = make_synthetic(n_max, SYNTH_PRIOR, np.random.default_rng([cfg.seed, 1]))
    X_test, y_test = make_synthetic(n_test, SYNTH_PRIOR, np.random.default_rng([cfg.seed, 2]))
    save_arrays(tmp, X_pos=X_pos, X_unl=X_unl, X_test=X_test, y_test=y_test)
    return {
        "name": "synthetic",
        "description": (
            f"PU Gaussian mixture, d={SYNTH_D}, π={SYNTH_PRIOR} among unlabeled and test "
            f"points, seed {cfg.seed}"
        ),
        "prior": SYNTH_PRIOR,
        "gamma_scale": scale_gamma(X_unl[: min(n_max, 20000)]),
        "n_unlabeled_available": n_max,
        "n_test": n_test,
        "unlabeled_positive_fraction": float(y_unl.mean()),
        "test_positive_fraction": float(y_test.mean()),
        "layout": "dense float64",
    }


def prepare_a9a(tmp: Path, data_dir: Path, cfg: PUConfig) -> dict[str, Any]:
    """a9a: ``n_labeled`` random positives (+1) labeled, the rest shuffled into the pool."""
    X, y = load_svmlight_dense(data_dir / "a9a" / "a9a.train.svm", A9A_N_FEATURES)
    X_test, y_test = load_svmlight_dense(data_dir / "a9a" / "a9a.test.svm", A9A_N_FEATURES)
    rng = np.random.default_rng(cfg.seed)
    pos = np.flatnonzero(y == 1)
    labeled = rng.choice(pos, size=cfg.n_labeled, replace=False)
    rest = np.setdiff1d(np.arange(X.shape[0]), labeled)
    rng.shuffle(rest)
    save_arrays(
        tmp,
        X_pos=X[labeled],
        X_unl=X[rest],
        X_test=X_test,
        y_test=(y_test == 1).astype(np.int8),
    )
    return {
        "name": "a9a",
        "description": (
            f"a9a ({A9A_N_FEATURES} features, densified), positives = class +1, "
            f"{cfg.n_labeled} labeled, π = class proportion of a9a.train"
        ),
        "prior": float(np.mean(y == 1)),
        "gamma_scale": scale_gamma(X),
        "n_unlabeled_available": int(rest.size),
        "n_test": int(X_test.shape[0]),
        "unlabeled_positive_fraction": float(np.mean(y[rest] == 1)),
        "test_positive_fraction": float(np.mean(y_test == 1)),
        "train": str(data_dir / "a9a" / "a9a.train.svm"),
        "test": str(data_dir / "a9a" / "a9a.test.svm"),
        "layout": "dense float64 (densified from LIBSVM sparse)",
    }


# --------------------------------------------------------------------------- fits (children)
def classification_scores(y_true: NDArray[Any], y_pred: NDArray[Any]) -> dict[str, Any]:
    from sklearn.metrics import f1_score, precision_score, recall_score

    y_pred = (np.asarray(y_pred) == 1).astype(np.int8)
    return {
        "test_f1": float(f1_score(y_true, y_pred, pos_label=1, zero_division=0.0)),
        "test_precision": float(precision_score(y_true, y_pred, pos_label=1, zero_division=0.0)),
        "test_recall": float(recall_score(y_true, y_pred, pos_label=1, zero_division=0.0)),
        "test_accuracy": float(np.mean(y_pred == y_true)),
        "test_predicted_positive": float(y_pred.mean()),
        "y_pred": y_pred,
    }


def solve_dense_qp(
    X_pos: NDArray[np.float64],
    X_unl: NDArray[np.float64],
    task: Task,
    cfg: PUConfig,
) -> tuple[NDArray[np.float64], float, dict[str, Any]]:
    """δ-eliminated dual (digest §1.4) on the dense K_UU with cvxpy + Clarabel.

    Returns σ, the bias β (= −ν, ν the multiplier of Σσ = c1 p) and solver statistics.
    """
    import cvxpy as cp

    n = X_unl.shape[0]
    c1, c2 = pu_constants(task.prior, cfg.lam, X_pos.shape[0], n)
    t0 = time.perf_counter()
    K = kernel_block(X_unl, X_unl, task.kernel, task.gamma)
    pvec = kernel_expansion(X_unl, X_pos, np.full(X_pos.shape[0], c1), task.kernel, task.gamma)
    kernel_s = time.perf_counter() - t0
    sigma = cp.Variable(n)
    equality = cp.sum(sigma) == c1 * X_pos.shape[0]
    objective = (
        0.5 * cp.quad_form(sigma, cp.psd_wrap(K))
        - pvec @ sigma
        + cp.sum(cp.maximum(-sigma, sigma - c2))
    )
    problem = cp.Problem(cp.Minimize(objective), [sigma >= 0, sigma <= c2, equality])
    problem.solve(
        solver=cp.CLARABEL,
        tol_gap_abs=cfg.qp_tol,
        tol_gap_rel=cfg.qp_tol,
        tol_feas=cfg.qp_tol,
    )
    if sigma.value is None or equality.dual_value is None:
        raise RuntimeError(f"cvxpy/Clarabel status {problem.status}")
    stats = problem.solver_stats
    info = {
        "status": problem.status,
        "n_iter": stats.num_iters,
        "kernel_s": kernel_s,
        "solver_s": stats.solve_time,
        "setup_s": stats.setup_time,
        "reported_objective": float(problem.value),
    }
    bias = -float(np.ravel(equality.dual_value)[0])
    return np.clip(np.asarray(sigma.value, dtype=np.float64), 0.0, c2), bias, info


def make_pulearn(task: Task, cfg: PUConfig) -> Any:
    from pulearn import ElkanotoPuClassifier
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    svc = SVC(
        C=cfg.svc_C,
        kernel=task.kernel,
        gamma=task.gamma,
        tol=cfg.tol,
        cache_size=cfg.cache_size,
        class_weight=cfg.svc_class_weight,
    )
    calibrated = CalibratedClassifierCV(svc, method="sigmoid", cv=cfg.calib_cv, ensemble=False)
    return ElkanotoPuClassifier(calibrated, hold_out_ratio=0.1, random_state=cfg.seed)


def limit_address_space(fraction: float) -> None:
    """Cap this process's virtual memory at ``fraction`` of the RAM (no-op where unsupported)."""
    import resource

    ram = mem_total_bytes()
    if ram is None or not hasattr(resource, "RLIMIT_AS"):
        return
    limit = int(fraction * ram)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def fit_and_measure(task: Task, cfg: PUConfig) -> dict[str, Any]:
    """One fit + test predictions + independent objective. Runs inside a fresh subprocess."""
    data = Path(task.data_dir)
    X_pos = np.load(data / "X_pos.npy")
    X_unl = np.ascontiguousarray(np.load(data / "X_unl.npy", mmap_mode="r")[: task.n])
    X_test = np.load(data / "X_test.npy")
    y_test = np.load(data / "y_test.npy")
    X = np.ascontiguousarray(np.vstack([X_pos, X_unl]))
    y = np.r_[np.ones(X_pos.shape[0]), np.zeros(task.n)]
    c1, c2 = pu_constants(task.prior, cfg.lam, X_pos.shape[0], task.n)
    out: dict[str, Any] = {}

    # Imports and estimator construction happen before the clock starts.
    if task.solver == "kernelkit":
        import kernelkit

        est = kernelkit.PUClassifier(
            prior=task.prior,
            lam=cfg.lam,
            kernel=task.kernel,
            gamma=task.gamma,
            tol=cfg.tol,
            cache_size=cfg.cache_size,
            n_jobs=cfg.n_jobs,
        )
    elif task.solver == "cvxpy":
        import cvxpy  # noqa: F401  (import time is not fit time)
        import sklearn.metrics.pairwise  # noqa: F401

        limit_address_space(QP_ADDRESS_SPACE_FRACTION)
    elif task.solver == "pulearn":
        est = make_pulearn(task, cfg)
    else:
        raise ValueError(f"unknown solver {task.solver!r}")

    peak_reset = reset_peak_rss()
    rss_start = current_rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    if task.solver == "cvxpy":
        sigma_qp, bias_qp, qp_info = solve_dense_qp(X_pos, X_unl, task, cfg)
    else:
        est.fit(X, y)
    fit_s, fit_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    rss_fit = peak_rss_mb()

    # Everything below is measured after the fit's peak memory was read.
    t0 = time.perf_counter()
    if task.solver == "kernelkit":
        sigma = np.asarray(est.sigma_, dtype=np.float64)
        y_pred = est.predict(X_test)
        out.update(
            {
                "reported_objective": float(est.objective_),
                "intercept": float(np.ravel(est.intercept_)[0]),
                "n_iter": int(np.ravel(np.asarray(est.n_iter_))[0]),
                "status": str(est.status_),
                "kkt_gap": float(np.ravel(np.asarray(getattr(est, "kkt_gap_", np.nan)))[0]),
                "solver_stats": dict(getattr(est, "solver_stats_", {}) or {}),
            }
        )
    elif task.solver == "cvxpy":
        sigma = sigma_qp
        coef = np.r_[np.full(X_pos.shape[0], c1), -sigma]
        f_test = kernel_expansion(X_test, X, coef, task.kernel, task.gamma) + bias_qp
        y_pred = (f_test > 0).astype(np.int8)
        out.update(qp_info)
        out["intercept"] = bias_qp
    else:
        sigma = None
        y_pred = est.predict(X_test)
        out["elkanoto_c"] = float(est.c)
    predict_s = time.perf_counter() - t0
    out.update(classification_scores(y_test, y_pred))

    if sigma is not None:
        t0 = time.perf_counter()
        out["objective"] = pu_dual_objective(X_unl, X_pos, sigma, task.kernel, task.gamma, c1, c2)
        out["objective_eval_s"] = time.perf_counter() - t0
        out["n_sigma_positive"] = int(np.count_nonzero(sigma > 0))
        out["n_sigma_at_c2"] = int(np.count_nonzero(sigma >= c2 * (1 - 1e-9)))
        out["equality_residual"] = float(abs(sigma.sum() - c1 * X_pos.shape[0]))
        out["box_violation"] = float(max(0.0, -sigma.min(), sigma.max() - c2))
        out["sigma"] = sigma
    out.update(
        {
            "fit_s": fit_s,
            "fit_cpu_s": fit_cpu_s,
            "predict_s": predict_s,
            "c1": c1,
            "c2": c2,
            "rss_at_fit_start_mb": rss_start,
            "peak_rss_fit_mb": rss_fit,
            "peak_rss_reset": peak_reset,
        }
    )
    return out


# --------------------------------------------------------------------------- orchestration
def qp_memory_guard(n: int, ram_bytes: int | None) -> str | None:
    """Reason to skip the dense QP at size n (None when it may run)."""
    need = QP_MATRIX_COPIES * 8 * n * n
    if ram_bytes is not None and need > QP_MEMORY_FRACTION * ram_bytes:
        return (
            f"skipped: {QP_MATRIX_COPIES} x n^2 x 8 B = {need / 2**30:.1f} GiB > "
            f"{QP_MEMORY_FRACTION:.0%} of RAM ({ram_bytes / 2**30:.1f} GiB)"
        )
    return None


def run_one(task: Task, cfg: PUConfig, isolate: bool, timeout: float) -> dict[str, Any]:
    try:
        if isolate:
            result: dict[str, Any] = run_isolated(fit_and_measure, (task, cfg), timeout=timeout)
        else:
            result = fit_and_measure(task, cfg)
            for key in ("rss_at_fit_start_mb", "peak_rss_fit_mb"):
                result[key] = None  # not meaningful without a fresh process
    except Exception as exc:
        msg = (str(exc) or type(exc).__name__).splitlines()[0]
        print(f"  {task.solver} {task.kernel} n={task.n}: FAILED: {msg}", file=sys.stderr)
        return {"error": msg, "timed_out": msg.startswith("timed out")}
    return result


def aggregate(key: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median times over the successful repeats; the other fields from the first one."""
    ok = [r for r in runs if "error" not in r]
    row: dict[str, Any] = {**key, "repeats": len(runs), "ok_repeats": len(ok)}
    if not ok:
        row["error"] = runs[0]["error"] if runs else "not run"
        return row
    row.update({k: v for k, v in ok[0].items() if k not in ("fit_s", "fit_cpu_s", "predict_s")})
    for name in ("fit_s", "fit_cpu_s", "predict_s"):
        row[name] = statistics.median(r[name] for r in ok)
    row["fit_s_all"] = [r["fit_s"] for r in ok]
    if ok[0].get("peak_rss_fit_mb") is not None:
        row["peak_rss_fit_mb"] = max(r["peak_rss_fit_mb"] for r in ok)
    return row


def group_key(r: dict[str, Any]) -> tuple[str, str, int]:
    return r["dataset"], r["kernel"], r["n"]


def add_comparisons(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (dataset, kernel, n): time ratios (peer / kernelkit), objective and σ differences."""
    summary = []
    for key in dict.fromkeys(group_key(r) for r in rows):
        by = {r["solver"]: r for r in rows if group_key(r) == key and "fit_s" in r}
        kk, qp, pl = by.get("kernelkit"), by.get("cvxpy"), by.get("pulearn")
        for row in by.values():
            row["time_ratio_vs_kernelkit"] = row["fit_s"] / kk["fit_s"] if kk else None
        entry: dict[str, Any] = dict(zip(("dataset", "kernel", "n"), key, strict=True))
        entry["kernelkit_fit_s"] = kk["fit_s"] if kk else None
        entry["cvxpy_over_kernelkit_time"] = qp["time_ratio_vs_kernelkit"] if qp and kk else None
        entry["pulearn_over_kernelkit_time"] = pl["time_ratio_vs_kernelkit"] if pl and kk else None
        entry["kernelkit_objective_rel_diff_vs_cvxpy"] = None
        entry["sigma_max_abs_diff_over_c2"] = None
        entry["test_prediction_agreement_kernelkit_cvxpy"] = None
        if kk and qp:
            rel = relative_difference(kk["objective"], qp["objective"])
            kk["objective_rel_diff_vs_cvxpy"] = rel
            entry["kernelkit_objective_rel_diff_vs_cvxpy"] = rel
            entry["sigma_max_abs_diff_over_c2"] = float(
                np.max(np.abs(kk["sigma"] - qp["sigma"])) / kk["c2"]
            )
            entry["test_prediction_agreement_kernelkit_cvxpy"] = float(
                np.mean(kk["y_pred"] == qp["y_pred"])
            )
        for solver in ALL_SOLVERS:
            entry[f"{solver}_test_f1"] = by[solver]["test_f1"] if solver in by else None
        summary.append(entry)
    return summary


# --------------------------------------------------------------------------- reporting
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rbf-sizes", type=parse_int_list, default=DEFAULT_SIZES["rbf"])
    p.add_argument("--linear-sizes", type=parse_int_list, default=DEFAULT_SIZES["linear"])
    p.add_argument(
        "--quick", action="store_true", help="small sizes only (1000,2000 for both kernels)"
    )
    p.add_argument("--kernels", type=parse_str_list, default=list(ALL_KERNELS), help="rbf,linear")
    p.add_argument(
        "--dataset", type=parse_str_list, default=["synthetic"], help="synthetic and/or a9a"
    )
    p.add_argument(
        "--solvers",
        type=parse_str_list,
        default=list(ALL_SOLVERS),
        help="comma separated subset of " + ",".join(ALL_SOLVERS),
    )
    p.add_argument("--repeats", type=int, default=1, help="timings per (size, solver); median")
    p.add_argument("--n-labeled", type=int, default=100, help="labeled positives p")
    p.add_argument("--lam", type=float, default=0.01, help="λ")
    p.add_argument(
        "--gamma",
        type=float,
        default=None,
        help="RBF gamma for every solver (default: 1/(d Var X) of the dataset's pool)",
    )
    p.add_argument("--tol", type=float, default=1e-3, help="kernelkit tol (τ); SVC tol")
    p.add_argument("--cache-size", type=float, default=200.0, help="kernel cache MB (kk, SVC)")
    p.add_argument("--n-jobs", type=int, default=2, help="kernelkit threads")
    p.add_argument("--svc-C", type=float, default=1.0, help="C of the SVC inside pulearn")
    p.add_argument(
        "--svc-class-weight",
        choices=("balanced", "none"),
        default="balanced",
        help="class_weight of that SVC (unweighted, it predicts nearly everything positive)",
    )
    p.add_argument("--calib-cv", type=int, default=5, help="folds of CalibratedClassifierCV")
    p.add_argument("--qp-tol", type=float, default=1e-8, help="Clarabel gap/feasibility tols")
    p.add_argument("--qp-timeout", type=float, default=300.0, help="s per cvxpy fit")
    p.add_argument("--pulearn-timeout", type=float, default=600.0, help="s per pulearn fit")
    p.add_argument("--timeout", type=float, default=3600.0, help="s per kernelkit fit")
    p.add_argument("--n-test", type=int, default=10000, help="synthetic test points")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--no-isolate",
        action="store_true",
        help="fit in this process (no subprocess; peak memory not reported)",
    )
    p.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="shared data folder")
    p.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results" / "pu_scaling.json"
    )
    args = p.parse_args(argv)
    if args.quick:
        args.rbf_sizes, args.linear_sizes = QUICK_SIZES["rbf"], QUICK_SIZES["linear"]
    for name, given, allowed in (
        ("solvers", args.solvers, ALL_SOLVERS),
        ("datasets", args.dataset, ALL_DATASETS),
        ("kernels", args.kernels, ALL_KERNELS),
    ):
        unknown = set(given) - set(allowed)
        if unknown:
            p.error(f"unknown {name}: {sorted(unknown)}")
    return args


def available_solvers(requested: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The importable solvers and, for the others, why they are missing."""
    ok, missing = [], {}
    for solver in requested:
        absent = [m for m in SOLVER_MODULES[solver] if find_spec(m) is None]
        if absent:
            missing[solver] = "not installed: " + ", ".join(absent)
            print(f"warning: {solver} skipped ({missing[solver]})", file=sys.stderr)
        else:
            ok.append(solver)
    return ok, missing


def run_dataset(
    meta: dict[str, Any],
    tmp: Path,
    sizes: dict[str, list[int]],
    solvers: list[str],
    args: argparse.Namespace,
    cfg: PUConfig,
) -> list[dict[str, Any]]:
    """All kernels and sizes of one prepared dataset; peers stop after a timeout or failure."""
    rows: list[dict[str, Any]] = []
    ram = mem_total_bytes()
    timeouts = {
        "kernelkit": args.timeout,
        "cvxpy": args.qp_timeout,
        "pulearn": args.pulearn_timeout,
    }
    gamma = args.gamma if args.gamma is not None else meta["gamma_scale"]
    for kernel in args.kernels:
        stopped: dict[str, str] = {}
        for n in sizes[kernel]:
            runs: dict[str, list[dict[str, Any]]] = {s: [] for s in solvers}
            skipped: dict[str, str] = {}
            for solver in solvers:
                reason = stopped.get(solver)
                if reason is None and solver == "cvxpy":
                    reason = qp_memory_guard(n, ram)
                if reason is not None:
                    skipped[solver] = reason
            task_of = {
                s: Task(s, kernel, n, meta["prior"], gamma, str(tmp))
                for s in solvers
                if s not in skipped
            }
            for rep in range(args.repeats):  # solvers interleaved: load drift hits all
                for solver, task in task_of.items():
                    if runs[solver] and "error" in runs[solver][-1]:
                        continue  # a failed/timed-out fit is not repeated
                    res = run_one(task, cfg, not args.no_isolate, timeouts[solver])
                    runs[solver].append(res)
                    took = f"{res['fit_s']:.3f} s" if "fit_s" in res else "failed"
                    print(
                        f"  {meta['name']} {kernel:<6} n={n:>7,} {solver:<9} "
                        f"repeat {rep + 1}/{args.repeats}: fit {took}",
                        file=sys.stderr,
                        flush=True,
                    )
            for solver in solvers:
                key = {"dataset": meta["name"], "kernel": kernel, "n": n, "solver": solver}
                if solver in skipped:
                    rows.append({**key, "repeats": 0, "ok_repeats": 0, "skipped": skipped[solver]})
                    continue
                row = aggregate(key, runs[solver])
                row["gamma"] = gamma if kernel == "rbf" else None
                rows.append(row)
                if "error" in row and solver != "kernelkit":
                    what = "timed out" if runs[solver][-1].get("timed_out") else "failed"
                    stopped[solver] = f"skipped: {what} at n={n:,}"
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = PUConfig(
        n_labeled=args.n_labeled,
        lam=args.lam,
        tol=args.tol,
        cache_size=args.cache_size,
        n_jobs=args.n_jobs,
        svc_C=args.svc_C,
        svc_class_weight=None if args.svc_class_weight == "none" else args.svc_class_weight,
        calib_cv=args.calib_cv,
        qp_tol=args.qp_tol,
        seed=args.seed,
    )
    solvers, missing = available_solvers(args.solvers)
    if "kernelkit" not in solvers:
        print("kernelkit is not importable", file=sys.stderr)
        return 1
    requested = {"rbf": sorted(set(args.rbf_sizes)), "linear": sorted(set(args.linear_sizes))}

    load_before = load_snapshot()
    print(f"load before: {load_before['uptime']}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    datasets: list[dict[str, Any]] = []
    for name in args.dataset:
        with tempfile.TemporaryDirectory(prefix=f"kk_pu_{name}_") as tmp_name:
            tmp = Path(tmp_name)
            wanted = [n for k in args.kernels for n in requested[k]]
            if name == "synthetic":
                meta = prepare_synthetic(tmp, max(wanted), args.n_test, cfg)
            else:
                meta = prepare_a9a(tmp, args.data, cfg)
            cap = meta["n_unlabeled_available"]
            sizes = {k: sorted({min(n, cap) for n in v}) for k, v in requested.items()}
            meta["sizes"] = {k: sizes[k] for k in args.kernels}
            meta["gamma"] = args.gamma if args.gamma is not None else meta["gamma_scale"]
            datasets.append(meta)
            rows += run_dataset(meta, tmp, sizes, solvers, args, cfg)
    load_after = load_snapshot()
    summary = add_comparisons(rows)

    settings = (
        f"p={cfg.n_labeled} labeled positives, λ={cfg.lam:g}, tol={cfg.tol:g}, "
        f"cache {cfg.cache_size:g} MB, kernelkit n_jobs={cfg.n_jobs}; cvxpy+Clarabel "
        f"tol {cfg.qp_tol:g} on the dense K_UU; pulearn Elkan-Noto + "
        f"CalibratedClassifierCV(SVC(C={cfg.svc_C:g}, class_weight={cfg.svc_class_weight}), "
        f"cv={cfg.calib_cv}, sigmoid)"
    )
    print(f"## PU learning scaling: {settings}\n")
    for meta in datasets:
        print(
            f"- {meta['name']}: {meta['description']}; prior {meta['prior']:.4f}, RBF gamma "
            f"{meta['gamma']:.4g}; test {meta['n_test']:,} points "
            f"({meta['test_positive_fraction']:.3f} positive)"
        )
    for solver, why in missing.items():
        print(f"- {solver}: {why}")
    print(
        f"\nLoad before: `{load_before['uptime']}`; after: `{load_after['uptime']}`. "
        f"Fit time: median over {args.repeats} fresh subprocess(es). Φ: dual objective "
        "recomputed from σ (same evaluator for both). rel. diff = (Φ_kk − Φ_cvxpy)/|Φ_cvxpy| "
        "(> 0: kernelkit above the QP optimum). F1 of the positive class on the test set.\n"
    )
    print(results_table(rows) + "\n")
    print(ratios_table(summary))
    for r in rows:
        if r["solver"] == "kernelkit" and "objective" in r:
            rel = relative_difference(r["reported_objective"], r["objective"])
            if rel is not None and abs(rel) > 1e-8:
                print(
                    f"\nwarning: kernelkit {r['dataset']} {r['kernel']} n={r['n']:,}: reported "
                    f"objective_ {r['reported_objective']:.10g} vs recomputed "
                    f"{r['objective']:.10g} ({rel:+.1e})"
                )

    for r in rows:
        for big in ("y_pred", "sigma"):
            r.pop(big, None)
    out: Path = args.out
    payload = {
        "benchmark": "pu_scaling",
        "description": settings,
        "datasets": datasets,
        "config": {
            **asdict(cfg),
            "kernels": args.kernels,
            "requested_sizes": requested,
            "solvers": solvers,
            "missing_solvers": missing,
            "repeats": args.repeats,
            "qp_timeout_s": args.qp_timeout,
            "qp_address_space_limit": f"{QP_ADDRESS_SPACE_FRACTION} * RAM (RLIMIT_AS)",
            "qp_memory_guard": f"skip when {QP_MATRIX_COPIES} * 8 * n^2 > "
            f"{QP_MEMORY_FRACTION} * RAM",
            "pulearn_timeout_s": args.pulearn_timeout,
            "kernelkit_timeout_s": args.timeout,
            "isolated": not args.no_isolate,
            "argv": sys.argv,
        },
        "machine": {**machine_info(), "extra_packages": package_versions(EXTRA_PACKAGES)},
        "load_before": load_before,
        "load_after": load_after,
        "results": rows,
        "ratios": summary,
    }
    write_json(out, payload)
    png = out.with_suffix(".png")
    plot_title = f"kernelkit PUClassifier vs dense QP (cvxpy+Clarabel) and pulearn. {settings}"
    wrote_png = plot(rows, png, plot_title)
    print(f"\nwrote {out}" + (f" and {png}" if wrote_png else ""), file=sys.stderr)
    failed = any("error" in r for r in rows if r["solver"] == "kernelkit")
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
