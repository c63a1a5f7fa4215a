"""Identical training rows with the same label solved as one C-SVC dual variable
(``kernelkit._duplicates``): the reduced problem is the same dual, checked against LIBSVM
(scikit-learn) and against the KKT conditions of the full problem in NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from kk_oracles import gram_for, rel_diff, svc_dual_objective, svc_pair_kkt, svc_pairs, svc_upper
from numpy.typing import NDArray
from sklearn.svm import SVC as SklearnSVC

from kernelkit import SVC, NuSVC, _core
from kernelkit._duplicates import MIN_ROWS, RowGroups, group_rows
from kernelkit._sparse import to_core_rows

Array = NDArray[np.float64]


def _repeated_data(
    n: int, n_distinct: int, n_classes: int, seed: int, sparse_rows: bool = False
) -> tuple[Array, NDArray[np.int64]]:
    """``n`` rows drawn from ``n_distinct`` categorical prototypes; each prototype's label
    follows a rule, and one row in eight has another label (repeats with differing labels)."""
    rng = np.random.default_rng(seed)
    prototypes = rng.integers(0, 3, size=(n_distinct, 6)).astype(np.float64)
    if sparse_rows:
        prototypes *= rng.random((n_distinct, 6)) < 0.3
    rule = prototypes @ rng.normal(size=6)
    prototype_label = np.digitize(rule, np.quantile(rule, np.linspace(0, 1, n_classes + 1)[1:-1]))
    which = rng.integers(0, n_distinct, size=n)
    y = prototype_label[which]
    flipped = rng.random(n) < 0.125
    y[flipped] = rng.integers(0, n_classes, size=int(flipped.sum()))
    return prototypes[which], y.astype(np.int64)


def _members_within_bounds(model: Any, X: Array, y: NDArray[Any], upper: Array) -> None:
    """Every coefficient within its bound, and within each group of identical rows with the
    same label at most one member strictly between 0 and its bound (the fill of the split)."""
    for pair in svc_pairs(model, y):
        assert np.all(pair.alpha <= upper[pair.rows] * (1 + 1e-12))
        _, group = np.unique(np.column_stack([X[pair.rows], pair.s]), axis=0, return_inverse=True)
        free = (pair.alpha > 0) & (pair.alpha < upper[pair.rows])
        assert np.bincount(group.ravel(), weights=free).max() <= 1


@pytest.mark.parametrize("tol", [1e-3, 1e-6])
def test_binary_repeats_solve_libsvm_dual(tol: float) -> None:
    X, y = _repeated_data(3000, 250, 2, seed=0)
    params: dict[str, Any] = {"C": 2.0, "gamma": 0.3, "tol": tol}
    model = SVC(**params).fit(X, y)
    reference = SklearnSVC(**params).fit(X, y)
    n_groups = len(np.unique(np.column_stack([X, y]), axis=0))
    assert model.solver_stats_[0]["dual_variables"] == n_groups < 0.2 * len(y)
    gram = gram_for(model, X)
    (pair,), (ref_pair,) = svc_pairs(model, y), svc_pairs(reference, y)
    objective = svc_dual_objective(pair, gram)
    # Both stop at a KKT violation below tol of the same problem.
    assert rel_diff(objective, svc_dual_objective(ref_pair, gram)) <= 20 * tol**2 + 1e-9
    assert rel_diff(objective, float(model.objective_[0])) <= 1e-6
    upper = svc_upper(model, y, params["C"])
    kkt = svc_pair_kkt(pair, gram, upper)
    assert kkt.within(tol), kkt
    # Both intercepts lie in the same interval of optimal biases, up to tol and f32 rounding.
    assert abs(model.intercept_[0] - reference.intercept_[0]) <= 2 * tol + 2e-4
    _members_within_bounds(model, X, y, upper)
    assert np.mean(model.predict(X) == reference.predict(X)) >= 0.995


def test_multiclass_repeats_with_weights_match_libsvm_per_pair() -> None:
    X, y = _repeated_data(4000, 300, 3, seed=1)
    rng = np.random.default_rng(2)
    sample_weight = rng.choice([0.0, 0.5, 1.0, 3.0], size=len(y), p=[0.05, 0.25, 0.5, 0.2])
    params: dict[str, Any] = {
        "C": 0.7,
        "gamma": 0.2,
        "tol": 1e-6,
        "class_weight": {0: 1.0, 1: 2.0, 2: 0.5},
    }
    model = SVC(**params).fit(X, y, sample_weight=sample_weight)
    # scikit-learn's support_ indexes the rows of positive weight: fit it on those alone.
    positive = sample_weight > 0
    reference = SklearnSVC(**params).fit(
        X[positive], y[positive], sample_weight=sample_weight[positive]
    )
    assert all(s["dual_variables"] < 0.2 * len(y) for s in model.solver_stats_)
    gram, ref_gram = gram_for(model, X), gram_for(model, X[positive])
    upper = svc_upper(model, y, params["C"], sample_weight)
    ref_pairs = svc_pairs(reference, y[positive])
    for pair, ref_pair in zip(svc_pairs(model, y), ref_pairs, strict=True):
        objective, ref_objective = (
            svc_dual_objective(pair, gram),
            svc_dual_objective(ref_pair, ref_gram),
        )
        assert rel_diff(objective, ref_objective) < 1e-8
        # Rows of weight 0 are not in the problem: the KKT check runs over the others.
        kept = sample_weight[pair.rows] > 0
        assert not np.any(pair.alpha[~kept])
        pair.rows, pair.s, pair.alpha = pair.rows[kept], pair.s[kept], pair.alpha[kept]
        assert svc_pair_kkt(pair, gram, upper).within(1e-6)
    _members_within_bounds(model, X, y, upper)
    np.testing.assert_allclose(
        model.decision_function(X), reference.decision_function(X), atol=1e-3
    )


def test_sparse_rows_are_grouped_as_the_dense_rows() -> None:
    X, y = _repeated_data(2500, 200, 2, seed=3, sparse_rows=True)
    dense = SVC(gamma=0.5).fit(X, y)
    sparse = SVC(gamma=0.5).fit(sp.csr_matrix(X), y)
    assert dense.solver_stats_[0]["dual_variables"] < 0.2 * len(y)
    assert sparse.solver_stats_[0]["dual_variables"] == dense.solver_stats_[0]["dual_variables"]
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_allclose(sparse.dual_coef_.toarray(), dense.dual_coef_, rtol=1e-6)


def test_small_or_mostly_distinct_problems_keep_libsvm_path() -> None:
    X, y = _repeated_data(MIN_ROWS - 1, 100, 2, seed=4)
    model = SVC(gamma=0.5).fit(X, y)
    reference = SklearnSVC(gamma=0.5).fit(X, y)
    assert model.solver_stats_[0]["dual_variables"] == len(y)
    np.testing.assert_array_equal(model.support_, reference.support_)
    np.testing.assert_allclose(model.dual_coef_, reference.dual_coef_, rtol=1e-9, atol=1e-12)
    # Few repeats among many distinct rows: not worth a different path either.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 4))
    X[1000:1050] = X[:50]
    y = (X[:, 0] > 0).astype(int)
    assert SVC().fit(X, y).solver_stats_[0]["dual_variables"] == len(y)


def test_nu_svc_keeps_every_row() -> None:
    X, y = _repeated_data(2000, 100, 2, seed=6)
    assert NuSVC(nu=0.3, gamma=0.5).fit(X, y).solver_stats_[0]["dual_variables"] == len(y)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_first_occurrences_match_numpy(n_jobs: int) -> None:
    # Rows are hashed in parallel chunks of 1,024: 5,000 rows make several.
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(5000, 3)).astype(np.float64)
    X[5] = [0.0, -0.0, 1.0]  # the row [0, 0, 1]: no kernel tells -0.0 from 0.0
    X[4000] = [0.0, -0.0, 1.0]
    first = _core.first_occurrences(X, n_jobs)
    _, first_index, inverse = np.unique(
        (X + 0.0).view(np.int64), axis=0, return_index=True, return_inverse=True
    )
    np.testing.assert_array_equal(first, first_index[inverse.ravel()])
    # scipy drops the zeros (-0.0 too) from CSR rows: there the row is [0, 0, 1].
    sparse_first = _core.first_occurrences(to_core_rows(sp.csr_matrix(X)), n_jobs)
    _, first_index, inverse = np.unique(
        (X + 0.0).view(np.int64), axis=0, return_index=True, return_inverse=True
    )
    np.testing.assert_array_equal(sparse_first, first_index[inverse.ravel()])


def test_split_fills_members_in_order_up_to_their_bounds() -> None:
    # Groups: {0, 2, 3}, {1}, {4, 5}.
    groups = RowGroups(group=np.array([0, 1, 0, 0, 2, 2]), representatives=np.array([0, 1, 4]))
    upper = np.array([1.0, 2.0, 0.5, 2.0, 1.0, 1.0])
    group_upper = groups.merge(upper)
    np.testing.assert_array_equal(group_upper, [3.5, 2.0, 2.0])
    alpha = np.array([1.25, 0.75, 2.0])
    split = groups.split(alpha, upper, group_upper)
    np.testing.assert_array_equal(split, [1.0, 0.75, 0.25, 0.0, 1.0, 1.0])
    np.testing.assert_allclose(np.bincount(groups.group, weights=split), alpha)
    # A group at its bound puts every member exactly at its own, whatever the rounding.
    split = groups.split(np.array([3.5, 0.0, 0.0]), upper, group_upper)
    np.testing.assert_array_equal(split, [1.0, 0.0, 0.5, 2.0, 0.0, 0.0])


def test_group_rows_keeps_the_positions_order() -> None:
    n = MIN_ROWS
    first = np.repeat(np.arange(n // 4) * 4, 4)  # rows 4k..4k+3 are equal
    signs = np.where(np.arange(n) % 4 < 2, 1.0, -1.0)  # +1, +1, -1, -1 in each
    groups = group_rows(first, np.arange(n), signs)
    assert groups is not None
    # Group g starts at position 2g (the sorted keys would put the -1 half first).
    np.testing.assert_array_equal(groups.representatives, np.arange(0, n, 2))
    np.testing.assert_array_equal(groups.group, np.arange(n) // 2)
    assert group_rows(first[: n - 1], np.arange(n - 1), signs[: n - 1]) is None
    assert group_rows(np.arange(n), np.arange(n), signs) is None


def _dense(a: Any) -> Any:
    """``dual_coef_`` of a fit on sparse rows is sparse (as scikit-learn's)."""
    return a.toarray() if sp.issparse(a) else a


def _stored_every_entry(X: Array) -> sp.csr_matrix:
    """``X`` as CSR with every entry stored, its zeros (and their signs) included."""
    n, d = X.shape
    indptr = np.arange(0, n * d + 1, d)
    return sp.csr_matrix((X.ravel(), np.tile(np.arange(d), n), indptr), shape=(n, d))


def test_the_sign_and_the_storage_of_zeros_do_not_change_the_model() -> None:
    """No kernel tells ``-0.0`` from ``0.0`` or a stored zero from an absent one, so neither
    may change which rows are merged: ``X`` against ``X + 0.0`` gave decision values 1.2e-3
    apart (the merge compared bits), a CSR matrix with its zeros stored against the same
    matrix without them 7.4e-4."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(2000, 4)))
    assert np.signbit(X[X == 0]).any()
    y = (X.sum(axis=1) + 0.5 * rng.normal(size=2000) > 0).astype(np.int64)
    n_groups = len(np.unique(np.column_stack([X, y]), axis=0))  # -0.0 == 0.0 here
    params: dict[str, Any] = {"C": 1.0, "gamma": 0.5}
    models = [
        SVC(**params).fit(data, y)
        for data in (X, X + 0.0, _stored_every_entry(X), sp.csr_matrix(X + 0.0))
    ]
    first = models[0]
    assert first.solver_stats_[0]["dual_variables"] == n_groups
    for model in models[1:]:
        assert model.solver_stats_[0]["dual_variables"] == n_groups
        np.testing.assert_array_equal(model.support_, first.support_)
        np.testing.assert_array_equal(_dense(model.dual_coef_), first.dual_coef_)
        np.testing.assert_array_equal(model.intercept_, first.intercept_)
    reference = SklearnSVC(**params).fit(X, y)
    scale = np.abs(reference.decision_function(X)).max()
    np.testing.assert_allclose(
        first.decision_function(X), reference.decision_function(X), rtol=0, atol=1e-2 * scale
    )


def test_stored_zeros_keep_binary_rows_on_bit_sets() -> None:
    """Binary CSR rows with some zeros stored: still 0/1 rows, so still the bit-set path (one
    stored zero sent a9a's first 8,000 rows to padded CSR rows, three times as slow), and the
    same kernel values, hence the same model."""
    rng = np.random.default_rng(4)
    X = (rng.random((1500, 60)) < 0.1).astype(np.float64)
    y = (X[:, :10].sum(axis=1) + 0.3 * rng.normal(size=1500) > 1).astype(np.int64)
    plain = sp.csr_matrix(X)
    stored = plain.copy()
    stored.data[::7] = 0.0  # stored zeros; the same values as `plain` with those ones removed
    removed = stored.copy()
    removed.eliminate_zeros()
    a = SVC(gamma=0.1).fit(stored, y)
    b = SVC(gamma=0.1).fit(removed, y)
    assert a.solver_stats_[0]["kernel_path"] == b.solver_stats_[0]["kernel_path"]
    assert a.solver_stats_[0]["kernel_path"] == "bitset_rbf_table"
    np.testing.assert_array_equal(_dense(a.dual_coef_), _dense(b.dual_coef_))
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.decision_function(stored), b.decision_function(removed))
