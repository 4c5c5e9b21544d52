#include "io/trace_io.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "base/little_endian.hpp"
#include "io/byte_reader.hpp"
#include "io/files.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"

namespace rrswin {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'C', '5', 'T', 'R', 'C', '1'};
// Sanity limits for reading: far above anything the kernel has (8 warps, 32 lanes, 96 registers,
// a few dozen stages) yet small enough that a corrupt count cannot make us allocate gigabytes
// before the size check against the file catches it.
constexpr std::uint32_t kMaxStages = 1u << 16;
constexpr std::uint32_t kMaxName = 1u << 12;
constexpr std::uint32_t kMaxDescription = 1u << 16;
constexpr std::uint32_t kMaxDim = 1u << 16;

std::size_t stage_value_count(const TraceStage& s) {
  return static_cast<std::size_t>(s.warps) * static_cast<std::size_t>(s.lanes) * static_cast<std::size_t>(s.regs);
}

// Decimal of an f16 with 5 significant digits: enough to tell every binary16 apart.
std::string f16_decimal(f16_t h) {
  const double v = f16_to_f64(h);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.5g", v);
  return b;
}

std::string decoded(std::uint32_t v, TraceStage::Kind kind) {
  char b[64];
  switch (kind) {
    case TraceStage::Kind::f16x2:
      // low half first, as PTX .f16x2 orders them (numerics/types.hpp)
      {
        std::string s(1, '(');  // (appending, not "(" + ...: GCC 12 warns falsely on the latter)
        s += f16_decimal(f16x2_lo(v));
        s += ", ";
        s += f16_decimal(f16x2_hi(v));
        s += ')';
        return s;
      }
    case TraceStage::Kind::e4m3x4: {
      std::string s(1, '(');
      for (int j = 0; j < 4; ++j) {
        const e4m3_t c = static_cast<e4m3_t>(v >> (8 * j));  // byte j = element j
        if (e4m3_is_nan(c)) {
          s += "nan";
        } else {
          std::snprintf(b, sizeof b, "%.7g", e4m3_to_f64(c));  // e4m3 values need at most 7 digits
          s += b;
        }
        s += j < 3 ? ", " : ")";
      }
      return s;
    }
    case TraceStage::Kind::f32: {
      float f;
      std::memcpy(&f, &v, 4);
      std::snprintf(b, sizeof b, "(%.9g)", static_cast<double>(f));
      return b;
    }
    case TraceStage::Kind::u32: return "";
  }
  return "";
}

}  // namespace

const char* trace_kind_name(TraceStage::Kind k) {
  switch (k) {
    case TraceStage::Kind::f16x2: return "f16x2";
    case TraceStage::Kind::e4m3x4: return "e4m3x4";
    case TraceStage::Kind::f32: return "f32";
    case TraceStage::Kind::u32: return "u32";
  }
  return "?";
}

std::vector<std::uint8_t> encode_trace(const Trace& trace) {
  using namespace io_detail;
  std::vector<std::uint8_t> out(kMagic, kMagic + 8);
  put_u32(out, kTraceFormatVersion);
  put_i32(out, trace.block_x);
  put_i32(out, trace.block_y);
  put_u32(out, static_cast<std::uint32_t>(trace.stages.size()));
  for (const TraceStage& s : trace.stages) {
    if (s.warps < 0 || s.lanes < 0 || s.regs < 0 || s.values.size() != stage_value_count(s))
      throw std::invalid_argument("trace stage '" + s.name + "': " + std::to_string(s.values.size()) +
                                  " values for warps x lanes x regs = " + std::to_string(s.warps) + " x " + std::to_string(s.lanes) +
                                  " x " + std::to_string(s.regs));
    put_u32(out, static_cast<std::uint32_t>(s.name.size()));
    out.insert(out.end(), s.name.begin(), s.name.end());
    put_u32(out, static_cast<std::uint32_t>(s.description.size()));
    out.insert(out.end(), s.description.begin(), s.description.end());
    put_u32(out, static_cast<std::uint32_t>(s.kind));
    put_u32(out, static_cast<std::uint32_t>(s.warps));
    put_u32(out, static_cast<std::uint32_t>(s.lanes));
    put_u32(out, static_cast<std::uint32_t>(s.regs));
    out.reserve(out.size() + 4 * s.values.size());
    for (std::uint32_t v : s.values) put_u32(out, v);
  }
  return out;
}

void write_trace_binary(const std::string& path, const Trace& trace) { write_file_atomic(path, encode_trace(trace)); }

Trace decode_trace(std::span<const std::uint8_t> bytes, const std::string& name) {
  io_detail::ByteReader r(bytes, name);
  const std::string magic = r.fixed_string(8, "the trace magic \"ENC5TRC1\"");
  if (std::memcmp(magic.data(), kMagic, 8) != 0)
    r.fail(0, "the trace magic \"ENC5TRC1\" (45 4e 43 35 54 52 43 31)", io_detail::hex_bytes(bytes.subspan(0, 8)));
  const std::uint32_t version = r.u32("the trace format version");
  if (version != kTraceFormatVersion) r.fail(8, "trace format version " + std::to_string(kTraceFormatVersion), std::to_string(version));
  Trace t;
  t.block_x = r.i32("the block x");
  t.block_y = r.i32("the block y");
  const std::size_t count_at = r.offset();
  const std::uint32_t count = r.u32("the stage count");
  if (count > kMaxStages) r.fail(count_at, "a stage count of at most " + std::to_string(kMaxStages), std::to_string(count));
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string which = "stage " + std::to_string(i);
    TraceStage s;
    std::size_t at = r.offset();
    const std::uint32_t name_len = r.u32("the name length of " + which);
    if (name_len == 0 || name_len > kMaxName)
      r.fail(at, "a name length of 1 to " + std::to_string(kMaxName) + " for " + which, std::to_string(name_len));
    s.name = r.fixed_string(name_len, "the name of " + which);
    const std::string named = which + " ('" + s.name + "')";
    at = r.offset();
    const std::uint32_t desc_len = r.u32("the description length of " + named);
    if (desc_len > kMaxDescription)
      r.fail(at, "a description length of at most " + std::to_string(kMaxDescription) + " for " + named, std::to_string(desc_len));
    s.description = r.fixed_string(desc_len, "the description of " + named);
    at = r.offset();
    const std::uint32_t kind = r.u32("the kind of " + named);
    if (kind > static_cast<std::uint32_t>(TraceStage::Kind::u32))
      r.fail(at, "a kind 0..3 (f16x2, e4m3x4, f32, u32) for " + named, std::to_string(kind));
    s.kind = static_cast<TraceStage::Kind>(kind);
    std::uint32_t dims[3];
    const char* dim_names[3] = {"warps", "lanes", "regs"};
    for (int d = 0; d < 3; ++d) {
      at = r.offset();
      dims[d] = r.u32(std::string("the ") + dim_names[d] + " of " + named);
      if (dims[d] > kMaxDim)
        r.fail(at, std::string("at most ") + std::to_string(kMaxDim) + " " + dim_names[d] + " for " + named, std::to_string(dims[d]));
    }
    s.warps = static_cast<int>(dims[0]);
    s.lanes = static_cast<int>(dims[1]);
    s.regs = static_cast<int>(dims[2]);
    const std::uint64_t n = std::uint64_t{dims[0]} * dims[1] * dims[2];
    r.need(4 * n, "values of " + named + " (" + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + " x " +
                      std::to_string(dims[2]) + " u32)");
    s.values.resize(static_cast<std::size_t>(n));
    const std::uint8_t* p = bytes.data() + r.offset();
    for (std::size_t k = 0; k < s.values.size(); ++k, p += 4) s.values[k] = load_le32(p);
    r.seek(r.offset() + 4 * n, "the end of the values");
    t.stages.push_back(std::move(s));
  }
  if (r.remaining() != 0)
    r.fail(r.offset(), "the end of the file after " + std::to_string(count) + " stages", std::to_string(r.remaining()) + " more bytes");
  return t;
}

Trace read_trace(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);
  return decode_trace(bytes, path);
}

std::string format_trace_text(const Trace& trace) {
  std::string out;
  char b[160];
  std::snprintf(b, sizeof b, "# rrswin trace: block (%d, %d), %zu stages\n", trace.block_x, trace.block_y, trace.stages.size());
  out += b;
  out += "# one line per (warp w, lane l): each register in hex, then its decoded value(s)\n";
  for (const TraceStage& s : trace.stages) {
    if (s.values.size() != stage_value_count(s))
      throw std::invalid_argument("trace stage '" + s.name + "': values size does not match its shape");
    std::snprintf(b, sizeof b, "\n## stage %s: %d warps x %d lanes x %d regs, %s\n", s.name.c_str(), s.warps, s.lanes, s.regs,
                  trace_kind_name(s.kind));
    out += b;
    out += "# " + s.description + "\n";
    for (int w = 0; w < s.warps; ++w) {
      for (int l = 0; l < s.lanes; ++l) {
        std::snprintf(b, sizeof b, "w%d l%02d:", w, l);
        out += b;
        for (int g = 0; g < s.regs; ++g) {
          const std::uint32_t v = s.at(w, l, g);
          std::snprintf(b, sizeof b, " %08x", v);
          out += b;
          out += decoded(v, s.kind);
        }
        out += '\n';
      }
    }
  }
  return out;
}

void write_trace_text(const std::string& path, const Trace& trace) { write_text_atomic(path, format_trace_text(trace)); }

}  // namespace rrswin
