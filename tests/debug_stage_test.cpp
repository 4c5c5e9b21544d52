// d4r's debug-oracle stages (facts F1, F2, F4; issue 14 item 3): the window layout written out by
// hand from F1's numbers, enc5's reading of it from captures (including hostile ones), the
// comparison with enc5's trace, and settle on stage w1 recovering the prologue's readings.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "capture/debug_stage.hpp"
#include "io/trace_io.hpp"
#include "test_util.hpp"

using namespace test_util;
using namespace rrswin::capture;

namespace {

std::uint32_t le32(const std::vector<unsigned char>& b, std::size_t at) {
  return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

}  // namespace

TEST(DebugStage, LayoutIsFactsF1AndF2) {
  // F1: slot = max(8192, 128·nregs) rounded up to a power of two; F2: the register counts.
  const std::pair<const char*, std::uint64_t> expect[] = {{"w1", 8192},  {"w10", 8192},  {"w11", 16384},
                                                          {"w12", 8192}, {"p13c", 8192}, {"p13d", 8192}};
  const int regs[] = {48, 48, 96, 32, 40, 40};
  for (int i = 0; i < 6; ++i) {
    const DebugStage* s = find_debug_stage(expect[i].first);
    ASSERT_NE(s, nullptr) << expect[i].first;
    EXPECT_EQ(s->regs, regs[i]) << s->name;
    EXPECT_EQ(debug_slot_bytes(s->regs), expect[i].second) << s->name;
  }
  EXPECT_EQ(find_debug_stage("w13"), nullptr);
  EXPECT_EQ(debug_slot_bytes(65), 16384u);  // 8320 -> 16384
  // The real grid 5 x 3: blocks 0..14 at ctaid.x + 5·ctaid.y.
  const DebugWindow w = debug_window(*find_debug_stage("w11"), kDefaultDebugBase, 5, 3);
  EXPECT_EQ(w.bytes, 15u * 16384u);
  EXPECT_EQ(w.block_index(4, 2), 14);
  EXPECT_EQ(debug_window(*find_debug_stage("w1"), kDefaultDebugBase, 2, 2).block_index(1, 1), 6);
  EXPECT_EQ(debug_window(*find_debug_stage("w1"), 0, 1, 70).block_index(0, 13), -1);  // only blocks < 64 store
  EXPECT_THROW(debug_window(*find_debug_stage("w1"), 0, 6, 1), std::runtime_error);   // slots would be shared
}

TEST(DebugStage, SyntheticWindowHoldsWarp0OfEveryBlockAtTheDocumentedOffsets) {
  TempDir t;
  // The arena 4096 bytes into its allocation (facts F4's trap): the window is at pointer + base.
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --window 4096,64 --stage w11 --threads 2").status, 0);
  const auto alloc = bytes_of(find_file(t.file("cap"), "arg048"));
  // enc5's full golden run traced at block (1, 0), written by `rrswin run --trace` (the window is
  // computed by runs that stop after the stage: both must agree).
  ASSERT_EQ(t.rrswin("run --layer enc5 -o tr --ex 16 --ey 8 --engine golden --trace w11 --block 1,0 --threads 2").status, 0);
  const rrswin::Trace tr = rrswin::read_trace(t.file("tr/trace.bin"));
  ASSERT_EQ(tr.stages.size(), 1u);
  const auto& st = tr.stages[0];
  ASSERT_EQ(st.regs, 96);
  // F1: arena pointer + 4,000,000 + block·slot + L·nregs·4, block = 1 + 5·0 = 1, slot 16384.
  const std::size_t base = 4096 + 4000000 + 1 * 16384;
  ASSERT_GE(alloc.size(), base + 32 * 96 * 4);
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 96; ++r) ASSERT_EQ(le32(alloc, base + (lane * 96 + r) * 4), st.at(0, lane, r)) << "lane " << lane << " reg " << r;
  // Slot padding and the bytes between the arena and the window keep the capture's pattern.
  EXPECT_NE(le32(alloc, base + 32 * 96 * 4), 0u);

  Result r = t.rrswin("diff cap --stage w11 --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "0 of 6144 registers differ")) << r.out;  // 2 blocks x 32 lanes x 96
}

TEST(DebugStage, DiffNamesTheFirstDifferingPhaseBlockWarpLane) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --stage p13d --threads 2").status, 0);
  const fs::path f = find_file(t.file("cap"), "arg048");
  auto alloc = bytes_of(f);
  // Block (1, 0) = debug block 1, lane 5, register 7: one bit of its high half.
  alloc[4000000 + 1 * 8192 + (5 * 40 + 7) * 4 + 3] ^= 0x01;
  put(f, alloc);
  Result r = t.rrswin("diff cap --stage p13d --threads 2");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "1 of 2560 registers differ")) << r.out;
  EXPECT_TRUE(contains(r.out, "first: phase 13, block (1, 0) [debug block 1], warp 0, lane 5, register 7")) << r.out;
  EXPECT_TRUE(contains(r.out, "row 9, columns 26, 27")) << r.out;  // reg 7: n-tile 3, half 1; lane 5: g 1, t 1
  if (have_python()) {
    r = shell(
        "'" RRSWIN_CLI_PATH "' diff '" + t.file("cap") +
        "' --stage p13d --json --threads 2 | python3 -c '"
        "import json,sys; d=json.load(sys.stdin); s=d[\"stage\"]; f=s[\"first\"]; "
        "assert not d[\"identical\"] and s[\"differing\"]==1 and f[\"block\"]==[1,0] and f[\"lane\"]==5 and f[\"reg\"]==7, d; print(\"json ok\")'");
    EXPECT_TRUE(contains(r.out, "json ok")) << r.out;
  }
  // Replayed with --stage, rrswin writes its own payload; d4r's comparison then compares it too.
  r = t.rrswin("replay cap -o out --stage p13d --threads 2");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "stage p13d 1 registers")) << r.out;
  alloc[4000000 + 1 * 8192 + (5 * 40 + 7) * 4 + 3] ^= 0x01;
  put(f, alloc);
  r = t.rrswin("replay cap -o out2 --stage p13d --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(bytes_of(find_file(t.file("out2"), "arg048")), alloc);
}

TEST(DebugStage, WindowInAnotherBufferOfTheLaunch) {
  // facts F4: the payload may lie in another argument's dump. Cut the window out of arg048 into an
  // arg016 buffer whose base0x is the window's device address; enc5 finds it by address.
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8 --stage w1 --threads 2").status, 0);
  const fs::path f = find_file(t.file("cap"), "arg048");
  const auto alloc = bytes_of(f);
  const std::string name = f.filename().string();
  const std::string kernel_part = name.substr(0, name.find("-arg048-"));
  const std::size_t arena = 5 * 8 * 8 * 32;
  put(t.file("cap/" + kernel_part + "-arg048-buffer-base0x7f0000800000-size" + std::to_string(arena) + "-fmt0.bin"),
      std::vector<unsigned char>(alloc.begin(), alloc.begin() + arena));
  char b[32];
  std::snprintf(b, sizeof b, "%llx", 0x7f0000800000ull + 4000000);
  put(t.file("cap/" + kernel_part + "-arg016-buffer-base0x" + b + "-size8192-fmt0.bin"),
      std::vector<unsigned char>(alloc.begin() + 4000000, alloc.begin() + 4000000 + 8192));
  fs::remove(f);
  Result r = t.rrswin("diff cap --stage w1 --threads 2");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "-arg016-buffer-")) << r.out;
}

TEST(DebugStage, HostileWindowsAreClearErrors) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8 --stage w1 --threads 2").status, 0);
  // Another base: the window would run past the allocation.
  Result r = t.rrswin("diff cap --stage w1 --debug-base 4000001");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "at byte offset 4000001: expected the w1 debug window of 8192 bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "found an output allocation of")) << r.out;
  // A stage whose window is larger than the payload present, and an absurd base.
  EXPECT_EQ(t.rrswin("diff cap --stage w11").status, 2);
  EXPECT_EQ(t.rrswin("settle cap --stage w1 --debug-base 1099511627776").status, 2);
  EXPECT_EQ(t.rrswin("diff cap --stage w1 --debug-base 1099511627777").status, 2);  // beyond the option's range
  EXPECT_EQ(t.rrswin("diff cap --stage w99").status, 2);
  EXPECT_EQ(t.rrswin("diff cap other --stage w1").status, 2);
  // A device address near 2^64: the pointer + base would wrap.
  const fs::path f = find_file(t.file("cap"), "arg048");
  std::string n = f.filename().string();
  n.replace(n.find("base0x7f0000800000"), 18, "base0xffffffffffffff00");
  fs::rename(f, t.file("cap/" + n));
  r = t.rrswin("diff cap --stage w1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "below 2^64")) << r.out;
  // The synthetic writer's own limits: a grid wider than 5 blocks, a base inside the arena.
  r = t.rrswin("capture --synthetic -o wide --ex 48 --ey 8 --stage w1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "at most 5 blocks wide")) << r.out;
  EXPECT_EQ(t.rrswin("capture --synthetic -o low --ex 8 --ey 8 --stage w1 --debug-base 100").status, 2);
  // A replay capture holds the state before the launch: the payload is only in results/.
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 8 --ey 8 --stage w1 --threads 2").status, 0);
  EXPECT_EQ(t.rrswin("diff rc --stage w1 --threads 2").status, 0);
  fs::remove_all(t.file("rc/results"));
  r = t.rrswin("diff rc --stage w1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "without results/")) << r.out;
}

// Stage w1 holds phase 1's D for rows 0..95 of head 0: the prologue's product alone. settle --stage
// w1 searches only the prologue's readings and the profile (reading_feeds_stage), so the readings
// of every later part cannot confuse it.
TEST(DebugStage, SettleOnW1RecoversThePrologueReadings) {
  TempDir t;
  const std::string prologue =
      "--reading prologue-halo=ring-lrtb --reading prologue-fill=clamp --reading prologue-eps=2^-10 "
      "--reading prologue-sum-tree=pairwise --reading prologue-load-order=natural";
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --stress --seed 2 --stage w1 --threads 2 " + prologue +
                     " --reading projection-residual=staged --reading mlp-residual=normed --reading filter-border=clamp")
                .status,
            0);
  Result r = t.rrswin("settle cap --stage w1 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "best: profile=ada, prologue-load-order=natural, prologue-halo=ring-lrtb, prologue-fill=clamp, "
                       "prologue-eps=2^-10, prologue-sum-tree=pairwise\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "reproduces stage w1 exactly")) << r.out;
  EXPECT_TRUE(contains(r.out, "every reading is settled by this capture")) << r.out;
  EXPECT_FALSE(contains(r.out, "projection-residual")) << r.out;  // not a reading of the prologue

  // The same capture whose outputs no reading reproduces (here: another frame's outputs spliced
  // in, as when the original's later phases differ from every modelled reading, facts F3): the
  // output-only settle finds no exact combination and cannot pin the prologue down; stage w1
  // still does.
  ASSERT_EQ(t.rrswin("capture --synthetic -o other --ex 16 --ey 8 --stress --seed 9 --threads 2").status, 0);
  const fs::path f = find_file(t.file("cap"), "arg048");
  auto alloc = bytes_of(f);
  const auto foreign = bytes_of(find_file(t.file("other"), "arg048"));
  std::copy(foreign.begin(), foreign.begin() + 5 * 16 * 8 * 32, alloc.begin());
  put(f, alloc);
  put(find_file(t.file("cap"), "arg112"), bytes_of(find_file(t.file("other"), "arg112")));
  r = t.rrswin("settle cap --threads 2 --max-runs 40");
  EXPECT_EQ(r.status, 1) << r.out;
  int recovered = 0;
  for (const char* v : {"prologue-halo=ring-lrtb", "prologue-fill=clamp", "prologue-eps=2^-10", "prologue-sum-tree=pairwise",
                        "prologue-load-order=natural"})
    recovered += contains(r.out.substr(r.out.find("best: ")), v);
  EXPECT_LT(recovered, 5) << r.out;
  r = t.rrswin("settle cap --stage w1 --threads 2 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "\"best_changes\": \"profile=ada, prologue-load-order=natural, prologue-halo=ring-lrtb, prologue-fill=clamp, "
                       "prologue-eps=2^-10, prologue-sum-tree=pairwise\""))
      << r.out;

  // The norm itself: with prologue-norm=identity the prologue stages X as is, so w1 settles the
  // norm and (rightly) cannot settle its epsilon or sum tree.
  ASSERT_EQ(
      t.rrswin(
           "capture --synthetic -o id --ex 8 --ey 8 --stage w1 --threads 2 --reading prologue-norm=identity --reading prologue-fill=mirror")
          .status,
      0);
  r = t.rrswin("settle id --stage w1 --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "prologue-fill=mirror, prologue-norm=identity\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "prologue-eps = 2^-13, or 2^-10")) << r.out;
  EXPECT_TRUE(contains(r.out, "prologue-sum-tree = planes, or ")) << r.out;
}
