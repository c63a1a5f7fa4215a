"""Tables and the plot of the PU scaling benchmark (rows are the dicts `bench_pu.py` writes)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

from _common import (
    fmt,
    markdown_table,
)


def rss_cell(r: dict[str, Any]) -> str:
    peak, start = r.get("peak_rss_fit_mb"), r.get("rss_at_fit_start_mb")
    if peak is None:
        return "—"
    return f"{peak:.0f}" if start is None else f"{peak:.0f} (+{peak - start:.0f})"


def note_cell(r: dict[str, Any]) -> str:
    if r["solver"] == "kernelkit":
        return f"{r['status']}, {r['n_iter']:,} it, gap {r['kkt_gap']:.1e}"
    if r["solver"] == "cvxpy":
        return f"{r['status']}, {r['n_iter']} it, K {r['kernel_s']:.1f} s"
    return f"c = {r['elkanoto_c']:.3f}"


def results_table(rows: list[dict[str, Any]]) -> str:
    header = [
        "data",
        "kernel",
        "n",
        "solver",
        "reps",
        "fit s",
        "time / kernelkit",
        "peak RSS MB (+growth)",
        "dual objective Φ",
        "rel. diff vs cvxpy",
        "test F1",
        "notes",
    ]
    body = []
    for r in rows:
        head = [r["dataset"], r["kernel"], f"{r['n']:,}", r["solver"], str(r["repeats"])]
        if "fit_s" not in r:
            reason = r.get("skipped") or "FAILED: " + r.get("error", "?")
            body.append([*head, "—", "—", "—", "—", "—", "—", reason[:90]])
            continue
        body.append(
            [
                *head,
                fmt(r["fit_s"], ".3f"),
                fmt(r.get("time_ratio_vs_kernelkit"), ".2f"),
                rss_cell(r),
                fmt(r.get("objective"), ".8g"),
                fmt(r.get("objective_rel_diff_vs_cvxpy"), "+.1e"),
                fmt(r["test_f1"], ".4f"),
                note_cell(r),
            ]
        )
    return markdown_table(header, body, n_text_cols=4)


def ratios_table(summary: list[dict[str, Any]]) -> str:
    header = [
        "data",
        "kernel",
        "n",
        "kernelkit s",
        "cvxpy / kernelkit",
        "pulearn / kernelkit",
        "Φ rel. diff (kk vs cvxpy)",
        "max Δσ / c2",
        "test agreement kk/cvxpy",
        "F1 kernelkit",
        "F1 cvxpy",
        "F1 pulearn",
    ]
    body = [
        [
            s["dataset"],
            s["kernel"],
            f"{s['n']:,}",
            fmt(s["kernelkit_fit_s"], ".3f"),
            fmt(s["cvxpy_over_kernelkit_time"], ".1f"),
            fmt(s["pulearn_over_kernelkit_time"], ".1f"),
            fmt(s["kernelkit_objective_rel_diff_vs_cvxpy"], "+.1e"),
            fmt(s["sigma_max_abs_diff_over_c2"], ".1e"),
            fmt(s["test_prediction_agreement_kernelkit_cvxpy"], ".4f"),
            fmt(s["kernelkit_test_f1"], ".4f"),
            fmt(s["cvxpy_test_f1"], ".4f"),
            fmt(s["pulearn_test_f1"], ".4f"),
        ]
        for s in summary
    ]
    return markdown_table(header, body, n_text_cols=2)


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> bool:
    """Two log-log panels (fit time, peak RSS vs n), one line per (dataset,) solver and kernel."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return False
    colours = {"kernelkit": "tab:blue", "cvxpy": "tab:red", "pulearn": "tab:green"}
    styles = {"rbf": "-", "linear": "--"}
    markers = {"synthetic": "o", "a9a": "s"}
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 5.0))
    lines = dict.fromkeys((r["dataset"], r["solver"], r["kernel"]) for r in rows)
    for ax, field, label in (
        (axes[0], "fit_s", "fit time (s)"),
        (axes[1], "peak_rss_fit_mb", "peak RSS during fit (MiB)"),
    ):
        for dataset, solver, kernel in lines:
            pts = sorted(
                (r["n"], r[field])
                for r in rows
                if (r["dataset"], r["solver"], r["kernel"]) == (dataset, solver, kernel)
                and r.get(field) is not None
            )
            if not pts:
                continue
            name = f"{solver} {kernel}" + (f" ({dataset})" if len(datasets) > 1 else "")
            ax.plot(
                *zip(*pts, strict=True),
                color=colours.get(solver),
                linestyle=styles.get(kernel, ":"),
                marker=markers.get(dataset, "^"),
                label=name,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        sizes = sorted({r["n"] for r in rows})
        ax.set_xticks(sizes, [f"{n:,}" for n in sizes], rotation=45, fontsize=7)
        ax.set_xticks([], minor=True)  # only the measured sizes on the x axis
        ax.set_xlabel("unlabeled points n (p = labeled positives fixed)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("\n".join(textwrap.wrap(title, 150)), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------- main
