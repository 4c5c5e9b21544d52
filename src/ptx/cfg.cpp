// Immediate post-dominators (Cooper, Harvey, Kennedy, "A Simple, Fast Dominance Algorithm", on the
// reverse CFG with a virtual exit node). The SIMT stack of exec.cpp reconverges a divergent branch
// there, which handles nested divergence and loops with divergent exits (docs/ptx.md "SIMT").
#include "ptx/cfg.hpp"

#include <vector>

namespace enc5::ptx {

void compute_reconvergence(Function& f) {
  const auto n = static_cast<std::uint32_t>(f.code.size());
  if (n == 0) return;
  // Basic block leaders: the first instruction, branch targets, and the instruction after a
  // branch, exit or trap.
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (std::uint32_t i = 0; i < n; ++i) {
    const Inst& in = f.code[i];
    if (in.op == Op::bra) {
      if (in.target < n) leader[in.target] = 1;
      leader[i + 1] = 1;
    } else if (in.op == Op::exit || in.op == Op::trap) {
      leader[i + 1] = 1;
    }
  }
  std::vector<std::uint32_t> block_of(n), start;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (leader[i]) start.push_back(i);
    block_of[i] = static_cast<std::uint32_t>(start.size() - 1);
  }
  const auto nb = static_cast<std::uint32_t>(start.size());
  const std::uint32_t exit_node = nb;
  std::vector<std::vector<std::uint32_t>> succ(nb + 1), pred(nb + 1);
  for (std::uint32_t b = 0; b < nb; ++b) {
    const std::uint32_t last = (b + 1 < nb ? start[b + 1] : n) - 1;
    const Inst& in = f.code[last];
    auto add = [&](std::uint32_t to) {
      succ[b].push_back(to);
      pred[to].push_back(b);
    };
    const bool guarded = in.guard != kNoIndex;
    if (in.op == Op::bra) {
      add(in.target < n ? block_of[in.target] : exit_node);
      if (guarded) add(last + 1 < n ? block_of[last + 1] : exit_node);
    } else if (in.op == Op::exit || in.op == Op::trap) {
      add(exit_node);
      if (guarded && last + 1 < n) add(block_of[last + 1]);
    } else {
      add(last + 1 < n ? block_of[last + 1] : exit_node);
    }
  }
  // Reverse CFG: edges succ -> pred; root = exit. Postorder by iterative DFS over `pred` lists.
  std::vector<std::uint32_t> order;  // postorder
  std::vector<std::uint32_t> po_num(nb + 1, kNoIndex);
  {
    std::vector<std::pair<std::uint32_t, std::size_t>> st;
    std::vector<char> seen(nb + 1, 0);
    st.emplace_back(exit_node, 0);
    seen[exit_node] = 1;
    while (!st.empty()) {
      auto& [v, k] = st.back();
      if (k < pred[v].size()) {
        const std::uint32_t w = pred[v][k++];
        if (!seen[w]) {
          seen[w] = 1;
          st.emplace_back(w, 0);
        }
      } else {
        po_num[v] = static_cast<std::uint32_t>(order.size());
        order.push_back(v);
        st.pop_back();
      }
    }
  }
  std::vector<std::uint32_t> ipdom(nb + 1, kNoIndex);
  ipdom[exit_node] = exit_node;
  auto intersect = [&](std::uint32_t a, std::uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = ipdom[a];
      while (po_num[b] < po_num[a]) b = ipdom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const std::uint32_t v = *it;
      if (v == exit_node) continue;
      std::uint32_t nd = kNoIndex;
      for (std::uint32_t s : succ[v]) {
        if (ipdom[s] == kNoIndex) continue;
        nd = nd == kNoIndex ? s : intersect(s, nd);
      }
      if (nd != ipdom[v]) {
        ipdom[v] = nd;
        changed = true;
      }
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    Inst& in = f.code[i];
    if (in.op != Op::bra) continue;
    const std::uint32_t p = ipdom[block_of[i]];
    in.ipdom = (p == kNoIndex || p == exit_node) ? kNoIndex : start[p];
  }
}

}  // namespace enc5::ptx
