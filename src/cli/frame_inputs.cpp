// The frame inputs shared by `enc5 run` and `enc5 ptx run` (cli/frame_inputs.hpp).
#include "cli/frame_inputs.hpp"

#include "io/arena_io.hpp"
#include "io/errors.hpp"
#include "io/exr.hpp"
#include "io/frame_io.hpp"
#include "io/weight_file.hpp"
#include "model/synthetic_inputs.hpp"

namespace enc5::cli {

bool FrameInputOptions::handle_input(OptionCursor& cur) {
  const std::string& opt = cur.name;
  if (opt == "--weights") {
    weights_file = cur.take();
  } else if (opt == "--input") {
    input_file = cur.take();
  } else if (opt == "--texture") {
    texture_file = cur.take();
  } else if (opt == "--ex") {
    ex = static_cast<int>(parse_int(opt, cur.take(), kExtentMin, kExtentMax));
  } else if (opt == "--ey") {
    ey = static_cast<int>(parse_int(opt, cur.take(), kExtentMin, kExtentMax));
  } else if (opt == "--block-offset") {
    const auto [x, y] = parse_pair(opt, cur.take(), 0, kBlockOffsetMax);
    ox = static_cast<int>(x);
    oy = static_cast<int>(y);
  } else if (opt == "--stress") {
    cur.flag();
    stress = true;
  } else if (opt == "--seed") {
    seed = static_cast<std::uint64_t>(parse_int(opt, cur.take(), 0, kSeedMax));
  } else {
    return false;
  }
  return true;
}

const WeightImage& FrameInputs::weights() const { return default_weights ? enc5::default_weights() : loaded_weights; }

FrameInputs load_frame_inputs(const FrameInputOptions& a) {
  FrameInputs f;
  if (!a.weights_file.empty()) {
    f.loaded_weights = load_weight_image(a.weights_file);
    f.weights_what = a.weights_file;
  } else if (a.seed == 1 && !a.stress) {
    f.default_weights = true;
    f.weights_what = "embedded synthetic (seed 1)";
  } else {
    f.loaded_weights = make_synthetic_weights(SyntheticOptions{a.seed, a.stress});
    f.weights_what = std::string("synthetic (seed ") + std::to_string(a.seed) + (a.stress ? ", stress)" : ")");
  }
  const std::string synth_what = std::string("synthetic (seed ") + std::to_string(a.seed) + (a.stress ? ", stress)" : ")");
  SyntheticFrame frame;
  if (a.input_file.empty() || a.texture_file.empty()) frame = make_synthetic_frame(a.ex, a.ey, a.seed, a.stress);
  f.input = a.input_file.empty() ? frame.input_arena : read_plane_arena(a.input_file, a.ex, a.ey);
  f.input_what = a.input_file.empty() ? synth_what : a.input_file;
  if (a.texture_file.empty()) {
    f.texture = frame.texture;
    f.texture_what = synth_what;
  } else {
    f.texture = texture_from_exr(a.texture_file);
    f.texture_what = a.texture_file;
    // E61 samples texels (X +- 1, Y +- 1) of every frame pixel (facts C14.5): the texture must
    // cover the token grid.
    if (f.texture.width < a.ex || f.texture.height < a.ey)
      throw InputError(a.texture_file, 0,
                       "a texture of at least ex×ey = " + std::to_string(a.ex) + "×" + std::to_string(a.ey) + " texels",
                       std::to_string(f.texture.width) + "×" + std::to_string(f.texture.height) + " texels");
  }
  return f;
}

}  // namespace enc5::cli
