"""Warnings and exceptions of kernelkit."""

from __future__ import annotations

from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

__all__ = ["ConvergenceWarning", "InvalidParameterError", "LibsvmModelError"]


class ConvergenceWarning(SklearnConvergenceWarning):  # type: ignore[misc]  # sklearn is untyped
    """A solver stopped on a limit (``max_iter``, ``time_limit``) or a callback, not converged.

    The fitted model is the solver's last iterate; ``status_`` says why it stopped. A subclass
    of scikit-learn's ``ConvergenceWarning`` (itself a ``UserWarning``), so that warning
    filters written for scikit-learn catch it too.
    """


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type (``degree=2.0``, ``max_iter=100.0``, ``n_jobs="2"``).

    Both a ``ValueError`` and a ``TypeError``, as scikit-learn's own ``InvalidParameterError``
    is, so that code written for scikit-learn's estimators (``except ValueError``) catches it.
    """


class LibsvmModelError(ValueError):
    """A LIBSVM model file that cannot be read (:func:`kernelkit.io.load_libsvm_model`): the
    message names the line and the problem."""
