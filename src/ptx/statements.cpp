// The seed's statement numbering, one small function (rrswin_enc5_epilogues.md §0: "sNNNN is a
// statement index ... statements of the entry body; a wrapped { … } block and a 4-line mma.sync
// count as one statement, numbered at their first line"). The parser hands it the entry body's
// top-level items; a multi-line instruction is one item already (it ends at its ';').
#include "ptx/ptx.hpp"

namespace rrswin::ptx {

std::vector<std::uint32_t> number_statements(std::span<const BodyItem> items) {
  std::vector<std::uint32_t> lines;
  for (const BodyItem& it : items)
    if (it.kind == BodyItem::instruction || it.kind == BodyItem::block) lines.push_back(it.line);
  return lines;
}

}  // namespace rrswin::ptx
