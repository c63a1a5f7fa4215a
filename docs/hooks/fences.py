"""MkDocs hook: shows the guide's ```` ```python no-run ```` blocks as Python code.

docs/make_figures.py and tests/test_docs_examples.py run every ```` ```python ```` block of a page
and skip those whose info string is ``python no-run`` (they need a cluster or the shared data
sets). Python-Markdown's fences take one word as the language, so such a block would not be a
code block on the site; this hook drops the ``no-run`` word from the page's Markdown as it is
rendered (the page files are not changed).
"""

from __future__ import annotations

import re
from typing import Any

_NO_RUN = re.compile(r"^(\s*```+)python no-run[ \t]*$", re.MULTILINE)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return _NO_RUN.sub(r"\1python", markdown)
