"""Time exponents of PUClassifier's two working-set selections, "full" and "paper" (issue 45).

The paper's Figs. 4-7 (training time against the number of unlabeled rows, 100 labeled positives, λ
= 0.01) use MNIST, Bank and Poker, which are not available offline, and give no numbers. The same
experiment here: a9a subsets (RBF and linear; the PU setting of ``bench_pu.py``: 100 random
positives labeled, the unlabeled rows drawn from the rest, π = the class proportion of a9a.train,
gamma = 1/(d Var X)) and ``make_classification`` rows (linear; 20 features, balanced classes, 100
labeled positives, π = the positive fraction of the unlabeled rows). One thread, ``tol=1e-3``, 200
MB cache, each fit in a fresh process; a fit under 10 s is repeated (the median of ``--repeats``).
Recorded: time, steps, whole-set passes, status, dual objective, and per series and scheme the slope
of log time against log n (the time exponent), over all sizes and over the last two. A scheme's
larger sizes are skipped once one of its fits took longer than ``--max-seconds`` (or failed, or
passed ``--timeout``); the results are saved after every size.

    python benches/bench_pu_scaling.py
    python benches/bench_pu_scaling.py --a9a-sizes 2000,4000 --synthetic-sizes 12500,25000
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import harness
import numpy as np
from harness import data, report, runner

SCHEMES = ("full", "paper")
N_LABELED, LAM, SEED, TOL = 100, 0.01, 0, 1e-3


def a9a_pool(data_dir: Path) -> tuple[Any, Any, float, float]:
    X, y = data.svmlight(data_dir / "a9a" / "a9a.train.svm", 123)
    rng = np.random.default_rng(SEED)
    labeled = rng.choice(np.flatnonzero(y == 1), size=N_LABELED, replace=False)
    rest = rng.permutation(np.setdiff1d(np.arange(len(y)), labeled))
    return X[labeled], X[rest], float(np.mean(y == 1)), data.scale_gamma(X)


def synthetic_pool(n_max: int) -> tuple[Any, Any, float, float]:
    from sklearn.datasets import make_classification

    X, y = make_classification(n_max + 4 * N_LABELED, 20, n_informative=10, random_state=SEED)
    labeled = np.flatnonzero(y == 1)[:N_LABELED]
    rest = np.setdiff1d(np.arange(len(y)), labeled)[:n_max]
    return X[labeled], X[rest], float(np.mean(y[rest] == 1)), 1.0


def fit(case: runner.Case) -> dict[str, Any]:
    """One fit on the first ``n`` unlabeled rows of the stashed pool (in a fresh process)."""
    from kernelkit import PUClassifier

    p = case.params
    X = np.vstack(
        [data.unstash(p["pool"], "positive"), data.unstash(p["pool"], "unlabeled", p["n"])]
    )
    y = np.r_[np.ones(N_LABELED, dtype=int), np.zeros(p["n"], dtype=int)]
    model = PUClassifier(prior=p["prior"], lam=LAM, kernel=p["kernel"], gamma=p["gamma"], tol=TOL,
                         n_jobs=1, selection=case.label)  # fmt: skip
    out = runner.timed_fit(model, X, y)
    return out | {"steps": model.n_iter_, "passes": model.solver_stats_["whole_set_passes"],
                  "status": model.status_, "objective": model.objective_}  # fmt: skip


def slope(fits: list[dict[str, Any]]) -> float | None:
    """The least-squares slope of log(seconds) against log(n)."""
    n, seconds = np.log([f["n"] for f in fits]), np.log([f["seconds"] for f in fits])
    return float(np.polyfit(n, seconds, 1)[0]) if len(fits) >= 2 else None


def run_series(name: str, pool: Any, kernel: str, args: Any, series: list[Any]) -> None:
    """Every size with each scheme, the series appended to ``series`` and everything saved after
    each size (a fit that fails or passes ``--timeout`` ends its scheme's sizes)."""
    positive, unlabeled, prior, gamma = pool
    sizes = args.a9a_sizes if name == "a9a" else args.synthetic_sizes
    folder = data.stash(args.tmp / f"{name}_{kernel}", positive=positive,
                        unlabeled=unlabeled[: max(sizes)])  # fmt: skip
    fits: dict[str, list[dict[str, Any]]] = {scheme: [] for scheme in args.schemes}
    entry = {"name": name, "kernel": kernel, "prior": prior, "fits": fits, "failed": {}}
    series.append(entry)
    for n in sizes:
        params = {"pool": folder, "n": n, "kernel": kernel, "prior": prior, "gamma": gamma}
        go = [s for s, done in fits.items() if s not in entry["failed"]
              and not (done and done[-1]["seconds"] > args.max_seconds)]  # fmt: skip
        cases = [runner.Case(s, fit, params, {"n": n}, args.timeout) for s in go]
        for r in runner.run(cases, args.repeats, below=10.0):
            if "error" in r:
                entry["failed"][r["label"]] = {"n": n, "error": r["error"]}
                continue
            kept = {k: r[k] for k in ("steps", "passes", "status", "objective")}
            fits[r["label"]].append(
                {"n": n, **kept, "seconds": r["fit_s"], "all_seconds": r["fit_s_all"]}
            )
            print(f"{name} {kernel} {r['label']} n={n}: {fits[r['label']][-1]}", flush=True)
        entry["exponents"] = {
            s: {"all": slope(f), "last_two": slope(f[-2:])} for s, f in fits.items()
        }
        args.save(series)


def markdown(series: list[dict[str, Any]]) -> str:
    rows, exp_rows = [], []
    for s in series:
        full = {f["n"]: f for f in s["fits"].get("full", [])}
        for f in s["fits"].get("paper", []):
            r = full.get(f["n"])  # None where the full scheme's sizes stopped earlier
            change = (f["objective"] - r["objective"]) / abs(r["objective"]) if r else None
            rows.append([
                s["name"], s["kernel"], f"{f['n']:,}", f"{r['seconds']:.3g} s" if r else "—",
                f"{f['seconds']:.3g} s", f"{r['seconds'] / f['seconds']:.3g}" if r else "—",
                (f"{r['steps']:,}" if r else "—") + f" / {f['steps']:,}", str(f["passes"]),
                f"{change:.1e}" if r else "—",
            ])  # fmt: skip
        cells = []
        for scheme in SCHEMES:
            done, e = s["fits"].get(scheme), s.get("exponents", {}).get(scheme)
            if not done or e is None:
                cells += ["—"] * 3
                continue
            cells.append(f"{done[0]['n']:,}–{done[-1]['n']:,}")
            cells += ["—" if v is None else f"{v:.2f}" for v in (e["all"], e["last_two"])]
        exp_rows.append([s["name"], s["kernel"], *cells])
    header = ["data", "kernel", "n", "full", "paper", "full / paper", "steps full / paper",
              "whole-set passes", "objective, paper vs full"]  # fmt: skip
    exp_header = ["data", "kernel", "full: n", "exponent", "last two", "paper: n", "exponent",
                  "last two"]  # fmt: skip
    tables = [
        report.markdown_table(header, rows, 2),
        report.markdown_table(exp_header, exp_rows, 2),
    ]
    return "\n\n".join(tables) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, "pu_scaling_selection.json")
    harness.options(p, a9a_sizes=[2000, 4000, 8000, 16000, 32000],
                    synthetic_sizes=[12500, 25000, 50000, 100000, 200000],
                    repeats=(3, "fits of a size under 10 s; median"),
                    schemes=(list(SCHEMES), None, harness.strs),
                    max_seconds=(300.0, "larger sizes skipped after"),
                    timeout=(3600.0, "s per fit"))  # fmt: skip
    args = p.parse_args(argv)
    harness.known(p, "schemes", args.schemes, SCHEMES)
    run, series = harness.Run(argv), []

    def save(series: list[Any]) -> None:
        run.write(args.out, run.record(series=series), markdown(series), echo=False)

    args.save = save
    with tempfile.TemporaryDirectory(prefix="kk_pu_scaling_") as tmp:
        args.tmp = Path(tmp)
        if args.a9a_sizes:
            pool = a9a_pool(args.data)
            for kernel in ("rbf", "linear"):
                run_series("a9a", pool, kernel, args, series)
        if args.synthetic_sizes:
            pool = synthetic_pool(max(args.synthetic_sizes))
            run_series("make_classification", pool, "linear", args, series)
    print(markdown(series))
    return 0


if __name__ == "__main__":
    sys.exit(main())
