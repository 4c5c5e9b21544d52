"""The layer template in Python (rrswin.layers): the numbers d4r's docs state (docs/readings.md §7,
typed here), the synthetic images equal `rrswin make-weights --layer` files, the merge layers' runs
equal `rrswin run --layer enc4|enc3|enc2` byte for byte, and the decoders' (dec4, dec3, dec2, dec1,
docs/readings.md §9) equal `rrswin run --layer decN` byte for byte on the tool's synthetic inputs
and on given files."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rrswin
from exr_reader import read_rgba_half


@pytest.mark.parametrize("name,phases,mma,image,tool,shared", [
    ("enc4", 62, 1386, 533856, 533844, 16384),   # DOC4 §2, §1.4; DESC4 arg040 533856
    ("enc3", 48, 936, 315744, 315732, 12800),    # DOC3 §2, §1.4
    ("enc5", 61, 1306, 431136, 431124, 16384),   # spec §2.1/§2.3, facts E1/A8
    ("enc2", 38, 630, 212256, 212244, 9600),     # DOC-e2 §2.2, §6 U5; DESC-e2 _LAUNCH
    ("enc1", 32, 1072, 96480, 96468, 0),         # DOC-e1 §2.1/§2.2; REC-e1: no .shared
    ("dec2", 38, 726, 212768, 212756, 9600),     # DOC-d2 §5, §1.1
    ("dec1", 26, 632, 96800, 96788, 6400),       # DOC-d1 §5, §1.1; DESC-d1 arg040 96800
    ("dec0", 19, 544, 47872, 47376, 3200),       # DOC-d0 §2.1/§2.3 (47376 = the tool's extent), §0
])
def test_layer_spec_numbers(name, phases, mma, image, tool, shared):
    s = rrswin.layer_spec(name)
    assert (s["phases"], s["mma"], s["image_bytes"], s["tool_extent"], s["shared_bytes"]) == (phases, mma, image, tool, shared)
    table = rrswin.layer_phases(name)
    assert len(table) == phases and sum(p["mma"] for p in table) == mma
    regions = rrswin.layer_weight_regions(name)
    assert regions[0]["begin"] == 0 and regions[-1]["end"] == image
    assert all(a["end"] == b["begin"] for a, b in zip(regions, regions[1:]))


def test_enc3_launch_and_rows():
    s = rrswin.layer_spec("enc3")
    assert s["grid"] == (21, 13, 1) and s["block"] == (32, 1, 4)  # DESC3 layer()
    p47 = rrswin.layer_phases("enc3")[46]
    assert p47["statements"] == "s16664-s16727" and p47["weight"] == (231424, 247308) and p47["bias"] == (313344, 313392)
    with pytest.raises(ValueError):
        rrswin.layer_spec("enc6")


def test_synthetic_layer_weights_equal_make_weights_file(cli, tmp_path):
    path = tmp_path / "w4.bin"
    cli("make-weights", "--layer", "enc4", "--seed", "3", "-o", str(path))
    assert path.read_bytes() == rrswin.synthetic_layer_weights("enc4", 3).tobytes()


def test_run_enc4_equals_the_cli(cli, tmp_path):
    arena_in, _, _, _ = rrswin._rrswin.synthetic_frame(16, 8, 1, False)
    arena, merged = rrswin.run_enc4(arena_in, ex=16, ey=8)
    cli("run", "--layer", "enc4", "--ex", "16", "--ey", "8", "-o", str(tmp_path / "o"))
    assert arena.tobytes() == (tmp_path / "o" / "arena.bin").read_bytes()
    assert merged.tobytes() == (tmp_path / "o" / "merged.bin").read_bytes()
    _, other = rrswin.run_enc4(arena_in, ex=16, ey=8, layer_readings={"merge-gather-order": "raster"})
    assert other.tobytes() != merged.tobytes()
    with pytest.raises(ValueError):
        rrswin.run_enc4(arena_in[:-1], ex=16, ey=8)
    with pytest.raises(ValueError):
        rrswin.run_enc4(arena_in, ex=16, ey=8, layer_readings={"merge-gather-order": "bogus"})


def test_run_layer_enc4_surfaces():
    # E62 (docs/readings.md §7): the three surfaces, fast = golden byte for byte, and +128 = the
    # f16 sum over each 2x2 quad of 0.25 * +112 (the default sigmoid-quad-value = difference), summed
    # here with numpy's float16 in the shfl order ((a + right) + (below + below right)).
    arena_in, tex, w, h = rrswin._rrswin.synthetic_frame(16, 8, 1, False)
    texture = tex.view(np.float16).reshape(h, w, 4)
    fast = rrswin.run_layer("enc4", arena_in, texture)
    gold = rrswin.run_layer("enc4", arena_in, texture, engine="golden")
    for name in ("arena", "merged", "surface112", "surface120", "surface128"):
        assert fast[name].tobytes() == gold[name].tobytes(), name
    assert fast["surface112"].shape == (8, 16, 4) and fast["surface128"].shape == (4, 8, 4)
    arena, merged = rrswin.run_enc4(arena_in, ex=16, ey=8)
    assert arena.tobytes() == fast["arena"].tobytes() and merged.tobytes() == fast["merged"].tobytes()
    q = fast["surface112"][..., :3] * np.float16(0.25)
    want = (q[0::2, 0::2] + q[0::2, 1::2]) + (q[1::2, 0::2] + q[1::2, 1::2])
    assert np.array_equal(fast["surface128"][..., :3], want)  # as values: +0 == -0
    assert not fast["surface128"][..., 3].any()  # mov.u16 0
    other = rrswin.run_layer("enc4", arena_in, texture, layer_readings={"sigmoid-quad-value": "product"})
    assert other["surface128"].tobytes() != fast["surface128"].tobytes()
    assert other["surface112"].tobytes() == fast["surface112"].tobytes()
    with pytest.raises(ValueError):
        rrswin.run_layer("enc3", arena_in, texture)  # a 5-plane arena: enc3 reads 4
    with pytest.raises(ValueError):
        rrswin.run_layer("enc4", arena_in, texture[:, :8])


@pytest.mark.parametrize("name,planes,channels,heads,chunks,merged_planes", [
    ("enc3", 4, 128, 4, 16, 5),  # DOC3: C = 128, merge to 160
    ("enc2", 3, 96, 4, 12, 4),   # DOC-e2: C = 96, merge to 128
    ("enc1", 2, 64, 2, 8, 3),    # DOC-e1: C = 64, two heads in sequence, register merge to 96
    ("enc0", 1, 32, 2, 4, 2),    # DESC-e0: C = 32 (its input: the staged input tensor), register merge to 64
])
def test_run_layer_equals_the_cli(cli, tmp_path, name, planes, channels, heads, chunks, merged_planes):
    # A merge layer at C != 160: a C/32-plane input arena (layer_spec's input_planes), the same bytes
    # as `rrswin run --layer` on the same synthetic assets, fast = golden at 1 and 2 threads.
    s = rrswin.layer_spec(name)
    assert s["input_planes"] == planes and s["channels"] == channels and s["heads"] == heads and s["chunks"] == chunks
    arena_in, tex, w, h = rrswin._rrswin.synthetic_frame(16, 8, 1, False, planes)
    assert arena_in.size == planes * 16 * 8 * 32
    texture = tex.view(np.float16).reshape(h, w, 4)
    fast = rrswin.run_layer(name, arena_in, texture, threads=2)
    gold = rrswin.run_layer(name, arena_in, texture, engine="golden")
    cli("run", "--layer", name, "--ex", "16", "--ey", "8", "-o", str(tmp_path / "o"))
    for k in ("arena", "merged"):
        assert fast[k].tobytes() == gold[k].tobytes(), k
        assert fast[k].tobytes() == (tmp_path / "o" / f"{k}.bin").read_bytes(), k
    for k in ("surface112", "surface120", "surface128"):
        assert fast[k].tobytes() == gold[k].tobytes(), k
    assert fast["arena"].size == planes * 16 * 8 * 32 and fast["merged"].size == merged_planes * 8 * 4 * 32
    assert fast["surface128"].shape == (4, 8, 4)
    with pytest.raises(ValueError):
        rrswin.run_layer("enc4", arena_in, texture, engine="slow")


def test_run_layer_enc5_is_run():
    # One entry for every runnable layer: run_layer('enc5') is rrswin.run's bytes, named by offset.
    arena_in, tex, w, h = rrswin._rrswin.synthetic_frame(16, 8, 1, False)
    texture = tex.view(np.float16).reshape(h, w, 4)
    r = rrswin.run_layer("enc5", arena_in, texture, threads=2)
    ref = rrswin.run(arena_in, texture, engine="golden", ex=16, ey=8)
    assert sorted(r) == ["arena", "surface112"]
    assert r["arena"].tobytes() == ref.arena.tobytes() and r["surface112"].tobytes() == ref.surface.tobytes()
    with pytest.raises(ValueError):
        rrswin.run_layer("enc5", arena_in, texture, layer_readings={"sigmoid-gate": "acc"})
    with pytest.raises(ValueError, match="enc0"):
        rrswin.run_layer("enc0", arena_in, texture)  # a 5-plane arena for enc0's one plane: a clear error naming it


def test_run_layer_strict_dtypes_and_bounds():
    # Issue 38: run_layer took any dtype (an int64 300 became 44) and non-dict readings raised
    # AttributeError; ptx_launch accepted threads up to 2^63. Now TypeError / ValueError.
    arena_in, tex, w, h = rrswin._rrswin.synthetic_frame(16, 8, 1, False, 4)
    texture = tex.view(np.float16).reshape(h, w, 4)
    with pytest.raises(TypeError, match="input_arena"):
        rrswin.run_layer("enc3", arena_in.astype(np.int64), texture)
    with pytest.raises(TypeError, match="layer_readings"):
        rrswin.run_layer("enc3", arena_in, texture, layer_readings=[("sigmoid-gate", "acc")])
    with pytest.raises(TypeError, match="buffers"):
        rrswin.ptx_launch(".version 7.0\n.target sm_89\n.address_size 64\n", entry="k", grid=1, block=32, buffers=[1, 2])
    with pytest.raises(ValueError, match="threads"):
        rrswin.ptx_launch(".version 7.0\n.target sm_89\n.address_size 64\n", entry="k", grid=1, block=32, threads=65536)


# ---- the decoders (issue 34: dec4, dec3, dec2, dec1; docs/readings.md §9) ----------------------------------

# The decoders whose +48 is a plane arena (dec0's is 8 e4m3 bytes a pixel: test_run_layer_dec0).
DECODERS = [n for n in rrswin.LAYERS if rrswin.layer_spec(n)["runnable"] and rrswin.layer_spec(n)["front"] == "patch_expand"
            and rrswin.layer_spec(n)["final_epilogue"] == "decoder_blend"]
EX, EY = 19, 11  # odd extents: partial blocks and a half-resolution input of 9 x 5


def _tex(flat, w, h):
    return flat.view(np.float16).reshape(h, w, 4)


def _decoder_inputs(name, ex=EX, ey=EY, seed=1):
    """The synthetic inputs `rrswin run --layer decN --ex --ey --seed SEED` makes
    (src/cli/cmd_run_layer.cpp): the input arena and the texture +88 at the half-resolution grid
    (seed), the skip and +96 at the token grid (seed + 1), +104 (seed + 2, one plane)."""
    s = rrswin.layer_spec(name)
    arena, t, tw, th = rrswin._rrswin.synthetic_frame(ex >> 1, ey >> 1, seed, False, s["input_planes"])
    skip, t96, w96, h96 = rrswin._rrswin.synthetic_frame(ex, ey, seed + 1, False, s["skip_planes"])
    _, t104, w104, h104 = rrswin._rrswin.synthetic_frame(ex, ey, seed + 2, False, 1)
    return dict(input_arena=arena, texture=_tex(t, tw, th), skip=skip, texture96=_tex(t96, w96, h96),
                texture104=_tex(t104, w104, h104))


def _run_decoder(name, inputs, **kw):
    d = dict(inputs)
    return rrswin.run_layer(name, d.pop("input_arena"), d.pop("texture"), **d, **kw)


def test_decoders_are_runnable_and_their_spec():
    # What Python needs to build a decoder's inputs: the +8 arena's planes (the front's K/32) at the
    # half-resolution grid, the skip's planes (C/32) at the token grid.
    assert DECODERS == ["dec4", "dec3", "dec2", "dec1"]
    for name, k, c in (("dec4", 160, 160), ("dec3", 160, 128), ("dec2", 128, 96), ("dec1", 96, 64)):
        s = rrswin.layer_spec(name)
        assert s["decoder"] and s["half_resolution_input"] and s["front"] == "patch_expand"
        assert (s["front_k"], s["input_planes"], s["skip_planes"], s["channels"]) == (k, k // 32, c // 32, c)
        assert s["merged_output_param"] < 0 or not s["merge"]
    for name in ("enc5", "enc4", "enc2"):
        s = rrswin.layer_spec(name)
        assert not s["decoder"] and not s["half_resolution_input"] and s["skip_planes"] is None
        assert s["input_planes"] == s["channels"] // 32
    assert rrswin.layer_spec("dec0")["runnable"] and rrswin.layer_spec("dec0")["decoder"]
    assert all(rrswin.layer_spec(n)["runnable"] for n in rrswin.LAYERS)  # every layer runs (issue 35)


def test_run_layer_dec0(cli, tmp_path):
    # dec0 (DOC-d0 §4.2): +48 = 8 e4m3 bytes a pixel at byte 8 (ex y + x), +144 = 4 float32 a texel
    # (E19's tanh values, |v| <= 1), +112 the decoder blend; fast at 1 and 3 threads == golden; the
    # tool's arena.bin, surface144.bin and surface112.exr are the same bytes.
    s = rrswin.layer_spec("dec0")
    assert (s["front_k"], s["input_planes"], s["skip_planes"], s["channels"]) == (64, 2, 1, 32)
    inputs = _decoder_inputs("dec0")
    gold = _run_decoder("dec0", inputs, engine="golden")
    assert sorted(gold) == ["arena", "surface112", "surface144"]
    assert gold["arena"].dtype == np.uint8 and gold["arena"].shape == (EY * EX * 8,)
    assert gold["surface144"].dtype == np.float32 and gold["surface144"].shape == (EY, EX, 4)
    assert np.all(np.abs(gold["surface144"]) <= 1) and gold["surface144"].any()
    for threads in (1, 3):
        fast = _run_decoder("dec0", inputs, threads=threads)
        for k in ("arena", "surface112", "surface144"):
            assert fast[k].tobytes() == gold[k].tobytes(), k
    cli("run", "--layer", "dec0", "--ex", str(EX), "--ey", str(EY), "-o", str(tmp_path / "o"))
    assert gold["arena"].tobytes() == (tmp_path / "o" / "arena.bin").read_bytes()
    assert gold["surface144"].tobytes() == (tmp_path / "o" / "surface144.bin").read_bytes()
    assert read_rgba_half(tmp_path / "o" / "surface112.exr").view(np.uint16).tobytes() == gold["surface112"].view(np.uint16).tobytes()
    # dec0-output-columns moves +48 and +144, not +112.
    other = _run_decoder("dec0", inputs, layer_readings={"dec0-output-columns": "contiguous"})
    assert other["arena"].tobytes() != gold["arena"].tobytes()
    assert other["surface144"].tobytes() != gold["surface144"].tobytes()
    assert other["surface112"].tobytes() == gold["surface112"].tobytes()


@pytest.mark.parametrize("name", DECODERS)
def test_run_layer_decoder_equals_the_cli(cli, tmp_path, name):
    # The tool's synthetic inputs rebuilt here; fast at 1 and 3 threads == golden byte for byte;
    # arena.bin and surface112.exr == the tool's; the grid comes from the skip (never the input).
    s = rrswin.layer_spec(name)
    inputs = _decoder_inputs(name)
    gold = _run_decoder(name, inputs, engine="golden")
    fast1 = _run_decoder(name, inputs, threads=1)
    fast3 = _run_decoder(name, inputs, threads=3)
    assert sorted(gold) == ["arena", "surface112"]  # no merged output, no +120/+128
    assert gold["arena"].dtype == np.uint8 and gold["arena"].shape == (s["skip_planes"] * EY * EX * 32,)
    assert gold["surface112"].dtype == np.float16 and gold["surface112"].shape == (EY, EX, 4)
    for k in ("arena", "surface112"):
        assert fast1[k].tobytes() == gold[k].tobytes(), k
        assert fast3[k].tobytes() == gold[k].tobytes(), k
    assert gold["arena"].any() and gold["surface112"].any()
    cli("run", "--layer", name, "--ex", str(EX), "--ey", str(EY), "-o", str(tmp_path / "o"))
    assert gold["arena"].tobytes() == (tmp_path / "o" / "arena.bin").read_bytes()
    assert read_rgba_half(tmp_path / "o" / "surface112.exr").view(np.uint16).tobytes() == gold["surface112"].view(np.uint16).tobytes()

    # Another scale (+136) and arenas from files (--input, --skip): a 4-D skip gives the grid, the
    # textures stay the tool's synthetic ones (seed 1).
    other = _decoder_inputs(name, seed=5)
    (tmp_path / "in.bin").write_bytes(other["input_arena"].tobytes())
    (tmp_path / "skip.bin").write_bytes(other["skip"].tobytes())
    given = dict(inputs, input_arena=other["input_arena"], skip=other["skip"].reshape(s["skip_planes"], EY, EX, 32))
    scaled = _run_decoder(name, given, scale=(0.375, 0.625), engine="golden")
    scaled3 = _run_decoder(name, given, scale=(0.375, 0.625), threads=3)
    cli("run", "--layer", name, "--ex", str(EX), "--ey", str(EY), "--input", str(tmp_path / "in.bin"), "--skip",
        str(tmp_path / "skip.bin"), "--scale", "0.375,0.625", "-o", str(tmp_path / "p"))
    assert scaled["arena"].tobytes() == (tmp_path / "p" / "arena.bin").read_bytes()
    assert read_rgba_half(tmp_path / "p" / "surface112.exr").view(np.uint16).tobytes() == scaled["surface112"].view(np.uint16).tobytes()
    for k in ("arena", "surface112"):
        assert scaled3[k].tobytes() == scaled[k].tobytes(), k
    assert scaled["arena"].tobytes() != gold["arena"].tobytes()
    # The scale moves +88's sample points only: the arena is the default scale's.
    default_scale = _run_decoder(name, given)
    assert default_scale["arena"].tobytes() == scaled["arena"].tobytes()
    assert default_scale["surface112"].tobytes() != scaled["surface112"].tobytes()


@pytest.mark.parametrize("name", DECODERS)
def test_run_layer_decoder_readings_and_the_residual(name):
    # A decoder reading changes the output (expand-subpixel the arena, decoder-gate-logit the
    # surface), and with the front, the output projections, the down-projections and the tables
    # zeroed the arena is the skip (tests/decoder_front_test.cpp ZeroFrontAndProjectionsCopyTheSkip:
    # the residual x = f16(0 + skip), q8'd back; -0 = 0x80 comes back as 0).
    inputs = _decoder_inputs(name)
    base = _run_decoder(name, inputs)
    sub = _run_decoder(name, inputs, layer_readings={"expand-subpixel": "dx-dy"})
    assert sub["arena"].tobytes() != base["arena"].tobytes()
    gate = _run_decoder(name, inputs, layer_readings={"decoder-gate-logit": "centred"})
    assert gate["arena"].tobytes() == base["arena"].tobytes() and gate["surface112"].tobytes() != base["surface112"].tobytes()
    with pytest.raises(ValueError, match="expand-subpixel"):
        _run_decoder(name, inputs, layer_readings={"expand-subpixel": "bogus"})

    s = rrswin.layer_spec(name)
    w = rrswin.synthetic_layer_weights(name, 1).copy()
    for r in rrswin.layer_weight_regions(name):
        if r["role"] in ("wx", "bx", "wo", "w2", "t1", "t3"):  # the expand's slabs and seeds, Wo, W2, T1, T3
            w[r["begin"]:r["end"]] = 0
    skip, t96, w96, h96 = rrswin._rrswin.synthetic_frame(EX, EY, 7, False, s["skip_planes"])
    arena, t, tw, th = rrswin._rrswin.synthetic_frame(EX >> 1, EY >> 1, 8, False, s["input_planes"])
    for engine in ("golden", "fast"):
        r = rrswin.run_layer(name, arena, _tex(t, tw, th), w, skip=skip, texture96=_tex(t96, w96, h96),
                             texture104=_tex(t96, w96, h96), block_offset=(3, 1), engine=engine, threads=2)
        np.testing.assert_array_equal(r["arena"], np.where(skip == 0x80, 0, skip))


def test_run_layer_decoder_texture_of_any_size_and_the_grid():
    # +88 has any size (1 x 1 up): sampled at (x + 0.5) * scale; the grid comes from texture96 when
    # the skip is flat, and an explicit ex/ey must agree with it.
    inputs = _decoder_inputs("dec2")
    base = _run_decoder("dec2", inputs)
    for h, w in ((1, 1), (3, 40), (30, 7)):
        tex = np.arange(h * w * 4, dtype=np.float16).reshape(h, w, 4) / np.float16(64)
        r = _run_decoder("dec2", dict(inputs, texture=tex))
        g = _run_decoder("dec2", dict(inputs, texture=tex), engine="golden")
        assert r["surface112"].tobytes() == g["surface112"].tobytes() and r["surface112"].shape == (EY, EX, 4)
        assert r["arena"].tobytes() == base["arena"].tobytes()
    explicit = _run_decoder("dec2", inputs, ex=EX, ey=EY)
    assert explicit["surface112"].tobytes() == base["surface112"].tobytes()
    with pytest.raises(ValueError, match="skip"):
        _run_decoder("dec2", inputs, ex=EX + 1, ey=EY)


def test_run_layer_decoder_errors():
    # Every bad input is a ValueError (TypeError for a wrong dtype) naming the argument, the expected
    # and the found; never a crash. The private entry checks them too.
    inputs = _decoder_inputs("dec4")
    for missing in ("skip", "texture96", "texture104"):
        with pytest.raises(ValueError, match=f"^{missing}: required for a decoder"):
            _run_decoder("dec4", dict(inputs, **{missing: None}))
    with pytest.raises(ValueError, match=r"^skip: expected 33440 bytes .* found shape \(33439,\)"):
        _run_decoder("dec4", dict(inputs, skip=inputs["skip"][:-1]))
    with pytest.raises(ValueError, match=r"^skip: expected shape \(5, ey, ex, 32\)"):
        _run_decoder("dec4", dict(inputs, skip=inputs["skip"].reshape(5, EY * EX, 32)))
    with pytest.raises(ValueError, match=r"^skip: expected shape \(5, ey, ex, 32\).*found shape \(4, 11, 19, 40\)"):
        _run_decoder("dec4", dict(inputs, skip=inputs["skip"][: 4 * EY * EX * 40].reshape(4, EY, EX, 40)))
    with pytest.raises(TypeError, match="^skip: expected dtype uint8, found dtype int64"):
        _run_decoder("dec4", dict(inputs, skip=inputs["skip"].astype(np.int64)))
    # With a flat skip the grid is texture96's: a texture96 of another size makes the skip's size wrong.
    with pytest.raises(ValueError, match=r"^skip: expected 31680 bytes .*token grid 18 x 11 \(from texture96's shape\)"):
        _run_decoder("dec4", dict(inputs, texture96=inputs["texture96"][:, :-1]))
    skip4 = inputs["skip"].reshape(5, EY, EX, 32)
    with pytest.raises(ValueError, match=r"^texture96: expected shape \(11, 19, 4\) \(the token grid\), found shape \(11, 18, 4\)"):
        _run_decoder("dec4", dict(inputs, skip=skip4, texture96=inputs["texture96"][:, :-1]))
    with pytest.raises(ValueError, match=r"^texture96: expected a float16 \(ey, ex, 4\)"):
        _run_decoder("dec4", dict(inputs, texture96=inputs["texture96"].reshape(EY, EX * 4)))
    with pytest.raises(TypeError, match="^texture96: expected dtype float16, found dtype float32"):
        _run_decoder("dec4", dict(inputs, texture96=inputs["texture96"].astype(np.float32)))
    with pytest.raises(ValueError, match=r"^texture104: expected shape \(11, 19, 4\)"):
        _run_decoder("dec4", dict(inputs, texture104=inputs["texture104"][:-1]))
    with pytest.raises(ValueError, match=r"^texture: expected a float16 \(h, w, 4\) array with h, w >= 1"):
        _run_decoder("dec4", dict(inputs, texture=np.zeros((0, 5, 4), np.float16)))
    with pytest.raises(ValueError, match=r"^texture: expected a float16 \(h, w, 4\)"):
        _run_decoder("dec4", dict(inputs, texture=np.zeros((5, 5, 3), np.float16)))
    # The input arena is at half the grid: a full-resolution one is refused, naming both.
    with pytest.raises(ValueError, match=r"^input_arena: expected 7200 bytes \(5, 5, 9, 32\) = dec4's half-resolution input"):
        _run_decoder("dec4", dict(inputs, input_arena=inputs["skip"]))
    for bad in ((math.nan, 0.5), (0.5, math.inf), (0.5, -math.inf), (1e39, 0.5)):
        with pytest.raises(ValueError, match=r"^scale\[[01]\]: expected a finite float32"):
            _run_decoder("dec4", inputs, scale=bad)
    for bad in (0.5, (0.5,), (0.5, 0.5, 0.5), ("a", 0.5), (True, 0.5), None):
        with pytest.raises(ValueError, match=r"^scale"):
            _run_decoder("dec4", inputs, scale=bad)
    # ex/ey below a decoder's minimum (its half-resolution input would be empty).
    with pytest.raises(ValueError, match="^ex"):
        _run_decoder("dec4", _decoder_inputs("dec4", 3, 2), ex=1)

    # The non-decoders refuse the decoders' arguments by name.
    arena_in, tex, w, h = rrswin._rrswin.synthetic_frame(16, 8, 1, False)
    texture = _tex(tex, w, h)
    for layer in ("enc4", "enc5"):
        for name in ("skip", "texture96", "texture104"):
            with pytest.raises(ValueError, match=f"^{name}: only the decoders \\(dec4, dec3, dec2, dec1, dec0\\) take it; {layer}"):
                rrswin.run_layer(layer, arena_in, texture, **{name: inputs[name]})
        with pytest.raises(ValueError, match="^scale: only the decoders"):
            rrswin.run_layer(layer, arena_in, texture, scale=(0.25, 0.5))
    assert sorted(rrswin.run_layer("enc4", arena_in, texture, scale=(0.5, 0.5))) == [
        "arena", "merged", "surface112", "surface120", "surface128"]

    # The compiled entry checks what it is given directly: ValueErrors, not crashes.
    core = rrswin._rrswin.run_merge_layer
    wd = rrswin.synthetic_layer_weights("dec4", 1)
    u16 = {k: inputs[k].view(np.uint16).reshape(-1) for k in ("texture", "texture96", "texture104")}
    args = ("dec4", inputs["input_arena"], wd, u16["texture"], EX, EY, 0, 0, "fast", "ada", {}, {}, 1)
    good = dict(skip=inputs["skip"], texture96=u16["texture96"], texture104=u16["texture104"], texture_size=(9, 5))
    r = core(*args, **good)
    assert r["arena"].tobytes() == _run_decoder("dec4", inputs)["arena"].tobytes()
    for kw, msg in ((dict(skip=None), "^skip: required"), (dict(skip=inputs["skip"][:-1]), "^skip .*expected 33440 elements"),
                    (dict(texture96=None), "^texture96: required"), (dict(texture104=u16["texture104"][:-4]), "^texture104 "),
                    (dict(texture_size=None), "^texture_size: required"), (dict(texture_size=(10, 5)), r"^texture \(\+88\)"),
                    (dict(texture_size=(0, 5)), "^texture: expected"), (dict(scale=(math.nan, 0.5)), r"^scale\[0\]"),
                    (dict(scale=(0.5, 1e39)), r"^scale\[1\]")):
        with pytest.raises(ValueError, match=msg):
            core(*args, **dict(good, **kw))
    with pytest.raises(ValueError, match="^input_arena"):
        core("dec4", inputs["skip"], *args[2:], **good)
    with pytest.raises(ValueError, match="^ex, ey"):
        core("dec4", inputs["input_arena"], wd, u16["texture"], 1, EY, *args[6:], **good)
    with pytest.raises(ValueError, match="^skip: only the decoders"):
        core("enc4", arena_in, rrswin.synthetic_layer_weights("enc4", 1), tex, 16, 8, 0, 0, "fast", "ada", {}, {}, 1,
             skip=inputs["skip"])
    with pytest.raises(ValueError, match="^scale: only the decoders"):
        core("enc4", arena_in, rrswin.synthetic_layer_weights("enc4", 1), tex, 16, 8, 0, 0, "fast", "ada", {}, {}, 1,
             scale=(0.25, 0.5))


def test_run_network_equals_the_cli(cli, tmp_path):
    # Issue 36: rrswin.run_network is `rrswin run --network` on the same demo inputs, byte for byte,
    # fast = golden; every layer that runs is there, enc0 first.
    fast = rrswin.run_network((64, 64), threads=2)
    gold = rrswin.run_network((64, 64), engine="golden")
    cli("run", "--network", "--render", "64,64", "-o", str(tmp_path / "n"))
    runnable = [n for n in rrswin.LAYERS if rrswin.layer_spec(n)["runnable"]]
    assert list(fast) == runnable and runnable[0] == "enc0"
    for name, out in fast.items():
        assert out["arena"].tobytes() == (tmp_path / "n" / name / "arena.bin").read_bytes(), name
        assert out["arena"].tobytes() == gold[name]["arena"].tobytes(), name
        if "merged" in out:
            assert out["merged"].tobytes() == (tmp_path / "n" / name / "merged.bin").read_bytes(), name
        assert out["surface112"].shape == (out["ey"], out["ex"], 4)
    # dec0's +144, float32 (ey, ex, 4), as surface144.bin holds it.
    assert fast["dec0"]["surface144"].dtype == np.float32 and fast["dec0"]["surface144"].shape == (64, 64, 4)
    assert fast["dec0"]["surface144"].tobytes() == (tmp_path / "n" / "dec0" / "surface144.bin").read_bytes()
    assert fast["enc0"]["ex"] == 64 and fast["enc1"]["ex"] == 32
    with pytest.raises(TypeError):
        rrswin.run_network(64)
    with pytest.raises(ValueError):
        rrswin.run_network((16, 64))
    with pytest.raises(ValueError):
        rrswin.run_network((64, 64), engine="slow")



def test_run_network_weights_equal_the_clis(cli, tmp_path):
    # Issue 36: run_network(weights=) takes what `rrswin run --network --weights DIR` takes: a folder
    # of <layer>.bin, or a dict of the same images (uint8 arrays or bytes); the same bytes as the CLI.
    runnable = [n for n in rrswin.LAYERS if rrswin.layer_spec(n)["runnable"]]
    (tmp_path / "w").mkdir()
    for n in runnable:
        cli("make-weights", "--layer", n, "--seed", "5", "-o", str(tmp_path / "w" / f"{n}.bin"))
    cli("run", "--network", "--render", "64,64", "--weights", str(tmp_path / "w"), "-o", str(tmp_path / "n"))
    images = {n: np.frombuffer((tmp_path / "w" / f"{n}.bin").read_bytes(), np.uint8) for n in runnable}
    demo = rrswin.run_network((64, 64), threads=2)
    for weights in (tmp_path / "w", str(tmp_path / "w"), images, {n: a.tobytes() for n, a in images.items()}):
        out = rrswin.run_network((64, 64), threads=2, weights=weights)
        assert list(out) == runnable
        for name, o in out.items():
            assert o["arena"].tobytes() == (tmp_path / "n" / name / "arena.bin").read_bytes(), name
        assert out["dec0"]["arena"].tobytes() != demo["dec0"]["arena"].tobytes()
    with pytest.raises(ValueError, match="no image for dec0"):
        rrswin.run_network((64, 64), weights={n: a for n, a in images.items() if n != "dec0"})
    with pytest.raises(ValueError, match="enc9"):
        rrswin.run_network((64, 64), weights={**images, "enc9": images["enc0"]})
    with pytest.raises(ValueError, match=r"weights\['enc1'\]: at byte offset 96479: expected 96480 bytes"):
        rrswin.run_network((64, 64), weights={**images, "enc1": images["enc1"][:-1]})
    with pytest.raises(TypeError, match="dtype"):
        rrswin.run_network((64, 64), weights={**images, "enc1": images["enc1"].astype(np.int16)})
    (tmp_path / "w" / "dec2.bin").unlink()
    with pytest.raises(ValueError, match=r"dec2\.bin: at byte offset 0: expected the dec2 weight image, 212768 bytes, found no such file"):
        rrswin.run_network((64, 64), weights=tmp_path / "w")
    with pytest.raises(TypeError):
        rrswin.run_network((64, 64), weights=5)


def test_replay_network_equals_the_cli(cli, tmp_path):
    # Issue 36: rrswin.replay_network is `rrswin replay --network` on a whole frame's capture: per layer
    # and chained, every layer reproduces (enc0's launch in rrswin's stand-in convention: +8 the staged
    # input tensor, +88 the texture standing for input_noise; the chain starts there); a byte the
    # test flips in dec2's captured +112 surface is dec2 differing alone, at that byte.
    cli("capture", "--network", "--synthetic", "--render", "64,64", "-o", str(tmp_path / "cap"))
    for chained in (False, True):
        r = rrswin.replay_network(tmp_path / "cap", chained, threads=2)
        assert r["reproduces"] and r["first_differing"] is None and r["chained"] == chained
        assert [l["layer"] for l in r["layers"]] == list(rrswin.LAYERS)
        assert all(l["status"] == "reproduces" for l in r["layers"])
        if chained:
            assert r["start"].startswith("the chain starts from enc0's captured inputs (rrswin's stand-ins")
    (f,) = (tmp_path / "cap").glob("launch-009-*-arg112-*")
    b = bytearray(f.read_bytes())
    b[9 * 16 * 8 + 13 * 8 + 3] ^= 1  # dec2's 16 x 16 surface, texel (13, 9): block (1, 1)
    f.write_bytes(bytes(b))
    r = rrswin.replay_network(tmp_path / "cap")
    assert r["first_differing"] == "dec2"
    assert [l["layer"] for l in r["layers"] if l["status"] == "differs"] == ["dec2"]
    d = r["layers"][8]
    assert d["bytes_differing"] == 1 and d["first"]["arg"] == 112 and tuple(d["first"]["block"]) == (1, 1)
    with pytest.raises(RuntimeError):
        rrswin.replay_network(tmp_path)  # no launch dump at all
    with pytest.raises(TypeError):
        rrswin.replay_network(64)
