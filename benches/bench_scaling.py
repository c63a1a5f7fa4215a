"""Thread scaling against scikit-learn-intelex: the SVC, SVR and NuSVR cases of issue 42, at
each thread count of ``--threads``, both solvers with the same data, parameters, cache
(200 MB), ``tol=1e-3`` and thread count (``n_jobs``).

Cases (pmlb files from ``../shared/data/pmlb``, X standardised with the training rows'
mean and deviation, regression targets too):

* ``a9a``: official a9a training split (32,561 x 123, binary features, not scaled), C=1,
  gamma=0.5.
* ``magic``: labels mapped to +-1, rows permuted with ``default_rng(0)``, the first 15,000 for
  training; C=1, gamma=0.1.
* ``letter``: the first 15,000 rows for training, 26 classes (325 one-vs-one pairs); C=10,
  gamma=1/16 (``"scale"`` of standardised rows).
* ``adult``: PMLB adult (the integer codes of the categorical columns as PMLB stores them),
  rows permuted with ``default_rng(0)``, the first 32,561 (a9a's training size); C=1,
  gamma=1/14 (``"scale"``).
* ``mc30k``, ``mc60k``: ``make_classification(n + 5000, n_features=50, n_informative=20,
  flip_y=0.05, random_state=0)``, the first n rows; C=1, gamma=0.02.
* ``cpu_act``, ``fried``, ``2dplanes``: 197_cpu_act, 564_fried, 215_2dplanes,
  ``train_test_split(train_size=0.75, random_state=0)``; SVR with C=10, gamma=0.05,
  epsilon=0.05 (cpu_act) or C=1, gamma=0.1, epsilon=0.1 (the others); ``fried-nu`` and
  ``2dplanes-nu``: NuSVR with nu=0.5 and the same C and gamma.

Every fit runs in a fresh process. For each case and thread count: the fit time of both
solvers (median of ``--repeats``), the ratio sklearnex / kernelkit, kernelkit's speed-up over
its own first thread count, the dual objectives (recomputed from the fitted dual coefficients
with one formula for both: SVC ``0.5 a'Qa - sum|a|`` per one-vs-one pair, summed over the
pairs, SVR ``0.5 b'Kb + eps sum|b| - y'b``, NuSVR ``0.5 b'Kb - y'b``) and their relative
difference (the largest over the pairs), and kernelkit's
``parallel_passes`` and ``serial_seconds`` with the Amdahl bound: no thread count can make
the fit faster than ``T_first / serial`` times its time at the first thread count.

    python benches/bench_scaling.py --threads 1,2                  # this machine
    python benches/bench_scaling.py --threads 1,2,4,8,16 --repeats 1 --out results/scaling16
    python benches/bench_scaling.py --cases fried,fried-nu --threads 2

Writes ``<out>.json``, ``<out>.md`` (the table) and ``<out>.png`` (time against threads).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    load_pmlb,
    load_svmlight_dense,
    machine_info,
    parse_str_list,
    rbf_quadratic_form,
    relative_difference,
    run_isolated,
    standardize,
    svc_pair_objectives,
    write_json,
)
from numpy.typing import NDArray

CACHE_MB, TOL = 200.0, 1e-3
# sklearnex/oneDAL turns max_iter=-1 into 10,000 iterations: a large explicit cap instead.
SKLEARNEX_MAX_ITER = 10**9
Arrays = tuple[NDArray[np.float64], NDArray[np.float64]]


def _regression(data: Path, name: str) -> Arrays:
    from sklearn.model_selection import train_test_split

    X, y = load_pmlb(data / "pmlb" / f"{name}.tsv.gz")
    X, _, y, _ = train_test_split(X, y, train_size=0.75, random_state=0)
    return standardize(X), (y - y.mean()) / y.std()


def _a9a(data: Path) -> Arrays:
    return load_svmlight_dense(data / "a9a" / "a9a.train.svm", 123)


def _magic(data: Path) -> Arrays:
    X, y = load_pmlb(data / "pmlb" / "magic.tsv.gz")
    order = np.random.default_rng(0).permutation(len(y))[:15_000]
    labels = np.unique(y)
    return standardize(X[order]), np.where(y[order] == labels[-1], 1.0, -1.0)


def _letter(data: Path) -> Arrays:
    X, y = load_pmlb(data / "pmlb" / "letter.tsv.gz")
    return standardize(X[:15_000]), y[:15_000]


def _adult(data: Path) -> Arrays:
    X, y = load_pmlb(data / "pmlb" / "adult.tsv.gz")
    order = np.random.default_rng(0).permutation(len(y))[:32_561]
    return standardize(X[order]), np.where(y[order] == 1, 1.0, -1.0)


def _classification(n: int) -> Arrays:
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n + 5000, n_features=50, n_informative=20, flip_y=0.05, random_state=0
    )
    X = standardize(X)  # on all rows, as the protocol
    return X[:n], np.where(y[:n] == 1, 1.0, -1.0)


# name -> (estimator, parameters, loader)
CASES: dict[str, tuple[str, dict[str, float], Callable[[Path], Arrays]]] = {
    "a9a": ("SVC", {"C": 1.0, "gamma": 0.5}, _a9a),
    "magic": ("SVC", {"C": 1.0, "gamma": 0.1}, _magic),
    "letter": ("SVC", {"C": 10.0, "gamma": 1 / 16}, _letter),
    "adult": ("SVC", {"C": 1.0, "gamma": 1 / 14}, _adult),
    "mc30k": ("SVC", {"C": 1.0, "gamma": 0.02}, lambda _: _classification(30_000)),
    "mc60k": ("SVC", {"C": 1.0, "gamma": 0.02}, lambda _: _classification(60_000)),
    "cpu_act": (
        "SVR",
        {"C": 10.0, "gamma": 0.05, "epsilon": 0.05},
        lambda d: _regression(d, "197_cpu_act"),
    ),
    "fried": (
        "SVR",
        {"C": 1.0, "gamma": 0.1, "epsilon": 0.1},
        lambda d: _regression(d, "564_fried"),
    ),
    "fried-nu": (
        "NuSVR",
        {"C": 1.0, "gamma": 0.1, "nu": 0.5},
        lambda d: _regression(d, "564_fried"),
    ),
    "2dplanes": (
        "SVR",
        {"C": 1.0, "gamma": 0.1, "epsilon": 0.1},
        lambda d: _regression(d, "215_2dplanes"),
    ),
    "2dplanes-nu": (
        "NuSVR",
        {"C": 1.0, "gamma": 0.1, "nu": 0.5},
        lambda d: _regression(d, "215_2dplanes"),
    ),
}


def dual_objectives(kind: str, params: dict[str, float], est: Any, y: NDArray[Any]) -> list[float]:
    """The dual objectives of the fitted model (one per one-vs-one pair for SVC), by one
    formula for every solver."""
    if kind == "SVC":
        return svc_pair_objectives(est, params["gamma"])
    coef = np.ravel(np.asarray(est.dual_coef_, dtype=np.float64))
    sv = np.asarray(est.support_vectors_, dtype=np.float64)
    quadratic = rbf_quadratic_form(sv, coef, params["gamma"])
    targets = y[np.asarray(est.support_)]
    eps = params.get("epsilon", 0.0)
    return [0.5 * quadratic + eps * float(np.abs(coef).sum()) - float(targets @ coef)]


def fit_once(case: str, solver: str, threads: int, data: str, engine: str) -> dict[str, Any]:
    """One fit in this (fresh) process (``engine``: kernelkit's)."""
    kind, params, loader = CASES[case]
    X, y = loader(Path(data))
    common = {**params, "kernel": "rbf", "tol": TOL, "cache_size": CACHE_MB, "n_jobs": threads}
    if solver == "kernelkit":
        import kernelkit

        est = getattr(kernelkit, kind)(**common, engine=engine)
    else:
        import sklearnex.svm

        est = getattr(sklearnex.svm, kind)(**common, max_iter=SKLEARNEX_MAX_ITER)
    started = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - started
    objectives = dual_objectives(kind, params, est, y)
    out: dict[str, Any] = {"fit_s": seconds, "objective": sum(objectives), "pairs": objectives}
    stats = getattr(est, "solver_stats_", None)
    if stats is not None:
        first = stats[0] if isinstance(stats, list) else stats
        out["engine"] = first["engine"]
        out["parallel_passes"] = first["parallel_passes"]
        out["serial_s"] = first["serial_seconds"]
        out["iterations"] = int(np.ravel(est.n_iter_)[0])
    return out


def measure(
    case: str, solver: str, threads: int, args: argparse.Namespace, engine: str = "auto"
) -> dict[str, Any]:
    runs = []
    for _ in range(args.repeats):
        try:
            job = (case, solver, threads, str(args.data), engine)
            runs.append(run_isolated(fit_once, job, 3600))
        except Exception as exc:  # a failed peer is reported, not fatal
            return {"error": (str(exc) or type(exc).__name__).splitlines()[0]}
    row = dict(runs[0])
    row["fit_s"] = statistics.median(r["fit_s"] for r in runs)
    row["fit_s_all"] = [r["fit_s"] for r in runs]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| case | threads | engine | kernelkit s | sklearnex s | sklearnex / kk | kk speed-up "
        "| objective rel. diff | passes | serial s | Amdahl bound |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        kk, ex = r["kernelkit"], r.get("sklearnex", {})
        ratio = ex["fit_s"] / kk["fit_s"] if "fit_s" in ex and "fit_s" in kk else None
        cells = [
            r["case"],
            str(r["threads"]),
            f"{kk.get('engine', '-')} ({r['engine']})",
            f"{kk.get('fit_s', float('nan')):.2f}",
            f"{ex['fit_s']:.2f}" if "fit_s" in ex else ex.get("error", "-"),
            f"{ratio:.2f}" if ratio else "-",
            f"{r['speedup']:.2f}" if r.get("speedup") else "-",
            f"{r['objective_rel_diff']:.1e}" if r.get("objective_rel_diff") is not None else "-",
            str(kk.get("parallel_passes", "-")),
            f"{kk['serial_s']:.2f}" if "serial_s" in kk else "-",
            f"{r['amdahl']:.1f}" if r.get("amdahl") else "-",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(r["case"] for r in rows))
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    fig, axes = plt.subplots(1, len(cases), figsize=(3.2 * len(cases), 3.2), squeeze=False)
    for ax, case in zip(axes[0], cases, strict=True):
        for e, engine in enumerate(engines):
            mine = [r for r in rows if r["case"] == case and r["engine"] == engine]
            threads = [r["threads"] for r in mine]
            times = [r["kernelkit"].get("fit_s", np.nan) for r in mine]
            ax.plot(threads, times, "o-", label=f"kernelkit {engine}")
            if e == 0:
                peer = [r.get("sklearnex", {}).get("fit_s", np.nan) for r in mine]
                ax.plot(threads, peer, "s--", label="sklearnex")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(case)
        ax.set_xlabel("threads")
    axes[0][0].set_ylabel("fit seconds")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=parse_str_list, default=list(CASES))
    parser.add_argument("--threads", type=lambda s: [int(t) for t in s.split(",")], default=[1, 2])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--engines",
        type=parse_str_list,
        default=["auto"],
        help="kernelkit's engine parameter, one row each (auto, libsvm, batched)",
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=Path("results") / "scaling")
    args = parser.parse_args(argv)
    unknown = set(args.cases) - set(CASES)
    if unknown:
        parser.error(f"unknown cases {sorted(unknown)}; known: {', '.join(CASES)}")
    peers = ["sklearnex"] if find_spec("sklearnex") else []
    if not peers:
        print("scikit-learn-intelex is not installed: kernelkit only", file=sys.stderr)
    rows = []
    for case in args.cases:
        base: dict[str, float] = {}  # kernelkit's time at the first thread count, per engine
        for threads in args.threads:
            peer = {solver: measure(case, solver, threads, args) for solver in peers}
            for engine in args.engines:
                row: dict[str, Any] = {
                    "case": case,
                    "estimator": CASES[case][0],
                    "threads": threads,
                    "engine": engine,
                    "kernelkit": measure(case, "kernelkit", threads, args, engine),
                    **peer,
                }
                kk = row["kernelkit"]
                if "fit_s" in kk:
                    base.setdefault(engine, kk["fit_s"])
                    first = base[engine]
                    row["speedup"] = first / kk["fit_s"]
                    # No thread count beats the first one's time over this fit's serial time.
                    row["amdahl"] = first / kk["serial_s"] if kk.get("serial_s") else None
                if "pairs" in row.get("sklearnex", {}) and "pairs" in kk:
                    pairs = zip(kk["pairs"], row["sklearnex"]["pairs"], strict=True)
                    row["objective_rel_diff"] = max(
                        (relative_difference(a, b) or 0.0 for a, b in pairs), key=abs
                    )
                rows.append(row)
                print(table([row]).splitlines()[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    markdown = table(rows)
    args.out.with_suffix(".md").write_text(markdown + "\n")
    write_json(args.out.with_suffix(".json"), {"machine": machine_info(), "rows": rows})
    plot(rows, args.out.with_suffix(".png"))
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
