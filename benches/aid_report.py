"""Report of the AID benchmark (``bench_aid.py``): a Markdown table of ρ = T_AID/T_peer and
Δ = (E_AID − E_peer)/E_peer from the JSON, the largest instance each direct solver finished, and
two PNGs next to the JSON:

* ``<stem>_time_vs_n.png``: log-log fit time against n per method, one panel per ladder (LAD
  synthetic per m, linear SVM synthetic per m, kddcup subsets, RBF magic); a cross at the cap marks
  a solve that did not finish within it;
* ``<stem>_gap_vs_iter.png``: AID's gap (UB − LB)/UB and aggregation rate |K^t|/n against the
  aggregated solve t (from ``history_``) for the largest instance of every group.

    python benches/aid_report.py                      # benches/results/aid.json
    python benches/aid_report.py benches/results/aid_quick.json
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import fmt, markdown_table

RESULTS = Path(__file__).resolve().parent / "results"
GAP_FLOOR = 1e-12


def _is_aid(method: str) -> bool:
    return method.startswith("AID")


def _finished(r: dict[str, Any], cap: float | None = None) -> bool:
    """Solved within the per-solve cap: not stopped by a time limit, not slower than the cap."""
    if "seconds" not in r or r.get("over_cap"):
        return False
    if cap is not None and r["seconds"] > cap:
        return False
    status = str(r.get("status", ""))
    return "time_limit" not in status and "stopped" not in status


def _why(r: dict[str, Any]) -> str:
    text = r.get("skipped") or r.get("error") or "?"
    return text.splitlines()[0][:110]


def _aid_cell(r: dict[str, Any]) -> str:
    if "objective" not in r:
        return _why(r)
    return (
        f"{r['status']}, {r['n_iter']} it, gap {r['gap']:.0e}, "
        f"r⁰ {100 * (r.get('r0') or 0):.2f}% → r^T {100 * r['rT']:.2f}%"
    )


def comparison_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per (instance, AID variant, peer)."""
    header = [
        "data", "n", "m", "AID", "T_AID s", "AID run", "peer", "T_peer s",
        "ρ = T_AID/T_peer", "E_AID", "E_peer", "Δ = (E_AID−E_peer)/E_peer",
    ]  # fmt: skip
    rows = []
    cap = result.get("config", {}).get("time_cap")
    for inst in result.get("instances", []):
        res = inst["results"]
        for c in inst.get("comparisons", []):
            ra, rp = res[c["aid"]], res[c["peer"]]
            if "objective" in rp:
                t_peer = f"{rp['seconds']:.3g}" + ("" if _finished(rp, cap) else " (> cap)")
                rho = fmt(c.get("rho"), ".3g")
            else:
                t_peer = _why(rp)
                rho = f"< {c['rho_upper']:.3g}" if "rho_upper" in c else "—"
            rows.append([
                inst["group"], f"{inst['n']:,}", str(inst["m"]), c["aid"],
                f"{ra['seconds']:.3g}", _aid_cell(ra), c["peer"], t_peer, rho,
                f"{ra['objective']:.10g}", fmt(rp.get("objective"), ".10g"),
                fmt(c.get("delta"), "+.2e"),
            ])  # fmt: skip
        for name, r in res.items():  # AID runs that produced no comparison (errors, skips)
            if _is_aid(name) and "objective" not in r:
                rows.append([inst["group"], f"{inst['n']:,}", str(inst["m"]), name, "—",
                             _why(r), "", "", "", "", "", ""])  # fmt: skip
    return header, rows


def largest_finished(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Per (group, peer): the largest n the peer finished within the cap and ρ, Δ there (vs the
    first AID variant), and the largest n AID itself ran."""
    header = ["group", "peer", "largest n finished", "T_peer s", "T_AID s", "ρ = T_AID/T_peer",
              "Δ", "first n not finished (why)", "largest n AID ran (T_AID s)"]  # fmt: skip
    groups: dict[str, list[dict[str, Any]]] = {}
    for inst in result.get("instances", []):
        groups.setdefault(inst["group"], []).append(inst)
    cap = result.get("config", {}).get("time_cap")
    rows = []
    for group, insts in groups.items():
        insts = sorted(insts, key=lambda i: i["n"])
        aids = [k for k in insts[0]["results"] if _is_aid(k)]
        if not aids:
            continue
        ref = aids[0]
        aid_ran = [i for i in insts if "objective" in i["results"].get(ref, {})]
        aid_cell = (
            f"{aid_ran[-1]['n']:,} ({aid_ran[-1]['results'][ref]['seconds']:.3g})"
            if aid_ran
            else "—"
        )
        peers = [k for k in insts[0]["results"] if not _is_aid(k)]
        for peer in peers:
            done = [i for i in insts if _finished(i["results"].get(peer, {}), cap)]
            not_done = [i for i in insts if not _finished(i["results"].get(peer, {}), cap)]
            first_fail = "—"
            if not_done:
                i0 = not_done[0]
                r0 = i0["results"].get(peer, {})
                if "objective" not in r0:
                    why = _why(r0)
                elif cap is not None and r0["seconds"] > cap:
                    why = f"took {r0['seconds']:.0f} s > cap {cap:g} s"
                else:
                    why = str(r0.get("status"))
                first_fail = f"{i0['n']:,} ({why})"
            if not done:
                rows.append([group, peer, "—", "—", "—", "—", "—", first_fail, aid_cell])
                continue
            i = done[-1]
            c = next((c for c in i["comparisons"] if c["aid"] == ref and c["peer"] == peer), {})
            ra = i["results"].get(ref, {})
            rows.append([
                group, peer, f"{i['n']:,}", f"{i['results'][peer]['seconds']:.3g}",
                fmt(ra.get("seconds"), ".3g"), fmt(c.get("rho"), ".3g"),
                fmt(c.get("delta"), "+.2e"), first_fail, aid_cell,
            ])  # fmt: skip
    return header, rows


def lad_m_trend(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Synthetic LAD at equal n for different m: ρ (every AID variant vs the LP) and r^T (the
    paper's trend: the speed-up grows with m, r^T grows with m and falls with n)."""
    header = ["n", "m", "AID", "T_AID s", "T_LP s", "ρ = T_AID/T_LP", "Δ", "iterations", "r^T"]
    cells: dict[int, list[dict[str, Any]]] = {}
    for inst in result.get("instances", []):
        if inst["group"].startswith("lad synthetic"):
            cells.setdefault(inst["n"], []).append(inst)
    rows = []
    for n in sorted(cells):
        insts = sorted(cells[n], key=lambda i: i["m"])
        if len({i["m"] for i in insts}) < 2:
            continue
        for inst in insts:
            for c in inst.get("comparisons", []):
                ra, rp = inst["results"][c["aid"]], inst["results"][c["peer"]]
                t_lp = f"{rp['seconds']:.3g}" if "seconds" in rp else "not run"
                rho = fmt(c.get("rho"), ".3g")
                if "rho" not in c and "rho_upper" in c:
                    rho = f"< {c['rho_upper']:.3g}"
                rows.append([
                    f"{n:,}", str(inst["m"]), c["aid"], f"{ra['seconds']:.3g}", t_lp, rho,
                    fmt(c.get("delta"), "+.2e"), str(ra["n_iter"]), f"{100 * ra['rT']:.2f}%",
                ])  # fmt: skip
    return header, rows


def markdown_report(result: dict[str, Any]) -> str:
    cfg = result.get("config", {})
    h1, r1 = comparison_table(result)
    h2, r2 = largest_finished(result)
    h3, r3 = lad_m_trend(result)
    checks = result.get("checks", [])
    n_fail = sum(c["status"] == "FAIL" for c in checks)
    n_pass = sum(c["status"] == "PASS" for c in checks)
    fails = [f"- FAIL {c['name']}: {c['detail']}" for c in checks if c["status"] == "FAIL"]
    info = [
        f"- {c['name']}: {c['detail']}" for c in checks if c["status"] == "INFO" and not c["ok"]
    ]
    load = result.get("load_start", {}).get("uptime", "?")
    build = (result.get("kernelkit_build") or {}).get("mtime", "?")
    lines = [
        f"# {result.get('title', 'AID benchmark')}",
        "",
        f"Started {result.get('started')}; wall time {fmt(result.get('wall_seconds'), '.0f')} s; "
        f"per-solve cap {cfg.get('time_cap')} s; threads {cfg.get('threads')}; "
        f"cache {cfg.get('cache_size')} MB; seed {cfg.get('seed')}; kernelkit extension built "
        f"{build}. Load at start: `{load}`.",
        "",
        "ρ = T_AID / T_peer (the paper's ratio; ρ < 1: AID faster). Δ = (E_AID − E_peer)/E_peer, "
        "objectives recomputed in numpy from each model (LAD: Σ|r|; SVM: ½‖w‖² + C Σ hinge with "
        f"C = {cfg.get('C')} linear, {cfg.get('rbf_C')} RBF). 'AID run': status, aggregated "
        "solves, final certified gap, initial → final aggregation rate. A peer time marked "
        "'(> cap)' did not finish within the per-solve cap: it hit its time_limit (its E is that "
        "of the model it returned) or, having no time limit, ran past the cap.",
        "",
        *[f"- {n}" for n in result.get("notes", [])],
        "",
        "## AID vs each direct solver",
        "",
        markdown_table(h1, r1, n_text_cols=4),
        "",
        "## Largest instance each direct solver finished (vs the first AID variant)",
        "",
        markdown_table(h2, r2, n_text_cols=2),
        "",
        "## LAD: speed ratio against m at equal n (synthetic)",
        "",
        markdown_table(h3, r3, n_text_cols=3) if r3 else "(fewer than two m at any n)",
        "",
        f"## Checks: {n_pass} PASS, {n_fail} FAIL",
        "",
        *(fails or ["(no failures)"]),
        *(["", "Non-gated notes:", *info] if info else []),
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- plots
def _method_style(methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("tab10")
    order = sorted(methods, key=lambda m: (not _is_aid(m), m))
    marks = "osD^v<>ph*"
    return {
        m: {"color": cmap(i % 10), "marker": marks[i % len(marks)]} for i, m in enumerate(order)
    }


def plot_time_vs_n(result: dict[str, Any], path: Path) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cap = result.get("config", {}).get("time_cap")
    groups: dict[str, list[dict[str, Any]]] = {}
    for inst in result.get("instances", []):
        groups.setdefault(inst["group"], []).append(inst)
    ladders = {g: sorted(v, key=lambda i: i["n"]) for g, v in groups.items()
               if len({i["n"] for i in v}) >= 2}  # fmt: skip
    if not ladders:
        return "time_vs_n: no group with two or more sizes"
    methods = sorted({m for v in ladders.values() for i in v for m in i["results"]})
    style = _method_style(methods)
    order = sorted(ladders, key=_part_order)
    ncol = min(3, len(order))
    nrow = (len(order) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.6 * ncol, 4.4 * nrow), squeeze=False)
    for ax, g in zip(axes.ravel(), order, strict=False):
        insts = ladders[g]
        for m in methods:
            pts = [(i["n"], i["results"][m]["seconds"]) for i in insts
                   if _finished(i["results"].get(m, {}), cap)]  # fmt: skip
            if pts:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, ys, "-", label=m, lw=1.6, ms=5, **style[m])
            fails = [
                i["n"]
                for i in insts
                if m in i["results"]
                and not _finished(i["results"][m], cap)
                and "skipped" not in i["results"][m]
            ]
            if fails and cap:
                ax.plot(fails, [cap] * len(fails), "x", color=style[m]["color"], ms=10, mew=2)
        if cap and any(
            m in i["results"]
            and "skipped" not in i["results"][m]
            and not _finished(i["results"][m], cap)
            for i in insts
            for m in methods
        ):
            ax.axhline(cap, color="gray", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (rows)")
        ax.set_ylabel("fit time (s)")
        ax.set_title(f"{g} (m = {insts[0]['m']})", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    for ax in axes.ravel()[len(order) :]:
        ax.set_axis_off()
    fig.suptitle("AID vs direct solvers: time against n (x at the dotted cap: not finished)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def _part_order(group: str) -> tuple[int, str]:
    return ({"lad": 0, "svm": 1, "rbf": 2}.get(group.split()[0], 3), group)


def plot_gap_vs_iter(result: dict[str, Any], path: Path) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    largest: dict[str, dict[str, Any]] = {}
    for inst in result.get("instances", []):
        has_history = any(_is_aid(k) and r.get("history") for k, r in inst["results"].items())
        bigger = inst["group"] not in largest or inst["n"] > largest[inst["group"]]["n"]
        if has_history and bigger:
            largest[inst["group"]] = inst
    if not largest:
        return "gap_vs_iter: no AID history"
    fig, axes = plt.subplots(2, 2, figsize=(13, 9), squeeze=False)
    cmap = plt.get_cmap("tab10")
    count = [0, 0]
    for g in sorted(largest, key=_part_order):
        inst = largest[g]
        col = 0 if g.startswith("lad") else 1
        aids = [k for k, r in inst["results"].items() if _is_aid(k) and r.get("history")]
        # LAD runs two tolerances: show the tightest (the longer history).
        aids = sorted(aids, key=lambda k: inst["results"][k].get("gap", 1.0))[:1]
        for name in aids:
            r = inst["results"][name]
            h = r["history"]
            gaps = [max(x.get("gap") or 0.0, GAP_FLOOR) for x in h]
            rates = [x["n_clusters"] / inst["n"] for x in h]
            lab = f"{g} n={inst['n']:,} {name.removeprefix('AID ')} ({r['status']})"
            style = {"color": cmap(count[col] % 10), "marker": "o", "ms": 3, "label": lab}
            axes[0, col].semilogy(range(len(h)), gaps, "-", **style)
            axes[1, col].semilogy(range(len(h)), rates, "-", **style)
            count[col] += 1
    for col, what in enumerate(("LAD (AIDRegressor)", "SVM (AIDClassifier)")):
        axes[0, col].set_title(f"{what}: certified gap (UB − LB)/UB per aggregated solve")
        axes[0, col].set_ylabel(f"gap (floored at {GAP_FLOOR:g})")
        axes[1, col].set_title(f"{what}: aggregation rate |K^t|/n")
        axes[1, col].set_ylabel("|K^t| / n")
        for row in (0, 1):
            ax = axes[row, col]
            ax.set_xlabel("aggregated solve t")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(alpha=0.3, which="both")
            if count[col]:
                ax.legend(fontsize=7)
    fig.suptitle("AID history_ of the largest instance of every group")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def write_plots(result: dict[str, Any], json_path: Path) -> list[str]:
    """Write both PNGs next to ``json_path``; returns one line per file (written or why not)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return ["matplotlib not installed: no PNG"]
    out = []
    stem = json_path.with_suffix("").name
    for suffix, fn in (("time_vs_n", plot_time_vs_n), ("gap_vs_iter", plot_gap_vs_iter)):
        png = json_path.parent / f"{stem}_{suffix}.png"
        note = fn(result, png)
        out.append(note or f"wrote {png}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    import json

    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0]) if args else RESULTS / "aid.json"
    result = json.loads(path.read_text())
    md = markdown_report(result)
    path.with_suffix(".md").write_text(md)
    for line in write_plots(result, path):
        print(line, file=sys.stderr)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
