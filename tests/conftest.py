"""Shared data fixtures for the kernelkit test suite.

The data live beside the repository: ``<repo>/../shared/data`` (see shared/data/README.md).
All loaders are session-scoped and return read-only arrays so that no test can corrupt the data
seen by another one.
"""

from __future__ import annotations

import gzip
import io
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from sklearn.datasets import load_breast_cancer, load_digits, load_svmlight_file
from sklearn.preprocessing import StandardScaler

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

A9A_TRAIN_ROWS = 5000
A9A_TEST_ROWS = 2000
CPU_ACT_ROWS = 2000


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: a paper-scale acceptance run (up to minutes); CI runs these once, in the README's"
        " test command, and skips them in the wheel's venvs (.ci/wheel)",
    )


#: The LIBSVM-family oracle modules, which run once per SMO engine: the default ("auto"), and
#: each engine forced on every fit (issue 42).
EVERY_ENGINE_MODULES = {
    "test_svc_oracle",
    "test_svr_oracle",
    "test_nu_oracle",
    "test_one_class_oracle",
    "test_kkt_and_invariants",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if module in EVERY_ENGINE_MODULES and "smo_engine" in metafunc.fixturenames:
        metafunc.parametrize("smo_engine", ["auto", "libsvm", "batched"], indirect=True)


@pytest.fixture(autouse=True)
def smo_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Forces ``engine`` on every SMO fit of the tests in ``EVERY_ENGINE_MODULES`` (whatever
    the estimator's own parameter says), which run once per engine; "auto" elsewhere."""
    engine: str = getattr(request, "param", "auto")
    if engine != "auto":
        from kernelkit import _base

        solver_options = _base.KernelSvmMixin._solver_options

        def forced(self: Any) -> dict[str, Any]:
            return {**solver_options(self), "engine": engine}

        monkeypatch.setattr(_base.KernelSvmMixin, "_solver_options", forced)
    return engine


@dataclass(frozen=True)
class Dataset:
    X: NDArray[np.float64]
    y: NDArray[Any]
    X_test: NDArray[np.float64]
    y_test: NDArray[Any]


def _frozen(a: NDArray[Any]) -> NDArray[Any]:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def _dataset(x: NDArray[Any], y: NDArray[Any], xt: NDArray[Any], yt: NDArray[Any]) -> Dataset:
    return Dataset(
        _frozen(np.asarray(x, dtype=np.float64)),
        _frozen(np.asarray(y)),
        _frozen(np.asarray(xt, dtype=np.float64)),
        _frozen(np.asarray(yt)),
    )


def _require(path: Path) -> Path:
    if not path.exists():
        raise FileNotFoundError(
            f"test data not found: {path} (expected shared/data beside the repository)"
        )
    return path


def _head_svmlight(path: Path, rows: int, n_features: int) -> tuple[NDArray[Any], NDArray[Any]]:
    with _require(path).open("rb") as fh:
        head = b"".join(itertools.islice(fh, rows))
    x, y = load_svmlight_file(io.BytesIO(head), n_features=n_features)
    return x.toarray(), y


@pytest.fixture(scope="session")
def breast_cancer() -> Dataset:
    """Breast cancer (569 x 30), standardised; first 400 rows train, 169 rows test."""
    x, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    x, y = x[perm], y[perm]
    scaler = StandardScaler().fit(x[:400])
    xs = scaler.transform(x)
    return _dataset(xs[:400], y[:400], xs[400:], y[400:])


@pytest.fixture(scope="session")
def digits() -> Dataset:
    """Digits (1797 x 64, 10 classes) scaled to [0, 1]; 1200 rows train, 597 test."""
    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    rng = np.random.default_rng(1)
    perm = rng.permutation(len(y))
    x, y = x[perm], y[perm]
    return _dataset(x[:1200], y[:1200], x[1200:], y[1200:])


@pytest.fixture(scope="session")
def a9a() -> Dataset:
    """a9a: first 5000 training rows and first 2000 test rows, densified (123 features)."""
    x, y = _head_svmlight(DATA / "a9a" / "a9a.train.svm", A9A_TRAIN_ROWS, 123)
    xt, yt = _head_svmlight(DATA / "a9a" / "a9a.test.svm", A9A_TEST_ROWS, 123)
    return _dataset(x, y, xt, yt)


@pytest.fixture(scope="session")
def cpu_act() -> Dataset:
    """PMLB 197_cpu_act, first 2000 rows, X and y standardised; 1600 train / 400 test."""
    path = _require(DATA / "pmlb" / "197_cpu_act.tsv.gz")
    with gzip.open(path, "rt") as fh:
        a = np.loadtxt(fh, skiprows=1, delimiter="\t", max_rows=CPU_ACT_ROWS)
    x, y = a[:, :-1], a[:, -1]
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    y = (y - y.mean()) / y.std()
    return _dataset(x[:1600], y[:1600], x[1600:], y[1600:])


@pytest.fixture(scope="session")
def cpu_act_large() -> Dataset:
    """PMLB 197_cpu_act, first 4500 rows standardised (for the n_jobs determinism check)."""
    path = _require(DATA / "pmlb" / "197_cpu_act.tsv.gz")
    with gzip.open(path, "rt") as fh:
        a = np.loadtxt(fh, skiprows=1, delimiter="\t", max_rows=4500)
    x, y = a[:, :-1], a[:, -1]
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    y = (y - y.mean()) / y.std()
    return _dataset(x, y, x[:10], y[:10])
