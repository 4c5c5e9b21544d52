#include "capture/settle.hpp"

#include <chrono>
#include <map>
#include <stdexcept>

#include "model/readings.hpp"
#include "numerics/profile.hpp"

namespace rrswin::capture {

ReadingGroup reading_group(const std::string& name) {
  // E61 (facts C14) reads phase 61's results and the texture and writes only the surface.
  if (name.rfind("filter-", 0) == 0) return ReadingGroup::surface_only;
  // E60's scatter order (facts C13.4, Errata 1) and its store guard (C13.3) decide only where
  // and whether arena bytes land; E61 reads shared records, not the arena.
  if (name == "arena-order" || name == "arena-lane-guard") return ReadingGroup::arena_only;
  // Everything else (the prologue, the phases' sums, tables and residuals, and the profile's
  // arithmetic) feeds both the arena and the surface.
  return ReadingGroup::both;
}

bool reading_feeds_stage(const std::string& name, const DebugStage& stage) {
  if (name == "profile" || name.rfind("prologue-", 0) == 0) return true;
  return stage.out_projection && (name == "projection-residual" || name == "t1-chunk-order");
}

std::string Setting::value(const std::string& name) const {
  if (name == "profile") return profile;
  for (const auto& [n, v] : values)
    if (n == name) return v;
  return "";
}

std::string Setting::describe_changes() const {
  std::string s = "profile=" + profile;
  for (const auto& [n, v] : values)
    for (const ReadingInfo& r : reading_registry())
      if (r.name == n && r.default_value != v) s += ", " + n + "=" + v;
  return s;
}

namespace {

struct Variable {
  std::string name;
  std::vector<std::string> values;
  ReadingGroup group;
};

RunOptions run_options(const Setting& s, int threads) {
  RunOptions ro;
  ro.profile = find_profile(s.profile);
  for (const auto& [n, v] : s.values) {
    std::string err;
    if (!set_reading(ro.readings, n, v, &err)) throw std::logic_error("settle: " + err);
  }
  ro.engine = Engine::fast;  // bit-identical to golden (tests/engine_diff_test.cpp)
  ro.threads = threads;
  return ro;
}

class Search {
 public:
  Search(const LaunchCapture& c, const SettleOptions& o) : c_(c), o_(o) {
    if (o.stage) captured_ = read_stage_payload(c, *o.stage, o.debug_base);
  }

  Score eval(const Setting& s) {
    const std::string key = s.describe_changes();
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const RunOptions ro = run_options(s, o_.threads);
    Score sc;
    last_key_ = key;
    if (o_.stage) {
      // The stage of every block, golden model run only as far as the stage (debug_stage.hpp).
      last_stage_ = compute_stage_payload(c_, *o_.stage, o_.debug_base, ro);
      sc.stage = diff_stage(*captured_, *last_stage_).differing;
    } else {
      last_ = replay_launch(c_, ro);
      sc.arena = diff_arena(c_.results->output_alloc, last_->output_alloc, c_.ex, c_.ey, c_.output.offset).differing;
      sc.surface =
          diff_surface(c_.results->surface_bytes, last_->surface_bytes, c_.surface.width, c_.surface.height, c_.surface.pitch).differing;
    }
    ++runs_;
    if (o_.progress) o_.progress(runs_, key);
    cache_.emplace(key, sc);
    return sc;
  }
  // The setting just evaluated became the best: keep its outputs, so that locating the best's
  // remaining difference needs no further run (--max-runs counts every run).
  void accept(const Setting& s) {
    if (last_key_ != s.describe_changes()) return;
    best_key_ = last_key_;
    best_ = last_;
    best_stage_ = last_stage_;
  }
  // The outputs of `s` (its kept outputs, or one more run when the budget allows; else nothing).
  std::optional<ReplayOutputs> outputs(const Setting& s) {
    if (best_key_ == s.describe_changes() && best_) return best_;
    if (!budget_left()) return std::nullopt;
    ++runs_;
    return replay_launch(c_, run_options(s, o_.threads));
  }
  std::optional<StagePayload> stage_payload(const Setting& s) {
    if (best_key_ == s.describe_changes() && best_stage_) return best_stage_;
    if (!budget_left()) return std::nullopt;
    ++runs_;
    return compute_stage_payload(c_, *o_.stage, o_.debug_base, run_options(s, o_.threads));
  }
  bool cached(const Setting& s) const { return cache_.count(s.describe_changes()) != 0; }
  const StagePayload& captured() const { return *captured_; }
  int runs() const { return runs_; }
  bool budget_left() const { return runs_ < o_.max_runs; }

 private:
  const LaunchCapture& c_;
  const SettleOptions& o_;
  std::map<std::string, Score> cache_;
  std::optional<StagePayload> captured_;
  int runs_ = 0;
  std::string last_key_, best_key_;
  std::optional<ReplayOutputs> last_, best_;
  std::optional<StagePayload> last_stage_, best_stage_;
};

void set(Setting& s, const std::string& name, const std::string& v) {
  if (name == "profile") {
    s.profile = v;
    return;
  }
  for (auto& [n, val] : s.values)
    if (n == name) val = v;
}

// Objective of a phase: A minimises (arena, surface) lexicographically; B only the surface (its
// variables cannot move the arena).
// mode 0: phase A, 1: phase B, 2: the final pass over everything (lexicographic, until exact),
// 3: a debug stage (its registers only).
bool better(const Score& a, const Score& b, int mode) { return mode == 1 ? a.surface < b.surface : a < b; }

// Phase A is done once the arena matches: what is left of the surface is phase B's to explain.
bool done(const Score& s, int mode) { return mode == 0 ? s.arena == 0 : mode == 1 ? s.surface == 0 : mode == 3 ? s.stage == 0 : s.exact(); }

std::string change_text(const Score& from, const Score& to, int mode) {
  if (mode == 3) return "stage " + std::to_string(from.stage) + " -> " + std::to_string(to.stage) + " registers differ";
  return "arena " + std::to_string(from.arena) + " -> " + std::to_string(to.arena) + " bytes differ, surface " +
         std::to_string(from.surface) + " -> " + std::to_string(to.surface);
}

// Coordinate descent over `vars`, then (when stuck) one pass over pairs of changes, repeated
// while something improves and the budget lasts.
void descend(Search& search, Setting& best, Score& score, const std::vector<Variable>& vars, int surface_phase,
             std::vector<std::string>& log, bool& exhausted) {
  bool improved = true;
  while (improved && !done(score, surface_phase)) {
    improved = false;
    for (const Variable& v : vars) {
      for (const std::string& val : v.values) {
        if (val == best.value(v.name)) continue;
        if (!search.budget_left()) {
          exhausted = true;
          return;
        }
        Setting t = best;
        set(t, v.name, val);
        const Score s = search.eval(t);
        if (better(s, score, surface_phase)) {
          log.push_back(v.name + "=" + val + ": " + change_text(score, s, surface_phase));
          search.accept(t);
          best = t;
          score = s;
          improved = true;
        }
      }
    }
    if (improved || done(score, surface_phase)) continue;
    // Stuck: two readings may only help together (e.g. a wrong profile hides every other fix).
    for (std::size_t i = 0; i < vars.size() && !improved; ++i)
      for (std::size_t j = i + 1; j < vars.size() && !improved; ++j)
        for (const std::string& a : vars[i].values) {
          if (improved || a == best.value(vars[i].name)) continue;
          for (const std::string& b : vars[j].values) {
            if (b == best.value(vars[j].name)) continue;
            if (!search.budget_left()) {
              exhausted = true;
              return;
            }
            Setting t = best;
            set(t, vars[i].name, a);
            set(t, vars[j].name, b);
            const Score s = search.eval(t);
            if (better(s, score, surface_phase)) {
              log.push_back(vars[i].name + "=" + a + " with " + vars[j].name + "=" + b +
                            " (pair): " + change_text(score, s, surface_phase));
              search.accept(t);
              best = t;
              score = s;
              improved = true;
              break;
            }
          }
        }
  }
}

// Every single-value change of the best, within the budget: equal scores mean the capture cannot
// tell those values apart. A change the budget leaves unrun is not listed, and the result says so.
void scan_alternatives(Search& search, SettleResult& res, const std::vector<Variable>& vars) {
  for (const Variable& v : vars)
    for (const std::string& val : v.values) {
      if (val == res.best.value(v.name)) continue;
      Setting t = res.best;
      set(t, v.name, val);
      if (!search.cached(t) && !search.budget_left()) {
        res.budget_exhausted = true;
        res.alternatives_complete = false;
        continue;
      }
      res.alternatives.push_back({v.name, val, search.eval(t)});
    }
}

}  // namespace

SettleResult settle(const LaunchCapture& c, const SettleOptions& o) {
  if (!c.results)
    throw std::runtime_error(c.source +
                             ": the capture holds no results of the original (launch dumps hold them in arg048/arg112; "
                             "a replay capture needs a results/ folder, docs/captures.md)");
  const auto t0 = std::chrono::steady_clock::now();
  SettleResult res;
  std::vector<Variable> phase_a, phase_b;
  Variable profiles{"profile", {}, ReadingGroup::both};
  for (const Profile* p : all_profiles()) profiles.values.emplace_back(p->name);
  phase_a.push_back(profiles);
  for (const ReadingInfo& r : reading_registry()) {
    res.best.values.emplace_back(r.name, r.default_value);
    if (r.values.size() < 2) continue;  // nothing to choose (e.g. approx-model)
    // The mma corners change results only on NaN / Inf / overflowing / signed-zero data, and their
    // non-default values run the exact element-wise mma (gemm.hpp: native): not searched.
    if (is_instruction_reading(r.name)) continue;
    Variable v{r.name, r.values, reading_group(r.name)};
    (v.group == ReadingGroup::surface_only ? phase_b : phase_a).push_back(v);
  }
  Search search(c, o);
  res.score = search.eval(res.best);
  search.accept(res.best);
  if (o.stage) {
    // Only the readings upstream of the stage can move it; the rest are not this capture's to settle.
    std::vector<Variable> vars;
    for (const auto& group : {phase_a, phase_b})
      for (const Variable& v : group)
        if (reading_feeds_stage(v.name, *o.stage)) vars.push_back(v);
    res.log.push_back("defaults (profile ada): stage " + std::string(o.stage->name) + " " + std::to_string(res.score.stage) +
                      " registers differ");
    descend(search, res.best, res.score, vars, 3, res.log, res.budget_exhausted);
    const std::optional<StagePayload> best = search.stage_payload(res.best);  // kept: no run
    scan_alternatives(search, res, vars);
    if (best) res.stage = diff_stage(search.captured(), *best);
    res.runs = search.runs();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }
  res.log.push_back("defaults (profile ada): arena " + std::to_string(res.score.arena) + ", surface " + std::to_string(res.score.surface) +
                    " bytes differ");
  // Phase A: the readings that can move the arena, against the arena first.
  descend(search, res.best, res.score, phase_a, 0, res.log, res.budget_exhausted);
  // Phase B: E61's readings against the surface (the arena no longer changes).
  if (!res.budget_exhausted) descend(search, res.best, res.score, phase_b, 1, res.log, res.budget_exhausted);
  // A final pass over everything together in case phase B's choice made a phase-A alternative better.
  if (!res.budget_exhausted && !res.score.exact()) {
    std::vector<Variable> all = phase_a;
    all.insert(all.end(), phase_b.begin(), phase_b.end());
    descend(search, res.best, res.score, all, 2, res.log, res.budget_exhausted);
  }
  // The best's outputs (kept from its run), then every single change of it.
  const std::optional<ReplayOutputs> r = search.outputs(res.best);
  std::vector<Variable> all = phase_a;
  all.insert(all.end(), phase_b.begin(), phase_b.end());
  scan_alternatives(search, res, all);
  // The remaining difference of the best, located.
  if (r) {
    res.arena = diff_arena(c.results->output_alloc, r->output_alloc, c.ex, c.ey, c.output.offset, c.ox, c.oy);
    res.surface = diff_surface(c.results->surface_bytes, r->surface_bytes, c.surface.width, c.surface.height, c.surface.pitch);
  }
  res.runs = search.runs();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace rrswin::capture
