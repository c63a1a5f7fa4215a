"""One report writer: Markdown tables declared as columns, PASS/FAIL checks, the JSON record,
and the PNG figures (lines against a size or an iteration)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

Column = tuple[str, "str | Callable[[dict[str, Any]], str]"]


def fmt(value: Any, spec: str = "") -> str:
    """A table cell; None becomes an em dash."""
    if value is None:
        return "—"
    return (
        str(value) if isinstance(value, float) and not np.isfinite(value) else format(value, spec)
    )


def spread(row: Mapping[str, Any], key: str, spec: str = ".3f") -> str:
    """The median time ``row[key]``, and its range over the repeats when there were several."""
    every = row.get(f"{key}_all") or []
    if len(every) < 2:
        return fmt(row.get(key), spec)
    return f"{row[key]:{spec}} ({min(every):{spec}}–{max(every):{spec}})"


def cell(row: Mapping[str, Any], how: str | Callable[[dict[str, Any]], str]) -> str:
    """``how``: a function of the row, or ``"key"`` / ``"key:spec"`` (``"~key:spec"``: the
    median with its range); a missing value is an em dash."""
    if callable(how):
        try:
            return how(dict(row))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return "—"
    key, _, spec = how.partition(":")
    return spread(row, key[1:], spec) if key.startswith("~") else fmt(row.get(key), spec)


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], n_text_cols: int | Sequence[int] = 1
) -> str:
    """A GitHub Markdown table; the first ``n_text_cols`` columns (or those listed) align left,
    the others right."""
    left = range(n_text_cols) if isinstance(n_text_cols, int) else n_text_cols
    align = ["---" if j in left else "---:" for j in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def rss(r: Mapping[str, Any]) -> str:
    """The peak RSS of a fit, and its growth over the RSS at the start of the fit."""
    peak, start = r["peak_rss_fit_mb"], r.get("rss_at_fit_start_mb")
    return f"{peak:.0f}" if start is None else f"{peak:.0f} (+{peak - start:.0f})"


def why(row: Mapping[str, Any], width: int = 90) -> str:
    """Why a row has no result: its skip reason or ``FAILED: <error>``."""
    text = row.get("skipped") or ("FAILED: " + str(row.get("error", "?")))
    return text.splitlines()[0][:width]


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[Column],
          n_text: int | Sequence[int] = 1, why_col: int | None = None,
          done: str | None = "fit_s", shown: int | None = None) -> str:  # fmt: skip
    """Markdown of ``rows`` by ``columns`` (header, how: see ``cell``). A row without ``done``
    shows its identifying cells (the first ``shown``, by default the text columns), ``why`` at
    column ``why_col`` (default: the first one after them) and em dashes elsewhere."""
    body = []
    first = shown or (n_text if isinstance(n_text, int) else len(n_text))
    at = first if why_col is None else why_col % len(columns)
    for r in rows:
        if done is None or done in r:
            body.append([cell(r, how) for _, how in columns])
        else:
            body.append([cell(r, how) if j < first else why(r) if j == at else "—"
                         for j, (_, how) in enumerate(columns)])  # fmt: skip
    return markdown_table([h for h, _ in columns], body, n_text)


# --------------------------------------------------------------------------- checks
def check(name: str, ok: bool | None, detail: str, gate: bool = True) -> dict[str, Any]:
    """A check: PASS/FAIL when gated, INFO otherwise, SKIP when ``ok`` is None."""
    status = "SKIP" if ok is None else ("PASS" if ok else "FAIL") if gate else "INFO"
    return {"name": name, "status": status, "ok": ok, "detail": detail}


def print_checks(checks: Sequence[Mapping[str, Any]]) -> None:
    for c in checks:
        print(f"{c['status']:<5} {c['name']}: {c['detail']}")


def check_lines(checks: Sequence[Mapping[str, Any]]) -> list[str]:
    return [f"- **{c['status']}** {c['name']}: {c['detail']}" for c in checks]


# --------------------------------------------------------------------------- files
def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer | np.floating | np.bool_):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_json(path: Path, payload: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=_json_default) + "\n")


def strip(rows: Sequence[dict[str, Any]], *keys: str) -> None:
    """Drop the bulky arrays (predictions, probabilities, σ) before the JSON is written."""
    for r in rows:
        for key in keys or ("y_pred", "proba", "sigma"):
            r.pop(key, None)


# --------------------------------------------------------------------------- figures
def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, or None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return None
    return plt


Points = Sequence[tuple[float, float]]


def lines(path: Path, panels: Mapping[str, Mapping[str, Points | tuple[Points, dict[str, Any]]]],
          title: str, xlabel: str, ylabel: str, logx: bool = True, logy: bool = True,
          ncols: int = 3, hlines: Sequence[float] = ()) -> bool:  # fmt: skip
    """Panels of y against x, one line per series (``points`` or ``(points, plot options)``)."""
    plt = pyplot()
    if plt is None or not panels:
        return False
    ncol = min(ncols, len(panels))
    nrow = -(-len(panels) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.6 * ncol, 4.4 * nrow), squeeze=False)
    for ax, (name, series) in zip(axes.ravel(), panels.items(), strict=False):
        for label, spec in series.items():
            pts, style = spec if isinstance(spec, tuple) else (spec, {})
            pts = sorted(p for p in pts if p[1] is not None and np.isfinite(p[1]))
            if pts:
                ax.plot(*zip(*pts, strict=True), **{"marker": "o", "label": label, **style})
        for y in hlines:
            ax.axhline(y, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log" if logx else "linear")
        ax.set_yscale("log" if logy else "linear")
        ax.set(title=name, xlabel=xlabel, ylabel=ylabel)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    for ax in axes.ravel()[len(panels) :]:
        ax.set_axis_off()
    return _save(plt, fig, path, title)


def _save(plt: Any, fig: Any, path: Path, title: str) -> bool:
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
