"""Tables and the plot of the Frank–Wolfe benchmark (rows are the dicts `bench_frank_wolfe.py`
writes), plus the paper's Tables 2–3 (seed paper 002, digest §4.4–4.5) for the datasets we share.
"""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path
from typing import Any

from _common import fmt, markdown_table

METHODS = ("cvm", "fw", "mfw")
PEERS = ("sklearn", "sklearnex")
SOLVER_LABELS = {
    "cvm": "kernelkit CVM",
    "fw": "kernelkit FW",
    "mfw": "kernelkit MFW",
    "sklearn": "sklearn SVC",
    "sklearnex": "sklearnex SVC",
}
SOLVER_COLOURS = {
    "cvm": "tab:blue",
    "fw": "tab:orange",
    "mfw": "tab:green",
    "sklearn": "tab:gray",
    "sklearnex": "tab:purple",
}

# Frandi et al., Tables 2 (test accuracy %, mean and STD over 5 runs) and 3 (training time s).
# Keys: our dataset name. "name" is the paper's row; a9a is not in the paper (the nearest rows
# are Adult a1a–a7a; a7a, the largest, is shown for orientation only).
PAPER: dict[str, dict[str, Any]] = {
    "a9a": {
        "name": "Adult a7a, a9a is not in the paper",
        "m": 16_100,
        "t": 16_461,
        "K": 2,
        "acc": {"cvm": (84.18, 1.06e-2), "fw": (84.23, 4.41e-2), "mfw": (84.29, 2.26e-2)},
        "time": {"cvm": (2060.0, 27.9), "fw": (1420.0, 58.6), "mfw": (365.0, 7.30)},
    },
    "w8a": {
        "name": "Web w8a",
        "m": 49_749,
        "t": 14_951,
        "K": 2,
        "acc": {"cvm": (99.34, 5.35e-3), "fw": (97.80, 2.82e-1), "mfw": (97.59, 4.32e-1)},
        "time": {"cvm": (1030.0, 60.5), "fw": (9.64, 5.22), "mfw": (111.0, 127.0)},
    },
    "usps": {
        "name": "USPS",
        "m": 7_291,
        "t": 2_007,
        "K": 10,
        "acc": {"cvm": (95.63, 3.73e-2), "fw": (95.12, 1.05e-1), "mfw": (95.47, 8.34e-2)},
        "time": {"cvm": (6.89, 7.46e-2), "fw": (7.58, 1.42e-1), "mfw": (7.22, 9.00e-2)},
    },
    "letter": {
        "name": "Letter",
        "m": 15_000,
        "t": 5_000,
        "K": 26,
        "acc": {"cvm": (97.48, 2.19e-2), "fw": (96.54, 1.37e-1), "mfw": (97.35, 1.50e-1)},
        "time": {"cvm": (23.7, 2.80e-1), "fw": (13.3, 2.05e-1), "mfw": (12.3, 1.42e-1)},
    },
    "shuttle": {
        "name": "Shuttle",
        "m": 43_500,
        "t": 14_500,
        "K": 7,
        "acc": {"cvm": (99.67, 1.51e-1), "fw": (98.08, 6.74e-1), "mfw": (97.82, 1.54)},
        "time": {"cvm": (1.41, 3.41e-1), "fw": (1.69, 4.56e-1), "mfw": (0.176, 2.73e-2)},
    },
    "kddcup": {
        "name": "KDD99-10pc (K=5)",
        "m": 395_216,
        "t": 98_805,
        "K": 5,
        "acc": {"cvm": (99.87, 2.06e-2), "fw": (98.82, 2.13e-1), "mfw": (99.10, 2.86e-1)},
        "time": {"cvm": (42.3, 3.58), "fw": (0.414, 1.50e-2), "mfw": (1.22, 1.24)},
    },
}


def paper_speedup(dataset: str, method: str) -> float | None:
    """The paper's t_CVM / t_method (Table 3 means)."""
    ref = PAPER.get(dataset)
    if ref is None:
        return None
    return ref["time"]["cvm"][0] / ref["time"][method][0]


# --------------------------------------------------------------------------- cells
def rss_cell(r: dict[str, Any]) -> str:
    peak, start = r.get("peak_rss_fit_mb"), r.get("rss_at_fit_start_mb")
    if peak is None:
        return "—"
    return f"{peak:.0f}" if start is None else f"{peak:.0f} (+{peak - start:.0f})"


def pm_cell(mean: float | None, std: float | None, spec: str, n: int) -> str:
    """``mean ± std`` (std only when there is more than one repeat)."""
    if mean is None:
        return "—"
    return format(mean, spec) + (f" ± {std:{spec}}" if n > 1 and std is not None else "")


def sv_cell(r: dict[str, Any]) -> str:
    """#SV (α > 0, union over pairs) and, for our methods, the LibCVM-thresholded count."""
    raw = f"{r['n_sv']:,}"
    thr = r.get("n_sv_thresholded")
    return raw if thr is None else f"{raw} / {thr:,}"


def iter_cell(r: dict[str, Any]) -> str:
    total, worst = r.get("n_iter_total"), r.get("n_iter_max")
    if total is None:
        return "—"
    return f"{total:,.0f}" if r.get("n_pairs", 1) == 1 else f"{total:,.0f} (max {worst:,.0f})"


def note_cell(r: dict[str, Any]) -> str:
    if r["solver"] in METHODS:
        bits = []
        statuses = r.get("status_counts") or {}
        bad = {k: v for k, v in statuses.items() if k != "converged"}
        bits.append(
            "all converged" if not bad else ", ".join(f"{v} {k}" for k, v in sorted(bad.items()))
        )
        steps = [
            f"{r[k]:,} {k.split('_')[0]}"
            for k in ("fw_steps", "away_steps", "drop_steps")
            if r.get(k)
        ]
        if steps:
            bits.append("/".join(steps))
        if r.get("gap_check"):
            g = r["gap_check"]
            bits.append(
                f"full-scan δ+ {g['delta_plus']:.1e}, {g['frac_outside']:.2%} outside (1+ε)r"
            )
        return "; ".join(bits)
    if r["solver"] == "sklearnex" and r.get("backend"):
        return f"backend {r['backend']}"
    return ""


# --------------------------------------------------------------------------- tables
def results_table(rows: list[dict[str, Any]]) -> str:
    header = [
        "data",
        "solver",
        "C",
        "reps",
        "fit s",
        "t_CVM / t",
        "t_sklearn / t",
        "test acc %",
        "#SV (α>0 / LibCVM thr.)",
        "iterations",
        "peak RSS MB (+growth)",
        "notes",
    ]
    body = []
    for r in rows:
        head = [r["dataset"], SOLVER_LABELS.get(r["solver"], r["solver"]), fmt(r.get("C"), "g")]
        if "fit_s" not in r:
            reason = r.get("skipped") or "FAILED: " + str(r.get("error", "?"))
            body.append([*head, str(r.get("repeats", 0)), *(["—"] * 7), reason[:100]])
            continue
        n = r["ok_repeats"]
        body.append(
            [
                *head,
                str(n),
                pm_cell(r["fit_s"], r.get("fit_s_std"), ".3g", n),
                fmt(r.get("speedup_vs_cvm"), ".2f"),
                fmt(r.get("speedup_vs_sklearn"), ".2f"),
                pm_cell(r["test_accuracy_pct"], r.get("test_accuracy_pct_std"), ".2f", n),
                sv_cell(r),
                iter_cell(r),
                rss_cell(r),
                note_cell(r),
            ]
        )
    return markdown_table(header, body, n_text_cols=2)


def paper_table(rows: list[dict[str, Any]]) -> str:
    """Ours beside the paper's Tables 2–3 (accuracy, time, speed-up over CVM)."""
    header = [
        "data",
        "paper row",
        "method",
        "acc % paper",
        "acc % ours",
        "time s paper",
        "time s ours",
        "speed-up vs CVM paper",
        "speed-up vs CVM ours",
    ]
    body = []
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        ref = PAPER.get(dataset)
        if ref is None:
            continue
        by = {r["solver"]: r for r in rows if r["dataset"] == dataset and "fit_s" in r}
        for method in METHODS:
            ours = by.get(method) or {}
            body.append(
                [
                    dataset,
                    ref["name"],
                    method.upper(),
                    f"{ref['acc'][method][0]:.2f}",
                    fmt(ours.get("test_accuracy_pct"), ".2f"),
                    f"{ref['time'][method][0]:.3g}",
                    fmt(ours.get("fit_s"), ".3g"),
                    "—" if method == "cvm" else f"{paper_speedup(dataset, method):.1f}",
                    "—" if method == "cvm" else fmt(ours.get("speedup_vs_cvm"), ".1f"),
                ]
            )
    return markdown_table(header, body, n_text_cols=3)


def datasets_table(datasets: list[dict[str, Any]]) -> str:
    header = ["data", "train", "test", "classes", "features", "C (L2-SVM)", "C (peers)", "γ", "d̄"]
    body = [
        [
            d["name"],
            f"{d['n_train']:,}",
            f"{d['n_test']:,}",
            str(d["n_classes"]),
            str(d["n_features"]),
            f"{d['C']:g}",
            f"{d['svc_C']:g}",
            f"{d['gamma']:.4g}",
            f"{d['mean_sq_dist']:.4g}",
        ]
        for d in datasets
    ]
    return markdown_table(header, body, n_text_cols=1)


# --------------------------------------------------------------------------- plot
def plot(rows: list[dict[str, Any]], path: Path, title: str) -> bool:
    """One row per dataset, two panels: test accuracy and fit time per method/peer.

    The paper's means (Tables 2–3) are drawn as black ticks on the CVM/FW/MFW bars.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return False
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    if not datasets:
        return False
    fig, axes = plt.subplots(
        len(datasets),
        2,
        figsize=(10.5, 2.5 * len(datasets) + 0.9),
        squeeze=False,
        layout="constrained",
    )
    solvers = [*METHODS, *PEERS]
    names = [s.upper() if s in METHODS else s for s in solvers]
    xs = list(range(len(solvers)))
    for row_axes, dataset in zip(axes, datasets, strict=True):
        by = {r["solver"]: r for r in rows if r["dataset"] == dataset}
        ref = PAPER.get(dataset)
        n_train = next((r.get("n_train") for r in by.values() if r.get("n_train")), None)
        for ax, field, std_field, label, paper_key in (
            (row_axes[0], "test_accuracy_pct", "test_accuracy_pct_std", "test accuracy %", "acc"),
            (row_axes[1], "fit_s", "fit_s_std", "fit time s (log)", "time"),
        ):
            vals = [by[s].get(field) if s in by else None for s in solvers]
            errs = [
                by[s].get(std_field) or 0.0 if s in by and by[s].get("ok_repeats", 0) > 1 else 0.0
                for s in solvers
            ]
            ax.bar(
                xs,
                [v if v is not None else 0.0 for v in vals],
                yerr=errs if any(errs) else None,
                color=[SOLVER_COLOURS[s] for s in solvers],
                capsize=3,
            )
            for x, v, s in zip(xs, vals, solvers, strict=True):
                if v is None:
                    why = "not run" if s not in by else "failed"
                    ax.annotate(
                        why,
                        (x, 0.03),
                        xycoords=("data", "axes fraction"),
                        ha="center",
                        va="bottom",
                        rotation=90,
                        fontsize=7,
                    )
            if ref is not None:
                for x, s in zip(xs, solvers, strict=True):
                    if s in METHODS:
                        ax.plot(x, ref[paper_key][s][0], marker="_", color="k", markersize=18)
            ax.set_xticks(xs, names, fontsize=8)
            ax.set_ylabel(label, fontsize=8)
            size = f", {n_train:,} train rows" if n_train else ""
            paper = f" (paper: {ref['name']})" if ref is not None else ""
            ax.set_title(f"{dataset}{size}{paper}", fontsize=8)
            ax.grid(True, axis="y", alpha=0.3)
            if field == "fit_s":
                if any(v for v in vals):
                    ax.set_yscale("log")
            else:
                finite = [v for v in vals if v is not None]
                if ref is not None:
                    finite += [ref["acc"][m][0] for m in METHODS]
                if finite:
                    ax.set_ylim(max(0.0, math.floor(min(finite) - 2.0)), 100.0)
    fig.suptitle(
        "\n".join(textwrap.wrap(title + " — black ticks: paper Tables 2–3", 140)), fontsize=8
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
