"""``SVC(probability=True)``: fit time against scikit-learn and scikit-learn-intelex (issue 44).

Every solver fits the same rows with the same parameters, ``tol=1e-3``, a 200 MB cache and
the same thread count (``n_jobs``; scikit-learn's LIBSVM is single-threaded), each fit in a
fresh process; reported beside the time: the log-loss and accuracy of ``predict_proba`` on
held-out rows, and the mean absolute difference of the probabilities from scikit-learn's.
kernelkit's fit without ``probability`` is timed too: the overhead of the 5 cross-validation
folds per pair.

Cases (``../shared/data``):

* ``a9a``: the first 8,000 rows of the official training split, binary features; test: the
  first 4,000 rows of a9a.t; C=1, gamma=0.05.
* ``usps``: the 7,291 training rows (10 classes, 45 pairs), the 2,007 test rows; C=10,
  gamma=1/256.
* ``mc``: ``make_classification(9000, 20, n_informative=10, n_classes=4, flip_y=0.05,
  random_state=0)`` standardised, the first 6,000 rows for training (not tuned); C=1,
  gamma="scale".

    cd benches && python bench_probability.py --threads 1,2 --repeats 3

Writes ``<out>.json`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    load_svmlight_dense,
    machine_info,
    markdown_table,
    parse_int_list,
    run_isolated,
    standardize,
    write_json,
)

CACHE_MB = 200
TOL = 1e-3
SOLVERS = ("kernelkit", "kernelkit-plain", "sklearn", "sklearnex")


def load(case: str, data: Path) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    if case == "a9a":
        X, y = load_svmlight_dense(data / "a9a" / "a9a.train.svm", 123, 8000)
        Xt, yt = load_svmlight_dense(data / "a9a" / "a9a.test.svm", 123, 4000)
        return X, y, Xt, yt, {"C": 1.0, "gamma": 0.05}
    if case == "usps":
        z = np.load(data / "usps" / "usps.npz")
        params = {"C": 10.0, "gamma": 1 / 256}
        return z["X_train"], z["y_train"], z["X_test"], z["y_test"], params
    if case == "mc":
        from sklearn.datasets import make_classification

        X, y = make_classification(
            9000, 20, n_informative=10, n_classes=4, flip_y=0.05, random_state=0
        )
        X = standardize(X)
        return X[:6000], y[:6000], X[6000:], y[6000:], {"C": 1.0, "gamma": "scale"}
    raise ValueError(f"unknown case {case!r}")


def fit_once(case: str, solver: str, threads: int, data: str) -> dict[str, Any]:
    """One fit in this (fresh) process, its native thread pools capped at ``threads``: time,
    and the test rows' probabilities."""
    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore", FutureWarning)  # scikit-learn 1.9 deprecates probability
    with threadpool_limits(threads):
        return _fit_once(case, solver, threads, data)


def _fit_once(case: str, solver: str, threads: int, data: str) -> dict[str, Any]:
    X, y, Xt, _, params = load(case, Path(data))
    common = {**params, "tol": TOL, "cache_size": CACHE_MB, "random_state": 0}
    if solver.startswith("kernelkit"):
        import kernelkit

        est = kernelkit.SVC(**common, probability=solver == "kernelkit", n_jobs=threads)
    elif solver == "sklearnex":
        import sklearnex.svm

        est = sklearnex.svm.SVC(**common, probability=True, n_jobs=threads)
    else:
        import sklearn.svm

        est = sklearn.svm.SVC(**common, probability=True)
    started = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - started
    proba = est.predict_proba(Xt) if solver != "kernelkit-plain" else None
    return {"fit_s": seconds, "proba": proba}


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for case in args.cases:
        _, _, _, yt, _ = load(case, args.data)
        classes = np.unique(yt)
        for threads in args.threads:
            row: dict[str, Any] = {"case": case, "threads": threads}
            reference = None
            for solver in SOLVERS:
                if solver == "sklearnex" and not find_spec("sklearnex"):
                    continue
                if solver == "sklearn" and threads != args.threads[0]:
                    row[solver] = rows[-1][solver]  # single-threaded: timed once per case
                    reference = rows[-1]["_reference"]
                    continue
                times = []
                for _ in range(args.repeats):
                    result = run_isolated(fit_once, (case, solver, threads, str(args.data)))
                    times.append(result["fit_s"])
                entry: dict[str, Any] = {"fit_s": float(np.median(times)), "runs": times}
                proba = result["proba"]
                if proba is not None:
                    entry["log_loss"] = _log_loss(yt, proba, classes)
                    entry["accuracy"] = float(np.mean(classes[proba.argmax(axis=1)] == yt))
                    if solver == "sklearn":
                        reference = proba
                    entry["proba"] = proba
                row[solver] = entry
            row["_reference"] = reference
            for solver in SOLVERS:
                entry = row.get(solver, {})
                if "proba" in entry and reference is not None:
                    entry["mean_abs_diff_vs_sklearn"] = float(
                        np.abs(entry["proba"] - reference).mean()
                    )
            rows.append(row)
            print(_line(row), flush=True)
    for row in rows:
        row.pop("_reference", None)
        for solver in SOLVERS:
            row.get(solver, {}).pop("proba", None)
    return rows


def _log_loss(y: Any, proba: Any, classes: Any) -> float:
    index = np.searchsorted(classes, y)
    return float(-np.mean(np.log(np.clip(proba[np.arange(len(y)), index], 1e-15, 1.0))))


def _line(row: dict[str, Any]) -> str:
    kk = row["kernelkit"]["fit_s"]
    parts = [f"{row['case']} t={row['threads']}: kernelkit {kk:.2f} s"]
    for solver in SOLVERS[1:]:
        if solver in row:
            parts.append(
                f"{solver} {row[solver]['fit_s']:.2f} s ({row[solver]['fit_s'] / kk:.2f}x)"
            )
    return ", ".join(parts)


def table(rows: list[dict[str, Any]]) -> str:
    header = [
        "case",
        "threads",
        "kernelkit s",
        "sklearn s",
        "sklearnex s",
        "sklearn / kk",
        "sklearnex / kk",
        "kk plain s",
        "log-loss kk / sk / ex",
        "mean |Δp| kk / ex vs sk",
    ]
    body = []
    for r in rows:
        kk, sk, ex, plain = (r.get(s, {}) for s in SOLVERS[:1] + SOLVERS[2:] + SOLVERS[1:2])
        body.append(
            [
                r["case"],
                str(r["threads"]),
                f"{kk['fit_s']:.2f}",
                f"{sk.get('fit_s', np.nan):.2f}",
                f"{ex.get('fit_s', np.nan):.2f}",
                f"{sk.get('fit_s', np.nan) / kk['fit_s']:.2f}",
                f"{ex.get('fit_s', np.nan) / kk['fit_s']:.2f}",
                f"{plain['fit_s']:.2f}",
                " / ".join(f"{e.get('log_loss', np.nan):.4f}" for e in (kk, sk, ex)),
                " / ".join(f"{e.get('mean_abs_diff_vs_sklearn', np.nan):.4f}" for e in (kk, ex)),
            ]
        )
    return markdown_table(header, body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="a9a,usps,mc", type=lambda s: s.split(","))
    parser.add_argument("--threads", default=[1, 2], type=parse_int_list)
    parser.add_argument("--repeats", default=1, type=int)
    parser.add_argument("--data", default=DEFAULT_DATA_DIR, type=Path)
    parser.add_argument("--out", default=Path("results/probability"), type=Path)
    args = parser.parse_args()
    rows = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out.with_suffix(".json"), {"machine": machine_info(), "rows": rows})
    args.out.with_suffix(".md").write_text(table(rows) + "\n")
    print(table(rows))


if __name__ == "__main__":
    main()
