// The frame inputs shared by `rrswin run` and `rrswin ptx run` (cli/frame_inputs.hpp).
#include "cli/frame_inputs.hpp"

#include <filesystem>

#include "capture/capture.hpp"

#include "assets/synthetic_inputs.hpp"
#include "assets/synthetic_weights.hpp"
#include "base/errors.hpp"
#include "io/arena_io.hpp"
#include "io/exr.hpp"
#include "io/frame_io.hpp"
#include "io/weight_file.hpp"

namespace rrswin::cli {

bool FrameInputOptions::handle_input(OptionCursor& cur) {
  const std::string& opt = cur.name;
  if (opt == "--weights") {
    weights_file = cur.take();
  } else if (opt == "--input") {
    input_file = cur.take();
  } else if (opt == "--texture") {
    texture_file = cur.take();
  } else if (opt == "--texture-raw") {
    texture_raw = cur.take();
  } else if (opt == "--texture-shape") {
    texture_shape = cur.take();
  } else if (opt == "--ex") {
    ex = static_cast<int>(parse_int(opt, cur.take(), kExtentMin, kExtentMax));
    ex_given = true;
  } else if (opt == "--ey") {
    ey = static_cast<int>(parse_int(opt, cur.take(), kExtentMin, kExtentMax));
    ey_given = true;
  } else if (opt == "--block-offset") {
    const auto [x, y] = parse_pair(opt, cur.take(), 0, kBlockOffsetMax);
    ox = static_cast<int>(x);
    oy = static_cast<int>(y);
    offset_given = true;
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

const WeightImage& FrameInputs::weights() const { return default_weights ? rrswin::default_weights() : loaded_weights; }

namespace {

// --texture-raw: read by the capture reader's own parser and checks (capture::load_image_arg,
// texture_of), so a raw dump gets exactly the validation rrswin replay gives it.
Texture raw_texture(const FrameInputOptions& a) {
  std::string shape = a.texture_shape;
  int fmt = capture::kFmtHalf;
  if (shape.empty()) {
    const auto n = capture::parse_dump_name(std::filesystem::path(a.texture_raw).filename().string());
    if (!n)
      throw UsageError("--texture-raw " + a.texture_raw +
                       ": add --texture-shape WxH[-pitchP] (the file name is not a launch-dump name that gives it)");
    shape = n->shape;
    fmt = n->fmt;
  }
  return capture::texture_of(capture::load_image_arg(a.texture_raw, shape, fmt, "texture"));
}

}  // namespace

FrameInputs load_frame_inputs(const FrameInputOptions& a) {
  if (!a.texture_raw.empty() && !a.texture_file.empty()) throw UsageError("--texture and --texture-raw both give the texture: keep one");
  if (!a.texture_shape.empty() && a.texture_raw.empty())
    throw UsageError("--texture-shape describes the file of --texture-raw, which is missing");
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
  const bool own_texture = !a.texture_file.empty() || !a.texture_raw.empty();
  if (a.input_file.empty() || !own_texture) frame = make_synthetic_frame(a.ex, a.ey, a.seed, a.stress);
  f.input = a.input_file.empty() ? frame.input_arena : read_plane_arena(a.input_file, a.ex, a.ey);
  f.input_what = a.input_file.empty() ? synth_what : a.input_file;
  if (!own_texture) {
    f.texture = frame.texture;
    f.texture_what = synth_what;
  } else {
    f.texture = a.texture_raw.empty() ? texture_from_exr(a.texture_file) : raw_texture(a);
    f.texture_what = a.texture_raw.empty() ? a.texture_file : a.texture_raw;
    // E61 samples texels (X +- 1, Y +- 1) of every frame pixel (facts C14.5): the texture must
    // cover the token grid (the capture reader's check).
    capture::check_covers_frame(f.texture_what, f.texture.width, f.texture.height, static_cast<std::uint32_t>(a.ex),
                                static_cast<std::uint32_t>(a.ey), "texture");
  }
  return f;
}

}  // namespace rrswin::cli
