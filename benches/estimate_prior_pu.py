"""``kernelkit.pu.estimate_prior`` on the PU paper's 12 data sets, labels hidden at random.

Each labeling is ``reproduce_pu_tables.py``'s (the authors' ``demo2.m``): ``⌊0.2·π·N⌋`` random
positives labeled, every other row unlabeled. The truth is the positive fraction of the
unlabeled rows, the ``prior`` ``PUClassifier`` needs. Per set and method: the truth, the mean
and standard deviation of the estimates over the labelings, their largest error and how many
labelings land within 0.05. Writes ``benches/results/pu_prior.{json,md}``. Nothing here is
tuned: every method runs with ``estimate_prior``'s defaults.

    python benches/estimate_prior_pu.py [--seeds 5] [--methods km2,km1,elkan_noto]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import DEFAULT_DATA_DIR, machine_info, markdown_table, package_versions, write_json
from reproduce_pu_tables import DATASETS, PRIORS, TABLE_NAMES, labeled_mask, load_dataset

from kernelkit.pu import estimate_prior

OUT = Path(__file__).resolve().parent / "results" / "pu_prior.json"
WITHIN = 0.05


def run(data_dir: Path, seeds: int, methods: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name in DATASETS:
        X, y = load_dataset(data_dir, name)
        for seed in range(seeds):
            labeled = labeled_mask(y, PRIORS[name], seed)
            truth = float(y[~labeled].mean())
            for method in methods:
                start = time.perf_counter()
                value = estimate_prior(X, labeled.astype(int), method=method, random_state=seed)
                seconds = time.perf_counter() - start
                rows.append(
                    {
                        "set": name,
                        "seed": seed,
                        "method": method,
                        "truth": truth,
                        "estimate": value,
                        "seconds": seconds,
                    }
                )
                print(
                    f"{name:15s} seed {seed} {method:11s} truth {truth:.3f} "
                    f"estimate {value:.3f} ({seconds:.1f} s)",
                    flush=True,
                )
    return rows


def summary(rows: list[dict[str, Any]], methods: list[str]) -> tuple[list[list[str]], str]:
    table = []
    close = dict.fromkeys(methods, 0)
    close_mean = dict.fromkeys(methods, 0)
    for name in DATASETS:
        mine = [r for r in rows if r["set"] == name]
        line = [TABLE_NAMES[name], f"{mine[0]['truth']:.3f}", str(len(mine) // len(methods))]
        for method in methods:
            values = np.array([r["estimate"] for r in mine if r["method"] == method])
            errors = np.abs(values - mine[0]["truth"])
            hits = int(np.sum(errors <= WITHIN))
            close[method] += hits == len(values)
            close_mean[method] += abs(values.mean() - mine[0]["truth"]) <= WITHIN
            line.append(f"{values.mean():.3f} ± {values.std():.3f} ({hits}/{len(values)})")
        table.append(line)
    notes = "; ".join(
        f"{method}: mean within {WITHIN} on {close_mean[method]} sets, every labeling within "
        f"{WITHIN} on {close[method]} sets"
        for method in methods
    )
    return table, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--methods", default="km2,km1,elkan_noto")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    methods = args.methods.split(",")
    rows = run(args.data, args.seeds, methods)
    table, notes = summary(rows, methods)
    header = ["data set", "truth π_U", "labelings"] + [
        f"{method}: mean ± sd (within {WITHIN})" for method in methods
    ]
    text = markdown_table(header, table) + f"\n\n{notes}\n"
    print(text)
    write_json(
        args.out,
        {
            "rows": rows,
            "methods": methods,
            "seeds": args.seeds,
            "notes": notes,
            "machine": machine_info(),
            "versions": package_versions(),
        },
    )
    args.out.with_suffix(".md").write_text(text)


if __name__ == "__main__":
    main()
