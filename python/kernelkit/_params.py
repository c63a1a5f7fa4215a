"""The estimators' constructor parameters, declared once.

scikit-learn reads an estimator's parameters from the signature of its ``__init__`` and expects
``__init__`` to store every argument, unchanged, as the attribute of the same name (validation
belongs in ``fit``): ``get_params``, ``set_params`` and ``clone`` rely on it. kernelkit's twelve
estimators share most of their parameters (all of them take the run controls below, nine the
kernel's), so each parameter is a dataclass field, declared once with its type and default.
An estimator is built from two private ``@dataclass(kw_only=True, eq=False, repr=False)``
classes in its module:

- ``_SVCParams``: the fields of its own (``C``);
- ``_SVCInit(Controls, OneVsOneParams, SmoParams, KernelParams, ClassWeightParams,
  _SVCParams)``: its groups and its
  own class (the three AID estimators also ``_aid_base.AidParams``), and nothing else but a
  redeclared default where the estimator's differs
  (``AIDClassifier``'s ``kernel="linear"``; such a field keeps its place in the signature);
- ``class SVC(_SVCInit, ...)``: the estimator, with ``_SVCInit`` first among its bases, so that
  the generated ``__init__`` is its ``__init__``. The estimator classes are not dataclasses
  themselves: their annotated fitted attributes (``classes_: ndarray``) are not parameters.

A dataclass lists the fields of its bases from the last base to the first, its own last; the
bases are listed so that a signature reads the estimator's own parameters first, then the
kernel's, the solver's, the multiclass options and the run controls: ``SVC(*, C=1.0,
probability=..., class_weight=None, kernel="rbf", ...)``. The generated ``__init__`` has the
explicit keyword-only signature that scikit-learn introspects (and ``help()``, IDEs and the API
reference show, the last through griffe's dataclass support) and only assigns; ``eq=False``
keeps identity comparison and hashing, ``repr=False`` scikit-learn's ``repr``. The estimators'
Parameters sections follow the signatures' order (numpydoc's PR03, ``tests/test_docstrings.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._probability import PROBABILITY_DEFAULT
from ._progress import Callback

__all__ = ["ClassWeightParams", "Controls", "KernelParams", "OneVsOneParams", "SmoParams"]


@dataclass(kw_only=True, eq=False, repr=False)
class Controls:
    """How long and how a fit runs, and what it reports: every estimator's."""

    max_iter: int = -1
    verbose: bool | int = False
    n_jobs: int | None = None
    callback: Callback | None = None
    time_limit: float | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Names the generated ``__init__`` after the estimator that first inherits it, so
        that Python's errors for a bad argument say ``SVC.__init__() got an unexpected keyword
        argument 'Cc'``, not ``_SVCInit.__init__()``. Every ``_XInit`` serves one estimator; a
        user's subclass finds the name already set and keeps it."""
        super().__init_subclass__(**kwargs)
        init = cls.__init__
        if "__init__" not in cls.__dict__ and init.__qualname__.endswith("Init.__init__"):
            init.__qualname__ = f"{cls.__qualname__}.__init__"


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


@dataclass(kw_only=True, eq=False, repr=False)
class ClassWeightParams:
    """The LIBSVM classifiers' (``SVC``, ``NuSVC``) Platt probabilities and class weights."""

    probability: bool | str = PROBABILITY_DEFAULT
    class_weight: Mapping[Any, float] | str | None = None
