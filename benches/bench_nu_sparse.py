"""kernelkit's ν-SVC and sparse-input SVC against scikit-learn and scikit-learn-intelex on a9a
and w8a (RBF, the same gamma, tol, cache and threads for all): ``nu``, ``NuSVC`` on dense rows;
``sparse``, ``SVC(C=1)`` on the CSR matrix itself, plus kernelkit on the densified rows
(``kernelkit-dense``: the same model). Each fit in a fresh process; beside the times the C-SVC
form dual ``0.5 dc'K dc - sum|dc|`` from the fitted attributes (for NuSVC too: its
``dual_coef_`` is the C form scaled by 1/r), #SV, accuracy, agreement with sklearn, the fit's
memory beside the n*d*8 of a dense copy; objectives 1e-3 apart from sklearn's are flagged. ν is
capped at 0.9 · 2 min(n+, n-)/n of each subset. w8a's last 9,749 rows are its test set, after a
seeded permutation of its label-sorted rows (``--w8a-order file``: none).

    python benches/bench_nu_sparse.py --quick
    python benches/bench_nu_sparse.py --sizes 4000,16000 --repeats 3
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import harness
import numpy as np
import scipy.sparse as sp
from harness import data, report, runner
from harness.machine import importable
from harness.objectives import relative_difference
from harness.svm import svm_case

SOLVERS, KK_DENSE = ("kernelkit", "sklearn", "sklearnex"), "kernelkit-dense"
DATASETS = {"a9a": (123, 0.5, 0.5), "w8a": (300, 0.1, 0.05)}  # features, gamma, requested ν
W8A_N_TEST, OBJECTIVE_MISMATCH = 9_749, 1e-3


def prepare(name: str, a: Any, tmp: str) -> tuple[dict[str, Any], Any, Any]:
    """Split one dataset, stash its CSR and dense copies; its description, y_train, row nnz."""
    d = data.load(name, a.data, dense=False)
    X, y, Xt, yt = d.X, d.y, d.X_test, d.y_test
    desc: dict[str, Any] = {"train": str(a.data / d.source),
                            "test": str(a.data / "a9a/a9a.test.svm")}  # fmt: skip
    if Xt is None:
        if a.w8a_order == "shuffled":
            perm = np.random.default_rng(0).permutation(X.shape[0])
            X, y = X[perm], y[perm]
        desc["row_order"] = "permuted with numpy default_rng(0).permutation" if (
            a.w8a_order == "shuffled") else "file order (sorted by label)"  # fmt: skip
        cut = X.shape[0] - W8A_N_TEST
        X, Xt, y, yt = X[:cut], X[cut:], y[:cut], y[cut:]
        desc["test"] = f"last {W8A_N_TEST:,} rows"
    for layout in ("csr", "dense"):
        cast = (lambda M: M) if layout == "csr" else (lambda M: M.toarray())
        data.stash(Path(tmp, name, layout), X_train=cast(X), y_train=y, X_test=cast(Xt), y_test=yt)
    desc |= {"n_train_available": X.shape[0], "n_test": Xt.shape[0],
             "test_positive_fraction": float(np.mean(yt > 0)), "gamma": DATASETS[name][1],
             "nu_requested": DATASETS[name][2], "by_size": {}}  # fmt: skip
    return desc, y, np.diff(sp.csr_matrix(X).indptr)


def growth(r: dict[str, Any]) -> float | None:
    peak, start = r.get("peak_rss_fit_mb"), r.get("rss_at_fit_start_mb")
    return None if peak is None or start is None else peak - start


RESULTS: list[report.Column] = [
    ("dataset", "dataset"), ("n", "n:,"), ("solver", "label"), ("input", "layout"),
    ("reps", "ok_repeats"), ("fit s (median)", "~fit_s:.3f"), ("time / kernelkit", "fit_ratio:.2f"),
    ("predict s", "~predict_s:.3f"), ("#SV", "n_sv:,"), ("test acc", "score:.5f"),
    ("dual objective (C form)", "objective:.4f"),
    ("rel. obj. diff vs sklearn", "objective_rel_diff:+.2e"), ("agree w/ sklearn", "agreement:.5f"),
    ("fit peak RSS MB (+growth)", report.rss),
    ("dense copy n·d·8 MB", lambda r: f"{r['dense_copy_mb']:.1f}" if r["layout"] == "csr" else ""),
    ("iters / backend", lambda r: r.get("backend") or "/".join(f"{i:.0f}" for i in r["n_iter"])),
]  # fmt: skip


RATIOS = {f"{s} / kernelkit time": (s, "fit_ratio") for s in ("sklearn", "sklearnex", KK_DENSE)}
RATIOS |= {f"{s} obj. rel. diff": (s, "objective_rel_diff") for s in ("kernelkit", "sklearnex")}
TEXT = (
    "Fit time: median over `reps` fresh subprocesses (range in parentheses). Dual objective: 0.5 "
    "dc'K dc - sum|dc| from support_vectors_/dual_coef_ (LIBSVM sign: <= 0; for ν-SVC the C-SVC "
    "form with C = 1/r). RSS growth: peak RSS during fit minus RSS at fit start (includes the "
    "kernel cache, up to cache_size; kernelkit reports the cache bytes in use in solver_stats_, "
    "subtracted in the Ratios table)."
)


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (dataset, task, n): the ratios, objective differences and kernelkit's CSR memory."""
    keys = ["dataset", "task", "n"]
    out = runner.pivot(rows, keys, RATIOS | {"nu": ("kernelkit", "nu")})
    for s, by in zip(out, runner.groups(rows, keys).values(), strict=True):
        kk = by.get("kernelkit", {})
        if s["task"] == "sparse" and growth(kk) is not None:
            cache = (kk.get("solver_stats") or {}).get("cache_bytes_in_use")
            excl = "" if cache is None else f" ({growth(kk) - cache / 2**20:.1f})"
            s["memory"] = f"{growth(kk):.1f}{excl} / {kk['dense_copy_mb']:.1f}"
    return out


def markdown(record: dict[str, Any], a: Any) -> str:
    rows, by = record["results"], runner.groups(record["results"], ["dataset", "task", "n"])
    md = [f"## ν-SVC (dense) and sparse-input SVC (CSR): {record['description']}", ""]
    md += [harness.Run.load_line(record), ""]
    for ds, info in record["data"].items():
        sizes = ", ".join(f"n={int(k):,}: ν={v['nu']:.4f} (max {v['nu_max']:.4f}), "
                          f"{v['n_positive']:,} positive, {v['empty_rows']:,} all-zero rows"
                          for k, v in info["by_size"].items())  # fmt: skip
        order = f"rows {info['row_order']}; " if "row_order" in info else ""
        test = f"{info['test']} ({info['n_test']:,} rows, {info['test_positive_fraction']:.1%}"
        md.append(f"- **{ds}**: gamma={info['gamma']:g}; {order}test: {test} positive); "
                  f"requested ν={info['nu_requested']:g}; {sizes}")  # fmt: skip
    md += ["", TEXT, ""]
    titles = {"nu": "### ν-SVC (NuSVC), dense float64 input, C-form objective",
              "sparse": f"### SVC(C={a.C:g}) on scipy.sparse CSR input ({KK_DENSE}: "
                        "densified)"}  # fmt: skip
    for task in a.tasks:
        if mine := [r for r in rows if r["task"] == task]:
            md += [titles[task], "", report.table(mine, RESULTS, 4), ""]
    summary = ratios(rows)
    cols: list[report.Column] = [("dataset", "dataset"), ("task", "task"), ("n", "n:,")]
    cols += [("ν", "nu:.4f")] + [(k, f"{k}:{'.2f' if 'time' in k else '+.2e'}") for k in RATIOS]
    cols += [
        ("kernelkit CSR fit RSS growth MB (excl. kernel cache) / dense copy n·d·8 MB", "memory")
    ]
    md += ["### Ratios", "", report.table(summary, cols, 2, done=None)]
    for r in rows:
        where = f"{r['dataset']} {r['task']}"
        if r["label"] == "kernelkit" and r.get("reported_objective"):
            rep, obj = float(r["reported_objective"][0]), r["objective"]
            rep_c = rep - r["sum_abs_dual_coef"] if r["task"] == "nu" else rep  # ν: ½dc'K dc
            form = "ν form ½dc'K dc; minus Σ|dc|: " if r["task"] == "nu" else ""
            rel = relative_difference(rep_c, obj)
            md += ["", f"kernelkit {where} n={r['n']:,}: reported objective_ {rep:.6f} ({form}C "
                   f"form {rep_c:.6f}), independent {obj:.6f} (rel. diff {rel:+.2e}), kkt_gap_ "
                   f"{r['reported_kkt_gap']}, status_ {r['reported_status']}"]  # fmt: skip
        where += f" ({r['layout']})"
        rel = r.get("objective_rel_diff")
        if rel is not None and abs(rel) > OBJECTIVE_MISMATCH:
            empty = record["data"][r["dataset"]]["by_size"][str(r["n"])]["empty_rows"]
            sk = by[(r["dataset"], r["task"], r["n"])]["sklearn"]
            zero = f" (training rows include {empty:,} all-zero rows)" if empty else ""
            md += ["", f"warning: {r['label']} {where} n={r['n']:,}: objective {rel:+.2e} "
                   f"relative to sklearn, {r['n_sv']:,} SVs vs {sk['n_sv']:,}: not the same "
                   f"optimum{zero}"]  # fmt: skip
        if r.get("backend") == "sklearn":
            md += ["", f"warning: sklearnex fell back to scikit-learn for {where} at n={r['n']:,}"]
        if r["layout"] == "csr" and "fit_s" in r and not r.get("support_vectors_sparse"):
            md += ["", f"note: {r['label']} returned dense support_vectors_ for CSR input"]
    return "\n".join(md)


def cases(ds: str, n: int, task: str, nu: float, nu_max: float, a: Any, tmp: str) -> list[Any]:
    """The fits of one (dataset, size, task): dense for ν-SVC; CSR (+ kernelkit dense) for SVC."""
    n_features, gamma, _ = DATASETS[ds]
    params = {"kernel": "rbf", "gamma": gamma, "tol": a.tol, "cache_size": a.cache_size}
    params |= {"nu": nu} if task == "nu" else {"C": a.C}
    fits = [(s, s, "dense" if task == "nu" else "csr") for s in a.solvers if importable(s)]
    if task == "sparse" and ("kernelkit", "kernelkit", "csr") in fits:
        fits.append((KK_DENSE, "kernelkit", "dense"))
    keys = {"dataset": ds, "task": task, "n": n, "gamma": gamma, "nu": None, "nu_max": None}
    keys |= {"nu": nu, "nu_max": nu_max} if task == "nu" else {}
    keys["dense_copy_mb"] = n * n_features * 8 / 2**20
    return [
        svm_case(label, solver, "NuSVC" if task == "nu" else "SVC", params, str(Path(tmp, ds, lay)),
                 {**keys, "layout": lay}, n=n, timeout=a.timeout,
                 n_jobs=None if solver == "sklearn" else a.n_jobs)
        for label, solver, lay in fits
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "nu_sparse.json")
    harness.options(p, sizes=([4000, 16000], "first n rows"), quick=(False, "size 2000 only"),
                    datasets=(list(DATASETS), None, harness.strs), tasks=["nu", "sparse"],
                    solvers=(list(SOLVERS), None, harness.strs),
                    repeats=(1, "timings per fit (median reported)"),
                    cache_size=(200.0, "kernel cache in MB (all)"),
                    n_jobs=(2, "threads for kernelkit and sklearnex"),
                    C=(1.0, "C of the sparse-input SVC"), tol=1e-3,
                    timeout=(3600.0, "seconds per fit"),
                    w8a_order=("shuffled", None, ("shuffled", "file")),
                    no_isolate=(False, "fit in this process (no RSS)"))  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "datasets", a.datasets, list(DATASETS))
    harness.known(p, "tasks", a.tasks, ("nu", "sparse"))
    harness.known(p, "solvers", a.solvers, SOLVERS)
    run, rows, info = harness.Run(argv), [], {}
    with tempfile.TemporaryDirectory(prefix="kk_nu_sparse_") as tmp:
        for ds in a.datasets:
            info[ds], y, row_nnz = prepare(ds, a, tmp)
            for n in sorted({min(n, len(y)) for n in ([2000] if a.quick else a.sizes)}):
                n_pos = int(np.sum(y[:n] > 0))
                nu_max = 2.0 * min(n_pos, n - n_pos) / n
                nu = min(DATASETS[ds][2], 0.9 * nu_max)
                empty = int(np.sum(row_nnz[:n] == 0))
                info[ds]["by_size"][str(n)] = {"nu": nu, "nu_max": nu_max, "n_positive": n_pos,
                                               "empty_rows": empty}  # fmt: skip
                for task in a.tasks:
                    rows += runner.run(cases(ds, n, task, nu, nu_max, a, tmp), a.repeats,
                                       not a.no_isolate)  # fmt: skip
    runner.compare(rows, ["dataset", "task", "n"])
    title = (f"RBF, tol={a.tol:g}, cache {a.cache_size:g} MB, n_jobs={a.n_jobs} (kernelkit, "
             "sklearnex; sklearn is single-threaded)")  # fmt: skip
    record = run.record(description=title, data=info, config=vars(a), results=rows)
    md = markdown(record, a)
    report.strip(rows)
    run.write(a.out, record, md)
    return 0 if all("error" not in r for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
