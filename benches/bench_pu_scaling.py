"""Time exponents of PUClassifier's two working-set selections, "full" and "paper" (issue 45).

The paper's Figs. 4-7 (training time against the number of unlabeled rows, 100 labeled
positives, λ = 0.01) use MNIST, Bank and Poker, which are not available offline, and give no
numbers. The same experiment here: a9a subsets (RBF and linear; the PU setting of
``bench_pu.py``: 100 random positives labeled, the unlabeled rows drawn from the rest, π = the
class proportion of a9a.train, gamma = 1/(d Var X)) and ``make_classification`` rows (linear;
20 features, balanced classes, 100 labeled positives, π = the positive fraction of the
unlabeled rows). One thread, ``tol=1e-3``, 200 MB cache, each fit in a fresh process; a fit
under 10 s is repeated (the median of ``--repeats``). Recorded: time, steps, whole-set passes,
status, dual objective, and per series and scheme the slope of log time against log n (the
time exponent), over all sizes and over the last two. A scheme's larger sizes are skipped once
one of its fits took longer than ``--max-seconds`` (or failed, or passed ``--timeout``); the
results are saved after every fit.

    python benches/bench_pu_scaling.py
    python benches/bench_pu_scaling.py --a9a-sizes 2000,4000 --synthetic-sizes 12500,25000
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA_DIR,
    load_snapshot,
    load_svmlight_dense,
    machine_info,
    markdown_table,
    parse_int_list,
    parse_str_list,
    run_isolated,
    write_json,
)
from pu_problem import scale_gamma

SCHEMES = ("full", "paper")
N_LABELED, LAM, SEED = 100, 0.01, 0
RESULTS = Path(__file__).resolve().parent / "results"


def a9a_pool(data_dir: Path) -> tuple[Any, Any, float, float]:
    X, y = load_svmlight_dense(data_dir / "a9a" / "a9a.train.svm", 123)
    rng = np.random.default_rng(SEED)
    labeled = rng.choice(np.flatnonzero(y == 1), size=N_LABELED, replace=False)
    rest = rng.permutation(np.setdiff1d(np.arange(len(y)), labeled))
    return X[labeled], X[rest], float(np.mean(y == 1)), scale_gamma(X)


def synthetic_pool(n_max: int) -> tuple[Any, Any, float, float]:
    from sklearn.datasets import make_classification

    X, y = make_classification(n_max + 4 * N_LABELED, 20, n_informative=10, random_state=SEED)
    labeled = np.flatnonzero(y == 1)[:N_LABELED]
    rest = np.setdiff1d(np.arange(len(y)), labeled)[:n_max]
    return X[labeled], X[rest], float(np.mean(y[rest] == 1)), 1.0


def fit(path: str, n: int, kernel: str, scheme: str, prior: float, gamma: float) -> dict[str, Any]:
    """One fit on the first ``n`` unlabeled rows of the saved pool (run in a fresh process)."""
    from kernelkit import PUClassifier

    pool = np.load(path)
    X = np.vstack([pool["positive"], pool["unlabeled"][:n]])
    y = np.r_[np.ones(N_LABELED, dtype=int), np.zeros(n, dtype=int)]
    model = PUClassifier(
        prior=prior, lam=LAM, kernel=kernel, gamma=gamma, n_jobs=1, selection=scheme
    )
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "steps": model.n_iter_,
        "passes": model.solver_stats_["whole_set_passes"],
        "status": model.status_,
        "objective": model.objective_,
    }


def slope(fits: list[dict[str, Any]]) -> float | None:
    """The least-squares slope of log(seconds) against log(n)."""
    if len(fits) < 2:
        return None
    n, t = np.log([f["n"] for f in fits]), np.log([f["seconds"] for f in fits])
    return float(np.polyfit(n, t, 1)[0])


def run_series(name: str, pool: Any, kernel: str, args: Any, series: list[Any]) -> None:
    """Fits every size with each scheme, appending the series to ``series`` and saving it all
    after each fit (a fit that fails or passes ``--timeout`` ends its scheme's sizes)."""
    positive, unlabeled, prior, gamma = pool
    sizes = args.a9a_sizes if name == "a9a" else args.synthetic_sizes
    path = RESULTS / f"_pool_{name}_{kernel}.npz"
    np.savez(path, positive=positive, unlabeled=unlabeled[: max(sizes)])
    fits: dict[str, list[dict[str, Any]]] = {scheme: [] for scheme in args.schemes}
    entry = {"name": name, "kernel": kernel, "prior": prior, "fits": fits, "failed": {}}
    series.append(entry)
    for n in sizes:
        for scheme, done in fits.items():
            if scheme in entry["failed"] or (done and done[-1]["seconds"] > args.max_seconds):
                continue  # the previous size failed or took too long
            task = (str(path), n, kernel, scheme, prior, gamma)
            try:
                runs = [run_isolated(fit, task, args.timeout)]
                while runs[0]["seconds"] < 10 and len(runs) < args.repeats:
                    runs.append(run_isolated(fit, task, args.timeout))
            except RuntimeError as error:
                entry["failed"][scheme] = {"n": n, "error": str(error).splitlines()[0]}
                print(f"{name} {kernel} {scheme} n={n}: {entry['failed'][scheme]}", flush=True)
                args.save(series)
                continue
            result = {"n": n, **runs[0], "seconds": statistics.median(r["seconds"] for r in runs)}
            done.append({**result, "all_seconds": [r["seconds"] for r in runs]})
            print(f"{name} {kernel} {scheme} n={n}: {result}", flush=True)
            entry["exponents"] = {
                s: {"all": slope(f), "last_two": slope(f[-2:])} for s, f in fits.items()
            }
            args.save(series)
    path.unlink()


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
    tables = [markdown_table(header, rows, 2), markdown_table(exp_header, exp_rows, 2)]
    return "\n\n".join(tables) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a9a-sizes", type=parse_int_list, default="2000,4000,8000,16000,32000")
    parser.add_argument(
        "--synthetic-sizes", type=parse_int_list, default="12500,25000,50000,100000,200000"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--schemes", type=parse_str_list, default="full,paper")
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=RESULTS / "pu_scaling_selection.json")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    head = {"machine": machine_info(), "load_start": load_snapshot()}

    def save(series: list[Any]) -> None:
        write_json(args.out, {**head, "load_now": load_snapshot(), "series": series})
        args.out.with_suffix(".md").write_text(markdown(series))

    args.save, series = save, []
    if args.a9a_sizes:
        pool = a9a_pool(args.data_dir)
        for kernel in ("rbf", "linear"):
            run_series("a9a", pool, kernel, args, series)
    if args.synthetic_sizes:
        run_series("make_classification", synthetic_pool(max(args.synthetic_sizes)), "linear",
                   args, series)  # fmt: skip
    print(markdown(series))


if __name__ == "__main__":
    main()
