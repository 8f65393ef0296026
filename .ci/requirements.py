"""Requirement lists for .ci/run, read from pyproject.toml (the one source of truth).

    python .ci/requirements.py lowest      constraints pinning every runtime
                                           dependency to its declared lower bound
    python .ci/requirements.py extra NAME  the requirements of an optional extra
"""

import pathlib
import sys
import tomllib

from packaging.requirements import Requirement

PROJECT = tomllib.loads(
    (pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
)["project"]


def lowest():
    """``name==floor`` for each of [project].dependencies; a floor is required."""
    lines = []
    for text in PROJECT["dependencies"]:
        req = Requirement(text)
        floors = [s.version for s in req.specifier if s.operator in (">=", "==", "~=")]
        if len(floors) != 1:
            sys.exit(f"{text!r}: expected exactly one lower bound (>=, == or ~=)")
        lines.append(f"{req.name}=={floors[0]}")
    return lines


if __name__ == "__main__":
    if sys.argv[1:] == ["lowest"]:
        print("\n".join(lowest()))
    elif len(sys.argv) == 3 and sys.argv[1] == "extra":
        print("\n".join(PROJECT["optional-dependencies"][sys.argv[2]]))
    else:
        sys.exit(__doc__)
