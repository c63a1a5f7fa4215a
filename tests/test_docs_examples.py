"""The user guide's examples run, and their results hold.

Every ```python block of docs/*.md runs here, page by page (the blocks of a page in order, in one
namespace), with matplotlib's Agg backend, ``plt.show`` a no-op and the figures written into a
temporary directory; blocks marked ```python no-run are skipped. The functions are those of
docs/make_figures.py, which builds the committed figures from the same blocks.

The examples end with assertions against an oracle written into the example itself: the same
model fitted by scikit-learn (LIBSVM's SVC/NuSVC/SVR/NuSVR/OneClassSVM, LogisticRegression on the
exact kernel feature map, QuantileRegressor, SVC(kernel="linear")), a closed-form QP solution, an
optimality certificate recomputed in NumPy, or a stated accuracy bound. A wrong model, a changed
default or a broken example fails here. The other tests check that the guide documents every
parameter of every estimator and that its figures are the ones the examples make.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

import kernelkit

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_FIGURE_BYTES = 100_000

#: The page that documents each estimator.
PAGES = {
    "SVC": "svc.md",
    "NuSVC": "nusvc.md",
    "SVR": "svr.md",
    "NuSVR": "nusvr.md",
    "OneClassSVM": "one_class_svm.md",
    "PUClassifier": "pu_classifier.md",
    "FrankWolfeSVC": "frank_wolfe.md",
    "MEBClassifier": "frank_wolfe.md",
    "ConstrainedSVR": "constrained_svr.md",
    "SparseKernelLogisticRegression": "sparse_klr.md",
    "AIDRegressor": "aid.md",
    "AIDClassifier": "aid.md",
    "AIDSemiSupervisedClassifier": "aid.md",
}


def _load_make_figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_make_figures", DOCS / "make_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_figures = _load_make_figures()
#: Every page whose Python blocks run here, by name: the docs pages and the README.
PAGES_WITH_CODE = {
    page.name: page
    for page in [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]
    if make_figures.python_blocks(page)
}


def _assert_count(code: str) -> int:
    return sum(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(code)))


@pytest.mark.parametrize("name", sorted(PAGES_WITH_CODE))
def test_page_examples_run_and_their_checks_hold(name: str, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")  # in the bench extra; the examples draw their figures
    page = PAGES_WITH_CODE[name]
    blocks = make_figures.python_blocks(page)
    assert sum(_assert_count(code) for code in blocks) > 0, f"{name}: no example checks a result"

    make_figures.run_page(page, tmp_path)  # the examples' own assertions run here

    for figure in make_figures.figure_names(page):
        written = tmp_path / figure
        assert written.exists(), f"{name} shows figures/{figure}, which its examples do not make"
        assert written.read_bytes()[:8] == PNG_SIGNATURE


def test_every_estimator_page_is_linked_and_lists_every_parameter() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert "(dask.md)" in index
    documented = {name for name in kernelkit.__all__ if inspect.isclass(getattr(kernelkit, name))}
    estimators = {name for name in documented if hasattr(getattr(kernelkit, name), "fit")}
    assert estimators == set(PAGES), "a new estimator needs a page in docs/ and in PAGES"
    for estimator, page in PAGES.items():
        assert f"({page})" in index, f"index.md does not link {page}"
        text = (DOCS / page).read_text(encoding="utf-8")
        assert re.search(rf"`(kernelkit\.)?{estimator}`", text), f"{page} does not name {estimator}"
        parameters = inspect.signature(getattr(kernelkit, estimator)).parameters
        missing = [p for p in parameters if f"`{p}`" not in text]
        assert not missing, f"{page} does not document {estimator}'s parameters {missing}"


def test_committed_figures_are_the_referenced_ones_and_small() -> None:
    referenced = {
        figure for page in sorted(DOCS.glob("*.md")) for figure in make_figures.figure_names(page)
    }
    committed = {path.name for path in (DOCS / "figures").glob("*.png")}
    assert referenced, "the guide shows no figure"
    assert referenced == committed, "run python docs/make_figures.py (and remove stale PNGs)"
    for name in committed:
        size = (DOCS / "figures" / name).stat().st_size
        assert size < MAX_FIGURE_BYTES, f"figures/{name} is {size} bytes"


def test_block_extraction_skips_no_run_blocks_and_other_languages(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```python\nx = 1\n```\n\n```bash\nls\n```\n\n"
        "```python no-run\nraise SystemExit\n```\n\n```python\nassert x == 1\n```\n"
        "![a figure](figures/a.png) and ![another](figures/b-2.png)\n",
        encoding="utf-8",
    )
    assert make_figures.python_blocks(page) == ["x = 1\n", "assert x == 1\n"]
    assert make_figures.figure_names(page) == ["a.png", "b-2.png"]
    pytest.importorskip("matplotlib")
    namespace = make_figures.run_page(page, tmp_path)
    assert namespace["x"] == 1


def test_readme_test_command_is_the_one_ci_runs() -> None:
    """The README's second command (install the test dependencies, run the suite) is the line
    `.ci/run` runs, so that a user who runs it runs what CI runs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [
        line
        for line in readme.split("## Two commands", 1)[1]
        .split("```bash", 1)[1]
        .split("```")[0]
        .splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert len(commands) == 2, commands
    install_and_demo, install_and_test = commands
    assert install_and_demo == "pip install . && python examples/demo.py"
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"({install_and_test})" in ci_run
