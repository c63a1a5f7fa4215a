"""Warnings and exceptions of kernelkit."""

from __future__ import annotations

__all__ = ["ConvergenceWarning"]


class ConvergenceWarning(UserWarning):
    """A solver stopped on a limit (``max_iter``, ``time_limit``) or a callback, not converged.

    The fitted model is the solver's last iterate; ``status_`` says why it stopped.
    """
