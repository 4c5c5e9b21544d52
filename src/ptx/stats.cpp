// rrswin ptx stats: what an entry holds (instruction histogram, registers, memory, mma counts, the
// model-dependent instructions).
#include "ptx/ir.hpp"

namespace rrswin::ptx {

namespace {
const Function& entry_of(const Module& m, std::string_view entry) {
  const Function* f = m.find(entry);
  if (!f || !f->is_entry) throw PtxError(m.filename + ": no entry named '" + std::string(entry) + "'");
  return *f;
}
}  // namespace

std::vector<std::string> entry_names(const Module& m) {
  std::vector<std::string> out;
  for (const Function& f : m.functions)
    if (f.is_entry) out.push_back(f.name);
  return out;
}

std::uint32_t statement_line(const Module& m, std::string_view entry, std::uint32_t statement) {
  const Function& f = entry_of(m, entry);
  if (statement == 0 || statement > f.statement_lines.size()) return 0;
  return f.statement_lines[statement - 1];
}

EntryStats entry_stats(const Module& m, std::string_view entry) {
  const Function& f = entry_of(m, entry);
  EntryStats s;
  s.name = f.name;
  s.statements = static_cast<std::uint32_t>(f.statement_lines.size());
  // The final implicit exit is the parser's, not the file's.
  s.instructions = f.code.empty() ? 0 : static_cast<std::uint32_t>(f.code.size() - 1);
  for (std::uint32_t i = 0; i < s.instructions; ++i) {
    const Inst& in = f.code[i];
    s.histogram[m.opcode_names[in.name]]++;
    if (in.op == Op::mma) s.mma++;
    if (in.op == Op::mma_int) s.mma_int++;
    if (is_model_dependent(in)) s.model_dependent[m.opcode_names[in.name]]++;
  }
  for (const RegInfo& r : f.regs) s.registers[type_name(r.type)]++;
  s.shared_bytes = static_cast<std::uint32_t>(f.shared_used);
  s.local_bytes = f.local_bytes;
  s.param_bytes = f.param_bytes;
  s.const_bytes = m.const_bytes;
  s.params = f.params;
  s.first_line = f.first_line;
  s.last_line = f.last_line;
  return s;
}

}  // namespace rrswin::ptx
