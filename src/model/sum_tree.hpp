// The kernel's f16 reduction trees, each written once: the in-lane 20-term reduction of an RMS
// norm's squares (facts C8.2 for E20, facts B4 for the prologue), E11's in-lane 12-term row sum
// (facts C4 step 6) and the cross-lane fold both end with (butterflies xor 1, xor 2, then the two
// f16 halves: facts C4 steps 7/8, C8.3). The golden model instantiates them with the numerics
// core's f16x2 add, the fast engine with its vector adds (bit-identical per node), the CUDA port
// (RRSWIN_HD) with add.f16x2 and shfl.sync.bfly. The engine's
// per-ISA translation units instantiate them with their own lambdas, so every instantiation there
// has internal linkage (engine/kernel_args.hpp).
#pragma once
#include "base/hd.hpp"
#include "model/readings.hpp"

namespace rrswin {

// E11 step 6 (facts C4): lane t holds the f16x2 pairs of n-tiles i = 0..11 of a score row; even
// n-tiles ((0+2)+(4+6))+(8+10), odd alike, then even + odd.
template <class T, class Add>
RRSWIN_HD T e11_in_lane(const T (&E)[12], Add add) {
  const T even = add(add(add(E[0], E[2]), add(E[4], E[6])), add(E[8], E[10]));
  const T odd = add(add(add(E[1], E[3]), add(E[5], E[7])), add(E[9], E[11]));
  return add(even, odd);
}

// The fold across the four lanes t of a group (facts C4 step 7/8, C8.3, verified enc0 order),
// as one lane runs it: butterflies xor 1 then xor 2 (`partner(v, m)` = lane t^m's v), then
// `halves` adds the f16x2's two halves (add.f16).
template <class T, class Add, class Partner, class Halves>
RRSWIN_HD auto fold_butterflies(T s, Add add, Partner partner, Halves halves) {
  const T u = add(s, partner(s, 1));
  return halves(add(u, partner(u, 2)));
}
// The same fold from all four lanes' values s[t] at once (golden model, fast engine): lane 0's
// result, (s0 + s1) + (s2 + s3); f16 addition is commutative, so every lane's is the same.
template <class T, class Add, class Halves>
auto fold_lanes(const T (&s)[4], Add add, Halves halves) {
  struct Lanes {
    T v[4];
  };
  const Lanes all{{s[0], s[1], s[2], s[3]}};
  const auto lane0 = fold_butterflies(
      all,
      [&](const Lanes& a, const Lanes& b) {
        return Lanes{{add(a.v[0], b.v[0]), add(a.v[1], b.v[1]), add(a.v[2], b.v[2]), add(a.v[3], b.v[3])}};
      },
      [](const Lanes& a, int m) {
        return Lanes{{a.v[0 ^ m], a.v[1 ^ m], a.v[2 ^ m], a.v[3 ^ m]}};
      },
      [](const Lanes& a) { return a; });
  return halves(lane0.v[0]);
}

// The pairwise tree over N terms: adjacent pairs, then pairs of pairs, ...; an odd one out is
// carried up unchanged (the SumTree value pairwise of the 20- and 12-term forms).
template <class T, int N, class Add>
RRSWIN_HD T pairwise_carry(const T (&x)[N], Add add) {
  T level[N];
  for (int i = 0; i < N; ++i) level[i] = x[i];
  int n = N;
  while (n > 1) {
    int m = 0;
    for (int i = 0; i + 1 < n; i += 2) level[m++] = add(level[i], level[i + 1]);
    if (n % 2) level[m++] = level[n - 1];
    n = m;
  }
  return level[0];
}

// The 20-term RMS norm tree: T[i] = the squares of n-tile i's column pair held by one lane, one
// add.f16x2 per node, 19 adds. Its shape is undocumented, so it is the reading SumTree
// (model/readings.hpp).
template <class T, class Add>
RRSWIN_HD T reduce_in_lane(const T (&x)[20], SumTree tree, Add add) {
  switch (tree) {
    case SumTree::even_odd_quads: {
      // The 20-term analogue of SWM's tree_norm2 (facts C8.2): even n-tiles in quads, then the
      // remaining pair; odd likewise; then even + odd.
      auto q = [&](int a, int b, int c, int d) { return add(add(x[a], x[b]), add(x[c], x[d])); };
      const T even = add(add(q(0, 2, 4, 6), q(8, 10, 12, 14)), add(x[16], x[18]));
      const T odd = add(add(q(1, 3, 5, 7), q(9, 11, 13, 15)), add(x[17], x[19]));
      return add(even, odd);
    }
    case SumTree::planes: {
      // SWM's sibling-M prologue grouping (facts B4): per plane p (n-tiles 4p..4p+3) the k-lo
      // word's pairs (n-tiles 4p, 4p+2) and the k-hi word's (4p+1, 4p+3); planes combined as
      // ((p0+p1)+(p2+p3))+p4; then the two words. Node for node this is even_odd_quads above
      // (a_p = x[4p] + x[4p+2] is q's inner pair, b_p the odd one): one tree, two descriptions
      // (docs/readings.md; the readings list it once, model/readings.cpp make_tree).
      T a[5], b[5];
      for (int p = 0; p < 5; ++p) {
        a[p] = add(x[4 * p], x[4 * p + 2]);
        b[p] = add(x[4 * p + 1], x[4 * p + 3]);
      }
      return add(add(add(add(a[0], a[1]), add(a[2], a[3])), a[4]), add(add(add(b[0], b[1]), add(b[2], b[3])), b[4]));
    }
    case SumTree::sequential: {
      T s = x[0];
      for (int i = 1; i < 20; ++i) s = add(s, x[i]);
      return s;
    }
    case SumTree::pairwise: break;
  }
  return pairwise_carry(x, add);
}

// The 16-term form of the same tree, for a layer at C = 128 (enc3's E14 and prologue norm: 16
// n-tiles per lane, DOC3 §3/E14 "34 add.f16x2" = 2 rows x (15 in-lane + 2 butterfly adds)). The
// shape is not printed: each SumTree value names its 16-term analogue (the reading enc3-sum-trees,
// docs/readings.md §7): even_odd_quads = even n-tiles (q(0,2,4,6) + q(8,10,12,14)), odd alike,
// even + odd; planes = per plane p a_p = x[4p] + x[4p+2], b_p the odd pair, ((a0+a1)+(a2+a3)) and
// the same of b, then a + b (node for node even_odd_quads again); sequential; pairwise (16 is a
// power of two: a balanced tree).
template <class T, class Add>
RRSWIN_HD T reduce_in_lane(const T (&x)[16], SumTree tree, Add add) {
  switch (tree) {
    case SumTree::even_odd_quads: {
      auto q = [&](int a, int b, int c, int d) { return add(add(x[a], x[b]), add(x[c], x[d])); };
      return add(add(q(0, 2, 4, 6), q(8, 10, 12, 14)), add(q(1, 3, 5, 7), q(9, 11, 13, 15)));
    }
    case SumTree::planes: {
      T a[4], b[4];
      for (int p = 0; p < 4; ++p) {
        a[p] = add(x[4 * p], x[4 * p + 2]);
        b[p] = add(x[4 * p + 1], x[4 * p + 3]);
      }
      return add(add(add(a[0], a[1]), add(a[2], a[3])), add(add(b[0], b[1]), add(b[2], b[3])));
    }
    case SumTree::sequential: {
      T s = x[0];
      for (int i = 1; i < 16; ++i) s = add(s, x[i]);
      return s;
    }
    case SumTree::pairwise: break;
  }
  T level[16];
  for (int i = 0; i < 16; ++i) level[i] = x[i];
  for (int n = 16; n > 1; n /= 2)
    for (int i = 0; i < n / 2; ++i) level[i] = add(level[2 * i], level[2 * i + 1]);
  return level[0];
}

// The 12-term form, for a layer at C = 96 (enc2's E12 and prologue norm: 12 n-tiles per lane;
// DOC-e2 §3/E12 counts 26 add.f16x2 = 2 rows x (11 in-lane + 2 butterfly adds), its sub-table's
// "21 add.f16x2" for the in-lane part being 22). The shape is not printed: each SumTree value names
// its 12-term analogue (the reading enc2-sum-trees, docs/readings.md §8): even_odd_quads = even
// n-tiles q(0,2,4,6) + (8+10), odd alike, even + odd; planes = per plane p a_p = x[4p] + x[4p+2],
// b_p the odd pair, (a0+a1)+a2 and the same of b, then a + b (node for node even_odd_quads
// again); sequential; pairwise (adjacent pairs, an odd one out carried up, as the 20-term form).
template <class T, class Add>
RRSWIN_HD T reduce_in_lane(const T (&x)[12], SumTree tree, Add add) {
  switch (tree) {
    case SumTree::even_odd_quads: {
      auto q = [&](int a, int b, int c, int d) { return add(add(x[a], x[b]), add(x[c], x[d])); };
      return add(add(q(0, 2, 4, 6), add(x[8], x[10])), add(q(1, 3, 5, 7), add(x[9], x[11])));
    }
    case SumTree::planes: {
      T a[3], b[3];
      for (int p = 0; p < 3; ++p) {
        a[p] = add(x[4 * p], x[4 * p + 2]);
        b[p] = add(x[4 * p + 1], x[4 * p + 3]);
      }
      return add(add(add(a[0], a[1]), a[2]), add(add(b[0], b[1]), b[2]));
    }
    case SumTree::sequential: {
      T s = x[0];
      for (int i = 1; i < 12; ++i) s = add(s, x[i]);
      return s;
    }
    case SumTree::pairwise: break;
  }
  return pairwise_carry(x, add);
}

// The 8-term form, for a layer at C = 64 (dec1's E1 input norm and E9: 8 n-tiles per lane; DOC-d1
// §3/E1 counts 54 add.f16x2 = 6 rows x (7 in-lane + 2 butterfly adds), 12 shfl = 6 rows x 2). The
// shape is not printed (DESC-d1: "the sum-of-squares trees were not decoded"; DOC-d1 §3/E9 calls
// E9's in-lane adds "pairwise" without a listing): each SumTree value names its 8-term analogue (the
// reading dec1-sum-trees, docs/readings.md §9): even_odd_quads = q(0,2,4,6) + q(1,3,5,7); planes =
// per plane p a_p = x[4p] + x[4p+2], b_p the odd pair, (a0+a1) + (b0+b1) (node for node
// even_odd_quads again); sequential; pairwise (8 is a power of two: a balanced tree).
template <class T, class Add>
RRSWIN_HD T reduce_in_lane(const T (&x)[8], SumTree tree, Add add) {
  switch (tree) {
    case SumTree::even_odd_quads: {
      auto q = [&](int a, int b, int c, int d) { return add(add(x[a], x[b]), add(x[c], x[d])); };
      return add(q(0, 2, 4, 6), q(1, 3, 5, 7));
    }
    case SumTree::planes: {
      T a[2], b[2];
      for (int p = 0; p < 2; ++p) {
        a[p] = add(x[4 * p], x[4 * p + 2]);
        b[p] = add(x[4 * p + 1], x[4 * p + 3]);
      }
      return add(add(a[0], a[1]), add(b[0], b[1]));
    }
    case SumTree::sequential: {
      T s = x[0];
      for (int i = 1; i < 8; ++i) s = add(s, x[i]);
      return s;
    }
    case SumTree::pairwise: break;
  }
  return pairwise_carry(x, add);
}

// The 4-term tree (C = 32: enc0, dec0). HIP-e0's input norm (verified against d4r's oracle for enc0)
// sums (n0 + n2) + (n1 + n3) per lane: the 4-term instance of even_odd_quads and of planes (one
// plane: a = x0 + x2, b = x1 + x3, a + b); sequential ((x0 + x1) + x2) + x3; pairwise (x0 + x1) +
// (x2 + x3).
template <class T, class Add>
RRSWIN_HD T reduce_in_lane(const T (&x)[4], SumTree tree, Add add) {
  switch (tree) {
    case SumTree::even_odd_quads:
    case SumTree::planes: return add(add(x[0], x[2]), add(x[1], x[3]));
    case SumTree::sequential: return add(add(add(x[0], x[1]), x[2]), x[3]);
    case SumTree::pairwise: break;
  }
  return add(add(x[0], x[1]), add(x[2], x[3]));
}

}  // namespace rrswin
