"""The benchmark harness: a data registry (``data``), objectives recomputed from fitted
attributes (``objectives``), cases and one runner (``runner``, ``svm``), one report writer
(``report``) and the record of a run (``Run``, ``machine``). The scripts of ``benches/`` declare
their cases with it; see ``../shared/BENCHMARKS.md`` for the protocol."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .data import DATA_DIR
from .machine import kernelkit_build, load_snapshot, machine_info, now
from .report import write_json

RESULTS = Path(__file__).resolve().parents[1] / "results"


def paper(name: str) -> list[list[str]]:
    """The rows (whitespace-split) of ``benches/papers/<name>.txt``: a paper's tables verbatim."""
    text = (Path(__file__).resolve().parents[1] / "papers" / f"{name}.txt").read_text()
    return [line.split() for line in text.splitlines() if line.strip() and line[0] != "#"]


def ints(text: str) -> list[int]:
    return [int(t.replace("_", "")) for t in text.split(",") if t.strip()]


def floats(text: str) -> list[float]:
    return [float(t) for t in text.split(",") if t.strip()]


def strs(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def parser(doc: str | None, out: str | None = None, data: bool = True) -> argparse.ArgumentParser:
    """An argument parser with the first paragraph of ``doc``, ``--data`` (the shared data
    folder) and ``--out`` (default ``benches/results/<out>``)."""
    p = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    if data:
        p.add_argument("--data", type=Path, default=DATA_DIR, help="shared data folder")
    if out is not None:
        p.add_argument("--out", type=Path, default=RESULTS / out)
    return p


KINDS: dict[type, Any] = {int: int, float: float, str: str}
LISTS: dict[type, Any] = {int: ints, float: floats, str: strs}


def options(p: argparse.ArgumentParser, **spec: Any) -> None:
    """An option ``--name`` (underscores as dashes) per keyword: ``default``, ``(default, help)``
    or ``(default, help, kind)``, ``kind`` a type or the tuple of choices. Without a type, the
    default's: a list parses comma-separated items of its first item's type; ``False`` is a
    flag."""
    for name, value in spec.items():
        default, text, kind = (
            (*value, None)[:3] if isinstance(value, tuple) else (value, None, None)
        )
        flag, more = "--" + name.replace("_", "-"), {"help": text}
        if default is False:
            p.add_argument(flag, action="store_true", **more)
            continue
        if isinstance(kind, tuple):
            more["choices"], kind = kind, None
        if kind is None and isinstance(default, list) and default:
            kind = LISTS[type(default[0])]
        p.add_argument(flag, type=kind or KINDS.get(type(default)), default=default, **more)


def known(
    p: argparse.ArgumentParser, what: str, given: Sequence[str], allowed: Sequence[str]
) -> None:
    """Stop with a usage error naming ``what`` when ``given`` holds a name not in ``allowed``."""
    if bad := sorted(set(given) - set(allowed)):
        p.error(f"unknown {what}: {bad}; choose from {list(allowed)}")


class Run:
    """One run of a benchmark: the time, load and kernelkit build at its start, and its record
    (machine, packages, load at the end, wall time, argv) with the files it writes."""

    def __init__(self, argv: Sequence[str] | None = None) -> None:
        self.started = now()
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.load_before = load_snapshot()
        self.build = kernelkit_build()
        self.clock = time.perf_counter()
        print(f"load before: {self.load_before['uptime']}", file=sys.stderr, flush=True)

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.clock

    def record(self, **payload: Any) -> dict[str, Any]:
        """The JSON record: ``payload`` with when, where and on what the run happened."""
        end = kernelkit_build()
        out = {"started": self.started, "argv": self.argv, "wall_seconds": self.wall,
               "machine": machine_info(), "kernelkit_build": self.build,
               "load_before": self.load_before, "load_after": load_snapshot(),
               **payload}  # fmt: skip
        if end != self.build:
            out["build_note"] = (
                f"WARNING: kernelkit was rebuilt during the run ({self.build} -> {end})"
            )
        return out

    @staticmethod
    def load_line(record: dict[str, Any]) -> str:
        before, after = record["load_before"]["uptime"], record["load_after"]["uptime"]
        return f"Load before: `{before}`; after: `{after}`."

    def write(self, out: Path, record: dict[str, Any], markdown: str, echo: bool = True) -> None:
        """``<out>.json`` and ``<out>.md`` (the Markdown also to stdout unless ``echo`` is off)."""
        write_json(out.with_suffix(".json"), record)
        out.with_suffix(".md").write_text(markdown + "\n")
        if echo:
            print(markdown)
        print(
            f"wrote {out.with_suffix('.json')} and {out.with_suffix('.md').name}", file=sys.stderr
        )
