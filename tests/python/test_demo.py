"""examples/demo_frame.py: it runs, its arena and surface are those of `rrswin run --layer enc5` on the demo frame
(no arguments: default weights, synthetic inputs at 40 x 23), and with matplotlib it draws a PNG."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO
from exr_reader import read_rgba_half

HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def test_demo_frame_script_matches_the_tool(cli, tmp_path):
    npz, png = tmp_path / "demo.npz", tmp_path / "demo.png"
    args = ["--npz", str(npz), "--out", str(png)] if HAVE_MATPLOTLIB else ["--npz", str(npz), "--no-plot"]
    env = dict(os.environ, MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, str(REPO / "examples" / "demo_frame.py"), *args], capture_output=True,
                       text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rrswin enc5 demo frame: 40x23" in r.stdout
    if HAVE_MATPLOTLIB:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    got = np.load(npz)
    assert got["arena"].shape == (5, 23, 40, 32) and got["surface"].shape == (23, 40, 4)
    if not cli.has_run():
        pytest.skip("this build's rrswin has no `rrswin run`: the demo's outputs were not compared")
    cli("run", "--layer", "enc5", "-o", str(tmp_path / "tool"))
    assert (tmp_path / "tool" / "arena.bin").read_bytes() == got["arena"].tobytes()
    np.testing.assert_array_equal(read_rgba_half(tmp_path / "tool" / "surface112.exr").view(np.uint16),
                                  got["surface"].view(np.uint16))

