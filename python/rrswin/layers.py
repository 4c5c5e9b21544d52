"""The Swin layer template (docs/readings.md §7, §9): the eleven layers as data, and the layers that
run through their final epilogue (run_layer: enc5; the merge layers enc4, enc3, enc2 with their
E62/E48/E38; the decoders dec4, dec3, dec2 with the patch expand front and the decoder final;
run_enc4 without a texture).

    >>> rrswin.layer_spec("enc4")["mma"]
    1386
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np

from . import _checks as C
from . import _rrswin

LAYERS = tuple(_rrswin.layer_names())  # the network in order, enc0..enc5, dec4..dec0 (model/layers.def)


def layer_spec(name: str = "enc5") -> dict:
    """The layer's description: channels, heads, chunks, merge, front ('none', 'embedding',
    'patch_expand'), decoder (front == 'patch_expand'), phases, mma, image_bytes (with lane t = 3's 12
    bytes), tool_extent (d4r's number), shared_bytes, grid, block, tokens, input_planes (the +8
    arena's planes: C/32, a decoder's the front's K/32), half_resolution_input (a decoder's +8 is at
    (ex>>1, ey>>1)), front_k, skip_planes (a decoder's +24: C/32; None otherwise), the merged
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


_DECODER_ARGS = ("skip", "texture96", "texture104")


def _decoders() -> str:
    return ", ".join(n for n in LAYERS if _rrswin.layer_spec(n)["decoder"] and _rrswin.layer_spec(n)["runnable"])


def run_layer(layer: str, input_arena, texture, weights=None, *, skip=None, texture96=None, texture104=None,
              scale=(0.5, 0.5), ex: int | None = None, ey: int | None = None, block_offset=(0, 0), engine: str = "fast",
              profile: str = "ada", readings: dict | None = None, layer_readings: dict | None = None,
              threads: int = 1) -> dict:
    """One launch of a layer that runs (rrswin.layer_spec(layer)["runnable"]): enc5, a merge layer
    (enc4, enc3, enc2, enc1) or a decoder (dec4, dec3, dec2, dec1, dec0). engine 'fast' (default) or 'golden': the same
    bytes, for every `threads`. layer_readings: the template's layer readings (layer_readings()).
    Outputs are named by parameter offset.

    enc5 and the merge layers: input_arena is the previous layer's plane arena,
    layer_spec(layer)["input_planes"] planes (enc4 5, enc3 4, enc2 3) x ey x ex x 32 bytes (flat or
    4-D); texture is float16 (ey, ex, 4) RGBA at the token grid (param+88); ex/ey default from the
    texture. A merge layer returns arena (param+48, the same planes, flat uint8), merged (param+56,
    merge_out/32 planes at the halved extents), surface112 / surface120 (float16 (ey, ex, 4)) and
    surface128 (float16 (ey>>1, ex>>1, 4)), the final epilogue's surfaces; enc5 (no merge, one
    surface) returns arena and surface112, the bytes of rrswin.run. skip, texture96, texture104 and
    scale are the decoders' only: given to another layer they are a ValueError.

    A decoder (layer_spec(layer)["decoder"], docs/readings.md §9) reads, at the token grid ex x ey:
      input_arena  uint8, the lower level's arena at HALF the grid (param+8): input_planes
                   (= the front's K/32: dec4 5, dec3 5, dec2 4, dec1 3) x (ey>>1) x (ex>>1) x 32 bytes;
      skip         uint8, the encoder of the same level's arena (param+24): skip_planes (= C/32:
                   dec4 5, dec3 4, dec2 3, dec1 2) x ey x ex x 32 bytes, flat or 4-D (planes, ey, ex, 32);
      texture      float16 (h, w, 4) of any size h, w >= 1 (param+88, sampled at (x + 0.5) * scale);
      texture96, texture104  float16 (ey, ex, 4) (param+96, +104);
      scale        (sx, sy), finite float32 values (param+136), default (0.5, 0.5).
    skip, texture96 and texture104 are required; ex/ey default from the skip's 4-D shape or from
    texture96 (the token grid, never the half-resolution input arena). Returns arena (param+48,
    skip_planes x ey x ex x 32 bytes, flat uint8) and surface112 (float16 (ey, ex, 4)): no merged
    output and no +120/+128. The bytes equal `rrswin run --layer dec4 --input --skip --texture
    --texture96 --texture104 --scale`. dec0 (input_planes 2, skip_planes 1; DOC-d0 §4.2) returns
    arena = its +48, 8 e4m3 bytes a pixel at byte 8 (ex y + x) (ey x ex x 8, flat uint8), surface144
    (float32 (ey, ex, 4): E19's tanh values, +144) and surface112."""
    layer = C.choice(layer, "layer", LAYERS)
    spec = _rrswin.layer_spec(layer)
    if not spec["runnable"]:
        runnable = ", ".join(n for n in LAYERS if _rrswin.layer_spec(n)["runnable"])
        raise ValueError(f"layer: expected a layer that runs ({runnable}), found {layer!r} (tables only)")
    if spec["decoder"]:
        return _run_decoder(layer, spec, input_arena, texture, weights, skip, texture96, texture104, scale, ex, ey,
                            block_offset, engine, profile, readings, layer_readings, threads)
    for name, value in zip(_DECODER_ARGS, (skip, texture96, texture104)):
        if value is not None:
            raise ValueError(f"{name}: only the decoders ({_decoders()}) take it; {layer} is not one (expected None)")
    if not _is_default_scale(scale):
        raise ValueError(f"scale: only the decoders ({_decoders()}) take it; {layer} is not one "
                         f"(expected the default (0.5, 0.5), found {scale!r})")
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


def _is_default_scale(scale) -> bool:
    try:
        sx, sy = scale
        return (float(sx), float(sy)) == (0.5, 0.5)
    except (TypeError, ValueError):
        return False


def _scale(scale) -> tuple[float, float]:
    """(sx, sy): two real numbers (bools refused) finite as float32 (param+136 holds a v2.f32)."""
    try:
        sx, sy = scale
    except (TypeError, ValueError):
        raise ValueError(f"scale: expected a pair (sx, sy) of finite floats, found {scale!r}") from None
    out = []
    for i, v in enumerate((sx, sy)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError(f"scale[{i}]: expected a finite float, found {type(v).__name__} {v!r}")
        with np.errstate(over="ignore"):
            f32 = np.float32(v)
        if not np.isfinite(f32):
            raise ValueError(f"scale[{i}]: expected a finite float32 value (param+136), found {v!r}")
        out.append(float(v))
    return out[0], out[1]


def _grid_texture(t, name: str) -> np.ndarray:
    a = C.array(t, name, np.float16)
    if a.ndim != 3 or a.shape[2] != 4:
        raise ValueError(f"{name}: expected a float16 (ey, ex, 4) array at the token grid, found shape {C.shape_str(a.shape)}")
    return a


def _run_decoder(layer, spec, input_arena, texture, weights, skip, texture96, texture104, scale, ex, ey, block_offset, engine,
                 profile, readings, layer_readings, threads) -> dict:
    where = {"skip": "+24, the encoder of its level's arena", "texture96": "+96", "texture104": "+104"}
    for name, value in zip(_DECODER_ARGS, (skip, texture96, texture104)):
        if value is None:
            raise ValueError(f"{name}: required for a decoder ({layer}'s {where[name]}); expected "
                             + ("a uint8 arena" if name == "skip" else "a float16 (ey, ex, 4) texture") + ", found None")
    planes, skip_planes = spec["input_planes"], spec["skip_planes"]
    sk = C.array(skip, "skip", np.uint8)
    t96 = _grid_texture(texture96, "texture96")
    t104 = _grid_texture(texture104, "texture104")
    # The token grid: ex/ey, else the skip's 4-D shape, else texture96's (never the half-resolution input).
    if sk.ndim == 4:
        if sk.shape[0] != skip_planes or sk.shape[3] != 32:
            raise ValueError(f"skip: expected shape ({skip_planes}, ey, ex, 32) ({layer}'s +24: C/32 planes) or flat, "
                             f"found shape {C.shape_str(sk.shape)}")
        gy, gx, source = sk.shape[1], sk.shape[2], "the skip's shape"
    elif sk.ndim == 1:
        gy, gx, source = t96.shape[0], t96.shape[1], "texture96's shape"
    else:
        raise ValueError(f"skip: expected shape ({skip_planes}, ey, ex, 32) or flat, found shape {C.shape_str(sk.shape)}")
    if ex is not None or ey is not None:
        source = "ex, ey"
    ex = C.integer(gx if ex is None else ex, "ex", 2, 4096)
    ey = C.integer(gy if ey is None else ey, "ey", 2, 4096)
    want = skip_planes * ey * ex * 32
    if sk.size != want or (sk.ndim == 4 and sk.shape[1:3] != (ey, ex)):
        raise ValueError(f"skip: expected {want} bytes ({skip_planes}, {ey}, {ex}, 32) = C/32 planes at the token grid "
                         f"{ex} x {ey} (from {source}), found shape {C.shape_str(sk.shape)} ({sk.size} bytes)")
    for name, a in (("texture96", t96), ("texture104", t104)):
        if a.shape != (ey, ex, 4):
            raise ValueError(f"{name}: expected shape ({ey}, {ex}, 4) (the token grid), found shape {C.shape_str(a.shape)}")
    a = C.array(input_arena, "input_arena", np.uint8)
    hy, hx = ey >> 1, ex >> 1
    want = planes * hy * hx * 32
    if a.size != want or (a.ndim == 4 and a.shape != (planes, hy, hx, 32)) or a.ndim not in (1, 4):
        raise ValueError(f"input_arena: expected {want} bytes ({planes}, {hy}, {hx}, 32) = {layer}'s half-resolution input "
                         f"(+8: the front's K/32 planes at (ex>>1, ey>>1)), found shape {C.shape_str(a.shape)} ({a.size} bytes)")
    t = C.array(texture, "texture", np.float16)
    if t.ndim != 3 or t.shape[2] != 4 or t.shape[0] < 1 or t.shape[1] < 1:
        raise ValueError(f"texture: expected a float16 (h, w, 4) array with h, w >= 1 ({layer}'s +88: any size), "
                         f"found shape {C.shape_str(t.shape)}")
    sx, sy = _scale(scale)
    ox, oy = C.integer_pair(block_offset, "block_offset", 0, 7)
    engine = C.choice(engine, "engine", ("fast", "golden"))
    threads = C.integer(threads, "threads", 1, 256)
    w = synthetic_layer_weights(layer, 1) if weights is None else C.array(weights, "weights", np.uint8).reshape(-1)
    for name, m in (("readings", readings), ("layer_readings", layer_readings)):
        if m is not None and not isinstance(m, Mapping):
            raise TypeError(f"{name}: expected a dict of name -> value, found {type(m).__name__}")
    r = _rrswin.run_merge_layer(layer, a.reshape(-1), w, t.view(np.uint16).reshape(-1), ex, ey, ox, oy, engine, profile,
                                dict(readings or {}), dict(layer_readings or {}), threads, sk.reshape(-1),
                                t96.view(np.uint16).reshape(-1), t104.view(np.uint16).reshape(-1), (t.shape[1], t.shape[0]),
                                (sx, sy))
    r["surface112"] = r["surface112"].view(np.float16).reshape(ey, ex, 4)
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


def _network_weights(weights) -> list:
    """run_network's `weights` as (layer, name, bytes) for every runnable layer ([] for None)."""
    if weights is None:
        return []
    runnable = [n for n in LAYERS if _rrswin.layer_spec(n)["runnable"]]
    if isinstance(weights, (str, os.PathLike)):
        # A folder of <layer>.bin, as `rrswin run --network --weights DIR` reads it.
        folder = os.fspath(weights)
        if not os.path.isdir(folder):
            raise ValueError(f"{folder}: at byte offset 0: expected a folder of <layer>.bin weight images, found no such folder")
        out = []
        for n in runnable:
            path = os.path.join(folder, n + ".bin")
            if not os.path.isfile(path):
                raise ValueError(f"{path}: at byte offset 0: expected the {n} weight image, "
                                 f"{_rrswin.layer_spec(n)['image_bytes']} bytes, found no such file")
            with open(path, "rb") as f:
                out.append((n, path, f.read()))
        return out
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights: expected a dict {{layer name: uint8 array or bytes}} or a folder path, found {type(weights).__name__}")
    unknown = [k for k in weights if k not in runnable]
    if unknown:
        raise ValueError(f"weights: expected the runnable layers ({', '.join(runnable)}), found {unknown[0]!r}")
    missing = [n for n in runnable if n not in weights]
    if missing:
        raise ValueError(f"weights: no image for {missing[0]} (every runnable layer's, or weights=None for the defaults)")
    out = []
    for n in runnable:
        v = weights[n]
        b = bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else C.array(v, f"weights[{n!r}]", np.uint8).tobytes()
        out.append((n, f"weights[{n!r}]", b))
    return out


def run_network(render=(256, 128), *, engine: str = "fast", profile: str = "ada", threads: int = 1, seed: int = 1,
                weights=None) -> dict:
    """The layers that run, chained as one network on the embedded demo inputs, exactly as
    `rrswin run --network --render W,H --seed N` runs them (docs/network.md "Running the network"):
    each layer's default weight image, synthetic textures at its level's grid, enc0's synthetic
    staged input tensor. Returns {layer name: outputs} in network order for every layer that ran, the
    outputs named as run_layer names them (arena, merged, surface112/120/128 where the layer has
    them; dec0's surface144, float32 (ey, ex, 4)) plus 'seconds', 'ex', 'ey' (the layer's token grid). engine 'fast' or 'golden': the same
    bytes. `weights`: None (the embedded images), a dict {layer name: uint8 array or bytes} with every
    runnable layer's image, or a folder path holding <layer>.bin for each (`rrswin run --network
    --weights DIR`); a missing layer or file is a ValueError, and so is a wrong size (naming the file
    or weights['layer'], expected and found)."""
    if not (isinstance(render, (tuple, list)) and len(render) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in render)):
        raise TypeError("render: a pair of ints (width, height)")
    for name, v in (("threads", threads), ("seed", seed)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{name}: an int")
    if seed < 0 or seed >= 1 << 62:
        raise ValueError("seed: 0..2^62-1")
    return _rrswin.run_network_demo(render[0], render[1], profile, engine, threads, seed, _network_weights(weights))


def replay_network(capture, chained: bool = False, *, engine: str = "fast", profile: str = "ada", threads: int = 1) -> dict:
    """A whole frame's capture (a folder of launch dumps of the eleven layers, as `rrswin capture
    --network --synthetic` writes) replayed as `rrswin replay --network DIR [--chained]` replays it
    (docs/network.md "Captures of a whole frame"), writing nothing. Returns {'reproduces': bool,
    'first_differing': layer name or None, 'chained': bool, 'start' (chained: where the chain starts),
    'layers': [one dict per layer in network order: 'layer', 'launch', 'status' ('reproduces',
    'differs' or 'not replayable'), 'ex', 'ey', and 'why' (not replayable) or 'bytes_compared',
    'bytes_differing', 'per_output' ({parameter offset: bytes differing}), 'first' (None or {'arg',
    'offset', 'where', 'block'}), chained: 'inputs', 'input_bytes_differing']}. A damaged folder raises
    ValueError (InputError: the file, offset, expected and found) or RuntimeError (no launch)."""
    if not isinstance(capture, (str, os.PathLike)):
        raise TypeError("capture: a folder path")
    if not isinstance(chained, bool):
        raise TypeError("chained: a bool")
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError("threads: an int")
    return _rrswin.replay_network_capture(os.fspath(capture), chained, profile, engine, threads)



# The outputs of a layer in a run_network result (and, as files, in `rrswin run --network`'s
# DIR/<layer>/): the surfaces are compared per f16 value, the rest byte for byte.
_NETWORK_OUTPUTS = {"arena": np.uint8, "merged": np.uint8, "surface112": None, "surface120": None, "surface128": None,
                    "surface144": np.float32}
_NETWORK_RUN_KEYS = ("seconds", "ex", "ey")  # run_network's figures beside the outputs: not compared


def _network_side(side, label: str):
    """diff_network's `a` or `b` for the core: a folder path as a str, or a run_network result as a
    list of (layer, output, bytes, width, height), width and height a surface's texels."""
    if isinstance(side, (str, os.PathLike)):
        return os.fspath(side)
    if not isinstance(side, Mapping):
        raise TypeError(f"{label}: expected a folder path (`rrswin run --network` output) or a run_network result "
                        f"(a dict), found {type(side).__name__}")
    out = []
    for layer, outputs in side.items():
        if layer not in LAYERS:
            raise ValueError(f"{label}: expected layer names ({', '.join(LAYERS)}) as keys, found {layer!r}")
        if not isinstance(outputs, Mapping):
            raise TypeError(f"{label}[{layer!r}]: expected a dict of the layer's outputs, found {type(outputs).__name__}")
        for name, v in outputs.items():
            if name in _NETWORK_RUN_KEYS:
                continue
            if name not in _NETWORK_OUTPUTS:
                raise ValueError(f"{label}[{layer!r}]: expected outputs named {', '.join(_NETWORK_OUTPUTS)} (and "
                                 f"{', '.join(_NETWORK_RUN_KEYS)}), found {name!r}")
            where = f"{label}[{layer!r}][{name!r}]"
            if not isinstance(v, np.ndarray):
                raise TypeError(f"{where}: expected a numpy array, found {type(v).__name__}")
            dtype = _NETWORK_OUTPUTS[name]
            if dtype is None:
                # A surface: RGBA16F texels, as run_network's uint16 f16 bits or as float16 values.
                if v.dtype != np.uint16 and v.dtype != np.float16:
                    raise TypeError(f"{where}: expected dtype uint16 (f16 bits) or float16, found dtype {v.dtype.name}")
                if v.ndim != 3 or v.shape[2] != 4 or v.shape[0] < 1 or v.shape[1] < 1:
                    raise ValueError(f"{where}: expected a surface of shape (h, w, 4), found shape {C.shape_str(v.shape)}")
                out.append((layer, name, C.contiguous(v).tobytes(), v.shape[1], v.shape[0]))
            else:
                out.append((layer, name, C.array(v, where, dtype).tobytes(), 0, 0))
    if not out:
        raise ValueError(f"{label}: expected a run_network result (layer name -> its outputs), found no output")
    return out


def diff_network(a, b, *, strict: bool = False) -> dict:
    """Two runs of the network compared layer by layer, as `rrswin diff --network A B [--strict]`
    compares two `rrswin run --network` folders (docs/network.md "Comparing runs and profiles"). `a`
    and `b`: each a folder path or a run_network(...) result. Returns {'identical': bool,
    'first_differing': layer name or None, 'differing_layers': int, 'layers': [one dict per layer
    on either side, in network order: 'layer', 'in_a', 'in_b', 'identical', 'outputs': {output name
    ('arena', 'merged', 'surface112', ...): {'bytes_compared', 'bytes_differing', 'size_a',
    'size_b', and for a surface 'values_differing' (f16 values) and 'max_ulp' (their largest
    distance), else 'first_block' ((bx, by), the 8x8 token block of the first differing byte, or
    None)}}]}. A layer on one side only differs only with strict=True. A bad folder or result (no
    layer, an output on one side only, surfaces of two shapes) raises ValueError naming it; a wrong
    type TypeError."""
    if not isinstance(strict, bool):
        raise TypeError(f"strict: expected a bool, found {type(strict).__name__}")
    return _rrswin.diff_network(_network_side(a, "a"), _network_side(b, "b"), strict)
