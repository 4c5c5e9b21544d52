"""Weight images: the module's synthetic images equal `rrswin make-weights` files byte for byte,
its statistics equal `rrswin inspect --json`, loading from every kind of source gives the same image,
and bad sources raise clear errors."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import rrswin


@pytest.mark.parametrize("seed,stress", [(1, False), (2, False), (12345, False), (2**64 - 1, False), (1, True),
                                         (7, True)])
def test_synthetic_weights_equal_make_weights_file(cli, tmp_path, seed, stress):
    path = tmp_path / "w.bin"
    cli("make-weights", "--seed", str(seed), *(["--stress"] if stress else []), "-o", str(path))
    module = rrswin.synthetic_weights(seed, stress=stress)
    assert path.read_bytes() == module.tobytes()
    assert rrswin.WeightImage.load(path) == module


def test_default_weights_are_seed_1():
    d = rrswin.default_weights()
    assert d == rrswin.synthetic_weights(1) == rrswin.WeightImage.default()
    assert d != rrswin.synthetic_weights(2)
    assert d != rrswin.synthetic_weights(1, stress=True)
    assert len(d) == rrswin.WEIGHT_IMAGE_BYTES == 431136


def test_every_source_gives_the_same_image(tmp_path):
    w = rrswin.synthetic_weights(5)
    raw = w.tobytes()
    path = tmp_path / "w.bin"
    path.write_bytes(raw)
    sources = [str(path), pathlib.Path(path), raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, np.uint8),
               np.frombuffer(raw, np.uint8).copy(), w]
    for s in sources:
        assert rrswin.WeightImage(s) == w, type(s).__name__
        assert rrswin.load_weights(s) == w
    assert rrswin.WeightImage.from_bytes(raw) == w
    # A non-contiguous array is accepted (copied).
    doubled = np.repeat(np.frombuffer(raw, np.uint8), 2)[::2]
    assert rrswin.WeightImage(doubled) == w


def test_array_is_a_read_only_view_that_keeps_the_image_alive():
    a = rrswin.synthetic_weights(3).array  # the image object is dropped at once
    assert a.dtype == np.uint8 and a.shape == (431136,)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1
    assert a.tobytes() == rrswin.synthetic_weights(3).tobytes()


def test_regions_tile_the_image():
    regions = rrswin.weight_regions()
    assert regions[0]["begin"] == 0 and regions[-1]["end"] == rrswin.WEIGHT_IMAGE_BYTES
    for prev, cur in zip(regions, regions[1:]):
        assert prev["end"] == cur["begin"]
    for r in regions:
        assert r["size"] == r["end"] - r["begin"]
        assert r["type"] in ("e4m3", "f16")
        assert r["elements"] == (r["size"] // 2 if r["type"] == "f16" else r["size"])
    names = [r["name"] for r in regions]
    assert "g1" in names and len(set(names)) == len(names)
    assert rrswin.default_weights().regions() == regions


def test_region_views_have_the_region_type():
    w = rrswin.default_weights()
    for r in rrswin.weight_regions():
        v = w.region(r["name"])
        assert v.dtype == (np.float16 if r["type"] == "f16" else np.uint8)
        assert v.size == r["elements"]
        assert v.view(np.uint8).tobytes() == w.tobytes()[r["begin"]:r["end"]]
    with pytest.raises(KeyError, match="no weight region named 'nope'"):
        w.region("nope")


@pytest.mark.parametrize("seed,stress", [(1, False), (4, True)])
def test_statistics_equal_inspect_json(cli, tmp_path, seed, stress):
    path = tmp_path / "w.bin"
    cli("make-weights", "--seed", str(seed), *(["--stress"] if stress else []), "-o", str(path))
    tool = json.loads(cli("inspect", str(path), "--json").stdout)["regions"]
    module = rrswin.WeightImage(path).statistics()
    assert len(tool) == len(module)
    for t, m in zip(tool, module):
        for key, value in t.items():  # every field the tool prints (floats as %.17g: exact)
            if key == "histogram":
                assert m[key].tolist() == value, f"{t['name']}.histogram"
            else:
                assert m[key] == value, f"{t['name']}.{key}: tool {value!r}, module {m[key]!r}"
        if m["type"] == "e4m3":
            assert "histogram" in t
            h = m["histogram"]
            assert h.dtype == np.uint64 and h.shape == (256,) and int(h.sum()) == m["count"]
            codes = rrswin.WeightImage(path).region(m["name"])
            np.testing.assert_array_equal(h, np.bincount(codes, minlength=256))
        else:
            assert m["histogram"] is None
    again = rrswin.region_statistics(path)  # the same, by function
    assert [(r["name"], r["count"], r["mean_abs"]) for r in again] == [(r["name"], r["count"], r["mean_abs"])
                                                                      for r in module]


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        rrswin.WeightImage(tmp_path / "missing.bin")
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(100))
    with pytest.raises(rrswin.InputError, match="expected 431136 bytes.*found 100 bytes"):
        rrswin.WeightImage(short)
    with pytest.raises(ValueError, match="431124"):  # InputError is a ValueError; the spec's size is explained
        rrswin.WeightImage(bytes(431124))
    with pytest.raises(TypeError, match="weights: expected dtype uint8, found dtype int8"):
        rrswin.WeightImage(np.zeros(431136, np.int8))
    with pytest.raises(ValueError, match=r"expected a 1-D array of 431136 bytes, found shape \(2, 215568\)"):
        rrswin.WeightImage(np.zeros((2, 215568), np.uint8))
    with pytest.raises(TypeError, match="found int"):
        rrswin.WeightImage(3)
    with pytest.raises(TypeError, match="use WeightImage.load"):
        rrswin.WeightImage.from_bytes(str(short))
    with pytest.raises(TypeError, match="path: expected str or os.PathLike"):
        rrswin.WeightImage.load(b"\0" * 10)
    with pytest.raises(ValueError, match="seed"):
        rrswin.synthetic_weights(-1)
    with pytest.raises(TypeError, match="stress: expected bool"):
        rrswin.synthetic_weights(1, stress="yes")
