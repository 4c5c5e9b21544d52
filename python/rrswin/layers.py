"""The Swin layer template (docs/readings.md §7): enc5 and the layers before it, enc4 and enc3, as
data, and the merge layers' model through their final epilogue (enc4's E62, enc3's E48: run_layer;
run_enc4 without a texture).

    >>> rrswin.layer_spec("enc4")["mma"]
    1386
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import _checks as C
from . import _rrswin

LAYERS = tuple(_rrswin.layer_names())  # the network in order, enc0..enc5, dec4..dec0 (model/layers.def)


def layer_spec(name: str = "enc5") -> dict:
    """The layer's description: channels, heads, chunks, merge, phases, mma, image_bytes (with lane
    t = 3's 12 bytes), tool_extent (d4r's number), shared_bytes, grid, block, tokens, the merged
    output's and the surfaces' parameter offsets."""
    return _rrswin.layer_spec(name)


def layer_phases(name: str = "enc5") -> list[dict]:
    """The layer's phase table, one dict per phase (number, kind, statements, tool and real shapes,
    mma, band, weight and bias byte ranges as the tool prints them, epi, warps, operand labels)."""
    return _rrswin.layer_phases(name)


def layer_weight_regions(name: str = "enc5") -> list[dict]:
    """The layer's weight-image regions in address order (they tile [0, image_bytes))."""
    return _rrswin.layer_weight_regions(name)


def layer_readings() -> list[dict]:
    """The merge layers' readings (merge-gather-order, merge-output-layout, sigmoid-*), default first."""
    return _rrswin.layer_readings()


def synthetic_layer_weights(name: str, seed: int = 1) -> np.ndarray:
    """A synthetic weight image of the layer (enc5's design scaled to it) as a uint8 array."""
    return _rrswin.synthetic_layer_weights(C.choice(name, "name", LAYERS), C.integer(seed, "seed", 0, 2**64 - 1))


def run_enc4(input_arena, weights=None, *, ex: int = 80, ey: int = 46, block_offset=(0, 0), profile: str = "ada",
             readings: dict | None = None, layer_readings: dict | None = None,
             engine: str = "golden") -> tuple[np.ndarray, np.ndarray]:
    """enc4 through phase 62 (no texture, so no E62): returns (arena, merged), the plane arena
    (param+48, 5*ey*ex*32 bytes) and the patch merge's output (param+56, at (ex>>1) x (ey>>1)).
    `weights`: a 533856-byte uint8 array (default: the synthetic enc4 image, seed 1). run_layer
    also runs E62 and returns its surfaces."""
    r = _run_merge_layer("enc4", input_arena, weights, None, ex, ey, block_offset, engine, profile, readings, layer_readings)
    return r["arena"], r["merged"]


def run_layer(layer: str, input_arena, texture, weights=None, *, ex: int | None = None, ey: int | None = None,
              block_offset=(0, 0), engine: str = "fast", profile: str = "ada", readings: dict | None = None,
              layer_readings: dict | None = None, threads: int = 1) -> dict:
    """One launch of a layer that runs (rrswin.layer_spec(layer)["runnable"]): enc5 or a merge layer.
    input_arena: the previous layer's plane arena, layer_spec(layer)["input_planes"] planes (enc4 5,
    enc3 4) x ey x ex x 32 bytes. texture: float16 (ey, ex, 4) RGBA at the token grid (param+88).
    Returns a dict named by parameter offset: arena (param+48, the same planes), merged (param+56,
    merge_out/32 planes at the halved extents), surface112 / surface120 (float16 (ey, ex, 4)) and
    surface128 (float16 (ey>>1, ex>>1, 4)), the final epilogue's surfaces; enc5 (no merge, one
    surface) returns arena and surface112, the bytes of rrswin.run. engine 'fast' (default) or 'golden': the same bytes, for
    every `threads`. layer_readings: the merge layers' readings (layer_readings())."""
    layer = C.choice(layer, "layer", LAYERS)
    if layer == "enc5":
        # enc5 through rrswin.run (the same bytes): its arena (param+48) and its one surface (+112).
        # `layer_readings` are the merge layers' and do not apply to it.
        from .frame import run
        if layer_readings:
            raise ValueError("layer_readings: enc5 has none (they are the merge layers' readings)")
        r = run(input_arena, texture, weights, ex=ex, ey=ey, engine=engine, profile=profile, readings=readings,
                threads=threads, block_offset=block_offset)
        return {"arena": r.arena, "surface112": r.surface}
    t = np.asarray(texture)
    if t.dtype != np.float16 or t.ndim != 3 or t.shape[2] != 4:
        raise ValueError(f"texture: expected a float16 (ey, ex, 4) array, found {t.dtype} {t.shape}")
    ey = t.shape[0] if ey is None else ey
    ex = t.shape[1] if ex is None else ex
    if t.shape[:2] != (ey, ex):
        raise ValueError(f"texture: expected the token grid ({ey}, {ex}, 4), found {t.shape}")
    r = _run_merge_layer(layer, input_arena, weights, np.ascontiguousarray(t).view(np.uint16).reshape(-1), ex, ey, block_offset,
                         engine, profile, readings, layer_readings, threads)
    for name, (h, w) in (("surface112", (ey, ex)), ("surface120", (ey, ex)), ("surface128", (ey >> 1, ex >> 1))):
        r[name] = r[name].view(np.float16).reshape(h, w, 4)
    return r


def _run_merge_layer(layer, input_arena, weights, texture, ex, ey, block_offset, engine, profile, readings, layer_readings,
                     threads=1) -> dict:
    ex = C.integer(ex, "ex", 2, 4096)
    ey = C.integer(ey, "ey", 2, 4096)
    ox, oy = C.integer_pair(block_offset, "block_offset", 0, 7)
    engine = C.choice(engine, "engine", ("fast", "golden"))
    threads = C.integer(threads, "threads", 1, 256)
    # Strict dtypes, as rrswin.run (docs/python.md): an int64 300 is an error, not 44 (issue 38).
    a = C.array(input_arena, "input_arena", np.uint8).reshape(-1)
    w = synthetic_layer_weights(layer, 1) if weights is None else C.array(weights, "weights", np.uint8).reshape(-1)
    for name, m in (("readings", readings), ("layer_readings", layer_readings)):
        if m is not None and not isinstance(m, Mapping):
            raise TypeError(f"{name}: expected a dict of name -> value, found {type(m).__name__}")
    return _rrswin.run_merge_layer(layer, a, w, texture, ex, ey, ox, oy, engine, profile, dict(readings or {}),
                                 dict(layer_readings or {}), threads)
