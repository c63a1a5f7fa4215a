"""MkDocs hook: serves MathJax from the built site, copied from the django-static-mathjax package.

The pages' math (``$...$``, ``$$...$$``, turned into ``\\(...\\)`` / ``\\[...\\]`` spans by
pymdownx.arithmatex) is typeset in the browser by MathJax 3. No CDN: the site must render offline
(CI, users' machines), so the files come from a Python package that ships MathJax's release
build (django-static-mathjax, Apache-2.0, MathJax 3.2.2): ``es5/tex-chtml-full.js`` (every TeX
extension in one file, so nothing is loaded on demand), the CommonHTML woff fonts it loads from
``output/chtml/fonts/woff-v2/`` next to it, and MathJax's LICENSE. They are added to the site's
files as ``assets/mathjax/...`` (about 1.7 MB), which mkdocs.yml's ``extra_javascript`` names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Where the files land in the site, relative to its root.
TARGET = "assets/mathjax"


def _mathjax_dir() -> Path:
    try:
        import mathjax  # django-static-mathjax's package: data files only
    except ImportError as error:
        raise SystemExit(
            "MathJax for the docs comes from django-static-mathjax: "
            "pip install -r ci/docs-requirements.txt"
        ) from error
    root = Path(mathjax.__file__).parent / "static" / "mathjax"
    if not (root / "es5" / "tex-chtml-full.js").is_file():
        raise SystemExit(f"{root} holds no es5/tex-chtml-full.js: a django-static-mathjax 3.x?")
    return root


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    root = _mathjax_dir()
    es5 = root / "es5"
    sources = {"tex-chtml-full.js": es5 / "tex-chtml-full.js", "LICENSE": root / "LICENSE"}
    for font in sorted((es5 / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff")):
        sources[f"output/chtml/fonts/woff-v2/{font.name}"] = font
    for name, path in sources.items():
        files.append(File.generated(config, f"{TARGET}/{name}", abs_src_path=str(path)))
    return files
