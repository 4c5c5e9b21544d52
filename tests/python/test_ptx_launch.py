"""rrswin.ptx_launch against `rrswin ptx launch` (the same module, bridge/launch.hpp): the parameter
block byte by byte (tests/ptx/launch.ptx params_echo, expected bytes written here by hand), an nvcc
kernel's outputs equal to the tool's, dtypes and shapes, dynamic shared memory, texture and surface,
and the errors."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import rrswin

PTX = Path(__file__).resolve().parents[1] / "ptx"
LAUNCH = PTX / "launch.ptx"
KERNELS = PTX / "kernels.ptx"


def test_parameter_block_from_typed_values():
    out = rrswin.ptx_launch(LAUNCH, entry="params_echo", grid=1, block=32, buffers={"out": 48},
                          params=["ptr:out", "u8:255", "u16:0xBEEF", ("u32", 4000000000), "u64:0x0123456789ABCDEF", ("s8", -5),
                                  ("f16", 1.5), ("f32", -2.25), ("f64", 0.1), "b8:-1"])["out"]
    assert out.dtype == np.uint8 and out.shape == (48,)
    b = out.tobytes()
    assert b[0] == 0xFF
    assert struct.unpack_from("<H", b, 2)[0] == 0xBEEF
    assert struct.unpack_from("<I", b, 4)[0] == 4000000000
    assert struct.unpack_from("<Q", b, 8)[0] == 0x0123456789ABCDEF
    assert struct.unpack_from("<i", b, 16)[0] == -5
    assert struct.unpack_from("<H", b, 20)[0] == 0x3E00
    assert struct.unpack_from("<f", b, 24)[0] == -2.25
    assert struct.unpack_from("<d", b, 32)[0] == 0.1
    assert b[40] == 0xFF


def test_a_python_float_is_rounded_once_from_its_own_value():
    # 1 + 2^-11 + 2^-40 is just above an f16 midpoint: rounded once from the double's exact value
    # (passed as its exact decimal expansion) it is 0x3C01; f32 and f64 likewise from the double.
    x = 1.0 + 2.0**-11 + 2.0**-40
    out = rrswin.ptx_launch(LAUNCH, entry="params_echo", grid=1, block=1, buffers={"out": 48},
                          params=["ptr:out", "u8:0", "u16:0", "u32:0", "u64:0", "s8:0", ("f16", x), ("f32", x), ("f64", x), "b8:0"])["out"]
    b = out.tobytes()
    assert struct.unpack_from("<H", b, 20)[0] == 0x3C01
    assert struct.unpack_from("<f", b, 24)[0] == np.float32(x)
    assert struct.unpack_from("<d", b, 32)[0] == x


def test_nvcc_kernel_equals_the_tool(cli, tmp_path):
    rng = np.random.default_rng(5)
    data = rng.integers(0, 2**32, size=1000, dtype=np.uint32)
    got = rrswin.ptx_launch(KERNELS, entry="int_mix", grid=4, block=256, buffers={"in": data, "out": 4000},
                          params=["ptr:in", "ptr:out", ("s32", 1000)], threads=2)
    assert got["in"].dtype == np.uint32 and got["in"].shape == (1000,)
    assert np.array_equal(got["in"], data)
    (tmp_path / "in.bin").write_bytes(data.tobytes())
    cli("ptx", "launch", str(KERNELS), "--entry", "int_mix", "--grid", "4", "--block", "256", "--buffer", f"in={tmp_path / 'in.bin'}",
        "--buffer", "out:4000", "--param", "ptr:in", "--param", "ptr:out", "--param", "s32:1000", "-o", str(tmp_path / "res"))
    assert got["out"].tobytes() == (tmp_path / "res" / "out.bin").read_bytes()


def test_array_buffers_keep_dtype_and_shape_and_shared_memory():
    data = np.arange(256, dtype=np.uint32).reshape(16, 16) * 3
    out = rrswin.ptx_launch(str(LAUNCH), entry="dyn_reverse", grid=(1, 1, 1), block=256, shared=1024,
                          buffers={"in": data, "out": np.zeros((16, 16), dtype=np.uint32)}, params=["ptr:in", "ptr:out"])
    assert out["out"].shape == (16, 16) and out["out"].dtype == np.uint32
    assert np.array_equal(out["out"].reshape(-1), data.reshape(-1)[::-1])
    with pytest.raises(ValueError, match="shared"):
        rrswin.ptx_launch(LAUNCH, entry="dyn_reverse", grid=1, block=256, shared=512,
                        buffers={"in": data, "out": 1024}, params=["ptr:in", "ptr:out"])


def test_texture_to_surface_and_ptx_text():
    tex = (np.arange(4 * 2 * 4, dtype=np.uint16) + 0x3000).view(np.float16).reshape(2, 4, 4)
    text = LAUNCH.read_text()
    out, stats = rrswin.ptx_launch(text, entry="tex_copy", grid=2, block=4, textures={"img": tex}, surfaces={"s": (4, 2)},
                                 params=["ptr:img", "ptr:s"], return_stats=True)
    assert out["s"].dtype == np.float16 and out["s"].shape == (2, 4, 4)
    assert np.array_equal(out["s"].view(np.uint16), tex.view(np.uint16))
    assert "img" not in out and stats["ctas"] == 2


@pytest.mark.parametrize("kwargs, message", [
    (dict(params=["ptr:in", "ptr:out", "s32:99999999999"]), r"params\[2\] 's32:99999999999': the value is outside s32's range"),
    (dict(params=["ptr:in", "ptr:out"]), "declares 3 parameters"),
    (dict(params=["ptr:in", "ptr:nope", "s32:1"]), "no buffer, texture or surface is named 'nope'"),
    (dict(params=["ptr:in", "ptr:out", "u64:1"]), "is 4 bytes; u64 is 8"),
    (dict(params=["ptr:in", "ptr:out", "s32:1"], grid=(1, 65536)), "y = 65536 is outside"),
    (dict(params=["ptr:in", "ptr:out", "s32:1"], block=2048), "x = 2048 is outside"),
    (dict(params=["ptr:in", "ptr:out", "s32:1"], shared=300000), "232448"),
    (dict(params=["ptr:in", "ptr:out", "s32:1"], entry="nope"), "no such entry"),
])
def test_errors_name_the_argument(kwargs, message):
    args = dict(entry="int_mix", grid=1, block=32, buffers={"in": 16, "out": 16})
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        rrswin.ptx_launch(KERNELS, **args)


def test_type_errors():
    with pytest.raises(TypeError, match="buffers\\['in'\\]"):
        rrswin.ptx_launch(KERNELS, entry="int_mix", grid=1, block=32, buffers={"in": [1, 2]}, params=[])
    with pytest.raises(TypeError, match="params\\[0\\]"):
        rrswin.ptx_launch(KERNELS, entry="int_mix", grid=1, block=32, buffers={"in": 16}, params=[3])
    with pytest.raises(ValueError, match="profile"):
        rrswin.ptx_launch(KERNELS, entry="int_mix", grid=1, block=32, params=[], profile="volta")


RELU_PTX = """.version 8.0
.target sm_89
.address_size 64
.visible .entry relu(.param .u64 out)
{
  .reg .b16 %h<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.b16 %h1, 0x0000;
  mov.b16 %h2, 0xBC00;
  mov.b16 %h3, 0x8000;
  fma.rn.relu.f16 %h0, %h1, %h2, %h3;
  st.global.b16 [%rd1], %h0;
  ret;
}
"""


def test_readings_select_the_interpreters_reading():
    # fma.rn.relu.f16(+0, -1, -0) = relu(-0) (0 * -1 = -0, -0 + -0 = -0): +0 under the default
    # reading ptx-relu-negative-zero=plus-zero, -0 (0x8000) under keep (docs/readings.md).
    def run(**kw):
        return rrswin.ptx_launch(RELU_PTX, entry="relu", grid=1, block=1, buffers={"out": np.zeros(1, np.uint16)},
                               params=["ptr:out"], **kw)["out"][0]
    assert run() == 0x0000
    assert run(readings={"ptx-relu-negative-zero": "keep"}) == 0x8000
    assert run(readings=["ptx-relu-negative-zero=keep"]) == 0x8000
    assert run(readings=["ptx-relu-negative-zero=plus-zero"]) == 0x0000
    with pytest.raises(rrswin.PtxError, match="ptx-relu-negative-zero"):
        run(readings={"ptx-relu-negative-zero": "maybe"})
    with pytest.raises(rrswin.PtxError, match="the interpreter's readings are"):
        run(readings=["no-such-reading=1"])
    with pytest.raises(TypeError, match="readings"):
        run(readings="ptx-relu-negative-zero=keep")
    with pytest.raises(TypeError, match="readings"):
        run(readings=["keep"])


def test_stats_report_model_dependent_instructions():
    ptx = RELU_PTX.replace("fma.rn.relu.f16 %h0, %h1, %h2, %h3;",
                           ".reg .f32 %f<2>;\n  ex2.approx.f32 %f1, %f0;\n  fma.rn.relu.f16 %h0, %h1, %h2, %h3;")
    _, stats = rrswin.ptx_launch(ptx, entry="relu", grid=1, block=1, buffers={"out": 2}, params=["ptr:out"], return_stats=True)
    assert stats["model_dependent"] == {"ex2.approx.f32": 1}
