"""A minimal OpenEXR reader for the tests: single-part scan-line files, NO_COMPRESSION, HALF
channels (what `rrswin run` writes, docs/formats.md "Texture and surface"). Written from the file
layout description: magic, version, header attributes (name, type, size, value) up to an empty
name, the line offset table, then chunks (int32 y, int32 byte count, the line's channels in
alphabetical order)."""

from __future__ import annotations

import struct

import numpy as np


def read_rgba_half(path) -> np.ndarray:
    """float16 (height, width, 4), RGBA (A = 1.0 when the file has none)."""
    data = open(path, "rb").read()
    magic, version = struct.unpack_from("<iI", data, 0)
    assert magic == 20000630, "not an OpenEXR file"
    assert version & 0xFF == 2 and not version & 0x1E00, "only single-part scan-line files"
    pos = 8
    attrs = {}
    while data[pos] != 0:
        end = data.index(b"\0", pos)
        name = data[pos:end].decode()
        tend = data.index(b"\0", end + 1)
        typ = data[end + 1:tend].decode()
        (size,) = struct.unpack_from("<i", data, tend + 1)
        attrs[name] = (typ, data[tend + 5:tend + 5 + size])
        pos = tend + 5 + size
    pos += 1
    assert attrs["compression"][1][0] == 0, "only NO_COMPRESSION"
    xmin, ymin, xmax, ymax = struct.unpack("<4i", attrs["dataWindow"][1])
    width, height = xmax - xmin + 1, ymax - ymin + 1
    channels, raw, p = [], attrs["channels"][1], 0
    while raw[p] != 0:
        end = raw.index(b"\0", p)
        name = raw[p:end].decode()
        (ptype,) = struct.unpack_from("<i", raw, end + 1)
        assert ptype == 1, f"channel {name}: only HALF"
        channels.append(name)
        p = end + 1 + 16
    offsets = struct.unpack_from(f"<{height}Q", data, pos)
    # Bits are moved as uint16 so that every NaN payload survives.
    out = np.zeros((height, width, 4), np.uint16)
    out[..., 3] = 0x3C00
    slot = {"R": 0, "G": 1, "B": 2, "A": 3}
    for off in offsets:
        y, size = struct.unpack_from("<ii", data, off)
        assert size == 2 * width * len(channels)
        line = np.frombuffer(data, "<u2", width * len(channels), off + 8).reshape(len(channels), width)
        for i, name in enumerate(channels):  # stored alphabetically, as listed
            if name in slot:
                out[y - ymin, :, slot[name]] = line[i]
    return out.view(np.float16)
