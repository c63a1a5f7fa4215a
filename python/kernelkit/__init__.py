"""kernelkit: kernel machines trained by decomposition solvers, with a Rust core.

Estimators follow scikit-learn's API::

    from kernelkit import SVC
    model = SVC(C=1.0, gamma="scale").fit(X, y)
"""

from __future__ import annotations

from . import io, solvers
from ._core import __version__
from .aid import AIDClassifier, AIDRegressor, AIDSemiSupervisedClassifier
from .constrained_svr import ConstrainedSVR
from .exceptions import ConvergenceWarning, InvalidParameterError
from .frank_wolfe import FrankWolfeSVC, MEBClassifier
from .klr import SparseKernelLogisticRegression
from .nu_svc import NuSVC
from .nu_svr import NuSVR
from .one_class import OneClassSVM
from .pu import PUClassifier
from .solvers import Solver
from .svc import SVC
from .svr import SVR

__all__ = [
    "SVC",
    "SVR",
    "AIDClassifier",
    "AIDRegressor",
    "AIDSemiSupervisedClassifier",
    "ConstrainedSVR",
    "ConvergenceWarning",
    "FrankWolfeSVC",
    "InvalidParameterError",
    "MEBClassifier",
    "NuSVC",
    "NuSVR",
    "OneClassSVM",
    "PUClassifier",
    "Solver",
    "SparseKernelLogisticRegression",
    "__version__",
    "io",
    "solvers",
]
