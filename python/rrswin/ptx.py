"""The PTX interpreter from Python: any entry of any PTX file, with numpy buffers.

    import numpy as np, rrswin
    out = rrswin.ptx_launch("kernels.ptx", entry="int_mix", grid=4, block=256,
                          buffers={"in": np.arange(1000, dtype=np.uint32), "out": 4000},
                          params=["ptr:in", "ptr:out", ("s32", 1000)])
    out["out"]          # uint8 array of 4000 bytes (an int buffer) ...
    out["in"]           # ... and uint32 (1000,): an array buffer comes back with its dtype and shape

The same launch as `rrswin ptx launch` (docs/ptx.md "Launching any kernel"): the same checks and
the same messages, which name the argument (`params[2] 's32:99999999999': the value is outside
s32's range ...`); a wrong launch raises ValueError (rrswin.PtxError), a wrong Python type TypeError.
"""

from __future__ import annotations

import decimal
import os
from collections.abc import Mapping, Sequence

import numpy as np

from . import _rrswin
from .frame import TEXTURE_MODES
from .numerics import PROFILES

PtxError = _rrswin.PtxError


def _dim3(x, name: str) -> list[int]:
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        x = (int(x),)
    if not isinstance(x, Sequence) or isinstance(x, str) or not 1 <= len(x) <= 3:
        raise TypeError(f"{name}: expected an int or a tuple (x[, y[, z]]), found {x!r}")
    out = []
    for v in x:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{name}: expected integers, found {v!r}")
        if v < 0 or v >= 2**64:
            raise ValueError(f"{name}: {v} is outside [1, 2^64)")
        out.append(int(v))
    return out + [1] * (3 - len(out))


def _param(p, i: int) -> str:
    """A parameter as the tool spells it: "TYPE:VALUE" / "ptr:NAME" as is, or a (type, value) pair
    (an int; a float for f16/f32/f64, passed as its exact decimal expansion so that it is rounded
    once, from the double's own value)."""
    if isinstance(p, str):
        return p
    if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str):
        t, v = p
        if isinstance(v, bool):
            raise TypeError(f"params[{i}]: expected an int, float or name, found {v!r}")
        if isinstance(v, (int, np.integer)):
            return f"{t}:{int(v)}"
        if isinstance(v, (float, np.floating)):
            d = float(v)
            if d != d:
                return f"{t}:nan"
            if d in (float("inf"), float("-inf")):
                return f"{t}:{'-' if d < 0 else ''}inf"
            return f"{t}:{decimal.Decimal(d)}"
        if isinstance(v, str):
            return f"{t}:{v}"
    raise TypeError(f"params[{i}]: expected 'TYPE:VALUE', 'ptr:NAME' or a (type, value) pair, found {p!r}")


def _readings(readings) -> list[str]:
    """readings= as "name=value" strings; the names and values are checked by the interpreter."""
    if readings is None:
        return []
    if isinstance(readings, Mapping):
        out = []
        for k, v in readings.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError(f"readings: expected {{name: value}} strings, found {k!r}: {v!r}")
            out.append(f"{k}={v}")
        return out
    if isinstance(readings, (str, bytes)):
        raise TypeError(f"readings: expected a dict or a list of 'name=value', found {readings!r}")
    out = list(readings)
    for r in out:
        if not isinstance(r, str) or "=" not in r:
            raise TypeError(f"readings: expected 'name=value' strings, found {r!r}")
    return out


def ptx_launch(ptx, *, entry: str | None = None, grid, block, buffers: Mapping | None = None, params: Sequence = (),
               shared: int = 0, textures: Mapping | None = None, surfaces: Mapping | None = None, profile: str = "ada",
               threads: int = 0, max_instructions: int | None = None, readings: Mapping | Sequence | None = None,
               return_stats: bool = False):
    """Runs `entry` of a PTX module (a file path, or the PTX text itself when it contains a newline)
    on a grid of CTAs in enc5's PTX interpreter and returns {name: array} of every buffer and
    surface after the launch.

    grid, block   int or (x, y, z) tuples (CUDA's limits; at most 2^24 CTAs)
    buffers       {name: array | int}: an array's bytes (any dtype, C order) or that many zero bytes;
                  one global allocation each, in the dict's order. An array comes back as an array
                  of its dtype and shape, an int as uint8 bytes.
    params        one per declared parameter, in order: "u32:7", "f16:1.5", "ptr:NAME[+OFFSET]"
                  (a buffer's address, a texture's or surface's handle), or ("f32", 0.1) pairs
    shared        dynamic shared memory bytes (the entry's .extern .shared array)
    textures      {name: float16 (h, w, 4) RGBA | (array, mode)}, mode one of TEXTURE_MODES
    surfaces      {name: (width, height) | float16 (h, w, 4)}: zero or the given texels; comes back
                  as float16 (h, w, 4)
    profile       'ada', 'zluda' or 'hopper'; threads: CTAs in parallel (0 = all)
    max_instructions  per warp, before a run is stopped as an endless loop (None: the interpreter's bound)
    readings      the interpreter's switchable readings (docs/readings.md), as {name: value} or a list
                  of "name=value": e.g. {"ptx-relu-negative-zero": "keep"} (as `--reading` of the CLI)
    return_stats  also return the run's counters: (outputs, {ctas, warp_instructions, ...,
                  model_dependent: {opcode: executions}})
    """
    if isinstance(ptx, os.PathLike) or (isinstance(ptx, str) and "\n" not in ptx):
        path, text = os.fspath(ptx), None
    elif isinstance(ptx, str):
        path, text = "<ptx text>", ptx
    else:
        raise TypeError(f"ptx: expected a file path or PTX text, found {type(ptx).__name__}")
    if profile not in PROFILES:
        raise ValueError(f"profile: expected one of {', '.join(PROFILES)}, found {profile!r}")
    if entry is None:
        raise TypeError("entry: give the entry's name (entry='...')")
    for name, v in (("shared", shared), ("threads", threads), ("max_instructions", 0 if max_instructions is None else max_instructions)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0 or v >= 2**63:
            raise ValueError(f"{name}: expected a non-negative integer, found {v!r}")
    # The CLI's bound (--threads, cli_options.hpp kThreadsMax): a count no machine starts (issue 38, F7).
    if threads > 4096:
        raise ValueError(f"threads: expected 0..4096 (0 = all hardware threads), found {threads}")

    for name, m in (("buffers", buffers), ("textures", textures), ("surfaces", surfaces)):
        if m is not None and not isinstance(m, Mapping):  # docs/python.md: TypeError (issue 38)
            raise TypeError(f"{name}: expected a dict of name -> array, found {type(m).__name__}")
    bufs, shapes = [], {}
    for name, b in (buffers or {}).items():
        if not isinstance(name, str):
            raise TypeError(f"buffers: names must be strings, found {name!r}")
        if isinstance(b, (int, np.integer)) and not isinstance(b, bool):
            if not 1 <= b <= 2**34:
                raise ValueError(f"buffers['{name}']: {b} bytes is outside [1, 17179869184]")
            bufs.append((name, np.zeros(int(b), dtype=np.uint8)))
        elif isinstance(b, np.ndarray):
            a = np.ascontiguousarray(b)
            shapes[name] = (a.dtype, a.shape)
            bufs.append((name, a.reshape(-1).view(np.uint8)))
        else:
            raise TypeError(f"buffers['{name}']: expected a numpy array or a byte count, found {type(b).__name__}")

    texs = []
    for name, t in (textures or {}).items():
        mode = "clamp"
        if isinstance(t, tuple):
            t, mode = t
        if mode not in TEXTURE_MODES:
            raise ValueError(f"textures['{name}']: mode expected one of {', '.join(TEXTURE_MODES)}, found {mode!r}")
        if not isinstance(t, np.ndarray) or t.dtype != np.float16 or t.ndim != 3 or t.shape[2] != 4:
            raise TypeError(f"textures['{name}']: expected a float16 array (height, width, 4)")
        a = np.ascontiguousarray(t)
        texs.append((name, a.reshape(-1).view(np.uint16), a.shape[1], a.shape[0], mode))

    surfs = []
    for name, s in (surfaces or {}).items():
        if isinstance(s, tuple) and len(s) == 2 and all(isinstance(v, (int, np.integer)) for v in s):
            w, h = int(s[0]), int(s[1])
            if not (1 <= w <= 65536 and 1 <= h <= 65536):
                raise ValueError(f"surfaces['{name}']: width × height {w}×{h} outside 1..65536 texels")
            a = np.zeros((h, w, 4), dtype=np.float16)
        elif isinstance(s, np.ndarray) and s.dtype == np.float16 and s.ndim == 3 and s.shape[2] == 4:
            a = np.ascontiguousarray(s)
            h, w = a.shape[0], a.shape[1]
        else:
            raise TypeError(f"surfaces['{name}']: expected (width, height) or a float16 array (height, width, 4)")
        surfs.append((name, a.reshape(-1).view(np.uint8), w, h, 8 * w))

    rstrings = _readings(readings)
    pstrings = [_param(p, i) for i, p in enumerate(params)]
    out, stats = _rrswin.ptx_launch(path, text, entry, _dim3(grid, "grid"), _dim3(block, "block"), int(shared), bufs, pstrings,
                                  texs, surfs, profile, int(threads), None if max_instructions is None else int(max_instructions),
                                  rstrings)
    result = {}
    for name, b in out.items():
        if name in shapes:
            dtype, shape = shapes[name]
            result[name] = b.view(dtype).reshape(shape)
        elif any(name == s[0] for s in surfs):
            h, w = next((s[3], s[2]) for s in surfs if s[0] == name)
            result[name] = b.view(np.float16).reshape(h, w, 4)
        else:
            result[name] = b
    return (result, stats) if return_stats else result
