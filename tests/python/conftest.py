"""Shared fixtures for the Python module's tests.

Where things come from:
  * the module `enc5`: whatever `import enc5` finds (ctest puts <build>/python first on PYTHONPATH;
    after `pip install .` the installed package). When nothing is importable, the build tree
    build/release/python of this checkout is tried.
  * the C++ tool `enc5`: $ENC5_CLI (ctest sets it), else build/release/enc5 of this checkout.
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
    import enc5  # noqa: F401
except ImportError:
    sys.path.insert(0, str(REPO / "build" / "release" / "python"))
    import enc5  # noqa: F401


def pytest_report_header(config):
    return [f"enc5 module: {enc5.__file__}", f"enc5 tool: {_cli_path() or 'not found (tool comparisons skipped)'}"]


def _cli_path() -> str | None:
    p = os.environ.get("ENC5_CLI")
    if p:
        return p if os.access(p, os.X_OK) else None
    p = REPO / "build" / "release" / "enc5"
    return str(p) if os.access(p, os.X_OK) else None


class Cli:
    """Runs the C++ tool; every call checks the exit status and shows stderr on failure."""

    def __init__(self, path: str):
        self.path = path

    def __call__(self, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([self.path, *args], input=input, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"enc5 {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
        return r

    def batch(self, instruction: str, lines: list[str], profile: str = "ada") -> list[str]:
        """`enc5 eval --batch`: one result line per input line."""
        out = self("eval", "--batch", instruction, "--profile", profile, input="\n".join(lines) + "\n").stdout
        results = out.split("\n")[:-1]
        assert len(results) == len(lines), f"{instruction}: {len(lines)} cases, {len(results)} results"
        return results

    def has_run(self) -> bool:
        """Whether this build's tool has `enc5 run` (written on another branch; a placeholder exits 3)."""
        return self("run", "--help", check=False).returncode == 0


@pytest.fixture(scope="session")
def cli() -> Cli:
    p = _cli_path()
    if p is None:
        pytest.skip("the enc5 tool is not built (set ENC5_CLI or build build/release/enc5)")
    return Cli(p)
