// io/trace_io: the binary trace round-trips exactly, its layout is the documented one, every
// truncation and corruption is an InputError with file and offset, and the text form decodes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "io/files.hpp"
#include "io/trace_io.hpp"

namespace fs = std::filesystem;
using namespace rrswin;

namespace {

Trace sample_trace() {
  Trace t;
  t.block_x = 4;
  t.block_y = 2;
  TraceStage a;
  a.name = "w1";
  a.description = "phase 1 D: 48 regs = m-tile major, n-tile minor, (row g, row g+8)";
  a.warps = 2;
  a.regs = 3;
  a.values.resize(2 * 32 * 3);
  for (std::size_t i = 0; i < a.values.size(); ++i) a.values[i] = static_cast<std::uint32_t>(0x9E3779B9u * (i + 1));
  a.values[0] = 0x3C00BC00;  // (-1, 1)
  a.values[1] = 0x7E00FC00;  // (-inf, nan)
  TraceStage b;
  b.name = "e20.a";
  b.description = "";  // empty descriptions are legal
  b.warps = 1;
  b.lanes = 2;
  b.regs = 1;
  b.values = {0xB8387F01, 0x00000000};
  b.kind = TraceStage::Kind::e4m3x4;
  TraceStage c;
  c.name = "e61.sum";
  c.description = "f32 sums";
  c.warps = 1;
  c.lanes = 1;
  c.regs = 2;
  c.values = {0x3F800000, 0xC0490FDB};
  c.kind = TraceStage::Kind::f32;
  TraceStage d;
  d.name = "raw";
  d.description = "u32";
  d.warps = 1;
  d.lanes = 1;
  d.regs = 1;
  d.values = {0xDEADBEEF};
  d.kind = TraceStage::Kind::u32;
  t.stages = {a, b, c, d};
  return t;
}

void expect_same(const Trace& x, const Trace& y) {
  EXPECT_EQ(x.block_x, y.block_x);
  EXPECT_EQ(x.block_y, y.block_y);
  ASSERT_EQ(x.stages.size(), y.stages.size());
  for (std::size_t i = 0; i < x.stages.size(); ++i) {
    EXPECT_EQ(x.stages[i].name, y.stages[i].name);
    EXPECT_EQ(x.stages[i].description, y.stages[i].description);
    EXPECT_EQ(x.stages[i].warps, y.stages[i].warps);
    EXPECT_EQ(x.stages[i].lanes, y.stages[i].lanes);
    EXPECT_EQ(x.stages[i].regs, y.stages[i].regs);
    EXPECT_EQ(x.stages[i].kind, y.stages[i].kind);
    EXPECT_EQ(x.stages[i].values, y.stages[i].values);
  }
}

std::uint32_t le32(const std::vector<std::uint8_t>& b, std::size_t at) {
  return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

void expect_error(const std::vector<std::uint8_t>& b, std::uint64_t offset, const std::string& needle) {
  try {
    decode_trace(b, "t.bin");
    ADD_FAILURE() << "no error; expected \"" << needle << "\"";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.bin");
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(TraceIo, BinaryRoundTrip) {
  const Trace t = sample_trace();
  expect_same(decode_trace(encode_trace(t), "mem"), t);
  const fs::path dir = fs::temp_directory_path() / ("rrswin_trace_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_trace_binary((dir / "t.bin").string(), t);
  expect_same(read_trace((dir / "t.bin").string()), t);
  expect_same(decode_trace(encode_trace(Trace{}), "empty"), Trace{});
  fs::remove_all(dir);
}

TEST(TraceIo, BinaryLayoutIsTheDocumentedOne) {
  const Trace t = sample_trace();
  const std::vector<std::uint8_t> b = encode_trace(t);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 8), "ENC5TRC1");
  EXPECT_EQ(le32(b, 8), 1u);   // version
  EXPECT_EQ(le32(b, 12), 4u);  // block x
  EXPECT_EQ(le32(b, 16), 2u);  // block y
  EXPECT_EQ(le32(b, 20), 4u);  // stages
  std::size_t p = 24;
  EXPECT_EQ(le32(b, p), 2u);  // "w1"
  EXPECT_EQ(std::string(b.begin() + p + 4, b.begin() + p + 6), "w1");
  p += 6;
  const std::uint32_t dl = le32(b, p);
  EXPECT_EQ(dl, t.stages[0].description.size());
  p += 4 + dl;
  EXPECT_EQ(le32(b, p), 0u);       // kind f16x2
  EXPECT_EQ(le32(b, p + 4), 2u);   // warps
  EXPECT_EQ(le32(b, p + 8), 32u);  // lanes
  EXPECT_EQ(le32(b, p + 12), 3u);  // regs
  p += 16;
  EXPECT_EQ(le32(b, p), 0x3C00BC00u);                                     // [warp 0][lane 0][reg 0]
  EXPECT_EQ(le32(b, p + 4 * (32 * 3 + 3 + 1)), t.stages[0].at(1, 1, 1));  // [1][1][1]
  std::size_t total = 24;
  for (const auto& s : t.stages) total += 4 + s.name.size() + 4 + s.description.size() + 16 + 4 * s.values.size();
  EXPECT_EQ(b.size(), total);
  const Trace empty;
  EXPECT_EQ(encode_trace(empty).size(), 24u);
}

TEST(TraceIo, EncodeRejectsInconsistentStages) {
  Trace t = sample_trace();
  t.stages[0].values.pop_back();
  EXPECT_THROW(encode_trace(t), std::invalid_argument);
}

TEST(TraceIo, EveryTruncationIsAnInputError) {
  const std::vector<std::uint8_t> full = encode_trace(sample_trace());
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      decode_trace(std::span(full.data(), n), "cut.bin");
      ADD_FAILURE() << "no error at length " << n;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "cut.bin");
      EXPECT_LE(e.offset(), n);
    }
  }
}

TEST(TraceIo, MalformedFiles) {
  const std::vector<std::uint8_t> good = encode_trace(sample_trace());
  auto with = [&](std::size_t at, std::uint8_t v) {
    std::vector<std::uint8_t> b = good;
    b[at] = v;
    return b;
  };
  expect_error(with(0, 'X'), 0, "ENC5TRC1");
  expect_error(with(8, 2), 8, "trace format version 1");
  expect_error(with(23, 0x7F), 20, "stage count");
  expect_error(with(24, 0), 24, "name length");     // name length 0
  expect_error(with(27, 0x10), 24, "name length");  // huge name length
  const std::size_t kind_at = 24 + 4 + 2 + 4 + sample_trace().stages[0].description.size();
  expect_error(with(kind_at, 9), kind_at, "a kind 0..3");
  expect_error(with(kind_at + 4 + 2, 0x01), kind_at + 4, "at most 65536 warps");
  // The stage's values would run past the end: found at the end of the file.
  expect_error(with(kind_at + 12, 200), good.size(), "values of stage 0 ('w1')");
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0);
  expect_error(longer, good.size(), "1 more bytes");
}

TEST(TraceIo, TextFormDecodesByKind) {
  const std::string text = format_trace_text(sample_trace());
  EXPECT_NE(text.find("# rrswin trace: block (4, 2), 4 stages"), std::string::npos) << text.substr(0, 200);
  EXPECT_NE(text.find("## stage w1: 2 warps x 32 lanes x 3 regs, f16x2"), std::string::npos);
  EXPECT_NE(text.find("# phase 1 D: 48 regs"), std::string::npos);
  EXPECT_NE(text.find("w0 l00: 3c00bc00(-1, 1) 7e00fc00(-inf, nan) "), std::string::npos);
  EXPECT_NE(text.find("w1 l31: "), std::string::npos);
  EXPECT_NE(text.find("w0 l00: b8387f01(0.001953125, nan, 1, -1)"), std::string::npos);
  EXPECT_NE(text.find("w0 l00: 3f800000(1) c0490fdb(-3.14159274)"), std::string::npos);
  EXPECT_NE(text.find("w0 l00: deadbeef\n"), std::string::npos);
  // One line per (warp, lane): 64 + 2 + 1 + 1 data lines.
  std::size_t lines = 0;
  for (std::size_t p = text.find("\nw"); p != std::string::npos; p = text.find("\nw", p + 1)) ++lines;
  EXPECT_EQ(lines, 68u);
}
