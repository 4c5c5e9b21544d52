"""Shared fixtures for the Python module's tests.

Where things come from:
  * the module `rrswin`: whatever `import rrswin` finds (ctest puts <build>/python first on PYTHONPATH;
    after `pip install .` the installed package). When nothing is importable, the build tree
    build/release/python of this checkout is tried.
  * the C++ tool `rrswin`: $RRSWIN_CLI (ctest sets it), else build/release/rrswin of this checkout.
    Tests that compare against the tool are skipped, saying so, when there is none.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

try:
    import rrswin  # noqa: F401
except ImportError:
    sys.path.insert(0, str(REPO / "build" / "release" / "python"))
    import rrswin  # noqa: F401


def pytest_report_header(config):
    return [f"rrswin module: {rrswin.__file__}", f"rrswin tool: {_cli_path() or 'not found (tool comparisons skipped)'}"]


def _cli_path() -> str | None:
    p = os.environ.get("RRSWIN_CLI")
    if p:
        return p if os.access(p, os.X_OK) else None
    p = REPO / "build" / "release" / "rrswin"
    return str(p) if os.access(p, os.X_OK) else None


class Cli:
    """Runs the C++ tool; every call checks the exit status and shows stderr on failure."""

    def __init__(self, path: str):
        self.path = path

    def __call__(self, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([self.path, *args], input=input, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"rrswin {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
        return r

    def batch(self, instruction: str, lines: list[str], profile: str = "ada") -> list[str]:
        """`rrswin eval --batch`: one result line per input line."""
        out = self("eval", "--batch", instruction, "--profile", profile, input="\n".join(lines) + "\n").stdout
        results = out.split("\n")[:-1]
        assert len(results) == len(lines), f"{instruction}: {len(lines)} cases, {len(results)} results"
        return results

    def has_run(self) -> bool:
        """Whether this build's tool has `rrswin run` (written on another branch; a placeholder exits 3)."""
        return self("run", "--help", check=False).returncode == 0


@pytest.fixture(scope="session")
def cli() -> Cli:
    p = _cli_path()
    if p is None:
        pytest.skip("the rrswin tool is not built (set RRSWIN_CLI or build build/release/rrswin)")
    return Cli(p)
