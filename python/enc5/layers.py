"""The Swin layer template (docs/readings.md §7): enc5 and the layers before it, enc4 and enc3, as
data, and enc4's golden model through phase 62 (its final epilogue E62 is not modelled).

    >>> enc5.layer_spec("enc4")["mma"]
    1386
"""

from __future__ import annotations

import numpy as np

from . import _checks as C
from . import _enc5

LAYERS = ("enc3", "enc4", "enc5")


def layer_spec(name: str = "enc5") -> dict:
    """The layer's description: channels, heads, chunks, merge, phases, mma, image_bytes (with lane
    t = 3's 12 bytes), tool_extent (d4r's number), shared_bytes, grid, block, tokens, the merged
    output's and the surfaces' parameter offsets."""
    return _enc5.layer_spec(name)


def layer_phases(name: str = "enc5") -> list[dict]:
    """The layer's phase table, one dict per phase (number, kind, statements, tool and real shapes,
    mma, band, weight and bias byte ranges as the tool prints them, epi, warps, operand labels)."""
    return _enc5.layer_phases(name)


def layer_weight_regions(name: str = "enc5") -> list[dict]:
    """The layer's weight-image regions in address order (they tile [0, image_bytes))."""
    return _enc5.layer_weight_regions(name)


def layer_readings() -> list[dict]:
    """The merge layers' readings (merge-gather-order, merge-output-layout), default first."""
    return _enc5.layer_readings()


def synthetic_layer_weights(name: str, seed: int = 1) -> np.ndarray:
    """A synthetic weight image of the layer (enc5's design scaled to it) as a uint8 array."""
    return _enc5.synthetic_layer_weights(C.choice(name, "name", LAYERS), C.integer(seed, "seed", 0, 2**64 - 1))


def run_enc4(input_arena, weights=None, *, ex: int = 80, ey: int = 46, block_offset=(0, 0), profile: str = "ada",
             readings: dict | None = None, layer_readings: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """enc4's golden model through phase 62: returns (arena, merged), the plane arena (param+48,
    5*ey*ex*32 bytes) and the patch merge's output (param+56, at (ex>>1) x (ey>>1)). `weights`: a
    533856-byte uint8 array (default: the synthetic enc4 image, seed 1)."""
    ex = C.integer(ex, "ex", 2, 4096)
    ey = C.integer(ey, "ey", 2, 4096)
    ox, oy = C.integer_pair(block_offset, "block_offset", 0, 7)
    a = np.ascontiguousarray(np.asarray(input_arena, dtype=np.uint8).reshape(-1))
    w = synthetic_layer_weights("enc4", 1) if weights is None else np.ascontiguousarray(
        np.asarray(weights, dtype=np.uint8).reshape(-1))
    return _enc5.run_enc4_golden(a, w, ex, ey, ox, oy, profile,
                                 dict(readings or {}), dict(layer_readings or {}))
