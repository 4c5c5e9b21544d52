// The network run's inputs as files (issue 36): `rrswin run --network --weights DIR|MANIFEST`, `--inputs
// DIR`, `--save-inputs` and `--sequence DIR` (cli/cmd_run_network.cpp; docs/network.md "Inputs").
//
// A weight set: a folder holding <layer>.bin for every runnable layer (enc0.bin .. dec0.bin, each
// the layer's image size: rrswin inspect --layer L), or a manifest, a text file of lines
// "<layer> <path>" (a path relative to the manifest's folder; '#' starts a comment).
//
// A frame's inputs folder (what --save-inputs writes into OUT/inputs/):
//   input_tensor.bin         enc0's staged input tensor: 32 e4m3 bytes a token at level 0's grid
//   <layer>/texture088.exr   every runnable layer's +88 (RGBA HALF OpenEXR): an encoder's at its
//                            grid, a decoder's at half of it (as make_network_demo builds them)
//   <decoder>/texture096.exr, texture104.exr   the decoders' +96, +104 at the decoder's grid
//   <decoder>/scale.txt      the decoder's +136 scale, one line "SX,SY" (two finite numbers)
//   external/<layer>.<param>.bin   a buffer no runnable layer produces (none while every layer runs)
//   render.txt               the render the inputs are of, one line "W,H" (what --save-inputs
//                            writes; optional: without it --render says)
// The render fixes every size; every file is checked (InputError naming it, expected, found) and
// none is read through a symbolic link.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "api/network_demo.hpp"
#include "io/output_set.hpp"
#include "model/weight_image.hpp"

namespace rrswin::cli {

// Every runnable layer's weight image from a folder or a manifest (see above).
std::map<LayerId, WeightImage> load_network_weights(const std::string& path);

// The render an inputs folder's render.txt names (W and H each 32..4096, as --render), nullopt when
// it has none.
std::optional<std::pair<int, int>> read_network_render(const std::string& dir);

// A frame's inputs from `dir` at the render (its render.txt, where it has one, must name it): the
// layers' weights are left null (the caller's).
std::unique_ptr<NetworkDemo> load_network_inputs(const std::string& dir, int render_w, int render_h);

// Writes `in` (the inputs of a run at the render) and render.txt into `set` under `prefix` (e.g.
// "inputs/") in the layout load_network_inputs reads.
void save_network_inputs(OutputSet& set, const std::string& prefix, const NetworkDemo& in, int render_w, int render_h);

}  // namespace rrswin::cli
