// The element-wise operations of numerics.md by name: one row per operation, the PTX instruction
// name `rrswin eval` takes and the short name the Python module's f16_unary/f16_binary/f32_unary/
// f32_binary take, beside the numerics function that defines it. `rrswin eval` (cli/cmd_eval.cpp)
// and the Python module (python/src/module.cpp) both read these tables, so a new operation is one
// row here (issue 19 §2: the instruction-name -> numerics mapping once).
//
// A row with an empty `ptx` name is not one PTX instruction (rcp_f16 is the kernel's cvt + rcp
// .approx.ftz.f32 + cvt sequence, numerics.md "f16 reciprocals"; ftz_f32 is no instruction of its
// own): Python offers it, eval does not.
#pragma once
#include <span>
#include <string_view>

#include "numerics/approx.hpp"
#include "numerics/f16.hpp"

namespace rrswin {

template <class Fn>
struct NamedOp {
  std::string_view ptx;   // PTX name without .sync.aligned ("" = not a single instruction)
  std::string_view name;  // Python's short name
  Fn fn;
  std::string_view doc;  // operand note for `rrswin eval --help` ("" = the default for its kind)
};

using F16UnaryFn = f16_t (*)(f16_t);
using F16BinaryFn = f16_t (*)(f16_t, f16_t);
using F16x2UnaryFn = f16x2_t (*)(f16x2_t);
using F16x2BinaryFn = f16x2_t (*)(f16x2_t, f16x2_t);
using F32UnaryFn = float (*)(float);
using F32BinaryFn = float (*)(float, float);

inline constexpr NamedOp<F16BinaryFn> kF16BinaryOps[] = {
    {"add.rn.f16", "add", f16_add, ""}, {"sub.rn.f16", "sub", f16_sub, ""}, {"mul.rn.f16", "mul", f16_mul, ""},
    {"max.f16", "max", f16_max, ""},    {"min.f16", "min", f16_min, ""},
};
inline constexpr NamedOp<F16UnaryFn> kF16UnaryOps[] = {
    {"neg.f16", "neg", f16_neg, ""},
    {"abs.f16", "abs", f16_abs, ""},
    {"", "rcp", rcp_f16, ""},
    {"", "rsqrt", rsqrt_f16, ""},
};
inline constexpr NamedOp<F16x2BinaryFn> kF16x2BinaryOps[] = {
    {"add.rn.f16x2", "add", f16x2_add, ""}, {"sub.rn.f16x2", "sub", f16x2_sub, ""}, {"mul.rn.f16x2", "mul", f16x2_mul, ""},
    {"max.f16x2", "max", f16x2_max, ""},    {"min.f16x2", "min", f16x2_min, ""},
};
inline constexpr NamedOp<F16x2UnaryFn> kF16x2UnaryOps[] = {
    {"neg.f16x2", "neg", f16x2_neg, ""},
    {"abs.f16x2", "abs", f16x2_abs, ""},
};
// numerics.md "Approximate f32 instructions" (correctly rounded model; ex2 and div model-dependent)
inline constexpr NamedOp<F32UnaryFn> kF32UnaryOps[] = {
    {"rcp.approx.ftz.f32", "rcp", rcp_approx_ftz_f32, "A: f32 bits"},
    {"rsqrt.approx.ftz.f32", "rsqrt", rsqrt_approx_ftz_f32, "A: f32 bits"},
    {"ex2.approx.ftz.f32", "ex2", ex2_approx_ftz_f32, "A: f32 bits (model-dependent result)"},
    {"", "ftz", ftz_f32, ""},
};
inline constexpr NamedOp<F32BinaryFn> kF32BinaryOps[] = {
    {"div.approx.ftz.f32", "div", div_approx_ftz_f32, "A B: f32 bits, computes A/B (model-dependent result)"},
    {"add.ftz.f32", "add", add_ftz_f32, "A B: f32 bits"},
    {"mul.ftz.f32", "mul", mul_ftz_f32, "A B: f32 bits"},
};

// The row of `table` whose short name is `name`, or nullptr.
template <class Fn, std::size_t N>
const NamedOp<Fn>* op_named(const NamedOp<Fn> (&table)[N], std::string_view name) {
  for (const NamedOp<Fn>& op : table)
    if (op.name == name) return &op;
  return nullptr;
}

}  // namespace rrswin
