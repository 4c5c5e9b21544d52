// A launch of any entry on the PTX interpreter (issue 20 §1): named global buffers, texture and
// surface objects, the parameter block built in the entry's declared order from typed values, the
// grid, the block and the dynamic shared memory. One module for every way in: `rrswin ptx launch`
// (the CLI), `rrswin ptx run --capture` of any kernel's capture (bridge/launch_capture.hpp) and Python's
// `rrswin.ptx_launch`. docs/ptx.md "Launching any kernel" describes the rules. A layer above src/ptx
// (it uses io/checked_size.hpp), beside enc5's own launch (bridge/enc5_launch.hpp).
//
// Every number here comes from a user (a command line, a capture, a Python call) and is treated as
// hostile: a LaunchError names the option (or argument) and the value, before anything runs.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/texture_surface.hpp"
#include "ptx/ptx.hpp"

namespace rrswin::ptx {

// A launch that cannot run as given; the message names the option and the value.
class LaunchError : public PtxError {
 public:
  using PtxError::PtxError;
};

// The limits a launch is checked against: CUDA's own (CUDA Programming Guide, "Technical
// Specifications per Compute Capability": grid x < 2^31, y and z < 2^16; block x, y <= 1024,
// z <= 64, x*y*z <= 1024; dynamic shared memory at most 227 KiB, sm_90's opt-in maximum, the largest
// of the profiles), the interpreter's (at most 2^24 CTAs per launch) and enc5's 16 GiB per buffer
// and per launch (io/checked_size.hpp kMaxBufferBytes).
inline constexpr std::uint64_t kMaxGridX = (1ull << 31) - 1, kMaxGridYZ = 65535;
inline constexpr std::uint64_t kMaxBlockXY = 1024, kMaxBlockZ = 64, kMaxBlockThreads = 1024;
inline constexpr std::uint64_t kMaxCtas = 1ull << 24;
inline constexpr std::uint64_t kMaxDynamicShared = 227 * 1024;

// One value of the parameter block, as `--param` gives it: TYPE:VALUE (u8..u64, s8..s64, b8..b64,
// f16, f32, f64; decimal or 0x; floats decimal, rounded to nearest even, or 0x bit patterns) or
// ptr:NAME[+OFFSET] (a buffer's address plus OFFSET bytes, or a texture's or surface's handle).
struct ParamArg {
  std::string text;          // as given ("u32:7"), for messages
  std::string type;          // "u32", ..., "f64", "ptr"
  std::uint32_t size = 0;    // bytes in the parameter block (8 for ptr)
  std::uint64_t bits = 0;    // the value's bits (scalars), little endian in the block
  std::string object;        // ptr: the buffer, texture or surface named
  std::uint64_t offset = 0;  // ptr: bytes added to a buffer's address
};
// `what` names the option in messages ("--param #2"). Throws LaunchError.
ParamArg parse_param_arg(std::string_view text, const std::string& what);

// X,Y,Z (or X,Y or X: the rest 1) with the option's limits (--grid, --block). Throws LaunchError.
Dim3 parse_dim3(std::string_view text, const std::string& what, bool block);
// A byte count (decimal or 0x) in [lo, hi]. Throws LaunchError naming `what`.
std::uint64_t parse_bytes(std::string_view text, const std::string& what, std::uint64_t lo, std::uint64_t hi);
// A name for a buffer, texture or surface: 1-100 of [A-Za-z0-9_.-], not starting with '.' or '-'
// (it becomes the output file DIR/NAME.bin). Throws LaunchError.
void check_object_name(std::string_view name, const std::string& what);

struct LaunchBuffer {
  std::string name;
  std::vector<std::uint8_t> bytes;  // before the launch; after run_launch, what the kernel left
  std::string what;                 // where it came from, for messages ("--buffer out:4096")
};
struct LaunchTexture {
  std::string name;
  Texture texture;  // RGBA16F texels, the object tex.2d fetches (docs/ptx.md)
  std::string what;
};
struct LaunchSurface {
  std::string name;
  Surface surface;  // RGBA16F surface memory (sust.b.2d); after run_launch, what the kernel left
  std::string what;
};

struct LaunchSpec {
  std::string entry;
  Dim3 grid, block;
  std::uint64_t dynamic_shared = 0;
  std::vector<LaunchBuffer> buffers;
  std::vector<LaunchTexture> textures;
  std::vector<LaunchSurface> surfaces;
  std::vector<ParamArg> params;  // one per declared parameter, in the entry's order
};

// Checks the launch against the module's entry — the entry exists; names are valid, unique across
// buffers, textures and surfaces and each named by a ptr parameter; the grid, block, shared memory
// and byte totals are within the limits above; one value per declared parameter, each of the
// declared size (ptr: 8 bytes), each ptr naming an object (a texture or surface without an
// offset) — and returns the entry's parameters. Throws LaunchError.
std::vector<ParamInfo> check_launch(const Module& m, const LaunchSpec& spec);

// The parameter block: each value at its declared offset (the declared alignment's padding and any
// bytes no value covers are zero), little endian. `address_of` gives a ptr's 64-bit value.
template <class AddressOf>
std::vector<std::uint8_t> build_param_block(const std::vector<ParamInfo>& params, std::uint32_t total_bytes,
                                            const std::vector<ParamArg>& values, AddressOf address_of) {
  std::vector<std::uint8_t> block(total_bytes, 0);
  for (std::size_t i = 0; i < params.size() && i < values.size(); ++i) {
    const std::uint64_t v = values[i].type == "ptr" ? address_of(values[i]) : values[i].bits;
    for (std::uint32_t b = 0; b < values[i].size && params[i].offset + b < block.size(); ++b)
      block[params[i].offset + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  return block;
}

// Checks (check_launch), maps every buffer (writable), texture and surface into a Device, builds the
// parameter block and runs the grid. The buffers' and surfaces' bytes are updated in place.
// Throws LaunchError (the launch as given) or PtxError (the run).
RunStats run_launch(const Module& m, LaunchSpec& spec, const RunOptions& options);

}  // namespace rrswin::ptx
