// The layer template (model/layer_spec.hpp, model/layer_program.hpp) against d4r's public documents of eight more
// layers: enc0, enc1, enc2, dec4, dec3, dec2, dec1, dec0 (repository countervolts/d4r, kernels/rr/). Every expected
// value is TYPED from a document, never computed by the code under test. Labels as in model/layer_spec.cpp:
// DOC-x = rrswin_<x>_epilogues.md, DESC-x = descriptor_<x>.py, REC-x = swin_<x>_recipe.py, HIP-x = rrswin_<x>.hip.
//   * DOC-e1 §2.1, DOC-e2 §2.2, DOC-d2 §5, DOC-d1 §5 and DOC-d0 §2.1 print a phase table; DOC-e0, DOC-d3 and DOC-d4
//     print none, and their rows here are rebuilt from the statement ranges and offsets those docs print in prose
//     (each such table says which columns are derived).
//   * In every table NP (-1) or "" is a value the document does not print: it is not compared. A printed "none"
//     weight or "–" bias column is 0, 0 (model/phase_program.hpp's convention).
//   * Where a document contradicts itself, the test asserts the side its other statements support, EXPECT_NEs the
//     other and cites both.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "model/layer_program.hpp"
#include "model/layer_spec.hpp"
#include "model/phase_program.hpp"

namespace {

using rrswin::LayerId;
using rrswin::OperandSource;
using rrswin::Phase;

constexpr long long NP = -1;  // not printed: not compared

std::uint32_t u32(long long v) { return static_cast<std::uint32_t>(v); }

// One row of a phase table as the document prints it: # | stmts | the tool's M, N, K | mma | band marker (1 "band" /
// "**no**" / dense=False, 0 "full" / "yes" / dense=True) | weight bytes "a..b" | bias bytes "a..b" | epi. The byte
// columns are the tool's (rr_layer_spec.py): first load immediate .. last v4 immediate + 12 (or last u32 record
// immediate), lane 0, tid.z = 0.
struct Row {
  int number;
  const char* stmts;
  int m, n, k;
  int mma;
  int band;
  long long w_begin, w_end;
  long long b_begin, b_end;
  int epi;
};

// A corrected ("real") shape a document states, with the chain count (output tiles) and chain length (k-steps)
// where it states them.
struct Real {
  int number;
  int m, n, k;
  int chains, k_steps;
};

// Load immediates (lane 0, tid.z = 0) a document prints in prose: the first and last v4 B load, the first and last
// u32 C record. The tool's column is first..last + 12 for v4 loads and first..last for records
// (model/phase_program.hpp), so weight_end is compared with w_last + 12 and bias_end with b_last.
struct Loads {
  int number;
  long long w_first, w_last, b_first, b_last;
};

// Half-open byte ranges over all 32 lanes ("[a, b)") a document prints, against layer_weight_extent() /
// layer_bias_extent() for tid.z = 0. 0, 0: the phase reads no such operand from W.
struct Extent {
  int number;
  long long w_begin, w_end, b_begin, b_end;
};

const Phase* phase_or_fail(const rrswin::LayerProgram& prog, int number) {
  if (number < 1 || number > static_cast<int>(prog.phases.size())) {
    ADD_FAILURE() << prog.spec->name << " has no phase " << number << " (" << prog.phases.size() << " phases)";
    return nullptr;
  }
  return &prog.phase(number);
}

template <std::size_t N>
void expect_rows(LayerId id, const Row (&rows)[N]) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  for (const Row& r : rows) {
    SCOPED_TRACE(std::string(prog.spec->name) + " phase " + std::to_string(r.number));
    const Phase* p = phase_or_fail(prog, r.number);
    if (p == nullptr) continue;
    EXPECT_EQ(p->number, r.number);
    if (*r.stmts != '\0') {
      EXPECT_EQ(p->stmt_range, std::string_view(r.stmts));
      int first = 0, last = 0;
      ASSERT_EQ(std::sscanf(r.stmts, "s%d-s%d", &first, &last), 2) << r.stmts;
      EXPECT_EQ(p->stmt_first, first);
      EXPECT_EQ(p->stmt_last, last);
    }
    if (r.m >= 0) {
      EXPECT_EQ(p->tool.m, r.m);
    }
    if (r.n >= 0) {
      EXPECT_EQ(p->tool.n, r.n);
    }
    if (r.k >= 0) {
      EXPECT_EQ(p->tool.k, r.k);
    }
    if (r.mma >= 0) {
      EXPECT_EQ(p->mma, r.mma);
    }
    if (r.band >= 0) {
      EXPECT_EQ(p->band, r.band == 1);
    }
    if (r.w_end >= 0) {
      EXPECT_EQ(p->weight_begin, u32(r.w_begin));
      EXPECT_EQ(p->weight_end, u32(r.w_end));
      EXPECT_EQ(p->b == OperandSource::weights, r.w_end != 0);
    }
    if (r.b_end >= 0) {
      EXPECT_EQ(p->bias_begin, u32(r.b_begin));
      EXPECT_EQ(p->bias_end, u32(r.b_end));
      EXPECT_EQ(p->c == OperandSource::weights, r.b_end != 0);
    }
    if (r.epi >= 0) {
      EXPECT_EQ(p->epilogue_statements, r.epi);
    }
  }
}

template <std::size_t N>
void expect_real(LayerId id, const Real (&rows)[N]) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  for (const Real& r : rows) {
    SCOPED_TRACE(std::string(prog.spec->name) + " phase " + std::to_string(r.number) + " (real shape)");
    const Phase* p = phase_or_fail(prog, r.number);
    if (p == nullptr) continue;
    if (r.m >= 0) {
      EXPECT_EQ(p->real.m, r.m);
    }
    if (r.n >= 0) {
      EXPECT_EQ(p->real.n, r.n);
    }
    if (r.k >= 0) {
      EXPECT_EQ(p->real.k, r.k);
    }
    if (r.chains >= 0) {
      EXPECT_EQ(p->m_tiles * p->n_tiles, r.chains);
    }
    if (r.k_steps >= 0) {
      EXPECT_EQ(p->k_steps, r.k_steps);
    }
    EXPECT_EQ(p->m_tiles * p->n_tiles * p->k_steps, p->mma);
  }
}

template <std::size_t N>
void expect_loads(LayerId id, const Loads (&rows)[N]) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  for (const Loads& r : rows) {
    SCOPED_TRACE(std::string(prog.spec->name) + " phase " + std::to_string(r.number) + " (load immediates)");
    const Phase* p = phase_or_fail(prog, r.number);
    if (p == nullptr) continue;
    if (r.w_first >= 0) {
      EXPECT_EQ(p->b, OperandSource::weights);
      EXPECT_EQ(p->weight_begin, u32(r.w_first));
    }
    if (r.w_last >= 0) {
      EXPECT_EQ(p->weight_end, u32(r.w_last) + 12u);
    }
    if (r.b_first >= 0) {
      EXPECT_EQ(p->c, OperandSource::weights);
      EXPECT_EQ(p->bias_begin, u32(r.b_first));
    }
    if (r.b_last >= 0) {
      EXPECT_EQ(p->bias_end, u32(r.b_last));
    }
  }
}

template <std::size_t N>
void expect_extents(LayerId id, const Extent (&rows)[N]) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  const rrswin::LayerSpec& s = *prog.spec;
  for (const Extent& r : rows) {
    SCOPED_TRACE(std::string(s.name) + " phase " + std::to_string(r.number) + " (byte extent)");
    const Phase* p = phase_or_fail(prog, r.number);
    if (p == nullptr) continue;
    if (r.w_end >= 0) {
      const rrswin::ByteRange e = rrswin::layer_weight_extent(s, *p, 0);
      EXPECT_EQ(e.begin, u32(r.w_begin));
      EXPECT_EQ(e.end, u32(r.w_end));
      EXPECT_EQ(p->b == OperandSource::weights, r.w_end != 0);
    }
    if (r.b_end >= 0) {
      const rrswin::ByteRange e = rrswin::layer_bias_extent(s, *p, 0);
      EXPECT_EQ(e.begin, u32(r.b_begin));
      EXPECT_EQ(e.end, u32(r.b_end));
      EXPECT_EQ(p->c == OperandSource::weights, r.b_end != 0);
    }
  }
}

// The tool's band rule (rr_layer_spec.py geom(): "band" iff mma != |A| * |B| * chain length) where a document prints
// the corrected shape but not the marker: for these rows it is real K > 32 (more than one k-step per chain).
template <std::size_t N>
void expect_band_rule(LayerId id, const Real (&rows)[N]) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  for (const Real& r : rows) {
    SCOPED_TRACE(std::string(prog.spec->name) + " phase " + std::to_string(r.number) + " (band rule)");
    const Phase* p = phase_or_fail(prog, r.number);
    if (p != nullptr && r.k >= 0) {
      EXPECT_EQ(p->band, r.k > 32);
    }
  }
}

const Phase& ph(LayerId id, int number) { return rrswin::layer_program(id).phase(number); }
const rrswin::LayerSpec& spec(LayerId id) { return rrswin::layer_spec(id); }

// ================================================================================================================
// 1. Phase counts and mma totals
// ================================================================================================================

TEST(NetworkLayers, PhaseCountsAndMmaTotalsAsStated) {
  struct Count {
    LayerId id;
    std::size_t phases;
    int mma;
  };
  const Count counts[] = {
      // DOC-e0 states neither number (its title covers "phases 5...22", E22 is its last epilogue): DESC-e0
      // phases() "22 runs, 536 mma"; HIP-e0 header "the 536 mma of the 22 phases".
      {LayerId::enc0, 22, 536},
      // DOC-e1 title "phases 1...32", §2.1 has 32 rows (their mma column sums to 1072); REC-e1 docstring "1072
      // `mma.sync` in 32 phases".
      {LayerId::enc1, 32, 1072},
      // DOC-e2 title "phases 1...38", §2.1 "The 38 epilogues"; REC-e2 docstring / HIP-e2 header "the 630 mma of the
      // 38 phases" (DOC-e2 does not state the total).
      {LayerId::enc2, 38, 630},
      // DOC-d4 §2 "62 phases, 1606 mma, 24447 statements" (also REC-d4, HIP-d4).
      {LayerId::dec4, 62, 1606},
      // DOC-d3 §2 "48 phases, 1112 mma" (also HIP-d3).
      {LayerId::dec3, 48, 1112},
      // DOC-d2 title "phases 1...38", §5 has 38 rows; the total only in REC-d2 ("726 mma", s452-s15510) and HIP-d2
      // ("726 mma in 38 phases").
      {LayerId::dec2, 38, 726},
      // DOC-d1 title "phases 1...26", §5 has 26 rows; the total only in HIP-d1 ("the whole 26-phase mma region, 632
      // mma").
      {LayerId::dec1, 26, 632},
      // DOC-d0 §2.1 "rr_layer_spec.py dec0 prints 19 phases"; the total only in REC-d0 ("544 mma in 19 phases") and
      // HIP-d0 ("the 544 mma of the 19 phases").
      {LayerId::dec0, 19, 544},
  };
  for (const Count& c : counts) {
    const rrswin::LayerProgram& prog = rrswin::layer_program(c.id);
    SCOPED_TRACE(std::string(prog.spec->name));
    EXPECT_EQ(prog.phases.size(), c.phases);
    EXPECT_EQ(prog.spec->phase_count(), static_cast<int>(c.phases));
    EXPECT_EQ(prog.mma_total, c.mma);
  }
}

// ================================================================================================================
// 2. enc0 (DOC-e0 prints no phase table)
// ================================================================================================================

// DOC-e0 §2 (kernels/rr/rrswin_enc0_epilogues.md) prints an EPILOGUE table for E5..E22 only, no phase table. Rows
// DERIVED FROM THE DOC'S EPILOGUE RANGES: phase n = end of E(n-1) + 1 .. start of E(n) - 1; stated outright for
// phase 5 (§3/E5 "48 mma (s3935-s3982)"), 6 (§6/U5 "s7826-s7873"), 8 (§3/E9 "s8057-s8080") and 21 (§3/E20(c) "32 mma
// at s16418-s16449"); phases 1-4 are outside the doc. mma: DESC-e0 phases() (each derived range has that length).
// M/N/K: only phase 6's, quoted by §6/U5 ("M=192 N=96 K=96"); band never printed. epi: DOC-e0 §2 "stmts" of E<n>.
const Row kEnc0Rows[] = {
    {1, "", NP, NP, NP, 24, NP, NP, NP, NP, NP, NP},
    {2, "", NP, NP, NP, 24, NP, NP, NP, NP, NP, NP},
    {3, "", NP, NP, NP, 24, NP, NP, NP, NP, NP, NP},
    {4, "", NP, NP, NP, 24, NP, NP, NP, NP, NP, NP},
    {5, "s3935-s3982", NP, NP, NP, 48, NP, NP, NP, NP, NP, 3843},
    {6, "s7826-s7873", 192, 96, 96, 48, NP, NP, NP, NP, NP, 160},
    {7, "s8034-s8049", NP, NP, NP, 16, NP, NP, NP, NP, NP, 7},
    {8, "s8057-s8080", NP, NP, NP, 24, NP, NP, NP, NP, NP, 7},
    {9, "s8088-s8111", NP, NP, NP, 24, NP, NP, NP, NP, NP, 171},
    {10, "s8283-s8330", NP, NP, NP, 48, NP, NP, NP, NP, NP, 3838},
    {11, "s12169-s12216", NP, NP, NP, 48, NP, NP, NP, NP, NP, 55},
    {12, "s12272-s12287", NP, NP, NP, 16, NP, NP, NP, NP, NP, 887},
    {13, "s13175-s13190", NP, NP, NP, 16, NP, NP, NP, NP, NP, 709},
    {14, "s13900-s13915", NP, NP, NP, 16, NP, NP, NP, NP, NP, 64},
    {15, "s13980-s13995", NP, NP, NP, 16, NP, NP, NP, NP, NP, 600},
    {16, "s14596-s14611", NP, NP, NP, 16, NP, NP, NP, NP, NP, 64},
    {17, "s14676-s14691", NP, NP, NP, 16, NP, NP, NP, NP, NP, 600},
    {18, "s15292-s15307", NP, NP, NP, 16, NP, NP, NP, NP, NP, 64},
    {19, "s15372-s15387", NP, NP, NP, 16, NP, NP, NP, NP, NP, 600},
    {20, "s15988-s16003", NP, NP, NP, 16, NP, NP, NP, NP, NP, 414},
    {21, "s16418-s16449", NP, NP, NP, 32, NP, NP, NP, NP, NP, 157},
    {22, "s16607-s16614", NP, NP, NP, 8, NP, NP, NP, NP, NP, 608},
};

// Corrected shapes: DOC-e0 §6/U5 phase 6 = "64x32 = (64x96)(96x32), three k-steps of 32"; HIP-e0's comment above
// band21(): phase 21 is 16 rows x 64 columns, K = 128 in four 32-wide steps (DESC-e0 phases() agrees).
const Real kEnc0Real[] = {
    {6, 64, 32, 96, NP, 3},
    {21, 16, 64, 128, NP, 4},
};

// DESC-e0 WEIGHTS/BIAS and HIP-e0's trailing "Weight image layout of the 22 phases" (half-open, lane stride
// included); DOC-e0 §3's load offsets confirm every one (see kEnc0Loads). P5/P10: the C score-bias tables (DOC-e0
// §3/E9, §4; HIP-e0): B comes from registers, although DESC-e0 also lists them in WEIGHTS (the extractor's C3). P6,
// P11: "none (B from registers)".
const Extent kEnc0Extents[] = {
    {1, 4096, 5120, 5120, 5184},
    {2, 5184, 6208, 6208, 6272},
    {3, 6336, 7360, NP, NP},
    {4, 7360, 8384, NP, NP},
    {5, 0, 0, 8384, 20672},
    {6, 0, 0, 0, 0},
    {7, 20672, 21696, NP, NP},
    {8, 21696, 22720, NP, NP},
    {9, 22720, 23744, NP, NP},
    {10, 0, 0, 23744, 36032},
    {11, 0, 0, 0, 0},
    {12, 36032, 37056, NP, NP},
    {13, 37184, 38208, 38208, 38272},
    {14, 38272, 39296, NP, NP},
    {15, 39360, 40384, 40384, 40448},
    {16, 40448, 41472, NP, NP},
    {17, 41472, 42496, 42496, 42560},
    {18, 42560, 43584, NP, NP},
    {19, 43584, 44608, 44608, 44672},
    {20, 44672, 45696, NP, NP},
    {21, 45696, 53888, 53888, 54016},
    // Weight end: see Enc0WeightImageAsDocumented (DESC/HIP print 54544, DOC-e0 §3/E21(c) supports 54528).
    {22, 54016, 54528, 54528, 54560},
};

// DOC-e0 §3: the B loads of the epilogue before each phase (E6 +20672/+21184 ... E21 +54016) and its C records
// (E12 +38208..+38256 ... E21 +54528/+54544); E20: B 45696 + 512 i, C +53888..+54000 (8 words).
const Loads kEnc0Loads[] = {
    {7, 20672, 21184, NP, NP},        {8, 21696, 22208, NP, NP},        {9, 22720, 23232, NP, NP},        {12, 36032, 36544, NP, NP},
    {13, 37184, 37696, 38208, 38256}, {14, 38272, 38784, NP, NP},       {15, 39360, 39872, 40384, 40432}, {16, 40448, 40960, NP, NP},
    {17, 41472, 41984, 42496, 42544}, {18, 42560, 43072, NP, NP},       {19, 43584, 44096, 44608, 44656}, {20, 44672, 45184, NP, NP},
    {21, 45696, NP, 53888, 54000},    {22, 54016, 54016, 54528, 54544},
};

TEST(NetworkLayers, Enc0ReproducesDocE0EpilogueRangesAndDescLayout) {
  expect_rows(LayerId::enc0, kEnc0Rows);
  expect_real(LayerId::enc0, kEnc0Real);
  expect_extents(LayerId::enc0, kEnc0Extents);
  expect_loads(LayerId::enc0, kEnc0Loads);
}

TEST(NetworkLayers, Enc0ContradictionsTakeTheDocsSide) {
  // Phases 6/11 (the P V phases): DOC-e0 §6/U5 phase 6 = 64x32, K = 96 in three k-steps, and HIP-e0's pv_gemm comment
  // (called by both P V phases) agrees; DESC-e0 phases() gives 6 and 11 as M=96 N=64 K=32 (same 48 mma; the
  // extractor's C2). Both P V phases take the doc's shape.
  for (int p : {6, 11}) {
    SCOPED_TRACE("phase " + std::to_string(p));
    const Phase& pv = ph(LayerId::enc0, p);
    EXPECT_EQ(pv.real.m, 64);
    EXPECT_EQ(pv.real.n, 32);
    EXPECT_EQ(pv.real.k, 96);
    EXPECT_FALSE(pv.real.m == 96 && pv.real.n == 64 && pv.real.k == 32);
  }
  // P5/P10 read their 12288-byte tables as C (DOC-e0 §3/E9, §4; HIP-e0 layout), not as B, although DESC-e0 lists
  // [8384, 20672) and [23744, 36032) in WEIGHTS as well as in BIAS (C3).
  EXPECT_NE(ph(LayerId::enc0, 5).b, OperandSource::weights);
  EXPECT_NE(ph(LayerId::enc0, 10).b, OperandSource::weights);
  // P10's table ends at 36032 (HIP-e0 layout, DOC-e0 §3/E9 23744 + 512 i for i = 0..23, and P12's B at +36032 in
  // §3/E11), not at the "23744..35532" of HIP-e0's score_gemm comment (C4).
  const rrswin::ByteRange t10 = rrswin::layer_bias_extent(spec(LayerId::enc0), ph(LayerId::enc0, 10), 0);
  EXPECT_EQ(t10.end, 36032u);
  EXPECT_NE(t10.end, 35532u);
  // P22's B: DESC-e0 WEIGHTS[22] and HIP-e0's layout say [54016, 54544), but DOC-e0 §3/E21(c) shows one B load at
  // +54016 (one 512-byte tile) and the C seeds at +54528/+54544, so [54016, 54544) would overlap the bias (C5).
  const rrswin::ByteRange w22 = rrswin::layer_weight_extent(spec(LayerId::enc0), ph(LayerId::enc0, 22), 0);
  EXPECT_EQ(w22.end, 54528u);
  EXPECT_NE(w22.end, 54544u);
}

TEST(NetworkLayers, Enc0WeightImageAsDocumented) {
  const rrswin::WeightMap m = rrswin::weight_map(spec(LayerId::enc0));
  // DOC-e0 §1.1 "W (weight image, 54560 bytes)"; rr_layer_spec.py's track_weights docstring "the 54560-byte prepared
  // weight image"; DESC-e0's last bias range ends at 54560.
  EXPECT_EQ(m.image_bytes(), 54560u);
  // g1: HIP-e0 "activation gains at 6272..6336"; T1: DOC-e0 §3/E6 37056/37072/37088/37104 (added to phase 7's C);
  // g2: §3/E12 gain 37120..37168; T3: §3/E13 39296..39344.
  EXPECT_EQ(m.g1(), 6272u);
  EXPECT_EQ(m.t1(), 37056u);
  EXPECT_EQ(m.g2(), 37120u);
  EXPECT_EQ(m.t3(), 39296u);
  // DESC-e0 WEIGHTS: [0, 4096) is read by no mma; P1's B starts at 4096 (kEnc0Extents).
  EXPECT_EQ(rrswin::layer_weight_extent(spec(LayerId::enc0), ph(LayerId::enc0, 1), 0).begin, 4096u);
}

TEST(NetworkLayers, Enc0LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::enc0).abi;
  // DESC-e0 GRID/BLOCK and HIP-e0 header: grid (161, 93, 1), block (32, 1, 1) (one warp per 8x8 patch).
  EXPECT_EQ(a.grid, (std::array<int, 3>{161, 93, 1}));
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 1}));
  // DESC-e0 LAYER_PARAMS ("from rr_layer_spec.py"), HIP-e0 raw[1032] + static_assert.
  EXPECT_EQ(a.param_block_bytes, 1032);
  EXPECT_EQ(a.extents, 0);   // DOC-e0 §1.1 s13 ld.param.v2.u32 [param_0+0]
  EXPECT_EQ(a.weights, 40);  // DOC-e0 §0/§1.1, DESC-e0 WEIGHT_ARG, HIP-e0 kWeights
  // The plane arena is +48 (DOC-e0 §1.1 s16052, §4 "the only occurrence of param_0+48"; DESC-e0 PLANE_ARG; HIP-e0
  // kPlaneArg). HIP-e0's enum also has kOutPlane = 8 commented "plane arena the encoder writes (arg048)" (C1).
  EXPECT_EQ(a.arena, 48);
  EXPECT_NE(a.arena, 8);
  EXPECT_EQ(a.merged_output, 56);  // DOC-e0 §3/E21(b) s16481, §4(ii); HIP-e0 surface_scatter21 writes prm+56
  EXPECT_EQ(a.origin, 80);         // HIP-e0 arena_scatter(): u16 offsets at +80/+82
  // DOC-e0 §3/E22(b)/(f): surfaces +112 (s16784), +120 (s17201), +128 (s17202); HIP-e0 kSurfaceA/B/Half.
  EXPECT_EQ(a.surface_count, 3);
  EXPECT_EQ(a.surfaces, (std::array<int, 3>{112, 120, 128}));
  EXPECT_EQ(a.network_input, 304);  // HIP-e0 kSurfaceIn = 304 (DOC-e0 does not mention +304)
}

// ================================================================================================================
// 3. enc1 (DOC-e1 §2.1)
// ================================================================================================================

// DOC-e1 §2.1 "Phase table with the M/N/K arithmetic checked", all 32 rows (kernels/rr/rrswin_enc1_epilogues.md):
// stmts, mma, and the tool's M/N/K (its "spec row" column: "OK" = the corrected M/N/K, else "spec says a/b/c").
// The table has no band, weight, bias or epi column; epi here is DOC-e1 §2.4's "stmts" of E<n>.
const Row kEnc1Rows[] = {
    {1, "s8270-s8293", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {2, "s8301-s8324", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {3, "s8332-s8355", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {4, "s8363-s8386", 96, 32, 32, 24, NP, NP, NP, NP, NP, 171},
    {5, "s8558-s8605", 64, 96, 32, 48, NP, NP, NP, NP, NP, 3843},
    {6, "s12449-s12496", 192, 96, 96, 48, NP, NP, NP, NP, NP, 264},
    {7, "s12761-s12792", 64, 64, 32, 32, NP, NP, NP, NP, NP, 7},
    {8, "s12800-s12823", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {9, "s12831-s12854", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {10, "s12862-s12885", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {11, "s12893-s12916", 96, 32, 32, 24, NP, NP, NP, NP, NP, 171},
    {12, "s13088-s13135", 64, 96, 32, 48, NP, NP, NP, NP, NP, 3838},
    {13, "s16974-s17021", 192, 96, 96, 48, NP, NP, NP, NP, NP, 59},
    {14, "s17081-s17112", 64, 64, 32, 32, NP, NP, NP, NP, NP, 1647},
    {15, "s18760-s18791", 128, 64, 64, 32, NP, NP, NP, NP, NP, 813},
    {16, "s19605-s19636", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {17, "s19753-s19784", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {18, "s20389-s20420", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {19, "s20537-s20568", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {20, "s21173-s21204", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {21, "s21321-s21352", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {22, "s21957-s21988", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {23, "s22105-s22136", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {24, "s22741-s22772", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {25, "s22889-s22920", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {26, "s23525-s23556", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {27, "s23673-s23704", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {28, "s24309-s24340", 64, 64, 32, 32, NP, NP, NP, NP, NP, 116},
    {29, "s24457-s24488", 128, 64, 64, 32, NP, NP, NP, NP, NP, 604},
    {30, "s25093-s25124", 64, 64, 32, 32, NP, NP, NP, NP, NP, 699},
    {31, "s25824-s25919", 128, 768, 256, 96, NP, NP, NP, NP, NP, 204},
    // E32: §2.4's table says s26140-s26819 = 680 statements, §3/E32's text "679 statements" (the table is taken).
    {32, "s26124-s26139", 128, 32, 64, 16, NP, NP, NP, NP, NP, 680},
};

// DOC-e1 §2.1's corrected M, N, K columns and its k_steps column (all 32 rows).
const Real kEnc1Real[] = {
    {1, 96, 32, 32, NP, 1},   {2, 96, 32, 32, NP, 1},  {3, 96, 32, 32, NP, 1},  {4, 96, 32, 32, NP, 1},  {5, 64, 96, 32, NP, 1},
    {6, 64, 32, 96, NP, 3},   {7, 64, 64, 32, NP, 1},  {8, 96, 32, 32, NP, 1},  {9, 96, 32, 32, NP, 1},  {10, 96, 32, 32, NP, 1},
    {11, 96, 32, 32, NP, 1},  {12, 64, 96, 32, NP, 1}, {13, 64, 32, 96, NP, 3}, {14, 64, 64, 32, NP, 1}, {15, 64, 32, 64, NP, 2},
    {16, 64, 64, 32, NP, 1},  {17, 64, 32, 64, NP, 2}, {18, 64, 64, 32, NP, 1}, {19, 64, 32, 64, NP, 2}, {20, 64, 64, 32, NP, 1},
    {21, 64, 32, 64, NP, 2},  {22, 64, 64, 32, NP, 1}, {23, 64, 32, 64, NP, 2}, {24, 64, 64, 32, NP, 1}, {25, 64, 32, 64, NP, 2},
    {26, 64, 64, 32, NP, 1},  {27, 64, 32, 64, NP, 2}, {28, 64, 64, 32, NP, 1}, {29, 64, 32, 64, NP, 2}, {30, 64, 64, 32, NP, 1},
    {31, 16, 96, 256, NP, 8}, {32, 64, 16, 64, NP, 2},
};

// Load immediates DOC-e1 §3 prints (P1's only in HIP-e1: "P1 weights 128"): §3/E1-E3 table (P2-P4, P8-P11), E6
// (P7: +16512/+17024/+17536/+18048, which §3/E6 writes as "[16512, 18060)", i.e. the tool's first..last+12), E13
// (P14), E14 (P15), E16's offsets table (P17, P19, ..., P29: 4 B + 4 C each; first offsets printed), E17 (P18), E30(d)
// (P31: 48 loads 70656 + 512 i up to +94720; C 12 words +95232..+95408), E31(c) (P32). P16: see the contradiction test.
const Loads kEnc1Loads[] = {
    {1, 128, NP, NP, NP},       {2, 2176, 2688, NP, NP},          {3, 1152, 1664, NP, NP},
    {4, 3200, 3712, NP, NP},    {7, 16512, 18048, NP, NP},        {8, 18560, 19072, NP, NP},
    {9, 20608, 21120, NP, NP},  {10, 19584, 20096, NP, NP},       {11, 21632, 22144, NP, NP},
    {14, 34944, 36480, NP, NP}, {15, 37248, 38784, 39296, 39344}, {17, 41536, 43072, 43584, 43632},
    {18, 43648, NP, NP, NP},    {19, 45696, NP, 47744, NP},       {21, 49856, NP, 51904, NP},
    {23, 54016, NP, 56064, NP}, {25, 58176, NP, 60224, NP},       {27, 62336, NP, 64384, NP},
    {29, 66496, NP, 68544, NP}, {31, 70656, 94720, 95232, 95408}, {32, 95424, 95936, 96448, 96464},
};

// DOC-e1 §3/E4 and §2.3: P5's C score bias W + 4224 + 512 i, block [4224, 16512); §2.3: P5 and P12 read no B, P6
// and P13 read no weight and no bias. HIP-e1's trailing layout: P1 [128, 1152), P7 [16512, 18560). P12's block: see
// Enc1ContradictionsTakeTheNeighboursSide.
const Extent kEnc1Extents[] = {
    {1, 128, 1152, NP, NP}, {5, 0, 0, 4224, 16512}, {6, 0, 0, 0, 0}, {7, 16512, 18560, NP, NP}, {12, 0, 0, NP, NP}, {13, 0, 0, 0, 0},
};

TEST(NetworkLayers, Enc1ReproducesDocE1EveryRow) {
  expect_rows(LayerId::enc1, kEnc1Rows);
  expect_real(LayerId::enc1, kEnc1Real);
  // DOC-e1 §2.1 prints no band column (the extractor inferred it); the tool's rule on the printed real K instead.
  expect_band_rule(LayerId::enc1, kEnc1Real);
  expect_loads(LayerId::enc1, kEnc1Loads);
  expect_extents(LayerId::enc1, kEnc1Extents);
}

TEST(NetworkLayers, Enc1ContradictionsTakeTheNeighboursSide) {
  // DOC-e1 §3/E15 (its table, s19341-s19351, and "phase 16's B fragments (weight image, +40448...)"): P16's B at
  // 40448 + 512 i, i = 0..3. The same doc puts P15's four C records at 39296..39344 (§3/E14, last record + 16 = 39360),
  // E15's own table (P16's C) at 41408..41520 and P17's B at 41536 (§3/E16): a 2048-byte block at 40448 would overlap
  // both, one at 39360 fills the gap exactly. (40448 is enc0's P16, DOC-e0 §3/E15.)
  const Phase& p16 = ph(LayerId::enc1, 16);
  EXPECT_EQ(p16.weight_begin, 39360u);
  EXPECT_NE(p16.weight_begin, 40448u);
  const rrswin::ByteRange w = rrswin::layer_weight_extent(spec(LayerId::enc1), p16, 0);
  EXPECT_EQ(w.begin, 39344u + 16u);
  EXPECT_EQ(w.end, 41408u);
  EXPECT_EQ(rrswin::weight_map(spec(LayerId::enc1)).t3(), 41408u);
  // §3/E6 writes P7's block as "[16512, 18060)": the tool's first..last+12 of the loads 16512..18048 (HIP-e1's layout
  // has [16512, 18560)).
  EXPECT_EQ(ph(LayerId::enc1, 7).weight_end, 18060u);
  // §3/E11 and §2.3: P12's score bias, 24 tiles at W + 22656 + 512 i, "byte block [22656, 34848) = 12288 bytes";
  // 34848 - 22656 is 12192. The "= 12288 bytes", the 24 tiles, the same layout as P5's [4224, 16512) and P14's B at
  // +34944 (§3/E13) put the end at 34944.
  const rrswin::ByteRange c12 = rrswin::layer_bias_extent(spec(LayerId::enc1), ph(LayerId::enc1, 12), 0);
  EXPECT_EQ(c12.begin, 22656u);
  EXPECT_EQ(c12.end, 34944u);
  EXPECT_NE(c12.end, 34848u);
  EXPECT_EQ(ph(LayerId::enc1, 14).weight_begin, 34944u);
}

TEST(NetworkLayers, Enc1WeightImageAsDocumented) {
  const rrswin::WeightMap m = rrswin::weight_map(spec(LayerId::enc1));
  // DOC-e1 §2.2: "rr_layer_spec.py --geometry reports enc1 ... image=96468" (largest immediate + 4), "the highest
  // byte touched is 96480", "So the image spans at least 96480 bytes"; §1.1 ">=96480"; §7 ">= 96480 bytes (tool says
  // 96468; the per-lane table base adds 12)".
  EXPECT_EQ(m.tool_extent(), 96468u);
  EXPECT_EQ(m.image_bytes(), 96480u);
  // Tables: T1 at 36992..37104 (§3/E6, added to P7's C), g2 37120..37232 (§3/E14), T3 at 41408..41520 (§3/E15).
  EXPECT_EQ(m.t1(), 36992u);
  EXPECT_EQ(m.g2(), 37120u);
  EXPECT_EQ(m.t3(), 41408u);
}

TEST(NetworkLayers, Enc1LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::enc1).abi;
  // HIP-e1 header: grid (81, 47, 1), block (32, 1, 1). HIP-e1's debug_store forms the block index as ctaid.x + 161
  // ctaid.y (make_ptx.py's pitch, the extractor's C6): not enc1's grid.
  EXPECT_EQ(a.grid, (std::array<int, 3>{81, 47, 1}));
  EXPECT_NE(a.grid[0], 161);
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 1}));
  EXPECT_EQ(a.param_block_bytes, 144);  // HIP-e1 raw[144] + static_assert
  EXPECT_EQ(a.shared_bytes, 0);         // REC-e1 docstring: module 0014 declares no .shared array
  // DOC-e1 §1.1: +0 (s13), +8 (s21), +40 (s11), +48 (s25221), +56 (s25963), +80 (s5), +88 (3/E32(d)); surfaces +112
  // (s26310), +120 (s26533), +128 (s26534) (§3/E32(f)).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.merged_output, 56);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.surface_count, 3);
  EXPECT_EQ(a.surfaces, (std::array<int, 3>{112, 120, 128}));
}

// ================================================================================================================
// 4. enc2 (DOC-e2 §2.2)
// ================================================================================================================

// DOC-e2 §2.2 "Phase geometry re-derived from the mma chain" (kernels/rr/rrswin_enc2_epilogues.md), a grouped table
// (rows "1-6", "7", "8", "9-12", "13,15,...,35", "14,16,...,36", "37", "38") expanded to one row per phase: the tool's
// ("spec") M, N, K and the mma of its last column. No band, weight, bias or stmts column. Statement ranges DERIVED
// FROM THE DOC'S EPILOGUE RANGES (§2.1: phase n = end(E(n-1)) + 1 .. start(E(n)) - 1; phase 1 from REC-e2/HIP-e2
// "s4621-s13876"); several are confirmed in §3 (phase 2 s4652-s4675, phase 6 s4776-s4799, phase 9 from s9079).
// epi: §2.1's "stmts" of E<n>.
const Row kEnc2Rows[] = {
    {1, "s4621-s4644", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},         {2, "s4652-s4675", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {3, "s4683-s4706", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},         {4, "s4714-s4737", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},
    {5, "s4745-s4768", 96, 32, 32, 24, NP, NP, NP, NP, NP, 7},         {6, "s4776-s4799", 96, 32, 32, 24, NP, NP, NP, NP, NP, 171},
    {7, "s4971-s5018", 64, 96, 32, 48, NP, NP, NP, NP, NP, 3843},      {8, "s8862-s8909", 192, 96, 96, 48, NP, NP, NP, NP, NP, 169},
    {9, "s9079-s9090", 16, 96, 32, 12, NP, NP, NP, NP, NP, 19},        {10, "s9110-s9121", 16, 96, 32, 12, NP, NP, NP, NP, NP, 19},
    {11, "s9141-s9152", 16, 96, 32, 12, NP, NP, NP, NP, NP, 19},       {12, "s9172-s9183", 16, 96, 32, 12, NP, NP, NP, NP, NP, 636},
    {13, "s9820-s9831", 48, 96, 96, 12, NP, NP, NP, NP, NP, 257},      {14, "s10089-s10100", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {15, "s10161-s10172", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {16, "s10337-s10348", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {17, "s10409-s10420", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {18, "s10585-s10596", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {19, "s10657-s10668", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {20, "s10833-s10844", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {21, "s10905-s10916", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {22, "s11081-s11092", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {23, "s11153-s11164", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {24, "s11329-s11340", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {25, "s11401-s11412", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {26, "s11577-s11588", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {27, "s11649-s11660", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {28, "s11825-s11836", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {29, "s11897-s11908", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {30, "s12073-s12084", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {31, "s12145-s12156", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {32, "s12321-s12332", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {33, "s12393-s12404", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {34, "s12569-s12580", 16, 96, 32, 12, NP, NP, NP, NP, NP, 60},
    {35, "s12641-s12652", 48, 96, 96, 12, NP, NP, NP, NP, NP, 164},    {36, "s12817-s12828", 16, 96, 32, 12, NP, NP, NP, NP, NP, 870},
    {37, "s13699-s13746", 192, 384, 384, 48, NP, NP, NP, NP, NP, 124}, {38, "s13871-s13876", 48, 48, 96, 6, NP, NP, NP, NP, NP, 323},
};

// DOC-e2 §2.2's re-derived (M, N, K) and its "chains x len" column. Row 8: "16x3" chains (DESC-e2's phase-8 note
// says "four chains of three k-steps" while its own dict has 4 x 4 output tiles: the extractor's C8; the doc's 16).
const Real kEnc2Real[] = {
    {1, 96, 32, 32, 24, 1},  {2, 96, 32, 32, 24, 1},   {3, 96, 32, 32, 24, 1},  {4, 96, 32, 32, 24, 1},  {5, 96, 32, 32, 24, 1},
    {6, 96, 32, 32, 24, 1},  {7, 64, 96, 32, 48, 1},   {8, 64, 32, 96, 16, 3},  {9, 16, 96, 32, 12, 1},  {10, 16, 96, 32, 12, 1},
    {11, 16, 96, 32, 12, 1}, {12, 16, 96, 32, 12, 1},  {13, 16, 32, 96, 4, 3},  {14, 16, 96, 32, 12, 1}, {15, 16, 32, 96, 4, 3},
    {16, 16, 96, 32, 12, 1}, {17, 16, 32, 96, 4, 3},   {18, 16, 96, 32, 12, 1}, {19, 16, 32, 96, 4, 3},  {20, 16, 96, 32, 12, 1},
    {21, 16, 32, 96, 4, 3},  {22, 16, 96, 32, 12, 1},  {23, 16, 32, 96, 4, 3},  {24, 16, 96, 32, 12, 1}, {25, 16, 32, 96, 4, 3},
    {26, 16, 96, 32, 12, 1}, {27, 16, 32, 96, 4, 3},   {28, 16, 96, 32, 12, 1}, {29, 16, 32, 96, 4, 3},  {30, 16, 96, 32, 12, 1},
    {31, 16, 32, 96, 4, 3},  {32, 16, 96, 32, 12, 1},  {33, 16, 32, 96, 4, 3},  {34, 16, 96, 32, 12, 1}, {35, 16, 32, 96, 4, 3},
    {36, 16, 96, 32, 12, 1}, {37, 16, 32, 384, 4, 12}, {38, 16, 16, 96, 2, 3},
};

// Load immediates DOC-e2 §3 prints (lane 0; phases 1-7 relative to Wz = W + 21504 tid.z, §0): P2-P6 §3/E1-E5 (two
// loads each); P1's only in REC-e2/DESC-e2/HIP-e2 (+192, +704); P9 §3/E8(c) 18624 + 512 i; P10-P12 §3/E9-E11; P13
// §3/E12 Outputs "6 loads at +86592...+89152", C 89664..89712; P14 §3/E13(b); P15-P36 §3/E14-E35 (B "a..b" = first and
// last load, C = first and last record); P37 §3/E36(e),(f): 161280 + 512 i up to +173056, C 210432..210480; P38
// §3/E37(c): B 210688/211200/211712, C 212224/212240.
const Loads kEnc2Loads[] = {
    {1, 192, 704, NP, NP},
    {2, 3264, 3776, NP, NP},
    {3, 1216, 1728, NP, NP},
    {4, 4288, 4800, NP, NP},
    {5, 2240, 2752, NP, NP},
    {6, 5312, 5824, NP, NP},
    {9, 18624, NP, NP, NP},
    {10, 40128, NP, NP, NP},
    {11, 61632, NP, NP, NP},
    {12, 83136, NP, NP, NP},
    {13, 86592, 89152, 89664, 89712},
    {14, 89728, NP, NP, NP},
    {15, 92992, 95552, 96064, 96112},
    {16, 96128, 98688, NP, NP},
    {17, 99200, 101760, 102272, 102320},
    {18, 102336, NP, NP, NP},
    {19, 105408, 107968, 108480, 108528},
    {20, 108544, 111104, NP, NP},
    {21, 111616, 114176, 114688, 114736},
    {22, 114752, 117312, NP, NP},
    {23, 117824, 120384, 120896, 120944},
    {24, 120960, 123520, NP, NP},
    {25, 124032, 126592, 127104, 127152},
    {26, 127168, 129728, NP, NP},
    {27, 130240, 132800, 133312, 133360},
    {28, 133376, 135936, NP, NP},
    {29, 136448, 139008, 139520, 139568},
    {30, 139584, 142144, NP, NP},
    {31, 142656, 145216, 145728, 145776},
    {32, 145792, 148352, NP, NP},
    {33, 148864, 151424, 151936, 151984},
    {34, 152000, 154560, NP, NP},
    {35, 155072, 157632, 158144, 158192},
    {36, 158208, 160768, NP, NP},
    {37, 161280, 173056, 210432, 210480},
    {38, 210688, 211712, 212224, 212240},
};

// DOC-e2 §3/E6(a): P7's C score bias Wz + 6336 + 512 i, "[6336, 18624)"; A and B from registers (§3/E6(b)). §7: P8
// has no weight operand; its C is the zero register %r8606 (§1.2). P2-P6: see Enc2StemBlocksTakeTheLoadsSide.
const Extent kEnc2Extents[] = {
    {7, 0, 0, 6336, 18624},
    {8, 0, 0, 0, 0},
};

TEST(NetworkLayers, Enc2ReproducesDocE2EveryRow) {
  expect_rows(LayerId::enc2, kEnc2Rows);
  expect_real(LayerId::enc2, kEnc2Real);
  // DOC-e2 §2.2 prints no band column: it says the tool's "full/band label" is wrong exactly for rows 8, 13..35 odd,
  // 37, 38 (the extractor inferred the flag). The tool's rule on the printed real K instead.
  expect_band_rule(LayerId::enc2, kEnc2Real);
  expect_loads(LayerId::enc2, kEnc2Loads);
  expect_extents(LayerId::enc2, kEnc2Extents);
}

TEST(NetworkLayers, Enc2ContradictionsTakeTheDocsOtherStatements) {
  const LayerId e2 = LayerId::enc2;
  // C5 P13's B: §3/E12's structure table "+86632 ... +89192"; §3/E12 Outputs "6 loads at +86592...+89152", §6/U1
  // "W + 86592 + 512 i", the MLP-shape paragraph "B = W+86592" (and DESC-e2).
  EXPECT_EQ(ph(e2, 13).weight_begin, 86592u);
  EXPECT_NE(ph(e2, 13).weight_begin, 86632u);
  // C6 P17's B: the MLP-shape paragraph "B = W+99240"; §3/E16 "99200..101760" (and DESC-e2).
  EXPECT_EQ(ph(e2, 17).weight_begin, 99200u);
  EXPECT_NE(ph(e2, 17).weight_begin, 99240u);
  // C7: the MLP paragraph calls the odd phases "48x96x32 banded GEMM"; §2.2 re-derives them as 16x32x96.
  const Phase& p13 = ph(e2, 13);
  EXPECT_FALSE(p13.real.m == 48 && p13.real.n == 96 && p13.real.k == 32);
}

TEST(NetworkLayers, Enc2StemBlocksTakeTheLoadsSide) {
  // DOC-e2 §3/E1-E5 print the stem blocks as "[3264, 4296)" (P2), "[1216, 2248)" (P3), "[4288, 5320)" (P4), "[2240,
  // 3272)" (P5), "[5312, 6344)" (P6): 1032 bytes each for the two 512-byte v4 loads the same sections show, so each
  // overlaps the next block by 8 bytes (the extractor's C4). The loads and the next printed block's begin support
  // [first, first + 1024): P3 ends where P5 begins, P5 where P2 begins, P2 where P4 begins, P4 where P6 begins, P6
  // where the score bias begins (6336, §3/E6(a)).
  struct Block {
    int phase;
    std::uint32_t begin, end, printed_end;
  };
  const Block blocks[] = {
      {3, 1216, 2240, 2248}, {5, 2240, 3264, 3272}, {2, 3264, 4288, 4296}, {4, 4288, 5312, 5320}, {6, 5312, 6336, 6344},
  };
  for (const Block& b : blocks) {
    SCOPED_TRACE("phase " + std::to_string(b.phase));
    const rrswin::ByteRange w = rrswin::layer_weight_extent(spec(LayerId::enc2), ph(LayerId::enc2, b.phase), 0);
    EXPECT_EQ(w.begin, b.begin);
    EXPECT_EQ(w.end, b.end);
    EXPECT_NE(w.end, b.printed_end);
  }
  // Phases 1-7 read relative to Wz = W + 21504 tid.z + 16 laneid (DOC-e2 §3, DESC-e2 weight_slab_strides [21504, ...]).
  EXPECT_EQ(rrswin::layer_weight_extent(spec(LayerId::enc2), ph(LayerId::enc2, 2), 1).begin, 3264u + 21504u);
  EXPECT_EQ(rrswin::layer_bias_extent(spec(LayerId::enc2), ph(LayerId::enc2, 7), 1).begin, 6336u + 21504u);
}

TEST(NetworkLayers, Enc2WeightImageAsDocumented) {
  const rrswin::WeightMap m = rrswin::weight_map(spec(LayerId::enc2));
  // DOC-e2 §6/U5: "the true last byte is 212240 + 12 + 4 = 212256", "The weight image therefore spans at least 212256
  // bytes" (§7 "212256 bytes, per-block"; DESC-e2 weight_image_bytes 212256). The same U5 gives "[192, 212244)" for
  // tid.z = 0: the highest scalar-table offset 212240 + 4, the tool's extent.
  EXPECT_EQ(m.image_bytes(), 212256u);
  EXPECT_EQ(m.tool_extent(), 212244u);
  // Tables: the prologue norm gain W+0..176 (§3/E12), T1 86208..86384 (§3/E8(d)), g2 86400..86576 (§3/E12), T3
  // 92800..92976 (§3/E13(c)).
  EXPECT_EQ(m.g1(), 0u);
  EXPECT_EQ(m.t1(), 86208u);
  EXPECT_EQ(m.g2(), 86400u);
  EXPECT_EQ(m.t3(), 92800u);
}

TEST(NetworkLayers, Enc2LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::enc2).abi;
  // The grid is the MEASURED one: DESC-e2 _LAUNCH "grid": [41, 24, 1] ("measured_launch_line": "launch 41 24 1 32 1 4
  // 0"), REC-e2 GRID_X = 41 ("320/8+1 by 184/8+1 patches"). REC-e2's docstring and HIP-e2's header say grid (161, 93,
  // 1), and DESC-e2's own grid_from_extents ((ex >> 1) + 1, ...) gives that too (the extractor's C1); this row takes
  // the measurement.
  EXPECT_EQ(a.grid, (std::array<int, 3>{41, 24, 1}));
  EXPECT_NE(a.grid, (std::array<int, 3>{161, 93, 1}));
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 4}));  // DESC-e2 (warps_per_block 4), REC-e2, HIP-e2; DOC-e2 §6/U4
  EXPECT_EQ(a.shared_bytes, 9600);                     // DESC-e2 "shared_bytes": 9600
  EXPECT_EQ(a.param_block_bytes, 144);                 // DESC-e2 "param_bytes": 144, HIP-e2 raw[144]
  EXPECT_EQ(a.ex, 320);                                // DESC-e2 "extents_measured": [320, 184]
  EXPECT_EQ(a.ey, 184);
  // DOC-e2 §4: +0 (s14), +8 (the input image), +40, +48 (written by 12 st.global.u32), +56 (P37's output), +80
  // (origins), +88 (texture), +112/+120/+128 (three sust).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.merged_output, 56);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.surface_count, 3);
  EXPECT_EQ(a.surfaces, (std::array<int, 3>{112, 120, 128}));
}

// ================================================================================================================
// 5. dec4 (DOC-d4 prints no phase table)
// ================================================================================================================

// DOC-d4 §2 "Phase table summary" (kernels/rr/rrswin_dec4_epilogues.md) prints no rows. Statement ranges DERIVED FROM
// THE DOC'S EPILOGUE RANGES (§3/§4; first mma s571 and last s24164 from REC-d4's cut), mma = their lengths where not
// printed (printed: P1 300 §0/HIP-d4, P12 48 §4/E12, P13 48 §6/U5, even 22..60 and P62 §2). M/N/K: §2 prints M=80
// N=160 K=160 for the even phases 22..60 and M=80 N=80 K=160 for P62. band: §2's list of the 23 phases that fail
// M/16*N/8*K/32 == mma (tool dense=False): 1, 13, 22, 24, ..., 60, 62; every other phase "holds". Weight/bias: §2
// "Phases that read no weight operand at all: 12 and 13"; P12's score bias printed "[114240, 126028)", the tool's
// first..last+12 (24 tiles at 114240 + 512 i, §4/E11). epi: §3's "stmts".
const Row kDec4Rows[] = {
    {1, "s571-s870", NP, NP, NP, 300, 1, NP, NP, NP, NP, 10783},    {2, "s11654-s11677", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {3, "s11685-s11708", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},     {4, "s11716-s11739", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {5, "s11747-s11770", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},     {6, "s11778-s11801", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {7, "s11809-s11832", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},     {8, "s11840-s11863", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {9, "s11871-s11894", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},     {10, "s11902-s11925", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {11, "s11933-s11956", NP, NP, NP, 24, 0, NP, NP, NP, NP, 171},  {12, "s12128-s12175", NP, NP, NP, 48, 0, 0, 0, 114240, 126028, 3844},
    {13, "s16020-s16067", NP, NP, NP, 48, 1, 0, 0, NP, NP, 274},    {14, "s16342-s16361", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},
    {15, "s16389-s16408", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},   {16, "s16436-s16455", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},
    {17, "s16483-s16502", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},   {18, "s16530-s16549", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},
    {19, "s16577-s16596", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},   {20, "s16624-s16643", NP, NP, NP, 20, 0, NP, NP, NP, NP, 27},
    {21, "s16671-s16690", NP, NP, NP, 20, 0, NP, NP, NP, NP, 1029}, {22, "s17720-s17739", 80, 160, 160, 20, 1, NP, NP, NP, NP, 321},
    {23, "s18061-s18080", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {24, "s18173-s18192", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {25, "s18365-s18384", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {26, "s18477-s18496", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {27, "s18669-s18688", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {28, "s18781-s18800", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {29, "s18973-s18992", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {30, "s19085-s19104", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {31, "s19277-s19296", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {32, "s19389-s19408", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {33, "s19581-s19600", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {34, "s19693-s19712", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {35, "s19885-s19904", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {36, "s19997-s20016", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {37, "s20189-s20208", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {38, "s20301-s20320", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {39, "s20493-s20512", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {40, "s20605-s20624", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {41, "s20797-s20816", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {42, "s20909-s20928", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {43, "s21101-s21120", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {44, "s21213-s21232", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {45, "s21405-s21424", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {46, "s21517-s21536", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {47, "s21709-s21728", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {48, "s21821-s21840", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {49, "s22013-s22032", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {50, "s22125-s22144", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {51, "s22317-s22336", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {52, "s22429-s22448", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {53, "s22621-s22640", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {54, "s22733-s22752", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {55, "s22925-s22944", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {56, "s23037-s23056", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {57, "s23229-s23248", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {58, "s23341-s23360", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {59, "s23533-s23552", NP, NP, NP, 20, 0, NP, NP, NP, NP, 92},   {60, "s23645-s23664", 80, 160, 160, 20, 1, NP, NP, NP, NP, 172},
    {61, "s23837-s23856", NP, NP, NP, 20, 0, NP, NP, NP, NP, 298},  {62, "s24155-s24164", 80, 80, 160, 10, 1, NP, NP, NP, NP, 282},
};

// Corrected shapes: HIP-d4's phase-1 comment: K = 160 in five-step chains, sixty of them (swin_dec4_debug_stages.py
// "60 output tiles"); DOC-d4 §4/E2-E10: P2..P11 are ten 96x32x32 phases; §4/E12 "48 mma of 64x96"; §5: P61's output
// is 16x160; §2, §6/U5: the even phases 22..60 are 5-step cascades, P62 a 5-fragment cascade.
const Real kDec4Real[] = {
    {1, NP, NP, 160, 60, 5},  {2, 96, 32, 32, NP, NP},  {3, 96, 32, 32, NP, NP},   {4, 96, 32, 32, NP, NP}, {5, 96, 32, 32, NP, NP},
    {6, 96, 32, 32, NP, NP},  {7, 96, 32, 32, NP, NP},  {8, 96, 32, 32, NP, NP},   {9, 96, 32, 32, NP, NP}, {10, 96, 32, 32, NP, NP},
    {11, 96, 32, 32, NP, NP}, {12, 64, 96, NP, NP, NP}, {22, NP, NP, NP, NP, 5},   {24, NP, NP, NP, NP, 5}, {26, NP, NP, NP, NP, 5},
    {28, NP, NP, NP, NP, 5},  {30, NP, NP, NP, NP, 5},  {32, NP, NP, NP, NP, 5},   {34, NP, NP, NP, NP, 5}, {36, NP, NP, NP, NP, 5},
    {38, NP, NP, NP, NP, 5},  {40, NP, NP, NP, NP, 5},  {42, NP, NP, NP, NP, 5},   {44, NP, NP, NP, NP, 5}, {46, NP, NP, NP, NP, 5},
    {48, NP, NP, NP, NP, 5},  {50, NP, NP, NP, NP, 5},  {52, NP, NP, NP, NP, 5},   {54, NP, NP, NP, NP, 5}, {56, NP, NP, NP, NP, 5},
    {58, NP, NP, NP, NP, 5},  {60, NP, NP, NP, NP, 5},  {61, 16, 160, NP, NP, NP}, {62, NP, NP, NP, NP, 5},
};

// Load immediates DOC-d4 prints: P1's 20 seeds 102400..102704 (§2, §4/E11 s551-s570); P2's two loads {104000,
// 104512} (§4/E1); P3..P11 bases (§4/E2-E10); P14's loads 126528..131136 (§4/E13, 9 of its 10 listed); P15..P21 bases
// (§4/E14-E20); P22's C 330944..330992 (§4/E21); P24's C 341568..341616 (§4/E23); P25..P28, P60, P61 bases (§4/E24..E60
// list); P62 loads 532224..534272, C seeds 534784/534800 (§4/E61). P22's B: see the contradiction test.
const Loads kDec4Loads[] = {
    {1, 0, NP, 102400, 102704},       {2, 104000, 104512, NP, NP}, {3, 109120, NP, NP, NP},  {4, 105024, NP, NP, NP},
    {5, 110144, NP, NP, NP},          {6, 106048, NP, NP, NP},     {7, 111168, NP, NP, NP},  {8, 107072, NP, NP, NP},
    {9, 112192, NP, NP, NP},          {10, 108096, NP, NP, NP},    {11, 113216, NP, NP, NP}, {14, 126528, 131136, NP, NP},
    {15, 154176, NP, NP, NP},         {16, 181824, NP, NP, NP},    {17, 209472, NP, NP, NP}, {18, 237120, NP, NP, NP},
    {19, 264768, NP, NP, NP},         {20, 292416, NP, NP, NP},    {21, 320064, NP, NP, NP}, {22, NP, NP, 330944, 330992},
    {24, 336448, NP, 341568, 341616}, {25, 341632, NP, NP, NP},    {26, 346752, NP, NP, NP}, {27, 351936, NP, NP, NP},
    {28, 357056, NP, NP, NP},         {60, 521920, NP, NP, NP},    {61, 527104, NP, NP, NP}, {62, 532224, 534272, 534784, 534800},
};

// DOC-d4 §2 "Phase 1's B block is [0, 25600)"; §4/E22 P23's B block "[331008, 336128)"; §4/E23 P24's "[336448,
// 341568)". (§2's "[532224, 534796)" for P62 is last load + 512 + 12, neither convention: not compared.)
const Extent kDec4Extents[] = {
    {1, 0, 25600, NP, NP},
    {23, 331008, 336128, NP, NP},
    {24, 336448, 341568, NP, NP},
};

TEST(NetworkLayers, Dec4ReproducesDocD4DerivedRows) {
  expect_rows(LayerId::dec4, kDec4Rows);
  expect_real(LayerId::dec4, kDec4Real);
  expect_loads(LayerId::dec4, kDec4Loads);
  expect_extents(LayerId::dec4, kDec4Extents);
  // §4/E14-E20: P14..P21 are one 16x160x256 GEMM split across eight phases chained through C.
  int k = 0;
  for (int p = 14; p <= 21; ++p) {
    SCOPED_TRACE("phase " + std::to_string(p));
    EXPECT_EQ(ph(LayerId::dec4, p).real.m, 16);
    EXPECT_EQ(ph(LayerId::dec4, p).real.n, 160);
    k += ph(LayerId::dec4, p).real.k;
  }
  EXPECT_EQ(k, 256);
}

TEST(NetworkLayers, Dec4Phase22WeightTakesTheNeighboursSide) {
  // C3: DOC-d4 §4/E14-E20 gives P21's B as 320064, and §4/E21's table gives phase 22's B as "320064 + 512 i". The same
  // doc's neighbours: E13's column table 325184..325488, E21's gain 325504..325808 (last record + 16 = 325824) and
  // P22's C at 330944 (§4/E21) = 325824 + 10 tiles of 512 (E21 loads 10 B tiles). P22's B is [325824, 330944).
  const Phase& p22 = ph(LayerId::dec4, 22);
  EXPECT_EQ(p22.weight_begin, 325824u);
  EXPECT_NE(p22.weight_begin, 320064u);
  EXPECT_EQ(ph(LayerId::dec4, 21).weight_begin, 320064u);
  const rrswin::ByteRange w = rrswin::layer_weight_extent(spec(LayerId::dec4), p22, 0);
  EXPECT_EQ(w.begin, 325808u + 16u);
  EXPECT_EQ(w.end, 330944u);
}

TEST(NetworkLayers, Dec4WeightImageAsDocumented) {
  const rrswin::LayerSpec& s = spec(LayerId::dec4);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  // DOC-d4 §2: "the image is at least 534804 bytes" (P62's second C seed at +534800, plus 4: the tool's extent); §7;
  // REC-d4 "weight image 534804 bytes".
  EXPECT_EQ(m.tool_extent(), 534804u);
  // g1 103680..103984 (§4/E1, 20 loads), T1 325184..325488 (§4/E13), g2 325504..325808 (§4/E21).
  EXPECT_EQ(m.g1(), 103680u);
  EXPECT_EQ(m.t1(), 325184u);
  EXPECT_EQ(m.g2(), 325504u);
  // Per-warp strides. Phase 1's B: HIP-d4 "W + z*25600" (DOC-d4 §0 reads x25600 at s438 as the input buffer's stride:
  // the extractor's C1); its seeds + z*320 (REC-d4 _c_regs). P2..P11 and P12's score bias: W + z*27648 (§0 s11607/
  // s11608, §4/E1, E2-E10, E11; §2 "the per-slab copy of the phase-2...11 weight group starts at 104000 + z*27648").
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec4, 1), 1).begin, 25600u);
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec4, 1), 1).begin, 102400u + 320u);
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec4, 2), 1).begin, 104000u + 27648u);
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec4, 12), 1).begin, 114240u + 27648u);
}

TEST(NetworkLayers, Dec4LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::dec4).abi;
  // Eight waves per block (HIP-d4 header; REC-d4 "block z is eight waves", four idle after the heads); DOC-d4 §0
  // guards tid.z to 0..3 for the slabs (s20). The grid is not stated by any dec4 file (not compared).
  EXPECT_EQ(a.block[0], 32);
  EXPECT_EQ(a.block[1] * a.block[2], 8);
  EXPECT_EQ(a.shared_bytes, 16384);     // DOC-d4 §0 "the 16384-byte shared array"
  EXPECT_EQ(a.param_block_bytes, 144);  // HIP-d4 static_assert, REC-d4
  // DOC-d4 §1.1: +0 (s15), +8 ([%rd1-72]), +24 ([%rd1-56], the skip input), +40, +48 ([%rd1-32]), +80, +88, +96,
  // +104 (textures, [%rd1129+8/+16/+24]), +112 (surface, [%rd1129+32]), +136 (scale, [%rd1129+56]).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.skip, 24);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.int_textures, (std::array<int, 2>{96, 104}));
  EXPECT_EQ(a.surfaces[0], 112);
  EXPECT_EQ(a.scale, 136);
}

// ================================================================================================================
// 6. dec3 (DOC-d3 prints no phase table)
// ================================================================================================================

// DOC-d3 §2 "Phase table summary" (kernels/rr/rrswin_dec3_epilogues.md) prints no rows (§4/E12-E14 refers to "§2's
// summary table", which this version lacks). Statement ranges DERIVED FROM THE DOC'S EPILOGUE RANGES (§3; first mma
// s543 from REC-d3, which §4/E9 cites too), mma = their lengths where not printed (printed: P1 240 HIP-d3 / §6/U5 "24
// groups of 10", P10 48 §4/E10, P11 48 §6/U5, P16 16 §2, P48 8 §6/U5). M/N/K: §2's example P16 M=64 N=128 K=128.
// band: §2's lists: holds (dense=True) 2-9, 12-15, 17, 19, ..., 47; fails (dense=False) 1, 11, 16, 18, ..., 46, 48.
// Phase 10 is in neither list (not compared). §2: phases 10 and 11 read no weight operand. epi: §3's "stmts"
// (E1 is printed "s783-s9138" but counted 8357; the count is the one that tiles s1..s19662).
const Row kDec3Rows[] = {
    {1, "s543-s782", NP, NP, NP, 240, 1, NP, NP, NP, NP, 8357},    {2, "s9140-s9163", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {3, "s9171-s9194", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},      {4, "s9202-s9225", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {5, "s9233-s9256", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},      {6, "s9264-s9287", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {7, "s9295-s9318", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},      {8, "s9326-s9349", NP, NP, NP, 24, 0, NP, NP, NP, NP, 7},
    {9, "s9357-s9380", NP, NP, NP, 24, 0, NP, NP, NP, NP, 171},    {10, "s9552-s9599", NP, NP, NP, 48, NP, 0, 0, NP, NP, 3843},
    {11, "s13443-s13490", NP, NP, NP, 48, 1, 0, 0, NP, NP, 199},   {12, "s13690-s13705", NP, NP, NP, 16, 0, NP, NP, NP, NP, 23},
    {13, "s13729-s13744", NP, NP, NP, 16, 0, NP, NP, NP, NP, 23},  {14, "s13768-s13783", NP, NP, NP, 16, 0, NP, NP, NP, NP, 23},
    {15, "s13807-s13822", NP, NP, NP, 16, 0, NP, NP, NP, NP, 832}, {16, "s14655-s14670", 64, 128, 128, 16, 1, NP, NP, NP, NP, 289},
    {17, "s14960-s14975", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {18, "s15052-s15067", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {19, "s15236-s15251", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {20, "s15328-s15343", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {21, "s15512-s15527", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {22, "s15604-s15619", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {23, "s15788-s15803", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {24, "s15880-s15895", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {25, "s16064-s16079", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {26, "s16156-s16171", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {27, "s16340-s16355", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {28, "s16432-s16447", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {29, "s16616-s16631", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {30, "s16708-s16723", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {31, "s16892-s16907", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {32, "s16984-s16999", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {33, "s17168-s17183", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {34, "s17260-s17275", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {35, "s17444-s17459", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {36, "s17536-s17551", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {37, "s17720-s17735", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {38, "s17812-s17827", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {39, "s17996-s18011", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {40, "s18088-s18103", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {41, "s18272-s18287", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {42, "s18364-s18379", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {43, "s18548-s18563", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {44, "s18640-s18655", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {45, "s18824-s18839", NP, NP, NP, 16, 0, NP, NP, NP, NP, 76},  {46, "s18916-s18931", NP, NP, NP, 16, 1, NP, NP, NP, NP, 168},
    {47, "s19100-s19115", NP, NP, NP, 16, 0, NP, NP, NP, NP, 258}, {48, "s19374-s19381", NP, NP, NP, 8, 1, NP, NP, NP, NP, 281},
};

// Corrected shapes: HIP-d3's phase-1 comment (48 output tiles of 16x8 = 3 m-blocks x 16 n-tiles, K = 160; DOC-d3
// §6/U5 "5-step cascades"); §4/E10 "48 mma of 64x96"; §4/E17 and the tail diagram "P17: 16x128"; §5 "phase 47's
// requantised 16x128 output"; §2 / §6/U5: P16..P46 even are 4-step cascades, "P48 likewise (4 A fragments, 8 mma)".
const Real kDec3Real[] = {
    {1, 48, 128, 160, 48, 5}, {10, 64, 96, NP, NP, NP}, {16, NP, NP, NP, NP, 4}, {17, 16, 128, NP, NP, NP}, {18, NP, NP, NP, NP, 4},
    {20, NP, NP, NP, NP, 4},  {22, NP, NP, NP, NP, 4},  {24, NP, NP, NP, NP, 4}, {26, NP, NP, NP, NP, 4},   {28, NP, NP, NP, NP, 4},
    {30, NP, NP, NP, NP, 4},  {32, NP, NP, NP, NP, 4},  {34, NP, NP, NP, NP, 4}, {36, NP, NP, NP, NP, 4},   {38, NP, NP, NP, NP, 4},
    {40, NP, NP, NP, NP, 4},  {42, NP, NP, NP, NP, 4},  {44, NP, NP, NP, NP, 4}, {46, NP, NP, NP, NP, 4},   {47, 16, 128, NP, NP, NP},
    {48, NP, NP, NP, NP, 4},
};

// Load immediates DOC-d3 prints: P1 40 loads "+0...+19968" (§2), 16 seeds 81920..82160 (§2, §4/E9); P2..P9 the two
// load bases of §4/E2-E8 ("the tool's weight bytes column minus its usual +12"); P12 §4/E11 {103680, ..., 107264}
// (7 of its 8 loads listed); P16 182016 + 512 i, C 186112..186160 (§4/E15); P17 186176 "+512 per load up to
// +189760" (§4/E16); P18 C 194624..194672 (§4/E17); P20 C 202880..202928 (§4/E19); P19, P21..P27, P47: the first
// offsets of §4/E20...E46's block list; P48 B {314368, ..., 315904}, C {316416, 316432} (§4/E47).
const Loads kDec3Loads[] = {
    {1, 0, 19968, 81920, 82160},      {2, 83200, 83712, NP, NP},    {3, 87296, 87808, NP, NP},        {4, 84224, 84736, NP, NP},
    {5, 88320, 88832, NP, NP},        {6, 85248, 85760, NP, NP},    {7, 89344, 89856, NP, NP},        {8, 86272, 86784, NP, NP},
    {9, 90368, 90880, NP, NP},        {12, 103680, 107264, NP, NP}, {16, 182016, NP, 186112, 186160}, {17, 186176, 189760, NP, NP},
    {18, 190528, NP, 194624, 194672}, {19, 194688, NP, NP, NP},     {20, 198784, NP, 202880, 202928}, {21, 202944, NP, NP, NP},
    {22, 207040, NP, NP, NP},         {23, 211200, NP, NP, NP},     {24, 215296, NP, NP, NP},         {25, 219456, NP, NP, NP},
    {26, 223552, NP, NP, NP},         {27, 227712, NP, NP, NP},     {47, 310272, NP, NP, NP},         {48, 314368, 315904, 316416, 316432},
};

// DOC-d3 §2 "Phase 1's B block occupies [0, 20480)". (§4/E20...E46's "[a, b)" list ends at the last load + 512 + 12,
// e.g. P48 "[314368, 316428)" for loads up to 315904: neither the tool's convention nor the extent; not compared.)
const Extent kDec3Extents[] = {
    {1, 0, 20480, NP, NP},
};

TEST(NetworkLayers, Dec3ReproducesDocD3DerivedRows) {
  expect_rows(LayerId::dec3, kDec3Rows);
  expect_real(LayerId::dec3, kDec3Real);
  expect_loads(LayerId::dec3, kDec3Loads);
  expect_extents(LayerId::dec3, kDec3Extents);
  // §4/E12-E14: P12..P15 are one 16x128x128 GEMM in four k-chained phases.
  int k = 0;
  for (int p = 12; p <= 15; ++p) {
    SCOPED_TRACE("phase " + std::to_string(p));
    EXPECT_EQ(ph(LayerId::dec3, p).real.m, 16);
    EXPECT_EQ(ph(LayerId::dec3, p).real.n, 128);
    k += ph(LayerId::dec3, p).real.k;
  }
  EXPECT_EQ(k, 128);
}

TEST(NetworkLayers, Dec3ScoreBiasTakesTheGroupRelativeReading) {
  // C3: DOC-d3 §4/E9 writes P10's 24 C tiles as "W + z*24576 + 16*laneid + 8192 + 512*i", "[8192, 20480) inside the
  // phase-2...9 weight group" (§6/U3, U4 repeat 8192...20480). Absolute [8192, 20480) would lie inside phase 1's B
  // block [0, 20480) (§2). The evidence line `add.s64 %rd300, %rd631, 8192` adds 8192 to the group's base register,
  // and the group starts at 83200 (§4/E1 s9137, §4/E2-E8): the block is [83200 + 8192, +12288), ending where P12's B
  // begins (103680, §4/E11).
  const rrswin::LayerSpec& s = spec(LayerId::dec3);
  const Phase& p10 = ph(LayerId::dec3, 10);
  EXPECT_EQ(p10.c, OperandSource::weights);
  EXPECT_EQ(p10.bias_begin, 83200u + 8192u);
  EXPECT_NE(p10.bias_begin, 8192u);
  const rrswin::ByteRange c = rrswin::layer_bias_extent(s, p10, 0);
  EXPECT_EQ(c.begin, 83200u + 8192u);
  EXPECT_EQ(c.end, 103680u);
  EXPECT_EQ(c.size(), 12288u);
}

TEST(NetworkLayers, Dec3WeightImageAsDocumented) {
  const rrswin::LayerSpec& s = spec(LayerId::dec3);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  // DOC-d3 §2: "the image is at least 316436 bytes" (P48's second C seed at +316432, plus 4: the tool's extent); §7.
  EXPECT_EQ(m.tool_extent(), 316436u);
  // g1 {82944 ... 83184} (§4/E1, 16 loads), T1 {181504, ..., 181744} (§4/E11, P12's C table).
  EXPECT_EQ(m.g1(), 82944u);
  EXPECT_EQ(m.t1(), 181504u);
  // Per-warp strides. Phase 1's B: HIP-d3's phase-1 comment "W + z*20480" (DOC-d3 §0 reads x20480 at s434 as the
  // input-buffer stride: the extractor's C1b); its seeds W + z*256 (§0 "the bias stride (x256", §4/E9); P2..P9 and P10's
  // score bias W + z*24576 (§0 s9101/s9102, §4/E2-E8, §4/E9).
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec3, 1), 1).begin, 20480u);
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec3, 1), 1).begin, 81920u + 256u);
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec3, 2), 1).begin, 83200u + 24576u);
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec3, 10), 1).begin, 83200u + 8192u + 24576u);
}

TEST(NetworkLayers, Dec3LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::dec3).abi;
  // HIP-d3 header "four waves per block (blockDim (32, 1, 4))", REC-d3 DEBUG_WAVES. (DOC-d3 §6/U7 only bounds z <= 5.)
  // The grid is not stated by any dec3 file (not compared).
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 4}));
  EXPECT_EQ(a.shared_bytes, 12800);     // DOC-d3 §0 "the 12800-byte shared array"
  EXPECT_EQ(a.param_block_bytes, 144);  // HIP-d3 static_assert
  EXPECT_EQ(a.ex, 160);                 // REC-d3 DEBUG_BASE note: 8*ex*ey = 8*160*92 words
  EXPECT_EQ(a.ey, 92);
  // DOC-d3 §1.1: +0 (s14), +8 (s29), +24 ([%rd1-56], the skip input), +40 (s8), +48 (s19164), +80 (s5), +88, +96,
  // +104 (textures), +112 (surface, s19449), +136 (scale, s19544).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.skip, 24);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.int_textures, (std::array<int, 2>{96, 104}));
  EXPECT_EQ(a.surfaces[0], 112);
  EXPECT_EQ(a.scale, 136);
}

// ================================================================================================================
// 7. dec2 (DOC-d2 §5)
// ================================================================================================================

// DOC-d2 §5 "The phase table, M/N/K checked", all 38 rows (kernels/rr/rrswin_dec2_epilogues.md): stmts, M, N, K, mma,
// "holds?" ("**no**" = the tool's grid = band, "yes" = full, §5), weight bytes ("**none**" = 0, 0), bias bytes ("–" =
// 0, 0). epi: §2's "stmts" of E<n> (not a column of §5).
const Row kDec2Rows[] = {
    {1, "s452-s595", 192, 384, 128, 144, 1, 0, 11788, 49152, 49328, 6493},
    {2, "s7089-s7112", 96, 32, 32, 24, 0, 50112, 50636, 0, 0, 7},
    {3, "s7120-s7143", 96, 32, 32, 24, 0, 53184, 53708, 0, 0, 7},
    {4, "s7151-s7174", 96, 32, 32, 24, 0, 51136, 51660, 0, 0, 7},
    {5, "s7182-s7205", 96, 32, 32, 24, 0, 54208, 54732, 0, 0, 7},
    {6, "s7213-s7236", 96, 32, 32, 24, 0, 52160, 52684, 0, 0, 7},
    {7, "s7244-s7267", 96, 32, 32, 24, 0, 55232, 55756, 0, 0, 171},
    {8, "s7439-s7486", 64, 96, 32, 48, 0, 0, 0, 56256, 68044, 3843},
    {9, "s11330-s11377", 192, 96, 96, 48, 1, 0, 0, 0, 0, 169},
    {10, "s11547-s11558", 16, 96, 32, 12, 0, 68544, 71116, 0, 0, 19},
    {11, "s11578-s11589", 16, 96, 32, 12, 0, 90048, 92620, 0, 0, 19},
    {12, "s11609-s11620", 16, 96, 32, 12, 0, 111552, 114124, 0, 0, 19},
    {13, "s11640-s11651", 16, 96, 32, 12, 0, 133056, 135628, 0, 0, 636},
    {14, "s12288-s12299", 48, 96, 96, 12, 1, 136512, 139084, 139584, 139632, 257},
    {15, "s12557-s12568", 16, 96, 32, 12, 0, 139648, 142220, 0, 0, 60},
    {16, "s12629-s12640", 48, 96, 96, 12, 1, 142912, 145484, 145984, 146032, 164},
    {17, "s12805-s12816", 16, 96, 32, 12, 0, 146048, 148620, 0, 0, 60},
    {18, "s12877-s12888", 48, 96, 96, 12, 1, 149120, 151692, 152192, 152240, 164},
    {19, "s13053-s13064", 16, 96, 32, 12, 0, 152256, 154828, 0, 0, 60},
    {20, "s13125-s13136", 48, 96, 96, 12, 1, 155328, 157900, 158400, 158448, 164},
    {21, "s13301-s13312", 16, 96, 32, 12, 0, 158464, 161036, 0, 0, 60},
    {22, "s13373-s13384", 48, 96, 96, 12, 1, 161536, 164108, 164608, 164656, 164},
    {23, "s13549-s13560", 16, 96, 32, 12, 0, 164672, 167244, 0, 0, 60},
    {24, "s13621-s13632", 48, 96, 96, 12, 1, 167744, 170316, 170816, 170864, 164},
    {25, "s13797-s13808", 16, 96, 32, 12, 0, 170880, 173452, 0, 0, 60},
    {26, "s13869-s13880", 48, 96, 96, 12, 1, 173952, 176524, 177024, 177072, 164},
    {27, "s14045-s14056", 16, 96, 32, 12, 0, 177088, 179660, 0, 0, 60},
    {28, "s14117-s14128", 48, 96, 96, 12, 1, 180160, 182732, 183232, 183280, 164},
    {29, "s14293-s14304", 16, 96, 32, 12, 0, 183296, 185868, 0, 0, 60},
    {30, "s14365-s14376", 48, 96, 96, 12, 1, 186368, 188940, 189440, 189488, 164},
    {31, "s14541-s14552", 16, 96, 32, 12, 0, 189504, 192076, 0, 0, 60},
    {32, "s14613-s14624", 48, 96, 96, 12, 1, 192576, 195148, 195648, 195696, 164},
    {33, "s14789-s14800", 16, 96, 32, 12, 0, 195712, 198284, 0, 0, 60},
    {34, "s14861-s14872", 48, 96, 96, 12, 1, 198784, 201356, 201856, 201904, 164},
    {35, "s15037-s15048", 16, 96, 32, 12, 0, 201920, 204492, 0, 0, 60},
    {36, "s15109-s15120", 48, 96, 96, 12, 1, 204992, 207564, 208064, 208112, 164},
    {37, "s15285-s15296", 16, 96, 32, 12, 0, 208128, 210700, 0, 0, 208},
    {38, "s15505-s15510", 48, 48, 96, 6, 1, 211200, 212236, 212736, 212752, 286},
};

// DOC-d2 prints no corrected shape (§7/U2 declines). REC-d2's docstring: phase 1 is 12 A fragments = 3 m-tiles x 4
// k-slices and 48 B fragments = 12 n-tiles x 4 k-slices, 144 mma in 36 chains of four, i.e. 48x96x128 (HIP-d2 too).
const Real kDec2Real[] = {
    {1, 48, 96, 128, 36, 4},
};

// DOC-d2 §3/E7: P8's score bias is the byte block "[56256, 68544)" (the table prints the last slot, 68044).
const Extent kDec2Extents[] = {
    {8, 0, 0, 56256, 68544},
};

TEST(NetworkLayers, Dec2ReproducesDocD2EveryRow) {
  expect_rows(LayerId::dec2, kDec2Rows);
  expect_real(LayerId::dec2, kDec2Real);
  expect_extents(LayerId::dec2, kDec2Extents);
  // §5 marks 15 rows "**no**" (P1, P9, P14...P36 even, P38); §7/U2 calls them "the thirteen banded phases" (C6).
  int banded = 0;
  for (const Phase& p : rrswin::layer_program(LayerId::dec2).phases) banded += p.band ? 1 : 0;
  EXPECT_EQ(banded, 15);
  EXPECT_NE(banded, 13);
}

TEST(NetworkLayers, Dec2StemOrderTakesTheTable) {
  // C2: DOC-d2 §3/E2...E6's table pairs "E2 50112...50636" with "P3's B", E3 53184 with P4, and so on; §5 gives P2 =
  // 50112, P3 = 53184, P4 = 51136, P5 = 54208, P6 = 52160, P7 = 55232, and §3/E2...E6's own layout sentence (P2, P4,
  // P6, P3, P5, P7 in 1024-byte blocks at W + 50112 + 1024 k) agrees with §5.
  EXPECT_EQ(ph(LayerId::dec2, 3).weight_begin, 53184u);
  EXPECT_NE(ph(LayerId::dec2, 3).weight_begin, 50112u);
  EXPECT_EQ(ph(LayerId::dec2, 2).weight_begin, 50112u);
}

TEST(NetworkLayers, Dec2WeightImageAsDocumented) {
  const rrswin::LayerSpec& s = spec(LayerId::dec2);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  // DOC-d2 §5: "the largest resolved offset is 212752 (s15504, 4 bytes wide) => 212756 bytes (1082 distinct slots)";
  // §8 "212756 bytes"; §7/U7 calls it a lower bound. It is the tool's extent.
  EXPECT_EQ(m.tool_extent(), 212756u);
  // Tables: g1 {49920...50096} (§3/E1), T1 136128...136304 (E9), g2 136320...136496 (E13 gain), T3 142720...142896
  // (E14) (§7/U4).
  EXPECT_EQ(m.g1(), 49920u);
  EXPECT_EQ(m.t1(), 136128u);
  EXPECT_EQ(m.g2(), 136320u);
  EXPECT_EQ(m.t3(), 142720u);
  // §1.1: phase 1's B at W + 12288 tid.z + 16 laneid, its seeds at W + 192 tid.z + ... + 49152...49328.
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec2, 1), 1).begin, 12288u);
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec2, 1), 1).begin, 49152u + 192u);
}

TEST(NetworkLayers, Dec2LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::dec2).abi;
  // HIP-d2 header: grid (41, 24, 1), four waves per block (32, 1, 4). DOC-d2 §5: E38 rejects tid.z > 1 (s15561), a
  // guard of the final epilogue only (the extractor's C1); the row takes HIP-d2's launch.
  EXPECT_EQ(a.grid, (std::array<int, 3>{41, 24, 1}));
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 4}));
  EXPECT_EQ(a.shared_bytes, 9600);      // DOC-d2 §1.1 `smem[9600]` (L1027)
  EXPECT_EQ(a.param_block_bytes, 144);  // HIP-d2 static_assert(sizeof == 144)
  // DOC-d2 §1.1, §4, §6: +0 (s13), +8 (s28), +24 (s2288), +40 (s7), +48 (s15333), +80 (s4), +88 (s15683), +96
  // (s15759), +104 (s15761), +112 (s15582), +136 (s15677).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.skip, 24);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.int_textures, (std::array<int, 2>{96, 104}));
  EXPECT_EQ(a.surfaces[0], 112);
  EXPECT_EQ(a.scale, 136);
}

// ================================================================================================================
// 8. dec1 (DOC-d1 §5)
// ================================================================================================================

// DOC-d1 §5, all 26 rows (kernels/rr/rrswin_dec1_epilogues.md): stmts, M, N, K, mma, "holds?" ("**no**" = band),
// weight bytes ("**none**" = 0, 0), bias bytes ("–" = 0, 0). epi: §2's "stmts" of E<n> (not a column of §5).
const Row kDec1Rows[] = {
    {1, "s403-s546", 144, 384, 96, 144, 1, 0, 11788, 24576, 24816, 6549},
    {2, "s7096-s7119", 96, 32, 32, 24, 0, 25216, 25740, 0, 0, 7},
    {3, "s7127-s7150", 96, 32, 32, 24, 0, 27264, 27788, 0, 0, 7},
    {4, "s7158-s7181", 96, 32, 32, 24, 0, 26240, 26764, 0, 0, 7},
    {5, "s7189-s7212", 96, 32, 32, 24, 0, 28288, 28812, 0, 0, 171},
    {6, "s7384-s7431", 64, 96, 32, 48, 0, 0, 0, 29312, 41100, 3843},
    {7, "s11275-s11322", 192, 96, 96, 48, 1, 0, 0, 0, 0, 183},
    {8, "s11506-s11521", 32, 64, 32, 16, 0, 41600, 43148, 0, 0, 16},
    {9, "s11538-s11553", 32, 64, 32, 16, 0, 60032, 61580, 0, 0, 843},
    {10, "s12397-s12412", 64, 64, 64, 16, 1, 62336, 63884, 64384, 64432, 421},
    {11, "s12834-s12849", 32, 64, 32, 16, 0, 64448, 65996, 0, 0, 68},
    {12, "s12918-s12933", 64, 64, 64, 16, 1, 66624, 68172, 68672, 68720, 308},
    {13, "s13242-s13257", 32, 64, 32, 16, 0, 68736, 70284, 0, 0, 68},
    {14, "s13326-s13341", 64, 64, 64, 16, 1, 70784, 72332, 72832, 72880, 308},
    {15, "s13650-s13665", 32, 64, 32, 16, 0, 72896, 74444, 0, 0, 68},
    {16, "s13734-s13749", 64, 64, 64, 16, 1, 74944, 76492, 76992, 77040, 308},
    {17, "s14058-s14073", 32, 64, 32, 16, 0, 77056, 78604, 0, 0, 68},
    {18, "s14142-s14157", 64, 64, 64, 16, 1, 79104, 80652, 81152, 81200, 308},
    {19, "s14466-s14481", 32, 64, 32, 16, 0, 81216, 82764, 0, 0, 68},
    {20, "s14550-s14565", 64, 64, 64, 16, 1, 83264, 84812, 85312, 85360, 308},
    {21, "s14874-s14889", 32, 64, 32, 16, 0, 85376, 86924, 0, 0, 68},
    {22, "s14958-s14973", 64, 64, 64, 16, 1, 87424, 88972, 89472, 89520, 308},
    {23, "s15282-s15297", 32, 64, 32, 16, 0, 89536, 91084, 0, 0, 68},
    {24, "s15366-s15381", 64, 64, 64, 16, 1, 91584, 93132, 93632, 93680, 308},
    {25, "s15690-s15705", 32, 64, 32, 16, 0, 93696, 95244, 0, 0, 275},
    {26, "s15981-s15988", 64, 32, 64, 8, 1, 95744, 96268, 96768, 96784, 316},
};

TEST(NetworkLayers, Dec1ReproducesDocD1EveryRow) {
  expect_rows(LayerId::dec1, kDec1Rows);
  // §5 marks 11 rows "**no**" (P1, P7, P10, P12, ..., P24, P26); §7/U1's heading says "the nine banded phases" (C9).
  int banded = 0;
  for (const Phase& p : rrswin::layer_program(LayerId::dec1).phases) banded += p.band ? 1 : 0;
  EXPECT_EQ(banded, 11);
  EXPECT_NE(banded, 9);
}

TEST(NetworkLayers, Dec1ContradictionsTakeTheTable) {
  const rrswin::LayerSpec& s = spec(LayerId::dec1);
  // C1: §3's "Shape of the attention region" prints P2 B = W+25216+2048 and P3 B = W+25216+0; §5 has P2 = 25216 and P3
  // = 27264, and §3/E2 lays the sub-image out P2, P4, P3, P5 (as DESC-d1 phases(): P2 b_off 0, P3 2048).
  EXPECT_EQ(ph(LayerId::dec1, 2).weight_begin, 25216u);
  EXPECT_NE(ph(LayerId::dec1, 2).weight_begin, 25216u + 2048u);
  EXPECT_EQ(ph(LayerId::dec1, 3).weight_begin, 25216u + 2048u);
  // C6: §1.1's tid.z-stride table gives phase 1's bias stride as 256 tid.z (seeds at W + 256 tid.z + 24576...24816);
  // §7/U6's "192 for phase 1's bias" is dec2's stride (DOC-d2 §1.1).
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec1, 1), 1).begin, 24576u + 256u);
  EXPECT_NE(rrswin::layer_bias_extent(s, ph(LayerId::dec1, 1), 1).begin, 24576u + 192u);
  // C7: §3/E5 prints P6's score-bias block as "[18432 tid.z + 29312, +41100)"; 41100 is the table's last slot + 12
  // (§5), and the 24 tiles of 512 bytes end where §5 puts P8's B, 41600.
  const rrswin::ByteRange c6 = rrswin::layer_bias_extent(s, ph(LayerId::dec1, 6), 0);
  EXPECT_EQ(c6.begin, 29312u);
  EXPECT_EQ(c6.end, 41600u);
  EXPECT_NE(c6.end, 41100u);
}

TEST(NetworkLayers, Dec1WeightImageAsDocumented) {
  const rrswin::LayerSpec& s = spec(LayerId::dec1);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  // DOC-d1 §5: "the largest resolved offset is 96784 (s15980, 4 bytes wide) => 96788 bytes (634 distinct slots)"; §8
  // "96788 bytes, 634 slots" (§7/U6: a lower bound): the tool's extent. DESC-d1 layer() param_offsets[40]: "arg040,
  // 96,800 bytes": the whole image.
  EXPECT_EQ(m.tool_extent(), 96788u);
  EXPECT_EQ(m.image_bytes(), 96800u);
  // g1: E1's gain W + ((laneid 4) & 12) + {25088...25200} (§3/E1; DESC-d1 gain_byte_offset 25088).
  EXPECT_EQ(m.g1(), 25088u);
  // §1.1/§5 strides: phase 1's B at W + 12288 tid.z; P2..P5's B and P6's score bias + 18432 tid.z (§5 cells, §1.1
  // "W + 18432 tid.z + 25216").
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec1, 1), 1).begin, 12288u);
  EXPECT_EQ(rrswin::layer_weight_extent(s, ph(LayerId::dec1, 2), 1).begin, 25216u + 18432u);
  EXPECT_EQ(rrswin::layer_bias_extent(s, ph(LayerId::dec1, 6), 1).begin, 29312u + 18432u);
}

TEST(NetworkLayers, Dec1LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::dec1).abi;
  // DESC-d1 layer() "grid" (81, 47, 1) and "block" (32, 1, 2) (waves = 2, tid.z the window); HIP-d1 header; REC-d1
  // DEBUG_GRID_X = 81.
  EXPECT_EQ(a.grid, (std::array<int, 3>{81, 47, 1}));
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 2}));
  EXPECT_EQ(a.shared_bytes, 6400);      // DOC-d1 §1.1 `.shared ... smem[6400]`; DESC-d1 shared_bytes
  EXPECT_EQ(a.param_block_bytes, 144);  // DESC-d1 docstring param_0[144]; HIP-d1 static_assert
  EXPECT_EQ(a.ex, 640);                 // REC-d1 note above DEBUG_BASE: E25 writes 8*ex*ey*4 bytes "at 640x368"
  EXPECT_EQ(a.ey, 368);
  // DOC-d1 §1.1, §4, §6: +0 (s14), +8 (s29), +24 ([%rd1-56], s2215), +40 (s8), +48 (s15754), +80 (s5), +88 (s16191),
  // +96 (s16267), +104 (s16269), +112 (s16090), +136 (s16185).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.skip, 24);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.int_textures, (std::array<int, 2>{96, 104}));
  EXPECT_EQ(a.surfaces[0], 112);
  EXPECT_EQ(a.scale, 136);
}

// ================================================================================================================
// 9. dec0 (DOC-d0 §2.1)
// ================================================================================================================

// DOC-d0 §2.1 "The phase table", all 19 rows (kernels/rr/rrswin_dec0_epilogues.md): stmts, the tool's M/N/K, mma,
// grid ("band" / "full"), weight bytes ("*(none)*" = 0, 0), bias bytes ("–" = 0, 0), epi. (Phase 4's weight cell:
// §2.1 prints "(none)", §2.4 says the tool printed "?": the extractor's C15; B comes from registers either way.)
const Row kDec0Rows[] = {
    {1, "s326-s421", 96, 256, 64, 96, 1, 0, 7692, 8192, 8432, 5515},
    {2, "s5937-s5960", 96, 32, 32, 24, 0, 8512, 9036, 0, 0, 7},
    {3, "s5968-s5991", 96, 32, 32, 24, 0, 9536, 10060, 0, 0, 171},
    {4, "s6163-s6210", 64, 96, 32, 48, 0, 0, 0, 10560, 22348, 3843},
    {5, "s10054-s10101", 192, 96, 96, 48, 1, 0, 0, 0, 0, 160},
    {6, "s10262-s10277", 64, 32, 32, 16, 0, 22848, 23372, 0, 0, 7},
    {7, "s10285-s10308", 96, 32, 32, 24, 0, 23872, 24396, 0, 0, 7},
    {8, "s10316-s10339", 96, 32, 32, 24, 0, 24896, 25420, 0, 0, 171},
    {9, "s10511-s10558", 64, 96, 32, 48, 0, 0, 0, 25920, 37708, 3838},
    {10, "s14397-s14444", 192, 96, 96, 48, 1, 0, 0, 0, 0, 55},
    {11, "s14500-s14515", 64, 32, 32, 16, 0, 38208, 38732, 0, 0, 887},
    {12, "s15403-s15418", 64, 32, 32, 16, 0, 39360, 39884, 40384, 40432, 709},
    {13, "s16128-s16143", 64, 32, 32, 16, 0, 40448, 40972, 0, 0, 64},
    {14, "s16208-s16223", 64, 32, 32, 16, 0, 41536, 42060, 42560, 42608, 600},
    {15, "s16824-s16839", 64, 32, 32, 16, 0, 42624, 43148, 0, 0, 64},
    {16, "s16904-s16919", 64, 32, 32, 16, 0, 43648, 44172, 44672, 44720, 600},
    {17, "s17520-s17535", 64, 32, 32, 16, 0, 44736, 45260, 0, 0, 64},
    {18, "s17600-s17615", 64, 32, 32, 16, 0, 45760, 46284, 46784, 46832, 600},
    {19, "s18216-s18231", 64, 32, 32, 16, 0, 46848, 47372, 0, 0, 929},
};

// DOC-d0 §2.2 corrects the banded rows only: phase 1 = 48x128x64, 48 chains of length 2 (6 A quads = 3 m-tiles x 2
// k-slices, 32 B pairs = 16 n-tiles x 2 k-slices); phases 5 and 10 = 64x32x96, 16 chains of length 3.
const Real kDec0Real[] = {
    {1, 48, 128, 64, 48, 2},
    {5, 64, 32, 96, 16, 3},
    {10, 64, 32, 96, 16, 3},
};

TEST(NetworkLayers, Dec0ReproducesDocD0EveryRow) {
  expect_rows(LayerId::dec0, kDec0Rows);
  expect_real(LayerId::dec0, kDec0Real);
  // §2.2: the rows the table marks "full" satisfy M/16 * N/8 * K/32 == mma as printed, i.e. their printed shape is
  // the real one. (§2.2 says "15 of the 19" and "four failures", while the table marks three rows "band": C1.)
  for (const Row& r : kDec0Rows) {
    if (r.band != 0) continue;
    SCOPED_TRACE("phase " + std::to_string(r.number));
    const Phase& p = ph(LayerId::dec0, r.number);
    EXPECT_EQ(p.real.m, r.m);
    EXPECT_EQ(p.real.n, r.n);
    EXPECT_EQ(p.real.k, r.k);
  }
}

TEST(NetworkLayers, Dec0ContradictionsTakeTheTable) {
  // C4: DOC-d0 §3's "E13 / E15 / E17" table lists B loads "+40448, +40960" (E13) etc., the weights of phases 13/15/17
  // themselves, although each epilogue precedes phase 14/16/18, whose B §2.1 puts at 41536/43648/45760.
  EXPECT_EQ(ph(LayerId::dec0, 14).weight_begin, 41536u);
  EXPECT_NE(ph(LayerId::dec0, 14).weight_begin, 40448u);
  // C5: §3's "Shape of the whole MLP region" gives the biases 40384/42560/44672 to phases 13/15/17; §2.1 gives them to
  // 12/14/16 and 46784 to 18 (and §1.2 puts the activations in E12/E14/E16/E18).
  EXPECT_EQ(ph(LayerId::dec0, 12).bias_begin, 40384u);
  EXPECT_NE(ph(LayerId::dec0, 13).c, OperandSource::weights);
  // C12: DESC-d0's p18 epilogue loads phase 19's B at {46848, 46960}; §2.1 row 19 "46848..47372" (a second tile at
  // 47360).
  EXPECT_NE(ph(LayerId::dec0, 19).weight_end, 46960u + 12u);
}

TEST(NetworkLayers, Dec0WeightImageAsDocumented) {
  const rrswin::LayerSpec& s = spec(LayerId::dec0);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  // DOC-d0 §1.1 "W (weight image, 47376 bytes)"; §2.3 "The largest byte actually loaded is W+47372 ... and 47372+4 =
  // 47376" (§7 "47376 bytes"; DESC-d0, REC-d0): the tool's rule, largest immediate + 4.
  EXPECT_EQ(m.tool_extent(), 47376u);
  // The C6 doubt: the +47372 word belongs to phase 19's v4 tile at W + 16 laneid + 47360 (§2.1 row 19, 46848..47372),
  // which spans 32 lanes; the image the loads need is larger than the tool's 47376 and ends with that tile.
  EXPECT_GT(m.image_bytes(), 47376u);
  EXPECT_EQ(m.image_bytes(), rrswin::layer_weight_extent(s, ph(LayerId::dec0, 19), 0).end);
}

TEST(NetworkLayers, Dec0LaunchAsDocumented) {
  const rrswin::LaunchAbi& a = spec(LayerId::dec0).abi;
  // DESC-d0 layer(), HIP-d0 header, REC-d0 docstring: grid (161, 93, 1), block (32, 1, 1) (one wave).
  EXPECT_EQ(a.grid, (std::array<int, 3>{161, 93, 1}));
  EXPECT_EQ(a.block, (std::array<int, 3>{32, 1, 1}));
  EXPECT_EQ(a.param_block_bytes, 152);  // DESC-d0 param_bytes, HIP-d0 raw[152], DOC-d0 §4 (the tool's report)
  EXPECT_EQ(a.shared_bytes, 3200);      // DOC-d0 §0: smem "declared 3200 bytes by the cut-ABI dump"
  // DOC-d0 §4: +0 (s13), +8 (s29), +24 (s1459), +40 (s11), +48 (the e4m3 output, st.global.v4.u16 at s18502/s18847),
  // +80 (s5), +88 (s18702), +96/+104 (s18778/s18780), +112 (sust.b, s18813), +136 (scale, s18696), +144 (sust.p,
  // s18603). Not read: +120, +128 (§4.2, U1), +32, +56 (U2).
  EXPECT_EQ(a.extents, 0);
  EXPECT_EQ(a.input, 8);
  EXPECT_EQ(a.skip, 24);
  EXPECT_EQ(a.weights, 40);
  EXPECT_EQ(a.arena, 48);
  EXPECT_EQ(a.origin, 80);
  EXPECT_EQ(a.texture, 88);
  EXPECT_EQ(a.int_textures, (std::array<int, 2>{96, 104}));
  EXPECT_EQ(a.scale, 136);
  EXPECT_EQ(a.surface_count, 2);
  EXPECT_EQ(a.surfaces[0], 112);
  EXPECT_EQ(a.surfaces[1], 144);
  EXPECT_EQ(a.merged_output, -1);
}

// ================================================================================================================
// 10. The regions tile each image
// ================================================================================================================

TEST(NetworkLayers, WeightRegionsTileEachImage) {
  for (LayerId id :
       {LayerId::enc0, LayerId::enc1, LayerId::enc2, LayerId::dec4, LayerId::dec3, LayerId::dec2, LayerId::dec1, LayerId::dec0}) {
    const rrswin::LayerSpec& s = spec(id);
    SCOPED_TRACE(std::string(s.name));
    const auto regions = rrswin::layer_weight_regions(s);
    ASSERT_FALSE(regions.empty());
    std::uint32_t at = 0;
    for (const rrswin::Region& r : regions) {
      EXPECT_EQ(r.begin, at) << r.name;
      EXPECT_GT(r.end, r.begin) << r.name;
      at = r.end;
    }
    EXPECT_EQ(at, rrswin::weight_map(s).image_bytes());
  }
}

}  // namespace
