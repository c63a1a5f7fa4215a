"""dask (whose annotations are partial), joblib and pandas, imported as untyped modules so
that ``mypy --strict`` checks kernelkit's code and not theirs. The imports are absolute: these
are the real ``dask`` packages, not this subpackage."""

from __future__ import annotations

import importlib
from typing import Any

dask: Any = importlib.import_module("dask")
da: Any = importlib.import_module("dask.array")
delayed: Any = importlib.import_module("dask.delayed").delayed


def dataframe() -> Any:
    """``dask.dataframe`` (needs pandas; imported on first use)."""
    return importlib.import_module("dask.dataframe")


def pandas() -> Any:
    return importlib.import_module("pandas")


def joblib() -> Any:
    return importlib.import_module("joblib")
