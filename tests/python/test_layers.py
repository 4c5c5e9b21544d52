"""The layer template in Python (rrswin.layers): the numbers d4r's docs state (docs/readings.md §7,
typed here), the synthetic images equal `rrswin make-weights --layer` files, and enc4's and enc3's
runs equal `rrswin run --layer enc4|enc3` byte for byte."""

from __future__ import annotations

import numpy as np
import pytest

import rrswin


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
    with pytest.raises(ValueError):
        rrswin.run_layer("dec2", arena_in, texture)  # not runnable yet: a clear error


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
