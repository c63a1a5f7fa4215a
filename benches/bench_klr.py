"""Benchmark ``kernelkit.SparseKernelLogisticRegression`` (S-KLR, seed paper 004) against
scikit-learn ``SVC`` and ``LogisticRegression`` on Nyström features.

Protocol:

* datasets from ``../shared/data`` (``klr_data.py``): wisconsin, spambase, twonorm, magic by
  default; one stratified seeded 80/20 train/test split; min-max scaling fitted on the
  training rows (test rows not clipped);
* the paper's kernel exp(−‖x − x'‖²/2) (``gamma=0.5``) for every method;
* per C: the S-KLR path λ/C ∈ linspace(0, 1, 10) (second-order WSS, tol 1e-5, bound_eps 1e-5);
  ``SVC(C, kernel="rbf", gamma=0.5)`` (LIBSVM, tol 1e-3); ``Nystroem(gamma=0.5,
  n_components=m)`` + ``LogisticRegression(C)`` (lbfgs) for m in 100 / 300 / 1000 (capped at
  n_train). KLR's C and LogisticRegression's C weight the same loss sum against ½‖w‖²;
  SVC's C weights the hinge loss instead, so the same C is a reference point, not an equivalent
  model;
* "% points used": S-KLR ``sparsity_`` (α > γ), SVC n_SV / n_train, Nyström m / n_train (the
  landmarks play the role of the selected points in the prediction);
* fit time: wall seconds of ``fit`` (Nyström: fit + transform + LogisticRegression fit), the
  minimum over ``--repeats`` runs, one thread per method by default (LIBSVM is single-threaded;
  ``--threads`` sets S-KLR's ``n_jobs``). Time ratios are S-KLR / SVC at the same C.

Results: ``benches/results/klr_bench.{json,md,png}`` (``klr_bench_quick.*`` for ``--quick``).

    python benches/bench_klr.py --quick
    python benches/bench_klr.py
    python benches/bench_klr.py --datasets wisconsin,magic --C 1,100 --max-rows magic=8000
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    fmt,
    load_snapshot,
    machine_info,
    markdown_table,
    package_versions,
    write_json,
)
from klr_data import (
    ALL_DATASETS,
    DATA_DIR,
    DataMissing,
    describe,
    load,
    minmax_apply,
    minmax_fit,
    parse_max_rows,
    stratified_subsample,
)

RESULTS = Path(__file__).resolve().parent / "results"
GAMMA = 0.5
DEFAULT_DATASETS = ("wisconsin", "spambase", "twonorm", "magic")
DEFAULT_C = (1.0, 10.0, 100.0, 1000.0)
DEFAULT_NYSTROEM = (100, 300, 1000)
# Row caps of the default run (stratified subsample before the split); set after timing.
DEFAULT_MAX_ROWS: dict[str, int] = {"magic": 6000}
PACKAGES = ("kernelkit", "numpy", "scipy", "scikit-learn", "matplotlib", "threadpoolctl")


def blas_threads(n: int) -> Any:
    """``threadpoolctl.threadpool_limits(n)`` (a no-op context when threadpoolctl is missing).
    Multi-threaded BLAS on a loaded 2-core machine made Nyström 100x slower."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(n)


def timed(fn: Any, repeats: int) -> tuple[Any, float]:
    """(last result, minimum wall seconds over ``repeats`` calls)."""
    best, res = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t0)
    return res, best


def klr_class(stand_in: bool) -> Any:
    if stand_in:  # harness test only: sklearn SVC behind the same interface
        from klr_protocol import StandInKLR

        return StandInKLR
    from kernelkit import SparseKernelLogisticRegression

    return SparseKernelLogisticRegression


def run_klr(Xtr: Any, ytr: Any, Xte: Any, yte: Any, C: float, lam: float, a: Any) -> dict[str, Any]:
    cls = klr_class(a.stand_in)

    def fit() -> Any:
        est = cls(
            C=C, lam=lam, kernel="rbf", gamma=GAMMA, tol=a.tol, max_iter=a.max_iter,
            n_jobs=a.threads, cache_size=a.cache_size, time_limit=a.time_limit or None,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return est.fit(Xtr, ytr)

    try:
        est, sec = timed(fit, a.repeats)
    except ValueError as exc:
        return {"C": C, "lam": lam, "error": str(exc)}
    return {
        "C": C,
        "lam": lam,
        "lam_over_C": lam / C,
        "accuracy": float(np.mean(est.predict(Xte) == yte)),
        "points": float(est.sparsity_),
        "seconds": sec,
        "n_iter": int(est.n_iter_),
        "status": str(est.status_),
        "kkt_gap": float(est.kkt_gap_),
    }


def run_svc(Xtr: Any, ytr: Any, Xte: Any, yte: Any, C: float, a: Any) -> dict[str, Any]:
    from sklearn.svm import SVC

    def fit() -> Any:
        return SVC(C=C, kernel="rbf", gamma=GAMMA, cache_size=a.cache_size).fit(Xtr, ytr)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est, sec = timed(fit, a.repeats)
    return {
        "C": C,
        "accuracy": float(np.mean(est.predict(Xte) == yte)),
        "points": len(est.support_) / len(ytr),
        "seconds": sec,
        "n_iter": int(np.sum(est.n_iter_)),
    }


def run_nystroem(
    Xtr: Any, ytr: Any, Xte: Any, yte: Any, C: float, m: int, a: Any
) -> dict[str, Any]:
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import LogisticRegression

    def fit() -> tuple[Any, Any]:
        ny = Nystroem(kernel="rbf", gamma=GAMMA, n_components=m, random_state=a.seed)
        Z = ny.fit_transform(Xtr)
        lr = LogisticRegression(C=C, max_iter=10_000, tol=1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr.fit(Z, ytr)
        return ny, lr

    (ny, lr), sec = timed(fit, a.repeats)
    return {
        "C": C,
        "n_components": m,
        "accuracy": float(np.mean(lr.predict(ny.transform(Xte)) == yte)),
        "points": m / len(ytr),
        "seconds": sec,
        "n_iter": int(np.max(lr.n_iter_)),
    }


def warm_up(a: Any) -> None:
    """One untimed fit of every method on a tiny problem: first-call costs (imports, BLAS and
    thread-pool start-up) otherwise land in the first timed fit (2 s for the first Nyström)."""
    rng = np.random.default_rng(a.seed)
    X = rng.random((60, 4))
    y = (X[:, 0] > 0.5).astype(np.int64)
    run_klr(X, y, X, y, 1.0, 0.1, a)
    run_svc(X, y, X, y, 1.0, a)
    run_nystroem(X, y, X, y, 1.0, 20, a)


def run_dataset(name: str, a: Any, caps: dict[str, int]) -> dict[str, Any]:
    from sklearn.model_selection import train_test_split

    ds = stratified_subsample(load(name, a.data), caps.get(name), a.seed)
    tr, te = train_test_split(
        np.arange(len(ds.y)), test_size=0.2, stratify=ds.y, random_state=a.seed
    )
    lo, span = minmax_fit(ds.X[tr])
    Xtr, Xte = minmax_apply(ds.X[tr], lo, span), minmax_apply(ds.X[te], lo, span)
    ytr, yte = ds.y[tr], ds.y[te]
    out: dict[str, Any] = {"data": describe(ds), "n_train": len(tr), "n_test": len(te)}
    out["klr"], out["svc"], out["nystroem"] = [], [], []
    for C in a.C:
        for frac in np.linspace(0.0, 1.0, a.n_lam):
            r = run_klr(Xtr, ytr, Xte, yte, C, float(frac * C), a)
            out["klr"].append(r)
            print(f"  {name} S-KLR C={C:g} λ/C={frac:.3f}: " + brief(r), flush=True)
        r = run_svc(Xtr, ytr, Xte, yte, C, a)
        out["svc"].append(r)
        print(f"  {name} SVC   C={C:g}: " + brief(r), flush=True)
        for m in a.nystroem:
            if m > len(tr):
                continue
            r = run_nystroem(Xtr, ytr, Xte, yte, C, m, a)
            out["nystroem"].append(r)
            print(f"  {name} Nyström m={m} C={C:g}: " + brief(r), flush=True)
    return out


def brief(r: dict[str, Any]) -> str:
    if "error" in r:
        return f"error {r['error']}"
    extra = f", {r['n_iter']} it" + (f", {r['status']}" if "status" in r else "")
    return (f"acc {r['accuracy']:.4f}, points {100 * r['points']:.1f}%, "
            f"{1e3 * r['seconds']:.1f} ms{extra}")  # fmt: skip


# --------------------------------------------------------------------------- summary
def summary_rows(per: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["dataset", "C", "method", "accuracy", "% points", "fit ms", "÷ SVC time",
              "iterations"]  # fmt: skip
    rows = []
    for name, d in per.items():
        for C in sorted({r["C"] for r in d["svc"]}):
            svc = next(r for r in d["svc"] if r["C"] == C)
            path = [r for r in d["klr"] if r["C"] == C and "error" not in r]
            picks: list[tuple[str, dict[str, Any]]] = []
            if path:
                picks.append(("S-KLR λ=0", path[0]))
                sparse = min(path[1:] or path, key=lambda r: (r["points"], -r["accuracy"]))
                acc = max(path, key=lambda r: (r["accuracy"], -r["points"]))
                picks.append((f"S-KLR most accurate (λ/C={acc['lam_over_C']:.2f})", acc))
                picks.append((f"S-KLR sparsest (λ/C={sparse['lam_over_C']:.2f})", sparse))
                mean_path = {
                    "accuracy": float(np.mean([r["accuracy"] for r in path])),
                    "points": float(np.mean([r["points"] for r in path])),
                    "seconds": float(np.mean([r["seconds"] for r in path])),
                    "n_iter": float(np.mean([r["n_iter"] for r in path])),
                }
                picks.append(("S-KLR path mean", mean_path))
            picks.append(("SVC", svc))
            picks += [(f"Nyström {r['n_components']} + LR", r) for r in d["nystroem"]
                      if r["C"] == C]  # fmt: skip
            for label, r in picks:
                rows.append([
                    name, f"{C:g}", label, f"{r['accuracy']:.4f}", f"{100 * r['points']:.1f}",
                    f"{1e3 * r['seconds']:.1f}", fmt(r["seconds"] / svc["seconds"], ".2f"),
                    f"{r['n_iter']:.0f}",
                ])  # fmt: skip
    return header, rows


def ratio_summary(per: dict[str, Any]) -> dict[str, Any]:
    """Geometric means over (dataset, C) of S-KLR / SVC fit-time ratios."""
    lam0, path = [], []
    for d in per.values():
        for svc in d["svc"]:
            ks = [r for r in d["klr"] if r["C"] == svc["C"] and "error" not in r]
            if ks:
                lam0.append(ks[0]["seconds"] / svc["seconds"])
                path.append(float(np.mean([r["seconds"] for r in ks])) / svc["seconds"])
    g = lambda v: float(np.exp(np.mean(np.log(v)))) if v else None  # noqa: E731
    return {"klr_lam0_over_svc_geomean": g(lam0), "klr_path_mean_over_svc_geomean": g(path),
            "pairs": len(lam0)}  # fmt: skip


def plot(per: dict[str, Any], path: Path, title: str) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not installed"
    names = list(per)
    if not names:
        return "no datasets"
    ncol = min(2, len(names))
    nrow = (len(names) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(7.5 * ncol, 5.2 * nrow), squeeze=False)
    markers = {100: "v", 300: "^", 1000: "D"}
    for ax, name in zip(axes.ravel(), names, strict=False):
        d = per[name]
        cs = sorted({r["C"] for r in d["svc"]})
        colors = plt.cm.viridis(np.linspace(0.0, 0.9, max(len(cs), 1)))
        for C, col in zip(cs, colors, strict=True):
            p = [r for r in d["klr"] if r["C"] == C and "error" not in r]
            ax.plot([100 * r["points"] for r in p], [r["accuracy"] for r in p], "-o",
                    color=col, ms=4, label=f"S-KLR C={C:g} (λ/C 0→1)")  # fmt: skip
            if p:
                ax.plot(100 * p[0]["points"], p[0]["accuracy"], "o", color=col, ms=9,
                        mfc="none")  # fmt: skip
            for r in d["svc"]:
                if r["C"] == C:
                    ax.plot(100 * r["points"], r["accuracy"], "*", color=col, ms=13, mec="k",
                            label=f"SVC C={C:g}")  # fmt: skip
            for r in d["nystroem"]:
                if r["C"] == C:
                    ax.plot(100 * r["points"], r["accuracy"], markers.get(r["n_components"], "s"),
                            color=col, ms=7, mec="k", alpha=0.7)  # fmt: skip
        for m in sorted({r["n_components"] for r in d["nystroem"]}):
            ax.plot([], [], markers.get(m, "s"), color="gray", mec="k", label=f"Nyström {m} + LR")
        ax.set_xscale("log")
        ax.set_xlabel("% training points used (log)")
        ax.set_ylabel("test accuracy")
        ax.set_title(f"{name} (n_train {d['n_train']:,}; open circle: λ = 0)")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(names) :]:
        ax.set_axis_off()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def floats(text: str) -> list[float]:
    return [float(t) for t in text.split(",") if t.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", default=None)
    parser.add_argument("--quick", action="store_true",
                        help="< 1 min: wisconsin + spambase (1500 rows), C ∈ {1, 100}, 4 λ, "
                        "Nyström 100/300")  # fmt: skip
    parser.add_argument("--C", default=None, help="comma-separated C values")
    parser.add_argument("--n-lam", type=int, default=None, help="λ/C values (default 10)")
    parser.add_argument("--nystroem", default=None, help="n_components list (100,300,1000)")
    parser.add_argument("--max-rows", default=None, help="'magic=8000' or one int; 'none'")
    parser.add_argument("--repeats", type=int, default=1, help="timing: min over repeats")
    parser.add_argument("--threads", type=int, default=1, help="S-KLR n_jobs")
    parser.add_argument("--tol", type=float, default=1e-5)
    parser.add_argument("--max-iter", type=int, default=10_000_000)
    parser.add_argument("--time-limit", type=float, default=600.0, help="S-KLR s per fit")
    parser.add_argument("--cache-size", type=float, default=1000.0, help="MB, S-KLR and SVC")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--stand-in", action="store_true", help="harness test: SVC as S-KLR")
    parser.add_argument("--out", type=Path, default=None)
    a = parser.parse_args(argv)
    argv_used = sys.argv[1:] if argv is None else list(argv)

    names = a.datasets or ",".join(("wisconsin", "spambase") if a.quick else DEFAULT_DATASETS)
    names_l = [t.strip() for t in names.split(",") if t.strip()]
    if bad := [n for n in names_l if n not in ALL_DATASETS]:
        raise SystemExit(f"unknown datasets {bad}; choose from {list(ALL_DATASETS)}")
    a.C = floats(a.C) if a.C else ([1.0, 100.0] if a.quick else list(DEFAULT_C))
    a.n_lam = a.n_lam or (4 if a.quick else 10)
    a.nystroem = ([int(v) for v in floats(a.nystroem)] if a.nystroem
                  else ([100, 300] if a.quick else list(DEFAULT_NYSTROEM)))  # fmt: skip
    caps = (
        parse_max_rows(a.max_rows, DEFAULT_MAX_ROWS)
        if a.max_rows is not None or not a.quick
        else {"spambase": 1500}
    )
    out_path = a.out or RESULTS / ("klr_bench_quick.json" if a.quick else "klr_bench.json")
    try:
        klr_class(a.stand_in)
    except ImportError as exc:
        raise SystemExit(f"kernelkit.SparseKernelLogisticRegression not available: {exc}") from None
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    load_start = load_snapshot()
    wall = time.perf_counter()
    per: dict[str, Any] = {}
    with blas_threads(1):  # single-threaded BLAS: a fair peer of LIBSVM and n_jobs=1
        warm_up(a)
        for name in names_l:
            print(f"{name}:", flush=True)
            try:
                per[name] = run_dataset(name, a, caps)
            except DataMissing as exc:
                print(f"  skipped: {exc}")
    wall_s = time.perf_counter() - wall

    header, rows = summary_rows(per)
    print()
    print(markdown_table(header, rows, n_text_cols=3))
    ratios = ratio_summary(per)
    print(f"\nS-KLR / SVC fit time, geometric mean over {ratios['pairs']} (dataset, C) pairs: "
          f"λ=0 ×{fmt(ratios['klr_lam0_over_svc_geomean'], '.2f')}, mean over the λ path "
          f"×{fmt(ratios['klr_path_mean_over_svc_geomean'], '.2f')}")  # fmt: skip
    print(f"wall time {wall_s:.0f} s")

    settings = (f"gamma {GAMMA}; C {a.C}; λ/C linspace(0, 1, {a.n_lam}); Nyström {a.nystroem};"
                f" S-KLR tol {a.tol:g}, max_iter {a.max_iter:,}, n_jobs {a.threads}; "
                f"row caps {caps or 'none'}; 80/20 stratified split, seed {a.seed}; "
                f"time = min over {a.repeats} run(s)")  # fmt: skip
    out = {
        "title": "S-KLR vs SVC vs Nyström + LogisticRegression",
        "started": started,
        "argv": argv_used,
        "settings": settings,
        "machine": machine_info(),
        "packages": package_versions(PACKAGES),
        "load_start": load_start,
        "load_end": load_snapshot(),
        "wall_seconds": wall_s,
        "ratios": ratios,
        "summary_header": header,
        "summary_rows": rows,
        "datasets": per,
    }
    write_json(out_path, out)
    png = out_path.with_suffix(".png")
    note = plot(
        per,
        png,
        "S-KLR test accuracy vs % points used as λ/C goes 0 → 1 (RBF gamma 0.5); "
        "stars: SVC, triangles/diamonds: Nyström + LogisticRegression (same C colour)",
    )
    md = [
        "# S-KLR benchmark: SVC and Nyström + LogisticRegression", "",
        f"Started {started}; wall time {wall_s:.0f} s.", "", f"Settings: {settings}.", "",
        "% points: S-KLR sparsity_ (α > γ), SVC n_SV/n_train, Nyström n_components/n_train. "
        "'÷ SVC time': fit time divided by SVC's at the same C.", "",
        markdown_table(header, rows, n_text_cols=3), "",
        f"S-KLR / SVC fit time, geometric mean over (dataset, C): λ = 0 "
        f"×{fmt(ratios['klr_lam0_over_svc_geomean'], '.2f')}, mean over the λ path "
        f"×{fmt(ratios['klr_path_mean_over_svc_geomean'], '.2f')}.", "",
        f"![accuracy vs sparsity]({png.name})" if note is None else f"(no plot: {note})", "",
        "## Machine", "", "```", str(out["machine"]), "```", "",
    ]  # fmt: skip
    out_path.with_suffix(".md").write_text("\n".join(md))
    print(f"wrote {out_path}, {out_path.with_suffix('.md').name}"
          + ("" if note else f", {png.name}"))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
