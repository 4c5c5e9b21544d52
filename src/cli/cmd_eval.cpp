// rrswin eval: evaluates one instruction of numerics.md on hex operands and prints the result in hex.
//
//   rrswin eval INSTRUCTION OPERAND... [--profile ada|zluda|hopper|blackwell] [--reading mma-NAME=VALUE]...
//   rrswin eval --batch INSTRUCTION [--profile ...] [--reading ...]    (one case per stdin line)
//   rrswin eval --list | --help
//
// Format, the same for every instruction (so scripts can treat all of them alike):
//   * an operand is the raw bits of its PTX register as hexadecimal, "0x" optional, any case,
//     at most as wide as the register (leading zeros allowed);
//   * a result is printed as "0x" plus exactly register-width/4 lower-case hex digits; an
//     instruction with one result per lane (shfl, movmatrix) prints the 32 lanes on one line,
//     lane 0 first, separated by single spaces.
// Instruction names are the PTX names without `.sync.aligned` (numerics.md).
// Exit status: 0 success; 2 bad usage or bad input (the message on stderr names the line in
// --batch mode, the operand, what was expected and what was found).
#include <bit>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "model/readings.hpp"
#include "numerics/approx.hpp"
#include "numerics/e4m3.hpp"
#include "numerics/f16.hpp"
#include "numerics/mma.hpp"
#include "numerics/op_table.hpp"
#include "numerics/profile.hpp"
#include "numerics/warp.hpp"

namespace rrswin::cli {
namespace {

using Operands = std::vector<std::uint64_t>;

struct Instruction {
  std::string_view name;
  std::vector<int> operand_bits;           // register width of each operand
  std::vector<std::string> operand_names;  // for error messages
  std::string_view operand_doc;            // --help: what the operands are
  std::string_view result_doc;             // --help: what is printed
  std::function<std::string(const Operands&, const Profile&)> eval;
};

// "0x" + exactly bits/4 lower-case hex digits (bits is a multiple of 4, at most 64).
std::string hex(std::uint64_t v, int bits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = bits - 4; shift >= 0; shift -= 4) s += kDigits[(v >> shift) & 0xF];
  return s;
}

float f32_of(std::uint64_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }
std::string hex_f32(float f) { return hex(std::bit_cast<std::uint32_t>(f), 32); }
f16_t h16(std::uint64_t v) { return static_cast<f16_t>(v); }
f16x2_t h32(std::uint64_t v) { return static_cast<f16x2_t>(v); }

std::vector<std::string> names(std::initializer_list<const char*> n) { return {n.begin(), n.end()}; }
// prefix0 .. prefix31
std::vector<std::string> indexed_names(const char* prefix) {
  std::vector<std::string> v;
  for (int l = 0; l < 32; ++l) v.push_back(std::string(prefix) + std::to_string(l));
  return v;
}
std::string lanes_hex(const WarpReg& r) {
  std::string s;
  for (int l = 0; l < 32; ++l) {
    if (l != 0) s += ' ';
    s += hex(r[l], 32);
  }
  return s;
}
WarpReg lanes_of(const Operands& o, std::size_t first) {
  WarpReg r{};
  for (int l = 0; l < 32; ++l) r[l] = static_cast<std::uint32_t>(o[first + l]);
  return r;
}

// The instruction table: every entry is one instruction of numerics.md (plus the two plain
// .ftz.f32 operations of approx.hpp that the kernel's softmax uses).
const std::vector<Instruction>& instructions() {
  static const std::vector<Instruction> table = [] {
    std::vector<Instruction> t;
    using P = const Profile&;
    auto f16_binary = [&](std::string_view name, f16_t (*op)(f16_t, f16_t)) {
      t.push_back({name, {16, 16}, names({"a", "b"}), "A B: f16 bits (4 hex digits each)", "f16 bits", [op](const Operands& o, P) {
                     return hex(op(h16(o[0]), h16(o[1])), 16);
                   }});
    };
    auto f16x2_binary = [&](std::string_view name, f16x2_t (*op)(f16x2_t, f16x2_t)) {
      t.push_back({name,
                   {32, 32},
                   names({"a", "b"}),
                   "A B: f16x2 bits (8 hex digits each, low half = bits 0..15)",
                   "f16x2 bits",
                   [op](const Operands& o, P) { return hex(op(h32(o[0]), h32(o[1])), 32); }});
    };
    auto f16_unary = [&](std::string_view name, f16_t (*op)(f16_t)) {
      t.push_back({name, {16}, names({"a"}), "A: f16 bits", "f16 bits", [op](const Operands& o, P) { return hex(op(h16(o[0])), 16); }});
    };
    auto f16x2_unary = [&](std::string_view name, f16x2_t (*op)(f16x2_t)) {
      t.push_back({name, {32}, names({"a"}), "A: f16x2 bits", "f16x2 bits", [op](const Operands& o, P) { return hex(op(h32(o[0])), 32); }});
    };
    // numerics.md "f16 arithmetic": the element-wise rows of numerics/op_table.hpp (shared with the
    // Python module), then the two fma forms.
    for (const auto& op : kF16BinaryOps)
      if (!op.ptx.empty()) f16_binary(op.ptx, op.fn);
    for (const auto& op : kF16x2BinaryOps)
      if (!op.ptx.empty()) f16x2_binary(op.ptx, op.fn);
    for (const auto& op : kF16UnaryOps)
      if (!op.ptx.empty()) f16_unary(op.ptx, op.fn);
    for (const auto& op : kF16x2UnaryOps)
      if (!op.ptx.empty()) f16x2_unary(op.ptx, op.fn);
    t.push_back(
        {"fma.rn.f16", {16, 16, 16}, names({"a", "b", "c"}), "A B C: f16 bits (computes A*B+C)", "f16 bits", [](const Operands& o, P) {
           return hex(f16_fma(h16(o[0]), h16(o[1]), h16(o[2])), 16);
         }});
    t.push_back({"fma.rn.f16x2",
                 {32, 32, 32},
                 names({"a", "b", "c"}),
                 "A B C: f16x2 bits (computes A*B+C per half)",
                 "f16x2 bits",
                 [](const Operands& o, P) { return hex(f16x2_fma(h32(o[0]), h32(o[1]), h32(o[2])), 32); }});
    // numerics.md "Conversions"
    t.push_back({"cvt.rn.f16x2.e4m3x2",
                 {16},
                 names({"a"}),
                 "A: two e4m3 codes (4 hex digits; byte 0 -> low half)",
                 "f16x2 bits",
                 [](const Operands& o, P) { return hex(cvt_f16x2_e4m3x2(static_cast<std::uint16_t>(o[0])), 32); }});
    t.push_back({"cvt.rn.satfinite.e4m3x2.f16x2",
                 {32},
                 names({"a"}),
                 "A: f16x2 bits (low half -> byte 0); a NaN gives 0x7f in ada, the signed NaN in zluda",
                 "two e4m3 codes (4 hex digits)",
                 [](const Operands& o, P p) { return hex(cvt_e4m3x2_f16x2(h32(o[0]), p), 16); }});
    t.push_back({"cvt.f32.f16", {16}, names({"a"}), "A: f16 bits", "f32 bits", [](const Operands& o, P) {
                   return hex_f32(f16_to_f32(h16(o[0])));
                 }});
    t.push_back({"cvt.rn.f16.f32", {32}, names({"a"}), "A: f32 bits (8 hex digits)", "f16 bits", [](const Operands& o, P) {
                   return hex(f32_to_f16(f32_of(o[0])), 16);
                 }});
    t.push_back({"cvt.rn.f16.f64",
                 {64},
                 names({"a"}),
                 "A: f64 bits (16 hex digits); rounded once, not through f32",
                 "f16 bits",
                 [](const Operands& o, P) { return hex(f64_to_f16(std::bit_cast<double>(o[0])), 16); }});
    // numerics.md "Approximate f32 instructions" (numerics/op_table.hpp's f32 rows)
    for (const auto& op : kF32UnaryOps)
      if (!op.ptx.empty())
        t.push_back(
            {op.ptx, {32}, names({"a"}), op.doc, "f32 bits", [fn = op.fn](const Operands& o, P) { return hex_f32(fn(f32_of(o[0]))); }});
    for (const auto& op : kF32BinaryOps)
      if (!op.ptx.empty())
        t.push_back({op.ptx, {32, 32}, names({"a", "b"}), op.doc, "f32 bits", [fn = op.fn](const Operands& o, P) {
                       return hex_f32(fn(f32_of(o[0]), f32_of(o[1])));
                     }});
    // numerics.md "Warp-level data movement"
    {
      std::vector<int> bits(32, 32);
      bits.push_back(5);
      std::vector<std::string> n = indexed_names("a");
      n.push_back("b");
      t.push_back({"shfl.bfly.b32", bits, n,
                   "A0 .. A31 B: register a of lanes 0..31 (8 hex digits each), then the lane mask b (0x0..0x1f); "
                   "c = 0x1f and membermask = -1 as in the kernel",
                   "d of lanes 0..31 (d of lane L = a of lane L ^ b)",
                   [](const Operands& o, P) { return lanes_hex(shfl_bfly(lanes_of(o, 0), static_cast<unsigned>(o[32]))); }});
    }
    t.push_back({"movmatrix.m8n8.trans.b16", std::vector<int>(32, 32), indexed_names("a"),
                 "A0 .. A31: the b32 register of lanes 0..31 (two b16: low = M[L/4][2(L%4)], high = M[L/4][2(L%4)+1])",
                 "d of lanes 0..31 (the transposed matrix in the same layout)",
                 [](const Operands& o, P) { return lanes_hex(movmatrix_trans(lanes_of(o, 0))); }});
    // numerics.md "mma": one output element
    {
      std::vector<int> bits(64, 8);
      bits.push_back(16);
      std::vector<std::string> n = indexed_names("a"), nb = indexed_names("b");
      n.insert(n.end(), nb.begin(), nb.end());
      n.push_back("c");
      t.push_back({"mma.m16n8k32.row.col.f16.e4m3.e4m3.f16", bits, n,
                   "A0 .. A31 B0 .. B31 C: one output element D = C + sum A[k] B[k]; 32 e4m3 codes of A's row "
                   "(2 hex digits each), 32 e4m3 codes of B's column, k = 0..31 in the PTX ISA's k order (the "
                   "`ada` profile sums k 0..15, then 16..31), then C as f16 bits",
                   "D as f16 bits", [](const Operands& o, P p) {
                     e4m3_t a[32], b[32];
                     for (int k = 0; k < 32; ++k) {
                       a[k] = static_cast<e4m3_t>(o[k]);
                       b[k] = static_cast<e4m3_t>(o[32 + k]);
                     }
                     return hex(mma_dot(p, a, b, h16(o[64])), 16);
                   }});
    }
    return t;
  }();
  return table;
}

const Instruction* find_instruction(std::string_view name) {
  for (const Instruction& i : instructions())
    if (i.name == name) return &i;
  return nullptr;
}

// Thrown for bad input; the caller adds the line number in --batch mode.
struct BadInput {
  std::string message;
};

// One operand: optional 0x/0X, then hex digits; its value must fit the register width.
std::uint64_t parse_operand(const Instruction& ins, std::size_t index, std::string_view text) {
  const int bits = ins.operand_bits[index];
  auto fail = [&](const std::string& why) {
    throw BadInput{"operand " + std::to_string(index + 1) + " (" + ins.operand_names[index] + ") of " + std::string(ins.name) +
                   ": expected " + std::to_string(bits) + "-bit hex (e.g. " + hex(0, bits) + "), found '" + std::string(text) + "'" +
                   (why.empty() ? "" : ": " + why)};
  };
  std::string_view digits = text;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  if (digits.empty()) fail("no hex digits");
  std::uint64_t v = 0;
  for (char ch : digits) {
    int d = 0;
    if (ch >= '0' && ch <= '9')
      d = ch - '0';
    else if (ch >= 'a' && ch <= 'f')
      d = ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F')
      d = ch - 'A' + 10;
    else
      fail(std::string("'") + ch + "' is not a hex digit");
    if (v >> 60 != 0) fail("does not fit in " + std::to_string(bits) + " bits");
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  if (bits < 64 && (v >> bits) != 0) fail("does not fit in " + std::to_string(bits) + " bits");
  return v;
}

std::string evaluate(const Instruction& ins, const std::vector<std::string_view>& words, const Profile& p) {
  if (words.size() != ins.operand_bits.size())
    throw BadInput{std::string(ins.name) + " takes " + std::to_string(ins.operand_bits.size()) + " operands (" +
                   std::string(ins.operand_doc) + "), found " + std::to_string(words.size())};
  Operands o(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) o[i] = parse_operand(ins, i, words[i]);
  return ins.eval(o, p);
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> w;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == ',')) ++i;
    const std::size_t start = i;
    while (i < line.size() && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == ',')) ++i;
    if (i > start) w.push_back(line.substr(start, i - start));
  }
  return w;
}

void print_help(std::FILE* to) {
  std::fprintf(to,
               "usage: rrswin eval INSTRUCTION OPERAND... [--profile ada|zluda|hopper|blackwell] [--reading mma-NAME=VALUE]...\n"
               "       rrswin eval --batch INSTRUCTION [--profile ada|zluda|hopper|blackwell] [--reading mma-NAME=VALUE]...\n"
               "       rrswin eval --list | --help\n\n"
               "Evaluates one PTX instruction of the enc5 kernel exactly as rrswin models it (docs: numerics.md).\n"
               "Operands are the raw register bits in hex (\"0x\" optional, leading zeros allowed, at most the\n"
               "register's width). The result is printed as \"0x\" + register-width/4 lower-case hex digits;\n"
               "per-lane instructions print lanes 0..31 on one line, separated by spaces.\n\n"
               "options:\n"
               "  --profile P  ada (default: an NVIDIA Ada GPU, sm_89), zluda (d4r's ZLUDA on AMD RDNA4),\n"
               "               hopper (NVIDIA H100/H200, sm_90, and B200, sm_100) or blackwell (RTX 50,\n"
               "               sm_120: MMA-Sim's model, unmeasured); it changes the mma\n"
               "               accumulation and the e4m3 conversion of a negative NaN\n"
               "  --reading NAME=VALUE\n"
               "               an instruction-level reading (mma-zero-sign, mma-nan-operand,\n"
               "               mma-nan-payload, mma-overflow; rrswin readings lists their values); repeatable\n"
               "  --batch      read one case per line from stdin (the operands only, separated by spaces,\n"
               "               tabs or commas) and print one result line per input line; the first bad line\n"
               "               stops the run with its line number on stderr\n"
               "  --list       print the instruction names, one per line\n\n"
               "exit status: 0 success, 2 bad usage or bad input\n\ninstructions:\n");
  for (const Instruction& i : instructions())
    std::fprintf(to, "  %s\n      operands: %s\n      prints:   %s\n", std::string(i.name).c_str(), std::string(i.operand_doc).c_str(),
                 std::string(i.result_doc).c_str());
  std::fprintf(to,
               "\nexamples:\n"
               "  rrswin eval cvt.rn.satfinite.e4m3x2.f16x2 0x3c00bc00          prints 0x38b8\n"
               "  rrswin eval add.rn.f16 0x3c00 0x3c00                         prints 0x4000\n"
               "  rrswin eval --batch mma.m16n8k32.row.col.f16.e4m3.e4m3.f16 < cases.txt\n");
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "rrswin eval: %s\n(rrswin eval --help lists the instructions and their operands)\n", msg.c_str());
  return 2;
}

}  // namespace

int cmd_eval(const Args& args) {
  bool batch = false;
  const Profile* profile = &profile_ada();
  Readings readings;
  std::vector<std::string_view> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--help" || a == "-h") {
      print_help(stdout);
      return 0;
    }
    if (a == "--list") {
      for (const Instruction& ins : instructions()) std::printf("%s\n", std::string(ins.name).c_str());
      return 0;
    }
    if (a == "--batch") {
      batch = true;
    } else if (a == "--profile" || a.starts_with("--profile=")) {
      std::string_view name;
      if (a == "--profile") {
        if (i + 1 >= args.size()) return usage_error("--profile needs a value: " + std::string(profile_names()));
        name = args[++i];
      } else {
        name = a.substr(std::string_view("--profile=").size());
      }
      profile = find_profile(name);
      if (profile == nullptr) return usage_error("unknown profile '" + std::string(name) + "': expected " + std::string(profile_names()));
    } else if (a == "--reading" || a.starts_with("--reading=")) {
      std::string_view assignment;
      if (a == "--reading") {
        if (i + 1 >= args.size()) return usage_error("--reading needs NAME=VALUE");
        assignment = args[++i];
      } else {
        assignment = a.substr(std::string_view("--reading=").size());
      }
      // Only the instruction-level readings (the mma corners) act on single instructions.
      std::string err;
      if (!is_instruction_reading(assignment.substr(0, assignment.find('='))))
        return usage_error("--reading " + std::string(assignment) +
                           ": eval takes only the instruction-level readings (mma-*; rrswin readings)");
      if (!set_reading(readings, assignment, &err)) return usage_error("--reading " + std::string(assignment) + ": " + err);
    } else if (a.starts_with("--")) {
      return usage_error("unknown option '" + std::string(a) + "'");
    } else {
      positional.push_back(a);
    }
  }
  const Profile effective = with_readings(*profile, readings);
  profile = &effective;
  if (positional.empty()) return usage_error("expected an INSTRUCTION");
  const Instruction* ins = find_instruction(positional[0]);
  if (ins == nullptr) return usage_error("unknown instruction '" + std::string(positional[0]) + "' (rrswin eval --list)");
  positional.erase(positional.begin());

  if (!batch) {
    try {
      std::printf("%s\n", evaluate(*ins, positional, *profile).c_str());
    } catch (const BadInput& e) {
      return usage_error(e.message);
    }
    return 0;
  }
  if (!positional.empty())
    return usage_error("--batch reads the operands from stdin; found '" + std::string(positional[0]) + "' on the command line");
  std::ios::sync_with_stdio(false);
  std::string error;
  const int status = eval_batch(ins->name, profile->name, std::cin, std::cout, error);
  if (status != 0) return usage_error(error);
  return 0;
}

int eval_batch(std::string_view instruction, std::string_view profile_name, std::istream& in, std::ostream& out, std::string& error) {
  const Instruction* ins = find_instruction(instruction);
  const Profile* profile = find_profile(std::string(profile_name));
  if (!ins || !profile) {
    error = "unknown instruction or profile";
    return 2;
  }
  std::string line, result;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    try {
      result = evaluate(*ins, split_words(line), *profile);
    } catch (const BadInput& e) {
      out.flush();
      error = "stdin line " + std::to_string(n) + ": " + e.message;
      return 2;
    }
    out << result << '\n';
  }
  out.flush();
  return 0;
}

std::vector<std::string> eval_instruction_names() {
  std::vector<std::string> v;
  for (const Instruction& i : instructions()) v.emplace_back(i.name);
  return v;
}

}  // namespace rrswin::cli
