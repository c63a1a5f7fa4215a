"""Warnings that point at the user's line.

A warning is raised at some depth inside kernelkit (``fit`` → a shared base → a check), which
differs between estimators, so no fixed ``stacklevel`` names the user's call for all of them: a
``ConvergenceWarning`` of ``SVC`` pointed at the wrapper of ``fit`` in ``_validation.py``, that
of ``SVR`` at ``_base.py``. :func:`warn_from_caller` walks out of the package instead (Python
3.12's ``skip_file_prefixes`` does the same, but kernelkit supports 3.10).
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn_from_caller"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_from_caller(message: str, category: type[Warning]) -> None:
    """:func:`warnings.warn` attributed to the first frame outside kernelkit: the user's call
    (``fit``, ``predict``, an attribute), or the library (scikit-learn, a thread pool) that
    made it."""
    level = 2  # the caller of this function
    frame = sys._getframe(1)
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        _PACKAGE
    ):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
