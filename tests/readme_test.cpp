// README.md's table of the network's layers says what the layer rows say (issue 32: "a per-layer
// status table generated or checked by a test"): each row's C, heads, phases, mma, image size and
// whether the layer runs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/layer_program.hpp"
#include "model/layer_spec.hpp"

namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> c;
  std::stringstream ss(line);
  std::string cell;
  std::getline(ss, cell, '|');  // before the first '|'
  while (std::getline(ss, cell, '|')) {
    const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
    c.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  return c;
}

TEST(Readme, LayerTableMatchesTheRows) {
  std::ifstream in(std::string(RRSWIN_TESTS_DIR) + "/../README.md");
  ASSERT_TRUE(in) << "README.md";
  int rows = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::vector<std::string> c = cells(line);
    rrswin::LayerId id{};
    if (c.size() < 7 || !rrswin::parse_layer(c[0], &id)) continue;
    const rrswin::LayerSpec& s = rrswin::layer_spec(id);
    const rrswin::LayerProgram& p = rrswin::layer_program(id);
    SCOPED_TRACE(line);
    EXPECT_EQ(static_cast<int>(id), rows) << "network order";
    EXPECT_EQ(c[1], std::to_string(s.channels));
    EXPECT_EQ(c[2], std::to_string(s.heads) + (s.serial_heads() ? " serial" : ""));
    EXPECT_EQ(c[3], std::to_string(p.phases.size()));
    EXPECT_EQ(c[4], std::to_string(p.mma_total));
    EXPECT_EQ(c[5], std::to_string(rrswin::weight_map(s).image_bytes()));
    EXPECT_EQ(c[6].rfind("runs", 0) == 0, s.runnable);
    ++rows;
  }
  EXPECT_EQ(rows, rrswin::kLayerCount);
}

}  // namespace
