// The PTX interpreter (issue 10): parses the PTX of a kernel (the corpus's original enc5 entry, or
// nvcc's output for enc5's own CUDA port), decodes it once into a compact instruction form, and
// runs a grid of CTAs warp by warp, 32 lanes at a time, with NVIDIA's arithmetic taken from
// src/numerics under a Profile. docs/ptx.md describes the model (address spaces, SIMT stack,
// scheduling, what is and is not supported).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/profile.hpp"
#include "numerics/types.hpp"

namespace rrswin {
struct Texture;
struct Surface;
}  // namespace rrswin

namespace rrswin::ptx {

// Every error of the interpreter (parse, decode, run): the message names the file and line, and at
// run time the CTA, warp and lane.
class PtxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Module;  // parsed and decoded module (ir.hpp)
struct Function;

// Parses and decodes `text`; `filename` is used in messages. Throws PtxError.
std::shared_ptr<const Module> parse_module(std::string_view text, std::string filename);
std::shared_ptr<const Module> load_module(const std::string& path);

// The seed's statement numbering (rrswin_enc5_epilogues.md §0): the statements of an entry body
// in order, a braced { } block and a multi-line instruction counting as one, numbered at their
// first line; declarations and labels are not statements. One item per top-level body element.
struct BodyItem {
  enum Kind { declaration, label, instruction, block } kind;
  std::uint32_t line;  // first line of the item
};
// Returns the line of statement s (1-based) at index s-1.
std::vector<std::uint32_t> number_statements(std::span<const BodyItem> items);

// The parameters of an entry, in declaration order.
struct ParamInfo {
  std::string name;
  std::uint32_t offset = 0, size = 0, align = 1;
  bool is_reg = false;  // a .func's .reg parameter or return value (a register of the body; size 0)
};

struct EntryStats {
  std::string name;
  std::uint32_t statements = 0;                    // seed numbering (number_statements)
  std::uint32_t instructions = 0;                  // decoded instructions (a braced block's inner ones)
  std::map<std::string, std::uint32_t> histogram;  // opcode with its modifiers -> count
  std::map<std::string, std::uint32_t> registers;  // register type (.b32, .pred, ...) -> count
  std::uint32_t shared_bytes = 0;                  // static .shared bytes the entry uses (up to the end of the last it names)
  std::uint32_t local_bytes = 0, param_bytes = 0, const_bytes = 0;
  std::uint32_t mma = 0;      // FP8 mma.sync instructions (m16n8k32 e4m3)
  std::uint32_t mma_int = 0;  // integer mma.sync instructions (s8/u8)
  // The model-dependent instructions the entry holds (opcode -> count; the criterion of
  // RunStats::model_dependent: every .approx form), so a user sees before a run which outputs
  // could differ in the last bit on a GPU.
  std::map<std::string, std::uint32_t> model_dependent;
  std::vector<ParamInfo> params;
  std::uint32_t first_line = 0, last_line = 0;  // of the entry's body
};
EntryStats entry_stats(const Module& m, std::string_view entry);
std::vector<std::string> entry_names(const Module& m);
// Line of statement sNNNN (1-based) of an entry; 0 when out of range.
std::uint32_t statement_line(const Module& m, std::string_view entry, std::uint32_t statement);

// The sampler of a texture object is not in the PTX: how `tex` with float coordinates filters and
// scales them is a reading of the launch (docs/readings.md "ptx-tex-sampler"). Integer
// coordinates fetch texels whatever the sampler.
enum class TextureFilter : std::uint8_t { point, linear };
struct TextureSampler {
  TextureFilter filter = TextureFilter::point;
  bool normalized = false;  // coordinates in [0, 1) scaled by the extent, else texel units
};

// The device memory of one launch: named global allocations (bounds-checked), and texture /
// surface objects as 64-bit handles (the values the parameter block carries).
class Device {
 public:
  Device();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  // Returns the generic address of the allocation's first byte. The span must outlive the runs.
  std::uint64_t add_global(std::string name, std::span<std::uint8_t> bytes);
  std::uint64_t add_global_readonly(std::string name, std::span<const std::uint8_t> bytes);
  // The sampler of a texture object (TextureSampler) is a reading of the launch.
  using Filter = TextureFilter;
  using Sampler = TextureSampler;
  std::uint64_t bind_texture(const Texture* t, Sampler sampler = Sampler());
  // The surface's texel format (the bound CUarray's): RGBA16F, 8 bytes a texel, or RGBA32F, 16
  // bytes (dec0's +144: sust.p.2d.v4.b32 stores its four f32 unchanged; a replay capture's kFmtFloat).
  enum class SurfaceFormat { rgba16f, rgba32f };
  std::uint64_t bind_surface(Surface* s, SurfaceFormat format = SurfaceFormat::rgba16f);
  struct Impl;
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

// A trace point: a statement (sNNNN) or a file line (LNNNNN); the named registers are recorded
// after the statement has executed, for every warp of the chosen CTA, each time it executes.
struct TraceSpec {
  std::uint32_t statement = 0;         // sNNNN, 0 = use line
  std::uint32_t line = 0;              // LNNNNN
  std::vector<std::string> registers;  // "%r12", "%rd3", "%p1", ...
  Dim3 cta;                            // which CTA
};
struct TraceEvent {
  std::uint32_t warp = 0;
  std::uint64_t sequence = 0;                         // how many times this warp had executed the point before
  std::uint32_t active = 0;                           // lanes that executed it (bit per lane)
  std::vector<std::array<std::uint64_t, 32>> values;  // [register][lane], masked to its width
};
struct TraceResult {
  std::uint32_t line = 0;
  std::vector<std::string> registers;
  std::vector<std::uint32_t> widths;  // bits per register (1 for a predicate)
  std::vector<TraceEvent> events;     // ordered by (warp schedule, time)
};

inline constexpr std::uint64_t kMmaWork = 16;  // an mma.sync in the work bound (ir.hpp work_weight)
// A CTA's set-up in the work bound: one unit per this many bytes the CTA clears before its warps
// run (registers, predicates and local memory of every warp, shared memory), rounded up.
inline constexpr std::uint64_t kSetupBytesPerWork = 4096;
// The memory of the CTAs running at once, one per worker thread (registers, predicates and local
// memory of every warp, shared memory), checked before the launch allocates it (docs/ptx.md
// "Limits"): a CTA over it is an error; with the default thread count (0) fewer threads run, with
// an explicit one it is an error naming the count that fits.
inline constexpr std::uint64_t kMaxRunningCtaBytes = 2ull << 30;

struct RunOptions {
  const Profile* profile = nullptr;  // nullptr = ada
  int threads = 0;                   // CTAs run on this many threads; 0 = hardware threads
  // The work bound: a hostile kernel ends in an error within about a minute (issue 18). Work is
  // counted in executed instructions, each weighted by its worst-case cost (a unit at most ~0.5 µs
  // of one core: an mma.sync kMmaWork, sin.approx 128, ...; ir.hpp work_weight), and each CTA's
  // set-up (one unit per kSetupBytesPerWork bytes it clears) against the launch bound.
  std::uint64_t max_warp_instructions = 40'000'000;    // per warp (at most ~20 s of one core, docs/ptx.md "Bound")
  std::uint64_t max_launch_instructions = 60'000'000;  // per launch, all warps together (at most ~30 s of one core)
  // The memory of the CTAs running at once (one per worker thread), kMaxRunningCtaBytes.
  std::uint64_t max_running_cta_bytes = kMaxRunningCtaBytes;
  std::uint32_t dynamic_shared_bytes = 0;
  // The interpreter's readings of PTX behaviour the ISA leaves open (docs/readings.md; kReadings).
  ReluNegativeZero relu_negative_zero = ReluNegativeZero::plus_zero;  // "ptx-relu-negative-zero"
  const TraceSpec* trace = nullptr;
  TraceResult* trace_out = nullptr;
};

struct RunStats {
  std::uint64_t warp_instructions = 0;  // executed decoded instructions, per warp
  std::uint64_t lane_instructions = 0;  // the same weighted by active lanes
  std::uint64_t mma = 0;                // warp-level mma.sync executions
  std::uint64_t ctas = 0;
  std::uint64_t work = 0;  // work units counted against max_launch_instructions (weighted instructions, CTA set-ups)
  int threads = 0;         // worker threads the CTAs ran on (RunOptions::threads, capped by the CTAs and kMaxRunningCtaBytes)
  // The model-dependent instructions the run executed (every .approx form: NVIDIA publishes
  // bounds, not bits; numerics/approx models each as the correctly rounded result): opcode ->
  // warp executions. Outputs derived from them could differ in the last bit on a GPU.
  std::map<std::string, std::uint64_t> model_dependent;
};

// The interpreter's switchable readings (docs/readings.md), one row each: the name and its
// values, the first the default (`rrswin ptx ... --reading NAME=VALUE`).
struct InterpreterReading {
  const char* name;
  const char* values;  // space-separated, the default first
  const char* what;
};
inline constexpr InterpreterReading kReadings[] = {
    {"ptx-relu-negative-zero", "plus-zero keep", ".relu of a -0 f16/bf16 result: +0 (cuda_fp16.hpp's pre-sm_80 __hfma_relu) or -0"},
};
// Sets the reading `name=value` in o; throws PtxError naming the readings and values it accepts.
void set_reading(RunOptions& o, std::string_view name_value);

// Runs `entry` over grid x block. `params` is the kernel's parameter block (its size must equal the
// entry's parameter bytes). Global memory is what `device` holds (plus the module's own .global
// and .const variables, initialised fresh for this launch). Throws PtxError.
RunStats run(const Module& m, std::string_view entry, Dim3 grid, Dim3 block, std::span<const std::uint8_t> params, Device& device,
             const RunOptions& options);

}  // namespace rrswin::ptx
