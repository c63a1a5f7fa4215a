"""dask (whose annotations are partial), joblib and pandas, imported as untyped modules so
that ``mypy --strict`` checks kernelkit's code and not theirs. The imports are absolute: these
are the real ``dask`` packages, not this subpackage."""

from __future__ import annotations

import importlib
import sys
from typing import Any

dask: Any = importlib.import_module("dask")
da: Any = importlib.import_module("dask.array")
delayed: Any = importlib.import_module("dask.delayed").delayed


def loaded_dataframe() -> Any | None:
    """``dask.dataframe`` if something imported it already, else ``None``: a dask DataFrame or
    Series can exist only then, so arrays are told from frames without importing pandas (which
    ``kernelkit.dask`` does not need for arrays: ``dask[array,distributed]`` suffices)."""
    return sys.modules.get("dask.dataframe")


def pandas() -> Any:
    return importlib.import_module("pandas")


def joblib() -> Any:
    return importlib.import_module("joblib")
