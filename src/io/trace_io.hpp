// Traces of one block's registers (model/trace.hpp) as files: a binary form for tools and a text
// form for people. docs/formats.md "Traces" is the normative description of both.
//
// Binary (all integers little endian):
//   +0   8 bytes  magic "ENC5TRC1"
//   +8   u32      format version (1)
//   +12  i32      block x (ctaid.x)
//   +16  i32      block y (ctaid.y)
//   +20  u32      stage count S
//   then S stages, each:
//        u32 name length N, N bytes of name (UTF-8, no NUL)
//        u32 description length D, D bytes of description
//        u32 kind (0 f16x2, 1 e4m3x4, 2 f32, 3 u32; TraceStage::Kind)
//        u32 warps, u32 lanes, u32 regs
//        warps*lanes*regs u32 values, [warp][lane][reg]
//   and nothing after the last stage.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rrswin {

inline constexpr std::uint32_t kTraceFormatVersion = 1;

std::vector<std::uint8_t> encode_trace(const Trace& trace);            // throws std::invalid_argument on a
                                                                       // stage whose values size is wrong
void write_trace_binary(const std::string& path, const Trace& trace);  // atomic

// Throws InputError (file, offset, expected, found) on a malformed or truncated file.
Trace decode_trace(std::span<const std::uint8_t> bytes, const std::string& name);
Trace read_trace(const std::string& path);

// The text form: a header line, then per stage a section with its name, description and shape,
// and one line per (warp, lane) with every register in hex followed by its decoded value(s).
std::string format_trace_text(const Trace& trace);
void write_trace_text(const std::string& path, const Trace& trace);  // atomic

const char* trace_kind_name(TraceStage::Kind k);  // "f16x2", "e4m3x4", "f32", "u32"

}  // namespace rrswin
