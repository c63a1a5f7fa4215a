"""The PU-learning problem as the PU benchmark evaluates it, independently of every solver:
the constants and the dual objective of the double-hinge dual (digest §1.2–1.4), kernel blocks,
and the synthetic PU mixture."""

from __future__ import annotations

import numpy as np
from _common import rbf_quadratic_form
from numpy.typing import NDArray

SYNTH_D = 10


# --------------------------------------------------------------------------- kernels
def kernel_block(
    A: NDArray[np.float64], B: NDArray[np.float64], kernel: str, gamma: float
) -> NDArray[np.float64]:
    """``K[i, j] = k(A[i], B[j])`` for the linear or RBF kernel."""
    if kernel == "linear":
        return A @ B.T
    if kernel == "rbf":
        from sklearn.metrics.pairwise import rbf_kernel

        return rbf_kernel(A, B, gamma=gamma)
    raise ValueError(f"unknown kernel {kernel!r}")


def kernel_expansion(
    X: NDArray[np.float64],
    centres: NDArray[np.float64],
    coef: NDArray[np.float64],
    kernel: str,
    gamma: float,
    max_block_bytes: int = 128 * 2**20,
) -> NDArray[np.float64]:
    """``Σ_k coef[k] k(x, centres[k])`` for every row x of X, in row blocks of bounded size."""
    if kernel == "linear":
        return X @ (centres.T @ coef)
    out = np.empty(X.shape[0])
    rows = max(1, max_block_bytes // (8 * max(1, centres.shape[0])))
    for start in range(0, X.shape[0], rows):
        stop = min(start + rows, X.shape[0])
        out[start:stop] = kernel_block(X[start:stop], centres, kernel, gamma) @ coef
    return out


def pu_constants(prior: float, lam: float, n_labeled: int, n_unlabeled: int) -> tuple[float, float]:
    """``c1 = π / (2 λ p)`` and ``c2 = 1 / (2 λ n)`` of the dual (digest §1.2)."""
    return prior / (2.0 * lam * n_labeled), 1.0 / (2.0 * lam * n_unlabeled)


def pu_dual_objective(
    X_unl: NDArray[np.float64],
    X_pos: NDArray[np.float64],
    sigma: NDArray[np.float64],
    kernel: str,
    gamma: float,
    c1: float,
    c2: float,
) -> float:
    """Φ(σ) = ½ σ'K_UU σ − p'σ + Σ max(−σ, σ − c2), with p_u = c1 Σ_q k(x_u, x_q).

    Independent of every solver: kernel values recomputed here, in blocks (no n x n matrix).
    """
    sigma = np.asarray(sigma, dtype=np.float64)
    pvec = kernel_expansion(X_unl, X_pos, np.full(X_pos.shape[0], c1), kernel, gamma)
    nz = sigma != 0.0
    if kernel == "linear":
        w = X_unl[nz].T @ sigma[nz]
        quad = float(w @ w)
    else:
        quad = rbf_quadratic_form(X_unl[nz], sigma[nz], gamma)
    return 0.5 * quad - float(pvec @ sigma) + float(np.maximum(-sigma, sigma - c2).sum())


# --------------------------------------------------------------------------- data
def make_synthetic(
    n: int, prior: float, rng: np.random.Generator, d: int = SYNTH_D
) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    """``n`` points of a two-class Gaussian mixture with P(y=1) = prior (labels 1/0).

    Each class is an equal mixture of two unit-covariance Gaussians: positives around
    ±2 e2 + 1.5 e1, negatives around ±2 e2 − 1.5 e1 (Bayes error ≈ 7%). One row-major draw
    per call, so the first m rows do not depend on n (nested sizes across runs).
    """
    from scipy.stats import norm

    Z = rng.standard_normal((n, d + 2))
    y = (Z[:, d] < norm.ppf(prior)).astype(np.int8)
    X = Z[:, :d].copy()
    X[:, 0] += np.where(y == 1, 1.5, -1.5)
    X[:, 1] += np.where(Z[:, d + 1] < 0.0, 2.0, -2.0)
    return X, y


def scale_gamma(X: NDArray[np.float64]) -> float:
    """scikit-learn's gamma="scale": 1 / (n_features · Var X)."""
    return float(1.0 / (X.shape[1] * X.var()))
