"""Thread scaling against scikit-learn-intelex (issue 42): both solvers at each thread count of
``--threads`` (``n_jobs``), the same data, parameters, 200 MB cache and tol=1e-3. Cases (X
standardised on the training rows, regression targets too): ``a9a`` (train split, C=1,
gamma=0.5); ``magic`` (15,000 permuted rows, C=1, gamma=0.1); ``letter`` (15,000 rows, 325
pairs, C=10, gamma=1/16); ``adult`` (32,561 permuted rows, C=1, gamma=1/14); ``mc30k``,
``mc60k`` (``make_classification``, 50 features; C=1, gamma=0.02); SVR on ``cpu_act`` (C=10,
gamma=0.05, epsilon=0.05), ``fried``, ``2dplanes`` (C=1, gamma=0.1, epsilon=0.1); NuSVR
``fried-nu``, ``2dplanes-nu`` (nu=0.5). Each fit in a fresh process; the table: times, ratio,
kernelkit's speed-up over its first thread count, the largest relative difference of the dual
objectives, ``parallel_passes``, ``serial_seconds`` and the Amdahl bound T_first / serial.

    python benches/bench_scaling.py --threads 1,2
    python benches/bench_scaling.py --cases fried,fried-nu --threads 2 --engines auto,libsvm

Writes ``<out>.json`` and ``<out>.md``.
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
from harness.objectives import relative_difference
from harness.svm import svm_case


def _regression(d: Path, name: str) -> tuple[Any, Any]:
    from sklearn.model_selection import train_test_split

    ds = data.load(name, d)
    X, _, y, _ = train_test_split(ds.X, ds.y, train_size=0.75, random_state=0)
    return data.standardize(X), (y - y.mean()) / y.std()


def _rows(d: Path, name: str, n: int | None = None, permute: bool = False) -> tuple[Any, Any]:
    """The first n rows (of a default_rng(0) permutation), standardised; a9a as it is."""
    ds = data.load(name, d)
    if name == "a9a":
        return ds.X, ds.y
    order = np.random.default_rng(0).permutation(len(ds.y))[:n] if permute else slice(n)
    X, y = data.standardize(ds.X[order]), ds.y[order]
    return X, y if name == "letter" else np.where(y == np.unique(ds.y)[-1], 1.0, -1.0)


def _classification(n: int) -> tuple[Any, Any]:
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n + 5000, n_features=50, n_informative=20, flip_y=0.05, random_state=0
    )
    return data.standardize(X)[:n], np.where(y[:n] == 1, 1.0, -1.0)


SVR_P, SVR_NU = {"C": 1.0, "gamma": 0.1, "epsilon": 0.1}, {"C": 1.0, "gamma": 0.1, "nu": 0.5}
CASES: dict[str, tuple[str, dict[str, float], Any]] = {  # name -> (estimator, parameters, loader)
    "a9a": ("SVC", {"C": 1.0, "gamma": 0.5}, lambda d: _rows(d, "a9a")),
    "magic": ("SVC", {"C": 1.0, "gamma": 0.1}, lambda d: _rows(d, "magic", 15_000, True)),
    "letter": ("SVC", {"C": 10.0, "gamma": 1 / 16}, lambda d: _rows(d, "letter", 15_000)),
    "adult": ("SVC", {"C": 1.0, "gamma": 1 / 14}, lambda d: _rows(d, "adult", 32_561, True)),
    "mc30k": ("SVC", {"C": 1.0, "gamma": 0.02}, lambda _: _classification(30_000)),
    "mc60k": ("SVC", {"C": 1.0, "gamma": 0.02}, lambda _: _classification(60_000)),
    "cpu_act": ("SVR", {"C": 10.0, "gamma": 0.05, "epsilon": 0.05},
                lambda d: _regression(d, "197_cpu_act")),
    "fried": ("SVR", SVR_P, lambda d: _regression(d, "564_fried")),
    "fried-nu": ("NuSVR", SVR_NU, lambda d: _regression(d, "564_fried")),
    "2dplanes": ("SVR", SVR_P, lambda d: _regression(d, "215_2dplanes")),
    "2dplanes-nu": ("NuSVR", SVR_NU, lambda d: _regression(d, "215_2dplanes")),
}  # fmt: skip


def ex_s(r: dict[str, Any]) -> str:
    return report.fmt(r["ex"]["fit_s"], ".2f") if "fit_s" in r["ex"] else r["ex"].get("error", "—")


def table(rows: list[dict[str, Any]]) -> str:
    cols: list[report.Column] = [
        ("case", "case"), ("threads", "threads"),
        ("engine", lambda r: f"{r['kk'].get('engine', '-')} ({r['engine']})"),
        ("kernelkit s", "kk_s:.2f"), ("sklearnex s", ex_s), ("sklearnex / kk", "ratio:.2f"),
        ("kk speed-up", "speedup:.2f"), ("objective rel. diff", "rel:.1e"),
        ("passes", lambda r: str(r["kk"].get("parallel_passes", "—"))), ("serial s", "serial:.2f"),
        ("Amdahl bound", "amdahl:.1f"),
    ]  # fmt: skip
    return report.table(rows, cols, (0, 2), done=None)


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "scaling")
    harness.options(p, cases=(list(CASES), None, harness.strs), threads=[1, 2], repeats=1,
                    engines=(["auto"], "auto, libsvm, batched"))  # fmt: skip
    a = p.parse_args(argv)
    harness.known(p, "cases", a.cases, CASES)
    peers = ["sklearnex"] if importable("sklearnex") else []
    if not peers:
        print("scikit-learn-intelex is not installed: kernelkit only", file=sys.stderr)
    run, rows = harness.Run(argv), []
    with tempfile.TemporaryDirectory(prefix="kk_scaling_") as tmp:
        for name in a.cases:
            kind, params, loader = CASES[name]
            X, y = loader(a.data)
            folder = data.stash(Path(tmp, name), X_train=X, y_train=y)
            params = {**params, "kernel": "rbf", "tol": 1e-3, "cache_size": 200.0}
            base: dict[str, float] = {}  # kernelkit's time at the first thread count, per engine
            for t in a.threads:
                cases = [svm_case(s, s, kind, params, folder, {}, n_jobs=t) for s in peers]
                cases += [svm_case(e, "kernelkit", kind, params, folder, {}, n_jobs=t,
                                   kk={"engine": e}) for e in a.engines]  # fmt: skip
                done = {r["label"]: r for r in runner.run(cases, a.repeats)}
                ex = done.get("sklearnex", {})
                for engine in a.engines:
                    kk = {**done[engine], **done[engine].get("solver_stats", {})}
                    row = {"case": name, "estimator": kind, "threads": t, "engine": engine}
                    row |= {"kk": kk, "ex": ex}
                    if "fit_s" in kk:
                        first = base.setdefault(engine, kk["fit_s"])
                        serial = kk.get("serial_seconds")
                        row |= {"kk_s": kk["fit_s"], "speedup": first / kk["fit_s"]}
                        row |= {"serial": serial, "amdahl": first / serial if serial else None}
                        row["ratio"] = ex["fit_s"] / kk["fit_s"] if "fit_s" in ex else None
                    if "objective_pairs" in kk and "objective_pairs" in ex:
                        pairs = zip(kk["objective_pairs"], ex["objective_pairs"], strict=True)
                        row["rel"] = max(
                            (relative_difference(x, y) or 0.0 for x, y in pairs), key=abs
                        )
                    rows.append(row)
                    print(table([row]).splitlines()[-1], flush=True)
    md = table(rows)
    report.strip([r["kk"] for r in rows] + [r["ex"] for r in rows])
    run.write(a.out, run.record(rows=rows), md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
