"""ONNX export of the LIBSVM-family estimators through skl2onnx.

Installed by ``pip install "kernelkit[onnx]"`` (skl2onnx, onnx and onnxruntime). Importing
this module registers converters for :class:`~kernelkit.SVC`, :class:`~kernelkit.NuSVC`,
:class:`~kernelkit.SVR`, :class:`~kernelkit.NuSVR` and :class:`~kernelkit.OneClassSVM`, so that
``skl2onnx.to_onnx(model, X[:1])`` converts a fitted model (alone or inside a pipeline)::

    import kernelkit.onnx  # registers the converters
    from skl2onnx import to_onnx

    onx = to_onnx(model, X[:1].astype(np.float32))

The graphs use the ONNX-ML operators ``SVMRegressor`` and ``SVMClassifier``, which compute in
float32. A decision value ``f(x) = Σ c_i K(sv_i, x) + ρ`` is a sum of terms that may cancel,
and its float32 error scales with the size of the terms, ``S(x) = Σ |c_i| |K(sv_i, x)| + |ρ|``,
not with ``|f(x)|``: onnxruntime's values were within about ``5 ε₃₂ S(x)`` of the model's
(``ε₃₂ = 2⁻²³ ≈ 1.2e-7``; the tests check ``10 ε₃₂ S(x)``), a relative error of ``ε₃₂`` times
the cancellation ratio ``S(x) / |f(x)|``. Large dual coefficients that cancel (a ν-SVC pair
with a tiny scale ``r`` has coefficients ``1/r``) or large kernel values (a poly kernel) make
that ratio large; the converter warns (``UserWarning``) where ``ε₃₂ max S`` exceeds
``1e-3 max |f|`` on the model's support vectors. The graphs are built from the model's
LIBSVM-oriented coefficients (positive decision = the first class of a pair):

* **Classifiers, two classes**: one ``SVMRegressor`` gives LIBSVM's decision value ``f``; the
  label is ``classes_[0]`` where ``f > 0``, else ``classes_[1]`` (as :meth:`predict`; ``f ≥ 0``
  for a model read from a LIBSVM file that lists ``classes_[1]`` first, as LIBSVM). The
  second output is ``[1 − p, p]`` with ``p = 1 / (1 + exp(A f + B))`` clipped to
  ``[1e-7, 1 − 1e-7]`` when the model has probabilities (the sigmoid is computed in the graph
  rather than by ``SVMClassifier``, which couples even two classes iteratively and so
  differs from ``predict_proba`` by up to 1e-3), else ``[−d, d]`` with ``d`` the
  :meth:`decision_function`.
* **Classifiers, more classes**: ``SVMClassifier`` gives the one-vs-one vote (the label) and
  the pairwise decision values; the second output is :meth:`decision_function` (``"ovr"``:
  votes plus squashed confidences, computed in the graph; ``"ovo"``: the pairwise values,
  ``n_classes (n_classes − 1) / 2`` columns, which needs ``options={"zipmap": False}`` when
  that is not ``n_classes``), or with probabilities :meth:`predict_proba` (a second
  ``SVMClassifier`` with the pairs' sigmoids, whose pairwise coupling is Wu, Lin & Weng's
  method 2 as kernelkit's; the label stays the vote, as :meth:`predict`, or with
  ``break_ties=True`` and ``"ovr"`` the argmax of the one-vs-rest scores). The operator breaks
  a tie of the vote, and couples, in the order of its labels: sorted, but for a model read
  from a LIBSVM file with its labels in another order, whose operators take the file's order
  (as :meth:`predict` and :meth:`predict_proba` do) and whose outputs are put back in sorted
  order.
* **SVR, NuSVR**: ``SVMRegressor``, the prediction.
* **OneClassSVM**: ``SVMRegressor`` gives :meth:`decision_function`; the label is ``+1``
  where it is positive, else ``−1``.

An RBF model whose support vectors lie far from the origin for their spread is predicted with
rows and support vectors shifted to the support vectors' mean (``_rbf_shift``): its graph holds
the shifted vectors and subtracts the shift from the input in float64 (a float32 input warns:
it is rounded at that scale). A model whose parameters or kernel values exceed float32's range
is refused (``ValueError``).

Kernels ``"linear"``, ``"poly"``, ``"rbf"`` and ``"sigmoid"`` are converted, with the parameters
the model was fitted with (which :meth:`predict` uses, whatever ``set_params`` changed since); a
precomputed or callable kernel has no ONNX form (``ValueError``). A model without support vectors
(an SVR of constant targets), or a class without any (a LIBSVM file may have them), gets a vector
of zeros with coefficient 0: the operators take no empty attribute, and onnxruntime 1.18 aborts
on a class without vectors. Class labels must be all integers (int64) or all strings (the operators'
label types).
"""

from __future__ import annotations

import numbers
import os
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
import skl2onnx
from onnx import TensorProto
from skl2onnx import update_registered_converter
from skl2onnx._parse import _parse_sklearn_classifier
from skl2onnx.common.data_types import FloatTensorType, Int64TensorType, StringTensorType
from sklearn.utils.validation import check_is_fitted

from ._class_order import reorder_classes
from ._rbf_shift import rbf_shift
from ._warn import warn_from_caller
from .nu_svc import NuSVC
from .nu_svr import NuSVR
from .one_class import OneClassSVM
from .svc import SVC
from .svr import SVR

__all__ = ["register"]

_ML = "ai.onnx.ml"
#: skl2onnx's folder: its frames, between the user's ``to_onnx`` and the converters, are
#: skipped by the warnings, which name the user's line.
_SKL2ONNX = os.path.dirname(os.path.abspath(skl2onnx.__file__)) + os.sep


def _check_model(model: Any) -> None:
    check_is_fitted(model, "support_")
    kind = model._kernel_params[0]
    if kind not in ("linear", "poly", "rbf", "sigmoid"):
        raise ValueError(
            f"{type(model).__name__} with kernel={model.kernel!r} cannot be exported to ONNX: "
            "the ONNX SVM operators compute only the 'linear', 'poly', 'rbf' and 'sigmoid' "
            "kernels"
        )
    _check_float32_range(model)


def _check_float32_range(model: Any) -> None:
    """Refuses a model whose parameters, or whose kernel values at its own support vectors
    times its largest coefficient, exceed float32's range: the operators would compute
    infinities and NaN (``gamma="scale"`` on rows of 1e-30 is 3e59; a linear kernel of rows of
    1e20 is 1e40)."""
    kind, gamma, degree, coef0 = model._kernel_params
    vectors = _shifted(model, _dense_vectors(model))
    # The classifiers keep LIBSVM's layout beside scikit-learn's; both hold the same values.
    coef = np.abs(np.asarray(getattr(model, "_dual_coef_libsvm", model._dual_coef_)))
    largest = float(coef.max()) if coef.size else 0.0
    norms = np.einsum("ij,ij->i", vectors, vectors) if vectors.size else np.zeros(1)
    with np.errstate(over="ignore", invalid="ignore"):
        if kind == "linear":
            kernel = float(norms.max())
        elif kind == "poly":
            kernel = float(np.max(np.abs(gamma * norms + coef0) ** degree))
        else:  # rbf and sigmoid values are within [-1, 1]
            kernel = 1.0
        values = {
            "gamma": abs(float(gamma)),
            "coef0": abs(float(coef0)),
            "support vectors": float(np.max(np.abs(vectors), initial=0.0)),
            "dual coefficients": largest,
            "intercepts": float(np.max(np.abs(model.intercept_), initial=0.0)),
            "kernel values of the support vectors": kernel,
            "kernel values times the dual coefficients": kernel * largest,
        }
    limit = float(np.finfo(np.float32).max)
    for name, value in values.items():
        if not value <= limit:
            raise ValueError(
                f"{type(model).__name__} cannot be exported to ONNX: its {name} reach "
                f"{value:.3g}, beyond float32's range ({limit:.3g}), in which the ONNX SVM "
                "operators compute; rescale the features"
            )


#: float32's machine epsilon, 2⁻²³: the relative rounding of the operators' kernel values and
#: of their sums.
_EPS32 = float(np.finfo(np.float32).eps)
#: The converter warns where ε₃₂ · max S exceeds this fraction of max |f| (S, f: see
#: :func:`_cancellation`; maxima over the support vectors, per decision function). onnxruntime's
#: errors measured 0.1 to 5 ε₃₂ · S(x), so a model below the limit has scores within about
#: 5e-3 of their largest magnitude, and usually far closer: the models of ``tests/test_onnx.py``
#: are at most at 1.5e-4 (a 3-class linear SVC, whose scores agree to 1.2e-5: 1e-4 would warn
#: of it), RBF models at 1e-5 or less; the probe's poly OneClassSVM is at 0.29 (scores off by
#: 3 % of their largest magnitude, 2 labels of 200 flipped), a 3-class linear NuSVC with
#: coefficients of 1.5e3 at 0.2 (a pair's values off by 1 %).
_CANCELLATION_LIMIT = 1e-3
#: The kernel entries (sampled support vectors × support vectors) computed for that estimate.
_CANCELLATION_ENTRIES = 2_000_000


def _cancellation(model: Any, rows: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``(S, f)`` of each decision function of the graph at the dense ``rows``, shape
    ``(n_rows, n_decisions)``: ``f = Σ c_i K(sv_i, x) + ρ`` and the size of its terms,
    ``S = Σ |c_i| |K(sv_i, x)| + |ρ|``. The operators round each term and the partial sums to
    float32, so their error scales with ``ε₃₂ · S``, not with ``|f|``: terms that cancel lose
    digits. A linear model of one decision function is exported as ``w = Σ c_i sv_i``
    (:func:`_decision_column`): its terms are ``w_j x_j``."""
    if hasattr(model, "_pair_weights"):
        weights, intercepts = model._pair_weights(), np.asarray(model._intercept_libsvm)
    else:
        weights, intercepts = model._dual_coef_.T, np.asarray(model.intercept_[:1])
    if model._kernel_params[0] == "linear" and weights.shape[1] == 1:
        w = weights[:, 0] @ _dense_vectors(model)
        terms, magnitudes = rows * w, np.abs(rows * w)
        f, S = terms.sum(axis=1, keepdims=True), magnitudes.sum(axis=1, keepdims=True)
    else:
        kernel = model._kernel_against_support(rows)
        f, S = kernel @ weights, np.abs(kernel) @ np.abs(weights)
    return S + np.abs(intercepts), f + intercepts


def _warn_of_cancellation(model: Any) -> None:
    """Warns where the exported scores may be off by more than ``_CANCELLATION_LIMIT`` of
    their largest magnitude: estimated on (a sample of) the model's own support vectors."""
    vectors = _dense_vectors(model)
    n = vectors.shape[0]
    if n == 0:
        return
    sample = np.unique(np.linspace(0, n - 1, min(n, max(16, _CANCELLATION_ENTRIES // n))))
    S, f = _cancellation(model, vectors[sample.astype(np.intp)])
    rounding, scale = _EPS32 * S.max(axis=0), np.abs(f).max(axis=0)
    ratio = rounding / np.maximum(scale, np.finfo(np.float64).tiny)
    worst = int(np.argmax(ratio))
    if ratio[worst] > _CANCELLATION_LIMIT:
        warn_from_caller(
            f"{type(model).__name__}'s decision values are sums of terms that cancel: on its "
            f"support vectors they reach {scale[worst]:.3g} while the terms' absolute values "
            f"sum to {S[:, worst].max():.3g}. The ONNX SVM operators compute in float32 "
            f"(relative rounding {_EPS32:.2g}), so the exported scores may be off by about "
            f"{rounding[worst]:.2g}, {ratio[worst]:.1g} of their largest magnitude: check them "
            "against the model's before relying on them",
            UserWarning,
            skip=(_SKL2ONNX,),
        )


def _input_shift(model: Any) -> np.ndarray[Any, Any] | None:
    """The vector that :meth:`predict` subtracts from the rows and the support vectors of an
    RBF model far from the origin (``_rbf_shift``), or None."""
    vectors = model.support_vectors_
    if not isinstance(vectors, np.ndarray):
        return None
    return rbf_shift(vectors, model._kernel_params[0])


def _shifted(model: Any, vectors: Any) -> np.ndarray[Any, Any]:
    """Dense support vectors as the graph holds them: less :func:`_input_shift`."""
    shift = _input_shift(model)
    dense = np.asarray(vectors, dtype=np.float64)
    return dense if shift is None else dense - shift


def _kernel_attributes(model: Any, vectors: Any) -> dict[str, Any]:
    """The fitted kernel (as :meth:`predict` uses it, whatever was set since) and the
    support vectors ``vectors``, rows of a dense array (shifted as :meth:`predict` shifts
    them)."""
    kind, gamma, degree, coef0 = model._kernel_params
    return {
        "kernel_type": str(kind).upper(),
        "kernel_params": [float(gamma), float(coef0), float(degree)],
        "support_vectors": _shifted(model, vectors).astype(np.float32).ravel().tolist(),
    }


def _dense_vectors(model: Any, rows: Any = None) -> np.ndarray[Any, Any]:
    """The support vectors as a dense array (in the order ``rows``, when given)."""
    vectors = model.support_vectors_
    dense = vectors.toarray() if sp.issparse(vectors) else np.asarray(vectors)
    return dense if rows is None else dense[rows]


def _with_a_vector_per_class(
    coef: Any, per_class: list[int], vectors: Any, width: int
) -> tuple[Any, list[int], Any]:
    """The classifier's layout with a zero vector (coefficients 0: no term of any decision) for
    each class that has none. ``SVMClassifier`` takes no empty attribute, and onnxruntime 1.18
    aborts the process on a class without vectors (a LIBSVM file may have ``nr_sv 2 0 1``,
    or ``total_sv 0``)."""
    if all(per_class):
        return coef, per_class, vectors
    k = len(per_class)
    width = vectors.shape[1] if vectors.shape[0] else width
    starts = np.concatenate([[0], np.cumsum(per_class)]).astype(int)
    columns, blocks = [], []
    for c in range(k):
        if per_class[c]:
            columns.append(coef[:, starts[c] : starts[c + 1]])
            blocks.append(vectors[starts[c] : starts[c + 1]])
        else:
            columns.append(np.zeros((k - 1, 1)))
            blocks.append(np.zeros((1, width)))
    return np.hstack(columns), [max(n, 1) for n in per_class], np.vstack(blocks)


def _input_width(operator: Any) -> int:
    """The number of features of the graph's input (of the model, where the input leaves it
    open): the width of the zero vector that stands for no support vectors."""
    width = operator.inputs[0].get_second_dimension()
    if isinstance(width, numbers.Integral):
        return int(width)
    return int(getattr(operator.raw_operator, "n_features_in_", 1))


def _float_input(scope: Any, operator: Any, container: Any) -> str:
    """The input rows as float32 (the SVM operators' type), less :func:`_input_shift` (taken
    in float64 first: rows near 1e9 differ in their last float32 digits)."""
    name = str(operator.inputs[0].full_name)
    shift = _input_shift(operator.raw_operator)
    if shift is None:
        if isinstance(operator.inputs[0].type, FloatTensorType):
            return name
        return _cast(scope, container, name, TensorProto.FLOAT)
    if isinstance(operator.inputs[0].type, FloatTensorType):
        warnings.warn(
            f"{type(operator.raw_operator).__name__}'s RBF rows are far from the origin for "
            "their spread, and float32 input rounds them (at 1e9, to multiples of 64): convert "
            "with float64 input, to_onnx(model, X[:1].astype(np.float64))",
            UserWarning,
            stacklevel=2,
        )
    rows = _cast(scope, container, name, TensorProto.DOUBLE)
    center = scope.get_unique_variable_name("rbf_shift")
    container.add_initializer(center, TensorProto.DOUBLE, [len(shift)], shift.tolist())
    difference = _node(scope, container, "Sub", [rows, center])
    return _cast(scope, container, difference, TensorProto.FLOAT)


def _constant(scope: Any, container: Any, base: str, values: Any) -> str:
    array = np.asarray(values)
    name = scope.get_unique_variable_name(base)
    if array.dtype.kind in "US":
        kind = TensorProto.STRING
        flat = [str(v).encode("utf-8") for v in array.ravel()]
    elif array.dtype.kind in "iub":
        kind, flat = TensorProto.INT64, array.astype(np.int64).ravel().tolist()
    else:
        kind, flat = TensorProto.FLOAT, array.astype(np.float32).ravel().tolist()
    container.add_initializer(name, kind, list(array.shape), flat)
    return str(name)


def _node(scope: Any, container: Any, op: str, inputs: list[str], **attrs: Any) -> str:
    out = scope.get_unique_variable_name(op.lower())
    domain = attrs.pop("op_domain", "")
    version = attrs.pop("op_version", 1 if domain == _ML else None)
    extra = {"op_domain": domain, "op_version": version} if domain else {}
    container.add_node(op, inputs, [out], name=scope.get_unique_operator_name(op), **extra, **attrs)
    return str(out)


def _decision_column(
    scope: Any, container: Any, rows: str, model: Any, coef: Any, rho: float, width: int
) -> str:
    """``Σ coef_i K(sv_i, x) + rho`` as an (N, 1) float tensor (``SVMRegressor``). For the
    linear kernel, the one vector ``w = Σ coef_i sv_i`` (summed in float64) with coefficient 1:
    large coefficients that cancel (an SVR at ``C=1e12`` had 1e8, and float32 sums of its
    terms were off by 163 on values of 25) then cancel exactly."""
    vectors = _dense_vectors(model)
    if model._kernel_params[0] == "linear" and np.size(coef):
        w = np.asarray(coef, dtype=np.float64).ravel() @ np.asarray(vectors, dtype=np.float64)
        coef, vectors = np.ones(1), w[np.newaxis, :]
    coef = np.asarray(coef, dtype=np.float32).ravel()
    if coef.size == 0:
        # No support vector (an SVR of constant targets): one zero vector with coefficient 0,
        # as the operator takes no empty attribute.
        coef, vectors = np.zeros(1, dtype=np.float32), np.zeros((1, width))
    return _node(
        scope,
        container,
        "SVMRegressor",
        [rows],
        op_domain=_ML,
        coefficients=coef.tolist(),
        rho=[float(rho)],
        n_supports=int(coef.size),
        post_transform="NONE",
        **_kernel_attributes(model, vectors),
    )


def _labels(model: Any) -> np.ndarray[Any, Any]:
    classes = model.classes_
    if all(isinstance(c, str) for c in classes):
        return np.asarray([str(c) for c in classes])
    integers = all(isinstance(c, (numbers.Integral, bool, np.bool_)) for c in classes) or all(
        isinstance(c, numbers.Real) and float(c).is_integer() for c in classes
    )
    if not integers:
        raise ValueError(
            f"{type(model).__name__}: ONNX class labels must be all integers or all strings, "
            f"got {list(classes)!r}"
        )
    if any(not -(2**63) <= int(c) < 2**63 for c in classes):
        raise ValueError(
            f"{type(model).__name__}: ONNX class labels are int64, got {list(classes)!r}"
        )
    return np.asarray([int(c) for c in classes], dtype=np.int64)


# -- shapes --------------------------------------------------------------------------------


def _classifier_shapes(operator: Any) -> None:
    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    labels = _labels(model)
    operator.outputs[0].type = (
        StringTensorType([n]) if labels.dtype.kind == "U" else Int64TensorType([n])
    )
    k = len(labels)
    columns = k
    if k > 2 and model._probA.size == 0 and model.decision_function_shape == "ovo":
        columns = k * (k - 1) // 2
    operator.outputs[1].type = FloatTensorType([n, columns])


def _regressor_shapes(operator: Any) -> None:
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = FloatTensorType([n, 1])


def _one_class_shapes(operator: Any) -> None:
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = Int64TensorType([n])
    operator.outputs[1].type = FloatTensorType([n, 1])


# -- converters ----------------------------------------------------------------------------


def _convert_classifier(scope: Any, operator: Any, container: Any) -> None:
    model = operator.raw_operator
    _check_model(model)
    _warn_of_cancellation(model)
    rows = _float_input(scope, operator, container)
    labels = _labels(model)
    label_out, score_out = operator.outputs[0].full_name, operator.outputs[1].full_name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # probA_ under scikit-learn 1.9
        prob_a = np.asarray(model.probA_, dtype=np.float64)
        prob_b = np.asarray(model.probB_, dtype=np.float64)
    coef, rho = model._dual_coef_libsvm, model._intercept_libsvm
    width = _input_width(operator)
    # LIBSVM's order of the classes (sorted, or a LIBSVM file's, kernelkit.io), which breaks
    # the vote's ties and decides a pair's decision of exactly 0 (see predict).
    order = getattr(model, "_vote_order", None)
    if len(labels) == 2:
        f = _decision_column(scope, container, rows, model, coef[0], rho[0], width)
        # classes_[0] where f > 0, or f ≥ 0 for a file that has classes_[1] first.
        swapped = order is not None and int(order[0]) == 1
        positive = _node(
            scope,
            container,
            "GreaterOrEqual" if swapped else "Greater",
            [f, _constant(scope, container, "zero", [0.0])],
        )
        # Its index 1 − (f > 0).
        index = _node(
            scope,
            container,
            "Sub",
            [
                _constant(scope, container, "one", np.int64(1)),
                _cast(scope, container, positive, TensorProto.INT64),
            ],
        )
        flat = _node(
            scope,
            container,
            "Reshape",
            [index, _constant(scope, container, "shape", np.array([-1], dtype=np.int64))],
        )
        _gather_labels(scope, container, labels, flat, label_out)
        if prob_a.size:
            z = _node(
                scope,
                container,
                "Add",
                [
                    _node(
                        scope,
                        container,
                        "Mul",
                        [f, _constant(scope, container, "prob_a", prob_a[:1])],
                    ),
                    _constant(scope, container, "prob_b", prob_b[:1]),
                ],
            )
            first = _node(scope, container, "Sigmoid", [_node(scope, container, "Neg", [z])])
            first = _node(
                scope,
                container,
                "Clip",
                [
                    first,
                    _constant(scope, container, "low", np.float32(1e-7)),
                    _constant(scope, container, "high", np.float32(1 - 1e-7)),
                ],
            )
            second = _node(
                scope,
                container,
                "Sub",
                [_constant(scope, container, "one_f", np.float32(1.0)), first],
            )
            columns = [first, second]
        else:
            decision = _node(scope, container, "Neg", [f])
            columns = [f, decision]
        container.add_node(
            "Concat", columns, [score_out], axis=1, name=scope.get_unique_operator_name("Concat")
        )
        return
    # The operators break vote ties and couple in the order of their labels: the model's,
    # whose pairs are put back in sorted order below.
    k = len(labels)
    reordered = order is not None
    visit = np.arange(k) if order is None else np.asarray(order)
    vote = reorder_classes(visit, model.n_support_, coef, rho, prob_a, prob_b)
    vote_coef, per_class, vectors = _with_a_vector_per_class(
        vote.coef, [int(v) for v in vote.n_support], _dense_vectors(model, vote.rows), width
    )
    attributes = {
        "coefficients": vote_coef.astype(np.float32).ravel().tolist(),
        "rho": vote.constant.astype(np.float32).tolist(),
        "vectors_per_class": per_class,
        "post_transform": "NONE",
        **_kernel_attributes(model, vectors),
    }
    if labels.dtype.kind == "U":
        attributes["classlabels_strings"] = labels[visit].tolist()
    else:
        attributes["classlabels_ints"] = labels[visit].tolist()
    # With break_ties (and "ovr") predict is the argmax of decision_function, not the vote.
    argmax_label = bool(model.break_ties) and model.decision_function_shape == "ovr"

    def classifier(outputs: list[str], **platt: Any) -> None:
        """An ``SVMClassifier`` node of the model into ``outputs`` (with Platt's ``prob_a``
        and ``prob_b`` when given)."""
        container.add_node(
            "SVMClassifier",
            [rows],
            outputs,
            op_domain=_ML,
            op_version=1,
            name=scope.get_unique_operator_name("SVMClassifier"),
            **platt,
            **attributes,
        )

    pairwise = scope.get_unique_variable_name("pairwise")
    classifier([scope.get_unique_variable_name("vote") if argmax_label else label_out, pairwise])
    if reordered:
        # The pairs back in the sorted classes' order and orientation.
        pairwise = _node(
            scope,
            container,
            "Mul",
            [
                _node(
                    scope,
                    container,
                    "Gather",
                    [pairwise, _constant(scope, container, "pairs", np.argsort(vote.source))],
                    axis=1,
                ),
                _constant(scope, container, "pair_signs", vote.sign[np.argsort(vote.source)]),
            ],
        )
    if prob_a.size:
        probabilities = scope.get_unique_variable_name("p") if reordered else score_out
        classifier(
            [scope.get_unique_variable_name("vote"), probabilities],
            prob_a=vote.prob_a.astype(np.float32).tolist(),
            prob_b=vote.prob_b.astype(np.float32).tolist(),
        )
        if reordered:
            # The columns back in the sorted classes' order.
            container.add_node(
                "Gather",
                [probabilities, _constant(scope, container, "columns", np.argsort(visit))],
                [score_out],
                axis=1,
                name=scope.get_unique_operator_name("Gather"),
            )
    elif model.decision_function_shape == "ovo":
        container.add_node(
            "Identity", [pairwise], [score_out], name=scope.get_unique_operator_name("Identity")
        )
    else:
        _ovr_scores(scope, container, pairwise, k, score_out)
    if argmax_label:
        ovr = score_out
        if prob_a.size or model.decision_function_shape == "ovo":
            ovr = scope.get_unique_variable_name("ovr")
            _ovr_scores(scope, container, pairwise, k, ovr)
        best = _node(scope, container, "ArgMax", [ovr], axis=1, keepdims=0)
        _gather_labels(scope, container, labels, best, label_out)


def _gather_labels(scope: Any, container: Any, labels: Any, index: str, out: str) -> None:
    """``labels[index]`` into the output ``out`` (``index``: one class index per row)."""
    container.add_node(
        "Gather",
        [_constant(scope, container, "classes", labels), index],
        [out],
        axis=0,
        name=scope.get_unique_operator_name("Gather"),
    )


def _cast(scope: Any, container: Any, name: str, to: int) -> str:
    return _node(scope, container, "Cast", [name], to=to)


def _ovr_scores(scope: Any, container: Any, pairwise: str, k: int, out: str) -> None:
    """scikit-learn's one-vs-rest transform of the pairwise values ``v`` (pair (a, b), a < b):
    votes (a where ``v ≥ 0``, b elsewhere) plus ``c / (3 (|c| + 1))`` with ``c`` the
    confidence sums (``+v`` for a, ``−v`` for b), as matrix products."""
    first, second = np.zeros((k * (k - 1) // 2, k)), np.zeros((k * (k - 1) // 2, k))
    pair = 0
    for a in range(k):
        for b in range(a + 1, k):
            first[pair, a], second[pair, b] = 1.0, 1.0
            pair += 1
    zero = _constant(scope, container, "zero", np.float32(0.0))
    wins = _cast(
        scope,
        container,
        _node(scope, container, "GreaterOrEqual", [pairwise, zero]),
        TensorProto.FLOAT,
    )
    losses = _cast(
        scope, container, _node(scope, container, "Less", [pairwise, zero]), TensorProto.FLOAT
    )
    votes = _node(
        scope,
        container,
        "Add",
        [
            _node(scope, container, "MatMul", [wins, _constant(scope, container, "first", first)]),
            _node(
                scope, container, "MatMul", [losses, _constant(scope, container, "second", second)]
            ),
        ],
    )
    confidence = _node(
        scope, container, "MatMul", [pairwise, _constant(scope, container, "signs", first - second)]
    )
    scale = _node(
        scope,
        container,
        "Mul",
        [
            _constant(scope, container, "three", np.float32(3.0)),
            _node(
                scope,
                container,
                "Add",
                [
                    _node(scope, container, "Abs", [confidence]),
                    _constant(scope, container, "one_f", np.float32(1.0)),
                ],
            ),
        ],
    )
    squashed = _node(scope, container, "Div", [confidence, scale])
    container.add_node("Add", [votes, squashed], [out], name=scope.get_unique_operator_name("Add"))


def _single_decision(scope: Any, operator: Any, container: Any, output: int) -> str:
    """``Σ dual_coef_ K(sv, x) + intercept_`` of a one-problem model (SVR, NuSVR,
    OneClassSVM), written to the operator's output ``output`` as well."""
    model = operator.raw_operator
    _check_model(model)
    _warn_of_cancellation(model)
    rows = _float_input(scope, operator, container)
    value = _decision_column(
        scope,
        container,
        rows,
        model,
        model._dual_coef_[0],
        model.intercept_[0],
        _input_width(operator),
    )
    container.add_node(
        "Identity",
        [value],
        [operator.outputs[output].full_name],
        name=scope.get_unique_operator_name("Identity"),
    )
    return value


def _convert_regressor(scope: Any, operator: Any, container: Any) -> None:
    _single_decision(scope, operator, container, 0)


def _convert_one_class(scope: Any, operator: Any, container: Any) -> None:
    decision = _single_decision(scope, operator, container, 1)
    inlier = _node(
        scope,
        container,
        "Greater",
        [decision, _constant(scope, container, "zero", np.float32(0.0))],
    )
    sign = _node(
        scope,
        container,
        "Where",
        [
            inlier,
            _constant(scope, container, "plus", np.int64(1)),
            _constant(scope, container, "minus", np.int64(-1)),
        ],
    )
    container.add_node(
        "Reshape",
        [sign, _constant(scope, container, "shape", np.array([-1], dtype=np.int64))],
        [operator.outputs[0].full_name],
        name=scope.get_unique_operator_name("Reshape"),
    )


_CLASSIFIER_OPTIONS = {"zipmap": [True, False, "columns"], "nocl": [True, False]}


def _parse_classifier(scope: Any, model: Any, inputs: Any, custom_parsers: Any = None) -> Any:
    """skl2onnx's own classifier parser, after the check of the model: the parser reads
    ``classes_`` first, and of an unfitted model it raised "No known ways to retrieve the
    number of classes" where the regressors raise ``NotFittedError``."""
    _check_model(model)
    return _parse_sklearn_classifier(scope, model, inputs, custom_parsers=custom_parsers)


def register() -> None:
    """Registers the converters with skl2onnx (done when this module is imported; calling it
    again is harmless)."""
    classifiers: list[tuple[type, str]] = [(SVC, "KernelkitSVC"), (NuSVC, "KernelkitNuSVC")]
    for model, alias in classifiers:
        update_registered_converter(
            model,
            alias,
            _classifier_shapes,
            _convert_classifier,
            parser=_parse_classifier,
            options=_CLASSIFIER_OPTIONS,
        )
    regressors: list[tuple[type, str]] = [(SVR, "KernelkitSVR"), (NuSVR, "KernelkitNuSVR")]
    for model, alias in regressors:
        update_registered_converter(model, alias, _regressor_shapes, _convert_regressor)
    update_registered_converter(
        OneClassSVM, "KernelkitOneClassSVM", _one_class_shapes, _convert_one_class
    )


register()
