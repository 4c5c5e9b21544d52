// The layer template (model/layer_spec.hpp, model/layer_program.hpp) against its sources. Every
// expected value is TYPED from a document, never computed by the code under test:
//   * enc5: the template's program and regions must equal enc5's own tables (model/phase_program,
//     model/weight_image), which phase_program_test / weight_image_test check against the spec;
//   * enc4: every row of DOC4 §2 (d4r kernels/rr/rrswin_enc4_epilogues.md, the phase table) and the
//     numbers of DOC4 §1.1/§1.4/§2/§3 and DESC4 (descriptor_enc4.py layer());
//   * enc3: every row of DOC3 §2 (rrswin_enc3_epilogues.md) and DOC3 §1/§3, DESC3 layer().
// Where a document contradicts itself or enc5's spec, the test states which side the template takes
// and the reading of docs/readings.md §7 that records it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "assets/synthetic_weights.hpp"
#include "model/layer.hpp"
#include "model/layer_program.hpp"
#include "model/layer_spec.hpp"
#include "model/phase_program.hpp"
#include "model/weight_image.hpp"

namespace {

using rrswin::LayerId;
using rrswin::OperandSource;
using rrswin::Phase;
using rrswin::PhaseKind;

// One printed row of DOC4 §2 / DOC3 §2: #, stmt range, M, N, K (the tool's), mma, chains, klens,
// "=?" (N = banded), weight bytes, C bias bytes ("–" = 0..0), epi.
struct DocRow {
  int number;
  const char* stmts;
  int m, n, k, mma, chains, klens;
  bool band;
  unsigned w_begin, w_end, b_begin, b_end;
  int epi;
};

// DOC4 §2, all 62 rows.
const DocRow kEnc4Rows[] = {
    {1, "s7554-s7577", 96, 32, 32, 24, 24, 1, false, 320u, 844u, 0u, 0u, 7},
    {2, "s7585-s7608", 96, 32, 32, 24, 24, 1, false, 5440u, 5964u, 0u, 0u, 7},
    {3, "s7616-s7639", 96, 32, 32, 24, 24, 1, false, 1344u, 1868u, 0u, 0u, 7},
    {4, "s7647-s7670", 96, 32, 32, 24, 24, 1, false, 6464u, 6988u, 0u, 0u, 7},
    {5, "s7678-s7701", 96, 32, 32, 24, 24, 1, false, 2368u, 2892u, 0u, 0u, 7},
    {6, "s7709-s7732", 96, 32, 32, 24, 24, 1, false, 7488u, 8012u, 0u, 0u, 7},
    {7, "s7740-s7763", 96, 32, 32, 24, 24, 1, false, 3392u, 3916u, 0u, 0u, 7},
    {8, "s7771-s7794", 96, 32, 32, 24, 24, 1, false, 8512u, 9036u, 0u, 0u, 7},
    {9, "s7802-s7825", 96, 32, 32, 24, 24, 1, false, 4416u, 4940u, 0u, 0u, 7},
    {10, "s7833-s7856", 96, 32, 32, 24, 24, 1, false, 9536u, 10060u, 0u, 0u, 171},
    {11, "s8028-s8075", 64, 96, 32, 48, 48, 1, false, 0u, 0u, 10560u, 22348u, 3844},
    {12, "s11920-s11967", 192, 96, 96, 48, 16, 3, true, 0u, 0u, 0u, 0u, 274},
    {13, "s12242-s12261", 16, 160, 32, 20, 20, 1, false, 22848u, 27468u, 0u, 0u, 27},
    {14, "s12289-s12308", 16, 160, 32, 20, 20, 1, false, 50496u, 55116u, 0u, 0u, 27},
    {15, "s12336-s12355", 16, 160, 32, 20, 20, 1, false, 78144u, 82764u, 0u, 0u, 27},
    {16, "s12383-s12402", 16, 160, 32, 20, 20, 1, false, 105792u, 110412u, 0u, 0u, 27},
    {17, "s12430-s12449", 16, 160, 32, 20, 20, 1, false, 133440u, 138060u, 0u, 0u, 27},
    {18, "s12477-s12496", 16, 160, 32, 20, 20, 1, false, 161088u, 165708u, 0u, 0u, 27},
    {19, "s12524-s12543", 16, 160, 32, 20, 20, 1, false, 188736u, 193356u, 0u, 0u, 27},
    {20, "s12571-s12590", 16, 160, 32, 20, 20, 1, false, 216384u, 221004u, 0u, 0u, 1029},
    {21, "s13620-s13639", 80, 160, 160, 20, 4, 5, true, 222144u, 226764u, 227264u, 227312u, 321},
    {22, "s13961-s13980", 16, 160, 32, 20, 20, 1, false, 227328u, 231948u, 0u, 0u, 92},
    {23, "s14073-s14092", 80, 160, 160, 20, 4, 5, true, 232768u, 237388u, 237888u, 237936u, 172},
    {24, "s14265-s14284", 16, 160, 32, 20, 20, 1, false, 237952u, 242572u, 0u, 0u, 92},
    {25, "s14377-s14396", 80, 160, 160, 20, 4, 5, true, 243072u, 247692u, 248192u, 248240u, 172},
    {26, "s14569-s14588", 16, 160, 32, 20, 20, 1, false, 248256u, 252876u, 0u, 0u, 92},
    {27, "s14681-s14700", 80, 160, 160, 20, 4, 5, true, 253376u, 257996u, 258496u, 258544u, 172},
    {28, "s14873-s14892", 16, 160, 32, 20, 20, 1, false, 258560u, 263180u, 0u, 0u, 92},
    {29, "s14985-s15004", 80, 160, 160, 20, 4, 5, true, 263680u, 268300u, 268800u, 268848u, 172},
    {30, "s15177-s15196", 16, 160, 32, 20, 20, 1, false, 268864u, 273484u, 0u, 0u, 92},
    {31, "s15289-s15308", 80, 160, 160, 20, 4, 5, true, 273984u, 278604u, 279104u, 279152u, 172},
    {32, "s15481-s15500", 16, 160, 32, 20, 20, 1, false, 279168u, 283788u, 0u, 0u, 92},
    {33, "s15593-s15612", 80, 160, 160, 20, 4, 5, true, 284288u, 288908u, 289408u, 289456u, 172},
    {34, "s15785-s15804", 16, 160, 32, 20, 20, 1, false, 289472u, 294092u, 0u, 0u, 92},
    {35, "s15897-s15916", 80, 160, 160, 20, 4, 5, true, 294592u, 299212u, 299712u, 299760u, 172},
    {36, "s16089-s16108", 16, 160, 32, 20, 20, 1, false, 299776u, 304396u, 0u, 0u, 92},
    {37, "s16201-s16220", 80, 160, 160, 20, 4, 5, true, 304896u, 309516u, 310016u, 310064u, 172},
    {38, "s16393-s16412", 16, 160, 32, 20, 20, 1, false, 310080u, 314700u, 0u, 0u, 92},
    {39, "s16505-s16524", 80, 160, 160, 20, 4, 5, true, 315200u, 319820u, 320320u, 320368u, 172},
    {40, "s16697-s16716", 16, 160, 32, 20, 20, 1, false, 320384u, 325004u, 0u, 0u, 92},
    {41, "s16809-s16828", 80, 160, 160, 20, 4, 5, true, 325504u, 330124u, 330624u, 330672u, 172},
    {42, "s17001-s17020", 16, 160, 32, 20, 20, 1, false, 330688u, 335308u, 0u, 0u, 92},
    {43, "s17113-s17132", 80, 160, 160, 20, 4, 5, true, 335808u, 340428u, 340928u, 340976u, 172},
    {44, "s17305-s17324", 16, 160, 32, 20, 20, 1, false, 340992u, 345612u, 0u, 0u, 92},
    {45, "s17417-s17436", 80, 160, 160, 20, 4, 5, true, 346112u, 350732u, 351232u, 351280u, 172},
    {46, "s17609-s17628", 16, 160, 32, 20, 20, 1, false, 351296u, 355916u, 0u, 0u, 92},
    {47, "s17721-s17740", 80, 160, 160, 20, 4, 5, true, 356416u, 361036u, 361536u, 361584u, 172},
    {48, "s17913-s17932", 16, 160, 32, 20, 20, 1, false, 361600u, 366220u, 0u, 0u, 92},
    {49, "s18025-s18044", 80, 160, 160, 20, 4, 5, true, 366720u, 371340u, 371840u, 371888u, 172},
    {50, "s18217-s18236", 16, 160, 32, 20, 20, 1, false, 371904u, 376524u, 0u, 0u, 92},
    {51, "s18329-s18348", 80, 160, 160, 20, 4, 5, true, 377024u, 381644u, 382144u, 382192u, 172},
    {52, "s18521-s18540", 16, 160, 32, 20, 20, 1, false, 382208u, 386828u, 0u, 0u, 92},
    {53, "s18633-s18652", 80, 160, 160, 20, 4, 5, true, 387328u, 391948u, 392448u, 392496u, 172},
    {54, "s18825-s18844", 16, 160, 32, 20, 20, 1, false, 392512u, 397132u, 0u, 0u, 92},
    {55, "s18937-s18956", 80, 160, 160, 20, 4, 5, true, 397632u, 402252u, 402752u, 402800u, 172},
    {56, "s19129-s19148", 16, 160, 32, 20, 20, 1, false, 402816u, 407436u, 0u, 0u, 92},
    {57, "s19241-s19260", 80, 160, 160, 20, 4, 5, true, 407936u, 412556u, 413056u, 413104u, 172},
    {58, "s19433-s19452", 16, 160, 32, 20, 20, 1, false, 413120u, 417740u, 0u, 0u, 92},
    {59, "s19545-s19564", 80, 160, 160, 20, 4, 5, true, 418240u, 422860u, 423360u, 423408u, 172},
    {60, "s19737-s19756", 16, 160, 32, 20, 20, 1, false, 423424u, 428044u, 0u, 0u, 1381},
    {61, "s21138-s21217", 320, 640, 640, 80, 4, 20, true, 428544u, 448524u, 530944u, 530992u, 117},
    {62, "s21335-s21344", 80, 80, 160, 10, 2, 5, true, 531264u, 533324u, 533824u, 533840u, 323},
};

// DOC3 §2, all 48 rows.
const DocRow kEnc3Rows[] = {
    {1, "s6124-s6147", 96, 32, 32, 24, 24, 1, false, 256u, 780u, 0u, 0u, 7},
    {2, "s6155-s6178", 96, 32, 32, 24, 24, 1, false, 4352u, 4876u, 0u, 0u, 7},
    {3, "s6186-s6209", 96, 32, 32, 24, 24, 1, false, 1280u, 1804u, 0u, 0u, 7},
    {4, "s6217-s6240", 96, 32, 32, 24, 24, 1, false, 5376u, 5900u, 0u, 0u, 7},
    {5, "s6248-s6271", 96, 32, 32, 24, 24, 1, false, 2304u, 2828u, 0u, 0u, 7},
    {6, "s6279-s6302", 96, 32, 32, 24, 24, 1, false, 6400u, 6924u, 0u, 0u, 7},
    {7, "s6310-s6333", 96, 32, 32, 24, 24, 1, false, 3328u, 3852u, 0u, 0u, 7},
    {8, "s6341-s6364", 96, 32, 32, 24, 24, 1, false, 7424u, 7948u, 0u, 0u, 171},
    {9, "s6536-s6583", 64, 96, 32, 48, 48, 1, false, 0u, 0u, 8448u, 20236u, 3843},
    {10, "s10427-s10474", 192, 96, 96, 48, 16, 3, true, 0u, 0u, 0u, 0u, 199},
    {11, "s10674-s10689", 16, 128, 32, 16, 16, 1, false, 20736u, 24332u, 0u, 0u, 23},
    {12, "s10713-s10728", 16, 128, 32, 16, 16, 1, false, 45312u, 48908u, 0u, 0u, 23},
    {13, "s10752-s10767", 16, 128, 32, 16, 16, 1, false, 69888u, 73484u, 0u, 0u, 23},
    {14, "s10791-s10806", 16, 128, 32, 16, 16, 1, false, 94464u, 98060u, 0u, 0u, 832},
    {15, "s11639-s11654", 64, 128, 128, 16, 4, 4, true, 99072u, 102668u, 103168u, 103216u, 289},
    {16, "s11944-s11959", 16, 128, 32, 16, 16, 1, false, 103232u, 106828u, 0u, 0u, 76},
    {17, "s12036-s12051", 64, 128, 128, 16, 4, 4, true, 107584u, 111180u, 111680u, 111728u, 168},
    {18, "s12220-s12235", 16, 128, 32, 16, 16, 1, false, 111744u, 115340u, 0u, 0u, 76},
    {19, "s12312-s12327", 64, 128, 128, 16, 4, 4, true, 115840u, 119436u, 119936u, 119984u, 168},
    {20, "s12496-s12511", 16, 128, 32, 16, 16, 1, false, 120000u, 123596u, 0u, 0u, 76},
    {21, "s12588-s12603", 64, 128, 128, 16, 4, 4, true, 124096u, 127692u, 128192u, 128240u, 168},
    {22, "s12772-s12787", 16, 128, 32, 16, 16, 1, false, 128256u, 131852u, 0u, 0u, 76},
    {23, "s12864-s12879", 64, 128, 128, 16, 4, 4, true, 132352u, 135948u, 136448u, 136496u, 168},
    {24, "s13048-s13063", 16, 128, 32, 16, 16, 1, false, 136512u, 140108u, 0u, 0u, 76},
    {25, "s13140-s13155", 64, 128, 128, 16, 4, 4, true, 140608u, 144204u, 144704u, 144752u, 168},
    {26, "s13324-s13339", 16, 128, 32, 16, 16, 1, false, 144768u, 148364u, 0u, 0u, 76},
    {27, "s13416-s13431", 64, 128, 128, 16, 4, 4, true, 148864u, 152460u, 152960u, 153008u, 168},
    {28, "s13600-s13615", 16, 128, 32, 16, 16, 1, false, 153024u, 156620u, 0u, 0u, 76},
    {29, "s13692-s13707", 64, 128, 128, 16, 4, 4, true, 157120u, 160716u, 161216u, 161264u, 168},
    {30, "s13876-s13891", 16, 128, 32, 16, 16, 1, false, 161280u, 164876u, 0u, 0u, 76},
    {31, "s13968-s13983", 64, 128, 128, 16, 4, 4, true, 165376u, 168972u, 169472u, 169520u, 168},
    {32, "s14152-s14167", 16, 128, 32, 16, 16, 1, false, 169536u, 173132u, 0u, 0u, 76},
    {33, "s14244-s14259", 64, 128, 128, 16, 4, 4, true, 173632u, 177228u, 177728u, 177776u, 168},
    {34, "s14428-s14443", 16, 128, 32, 16, 16, 1, false, 177792u, 181388u, 0u, 0u, 76},
    {35, "s14520-s14535", 64, 128, 128, 16, 4, 4, true, 181888u, 185484u, 185984u, 186032u, 168},
    {36, "s14704-s14719", 16, 128, 32, 16, 16, 1, false, 186048u, 189644u, 0u, 0u, 76},
    {37, "s14796-s14811", 64, 128, 128, 16, 4, 4, true, 190144u, 193740u, 194240u, 194288u, 168},
    {38, "s14980-s14995", 16, 128, 32, 16, 16, 1, false, 194304u, 197900u, 0u, 0u, 76},
    {39, "s15072-s15087", 64, 128, 128, 16, 4, 4, true, 198400u, 201996u, 202496u, 202544u, 168},
    {40, "s15256-s15271", 16, 128, 32, 16, 16, 1, false, 202560u, 206156u, 0u, 0u, 76},
    {41, "s15348-s15363", 64, 128, 128, 16, 4, 4, true, 206656u, 210252u, 210752u, 210800u, 168},
    {42, "s15532-s15547", 16, 128, 32, 16, 16, 1, false, 210816u, 214412u, 0u, 0u, 76},
    {43, "s15624-s15639", 64, 128, 128, 16, 4, 4, true, 214912u, 218508u, 219008u, 219056u, 168},
    {44, "s15808-s15823", 16, 128, 32, 16, 16, 1, false, 219072u, 222668u, 0u, 0u, 76},
    {45, "s15900-s15915", 64, 128, 128, 16, 4, 4, true, 223168u, 226764u, 227264u, 227312u, 168},
    {46, "s16084-s16099", 16, 128, 32, 16, 16, 1, false, 227328u, 230924u, 0u, 0u, 564},
    {47, "s16664-s16727", 256, 512, 512, 64, 4, 16, true, 231424u, 247308u, 313344u, 313392u, 125},
    {48, "s16853-s16860", 64, 64, 128, 8, 2, 4, true, 313664u, 315212u, 315712u, 315728u, 323},
};

void expect_rows(LayerId id, const DocRow* rows, std::size_t count) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  ASSERT_EQ(prog.phases.size(), count);
  for (std::size_t i = 0; i < count; ++i) {
    const DocRow& r = rows[i];
    SCOPED_TRACE(std::string(prog.spec->name) + " phase " + std::to_string(r.number));
    const Phase& p = prog.phase(r.number);
    EXPECT_EQ(p.number, r.number);
    EXPECT_EQ(std::string(p.stmt_range), r.stmts);
    EXPECT_EQ(p.tool.m, r.m);
    EXPECT_EQ(p.tool.n, r.n);
    EXPECT_EQ(p.tool.k, r.k);
    EXPECT_EQ(p.mma, r.mma);
    EXPECT_EQ(p.band, r.band);
    // The real shape (readings.md §7 "layer-banded-shapes"): one output tile per printed chain,
    // one k-step per link of a chain. Both docs' prose shapes of the banded phases (e.g. DOC4's
    // "80x80x160 with 10 diagonal tiles" for P21) contradict their own chains/klens columns.
    EXPECT_EQ(p.m_tiles * p.n_tiles, r.chains);
    EXPECT_EQ(p.k_steps, r.klens);
    EXPECT_EQ(p.m_tiles * p.n_tiles * p.k_steps, p.mma);
    EXPECT_EQ(p.weight_begin, r.w_begin);
    EXPECT_EQ(p.weight_end, r.w_end);
    EXPECT_EQ(p.bias_begin, r.b_begin);
    EXPECT_EQ(p.bias_end, r.b_end);
    EXPECT_EQ(p.epilogue_statements, r.epi);
    // "Phases that read no weight-image B operand" (DOC4 §2: P11, P12; DOC3 §2: P9, P10).
    EXPECT_EQ(p.b == OperandSource::weights, r.w_end != 0);
    EXPECT_EQ(p.c == OperandSource::weights, r.b_end != 0);
  }
  // An epilogue is the run between one phase's last mma and the next one's first (DOC4/DOC3 §0).
  for (std::size_t i = 0; i + 1 < count; ++i)
    EXPECT_EQ(prog.phases[i + 1].stmt_first, prog.phases[i].stmt_last + prog.phases[i].epilogue_statements + 1);
}

// The distinct weight-image byte offsets the tool counts (`weight_image_size`): one per register a
// weight load writes (4 per v4 load, 1 per u32 record, 2 per v2.u16 table load), the per-lane term
// dropped. Computed from the program's columns plus the four 160- or 128-column tables (g1, T1, g2,
// T3: C/8 v2.u16 loads each).
int distinct_tool_offsets(LayerId id) {
  const rrswin::LayerProgram& prog = rrswin::layer_program(id);
  int n = 4 * 2 * (prog.spec->channels / 8);
  for (const Phase& p : prog.phases) {
    if (p.b == OperandSource::weights) n += 4 * static_cast<int>((p.weight_end - 12 - p.weight_begin) / 512 + 1);
    if (p.c != OperandSource::weights) continue;
    if (p.kind == PhaseKind::score)
      n += 4 * static_cast<int>((p.bias_end - 12 - p.bias_begin) / 512 + 1);
    else
      n += static_cast<int>((p.bias_end - p.bias_begin) / 16 + 1);
  }
  return n;
}

TEST(LayerTemplate, Enc5IsTheExistingPhaseTableFieldByField) {
  const rrswin::LayerProgram& t = rrswin::layer_program(LayerId::enc5);
  const auto& e = rrswin::phase_program();
  ASSERT_EQ(t.phases.size(), e.size());
  for (std::size_t i = 0; i < e.size(); ++i) {
    const Phase& a = t.phases[i];
    const Phase& b = e[i];
    SCOPED_TRACE("phase " + std::to_string(b.number));
    EXPECT_EQ(a.number, b.number);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.tool.m, b.tool.m);
    EXPECT_EQ(a.tool.n, b.tool.n);
    EXPECT_EQ(a.tool.k, b.tool.k);
    EXPECT_EQ(a.real.m, b.real.m);
    EXPECT_EQ(a.real.n, b.real.n);
    EXPECT_EQ(a.real.k, b.real.k);
    EXPECT_EQ(a.mma, b.mma);
    EXPECT_EQ(a.m_tiles, b.m_tiles);
    EXPECT_EQ(a.n_tiles, b.n_tiles);
    EXPECT_EQ(a.k_steps, b.k_steps);
    EXPECT_EQ(a.band, b.band);
    EXPECT_EQ(a.head, b.head);
    EXPECT_EQ(a.chunk, b.chunk);
    EXPECT_EQ(a.a_k0, b.a_k0);
    EXPECT_EQ(a.a, b.a);
    EXPECT_EQ(a.b, b.b);
    EXPECT_EQ(a.c, b.c);
    EXPECT_EQ(a.c_chain_from, b.c_chain_from);
    EXPECT_EQ(a.weight_begin, b.weight_begin);
    EXPECT_EQ(a.weight_end, b.weight_end);
    EXPECT_EQ(a.bias_begin, b.bias_begin);
    EXPECT_EQ(a.bias_end, b.bias_end);
    EXPECT_EQ(a.relative_to_slot, b.relative_to_slot);
    EXPECT_EQ(a.warps, b.warps);
    EXPECT_EQ(a.epilogue_statements, b.epilogue_statements);
    EXPECT_EQ(a.stmt_first, b.stmt_first);
    EXPECT_EQ(a.stmt_last, b.stmt_last);
    EXPECT_EQ(a.stmt_range, b.stmt_range);
    EXPECT_EQ(a.a_label, b.a_label);
    EXPECT_EQ(a.b_label, b.b_label);
    EXPECT_EQ(a.c_label, b.c_label);
    const rrswin::LayerSpec& s = *t.spec;
    for (int z = 0; z < 8; ++z) {
      EXPECT_EQ(rrswin::layer_weight_extent(s, a, z).begin, rrswin::weight_extent(b, z).begin);
      EXPECT_EQ(rrswin::layer_weight_extent(s, a, z).end, rrswin::weight_extent(b, z).end);
      EXPECT_EQ(rrswin::layer_bias_extent(s, a, z).begin, rrswin::bias_extent(b, z).begin);
      EXPECT_EQ(rrswin::layer_bias_extent(s, a, z).end, rrswin::bias_extent(b, z).end);
    }
  }
  EXPECT_EQ(t.mma_total, rrswin::kMmaTotal);
  EXPECT_EQ(t.spec->phase_count(), rrswin::kPhaseCount);
  EXPECT_EQ(t.spec->first_mma_statement, rrswin::kFirstMmaStatement);
}

TEST(LayerTemplate, Enc5IsTheExistingWeightMapFieldByField) {
  const rrswin::LayerSpec& s = rrswin::layer_spec(LayerId::enc5);
  const rrswin::WeightMap m = rrswin::weight_map(s);
  namespace w = rrswin::wmap;
  EXPECT_EQ(m.g1(), w::g1);
  EXPECT_EQ(m.slot_bytes(), rrswin::kHeadSlotBytes);
  EXPECT_EQ(m.chunk_stride(), rrswin::kMlpChunkStride);
  for (int h = 0; h < 8; ++h) {
    EXPECT_EQ(m.head_base(h), w::head_base(h));
    EXPECT_EQ(m.wq(h), w::wq(h));
    EXPECT_EQ(m.wv(h), w::wv(h));
    EXPECT_EQ(m.score_bias(h), w::score_bias(h));
    EXPECT_EQ(m.wo(h), w::wo(h));
  }
  EXPECT_EQ(m.t1(), w::t1);
  EXPECT_EQ(m.g2(), w::g2);
  EXPECT_EQ(m.t3(), w::t3);
  for (int c = 0; c < 20; ++c) {
    EXPECT_EQ(m.w1(c), w::w1(c));
    EXPECT_EQ(m.b1(c), w::b1(c));
    EXPECT_EQ(m.w2(c), w::w2(c));
  }
  EXPECT_EQ(m.final_weights(), w::w61);
  EXPECT_EQ(m.final_bias(), w::b61);
  EXPECT_EQ(m.image_bytes(), rrswin::kWeightImageBytes);
  EXPECT_EQ(m.tool_extent(), rrswin::kSpecToolImageBytes);

  const auto a = rrswin::layer_weight_regions(s);
  const auto b = rrswin::weight_regions();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(b[i].name);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].begin, b[i].begin);
    EXPECT_EQ(a[i].end, b[i].end);
    EXPECT_EQ(a[i].type, b[i].type);
    EXPECT_EQ(a[i].role, b[i].role);
    EXPECT_EQ(a[i].index, b[i].index);
  }
}

// The formulas, with the numbers typed from each layer's docs.
TEST(LayerTemplate, WeightFormulasReproduceTheDocumentedOffsets) {
  const rrswin::WeightMap e5 = rrswin::weight_map(rrswin::layer_spec(LayerId::enc5));
  const rrswin::WeightMap e4 = rrswin::weight_map(rrswin::layer_spec(LayerId::enc4));
  const rrswin::WeightMap e3 = rrswin::weight_map(rrswin::layer_spec(LayerId::enc3));
  // Per-head slot 96C + 12288 (facts E4: 27648; DESC3 layer() "its own 24576-byte slice").
  EXPECT_EQ(e5.slot_bytes(), 27648u);
  EXPECT_EQ(e4.slot_bytes(), 27648u);
  EXPECT_EQ(e3.slot_bytes(), 24576u);
  // Tables at H*slot + 2C / + 4C: DOC4 §3/E12(e) 221504, E20 221824; DOC3 §3/E10(d) 98560,
  // E14 98816 (DESC3 _TBL_RESIDUAL / _TBL_GAIN).
  EXPECT_EQ(e4.t1(), 221504u);
  EXPECT_EQ(e4.g2(), 221824u);
  EXPECT_EQ(e3.t1(), 98560u);
  EXPECT_EQ(e3.g2(), 98816u);
  // First up-projection at + 6C (DOC4 P21 222144, DOC3 P15 99072); MLP pair stride 64C + 64.
  EXPECT_EQ(e4.w1(0), 222144u);
  EXPECT_EQ(e3.w1(0), 99072u);
  EXPECT_EQ(e4.chunk_stride(), 10304u);
  EXPECT_EQ(e3.chunk_stride(), 8256u);
  // T3 (the first down-projection's C table): DOC3 §3/E15(b) prints 107328 = the formula. DOC4
  // §3/E21(b) prints 232464, 16 bytes past the formula's 232448, which is also enc5's T3 (facts
  // E4, spec). The template keeps the formula: the conflict "enc4-table-offsets" of readings §7.
  EXPECT_EQ(e3.t3(), 107328u);
  EXPECT_EQ(e4.t3(), 232448u);
  EXPECT_EQ(e4.t3(), e5.t3());
  EXPECT_NE(e4.t3(), 232464u);
  // The merge: weights right after the MLP (DOC4 P61 428544, DOC3 P47 231424), 4C bytes per output
  // column (DOC4 §3/E60(e) "640*%r31708", DOC3 §3/E46(e) "512*(%r23413 + j)"), bias after them
  // (DOC4 530944, DOC3 313344), the final phase after the bias (DOC4 P62 531264, DOC3 P48 313664).
  EXPECT_EQ(e4.merge_weights(), 428544u);
  EXPECT_EQ(e3.merge_weights(), 231424u);
  EXPECT_EQ(e4.merge_bias() - e4.merge_weights(), 160u * 640u);
  EXPECT_EQ(e3.merge_bias() - e3.merge_weights(), 160u * 512u);
  EXPECT_EQ(e4.merge_bias(), 530944u);
  EXPECT_EQ(e3.merge_bias(), 313344u);
  EXPECT_EQ(e4.final_weights(), 531264u);
  EXPECT_EQ(e3.final_weights(), 313664u);
  EXPECT_EQ(e4.final_bias(), 533824u);
  EXPECT_EQ(e3.final_bias(), 315712u);
}

TEST(LayerTemplate, Enc4ReproducesEveryRowOfDoc4) { expect_rows(LayerId::enc4, kEnc4Rows, std::size(kEnc4Rows)); }
TEST(LayerTemplate, Enc3ReproducesEveryRowOfDoc3) { expect_rows(LayerId::enc3, kEnc3Rows, std::size(kEnc3Rows)); }

TEST(LayerTemplate, CountsAndSizesTheDocsState) {
  const rrswin::LayerProgram& p4 = rrswin::layer_program(LayerId::enc4);
  const rrswin::LayerProgram& p3 = rrswin::layer_program(LayerId::enc3);
  const rrswin::LayerProgram& p5 = rrswin::layer_program(LayerId::enc5);
  // DOC4 title + §2: 62 phases, 1386 mma (issue 21); DOC3: 48 phases, 936 mma; spec: 61 / 1306.
  EXPECT_EQ(p4.phases.size(), 62u);
  EXPECT_EQ(p4.mma_total, 1386);
  EXPECT_EQ(p3.phases.size(), 48u);
  EXPECT_EQ(p3.mma_total, 936);
  EXPECT_EQ(p5.mma_total, 1306);
  // DOC4 §2 "Weight-image extent": largest offset 533840, image 533844 bytes, 2522 distinct offsets;
  // DOC3 §2: 315728, 315732 bytes, 1654. Those are the tool's extents; with lane t = 3's u32 of the
  // last record (the reading weight-image-size, readings §4) the image is 16 + 12 bytes longer:
  // DESC4 layer() measured enc4's arg040 block as 533856 bytes.
  const rrswin::WeightMap m4 = rrswin::weight_map(*p4.spec), m3 = rrswin::weight_map(*p3.spec);
  EXPECT_EQ(p4.phases.back().bias_end, 533840u);
  EXPECT_EQ(m4.tool_extent(), 533844u);
  EXPECT_EQ(m4.image_bytes(), 533856u);
  EXPECT_EQ(p3.phases.back().bias_end, 315728u);
  EXPECT_EQ(m3.tool_extent(), 315732u);
  EXPECT_EQ(m3.image_bytes(), 315744u);
  EXPECT_EQ(distinct_tool_offsets(LayerId::enc4), 2522);
  EXPECT_EQ(distinct_tool_offsets(LayerId::enc3), 1654);
}

TEST(LayerTemplate, LaunchAbiAsDocumented) {
  const rrswin::LaunchAbi& a5 = rrswin::layer_spec(LayerId::enc5).abi;
  const rrswin::LaunchAbi& a4 = rrswin::layer_spec(LayerId::enc4).abi;
  const rrswin::LaunchAbi& a3 = rrswin::layer_spec(LayerId::enc3).abi;
  for (const rrswin::LaunchAbi* a : {&a5, &a4, &a3}) {
    EXPECT_EQ(a->param_block_bytes, 144);  // facts A4, DESC3, DESC4
    EXPECT_EQ(a->extents, 0);
    EXPECT_EQ(a->input, 8);
    EXPECT_EQ(a->weights, 40);
    EXPECT_EQ(a->arena, 48);
    EXPECT_EQ(a->origin, 80);
    EXPECT_EQ(a->texture, 88);
    EXPECT_EQ(a->surfaces[0], 112);
  }
  // enc5 (facts A2/A3/A4/A8): one surface, no +56, 16384 bytes, (5,3,1) x (32,1,8), 40 x 23.
  EXPECT_EQ(a5.surface_count, 1);
  EXPECT_EQ(a5.merged_output, -1);
  EXPECT_EQ(a5.shared_bytes, 16384);
  EXPECT_EQ(a5.grid, (std::array<int, 3>{5, 3, 1}));
  EXPECT_EQ(a5.block, (std::array<int, 3>{32, 1, 8}));
  EXPECT_EQ(a5.ex, 40);
  EXPECT_EQ(a5.ey, 23);
  // enc4 (DOC4 §1.1, §1.4, §3/E61, E62(e); DESC4 layer()): +56, surfaces +112/+120/+128 (DOC4 prints
  // them relative to %rd943 = param_0 + 80 as +32/+40/+48), 16384 bytes, grid 11 x 7, tokens 80 x 46.
  EXPECT_EQ(a4.merged_output, 56);
  EXPECT_EQ(a4.surface_count, 3);
  EXPECT_EQ(a4.surfaces, (std::array<int, 3>{112, 120, 128}));
  EXPECT_EQ(a4.shared_bytes, 16384);
  EXPECT_EQ(a4.grid, (std::array<int, 3>{11, 7, 1}));
  EXPECT_EQ(a4.ex, 80);
  EXPECT_EQ(a4.ey, 46);
  // DESC4 says block (32,1,4), "not re-measured"; the template takes (32,1,8) like enc5: eight head
  // slots (DOC4 P13..P20 read slots 0..7) need eight attention warps (readings §7
  // "layer-launch-geometry").
  EXPECT_EQ(a4.block, (std::array<int, 3>{32, 1, 8}));
  EXPECT_EQ(rrswin::layer_spec(LayerId::enc4).heads * 32, a4.block[0] * a4.block[2]);
  // enc3 (DESC3 layer(), measured): grid (21,13,1) of (32,1,4), 12800 bytes, texture 160 x 92.
  EXPECT_EQ(a3.merged_output, 56);
  EXPECT_EQ(a3.surfaces, (std::array<int, 3>{112, 120, 128}));
  EXPECT_EQ(a3.shared_bytes, 12800);
  EXPECT_EQ(a3.grid, (std::array<int, 3>{21, 13, 1}));
  EXPECT_EQ(a3.block, (std::array<int, 3>{32, 1, 4}));
  EXPECT_EQ(a3.ex, 160);
  EXPECT_EQ(a3.ey, 92);
  // The merge halves the extents (DOC4 §3/E61, DOC3 §3/E47 "ex>>1", "ey>>1"): enc3's output grid
  // is enc4's, enc4's is enc5's.
  EXPECT_EQ(a3.ex / 2, a4.ex);
  EXPECT_EQ(a3.ey / 2, a4.ey);
  EXPECT_EQ(a4.ex / 2, a5.ex);
  EXPECT_EQ(a4.ey / 2, a5.ey);
  // Every grid covers its token grid with 8 x 8 windows.
  for (const rrswin::LaunchAbi* a : {&a5, &a4, &a3}) {
    EXPECT_GE(8 * a->grid[0], a->ex);
    EXPECT_GE(8 * a->grid[1], a->ey);
  }
}

TEST(LayerTemplate, MergeLoopReadsTheWholeHoleTheDocsCallUnread) {
  // DOC4 §5/U9: "82420 bytes that no phase reads" between P61's B block (..448524) and its bias
  // (530944); DOC3 §2: 66036 bytes 247308..313344. The loop of DOC4 §3/E60(e) (W + 428544 +
  // 640*r + 512*j, r stepping by 128 while <= 159) with r = 32*z reads it end to end: the reading
  // merge-loop (readings §7).
  for (LayerId id : {LayerId::enc4, LayerId::enc3}) {
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    const Phase& merge = rrswin::layer_program(id).phase(s.merge_phase());
    EXPECT_EQ(merge.kind, PhaseKind::merge);
    const rrswin::ByteRange w = rrswin::layer_weight_extent(s, merge);
    EXPECT_EQ(w.begin, merge.weight_begin);
    EXPECT_EQ(w.end, merge.bias_begin);
    const rrswin::ByteRange b = rrswin::layer_bias_extent(s, merge);
    EXPECT_EQ(b.begin, merge.bias_begin);
    EXPECT_EQ(b.end, rrswin::weight_map(s).final_weights());
  }
  EXPECT_EQ(530944u - 448524u, 82420u);
  EXPECT_EQ(313344u - 247308u, 66036u);
}

TEST(LayerTemplate, RegionsTileEveryImage) {
  for (LayerId id : rrswin::layer_ids()) {
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    SCOPED_TRACE(std::string(s.name));
    const auto regions = rrswin::layer_weight_regions(s);
    std::uint32_t at = 0;
    std::set<std::string> names;
    for (const rrswin::Region& r : regions) {
      EXPECT_EQ(r.begin, at) << r.name;
      EXPECT_GT(r.end, r.begin) << r.name;
      at = r.end;
      EXPECT_TRUE(names.insert(r.name).second) << r.name;
    }
    EXPECT_EQ(at, rrswin::weight_map(s).image_bytes());
    // Every byte any phase reads lies in a region of the right kind.
    const rrswin::LayerProgram& prog = rrswin::layer_program(id);
    for (const Phase& p : prog.phases)
      for (int z = 0; z < (p.relative_to_slot ? s.heads : 1); ++z) {
        EXPECT_LE(rrswin::layer_weight_extent(s, p, z).end, at);
        EXPECT_LE(rrswin::layer_bias_extent(s, p, z).end, at);
      }
  }
}

TEST(LayerTemplate, NamesParseAndOutOfRangePhasesThrow) {
  LayerId id{};
  EXPECT_TRUE(rrswin::parse_layer("enc4", &id));
  EXPECT_EQ(id, LayerId::enc4);
  EXPECT_TRUE(rrswin::parse_layer("enc3", &id));
  EXPECT_EQ(id, LayerId::enc3);
  EXPECT_FALSE(rrswin::parse_layer("enc6", &id));
  EXPECT_THROW(rrswin::layer_program(LayerId::enc4).phase(63), std::out_of_range);
  EXPECT_THROW(rrswin::layer_program(LayerId::enc3).phase(0), std::out_of_range);
  EXPECT_EQ(rrswin::layer_spec(LayerId::enc3).merge_phase(), 47);
  EXPECT_EQ(rrswin::layer_spec(LayerId::enc4).merge_phase(), 61);
  EXPECT_EQ(rrswin::layer_spec(LayerId::enc5).merge_phase(), 0);
}

// The synthetic images of the other layers (model/weight_image.hpp make_layer_synthetic_weights):
// the layer's size, every region filled with the design of docs/readings.md §4 scaled to the layer
// (gains ~ sqrt(C), weights ~ 1/sqrt(fan-in); the sigmas typed here from that design), no NaN or
// infinity; enc5's is the pinned enc5 image.
TEST(LayerTemplate, SyntheticImagesPerLayer) {
  EXPECT_EQ(rrswin::make_layer_synthetic_weights(LayerId::enc5, {7, true}).bytes().size(), rrswin::kWeightImageBytes);
  {
    const auto a = rrswin::make_layer_synthetic_weights(LayerId::enc5, {7, true});
    const auto b = rrswin::make_synthetic_weights({7, true});
    EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin(), b.bytes().end()));
  }
  EXPECT_THROW(rrswin::make_layer_synthetic_weights(LayerId::enc4, {1, true}), std::invalid_argument);
  struct Case {
    LayerId id;
    double c, heads;
    std::size_t bytes;
  };
  for (const Case& k : {Case{LayerId::enc4, 160, 8, 533856u}, Case{LayerId::enc3, 128, 4, 315744u}}) {
    const rrswin::WeightImage& w = rrswin::default_layer_weights(k.id);
    SCOPED_TRACE(std::string(rrswin::to_string(k.id)));
    EXPECT_EQ(w.layer(), k.id);
    EXPECT_EQ(w.bytes().size(), k.bytes);
    const auto other = rrswin::make_layer_synthetic_weights(k.id, {2, false});
    EXPECT_FALSE(std::equal(w.bytes().begin(), w.bytes().end(), other.bytes().begin(), other.bytes().end()));
    const auto stats = rrswin::region_statistics(w);
    EXPECT_EQ(stats.size(), rrswin::layer_weight_regions(rrswin::layer_spec(k.id)).size());
    for (const auto& s : stats) {
      using R = rrswin::Region::Role;
      EXPECT_EQ(s.nan, 0u) << s.region.name;
      EXPECT_EQ(s.inf, 0u) << s.region.name;
      double sigma = 0;
      switch (s.region.role) {
        case R::g1:
        case R::g2: EXPECT_NEAR(s.mean_abs, std::sqrt(k.c), 0.05 * std::sqrt(k.c)) << s.region.name; continue;
        case R::wq: sigma = 0.5 / std::sqrt(k.c); break;
        case R::wv:
        case R::w1:
        case R::w61: sigma = 1 / std::sqrt(k.c); break;
        case R::wo: sigma = 1 / std::sqrt(32 * k.heads); break;
        case R::w2:
        case R::wm: sigma = 1 / std::sqrt(4 * k.c); break;
        case R::score_bias: sigma = 0.5; break;
        case R::t1:
        case R::t3:
        case R::b1:
        case R::bm:
        case R::b61: sigma = 0.1; break;
        case R::unread:  // the fronts: none in enc4 / enc3
        case R::we:
        case R::be:
        case R::wx:
        case R::bx: ADD_FAILURE() << s.region.name; continue;
      }
      const double tol = s.count >= 1000 ? 0.15 : 0.6;
      EXPECT_NEAR(s.mean_abs, sigma * std::sqrt(2 / M_PI), tol * sigma) << s.region.name;
    }
  }
  // A file of the wrong size for its layer names both sizes (the reading layer-image-size).
  try {
    rrswin::WeightImage(std::vector<std::uint8_t>(533844, 0), LayerId::enc4, "cut.bin");
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cut.bin"), std::string::npos) << m;
    EXPECT_NE(m.find("533856"), std::string::npos) << m;
    EXPECT_NE(m.find("533844"), std::string::npos) << m;
  }
}

}  // namespace

// The banded up-projection B the golden model loads (layer.hpp load_b_banded with the layer's C/32
// k-slices) reads exactly the tiles the docs' byte range spans: DOC3 P15 99072..102668 (8 tiles),
// DOC4 and spec P21 (10 tiles), first immediate .. lane 0's last u32. An image holding 1.0 (0x38)
// in that span and 0 elsewhere must give 1.0 in every loaded element (and the span holds exactly
// the 32 x 32 x C/32 elements loaded). With the slice count fixed at 5, enc3's chains 2/3 read
// past the span (the bug that once made enc3's outputs NaN while fast still equalled golden).
TEST(LayerTemplate, BandedUpProjectionReadsTheDocumentedTiles) {
  for (const LayerId id : {LayerId::enc3, LayerId::enc4, LayerId::enc5}) {
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    const rrswin::LayerProgram& prog = rrswin::layer_program(id);
    const Phase& up = prog.phase(s.first_mlp());
    SCOPED_TRACE(std::string(s.name) + " phase " + std::to_string(up.number));
    const std::uint32_t span_end = up.weight_end - 12 + 512;  // lane 0's last u32 is +12 of the last tile
    ASSERT_EQ((span_end - up.weight_begin) % 512, 0u);
    EXPECT_EQ((span_end - up.weight_begin) / 512, static_cast<std::uint32_t>(2 * s.k_slices()));
    std::vector<std::uint8_t> bytes(rrswin::weight_map(s).image_bytes(), 0);
    std::fill(bytes.begin() + up.weight_begin, bytes.begin() + span_end, 0x38);
    const rrswin::WeightImage w(std::move(bytes), id, "banded-span");
    for (int slice = 0; slice < s.k_slices(); ++slice) {
      const rrswin::golden::BTile t = rrswin::golden::load_b_banded(w, up.weight_begin, slice, 32, s.k_slices());
      EXPECT_EQ(std::count(t.v.begin(), t.v.end(), 0x38), 32 * 32) << "slice " << slice;
    }
  }
}

// The multiply-adds of one block (model/layer_program.hpp macs_per_block), worked by hand from the
// phase shapes and the warps that run them: enc5 8 x (10 x 96x32x32 + 64x96x32 + 64x32x96) + 8 x
// 64x160x32 + 20 x 2 x 64x32x160 + 64x16x160 = 26,902,528 (the 26.9 M); enc4 adds the merge
// 16 x 160 x 640 = 1,638,400; enc3 4 x 8 x 96x32x32 + 4 x 64x96x32 x 2 + 64x128x32 x 4 + 16 x 2 x
// 64x32x128 + 16 x 160 x 512 + 64x16x128 = 15,597,568.
TEST(LayerTemplate, MacsPerBlockWorkedByHand) {
  EXPECT_EQ(rrswin::macs_per_block(rrswin::layer_program(LayerId::enc5)), 26902528.0);
  EXPECT_EQ(rrswin::macs_per_block(rrswin::layer_program(LayerId::enc4)), 28540928.0);
  EXPECT_EQ(rrswin::macs_per_block(rrswin::layer_program(LayerId::enc3)), 15597568.0);
}
