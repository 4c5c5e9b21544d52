// The heat maps' PNG writer: CRC-32 and Adler-32 against their published check values, and whole
// files decoded by an independent decoder (Python's zlib and struct), including several stored
// deflate blocks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/files.hpp"
#include "io/png.hpp"
#include "test_util.hpp"

using namespace rrswin;
using namespace test_util;

TEST(CapturePng, ChecksumsMatchPublishedValues) {
  const std::string s = "123456789";
  EXPECT_EQ(crc32({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}), 0xCBF43926u);  // CRC-32/ISO-HDLC check
  const std::string w = "Wikipedia";
  EXPECT_EQ(adler32({reinterpret_cast<const std::uint8_t*>(w.data()), w.size()}), 0x11E60398u);
  EXPECT_EQ(adler32({}), 1u);
}

TEST(CapturePng, DecodesWithPythonZlib) {
  if (!have_python()) GTEST_SKIP() << "python3 with zlib not available";
  TempDir t;
  for (const auto& [w, h, ch] : {std::tuple{3, 2, 1}, std::tuple{300, 250, 3}}) {  // 300x250x3: 3 stored blocks
    std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h * ch);
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<std::uint8_t>(i * 7 + i / 13);
    const std::string path = t.file("img.png");
    rrswin::write_file_atomic(path, encode_png(w, h, ch, px));
    rrswin::write_file_atomic(t.file("expect.bin"), px);
    const std::string py = R"(
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read(); want = open(sys.argv[2], 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n'
p = 8; idat = b''; hdr = None; seen = []
while p < len(b):
    n, = struct.unpack('>I', b[p:p+4]); t = b[p+4:p+8]; d = b[p+8:p+8+n]
    crc, = struct.unpack('>I', b[p+8+n:p+12+n]); assert zlib.crc32(t + d) == crc, t
    seen.append(t)
    if t == b'IHDR': hdr = struct.unpack('>IIBBBBB', d)
    if t == b'IDAT': idat += d
    p += 12 + n
assert seen[0] == b'IHDR' and seen[-1] == b'IEND'
w, h, depth, ct = hdr[:4]; ch = 1 if ct == 0 else 3
raw = zlib.decompress(idat); row = w * ch
assert len(raw) == h * (row + 1)
out = b''.join(raw[y*(row+1)+1:(y+1)*(row+1)] for y in range(h))
assert all(raw[y*(row+1)] == 0 for y in range(h))
assert out == want
print('ok', w, h, ch)
)";
    rrswin::write_text_atomic(t.file("check.py"), py);
    const Result r = shell("python3 '" + t.file("check.py") + "' '" + path + "' '" + t.file("expect.bin") + "'");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "ok " + std::to_string(w))) << r.out;
  }
}

TEST(CapturePng, RejectsBadShapes) {
  EXPECT_THROW(encode_png(0, 1, 1, {}), std::invalid_argument);
  std::vector<std::uint8_t> px(4);
  EXPECT_THROW(encode_png(2, 2, 2, px), std::invalid_argument);
}
