"""Regenerates the figures of the user guide by running its worked examples.

Every ```python block of a page in docs/ is executed, page by page and in order, in one
namespace per page, with matplotlib's Agg backend and ``plt.show`` made a no-op. The examples
save their figures with ``fig.savefig("<name>.png", dpi=80)``: this script runs them from
docs/figures/, so the PNGs land there. Blocks whose info string is ``python no-run`` are skipped
(they need a cluster or the shared datasets). tests/test_docs_examples.py runs the same blocks
with the same functions, in a temporary directory.

    python docs/make_figures.py            # every page
    python docs/make_figures.py svc.md     # some pages
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
FIGURES = DOCS / "figures"

#: A fenced block: the info string after ```python, then the code up to the closing fence.
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def python_blocks(page: Path) -> list[str]:
    """The runnable ```python blocks of a page, in order (``python no-run`` blocks left out)."""
    text = page.read_text(encoding="utf-8")
    return [code for info, code in FENCE.findall(text) if "no-run" not in info.split()]


def figure_names(page: Path) -> list[str]:
    """The PNG files a page shows from ``figures/``."""
    return re.findall(r"\]\(figures/([\w.-]+\.png)\)", page.read_text(encoding="utf-8"))


@contextlib.contextmanager
def _working_directory(path: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run_page(page: Path, workdir: Path) -> dict[str, Any]:
    """Executes the runnable blocks of ``page`` in one fresh namespace, from ``workdir`` (where
    the examples' figures are written), and returns the namespace."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem}"}
    show = plt.show
    plt.show = lambda *args, **kwargs: None
    try:
        with _working_directory(workdir):
            for number, code in enumerate(python_blocks(page), start=1):
                exec(compile(code, f"{page.name} (python block {number})", "exec"), namespace)
    finally:
        plt.show = show
        plt.close("all")
    return namespace


def main(names: list[str]) -> None:
    pages = [DOCS / name for name in names] if names else sorted(DOCS.glob("*.md"))
    FIGURES.mkdir(exist_ok=True)
    for page in pages:
        start = time.perf_counter()
        run_page(page, FIGURES)
        made = ", ".join(figure_names(page)) or "no figure"
        print(f"{page.name}: {time.perf_counter() - start:.1f} s ({made})")


if __name__ == "__main__":
    main(sys.argv[1:])
