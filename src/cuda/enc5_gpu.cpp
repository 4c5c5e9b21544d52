// enc5-gpu: runs the CUDA kernel (src/cuda/enc5_kernel.cu) on a GPU through the CUDA driver API,
// from the PTX or cubin that CMake builds (or the checked-in PTX), and writes its outputs in the
// files `enc5 run` writes, so that `enc5 diff` compares it with the golden model. Used by
// scripts/gpu-check.sh; plain C++ (no nvcc needed to build it).
//
//   enc5-gpu info
//   enc5-gpu mma-check [--tiles N] [--seed S] [--profile P]
//   enc5-gpu run --module FILE --frame DIR --ex N --ey N [--block-offset X,Y] [--reading NAME=VALUE]...
//                [--repeat N] -o OUT
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
#include "cuda/enc5_params.hpp"
#include "cuda/launch_check.hpp"
#include "io/arena_io.hpp"
#include "io/frame_io.hpp"
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
  const std::string prof = enc5::cuda::profile_for_compute_capability(c.major, c.minor);
  std::printf("device: %s, compute capability %d.%d (sm_%d%d)\n", c.name.c_str(), c.major, c.minor, c.major, c.minor);
  std::printf("profile: %s\n", prof.empty() ? "none (no enc5 profile models this device)" : prof.c_str());
  return 0;
}

// ---- mma-check: the device's own mma against the numerics core ----
// One warp per tile: lane L reads 8 words (A regs 0..3, B regs 0..1, C regs 0..1) and writes D.
constexpr const char* kMmaHarnessPtx = R"(
.version 8.7
.target sm_89
.address_size 64
.visible .entry enc5_mma_harness(.param .u64 in_p, .param .u64 out_p)
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

int cmd_mma_check(int argc, char** argv) {
  int tiles = 4096;
  std::uint64_t seed = 1;
  std::string profile_name;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--tiles") tiles = static_cast<int>(parse_int(a, value(), 1, 1 << 20));
    else if (a == "--seed") seed = static_cast<std::uint64_t>(parse_int(a, value(), 0, 1LL << 62));
    else if (a == "--profile") profile_name = value();
    else throw Error("mma-check: unknown option " + a);
  }
  Context c;
  if (profile_name.empty()) profile_name = enc5::cuda::profile_for_compute_capability(c.major, c.minor);
  const enc5::Profile* prof = enc5::find_profile(profile_name);
  if (!prof) {
    std::printf("mma-check: sm_%d%d has no enc5 profile ('%s' is not one of this build's); results are reported against ada\n",
                c.major, c.minor, profile_name.c_str());
    prof = &enc5::profile_ada();
  }
  // Random operands: e4m3 codes over the whole range (NaN codes excluded: their D is NaN on
  // every model), f16 C over finite values of moderate size, and every 8th tile with a wide
  // exponent spread to exercise the truncation of the `ada` accumulation.
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> in(static_cast<std::size_t>(tiles) * 32 * 8);
  auto code = [&](bool wide) -> std::uint8_t {
    for (;;) {
      std::uint8_t v = static_cast<std::uint8_t>(rng());
      if (!wide) v = static_cast<std::uint8_t>((v & 0x80) | (0x20 + (v & 0x3F) % 0x30));  // |x| in [2^-3, 2^3)
      if ((v & 0x7F) != 0x7F) return v;
    }
  };
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
        auto h = [&]() -> std::uint32_t { return static_cast<std::uint32_t>((rng() & 0x8000) | (0x2000 + rng() % 0x3000)); };
        w[r] = h() | (h() << 16);
      }
    }
  }
  CUmodule mod = load_module(kMmaHarnessPtx);
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, "enc5_mma_harness"));
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

  std::uint64_t elements = 0, mismatches = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    enc5::MmaFragA a;
    enc5::MmaFragB b;
    enc5::MmaFragC cc;
    for (int lane = 0; lane < 32; ++lane) {
      const std::uint32_t* w = &in[(static_cast<std::size_t>(tile) * 32 + lane) * 8];
      for (int r = 0; r < 4; ++r) a.reg[lane][r] = w[r];
      b.reg[lane] = {w[4], w[5]};
      cc.reg[lane] = {w[6], w[7]};
    }
    const enc5::MmaFragC want = enc5::mma_m16n8k32(*prof, a, b, cc);
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 2; ++r) {
        const std::uint32_t got = out[(static_cast<std::size_t>(tile) * 32 + lane) * 2 + r];
        for (int h = 0; h < 2; ++h) {
          ++elements;
          const std::uint32_t g16 = (got >> (16 * h)) & 0xFFFF, w16 = (want.reg[lane][r] >> (16 * h)) & 0xFFFF;
          if (g16 != w16) {
            if (mismatches < 5)
              std::printf("  mismatch tile %d lane %d reg %d half %d: device 0x%04x, %s 0x%04x\n", tile, lane, r, h, g16,
                          std::string(prof->name).c_str(), w16);
            ++mismatches;
          }
        }
      }
  }
  std::printf("mma-check: %llu elements of %d random m16n8k32 e4m3 tiles (32-term dot products), %llu differ from the %s profile\n",
              static_cast<unsigned long long>(elements), tiles, static_cast<unsigned long long>(mismatches),
              std::string(prof->name).c_str());
  return mismatches == 0 ? 0 : 1;
}

// ---- run: the layer on one frame ----
int cmd_run(int argc, char** argv) {
  std::string module_path, frame_dir, out_dir;
  int ex = 0, ey = 0, ox = 0, oy = 0, repeat = 1;
  enc5::Readings readings;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--module") module_path = value();
    else if (a == "--frame") frame_dir = value();
    else if (a == "-o" || a == "--out") out_dir = value();
    else if (a == "--ex") ex = static_cast<int>(parse_int(a, value(), 1, 1 << 16));
    else if (a == "--ey") ey = static_cast<int>(parse_int(a, value(), 1, 1 << 16));
    else if (a == "--repeat") repeat = static_cast<int>(parse_int(a, value(), 1, 100000));
    else if (a == "--block-offset") {
      const std::string v = value();
      const auto comma = v.find(',');
      if (comma == std::string::npos) throw Error("--block-offset: expected X,Y, got '" + v + "'");
      ox = static_cast<int>(parse_int(a, v.substr(0, comma), 0, 65535));
      oy = static_cast<int>(parse_int(a, v.substr(comma + 1), 0, 65535));
    } else if (a == "--reading") {
      std::string err;
      if (!enc5::set_reading(readings, value(), &err)) throw Error("--reading: " + err);
    } else throw Error("run: unknown option " + a);
  }
  if (module_path.empty() || frame_dir.empty() || out_dir.empty() || ex == 0 || ey == 0)
    throw Error("run needs --module, --frame, --ex, --ey and -o");
  if (const std::string why = enc5::cuda::unsupported_reading(readings); !why.empty()) throw Error(why);

  const fs::path fd(frame_dir);
  const std::vector<std::uint8_t> input = enc5::read_plane_arena((fd / "input_arena.bin").string(), ex, ey);
  const enc5::Texture tex = enc5::texture_from_exr((fd / "texture.exr").string());
  const enc5::WeightImage weights = fs::exists(fd / "weights.bin") ? enc5::load_weight_image((fd / "weights.bin").string())
                                                                   : enc5::default_weights();
  if (tex.width < ex || tex.height < ey) throw Error("texture.exr is smaller than the frame");

  Context c;
  CUmodule mod = load_module(read_file(module_path));
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, enc5::abi::kKernelName));
  int regs = 0, local = 0;
  cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
  cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);

  const std::size_t arena_bytes = input.size();
  CUdeviceptr din, dout, dw;
  CU(cuMemAlloc(&din, arena_bytes));
  CU(cuMemAlloc(&dout, arena_bytes));
  CU(cuMemAlloc(&dw, weights.bytes().size()));
  CU(cuMemcpyHtoD(din, input.data(), arena_bytes));
  CU(cuMemcpyHtoD(dw, weights.bytes().data(), weights.bytes().size()));
  CU(cuMemsetD8(dout, 0, arena_bytes));

  // Texture: RGBA16F array, point sampling, unnormalised integer coordinates, clamp.
  CUDA_ARRAY3D_DESCRIPTOR ad{};
  ad.Width = static_cast<std::size_t>(tex.width);
  ad.Height = static_cast<std::size_t>(tex.height);
  ad.Format = CU_AD_FORMAT_HALF;
  ad.NumChannels = 4;
  CUarray tex_array, surf_array;
  CU(cuArray3DCreate(&tex_array, &ad));
  CUDA_MEMCPY2D cp{};
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = tex.rgba.data();
  cp.srcPitch = static_cast<std::size_t>(tex.width) * 8;
  cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  cp.dstArray = tex_array;
  cp.WidthInBytes = static_cast<std::size_t>(tex.width) * 8;
  cp.Height = static_cast<std::size_t>(tex.height);
  CU(cuMemcpy2D(&cp));
  CUDA_RESOURCE_DESC rd{};
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = tex_array;
  CUDA_TEXTURE_DESC td{};
  td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
  td.filterMode = CU_TR_FILTER_MODE_POINT;
  CUtexObject texobj;
  CU(cuTexObjectCreate(&texobj, &rd, &td, nullptr));
  // Surface: RGBA16F array of ex x ey with load/store, zero-filled like enc5 run's.
  ad.Width = static_cast<std::size_t>(ex);
  ad.Height = static_cast<std::size_t>(ey);
  ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CU(cuArray3DCreate(&surf_array, &ad));
  std::vector<std::uint8_t> zeros(static_cast<std::size_t>(ex) * ey * 8, 0);
  cp = CUDA_MEMCPY2D{};
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = zeros.data();
  cp.srcPitch = static_cast<std::size_t>(ex) * 8;
  cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  cp.dstArray = surf_array;
  cp.WidthInBytes = static_cast<std::size_t>(ex) * 8;
  cp.Height = static_cast<std::size_t>(ey);
  CU(cuMemcpy2D(&cp));
  rd.res.array.hArray = surf_array;
  CUsurfObject surfobj;
  CU(cuSurfObjectCreate(&surfobj, &rd));

  enc5::cuda::Enc5Params p{};
  p.ex = static_cast<std::uint32_t>(ex);
  p.ey = static_cast<std::uint32_t>(ey);
  p.input_arena = reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(din));
  p.weights = reinterpret_cast<const std::uint8_t*>(static_cast<std::uintptr_t>(dw));
  p.output_arena = reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(dout));
  p.block_offset_x = static_cast<std::uint16_t>(ox);
  p.block_offset_y = static_cast<std::uint16_t>(oy);
  p.texture = texobj;
  p.surface = surfobj;
  const enc5::abi::GridExtent grid = enc5::abi::covering_grid(static_cast<std::uint32_t>(ex), static_cast<std::uint32_t>(ey),
                                                               static_cast<std::uint32_t>(ox), static_cast<std::uint32_t>(oy));
  const auto gx = static_cast<unsigned>(grid.x), gy = static_cast<unsigned>(grid.y);
  void* args[] = {&p};
  CUevent e0, e1;
  CU(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  // One launch for the outputs (checked), then `repeat` timed launches (the same outputs again).
  CU(cuLaunchKernel(fn, gx, gy, 1, enc5::cuda::kBlockX, enc5::cuda::kBlockY, enc5::cuda::kBlockZ, 0, nullptr, args, nullptr));
  CU(cuCtxSynchronize());
  CU(cuEventRecord(e0, nullptr));
  for (int r = 0; r < repeat; ++r)
    CU(cuLaunchKernel(fn, gx, gy, 1, enc5::cuda::kBlockX, enc5::cuda::kBlockY, enc5::cuda::kBlockZ, 0, nullptr, args, nullptr));
  CU(cuEventRecord(e1, nullptr));
  CU(cuEventSynchronize(e1));
  float ms = 0;
  CU(cuEventElapsedTime(&ms, e0, e1));

  std::vector<std::uint8_t> output(arena_bytes);
  CU(cuMemcpyDtoH(output.data(), dout, arena_bytes));
  enc5::Surface surf = enc5::Surface::make(ex, ey);
  cp = CUDA_MEMCPY2D{};
  cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  cp.srcArray = surf_array;
  cp.dstMemoryType = CU_MEMORYTYPE_HOST;
  cp.dstHost = surf.bytes.data();
  cp.dstPitch = surf.pitch;
  cp.WidthInBytes = static_cast<std::size_t>(ex) * 8;
  cp.Height = static_cast<std::size_t>(ey);
  CU(cuMemcpy2D(&cp));

  fs::create_directories(out_dir);
  enc5::write_plane_arena((fs::path(out_dir) / "arena.bin").string(), output, ex, ey);
  enc5::write_surface_exr((fs::path(out_dir) / "surface.exr").string(), surf);
  std::printf("run: %s sm_%d%d, grid %ux%u x (32,1,8), %d registers, %d bytes local; %.4f ms per frame (mean of %d launches)\n",
              c.name.c_str(), c.major, c.minor, gx, gy, regs, local, ms / repeat, repeat);
  cuSurfObjectDestroy(surfobj);
  cuTexObjectDestroy(texobj);
  cuArrayDestroy(surf_array);
  cuArrayDestroy(tex_array);
  cuMemFree(din);
  cuMemFree(dout);
  cuMemFree(dw);
  cuModuleUnload(mod);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "info") return cmd_info();
    if (cmd == "mma-check") return cmd_mma_check(argc - 2, argv + 2);
    if (cmd == "run") return cmd_run(argc - 2, argv + 2);
    std::fprintf(stderr,
                 "usage: enc5-gpu info\n"
                 "       enc5-gpu mma-check [--tiles N] [--seed S] [--profile P]\n"
                 "       enc5-gpu run --module FILE.ptx|.cubin --frame DIR --ex N --ey N [--block-offset X,Y]\n"
                 "                    [--reading NAME=VALUE]... [--repeat N] -o OUT\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "enc5-gpu: %s\n", e.what());
    return 1;
  }
}
