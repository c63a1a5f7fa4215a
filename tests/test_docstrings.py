"""numpydoc docstrings on kernelkit's public API.

Checked: every class and function of ``kernelkit.__all__`` and of ``kernelkit.solvers.__all__``,
and every public method and property of those classes that kernelkit itself defines (inherited
from kernelkit's own base classes included; what comes from scikit-learn, such as
``get_params`` or ``ClassifierMixin.score``, is scikit-learn's to document).

Three kinds of checks:

* :func:`numpydoc.validate.validate` with the codes of :data:`CHECKED_CODES`;
* every parameter with a default states it as ``default=<value>`` in its type, and the value is
  the signature's (so a changed default cannot leave a stale docstring behind);
* every estimator's ``Attributes`` section lists exactly the public fitted attributes (names
  ending in ``_``) that a small fit creates, each with a type and a sentence of description.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import numbers
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate
from sklearn.base import BaseEstimator

import kernelkit
import kernelkit.solvers
from kernelkit import _docstrings

#: The numpydoc codes enforced. Left out, deliberately:
#:
#: * ES01 (no extended summary): a one-line summary is enough for ``predict`` and the like;
#: * SA01 (no "See Also" section) and EX01 (no "Examples" section): optional sections (the
#:   See Also entries that do exist are checked by SA02-SA04).
#:
#: SS05 (summary starts with an infinitive verb) and SS06 (summary fits on one line) are kept:
#: numpydoc applies SS05 to functions and methods only, where "Fit the model." reads as well as
#: "Fits the model.", and one line of 100 characters leaves room for a summary.
CHECKED_CODES = frozenset(
    {"GL01", "GL02", "GL03", "GL05", "GL06", "GL07", "GL08", "GL09", "GL10"}
    | {f"SS0{i}" for i in range(1, 7)}
    | {f"PR{i:02d}" for i in range(1, 11)}
    | {f"RT0{i}" for i in range(1, 6)}
    | {"YD01", "SA02", "SA03", "SA04"}
)


#: The one public class that is not written in Python: ``Solution`` is a pyo3 class of
#: ``kernelkit._core`` (re-exported by ``kernelkit.solvers``), whose docstrings come from the Rust
#: doc comments (src/solve.rs). Its field getters have none yet.
def _defined_in_kernelkit(owner: type, name: str) -> Any:
    """The attribute ``name`` as the first class of ``owner``'s MRO that defines it holds it
    (a function, a property, ...), or None when that class is not kernelkit's own."""
    for klass in owner.__mro__:
        if name in vars(klass):
            module = getattr(klass, "__module__", "")
            return vars(klass)[name] if module.startswith("kernelkit") else None
    return None


def _public_classes() -> dict[str, type]:
    """Every public class, by its import path (aliases such as ``MEBClassifier`` once)."""
    found: dict[str, type] = {}
    seen: set[int] = set()
    for module in (kernelkit, kernelkit.solvers):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and id(obj) not in seen:
                seen.add(id(obj))
                found[f"{module.__name__}.{obj.__name__}"] = obj
    return found


def _public_functions() -> list[str]:
    return [
        f"{module.__name__}.{name}"
        for module in (kernelkit, kernelkit.solvers)
        for name in module.__all__
        if inspect.isfunction(getattr(module, name))
    ]


def _members(path: str, klass: type) -> Iterator[str]:
    """The public methods and properties of ``klass`` that kernelkit defines (for a class of
    the Rust extension, its field getters)."""
    for name in sorted(dir(klass)):
        if name.startswith("_"):
            continue
        member = _defined_in_kernelkit(klass, name)
        if (
            isinstance(member, (property, staticmethod, classmethod))
            or inspect.isfunction(member)
            or inspect.isgetsetdescriptor(member)
            or inspect.ismemberdescriptor(member)
        ):
            yield f"{path}.{name}"


def _checked_objects() -> list[Any]:
    paths: list[Any] = []
    for path, klass in _public_classes().items():
        paths.append(path)
        paths.extend(_members(path, klass))
    return paths + _public_functions()


CHECKED_OBJECTS = _checked_objects()


def _load(path: str) -> Any:
    """The object at a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)


def test_the_public_api_is_covered() -> None:
    """The collection finds the estimators' methods, the solvers and the functions (a guard
    against a collection that silently checks nothing)."""
    checked = {p if isinstance(p, str) else p.values[0] for p in CHECKED_OBJECTS}
    for expected in (
        "kernelkit.SVC",
        "kernelkit.SVC.fit",
        "kernelkit.NuSVC.decision_function",
        "kernelkit.NuSVR.predict",
        "kernelkit.OneClassSVM.score_samples",
        "kernelkit.SparseKernelLogisticRegression.predict_proba",
        "kernelkit.AIDClassifier.coef_",
        "kernelkit.ConvergenceWarning",
        "kernelkit.solvers.Smo.solve",
        "kernelkit.Solver.solve",
        "kernelkit.solvers.aggregated_kernel",
    ):
        assert expected in checked
    assert not any(p.endswith((".get_params", ".set_params", ".score")) for p in checked)


@pytest.mark.parametrize("path", CHECKED_OBJECTS)
def test_numpydoc_validation(path: str) -> None:
    report = validate(path)
    codes = CHECKED_CODES
    if getattr(_load(path), "_is_protocol", False):
        # A Protocol has no constructor: its signature is a placeholder (*args, **kwargs).
        codes = codes - {"PR01"}
    errors = [f"{code}: {message}" for code, message in report["errors"] if code in codes]
    assert not errors, f"{path}:\n" + "\n".join(errors)


def _signature(obj: Any) -> inspect.Signature | None:
    """The signature of a function or class (``__init__``'s), None for anything else."""
    target = obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj
    if not callable(target):
        return None
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):  # a class of the Rust extension without a signature
        return None


def _callables_with_defaults() -> list[str]:
    found = []
    for path in (p if isinstance(p, str) else p.values[0] for p in CHECKED_OBJECTS):
        signature = _signature(_load(path))
        if signature is not None and any(
            parameter.default is not inspect.Parameter.empty
            for parameter in signature.parameters.values()
        ):
            found.append(path)
    return found


@pytest.mark.parametrize("path", _callables_with_defaults())
def test_documented_defaults_match_the_signature(path: str) -> None:
    obj = _load(path)
    signature = _signature(obj)
    assert signature is not None
    documented = {
        name.strip(): type_
        for names, type_, _ in NumpyDocString(inspect.getdoc(obj) or "")["Parameters"]
        for name in names.split(",")
    }
    for name, parameter in signature.parameters.items():
        if parameter.default is inspect.Parameter.empty or name not in documented:
            continue  # undocumented parameters are test_numpydoc_validation's (PR01)
        match = re.search(r"default=(.+)$", documented[name])
        assert match, f"{path}: parameter {name!r} has a default but no 'default=' in its type"
        value = ast.literal_eval(match.group(1))
        assert _same(value, parameter.default), (
            f"{path}: {name} documents default={value!r}, the signature has {parameter.default!r}"
        )


def _same(documented: Any, actual: Any) -> bool:
    if isinstance(documented, bool) or isinstance(actual, bool):
        return documented is actual
    if isinstance(documented, numbers.Real) and isinstance(actual, numbers.Real):
        return documented == actual
    return type(documented) is type(actual) and documented == actual


# -- fitted attributes ---------------------------------------------------------------------------

#: Estimator options for the small fit that creates every fitted attribute (histories included).
FIT_OPTIONS: dict[str, dict[str, Any]] = {
    "SVC": {},
    "NuSVC": {"nu": 0.3},
    "SVR": {},
    "NuSVR": {},
    "OneClassSVM": {},
    "PUClassifier": {"prior": 0.5},
    "FrankWolfeSVC": {"random_state": 0},
    "SparseKernelLogisticRegression": {"record_history": True},
    "ConstrainedSVR": {"constraint": "nonnegative", "record_history": True},
    "AIDRegressor": {"random_state": 0},
    "AIDClassifier": {"random_state": 0},
    "AIDSemiSupervisedClassifier": {"random_state": 0},
}
REGRESSORS = ("SVR", "NuSVR", "ConstrainedSVR", "AIDRegressor")


def _estimators() -> list[str]:
    return [path for path, klass in _public_classes().items() if issubclass(klass, BaseEstimator)]


def _fitted(klass: type, *, n_classes: int = 2, **params: Any) -> Any:
    pandas = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    noisy = X[:, 0] + 0.3 * rng.normal(size=40)
    cuts = [0.0] if n_classes == 2 else np.quantile(noisy, np.linspace(0, 1, n_classes + 1)[1:-1])
    labels = np.digitize(noisy, cuts)
    name = klass.__name__
    if name in REGRESSORS:
        y: Any = X @ np.array([1.0, 0.5, 0.0]) + 0.1 * rng.normal(size=40)
    elif name == "AIDSemiSupervisedClassifier":
        y = np.where(np.arange(40) % 2 == 0, labels, -1)
    else:
        y = labels
    frame = pandas.DataFrame(X, columns=["a", "b", "c"])  # so that feature_names_in_ is set
    estimator = klass(**{**FIT_OPTIONS[name], **params})
    return estimator.fit(frame, y)


def _fitted_attributes(estimator: Any) -> set[str]:
    names = {n for n in vars(estimator) if n.endswith("_") and not n.startswith("_")}
    for name in dir(type(estimator)):
        member = _defined_in_kernelkit(type(estimator), name)
        if (
            isinstance(member, property)
            and name.endswith("_")
            and not name.startswith("_")
            and hasattr(estimator, name)
        ):
            names.add(name)
    return names


# AIDSemiSupervisedClassifier.fit predicts on the validated (name-less) X after fitting on a
# DataFrame, which makes scikit-learn warn about feature names: harmless here.
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("path", _estimators())
def test_attributes_section_lists_the_fitted_attributes(path: str) -> None:
    klass = _public_classes()[path]
    estimator = _fitted(klass)
    entries = NumpyDocString(inspect.getdoc(klass) or "")["Attributes"]
    documented: dict[str, tuple[str, list[str]]] = {}
    for names, type_, description in entries:
        for name in names.split(","):
            documented[name.strip()] = (type_, description)
    fitted = _fitted_attributes(estimator)
    assert sorted(fitted - set(documented)) == [], f"{path}: fitted attributes not documented"
    if "coef_" in documented and "coef_" not in fitted:
        # Only with kernel="linear" (scikit-learn's rule): fitted then, and only then.
        linear = _fitted(klass, kernel="linear")
        assert "coef_" in _fitted_attributes(linear), f"{path}: coef_ with a linear kernel"
        fitted = fitted | {"coef_"}
    if "estimators_" in documented and "estimators_" not in fitted:
        # Only for more than two classes (SparseKernelLogisticRegression's binary models).
        multiclass = _fitted(klass, n_classes=3)
        assert "estimators_" in _fitted_attributes(multiclass), f"{path}: estimators_, 3 classes"
        fitted = fitted | {"estimators_"}
    assert sorted(set(documented) - fitted) == [], f"{path}: documented but not fitted"
    for name, (type_, description) in documented.items():
        text = " ".join(line.strip() for line in description).strip()
        assert type_.strip(), f"{path}: attribute {name} has no type"
        assert text, f"{path}: attribute {name} has no description"
        assert text[0].isupper() or not text[0].isalpha(), f"{path}: {name}: capital letter"
        assert text.endswith("."), f"{path}: attribute {name}: description ends without '.'"


def test_every_estimator_has_fit_options() -> None:
    """A new estimator in ``kernelkit.__all__`` must join the attribute check."""
    assert {path.rsplit(".", 1)[1] for path in _estimators()} == set(FIT_OPTIONS)


# -- shared docstring entries (kernelkit._docstrings) ----------------------------------------

SOURCES = Path(kernelkit.__file__).parent
#: The griffe extension of the documentation site, in the checkout beside tests/.
GRIFFE_EXTENSION = (
    Path(__file__).resolve().parents[1] / "docs" / "hooks" / "griffe_sklearn_style.py"
)


def test_no_placeholder_is_left_in_a_public_docstring() -> None:
    """Every class that uses a shared entry fills it at import time (``@shared_docstrings``):
    its docstring, and those of every member kernelkit defines, the functions that wrappers
    hold included (``available_if``'s ``predict_proba``, which the numpydoc checks above do
    not collect)."""
    for path, klass in _public_classes().items():
        for owner in klass.__mro__:
            if not owner.__module__.startswith("kernelkit"):
                continue
            for name, member in vars(owner).items():
                wrapped = (getattr(member, a, None) for a in ("fget", "__func__", "__wrapped__"))
                for documented in (owner, member, *wrapped):
                    doc = getattr(documented, "__doc__", None)
                    assert not (isinstance(doc, str) and "{{" in doc), f"{path}: {name}"
    for path in _public_functions():
        assert "{{" not in (inspect.getdoc(_load(path)) or ""), path


def test_every_shared_entry_is_used() -> None:
    """No entry of the tables is dead text: each is named by some placeholder in the sources
    (``*`` names every entry of its table)."""
    used: set[tuple[str, str]] = set()
    for source in SOURCES.rglob("*.py"):
        if source.name == "_docstrings.py":
            continue
        for match in _docstrings._PLACEHOLDER.finditer(source.read_text(encoding="utf-8")):
            table = match["table"] or ""
            names = [name.strip() for name in match["names"].split(",")]
            entries = _docstrings.TABLES[table] if names == ["*"] else names
            used |= {(table, name) for name in entries}
    every = {(table, name) for table, entries in _docstrings.TABLES.items() for name in entries}
    assert sorted(every - used) == []


def test_fill_indents_entries_and_keeps_what_follows() -> None:
    """Entries come indented as their placeholder line, in the order named; lines indented
    under the placeholder continue the last entry's description."""
    doc = """Summary.

        Parameters
        ----------
        C : float
            Regularisation.
        {{degree, coef0}}
            A sentence of the estimator's own.
        """
    filled = _docstrings.fill(doc)
    assert filled is not None
    parameters = NumpyDocString(inspect.cleandoc(filled))["Parameters"]
    assert [(entry.name, entry.type) for entry in parameters] == [
        ("C", "float"),
        ("degree", "int, default=3"),
        ("coef0", "float, default=0.0"),
    ]
    assert parameters[2].desc == [
        'Independent term of the ``"poly"`` and ``"sigmoid"`` kernels (any finite value).',
        "A sentence of the estimator's own.",
    ]
    section = _docstrings.fill("Summary.\n\n    {{predict: Parameters}}\n")
    assert section is not None
    assert [entry.name for entry in NumpyDocString(inspect.cleandoc(section))["Parameters"]] == [
        "X"
    ]
    assert _docstrings.fill(None) is None
    inline = "No placeholder {{degree}} inside a line."
    assert _docstrings.fill(inline) == inline


@pytest.mark.parametrize(
    ("line", "message"),
    [("{{no_such_parameter}}", "no_such_parameter"), ("{{no_table: C}}", "no_table")],
)
def test_fill_names_an_unknown_entry(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _docstrings.fill(f"Summary.\n\n    {line}\n")


def test_the_static_reading_lists_every_parameter() -> None:
    """The API reference reads the sources with griffe, without importing kernelkit, through
    the extension of docs/hooks, which fills the shared entries with the same function: the
    Parameters section it reads of each estimator lists the parameters of ``get_params()``,
    in the signature's order, and its Attributes those of the runtime docstring."""
    griffe = pytest.importorskip("griffe")
    if not GRIFFE_EXTENSION.is_file():
        pytest.skip("no docs/hooks beside tests/ (not a checkout)")
    package = griffe.load(
        "kernelkit",
        search_paths=[str(SOURCES.parent)],
        extensions=griffe.load_extensions(f"{GRIFFE_EXTENSION}:SklearnStyleDocstrings"),
        allow_inspection=False,
    )
    for path in _estimators():
        klass = _public_classes()[path]
        sections = package[klass.__name__].docstring.parse("numpy")
        listed = {
            section.kind.value: [item.name for item in section.value]
            for section in sections
            if section.kind.value in ("parameters", "attributes")
        }
        assert listed["parameters"] == list(inspect.signature(klass).parameters), path
        assert set(listed["parameters"]) == set(klass().get_params()), path
        runtime = NumpyDocString(inspect.getdoc(klass) or "")["Attributes"]
        assert listed["attributes"] == [entry.name for entry in runtime], path
