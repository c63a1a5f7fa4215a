"""Docstring entries that several estimators share, written once.

A docstring names shared entries with a line of its own, ``{{names}}`` or ``{{table: names}}``:
the names (comma-separated, in the order the entries are to appear) of entries of the table
``table`` (by default :data:`SHARED`; :data:`TABLES` lists the others), or ``*`` for every entry
of the table, in its order. :func:`fill` replaces the line with those entries, each indented as
the line is. Lines indented under the placeholder continue the description of its last entry,
which is how an estimator adds a sentence of its own to a shared entry::

    Parameters
    ----------
    C : float, default=1.0
        Regularisation parameter, > 0.
    {{kernel, degree, gamma, coef0}}
    {{warm_start}}
        Meant for a refit on the same rows with another ``C``.

The tables ``fit``, ``predict``, ``rows`` and ``pu_score`` hold a whole section,
``{{predict: Parameters}}`` (the title and ``X``), which a ``fit`` continues with its ``y`` and
``sample_weight``.

The classes apply it with the decorator :func:`shared_docstrings`, to their own docstring and
those of the methods and properties they define (a function decorated with it, to its own), so
that ``help()``, numpydoc and doctest see the entries. The API reference reads the sources
statically (griffe, without importing kernelkit): its extension,
``docs/hooks/griffe_sklearn_style.py``, loads this file by its path and applies the same
:func:`fill` to every docstring, so this module imports nothing but the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["SHARED", "TABLES", "fill", "shared_docstrings"]

_T = TypeVar("_T", bound=type | Callable[..., Any])

#: A placeholder line: ``{{names}}`` or ``{{table: names}}``, with its indentation.
_PLACEHOLDER = re.compile(
    r"^(?P<indent>[ \t]*)\{\{[ \t]*(?:(?P<table>[\w-]+)[ \t]*:)?"
    r"(?P<names>[\w, \t]+|[ \t]*\*[ \t]*)\}\}[ \t]*$",
    re.MULTILINE,
)


def _entries(section: str) -> dict[str, str]:
    """The entries of a numpydoc section written without indentation, by name: each runs from
    its ``name : type`` line to the next line that is not indented."""
    entries: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in section.strip("\n").splitlines():
        if line and not line[0].isspace():
            name = line.split(" : ", 1)[0]
            if name in entries:
                raise ValueError(f"the docstring entry {name!r} is written twice")
            lines = entries[name] = []
        lines.append(line)
    return {name: "\n".join(text) for name, text in entries.items()}


# The entries are in alphabetical order: not that of any docstring.

#: Parameters and attributes that read the same in every estimator that has them.
SHARED = _entries("""
break_ties : bool, default=False
    With ``decision_function_shape="ovr"`` and more than two classes, predict the argmax of
    :meth:`decision_function` instead of the vote (ties of the vote then go by confidence).
    Must be False with ``"ovo"``.
cache_size : float, default=200
    Size of the kernel cache of each dual problem in MB (> 0), holding columns of ``Q`` in
    float32 as LIBSVM does.
callback : callable or None, default=None
    Called during each solve, at most every 20 ms, with a dict of the ``iteration``, the
    KKT ``gap``, the ``objective``, the ``active_size`` and the ``cache_hits`` and
    ``cache_misses``. A true return value stops that solve (status ``"stopped"``, with a
    :class:`~kernelkit.ConvergenceWarning`); an exception it raises ends the fit.
coef0 : float, default=0.0
    Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).
decision_function_shape : {"ovr", "ovo"}, default="ovr"
    Shape of :meth:`decision_function` for three classes or more: one column per class
    (``"ovr"``, built from the one-vs-one votes and confidences as scikit-learn does) or one
    column per pair of classes (``"ovo"``). Training is one-vs-one either way.
degree : int, default=3
    Degree of the ``"poly"`` kernel, >= 0; ignored by the other kernels.
engine : {"auto", "libsvm", "batched"}, default="auto"
    The decomposition of the solver. ``"libsvm"`` is LIBSVM's: one pair of variables per
    iteration, with shrinking (LIBSVM's iterations exactly). ``"batched"`` takes batches of
    up to 256 variables: their kernel columns computed together, pair steps on the batch on
    one thread, the gradient updated once per batch (shrinking as LIBSVM's from 20,000
    variables on), so the threads meet far less often. Both stop by the same rule on the
    whole problem.
    ``"auto"`` chooses from the size of the problem, never from ``n_jobs`` (the model does
    not depend on the thread count); ``solver_stats_["engine"]`` says which ran.
feature_names_in_ : ndarray of shape (n_features_in_,)
    Names of the features seen during fit, defined only when ``X`` has feature names that
    are all strings.
gamma : {"scale", "auto"} or float, default="scale"
    Kernel coefficient of ``"rbf"``, ``"poly"`` and ``"sigmoid"``: ``"scale"`` is
    ``1 / (n_features · X.var())`` over the training rows (1 when the variance is 0),
    ``"auto"`` is ``1 / n_features``, a float must be > 0 (0 makes them constant); the
    other kernels ignore it and take any float >= 0, as scikit-learn's do.
kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default="rbf"
    ``"linear"``: ``⟨x, x'⟩``; ``"poly"``: ``(gamma ⟨x, x'⟩ + coef0)^degree``; ``"rbf"``:
    ``exp(−gamma ‖x − x'‖²)``; ``"sigmoid"``: ``tanh(gamma ⟨x, x'⟩ + coef0)``;
    ``"precomputed"``: ``X`` is the Gram matrix itself. A callable is called as
    ``kernel(A, B)`` and must return their Gram block of shape ``(len(A), len(B))``; as in
    scikit-learn, ``X`` is not validated but given to it as it is (a list of strings, a
    dataframe, sparse rows), ``fit`` calls ``kernel(X, X)`` once (on blocks of rows beyond
    11,585 rows) and prediction ``kernel(X_test, X_fit)``.
max_iter : int, default=-1
    Limit on the SMO iterations of each dual problem, >= 1, or -1 for LIBSVM's limit of
    ``max(10**7, 100 * l)`` iterations for a problem of ``l`` variables (scikit-learn's -1
    sets none, and a ``tol`` below what the problem's rounding resolves then runs forever).
    A problem stopped by it warns with :class:`~kernelkit.ConvergenceWarning`.
n_features_in_ : int
    Number of features seen during fit (not set for a callable kernel, as in scikit-learn).
n_jobs : int or None, default=None
    Threads for the kernel computations and the O(n) passes of the solver. -1 uses every
    core, ``None`` too unless ``OMP_NUM_THREADS`` is set, which caps it (joblib sets it in its
    workers, so that a grid search's fits do not oversubscribe the cores), a negative value
    ``n_cpus + 1 + n_jobs`` cores; 0 is invalid. The model does not depend on it.
probability : bool, default=False
    Whether to fit probability estimates (:meth:`predict_proba`), as LIBSVM does: each
    pair's sigmoid is fitted to decision values from a 5-fold cross-validation (5 more
    solves per pair, with folds drawn from ``random_state``; see ``docs/svc.md``). The
    default and the deprecation are the installed scikit-learn's: from scikit-learn 1.9 on,
    the default is ``"deprecated"`` (no estimates) and any value given warns with a
    ``FutureWarning`` (scikit-learn suggests ``CalibratedClassifierCV(SVC(),
    ensemble=False)`` instead).
random_state : int, RandomState instance or None, default=None
    Seeds the folds of the probability estimates (``probability=True``); the solver itself
    is deterministic.
shape_fit_ : tuple of int of shape (2,)
    Shape of the training ``X`` (``(n_samples,)`` for a list given to a callable kernel).
shrinking : bool, default=True
    Whether to use LIBSVM's shrinking heuristic (temporarily fixing variables at their
    bounds); it changes the running time, not the solution beyond ``tol``.
support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
    The support vectors (CSR when ``X`` was sparse); an empty array of shape (0, 0) for a
    precomputed or callable kernel, as in scikit-learn.
time_limit : float or None, default=None
    Wall-clock seconds allowed per dual problem (> 0), or None for no limit; a problem that
    reaches it stops with status ``"time_limit"``.
tol : float, default=1e-3
    Stopping tolerance, > 0: a dual problem is solved once its maximal KKT violation
    ``m(α) − M(α)`` falls below ``tol``.
verbose : bool or int, default=False
    When true, show a progress bar on stderr per dual problem (iterations, KKT gap, cache
    hit rate).
warm_start : bool, default=False
    When true, a refit on as many rows starts from the previous fit's dual solution
    moved into the new constraints (see ``docs/index.md``, "Warm starts") and reaches
    the cold fit's optimum; any other refit starts cold. The model keeps its dual solution
    for this (one value per row; per pair of classes, the non-zero ones) with the gradient of
    each solve. It saves time where the previous solution is close (along a
    path of ``C`` values on a9a, 0.75–0.9 of the cold path's time in the docs' measurements),
    but not everywhere: on USPS paths took 0.75–1.16 of it in repeated runs, and a refit with
    a much smaller ``C`` can take longer than a cold fit.
""")

#: Fitted attributes of an estimator trained as one dual problem (``SVR``, ``OneClassSVM``).
SINGLE = _entries("""
coef_ : ndarray or sparse matrix of shape (1, n_features)
    Weights of the features, ``dual_coef_ @ support_vectors_``; only with
    ``kernel="linear"`` (an ``AttributeError`` otherwise), sparse when X was.
fit_status_ : int
    0 when the solve converged, 1 otherwise.
kkt_gap_ : float
    The maximal KKT violation at exit (< ``tol`` when converged).
n_iter_ : int
    SMO iterations.
n_support_ : ndarray of shape (1,)
    ``[n_SV]``, the number of support vectors (int32), as scikit-learn has it.
objective_ : float
    The dual objective above at exit.
objective_increases_ : int
    Steps that increased the dual objective (0 for a correct solver).
solver_stats_ : dict
    Kernel cache counters, gradient reconstructions, objective increases, the smallest
    active set reached by shrinking, ``parallel_passes`` (the passes over the data where
    the threads meet, the same for any ``n_jobs``) and ``serial_seconds`` (the solve's
    time outside them, which no number of threads shortens), ``engine``
    (which ran), ``batches`` (of the batched engine), ``kernel_path`` (how kernel values
    were computed), ``restarted_cold`` (a warm start that ended at a degenerate optimum,
    solved again cold) and ``simd`` (the vector instructions used).
status_ : str
    How the solve ended: ``"converged"``, ``"max_iterations"``, ``"time_limit"`` or
    ``"stopped"`` (callback or Ctrl-C). A solve that meets a value that is not finite
    (``"numerical_error"``) raises ``ValueError`` instead of keeping its last iterate.
""")

#: Fitted attributes of a classifier trained one-vs-one, a dual problem per pair of classes
#: (``SVC``, ``NuSVC``).
PAIRS = _entries("""
classes_ : ndarray of shape (n_classes,)
    The class labels, sorted.
coef_ : ndarray or sparse matrix of shape (n_classes * (n_classes - 1) / 2, n_features)
    Weights of the features, ``dual_coef_ @ support_vectors_`` per pair of classes; only
    with ``kernel="linear"`` (an ``AttributeError`` otherwise), sparse when X was.
fit_status_ : int
    0 when every dual problem converged, 1 otherwise.
kkt_gap_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    The maximal KKT violation ``m(α) − M(α)`` of each dual problem at exit (< ``tol`` when
    converged).
n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    SMO iterations of each dual problem (int32).
n_support_ : ndarray of shape (n_classes,)
    Number of support vectors of each class (int32).
objective_increases_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    Steps that increased the dual objective, per pair (0 for a correct solver).
probA_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    ``A`` of each pair's sigmoid ``P(first class | f) = 1 / (1 + exp(A f + B))`` on the
    pair's LIBSVM decision value ``f`` (``probability=True``; empty otherwise). Deprecated
    with the parameter from scikit-learn 1.9 on, as there.
probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    ``B`` of each pair's sigmoid (``probability=True``; empty otherwise).
solver_stats_ : list of dict
    Per pair: kernel cache hits, misses, values computed, bytes in use and budget, gradient
    reconstructions, objective increases, the smallest active set reached by shrinking,
    ``parallel_passes`` (the passes over the data where the threads meet, the same
    for any ``n_jobs``) and ``serial_seconds`` (the solve's time outside them, which no
    number of threads shortens), ``engine`` (which ran) and ``batches`` (of the
    batched engine), ``dual_variables`` (the size of the dual problem solved: fewer than
    the pair's rows where :class:`~kernelkit.SVC` merged repeated rows, see its Notes),
    ``kernel_path`` (how kernel values were computed, e.g. ``"bitset_rbf_table"``; see
    ``docs/index.md``), ``restarted_cold`` (a warm start that ended at a degenerate
    optimum, solved again cold) and ``simd`` (the vector instructions used, capped by
    ``KERNELKIT_SIMD``).
status_ : list of str
    How each dual problem ended: ``"converged"``, ``"max_iterations"``, ``"time_limit"`` or
    ``"stopped"`` (callback or Ctrl-C). A solve that meets a value that is not finite
    (``"numerical_error"``) raises ``ValueError`` instead of keeping its last iterate.
support_ : ndarray of shape (n_SV,)
    Indices of the support vectors in the training data (int32), grouped by class.
""")

#: Fitted attributes of the ε- and ν-support vector regressors (``SVR``, ``NuSVR``).
REGRESSION = _entries("""
dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
    ``α_i − α*_i`` of the support vectors.
intercept_ : ndarray of shape (1,)
    The constant ``b`` of the regression function.
support_ : ndarray of shape (n_SV,)
    Indices of the support vectors (``α_i ≠ α*_i``) in the training data (int32).
""")


def _parameters(entries: str) -> dict[str, str]:
    """A table of one entry, ``Parameters``: the section's title and ``entries``."""
    return {"Parameters": "Parameters\n----------\n" + entries.strip("\n")}


#: ``fit`` of the kernel estimators: its Parameters section up to ``X``, which the docstring
#: continues with ``y`` and ``sample_weight``.
FIT = _parameters("""
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Training rows (scipy.sparse input is used as CSR, never densified), or the Gram
    matrix of shape (n_samples, n_samples) when ``kernel="precomputed"``.
""")

#: The kernel estimators' prediction methods: their Parameters section, ``X``.
PREDICT = _parameters("""
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Rows to evaluate, or their kernel values against the training rows, of shape
    (n_samples, n_train), when ``kernel="precomputed"``.
""")

#: The Parameters section of a method on rows alone (no precomputed kernel): its title and the
#: type of ``X``, whose description the docstring writes under the placeholder.
ROWS = _parameters("""
X : {array-like, sparse matrix} of shape (n_samples, n_features)
""")

#: The PU scores (``pu_accuracy_score``, ``lee_liu_score``): their Parameters section up to
#: ``y_pred``.
PU_SCORE = _parameters("""
y : array-like of shape (n_samples,)
    1 for a labeled positive, 0 for an unlabeled row.
y_pred : array-like of shape (n_samples,)
    Predicted classes, 1 (positive) or 0 (negative).
""")

#: The ``callback`` of ``solve`` of the solvers (``kernelkit.solvers``).
SOLVE = _entries("""
callback : callable or None, default=None
    Called with a dict of progress (``iteration``, ``gap``, ``objective``,
    ``active_size``, ``cache_hits``, ``cache_misses``) at most every 20 ms; a true
    return value stops the solve with status ``"stopped"``.
""")

#: The tables a placeholder can name (``""``: the default, :data:`SHARED`).
TABLES: dict[str, dict[str, str]] = {
    "": SHARED,
    "single": SINGLE,
    "pairs": PAIRS,
    "regression": REGRESSION,
    "fit": FIT,
    "predict": PREDICT,
    "rows": ROWS,
    "pu_score": PU_SCORE,
    "solve": SOLVE,
}


def _expand(match: re.Match[str]) -> str:
    table_name = match["table"] or ""
    table = TABLES.get(table_name)
    if table is None:
        raise ValueError(f"no table of docstring entries named {table_name!r}: {match[0]!r}")
    names = [part.strip() for part in match["names"].split(",")]
    lines = []
    for name in list(table) if names == ["*"] else names:
        if name not in table:
            raise ValueError(f"no docstring entry {name!r} in table {table_name!r}: {match[0]!r}")
        lines += table[name].splitlines()
    return "\n".join(match["indent"] + line for line in lines)


def fill(doc: str | None) -> str | None:
    """The docstring ``doc`` with every placeholder line replaced by its entries.

    Parameters
    ----------
    doc : str or None
        A docstring, indented in any way (Python 3.13 strips the common indentation of
        docstrings, earlier versions keep it).

    Returns
    -------
    str or None
        ``doc`` with its placeholders filled (None for None).

    Raises
    ------
    ValueError
        A placeholder names a table or an entry that does not exist.
    """
    if doc is None:
        return None
    return _PLACEHOLDER.sub(_expand, doc)


def shared_docstrings(cls: _T) -> _T:
    """Class or function decorator: fills the docstring of ``cls`` and those of the methods,
    properties and other descriptors that ``cls`` itself defines (see the module's docstring).

    Parameters
    ----------
    cls : type or callable
        The class, or a function (whose own docstring is filled).

    Returns
    -------
    type or callable
        ``cls``, its docstrings filled.
    """
    cls.__doc__ = fill(cls.__doc__)
    for member in vars(cls).values():
        # A property's getter, a staticmethod's or classmethod's function, and the function a
        # wrapper holds (functools.wraps, scikit-learn's available_if) have docstrings of their
        # own, which the member's may be a copy of.
        for documented in (member, *(getattr(member, name, None) for name in _WRAPPED)):
            doc = getattr(documented, "__doc__", None)
            if documented is not None and isinstance(doc, str) and "{{" in doc:
                documented.__doc__ = fill(doc)
    return cls


#: The attributes by which a class member holds the function it wraps.
_WRAPPED = ("fget", "__func__", "__wrapped__")
