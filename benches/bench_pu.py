"""``kernelkit.PUClassifier`` (USMO) against the dense dual QP and pulearn as n grows (the
paper's large-scale setting, digest §5.11: p = 100 labeled positives, λ = 0.01; linear and RBF):

- ``cvxpy``: the δ-eliminated dual (§1.4) on the dense K_UU by cvxpy + Clarabel (the paper's
  QP baseline), skipped at larger n after ``--qp-timeout`` or where 3 n² doubles exceed 40% of
  the RAM; its process capped at 70% of the RAM;
- ``pulearn``: Elkan-Noto around ``CalibratedClassifierCV(SVC(class_weight="balanced"), cv=5)``
  (unweighted, it predicts nearly everything positive); another model: time, memory and F1.

Data: a seeded synthetic PU mixture (d = 10, π = 0.5) and optionally a9a (100 labeled +1, the
rest unlabeled, tested on a9a.t); nested sizes; one numeric gamma, 1/(d Var X) of the pool.
Each fit in a fresh process; beside the time the dual Φ(σ) recomputed from σ and the F1.

    python benches/bench_pu.py --quick
    python benches/bench_pu.py --dataset synthetic,a9a --rbf-sizes 1000,5000
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import harness
import numpy as np
from harness import data, report, runner
from harness.machine import importable, limit_address_space
from harness.objectives import rbf_quadratic_form, relative_difference
from harness.runner import Case

SOLVERS = {"kernelkit": ("kernelkit",), "cvxpy": ("cvxpy", "clarabel"), "pulearn": ("pulearn",)}
SIZES = {"rbf": [1000, 2000, 5000, 10000, 20000, 50000],
         "linear": [1000, 5000, 20000, 50000, 100000, 200000]}  # fmt: skip
QP_MEMORY, QP_ADDRESS_SPACE = 0.4, 0.7  # of the RAM: skip the QP / cap its process


# --------------------------------------------------------------------------- the problem
def kernel_block(A: Any, B: Any, kernel: str, gamma: float) -> Any:
    from sklearn.metrics.pairwise import rbf_kernel

    return A @ B.T if kernel == "linear" else rbf_kernel(A, B, gamma=gamma)


def kernel_expansion(X: Any, centres: Any, coef: Any, kernel: str, gamma: float) -> Any:
    """``Σ_k coef[k] k(x, centres[k])`` for every row x of X, in blocks of at most 128 MiB."""
    if kernel == "linear":
        return X @ (centres.T @ coef)
    rows = max(1, 2**27 // (8 * max(1, centres.shape[0])))
    return np.concatenate([kernel_block(X[i : i + rows], centres, kernel, gamma) @ coef
                           for i in range(0, X.shape[0], rows)])  # fmt: skip


def constants(prior: float, lam: float, p: int, n: int) -> tuple[float, float]:
    """``c1 = π / (2 λ p)`` and ``c2 = 1 / (2 λ n)`` of the dual (digest §1.2)."""
    return prior / (2.0 * lam * p), 1.0 / (2.0 * lam * n)


def dual_objective(
    X_unl: Any, X_pos: Any, sigma: Any, kernel: str, gamma: float, c1: float, c2: float
) -> float:
    """Φ(σ) = ½ σ'K_UU σ − p'σ + Σ max(−σ, σ − c2), p_u = c1 Σ_q k(x_u, x_q): kernel values
    recomputed here, in blocks, independently of every solver."""
    pvec = kernel_expansion(X_unl, X_pos, np.full(X_pos.shape[0], c1), kernel, gamma)
    nz = sigma != 0.0
    if kernel == "linear":
        quad = float(np.sum((X_unl[nz].T @ sigma[nz]) ** 2))
    else:
        quad = rbf_quadratic_form(X_unl[nz], sigma[nz], gamma)
    return 0.5 * quad - float(pvec @ sigma) + float(np.maximum(-sigma, sigma - c2).sum())


def solve_qp(X_pos: Any, X_unl: Any, p: dict[str, Any]) -> tuple[Any, float, dict[str, Any]]:
    """The δ-eliminated dual on the dense K_UU by cvxpy + Clarabel: σ, the bias β (= −ν, ν the
    multiplier of Σσ = c1 p) and the solver's statistics."""
    import cvxpy as cp

    n = X_unl.shape[0]
    c1, c2 = constants(p["prior"], p["lam"], X_pos.shape[0], n)
    t0 = time.perf_counter()
    K = kernel_block(X_unl, X_unl, p["kernel"], p["gamma"])
    pvec = kernel_expansion(X_unl, X_pos, np.full(X_pos.shape[0], c1), p["kernel"], p["gamma"])
    kernel_s = time.perf_counter() - t0
    sigma = cp.Variable(n)
    equality = cp.sum(sigma) == c1 * X_pos.shape[0]
    objective = 0.5 * cp.quad_form(sigma, cp.psd_wrap(K)) - pvec @ sigma
    objective += cp.sum(cp.maximum(-sigma, sigma - c2))
    problem = cp.Problem(cp.Minimize(objective), [sigma >= 0, sigma <= c2, equality])
    tol = p["qp_tol"]
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
    if sigma.value is None or equality.dual_value is None:
        raise RuntimeError(f"cvxpy/Clarabel status {problem.status}")
    s = problem.solver_stats
    info = {"status": problem.status, "n_iter": s.num_iters, "kernel_s": kernel_s,
            "solver_s": s.solve_time, "setup_s": s.setup_time,
            "reported_objective": problem.value}  # fmt: skip
    bias = -float(np.ravel(equality.dual_value)[0])
    return np.clip(np.asarray(sigma.value, dtype=np.float64), 0.0, c2), bias, info


def estimator(p: dict[str, Any]) -> Any:
    if p["solver"] == "kernelkit":
        import kernelkit

        return kernelkit.PUClassifier(
            prior=p["prior"], lam=p["lam"], kernel=p["kernel"], gamma=p["gamma"], tol=p["tol"],
            cache_size=p["cache_size"], n_jobs=p["n_jobs"],
        )  # fmt: skip
    from pulearn import ElkanotoPuClassifier
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    svc = SVC(C=p["svc_C"], kernel=p["kernel"], gamma=p["gamma"], tol=p["tol"],
              cache_size=p["cache_size"], class_weight=p["svc_class_weight"])  # fmt: skip
    calibrated = CalibratedClassifierCV(svc, method="sigmoid", cv=p["calib_cv"], ensemble=False)
    return ElkanotoPuClassifier(calibrated, hold_out_ratio=0.1, random_state=p["seed"])


def fit_pu(case: Case) -> dict[str, Any]:
    """One fit, the test predictions and the objective recomputed from σ (a fresh process)."""
    from sklearn.metrics import f1_score

    p = case.params
    X_pos, X_unl = data.unstash(p["data"], "X_pos"), data.unstash(p["data"], "X_unl", p["n"])
    X_test, y_test = data.unstash(p["data"], "X_test"), data.unstash(p["data"], "y_test")
    X, y = np.ascontiguousarray(np.vstack([X_pos, X_unl])), np.r_[np.ones(len(X_pos)),
                                                                   np.zeros(p["n"])]  # fmt: skip
    c1, c2 = constants(p["prior"], p["lam"], len(X_pos), p["n"])
    if p["solver"] == "cvxpy":  # imports are not fit time
        import cvxpy  # noqa: F401
        import sklearn.metrics.pairwise  # noqa: F401

        limit_address_space(QP_ADDRESS_SPACE)
        qp = _Qp(X_pos, X_unl, p)
        out = runner.timed_fit(qp, X, y)
    else:
        est = estimator(p)
        out = runner.timed_fit(est, X, y)
    t0 = time.perf_counter()
    if p["solver"] == "cvxpy":
        sigma, bias, info = qp.result
        coef = np.r_[np.full(len(X_pos), c1), -sigma]
        y_pred = kernel_expansion(X_test, X, coef, p["kernel"], p["gamma"]) + bias > 0
        out |= info | {"intercept": bias}
    elif p["solver"] == "kernelkit":
        sigma, y_pred = np.asarray(est.sigma_, dtype=np.float64), est.predict(X_test)
        out |= {"reported_objective": float(est.objective_),
                "intercept": float(np.ravel(est.intercept_)[0]),
                "n_iter": int(np.ravel(est.n_iter_)[0]), "status": str(est.status_),
                "kkt_gap": float(np.ravel(est.kkt_gap_)[0])}  # fmt: skip
    else:
        sigma, y_pred = None, est.predict(X_test)
        out["elkanoto_c"] = float(est.c)
    out["predict_s"] = time.perf_counter() - t0
    y_pred = (np.asarray(y_pred) == 1).astype(np.int8)
    out |= {"test_f1": float(f1_score(y_test, y_pred, zero_division=0.0)), "y_pred": y_pred,
            "test_accuracy": float(np.mean(y_pred == y_test)), "c1": c1, "c2": c2}  # fmt: skip
    if sigma is not None:
        out["objective"] = dual_objective(X_unl, X_pos, sigma, p["kernel"], p["gamma"], c1, c2)
        out |= {"n_sigma_positive": int(np.count_nonzero(sigma > 0)), "sigma": sigma,
                "equality_residual": float(abs(sigma.sum() - c1 * len(X_pos)))}  # fmt: skip
    return out


class _Qp:
    """The dense QP behind ``fit``, so that ``timed_fit`` times and measures it."""

    def __init__(self, X_pos: Any, X_unl: Any, p: dict[str, Any]) -> None:
        self.args = X_pos, X_unl, p

    def fit(self, X: Any, y: Any) -> None:
        self.result = solve_qp(*self.args)


# --------------------------------------------------------------------------- the run
def prepare(name: str, tmp: Path, n_max: int, a: Any) -> dict[str, Any]:
    """Labeled positives, the pool of unlabeled points and a labeled test set, stashed."""
    if name == "synthetic":  # independent streams: the pool prefix does not depend on n_max
        X_pos = data.pu_mixture(a.n_labeled, 1.0, np.random.default_rng([a.seed, 0]))[0]
        X_unl, y_unl = data.pu_mixture(n_max, 0.5, np.random.default_rng([a.seed, 1]))
        X_test, y_test = data.pu_mixture(a.n_test, 0.5, np.random.default_rng([a.seed, 2]))
        prior, gamma = 0.5, data.scale_gamma(X_unl[: min(n_max, 20000)])
        what = f"PU Gaussian mixture, d=10, π=0.5 among unlabeled and test points, seed {a.seed}"
    else:
        ds = data.load("a9a", a.data)
        rng = np.random.default_rng(a.seed)
        labeled = rng.choice(np.flatnonzero(ds.y == 1), size=a.n_labeled, replace=False)
        rest = np.setdiff1d(np.arange(len(ds.y)), labeled)
        rng.shuffle(rest)
        X_pos, X_unl, y_unl = ds.X[labeled], ds.X[rest], (ds.y[rest] == 1).astype(np.int8)
        X_test, y_test = ds.X_test, (ds.y_test == 1).astype(np.int8)
        prior, gamma = float(np.mean(ds.y == 1)), data.scale_gamma(ds.X)
        what = (f"a9a (123 features, densified), positives = class +1, {a.n_labeled} labeled, "
                "π = class proportion of a9a.train")  # fmt: skip
    folder = data.stash(tmp, X_pos=X_pos, X_unl=X_unl, X_test=X_test, y_test=y_test)
    return {"name": name, "description": what, "prior": prior, "gamma": a.gamma or gamma,
            "n_unlabeled_available": len(X_unl), "n_test": len(y_test), "folder": folder,
            "unlabeled_positive_fraction": float(np.mean(y_unl)),
            "test_positive_fraction": float(np.mean(y_test))}  # fmt: skip


def run_dataset(meta: dict[str, Any], solvers: list[str], a: Any) -> list[dict[str, Any]]:
    """Every kernel and size of one dataset; a peer stops after a failed or timed-out size, the
    QP also where its dense matrices would not fit in memory."""
    rows, ram = [], os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    timeouts = {"kernelkit": a.timeout, "cvxpy": a.qp_timeout, "pulearn": a.pulearn_timeout}
    config = {k: getattr(a, k) for k in ("lam", "tol", "cache_size", "n_jobs", "svc_C",
                                         "calib_cv", "qp_tol", "seed")}  # fmt: skip
    config["svc_class_weight"] = None if a.svc_class_weight == "none" else a.svc_class_weight
    for kernel in a.kernels:
        stopped: dict[str, str] = {}
        for n in sorted({min(n, meta["n_unlabeled_available"]) for n in a.sizes[kernel]}):
            keys = {"dataset": meta["name"], "kernel": kernel, "n": n}
            if 3 * 8 * n * n > QP_MEMORY * ram and "cvxpy" not in stopped:
                need = 3 * 8 * n * n / 2**30
                stopped["cvxpy"] = (
                    f"skipped: 3 x n^2 x 8 B = {need:.1f} GiB > {QP_MEMORY:.0%} of the RAM"
                )
            params = {**config, "kernel": kernel, "n": n, "prior": meta["prior"],
                      "data": meta["folder"], "gamma": meta["gamma"]}  # fmt: skip
            cases = [Case(s, fit_pu, {**params, "solver": s}, keys, timeouts[s]) for s in solvers
                     if s not in stopped]  # fmt: skip
            done = {r["label"]: r for r in runner.run(cases, a.repeats, not a.no_isolate)}
            for s in solvers:
                r = done.get(s) or {
                    "label": s, **keys, "repeats": 0, "ok_repeats": 0, "skipped": stopped[s]
                }  # fmt: skip
                r["gamma"] = meta["gamma"] if kernel == "rbf" else None
                rows.append(r)
                if "error" in r and s != "kernelkit":
                    why = "timed out" if r.get("timed_out") else "failed"
                    stopped[s] = f"skipped: {why} at n={n:,}"
    return rows


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (dataset, kernel, n): time ratios, the objective and σ differences kernelkit − QP."""
    keys = ["dataset", "kernel", "n"]
    picks = {"kernelkit_fit_s": ("kernelkit", "fit_s"), "cvxpy": ("cvxpy", "fit_ratio"),
             "pulearn": ("pulearn", "fit_ratio")}  # fmt: skip
    picks |= {f"{s}_f1": (s, "test_f1") for s in SOLVERS}
    out = runner.pivot(rows, keys, picks)
    for s, by in zip(out, runner.groups(rows, keys).values(), strict=True):
        kk, qp = by.get("kernelkit", {}), by.get("cvxpy", {})
        if "objective" in kk and "objective" in qp:
            rel = relative_difference(kk["objective"], qp["objective"])
            kk["objective_rel_diff"] = s["rel"] = rel
            s["dsigma"] = float(np.max(np.abs(kk["sigma"] - qp["sigma"]))) / kk["c2"]
            s["agreement"] = float(np.mean(kk["y_pred"] == qp["y_pred"]))
    return out


def note(r: dict[str, Any]) -> str:
    if r["label"] == "kernelkit":
        return f"{r['status']}, {r['n_iter']:,} it, gap {r['kkt_gap']:.1e}"
    if r["label"] == "cvxpy":
        return f"{r['status']}, {r['n_iter']} it, K {r['kernel_s']:.1f} s"
    return f"c = {r['elkanoto_c']:.3f}"


RESULTS: list[report.Column] = [
    ("data", "dataset"), ("kernel", "kernel"), ("n", "n:,"), ("solver", "label"),
    ("reps", "repeats"), ("fit s", "~fit_s:.3f"), ("time / kernelkit", "fit_ratio:.2f"),
    ("peak RSS MB (+growth)", report.rss),
    ("dual objective Φ", "objective:.8g"), ("rel. diff vs cvxpy", "objective_rel_diff:+.1e"),
    ("test F1", "test_f1:.4f"), ("notes", note),
]  # fmt: skip
RATIOS: list[report.Column] = [
    ("data", "dataset"), ("kernel", "kernel"), ("n", "n:,"), ("kernelkit s", "kernelkit_fit_s:.3f"),
    ("cvxpy / kernelkit", "cvxpy:.1f"), ("pulearn / kernelkit", "pulearn:.1f"),
    ("Φ rel. diff (kk vs cvxpy)", "rel:+.1e"), ("max Δσ / c2", "dsigma:.1e"),
    ("test agreement kk/cvxpy", "agreement:.4f"), ("F1 kernelkit", "kernelkit_f1:.4f"),
    ("F1 cvxpy", "cvxpy_f1:.4f"), ("F1 pulearn", "pulearn_f1:.4f"),
]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "pu_scaling.json")
    harness.options(p, rbf_sizes=(SIZES["rbf"], None, harness.ints),
                    linear_sizes=(SIZES["linear"], None, harness.ints),
                    quick=(False, "sizes 1000,2000 for both kernels"), kernels=["rbf", "linear"],
                    dataset=(["synthetic"], "synthetic, a9a"),
                    solvers=(list(SOLVERS), None, harness.strs),
                    repeats=(1, "timings per (size, solver); median"),
                    n_labeled=(100, "labeled positives p"), lam=(0.01, "λ"),
                    gamma=(None, "RBF gamma (default: 1/(d Var X))", float),
                    tol=(1e-3, "kernelkit tol (τ); SVC tol"),
                    cache_size=(200.0, "kernel cache MB (kk, SVC)"),
                    n_jobs=(2, "kernelkit threads"), svc_C=(1.0, "C of the SVC inside pulearn"),
                    svc_class_weight=("balanced", None, ("balanced", "none")),
                    calib_cv=(5, "folds of CalibratedClassifierCV"),
                    qp_tol=(1e-8, "Clarabel gap/feasibility tols"),
                    qp_timeout=(300.0, "s per cvxpy fit"),
                    pulearn_timeout=(600.0, "s per pulearn fit"),
                    timeout=(3600.0, "s per kernelkit fit"),
                    n_test=(10000, "synthetic test points"), seed=0,
                    no_isolate=(False, "fit in this process (no RSS)"))  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "solvers", a.solvers, list(SOLVERS))
    harness.known(p, "datasets", a.dataset, ("synthetic", "a9a"))
    harness.known(p, "kernels", a.kernels, ("rbf", "linear"))
    a.sizes = {"rbf": a.rbf_sizes, "linear": a.linear_sizes}
    a.sizes = {k: [1000, 2000] for k in a.sizes} if a.quick else a.sizes
    solvers = [s for s in a.solvers if importable(*SOLVERS[s])]
    missing = {s: "not installed: " + ", ".join(m for m in SOLVERS[s] if not importable(m))
               for s in a.solvers if s not in solvers}  # fmt: skip
    if "kernelkit" not in solvers:
        print("kernelkit is not importable", file=sys.stderr)
        return 1
    run, rows, metas = harness.Run(argv), [], []
    for name in a.dataset:
        with tempfile.TemporaryDirectory(prefix=f"kk_pu_{name}_") as tmp:
            metas.append(prepare(name, Path(tmp), max(n for k in a.kernels for n in a.sizes[k]), a))
            rows += run_dataset(metas[-1], solvers, a)
    runner.compare(rows, ["dataset", "kernel", "n"], ref=None)
    ratios = summary(rows)
    weight = None if a.svc_class_weight == "none" else a.svc_class_weight
    settings = (f"p={a.n_labeled} labeled positives, λ={a.lam:g}, tol={a.tol:g}, cache "
                f"{a.cache_size:g} MB, kernelkit n_jobs={a.n_jobs}; cvxpy+Clarabel tol "
                f"{a.qp_tol:g} on the dense K_UU; pulearn "
                f"Elkan-Noto + CalibratedClassifierCV(SVC(C={a.svc_C:g}, class_weight={weight}), "
                f"cv={a.calib_cv}, sigmoid)")  # fmt: skip
    record = run.record(description=settings, datasets=metas, config=vars(a), missing=missing,
                        results=rows, ratios=ratios)  # fmt: skip
    md = [f"## PU learning scaling: {settings}", ""]
    md += [f"- {m['name']}: {m['description']}; prior {m['prior']:.4f}, RBF gamma "
           f"{m['gamma']:.4g}; test {m['n_test']:,} points ({m['test_positive_fraction']:.3f} "
           "positive)" for m in metas]  # fmt: skip
    md += [f"- {s}: {why}" for s, why in missing.items()]
    md += ["", f"{run.load_line(record)} Fit time: median over {a.repeats} fresh "
           "subprocess(es). Φ: dual objective recomputed from σ (same evaluator for both). rel. "
           "diff = (Φ_kk − Φ_cvxpy)/|Φ_cvxpy| "
           "(> 0: kernelkit above the QP optimum). F1 of the positive class on the test set.", "",
           report.table(rows, RESULTS, 4, why_col=-1), "",
           report.table(ratios, RATIOS, 2, done=None)]  # fmt: skip
    for r in rows:
        rel = relative_difference(r.get("reported_objective"), r.get("objective"))
        if r["label"] == "kernelkit" and rel is not None and abs(rel) > 1e-8:
            md += ["", f"warning: kernelkit {r['dataset']} {r['kernel']} n={r['n']:,}: reported "
                   f"objective_ {r['reported_objective']:.10g} vs recomputed {r['objective']:.10g} "
                   f"({rel:+.1e})"]  # fmt: skip
    report.strip(rows)
    run.write(a.out, record, "\n".join(md))
    return 2 if any("error" in r for r in rows if r["label"] == "kernelkit") else 0


if __name__ == "__main__":
    sys.exit(main())
