"""Weight images: the module's synthetic images equal `enc5 make-weights` files byte for byte,
its statistics equal `enc5 inspect --json`, loading from every kind of source gives the same image,
and bad sources raise clear errors."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import enc5


@pytest.mark.parametrize("seed,stress", [(1, False), (2, False), (12345, False), (2**64 - 1, False), (1, True),
                                         (7, True)])
def test_synthetic_weights_equal_make_weights_file(cli, tmp_path, seed, stress):
    path = tmp_path / "w.bin"
    cli("make-weights", "--seed", str(seed), *(["--stress"] if stress else []), "-o", str(path))
    module = enc5.synthetic_weights(seed, stress=stress)
    assert path.read_bytes() == module.tobytes()
    assert enc5.WeightImage.load(path) == module


def test_default_weights_are_seed_1():
    d = enc5.default_weights()
    assert d == enc5.synthetic_weights(1) == enc5.WeightImage.default()
    assert d != enc5.synthetic_weights(2)
    assert d != enc5.synthetic_weights(1, stress=True)
    assert len(d) == enc5.WEIGHT_IMAGE_BYTES == 431136


def test_every_source_gives_the_same_image(tmp_path):
    w = enc5.synthetic_weights(5)
    raw = w.tobytes()
    path = tmp_path / "w.bin"
    path.write_bytes(raw)
    sources = [str(path), pathlib.Path(path), raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, np.uint8),
               np.frombuffer(raw, np.uint8).copy(), w]
    for s in sources:
        assert enc5.WeightImage(s) == w, type(s).__name__
        assert enc5.load_weights(s) == w
    assert enc5.WeightImage.from_bytes(raw) == w
    # A non-contiguous array is accepted (copied).
    doubled = np.repeat(np.frombuffer(raw, np.uint8), 2)[::2]
    assert enc5.WeightImage(doubled) == w


def test_array_is_a_read_only_view_that_keeps_the_image_alive():
    a = enc5.synthetic_weights(3).array  # the image object is dropped at once
    assert a.dtype == np.uint8 and a.shape == (431136,)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1
    assert a.tobytes() == enc5.synthetic_weights(3).tobytes()


def test_regions_tile_the_image():
    regions = enc5.weight_regions()
    assert regions[0]["begin"] == 0 and regions[-1]["end"] == enc5.WEIGHT_IMAGE_BYTES
    for prev, cur in zip(regions, regions[1:]):
        assert prev["end"] == cur["begin"]
    for r in regions:
        assert r["size"] == r["end"] - r["begin"]
        assert r["type"] in ("e4m3", "f16")
        assert r["elements"] == (r["size"] // 2 if r["type"] == "f16" else r["size"])
    names = [r["name"] for r in regions]
    assert "g1" in names and len(set(names)) == len(names)
    assert enc5.default_weights().regions() == regions


def test_region_views_have_the_region_type():
    w = enc5.default_weights()
    for r in enc5.weight_regions():
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
    module = enc5.WeightImage(path).statistics()
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
            codes = enc5.WeightImage(path).region(m["name"])
            np.testing.assert_array_equal(h, np.bincount(codes, minlength=256))
        else:
            assert m["histogram"] is None
    again = enc5.region_statistics(path)  # the same, by function
    assert [(r["name"], r["count"], r["mean_abs"]) for r in again] == [(r["name"], r["count"], r["mean_abs"])
                                                                      for r in module]


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        enc5.WeightImage(tmp_path / "missing.bin")
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(100))
    with pytest.raises(enc5.InputError, match="expected 431136 bytes.*found 100 bytes"):
        enc5.WeightImage(short)
    with pytest.raises(ValueError, match="431124"):  # InputError is a ValueError; the spec's size is explained
        enc5.WeightImage(bytes(431124))
    with pytest.raises(TypeError, match="weights: expected dtype uint8, found dtype int8"):
        enc5.WeightImage(np.zeros(431136, np.int8))
    with pytest.raises(ValueError, match=r"expected a 1-D array of 431136 bytes, found shape \(2, 215568\)"):
        enc5.WeightImage(np.zeros((2, 215568), np.uint8))
    with pytest.raises(TypeError, match="found int"):
        enc5.WeightImage(3)
    with pytest.raises(TypeError, match="use WeightImage.load"):
        enc5.WeightImage.from_bytes(str(short))
    with pytest.raises(TypeError, match="path: expected str or os.PathLike"):
        enc5.WeightImage.load(b"\0" * 10)
    with pytest.raises(ValueError, match="seed"):
        enc5.synthetic_weights(-1)
    with pytest.raises(TypeError, match="stress: expected bool"):
        enc5.synthetic_weights(1, stress="yes")
