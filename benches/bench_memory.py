"""Peak memory of a fit: the kernel cache respects ``cache_size``, so a fit needs the data, the
cache and O(n) vectors, for n up to 200k.

Each (library, n, cache_size) runs in a fresh process. The process builds the data (dense
Gaussian classes, d features, float64), imports its library and resets the kernel's peak-RSS
mark; the fit's memory is then ``VmHWM - VmRSS before the fit``. kernelkit's
``solver_stats_`` gives the cache's own account (budget and bytes in use) beside it. Both
libraries get the same ``max_iter``, enough iterations for the cache to fill (a column holds n
float32 values, so ``cache_size / (4n)`` misses fill it), so the full 200k fits need not run
to convergence: the memory peak is reached early, and the objective is not compared here.

    python benches/bench_memory.py                      # n = 25k, 50k, 100k, 200k; 50 and 200 MB
    python benches/bench_memory.py --sizes 20000 --cache-sizes 50 --peers kernelkit

Writes ``benches/results/memory.{json,md,png}``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    current_rss_mb,
    machine_info,
    markdown_table,
    parse_int_list,
    parse_str_list,
    peak_rss_mb,
    reset_peak_rss,
    run_isolated,
    write_json,
)

RESULTS = Path(__file__).resolve().parent / "results"
MIB = 2**20


def make_data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two overlapping Gaussian classes: many support vectors, so the cache is used hard."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    x = rng.standard_normal((n, d)) + 0.5 * y[:, None]
    return x, y


def fit_once(library: str, n: int, d: int, cache_mb: float, max_iter: int) -> dict[str, Any]:
    """Runs in a fresh process: one fit, its memory and its cache's account."""
    x, y = make_data(n, d)
    if library == "kernelkit":
        from kernelkit import SVC

        model: Any = SVC(C=1.0, gamma=1.0 / d, cache_size=cache_mb, max_iter=max_iter, n_jobs=2)
    else:
        from sklearn.svm import SVC as SklearnSVC

        model = SklearnSVC(C=1.0, gamma=1.0 / d, cache_size=cache_mb, max_iter=max_iter)
    import warnings

    warnings.simplefilter("ignore")  # ConvergenceWarning: max_iter is meant to cut the fit
    before = current_rss_mb()
    reset_ok = reset_peak_rss()
    start = time.perf_counter()
    model.fit(x, y)
    seconds = time.perf_counter() - start
    row: dict[str, Any] = {
        "library": library,
        "n": n,
        "d": d,
        "cache_size_mb": cache_mb,
        "max_iter": max_iter,
        "fit_s": seconds,
        "data_mb": x.nbytes / MIB,
        "rss_before_fit_mb": before,
        "peak_reset": reset_ok,
        "fit_peak_mb": (peak_rss_mb() - before) if (before is not None and reset_ok) else None,
        "n_support": int(np.sum(model.n_support_)),
    }
    if library == "kernelkit":
        stats = model.solver_stats_[0]
        row["cache_budget_mb"] = stats["cache_budget_bytes"] / MIB
        row["cache_in_use_mb"] = stats["cache_bytes_in_use"] / MIB
        row["cache_misses"] = stats["cache_misses"]
    return row


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=parse_int_list, default=[25_000, 50_000, 100_000, 200_000])
    p.add_argument("--cache-sizes", type=parse_int_list, default=[50, 200])
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--max-iter", type=int, default=4000)
    p.add_argument("--peers", type=parse_str_list, default=["kernelkit", "sklearn"])
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--out", type=Path, default=RESULTS)
    return p.parse_args(argv)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=90)
    for (library, cache), marker in zip(
        sorted({(r["library"], r["cache_size_mb"]) for r in rows}), "os^vDx", strict=False
    ):
        sel = [r for r in rows if (r["library"], r["cache_size_mb"]) == (library, cache)]
        sel = [r for r in sel if r.get("fit_peak_mb") is not None]
        if sel:
            ax.plot(
                [r["n"] for r in sel],
                [r["fit_peak_mb"] for r in sel],
                marker=marker,
                label=f"{library}, cache_size={cache:g} MB",
            )
    for cache in sorted({r["cache_size_mb"] for r in rows}):
        ax.axhline(cache, color="grey", lw=0.6, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("training rows n")
    ax.set_ylabel("peak RSS during the fit above the pre-fit RSS (MiB)")
    ax.set_title("Memory of a fit (dotted: cache_size)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows: list[dict[str, Any]] = []
    for n in args.sizes:
        for cache in args.cache_sizes:
            for library in args.peers:
                try:
                    row = run_isolated(
                        fit_once,
                        (library, n, args.features, float(cache), args.max_iter),
                        timeout=args.timeout,
                    )
                except RuntimeError as exc:
                    row = {"library": library, "n": n, "cache_size_mb": cache, "error": str(exc)}
                rows.append(row)
                print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in row.items()})
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "memory.json", {"machine": machine_info(), "rows": rows})

    def cell(row: dict[str, Any], key: str, spec: str = ".1f") -> str:
        value = row.get(key)
        return "—" if value is None else format(value, spec)

    table = markdown_table(
        [
            "library",
            "n",
            "cache_size MB",
            "data MiB",
            "fit peak above pre-fit RSS MiB",
            "fit peak − cache_size",
            "per row (bytes)",
            "cache in use MiB",
            "fit s",
        ],
        [
            [
                r["library"],
                f"{r['n']:,}",
                f"{r['cache_size_mb']:g}",
                cell(r, "data_mb"),
                cell(r, "fit_peak_mb"),
                "—"
                if r.get("fit_peak_mb") is None
                else f"{r['fit_peak_mb'] - r['cache_size_mb']:.1f}",
                "—"
                if r.get("fit_peak_mb") is None
                else f"{(r['fit_peak_mb'] - r['cache_size_mb']) * MIB / r['n']:.0f}",
                cell(r, "cache_in_use_mb"),
                cell(r, "fit_s", ".2f"),
            ]
            for r in rows
            if "error" not in r
        ],
    )
    (args.out / "memory.md").write_text(table + "\n")
    print(table)
    if any(r.get("fit_peak_mb") is not None for r in rows):
        plot([r for r in rows if "error" not in r], args.out / "memory.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
