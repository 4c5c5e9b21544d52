// Reader for the Ada, H100, H200 and B200 measurements of mma.m16n8k32.row.col.f16.e4m3.e4m3.f16
// (RRSWIN_SHARED_DIR/data/ada-mma-e4m3-f16/ and hopper-mma-e4m3-f16/, README.md there: the A and B
// inputs of every GPU are the Ada folder's files, C and D are per GPU). Shared by mma_test.cpp,
// hopper_mma_test.cpp and eval_cli_test.cpp. The conversions here are the test's own, independent of src/numerics:
//   * a/b: the hex bits of an f32 holding an e4m3 value exactly -> the e4m3 code, by looking the
//     bits up among the 254 non-NaN codes decoded from numerics.md "Formats" with std::ldexp;
//   * c: 32 binary digits of an f32, rounded to f16 (nearest even) as the harness does, through
//     the compiler's _Float16 conversion;
//   * d: 32 binary digits of an f32 that holds an f16 exactly -> the f16 bits (exact).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rrswin_test {

struct AdaMmaCase {
  std::uint8_t a[32];  // e4m3 codes, k = 0..31 in the ISA order (A's row 0)
  std::uint8_t b[32];  // e4m3 codes (B's column 0)
  std::uint16_t c;     // f16 bits after the harness's round-to-nearest-even
  std::uint16_t d;     // measured f16 result
  std::uint32_t c32;   // C as the harness's f32, before its rounding to f16
};

inline std::string shared_data_dir(const char* folder) {
  const char* env = std::getenv("RRSWIN_SHARED_DIR");
  std::string root = env != nullptr && *env != '\0' ? env : RRSWIN_SHARED_DIR;
  return root + "/data/" + folder;
}
inline std::string ada_mma_data_dir() { return shared_data_dir("ada-mma-e4m3-f16"); }

inline std::uint32_t f32_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint16_t f16_bits(_Float16 h) {
  std::uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}

// numerics.md "Formats": sign bit 7; m = c & 0x7F; m >= 8: (1 + (m&7)/8) 2^((m>>3)-7); else m 2^-9.
inline double test_e4m3_value(std::uint8_t code) {
  const int m = code & 0x7F;
  const double mag = m >= 8 ? std::ldexp(1.0 + (m & 7) / 8.0, (m >> 3) - 7) : std::ldexp(static_cast<double>(m), -9);
  return (code & 0x80) != 0 ? -mag : mag;
}

// f32 bit pattern -> e4m3 code, for the 254 non-NaN codes.
inline const std::map<std::uint32_t, std::uint8_t>& e4m3_code_by_f32_bits() {
  static const std::map<std::uint32_t, std::uint8_t> table = [] {
    std::map<std::uint32_t, std::uint8_t> t;
    for (int c = 0; c < 256; ++c) {
      if ((c & 0x7F) == 0x7F) continue;
      t[f32_bits(static_cast<float>(test_e4m3_value(static_cast<std::uint8_t>(c))))] = static_cast<std::uint8_t>(c);
    }
    return t;
  }();
  return table;
}

// Loads every case of one GPU: A and B from the Ada folder, C and D from `c_path` / `d_path`.
// Returns false with `why` set when a file is missing or malformed.
inline bool load_mma_cases(const std::string& c_path, const std::string& d_path, std::vector<AdaMmaCase>& out, std::string& why) {
  const std::string dir = ada_mma_data_dir();
  std::ifstream fa(dir + "/a_Ada_E4M3.txt"), fb(dir + "/b_Ada_E4M3.txt"), fc(c_path), fd(d_path);
  if (!fa || !fb || !fc || !fd) {
    why = "a measurement file is absent (" + dir + "/a_Ada_E4M3.txt, b_Ada_E4M3.txt, " + c_path + ", " + d_path + ")";
    return false;
  }
  const auto& codes = e4m3_code_by_f32_bits();
  auto read_codes = [&](std::ifstream& f, std::uint8_t* dst, const char* name, std::size_t line) {
    std::string text;
    if (!std::getline(f, text)) return false;
    std::istringstream in(text);
    for (int k = 0; k < 32; ++k) {
      std::string tok;
      if (!(in >> tok)) {
        why = std::string(name) + " line " + std::to_string(line) + ": fewer than 32 values";
        return false;
      }
      const auto bits = static_cast<std::uint32_t>(std::stoul(tok, nullptr, 16));
      const auto it = codes.find(bits);
      if (it == codes.end()) {
        why = std::string(name) + " line " + std::to_string(line) + ": " + tok + " is not an e4m3 value";
        return false;
      }
      dst[k] = it->second;
    }
    return true;
  };
  auto read_binary = [&](std::ifstream& f, std::uint32_t& dst) {
    std::string text;
    if (!std::getline(f, text)) return false;
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    if (text.size() != 32) return false;
    dst = static_cast<std::uint32_t>(std::stoul(text, nullptr, 2));
    return true;
  };
  out.clear();
  for (std::size_t line = 1;; ++line) {
    AdaMmaCase cs{};
    if (!read_codes(fa, cs.a, "a_Ada_E4M3.txt", line)) break;
    if (!read_codes(fb, cs.b, "b_Ada_E4M3.txt", line)) return false;
    std::uint32_t c32 = 0, d32 = 0;
    if (!read_binary(fc, c32) || !read_binary(fd, d32)) {
      why = "c/d line " + std::to_string(line) + " is not 32 binary digits";
      return false;
    }
    cs.c32 = c32;
    cs.c = f16_bits(static_cast<_Float16>(f32_from_bits(c32)));  // the harness's RNE to f16
    const _Float16 d16 = static_cast<_Float16>(f32_from_bits(d32));
    if (static_cast<float>(d16) != f32_from_bits(d32) && !std::isnan(f32_from_bits(d32))) {
      why = "d line " + std::to_string(line) + " is not an f16 value";
      return false;
    }
    cs.d = f16_bits(d16);
    out.push_back(cs);
  }
  if (!why.empty()) return false;
  if (out.empty()) {
    why = "no cases read from " + c_path;
    return false;
  }
  return true;
}

inline bool load_ada_mma_cases(std::vector<AdaMmaCase>& out, std::string& why) {
  const std::string dir = ada_mma_data_dir();
  return load_mma_cases(dir + "/c_Ada_fp32.txt", dir + "/d_Ada_fp16.txt", out, why);
}

// The GPUs of hopper-mma-e4m3-f16 (numerics.md `hopper`): H100, H200 (sm_90), B200 (sm_100).
inline const char* const kHopperGpus[] = {"H100", "H200", "B200"};
inline bool load_hopper_mma_cases(const std::string& gpu, std::vector<AdaMmaCase>& out, std::string& why) {
  const std::string dir = shared_data_dir("hopper-mma-e4m3-f16");
  return load_mma_cases(dir + "/c_" + gpu + "_fp32.txt", dir + "/d_" + gpu + "_fp16.txt", out, why);
}

// RRSWIN_TEST_SCALE=small (the sanitize preset) scales the big random loops down 20x.
inline long scaled(long n) {
  const char* s = std::getenv("RRSWIN_TEST_SCALE");
  return s != nullptr && std::string(s) == "small" ? n / 20 : n;
}

// The mma tests' own exact rounding (independent of mma.cpp): x to `precision` significant bits
// with exponent floor `emin` (gradual underflow), ties to even: nearbyintl in the default rounding
// mode is an exact round-to-nearest-even of x / ulp.
inline long double round_ld(long double x, int precision, int emin) {
  if (x == 0 || std::isinf(x) || std::isnan(x)) return x;
  int e = std::ilogb(x);
  if (e < emin) e = emin;
  const long double ulp = std::ldexp(1.0L, e - (precision - 1));
  return std::nearbyint(x / ulp) * ulp;
}

}  // namespace rrswin_test
