"""``SVC(probability=True)``: fit time against scikit-learn and scikit-learn-intelex (issue 44),
the same rows, parameters, tol=1e-3, 200 MB cache and threads, each fit in a fresh process;
beside the time the log-loss of ``predict_proba`` on held-out rows and the mean |Δp| from
scikit-learn's; kernelkit without ``probability`` too (the cost of the 5 CV folds per pair).
Cases: ``a9a`` (8,000 rows, test 4,000 of a9a.t; C=1, gamma=0.05), ``usps`` (C=10,
gamma=1/256), ``mc`` (``make_classification(9000, 20, n_informative=10, n_classes=4,
flip_y=0.05)`` standardised, 6,000 rows; C=1, gamma="scale").

    cd benches && python bench_probability.py --threads 1,2 --repeats 3
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import harness
import numpy as np
from harness import data, report, runner
from harness.machine import importable
from harness.svm import svm_case

SOLVERS = ("kernelkit", "kernelkit-plain", "sklearn", "sklearnex")


def load(case: str, d: Path) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    if case == "a9a":
        ds = data.load("a9a", d)
        X, y, Xt, yt = ds.X[:8000], ds.y[:8000], ds.X_test[:4000], ds.y_test[:4000]
        return X, y, Xt, yt, {"C": 1.0, "gamma": 0.05}
    if case == "usps":
        ds = data.load("usps", d)
        return ds.X, ds.y, ds.X_test, ds.y_test, {"C": 10.0, "gamma": 1 / 256}
    from sklearn.datasets import make_classification

    X, y = make_classification(9000, 20, n_informative=10, n_classes=4, flip_y=0.05, random_state=0)
    X = data.standardize(X)
    return X[:6000], y[:6000], X[6000:], y[6000:], {"C": 1.0, "gamma": "scale"}


def log_loss(y: Any, proba: Any, classes: Any) -> float:
    index = np.searchsorted(classes, y)
    return float(-np.mean(np.log(np.clip(proba[np.arange(len(y)), index], 1e-15, 1.0))))


def table(rows: list[dict[str, Any]]) -> str:
    def get(solver: str, key: str) -> Any:
        return lambda r: (
            f"{r.get(solver, {}).get(key, np.nan):{'.4f' if 'fit' not in key else '.2f'}}"
        )

    def ratio(solver: str) -> Any:
        return lambda r: f"{r.get(solver, {}).get('fit_s', np.nan) / r['kernelkit']['fit_s']:.2f}"

    def joined(key: str, solvers: tuple[str, ...]) -> Any:
        return lambda r: " / ".join(get(s, key)(r) for s in solvers)

    cols: list[report.Column] = [
        ("case", "case"), ("threads", "threads"), ("kernelkit s", get("kernelkit", "fit_s")),
        ("sklearn s", get("sklearn", "fit_s")), ("sklearnex s", get("sklearnex", "fit_s")),
        ("sklearn / kk", ratio("sklearn")), ("sklearnex / kk", ratio("sklearnex")),
        ("kk plain s", get("kernelkit-plain", "fit_s")),
        ("log-loss kk / sk / ex", joined("log_loss", ("kernelkit", "sklearn", "sklearnex"))),
        ("mean \\|Δp\\| kk / ex vs sk",
         joined("mean_abs_diff_vs_sklearn", ("kernelkit", "sklearnex"))),
    ]  # fmt: skip
    return report.table(rows, cols, done=None)


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "probability")
    harness.options(p, cases=["a9a", "usps", "mc"], threads=[1, 2], repeats=1)  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "cases", a.cases, ("a9a", "usps", "mc"))
    run, rows = harness.Run(argv), []
    solvers = [s for s in SOLVERS if importable(s.split("-")[0])]
    with tempfile.TemporaryDirectory(prefix="kk_probability_") as tmp:
        for case in a.cases:
            X, y, Xt, yt, params = load(case, a.data)
            folder = data.stash(Path(tmp, case), X_train=X, y_train=y, X_test=Xt, y_test=yt)
            classes = np.unique(yt)
            for t in a.threads:
                row: dict[str, Any] = {"case": case, "threads": t}
                fits = [s for s in solvers if s != "sklearn" or t == a.threads[0]]
                cases = [
                    svm_case(s, s.split("-")[0], "SVC", {**params, "tol": 1e-3, "cache_size": 200,
                             "random_state": 0, "probability": s != "kernelkit-plain"}, folder, {},
                             n_jobs=None if s == "sklearn" else t, blas=t, objective=False,
                             proba=s != "kernelkit-plain")
                    for s in fits
                ]  # fmt: skip
                for r in runner.run(cases, a.repeats):
                    entry = {"fit_s": r["fit_s"], "runs": r["fit_s_all"], "proba": r.get("proba")}
                    if entry["proba"] is not None:
                        entry["log_loss"] = log_loss(yt, r["proba"], classes)
                        entry["accuracy"] = float(np.mean(classes[r["proba"].argmax(axis=1)] == yt))
                    row[r["label"]] = entry
                if "sklearn" not in row and rows:  # single-threaded: timed once per case
                    row["sklearn"] = rows[-1]["sklearn"]
                reference = row.get("sklearn", {}).get("proba")
                for entry in (row.get(s, {}) for s in SOLVERS):
                    if entry.get("proba") is not None and reference is not None:
                        entry["mean_abs_diff_vs_sklearn"] = float(
                            np.abs(entry["proba"] - reference).mean()
                        )
                rows.append(row)
                print(table([row]).splitlines()[-1], flush=True)
    md = table(rows)
    report.strip([e for r in rows for e in r.values() if isinstance(e, dict)])
    run.write(a.out, run.record(rows=rows), md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
