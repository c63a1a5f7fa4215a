"""The SIMD level and the kernel path: one value each, reported, and every level agreeing.

``KERNELKIT_SIMD`` caps the vector instructions of every loop (read once per process, so each
capped level runs in a subprocess); models fitted at each level this CPU supports must give the
native level's decision values within ``1e-6 · max|d|`` at ``tol=1e-6`` (``scalar`` differs in the
last bits of sums without fused multiply–adds) and bitwise at the levels with FMA (AVX2 and
above sum in one order: the AVX-512 loops reproduce the AVX2 ones bit for bit).
``solver_stats_`` reports ``kernel_path`` (``kernelkit_kernels::plan``) and ``simd`` for every
estimator over the kernel layer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.typing import NDArray

import kernelkit
from kernelkit import _core

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

# Run in a subprocess at each level, and in this process at the native one: fits every set and
# prints the decision values as JSON.
FITS = r"""
import gzip, json, sys
from pathlib import Path
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
import kernelkit

data = Path(sys.argv[1])
out = {}
x, y = load_svmlight_file(str(data / "a9a" / "a9a.train.svm"), n_features=123)
x, y = x[:3000], y[:3000]
for name, rows in (("a9a_dense", x.toarray()), ("a9a_csr", sp.csr_matrix(x))):
    model = kernelkit.SVC(C=1.0, gamma=0.05, tol=1e-6).fit(rows, y)
    out[name] = [model.decision_function(rows[:500]).tolist(), model.solver_stats_[0]["simd"],
                 model.solver_stats_[0]["kernel_path"]]
z = np.load(data / "usps" / "usps.npz")
keep = np.isin(z["y_train"], [3, 5, 8])
xu, yu = z["X_train"][keep][:1200], z["y_train"][keep][:1200]
model = kernelkit.SVC(C=10.0, gamma=1 / 256, tol=1e-6).fit(xu, yu)
out["usps"] = [model.decision_function(xu[:400]).ravel().tolist(), model.solver_stats_[0]["simd"],
               model.solver_stats_[0]["kernel_path"]]
with gzip.open(data / "pmlb" / "197_cpu_act.tsv.gz", "rt") as f:
    table = np.loadtxt(f, skiprows=1)
xr, yr = table[:1500, :-1], table[:1500, -1]
xr = (xr - xr.mean(axis=0)) / xr.std(axis=0)
model = kernelkit.SVR(C=10.0, gamma=1 / xr.shape[1], epsilon=0.5, tol=1e-6).fit(xr, yr)
out["cpu_act"] = [model.predict(xr[:500]).tolist(), model.solver_stats_["simd"],
                  model.solver_stats_["kernel_path"]]
print(json.dumps(out))
"""


def _fits(level: str | None) -> dict[str, list[Any]]:
    env = dict(os.environ)
    env.pop("KERNELKIT_SIMD", None)
    if level is not None:
        env["KERNELKIT_SIMD"] = level
    done = subprocess.run(
        [sys.executable, "-c", FITS, str(DATA)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result: dict[str, list[Any]] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def native_fits() -> dict[str, list[Any]]:
    if not (DATA / "a9a").exists():
        pytest.fail(f"test data not found: {DATA} (expected shared/data beside the repository)")
    return _fits(None)


SUPPORTED, CURRENT = _core.simd_levels()
ORDER = ["scalar", "avx2", "avx512", "avx512vnni"]
BELOW_NATIVE = SUPPORTED[:-1]


def test_levels_are_ordered_and_capped() -> None:
    assert ORDER[: len(SUPPORTED)] == SUPPORTED
    cap = os.environ.get("KERNELKIT_SIMD", "native").lower()
    capped = (
        SUPPORTED[-1] if cap in ("native", "") else ORDER[min(ORDER.index(cap), len(SUPPORTED) - 1)]
    )
    assert capped == CURRENT


@pytest.mark.parametrize("level", BELOW_NATIVE)
def test_every_level_gives_the_native_models(level: str, native_fits: dict[str, list[Any]]) -> None:
    capped = _fits(level)
    assert set(capped) == {"a9a_dense", "a9a_csr", "usps", "cpu_act"}
    for name, (values, simd, path) in capped.items():
        native_values, native_simd, native_path = native_fits[name]
        assert simd == level and native_simd == SUPPORTED[-1], name
        assert path == native_path, name
        d, d_native = np.asarray(values), np.asarray(native_values)
        if level == "scalar":
            # Separate multiplies and adds: the last bits of the sums differ.
            scale = np.abs(d_native).max()
            np.testing.assert_allclose(d, d_native, rtol=0, atol=1e-6 * scale, err_msg=name)
        else:
            # Every level with FMA sums in the same order: bitwise the same models.
            np.testing.assert_array_equal(d, d_native, err_msg=name)


def test_the_sets_take_the_paths_they_are_meant_to(native_fits: dict[str, list[Any]]) -> None:
    paths = {name: fit[2] for name, fit in native_fits.items()}
    assert paths == {
        "a9a_dense": "bitset_rbf_table",
        "a9a_csr": "bitset_rbf_table",
        "usps": "fixed_point_i16",
        "cpu_act": "dense_feature_major",
    }


def test_an_unknown_level_is_named() -> None:
    env = dict(os.environ, KERNELKIT_SIMD="sse9")
    script = (
        "import numpy as np, kernelkit\n"
        "try:\n"
        "    kernelkit.SVC().fit(np.eye(4), [0, 1, 0, 1])\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert "KERNELKIT_SIMD" in done.stdout and "avx512vnni" in done.stdout


def _rows(seed: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(80, 70))
    return x, (x[:, 0] + 0.3 * rng.normal(size=80) > 0).astype(np.int64)


ESTIMATORS: list[tuple[str, Any]] = [
    ("SVC", lambda: kernelkit.SVC()),
    ("NuSVC", lambda: kernelkit.NuSVC(nu=0.3)),
    ("SVR", lambda: kernelkit.SVR()),
    ("NuSVR", lambda: kernelkit.NuSVR()),
    ("OneClassSVM", lambda: kernelkit.OneClassSVM()),
    ("FrankWolfeSVC", lambda: kernelkit.FrankWolfeSVC()),
    ("SparseKernelLogisticRegression", lambda: kernelkit.SparseKernelLogisticRegression()),
]


@pytest.mark.parametrize(("name", "make"), ESTIMATORS, ids=[e[0] for e in ESTIMATORS])
@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("f64", "dense_f64"),
        ("f32", "dense_f32"),
        ("sparse", "csr_padded"),
        ("ones", "bitset_rbf_table"),
    ],
)
def test_every_estimator_reports_its_path_and_level(
    name: str, make: Any, kind: str, expected: str
) -> None:
    x, y = _rows(0)
    rows: Any = x
    if kind == "f32":
        rows = x.astype(np.float32).astype(np.float64)
    elif kind == "sparse":
        rows = sp.csr_matrix(np.where(np.abs(x) > 1.6, x, 0.0))
    elif kind == "ones":
        rows = sp.csr_matrix((np.abs(x) > 1.6).astype(np.float64))
    model = make()
    model.fit(rows) if name == "OneClassSVM" else model.fit(rows, y)
    stats = model.solver_stats_
    for s in stats if isinstance(stats, list) else [stats]:
        assert s["simd"] == CURRENT
        assert s["kernel_path"] == expected


def test_pu_and_constrained_svr_report_their_paths() -> None:
    x, y = _rows(1)
    pu = kernelkit.PUClassifier(prior=0.5, kernel="rbf").fit(x, np.where(y == 1, 1, 0))
    assert (pu.solver_stats_["kernel_path"], pu.solver_stats_["simd"]) == ("dense_f64", CURRENT)
    linear = kernelkit.PUClassifier(prior=0.5, kernel="linear").fit(x, np.where(y == 1, 1, 0))
    assert linear.solver_stats_["kernel_path"] == "linear_primal"
    # Mostly zeros: CSR rows, as for training (the PU entry point kept dense rows before).
    mostly_zero = np.where(np.abs(x) > 1.6, x, 0.0)
    sparse_pu = kernelkit.PUClassifier(prior=0.5, kernel="rbf").fit(
        mostly_zero, np.where(y == 1, 1, 0)
    )
    assert sparse_pu.solver_stats_["kernel_path"] == "csr_padded"
    svr = kernelkit.ConstrainedSVR().fit(x[:, :5], x[:, 0])
    assert (svr.solver_stats_["kernel_path"], svr.solver_stats_["simd"]) == (
        "dense_feature_major",
        CURRENT,
    )


def test_aid_classifier_reports_its_path() -> None:
    x, y = _rows(2)
    rbf = kernelkit.AIDClassifier(kernel="rbf").fit(x, y)
    assert (rbf.solver_stats_["kernel_path"], rbf.solver_stats_["simd"]) == ("dense_f64", CURRENT)
    assert float(rbf.solver_stats_["kernel_values_computed"]) > 0
    linear = kernelkit.AIDClassifier(kernel="linear").fit(x, y)
    assert linear.solver_stats_["kernel_path"] == "linear_primal"


def test_a_user_given_matrix_reports_precomputed() -> None:
    q = np.array([[2.0, 1.0], [1.0, 2.0]])
    solution = _core.solve_box_qp(q, -np.ones(2), np.ones(2), np.ones(2))
    assert (solution.stats["kernel_path"], solution.stats["simd"]) == ("precomputed", CURRENT)
