// The weight-image map (facts E4), size validation (facts E1 vs spec §2.3) and statistics.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "base/errors.hpp"
#include "io/weight_file.hpp"
#include "model/weight_image.hpp"

namespace {

using rrswin::Region;

TEST(WeightMap, OffsetsAsTheSpecAndFactsPrintThem) {
  namespace w = rrswin::wmap;
  EXPECT_EQ(w::g1, 0u);
  EXPECT_EQ(w::wq(0), 320u);            // spec §2.1 phase 1
  EXPECT_EQ(w::wv(0), 5440u);           // phase 2
  EXPECT_EQ(w::score_bias(0), 10560u);  // phase 11 bias
  EXPECT_EQ(w::wo(0), 22848u);          // phase 13
  EXPECT_EQ(w::wo(1), 50496u);          // phase 14
  EXPECT_EQ(w::wo(7), 216384u);         // phase 20
  EXPECT_EQ(w::wq(7), 320u + 7u * 27648u);
  EXPECT_EQ(w::t1, 221504u);
  EXPECT_EQ(w::g2, 221824u);
  EXPECT_EQ(w::w1(0), 222144u);  // phase 21
  EXPECT_EQ(w::b1(0), 227264u);
  EXPECT_EQ(w::w2(0), 227328u);  // phase 22
  EXPECT_EQ(w::t3, 232448u);
  EXPECT_EQ(w::w1(1), 232768u);  // phase 23
  EXPECT_EQ(w::b1(1), 237888u);
  EXPECT_EQ(w::w2(1), 237952u);  // phase 24
  EXPECT_EQ(w::w1(2), 243072u);  // phase 25
  EXPECT_EQ(w::b1(2), 248192u);
  EXPECT_EQ(w::w2(2), 248256u);   // facts appendix §9: DOC4's P26
  EXPECT_EQ(w::w1(3), 253376u);   // DOC4's P27
  EXPECT_EQ(w::w1(19), 418240u);  // phase 59
  EXPECT_EQ(w::b1(19), 423360u);
  EXPECT_EQ(w::w2(19), 423424u);  // phase 60
  EXPECT_EQ(w::w61, 428544u);     // phase 61
  EXPECT_EQ(w::b61, 431104u);
  EXPECT_EQ(rrswin::kWeightImageBytes, 431136u);
}

TEST(WeightMap, RegionsTileTheImageExactly) {
  const auto regions = rrswin::weight_regions();
  ASSERT_EQ(regions.size(), 1u + 8u * 4u + 2u + 20u * 3u + 1u + 2u);  // 98
  std::uint32_t at = 0;
  std::set<std::string> names;
  for (const Region& r : regions) {
    EXPECT_EQ(r.begin, at) << r.name;
    EXPECT_LT(r.begin, r.end) << r.name;
    if (r.type == Region::Type::f16) {
      EXPECT_EQ(r.size() % 2, 0u) << r.name;
    }
    at = r.end;
    names.insert(r.name);
  }
  EXPECT_EQ(at, 431136u);
  EXPECT_EQ(names.size(), regions.size());
  // Sizes (facts E4): weights 5120 per 32x160 block, score bias 12288, tables 320, b1 64, b61 32.
  for (const Region& r : regions) {
    switch (r.role) {
      case Region::Role::wq:
      case Region::Role::wv:
      case Region::Role::wo:
      case Region::Role::w1:
      case Region::Role::w2: EXPECT_EQ(r.size(), 5120u) << r.name; break;
      case Region::Role::score_bias: EXPECT_EQ(r.size(), 12288u) << r.name; break;
      case Region::Role::g1:
      case Region::Role::g2:
      case Region::Role::t1:
      case Region::Role::t3: EXPECT_EQ(r.size(), 320u) << r.name; break;
      case Region::Role::b1: EXPECT_EQ(r.size(), 64u) << r.name; break;
      case Region::Role::w61: EXPECT_EQ(r.size(), 2560u) << r.name; break;
      case Region::Role::b61: EXPECT_EQ(r.size(), 32u) << r.name; break;
      case Region::Role::wm:
      case Region::Role::bm: ADD_FAILURE() << r.name << ": enc5 has no patch merge"; break;
      case Region::Role::unread:
      case Region::Role::we:
      case Region::Role::be:
      case Region::Role::wx:
      case Region::Role::bx: ADD_FAILURE() << r.name << ": enc5 has no front"; break;
    }
  }
}

std::string temp_path(const std::string& tag) {
  return (std::filesystem::temp_directory_path() / ("rrswin_wi_" + tag + "_" + std::to_string(::getpid()) + ".bin")).string();
}

void write_bytes(const std::string& path, std::size_t n) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::vector<char> zeros(n, 0);
  out.write(zeros.data(), static_cast<std::streamsize>(n));
}

TEST(WeightImage, AcceptsExactly431136Bytes) {
  EXPECT_NO_THROW(rrswin::WeightImage(std::vector<std::uint8_t>(431136, 0)));
  for (std::size_t n : {std::size_t{0}, std::size_t{431123}, std::size_t{431137}, std::size_t{862272}}) {
    EXPECT_THROW(rrswin::WeightImage(std::vector<std::uint8_t>(n, 0)), rrswin::InputError) << n;
  }
}

TEST(WeightImage, The431124ByteToolExtentIsRejectedWithAnExplanation) {
  const std::string path = temp_path("short");
  write_bytes(path, 431124);
  try {
    (void)rrswin::load_weight_image(path);
    FAIL() << "a 431124-byte file was accepted";
  } catch (const rrswin::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.offset(), 431124u);
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("431136"), std::string::npos) << what;
    EXPECT_NE(what.find("431124"), std::string::npos) << what;
    EXPECT_NE(what.find("last 12 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("b61"), std::string::npos) << what;
  }
  std::remove(path.c_str());
}

TEST(WeightImage, OtherWrongSizesNameFileOffsetAndSizes) {
  const std::string path = temp_path("long");
  write_bytes(path, 431140);
  try {
    (void)rrswin::load_weight_image(path);
    FAIL() << "a 431140-byte file was accepted";
  } catch (const rrswin::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.offset(), 431136u);  // the first byte beyond the image
    EXPECT_NE(what.find(path), std::string::npos);
    EXPECT_NE(what.find("431140 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("4 bytes too many"), std::string::npos) << what;
  }
  std::remove(path.c_str());
  EXPECT_THROW((void)rrswin::load_weight_image(temp_path("missing")), rrswin::InputError);
}

TEST(WeightImage, LoadRoundTripAndLittleEndianF16) {
  const std::string path = temp_path("ok");
  {
    std::vector<char> bytes(431136, 0);
    bytes[221504] = 0x00;
    bytes[221505] = 0x3C;  // T1[0] = 1.0 (0x3C00)
    bytes[431134] = 0x34;
    bytes[431135] = 0x12;
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const rrswin::WeightImage w = rrswin::load_weight_image(path);
  EXPECT_EQ(w.bytes().size(), 431136u);
  EXPECT_EQ(w.f16_at(221504), 0x3C00);
  EXPECT_EQ(w.f16_at(431134), 0x1234);
  EXPECT_THROW((void)w.f16_at(431135), std::out_of_range);
  std::remove(path.c_str());
}

TEST(RegionStatistics, CountsCodesAndClasses) {
  std::vector<std::uint8_t> b(431136, 0);
  // Wq[0] (e4m3): a few chosen codes, the rest 0x00.
  const std::uint32_t wq = rrswin::wmap::wq(0);
  b[wq + 0] = 0x7E;  // +448
  b[wq + 1] = 0xFE;  // -448
  b[wq + 2] = 0x7F;  // NaN
  b[wq + 3] = 0x80;  // -0
  b[wq + 4] = 0x01;  // 2^-9 (subnormal)
  b[wq + 5] = 0x38;  // 1.0
  // T1 (f16): Inf, NaN, a subnormal, 1.0, -2.0.
  auto put = [&b](std::uint32_t o, std::uint16_t h) {
    b[o] = h & 0xFF;
    b[o + 1] = h >> 8;
  };
  put(rrswin::wmap::t1 + 0, 0x7C00);
  put(rrswin::wmap::t1 + 2, 0x7E00);
  put(rrswin::wmap::t1 + 4, 0x0001);
  put(rrswin::wmap::t1 + 6, 0x3C00);
  put(rrswin::wmap::t1 + 8, 0xC000);
  const auto stats = rrswin::region_statistics(rrswin::WeightImage(std::move(b)));
  ASSERT_EQ(stats.size(), rrswin::weight_regions().size());
  const rrswin::RegionStats* q = nullptr;
  const rrswin::RegionStats* t1 = nullptr;
  for (const auto& s : stats) {
    if (s.region.name == "Wq[0]") q = &s;
    if (s.region.name == "T1") t1 = &s;
  }
  ASSERT_TRUE(q && t1);
  EXPECT_EQ(q->count, 5120u);
  EXPECT_EQ(q->histogram.size(), 256u);
  EXPECT_EQ(q->histogram[0x7E], 1u);
  EXPECT_EQ(q->histogram[0x00], 5120u - 6u);
  EXPECT_EQ(q->saturated, 2u);
  EXPECT_EQ(q->nan, 1u);
  EXPECT_EQ(q->zero, 5120u - 6u + 1u);
  EXPECT_EQ(q->subnormal, 1u);
  EXPECT_EQ(q->min, -448.0);
  EXPECT_EQ(q->max, 448.0);
  EXPECT_EQ(t1->count, 160u);
  EXPECT_TRUE(t1->histogram.empty());
  EXPECT_EQ(t1->inf, 1u);
  EXPECT_EQ(t1->nan, 1u);
  EXPECT_EQ(t1->subnormal, 1u);
  EXPECT_EQ(t1->zero, 160u - 5u);
  EXPECT_EQ(t1->min, -2.0);
  EXPECT_EQ(t1->max, 1.0);
}

}  // namespace
