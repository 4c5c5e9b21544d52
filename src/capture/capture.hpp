// Captures of the original kernel taken by d4r (facts §F5 launch dumps, §F6 replay dumps), read
// into one shape rrswin can run, and written back in the same naming. The formats as rrswin reads and
// writes them, and every decision the facts leave open, are in docs/captures.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/frame.hpp"
#include "model/launch_abi.hpp"
#include "model/weight_image.hpp"

namespace rrswin {
class OutputSet;  // io/output_set.hpp
}

namespace rrswin::capture {

struct DebugStage;  // capture/debug_stage.hpp

inline constexpr const char* kEnc5Kernel = abi::kKernelName;
// The parameter-block offsets rrswin reads (facts A4, model/launch_abi.hpp) and d4r names its dumps
// by (facts F5).
inline constexpr int kArgInput = static_cast<int>(abi::kParamInput), kArgWeights = static_cast<int>(abi::kParamWeights),
                     kArgOutput = static_cast<int>(abi::kParamOutput), kArgTexture = static_cast<int>(abi::kParamTexture),
                     kArgSurface = static_cast<int>(abi::kParamSurface);
inline constexpr std::size_t kParamBlockBytes = abi::kParamBlockBytes;
// fmtN of a dump: buffers are untyped (fmt0); textures and surfaces carry CUDA's CUarray_format
// code, and enc5's are RGBA16F = CU_AD_FORMAT_HALF (0x10 = 16) with 4 channels (docs/captures.md).
inline constexpr int kFmtBuffer = 0, kFmtHalf = 16;
// dec0's +144 (sust.p.2d.v4.b32 of four f32, DOC-d0 §4.2): the model takes it as RGBA32F =
// CU_AD_FORMAT_FLOAT (0x20 = 32), 16 bytes a texel (its real format is not in the PTX: dec0.md U7).
inline constexpr int kFmtFloat = 32;

// One file name of a launch dump: launch-NNN-<kernel>-argNNN-<kind>-<shape>-fmtN.bin (facts F5).
struct DumpName {
  std::uint32_t launch = 0;
  std::string kernel;
  int arg = 0;       // byte offset in the parameter block
  std::string kind;  // buffer | surface | texture
  std::string shape;
  int fmt = 0;
};
std::optional<DumpName> parse_dump_name(const std::string& file_name);
// Throws std::invalid_argument when a part would not keep the name one plain file name (a '/' or
// a NUL byte; an empty kernel, kind or shape): no output named from a capture leaves its folder.
std::string format_dump_name(const DumpName& n);

// A kernel name read from a capture's manifest names output files (launch-dump naming), so it is
// checked before it names anything (issue 38 F1, docs/captures.md "Replay captures"): the PTX
// identifier syntax (PTX ISA "Identifiers": a letter then letters, digits, '_' or '$'; or '_', '$'
// or '%' then at least one of those) and at most kMaxKernelNameBytes bytes, which keeps the
// longest output name within 255 bytes. Throws InputError naming the file, the line's byte offset
// and number, and the name found.
inline constexpr std::size_t kMaxKernelNameBytes = 160;
bool is_ptx_identifier(const std::string& name);
void check_kernel_name(const std::string& name, const std::string& file, std::uint64_t offset, std::uint64_t line);
// The shape with its base0x… token removed (d4r's comparison key ignores device addresses, F5).
std::string strip_base(const std::string& shape);
// d4r's comparison key without the occurrence count: kernel, arg, kind, shape sans base, fmt.
std::string dump_key(const DumpName& n);

// A device allocation as dumped, and where in it the argument's pointer points (facts F4: the
// arena may be a window of a larger allocation).
struct BufferArg {
  std::string file;                 // where it was read from (for error messages)
  std::string shape;                // launch-dump shape string (written back unchanged)
  std::uint64_t base = 0;           // device address of the allocation
  std::uint64_t offset = 0;         // pointer - base
  std::vector<std::uint8_t> bytes;  // the whole allocation
};
// An RGBA16F texture or surface object's texel memory: rows of `pitch` bytes.
struct ImageArg {
  std::string file, shape;
  int width = 0, height = 0, fmt = kFmtHalf;
  std::size_t pitch = 0;
  AddressMode mode = AddressMode::clamp;
  std::vector<std::uint8_t> bytes;  // pitch * height
};

enum class Form { launch_dump, replay };

struct ReplayOutputs {
  std::vector<std::uint8_t> output_alloc;   // the output allocation after the launch
  std::vector<std::uint8_t> surface_bytes;  // the surface memory after the launch
};

struct LaunchCapture {
  std::string source;  // the folder
  std::string subdir;  // in a sequence: the capture's sub-folder name (outputs go to OUT/subdir)
  Form form = Form::launch_dump;
  std::uint32_t launch = 0;
  std::string kernel = kEnc5Kernel;
  std::uint32_t ex = 0, ey = 0;
  std::uint16_t ox = 0, oy = 0;
  std::uint32_t grid_x = 0, grid_y = 0;  // 0 = the grid covering (ex, ey)
  std::string grid_file;                 // where the grid was read (manifest.txt), for errors
  std::uint64_t grid_offset = 0;
  BufferArg input, weights, output;
  ImageArg texture, surface;
  // The original's results, when the capture holds them: launch dumps are taken after the launch
  // (F5), so their arg048/arg112 files are the results; a replay capture holds the state before
  // the launch (F6) and carries results only in an optional results/ sub-folder (docs/captures.md).
  std::optional<ReplayOutputs> results;
  // Launch dumps: every other file of this launch (arg008, arg040, arg088 and any argument enc5
  // does not read), which the kernel does not write (facts A4): a replay folder carries them over
  // under the same names so that d4r's comparison (facts F5) finds every key on both sides.
  std::vector<std::string> passthrough;
};

struct LoadOptions {
  std::string kernel_filter = "swin_enc5";  // substring of the kernel name
  int ex = 0, ey = 0;                       // > 0: override the extents of launch dumps
  int ox = -1, oy = -1;                     // >= 0: override the block offsets of launch dumps
};

// Reads every enc5 launch under `path`: a launch-dump folder (one or several launches), a replay
// capture (manifest.txt), or a folder of replay captures (sub-folders with a manifest.txt).
// Throws InputError (file, byte offset, expected, found) on anything it cannot read, and
// std::runtime_error naming the folder when it holds no launch of the kernel.
std::vector<LaunchCapture> load_captures(const std::string& path, const LoadOptions& opt = {});
LaunchCapture load_replay_capture(const std::string& dir);

// One launch of a launch-dump folder of ANY kernel as dumped (facts F5), for the merge layers'
// replay (bridge/layer_capture.hpp): every file of the launch, buffers checked as enc5's (the size
// token against the file, base0x and off tokens), textures and surfaces by load_image_arg.
struct DumpedLaunch {
  std::string dir, kernel;
  std::uint32_t launch = 0;
  std::vector<std::pair<int, BufferArg>> buffers;  // parameter offset -> the allocation
  struct Image {
    int arg = 0;
    bool texture = false;
    ImageArg image;
  };
  std::vector<Image> images;
};
// The launches under `dir` of the kernels whose name contains `kernel_substring`, in launch order.
// Throws InputError naming a file (a link, a bad name, two files for one argument, a damaged shape)
// and std::runtime_error naming the folder when it holds no such launch.
std::vector<DumpedLaunch> load_dumped_launches(const std::string& dir, const std::string& kernel_substring);

// The output arena window inside the output allocation: [offset, offset + 5*ey*ex*32).
std::size_t arena_window_bytes(const LaunchCapture& c);
// The device address in a buffer shape's base0x<hex> token, when it has a valid one.
std::optional<std::uint64_t> shape_base(const std::string& shape);

// Reads a raw RGBA16F texture or surface dump: `shape` <W>x<H>[-pitch<P>][-mode] as in launch-dump
// names, `fmt` its CUarray_format code; the one parser and check of image dumps (launch dumps,
// replay captures' texture/surface files and `rrswin run --texture-raw` all use it). Throws
// InputError naming the file, the offset, expected and found.
ImageArg load_image_arg(const std::string& file, const std::string& shape, int fmt, const char* what);
// The geometry (width, height, pitch, mode) of an image shape string, with its limits, read by the
// same parser (`rrswin diff` sizes its tables by it); throws InputError naming `file`.
ImageArg image_geometry(const std::string& file, const std::string& shape, bool texture);
// The off<N> token of a buffer shape (0 when absent), read by the launch-dump parser: a base, size
// or off token whose number does not read is an InputError naming `file`.
std::uint64_t buffer_offset(const std::string& file, const std::string& shape);
// The texture E61 samples and the surface it writes must cover the ex×ey frame; else InputError.
void check_covers_frame(const std::string& file, int width, int height, std::uint32_t ex, std::uint32_t ey, const char* what);
// What rrswin runs on besides the arenas: the weight image (cut at the argument's offset) and the texture.
struct LaunchInputs {
  WeightImage weights;
  Texture texture;
};
LaunchInputs launch_inputs(const LaunchCapture& c);
// An address mode as shapes and manifests spell it: clamp, border, wrap, mirror.
const char* address_mode_name(AddressMode m);
// Canonical shape strings (what rrswin writes; docs/captures.md).
std::string buffer_shape(std::uint64_t base, std::size_t size, std::uint64_t offset);
std::string image_shape(const ImageArg& a, bool texture);

// Runs enc5 on the captured inputs. The arena window starts from zeros (as `rrswin run`); bytes of
// the allocation outside the window and surface texels outside ex x ey are carried over from the
// capture, since the kernel never writes them.
ReplayOutputs replay_launch(const LaunchCapture& c, const RunOptions& options);
// The pieces replay_launch starts from (shared with the PTX interpreter's `rrswin ptx run --capture`):
// the texture object's texels, the surface with its ex x ey texels zeroed, the output allocation
// with its arena window zeroed.
Texture texture_of(const ImageArg& texture);
Surface surface_before_launch(const LaunchCapture& c);
std::vector<std::uint8_t> output_before_launch(const LaunchCapture& c);
// Writes a complete replay folder in launch-dump naming into dir (dir/subdir for a capture of a
// sequence): the arg048 buffer and arg112 surface rrswin computed, then the launch's read-only
// arguments (arg008, arg040, arg088 and, for launch dumps, every other file of the launch) under
// the capture's own names, as hard links where the file system allows and byte copies otherwise,
// so that d4r's comparison of the capture with the folder passes exactly when rrswin reproduces the
// launch (facts F5; docs/captures.md "What rrswin replay writes"). A read-only buffer that overlaps
// the output allocation's addresses is written as a copy holding enc5's bytes there. Returns the
// paths, the two outputs first.
// The first form writes into a command's output set (io/output_set.hpp: all of a command's outputs
// or none) and returns the final paths; the second is one set of its own, committed.
std::vector<std::string> write_replay_outputs(OutputSet& out, const LaunchCapture& c, const ReplayOutputs& r);
std::vector<std::string> write_replay_outputs(const std::string& dir, const LaunchCapture& c, const ReplayOutputs& r);

// Synthetic captures: enc5's own run in d4r's formats.
struct SyntheticCaptureOptions {
  std::uint64_t seed = 1;
  bool stress = false;
  const Profile* profile = nullptr;
  Readings readings;
  int ex = 40, ey = 23;
  int ox = 0, oy = 0;
  std::uint32_t launch = 1;
  std::size_t window_before = 0, window_after = 0;  // bytes around the output arena (F4)
  Engine engine = Engine::fast;
  int threads = 0;
  // A debug-oracle capture (facts F1): the output allocation also holds this stage's payload at
  // the arena pointer + debug_base (the allocation grows to hold it).
  const DebugStage* stage = nullptr;
  std::uint64_t debug_base = 4000000;
};
// Form launch_dump: the five files of one launch, the outputs after enc5's run.
// Form replay: manifest.txt, args.bin, alloc-N.bin, texture-088.bin, surface-112.bin (pre-launch).
std::vector<std::string> write_synthetic_capture(const std::string& dir, Form form, const SyntheticCaptureOptions& o);

}  // namespace rrswin::capture
