// The phase program against the spec's own table. Every expected value below is TYPED from the
// spec (rrswin_enc5_epilogues.md §2.1 rows, §2.2 shapes) or from the facts digest (C1-note stride),
// never computed by the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/phase_program.hpp"
#include "model/weight_image.hpp"

namespace {

using rrswin::OperandSource;
using rrswin::Phase;

// One printed row of spec §2.1. weight/bias 0..0 = "(none)" / "–".
struct SpecRow {
  int number;
  const char* stmts;
  int m, n, k, mma;
  bool band;
  unsigned w_begin, w_end, b_begin, b_end;
  int epi;
};

// spec §2.1, every row it prints (the "…" rows 26..58 are tested separately below).
const SpecRow kSpecRows[] = {
    {1, "s7554-s7577", 96, 32, 32, 24, false, 320, 844, 0, 0, 7},
    {2, "s7585-s7608", 96, 32, 32, 24, false, 5440, 5964, 0, 0, 7},
    {3, "s7616-s7639", 96, 32, 32, 24, false, 1344, 1868, 0, 0, 7},
    {4, "s7647-s7670", 96, 32, 32, 24, false, 6464, 6988, 0, 0, 7},
    {5, "s7678-s7701", 96, 32, 32, 24, false, 2368, 2892, 0, 0, 7},
    {6, "s7709-s7732", 96, 32, 32, 24, false, 7488, 8012, 0, 0, 7},
    {7, "s7740-s7763", 96, 32, 32, 24, false, 3392, 3916, 0, 0, 7},
    {8, "s7771-s7794", 96, 32, 32, 24, false, 8512, 9036, 0, 0, 7},
    {9, "s7802-s7825", 96, 32, 32, 24, false, 4416, 4940, 0, 0, 7},
    {10, "s7833-s7856", 96, 32, 32, 24, false, 9536, 10060, 0, 0, 171},
    {11, "s8028-s8075", 64, 96, 32, 48, false, 0, 0, 10560, 22348, 3844},
    {12, "s11920-s11967", 192, 96, 96, 48, true, 0, 0, 0, 0, 274},
    {13, "s12242-s12261", 16, 160, 32, 20, false, 22848, 27468, 0, 0, 27},
    {14, "s12289-s12308", 16, 160, 32, 20, false, 50496, 55116, 0, 0, 27},
    {15, "s12336-s12355", 16, 160, 32, 20, false, 78144, 82764, 0, 0, 27},
    {16, "s12383-s12402", 16, 160, 32, 20, false, 105792, 110412, 0, 0, 27},
    {17, "s12430-s12449", 16, 160, 32, 20, false, 133440, 138060, 0, 0, 27},
    {18, "s12477-s12496", 16, 160, 32, 20, false, 161088, 165708, 0, 0, 27},
    {19, "s12524-s12543", 16, 160, 32, 20, false, 188736, 193356, 0, 0, 27},
    {20, "s12571-s12590", 16, 160, 32, 20, false, 216384, 221004, 0, 0, 1029},
    {21, "s13620-s13639", 80, 160, 160, 20, true, 222144, 226764, 227264, 227312, 321},
    {22, "s13961-s13980", 16, 160, 32, 20, false, 227328, 231948, 0, 0, 92},
    {23, "s14073-s14092", 80, 160, 160, 20, true, 232768, 237388, 237888, 237936, 172},
    {24, "s14265-s14284", 16, 160, 32, 20, false, 237952, 242572, 0, 0, 92},
    {25, "s14377-s14396", 80, 160, 160, 20, true, 243072, 247692, 248192, 248240, 172},
    {59, "s19545-s19564", 80, 160, 160, 20, true, 418240, 422860, 423360, 423408, 172},
    {60, "s19737-s19756", 16, 160, 32, 20, false, 423424, 428044, 0, 0, 299},
    {61, "s20056-s20065", 80, 80, 160, 10, true, 428544, 430604, 431104, 431120, 234},
};

TEST(PhaseProgram, HasSixtyOnePhasesInOrder) {
  const auto& prog = rrswin::phase_program();
  ASSERT_EQ(prog.size(), 61u);
  for (int p = 1; p <= 61; ++p) {
    EXPECT_EQ(prog[p - 1].number, p);
    EXPECT_EQ(&rrswin::phase(p), &prog[p - 1]);
  }
  EXPECT_THROW(rrswin::phase(0), std::out_of_range);
  EXPECT_THROW(rrswin::phase(62), std::out_of_range);
}

TEST(PhaseProgram, ReproducesEveryPrintedRowOfSpecTable) {
  for (const SpecRow& r : kSpecRows) {
    SCOPED_TRACE("phase " + std::to_string(r.number));
    const Phase& p = rrswin::phase(r.number);
    EXPECT_EQ(std::string(p.stmt_range), r.stmts);
    EXPECT_EQ(p.tool.m, r.m);
    EXPECT_EQ(p.tool.n, r.n);
    EXPECT_EQ(p.tool.k, r.k);
    EXPECT_EQ(p.mma, r.mma);
    EXPECT_EQ(p.band, r.band);
    EXPECT_EQ(p.weight_begin, r.w_begin);
    EXPECT_EQ(p.weight_end, r.w_end);
    EXPECT_EQ(p.bias_begin, r.b_begin);
    EXPECT_EQ(p.bias_end, r.b_end);
    EXPECT_EQ(p.epilogue_statements, r.epi);
    // "(none)" in the weight column <=> the phase's B is not read from W (spec §2.4).
    EXPECT_EQ(p.b == OperandSource::weights, r.w_end != 0);
    EXPECT_EQ(p.c == OperandSource::weights, r.b_end != 0);
  }
}

// The "…" rows: "the 23/24 pair repeats with a fixed stride" (spec §2.1). The stride is 10304
// (facts C1-note: 5120 + 64 + 5120), which the printed rows 25, 59 and 60 confirm, and DOC5's
// prose formula with 10240 contradicts.
unsigned odd_weight_10304(int n) { return 232768u + 10304u * static_cast<unsigned>(n - 23) / 2u; }
unsigned even_weight_10304(int n) { return 237952u + 10304u * static_cast<unsigned>(n - 24) / 2u; }
unsigned odd_weight_doc5(int n) { return 243072u + 10240u * static_cast<unsigned>(n - 23) / 2u; }  // as printed
unsigned odd_bias_doc5(int n) { return 248192u + 10240u * static_cast<unsigned>(n - 23) / 2u; }
unsigned even_weight_doc5(int n) { return 237952u + 10240u * static_cast<unsigned>(n - 24) / 2u; }

TEST(PhaseProgram, MlpStrideIs10304NotDoc5s10240) {
  // The table's rows are spec §2.1's printed ones (23, 24, 25, 59, 60 are printed; the rest is
  // elided), and DOC5's 10240 formula misses them: the table, not this file's helpers, is tested.
  EXPECT_EQ(rrswin::phase(25).weight_begin, 243072u);
  EXPECT_EQ(rrswin::phase(59).weight_begin, 418240u);
  EXPECT_EQ(rrswin::phase(59).bias_begin, 423360u);  // C of phase 59
  EXPECT_EQ(rrswin::phase(60).weight_begin, 423424u);
  EXPECT_NE(odd_weight_doc5(25), rrswin::phase(25).weight_begin);  // DOC5's formula as written is off already at 25
  EXPECT_NE(odd_weight_doc5(59), rrswin::phase(59).weight_begin);
  EXPECT_NE(odd_bias_doc5(59), rrswin::phase(59).bias_begin);
  EXPECT_NE(even_weight_doc5(60), rrswin::phase(60).weight_begin);
  // Even the charitable reading (phase 23's base, stride 10240) misses row 59.
  EXPECT_NE(rrswin::phase(23).weight_begin + 10240u * 18u, rrswin::phase(59).weight_begin);
  EXPECT_EQ(rrswin::kMlpChunkStride, 10304u);

  // Every elided row 26..58 follows the 10304 stride; the statements repeat every 304 (the pair
  // 23/24 spans 20 + 172 + 20 + 92 statements: rows 23 -> 25 -> 59 of spec §2.1).
  for (int n = 26; n <= 58; ++n) {
    SCOPED_TRACE("phase " + std::to_string(n));
    const Phase& p = rrswin::phase(n);
    EXPECT_EQ(p.mma, 20);
    if (n % 2) {
      EXPECT_EQ(p.weight_begin, odd_weight_10304(n));
      EXPECT_EQ(p.weight_end, odd_weight_10304(n) + 4620u);
      EXPECT_EQ(p.bias_begin, odd_weight_10304(n) + 5120u);
      EXPECT_EQ(p.bias_end, odd_weight_10304(n) + 5120u + 48u);
      EXPECT_EQ(p.stmt_first, 14073 + 304 * (n - 23) / 2);
      EXPECT_EQ(p.epilogue_statements, 172);
      EXPECT_TRUE(p.band);
      EXPECT_EQ(p.tool.m, 80);
      EXPECT_EQ(p.tool.n, 160);
      EXPECT_EQ(p.tool.k, 160);
    } else {
      EXPECT_EQ(p.weight_begin, even_weight_10304(n));
      EXPECT_EQ(p.weight_end, even_weight_10304(n) + 4620u);
      EXPECT_EQ(p.bias_begin, 0u);
      EXPECT_EQ(p.bias_end, 0u);
      EXPECT_EQ(p.stmt_first, 14265 + 304 * (n - 24) / 2);
      EXPECT_EQ(p.epilogue_statements, 92);
      EXPECT_FALSE(p.band);
      EXPECT_EQ(p.tool.m, 16);
      EXPECT_EQ(p.tool.n, 160);
      EXPECT_EQ(p.tool.k, 32);
    }
    EXPECT_EQ(p.stmt_last, p.stmt_first + 19);
  }
}

// spec §0: an epilogue is everything between one phase's last mma and the next phase's first.
TEST(PhaseProgram, StatementRangesChainThroughEpilogues) {
  const auto& prog = rrswin::phase_program();
  EXPECT_EQ(prog[0].stmt_first, 7554);  // facts A1: mma region s7554..s20065
  EXPECT_EQ(prog[60].stmt_last, 20065);
  EXPECT_EQ(prog[60].stmt_last + prog[60].epilogue_statements, 20299);  // spec E61: ret at s20299
  for (int i = 0; i + 1 < 61; ++i)
    EXPECT_EQ(prog[i + 1].stmt_first, prog[i].stmt_last + prog[i].epilogue_statements + 1) << "after phase " << i + 1;
}

// spec §2.2: the corrected shapes, M/16 * N/8 * K/32 == mma, total 1306.
TEST(PhaseProgram, CorrectedShapesMatchMmaCounts) {
  struct Expect {
    int first, last, step, m, n, k, mma;
  };
  const Expect rows[] = {
      {1, 10, 1, 96, 32, 32, 24},   {11, 11, 1, 64, 96, 32, 48},  {12, 12, 1, 64, 32, 96, 48},  {13, 20, 1, 16, 160, 32, 20},
      {21, 59, 2, 16, 32, 160, 20}, {22, 60, 2, 16, 160, 32, 20}, {61, 61, 1, 16, 16, 160, 10},
  };
  int total = 0, covered = 0;
  for (const Expect& e : rows) {
    for (int p = e.first; p <= e.last; p += e.step) {
      SCOPED_TRACE("phase " + std::to_string(p));
      const Phase& ph = rrswin::phase(p);
      EXPECT_EQ(ph.real.m, e.m);
      EXPECT_EQ(ph.real.n, e.n);
      EXPECT_EQ(ph.real.k, e.k);
      EXPECT_EQ(ph.mma, e.mma);
      EXPECT_EQ(ph.m_tiles, e.m / 16);
      EXPECT_EQ(ph.n_tiles, e.n / 8);
      EXPECT_EQ(ph.k_steps, e.k / 32);
      EXPECT_EQ((e.m / 16) * (e.n / 8) * (e.k / 32), e.mma);
      total += e.mma;
      ++covered;
    }
  }
  EXPECT_EQ(covered, 61);
  EXPECT_EQ(total, 1306);
  EXPECT_EQ(rrswin::kMmaTotal, 1306);
  // facts A1 count check, group by group of the table: 10x24 + 48 + 48 + 8x20 + 40x20 + 10.
  auto mma_of = [](int first, int last) {
    int n = 0;
    for (int p = first; p <= last; ++p) n += rrswin::phase(p).mma;
    return n;
  };
  EXPECT_EQ(mma_of(1, 10), 10 * 24);
  EXPECT_EQ(mma_of(11, 11), 48);
  EXPECT_EQ(mma_of(12, 12), 48);
  EXPECT_EQ(mma_of(13, 20), 8 * 20);
  EXPECT_EQ(mma_of(21, 60), 40 * 20);
  EXPECT_EQ(mma_of(61, 61), 10);
}

// spec §2.2: the tool's M/N/K products fail exactly for the banded phases (12, 21, 23, …, 59, 61).
// NOTE: spec §2.2 says "53 of the 61 … the eight failures"; its own rows give 22 failures
// (12, the twenty odd MLP phases, 61), i.e. 39 phases hold. See docs/readings.md §4.
TEST(PhaseProgram, ToolShapesFailExactlyForBandedPhases) {
  std::set<int> expected_fail = {12, 61};
  for (int p = 21; p <= 59; p += 2) expected_fail.insert(p);
  std::set<int> failing;
  for (const Phase& p : rrswin::phase_program()) {
    const int product = (p.tool.m / 16) * (p.tool.n / 8) * (p.tool.k / 32);
    if (product != p.mma) failing.insert(p.number);
    EXPECT_EQ(p.band, expected_fail.count(p.number) == 1) << "phase " << p.number;
  }
  EXPECT_EQ(failing, expected_fail);
  EXPECT_EQ(failing.size(), 22u);
  // The spec's worked products: 432 (P12), 500 (odd MLP), 250 (P61).
  const Phase& p12 = rrswin::phase(12);
  EXPECT_EQ((p12.tool.m / 16) * (p12.tool.n / 8) * (p12.tool.k / 32), 432);
  const Phase& p21 = rrswin::phase(21);
  EXPECT_EQ((p21.tool.m / 16) * (p21.tool.n / 8) * (p21.tool.k / 32), 500);
  const Phase& p61 = rrswin::phase(61);
  EXPECT_EQ((p61.tool.m / 16) * (p61.tool.n / 8) * (p61.tool.k / 32), 250);
}

// facts C1: operand sources and chaining.
TEST(PhaseProgram, OperandSourcesAndChains) {
  for (int p = 1; p <= 10; ++p) {
    const Phase& ph = rrswin::phase(p);
    EXPECT_EQ(ph.a, OperandSource::staged_input);
    EXPECT_EQ(ph.b, OperandSource::weights);
    EXPECT_EQ(ph.c, p <= 2 ? OperandSource::zero : OperandSource::previous_d);
    EXPECT_EQ(ph.c_chain_from, p <= 2 ? 0 : p - 2);
    EXPECT_TRUE(ph.relative_to_slot);
    EXPECT_EQ(ph.warps, 8);
  }
  EXPECT_EQ(rrswin::phase(11).c, OperandSource::weights);
  EXPECT_EQ(rrswin::phase(11).b, OperandSource::registers);
  EXPECT_TRUE(rrswin::phase(11).relative_to_slot);
  EXPECT_EQ(rrswin::phase(12).c, OperandSource::zero);
  EXPECT_EQ(rrswin::phase(12).b, OperandSource::registers);
  EXPECT_FALSE(rrswin::phase(12).relative_to_slot);
  EXPECT_EQ(rrswin::phase(12).warps, 8);
  for (int p = 13; p <= 20; ++p) {
    const Phase& ph = rrswin::phase(p);
    EXPECT_EQ(ph.a, OperandSource::shared_heads);
    EXPECT_EQ(ph.head, p - 13);
    EXPECT_EQ(ph.c, p == 13 ? OperandSource::registers : OperandSource::previous_d);
    EXPECT_EQ(ph.c_chain_from, p == 13 ? 0 : p - 1);
    EXPECT_EQ(ph.warps, 4);
  }
  for (int p = 21; p <= 60; ++p) {
    const Phase& ph = rrswin::phase(p);
    EXPECT_EQ(ph.chunk, (p - 21) / 2);
    EXPECT_EQ(ph.head, -1);
    if (p % 2) {
      EXPECT_EQ(ph.kind, rrswin::PhaseKind::mlp_up);
      EXPECT_EQ(ph.c, OperandSource::weights);
    } else {
      EXPECT_EQ(ph.kind, rrswin::PhaseKind::mlp_down);
      EXPECT_EQ(ph.c, p == 22 ? OperandSource::registers : OperandSource::previous_d);
      EXPECT_EQ(ph.c_chain_from, p == 22 ? 0 : p - 2);
    }
  }
  EXPECT_EQ(rrswin::phase(61).c, OperandSource::weights);
  EXPECT_EQ(rrswin::phase(61).chunk, -1);
}

// The bytes really read (all lanes): phases 1..10 two 512-byte tiles of the slot; every other
// weight/bias read covers exactly one region of the map; together with the four column tables
// (g1, T1, g2, T3) they cover the whole image once.
TEST(PhaseProgram, ExtentsCoverTheImageExactlyOnce) {
  using rrswin::ByteRange;
  EXPECT_EQ(rrswin::weight_extent(rrswin::phase(1), 0).begin, 320u);
  EXPECT_EQ(rrswin::weight_extent(rrswin::phase(1), 0).end, 1344u);
  EXPECT_EQ(rrswin::weight_extent(rrswin::phase(2), 3).begin, 3u * 27648u + 5440u);
  EXPECT_EQ(rrswin::bias_extent(rrswin::phase(11), 7).begin, 7u * 27648u + 10560u);
  EXPECT_EQ(rrswin::bias_extent(rrswin::phase(11), 7).size(), 12288u);
  EXPECT_EQ(rrswin::weight_extent(rrswin::phase(12)).size(), 0u);
  EXPECT_EQ(rrswin::bias_extent(rrswin::phase(61)).end, 431136u);  // facts E1
  EXPECT_EQ(rrswin::bias_extent(rrswin::phase(21)).end, 227328u);

  std::vector<ByteRange> ranges;
  for (const Phase& p : rrswin::phase_program()) {
    const int slots = p.relative_to_slot ? 8 : 1;
    for (int z = 0; z < slots; ++z) {
      if (const ByteRange r = rrswin::weight_extent(p, z); r.size()) ranges.push_back(r);
      if (const ByteRange r = rrswin::bias_extent(p, z); r.size()) ranges.push_back(r);
    }
  }
  // The per-column tables, read with W + 4t + imm (spec §4.1): 160 f16 each.
  for (unsigned t : {0u, 221504u, 221824u, 232448u}) ranges.push_back({t, t + 320u});
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  std::uint32_t at = 0;
  for (const ByteRange& r : ranges) {
    EXPECT_EQ(r.begin, at) << "gap or overlap before " << r.begin;
    at = r.end;
  }
  EXPECT_EQ(at, 431136u);
  EXPECT_EQ(at, rrswin::kWeightImageBytes);

  // The spec tool's extent (§2.3): largest printed end + 4 = 431124.
  std::uint32_t tool_max = 0;
  for (const Phase& p : rrswin::phase_program()) tool_max = std::max({tool_max, p.weight_end, p.bias_end});
  EXPECT_EQ(tool_max + 4u, 431124u);
  EXPECT_EQ(rrswin::kSpecToolImageBytes, 431124u);
}

TEST(PhaseProgram, HeadSlotsAreEightTimes27648) {
  // facts A2/H1: eight warps = eight heads; phases 13..20 read Wo of slots 0..7 at 22848 + 27648j.
  EXPECT_EQ(rrswin::kHeadSlotBytes, 27648u);
  for (int j = 0; j < 8; ++j) EXPECT_EQ(rrswin::phase(13 + j).weight_begin, 22848u + 27648u * j);
  EXPECT_EQ(rrswin::phase(20).weight_begin + 5120u, 221504u);  // slot 7's Wo ends where T1 starts
}

TEST(PhaseProgram, AKOffsetAndLookupsByHeadAndChunk) {
  // facts C2: phases 1..10 read staged k-slice (p-1)/2: A from k = 0, 0, 32, 32, ..., 128, 128.
  const int expected_k0[11] = {0, 0, 0, 32, 32, 64, 64, 96, 96, 128, 128};
  for (int p = 1; p <= 10; ++p) EXPECT_EQ(rrswin::phase(p).a_k0, expected_k0[p]) << "phase " << p;
  for (int p = 11; p <= 61; ++p) EXPECT_EQ(rrswin::phase(p).a_k0, 0) << "phase " << p;
  // The lookups find spec §2.2's numbering: 13 + head, 21 + 2 chunk, 22 + 2 chunk.
  for (int h = 0; h < 8; ++h) EXPECT_EQ(rrswin::out_projection_phase(h).number, 13 + h);
  for (int c = 0; c < 20; ++c) {
    EXPECT_EQ(rrswin::mlp_up_phase(c).number, 21 + 2 * c);
    EXPECT_EQ(rrswin::mlp_down_phase(c).number, 22 + 2 * c);
  }
  EXPECT_THROW(rrswin::out_projection_phase(8), std::out_of_range);
  EXPECT_THROW(rrswin::mlp_up_phase(-1), std::out_of_range);
  EXPECT_THROW(rrswin::mlp_down_phase(20), std::out_of_range);
}

}  // namespace
