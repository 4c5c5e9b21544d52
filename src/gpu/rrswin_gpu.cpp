// rrswin-gpu: runs the CUDA ports (src/cuda/) on a GPU through the CUDA driver API, from the PTX or
// cubin that CMake builds (or the checked-in PTX), and writes their outputs in the files rrswin
// writes, so that `rrswin diff` compares them with the golden model. Used by scripts/gpu-check.sh;
// plain C++ (no nvcc needed to build it).
//
//   rrswin-gpu info
//   rrswin-gpu mma-check [--tiles N] [--seed S] [--profile P]
//   rrswin-gpu run --module FILE --frame DIR --ex N --ey N [--block-offset X,Y] [--reading NAME=VALUE]...
//                [--repeat N] -o OUT                          enc5's kernel on a frame folder
//   rrswin-gpu replay --module FILE --capture DIR [--entry NAME] [--sampler OFF=point|linear]...
//                [--repeat N] -o OUT                          any kernel on a replay capture
#include <cuda.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_weights.hpp"
#include "bridge/kernel_capture.hpp"
#include "capture/capture.hpp"
#include "cuda/enc5_params.hpp"
#include "cuda/launch_check.hpp"
#include "io/arena_io.hpp"
#include "io/frame_io.hpp"
#include "io/output_set.hpp"
#include "io/weight_file.hpp"
#include "model/weight_image.hpp"
#include "numerics/mma.hpp"
#include "numerics/profile.hpp"

namespace {

namespace fs = std::filesystem;

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw Error(std::string(what) + " failed: " + (name ? name : "?") + " (" + (text ? text : "") + ")");
}
#define CU(call) check((call), #call)

struct Context {
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  int major = 0, minor = 0;
  std::string name;
  Context() {
    CU(cuInit(0));
    int n = 0;
    CU(cuDeviceGetCount(&n));
    if (n == 0) throw Error("no CUDA device");
    CU(cuDeviceGet(&dev, 0));
    char buf[256] = {};
    CU(cuDeviceGetName(buf, sizeof buf, dev));
    name = buf;
    CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
  }
  ~Context() { cuDevicePrimaryCtxRelease(dev); }
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

CUmodule load_module(const std::string& image) {
  CUmodule m = nullptr;
  char log[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log))};
  const CUresult r = cuModuleLoadDataEx(&m, image.c_str(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    std::cerr << "module load log: " << log << "\n";
    check(r, "cuModuleLoadDataEx");
  }
  return m;
}

long long parse_int(const std::string& opt, const std::string& s, long long lo, long long hi) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v < lo || v > hi)
    throw Error(opt + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + s + "'");
  return v;
}

// ---- info ----
int cmd_info() {
  Context c;
  const std::string prof = rrswin::cuda::profile_for_compute_capability(c.major, c.minor);
  std::printf("device: %s, compute capability %d.%d (sm_%d%d)\n", c.name.c_str(), c.major, c.minor, c.major, c.minor);
  std::printf("profile: %s\n", prof.empty() ? "none (no rrswin profile models this device)" : prof.c_str());
  return 0;
}

// ---- mma-check: the device's own mma against the numerics core ----
// One warp per tile: lane L reads 8 words (A regs 0..3, B regs 0..1, C regs 0..1) and writes D.
constexpr const char* kMmaHarnessPtx = R"(
.version 8.7
.target sm_89
.address_size 64
.visible .entry rrswin_mma_harness(.param .u64 in_p, .param .u64 out_p)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in_p];
  ld.param.u64 %rd2, [out_p];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 32, %r1;
  mul.wide.u32 %rd3, %r3, 32;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r4,%r5,%r6,%r7}, [%rd4];
  ld.global.v4.u32 {%r8,%r9,%r10,%r11}, [%rd4+16];
  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r12,%r13}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11};
  mul.wide.u32 %rd5, %r3, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v2.u32 [%rd6], {%r12,%r13};
  ret;
}
)";

struct MmaCheckOptions {
  int tiles = 4096;
  std::uint64_t seed = 1;
  std::string profile_name;  // empty: the device's (cuda/launch_check.hpp)
};

MmaCheckOptions parse_mma_check(int argc, char** argv) {
  MmaCheckOptions o;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--tiles")
      o.tiles = static_cast<int>(parse_int(a, value(), 1, 1 << 20));
    else if (a == "--seed")
      o.seed = static_cast<std::uint64_t>(parse_int(a, value(), 0, 1LL << 62));
    else if (a == "--profile")
      o.profile_name = value();
    else
      throw Error("mma-check: unknown option " + a);
  }
  return o;
}

// Random operands, 8 words per lane (A regs 0..3, B regs 0..1, C regs 0..1): e4m3 codes over the
// whole range (NaN codes excluded: their D is NaN on every model), f16 C over finite values of
// moderate size, and every 8th tile with a wide exponent spread to exercise the truncation of
// the `ada` accumulation.
std::vector<std::uint32_t> random_mma_tiles(int tiles, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> in(static_cast<std::size_t>(tiles) * 32 * 8);
  auto code = [&](bool wide) -> std::uint8_t {
    for (;;) {
      std::uint8_t v = static_cast<std::uint8_t>(rng());
      if (!wide) v = static_cast<std::uint8_t>((v & 0x80) | (0x20 + (v & 0x3F) % 0x30));  // |x| in [2^-3, 2^3)
      if ((v & 0x7F) != 0x7F) return v;
    }
  };
  auto half = [&]() -> std::uint32_t { return static_cast<std::uint32_t>((rng() & 0x8000) | (0x2000 + rng() % 0x3000)); };
  for (int tile = 0; tile < tiles; ++tile) {
    const bool wide = tile % 8 == 7;
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t* w = &in[(static_cast<std::size_t>(tile) * 32 + lane) * 8];
      for (int r = 0; r < 6; ++r) {
        std::uint32_t v = 0;
        for (int j = 0; j < 4; ++j) v |= static_cast<std::uint32_t>(code(wide)) << (8 * j);
        w[r] = v;
      }
      for (int r = 6; r < 8; ++r) {
        const std::uint32_t lo = half();
        w[r] = lo | (half() << 16);
      }
    }
  }
  return in;
}

// The device's D registers (2 words per lane) of every tile, from kMmaHarnessPtx.
std::vector<std::uint32_t> device_mma(const std::vector<std::uint32_t>& in, int tiles) {
  CUmodule mod = load_module(kMmaHarnessPtx);
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, "rrswin_mma_harness"));
  CUdeviceptr din, dout;
  CU(cuMemAlloc(&din, in.size() * 4));
  CU(cuMemAlloc(&dout, static_cast<std::size_t>(tiles) * 32 * 8));
  CU(cuMemcpyHtoD(din, in.data(), in.size() * 4));
  void* args[] = {&din, &dout};
  CU(cuLaunchKernel(fn, tiles, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  CU(cuCtxSynchronize());
  std::vector<std::uint32_t> out(static_cast<std::size_t>(tiles) * 32 * 2);
  CU(cuMemcpyDtoH(out.data(), dout, out.size() * 4));
  cuMemFree(din);
  cuMemFree(dout);
  cuModuleUnload(mod);
  return out;
}

// Elements where the device's D differs from the profile's mma_m16n8k32 (the first 5 printed).
std::uint64_t mma_mismatches(const rrswin::Profile& prof, const std::vector<std::uint32_t>& in, const std::vector<std::uint32_t>& out,
                             int tiles) {
  std::uint64_t mismatches = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    rrswin::MmaFragA a;
    rrswin::MmaFragB b;
    rrswin::MmaFragC cc;
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint32_t* w = &in[(static_cast<std::size_t>(tile) * 32 + lane) * 8];
      for (int r = 0; r < 4; ++r) a.reg[lane][r] = w[r];
      b.reg[lane] = {w[4], w[5]};
      cc.reg[lane] = {w[6], w[7]};
    }
    const rrswin::MmaFragC want = rrswin::mma_m16n8k32(prof, a, b, cc);
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 2; ++r) {
        const std::uint32_t got = out[(static_cast<std::size_t>(tile) * 32 + lane) * 2 + r];
        for (int h = 0; h < 2; ++h) {
          const std::uint32_t g16 = (got >> (16 * h)) & 0xFFFF, w16 = (want.reg[lane][r] >> (16 * h)) & 0xFFFF;
          if (g16 == w16) continue;
          if (mismatches < 5)
            std::printf("  mismatch tile %d lane %d reg %d half %d: device 0x%04x, %s 0x%04x\n", tile, lane, r, h, g16,
                        std::string(prof.name).c_str(), w16);
          ++mismatches;
        }
      }
  }
  return mismatches;
}

int cmd_mma_check(int argc, char** argv) {
  MmaCheckOptions o = parse_mma_check(argc, argv);
  Context c;
  if (o.profile_name.empty()) o.profile_name = rrswin::cuda::profile_for_compute_capability(c.major, c.minor);
  const rrswin::Profile* prof = rrswin::find_profile(o.profile_name);
  if (!prof) {
    std::printf("mma-check: sm_%d%d has no rrswin profile ('%s' is not one of this build's); results are reported against ada\n", c.major,
                c.minor, o.profile_name.c_str());
    prof = &rrswin::profile_ada();
  }
  const std::vector<std::uint32_t> in = random_mma_tiles(o.tiles, o.seed);
  const std::vector<std::uint32_t> out = device_mma(in, o.tiles);
  const std::uint64_t mismatches = mma_mismatches(*prof, in, out, o.tiles);
  std::printf("mma-check: %llu elements of %d random m16n8k32 e4m3 tiles (32-term dot products), %llu differ from the %s profile\n",
              static_cast<unsigned long long>(o.tiles) * 32 * 4, o.tiles, static_cast<unsigned long long>(mismatches),
              std::string(prof->name).c_str());
  return mismatches == 0 ? 0 : 1;
}

// ---- run: the layer on one frame ----
struct RunOptions {
  std::string module_path, frame_dir, out_dir;
  int ex = 0, ey = 0, ox = 0, oy = 0, repeat = 1;
  rrswin::Readings readings;
};

RunOptions parse_run(int argc, char** argv) {
  RunOptions o;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--module")
      o.module_path = value();
    else if (a == "--frame")
      o.frame_dir = value();
    else if (a == "-o" || a == "--out")
      o.out_dir = value();
    else if (a == "--ex")
      o.ex = static_cast<int>(parse_int(a, value(), 1, 1 << 16));
    else if (a == "--ey")
      o.ey = static_cast<int>(parse_int(a, value(), 1, 1 << 16));
    else if (a == "--repeat")
      o.repeat = static_cast<int>(parse_int(a, value(), 1, 100000));
    else if (a == "--block-offset") {
      const std::string v = value();
      const auto comma = v.find(',');
      if (comma == std::string::npos) throw Error("--block-offset: expected X,Y, got '" + v + "'");
      o.ox = static_cast<int>(parse_int(a, v.substr(0, comma), 0, 65535));
      o.oy = static_cast<int>(parse_int(a, v.substr(comma + 1), 0, 65535));
    } else if (a == "--reading") {
      std::string err;
      if (!rrswin::set_reading(o.readings, value(), &err)) throw Error("--reading: " + err);
    } else
      throw Error("run: unknown option " + a);
  }
  if (o.module_path.empty() || o.frame_dir.empty() || o.out_dir.empty() || o.ex == 0 || o.ey == 0)
    throw Error("run needs --module, --frame, --ex, --ey and -o");
  if (const std::string why = rrswin::cuda::unsupported_reading(o.readings); !why.empty()) throw Error(why);
  return o;
}

// An RGBA16F CUDA array of w x h (surface load/store when `surface`), filled from `host` (pitch w*8).
CUarray rgba16f_array(int w, int h, const void* host, bool surface) {
  CUDA_ARRAY3D_DESCRIPTOR ad{};
  ad.Width = static_cast<std::size_t>(w);
  ad.Height = static_cast<std::size_t>(h);
  ad.Format = CU_AD_FORMAT_HALF;
  ad.NumChannels = 4;
  if (surface) ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CUarray arr;
  CU(cuArray3DCreate(&arr, &ad));
  CUDA_MEMCPY2D cp{};
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = host;
  cp.srcPitch = static_cast<std::size_t>(w) * 8;
  cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  cp.dstArray = arr;
  cp.WidthInBytes = static_cast<std::size_t>(w) * 8;
  cp.Height = static_cast<std::size_t>(h);
  CU(cuMemcpy2D(&cp));
  return arr;
}

// The layer's device resources for one frame: arenas, weights, the texture (point sampling,
// unnormalised integer coordinates, clamp) and the zero-filled ex x ey surface (like rrswin run's).
struct DeviceFrame {
  CUdeviceptr din = 0, dout = 0, dw = 0;
  CUarray tex_array = nullptr, surf_array = nullptr;
  CUtexObject texobj = 0;
  CUsurfObject surfobj = 0;
  std::size_t arena_bytes = 0;

  DeviceFrame(const std::vector<std::uint8_t>& input, const rrswin::WeightImage& weights, const rrswin::Texture& tex, int ex, int ey)
      : arena_bytes(input.size()) {
    CU(cuMemAlloc(&din, arena_bytes));
    CU(cuMemAlloc(&dout, arena_bytes));
    CU(cuMemAlloc(&dw, weights.bytes().size()));
    CU(cuMemcpyHtoD(din, input.data(), arena_bytes));
    CU(cuMemcpyHtoD(dw, weights.bytes().data(), weights.bytes().size()));
    CU(cuMemsetD8(dout, 0, arena_bytes));
    tex_array = rgba16f_array(tex.width, tex.height, tex.rgba.data(), false);
    CUDA_RESOURCE_DESC rd{};
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = tex_array;
    CUDA_TEXTURE_DESC td{};
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CU(cuTexObjectCreate(&texobj, &rd, &td, nullptr));
    const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(ex) * ey * 8, 0);
    surf_array = rgba16f_array(ex, ey, zeros.data(), true);
    rd.res.array.hArray = surf_array;
    CU(cuSurfObjectCreate(&surfobj, &rd));
  }
  ~DeviceFrame() {
    if (surfobj) cuSurfObjectDestroy(surfobj);
    if (texobj) cuTexObjectDestroy(texobj);
    if (surf_array) cuArrayDestroy(surf_array);
    if (tex_array) cuArrayDestroy(tex_array);
    if (din) cuMemFree(din);
    if (dout) cuMemFree(dout);
    if (dw) cuMemFree(dw);
  }
  DeviceFrame(const DeviceFrame&) = delete;
  DeviceFrame& operator=(const DeviceFrame&) = delete;

  rrswin::cuda::Enc5Params params(const RunOptions& o) const {
    rrswin::cuda::Enc5Params p{};
    p.ex = static_cast<std::uint32_t>(o.ex);
    p.ey = static_cast<std::uint32_t>(o.ey);
    p.input_arena = reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(din));
    p.weights = reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(dw));
    p.output_arena = reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(dout));
    p.block_offset_x = static_cast<std::uint16_t>(o.ox);
    p.block_offset_y = static_cast<std::uint16_t>(o.oy);
    p.texture = texobj;
    p.surface = surfobj;
    return p;
  }
  std::vector<std::uint8_t> output_arena() const {
    std::vector<std::uint8_t> output(arena_bytes);
    CU(cuMemcpyDtoH(output.data(), dout, arena_bytes));
    return output;
  }
  rrswin::Surface surface(int ex, int ey) const {
    rrswin::Surface surf = rrswin::Surface::make(ex, ey);
    CUDA_MEMCPY2D cp{};
    cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    cp.srcArray = surf_array;
    cp.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.dstHost = surf.bytes.data();
    cp.dstPitch = surf.pitch;
    cp.WidthInBytes = static_cast<std::size_t>(ex) * 8;
    cp.Height = static_cast<std::size_t>(ey);
    CU(cuMemcpy2D(&cp));
    return surf;
  }
};

// One launch for the outputs (checked), then `repeat` timed launches (the same outputs again);
// the mean milliseconds of the timed ones.
float launch_timed(CUfunction fn, unsigned gx, unsigned gy, rrswin::cuda::Enc5Params& p, int repeat) {
  void* args[] = {&p};
  auto launch = [&] {
    CU(cuLaunchKernel(fn, gx, gy, 1, rrswin::cuda::kBlockX, rrswin::cuda::kBlockY, rrswin::cuda::kBlockZ, 0, nullptr, args, nullptr));
  };
  CUevent e0, e1;
  CU(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  launch();
  CU(cuCtxSynchronize());
  CU(cuEventRecord(e0, nullptr));
  for (int r = 0; r < repeat; ++r) launch();
  CU(cuEventRecord(e1, nullptr));
  CU(cuEventSynchronize(e1));
  float ms = 0;
  CU(cuEventElapsedTime(&ms, e0, e1));
  cuEventDestroy(e0);
  cuEventDestroy(e1);
  return ms / static_cast<float>(repeat);
}

int cmd_run(int argc, char** argv) {
  const RunOptions o = parse_run(argc, argv);
  const fs::path fd(o.frame_dir);
  const std::vector<std::uint8_t> input = rrswin::read_plane_arena((fd / "input_arena.bin").string(), o.ex, o.ey);
  const rrswin::Texture tex = rrswin::texture_from_exr((fd / "texture.exr").string());
  const rrswin::WeightImage weights =
      fs::exists(fd / "weights.bin") ? rrswin::load_weight_image((fd / "weights.bin").string()) : rrswin::default_weights();
  if (tex.width < o.ex || tex.height < o.ey) throw Error("texture.exr is smaller than the frame");

  Context c;
  CUmodule mod = load_module(read_file(o.module_path));
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, rrswin::abi::kKernelName));
  int regs = 0, local = 0;
  cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
  {
    DeviceFrame dev(input, weights, tex, o.ex, o.ey);
    rrswin::cuda::Enc5Params p = dev.params(o);
    const rrswin::abi::GridExtent grid = rrswin::abi::covering_grid(static_cast<std::uint32_t>(o.ex), static_cast<std::uint32_t>(o.ey),
                                                                    static_cast<std::uint32_t>(o.ox), static_cast<std::uint32_t>(o.oy));
    const auto gx = static_cast<unsigned>(grid.x), gy = static_cast<unsigned>(grid.y);
    const float ms = launch_timed(fn, gx, gy, p, o.repeat);
    fs::create_directories(o.out_dir);
    rrswin::write_plane_arena((fs::path(o.out_dir) / "arena.bin").string(), dev.output_arena(), o.ex, o.ey);
    rrswin::write_surface_exr((fs::path(o.out_dir) / "surface112.exr").string(), dev.surface(o.ex, o.ey));
    std::printf("run: %s sm_%d%d, grid %ux%u x (32,1,8), %d registers, %d bytes local; %.4f ms per frame (mean of %d launches)\n",
                c.name.c_str(), c.major, c.minor, gx, gy, regs, local, ms, o.repeat);
  }
  cuModuleUnload(mod);
  return 0;
}

// ---- replay: any kernel on a replay capture ----
// The capture (bridge/kernel_capture.hpp load_kernel_capture: manifest.txt, args.bin, alloc-N.bin,
// the texture and surface files; what `rrswin capture --layer L --synthetic` writes) launched on the
// device as `rrswin ptx run FILE --capture DIR` launches it in the interpreter: every pointer of the
// parameter block replaced by its allocation's device address + delta, every texture and surface
// offset by a CUDA object over a copy of the captured texels, the captured grid, block and dynamic
// shared bytes. The arguments after the launch go to OUT in launch-dump naming
// (kernel_capture_outputs), the files the interpreter and `rrswin replay --layer L` write, so
// `rrswin diff` compares any two of them.
struct ReplayOptions {
  std::string module_path, capture_dir, entry, out_dir;
  int repeat = 0;
  // --sampler OFFSET=point|linear: the sampler of the texture at a parameter offset, not in the PTX
  // nor in the capture (the launch's; docs/readings.md "ptx-tex-sampler"), set on the capture's
  // Image::sampler as `rrswin ptx run --capture` does. Unnamed offsets: point, unnormalised.
  std::vector<rrswin::ptx::SamplerOption> samplers;
};

ReplayOptions parse_replay(int argc, char** argv) {
  ReplayOptions o;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--module")
      o.module_path = value();
    else if (a == "--capture")
      o.capture_dir = value();
    else if (a == "--entry")
      o.entry = value();
    else if (a == "-o" || a == "--out")
      o.out_dir = value();
    else if (a == "--repeat")
      o.repeat = static_cast<int>(parse_int(a, value(), 1, 100000));
    else if (a == "--sampler")
      o.samplers.push_back(rrswin::ptx::parse_sampler_option(value()));  // std::invalid_argument: main's message
    else
      throw Error("replay: unknown option " + a);
  }
  if (o.module_path.empty() || o.capture_dir.empty() || o.out_dir.empty()) throw Error("replay needs --module, --capture and -o");
  return o;
}

CUaddress_mode cuda_address_mode(rrswin::AddressMode m) {
  switch (m) {
    case rrswin::AddressMode::clamp: return CU_TR_ADDRESS_MODE_CLAMP;
    case rrswin::AddressMode::border_zero: return CU_TR_ADDRESS_MODE_BORDER;  // the border colour is zero (CUDA_TEXTURE_DESC's default)
    case rrswin::AddressMode::wrap: return CU_TR_ADDRESS_MODE_WRAP;
    case rrswin::AddressMode::mirror: return CU_TR_ADDRESS_MODE_MIRROR;
  }
  throw Error("unknown address mode");
}

// The device copy of one capture: its allocations and its texture and surface objects, freed on
// destruction.
struct DeviceCapture {
  std::vector<CUdeviceptr> allocs;
  struct Object {
    std::uint32_t offset = 0;
    bool texture = false;
    CUarray array = nullptr;
    CUtexObject tex = 0;
    CUsurfObject surf = 0;
  };
  std::vector<Object> objects;
  std::vector<std::uint8_t> params;

  explicit DeviceCapture(const rrswin::ptx::KernelCapture& c) : params(c.args) {
    for (const auto& a : c.allocs) {
      CUdeviceptr d = 0;
      CU(cuMemAlloc(&d, std::max<std::size_t>(a.bytes.size(), 1)));
      allocs.push_back(d);
      if (!a.bytes.empty()) CU(cuMemcpyHtoD(d, a.bytes.data(), a.bytes.size()));
    }
    const auto put = [&](std::uint32_t off, std::uint64_t v) {
      for (int b = 0; b < 8; ++b) params[off + b] = static_cast<std::uint8_t>(v >> (8 * b));
    };
    for (const auto& p : c.pointers) put(p.offset, allocs[p.alloc] + p.delta);
    for (const auto& im : c.images) {
      const rrswin::capture::ImageArg& g = im.image;
      if (g.fmt != rrswin::capture::kFmtHalf && g.fmt != rrswin::capture::kFmtFloat)
        throw Error(c.source + ": argument +" + std::to_string(im.offset) + ": format fmt" + std::to_string(g.fmt) +
                    " (rrswin-gpu makes RGBA16F (fmt16) and RGBA32F (fmt32) objects)");
      Object ob;
      ob.offset = im.offset;
      ob.texture = im.texture;
      CUDA_ARRAY3D_DESCRIPTOR ad{};
      ad.Width = static_cast<std::size_t>(g.width);
      ad.Height = static_cast<std::size_t>(g.height);
      ad.Format = g.fmt == rrswin::capture::kFmtFloat ? CU_AD_FORMAT_FLOAT : CU_AD_FORMAT_HALF;
      ad.NumChannels = 4;
      if (!im.texture) ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
      CU(cuArray3DCreate(&ob.array, &ad));
      objects.push_back(ob);
      CUDA_MEMCPY2D cp{};
      cp.srcMemoryType = CU_MEMORYTYPE_HOST;
      cp.srcHost = g.bytes.data();
      cp.srcPitch = g.pitch;
      cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
      cp.dstArray = ob.array;
      cp.WidthInBytes = static_cast<std::size_t>(g.width) * (g.fmt == rrswin::capture::kFmtFloat ? 16 : 8);
      cp.Height = static_cast<std::size_t>(g.height);
      CU(cuMemcpy2D(&cp));
      CUDA_RESOURCE_DESC rd{};
      rd.resType = CU_RESOURCE_TYPE_ARRAY;
      rd.res.array.hArray = ob.array;
      if (im.texture) {
        CUDA_TEXTURE_DESC td{};
        td.addressMode[0] = td.addressMode[1] = cuda_address_mode(g.mode);
        td.filterMode = im.sampler.filter == rrswin::ptx::TextureFilter::linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
        if (im.sampler.normalized) td.flags |= CU_TRSF_NORMALIZED_COORDINATES;
        CU(cuTexObjectCreate(&objects.back().tex, &rd, &td, nullptr));
        put(im.offset, objects.back().tex);
      } else {
        CU(cuSurfObjectCreate(&objects.back().surf, &rd));
        put(im.offset, objects.back().surf);
      }
    }
  }
  ~DeviceCapture() {
    for (const Object& ob : objects) {
      if (ob.tex) cuTexObjectDestroy(ob.tex);
      if (ob.surf) cuSurfObjectDestroy(ob.surf);
      if (ob.array) cuArrayDestroy(ob.array);
    }
    for (CUdeviceptr d : allocs) cuMemFree(d);
  }
  DeviceCapture(const DeviceCapture&) = delete;
  DeviceCapture& operator=(const DeviceCapture&) = delete;

  // The allocations and surfaces after the launch, into the capture (textures are read-only).
  void download(rrswin::ptx::KernelCapture& c) const {
    for (std::size_t i = 0; i < c.allocs.size(); ++i)
      if (!c.allocs[i].bytes.empty()) CU(cuMemcpyDtoH(c.allocs[i].bytes.data(), allocs[i], c.allocs[i].bytes.size()));
    std::size_t k = 0;
    for (auto& im : c.images) {
      const Object& ob = objects[k++];
      if (im.texture) continue;
      rrswin::capture::ImageArg& g = im.image;
      CUDA_MEMCPY2D cp{};
      cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
      cp.srcArray = ob.array;
      cp.dstMemoryType = CU_MEMORYTYPE_HOST;
      cp.dstHost = g.bytes.data();
      cp.dstPitch = g.pitch;
      cp.WidthInBytes = static_cast<std::size_t>(g.width) * (g.fmt == rrswin::capture::kFmtFloat ? 16 : 8);
      cp.Height = static_cast<std::size_t>(g.height);
      CU(cuMemcpy2D(&cp));
    }
  }
};

int cmd_replay(int argc, char** argv) {
  const ReplayOptions o = parse_replay(argc, argv);
  rrswin::ptx::KernelCapture c = rrswin::ptx::load_kernel_capture(o.capture_dir);
  for (const rrswin::ptx::SamplerOption& so : o.samplers) rrswin::ptx::apply_sampler_option(c, so);
  const std::string entry = o.entry.empty() ? c.kernel : o.entry;
  if (entry.empty()) throw Error(o.capture_dir + "/manifest.txt names no kernel: choose the entry with --entry");
  rrswin::OutputSet set(o.out_dir);  // every output or none (io/output_set.hpp)
  Context ctx;
  CUmodule mod = load_module(read_file(o.module_path));
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, entry.c_str()));
  int regs = 0, local = 0;
  cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
  float ms = 0;
  {
    DeviceCapture dev(c);
    std::size_t size = dev.params.size();
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, dev.params.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    const auto launch = [&] {
      CU(cuLaunchKernel(fn, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, static_cast<unsigned>(c.shared), nullptr,
                        nullptr, extra));
    };
    launch();
    CU(cuCtxSynchronize());
    dev.download(c);
    if (o.repeat > 0) {
      // The same launch again (it rewrites the same outputs from the same inputs); the mean of these.
      CUevent e0, e1;
      CU(cuEventCreate(&e0, CU_EVENT_DEFAULT));
      CU(cuEventCreate(&e1, CU_EVENT_DEFAULT));
      CU(cuEventRecord(e0, nullptr));
      for (int r = 0; r < o.repeat; ++r) launch();
      CU(cuEventRecord(e1, nullptr));
      CU(cuEventSynchronize(e1));
      CU(cuEventElapsedTime(&ms, e0, e1));
      cuEventDestroy(e0);
      cuEventDestroy(e1);
      ms /= static_cast<float>(o.repeat);
    }
  }
  cuModuleUnload(mod);
  for (const auto& [name, bytes] : rrswin::ptx::kernel_capture_outputs(c, entry)) set.write(name, bytes);
  const auto paths = set.commit();
  std::printf("replay: %s sm_%d%d, %s, grid %u,%u,%u x (%u,%u,%u), %d registers, %d bytes local, %zu files to %s", ctx.name.c_str(),
              ctx.major, ctx.minor, entry.c_str(), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, regs, local, paths.size(),
              o.out_dir.c_str());
  if (o.repeat > 0) std::printf("; %.4f ms per launch (mean of %d launches)", ms, o.repeat);
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "info") return cmd_info();
    if (cmd == "mma-check") return cmd_mma_check(argc - 2, argv + 2);
    if (cmd == "run") return cmd_run(argc - 2, argv + 2);
    if (cmd == "replay") return cmd_replay(argc - 2, argv + 2);
    std::fprintf(stderr,
                 "usage: rrswin-gpu info\n"
                 "       rrswin-gpu mma-check [--tiles N] [--seed S] [--profile P]\n"
                 "       rrswin-gpu run --module FILE.ptx|.cubin --frame DIR --ex N --ey N [--block-offset X,Y]\n"
                 "                    [--reading NAME=VALUE]... [--repeat N] -o OUT\n"
                 "       rrswin-gpu replay --module FILE.ptx|.cubin --capture DIR [--entry NAME]\n"
                 "                    [--sampler OFFSET=point|linear]... [--repeat N] -o OUT\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rrswin-gpu: %s\n", e.what());
    return 1;
  }
}
