"""Running the layer: `run`, synthetic inputs, readings and traces.

Shapes (ex, ey = the token grid's extents):
  input / output arena  uint8 (5, ey, ex, 32): plane q, pixel row y, pixel x, the pixel's 8 words
                        of 4 bytes (32 e4m3 codes) in arena order; or flat (5*ey*ex*32,), the
                        layout `rrswin run` reads and writes (docs/formats.md "Plane arena").
  texture               float16 (height, width, 4), RGBA, height >= ey, width >= ex.
  surface               float16 (ey, ex, 4), RGBA, the bytes E61 stores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import _checks as C
from . import _rrswin
from .numerics import PROFILES
from .weights import WeightImage, default_weights

ENGINES = ("golden", "fast")
TEXTURE_MODES = ("clamp", "border_zero", "wrap", "mirror")
DEMO_EX, DEMO_EY = 40, 23  # the real geometry (facts A3): grid 5 x 3


# ---- readings -------------------------------------------------------------------------------------

def readings() -> list[dict]:
    """The registry of named readings of open spec questions, in the kernel's order: dicts with
    name, values (the allowed ones), default, question, where (spec reference) and settle
    (the capture of the original that would settle it). Pass {name: value} to run(readings=...)."""
    return _rrswin.readings()


def default_readings() -> dict[str, str]:
    """{name: default value} of every reading."""
    return {r["name"]: r["default"] for r in _rrswin.readings()}


def _readings_arg(value) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"readings: expected a dict {{name: value}}, found {type(value).__name__}")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError(f"readings: names and values must be strings, found {k!r}: {v!r}")
        out[k] = v
    return out


# ---- synthetic inputs -----------------------------------------------------------------------------

class SyntheticFrame(NamedTuple):
    """A deterministic input arena (uint8 (5, ey, ex, 32), never a NaN code) and texture
    (float16 (ey, ex, 4), clamp addressing)."""

    input_arena: np.ndarray
    texture: np.ndarray


def synthetic_frame(ex: int = DEMO_EX, ey: int = DEMO_EY, seed: int = 1, stress: bool = False) -> SyntheticFrame:
    """The synthetic inputs `rrswin run` uses without files (same bytes for the same ex, ey, seed,
    stress). stress=True mixes in the extremes that drive every nonlinear branch of the layer."""
    ex = C.integer(ex, "ex", 1, 1 << 20)
    ey = C.integer(ey, "ey", 1, 1 << 20)
    seed = C.integer(seed, "seed", 0, 2**64 - 1)
    if not isinstance(stress, bool):
        raise TypeError(f"stress: expected bool, found {type(stress).__name__}")
    arena, tex, w, h = _rrswin.synthetic_frame(ex, ey, seed, stress)
    return SyntheticFrame(arena.reshape(5, ey, ex, 32), tex.view(np.float16).reshape(h, w, 4))


def demo_frame() -> SyntheticFrame:
    """The demo frame's inputs: synthetic, seed 1, at the real geometry ex = 40, ey = 23 (run it with
    the default weights, as `rrswin run` does without files)."""
    return synthetic_frame(DEMO_EX, DEMO_EY, 1, False)


# ---- traces ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TraceStage:
    """One recorded stage of one block: values[warp, lane, reg] is b32 register `reg` of that lane
    (in register order), as the stage's description says (docs/formats.md "Traces"). `kind` says
    how a register decodes: 'f16x2' (two f16, low half first), 'e4m3x4' (four e4m3 codes, byte 0
    first), 'f32' or 'u32' (raw)."""

    name: str
    description: str
    kind: str
    values: np.ndarray  # uint32 (warps, lanes, regs)

    @property
    def warps(self) -> int:
        return self.values.shape[0]

    @property
    def lanes(self) -> int:
        return self.values.shape[1]

    @property
    def regs(self) -> int:
        return self.values.shape[2]

    def halves(self) -> np.ndarray:
        """The registers as f16x2 pairs: float16 (warps, lanes, regs, 2), low half first."""
        return self.values.view("<f2").reshape(self.warps, self.lanes, self.regs, 2)

    def decoded(self) -> np.ndarray:
        """The registers as their kind says: float16 (warps, lanes, regs, 2) for 'f16x2', uint8 codes
        (warps, lanes, regs, 4) for 'e4m3x4' (rrswin.e4m3_to_f16 gives their values), float32
        (warps, lanes, regs) for 'f32', the uint32 values themselves for 'u32'. Views, no copies."""
        shape = self.values.shape
        if self.kind == "f16x2":
            return self.halves()
        if self.kind == "e4m3x4":
            return self.values.view(np.uint8).reshape(*shape, 4)
        if self.kind == "f32":
            return self.values.view("<f4")
        return self.values


@dataclass(frozen=True)
class Trace:
    """The stages recorded for block `block` = (ctaid.x, ctaid.y), in the kernel's order."""

    block: tuple[int, int]
    stages: tuple[TraceStage, ...]

    def names(self) -> list[str]:
        return [s.name for s in self.stages]

    def __getitem__(self, name: str) -> TraceStage:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(f"no trace stage {name!r}; recorded: {', '.join(self.names()) or 'none'}")

    def __contains__(self, name) -> bool:
        return any(s.name == name for s in self.stages)

    def __iter__(self):
        return iter(self.stages)

    def __len__(self) -> int:
        return len(self.stages)


# ---- run ------------------------------------------------------------------------------------------

class RunResult(tuple):
    """(arena, surface), so that ``arena, surface = rrswin.run(...)`` works, with two more attributes:
    ``trace`` (a Trace when run(trace=...) asked for one, else None) and ``stats`` (the branch
    counters summed over all blocks when run(stats=True), else None)."""

    def __new__(cls, arena, surface, trace=None, stats=None):
        self = super().__new__(cls, (arena, surface))
        self.trace = trace
        self.stats = stats
        return self

    @property
    def arena(self) -> np.ndarray:
        return self[0]

    @property
    def surface(self) -> np.ndarray:
        return self[1]


def _arena_geometry(arena: np.ndarray, ex, ey, texture: np.ndarray) -> tuple[int, int]:
    if arena.ndim == 4:
        if arena.shape[0] != 5 or arena.shape[3] != 32:
            raise ValueError("input_arena: expected shape (5, ey, ex, 32) or (5*ey*ex*32,), found shape "
                             f"{C.shape_str(arena.shape)}")
        fy, fx = arena.shape[1], arena.shape[2]
        if ex is not None and ex != fx or ey is not None and ey != fy:
            raise ValueError(f"input_arena: its shape {C.shape_str(arena.shape)} says ex={fx}, ey={fy}, but ex={ex}, "
                             f"ey={ey} were given")
        return fx, fy
    if arena.ndim != 1:
        raise ValueError("input_arena: expected shape (5, ey, ex, 32) or (5*ey*ex*32,), found shape "
                         f"{C.shape_str(arena.shape)}")
    if ex is None or ey is None:
        # A flat arena carries no extents: take them from a frame-sized texture.
        th, tw = texture.shape[0], texture.shape[1]
        ex = tw if ex is None else ex
        ey = th if ey is None else ey
    if arena.size != 5 * ey * ex * 32:
        raise ValueError(f"input_arena: expected 5*ey*ex*32 = {5 * ey * ex * 32} bytes for ex={ex}, ey={ey}, found "
                         f"{arena.size} (pass ex= and ey= with a flat arena whose texture is larger than the frame)")
    return ex, ey


def run(input_arena, texture, weights=None, *, ex: int | None = None, ey: int | None = None,
        engine: str = "fast", profile: str = "ada", readings: Mapping[str, str] | None = None,
        threads: int = 0, block_offset: tuple[int, int] = (0, 0), grid: tuple[int, int] | None = None,
        texture_mode: str = "clamp", trace=None, trace_block: tuple[int, int] = (0, 0),
        stats: bool = False) -> RunResult:
    """One launch of the layer on a frame; returns RunResult (arena, surface).

    input_arena  uint8 (5, ey, ex, 32), or flat with ex/ey given or taken from the texture's shape.
    texture      float16 (height, width, 4) RGBA, at least ex x ey; fetched with `texture_mode`
                 ('clamp', 'border_zero', 'wrap', 'mirror') outside its extent.
    weights      a WeightImage, or what WeightImage() accepts (path, bytes, uint8 array);
                 None = the default image.
    engine       'fast' (default) or 'golden': the fast engine is bit-identical to the golden model
    profile      'ada' (NVIDIA Ada), 'zluda' (d4r's ZLUDA on RDNA4), 'hopper' (H100/H200/B200) or
                 'blackwell' (RTX 50, sm_120: a model, unmeasured);
                 readings  {name: value}, see readings();
    threads      0 = all hardware threads; the output bytes do not depend on it.
    block_offset (ox, oy), u16 each (param+80/+82): block b's origin is 8*ctaid - offset.
    grid         (grid_x, grid_y); None = the grid covering the frame.
    trace        None, 'all', a stage name or a list of names: record those stages of block
                 `trace_block` into result.trace.
    stats        True: the branch counters summed over all blocks in result.stats.

    The arena comes back in the input's shape (words the layer does not write are 0); the surface
    is float16 (ey, ex, 4) (pixels the layer does not write are 0). The GIL is released while the
    layer runs; the inputs are copied first, so other threads may change them meanwhile.
    """
    arena = C.array(input_arena, "input_arena", np.uint8)
    tex = C.array(texture, "texture", np.float16)
    if tex.ndim != 3 or tex.shape[2] != 4 or tex.shape[0] == 0 or tex.shape[1] == 0:
        raise ValueError(f"texture: expected shape (height, width, 4) RGBA, found shape {C.shape_str(tex.shape)}")
    if ex is not None:
        ex = C.integer(ex, "ex", 1, 1 << 20)
    if ey is not None:
        ey = C.integer(ey, "ey", 1, 1 << 20)
    ex, ey = _arena_geometry(arena, ex, ey, tex)
    if tex.shape[0] < ey or tex.shape[1] < ex:
        raise ValueError(f"texture: expected at least (ey, ex, 4) = ({ey}, {ex}, 4), found shape "
                         f"{C.shape_str(tex.shape)}")
    w = default_weights() if weights is None else WeightImage(weights)
    engine = C.choice(engine, "engine", ENGINES)
    profile = C.choice(profile, "profile", PROFILES)
    texture_mode = C.choice(texture_mode, "texture_mode", TEXTURE_MODES)
    rd = _readings_arg(readings)
    threads = C.integer(threads, "threads", 0, 4096)
    ox, oy = C.integer_pair(block_offset, "block_offset", 0, 0xFFFF)
    gx, gy = (0, 0) if grid is None else C.integer_pair(grid, "grid", 1, 1 << 20)
    if trace is None:
        stages = None
    elif isinstance(trace, str):
        stages = [trace]
    else:
        try:
            stages = list(trace)
        except TypeError:
            raise TypeError(f"trace: expected None, 'all', a stage name or a list of names, found "
                            f"{type(trace).__name__}") from None
        if not stages or not all(isinstance(s, str) and s for s in stages):
            raise TypeError(f"trace: expected a non-empty list of stage names, found {trace!r}")
    tbx, tby = C.integer_pair(trace_block, "trace_block", 0, 1 << 20)
    if stages is not None:
        # The grid run_frame will launch (api/frame.hpp): a block outside it would record nothing.
        full_x, full_y = (gx, gy) if grid is not None else ((ex + ox + 7) // 8, (ey + oy + 7) // 8)
        if tbx >= full_x or tby >= full_y:
            raise ValueError(f"trace_block: expected a block of the {full_x} x {full_y} grid, found ({tbx}, {tby})")
    if not isinstance(stats, bool):
        raise TypeError(f"stats: expected bool, found {type(stats).__name__}")

    r = _rrswin.run(arena.reshape(-1), tex.view(np.uint16).reshape(-1), tex.shape[1], tex.shape[0], w._core,
                  ex, ey, ox, oy, gx, gy, engine, profile, texture_mode, rd, threads, stages, (tbx, tby), stats)
    out_arena = r["arena"].reshape(arena.shape)
    surface = r["surface"].view(np.float16).reshape(ey, ex, 4)
    tr = None
    if stages is not None:
        tr = Trace(tuple(r["trace_block"]),
                   tuple(TraceStage(s["name"], s["description"], s["kind"], s["values"]) for s in r["trace"]))
        missing = [s for s in stages if s != "all" and s not in tr]
        if missing:
            raise ValueError(f"trace: the model recorded no stage named {', '.join(map(repr, missing))} for block "
                             f"{tr.block}; recorded: {', '.join(tr.names()) or 'none'} (trace='all' records every stage)")
    return RunResult(out_arena, surface, tr, r.get("stats"))
