// A replay capture of ANY kernel's launch (facts F6: manifest.txt, args.bin, alloc-N.bin, texture and
// surface files; the grammar of docs/captures.md "Replay captures" with any parameter offsets and
// any launch shape), run by the PTX interpreter and written back in launch-dump naming (facts F5),
// so that `rrswin diff` compares it with a GPU's dump of the same launch (issue 20 §1). enc5's own
// captures keep their reader (capture/capture.hpp) and launch (bridge/enc5_launch.hpp);
// `rrswin ptx run --capture` takes this one for a capture of another kernel. docs/ptx.md
// "Captures of any kernel".
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capture/capture.hpp"
#include "ptx/ptx.hpp"

namespace rrswin::ptx {

struct KernelCapture {
  std::string source;  // the folder
  std::string kernel;  // the manifest's kernel line ("" when it has none)
  Dim3 grid, block;
  std::uint64_t shared = 0;        // dynamic shared bytes (the launch line's last field)
  std::vector<std::uint8_t> args;  // args.bin: the parameter block as captured
  struct Alloc {
    std::uint64_t id = 0, base = 0;
    std::string file;
    std::vector<std::uint8_t> bytes;  // before the launch; after run_kernel_capture, after it
  };
  std::vector<Alloc> allocs;
  struct Pointer {
    std::uint32_t offset = 0;  // in the parameter block
    std::size_t alloc = 0;     // index into allocs
    std::uint64_t delta = 0;   // pointer - base
  };
  std::vector<Pointer> pointers;
  struct Image {
    std::uint32_t offset = 0;
    bool texture = false;
    capture::ImageArg image;  // surfaces: after run_kernel_capture, the memory after the launch
    // A texture's sampler, the launch's and not the PTX's (docs/readings.md "ptx-tex-sampler"):
    // capture files carry none, so point (the interpreter's default); a layer capture binds its
    // layer's (bind_layer_samplers, bridge/layer_capture.hpp).
    TextureSampler sampler{};
  };
  std::vector<Image> images;
};

// Reads a replay capture of any kernel. Every number is checked (offsets inside args.bin and at
// most 999, the dump naming's three digits; allocations within 16 GiB; the launch shape within
// CUDA's limits); every file is a plain name inside the folder, never a symbolic link. Throws
// InputError naming the file and byte offset, or LaunchError.
KernelCapture load_kernel_capture(const std::string& dir);
// Whether `dir` is a replay capture whose manifest names a kernel other than enc5's.
bool is_other_kernel_capture(const std::string& dir);

// Runs `entry` on the capture: args.bin with every pointer replaced by its allocation's
// interpreter address + delta and every texture/surface offset by the object's handle; the grid,
// block and shared memory of the launch line. Allocations and surfaces are updated in place.
// Checks the parameter block's size against the entry's. Throws LaunchError or PtxError.
RunStats run_kernel_capture(const Module& m, const std::string& entry, KernelCapture& c, const RunOptions& o);

// The capture's arguments after the launch in launch-dump naming, launch 0:
// launch-000-<kernel>-argNNN-buffer-base0x…-size…[-off…]-fmt0.bin per pointer (the whole
// allocation), …-surface-<W>x<H>[-pitchP]-fmtF.bin and …-texture-…-fmtF.bin per object. `kernel`
// names them when the manifest has no kernel line; `launch` numbers them (a frame's launches in one
// folder: bridge/network_capture.hpp).
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> kernel_capture_outputs(const KernelCapture& c, const std::string& kernel,
                                                                                      std::uint32_t launch = 0);

// `--sampler OFFSET=point|linear`, the command-line form of a texture's sampler (`rrswin ptx run
// --capture`, `rrswin-gpu replay`): capture files carry none (Image::sampler), so a user who knows
// the launch's binds it by the texture's parameter offset.
struct SamplerOption {
  std::uint32_t offset = 0;
  TextureFilter filter = TextureFilter::point;
};
// OFFSET is decimal, 0..999 (the dump naming's three digits). Throws std::invalid_argument
// "--sampler: expected OFFSET=point|linear, got '<value>'".
SamplerOption parse_sampler_option(const std::string& value);
// Sets the filter of the capture's texture at o.offset; throws std::invalid_argument naming the
// capture folder when it has no texture there.
void apply_sampler_option(KernelCapture& c, const SamplerOption& o);

}  // namespace rrswin::ptx
