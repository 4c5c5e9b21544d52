// The interpreter's switchable readings (ptx.hpp kReadings; docs/readings.md).
#include <string>

#include "ptx/ptx.hpp"

namespace rrswin::ptx {

void set_reading(RunOptions& o, std::string_view name_value) {
  const std::size_t eq = name_value.find('=');
  const std::string_view name = name_value.substr(0, eq), value = eq == std::string_view::npos ? "" : name_value.substr(eq + 1);
  if (name == "ptx-relu-negative-zero" && (value == "plus-zero" || value == "keep")) {
    o.relu_negative_zero = value == "keep" ? ReluNegativeZero::keep : ReluNegativeZero::plus_zero;
    return;
  }
  std::string accepted;
  for (const InterpreterReading& r : kReadings) accepted += std::string(accepted.empty() ? "" : ", ") + r.name + "={" + r.values + "}";
  throw PtxError("--reading '" + std::string(name_value) + "': the interpreter's readings are " + accepted + " (docs/readings.md)");
}

}  // namespace rrswin::ptx
