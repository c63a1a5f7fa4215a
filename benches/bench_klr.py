"""``kernelkit.SparseKernelLogisticRegression`` (seed paper 004) against scikit-learn ``SVC``
and ``Nystroem`` + ``LogisticRegression``, one stratified 80/20 split per dataset (min-max
scaled on the training rows), kernel exp(−‖x − x'‖²/2) for all. Per C: the S-KLR path λ/C ∈
linspace(0, 1, 10), SVC(C), Nyström m ∈ {100, 300, 1000} + LogisticRegression(C) (SVC's C
weighs the hinge loss: a reference point, not the same model). "% points": ``sparsity_``,
n_SV / n, m / n. Fit time: median over ``--repeats``, one thread per method. Writes
``results/klr_bench.{json,md,png}`` (``klr_bench_quick.*``).

    python benches/bench_klr.py --quick
    python benches/bench_klr.py --datasets wisconsin,magic --C 1,100 --max-rows magic=8000
"""

from __future__ import annotations

import statistics
import time
import warnings
from typing import Any

import harness
import numpy as np
from harness import data, report
from harness.machine import blas_threads
from reproduce_klr_tables import DATASETS, load, parse_max_rows


def timed(fn: Any, repeats: int) -> tuple[Any, float]:
    """(the last result, the median wall seconds over ``repeats`` calls)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return res, statistics.median(times)


def run_klr(Xtr: Any, ytr: Any, Xte: Any, yte: Any, C: float, lam: float, a: Any) -> dict[str, Any]:
    from kernelkit import SparseKernelLogisticRegression

    def fit() -> Any:
        est = SparseKernelLogisticRegression(
            C=C, lam=lam, kernel="rbf", gamma=0.5, tol=a.tol, max_iter=a.max_iter, n_jobs=a.threads,
            cache_size=a.cache_size, time_limit=a.time_limit or None)  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return est.fit(Xtr, ytr)

    try:
        est, sec = timed(fit, a.repeats)
    except ValueError as exc:
        return {"C": C, "lam": lam, "error": str(exc)}
    return {
        "C": C, "lam": lam, "lam_over_C": lam / C,
        "accuracy": float(np.mean(est.predict(Xte) == yte)), "points": float(est.sparsity_),
        "seconds": sec, "n_iter": int(est.n_iter_), "status": str(est.status_),
        "kkt_gap": float(est.kkt_gap_)
    }  # fmt: skip


def run_svc(Xtr: Any, ytr: Any, Xte: Any, yte: Any, C: float, a: Any) -> dict[str, Any]:
    from sklearn.svm import SVC

    est, sec = timed(lambda: SVC(C=C, gamma=0.5, cache_size=a.cache_size).fit(Xtr, ytr), a.repeats)
    return {"C": C, "accuracy": float(np.mean(est.predict(Xte) == yte)), "seconds": sec,
            "points": len(est.support_) / len(ytr), "n_iter": int(np.sum(est.n_iter_))}  # fmt: skip


def run_nystroem(Xtr: Any, ytr: Any, Xte: Any, yte: Any, C: float, m: int, a: Any) -> Any:
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import LogisticRegression

    def fit() -> tuple[Any, Any]:
        ny = Nystroem(kernel="rbf", gamma=0.5, n_components=m, random_state=a.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr = LogisticRegression(C=C, max_iter=10_000, tol=1e-6)
            return ny, lr.fit(ny.fit_transform(Xtr), ytr)

    (ny, lr), sec = timed(fit, a.repeats)
    return {
        "C": C, "n_components": m,
        "accuracy": float(np.mean(lr.predict(ny.transform(Xte)) == yte)), "points": m / len(ytr),
        "seconds": sec, "n_iter": int(np.max(lr.n_iter_))
    }  # fmt: skip


def run_dataset(name: str, a: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    from sklearn.model_selection import train_test_split

    X, y, source, _ = load(name, cfg)
    tr, te = train_test_split(np.arange(len(y)), test_size=0.2, stratify=y, random_state=a.seed)
    (Xtr, Xte), ytr, yte = data.minmax(X[tr], X[te]), y[tr], y[te]
    out: dict[str, Any] = {
        "data": {"rows": len(y), "features": X.shape[1], "source": source}, "n_train": len(tr),
        "n_test": len(te), "klr": [], "svc": [], "nystroem": []
    }  # fmt: skip
    for C in a.C:
        for frac in np.linspace(0.0, 1.0, a.n_lam):
            out["klr"].append(run_klr(Xtr, ytr, Xte, yte, C, float(frac * C), a))
        out["svc"].append(run_svc(Xtr, ytr, Xte, yte, C, a))
        out["nystroem"] += [run_nystroem(Xtr, ytr, Xte, yte, C, m, a) for m in a.nystroem
                            if m <= len(tr)]  # fmt: skip
        accuracies = ", ".join(f"{r.get('accuracy', 'error')}" for r in out["klr"][-a.n_lam :])
        print(f"  {name} C={C:g}: {accuracies}", flush=True)
    return out


def summary(per: dict[str, Any]) -> list[dict[str, Any]]:
    """Per dataset and C: S-KLR at λ = 0, its most accurate and sparsest λ, the path's mean, SVC
    and each Nyström, each with its fit time over SVC's."""
    rows = []
    for name, d in per.items():
        for svc in d["svc"]:
            path = [r for r in d["klr"] if r["C"] == svc["C"] and "error" not in r]
            picks: list[tuple[str, dict[str, Any]]] = []
            if path:
                sparse = min(path[1:] or path, key=lambda r: (r["points"], -r["accuracy"]))
                best = max(path, key=lambda r: (r["accuracy"], -r["points"]))
                mean = {k: float(np.mean([r[k] for r in path]))
                        for k in ("accuracy", "points", "seconds", "n_iter")}  # fmt: skip
                picks += [("S-KLR λ=0", path[0]),
                          (f"S-KLR most accurate (λ/C={best['lam_over_C']:.2f})", best),
                          (f"S-KLR sparsest (λ/C={sparse['lam_over_C']:.2f})", sparse),
                          ("S-KLR path mean", mean)]  # fmt: skip
            picks.append(("SVC", svc))
            picks += [(f"Nyström {r['n_components']} + LR", r) for r in d["nystroem"]
                      if r["C"] == svc["C"]]  # fmt: skip
            rows += [{"dataset": name, "C": svc["C"], "method": label, **r,
                      "vs_svc": r["seconds"] / svc["seconds"]} for label, r in picks]  # fmt: skip
    return rows


COLUMNS: list[report.Column] = [
    ("dataset", "dataset"), ("C", "C:g"), ("method", "method"), ("accuracy", "accuracy:.4f"),
    ("% points", lambda r: f"{100 * r['points']:.1f}"),
    ("fit ms", lambda r: f"{1e3 * r['seconds']:.1f}"), ("÷ SVC time", "vs_svc:.2f"),
    ("iterations", "n_iter:.0f")
]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__)
    harness.options(p, datasets=(None, None, harness.strs),
                    quick=(False, "< 1 min: wisconsin + spambase (1500 rows)"),
                    C=(None, "C values (1, 10, 100, 1000)", harness.floats),
                    n_lam=(None, "λ/C values (default 10)", int),
                    nystroem=(None, "n_components (100,...)", harness.ints),
                    max_rows=(None, "'magic=8000', one int, or 'none'"),
                    repeats=(1, "timing: median over repeats"), threads=(1, "S-KLR n_jobs"),
                    tol=1e-5, max_iter=10_000_000, time_limit=(600.0, "S-KLR s per fit"),
                    cache_size=(1000.0, "MB, S-KLR and SVC"), seed=0,
                    out=(None, None, harness.Path))  # fmt: skip
    a = p.parse_args(argv)
    names = a.datasets or ["wisconsin", "spambase", *([] if a.quick else ["twonorm", "magic"])]
    harness.known(p, "datasets", names, list(DATASETS))
    a.C = a.C or ([1.0, 100.0] if a.quick else [1.0, 10.0, 100.0, 1000.0])
    a.n_lam = a.n_lam or (4 if a.quick else 10)
    a.nystroem = a.nystroem or ([100, 300] if a.quick else [100, 300, 1000])
    quick_caps = a.quick and a.max_rows is None
    caps = {"spambase": 1500} if quick_caps else parse_max_rows(a.max_rows or "magic=6000")
    out = a.out or harness.RESULTS / ("klr_bench_quick.json" if a.quick else "klr_bench.json")
    run, per = harness.Run(argv), {}
    cfg = {"data_dir": a.data, "max_rows": caps, "seed": a.seed}
    with blas_threads(1):  # single-threaded BLAS: a fair peer of LIBSVM and n_jobs=1
        rng = np.random.default_rng(a.seed)  # an untimed warm-up fit of each method first
        Xw = rng.random((60, 4))
        yw = (Xw[:, 0] > 0.5).astype(np.int64)
        run_klr(Xw, yw, Xw, yw, 1.0, 0.1, a)
        run_svc(Xw, yw, Xw, yw, 1.0, a)
        run_nystroem(Xw, yw, Xw, yw, 1.0, 20, a)
        for name in names:
            per[name] = run_dataset(name, a, cfg)
    rows = summary(per)
    lam0, path = [], []
    for d in per.values():
        for svc in d["svc"]:
            if ks := [r for r in d["klr"] if r["C"] == svc["C"] and "error" not in r]:
                lam0.append(ks[0]["seconds"] / svc["seconds"])
                path.append(float(np.mean([r["seconds"] for r in ks])) / svc["seconds"])
    geo = lambda v: float(np.exp(np.mean(np.log(v)))) if v else None  # noqa: E731
    ratios = {"klr_lam0_over_svc_geomean": geo(lam0), "pairs": len(lam0),
              "klr_path_mean_over_svc_geomean": geo(path)}  # fmt: skip
    settings = (f"gamma 0.5; C {a.C}; λ/C linspace(0, 1, {a.n_lam}); Nyström {a.nystroem}; S-KLR "
                f"tol {a.tol:g}, max_iter {a.max_iter:,}, n_jobs {a.threads}; row caps "
                f"{caps or 'none'}; 80/20 stratified split, seed {a.seed}; time = median over "
                f"{a.repeats} run(s)")  # fmt: skip
    record = run.record(title="S-KLR vs SVC vs Nyström + LogisticRegression", settings=settings,
                        ratios=ratios, summary_rows=rows, datasets=per)  # fmt: skip
    png = out.with_suffix(".png")
    panels: dict[str, dict[str, Any]] = {}
    for name, d in per.items():
        for r in d["klr"] + d["svc"] + d["nystroem"]:
            kind = "S-KLR" if "lam" in r else "SVC" if "n_components" not in r else (
                f"Nyström {r['n_components']} + LR")  # fmt: skip
            line = panels.setdefault(f"{name} (n_train {d['n_train']:,})", {}).setdefault(
                f"{kind} C={r['C']:g}", ([], {"ls": "-" if kind == "S-KLR" else ""}))  # fmt: skip
            line[0].append((100 * r["points"], r.get("accuracy")))
    drew = report.lines(png, panels, "test accuracy vs % training points used (S-KLR: λ/C from "
                        "0 to 1)", "% training points used (log)", "test accuracy", logy=False,
                        ncols=2)  # fmt: skip
    lam0_text, path_text = (report.fmt(ratios[f"klr_{k}_over_svc_geomean"], ".2f")
                            for k in ("lam0", "path_mean"))  # fmt: skip
    geo_text = f"λ = 0 ×{lam0_text}, mean over the λ path ×{path_text}"
    md = ["# S-KLR benchmark: SVC and Nyström + LogisticRegression", "",
          f"Started {run.started}; wall time {run.wall:.0f} s.", "", f"Settings: {settings}.", "",
          "% points: S-KLR sparsity_ (α > γ), SVC n_SV/n_train, Nyström n_components/n_train. "
          "'÷ SVC time': fit time divided by SVC's at the same C.", "",
          report.table(rows, COLUMNS, 3, done=None), "",
          f"S-KLR / SVC fit time, geometric mean over (dataset, C): {geo_text}.", "",
          f"![accuracy vs sparsity]({png.name})" if drew else "(no plot)", "",
          "## Machine", "", "```", str(record["machine"]), "```", ""]  # fmt: skip
    run.write(out, record, "\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
