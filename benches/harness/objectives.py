"""Objectives recomputed from fitted attributes alone, by one formula for every solver, and the
comparisons of two fits."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import scipy.sparse as sp


def relative_difference(value: float | None, reference: float | None) -> float | None:
    """``(value - reference) / |reference|`` (None when either is missing or reference is 0)."""
    if value is None or reference is None or reference == 0:
        return None
    return (value - reference) / abs(reference)


def rbf_quadratic_form(X: Any, v: Any, gamma: float, max_block_bytes: int = 256 * 2**20) -> float:
    """``v' K v`` with ``K[i, j] = exp(-gamma ||x_i - x_j||^2)``, in row blocks of at most 2,000
    rows and ``max_block_bytes`` (whatever the number of rows); sparse X stays CSR."""
    from sklearn.metrics.pairwise import rbf_kernel

    X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64).ravel()
    n = X.shape[0]
    rows = max(1, min(2000, max_block_bytes // (8 * max(n, 1))))
    return float(sum(v[i : i + rows] @ (rbf_kernel(X[i : i + rows], X, gamma=gamma) @ v)
                     for i in range(0, n, rows)))  # fmt: skip


def _dense(a: Any) -> Any:
    return a.toarray() if hasattr(a, "toarray") else a


def svc_dual_objective(sv: Any, dc: Any, gamma: float) -> float:
    """LIBSVM's binary dual ``½ α'Qα − Σα`` from ``dc = y·α``: ``½ dc'K dc − Σ|dc|`` (≤ 0). For
    ν-SVC's ``dual_coef_`` (C-SVC form scaled by 1/r) this is the C-form objective."""
    dc = np.asarray(_dense(dc), dtype=np.float64).ravel()
    return 0.5 * rbf_quadratic_form(sv, dc, gamma) - float(np.abs(dc).sum())


def svc_pair_objectives(est: Any, gamma: float) -> list[float]:
    """The dual objective of each one-vs-one pair (i < j) of an RBF SVC / NuSVC."""
    dc = np.asarray(_dense(est.dual_coef_), dtype=np.float64)
    sv = est.support_vectors_
    sv = sp.csr_matrix(sv) if sp.issparse(sv) else np.asarray(sv, dtype=np.float64)
    n_sup = np.asarray(est.n_support_, dtype=np.int64)
    if n_sup.size == 2:
        return [svc_dual_objective(sv, dc[0], gamma)]
    start = np.concatenate([[0], np.cumsum(n_sup)])
    out = []
    for i, j in itertools.combinations(range(n_sup.size), 2):
        bi, bj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
        rows = sp.vstack([sv[bi], sv[bj]]) if sp.issparse(sv) else np.vstack([sv[bi], sv[bj]])
        out.append(svc_dual_objective(rows, np.concatenate([dc[j - 1, bi], dc[i, bj]]), gamma))
    return out


def svr_dual_objective(est: Any, y: Any, gamma: float, epsilon: float) -> float:
    """LIBSVM's ε-SVR dual ``½ b'K b + ε Σ|b| − y'b``, ``b = dual_coef_`` (ε = 0: ν-SVR)."""
    b = np.asarray(est.dual_coef_, dtype=np.float64).ravel()
    quad = rbf_quadratic_form(est.support_vectors_, b, gamma)
    return 0.5 * quad + epsilon * float(np.abs(b).sum()) - float(np.asarray(y)[est.support_] @ b)


def dual_objectives(est: Any, kind: str, gamma: float, y: Any, epsilon: float = 0.0) -> list[float]:
    """The dual objectives of an RBF SVM: one per pair (SVC, NuSVC) or one (SVR, NuSVR)."""
    if kind in ("SVC", "NuSVC"):
        return svc_pair_objectives(est, gamma)
    return [svr_dual_objective(est, y, gamma, epsilon)]


def r2(y: Any, pred: Any) -> float:
    y, pred = np.asarray(y, dtype=np.float64), np.asarray(pred, dtype=np.float64)
    return 1.0 - float(np.sum((y - pred) ** 2)) / float(np.sum((y - y.mean()) ** 2))
