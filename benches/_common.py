"""Shared helpers for the kernelkit benchmark scripts.

Everything here is solver-agnostic: machine/load information, package versions, data loading,
an independent evaluation of the SVC dual objective, subprocess isolation (clean peak RSS per
fit) and small output helpers (Markdown tables, JSON).
"""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import multiprocessing as mp
import os
import platform
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"

BENCH_PACKAGES = (
    "kernelkit",
    "numpy",
    "scipy",
    "scikit-learn",
    "scikit-learn-intelex",
    "daal",
    "matplotlib",
    "threadpoolctl",
)

THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "RAYON_NUM_THREADS",
)


# --------------------------------------------------------------------------- machine info
def package_versions(names: Sequence[str] = BENCH_PACKAGES) -> dict[str, str | None]:
    """Installed distribution versions (None when a package is not installed)."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def uptime_line() -> str:
    """Output of ``uptime`` (falls back to /proc/loadavg when the command is missing)."""
    try:
        out = subprocess.run(["uptime"], capture_output=True, text=True, check=True, timeout=5)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "loadavg " + Path("/proc/loadavg").read_text().strip()


def load_snapshot() -> dict[str, Any]:
    """Machine load right now: ``uptime`` text and ``os.getloadavg()``."""
    return {
        "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "uptime": uptime_line(),
        "loadavg": list(os.getloadavg()),
    }


def _first_cpu() -> dict[str, str]:
    """The fields of the first CPU in ``/proc/cpuinfo`` (empty when there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


def _cpu_model(cpu: dict[str, str]) -> str | None:
    return cpu.get("model name") or platform.processor() or None


def _cpu_id(cpu: dict[str, str]) -> str | None:
    """Vendor, family, model, stepping and the SIMD levels the kernels dispatch on (``model
    name`` alone can be as vague as "AMD EPYC" in a guest)."""
    if not cpu:
        return None
    flags = set(cpu.get("flags", "").split())
    simd = [
        f
        for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_vpopcntdq")
        if f in flags
    ]
    ident = " ".join(
        f"{name} {cpu[key]}"
        for name, key in (("family", "cpu family"), ("model", "model"), ("stepping", "stepping"))
        if key in cpu
    )
    return f"{cpu.get('vendor_id', '?')} {ident}; {' '.join(simd) or 'no AVX2'}"


def _mem_total_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 2)
    except (OSError, ValueError):
        pass
    return None


def mem_total_bytes() -> int | None:
    """Physical memory of the machine in bytes (None when unknown)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


def machine_info() -> dict[str, Any]:
    """Static description of the machine and software stack."""
    uname = os.uname()
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cpu = _first_cpu()
    return {
        "uname": {
            "sysname": uname.sysname,
            "nodename": uname.nodename,
            "release": uname.release,
            "version": uname.version,
            "machine": uname.machine,
        },
        "cpu_model": _cpu_model(cpu),
        "cpu_id": _cpu_id(cpu),
        "cpu_count": os.cpu_count(),
        "cpu_affinity": affinity,
        "mem_total_gb": _mem_total_gb(),
        "python": sys.version.split()[0],
        "packages": package_versions(),
        "thread_env": {k: os.environ.get(k) for k in THREAD_ENV_VARS},
    }


# --------------------------------------------------------------------------- data
def load_svmlight_dense(
    path: Path, n_features: int, n_rows: int | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Load a LIBSVM text file, keep the first ``n_rows`` rows and densify (C-contiguous f64)."""
    from sklearn.datasets import load_svmlight_file

    X_sparse, y = load_svmlight_file(str(path), n_features=n_features)
    if n_rows is not None:
        X_sparse, y = X_sparse[:n_rows], y[:n_rows]
    X = np.ascontiguousarray(X_sparse.toarray(), dtype=np.float64)
    return X, np.ascontiguousarray(y, dtype=np.float64)


# --------------------------------------------------------------------------- objectives
def load_pmlb(path: Path) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A PMLB ``.tsv.gz`` file: the features (C-contiguous float64) and the last column,
    ``target``, as float64 (callers with class labels convert them)."""
    with gzip.open(path, "rt") as fh:
        fh.readline()  # header
        table = np.loadtxt(fh, delimiter="\t", dtype=np.float64)
    return np.ascontiguousarray(table[:, :-1]), np.ascontiguousarray(table[:, -1])


def standardize(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """Columns to mean 0, std 1 (constant columns only centred)."""
    mu, sd = X.mean(axis=0), X.std(axis=0)
    return np.ascontiguousarray((X - mu) / np.where(sd > 0, sd, 1.0))


def rbf_quadratic_form(
    X: NDArray[np.float64],
    v: NDArray[np.float64],
    gamma: float,
    chunk: int = 2000,
    max_block_bytes: int = 256 * 2**20,
) -> float:
    """``v' K v`` with ``K[i, j] = exp(-gamma * ||x_i - x_j||^2)``, computed in row blocks.

    A block is ``rows x n`` float64 values; ``rows`` is at most ``chunk`` and is reduced so that
    one block stays below ``max_block_bytes``, bounding memory whatever the number of SVs.
    ``X`` may be a scipy.sparse matrix: it is then kept sparse (CSR) and ``rbf_kernel`` works on
    the sparse row blocks directly, so no dense copy of ``X`` is made.
    """
    import scipy.sparse as sp
    from sklearn.metrics.pairwise import rbf_kernel

    X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64).ravel()
    n = X.shape[0]
    if n == 0:
        return 0.0
    rows = max(1, min(chunk, max_block_bytes // (8 * n)))
    total = 0.0
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        block = rbf_kernel(X[start:stop], X, gamma=gamma)
        total += float(v[start:stop] @ (block @ v))
    return total


def svc_binary_dual_objective(
    support_vectors: Any,
    dual_coef: Any,
    gamma: float,
    chunk: int = 2000,
    keep_sparse: bool = False,
) -> float:
    """LIBSVM's dual objective ``0.5 * alpha' Q alpha - sum(alpha)`` of a binary RBF SVC.

    Computed from the fitted attributes only: with ``dc = dual_coef_[0] = y * alpha`` (any
    global sign), ``alpha' Q alpha = dc' K dc`` and ``sum(alpha) = sum(|dc|)``, where ``K`` is
    the RBF kernel among ``support_vectors_``. The value is <= 0 (LIBSVM prints it as
    ``obj = ...``); reference tables sometimes quote its magnitude.
    With ``keep_sparse=True`` sparse ``support_vectors_`` stay sparse (kernel on CSR blocks).
    """
    dc = np.asarray(_dense(dual_coef), dtype=np.float64)
    if dc.ndim == 2:
        if dc.shape[0] != 1:
            raise ValueError(f"binary SVC expected, dual_coef_ has shape {dc.shape}")
        dc = dc[0]
    sv = (
        support_vectors
        if keep_sparse and hasattr(support_vectors, "toarray")
        else np.asarray(_dense(support_vectors), dtype=np.float64)
    )
    return 0.5 * rbf_quadratic_form(sv, dc, gamma, chunk=chunk) - float(np.abs(dc).sum())


def _dense(a: Any) -> Any:
    return a.toarray() if hasattr(a, "toarray") else a


def svc_pair_objectives(est: Any, gamma: float) -> list[float]:
    """Dual objective of each one-vs-one pair (i < j) from support_vectors_/dual_coef_."""
    dc = np.asarray(est.dual_coef_, dtype=np.float64)
    sv = np.asarray(est.support_vectors_, dtype=np.float64)
    n_sup = np.asarray(est.n_support_, dtype=np.int64)
    if n_sup.size == 2:
        return [svc_binary_dual_objective(sv, dc, gamma)]
    start = np.concatenate([[0], np.cumsum(n_sup)])
    out = []
    for i in range(n_sup.size):
        for j in range(i + 1, n_sup.size):
            bi, bj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
            coef = np.concatenate([dc[j - 1, bi], dc[i, bj]])
            out.append(svc_binary_dual_objective(np.vstack([sv[bi], sv[bj]]), coef, gamma))
    return out


def relative_difference(value: float | None, reference: float | None) -> float | None:
    """``(value - reference) / |reference|`` (None when either is missing)."""
    if value is None or reference is None or reference == 0:
        return None
    return (value - reference) / abs(reference)


# --------------------------------------------------------------------------- processes
def _proc_status_mb(field: str) -> float | None:
    """A ``VmXXX:`` line of /proc/self/status in MiB (None where /proc is unavailable)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 2**10
    except (OSError, ValueError, IndexError):
        pass
    return None


def current_rss_mb() -> float | None:
    """Resident set size of this process now, in MiB (Linux only)."""
    return _proc_status_mb("VmRSS")


def reset_peak_rss() -> bool:
    """Reset this process's peak-RSS high-water mark (Linux >= 4.0; False if unsupported)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_mb() -> float:
    """Peak resident set size of this process (since start or last reset), in MiB."""
    hwm = _proc_status_mb("VmHWM")
    if hwm is not None:
        return hwm
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes / KiB


def _child_main(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        result: Any = {"ok": True, "value": fn(*args)}
    except BaseException as exc:
        result = {
            "ok": False,
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(),
        }
    conn.send(result)
    conn.close()


def run_isolated(
    fn: Callable[..., Any], args: tuple[Any, ...], timeout: float | None = None
) -> Any:
    """Run ``fn(*args)`` in a fresh 'spawn' process and return its result.

    A fresh interpreter per call gives a clean ``ru_maxrss`` (peak memory) per fit. ``fn`` must
    be importable (module level). Raises ``RuntimeError`` if the child fails, dies or times out
    (the child is killed in that case).
    """
    ctx = mp.get_context("spawn")
    parent_conn, child_conn = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(child_conn, fn, args), daemon=True)
    proc.start()
    child_conn.close()
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while not parent_conn.poll(0.5):
            if not proc.is_alive():
                # The child may have sent its result just before exiting.
                if parent_conn.poll(0.1):
                    break
                raise RuntimeError(f"child process died (exit code {proc.exitcode})")
            if deadline is not None and time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"timed out after {timeout:g} s")
        try:
            message: dict[str, Any] = parent_conn.recv()
        except EOFError:  # the pipe closed without a result: the child crashed
            proc.join(timeout=5)
            raise RuntimeError(f"child process died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        parent_conn.close()
    if not message["ok"]:
        raise RuntimeError(message["error"] + "\n" + message["traceback"])
    return message["value"]


# --------------------------------------------------------------------------- output
def fmt(value: Any, spec: str = "") -> str:
    """Format a table cell; None becomes an em dash."""
    if value is None:
        return "—"
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return format(value, spec)


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], n_text_cols: int = 1
) -> str:
    """A GitHub-flavoured Markdown table; columns after the first ``n_text_cols`` align right."""
    align = ["---" if j < n_text_cols else "---:" for j in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_json(path: Path, payload: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=_json_default) + "\n")


def parse_int_list(text: str) -> list[int]:
    return [int(tok.replace("_", "")) for tok in text.split(",") if tok.strip()]


def parse_str_list(text: str) -> list[str]:
    return [tok.strip() for tok in text.split(",") if tok.strip()]


# --------------------------------------------------------------------------- checks
def check(name: str, ok: bool | None, detail: str, gate: bool = True) -> dict[str, Any]:
    """A check result: PASS/FAIL when gated, INFO otherwise (SKIP when ``ok`` is None)."""
    if ok is None:
        status = "SKIP"
    elif not gate:
        status = "INFO"
    else:
        status = "PASS" if ok else "FAIL"
    return {"name": name, "status": status, "ok": ok, "detail": detail}


def print_checks(checks: Sequence[Mapping[str, Any]]) -> None:
    """One line per check: status, name, detail."""
    for c in checks:
        print(f"{c['status']:<5} {c['name']}: {c['detail']}")
