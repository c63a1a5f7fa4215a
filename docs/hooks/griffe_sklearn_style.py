"""Griffe extension for the API reference: reads kernelkit's scikit-learn-style numpydoc.

The docstrings follow scikit-learn's conventions, which numpydoc accepts and griffe's numpy
parser reads differently; this extension rewrites the docstring text griffe parses (not the
sources) so that the rendered reference says what the docstrings say:

- A line ``{{kernel, degree}}`` or ``{{pairs: classes_}}`` stands for entries that several
  estimators share (``python/kernelkit/_docstrings.py``), which the classes fill in at import
  time. griffe reads the sources without importing kernelkit, so this extension loads that
  file by its path (it needs only the standard library) and applies the same ``fill`` first.
- ``kernel : {"linear", "rbf"} or callable, default="rbf"``: griffe takes a type that opens
  with ``{`` as a list of choices whose first entry is the default (numpydoc's older rule), so
  it would show ``"linear"`` as the default and drop ``or callable``. Such a type is written
  ``one of {"linear", "rbf"} or callable`` (literal choices) or ``array-like or sparse matrix``
  (choices of types, as in ``X : {array-like, sparse matrix} of shape (n_samples,
  n_features)``), and the explicit ``default=`` (or the signature's) is the default shown.
- Sphinx roles (``:class:`sklearn.svm.SVC```, ``:func:`~kernelkit.io.load_libsvm_model```),
  which Markdown would print as they are, become code spans with the role's target.
- reStructuredText's ``::`` that introduces a literal block (an indented block, which Markdown
  shows as code too) becomes ``:``.
- reStructuredText citations (``.. [1] C.-C. Chang and C.-J. Lin, ...`` in References, cited as
  ``[1]_``), which Markdown would run together into one paragraph, become list items
  ``[1] C.-C. Chang ...``, cited as ``[1]``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from griffe import Extension

#: A parameter, attribute or return line whose type opens with a brace group.
_BRACED = re.compile(r"^(?P<head>\s*[\w*]+(?:, [\w*]+)* : )\{(?P<choices>[^{}]*)\}(?P<rest>.*)$")
#: A Sphinx role with its target: :class:`~a.b.C` or :meth:`C.fit`.
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|obj|exc|data|const|ref):`~?([^`]+)`")
_CITATION = re.compile(r"^(\s*)\.\. \[([^\]]+)\]\s+", re.MULTILINE)
_CITED = re.compile(r"\[(\w+)\]_")
_LITERAL = re.compile(r"""^\s*(?:"[^"]*"|'[^']*'|None|True|False|-?\d[\w.+-]*)\s*$""")


#: The module of the shared docstring entries, in the sources beside docs/.
_SHARED_ENTRIES = Path(__file__).resolve().parents[2] / "python" / "kernelkit" / "_docstrings.py"


def _load_shared_entries() -> ModuleType:
    """``kernelkit._docstrings``, loaded from its file: importing ``kernelkit`` would need the
    Rust extension, which the documentation build does not have."""
    spec = importlib.util.spec_from_file_location("_kernelkit_docstrings", _SHARED_ENTRIES)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {_SHARED_ENTRIES}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_fill = _load_shared_entries().fill


def _rewrite_type(match: re.Match[str]) -> str:
    choices = match["choices"]
    if all(_LITERAL.match(choice) for choice in choices.split(",")):
        written = f"one of {{{choices}}}"
    else:
        written = " or ".join(choice.strip() for choice in choices.split(","))
    return f"{match['head']}{written}{match['rest']}"


def rewrite(text: str) -> str:
    """The docstring ``text`` with the shared entries filled in, and brace-group types, roles,
    ``::`` and citations rewritten."""
    lines = [_BRACED.sub(_rewrite_type, line) for line in _fill(text).splitlines()]
    lines = [line[:-1] if line.endswith("::") and line.strip() != "::" else line for line in lines]
    text = _ROLE.sub(r"`\1`", "\n".join(lines))
    return _CITED.sub(r"[\1]", _CITATION.sub(r"\1- [\2] ", text))


class SklearnStyleDocstrings(Extension):
    """Rewrites each object's docstring text as it is loaded (see the module's docstring)."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = getattr(obj, "docstring", None)
        if docstring is not None:
            docstring.value = rewrite(docstring.value)
