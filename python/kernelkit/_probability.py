"""Probability estimates of the SVM classifiers (``probability=True``), as LIBSVM makes them.

Two steps, both from papers (the constants are LIBSVM's, Chang & Lin 2011, §8):

1. **Platt scaling of each pair** (Platt 2000, with the improvements of Lin, Lin & Weng 2007).
   The decision values ``f_i`` of the pair's rows come from a 5-fold cross-validation (each
   fold's values from a model trained on the other four folds, so they are not biased towards
   the training labels), and ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` is fitted by minimising
   the cross-entropy against Platt's smoothed targets ``t_i = (N₊ + 1)/(N₊ + 2)`` for positives
   and ``1/(N₋ + 2)`` for negatives:

   ``F(A, B) = Σ_i t_i z_i + log(1 + exp(−z_i)),   z_i = A f_i + B``

   (the stable form of ``−Σ t_i log p_i + (1 − t_i) log(1 − p_i)``, Lin, Lin & Weng eq. (10)),
   by Newton's method on the Hessian plus ``σ = 1e-12`` times the identity, with a backtracking
   line search (sufficient decrease ``1e-4``, steps halved down to ``1e-10``), from ``A = 0``,
   ``B = log((N₋ + 1)/(N₊ + 1))``, until both gradient components are below ``1e-5`` or after
   100 iterations (their Algorithm 1).

2. **Pairwise coupling** for more than two classes (Wu, Lin & Weng 2004, method 2): with
   ``r_ij`` the pair (i, j)'s estimate of ``P(i | i or j)`` (SVC and NuSVC clip theirs to
   ``[1e-7, 1 − 1e-7]``, as LIBSVM does; the coupling itself takes any value in ``[0, 1]``),
   the class probabilities solve

   ``min_p  pᵀ Q p   s.t.  Σ p = 1,  p ≥ 0,   Q_tt = Σ_{s≠t} r_st²,  Q_ts = −r_st r_ts``

   (their eq. (19)), by their fixed-point iteration (eq. (21)): each ``p_t`` in turn becomes
   ``(pᵀQp − Σ_{s≠t} Q_ts p_s) / Q_tt`` and ``p`` is renormalised, until
   ``max_t |(Qp)_t − pᵀQp| < 0.005 / k`` or after ``max(100, k)`` sweeps. Here ``Qp`` and
   ``pᵀQp`` are updated in ``O(k)`` after each coordinate, and all rows are iterated at once,
   each frozen once it meets the stopping rule.

   LIBSVM takes the step as a change ``δ = (pᵀQp − (Qp)_t) / Q_tt`` of ``p_t`` followed by a
   division by ``1 + δ``; the same point is ``p ← (1 − w) p + w e_t`` with
   ``w = δ / (1 + δ) = (pᵀQp − (Qp)_t) / (Q_tt + pᵀQp − (Qp)_t)``, and then
   ``Qp ← (1 − w) Qp + w Q_{·t}`` and ``pᵀQp ← (1 − w)² pᵀQp + 2w(1 − w)(Qp)_t + w² Q_tt``.
   kernelkit computes that form, which does not divide by ``Q_tt``. ``Q_tt = Σ_{s≠t} r_st²``
   is 0 where class ``t`` wins each of its pairs with probability exactly 1, as a logistic
   model's unclipped ``σ(d)`` does in double precision for ``|d|`` beyond about 37
   (:mod:`kernelkit._klr_multiclass`); LIBSVM's ``δ`` is then infinite and the iterate NaN,
   and for ``Q_tt`` below about 1e-154 ``δ²`` overflows. The limit is well defined: ``pᵀQp``
   is ``Σ_{i<j} (r_ji p_i − r_ij p_j)²``, each pair that ``t`` wins surely contributes
   ``p_s²``, so ``e_t`` is the only point where it is 0, the optimum, and the step reaches it
   (``w = 1``, after which ``Qp = 0`` and the stopping rule holds). The denominator is
   ``Q_tt (1 + δ) = Q_tt (1 − p_t) + pᵀQp − Σ_{s≠t} Q_ts p_s``, a sum of non-negative terms;
   where it is 0 (``Q_tt = 0`` and ``pᵀQp = 0``: ``p`` is already ``e_t``) the step is
   skipped (``w = 0``).

**Where kernelkit departs from LIBSVM: a ν-SVC fold.** A fold holds four fifths of a pair's
rows, so a ``ν`` that the pair can carry (``ν Σw / 2`` at most the smaller class's weight) may be
too large for a fold's smaller class. LIBSVM trains the folds without ``svm_check_parameter``:
its greedy start puts that class at its bounds, the class has no free variable left, and its
offset ``r`` is the midpoint of an interval unbounded on one side, so the fold's ``ρ`` is NaN,
every held-out value of the fold is NaN, and the pair's sigmoid comes out flat (``A = 0``):
scikit-learn's estimates for that pair are one constant, whatever the row (measured: 80 of 400
rows in the smaller class, ``ν = 0.39``, ``probA_ = [0.]``). kernelkit solves the same fold
(``capped``: that class's sum ``min(ν Σw / 2, Σ_class w)``, the class at its bounds) with the
finite end of that interval as the class's offset (``calculate_rho`` in the core), so the
fold's values stay informative (``tests/test_probability.py``: the solve against cvxpy +
Clarabel, and a held-out log-loss below that of the class shares and of scikit-learn's).

A ν-SVC fold may also have no scale: where ``ν`` is beyond what the rows separate, the optimum's
``r`` (the primal's margin ρ, with ``ρν = ‖w‖² + Σξ/l``) is 0, so ``w = 0`` and the fold's model
is the zero function, and the solve returns an ``r`` of the order of its rounding, of either
sign (a linear kernel on heart, ``ν = 0.1``: ``r = −1.9e-5``). LIBSVM divides by it; kernelkit
raised "invalid nu" for a negative one, though the model of the same ``ν`` fits. Now a fold whose
``r`` is not positive decides 0 for its held-out rows (the zero function; ``nu_svc_capped`` in
the core), where LIBSVM's division would flip its sign. A positive ``r`` is divided by, however
small: the sigmoid takes any scale, and such a fold can still order its rows (RBF, labels 15 %
flipped, ``ν = 0.2``: every fold's ``r`` 1.4e-4 to 2.9e-4, below the default ``tol``, and each
fold 77–80 % right on its held-out rows). An earlier rule zeroed every fold with ``r ≤ tol``
and made such estimates flat (log-loss log 2 against scikit-learn's 0.602). On the linear cases
where every fold's ``r`` is near 0 the estimates are, on heart, within the issue's bounds of
scikit-learn's, and on a generated case better than both the classes' shares and
scikit-learn's, whose flipped folds cost it (held-out log-loss 0.595, 0.694 and 0.641;
``tests/test_probability.py``).

References: J. Platt, "Probabilistic outputs for support vector machines and comparisons to
regularized likelihood methods", 2000. H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's
probabilistic outputs for support vector machines", Machine Learning 68, 2007. T.-F. Wu,
C.-J. Lin and R. C. Weng, "Probability estimates for multi-class classification by pairwise
coupling", JMLR 5, 2004.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import numpy as np
import sklearn.svm
from numpy.typing import NDArray
from scipy.special import expit
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if as _untyped_available_if

from . import _core
from ._docstrings import shared_docstrings
from ._warn import warn_from_caller
from .exceptions import ConvergenceWarning

__all__ = [
    "FOLDS",
    "MIN_PAIR_PROBABILITY",
    "PROBABILITY_DEFAULT",
    "PairPositions",
    "ProbabilityMixin",
    "couple_pairwise",
    "fit_sigmoid",
    "fold_of_positions",
    "matching_default",
    "pair_probability",
]

Float64Array = NDArray[np.float64]
_Method = TypeVar("_Method", bound=Callable[..., Any])
#: scikit-learn's ``available_if`` (the method exists only where the check passes), typed.
available_if: Callable[[Callable[[Any], bool]], Callable[[_Method], _Method]] = (
    _untyped_available_if
)

#: Folds of the cross-validation that gives each pair's decision values.
FOLDS = 5
#: Pairwise probabilities are kept in ``[MIN_PAIR_PROBABILITY, 1 − MIN_PAIR_PROBABILITY]``.
MIN_PAIR_PROBABILITY = 1e-7

_MAX_NEWTON_ITERATIONS = 100
_MIN_STEP = 1e-10
_HESSIAN_RIDGE = 1e-12
_GRADIENT_TOL = 1e-5
_SUFFICIENT_DECREASE = 1e-4


def fold_of_positions(n: int, rng: np.random.RandomState) -> NDArray[np.intp]:
    """The fold (0 to ``FOLDS − 1``) of each of ``n`` positions: a random permutation cut into
    ``FOLDS`` consecutive runs of ``⌊(f+1) n / FOLDS⌋ − ⌊f n / FOLDS⌋`` positions."""
    fold = np.empty(n, dtype=np.intp)
    order = rng.permutation(n)
    for f in range(FOLDS):
        fold[order[f * n // FOLDS : (f + 1) * n // FOLDS]] = f
    return fold


def _cross_entropy(z: Float64Array, targets: Float64Array) -> float:
    return float(np.sum(targets * z + np.logaddexp(0.0, -z)))


def fit_sigmoid(decision: Float64Array, positive: NDArray[np.bool_]) -> tuple[float, float]:
    """``(A, B)`` of ``P(+1 | f) = 1 / (1 + exp(A f + B))`` fitted to the decision values
    ``decision`` of rows whose label is positive where ``positive`` (see the module doc)."""
    f = np.asarray(decision, dtype=np.float64)
    n_positive = int(np.count_nonzero(positive))
    n_negative = len(f) - n_positive
    targets = np.where(positive, (n_positive + 1.0) / (n_positive + 2.0), 1.0 / (n_negative + 2.0))
    a, b = 0.0, float(np.log((n_negative + 1.0) / (n_positive + 1.0)))
    value = _cross_entropy(a * f + b, targets)
    for _ in range(_MAX_NEWTON_ITERATIONS):
        z = a * f + b
        p = expit(-z)  # P(+1 | f)
        # ∂F/∂z = t − p and ∂²F/∂z² = p (1 − p).
        residual = targets - p
        curvature = p * (1.0 - p)
        g_a, g_b = float(f @ residual), float(np.sum(residual))
        if abs(g_a) < _GRADIENT_TOL and abs(g_b) < _GRADIENT_TOL:
            break
        h_aa = float(f * f @ curvature) + _HESSIAN_RIDGE
        h_bb = float(np.sum(curvature)) + _HESSIAN_RIDGE
        h_ab = float(f @ curvature)
        det = h_aa * h_bb - h_ab * h_ab
        # The Newton direction −H⁻¹ g.
        d_a = -(h_bb * g_a - h_ab * g_b) / det
        d_b = -(h_aa * g_b - h_ab * g_a) / det
        slope = g_a * d_a + g_b * d_b
        step = 1.0
        while step >= _MIN_STEP:
            new_a, new_b = a + step * d_a, b + step * d_b
            new_value = _cross_entropy(new_a * f + new_b, targets)
            if new_value < value + _SUFFICIENT_DECREASE * step * slope:
                a, b, value = new_a, new_b, new_value
                break
            step /= 2.0
        else:
            # No step decreases F enough: (A, B) is as good as this precision allows.
            break
    return a, b


def pair_probability(
    decision: Float64Array, a: float | Float64Array, b: float | Float64Array
) -> Float64Array:
    """``P(+1 | f)`` of the fitted sigmoid, clipped to ``[1e-7, 1 − 1e-7]`` (``a`` and ``b``
    broadcast against ``decision``: one column per pair)."""
    probability: Float64Array = np.clip(
        expit(-(a * decision + b)), MIN_PAIR_PROBABILITY, 1.0 - MIN_PAIR_PROBABILITY
    )
    return probability


def couple_pairwise(
    pairwise: Float64Array, n_classes: int, order: NDArray[np.intp] | None = None
) -> Float64Array:
    """Class probabilities, shape ``(n, k)``, from pairwise estimates ``pairwise`` of shape
    ``(n, k (k − 1) / 2)``: column ``(a, b)`` (``a < b``, in order) holds ``P(a | a or b)``.
    Wu, Lin & Weng's method 2 (see the module doc), its sweeps visiting the classes in
    ``order`` (default ``0, …, k − 1``): the iteration stops before the exact optimum, so the
    order changes the result within the stopping rule."""
    k = n_classes
    n = pairwise.shape[0]
    visit = np.arange(k) if order is None else np.asarray(order)
    position = np.empty(k, dtype=np.intp)
    position[visit] = np.arange(k)
    # r[s, t]: P(class visit[s] | visit[s] or visit[t]).
    r = np.zeros((n, k, k))
    column = 0
    for a in range(k):
        for b in range(a + 1, k):
            r[:, position[a], position[b]] = pairwise[:, column]
            r[:, position[b], position[a]] = 1.0 - pairwise[:, column]
            column += 1
    # Q_tt = Σ_{s≠t} r_st², Q_ts = −r_st r_ts (r_tt = 0 makes the diagonal of the product 0).
    q = -r.transpose(0, 2, 1) * r
    diagonal = np.einsum("nst,nst->nt", r, r)
    q[:, np.arange(k), np.arange(k)] = diagonal
    p = np.full((n, k), 1.0 / k)
    qp = np.einsum("nts,ns->nt", q, p)
    pqp = np.einsum("nt,nt->n", p, qp)
    tolerance = 0.005 / k
    active = np.arange(n)
    for _ in range(max(100, k)):
        error = np.max(np.abs(qp[active] - pqp[active, None]), axis=1)
        active = active[error >= tolerance]
        if len(active) == 0:
            break
        pa, qpa, pqpa, qa = p[active], qp[active], pqp[active], q[active]
        for t in range(k):
            # LIBSVM's step δ = (pᵀQp − (Qp)_t) / Q_tt followed by the division by 1 + δ, as
            # the move p ← (1 − w) p + w e_t with w = δ / (1 + δ), which never divides by Q_tt
            # (0 where class t wins each of its pairs with probability exactly 1).
            q_tt = qa[:, t, t]
            gain = pqpa - qpa[:, t]
            denominator = q_tt + gain
            w = np.divide(gain, denominator, out=np.zeros_like(gain), where=denominator > 0)
            keep = 1.0 - w
            pqpa = keep * keep * pqpa + w * (2.0 * keep * qpa[:, t] + w * q_tt)
            qpa = keep[:, None] * qpa + w[:, None] * qa[:, :, t]
            pa *= keep[:, None]
            pa[:, t] += w
        p[active], qp[active], pqp[active] = pa, qpa, pqpa
    probability: Float64Array = p[:, position]
    return probability


#: The installed scikit-learn's default of ``SVC(probability=...)``: ``False``, or from
#: scikit-learn 1.9 on the sentinel ``"deprecated"`` (any other value then warns at fit).
PROBABILITY_DEFAULT: bool | str = (
    inspect.signature(sklearn.svm.SVC).parameters["probability"].default
)
_DEPRECATED = PROBABILITY_DEFAULT == "deprecated"


def matching_default(doc: str | None) -> str | None:
    """A class docstring whose ``probability`` entry states the installed scikit-learn's
    default (the docstrings are written with scikit-learn < 1.9's ``False``)."""
    if doc is None or not _DEPRECATED:
        return doc
    # Any indentation: Python 3.13 strips the docstring's common leading whitespace.
    return re.sub(
        r"^(\s*)probability : bool, default=False$",
        r'\1probability : bool or "deprecated", default="deprecated"',
        doc,
        flags=re.MULTILINE,
    )


class PairPositions(NamedTuple):
    """The rows of X in one pair's dual problem (positive weight only) and their signs (+1 for
    the pair's first class), sample weights and class weights."""

    positions: NDArray[np.intp]
    signs: Float64Array
    sample_weights: Float64Array
    class_weights: Float64Array


#: ``solve(pair, training positions, n_jobs, stop, description)`` → the support rows (rows of
#: X), their coefficients ``y_t α_t``, the bias of the fold's model and its solve's status.
FoldSolve = Callable[
    [PairPositions, NDArray[np.bool_], "int | None", "_core.StopFlag | None", str],
    tuple[NDArray[np.intp], Float64Array, float, str],
]
#: ``decide(rows, support rows, coefficients, n_jobs)`` → ``K(X[rows], X[support]) @ coef``.
FoldDecide = Callable[
    [NDArray[np.intp], NDArray[np.intp], Float64Array, "int | None"], Float64Array
]


@shared_docstrings
class ProbabilityMixin:
    """``probability=True`` for :class:`~kernelkit.SVC` and :class:`~kernelkit.NuSVC`, with
    scikit-learn's semantics: ``predict_proba`` and ``predict_log_proba`` exist exactly when
    ``probability`` is true (an ``AttributeError`` otherwise), ``probA_`` and ``probB_`` hold
    the sigmoids of the pairs (empty arrays without), and the parameter's default and
    deprecation warning are those of the installed scikit-learn."""

    #: False for a subclass without the ``probability`` parameter (``FrankWolfeSVC``).
    _offers_probability = True
    probability: bool | str
    random_state: Any
    classes_: NDArray[Any]
    _probA: Float64Array
    _probB: Float64Array

    def _check_probability(self) -> bool:
        """Validates ``probability`` and says whether this fit estimates probabilities,
        warning as the installed scikit-learn does when it deprecates the parameter."""
        if not self._offers_probability:
            return False
        value = self.probability
        if _DEPRECATED and isinstance(value, str) and value == "deprecated":
            return False
        if not isinstance(value, (bool, np.bool_)):
            allowed = "a bool or 'deprecated'" if _DEPRECATED else "a bool"
            raise ValueError(f"probability must be {allowed}, got {value!r}")
        if _DEPRECATED:
            name = type(self).__name__
            warn_from_caller(
                # scikit-learn's words, so that a filter written for its warning takes this
                # one too (with the estimator's own name: scikit-learn's says SVC for NuSVC).
                "The `probability` parameter was deprecated in 1.9 and will be removed in "
                f"version 1.11. Use `CalibratedClassifierCV({name}(), ensemble=False)` instead "
                f"of `{name}(probability=True)`",
                FutureWarning,
            )
        return bool(value)

    def _fit_sigmoids(
        self,
        pairs: Sequence[PairPositions],
        solve: FoldSolve,
        decide: FoldDecide,
        run_in_parallel: Callable[..., list[Float64Array]],
        label: Callable[[int], str],
    ) -> tuple[Float64Array, Float64Array, list[str]]:
        """``(probA, probB, statuses)``: the sigmoid of each pair, fitted to decision values
        from a 5-fold cross-validation of the pair's problem (see the module doc), and the
        status of each fold's solve that stopped before convergence (``max_iter``,
        ``time_limit``, the callback: warned, and ``fit_status_`` 1). The folds are drawn from
        ``random_state``, pair after pair, before any solve, so that they do not depend on the
        thread count; the 5 · n_pairs solves run as the pairs do (``run_in_parallel``)."""
        rng = check_random_state(self.random_state)
        folds = [fold_of_positions(len(pair.positions), rng) for pair in pairs]
        tasks = [(p, f) for p in range(len(pairs)) for f in range(FOLDS)]
        statuses: dict[tuple[int, int], str] = {}

        def held_out_decisions(
            task: tuple[int, int], n_jobs: int | None, stop: _core.StopFlag | None
        ) -> Float64Array:
            p, f = task
            pair, train = pairs[p], folds[p] != f
            test_rows = pair.positions[~train]
            trained = pair.signs[train]
            has_positive, has_negative = bool(np.any(trained > 0)), bool(np.any(trained < 0))
            if not (has_positive and has_negative):
                # A fold trained on one class (or none) decides for it everywhere (LIBSVM).
                value = 1.0 if has_positive else -1.0 if has_negative else 0.0
                return np.full(len(test_rows), value)
            description = f"{label(p)}, probability fold {f + 1}/{FOLDS}"
            support, coef, bias, status = solve(pair, train, n_jobs, stop, description)
            statuses[task] = status  # one key per task: no two threads write the same
            return decide(test_rows, support, coef, n_jobs) + bias

        held_out = run_in_parallel(tasks, held_out_decisions)
        prob_a, prob_b = np.empty(len(pairs)), np.empty(len(pairs))
        for p, pair in enumerate(pairs):
            decision = np.empty(len(pair.positions))
            for f in range(FOLDS):
                decision[folds[p] == f] = held_out[p * FOLDS + f]
            prob_a[p], prob_b[p] = fit_sigmoid(decision, pair.signs > 0)
        stopped = [
            (task, status)
            for task, status in sorted(statuses.items())
            if status not in ("converged", "not_convex")
        ]
        if stopped:
            (p, f), status = stopped[0]
            warn_from_caller(
                f"{len(stopped)} of the probability estimates' {len(statuses)} fold solves "
                f"stopped before convergence (the first: {label(p)}, fold {f + 1}/{FOLDS}, "
                f"{status}); probA_ and probB_ are fitted to those folds' last iterates. Raise "
                "max_iter / time_limit, or check the callback.",
                ConvergenceWarning,
            )
        return prob_a, prob_b, [status for _, status in stopped]

    if TYPE_CHECKING:  # provided by SVC and the SVM base

        def _pairwise_decision(self, X: Any) -> Float64Array: ...

        def _check_predict_input(self, X: Any) -> Any: ...

    def _check_proba(self) -> bool:
        value = getattr(self, "probability", False) if self._offers_probability else False
        if (isinstance(value, str) and value == "deprecated") or not value:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X: Any) -> Float64Array:
        """Probability of each class for the samples in X (``probability=True`` only).

        Each pair's LIBSVM decision value goes through the pair's sigmoid ``probA_``,
        ``probB_`` (Platt scaling fitted on 5-fold cross-validated decision values), and for
        more than two classes the pairwise probabilities are coupled by Wu, Lin & Weng's
        method 2, as LIBSVM and scikit-learn do. Two classes take the sigmoid itself, as
        LIBSVM (3.2 and later) does; scikit-learn's older bundled LIBSVM runs the coupling's
        iterations there too, which moves the estimates by up to about 4e-3.

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The probability of each class, columns in the order of ``classes_``.

        Notes
        -----
        The sigmoids are fitted on cross-validated decision values, so the class of largest
        probability can differ from :meth:`predict` (the vote of the decision values) on a
        few rows, and on very small training sets the estimates mean little.
        """
        X_checked = self._check_predict_input(X)
        if self._probA.size == 0 or self._probB.size == 0:
            raise NotFittedError(
                "predict_proba is not available when fitted with probability=False"
            )
        decision = self._pairwise_decision(X_checked)
        pairwise = pair_probability(decision, self._probA[None, :], self._probB[None, :])
        if len(self.classes_) == 2:
            return np.column_stack([pairwise[:, 0], 1.0 - pairwise[:, 0]])
        # The coupling's sweeps visit the classes in LIBSVM's order: sorted, or that of the
        # LIBSVM model file the model was read from (``kernelkit.io``).
        return couple_pairwise(pairwise, len(self.classes_), getattr(self, "_vote_order", None))

    @available_if(_check_proba)
    def predict_log_proba(self, X: Any) -> Float64Array:
        """Logarithm of :meth:`predict_proba` (``probability=True`` only).

        {{predict: Parameters}}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The log-probability of each class, columns in the order of ``classes_``.
        """
        log_probability: Float64Array = np.log(self.predict_proba(X))
        return log_probability

    @property
    def probA_(self) -> Float64Array:
        """The ``A`` of each pair's sigmoid ``1 / (1 + exp(A f + B))``.

        An ndarray of shape (n_classes * (n_classes - 1) / 2,), one value per pair of classes,
        fitted with ``probability=True``; an empty array otherwise.
        """
        return self._platt_parameter("probA_", "_probA")

    @property
    def probB_(self) -> Float64Array:
        """The ``B`` of each pair's sigmoid, as :attr:`probA_` holds the ``A``."""
        return self._platt_parameter("probB_", "_probB")

    def _platt_parameter(self, name: str, stored: str) -> Float64Array:
        if not self._offers_probability:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value: Float64Array = getattr(self, stored)
        _warn_deprecated_attribute(name)
        return value


def _warn_deprecated_attribute(name: str) -> None:
    if _DEPRECATED:
        warn_from_caller(
            f"Attribute `{name}` was deprecated in version 1.9 and will be removed in 1.11 as "
            "the `probability=True` option for SVC and NuSVC was deprecated and will be "
            "removed in 1.11.",
            FutureWarning,
        )
