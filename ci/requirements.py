"""Print the requirements that pyproject.toml declares, one per line: the runtime dependencies,
then those of each extra named on the command line (``python ci/requirements.py test``).

.ci/wheel installs these into its fresh virtual environments before the wheel (which goes in with
``--no-deps``), so that the requirements a job installs are exactly the declared ones.
"""

from __future__ import annotations

import sys
from pathlib import Path

import tomllib

project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
lines = list(project["dependencies"])
for extra in sys.argv[1:]:
    lines += project["optional-dependencies"][extra]
print("\n".join(lines))
