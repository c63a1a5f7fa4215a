"""Peak memory of a fit: the kernel cache respects ``cache_size``, so a fit needs the data, the
cache and O(n) vectors, for n up to 200k. Each (library, n, cache_size) in a fresh process that
makes its data (two overlapping Gaussian classes); the fit's memory is the peak RSS during the
fit above the RSS before it, beside kernelkit's own account of its cache. The same ``max_iter``
for both libraries, enough to fill the cache (the objective is not compared here).

    python benches/bench_memory.py                      # n = 25k, 50k, 100k, 200k; 50 and 200 MB
    python benches/bench_memory.py --sizes 20000 --cache-sizes 50 --peers kernelkit

Writes ``benches/results/memory.{json,md}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import harness
from harness import data, report, runner
from harness.svm import svm_case

MIB = 2**20


def above_cache(r: dict[str, Any], per_row: bool = False) -> str:
    extra = r["fit_peak_mb"] - r["cache_size_mb"]
    return f"{extra * MIB / r['n']:.0f}" if per_row else f"{extra:.1f}"


COLUMNS: list[report.Column] = [
    ("library", "label"), ("n", "n:,"), ("cache_size MB", "cache_size_mb:g"),
    ("data MiB", "data_mb:.1f"), ("fit peak above pre-fit RSS MiB", "fit_peak_mb:.1f"),
    ("fit peak − cache_size", above_cache), ("per row (bytes)", lambda r: above_cache(r, True)),
    ("cache in use MiB", "cache_in_use_mb:.1f"), ("fit s", "fit_s:.2f"),
]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = harness.parser(__doc__, data=False)
    harness.options(p, sizes=[25_000, 50_000, 100_000, 200_000], cache_sizes=[50, 200],
                    features=20, max_iter=4000, peers=["kernelkit", "sklearn"], timeout=1800.0,
                    out=(harness.RESULTS, None, Path))  # fmt: skip
    a = p.parse_args(argv)
    run, d, rows = harness.Run(argv), a.features, []
    for n in a.sizes:
        for cache in a.cache_sizes:
            params = {
                "C": 1.0, "gamma": 1.0 / d, "cache_size": float(cache), "max_iter": a.max_iter
            }  # fmt: skip
            keys = {"n": n, "d": d, "cache_size_mb": cache, "data_mb": n * d * 8 / MIB}
            cases = [svm_case(lib, lib, "SVC", params, (data.overlapping_classes, (n, d)), keys,
                              n_jobs=2 if lib == "kernelkit" else None, objective=False,
                              timeout=a.timeout) for lib in a.peers]  # fmt: skip
            for r in runner.run(cases):
                if r.get("peak_rss_reset") and r.get("rss_at_fit_start_mb") is not None:
                    r["fit_peak_mb"] = r["peak_rss_fit_mb"] - r["rss_at_fit_start_mb"]
                stats = r.get("solver_stats") or {}
                if "cache_bytes_in_use" in stats:
                    r["cache_budget_mb"] = stats["cache_budget_bytes"] / MIB
                    r["cache_in_use_mb"] = stats["cache_bytes_in_use"] / MIB
                    r["cache_misses"] = stats["cache_misses"]
                rows.append(r)
    ok = [r for r in rows if "error" not in r]
    run.write(a.out / "memory", run.record(rows=rows), report.table(ok, COLUMNS, done=None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
