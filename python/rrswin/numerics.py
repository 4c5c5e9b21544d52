"""The single-instruction evaluator of `rrswin eval`, vectorised over numpy arrays.

Every function applies one instruction of numerics.md elementwise, exactly as rrswin models it (the
same C++ code the layer runs). Values are numpy arrays of the register's type: f16 as
``np.float16`` (numpy's float16 is IEEE binary16, so its bits are the register's bits), e4m3 codes
as ``np.uint8``, f32 as ``np.float32``, b32 warp registers as ``np.uint32``. Array arguments
broadcast like numpy ufuncs; a result computed from 0-d inputs is a numpy scalar.

The packed ``.f16x2`` forms are the scalar operation on each half (numerics.md), so they are not
separate functions here: apply the scalar one to ``a.view(np.float16)`` of a uint32 array.

``profile`` is ``'ada'`` (an NVIDIA Ada GPU, sm_89, the default), ``'zluda'`` (d4r's ZLUDA on
AMD RDNA4), ``'hopper'`` (NVIDIA H100 / H200, sm_90, and B200, sm_100, where the FP8 mma is
emulated with f16 tensor-core operations) or ``'blackwell'`` (RTX 50, sm_120: MMA-Sim's model of its
native FP8 mma, unmeasured); it changes the mma accumulation and the e4m3 encoding of a negative NaN. Long arrays are evaluated
with the GIL released.
"""

from __future__ import annotations

import numpy as np

from . import _checks as C
from . import _rrswin

PROFILES = ("ada", "zluda", "hopper", "blackwell")


def _profile(p) -> str:
    return C.choice(p, "profile", PROFILES)


def _f16(x, name):
    return C.array(x, name, np.float16)


def _f16_unary(op, x):
    a = _f16(x, "a")
    out = np.empty(a.shape, np.float16)
    _rrswin.f16_unary(op, a.view(np.uint16).reshape(-1), out.view(np.uint16).reshape(-1))
    return C.scalar_or_array(out)


def _f16_binary(op, x, y):
    a, b = C.broadcast({"a": _f16(x, "a"), "b": _f16(y, "b")})
    out = np.empty(a.shape, np.float16)
    _rrswin.f16_binary(op, a.view(np.uint16).reshape(-1), b.view(np.uint16).reshape(-1), out.view(np.uint16).reshape(-1))
    return C.scalar_or_array(out)


# ---- f16 arithmetic (add/sub/mul/fma .rn.f16, max/min/neg/abs .f16) -------------------------------

def f16_add(a, b):
    """add.rn.f16: a + b, one round to nearest even; subnormals kept; NaN results are 0x7FFF."""
    return _f16_binary("add", a, b)


def f16_sub(a, b):
    """sub.rn.f16: a - b."""
    return _f16_binary("sub", a, b)


def f16_mul(a, b):
    """mul.rn.f16: a * b."""
    return _f16_binary("mul", a, b)


def f16_max(a, b):
    """max.f16: one NaN operand gives the other operand; +0 > -0."""
    return _f16_binary("max", a, b)


def f16_min(a, b):
    """min.f16: one NaN operand gives the other operand; -0 < +0."""
    return _f16_binary("min", a, b)


def f16_fma(a, b, c):
    """fma.rn.f16: a * b + c with a single rounding."""
    x, y, z = C.broadcast({"a": _f16(a, "a"), "b": _f16(b, "b"), "c": _f16(c, "c")})
    out = np.empty(x.shape, np.float16)
    _rrswin.f16_fma(*(v.view(np.uint16).reshape(-1) for v in (x, y, z, out)))
    return C.scalar_or_array(out)


def f16_neg(a):
    """neg.f16: flips the sign bit (NaN included)."""
    return _f16_unary("neg", a)


def f16_abs(a):
    """abs.f16: clears the sign bit."""
    return _f16_unary("abs", a)


def rcp_f16(a):
    """The kernel's wrapped reciprocal: cvt.f32.f16 -> rcp.approx.ftz.f32 -> cvt.rn.f16.f32.

    Exact for any hardware meeting PTX's documented error bound (numerics.md)."""
    return _f16_unary("rcp", a)


def rsqrt_f16(a):
    """The kernel's wrapped reciprocal square root: cvt.f32.f16 -> rsqrt.approx.ftz.f32 -> cvt.rn.f16.f32."""
    return _f16_unary("rsqrt", a)


# ---- conversions ----------------------------------------------------------------------------------

def e4m3_to_f16(codes):
    """cvt.rn.f16x2.e4m3x2 per byte: the exact value of each e4m3 code as float16 (NaN codes 0x7F/0xFF
    give the f16 NaN 0x7FFF)."""
    a = C.array(codes, "codes", np.uint8)
    out = np.empty(a.shape, np.float16)
    _rrswin.e4m3_to_f16(a.reshape(-1), out.view(np.uint16).reshape(-1))
    return C.scalar_or_array(out)


def cvt_f16_to_e4m3(x, profile: str = "ada"):
    """cvt.rn.satfinite.e4m3x2.f16x2 per half: round to nearest even, |x| > 448 and +-Inf saturate to
    +-448, |x| <= 2^-10 gives a signed zero; NaN gives 0x7F ('ada') or 0x7F with the NaN's sign
    ('zluda'). Returns uint8 codes."""
    p = _profile(profile)
    a = _f16(x, "x")
    out = np.empty(a.shape, np.uint8)
    _rrswin.f16_to_e4m3(a.view(np.uint16).reshape(-1), out.reshape(-1), p)
    return C.scalar_or_array(out)


f16_to_e4m3 = cvt_f16_to_e4m3


def q8(x, profile: str = "ada"):
    """The spec's q8: f16 -> e4m3 (satfinite) -> f16, the value an mma operand sees."""
    return e4m3_to_f16(cvt_f16_to_e4m3(x, profile))


def f16_to_f32(x):
    """cvt.f32.f16 (exact)."""
    a = _f16(x, "x")
    out = np.empty(a.shape, np.float32)
    _rrswin.f16_to_f32(a.view(np.uint16).reshape(-1), out.reshape(-1))
    return C.scalar_or_array(out)


def f32_to_f16(x):
    """cvt.rn.f16.f32."""
    a = C.array(x, "x", np.float32)
    out = np.empty(a.shape, np.float16)
    _rrswin.f32_to_f16(a.reshape(-1), out.view(np.uint16).reshape(-1))
    return C.scalar_or_array(out)


def f64_to_f16(x):
    """cvt.rn.f16.f64: rounded once, directly (not through f32)."""
    a = C.array(x, "x", np.float64)
    out = np.empty(a.shape, np.float16)
    _rrswin.f64_to_f16(a.reshape(-1), out.view(np.uint16).reshape(-1))
    return C.scalar_or_array(out)


# ---- the .approx.ftz.f32 instructions (correctly rounded model; ex2 and div are model-dependent) -

def _f32_unary(op, x):
    a = C.array(x, "x", np.float32)
    out = np.empty(a.shape, np.float32)
    _rrswin.f32_unary(op, a.reshape(-1), out.reshape(-1))
    return C.scalar_or_array(out)


def _f32_binary(op, x, y):
    a, b = C.broadcast({"a": C.array(x, "a", np.float32), "b": C.array(y, "b", np.float32)})
    out = np.empty(a.shape, np.float32)
    _rrswin.f32_binary(op, a.reshape(-1), b.reshape(-1), out.reshape(-1))
    return C.scalar_or_array(out)


def ftz_f32(x):
    """Flush f32 subnormals to a signed zero (the .ftz of every approx instruction)."""
    return _f32_unary("ftz", x)


def rcp_approx_f32(x):
    """rcp.approx.ftz.f32: 1/x, correctly rounded after .ftz."""
    return _f32_unary("rcp", x)


def rsqrt_approx_f32(x):
    """rsqrt.approx.ftz.f32: 1/sqrt(x), correctly rounded after .ftz."""
    return _f32_unary("rsqrt", x)


def ex2_approx_f32(x):
    """ex2.approx.ftz.f32: 2^x, correctly rounded (the model rrswin uses; the hardware's is unknown)."""
    return _f32_unary("ex2", x)


def div_approx_f32(a, b):
    """div.approx.ftz.f32: a / b as one correctly rounded quotient (model-dependent)."""
    return _f32_binary("div", a, b)


def add_ftz_f32(a, b):
    """add.ftz.f32."""
    return _f32_binary("add", a, b)


def mul_ftz_f32(a, b):
    """mul.ftz.f32."""
    return _f32_binary("mul", a, b)


# ---- mma.m16n8k32.row.col.f16.e4m3.e4m3.f16 -------------------------------------------------------

def mma_dot(a, b, c, profile: str = "ada"):
    """One output element of the mma per row: D = C + sum_k A[k] B[k].

    a, b: uint8 e4m3 codes of shape (..., 32), k = 0..31 in the PTX ISA's k order (the 'ada'
    profile sums k 0..15, then 16..31); c: float16 of shape (...). The leading dimensions broadcast.
    Returns float16 of the broadcast leading shape."""
    p = _profile(profile)
    a = C.array(a, "a", np.uint8)
    b = C.array(b, "b", np.uint8)
    c = _f16(c, "c")
    C.last_dims(a, "a", (32,), "32 e4m3 codes per dot product")
    C.last_dims(b, "b", (32,), "32 e4m3 codes per dot product")
    try:
        lead = np.broadcast_shapes(a.shape[:-1], b.shape[:-1], c.shape)
    except ValueError:
        raise ValueError(f"leading shapes do not broadcast together: a {C.shape_str(a.shape)}, "
                         f"b {C.shape_str(b.shape)}, c {C.shape_str(c.shape)}") from None
    a = C.contiguous(np.broadcast_to(a, lead + (32,)))
    b = C.contiguous(np.broadcast_to(b, lead + (32,)))
    c = C.contiguous(np.broadcast_to(c, lead))
    out = np.empty(lead, np.float16)
    _rrswin.mma_dot(a.reshape(-1), b.reshape(-1), c.view(np.uint16).reshape(-1), out.view(np.uint16).reshape(-1), p)
    return C.scalar_or_array(out)


def mma_m16n8k32(a, b, c, profile: str = "ada"):
    """The whole instruction in matrix form: D (16x8 float16) = A (16x32 e4m3, row-major) x
    B (32x8 e4m3, B[k][n]) + C (16x8 float16), k in the ISA's order. Leading batch dimensions
    broadcast: a (..., 16, 32), b (..., 32, 8), c (..., 16, 8)."""
    p = _profile(profile)
    a = C.array(a, "a", np.uint8)
    b = C.array(b, "b", np.uint8)
    c = _f16(c, "c")
    C.last_dims(a, "a", (16, 32), "A: 16 rows of 32 e4m3 codes")
    C.last_dims(b, "b", (32, 8), "B: 32 x 8 e4m3 codes")
    C.last_dims(c, "c", (16, 8), "C: 16 x 8 float16")
    try:
        lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    except ValueError:
        raise ValueError(f"batch shapes do not broadcast together: a {C.shape_str(a.shape)}, "
                         f"b {C.shape_str(b.shape)}, c {C.shape_str(c.shape)}") from None
    a = C.contiguous(np.broadcast_to(a, lead + (16, 32)))
    b = C.contiguous(np.broadcast_to(b, lead + (32, 8)))
    c = C.contiguous(np.broadcast_to(c, lead + (16, 8)))
    out = np.empty(lead + (16, 8), np.float16)
    _rrswin.mma_m16n8k32(a.reshape(-1), b.reshape(-1), c.view(np.uint16).reshape(-1),
                       out.view(np.uint16).reshape(-1), p)
    return out


# ---- warp-level data movement ---------------------------------------------------------------------

def shfl_bfly(a, lane_mask):
    """shfl.sync.bfly.b32 (c = 0x1f, full member mask): lane L receives a of lane L ^ lane_mask.

    a: uint32 of shape (..., 32), one register of a warp's 32 lanes per row; lane_mask: 0..31, an
    int or an integer array broadcasting against the leading shape."""
    a = C.array(a, "a", np.uint32)
    C.last_dims(a, "a", (32,), "one b32 register of 32 lanes")
    mask = C.array(lane_mask, "lane_mask", np.uint32)
    if mask.size and int(mask.max()) > 31:
        raise ValueError(f"lane_mask: expected values in [0, 31], found {int(mask.max())}")
    try:
        lead = np.broadcast_shapes(a.shape[:-1], mask.shape)
    except ValueError:
        raise ValueError(f"lane_mask {C.shape_str(mask.shape)} does not broadcast against the leading shape of "
                         f"a {C.shape_str(a.shape)}") from None
    a = C.contiguous(np.broadcast_to(a, lead + (32,)))
    mask = C.contiguous(np.broadcast_to(mask, lead))
    out = np.empty(lead + (32,), np.uint32)
    _rrswin.shfl_bfly(a.reshape(-1), mask.reshape(-1), out.reshape(-1))
    return out


def movmatrix_trans(a):
    """movmatrix.sync.aligned.m8n8.trans.b16 on uint32 of shape (..., 32): lane L holds
    M[L/4][2(L%4)] (low half) and M[L/4][2(L%4)+1] (high half); the result holds the transpose in
    the same layout."""
    a = C.array(a, "a", np.uint32)
    C.last_dims(a, "a", (32,), "one b32 register of 32 lanes")
    out = np.empty(a.shape, np.uint32)
    _rrswin.movmatrix_trans(a.reshape(-1), out.reshape(-1))
    return out
