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

from .exceptions import ConvergenceWarning

__all__ = ["warn_from_caller", "warn_unconverged"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_from_caller(message: str, category: type[Warning], skip: tuple[str, ...] = ()) -> None:
    """:func:`warnings.warn` attributed to the first frame outside kernelkit: the user's call
    (``fit``, ``predict``, an attribute), or the library (scikit-learn, a thread pool) that
    made it; outside the folders ``skip`` too (skl2onnx, which calls the ONNX converters)."""
    level = 2  # the caller of this function
    frame = sys._getframe(1)
    prefixes = (_PACKAGE, *skip)
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        prefixes
    ):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def warn_unconverged(statuses: list[str], default_limit: bool = False) -> None:
    """Warns of the solves that did not converge (their ``status``), with what to change;
    ``default_limit``: ``max_iter=-1`` stood for the core's default limit of
    ``max(10**7, 100 * l)`` iterations (LIBSVM's, ``SolveOptions::iteration_limit``)."""
    if "not_convex" in statuses:
        warn_from_caller(
            "the kernel matrix is not positive semidefinite (the kernel function does not "
            "guarantee it, or the solver met a pair of negative curvature): the problem is "
            "not convex, and the solution meets the stopping rule without being a certified "
            "optimum (status 'not_convex'). Use a positive semidefinite kernel (linear, rbf, "
            "poly with coef0 >= 0) for a certified solution.",
            ConvergenceWarning,
        )
    failed = sorted({s for s in statuses if s not in ("converged", "not_convex")})
    if failed:
        advice = []
        if {"max_iterations", "time_limit", "stopped"} & set(failed):
            advice.append("Raise max_iter / time_limit, or check the callback.")
            if default_limit and "max_iterations" in failed:
                advice[-1] = (
                    "max_iter=-1 stands for LIBSVM's limit of max(10**7, 100 * the problem's "
                    "variables) iterations; a solve that long usually has a tol below what the "
                    "problem's floating-point rounding resolves, or a C so large that the "
                    "problem is nearly hard-margin: raise tol, or lower C."
                )
        if "numerical_error" in failed:
            # More iterations cannot help: the solve stopped on a value it could not use.
            advice.append(
                "numerical_error: the solver met a value that is not finite, or could make no "
                "more progress in floating point; more iterations cannot help. Scale the "
                "features (and the target), or lower the kernel parameters (gamma, degree, "
                "|coef0|) or C."
            )
        if "stalled" in failed:
            advice.append(
                "stalled: no step lowers the objective any more, at a tol below what the "
                "problem's floating-point rounding resolves: raise tol."
            )
        warn_from_caller(
            f"the solver stopped before convergence ({', '.join(failed)}); the model is the "
            f"last iterate. {' '.join(advice)}",
            ConvergenceWarning,
        )
