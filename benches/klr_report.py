"""Shared pieces of the sparse KLR scripts (seed paper 004, Consolo, Manno & Amaldi, "Binary
Kernel Logistic Regression: a sparsity-inducing formulation and a convergent decomposition
training algorithm"): the paper's Tables 2–5 verbatim (digest §5.5–5.8, with the corrected column
order of Tables 2 and 5), the PASS/FAIL checks, and the Markdown and PNG output of
``reproduce_klr_tables.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import check, fmt, markdown_table

Pair = tuple[float, float]  # (accuracy, ratio of selected points)

# Table 2 (digest §5.5), corrected column order: per dataset
# (S-KLR sparsest-of-3, S-KLR best, SVM sparsest-of-3, SVM best), each (accuracy, ratio).
PAPER_TABLE2: dict[str, tuple[Pair, Pair, Pair, Pair]] = {
    "banknote": ((1.0, 0.06), (1.0, 0.162), (1.0, 0.009), (1.0, 0.009)),
    "coil2000": ((0.94, 0.155), (0.94, 0.265), (0.94, 0.119), (0.94, 0.119)),
    "diabetes": ((0.77, 0.529), (0.767, 0.724), (0.745, 0.49), (0.767, 0.531)),
    "ionosphere": ((0.946, 0.488), (0.946, 0.488), (0.926, 0.444), (0.934, 0.459)),
    "magic": ((0.857, 0.69), (0.857, 0.754), (0.875, 0.293), (0.874, 0.299)),
    "monk2": ((0.958, 0.292), (0.958, 0.297), (0.974, 0.222), (0.976, 0.286)),
    "ring": ((0.978, 0.085), (0.978, 0.113), (0.974, 0.07), (0.978, 0.09)),
    "sonar": ((0.866, 0.924), (0.856, 0.941), (0.643, 0.924), (0.851, 0.923)),
    "spambase": ((0.935, 0.246), (0.935, 0.518), (0.931, 0.173), (0.935, 0.206)),
    "twonorm": ((0.976, 0.075), (0.978, 0.141), (0.975, 0.075), (0.977, 0.101)),
    "waveform": ((0.91, 0.282), (0.91, 0.516), (0.909, 0.287), (0.909, 0.287)),
    "wisconsin": ((0.974, 0.145), (0.975, 0.143), (0.965, 0.115), (0.975, 0.147)),
}
PAPER_TABLE2_AVG = {"S-KLR sparsest-of-3": (0.926, 0.331), "S-KLR best": (0.925, 0.422)}

# Table 3 (digest §5.6): (KLR-1ord, KLR-2ord, S-KLR), best-accuracy selection.
PAPER_TABLE3: dict[str, tuple[Pair, Pair, Pair]] = {
    "banknote": ((0.977, 1.0), (1.0, 0.694), (1.0, 0.162)),
    "coil2000": ((0.94, 0.0), (0.94, 0.155), (0.94, 0.265)),
    "diabetes": ((0.763, 1.0), (0.776, 1.0), (0.767, 0.724)),
    "ionosphere": ((0.943, 1.0), (0.94, 1.0), (0.946, 0.488)),
    "magic": ((0.839, 1.0), (0.807, 0.69), (0.857, 0.754)),
    "monk2": ((0.96, 1.0), (0.972, 0.96), (0.958, 0.297)),
    "ring": ((0.949, 1.0), (0.978, 0.817), (0.978, 0.113)),
    "sonar": ((0.823, 1.0), (0.823, 1.0), (0.856, 0.941)),
    "spambase": ((0.925, 1.0), (0.934, 0.95), (0.935, 0.518)),
    "twonorm": ((0.978, 1.0), (0.979, 0.987), (0.978, 0.141)),
    "waveform": ((0.909, 1.0), (0.911, 0.998), (0.91, 0.516)),
    "wisconsin": ((0.952, 1.0), (0.951, 0.978), (0.975, 0.143)),
}
PAPER_TABLE3_AVG = {
    "KLR-1ord": (0.913, 0.917),
    "KLR-2ord": (0.918, 0.852),
    "S-KLR": (0.925, 0.422),
}

# Table 4 (digest §5.7): per-fit CPU seconds (S-KLR-1ord, S-KLR-2ord) and the ratio 2ord/1ord.
PAPER_TABLE4: dict[str, tuple[float, float, float]] = {
    "banknote": (9.649, 7.559, 0.783),
    "coil2000": (22.654, 16.633, 0.734),
    "diabetes": (8.36, 7.068, 0.845),
    "ionosphere": (10.955, 6.989, 0.638),
    "magic": (53.779, 52.841, 0.982),
    "monk2": (6.388, 4.548, 0.712),
    "ring": (21.12, 20.011, 0.947),
    "sonar": (6.85, 5.204, 0.759),
    "spambase": (16.282, 16.525, 1.015),
    "twonorm": (25.21, 24.73, 0.981),
    "waveform": (16.658, 14.077, 0.845),
    "wisconsin": (8.839, 5.464, 0.618),
}
PAPER_TABLE4_MEAN_RATIO = 0.821

# Table 5 (digest §5.8), corrected column order: (λ-choice sparsest-of-3, λ-choice best,
# S-KLR sparsest-of-3, S-KLR best). Table 5 used no validation set (digest §5.3, §7.12).
PAPER_TABLE5: dict[str, tuple[Pair, Pair, Pair, Pair]] = {
    "banknote": ((1.0, 0.059), (1.0, 0.059), (1.0, 0.05), (1.0, 0.05)),
    "coil2000": ((0.94, 0.059), (0.94, 0.059), (0.94, 0.059), (0.94, 0.059)),
    "diabetes": ((0.768, 0.523), (0.7695, 0.565), (0.771, 0.567), (0.771, 0.567)),
    "ionosphere": ((0.943, 0.488), (0.949, 0.976), (0.952, 0.496), (0.952, 0.496)),
    "magic": ((0.861, 0.357), (0.861, 0.357), (0.861, 0.357), (0.865, 0.99)),
    "monk2": ((0.958, 0.292), (0.965, 1.0), (0.97, 0.319), (0.972, 0.357)),
    "ring": ((0.978, 0.081), (0.978, 0.081), (0.978, 0.08), (0.978, 0.08)),
    "sonar": ((0.889, 0.925), (0.889, 0.925), (0.894, 0.92), (0.894, 0.92)),
    "spambase": ((0.932, 0.241), (0.932, 0.241), (0.932, 0.241), (0.939, 0.918)),
    "twonorm": ((0.974, 0.071), (0.974, 0.185), (0.977, 0.08), (0.978, 0.082)),
    "waveform": ((0.902, 0.32), (0.912, 0.99), (0.911, 0.291), (0.911, 0.291)),
    "wisconsin": ((0.975, 0.144), (0.975, 0.144), (0.977, 0.187), (0.977, 0.187)),
}

# The methods reported per dataset (keys of the per-dataset "methods" summaries).
METHODS = (
    "S-KLR best",
    "S-KLR sparsest-of-3",
    "S-KLR best (sparse ties)",
    "KLR-1ord",
    "KLR-2ord",
    "λ-choice best",
    "λ-choice sparsest-of-3",
)


def paper_value(method: str, name: str) -> Pair | None:
    """The paper's (accuracy, ratio) for one of our methods on one dataset."""
    if name not in PAPER_TABLE2:
        return None
    table = {
        "S-KLR best": PAPER_TABLE2[name][1],
        "S-KLR sparsest-of-3": PAPER_TABLE2[name][0],
        "KLR-1ord": PAPER_TABLE3[name][0],
        "KLR-2ord": PAPER_TABLE3[name][1],
        "λ-choice best": PAPER_TABLE5[name][1],
        "λ-choice sparsest-of-3": PAPER_TABLE5[name][0],
    }
    return table.get(method)


def mean_of(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None and np.isfinite(v)]
    return float(np.mean(vals)) if vals else None


# --------------------------------------------------------------------------- checks
def averages(per_dataset: Mapping[str, Any], method: str) -> dict[str, Any]:
    """Our and the paper's averages of (accuracy, ratio) over the datasets that ran."""
    names = [n for n, d in per_dataset.items() if method in d["methods"]]
    ours_acc = [per_dataset[n]["methods"][method]["test_accuracy"] for n in names]
    ours_ratio = [per_dataset[n]["methods"][method]["ratio"] for n in names]
    paper = [paper_value(method, n) for n in names]
    return {
        "datasets": names,
        "accuracy": mean_of(ours_acc),
        "ratio": mean_of(ours_ratio),
        "accuracy_std": float(np.std(ours_acc, ddof=1)) if len(ours_acc) > 1 else None,
        "paper_accuracy": mean_of([p[0] for p in paper if p is not None]),
        "paper_ratio": mean_of([p[1] for p in paper if p is not None]),
    }


def acceptance_checks(per_dataset: Mapping[str, Any], table4: Mapping[str, Any]) -> list[Any]:
    out = []
    s_best = averages(per_dataset, "S-KLR best")
    n = len(s_best["datasets"])
    if s_best["accuracy"] is None:
        out.append(check("S-KLR best accuracy within 2 points of the paper", None, "no data"))
    else:
        diff = s_best["accuracy"] - s_best["paper_accuracy"]
        out.append(
            check(
                "S-KLR best: average test accuracy within 2 points of the paper's",
                abs(diff) <= 0.02,
                f"ours {s_best['accuracy']:.4f} vs paper {s_best['paper_accuracy']:.4f} "
                f"(diff {100 * diff:+.2f} points) over {n} dataset(s)"
                + (" — the paper's 0.925 is the 12-dataset average" if n == 12 else ""),
            )
        )
    s3 = averages(per_dataset, "S-KLR sparsest-of-3")
    if s3["accuracy"] is not None:
        diff = s3["accuracy"] - s3["paper_accuracy"]
        out.append(
            check(
                "S-KLR sparsest-of-3: average test accuracy within 2 points of the paper's",
                abs(diff) <= 0.02,
                f"ours {s3['accuracy']:.4f} vs paper {s3['paper_accuracy']:.4f} "
                f"(diff {100 * diff:+.2f} points)",
            )
        )
    k2 = averages(per_dataset, "KLR-2ord")
    if s_best["ratio"] is not None and k2["ratio"] is not None and k2["ratio"] > 0:
        rel = s_best["ratio"] / k2["ratio"]
        paper_rel = s_best["paper_ratio"] / k2["paper_ratio"]
        out.append(
            check(
                "λ > 0 sparsifies (best, ties → smaller C then λ): S-KLR average ratio ≤ 0.75 × "
                "KLR-2ord (λ = 0) average ratio",
                rel <= 0.75,
                f"ours {100 * s_best['ratio']:.1f}% vs {100 * k2['ratio']:.1f}% (×{rel:.2f}); "
                f"paper {100 * s_best['paper_ratio']:.1f}% vs {100 * k2['paper_ratio']:.1f}% "
                f"(×{paper_rel:.2f})",
            )
        )
    else:
        out.append(check("λ > 0 sparsifies (S-KLR vs KLR-2ord ratio)", None, "no data"))
    sp = averages(per_dataset, "S-KLR best (sparse ties)")
    if (
        sp["ratio"] is not None
        and k2["ratio"]
        and sp["accuracy"] is not None
        and s_best["paper_accuracy"]
    ):
        # The paper's "best" is the most accurate setting on a 5% validation set, where tens of
        # the 90 (C, λ) settings tie; it does not say how ties are broken.
        diff = sp["accuracy"] - s_best["paper_accuracy"]
        out.append(
            check(
                "λ > 0 sparsifies (best, ties → sparsest): ratio ≤ 0.75 × KLR-2ord's, and "
                "accuracy within 2 points of the paper's S-KLR best",
                sp["ratio"] <= 0.75 * k2["ratio"] and abs(diff) <= 0.02,
                f"{100 * sp['ratio']:.1f}% vs {100 * k2['ratio']:.1f}% "
                f"(×{sp['ratio'] / k2['ratio']:.2f}), accuracy {sp['accuracy']:.4f} "
                f"(diff {100 * diff:+.2f} points)",
            )
        )
    if table4.get("mean_time_ratio") is not None:
        out.append(
            check(
                "Table 4: 2nd-order WSS cheaper than 1st order (mean of per-dataset "
                "iteration ratios < 1)",
                table4["mean_iter_ratio"] < 1.0,
                f"iterations ×{table4['mean_iter_ratio']:.3f}, CPU time "
                f"×{table4['mean_time_ratio']:.3f} (paper time ×{PAPER_TABLE4_MEAN_RATIO})",
            )
        )
        out.append(
            check(
                "Table 4: mean of per-dataset CPU-time ratios 2ord/1ord < 1",
                table4["mean_time_ratio"] < 1.0,
                f"×{table4['mean_time_ratio']:.3f} (paper ×{PAPER_TABLE4_MEAN_RATIO})",
                gate=False,
            )
        )
    return out


# --------------------------------------------------------------------------- tables
def ar(pair: Pair | None, digits: int = 3) -> str:
    """'accuracy / ratio' cell."""
    if pair is None or pair[0] is None:
        return "—"
    return f"{pair[0]:.{digits}f} / {pair[1]:.{digits}f}"


def _ours(per_dataset: Mapping[str, Any], name: str, method: str) -> Pair | None:
    m = per_dataset[name]["methods"].get(method)
    return None if m is None else (m["test_accuracy"], m["ratio"])


def comparison_rows(
    per_dataset: Mapping[str, Any], methods: Sequence[str]
) -> tuple[list[str], list[list[str]]]:
    """Rows 'dataset | ours | paper' per method (accuracy / ratio), plus the average row."""
    header = ["dataset"]
    for m in methods:
        header += [f"{m} ours", "paper"]
    rows = []
    for name in per_dataset:
        row = [name]
        for m in methods:
            row += [ar(_ours(per_dataset, name, m)), ar(paper_value(m, name))]
        rows.append(row)
    avg = ["**average**"]
    for m in methods:
        a = averages(per_dataset, m)
        ours = None if a["accuracy"] is None else (a["accuracy"], a["ratio"])
        paper = None if a["paper_accuracy"] is None else (a["paper_accuracy"], a["paper_ratio"])
        avg += [ar(ours), ar(paper)]
    rows.append(avg)
    return header, rows


def table4_rows(table4: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["dataset", "fits", "1ord ms/fit", "2ord ms/fit", "time ratio", "1ord iters/fit",
              "2ord iters/fit", "iter ratio", "not converged 1ord/2ord", "paper ratio"]  # fmt: skip
    rows = []
    for name, r in table4["per_dataset"].items():
        paper = PAPER_TABLE4.get(name)
        rows.append(
            [
                name,
                str(r["fits"]),
                fmt(1e3 * r["cpu_1ord"], ".2f"),
                fmt(1e3 * r["cpu_2ord"], ".2f"),
                fmt(r["time_ratio"], ".3f"),
                fmt(r["iter_1ord"], ".0f"),
                fmt(r["iter_2ord"], ".0f"),
                fmt(r["iter_ratio"], ".3f"),
                f"{r['not_converged_1ord']}/{r['not_converged_2ord']}",
                fmt(None if paper is None else paper[2], ".3f"),
            ]
        )
    rows.append(
        [
            "**mean of ratios**",
            "",
            "",
            "",
            fmt(table4.get("mean_time_ratio"), ".3f"),
            "",
            "",
            fmt(table4.get("mean_iter_ratio"), ".3f"),
            "",
            fmt(table4.get("paper_mean_ratio"), ".3f"),
        ]
    )
    return header, rows


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(h)), *(len(str(r[j])) for r in rows)) for j, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(str(h).rjust(w) if j else str(h).ljust(w) for j, (h, w) in
                    enumerate(zip(header, widths, strict=True))))  # fmt: skip
    for r in rows:
        print("  ".join(str(c).rjust(w) if j else str(c).ljust(w) for j, (c, w) in
                        enumerate(zip(r, widths, strict=True))))  # fmt: skip


def markdown_report(out: Mapping[str, Any]) -> str:
    per = out["per_dataset"]
    lines = [
        "# Sparse KLR (seed paper 004): reproduction of Tables 2–5",
        "",
        f"Started {out['started']}; wall time {out['wall_seconds']:.0f} s with "
        f"{out['jobs']} process(es). Mode: **{out['mode']}**.",
        "",
    ]
    if out.get("stand_in"):
        lines += ["**STAND-IN RUN: sklearn SVC instead of kernelkit (harness test only).**", ""]
    lines += ["## Protocol", ""] + [f"- {p}" for p in out["protocol_text"]] + [""]
    if out.get("reductions"):
        lines += ["## Reductions", ""] + [f"- {r}" for r in out["reductions"]] + [""]
    lines += ["## Checks", ""]
    lines += [f"- **{c['status']}** {c['name']}: {c['detail']}" for c in out["checks"]]
    lines += ["", "Cells are test accuracy / ratio of selected points (mean over folds).", ""]
    for title, methods in (
        ("Table 2 (S-KLR; paper columns with the corrected order)",
         ("S-KLR sparsest-of-3", "S-KLR best")),
        ("Table 3 (best-accuracy selection)", ("KLR-1ord", "KLR-2ord", "S-KLR best")),
        ("Table 5 (λ = C/10; the paper's Table 5 used no validation set)",
         ("λ-choice sparsest-of-3", "λ-choice best")),
    ):  # fmt: skip
        header, rows = comparison_rows(per, methods)
        lines += [f"## {title}", "", markdown_table(header, rows), ""]
    header = ["dataset", "S-KLR best (sparse ties) ours", "S-KLR best ours"]
    rows = [
        [n, ar(_ours(per, n, "S-KLR best (sparse ties)")), ar(_ours(per, n, "S-KLR best"))]
        for n in per
    ]
    lines += ["## Tie rule sensitivity (not in the paper)", "", markdown_table(header, rows), ""]
    if out["table4"]["per_dataset"]:
        header, rows = table4_rows(out["table4"])
        lines += ["## Table 4 (per-fit cost over the (C, λ) grid, 2ord / 1ord)", "",
                  out["table4"]["note"], "", markdown_table(header, rows), ""]  # fmt: skip
    header = [
        "dataset",
        "rows",
        "p",
        "source",
        "fits",
        "fit s",
        "not converged",
        "selected C (best)",
    ]
    rows = [
        [n, str(d["data"]["rows"]), str(d["data"]["features"]), d["data"]["source"],
         str(d["cost"]["fits"]), f"{d['cost']['fit_seconds']:.1f}",
         str(d["cost"]["not_converged"]), d["methods"].get("S-KLR best", {}).get("chosen", "")]
        for n, d in per.items()
    ]  # fmt: skip
    lines += ["## Data and cost", "", markdown_table(header, rows, n_text_cols=4), ""]
    lines += ["## Machine", "", "```", str(out["machine"]), "```", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- plot
def plot(out: Mapping[str, Any], path: Path) -> str | None:
    """Three panels: accuracy ours vs paper, ratio per dataset (KLR-2ord and S-KLR, ours vs
    paper), Table 4 ratios. Returns a note when nothing was drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return "matplotlib not installed"
    per = out["per_dataset"]
    names = list(per)
    if not names:
        return "no datasets"
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    ax = axes[0]
    for method, marker in (("S-KLR best", "o"), ("S-KLR sparsest-of-3", "s"), ("KLR-2ord", "^")):
        xs, ys = [], []
        for n in names:
            ours, paper = _ours(per, n, method), paper_value(method, n)
            if ours is not None and paper is not None:
                xs.append(paper[0])
                ys.append(ours[0])
        ax.scatter(xs, ys, marker=marker, label=method, alpha=0.8)
    lo = min([0.7, *ax.get_xlim(), *ax.get_ylim()])
    ax.plot([lo, 1.0], [lo, 1.0], "k--", lw=0.8)
    ax.plot([lo, 1.0], [lo - 0.02, 0.98], "k:", lw=0.6)
    ax.plot([lo, 1.0], [lo + 0.02, 1.02], "k:", lw=0.6)
    ax.set_xlabel("paper test accuracy")
    ax.set_ylabel("our test accuracy")
    ax.set_title("Accuracy per dataset (±2 points dotted)")
    ax.legend(fontsize=8)

    ax = axes[1]
    x = np.arange(len(names))
    w = 0.2
    for k, (method, label) in enumerate(
        (("KLR-2ord", "KLR-2ord (λ=0)"), ("S-KLR best", "S-KLR best"))
    ):
        ours = [(_ours(per, n, method) or (np.nan, np.nan))[1] for n in names]
        paper = [(paper_value(method, n) or (np.nan, np.nan))[1] for n in names]
        ax.bar(x + (2 * k - 1.5) * w, ours, w, label=f"{label} ours")
        ax.bar(x + (2 * k - 0.5) * w, paper, w, label=f"{label} paper", alpha=0.5)
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("ratio of selected points")
    ax.set_title("Sparsity: λ = 0 vs λ > 0")
    ax.legend(fontsize=7)

    ax = axes[2]
    t4 = out["table4"]["per_dataset"]
    if t4:
        n4 = list(t4)
        x4 = np.arange(len(n4))
        ax.bar(x4 - w, [t4[n]["time_ratio"] for n in n4], w, label="CPU time ratio (ours)")
        ax.bar(x4, [t4[n]["iter_ratio"] for n in n4], w, label="iteration ratio (ours)")
        ax.bar(x4 + w, [PAPER_TABLE4.get(n, (0, 0, np.nan))[2] for n in n4], w,
               label="time ratio (paper)", alpha=0.5)  # fmt: skip
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(x4)
        ax.set_xticklabels(n4, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("2nd order / 1st order (per fit)")
        ax.set_title("Table 4: working-set selection")
        ax.legend(fontsize=8)
    else:
        ax.set_axis_off()
    fig.suptitle(f"Sparse KLR reproduction ({out['mode']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None
