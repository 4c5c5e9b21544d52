"""rrswin from Python: an open, bit-exact CPU implementation of DLSS-RR's
cuda_dldn_engine_swin_enc5_kernel, on numpy arrays.

    import rrswin
    frame = rrswin.demo_frame()                       # synthetic inputs at ex=40, ey=23
    arena, surface = rrswin.run(frame.input_arena, frame.texture)   # default weights
    surface.shape, surface.dtype                    # (23, 40, 4) float16

    rrswin.cvt_f16_to_e4m3(np.float16([1.0, 500.0]))  # array([ 56, 126], dtype=uint8)
    rrswin.mma_dot(a, b, c, profile="zluda")          # a, b uint8 (N, 32); c float16 (N,)
    rrswin.ptx_launch("k.ptx", entry="k", grid=4, block=256, buffers={"out": 4096}, params=["ptr:out"])

Everything is the C++ library's code (the same bytes as the `rrswin` tool). Arguments are checked:
a wrong dtype raises TypeError and a wrong shape or value ValueError, each naming the argument,
what was expected and what was found. docs/python.md has the whole API.
"""

from . import _rrswin
from .frame import (
    DEMO_EX,
    DEMO_EY,
    ENGINES,
    TEXTURE_MODES,
    RunResult,
    SyntheticFrame,
    Trace,
    TraceStage,
    default_readings,
    demo_frame,
    readings,
    run,
    synthetic_frame,
)
from .numerics import (
    PROFILES,
    add_ftz_f32,
    cvt_f16_to_e4m3,
    div_approx_f32,
    e4m3_to_f16,
    ex2_approx_f32,
    f16_abs,
    f16_add,
    f16_fma,
    f16_max,
    f16_min,
    f16_mul,
    f16_neg,
    f16_sub,
    f16_to_e4m3,
    f16_to_f32,
    f32_to_f16,
    f64_to_f16,
    ftz_f32,
    mma_dot,
    mma_m16n8k32,
    movmatrix_trans,
    mul_ftz_f32,
    q8,
    rcp_approx_f32,
    rcp_f16,
    rsqrt_approx_f32,
    rsqrt_f16,
    shfl_bfly,
)
from .layers import (
    LAYERS,
    diff_network,
    layer_phases,
    layer_readings,
    layer_spec,
    layer_weight_regions,
    run_enc4,
    replay_network,
    run_layer,
    run_network,
    synthetic_layer_weights,
)
from .ptx import PtxError, ptx_launch
from .weights import (
    WEIGHT_IMAGE_BYTES,
    InputError,
    WeightImage,
    default_weights,
    load_weights,
    region_statistics,
    synthetic_weights,
    weight_regions,
)

__version__ = "0.1.0"

__all__ = [name for name in dir() if not name.startswith("_") and name not in ("frame", "layers", "numerics", "ptx", "weights")]
