"""rrswin.run on numpy arrays: against `rrswin run --layer enc5` (the C++ tool's files: inputs, arena, surface,
trace), determinism across thread counts and calls, dtypes and shapes, traces, statistics, the
GIL released while it runs, and errors that name the argument."""

from __future__ import annotations

import struct
import threading
import time

import numpy as np
import pytest

import rrswin
from exr_reader import read_rgba_half

EX, EY, SEED = 16, 8, 3  # 2 blocks: small enough for a test, two blocks to split over threads


@pytest.fixture(scope="module")
def frame():
    return rrswin.synthetic_frame(EX, EY, SEED)


@pytest.fixture(scope="module")
def reference(frame):
    """One single-threaded golden run that the other tests compare against."""
    return rrswin.run(frame.input_arena, frame.texture, engine="golden", threads=1, stats=True)


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint16) if a.dtype == np.float16 else a


# ---- against the C++ tool ---------------------------------------------------------------------------

def read_trace_bin(path):
    """docs/formats.md "Traces": magic, version, block, then the stages."""
    data = open(path, "rb").read()
    assert data[:8] == b"ENC5TRC1"
    version, bx, by, n = struct.unpack_from("<Iiii", data, 8)
    assert version == 1
    pos, stages = 24, []
    for _ in range(n):
        (ln,) = struct.unpack_from("<I", data, pos)
        name = data[pos + 4:pos + 4 + ln].decode()
        pos += 4 + ln
        (ld,) = struct.unpack_from("<I", data, pos)
        desc = data[pos + 4:pos + 4 + ld].decode()
        pos += 4 + ld
        kind, w, lanes, regs = struct.unpack_from("<4I", data, pos)
        pos += 16
        values = np.frombuffer(data, "<u4", w * lanes * regs, pos).reshape(w, lanes, regs)
        pos += 4 * w * lanes * regs
        stages.append((name, desc, ("f16x2", "e4m3x4", "f32", "u32")[kind], values))
    assert pos == len(data)
    return (bx, by), stages


TOOL_CASES = [
    # (tool arguments, module keyword arguments)
    ([], {}),
    (["--stress", "--profile", "zluda", "--threads", "2"], {"stress": True, "profile": "zluda", "threads": 2}),
    (["--block-offset", "3,5", "--reading", "arena-order=natural", "--reading", "filter-border=clamp"],
     {"block_offset": (3, 5), "readings": {"arena-order": "natural", "filter-border": "clamp"}}),
    (["--profile", "hopper"], {"profile": "hopper"}),
    (["--profile", "blackwell"], {"profile": "blackwell"}),
]


@pytest.mark.parametrize("tool_args,kw", TOOL_CASES, ids=["default", "stress-zluda", "offset-readings", "hopper", "blackwell"])
def test_run_equals_the_tool(cli, tmp_path, tool_args, kw):
    if not cli.has_run():
        pytest.skip("this build's rrswin has no `rrswin run` yet")
    ex, ey, seed = 13, 9, 5  # odd extents: partial blocks on both edges
    cli("run", "--layer", "enc5", "--ex", str(ex), "--ey", str(ey), "--seed", str(seed), "--save-inputs", "--trace", "all",
        "--block", "1,0", "-o", str(tmp_path), *tool_args)
    kw = dict(kw)
    stress = kw.pop("stress", False)
    f = rrswin.synthetic_frame(ex, ey, seed, stress=stress)
    # The tool's inputs are the module's synthetic assets, byte for byte.
    assert (tmp_path / "input_arena.bin").read_bytes() == f.input_arena.tobytes()
    np.testing.assert_array_equal(bits(read_rgba_half(tmp_path / "texture.exr")), bits(f.texture))
    w = rrswin.WeightImage(tmp_path / "weights.bin")
    assert w == rrswin.synthetic_weights(seed, stress=stress)  # the tool's --seed seeds the weights too
    # The outputs.
    r = rrswin.run(f.input_arena.reshape(-1), f.texture, w, trace="all", trace_block=(1, 0), **kw)
    assert (tmp_path / "arena.bin").read_bytes() == r.arena.tobytes()
    np.testing.assert_array_equal(bits(read_rgba_half(tmp_path / "surface112.exr")), bits(r.surface))
    block, stages = read_trace_bin(tmp_path / "trace.bin")
    assert block == r.trace.block == (1, 0)
    assert [s[0] for s in stages] == r.trace.names()
    for (name, desc, kind, values), s in zip(stages, r.trace):
        assert (desc, kind) == (s.description, s.kind), name
        np.testing.assert_array_equal(values, s.values, err_msg=name)


# ---- determinism ------------------------------------------------------------------------------------

def test_threads_and_repeated_calls_give_the_same_bytes(frame, reference):
    for threads in (2, 1):  # 2 threads over 2 blocks, then a second single-threaded call
        a, s = rrswin.run(frame.input_arena, frame.texture, threads=threads)
        np.testing.assert_array_equal(a, reference.arena, err_msg=f"threads={threads}")
        np.testing.assert_array_equal(bits(s), bits(reference.surface), err_msg=f"threads={threads}")


def test_fast_engine_gives_the_golden_bytes(frame, reference):
    a, s = rrswin.run(frame.input_arena, frame.texture, engine="fast")
    np.testing.assert_array_equal(a, reference.arena)
    np.testing.assert_array_equal(bits(s), bits(reference.surface))


def test_flat_arena_and_larger_texture(frame, reference):
    flat = frame.input_arena.reshape(-1)
    r = rrswin.run(flat, frame.texture)  # extents from the frame-sized texture
    assert r.arena.shape == flat.shape
    np.testing.assert_array_equal(r.arena, reference.arena.reshape(-1))
    # A texture larger than the frame, clamp-addressed: the frame's texels are what is read inside
    # the frame, so with the border replicated the result is unchanged.
    big = np.pad(frame.texture, ((0, 3), (0, 5), (0, 0)), mode="edge")
    a, s = rrswin.run(flat, big, ex=EX, ey=EY)
    np.testing.assert_array_equal(a, reference.arena.reshape(-1))
    np.testing.assert_array_equal(bits(s), bits(reference.surface))


def test_explicit_default_weights_and_readings_change_nothing(frame, reference):
    a, s = rrswin.run(frame.input_arena, frame.texture, rrswin.default_weights().array, profile="ada",
                    readings=rrswin.default_readings())
    np.testing.assert_array_equal(a, reference.arena)
    np.testing.assert_array_equal(bits(s), bits(reference.surface))


# ---- results ----------------------------------------------------------------------------------------

def test_dtypes_shapes_and_stats(frame, reference):
    arena, surface = reference  # a RunResult unpacks as (arena, surface)
    assert arena.dtype == np.uint8 and arena.shape == (5, EY, EX, 32)
    assert surface.dtype == np.float16 and surface.shape == (EY, EX, 4)
    assert arena.flags.writeable and surface.flags.writeable  # results belong to the caller
    assert reference.trace is None
    st = reference.stats
    assert st["pixels_written"] == EX * EY
    assert st["arena_stores"] > 0 and st["arena_stores_dropped"] == 0
    assert set(st) >= {"e11_clamp_low", "e4m3_saturated", "f16_subnormal", "act_clamp_high"}
    assert np.isfinite(surface.astype(np.float32)).all()
    assert arena.any()


def test_inputs_are_not_modified(frame):
    before = (frame.input_arena.copy(), frame.texture.copy())
    rrswin.run(frame.input_arena, frame.texture, threads=2)
    np.testing.assert_array_equal(frame.input_arena, before[0])
    np.testing.assert_array_equal(bits(frame.texture), bits(before[1]))


def test_a_reading_changes_the_result(frame, reference):
    natural = rrswin.run(frame.input_arena, frame.texture, readings={"arena-order": "natural"})
    # arena-order only decides where E60 puts each code: the same codes, placed otherwise.
    assert not np.array_equal(natural.arena, reference.arena)
    np.testing.assert_array_equal(np.sort(natural.arena, axis=None), np.sort(reference.arena, axis=None))
    np.testing.assert_array_equal(bits(natural.surface), bits(reference.surface))


def test_trace(frame):
    r = rrswin.run(frame.input_arena[:, :, :8], frame.texture[:, :8], trace="all")
    t = r.trace
    assert t.block == (0, 0) and len(t) > 10
    for s in t:
        assert isinstance(s, rrswin.TraceStage) and s.name and s.description
        assert s.values.dtype == np.uint32 and s.values.ndim == 3
        assert s.values.shape == (s.warps, s.lanes, s.regs) and s.lanes == 32
        assert s.kind in ("f16x2", "e4m3x4", "f32", "u32")
        d = s.decoded()
        assert d.base is not None  # a view
    first = t.names()[0]
    assert first in t and t[first] is t.stages[0]
    with pytest.raises(KeyError, match="no trace stage 'nope'"):
        t["nope"]
    # Asking for some stages records exactly those, with the same values.
    some = [t.names()[1], t.names()[-1]]
    r2 = rrswin.run(frame.input_arena[:, :, :8], frame.texture[:, :8], trace=some)
    assert r2.trace.names() == some
    for name in some:
        np.testing.assert_array_equal(r2.trace[name].values, t[name].values)


# ---- the GIL ----------------------------------------------------------------------------------------

def progress_during(call) -> tuple[int, float]:
    """Runs `call` while a Python thread counts; returns the count the thread reached during the
    middle half of the call (0 if the call held the GIL throughout) and the call's duration."""
    stamps = []
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=counter)
    t.start()
    time.sleep(0.02)  # the counter is running
    t0 = time.perf_counter()
    call()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    lo, hi = t0 + 0.25 * (t1 - t0), t0 + 0.75 * (t1 - t0)
    return sum(lo < s < hi for s in stamps), t1 - t0


def test_run_releases_the_gil(frame):
    # The golden model: long enough to see the counter advance (the fast engine takes milliseconds).
    n, seconds = progress_during(lambda: rrswin.run(frame.input_arena, frame.texture, engine="golden", threads=1))
    assert seconds > 0.05
    assert n > 100, f"a Python thread advanced only {n} times during the middle half of a {seconds:.2f} s run"


def test_evaluator_releases_the_gil_on_large_arrays():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 0x70, (300_000, 32)).astype(np.uint8)
    c = np.zeros(300_000, np.float16)
    n, seconds = progress_during(lambda: rrswin.mma_dot(a, a, c))
    assert n > 10, f"a Python thread advanced only {n} times during the middle half of a {seconds:.3f} s mma_dot"


# ---- synthetic inputs and the registry --------------------------------------------------------------

def test_synthetic_frame():
    f = rrswin.synthetic_frame(EX, EY, SEED)
    assert f.input_arena.dtype == np.uint8 and f.input_arena.shape == (5, EY, EX, 32)
    assert f.texture.dtype == np.float16 and f.texture.shape == (EY, EX, 4)
    g = rrswin.synthetic_frame(EX, EY, SEED)
    np.testing.assert_array_equal(f.input_arena, g.input_arena)
    assert not np.array_equal(f.input_arena, rrswin.synthetic_frame(EX, EY, SEED + 1).input_arena)
    assert not np.isin(f.input_arena, [0x7F, 0xFF]).any()  # never a NaN code
    s = rrswin.synthetic_frame(EX, EY, SEED, stress=True)
    assert not np.array_equal(f.input_arena, s.input_arena)
    d = rrswin.demo_frame()
    assert d.input_arena.shape == (5, 23, 40, 32) and d.texture.shape == (23, 40, 4)


def test_readings_registry():
    reg = rrswin.readings()
    assert len(reg) > 10
    for r in reg:
        assert set(r) == {"name", "values", "default", "question", "where", "settle"}
        assert r["default"] in r["values"]
    assert rrswin.default_readings() == {r["name"]: r["default"] for r in reg}
    assert "arena-order" in rrswin.default_readings()


# ---- errors -----------------------------------------------------------------------------------------

def _errors(f):
    A, T = f
    return [
        (lambda: rrswin.run(A.astype(np.float32), T), TypeError, "input_arena: expected dtype uint8, found dtype float32"),
        (lambda: rrswin.run(A, T.astype(np.float32)), TypeError, "texture: expected dtype float16, found dtype float32"),
        (lambda: rrswin.run(A, T.view(np.uint16)), TypeError, "use a.view(np.float16)"),
        (lambda: rrswin.run(A[:, :, :, :16], T), ValueError,
         "input_arena: expected shape (5, ey, ex, 32) or (5*ey*ex*32,), found shape (5, 8, 16, 16)"),
        (lambda: rrswin.run(A.reshape(5, -1), T), ValueError, "found shape (5, 4096)"),
        (lambda: rrswin.run(A.reshape(-1)[:-4], T), ValueError, "expected 5*ey*ex*32 = 20480 bytes"),
        (lambda: rrswin.run(A, T[:4]), ValueError, "texture: expected at least (ey, ex, 4) = (8, 16, 4), found shape (4, 16, 4)"),
        (lambda: rrswin.run(A, T[..., :3]), ValueError, "texture: expected shape (height, width, 4)"),
        (lambda: rrswin.run(A, T, ex=8), ValueError, "says ex=16, ey=8, but ex=8"),
        (lambda: rrswin.run(A, T, weights=np.zeros(10, np.uint8)), ValueError, "expected 431136 bytes"),
        (lambda: rrswin.run(A, T, weights=3.5), TypeError, "weights: expected a path"),
        (lambda: rrswin.run(A, T, engine="gpu"), ValueError, "engine: expected one of 'golden', 'fast', found 'gpu'"),
        (lambda: rrswin.run(A, T, profile="ampere"), ValueError, "profile: expected one of 'ada', 'zluda'"),
        (lambda: rrswin.run(A, T, texture_mode="repeat"), ValueError, "texture_mode: expected one of"),
        (lambda: rrswin.run(A, T, readings={"nope": "x"}), ValueError, "unknown reading 'nope'"),
        (lambda: rrswin.run(A, T, readings={"arena-order": "sideways"}), ValueError, "has no value 'sideways'"),
        (lambda: rrswin.run(A, T, readings={"arena-order": 1}), TypeError, "readings: names and values must be strings"),
        (lambda: rrswin.run(A, T, readings=["arena-order"]), TypeError, "readings: expected a dict"),
        (lambda: rrswin.run(A, T, threads=-1), ValueError, "threads: expected an integer [0, 4096], found -1"),
        (lambda: rrswin.run(A, T, threads=1.0), TypeError, "threads: expected an integer, found float"),
        (lambda: rrswin.run(A, T, block_offset=(0, 70000)), ValueError, "block_offset[1]: expected an integer [0, 65535]"),
        (lambda: rrswin.run(A, T, block_offset=3), TypeError, "block_offset: expected a pair"),
        (lambda: rrswin.run(A, T, grid=(0, 1)), ValueError, "grid[0]: expected an integer [1, 1048576], found 0"),
        (lambda: rrswin.run(A, T, trace="all", trace_block=(2, 0)), ValueError,
         "trace_block: expected a block of the 2 x 1 grid, found (2, 0)"),
        (lambda: rrswin.run(A, T, trace=[]), TypeError, "trace: expected a non-empty list"),
        (lambda: rrswin.run(A, T, trace=5), TypeError, "trace: expected None, 'all'"),
        (lambda: rrswin.run(A, T, stats=1), TypeError, "stats: expected bool"),
        (lambda: rrswin.synthetic_frame(0, 4), ValueError, "ex: expected an integer [1, 1048576], found 0"),
    ]


@pytest.mark.parametrize("index", range(28))
def test_errors_name_argument_expected_and_found(frame, index):
    call, exc, message = _errors(frame)[index]
    with pytest.raises(exc) as info:
        call()
    assert message in str(info.value)


def test_unknown_trace_stage_is_named(frame):
    with pytest.raises(ValueError, match="recorded no stage named 'nope'"):
        rrswin.run(frame.input_arena[:, :, :8], frame.texture[:, :8], trace="nope")
