// The control-flow analyses of a decoded function. Immediate post-dominators (Cooper, Harvey,
// Kennedy, "A Simple, Fast Dominance Algorithm", on the reverse CFG with a virtual exit node): the
// SIMT stack of exec.cpp reconverges a divergent branch there, which handles nested divergence and
// loops with divergent exits (docs/ptx.md "SIMT"). Dominators (the same algorithm, forward): which
// registers a CTA must zero before it runs (docs/ptx.md "Execution").
#include "ptx/cfg.hpp"

#include <vector>

namespace rrswin::ptx {

namespace {

// The basic blocks of a function and their edges (a virtual exit node nb).
struct Cfg {
  std::vector<std::uint32_t> block_of, start;
  std::uint32_t nb = 0;
  std::vector<std::vector<std::uint32_t>> succ, pred;
  std::uint32_t end(std::uint32_t b, std::uint32_t n) const { return b + 1 < nb ? start[b + 1] : n; }
};

Cfg build_cfg(const Function& f) {
  Cfg g;
  const auto n = static_cast<std::uint32_t>(f.code.size());
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
  g.block_of.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (leader[i]) g.start.push_back(i);
    g.block_of[i] = static_cast<std::uint32_t>(g.start.size() - 1);
  }
  const auto nb = static_cast<std::uint32_t>(g.start.size());
  g.nb = nb;
  const std::uint32_t exit_node = nb;
  g.succ.assign(nb + 1, {});
  g.pred.assign(nb + 1, {});
  for (std::uint32_t b = 0; b < nb; ++b) {
    const std::uint32_t last = g.end(b, n) - 1;
    const Inst& in = f.code[last];
    auto add = [&](std::uint32_t to) {
      g.succ[b].push_back(to);
      g.pred[to].push_back(b);
    };
    const bool guarded = in.guard != kNoIndex;
    if (in.op == Op::bra) {
      add(in.target < n ? g.block_of[in.target] : exit_node);
      if (guarded) add(last + 1 < n ? g.block_of[last + 1] : exit_node);
    } else if (in.op == Op::exit || in.op == Op::trap) {
      add(exit_node);
      if (guarded && last + 1 < n) add(g.block_of[last + 1]);
    } else {
      add(last + 1 < n ? g.block_of[last + 1] : exit_node);
    }
  }
  return g;
}

// Immediate dominators over the edges `in` (predecessors in the direction of the analysis) from
// `root`: Cooper, Harvey, Kennedy. Returns idom (kNoIndex: unreachable) and the postorder numbers.
std::vector<std::uint32_t> dominators(std::uint32_t nodes, std::uint32_t root, const std::vector<std::vector<std::uint32_t>>& out,
                                      const std::vector<std::vector<std::uint32_t>>& in) {
  std::vector<std::uint32_t> order;  // postorder by iterative DFS over `out`
  std::vector<std::uint32_t> po_num(nodes, kNoIndex);
  {
    std::vector<std::pair<std::uint32_t, std::size_t>> st;
    std::vector<char> seen(nodes, 0);
    st.emplace_back(root, 0);
    seen[root] = 1;
    while (!st.empty()) {
      auto& [v, k] = st.back();
      if (k < out[v].size()) {
        const std::uint32_t w = out[v][k++];
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
  std::vector<std::uint32_t> idom(nodes, kNoIndex);
  idom[root] = root;
  auto intersect = [&](std::uint32_t a, std::uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = idom[a];
      while (po_num[b] < po_num[a]) b = idom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const std::uint32_t v = *it;
      if (v == root) continue;
      std::uint32_t nd = kNoIndex;
      for (std::uint32_t s : in[v]) {
        if (idom[s] == kNoIndex) continue;
        nd = nd == kNoIndex ? s : intersect(s, nd);
      }
      if (nd != idom[v]) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  return idom;
}

}  // namespace

void compute_reconvergence(Function& f) {
  const auto n = static_cast<std::uint32_t>(f.code.size());
  if (n == 0) return;
  const Cfg g = build_cfg(f);
  const std::uint32_t nb = g.nb, exit_node = nb;
  // The reverse CFG (edges succ -> pred) from the exit: post-dominators.
  const std::vector<std::uint32_t> ipdom = dominators(nb + 1, exit_node, g.pred, g.succ);
  for (std::uint32_t i = 0; i < n; ++i) {
    Inst& in = f.code[i];
    if (in.op != Op::bra) continue;
    const std::uint32_t p = ipdom[g.block_of[i]];
    in.ipdom = (p == kNoIndex || p == exit_node) ? kNoIndex : g.start[p];
  }
}

// A register needs no zeroing when every read of it comes after an unguarded write on every path
// from the entry: a lane follows a path of the CFG (the SIMT stack runs each lane's own path, the
// two sides of a divergent branch with disjoint masks), an unguarded instruction writes every
// active lane, so each lane that reads the register wrote it before, and what a previous CTA left
// in the slot is never seen. Such a write is one earlier in the read's own block or one in a block
// that dominates it. shfl reads other lanes (possibly inactive ones): its value operand is always
// zeroed, as are registers whose reads and writes are too many to compare (hostile input; the
// answer is then the safe one).
void compute_zero_init(Function& f) {
  f.zero_init.clear();
  f.has_zero_init = false;
  const auto n = static_cast<std::uint32_t>(f.code.size());
  if (n == 0) return;
  const Cfg g = build_cfg(f);
  const std::uint32_t nb = g.nb;
  const std::vector<std::uint32_t> idom = dominators(nb + 1, 0, g.succ, g.pred);
  // Preorder / postorder intervals of the dominator tree: D dominates B iff pre[D] <= pre[B] and
  // post[B] <= post[D].
  std::vector<std::vector<std::uint32_t>> kids(nb + 1);
  for (std::uint32_t b = 1; b <= nb; ++b)
    if (idom[b] != kNoIndex && idom[b] != b) kids[idom[b]].push_back(b);
  std::vector<std::uint32_t> pre(nb + 1, 0), post(nb + 1, 0);
  {
    std::uint32_t clock = 0;
    std::vector<std::pair<std::uint32_t, std::size_t>> st{{0, 0}};
    pre[0] = clock++;
    while (!st.empty()) {
      auto& [v, k] = st.back();
      if (k < kids[v].size()) {
        const std::uint32_t w = kids[v][k++];
        pre[w] = clock++;
        st.emplace_back(w, 0);
      } else {
        post[v] = clock++;
        st.pop_back();
      }
    }
  }
  struct Use {
    std::uint32_t block, inst;
  };
  std::vector<std::vector<Use>> defs(f.nregs), reads(f.nregs);
  std::vector<char> always(f.nregs, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Inst& in = f.code[i];
    const std::uint32_t b = g.block_of[i];
    if (idom[b] == kNoIndex) continue;  // unreachable: never runs
    for (unsigned k = 0; k < static_cast<unsigned>(in.nd + in.ns); ++k) {
      if (is_pred_operand(in, k)) continue;
      const std::uint32_t r = f.operands[in.opnd + k];
      if (r >= f.nregs) continue;
      if (k < in.nd) {
        if (in.guard == kNoIndex) defs[r].push_back({b, i});
      } else {
        reads[r].push_back({b, i});
        if (in.op == Op::shfl && k == in.nd) always[r] = 1;
      }
    }
  }
  std::uint64_t budget = 1ull << 26;  // def-read comparisons
  for (std::uint32_t r = kSpecialCount; r < f.nregs; ++r) {
    bool zero = always[r] != 0;
    for (std::size_t q = 0; q < reads[r].size() && !zero; ++q) {
      const Use u = reads[r][q];
      bool covered = false;
      for (const Use& d : defs[r]) {
        if (budget == 0) break;
        --budget;
        if (d.block == u.block ? d.inst < u.inst : (pre[d.block] <= pre[u.block] && post[u.block] <= post[d.block])) {
          covered = true;
          break;
        }
      }
      zero = !covered;
    }
    if (zero) f.zero_init.push_back(r);
  }
  f.has_zero_init = true;
}
}  // namespace rrswin::ptx
