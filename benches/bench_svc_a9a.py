"""Benchmark kernelkit.SVC against scikit-learn and scikit-learn-intelex on a9a.

Protocol (../shared/BENCHMARKS.md): the first n rows of a9a (densified, float64), the same C,
numeric gamma, tol and cache budget for every solver, in one run; each fit in a fresh process
(peak RSS per fit); beside every time the dual objective recomputed from ``support_vectors_``
and ``dual_coef_``, #SV and the accuracy on a9a.t. Writes ``results/svc_a9a.{json,md}``.

    python benches/bench_svc_a9a.py --quick
    python benches/bench_svc_a9a.py --sizes 4000,8000,16000,32561 --cache-size 200
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import harness
from harness import data, report, runner
from harness.machine import importable
from harness.objectives import relative_difference
from harness.svm import svm_case

SOLVERS = ("kernelkit", "sklearn", "sklearnex")
COLUMNS: list[report.Column] = [
    ("n", "n:,"), ("solver", "label"), ("reps", "ok_repeats"), ("fit s (median)", "~fit_s:.3f"),
    ("time / kernelkit", "fit_ratio:.2f"), ("predict s", "~predict_s:.3f"), ("#SV", "n_sv:,"),
    ("test acc", "score:.5f"), ("dual objective", "objective:.4f"),
    ("rel. obj. diff vs sklearn", "objective_rel_diff:+.2e"),
    ("agree w/ sklearn", "agreement:.5f"), ("fit peak RSS MB (+growth)", report.rss),
    ("iters", lambda r: "/".join(f"{float(i):.0f}" for i in r["n_iter"])),
]  # fmt: skip


def ratios(rows: list[dict]) -> str:
    picks = {f"{s} / kernelkit time": (s, "fit_ratio") for s in ("sklearn", "sklearnex")}
    picks |= {f"{s} obj. rel. diff": (s, "objective_rel_diff") for s in ("kernelkit", "sklearnex")}
    cols = [("n", "n:,")] + [(k, f"{k}:{'.2f' if 'time' in k else '+.2e'}") for k in picks]
    return report.table(runner.pivot(rows, ["n"], picks), cols, done=None)


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "svc_a9a.json")
    harness.options(p, sizes=[4000, 8000, 16000, 32561], quick=(False, "sizes 2000,4000 only"),
                    solvers=(list(SOLVERS), None, harness.strs),
                    repeats=(None, "default 3 for n <= 8000, else 1", int),
                    cache_size=(200.0, "kernel cache in MB (all)"),
                    n_jobs=(2, "threads for kernelkit and sklearnex"), C=1.0, gamma=0.5, tol=1e-3,
                    timeout=(3600.0, "seconds per fit"),
                    no_isolate=(False, "fit in this process (no RSS)"))  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "solvers", a.solvers, SOLVERS)
    solvers = [s for s in a.solvers if importable(s)]
    params = {"C": a.C, "kernel": "rbf", "gamma": a.gamma, "tol": a.tol, "cache_size": a.cache_size}
    run = harness.Run(argv)
    ds = data.load("a9a", a.data)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="kk_a9a_") as tmp:
        stash = data.stash(
            Path(tmp), X_train=ds.X, y_train=ds.y, X_test=ds.X_test, y_test=ds.y_test
        )
        for n in sorted({min(n, len(ds.y)) for n in ([2000, 4000] if a.quick else a.sizes)}):
            cases = [
                svm_case(s, s, "SVC", params, stash, {"n": n}, n=n, timeout=a.timeout,
                         n_jobs=None if s == "sklearn" else a.n_jobs)
                for s in solvers
            ]  # fmt: skip
            rows += runner.run(cases, a.repeats or (3 if n <= 8000 else 1), not a.no_isolate)
    runner.compare(rows, ["n"])
    title = (f"a9a (dense float64, 123 features), RBF gamma={a.gamma:g}, C={a.C:g}, tol={a.tol:g}, "
             f"cache {a.cache_size:g} MB, n_jobs={a.n_jobs} (kernelkit, sklearnex; sklearn is "
             "single-threaded)")  # fmt: skip
    record = run.record(benchmark="svc_a9a", description=title, config=vars(a), results=rows)
    md = [f"## SVC on {title}", "",
          f"Test set: a9a.t, {len(ds.y_test):,} rows. {run.load_line(record)}",
          "Fit time: median over `reps` fresh subprocesses (range in parentheses). Dual objective: "
          "0.5 a'Qa - e'a recomputed from support_vectors_/dual_coef_ (LIBSVM sign: <= 0).", "",
          report.table(rows, COLUMNS, 2), "", ratios(rows)]  # fmt: skip
    for r in rows:
        if r["label"] == "kernelkit" and r.get("reported_objective"):
            rep, obj = r["reported_objective"][0], r["objective"]
            md += ["", f"kernelkit n={r['n']:,}: reported objective_ {rep:.6f}, independent "
                   f"{obj:.6f} (rel. diff {relative_difference(rep, obj):+.2e}), kkt_gap_ "
                   f"{r['reported_kkt_gap']}, status_ {r['reported_status']}"]  # fmt: skip
        if r.get("backend") == "sklearn":
            md += ["", f"warning: sklearnex fell back to scikit-learn at n={r['n']:,}"]
    report.strip(rows)
    run.write(a.out, record, "\n".join(md))
    return 0 if all("error" not in r for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
