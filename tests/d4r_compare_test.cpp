// A replay folder that d4r's own comparison accepts (issue 14, item 1). The comparison below is a
// re-implementation of d4r's kernels/tools/compare_launch_dump.py written ONLY from its documented
// behaviour (facts F5), not from its code and not with enc5's capture code: files named
// launch-NNN-<kernel>-argNNN-{buffer,surface,texture}-<shape>-fmtN.bin are keyed by (kernel, arg
// offset, kind, shape with its base0x... token stripped, fmt, occurrence count in launch order);
// each key reports "ok", "DIFFERS ... N of M bytes, first at i (A xx B yy)" or MISSING, and the
// exit status is 1 on any difference or any key present on one side only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <tuple>
#include <vector>

#include "test_util.hpp"

using namespace test_util;

namespace {

struct Comparison {
  int exit_status = 0;
  std::map<std::string, std::string> verdict;  // key -> "ok" | "DIFFERS ..." | "MISSING in A/B"
  std::string text() const {
    std::string s;
    for (const auto& [k, v] : verdict) s += k + ": " + v + "\n";
    return s;
  }
};

// key -> file, keyed as F5 documents.
std::map<std::string, fs::path> keyed(const fs::path& dir) {
  static const std::regex name(R"(^launch-(\d+)-(.+)-arg(\d+)-(buffer|surface|texture)-(.+)-fmt(\d+)\.bin$)");
  static const std::regex base(R"((^|-)base0x[0-9a-fA-F]+)");
  std::vector<std::tuple<unsigned long, std::string, fs::path>> files;  // launch, key sans occurrence, path
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    std::smatch m;
    if (!std::regex_match(n, m, name)) continue;
    std::string shape = std::regex_replace(m[5].str(), base, "");
    if (!shape.empty() && shape[0] == '-') shape.erase(0, 1);
    files.emplace_back(std::stoul(m[1].str()), m[2].str() + " arg" + m[3].str() + " " + m[4].str() + " " + shape + " fmt" + m[6].str(),
                       e.path());
  }
  std::stable_sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::map<std::string, int> seen;
  std::map<std::string, fs::path> out;
  for (const auto& [launch, k, p] : files) out[k + " #" + std::to_string(seen[k]++)] = p;
  return out;
}

Comparison d4r_compare(const fs::path& a, const fs::path& b) {
  Comparison c;
  const auto ka = keyed(a), kb = keyed(b);
  for (const auto& [k, pa] : ka) {
    const auto it = kb.find(k);
    if (it == kb.end()) {
      c.verdict[k] = "MISSING in B";
      c.exit_status = 1;
      continue;
    }
    const auto x = bytes_of(pa), y = bytes_of(it->second);
    std::size_t n = 0, first = 0;
    const std::size_t common = std::min(x.size(), y.size());
    for (std::size_t i = 0; i < common; ++i)
      if (x[i] != y[i] && n++ == 0) first = i;
    if (n == 0 && x.size() == y.size()) {
      c.verdict[k] = "ok";
      continue;
    }
    char buf[160];
    if (n == 0) first = common;
    std::snprintf(buf, sizeof buf, "DIFFERS %zu of %zu bytes, first at %zu (A %02x B %02x)",
                  n + (x.size() > y.size() ? x.size() - y.size() : y.size() - x.size()), std::max(x.size(), y.size()), first,
                  first < x.size() ? x[first] : 0, first < y.size() ? y[first] : 0);
    c.verdict[k] = buf;
    c.exit_status = 1;
  }
  for (const auto& [k, pb] : kb)
    if (!ka.count(k)) {
      c.verdict[k] = "MISSING in A";
      c.exit_status = 1;
    }
  return c;
}

int count_with(const Comparison& c, const std::string& prefix) {
  return static_cast<int>(
      std::count_if(c.verdict.begin(), c.verdict.end(), [&](const auto& kv) { return kv.second.rfind(prefix, 0) == 0; }));
}

}  // namespace

TEST(D4rCompare, ReplayFolderPassesExactlyWhenEnc5ReproducesTheLaunch) {
  TempDir t;
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 16 --ey 8 --window 256,32 --launch 7 --profile zluda --threads 2").status, 0);
  Result r = t.rrswin("replay cap -o same --profile zluda --threads 2");
  ASSERT_EQ(r.status, 0) << r.out;
  Comparison c = d4r_compare(t.file("cap"), t.file("same"));
  EXPECT_EQ(c.exit_status, 0) << c.text();
  EXPECT_EQ(count_with(c, "ok"), 5) << c.text();  // arg008, 040, 048, 088, 112
  // The read-only arguments are the capture's own files (hard links on this file system) or copies.
  for (const char* arg : {"arg008", "arg040", "arg088"}) {
    const fs::path src = find_file(t.file("cap"), arg), dst = find_file(t.file("same"), arg);
    ASSERT_FALSE(dst.empty()) << arg;
    EXPECT_EQ(src.filename(), dst.filename()) << arg;
    EXPECT_EQ(bytes_of(src), bytes_of(dst)) << arg;
  }

  // Replayed with another profile, the outputs differ and nothing is missing: the comparison now
  // fails on the arguments rrswin computes, and only on them.
  r = t.rrswin("replay cap -o other --threads 2");
  ASSERT_EQ(r.status, 1) << r.out;
  c = d4r_compare(t.file("cap"), t.file("other"));
  EXPECT_EQ(c.exit_status, 1);
  EXPECT_EQ(count_with(c, "DIFFERS"), 2) << c.text();
  EXPECT_EQ(count_with(c, "MISSING"), 0) << c.text();

  // The comparison itself is strict about keys: a folder lacking an argument fails (what enc5's
  // replay folders did before they carried the read-only arguments).
  fs::remove(find_file(t.file("same"), "arg008"));
  c = d4r_compare(t.file("cap"), t.file("same"));
  EXPECT_EQ(c.exit_status, 1);
  EXPECT_EQ(count_with(c, "MISSING in B"), 1) << c.text();
  // rrswin diff --strict agrees with it on a complete folder.
  EXPECT_EQ(t.rrswin("diff --strict cap other").status, 1);
}

TEST(D4rCompare, ReplayCaptureResultsAndExtraArguments) {
  TempDir t;
  // Replay form (facts F6): results/ holds every argument after the launch; the replay folder of
  // the capture compares clean with it.
  ASSERT_EQ(t.rrswin("capture --synthetic --form replay -o rc --ex 8 --ey 8 --threads 2").status, 0);
  ASSERT_EQ(t.rrswin("replay rc -o out --threads 2").status, 0);
  Comparison c = d4r_compare(t.file("rc/results"), t.file("out"));
  EXPECT_EQ(c.exit_status, 0) << c.text();
  EXPECT_EQ(count_with(c, "ok"), 5) << c.text();

  // A launch dump with an argument rrswin does not read (d4r dumps every object the parameter block
  // names) and one whose allocation is the output's (one object under two arguments): the first is
  // carried over unchanged, the second holds enc5's bytes.
  ASSERT_EQ(t.rrswin("capture --synthetic -o cap --ex 8 --ey 8 --seed 3 --threads 2").status, 0);
  const fs::path out048 = find_file(t.file("cap"), "arg048");
  const std::string n048 = out048.filename().string();
  const std::string kernel_part = n048.substr(0, n048.find("-arg048-"));
  fs::copy_file(find_file(t.file("cap"), "arg040"), t.file("cap/" + kernel_part + "-arg016-buffer-size431136-fmt0.bin"));
  std::string alias = n048;
  alias.replace(alias.find("-arg048-"), 8, "-arg056-");
  fs::copy_file(out048, t.file("cap/" + alias));
  ASSERT_EQ(t.rrswin("replay cap -o same --threads 2").status, 0);
  c = d4r_compare(t.file("cap"), t.file("same"));
  EXPECT_EQ(c.exit_status, 0) << c.text();
  EXPECT_EQ(count_with(c, "ok"), 7) << c.text();
  ASSERT_EQ(t.rrswin("replay cap -o other --profile zluda --threads 2").status, 1);
  c = d4r_compare(t.file("cap"), t.file("other"));
  EXPECT_EQ(count_with(c, "DIFFERS"), 3) << c.text();  // arg048, arg112 and the aliasing arg056
  EXPECT_EQ(count_with(c, "MISSING"), 0) << c.text();
}
