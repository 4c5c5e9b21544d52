// rrswin._rrswin: the compiled half of the Python package `rrswin` (python/rrswin/__init__.py is the public
// half). This file is deliberately thin: every argument arrives here already validated and
// converted by the Python layer (dtype, C order, shapes), because numpy makes clear error messages
// easy to write there. Float16 data crosses this boundary as uint16 bit patterns (numpy's float16
// viewed as uint16), so no half-precision type is needed on the C++ side: every value stays the
// exact bit pattern enc5's numerics operate on.
//
// The checks repeated here (element counts, names) exist so that a direct call of a private
// function with bad input raises a Python exception instead of reading out of bounds.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/frame.hpp"
#include "api/network_demo.hpp"
#include "api/network_run.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "bridge/launch.hpp"
#include "bridge/network_capture.hpp"
#include "capture/network_diff.hpp"
#include "engine/layer_engine.hpp"
#include "engine/simd.hpp"
#include "io/frame_io.hpp"
#include "io/weight_file.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"
#include "model/layer_golden.hpp"
#include "model/layer_program.hpp"
#include "model/readings.hpp"
#include "model/trace.hpp"
#include "model/weight_image.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/mma.hpp"
#include "numerics/op_table.hpp"
#include "numerics/profile.hpp"
#include "numerics/warp.hpp"
#include "ptx/ptx.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace rrswin::python {
namespace {

// Read-only input and writable output arrays: 1-D views of C-contiguous CPU memory. Every array
// argument is declared .noconvert(): nanobind would otherwise cast a wrong dtype silently, or copy
// a non-contiguous `out` and write the results into the copy.
template <class T>
using In = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
template <class T>
using Out = nb::ndarray<T, nb::c_contig, nb::device::cpu>;

// The GIL is released for loops at least this long: below it, releasing and re-taking the lock
// costs more than the work, and other Python threads gain nothing.
constexpr std::size_t kReleaseGilAt = 1u << 14;

// Holds the GIL released for the scope when `n` is large.
class MaybeReleaseGil {
 public:
  explicit MaybeReleaseGil(std::size_t n) {
    if (n >= kReleaseGilAt) release_.emplace();
  }

 private:
  std::optional<nb::gil_scoped_release> release_;
};

[[noreturn]] void fail(const std::string& m) { throw std::invalid_argument(m); }

void same_size(std::size_t found, std::size_t expected, const char* what) {
  if (found != expected) fail(std::string(what) + ": expected " + std::to_string(expected) + " elements, found " + std::to_string(found));
}

const Profile& profile_named(const std::string& name) {
  const Profile* p = find_profile(name);
  if (p == nullptr) fail("profile: expected one of " + std::string(profile_names()) + ", found '" + name + "'");
  return *p;
}

// A numpy array that owns a moved-in std::vector (no copy of the data).
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& v, std::initializer_list<std::size_t> shape) {
  auto* heap = new std::vector<T>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(heap->data(), shape, owner);
}

// ---- the vectorised single-instruction evaluator ------------------------------------------------

// The operations by short name: numerics/op_table.hpp's rows, the same table `rrswin eval` reads.
template <class Fn, std::size_t N>
Fn op_of(const NamedOp<Fn> (&table)[N], const std::string& op, const char* kind) {
  if (const NamedOp<Fn>* row = op_named(table, op)) return row->fn;
  std::string known;
  for (const NamedOp<Fn>& r : table) known += (known.empty() ? "" : ", ") + std::string(r.name);
  fail("unknown " + std::string(kind) + " operation '" + op + "' (one of: " + known + ")");
}
F16UnaryFn f16_unary_op(const std::string& op) { return op_of(kF16UnaryOps, op, "f16 unary"); }
F16BinaryFn f16_binary_op(const std::string& op) { return op_of(kF16BinaryOps, op, "f16 binary"); }
F32UnaryFn f32_unary_op(const std::string& op) { return op_of(kF32UnaryOps, op, "f32 unary"); }
F32BinaryFn f32_binary_op(const std::string& op) { return op_of(kF32BinaryOps, op, "f32 binary"); }

// out[i] = f(a[i]) (and the binary/ternary forms), the GIL released for long arrays.
template <class A, class R, class F>
void map1(const In<A>& a, Out<R>& out, F f) {
  same_size(out.size(), a.size(), "out");
  const A* pa = a.data();
  R* po = out.data();
  const std::size_t n = a.size();
  MaybeReleaseGil gil(n);
  for (std::size_t i = 0; i < n; ++i) po[i] = f(pa[i]);
}
template <class A, class R, class F>
void map2(const In<A>& a, const In<A>& b, Out<R>& out, F f) {
  same_size(b.size(), a.size(), "b");
  same_size(out.size(), a.size(), "out");
  const A *pa = a.data(), *pb = b.data();
  R* po = out.data();
  const std::size_t n = a.size();
  MaybeReleaseGil gil(n);
  for (std::size_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
}

// Element-wise numerics: one output element per input element (numerics.md's scalar operations).
void bind_elementwise(nb::module_& m) {
  m.def(
      "f16_unary", [](const std::string& op, In<std::uint16_t> a, Out<std::uint16_t> out) { map1(a, out, f16_unary_op(op)); }, "op"_a,
      "a"_a.noconvert(), "out"_a.noconvert());
  m.def(
      "f16_binary",
      [](const std::string& op, In<std::uint16_t> a, In<std::uint16_t> b, Out<std::uint16_t> out) { map2(a, b, out, f16_binary_op(op)); },
      "op"_a, "a"_a.noconvert(), "b"_a.noconvert(), "out"_a.noconvert());
  m.def(
      "f16_fma",
      [](In<std::uint16_t> a, In<std::uint16_t> b, In<std::uint16_t> c, Out<std::uint16_t> out) {
        same_size(b.size(), a.size(), "b");
        same_size(c.size(), a.size(), "c");
        same_size(out.size(), a.size(), "out");
        const std::size_t n = a.size();
        MaybeReleaseGil gil(n);
        for (std::size_t i = 0; i < n; ++i) out.data()[i] = f16_fma(a.data()[i], b.data()[i], c.data()[i]);
      },
      "a"_a.noconvert(), "b"_a.noconvert(), "c"_a.noconvert(), "out"_a.noconvert());

  m.def(
      "e4m3_to_f16", [](In<std::uint8_t> a, Out<std::uint16_t> out) { map1(a, out, e4m3_to_f16); }, "a"_a.noconvert(), "out"_a.noconvert());
  m.def(
      "f16_to_e4m3",
      [](In<std::uint16_t> a, Out<std::uint8_t> out, const std::string& profile) {
        const Profile& p = profile_named(profile);
        map1(a, out, [&p](f16_t h) { return f16_to_e4m3(h, p); });
      },
      "a"_a.noconvert(), "out"_a.noconvert(), "profile"_a);
  m.def(
      "f16_to_f32", [](In<std::uint16_t> a, Out<float> out) { map1(a, out, f16_to_f32); }, "a"_a.noconvert(), "out"_a.noconvert());
  m.def(
      "f32_to_f16", [](In<float> a, Out<std::uint16_t> out) { map1(a, out, f32_to_f16); }, "a"_a.noconvert(), "out"_a.noconvert());
  m.def(
      "f64_to_f16", [](In<double> a, Out<std::uint16_t> out) { map1(a, out, f64_to_f16); }, "a"_a.noconvert(), "out"_a.noconvert());

  m.def(
      "f32_unary", [](const std::string& op, In<float> a, Out<float> out) { map1(a, out, f32_unary_op(op)); }, "op"_a, "a"_a.noconvert(),
      "out"_a.noconvert());
  m.def(
      "f32_binary", [](const std::string& op, In<float> a, In<float> b, Out<float> out) { map2(a, b, out, f32_binary_op(op)); }, "op"_a,
      "a"_a.noconvert(), "b"_a.noconvert(), "out"_a.noconvert());
}

// The mma, as n dot products or n whole instructions.
void bind_mma(nb::module_& m) {
  // n dot products: a and b hold n rows of 32 codes (ISA k order), c and out n f16.
  m.def(
      "mma_dot",
      [](In<std::uint8_t> a, In<std::uint8_t> b, In<std::uint16_t> c, Out<std::uint16_t> out, const std::string& profile) {
        const Profile& p = profile_named(profile);
        const std::size_t n = c.size();
        same_size(a.size(), 32 * n, "a");
        same_size(b.size(), 32 * n, "b");
        same_size(out.size(), n, "out");
        MaybeReleaseGil gil(32 * n);
        for (std::size_t i = 0; i < n; ++i) out.data()[i] = mma_dot(p, a.data() + 32 * i, b.data() + 32 * i, c.data()[i]);
      },
      "a"_a.noconvert(), "b"_a.noconvert(), "c"_a.noconvert(), "out"_a.noconvert(), "profile"_a);

  // n whole instructions in matrix form: A n x 16x32, B n x 32x8, C and D n x 16x8.
  m.def(
      "mma_m16n8k32",
      [](In<std::uint8_t> a, In<std::uint8_t> b, In<std::uint16_t> c, Out<std::uint16_t> out, const std::string& profile) {
        const Profile& p = profile_named(profile);
        const std::size_t n = c.size() / 128;
        same_size(c.size(), 128 * n, "c");
        same_size(a.size(), 512 * n, "a");
        same_size(b.size(), 256 * n, "b");
        same_size(out.size(), 128 * n, "out");
        MaybeReleaseGil gil(4096 * n);
        for (std::size_t i = 0; i < n; ++i) {
          // The structs are plain row-major arrays: a byte copy fills them exactly.
          MmaA ma;
          MmaB mb;
          MmaC mc;
          std::memcpy(ma.v, a.data() + 512 * i, sizeof ma.v);
          std::memcpy(mb.v, b.data() + 256 * i, sizeof mb.v);
          std::memcpy(mc.v, c.data() + 128 * i, sizeof mc.v);
          const MmaC d = mma_m16n8k32(p, ma, mb, mc);
          std::memcpy(out.data() + 128 * i, d.v, sizeof d.v);
        }
      },
      "a"_a.noconvert(), "b"_a.noconvert(), "c"_a.noconvert(), "out"_a.noconvert(), "profile"_a);
}

// The warp-wide operations on whole warp registers.
void bind_warp(nb::module_& m) {
  // n warps' registers (32 lanes each); shfl takes one lane mask per warp.
  m.def(
      "shfl_bfly",
      [](In<std::uint32_t> a, In<std::uint32_t> mask, Out<std::uint32_t> out) {
        const std::size_t n = mask.size();
        same_size(a.size(), 32 * n, "a");
        same_size(out.size(), 32 * n, "out");
        MaybeReleaseGil gil(32 * n);
        for (std::size_t i = 0; i < n; ++i) {
          if (mask.data()[i] > 31) fail("mask: lane masks are 0..31, found " + std::to_string(mask.data()[i]));
          WarpReg r;
          std::memcpy(r.data(), a.data() + 32 * i, sizeof r);
          const WarpReg d = shfl_bfly(r, mask.data()[i]);
          std::memcpy(out.data() + 32 * i, d.data(), sizeof d);
        }
      },
      "a"_a.noconvert(), "mask"_a.noconvert(), "out"_a.noconvert());
  m.def(
      "movmatrix_trans",
      [](In<std::uint32_t> a, Out<std::uint32_t> out) {
        const std::size_t n = a.size() / 32;
        same_size(a.size(), 32 * n, "a");
        same_size(out.size(), 32 * n, "out");
        MaybeReleaseGil gil(32 * n);
        for (std::size_t i = 0; i < n; ++i) {
          WarpReg r;
          std::memcpy(r.data(), a.data() + 32 * i, sizeof r);
          const WarpReg d = movmatrix_trans(r);
          std::memcpy(out.data() + 32 * i, d.data(), sizeof d);
        }
      },
      "a"_a.noconvert(), "out"_a.noconvert());
}

void bind_numerics(nb::module_& m) {
  bind_elementwise(m);
  bind_mma(m);
  bind_warp(m);
}

// ---- weight images -------------------------------------------------------------------------------

const char* type_name(Region::Type t) { return t == Region::Type::f16 ? "f16" : "e4m3"; }
const char* role_name(Region::Role r) {
  switch (r) {
    case Region::Role::g1: return "g1";
    case Region::Role::wq: return "wq";
    case Region::Role::wv: return "wv";
    case Region::Role::score_bias: return "score_bias";
    case Region::Role::wo: return "wo";
    case Region::Role::t1: return "t1";
    case Region::Role::g2: return "g2";
    case Region::Role::w1: return "w1";
    case Region::Role::b1: return "b1";
    case Region::Role::w2: return "w2";
    case Region::Role::t3: return "t3";
    case Region::Role::w61: return "w61";
    case Region::Role::b61: return "b61";
    case Region::Role::wm: return "wm";
    case Region::Role::bm: return "bm";
    case Region::Role::unread: return "unread";
    case Region::Role::we: return "we";
    case Region::Role::be: return "be";
    case Region::Role::wx: return "wx";
    case Region::Role::bx: return "bx";
  }
  return "?";
}

nb::dict region_dict(const Region& r) {
  nb::dict d;
  d["name"] = r.name;
  d["begin"] = r.begin;
  d["end"] = r.end;
  d["size"] = r.size();
  d["type"] = type_name(r.type);
  d["role"] = role_name(r.role);
  d["index"] = r.index;
  d["elements"] = r.elements();
  return d;
}

nb::dict stats_dict(const RegionStats& s) {
  nb::dict d = region_dict(s.region);
  if (s.histogram.empty()) {
    d["histogram"] = nb::none();
  } else {
    std::vector<std::uint64_t> h = s.histogram;
    d["histogram"] = to_numpy(std::move(h), {h.size()});
  }
  d["count"] = s.count;
  d["nan"] = s.nan;
  d["inf"] = s.inf;
  d["zero"] = s.zero;
  d["subnormal"] = s.subnormal;
  d["saturated"] = s.saturated;
  d["min"] = s.min;
  d["max"] = s.max;
  d["mean_abs"] = s.mean_abs;
  return d;
}

void bind_weights(nb::module_& m) {
  m.attr("WEIGHT_IMAGE_BYTES") = kWeightImageBytes;
  m.attr("SPEC_TOOL_IMAGE_BYTES") = kSpecToolImageBytes;

  nb::class_<WeightImage>(m, "WeightImageCore")
      .def_static(
          "from_array",
          [](In<std::uint8_t> a, const std::string& name) {
            return WeightImage(std::vector<std::uint8_t>(a.data(), a.data() + a.size()), name);
          },
          "a"_a.noconvert(), "name"_a)
      .def_static(
          "load", [](const std::string& path) { return load_weight_image(path); }, "path"_a)
      .def_static(
          "synthetic",
          [](std::uint64_t seed, bool stress) {
            return make_synthetic_weights(SyntheticOptions{seed, stress});
          },
          "seed"_a, "stress"_a)
      .def_static("default", [] { return default_weights(); })
      .def("__len__", [](const WeightImage& w) { return w.bytes().size(); })
      // A read-only numpy view of the image's bytes that keeps the image alive.
      .def(
          "array",
          [](const WeightImage& w) {
            return nb::ndarray<nb::numpy, const std::uint8_t, nb::ndim<1>>(w.bytes().data(), {w.bytes().size()});
          },
          nb::rv_policy::reference_internal)
      .def("statistics", [](const WeightImage& w) {
        nb::list l;
        for (const RegionStats& s : region_statistics(w)) l.append(stats_dict(s));
        return l;
      });

  m.def("weight_regions", [] {
    nb::list l;
    for (const Region& r : weight_regions()) l.append(region_dict(r));
    return l;
  });
}

// ---- synthetic frames, readings, run -------------------------------------------------------------

AddressMode address_mode_named(const std::string& s) {
  if (s == "clamp") return AddressMode::clamp;
  if (s == "border_zero") return AddressMode::border_zero;
  if (s == "wrap") return AddressMode::wrap;
  if (s == "mirror") return AddressMode::mirror;
  fail("texture_mode: expected 'clamp', 'border_zero', 'wrap' or 'mirror', found '" + s + "'");
}

const char* kind_name(TraceStage::Kind k) {
  switch (k) {
    case TraceStage::Kind::f16x2: return "f16x2";
    case TraceStage::Kind::e4m3x4: return "e4m3x4";
    case TraceStage::Kind::f32: return "f32";
    case TraceStage::Kind::u32: return "u32";
  }
  return "u32";
}

nb::dict stats_of(const golden::LayerStats& s) {
  nb::dict d;
  d["e11_clamp_low"] = s.e11_clamp_low;
  d["e11_clamp_high"] = s.e11_clamp_high;
  d["p_quantised_zero"] = s.p_quantised_zero;
  d["act_clamp_low"] = s.act_clamp_low;
  d["act_clamp_high"] = s.act_clamp_high;
  d["e4m3_saturated"] = s.e4m3_saturated;
  d["f16_subnormal"] = s.f16_subnormal;
  d["arena_stores"] = s.arena_stores;
  d["arena_stores_dropped"] = s.arena_stores_dropped;
  d["pixels_written"] = s.pixels_written;
  return d;
}

struct RunArgs {
  std::uint32_t ex, ey;
  std::uint16_t ox, oy;
  std::uint32_t grid_x, grid_y;
  std::string engine, profile, texture_mode;
  std::map<std::string, std::string> readings;
  int threads;
  std::optional<std::vector<std::string>> trace_stages;
  std::pair<int, int> trace_block;
  bool want_stats;
};

nb::dict run(In<std::uint8_t> input_arena, In<std::uint16_t> texture, int tex_width, int tex_height, const WeightImage& weights,
             const RunArgs& a) {
  // Everything is resolved and copied while the GIL is held; the layer then runs without it, on
  // C++-owned memory only, so another Python thread that changes or frees the caller's arrays
  // meanwhile cannot affect the run.
  RunOptions o;
  o.profile = &profile_named(a.profile);
  if (a.engine == "golden")
    o.engine = Engine::golden;
  else if (a.engine == "fast")
    o.engine = Engine::fast;
  else
    fail("engine: expected 'golden' or 'fast', found '" + a.engine + "'");
  for (const auto& [name, value] : a.readings) {
    std::string error;
    if (!set_reading(o.readings, name, value, &error)) fail("readings: " + error);
  }
  if (a.threads < 0) fail("threads: expected 0 (all hardware threads) or a positive count, found " + std::to_string(a.threads));
  o.threads = a.threads;

  if (tex_width <= 0 || tex_height <= 0) fail("texture: width and height must be positive");
  Texture tex;
  tex.width = tex_width;
  tex.height = tex_height;
  tex.mode = address_mode_named(a.texture_mode);
  same_size(texture.size(), static_cast<std::size_t>(tex_width) * tex_height * 4, "texture");
  tex.rgba.assign(texture.data(), texture.data() + texture.size());
  std::vector<std::uint8_t> in(input_arena.data(), input_arena.data() + input_arena.size());
  std::vector<std::uint8_t> out(in.size(), 0);
  Surface surface = Surface::make(static_cast<int>(a.ex), static_cast<int>(a.ey));

  LaunchParams p = frame_launch(a.ex, a.ey, in, weights, out, tex, surface);
  p.block_offset_x = a.ox;
  p.block_offset_y = a.oy;
  p.grid_x = a.grid_x;
  p.grid_y = a.grid_y;

  TraceRequest request;
  Trace trace;
  if (a.trace_stages) {
    request.stages = *a.trace_stages;
    request.block_x = a.trace_block.first;
    request.block_y = a.trace_block.second;
    o.trace = &request;
    o.trace_out = &trace;
  }
  golden::LayerStats stats;
  if (a.want_stats) o.stats = &stats;

  {
    nb::gil_scoped_release release;
    run_frame(p, o);
  }

  nb::dict r;
  r["arena"] = to_numpy(std::move(out), {in.size()});
  // The surface's rows are exactly 8*ex bytes (Surface::make), i.e. ex*4 little-endian f16.
  std::vector<std::uint16_t> px(static_cast<std::size_t>(a.ex) * a.ey * 4);
  std::memcpy(px.data(), surface.bytes.data(), px.size() * 2);
  r["surface"] = to_numpy(std::move(px), {px.size()});
  if (a.trace_stages) {
    nb::list stages;
    for (TraceStage& s : trace.stages) {
      nb::dict d;
      d["name"] = s.name;
      d["description"] = s.description;
      d["kind"] = kind_name(s.kind);
      const std::size_t w = s.warps, l = s.lanes, g = s.regs;
      same_size(s.values.size(), w * l * g, "trace stage values");
      d["values"] = to_numpy(std::move(s.values), {w, l, g});
      stages.append(d);
    }
    r["trace"] = stages;
    r["trace_block"] = std::make_pair(trace.block_x, trace.block_y);
  }
  if (a.want_stats) r["stats"] = stats_of(stats);
  return r;
}

void bind_run(nb::module_& m) {
  m.def(
      "synthetic_frame",
      [](int ex, int ey, std::uint64_t seed, bool stress, int planes) {
        if (planes < 1 || planes > 5) throw nb::value_error("planes: expected 1..5");
        SyntheticFrame f = make_synthetic_frame(ex, ey, seed, stress, planes);
        const std::size_t n = f.input_arena.size(), t = f.texture.rgba.size();
        return nb::make_tuple(to_numpy(std::move(f.input_arena), {n}), to_numpy(std::move(f.texture.rgba), {t}), f.texture.width,
                              f.texture.height);
      },
      "ex"_a, "ey"_a, "seed"_a, "stress"_a, "planes"_a = 5);

  m.def("readings", [] {
    nb::list l;
    for (const ReadingInfo& i : reading_registry()) {
      nb::dict d;
      d["name"] = i.name;
      d["values"] = i.values;
      d["default"] = i.default_value;
      d["question"] = i.question;
      d["where"] = i.where;
      d["settle"] = i.settle;
      l.append(d);
    }
    return l;
  });

  m.def(
      "run",
      [](In<std::uint8_t> input_arena, In<std::uint16_t> texture, int tex_width, int tex_height, const WeightImage& weights,
         std::uint32_t ex, std::uint32_t ey, std::uint16_t ox, std::uint16_t oy, std::uint32_t grid_x, std::uint32_t grid_y,
         const std::string& engine, const std::string& profile, const std::string& texture_mode,
         const std::map<std::string, std::string>& readings, int threads, std::optional<std::vector<std::string>> trace_stages,
         std::pair<int, int> trace_block, bool want_stats) {
        return run(input_arena, texture, tex_width, tex_height, weights,
                   RunArgs{ex, ey, ox, oy, grid_x, grid_y, engine, profile, texture_mode, readings, threads, std::move(trace_stages),
                           trace_block, want_stats});
      },
      "input_arena"_a.noconvert(), "texture"_a.noconvert(), "tex_width"_a, "tex_height"_a, "weights"_a, "ex"_a, "ey"_a, "ox"_a, "oy"_a,
      "grid_x"_a, "grid_y"_a, "engine"_a, "profile"_a, "texture_mode"_a, "readings"_a, "threads"_a, "trace_stages"_a.none(),
      "trace_block"_a, "want_stats"_a);
}

// ---- the PTX interpreter: any launch (bridge/launch.hpp; python/rrswin/ptx.py checks the arguments) ----

void bind_ptx(nb::module_& m) {
  // Arrays arrive as flat uint8 / uint16 views; the returned dict maps each buffer's and surface's
  // name to its bytes after the launch (the Python layer restores dtypes and shapes).
  m.def(
      "ptx_launch",
      [](const std::string& path, std::optional<std::string> text, const std::string& entry, std::vector<std::uint64_t> grid,
         std::vector<std::uint64_t> block, std::uint64_t shared, std::vector<std::pair<std::string, In<std::uint8_t>>> buffers,
         const std::vector<std::string>& params, std::vector<std::tuple<std::string, In<std::uint16_t>, int, int, std::string>> textures,
         std::vector<std::tuple<std::string, In<std::uint8_t>, int, int, std::size_t>> surfaces, const std::string& profile, int threads,
         std::optional<std::uint64_t> max_instructions, const std::vector<std::string>& readings) {
        using namespace rrswin::ptx;
        const auto module = text ? parse_module(*text, path) : load_module(path);
        LaunchSpec s;
        s.entry = entry;
        const auto dim3 = [](const std::vector<std::uint64_t>& v, const char* what, bool is_block) {
          if (v.size() != 3) fail(std::string(what) + ": expected 3 numbers");
          return parse_dim3(std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]), what, is_block);
        };
        s.grid = dim3(grid, "grid", false);
        s.block = dim3(block, "block", true);
        s.dynamic_shared = shared;
        for (std::size_t i = 0; i < params.size(); ++i) s.params.push_back(parse_param_arg(params[i], "params[" + std::to_string(i) + "]"));
        for (auto& [name, a] : buffers) {
          LaunchBuffer b;
          b.name = name;
          b.what = "buffers['" + name + "']";
          b.bytes.assign(a.data(), a.data() + a.size());
          s.buffers.push_back(std::move(b));
        }
        for (auto& [name, a, w, h, mode] : textures) {
          LaunchTexture t;
          t.name = name;
          t.what = "textures['" + name + "']";
          if (w <= 0 || h <= 0 || a.size() != static_cast<std::size_t>(w) * h * 4) fail(t.what + ": expected width*height*4 texels");
          t.texture.width = w;
          t.texture.height = h;
          t.texture.mode = address_mode_named(mode);
          t.texture.rgba.assign(a.data(), a.data() + a.size());
          s.textures.push_back(std::move(t));
        }
        for (auto& [name, a, w, h, pitch] : surfaces) {
          LaunchSurface t;
          t.name = name;
          t.what = "surfaces['" + name + "']";
          t.surface.width = w;
          t.surface.height = h;
          t.surface.pitch = pitch;
          t.surface.bytes.assign(a.data(), a.data() + a.size());
          s.surfaces.push_back(std::move(t));
        }
        rrswin::ptx::RunOptions o;
        o.profile = &profile_named(profile);
        o.threads = threads;
        if (max_instructions) o.max_warp_instructions = *max_instructions;  // else the interpreter's default bound
        for (const std::string& r : readings) set_reading(o, r);            // "name=value" (ptx.hpp kReadings)
        rrswin::ptx::RunStats st;
        {
          nb::gil_scoped_release release;
          st = run_launch(*module, s, o);
        }
        nb::dict out;
        for (auto& b : s.buffers) {
          const std::size_t n = b.bytes.size();
          out[b.name.c_str()] = to_numpy(std::move(b.bytes), {n});
        }
        for (auto& t : s.surfaces) {
          const std::size_t n = t.surface.bytes.size();
          out[t.name.c_str()] = to_numpy(std::move(t.surface.bytes), {n});
        }
        nb::dict stats;
        stats["ctas"] = st.ctas;
        stats["warp_instructions"] = st.warp_instructions;
        stats["lane_instructions"] = st.lane_instructions;
        stats["mma"] = st.mma;
        nb::dict md;
        for (const auto& [name, n] : st.model_dependent) md[name.c_str()] = n;
        stats["model_dependent"] = md;
        return nb::make_tuple(out, stats);
      },
      "path"_a, "text"_a.none(), "entry"_a, "grid"_a, "block"_a, "shared"_a, "buffers"_a, "params"_a, "textures"_a, "surfaces"_a,
      "profile"_a, "threads"_a, "max_instructions"_a.none(), "readings"_a);
}

// ---- the layer template (issue 21; docs/readings.md §7) ------------------------------------------

LayerId layer_id(const std::string& name) {
  LayerId id{};
  if (!parse_layer(name, &id))
    throw nb::value_error(("layer: expected one of " + std::string(layer_names()) + ", got '" + name + "'").c_str());
  return id;
}

nb::dict layer_spec_dict(const std::string& name) {
  const LayerSpec& s = layer_spec(layer_id(name));
  const WeightMap w = weight_map(s);
  const LayerProgram& prog = layer_program(s.id);
  nb::dict d;
  d["name"] = std::string(s.name);
  d["entry"] = std::string(s.entry);
  d["channels"] = s.channels;
  d["heads"] = s.heads;
  d["chunks"] = s.chunks;
  d["merge"] = s.merge();
  d["merge_out"] = s.merge_out;
  d["final_epilogue"] = std::string(to_string(s.final_epilogue));
  d["runnable"] = s.runnable;
  d["head_form"] = std::string(to_string(s.head_form));
  d["front"] = std::string(to_string(s.front.kind));
  d["phases"] = static_cast<int>(prog.phases.size());
  d["mma"] = prog.mma_total;
  d["merge_phase"] = s.merge_phase();
  d["final_phase"] = s.final_phase();
  d["image_bytes"] = w.image_bytes();
  d["tool_extent"] = w.tool_extent();
  d["shared_bytes"] = s.abi.shared_bytes;
  d["grid"] = nb::make_tuple(s.abi.grid[0], s.abi.grid[1], s.abi.grid[2]);
  d["block"] = nb::make_tuple(s.abi.block[0], s.abi.block[1], s.abi.block[2]);
  d["tokens"] = nb::make_tuple(s.abi.ex, s.abi.ey);
  // The input arena (+8): C/32 planes at the token grid, a decoder's the front's K/32 planes at the
  // half-resolution grid ((ex >> 1) x (ey >> 1)); a decoder's skip (+24) has C/32 planes at the grid.
  const bool decoder = s.front.kind == FrontKind::patch_expand;
  d["decoder"] = decoder;
  d["input_planes"] = decoder ? s.front.k / 32 : s.k_slices();
  d["half_resolution_input"] = decoder;
  d["front_k"] = s.front.k;
  if (decoder)
    d["skip_planes"] = s.k_slices();
  else
    d["skip_planes"] = nb::none();
  d["merged_output_param"] = s.abi.merged_output;
  nb::list surfaces;
  for (int i = 0; i < s.abi.surface_count; ++i) surfaces.append(s.abi.surfaces[static_cast<std::size_t>(i)]);
  d["surface_params"] = surfaces;
  return d;
}

nb::list layer_phases_list(const std::string& name) {
  nb::list l;
  for (const Phase& p : layer_program(layer_id(name)).phases) {
    nb::dict d;
    d["number"] = p.number;
    d["kind"] = std::string(to_string(p.kind));
    d["statements"] = std::string(p.stmt_range);
    d["tool"] = nb::make_tuple(p.tool.m, p.tool.n, p.tool.k);
    d["real"] = nb::make_tuple(p.real.m, p.real.n, p.real.k);
    d["mma"] = p.mma;
    d["band"] = p.band;
    d["weight"] = nb::make_tuple(p.weight_begin, p.weight_end);
    d["bias"] = nb::make_tuple(p.bias_begin, p.bias_end);
    d["epi"] = p.epilogue_statements;
    d["warps"] = p.warps;
    d["a"] = std::string(p.a_label);
    d["b"] = std::string(p.b_label);
    d["c"] = std::string(p.c_label);
    l.append(d);
  }
  return l;
}

nb::list layer_readings_list() {
  nb::list l;
  for (const LayerReadingInfo& i : layer_reading_registry()) {
    nb::dict d;
    d["name"] = i.name;
    d["values"] = i.values;
    d["default"] = i.values.front();
    d["question"] = i.question;
    d["where"] = i.where;
    d["settle"] = i.settle;
    l.append(d);
  }
  return l;
}

// A decoder's array argument of `planes` planes (or RGBA texels when `planes` is 0) at w x h: its
// size, with the shape it stands for in the message.
void check_decoder_array(std::size_t found, int planes, int w, int h, const std::string& what) {
  const std::size_t per = planes > 0 ? 32u * static_cast<std::size_t>(planes) : 4u;
  const std::size_t expected = per * static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  if (found == expected) return;
  const std::string shape = planes > 0
                                ? std::to_string(planes) + " planes x " + std::to_string(h) + " x " + std::to_string(w) + " x 32 bytes"
                                : "float16 (" + std::to_string(h) + ", " + std::to_string(w) + ", 4)";
  fail(what + ": expected " + std::to_string(expected) + " elements (" + shape + "), found " + std::to_string(found));
}

// A merge layer (enc4, enc3, enc2; model/layer_golden.hpp, engine/layer_engine.hpp): the arena (+48),
// the merged output (+56) and, when a texture (ex x ey RGBA f16) is given, the final epilogue's three
// surfaces as RGBA f16 arrays. A decoder (dec4, dec3, dec2: docs/readings.md §9): the input arena at
// the half-resolution grid (+8, front K/32 planes x (ey >> 1) x (ex >> 1) x 32 bytes), the skip
// (+24, C/32 planes x ey x ex x 32), the texture +88 of any size `texture_size` = (w, h) (required
// with a decoder's texture), +96 and +104 (ex x ey) and the scale (+136); returns the arena and,
// with the texture, surface112 (no merged output, no +120/+128). dec0: the arena is its +48 (8 e4m3
// bytes a pixel) and surface144 its +144 (float32 (ey, ex, 4)), returned with or without a texture.
nb::dict run_merge_layer(const std::string& layer, In<std::uint8_t> input_arena, In<std::uint8_t> weights,
                         std::optional<In<std::uint16_t>> texture, int ex, int ey, int ox, int oy, const std::string& engine,
                         const std::string& profile, const std::map<std::string, std::string>& readings,
                         const std::map<std::string, std::string>& layer_readings, int threads, std::optional<In<std::uint8_t>> skip,
                         std::optional<In<std::uint16_t>> texture96, std::optional<In<std::uint16_t>> texture104,
                         std::optional<std::pair<int, int>> texture_size, std::pair<double, double> scale) {
  const LayerId id = layer_id(layer);
  const LayerSpec& spec = layer_spec(id);
  if (!spec.runnable)
    throw nb::value_error(("layer: '" + layer + "' does not run yet (rrswin runs " + std::string(runnable_layer_names()) + ")").c_str());
  const bool decoder = spec.front.kind == FrontKind::patch_expand;
  // The runnable layers of each kind, from the rows (a layer that starts to run joins its list).
  std::string merges, decoders;
  for (LayerId i : layer_ids()) {
    const LayerSpec& s = layer_spec(i);
    std::string& list = s.front.kind == FrontKind::patch_expand ? decoders : merges;
    if (s.runnable && (s.merge() || s.front.kind == FrontKind::patch_expand)) list += (list.empty() ? "" : ", ") + std::string(s.name);
  }
  if (!spec.merge() && !decoder)
    throw nb::value_error(("layer: '" + layer + "' is neither a merge layer (" + merges + ") nor a decoder (" + decoders + ")").c_str());
  if (!decoder) {
    const std::pair<const char*, bool> decoder_only[] = {
        {"skip", skip.has_value()}, {"texture96", texture96.has_value()}, {"texture104", texture104.has_value()}};
    for (const auto& [name, given] : decoder_only)
      if (given) fail(std::string(name) + ": only the decoders (" + decoders + ") take it; " + layer + " is a merge layer");
    if (texture_size) fail("texture_size: only a decoder's texture +88 has its own size; " + layer + "'s is the token grid");
    if (scale != std::make_pair(0.5, 0.5)) fail("scale: only the decoders (" + decoders + ") take it; " + layer + " is a merge layer");
  }
  const Profile* p = find_profile(profile);
  if (!p) throw nb::value_error(("profile: expected " + std::string(profile_names()) + ", got '" + profile + "'").c_str());
  if (engine != "golden" && engine != "fast") throw nb::value_error(("engine: expected 'golden' or 'fast', got '" + engine + "'").c_str());
  Readings r;
  for (const auto& [k, v] : readings) {
    std::string err;
    if (!set_reading(r, k, v, &err)) throw nb::value_error(err.c_str());
  }
  LayerReadings lr;
  for (const auto& [k, v] : layer_readings) {
    std::string err;
    if (!set_layer_reading(lr, k + "=" + v, &err)) throw nb::value_error(err.c_str());
  }
  const WeightImage w(std::vector<std::uint8_t>(weights.data(), weights.data() + weights.size()), id, "<weights>");
  Texture tex, tex96, tex104;
  std::vector<std::uint8_t> skip_bytes;
  if (decoder) {
    // Checked here, each by its argument's name, before the frame driver's own checks.
    if (ex < 2 || ey < 2 || ex > 4096 || ey > 4096)
      fail("ex, ey: a decoder's token grid is 2..4096 in each direction (its input is at half of it), found " + std::to_string(ex) + " x " +
           std::to_string(ey));
    check_decoder_array(input_arena.size(), spec.front.k / 32, ex >> 1, ey >> 1,
                        "input_arena (" + layer + "'s +8, the half-resolution input)");
    if (!skip) fail("skip: required for a decoder (" + layer + "'s +24, the encoder of its level's arena)");
    check_decoder_array(skip->size(), spec.k_slices(), ex, ey, "skip (" + layer + "'s +24)");
    skip_bytes.assign(skip->data(), skip->data() + skip->size());
    const std::tuple<const char*, const char*, const std::optional<In<std::uint16_t>>*> grid_textures[] = {
        {"texture96", "+96", &texture96}, {"texture104", "+104", &texture104}};
    for (const auto& [name, offset, t] : grid_textures) {
      if (!*t) fail(std::string(name) + ": required for a decoder (" + layer + "'s " + offset + ", at the token grid)");
      check_decoder_array((*t)->size(), 0, ex, ey, std::string(name) + " (" + offset + ", the token grid)");
    }
    tex96.width = tex104.width = ex;
    tex96.height = tex104.height = ey;
    tex96.rgba.assign(texture96->data(), texture96->data() + texture96->size());
    tex104.rgba.assign(texture104->data(), texture104->data() + texture104->size());
    for (const auto& [name, v] : {std::pair<const char*, double>{"scale[0]", scale.first}, {"scale[1]", scale.second}}) {
      const float f = static_cast<float>(v);
      if (!std::isfinite(v) || !std::isfinite(f))
        fail(std::string(name) + ": expected a finite float32 value (+136's sx, sy), found " + std::to_string(v));
    }
    if (texture) {
      if (!texture_size) fail("texture_size: required with a decoder's texture (+88 has any size: its (width, height))");
      const auto [tw, th] = *texture_size;
      if (tw < 1 || th < 1 || tw > 65536 || th > 65536)
        fail("texture: expected a float16 (h, w, 4) array with 1 <= h, w <= 65536, found (" + std::to_string(th) + ", " +
             std::to_string(tw) + ", 4)");
      check_decoder_array(texture->size(), 0, tw, th, "texture (+88)");
      tex.width = tw;
      tex.height = th;
      tex.rgba.assign(texture->data(), texture->data() + texture->size());
    }
  } else if (texture) {
    same_size(texture->size(), static_cast<std::size_t>(ex) * static_cast<std::size_t>(ey) * 4, "texture");
    tex.width = ex;
    tex.height = ey;
    tex.rgba.assign(texture->data(), texture->data() + texture->size());
  }
  const std::vector<std::uint8_t> in(input_arena.data(), input_arena.data() + input_arena.size());
  LayerFrame f;
  f.ex = ex;
  f.ey = ey;
  f.ox = ox;
  f.oy = oy;
  f.input_arena = in;
  f.weights = &w;
  f.texture = texture ? &tex : nullptr;
  if (decoder) {
    f.skip_arena = skip_bytes;
    f.texture96 = &tex96;
    f.texture104 = &tex104;
    f.scale = {static_cast<float>(scale.first), static_cast<float>(scale.second)};
  }
  try {
    nb::gil_scoped_release release;
    if (engine == "golden")
      run_layer_frame_golden(f, *p, r, lr);
    else
      engine::run_layer_frame_fast(f, *p, r, lr, {engine::default_simd_path(), std::max(1, threads)});
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  }
  nb::dict out;
  const std::size_t na = f.output_arena.size(), nm = f.merged_output.size();
  out["arena"] = to_numpy(std::move(f.output_arena), {na});
  if (!decoder) out["merged"] = to_numpy(std::move(f.merged_output), {nm});
  if (spec.final_epilogue == FinalEpilogueKind::dec0_output) {
    // dec0 (DOC-d0 §4.2): arena = +48, 8 e4m3 bytes a pixel at byte 8 (ex y + x); surface144 = +144,
    // the tanh values as float32 (ey, ex, 4), with or without the textures.
    const std::size_t h = static_cast<std::size_t>(f.surface144.height), wd = static_cast<std::size_t>(f.surface144.width);
    out["surface144"] = to_numpy(std::move(f.surface144.rgba), {h, wd, 4});
  }
  if (texture) {
    const std::pair<const char*, const Surface*> surfaces[] = {
        {"surface112", &f.surface112}, {"surface120", &f.surface120}, {"surface128", &f.surface128}};
    for (const auto& [name, sf] : surfaces) {
      if (decoder && sf != &f.surface112) continue;  // the decoders write +112 only
      std::vector<std::uint16_t> rgba = surface_rgba(*sf);
      const std::size_t h = static_cast<std::size_t>(sf->height), wd = static_cast<std::size_t>(sf->width);
      out[name] = to_numpy(std::move(rgba), {h, wd, 4});
    }
  }
  return out;
}

// The network on its demo inputs (api/network_demo.hpp, as `rrswin run --network`): every layer
// that ran, by name, its outputs as run_layer names them, and its seconds.
// `weights`: empty (every layer's embedded default image) or one (layer, name, bytes) per runnable
// layer (python/rrswin/layers.py run_network builds it from a dict or a folder), each checked by the
// weight-image reader (InputError naming `name`: ValueError).
nb::dict run_network_demo(int render_w, int render_h, const std::string& profile, const std::string& engine, int threads,
                          std::uint64_t seed, const nb::list& weights) {
  if (engine != "fast" && engine != "golden") throw nb::value_error("engine: 'fast' or 'golden'");
  if (threads < 1 || threads > 256) throw nb::value_error("threads: 1..256");
  if (render_w < 32 || render_h < 32 || render_w > 8192 || render_h > 8192) throw nb::value_error("render: each side 32..8192");
  const Profile* p = find_profile(profile);
  if (!p) throw nb::value_error(("profile: '" + profile + "' is not ada, zluda, hopper or blackwell").c_str());
  std::map<LayerId, WeightImage> images;
  for (nb::handle item : weights) {
    const auto [layer, name, bytes] = nb::cast<std::tuple<std::string, std::string, nb::bytes>>(item);
    LayerId id{};
    if (!parse_layer(layer, &id) || !layer_spec(id).runnable) throw nb::value_error(("weights: no runnable layer '" + layer + "'").c_str());
    const auto* b = static_cast<const std::uint8_t*>(bytes.data());
    images.insert_or_assign(id, WeightImage(std::vector<std::uint8_t>(b, b + bytes.size()), id, name));
  }
  for (LayerId id : layer_ids())
    if (!weights.empty() && layer_spec(id).runnable && !images.count(id))
      throw nb::value_error(("weights: no image for " + std::string(to_string(id)) + " (every runnable layer's, or none)").c_str());
  std::vector<NetworkLayerResult> results;
  {
    nb::gil_scoped_release release;
    const std::unique_ptr<NetworkDemo> demo = make_network_demo(render_w, render_h, seed);
    for (auto& [id, li] : demo->layers)
      if (!images.empty()) li.weights = &images.at(id);
    NetworkRunOptions o;
    o.render_w = render_w;
    o.render_h = render_h;
    o.profile = p;
    o.engine = engine == "golden" ? Engine::golden : Engine::fast;
    o.threads = threads;
    results = run_network(o, demo->layers, demo->external);
  }
  nb::dict out;
  for (NetworkLayerResult& r : results) {
    if (!r.ran) continue;
    nb::dict d;
    const std::size_t na = r.arena.size(), nm = r.merged.size();
    d["arena"] = to_numpy(std::move(r.arena), {na});
    if (nm) d["merged"] = to_numpy(std::move(r.merged), {nm});
    const std::pair<const char*, const Surface*> surfaces[] = {
        {"surface112", &r.surface112}, {"surface120", &r.surface120}, {"surface128", &r.surface128}};
    for (const auto& [name, sf] : surfaces) {
      if (sf->width <= 0 || sf->height <= 0) continue;
      std::vector<std::uint16_t> rgba = surface_rgba(*sf);
      const std::size_t h = static_cast<std::size_t>(sf->height), wd = static_cast<std::size_t>(sf->width);
      d[name] = to_numpy(std::move(rgba), {h, wd, 4});
    }
    if (r.surface144.width > 0 && r.surface144.height > 0) {
      // dec0's +144 (E19's tanh values), float32 (ey, ex, 4) as run_layer returns it.
      const std::size_t h = static_cast<std::size_t>(r.surface144.height), wd = static_cast<std::size_t>(r.surface144.width);
      d["surface144"] = to_numpy(std::move(r.surface144.rgba), {h, wd, 4});
    }
    d["seconds"] = r.seconds;
    d["ex"] = r.ex;
    d["ey"] = r.ey;
    out[std::string(to_string(r.id)).c_str()] = d;
  }
  return out;
}

// A whole frame's capture replayed (bridge/network_capture.hpp, as `rrswin replay --network DIR
// [--chained]`): the verdict and one dict per layer in network order (the CLI's --json fields).
nb::dict replay_network_capture_py(const std::string& dir, bool chained, const std::string& profile, const std::string& engine,
                                   int threads) {
  if (engine != "fast" && engine != "golden") throw nb::value_error("engine: 'fast' or 'golden'");
  if (threads < 1 || threads > 256) throw nb::value_error("threads: 1..256");
  const Profile* p = find_profile(profile);
  if (!p) throw nb::value_error(("profile: '" + profile + "' is not ada, zluda, hopper or blackwell").c_str());
  ptx::NetworkReplayOptions o;
  o.chained = chained;
  o.replay.profile = p;
  o.replay.golden = engine == "golden";
  o.replay.threads = threads;
  ptx::NetworkReplay r;
  {
    nb::gil_scoped_release release;
    r = ptx::replay_network_capture(ptx::load_network_capture(dir), o);
  }
  nb::dict out;
  out["chained"] = r.chained;
  out["reproduces"] = r.all_reproduce();
  out["first_differing"] = r.first_differing ? nb::object(nb::str(std::string(to_string(*r.first_differing)).c_str())) : nb::none();
  if (r.chained) out["start"] = r.start;
  nb::list layers;
  for (const ptx::NetworkLayerReplay& l : r.layers) {
    nb::dict d;
    d["layer"] = std::string(to_string(l.layer));
    d["launch"] = l.launch;
    d["status"] = l.status == ptx::NetworkLayerReplay::Status::reproduces ? "reproduces"
                  : l.status == ptx::NetworkLayerReplay::Status::differs  ? "differs"
                                                                          : "not replayable";
    d["ex"] = l.ex;
    d["ey"] = l.ey;
    if (l.status == ptx::NetworkLayerReplay::Status::not_replayable) {
      d["why"] = l.why;
    } else {
      d["bytes_compared"] = l.bytes_compared;
      d["bytes_differing"] = l.bytes_differing;
      nb::dict per;
      for (const auto& [arg, n] : l.per_output) per[nb::int_(arg)] = n;
      d["per_output"] = per;
      if (l.first) {
        nb::dict f;
        f["arg"] = l.first->arg;
        f["offset"] = l.first->offset;
        f["where"] = l.first->where;
        f["block"] = std::make_pair(l.first->block_x, l.first->block_y);
        d["first"] = f;
      } else {
        d["first"] = nb::none();
      }
      if (r.chained) {
        d["inputs"] = l.inputs;
        d["input_bytes_differing"] = l.input_bytes_differing;
      }
    }
    layers.append(d);
  }
  out["layers"] = layers;
  return out;
}

// One side of diff_network: a folder path (str), read when the GIL is released, or the list
// python/rrswin/layers.py builds from a run_network result: (layer, output name, bytes, width,
// height), width and height a surface's texels (0 for a raw output). `label` ('a', 'b') names it.
struct NetworkSideArg {
  std::optional<std::string> folder;
  capture::NetworkSide side;
};

NetworkSideArg network_side_arg(nb::handle h, const std::string& label) {
  NetworkSideArg arg;
  if (nb::isinstance<nb::str>(h)) {
    arg.folder = nb::cast<std::string>(h);
    return arg;
  }
  arg.side.source = label;
  for (nb::handle item : nb::cast<nb::list>(h)) {
    const auto [layer, name, bytes, width, height] = nb::cast<std::tuple<std::string, std::string, nb::bytes, int, int>>(item);
    LayerId id{};
    if (!parse_layer(layer, &id)) throw nb::value_error((label + ": no layer '" + layer + "'").c_str());
    if (!capture::find_network_output(name)) throw nb::value_error((label + "['" + layer + "']: no output '" + name + "'").c_str());
    auto it = std::find_if(arg.side.layers.begin(), arg.side.layers.end(), [&](const capture::NetworkSideLayer& l) { return l.id == id; });
    if (it == arg.side.layers.end()) it = arg.side.layers.insert(arg.side.layers.end(), capture::NetworkSideLayer{id, {}});
    const auto* b = static_cast<const std::uint8_t*>(bytes.data());
    it->outputs.push_back(capture::NetworkOutput{name, std::vector<std::uint8_t>(b, b + bytes.size()), width, height});
  }
  return arg;
}

// Two runs of the network compared layer by layer (capture/network_diff.hpp, as `rrswin diff
// --network A B [--strict]`): the verdict and one dict per layer in network order, each output's
// figures under the names of the CLI's --json where it has them (bytes_compared, bytes_differing).
nb::dict diff_network_py(nb::handle a, nb::handle b, bool strict) {
  NetworkSideArg sa = network_side_arg(a, "a"), sb = network_side_arg(b, "b");
  capture::NetworkDiff d;
  {
    nb::gil_scoped_release release;
    for (NetworkSideArg* s : {&sa, &sb}) {
      if (!s->folder) continue;
      s->side = capture::read_network_folder(*s->folder);
      if (s->side.layers.empty())
        throw InputError(*s->folder, 0, "an `rrswin run --network` folder (layer folders enc0/, ..., dec0/)", "no layer folder");
    }
    d = capture::diff_network(sa.side, sb.side, strict);
  }
  nb::dict out;
  out["identical"] = d.identical();
  out["first_differing"] = d.first_differing ? nb::object(nb::str(std::string(to_string(*d.first_differing)).c_str())) : nb::none();
  out["differing_layers"] = d.differing_layers;
  nb::list layers;
  for (const capture::NetworkLayerDiff& l : d.layers) {
    nb::dict ld;
    ld["layer"] = std::string(to_string(l.id));
    ld["in_a"] = l.in_a;
    ld["in_b"] = l.in_b;
    ld["identical"] = l.identical;
    nb::dict outputs;
    for (const capture::NetworkOutputDiff& o : l.outputs) {
      nb::dict od;
      od["bytes_compared"] = o.diff.compared;
      od["bytes_differing"] = o.diff.differing;
      od["size_a"] = o.diff.size_a;
      od["size_b"] = o.diff.size_b;
      if (o.diff.kind == capture::DiffKind::surface) {
        od["values_differing"] = o.values_differing;
        od["max_ulp"] = o.diff.max_dist;
      } else {
        od["first_block"] = o.first_block ? nb::object(nb::cast(*o.first_block)) : nb::none();
      }
      outputs[o.name.c_str()] = od;
    }
    ld["outputs"] = outputs;
    layers.append(ld);
  }
  out["layers"] = layers;
  return out;
}

void bind_layers(nb::module_& m) {
  m.def("diff_network", &diff_network_py, "a"_a, "b"_a, "strict"_a,
        "two runs of the network compared layer by layer (`rrswin diff --network`)");
  m.def("replay_network_capture", &replay_network_capture_py, "dir"_a, "chained"_a, "profile"_a, "engine"_a, "threads"_a,
        "a whole frame's capture replayed per layer or chained (`rrswin replay --network`)");
  m.def("run_network_demo", &run_network_demo, "render_w"_a, "render_h"_a, "profile"_a, "engine"_a, "threads"_a, "seed"_a, "weights"_a,
        "the network on the embedded demo inputs of `rrswin run --network` (and its --weights)");
  m.def(
      "layer_names",
      [] {
        nb::list l;
        for (LayerId id : layer_ids()) l.append(std::string(to_string(id)));
        return l;
      },
      "the network's layers in network order (model/layers.def)");
  m.def("layer_spec", &layer_spec_dict, "name"_a);
  m.def("layer_phases", &layer_phases_list, "name"_a);
  m.def(
      "layer_weight_regions",
      [](const std::string& name) {
        nb::list l;
        for (const Region& r : layer_weight_regions(layer_spec(layer_id(name)))) l.append(region_dict(r));
        return l;
      },
      "name"_a);
  m.def(
      "synthetic_layer_weights",
      [](const std::string& name, std::uint64_t seed) {
        const WeightImage w = make_layer_synthetic_weights(layer_id(name), SyntheticOptions{seed, false});
        std::vector<std::uint8_t> b(w.bytes().begin(), w.bytes().end());
        const std::size_t n = b.size();
        return to_numpy(std::move(b), {n});
      },
      "name"_a, "seed"_a);
  m.def("layer_readings", &layer_readings_list);
  m.def("run_merge_layer", &run_merge_layer, "layer"_a, "input_arena"_a.noconvert(), "weights"_a.noconvert(),
        "texture"_a.noconvert().none(), "ex"_a, "ey"_a, "ox"_a, "oy"_a, "engine"_a, "profile"_a, "readings"_a, "layer_readings"_a,
        "threads"_a, "skip"_a.noconvert().none() = nb::none(), "texture96"_a.noconvert().none() = nb::none(),
        "texture104"_a.noconvert().none() = nb::none(), "texture_size"_a.none() = nb::none(), "scale"_a = std::make_pair(0.5, 0.5));
}

}  // namespace
}  // namespace rrswin::python

NB_MODULE(_rrswin, m) {
  m.doc() = "enc5's compiled core; use the package `rrswin`, which validates arguments";
  // Bad input files (wrong size, unreadable) carry the file, offset, expected and found values.
  nb::exception<rrswin::InputError>(m, "InputError", PyExc_ValueError);
  rrswin::python::bind_numerics(m);
  rrswin::python::bind_weights(m);
  rrswin::python::bind_run(m);
  // The PTX interpreter's errors (a launch given wrongly, malformed PTX, a run-time fault) name the
  // option or file and line: ValueError, like InputError.
  nb::exception<rrswin::ptx::PtxError>(m, "PtxError", PyExc_ValueError);
  rrswin::python::bind_ptx(m);
  rrswin::python::bind_layers(m);
}
