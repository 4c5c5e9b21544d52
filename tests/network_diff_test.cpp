// The network comparison of `rrswin diff --network` and Python's diff_network
// (capture/network_diff.hpp) on two small in-memory sides whose differences are placed by hand.
#include <gtest/gtest.h>

#include "base/errors.hpp"
#include "capture/network_diff.hpp"

namespace {

using namespace rrswin;
using namespace rrswin::capture;

constexpr int kEx = 16, kEy = 8;  // the layers' token grid

NetworkOutput raw(const char* name, std::size_t bytes) {
  NetworkOutput o;
  o.name = name;
  o.bytes.assign(bytes, 0x11);
  return o;
}

// A surface of f16 1.0 (0x3C00) in every channel.
NetworkOutput surface(const char* name, int w, int h) {
  NetworkOutput o;
  o.name = name;
  o.width = w;
  o.height = h;
  for (int i = 0; i < 4 * w * h; ++i) {
    o.bytes.push_back(0x00);
    o.bytes.push_back(0x3C);
  }
  return o;
}

// enc2 (a 3-plane arena and surface112) and dec2 (a 3-plane arena and surface112), both at 16 x 8.
NetworkSide side(const std::string& source) {
  NetworkSide s;
  s.source = source;
  for (LayerId id : {LayerId::enc2, LayerId::dec2}) {
    NetworkSideLayer l;
    l.id = id;
    l.outputs.push_back(raw("arena", 3u * kEx * kEy * 32));
    l.outputs.push_back(surface("surface112", kEx, kEy));
    s.layers.push_back(std::move(l));
  }
  return s;
}

const NetworkOutputDiff& output(const NetworkLayerDiff& l, const std::string& name) {
  for (const NetworkOutputDiff& o : l.outputs)
    if (o.name == name) return o;
  throw std::runtime_error("no output " + name);
}

TEST(NetworkDiff, IdenticalSidesAreIdentical) {
  const NetworkDiff d = diff_network(side("a"), side("b"));
  EXPECT_TRUE(d.identical());
  EXPECT_EQ(d.differing_layers, 0);
  ASSERT_EQ(d.layers.size(), 2u);
  EXPECT_EQ(d.layers[0].id, LayerId::enc2);  // network order, whatever order the sides list them in
  EXPECT_EQ(d.layers[1].id, LayerId::dec2);
  for (const NetworkLayerDiff& l : d.layers) {
    EXPECT_TRUE(l.identical && l.in_a && l.in_b);
    const NetworkOutputDiff& s = output(l, "surface112");
    EXPECT_EQ(s.diff.compared, 8u * kEx * kEy);
    EXPECT_EQ(s.diff.differing, 0u);
    EXPECT_EQ(s.values_differing, 0u);
    EXPECT_FALSE(output(l, "arena").first_block);
    EXPECT_EQ(output(l, "arena").diff.key, std::string(to_string(l.id)) + "/arena.bin");
  }
}

// One byte of enc2's surface112: texel (5, 3), channel g, its high byte 0x3C -> 0xBC, so 1.0 (0x3C00)
// becomes -1.0 (0xBC00). The f16 ordinals (sign-magnitude) are +0x3C00 = 15360 and -15360: 30720 ulp
// apart, one value differing. And one byte of dec2's arena in plane 1 at token (9, 3): block (1, 0).
TEST(NetworkDiff, ASingleByteIsOneValueAndItsUlpDistance) {
  NetworkSide b = side("b");
  b.layers[0].outputs[1].bytes[3 * (8 * kEx) + 5 * 8 + 2 * 1 + 1] ^= 0x80;
  b.layers[1].outputs[0].bytes[kEx * kEy * 32 + 32 * (3 * kEx + 9) + 5] ^= 0x01;
  const NetworkDiff d = diff_network(side("a"), b);
  EXPECT_FALSE(d.identical());
  ASSERT_TRUE(d.first_differing);
  EXPECT_EQ(*d.first_differing, LayerId::enc2);
  EXPECT_EQ(d.differing_layers, 2);
  const NetworkLayerDiff& enc2 = d.layers[0];
  EXPECT_FALSE(enc2.identical);
  const NetworkOutputDiff& s = output(enc2, "surface112");
  EXPECT_EQ(s.diff.kind, DiffKind::surface);
  EXPECT_EQ(s.diff.compared, 8u * kEx * kEy);
  EXPECT_EQ(s.diff.differing, 1u);
  EXPECT_EQ(s.values_differing, 1u);
  EXPECT_EQ(s.diff.channel[1], 1u);
  EXPECT_EQ(s.diff.max_dist, 30720u);
  EXPECT_EQ(s.diff.file_b, "b['enc2']['surface112']");
  EXPECT_FALSE(s.first_block);  // surfaces have none
  EXPECT_TRUE(output(enc2, "arena").diff.identical());
  const NetworkOutputDiff& a = output(d.layers[1], "arena");
  EXPECT_EQ(a.diff.differing, 1u);
  ASSERT_TRUE(a.first_block);
  EXPECT_EQ(*a.first_block, std::make_pair(std::int64_t{1}, std::int64_t{0}));
  EXPECT_TRUE(output(d.layers[1], "surface112").diff.identical());
}

// A layer on one side only differs with strict alone; an output on one side only, surfaces of two
// shapes and nothing in common are errors naming the output (or the side).
TEST(NetworkDiff, OneSidedLayersAndErrors) {
  NetworkSide b = side("b");
  b.layers.pop_back();  // no dec2
  NetworkDiff d = diff_network(side("a"), b);
  EXPECT_TRUE(d.identical());
  EXPECT_TRUE(d.layers[1].in_a && !d.layers[1].in_b && d.layers[1].outputs.empty());
  d = diff_network(side("a"), b, true);
  ASSERT_TRUE(d.first_differing);
  EXPECT_EQ(*d.first_differing, LayerId::dec2);

  NetworkSide c = side("c");
  c.layers[1].outputs.pop_back();  // no dec2 surface112
  try {
    diff_network(side("a"), c);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c['dec2']['surface112']"), std::string::npos) << e.what();
  }
  NetworkSide s = side("s");
  s.layers[0].outputs[1] = surface("surface112", kEx / 2, kEy);
  try {
    diff_network(side("a"), s);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s['enc2']['surface112']"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("16×8"), std::string::npos) << e.what();
  }
  NetworkSide t = side("t");
  t.layers[0].outputs[1].bytes.pop_back();  // not 8 bytes a texel
  EXPECT_THROW(diff_network(side("a"), t), InputError);
  NetworkSide none;
  none.source = "none";
  EXPECT_THROW(diff_network(side("a"), none), InputError);
}

}  // namespace
