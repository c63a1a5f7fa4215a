"""The estimators' constructor parameters, declared once.

scikit-learn reads an estimator's parameters from the signature of its ``__init__`` and expects
``__init__`` to store every argument, unchanged, as the attribute of the same name (validation
belongs in ``fit``): ``get_params``, ``set_params`` and ``clone`` rely on it. kernelkit's twelve
estimators share most of their parameters (all of them take the run controls below, nine the
kernel's), so each parameter is a dataclass field, declared once with its type and default:

- every estimator has a private ``@dataclass(kw_only=True, eq=False, repr=False)`` class of its
  parameters (``_SVCParams`` in ``svc.py``), built from the groups here plus its own fields, and
  is that class's subclass, with the params class first among its bases so that its generated
  ``__init__`` is the estimator's;
- the generated ``__init__`` has the explicit keyword-only signature scikit-learn introspects
  (and ``help()``, IDEs and the API reference show) and only assigns;
- ``eq=False`` keeps identity comparison and hashing, ``repr=False`` scikit-learn's ``repr``;
- an estimator whose default differs redeclares the field (``tol``, ``max_iter``, ``kernel``),
  which keeps its place in the signature and changes only the default;
- a dataclass lists its bases' fields before its own, the last base's first: the bases are
  ordered so that signatures read the kernel's parameters, the run controls, the groups', then
  the estimator's own.

The estimator classes themselves are not dataclasses: their annotated fitted attributes
(``classes_: ndarray``) are not parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._progress import Callback

__all__ = ["Controls", "KernelParams", "OneVsOneParams", "SmoParams"]


@dataclass(kw_only=True, eq=False, repr=False)
class Controls:
    """How long and how a fit runs, and what it reports: every estimator's."""

    max_iter: int = -1
    verbose: bool | int = False
    n_jobs: int | None = None
    callback: Callback | None = None
    time_limit: float | None = None


@dataclass(kw_only=True, eq=False, repr=False)
class KernelParams:
    """The kernel ``K(x, z)`` and the cache of its values."""

    kernel: str | Callable[..., Any] = "rbf"
    degree: int = 3
    gamma: str | float = "scale"
    coef0: float = 0.0
    cache_size: float = 200


@dataclass(kw_only=True, eq=False, repr=False)
class SmoParams:
    """The SMO engine's options: the five LIBSVM formulations'."""

    tol: float = 1e-3
    shrinking: bool = True
    engine: str = "auto"
    warm_start: bool = False


@dataclass(kw_only=True, eq=False, repr=False)
class OneVsOneParams:
    """The one-vs-one multiclass classifiers' decision shape and seed."""

    decision_function_shape: str = "ovr"
    break_ties: bool = False
    random_state: Any = None
