// The readings: the registry is complete and settable, and every switch changes the output
// where, and only where, it should.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "layout/arena.hpp"
#include "model/layer.hpp"
#include "model/readings.hpp"

namespace rrswin {
namespace {

// The number of members of an aggregate: the largest n for which T{x1, ..., xn} compiles, with
// each x convertible to any member type.
struct AnyMember {
  template <class T>
  operator T() const;
};
template <class T, class... Members>
constexpr std::size_t member_count() {
  if constexpr (requires { T{Members{}..., AnyMember{}}; })
    return member_count<T, Members..., AnyMember>();
  else
    return sizeof...(Members);
}

bool small_scale() {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s && std::string(s) == "small";
}

TEST(GoldenReadings, RegistryIsCompleteAndSettable) {
  const auto& reg = reading_registry();
  // One registry row per field of Readings: a field added without its row fails here.
  EXPECT_EQ(reg.size(), member_count<Readings>()) << "model/readings.hpp: every Readings field needs a reading_registry() row";
  const Readings defaults;
  // Each row owns its own field: setting row i to any value changes the bytes of Readings (so the
  // setter reaches the object), leaves every other row at its default, and no two rows change the
  // same bytes (two rows on one field would leave another field without a row).
  std::vector<std::vector<bool>> touched(reg.size(), std::vector<bool>(sizeof(Readings), false));
  for (std::size_t i = 0; i < reg.size(); ++i) {
    const ReadingInfo& info = reg[i];
    ASSERT_FALSE(info.values.empty()) << info.name;
    EXPECT_NE(std::find(info.values.begin(), info.values.end(), info.default_value), info.values.end()) << info.name;
    EXPECT_EQ(reading_value(defaults, info.name), info.default_value) << info.name;
    EXPECT_FALSE(info.question.empty());
    EXPECT_FALSE(info.where.empty());
    EXPECT_FALSE(info.settle.empty());
    for (const auto& v : info.values) {
      // Both objects in zeroed storage, so that padding bytes compare equal.
      alignas(Readings) unsigned char zd[sizeof(Readings)] = {}, zr[sizeof(Readings)] = {};
      const Readings& dflt = *new (zd) Readings;
      Readings& r = *new (zr) Readings;
      std::string err;
      ASSERT_TRUE(set_reading(r, info.name + "=" + v, &err)) << err;
      EXPECT_EQ(reading_value(r, info.name), v);
      for (std::size_t j = 0; j < reg.size(); ++j)
        if (j != i) {
          EXPECT_EQ(reading_value(r, reg[j].name), reg[j].default_value) << info.name << "=" << v << " moved " << reg[j].name;
        }
      if (v == info.default_value) continue;
      unsigned char a[sizeof(Readings)], b[sizeof(Readings)];
      std::memcpy(a, &dflt, sizeof a);
      std::memcpy(b, &r, sizeof b);
      bool changed = false;
      for (std::size_t k = 0; k < sizeof a; ++k)
        if (a[k] != b[k]) touched[i][k] = changed = true;
      EXPECT_TRUE(changed) << info.name << "=" << v << " changed no byte of Readings";
    }
  }
  for (std::size_t i = 0; i < reg.size(); ++i)
    for (std::size_t j = i + 1; j < reg.size(); ++j)
      for (std::size_t k = 0; k < sizeof(Readings); ++k)
        if (touched[i][k] && touched[j][k]) ADD_FAILURE() << reg[i].name << " and " << reg[j].name << " both change byte " << k;
  Readings r;
  std::string err;
  EXPECT_FALSE(set_reading(r, "no-such-reading", "x", &err));
  EXPECT_NE(err.find("unknown reading"), std::string::npos);
  EXPECT_FALSE(set_reading(r, "arena-order", "sideways", &err));
  EXPECT_NE(err.find("fragment"), std::string::npos);
  EXPECT_FALSE(set_reading(r, "arena-order", &err));
}

struct Out {
  std::vector<std::uint8_t> arena;
  Surface surface;
};

class ReadingSwitch : public ::testing::Test {
 protected:
  // A 2 x 1-block frame (ex = 11, ey = 7: partial blocks, odd extents). The stress assets (kStress)
  // drive the upstream readings' branches (tiny tokens for the epsilon, saturation); their logits
  // are so far apart that E61's softmax is one-hot, so E61's readings use the default assets.
  static constexpr int kEx = 11, kEy = 7;
  static void SetUpTestSuite() {
    for (int s = 0; s < 2; ++s) {
      frames_[s] = new SyntheticFrame(make_synthetic_frame(kEx, kEy, 17, s == 1));
      weights_[s] = new WeightImage(s == 1 ? make_synthetic_weights({.seed = 8, .stress = true}) : default_weights());
    }
    for (int s = 0; s < 2; ++s) bases_[s] = new Out(run(Readings{}, s == 1));
  }
  static void TearDownTestSuite() {
    for (int s = 0; s < 2; ++s) {
      delete frames_[s];
      delete weights_[s];
      delete bases_[s];
    }
  }
  static Out run(const Readings& rd, bool stress) {
    const SyntheticFrame* frame_ = frames_[stress];
    const WeightImage* w = weights_[stress];
    Out o;
    o.arena.assign(frame_->input_arena.size(), 0xA5);
    o.surface = Surface::make(kEx, kEy);
    LaunchParams p = frame_launch(kEx, kEy, frame_->input_arena, *w, o.arena, frame_->texture, o.surface);
    RunOptions opt;
    opt.engine = Engine::golden;  // these tests are about the golden model itself
    opt.readings = rd;
    opt.threads = 2;
    run_frame(p, opt);
    return o;
  }
  static Out run_with(const std::string& name, const std::string& value, bool stress = false) {
    Readings rd;
    std::string err;
    EXPECT_TRUE(set_reading(rd, name, value, &err)) << err;
    return run(rd, stress);
  }
  // Surface texels that differ from the base run.
  static std::vector<std::array<int, 2>> changed_pixels(const Out& o, bool stress = false) {
    const Out* base_ = bases_[stress];
    std::vector<std::array<int, 2>> v;
    for (int y = 0; y < kEy; ++y)
      for (int x = 0; x < kEx; ++x)
        if (std::memcmp(&o.surface.bytes[y * o.surface.pitch + 8 * x], &base_->surface.bytes[y * base_->surface.pitch + 8 * x], 8) != 0)
          v.push_back({x, y});
    return v;
  }
  static const Out& base(bool stress = false) { return *bases_[stress]; }
  static SyntheticFrame* frames_[2];
  static WeightImage* weights_[2];
  static Out* bases_[2];
};
SyntheticFrame* ReadingSwitch::frames_[2] = {};
WeightImage* ReadingSwitch::weights_[2] = {};
Out* ReadingSwitch::bases_[2] = {};

// Readings whose question lies upstream of E60: they change the arena and (through phase 61) the
// surface. Each alternative must change the output on the stress assets.
// Issue 32: the readings are named by role; the names they had before (enc5's epilogue numbers)
// stay accepted as aliases of the same reading. The pairs are written out here, not taken from
// readings.cpp's table, so a dropped or misrouted alias fails.
TEST(GoldenReadings, OldNamesAreAliasesOfTheRoleNames) {
  struct Pair {
    const char *old_name, *name, *value;
  };
  const Pair pairs[] = {
      {"c13-residual", "projection-residual", "staged"},
      {"e20-sum-tree", "mlp-norm-sum-tree", "pairwise"},
      {"e21-residual", "mlp-residual", "normed"},
      {"e60-lane-guard", "arena-lane-guard", "laneid>15"},
      {"e61-record-guard", "filter-record-guard", "none"},
      {"e61-logits", "filter-logits", "nine"},
      {"e61-exp-rounding", "filter-exp-rounding", "f16-sum"},
      {"e61-sum-order", "filter-sum-order", "tree"},
      {"e61-weight-product", "filter-weight-product", "f32-mul"},
      {"e61-tap-map", "filter-tap-map", "column-major"},
      {"e61-pairing", "filter-pairing", "first-single"},
      {"e61-border", "filter-border", "clamp"},
  };
  for (const Pair& p : pairs) {
    Readings by_old, by_new;
    std::string err;
    ASSERT_TRUE(set_reading(by_old, std::string(p.old_name) + "=" + p.value, &err)) << err;
    ASSERT_TRUE(set_reading(by_new, std::string(p.name) + "=" + p.value, &err)) << err;
    EXPECT_EQ(reading_value(by_old, p.name), p.value) << p.old_name;
    EXPECT_EQ(reading_value(by_new, p.old_name), p.value) << p.old_name;
    EXPECT_EQ(canonical_reading_name(p.old_name), p.name);
    // The registry lists only the role name.
    for (const ReadingInfo& r : reading_registry()) EXPECT_NE(r.name, p.old_name);
  }
  EXPECT_EQ(canonical_reading_name("prologue-halo"), "prologue-halo");
  Readings r;
  EXPECT_FALSE(set_reading(r, "e61-nonsense=x", nullptr));
}

TEST_F(ReadingSwitch, UpstreamReadingsChangeArenaAndSurface) {
  const char* names[] = {"prologue-load-order", "prologue-halo",       "prologue-norm",  "prologue-eps",
                         "prologue-sum-tree",   "projection-residual", "t1-chunk-order", "mlp-norm-sum-tree",
                         "g2-chunk-order",      "t3-chunk-order",      "mlp-residual"};
  for (const char* name : names)
    for (const ReadingInfo& info : reading_registry()) {
      if (info.name != name) continue;
      int tried = 0;
      const bool tree = info.name.find("sum-tree") != std::string::npos;
      for (std::size_t i = 0; i < info.values.size(); ++i) {
        if (info.values[i] == info.default_value || (small_scale() && tried > 0)) continue;
        // The sum trees differ only in rounding: on one small frame two trees may agree, so of a
        // tree reading only `sequential` (which loses the small terms) is run here; that every
        // pair of trees changes the outputs of some launch is oracle_launches_test.cpp's.
        if (tree && info.values[i] != "sequential") continue;
        ++tried;
        const Out o = run_with(info.name, info.values[i], true);
        EXPECT_NE(o.arena, base(true).arena) << info.name << "=" << info.values[i];
        // The surface follows the arena's values through phase 61, but the stress logits make
        // E61's softmax one-hot, so a changed arena need not change the surface here.
      }
      EXPECT_GT(tried, 0) << info.name;
    }
}

// prologue-fill changes what a block reads outside the frame only: on a 3 x 3-block frame the
// middle block's window and halo (one pixel around it, ring_tblr) lie inside the frame, so its
// arena words and surface texels must stay exactly the same, while the border blocks change.
TEST(ReadingFill, PrologueFillChangesOnlyWhatTheBorderFeeds) {
  constexpr int ex = 24, ey = 24;
  const SyntheticFrame f = make_synthetic_frame(ex, ey, 23, false);
  auto go = [&](const char* fill) {
    Out o;
    o.arena.assign(f.input_arena.size(), 0xA5);
    o.surface = Surface::make(ex, ey);
    LaunchParams p = frame_launch(ex, ey, f.input_arena, default_weights(), o.arena, f.texture, o.surface);
    RunOptions opt;
    opt.engine = Engine::fast;  // bit-identical to golden (engine_diff_test); prologue-fill is the same golden code
    opt.threads = 2;
    std::string err;
    EXPECT_TRUE(set_reading(opt.readings, "prologue-fill", fill, &err)) << err;
    run_frame(p, opt);
    return o;
  };
  const Out base = go("zero");
  const layout::PlaneArena pa{ex, ey};
  for (const char* v : {"mirror", "clamp"}) {
    const Out o = go(v);
    int inner_changed = 0, outer_changed = 0;
    for (int y = 0; y < ey; ++y)
      for (int x = 0; x < ex; ++x) {
        bool changed =
            std::memcmp(&o.surface.bytes[y * o.surface.pitch + 8 * x], &base.surface.bytes[y * base.surface.pitch + 8 * x], 8) != 0;
        for (int q = 0; q < layout::PlaneArena::kPlanes; ++q)
          changed |= std::memcmp(&o.arena[4 * pa.word_index(q, x, y, 0)], &base.arena[4 * pa.word_index(q, x, y, 0)], 32) != 0;
        const bool inner = x >= 8 && x < 16 && y >= 8 && y < 16;
        (inner ? inner_changed : outer_changed) += changed;
      }
    EXPECT_EQ(inner_changed, 0) << v;
    EXPECT_GT(outer_changed, 0) << v;
  }
}

TEST_F(ReadingSwitch, ArenaOrderChangesOnlyTheArena) {
  const Out o = run_with("arena-order", "natural");
  EXPECT_NE(o.arena, base().arena);
  EXPECT_EQ(o.surface.bytes, base().surface.bytes);
  // Where both pixels of a vertical pair (y = 2i, 2i+1; ey = 7 leaves y = 6 alone) are in the
  // frame, the pair's 16 words per plane hold the same bytes in both orders: only positions move.
  const layout::PlaneArena pa{kEx, kEy};
  for (int q = 0; q < 5; ++q)
    for (int y = 0; y + 1 < kEy; y += 2)
      for (int x = 0; x < kEx; ++x) {
        std::vector<std::uint8_t> a, b;
        for (int yy = y; yy < y + 2; ++yy)
          for (int d = 0; d < 8; ++d)
            for (int j = 0; j < 4; ++j) {
              a.push_back(o.arena[4 * pa.word_index(q, x, yy, d) + j]);
              b.push_back(base().arena[4 * pa.word_index(q, x, yy, d) + j]);
            }
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b) << q << " " << x << "," << y;
      }
}

TEST_F(ReadingSwitch, E60LaneGuardDropsColumnsFourToSeven) {
  const Out o = run_with("arena-lane-guard", "laneid>15");
  EXPECT_EQ(o.surface.bytes, base().surface.bytes);
  const layout::PlaneArena pa{kEx, kEy};
  for (int q = 0; q < 5; ++q)
    for (int y = 0; y < kEy; ++y)
      for (int x = 0; x < kEx; ++x)
        for (int d = 0; d < 8; ++d) {
          const std::size_t i = 4 * pa.word_index(q, x, y, d);
          const bool dropped = (x & 7) >= 4;  // lanes 16..31 are g = 4..7: pixels x0+4..x0+7
          if (dropped) {
            EXPECT_EQ(std::memcmp(&o.arena[i], "\xA5\xA5\xA5\xA5", 4), 0) << x << "," << y;
          } else {
            EXPECT_EQ(std::memcmp(&o.arena[i], &base().arena[i], 4), 0) << x << "," << y;
          }
        }
}

// E61 readings never touch the arena.
TEST_F(ReadingSwitch, E61ReadingsChangeOnlyTheSurface) {
  const char* names[] = {"filter-record-guard",   "filter-logits",  "filter-exp-rounding", "filter-sum-order",
                         "filter-weight-product", "filter-tap-map", "filter-pairing"};
  for (const char* name : names)
    for (const ReadingInfo& info : reading_registry()) {
      if (info.name != name) continue;
      for (std::size_t i = 0; i < info.values.size(); ++i) {
        if (info.values[i] == info.default_value) continue;
        const Out o = run_with(info.name, info.values[i]);
        EXPECT_EQ(o.arena, base().arena) << info.name << "=" << info.values[i];
        // Rounding-order readings may coincide on a small frame; the structural ones must differ.
        const std::string n = info.name;
        if (n == "filter-record-guard" || n == "filter-logits" || n == "filter-tap-map" || n == "filter-pairing") {
          EXPECT_FALSE(changed_pixels(o).empty()) << info.name << "=" << info.values[i];
        }
      }
    }
}

TEST_F(ReadingSwitch, BorderRuleChangesOnlyBorderPixels) {
  // sentinel1 differs from reflect101 only where a tap leaves the frame on the right or bottom
  // (the left/top rule is the same: -1 -> 1); clamp also moves the taps of the pixels next to the
  // border (and the centre tap on it).
  const Out s = run_with("filter-border", "sentinel1");
  EXPECT_EQ(s.arena, base().arena);
  auto sp = changed_pixels(s);
  EXPECT_FALSE(sp.empty());
  for (auto [x, y] : sp) EXPECT_TRUE(x == kEx - 1 || y == kEy - 1) << x << "," << y;
  const Out c = run_with("filter-border", "clamp");
  auto cp = changed_pixels(c);
  EXPECT_FALSE(cp.empty());
  for (auto [x, y] : cp) EXPECT_TRUE(x <= 1 || y <= 1 || x >= kEx - 2 || y >= kEy - 2) << x << "," << y;
}

}  // namespace
}  // namespace rrswin
