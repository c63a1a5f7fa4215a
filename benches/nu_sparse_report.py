"""Tables and the plot of the ν-SVC / sparse-input benchmark (rows are the dicts
`bench_nu_sparse.py` writes)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from _common import fmt, markdown_table

KK_DENSE = "kernelkit-dense"


def group_key(row: dict[str, Any]) -> tuple[str, str, int]:
    return row["dataset"], row["task"], row["n"]


def sklearn_sv(rows: list[dict[str, Any]], row: dict[str, Any]) -> str:
    """#SV of sklearn's fit in the same (dataset, task, n) group."""
    for r in rows:
        if group_key(r) == group_key(row) and r["solver"] == "sklearn" and "n_sv" in r:
            return f"{r['n_sv']:,}"
    return "—"


def results_table(rows: list[dict[str, Any]]) -> str:
    header = [
        "dataset",
        "n",
        "solver",
        "input",
        "reps",
        "fit s (median)",
        "time / kernelkit",
        "predict s",
        "#SV",
        "test acc",
        "dual objective (C form)",
        "rel. obj. diff vs sklearn",
        "agree w/ sklearn",
        "fit peak RSS MB (+growth)",
        "dense copy n·d·8 MB",
        "iters / backend",
    ]
    body = []
    for r in rows:
        lead = [r["dataset"], f"{r['n']:,}", r["solver"], r["layout"]]
        if "error" in r:
            body.append(
                [*lead, str(r["repeats"]), "FAILED: " + r["error"][:70]]
                + ["—"] * (len(header) - len(lead) - 2)
            )
            continue
        body.append(
            [
                *lead,
                str(r["ok_repeats"]),
                fmt(r["fit_s"], ".3f"),
                fmt(r.get("time_ratio_vs_kernelkit"), ".2f"),
                fmt(r["predict_s"], ".3f"),
                f"{r['n_sv']:,}",
                fmt(r["test_accuracy"], ".5f"),
                fmt(r["objective"], ".4f"),
                fmt(r.get("objective_rel_diff_vs_sklearn"), "+.2e"),
                fmt(r.get("prediction_agreement_vs_sklearn"), ".5f"),
                rss_cell(r),
                fmt(r["dense_copy_mb"], ".1f") if r["layout"] == "csr" else "",
                r.get("backend") or iters_cell(r["n_iter"]),
            ]
        )
    return markdown_table(header, body, n_text_cols=4)


def iters_cell(n_iter: list[Any]) -> str:
    """Iterations (one entry per class pair); '—' when the solver does not report them."""
    try:
        return "/".join(f"{float(i):.0f}" for i in n_iter)
    except (TypeError, ValueError):
        return "—"


def rss_cell(r: dict[str, Any]) -> str:
    """Peak RSS of the process during fit, and its growth over the RSS at the start of fit."""
    peak, growth = r.get("peak_rss_fit_mb"), r.get("rss_growth_fit_mb")
    if peak is None:
        return "—"
    return f"{peak:.0f}" if growth is None else f"{peak:.0f} (+{growth:.0f})"


def ratios_table(summary: list[dict[str, Any]]) -> str:
    header = [
        "dataset",
        "task",
        "n",
        "ν",
        "sklearn / kernelkit time",
        "sklearnex / kernelkit time",
        "kernelkit-dense / kernelkit time",
        "kernelkit obj. rel. diff",
        "sklearnex obj. rel. diff",
        "kernelkit CSR fit RSS growth MB (excl. kernel cache) / dense copy n·d·8 MB",
    ]
    body = []
    for s in summary:
        growth = s.get("kernelkit_csr_rss_growth_mb")
        excl = s.get("kernelkit_csr_rss_growth_excl_cache_mb")
        excl_text = f" ({excl:.1f})" if excl is not None else ""
        body.append(
            [
                s["dataset"],
                s["task"],
                f"{s['n']:,}",
                fmt(s["nu"], ".4f"),
                fmt(s["sklearn_over_kernelkit_time"], ".2f"),
                fmt(s["sklearnex_over_kernelkit_time"], ".2f"),
                fmt(s[f"{KK_DENSE}_over_kernelkit_time"], ".2f"),
                fmt(s["kernelkit_objective_rel_diff_vs_sklearn"], "+.2e"),
                fmt(s["sklearnex_objective_rel_diff_vs_sklearn"], "+.2e"),
                f"{growth:.1f}{excl_text} / {s['dense_copy_mb']:.1f}"
                if growth is not None
                else "—",
            ]
        )
    return markdown_table(header, body, n_text_cols=2)


def plot(summary: list[dict[str, Any]], path: Path, title: str) -> bool:
    """Grouped bars: peer time / kernelkit time per (dataset, task, n); log scale, 1 marked."""
    try:
        import matplotlib
        import matplotlib.ticker

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return False
    series = [
        (peer, f"{peer} / kernelkit")
        for peer in ("sklearn", "sklearnex", KK_DENSE)
        if any(s[f"{peer}_over_kernelkit_time"] is not None for s in summary)
    ]
    if not series:
        print("no time ratio to plot", file=sys.stderr)
        return False
    x = np.arange(len(summary), dtype=np.float64)
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6.4, 1.1 * len(summary) + 2), 4.6))
    for j, (peer, label) in enumerate(series):
        vals = [s[f"{peer}_over_kernelkit_time"] for s in summary]
        # Bars span [1, ratio] on the log axis: up when kernelkit is faster, down when slower.
        heights = [v - 1.0 if v is not None else np.nan for v in vals]
        bars = ax.bar(
            x + (j - (len(series) - 1) / 2) * width, heights, width, bottom=1.0, label=label
        )
        ax.bar_label(bars, labels=[fmt(v, ".2f") if v else "" for v in vals], fontsize=7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xticks(x, [f"{s['dataset']} {s['task']}\n{s['n']:,}" for s in summary], fontsize=8)
    ax.set_ylabel("fit time / kernelkit fit time (>1: kernelkit faster)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------- main
