"""Markdown tables and PNG plots of benches/run_all.py's JSON (issue 9's single benchmark).

Used by run_all.py; can also rebuild the Markdown and plots from a saved JSON:

    python benches/run_all_report.py benches/results/run_all.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import fmt, markdown_table

SOLVER_ORDER = ("kernelkit", "kernelkit-1t", "kernelkit-baseline", "sklearnex", "sklearn")
SOLVER_COLORS = {
    "kernelkit": "tab:blue",
    "kernelkit-1t": "tab:cyan",
    "kernelkit-baseline": "tab:gray",
    "sklearnex": "tab:orange",
    "sklearn": "tab:green",
}
PEER_NAMES = {"sklearn": "scikit-learn (LIBSVM)", "sklearnex": "scikit-learn-intelex"}


def solver_name(r: dict[str, Any]) -> str:
    jobs = "" if r.get("n_jobs") is None else f" (n_jobs={r['n_jobs']})"
    base = "kernelkit" if r["solver"] == "kernelkit" else PEER_NAMES.get(r["solver"], r["solver"])
    if r.get("import_path"):
        base += " (baseline build)"
    return base + jobs


def _rss(peak: float | None, start: float | None) -> str:
    if peak is None:
        return "—"
    return f"{peak:.0f}" if start is None else f"{peak:.0f} (+{peak - start:.0f})"


def _iters(n_iter: Any) -> str:
    try:
        vals = [float(i) for i in n_iter]
    except (TypeError, ValueError):
        return "—"
    if not vals or any(v != v for v in vals):  # NaN: not reported
        return "—"
    return f"{sum(vals):,.0f}" + (f" ({len(vals)} pairs)" if len(vals) > 1 else "")


def _note(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return "skipped: " + r["skipped"]
    if "error" in r:
        return "FAILED: " + r["error"][:80]
    notes = []
    if r.get("backend") == "sklearn":
        notes.append("sklearnex fell back to scikit-learn")
    status = r.get("reported_status")
    if status and any(str(s).lower() not in ("converged", "optimal", "0") for s in status):
        notes.append("status " + "/".join(sorted({str(s) for s in status})))
    if r.get("ok_repeats", 1) < r.get("repeats", 1):
        notes.append(f"{r['repeats'] - r['ok_repeats']} repeat(s) failed")
    return "; ".join(notes)


def results_table(rows: Sequence[dict[str, Any]]) -> str:
    header = [
        "dataset",
        "solver",
        "fit s",
        "predict s",
        "fit: this / kernelkit",
        "predict: this / kernelkit",
        "dual objective",
        "rel. diff vs LIBSVM (worst pair)",
        "#SV",
        "test acc. / R²",
        "Δ vs LIBSVM",
        "agree w/ LIBSVM",
        "fit peak RSS MB (+growth)",
        "predict peak RSS MB",
        "iterations",
        "note",
    ]
    body = []
    for r in rows:
        name = solver_name(r)
        if "fit_s" not in r:
            body.append([r["dataset"], name] + ["—"] * (len(header) - 3) + [_note(r)])
            continue
        if r["task"] == "svc":
            agree = fmt(r.get("prediction_agreement_vs_libsvm"), ".5f")
        else:
            diff = r.get("prediction_max_abs_diff_vs_libsvm")
            agree = "—" if diff is None else f"max |Δŷ| {diff:.1e}"
        rel = r.get("objective_max_pair_rel_diff_vs_libsvm")
        body.append(
            [
                r["dataset"],
                name,
                fmt(r["fit_s"], ".3f"),
                fmt(r["predict_s"], ".3f"),
                fmt(r.get("fit_ratio_vs_kernelkit"), ".2f"),
                fmt(r.get("predict_ratio_vs_kernelkit"), ".2f"),
                fmt(r["objective"], ".4f"),
                fmt(rel, ".2e"),
                f"{r['n_sv']:,}",
                fmt(r["score"], ".5f"),
                fmt(r.get("score_diff_vs_libsvm"), "+.5f"),
                agree,
                _rss(r.get("peak_rss_fit_mb"), r.get("rss_at_fit_start_mb")),
                fmt(r.get("peak_rss_predict_mb"), ".0f"),
                _iters(r.get("n_iter")),
                _note(r),
            ]
        )
    return markdown_table(header, body, n_text_cols=2)


def _by_dataset(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["dataset"], {})[r["label"]] = r
    return out


def ratios_table(rows: Sequence[dict[str, Any]]) -> str:
    header = [
        "dataset",
        "kernelkit fit s",
        "sklearnex fit s",
        "sklearn fit s",
        "sklearnex / kernelkit",
        "sklearn / kernelkit",
        "kernelkit n_jobs=1 / n_jobs=2",
        "predict: sklearnex / kk",
        "predict: sklearn / kk",
    ]
    body = []
    by_dataset = _by_dataset(rows)
    # With --baseline: the other build's time and ratios, fit by fit alternated with this one.
    baseline = any("kernelkit-baseline" in by for by in by_dataset.values())
    if baseline:
        header += ["baseline fit s", "baseline / kernelkit", "sklearnex / baseline"]
    for ds, by in by_dataset.items():
        kk, k1 = by.get("kernelkit", {}), by.get("kernelkit-1t", {})
        ex, sk = by.get("sklearnex", {}), by.get("sklearn", {})
        speedup = k1["fit_s"] / kk["fit_s"] if "fit_s" in k1 and "fit_s" in kk else None
        cells = [
            ds,
            fmt(kk.get("fit_s"), ".2f"),
            fmt(ex.get("fit_s"), ".2f"),
            fmt(sk.get("fit_s"), ".2f"),
            fmt(ex.get("fit_ratio_vs_kernelkit"), ".2f"),
            fmt(sk.get("fit_ratio_vs_kernelkit"), ".2f"),
            fmt(speedup, ".2f"),
            fmt(ex.get("predict_ratio_vs_kernelkit"), ".2f"),
            fmt(sk.get("predict_ratio_vs_kernelkit"), ".2f"),
        ]
        if baseline:
            old = by.get("kernelkit-baseline", {})
            over_old = ex["fit_s"] / old["fit_s"] if "fit_s" in ex and "fit_s" in old else None
            cells += [
                fmt(old.get("fit_s"), ".2f"),
                fmt(old.get("fit_ratio_vs_kernelkit"), ".3f"),
                fmt(over_old, ".2f"),
            ]
        body.append(cells)
    return markdown_table(header, body)


def targets_table(targets: Sequence[dict[str, Any]]) -> str:
    body = [
        [
            t["dataset"],
            t["target"],
            "—" if t["met"] is None else ("met" if t["met"] else "**not met**"),
            t.get("note") or "",
            fmt(t["value"], ".2f"),
        ]
        for t in targets
    ]
    return markdown_table(["dataset", "target", "status", "note", "value"], body, n_text_cols=4)


def checks_table(checks: Sequence[dict[str, Any]]) -> str:
    body = [[c["status"], c["name"], c["detail"]] for c in checks]
    return markdown_table(["status", "check", "detail"], body, n_text_cols=3)


def data_table(data: dict[str, dict[str, Any]]) -> str:
    header = ["dataset", "task", "train", "test", "features", "classes", "C", "γ", "ε", "split"]
    body = []
    for m in data.values():
        body.append(
            [
                m["name"],
                "SVR" if m["task"] == "svr" else "SVC",
                f"{m['n_train']:,}",
                f"{m['n_test']:,}",
                str(m["n_features"]),
                fmt(m.get("n_classes")),
                f"{m['C']:g}",
                f"{m['gamma']:.6g} ({m['gamma_rule']})",
                fmt(m.get("epsilon"), "g"),
                f"{m['split']}; scaling: {m['scaling']}",
            ]
        )
    return markdown_table(header, body, n_text_cols=2)


def reported_objective_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """kernelkit's own objective_ beside the independent evaluation (cross-check only)."""
    lines = []
    for r in rows:
        rep = r.get("reported_objective")
        if r["solver"] != "kernelkit" or not rep or "objective_pairs" not in r:
            continue
        pairs = r["objective_pairs"]
        worst = max(
            (abs(a - b) / abs(b) for a, b in zip(rep, pairs, strict=False) if b),
            default=None,
        )
        gap = r.get("reported_kkt_gap")
        gap_s = "—" if not gap else f"{max(gap):.2e}"
        status = "/".join(sorted({str(s) for s in r.get("reported_status") or []}))
        lines.append(
            f"- {r['dataset']} {solver_name(r)}: objective_ sum {sum(rep):.6f}, independent "
            f"{r['objective']:.6f}, worst per-pair relative diff {fmt(worst, '.2e')}; "
            f"max kkt_gap_ {gap_s}; status_ {status or '—'}"
        )
    return lines


def build_markdown(payload: dict[str, Any], png_names: Sequence[str] = ()) -> str:
    cfg, rows = payload["config"], payload["results"]
    machine = payload.get("machine", {})
    pkgs = machine.get("packages", {})
    versions = ", ".join(f"{k} {v}" for k, v in pkgs.items() if v)
    cpu_id = f" ({machine['cpu_id']})" if machine.get("cpu_id") else ""
    title = "run_all (quick subsets)" if cfg.get("quick") else "run_all"
    out = [
        f"# kernelkit vs peers, issue 9: {title}",
        "",
        f"RBF kernel, tol={cfg['tol']:g}, cache_size={cfg['cache_size']:g} MB for every solver; "
        f"kernelkit and sklearnex n_jobs={cfg['n_jobs']} (kernelkit also n_jobs=1 on a9a); "
        "scikit-learn (LIBSVM) is single-threaded. One fresh subprocess per fit "
        f"(repeats={cfg['repeats']}, median time). time cap {fmt(cfg.get('time_cap'), 'g')} s, "
        f"timeout {cfg['timeout']:g} s per fit. Wall time {cfg['wall_s']:.0f} s.",
        "",
        f"Machine: {machine.get('cpu_model')}{cpu_id}, "
        f"{machine.get('cpu_count')} CPUs, "
        f"{machine.get('mem_total_gb')} GB; {versions}.",
        f"Load before: `{payload['load_before']['uptime']}`; "
        f"after: `{payload['load_after']['uptime']}`.",
        "",
        "## Data",
        "",
        data_table(payload["data"]),
        "",
        "## Issue 9 targets (reported, not gated)",
        "",
        targets_table(payload["targets"]),
        "",
        "## Time ratios (peer time / kernelkit time; > 1: kernelkit faster)",
        "",
        ratios_table(rows),
        "",
        "## Results",
        "",
        "Dual objective recomputed from the fitted attributes (LIBSVM sign, minimised): SVC "
        "0.5 dc'K dc − Σ|dc| per one-vs-one pair (the table shows the sum over pairs; the "
        "relative difference is the worst pair's), SVR 0.5 b'K b + ε Σ|b| − y'b with "
        "b = dual_coef_. RSS: peak resident memory of the fit's process during fit (growth over "
        "the RSS at fit start, which includes the data) and during predict.",
        "",
        results_table(rows),
        "",
        "## Correctness checks (gated: FAIL makes the exit code non-zero; INFO is not gated)",
        "",
        checks_table(payload["checks"]),
        "",
    ]
    lines = reported_objective_lines(rows)
    if lines:
        out += ["## kernelkit's reported objective_ (cross-check)", "", *lines, ""]
    if png_names:
        out += ["## Plots", "", *[f"![{n}]({n})" for n in png_names], ""]
    failed = [c for c in payload["checks"] if c["status"] == "FAIL"]
    verdict = f"**{len(failed)} correctness check(s) FAILED**" if failed else "all gates passed"
    out += [f"Exit code {payload['exit_code']}: {verdict}.", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- plots
def _grouped_bars(ax: Any, datasets: list[str], series: dict[str, list[float | None]]) -> None:
    import numpy as np

    width = 0.8 / max(1, len(series))
    x = np.arange(len(datasets))
    for k, (label, values) in enumerate(series.items()):
        vals = [np.nan if v is None else v for v in values]
        color = SOLVER_COLORS.get(label.split(" ")[0])
        bars = ax.bar(
            x + (k - (len(series) - 1) / 2) * width, vals, width, label=label, color=color
        )
        for b, v in zip(bars, vals, strict=True):
            if v == v:  # not NaN
                ax.annotate(
                    f"{v:.3g}",
                    (b.get_x() + b.get_width() / 2, b.get_height()),
                    ha="center",
                    va="bottom",
                    fontsize=7,
                )
    ax.set_xticks(x, datasets)


def write_plots(payload: dict[str, Any], prefix: Path) -> list[Path]:
    """``<prefix>_ratios.png`` (time ratios and fit times) and ``<prefix>_memory.png``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots", file=sys.stderr)
        return []
    by = _by_dataset(payload["results"])
    datasets = list(by)
    if not datasets:
        return []
    cfg = payload["config"]
    subtitle = (
        f"RBF, tol={cfg['tol']:g}, cache {cfg['cache_size']:g} MB, n_jobs={cfg['n_jobs']}"
        + (" (quick subsets)" if cfg.get("quick") else "")
    )
    labels = [s for s in SOLVER_ORDER if any(s in g for g in by.values())]
    paths = []

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    ratios = {
        f"{p} / kernelkit": [by[d].get(p, {}).get("fit_ratio_vs_kernelkit") for d in datasets]
        for p in ("sklearnex", "sklearn")
        if p in labels
    }
    _grouped_bars(ax1, datasets, ratios)
    ax1.set_yscale("log")
    ax1.axhline(1.0, color="black", lw=0.8)
    for need, color in ((1.5, "tab:orange"), (8.0, "tab:green")):
        ax1.axhline(need, color=color, ls="--", lw=0.8)
    finite = [v for vals in ratios.values() for v in vals if v is not None] + [8.0]
    ax1.set_ylim(min(0.8, 0.7 * min(finite)), 2.0 * max(finite))
    ax1.set_ylabel("peer fit time / kernelkit fit time (log)")
    ax1.set_title("fit-time ratios (dashed: issue-9 targets 1.5 and 8)", fontsize=9)
    ax1.legend(fontsize=8, loc="upper left")
    times = {s: [by[d].get(s, {}).get("fit_s") for d in datasets] for s in labels}
    _grouped_bars(ax2, datasets, times)
    ax2.set_yscale("log")
    top = max([v for vals in times.values() for v in vals if v is not None], default=1.0)
    ax2.set_ylim(top=3.0 * top)
    ax2.set_ylabel("fit time (s, log)")
    ax2.set_title("fit time per solver", fontsize=9)
    ax2.legend(fontsize=8, loc="upper left", ncols=len(times))
    fig.suptitle("kernelkit vs peers: " + subtitle, fontsize=10)
    fig.tight_layout()
    path = prefix.parent / f"{prefix.name}_ratios.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    paths.append(path)

    fig, ax = plt.subplots(figsize=(9, 4.6))
    peaks = {s: [by[d].get(s, {}).get("peak_rss_fit_mb") for d in datasets] for s in labels}
    _grouped_bars(ax, datasets, peaks)
    top = max([v for vals in peaks.values() for v in vals if v is not None], default=1.0)
    ax.set_ylim(0, 1.25 * top)
    ax.set_ylabel("peak RSS during fit (MiB)")
    ax.set_title("peak memory of each fit's process: " + subtitle, fontsize=9)
    ax.legend(fontsize=8, loc="upper left", ncols=len(peaks))
    fig.tight_layout()
    path = prefix.parent / f"{prefix.name}_memory.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(args[0])
    payload = json.loads(path.read_text())
    prefix = path.with_suffix("")
    pngs = write_plots(payload, prefix)
    md = build_markdown(payload, [p.name for p in pngs])
    prefix.with_suffix(".md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
