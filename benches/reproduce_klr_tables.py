"""Reproduce Tables 2–5 of Consolo, Manno & Amaldi, "Binary Kernel Logistic Regression: a
sparsity-inducing formulation and a convergent decomposition training algorithm" (seed paper 004)
with ``kernelkit.SparseKernelLogisticRegression``.

Protocol (digest ``shared/papers/seed-004-sparse-klr.md`` §5.3; choices the paper leaves open
are marked *ours*):

* the 12 datasets of §5.2 from ``../shared/data`` (``klr_data.py``; monk2 regenerated);
* 5-fold cross-validation, stratified, shuffled, seeded (*ours*); features min-max scaled to
  [0, 1] with the minimum and range of the training fold (*ours*: the paper does not say);
  test rows are scaled with the same affine map and not clipped;
* per fold, a stratified seeded 5% validation split of the training fold; every grid point is
  fitted on the other 95% and scored on the validation rows; the chosen (C, λ) is refitted on the
  whole training fold and scored on the test fold;
* RBF kernel exp(−‖x − x'‖²/2) (σ = 1: ``gamma=0.5``), box tolerance γ = 1e-5, τ = 1e-5;
* grid C ∈ {1e-4, …, 1e4}, λ ∈ linspace(0, C, 10) (90 points); infeasible points (the estimator
  raises a ValueError containing "infeasible", e.g. coil2000 at C = 1e-4) are skipped;
* selection rules (*ours*, the paper gives no tie rule):
  - "best": the highest validation accuracy; ties go to the first grid point in the order
    C ascending, then λ ascending (what ``argmax`` over the paper's nested loops returns);
  - "sparsest of 3 most accurate": rank the grid points by validation accuracy (descending,
    ties in the same grid order), keep the first 3, and take the one with the smallest ratio of
    selected points of its 95% fit (ties: the better-ranked one);
  - "best (sparse ties)" (not in the paper, to show the tie rule's effect): the highest
    validation accuracy, ties to the smallest ratio, then grid order;
* Table 3: KLR-1ord = λ = 0 with ``selection="first_order"``, KLR-2ord = λ = 0 with the
  second-order rule (C selected on the λ = 0 column only), S-KLR = Table 2 "best";
* Table 4: per-fit CPU time (``time.process_time``, one solver thread) and iterations of the
  2ord and 1ord fits over the whole (C, λ) grid on the 95% fits; per dataset the ratio of the
  means 2ord/1ord over the grid points feasible for both; the mean of per-dataset ratios. The
  λ > 0 part of the 1ord grid runs on 2 of the 5 folds by default (``--table4-folds``);
* Table 5: λ = C/10 (off the λ grid), C selected on validation like Table 2 (the paper's Table 5
  used no validation set, so it is not directly comparable).

"ratio" is ``sparsity_`` = |{i: α_i > γ}| / n_train of the refitted model, averaged over folds.
Reduction (default; ``--max-rows none`` lifts it): the six sets with more than 2,500 rows
(coil2000, magic, ring, spambase, twonorm, waveform) are replaced by a stratified seeded
subsample of 2,500 rows before the CV, to fit the run in ~45 minutes on 2 shared cores.
Modes: converged (default: tol 1e-5, effectively no iteration cap) or ``--paper-mode``
(max_iter = 10000, the paper's cap; many fits on the larger sets stop there).
Results: ``benches/results/klr_tables.{json,md,png}`` (``klr_tables_quick.*`` for ``--quick``).

    python benches/reproduce_klr_tables.py --quick
    python benches/reproduce_klr_tables.py --jobs 2
    python benches/reproduce_klr_tables.py --paper-mode --out benches/results/klr_tables_paper.json
    python benches/reproduce_klr_tables.py --datasets wisconsin,monk2 --table4-folds 5
"""

from __future__ import annotations

import argparse
import datetime as _dt
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from _common import load_snapshot, machine_info, package_versions, print_checks, write_json
from klr_data import (
    ALL_DATASETS,
    DATA_DIR,
    DataMissing,
    describe,
    load,
    parse_max_rows,
)
from klr_protocol import Config, ok, prepared, run_task
from klr_report import (
    PAPER_TABLE4_MEAN_RATIO,
    acceptance_checks,
    averages,
    comparison_rows,
    markdown_report,
    plot,
    print_table,
    table4_rows,
)

RESULTS = Path(__file__).resolve().parent / "results"
PAPER_C = tuple(10.0**r for r in range(-4, 5))
QUICK_C = (1e-2, 1.0, 1e2, 1e4)
QUICK_DATASETS = ("wisconsin", "monk2", "sonar")
PACKAGES = ("kernelkit", "numpy", "scipy", "scikit-learn", "matplotlib", "threadpoolctl")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")
# Default row caps for the full run (stratified subsample of the whole dataset before the CV):
# the converged grid costs ~N² per fit (about as many iterations as rows, each O(N)) and the full
# run must fit ~45 minutes on a shared 2-core machine (measured: spambase and twonorm at 2,500
# rows took 790 s and 330 s of fitting). Overridden by --max-rows ('none' = no cap).
LARGE_CAP = 2500
DEFAULT_MAX_ROWS: dict[str, int] = dict.fromkeys(
    ("coil2000", "magic", "ring", "spambase", "twonorm", "waveform"), LARGE_CAP
)


def execute(tasks: list[tuple[str, int, str]], cfg: Config, jobs: int) -> Iterator[dict[str, Any]]:
    if jobs <= 1:
        for t in tasks:
            yield run_task(t, cfg)
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(run_task, t, cfg): t for t in tasks}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except BrokenProcessPool as exc:  # a worker died (e.g. a crash in the extension)
                yield {"task": list(futures[fut]), "seconds": 0.0,
                       "error": f"worker process died: {exc}"}  # fmt: skip


# --------------------------------------------------------------------------- aggregation
def fits_of(res: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        *res.get("grid2", []), *res.get("grid1", []), *res.get("lam_choice", []),
        *res.get("refits", []),
    ]  # fmt: skip


def aggregate(results: list[dict[str, Any]], names: Sequence[str], cfg: Config) -> dict[str, Any]:
    per: dict[str, Any] = {}
    for name in names:
        mains = [r for r in results if r["task"][0] == name and r["task"][2] == "main"]
        mains = [r for r in mains if "methods" in r]
        if len(mains) != cfg.folds:
            continue
        ds = prepared(name, cfg)
        methods: dict[str, Any] = {}
        for m in mains[0]["methods"]:
            per_fold = [r["methods"][m] for r in mains if m in r["methods"]]
            refits = [p["refit"] for p in per_fold if ok(p["refit"])]
            if len(refits) != cfg.folds:
                continue
            methods[m] = {
                "test_accuracy": float(np.mean([f["accuracy"] for f in refits])),
                "test_accuracy_fold_std": float(np.std([f["accuracy"] for f in refits])),
                "ratio": float(np.mean([f["ratio"] for f in refits])),
                "chosen": "; ".join(f"C={p['C']:g} λ/C={p['lam'] / p['C']:.3g}" for p in per_fold),
                "refit_status": dict(Counter(f["status"] for f in refits)),
            }
        every = [f for r in results if r["task"][0] == name for f in fits_of(r)]
        done = [f for f in every if ok(f)]
        per[name] = {
            "data": describe(ds),
            "methods": methods,
            "cost": {
                "fits": len(done),
                "fit_seconds": float(sum(f["wall"] for f in done)),
                "task_seconds": float(sum(r["seconds"] for r in results if r["task"][0] == name)),
                "infeasible": sum(1 for f in every if f.get("infeasible")),
                "errors": sum(1 for f in every if "error" in f),
                "not_converged": sum(1 for f in done if f["status"] != "converged"),
                "statuses": dict(Counter(f["status"] for f in done)),
                "max_iter_seen": max((f["n_iter"] for f in done), default=0),
            },
        }
    return per


def table4(results: list[dict[str, Any]], names: Sequence[str], cfg: Config) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for name in names:
        g2: dict[tuple[int, int, int], dict[str, Any]] = {}
        g1: dict[tuple[int, int, int], dict[str, Any]] = {}
        for r in results:
            if r["task"][0] != name:
                continue
            fold = r["task"][1]
            for f in r.get("grid2", []):
                g2[(fold, f["ci"], f["li"])] = f
            for f in r.get("grid1", []):
                g1[(fold, f["ci"], f["li"])] = f
        pos = {k[0] for k in g1 if k[2] > 0}  # folds with the λ > 0 part of the 1ord grid
        keys = [k for k in g1 if k[0] in pos and k in g2 and ok(g1[k]) and ok(g2[k])]
        if not keys:
            continue
        c1 = float(np.mean([g1[k]["cpu"] for k in keys]))
        c2 = float(np.mean([g2[k]["cpu"] for k in keys]))
        i1 = float(np.mean([g1[k]["n_iter"] for k in keys]))
        i2 = float(np.mean([g2[k]["n_iter"] for k in keys]))
        fewer = sum(g2[k]["n_iter"] < g1[k]["n_iter"] for k in keys)
        rows[name] = {
            "fits": len(keys),
            "folds": sorted(pos),
            "cpu_1ord": c1,
            "cpu_2ord": c2,
            "wall_1ord": float(np.mean([g1[k]["wall"] for k in keys])),
            "wall_2ord": float(np.mean([g2[k]["wall"] for k in keys])),
            "time_ratio": c2 / c1 if c1 > 0 else None,
            "iter_1ord": i1,
            "iter_2ord": i2,
            "iter_ratio": i2 / i1 if i1 > 0 else None,
            "grid_points_2ord_fewer_iters": fewer,
            "not_converged_1ord": sum(g1[k]["status"] != "converged" for k in keys),
            "not_converged_2ord": sum(g2[k]["status"] != "converged" for k in keys),
        }
    tr = [r["time_ratio"] for r in rows.values() if r["time_ratio"] is not None]
    ir = [r["iter_ratio"] for r in rows.values() if r["iter_ratio"] is not None]
    return {
        "per_dataset": rows,
        "mean_time_ratio": float(np.mean(tr)) if tr else None,
        "mean_iter_ratio": float(np.mean(ir)) if ir else None,
        "paper_mean_ratio": PAPER_TABLE4_MEAN_RATIO,
        "note": (
            f"Per dataset: mean per-fit CPU time (process_time, {cfg.threads} solver thread(s))"
            " and iterations of the 2ord and 1ord fits on the 95% fit split, over the grid"
            " points feasible for both, on the fold(s) listed in the JSON; ratio = 2ord/1ord;"
            " the last row is the mean of per-dataset ratios (the paper's 0.821 is that too)."
        ),
    }


# --------------------------------------------------------------------------- main
def protocol_text(cfg: Config, mode: str) -> list[str]:
    cs = ", ".join(f"{c:g}" for c in cfg.C_grid)
    return [
        f"{cfg.folds}-fold stratified shuffled CV (seed {cfg.seed}); min-max scaling fitted on"
        " the training fold; stratified seeded validation split of"
        f" {100 * cfg.val_fraction:g}% of the training fold; refit on the whole training fold.",
        f"RBF gamma = {cfg.gamma} (σ = 1), bound_eps = {cfg.bound_eps:g}, tol = {cfg.tol:g},"
        f" max_iter = {cfg.max_iter:,}"
        + (f", time_limit = {cfg.time_limit:g} s per fit" if cfg.time_limit else "")
        + f" ({mode}).",
        f"C ∈ {{{cs}}}; λ ∈ linspace(0, C, {cfg.n_lam}); infeasible grid points skipped.",
        "best = highest validation accuracy, ties → smaller C then smaller λ; sparsest-of-3 ="
        " smallest 95%-fit ratio among the first 3 by (accuracy desc, C asc, λ asc);"
        " 'best (sparse ties)' = highest accuracy, ties → smallest ratio.",
        "KLR-1ord / KLR-2ord: λ = 0 column only (first / second order); λ-choice: λ = C/10,"
        " C chosen on validation (the paper's Table 5 had no validation set).",
        "ratio = sparsity_ (|α > γ| / n_train) of the refitted model; accuracy on the test"
        " fold; both averaged over the folds.",
        f"Table 4: full 1ord grid on {cfg.table4_folds} fold(s) (fold 0 first).",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", default=None, help="comma-separated (default: all 12)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: wisconsin, monk2, sonar; C ∈ {1e-2, 1, 1e2, 1e4}, "
                        "4 λ values, Table 4 on 1 fold")  # fmt: skip
    parser.add_argument("--paper-mode", action="store_true", help="max_iter = 10000 (paper)")
    parser.add_argument("--jobs", type=int, default=2, help="processes over dataset folds")
    parser.add_argument("--threads", type=int, default=1, help="solver n_jobs per fit")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--val-fraction", type=float, default=0.05)
    parser.add_argument("--c-grid", default=None, help="comma-separated C values")
    parser.add_argument("--n-lam", type=int, default=None, help="λ values per C (paper 10)")
    parser.add_argument("--tol", type=float, default=1e-5)
    parser.add_argument("--max-iter", type=int, default=None,
                        help="default 10,000,000 (converged) or 10,000 (--paper-mode)")  # fmt: skip
    parser.add_argument("--time-limit", type=float, default=600.0,
                        help="seconds per fit (a guard against hangs; 0 = none)")  # fmt: skip
    parser.add_argument("--cache-size", type=float, default=1000.0, help="kernel cache MB")
    parser.add_argument("--table4-folds", type=int, default=None,
                        help="folds with the full 1ord grid (default 2; quick 1)")  # fmt: skip
    parser.add_argument("--no-lam-choice", action="store_true", help="skip Table 5")
    parser.add_argument("--max-rows", default=None,
                        help="row caps, 'magic=6000,ring=4000' or one int for all; 'none' = "
                        f"no cap (default {DEFAULT_MAX_ROWS or 'none'})")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DATA_DIR)
    parser.add_argument("--stand-in", action="store_true",
                        help="harness test with sklearn SVC instead of kernelkit")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    argv_used = sys.argv[1:] if argv is None else list(argv)

    default_names = QUICK_DATASETS if args.quick else ALL_DATASETS
    names = [t.strip() for t in (args.datasets or ",".join(default_names)).split(",") if t.strip()]
    if bad := [n for n in names if n not in ALL_DATASETS]:
        raise SystemExit(f"unknown datasets {bad}; choose from {list(ALL_DATASETS)}")
    if args.c_grid:
        c_grid = tuple(float(t) for t in args.c_grid.split(",") if t.strip())
    else:
        c_grid = QUICK_C if args.quick else PAPER_C
    n_lam = args.n_lam or (4 if args.quick else 10)
    max_iter = args.max_iter or (10_000 if args.paper_mode else 10_000_000)
    t4 = args.table4_folds if args.table4_folds is not None else (1 if args.quick else 2)
    mode = f"paper mode (max_iter {max_iter:,})" if args.paper_mode else "converged"
    cfg = Config(
        C_grid=c_grid, n_lam=n_lam, folds=args.folds, val_fraction=args.val_fraction,
        gamma=0.5, bound_eps=1e-5, tol=args.tol, max_iter=max_iter,
        time_limit=args.time_limit or None, threads=args.threads, cache_size=args.cache_size,
        seed=args.seed, table4_folds=min(t4, args.folds), lam_choice=not args.no_lam_choice,
        max_rows=tuple(sorted(parse_max_rows(args.max_rows, DEFAULT_MAX_ROWS).items())),
        stand_in=args.stand_in, data_dir=str(args.data),
    )  # fmt: skip
    out_path = args.out or RESULTS / ("klr_tables_quick.json" if args.quick else "klr_tables.json")
    if not cfg.stand_in:
        try:
            from kernelkit import SparseKernelLogisticRegression  # noqa: F401
        except ImportError as exc:
            raise SystemExit(
                f"kernelkit.SparseKernelLogisticRegression not available: {exc}"
            ) from None
    if args.jobs > 1:
        for var in THREAD_VARS:  # one thread per worker process (inherited by 'spawn')
            os.environ.setdefault(var, str(args.threads))

    reductions = []
    caps = dict(cfg.max_rows)
    for n in names:
        if n in caps:
            try:
                full = load(n, args.data).shape[0]
            except DataMissing:
                continue
            if full > caps[n]:
                reductions.append(f"{n}: stratified random subsample of {caps[n]:,} of {full:,}"
                                  f" rows (seed {cfg.seed}) before the CV")  # fmt: skip
    if c_grid != PAPER_C:
        reductions.append(f"C grid {list(c_grid)} instead of the paper's 1e-4..1e4")
    if n_lam != 10:
        reductions.append(f"{n_lam} λ values per C instead of 10")
    if cfg.table4_folds < cfg.folds:
        reductions.append(f"Table 4 1ord grid on {cfg.table4_folds} of {cfg.folds} folds")

    # Tasks: the biggest first (load balance); the 1ord λ > 0 grids as separate tasks.
    sizes = {}
    for n in names:
        try:
            sizes[n] = prepared(n, cfg).shape[0]
        except DataMissing as exc:
            print(f"note: {exc}: skipped")
    tasks = [(n, f, "main") for n in sizes for f in range(cfg.folds)]
    tasks += [(n, f, "ord1") for n in sizes for f in range(cfg.table4_folds)]
    tasks.sort(key=lambda t: (-sizes[t[0]], t[2] != "ord1", t[1]))
    print(f"{len(tasks)} tasks over {len(sizes)} dataset(s), {args.jobs} process(es); {mode}")
    for line in protocol_text(cfg, mode):
        print("  " + line)
    for line in reductions:
        print("  reduction: " + line)

    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    load_start = load_snapshot()
    wall = time.perf_counter()
    results: list[dict[str, Any]] = []
    for i, res in enumerate(execute(tasks, cfg, args.jobs), 1):
        results.append(res)
        el = time.perf_counter() - wall
        msg = f"[{i}/{len(tasks)}] {res['task']} {res['seconds']:.1f} s"
        if "error" in res:
            msg += f"  ERROR {res['error']}"
        print(f"{msg}  (elapsed {el:.0f} s)", file=sys.stderr, flush=True)
    wall_s = time.perf_counter() - wall
    results.sort(key=lambda r: (r["task"][0], r["task"][1], r["task"][2]))

    per = aggregate(results, list(sizes), cfg)
    t4res = table4(results, list(sizes), cfg)
    for title, methods in (
        ("Table 2: S-KLR (test accuracy / ratio of selected points)",
         ("S-KLR sparsest-of-3", "S-KLR best")),
        ("Table 3: best-accuracy selection", ("KLR-1ord", "KLR-2ord", "S-KLR best")),
        ("Table 5: λ = C/10 (paper's Table 5 selected without validation)",
         ("λ-choice sparsest-of-3", "λ-choice best")),
        ("Tie rule sensitivity (not in the paper)", ("S-KLR best (sparse ties)",)),
    ):  # fmt: skip
        header, rows = comparison_rows(per, methods)
        print_table(title, header, rows)
    if t4res["per_dataset"]:
        header, rows = table4_rows(t4res)
        print_table("Table 4: per-fit CPU time and iterations, 2ord / 1ord", header, rows)
    print("\nCost per dataset")
    for n, d in per.items():
        c = d["cost"]
        print(f"  {n:<11} rows {d['data']['rows']:>6}  fits {c['fits']:>4}  fit s "
              f"{c['fit_seconds']:>8.1f}  task s {c['task_seconds']:>8.1f}  infeasible "
              f"{c['infeasible']:>3}  errors {c['errors']}  not converged {c['not_converged']}"
              f"  max n_iter {c['max_iter_seen']:,}")  # fmt: skip
    errors = [(r["task"], f.get("error", r.get("error")))
              for r in results for f in [*fits_of(r), r] if "error" in f]  # fmt: skip
    if errors:
        print(f"\n{len(errors)} error(s); first: {errors[0]}")
    checks = acceptance_checks(per, t4res)
    print("\nChecks")
    print_checks(checks)
    print(f"\nwall time {wall_s:.0f} s")

    out: dict[str, Any] = {
        "paper": "Consolo, Manno & Amaldi, Binary KLR: sparsity-inducing formulation (seed 004)",
        "started": started,
        "argv": argv_used,
        "jobs": args.jobs,
        "mode": mode,
        "stand_in": cfg.stand_in,
        "config": asdict(cfg),
        "protocol_text": protocol_text(cfg, mode),
        "reductions": reductions,
        "machine": machine_info(),
        "packages": package_versions(PACKAGES),
        "load_start": load_start,
        "load_end": load_snapshot(),
        "wall_seconds": wall_s,
        "checks": checks,
        "averages": {
            m: averages(per, m)
            for m in (
                "S-KLR best",
                "S-KLR sparsest-of-3",
                "KLR-1ord",
                "KLR-2ord",
                "λ-choice best",
                "λ-choice sparsest-of-3",
            )
        },
        "per_dataset": per,
        "table4": t4res,
        "errors": [{"task": t, "error": e} for t, e in errors],
        "results": results,
    }
    write_json(out_path, out)
    out_path.with_suffix(".md").write_text(markdown_report(out))
    note = plot(out, out_path.with_suffix(".png"))
    print(f"wrote {out_path}, {out_path.with_suffix('.md').name}"
          + ("" if note else f", {out_path.with_suffix('.png').name}"))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
