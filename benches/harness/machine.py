"""Where a benchmark ran and what one process used: the machine, the packages, the load, the
installed kernelkit build, this process's memory; functions run in fresh processes."""

from __future__ import annotations

import contextlib
import datetime as _dt
import multiprocessing as mp
import os
import platform
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

PACKAGES = ("kernelkit", "numpy", "scipy", "scikit-learn", "scikit-learn-intelex", "daal",
            "matplotlib", "threadpoolctl", "cvxpy", "clarabel", "pulearn", "dask",
            "distributed")  # fmt: skip
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")
SIMD = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_vpopcntdq")


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str | None]:
    """Installed distribution versions (None for a package that is not installed)."""
    out: dict[str, str | None] = dict.fromkeys(names)
    for name in names:
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[name] = metadata.version(name)
    return out


def importable(*modules: str) -> bool:
    return all(find_spec(m) is not None for m in modules)


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def load_snapshot() -> dict[str, Any]:
    """The machine's load now: the ``uptime`` line and ``os.getloadavg()``."""
    try:
        line = subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        line = "loadavg " + Path("/proc/loadavg").read_text().strip()
    return {"time": now(), "uptime": line, "loadavg": list(os.getloadavg())}


def ram_bytes() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def machine_info() -> dict[str, Any]:
    """The machine and software stack: the CPU (vendor, family, model and the SIMD levels the
    kernels dispatch on: "model name" can be as vague as "AMD EPYC" in a guest), the memory,
    Python, the packages and the thread variables."""
    cpu: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().split("\n\n", 1)[0].splitlines():
            cpu.setdefault(line.partition(":")[0].strip(), line.partition(":")[2].strip())
    ident = " ".join(
        f"{k.split()[-1]} {cpu[k]}" for k in ("cpu family", "model", "stepping") if k in cpu
    )
    simd = " ".join(f for f in SIMD if f in cpu.get("flags", "").split()) or "no AVX2"
    uname = ("sysname", "nodename", "release", "version", "machine")
    return {"uname": dict(zip(uname, os.uname(), strict=True)),
            "cpu_model": cpu.get("model name") or platform.processor() or None,
            "cpu_id": f"{cpu.get('vendor_id', '?')} {ident}; {simd}" if cpu else None,
            "cpu_count": os.cpu_count(), "cpu_affinity": len(os.sched_getaffinity(0)),
            "mem_total_gb": round(ram_bytes() / 2**30, 2), "python": sys.version.split()[0],
            "packages": package_versions(),
            "thread_env": {k: os.environ.get(k) for k in THREAD_VARS}}  # fmt: skip


def kernelkit_build() -> dict[str, Any] | None:
    """The installed kernelkit extension (path, size, mtime): it may be rebuilt mid-run."""
    spec = find_spec("kernelkit._core")
    if spec is None or spec.origin is None:
        return None
    st = Path(spec.origin).stat()
    mtime = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(st.st_mtime))
    return {"path": spec.origin, "size": st.st_size, "mtime": mtime}


# --------------------------------------------------------------------------- this process
def _status_mb(field: str) -> float | None:
    """A ``VmXXX:`` line of /proc/self/status in MiB (None where /proc is unavailable)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 2**10
    return None


def current_rss_mb() -> float | None:
    """Resident set size of this process now, in MiB (Linux only)."""
    return _status_mb("VmRSS")


def reset_peak_rss() -> bool:
    """Reset this process's peak-RSS mark (Linux >= 4.0; False where unsupported)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_mb() -> float:
    """Peak resident set size of this process (since start or the last reset), in MiB."""
    hwm = _status_mb("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def limit_address_space(fraction: float) -> None:
    """Cap this process's virtual memory at ``fraction`` of the RAM, so that a solver that
    outgrows the machine fails with MemoryError instead of calling the OOM killer."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = int(fraction * ram_bytes())
    resource.setrlimit(
        resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard)
    )


def blas_threads(n: int) -> Any:
    """``threadpoolctl.threadpool_limits(n)`` (a no-op context without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(n)


# --------------------------------------------------------------------------- fresh processes
def _child_main(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        result: Any = {"ok": True, "value": fn(*args)}
    except BaseException as exc:
        result = {
            "ok": False, "error": f"{type(exc).__name__}: {exc}", "tb": traceback.format_exc()
        }  # fmt: skip
    conn.send(result)
    conn.close()


def run_isolated(
    fn: Callable[..., Any], args: tuple[Any, ...], timeout: float | None = None
) -> Any:
    """``fn(*args)`` in a fresh 'spawn' process (a clean peak RSS per fit; ``fn`` must be
    importable). Raises RuntimeError when the child fails, dies or times out (it is killed)."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(child, fn, args), daemon=True)
    proc.start()
    child.close()
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while not parent.poll(0.5):
            if not proc.is_alive() and not parent.poll(0.1):  # no result came before the exit
                raise RuntimeError(f"child process died (exit code {proc.exitcode})")
            if deadline is not None and time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"timed out after {timeout:g} s")
        try:
            message: dict[str, Any] = parent.recv()
        except EOFError:  # the pipe closed without a result: the child crashed
            proc.join(timeout=5)
            raise RuntimeError(f"child process died (exit code {proc.exitcode})") from None
    finally:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        parent.close()
    if not message["ok"]:
        raise RuntimeError(message["error"] + "\n" + message["tb"])
    return message["value"]


def guarded(fn: Callable[..., dict[str, Any]], task: Sequence[Any], *args: Any) -> dict[str, Any]:
    """``fn(task, *args)`` timed; an exception becomes ``{"error", "traceback"}`` (never raises)."""
    t0 = time.perf_counter()
    try:
        res = fn(task, *args)
    except Exception as exc:
        res = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
    return res | {"task": list(task), "seconds": time.perf_counter() - t0}


def run_tasks(fn: Callable[..., dict[str, Any]], tasks: Sequence[Any], jobs: int, *args: Any,
              threads: int = 1) -> list[dict[str, Any]]:  # fmt: skip
    """``guarded(fn, task, *args)`` for every task, on ``jobs`` spawned worker processes with
    ``threads`` BLAS threads each, or in this process when ``jobs <= 1``; progress on stderr.
    A task whose worker died gets ``{"task": task, "error": ...}``. Results sorted by task."""
    clock, results = time.perf_counter(), []
    for i, res in enumerate(_each(fn, tasks, jobs, args, threads), 1):
        results.append(res)
        left = (time.perf_counter() - clock) / i * (len(tasks) - i)
        error = f"  ERROR {res['error']}" if "error" in res else ""
        print(f"[{i}/{len(tasks)}] {res['task']} {res['seconds']:.1f} s{error}  (eta {left:.0f} s)",
              file=sys.stderr, flush=True)  # fmt: skip
    return sorted(results, key=lambda r: [(1, 0, t) if isinstance(t, str) else (0, t, "")
                                          for t in r["task"]])  # fmt: skip


def _each(fn: Any, tasks: Sequence[Any], jobs: int, args: Any, threads: int) -> Iterator[Any]:
    if jobs <= 1:
        yield from (guarded(fn, task, *args) for task in tasks)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    for var in THREAD_VARS:  # inherited by the 'spawn' workers
        os.environ.setdefault(var, str(threads))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(guarded, fn, task, *args): task for task in tasks}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except BrokenProcessPool as exc:  # a worker died (a crash in the extension)
                yield {"task": list(futures[fut]), "seconds": 0.0, "error": f"worker died: {exc}"}
