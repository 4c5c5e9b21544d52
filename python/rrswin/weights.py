"""The prepared weight image W (the kernel's param+40): loading, inspecting, synthesising.

An image is exactly WEIGHT_IMAGE_BYTES = 431136 bytes; its map (facts E4) splits it into named
regions of e4m3 codes or little-endian f16 values (docs/readings/weights.md). The bytes are
immutable once loaded: `WeightImage.array` is a read-only view.
"""

from __future__ import annotations

import os

import numpy as np

from . import _checks as C
from . import _rrswin

WEIGHT_IMAGE_BYTES: int = _rrswin.WEIGHT_IMAGE_BYTES
InputError = _rrswin.InputError


def weight_regions() -> list[dict]:
    """Every named region of the image map in address order; they tile [0, WEIGHT_IMAGE_BYTES).

    Each dict: name ('Wq[3]', 'T1', ...), begin, end, size (bytes), type ('e4m3' or 'f16'), role
    ('g1', 'wq', 'wv', 'score_bias', 'wo', 't1', 'g2', 'w1', 'b1', 'w2', 't3', 'w61', 'b61'),
    index (the head or chunk, else -1) and elements."""
    return _rrswin.weight_regions()


class WeightImage:
    """A validated weight image.

    ``WeightImage(source)`` accepts a path (str or os.PathLike), bytes-like data (bytes, bytearray,
    memoryview) or a 1-D numpy uint8 array; a wrong size raises rrswin.InputError (a ValueError)
    naming the expected and found sizes, a missing file FileNotFoundError."""

    __slots__ = ("_core",)

    def __init__(self, source):
        if isinstance(source, WeightImage):
            self._core = source._core
        elif isinstance(source, _rrswin.WeightImageCore):
            self._core = source
        elif isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if isinstance(path, bytes):
                path = os.fsdecode(path)
            if not os.path.exists(path):
                raise FileNotFoundError(f"weight image: no such file: {path!r}")
            self._core = _rrswin.WeightImageCore.load(path)
        elif isinstance(source, (bytes, bytearray, memoryview)):
            data = np.frombuffer(memoryview(source).cast("B"), np.uint8)
            self._core = _rrswin.WeightImageCore.from_array(data, f"<{type(source).__name__}>")
        elif isinstance(source, np.ndarray):
            a = C.array(source, "weights", np.uint8)
            if a.ndim != 1:
                raise ValueError(f"weights: expected a 1-D array of {WEIGHT_IMAGE_BYTES} bytes, found shape "
                                 f"{C.shape_str(a.shape)}")
            self._core = _rrswin.WeightImageCore.from_array(a, "<numpy array>")
        else:
            raise TypeError("weights: expected a path, bytes-like data, a 1-D numpy uint8 array or a WeightImage, "
                            f"found {type(source).__name__}")

    # Constructors by name, for readability at call sites.
    @classmethod
    def load(cls, path) -> "WeightImage":
        """Reads and validates a weight-image file."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path: expected str or os.PathLike, found {type(path).__name__}")
        return cls(path)

    @classmethod
    def from_bytes(cls, data) -> "WeightImage":
        """From bytes-like data or a 1-D numpy uint8 array."""
        if isinstance(data, (str, os.PathLike)):
            raise TypeError("data: expected bytes-like data or a numpy uint8 array, found a path (use WeightImage.load)")
        return cls(data)

    @classmethod
    def synthetic(cls, seed: int = 1, stress: bool = False) -> "WeightImage":
        """The deterministic synthetic image of `rrswin make-weights --seed SEED [--stress]` (same bytes on
        every platform). stress=True drives every nonlinear branch of the layer."""
        seed = C.integer(seed, "seed", 0, 2**64 - 1)
        if not isinstance(stress, bool):
            raise TypeError(f"stress: expected bool, found {type(stress).__name__}")
        return cls(_rrswin.WeightImageCore.synthetic(seed, stress))

    @classmethod
    def default(cls) -> "WeightImage":
        """The embedded default image (synthetic, seed 1) that the demo and `rrswin run` use."""
        return cls(_default_core())

    @property
    def array(self) -> np.ndarray:
        """The image's bytes as a read-only 1-D numpy uint8 view."""
        return self._core.array()

    def tobytes(self) -> bytes:
        return self.array.tobytes()

    def __len__(self) -> int:
        return len(self._core)

    def __eq__(self, other) -> bool:
        if not isinstance(other, WeightImage):
            return NotImplemented
        return self._core is other._core or bool(np.array_equal(self.array, other.array))

    __hash__ = None  # equality compares 431136 bytes; hashing them is not worth offering

    def __repr__(self) -> str:
        return f"<rrswin.WeightImage {len(self)} bytes>"

    def regions(self) -> list[dict]:
        """The region map (the same for every image): see weight_regions()."""
        return weight_regions()

    def region(self, name: str) -> np.ndarray:
        """A read-only view of one region's contents: uint8 codes for e4m3 regions, float16 values
        for f16 regions (little endian, as the kernel reads them)."""
        if not isinstance(name, str):
            raise TypeError(f"name: expected str, found {type(name).__name__}")
        for r in weight_regions():
            if r["name"] == name:
                view = self.array[r["begin"]:r["end"]]
                return view.view("<f2") if r["type"] == "f16" else view
        raise KeyError(f"no weight region named {name!r} (weight_regions() lists them, e.g. 'g1', 'Wq[0]', 'T1')")

    def statistics(self) -> list[dict]:
        """Per-region statistics (what `rrswin inspect` prints), one dict per region in address order:
        the region fields plus count, nan, inf, zero, subnormal, saturated, min, max, mean_abs
        (over finite values) and histogram (256 uint64 code counts for e4m3 regions, else None)."""
        return self._core.statistics()


_default = None


def _default_core():
    global _default
    if _default is None:  # built once per process: the image is immutable
        _default = _rrswin.WeightImageCore.default()
    return _default


def default_weights() -> WeightImage:
    """The embedded default image (synthetic, seed 1)."""
    return WeightImage.default()


def synthetic_weights(seed: int = 1, stress: bool = False) -> WeightImage:
    """Same as WeightImage.synthetic(seed, stress): the bytes of `rrswin make-weights`."""
    return WeightImage.synthetic(seed, stress)


def load_weights(source) -> WeightImage:
    """A WeightImage from a path, bytes-like data or a numpy uint8 array."""
    return WeightImage(source)


def region_statistics(weights) -> list[dict]:
    """WeightImage(weights).statistics()."""
    return WeightImage(weights).statistics()
