// The frame inputs of a launch as `rrswin run` takes them (weights, input arena, texture, extents,
// block offsets, synthetic seed/stress): one option parser and one loader, shared by `rrswin run`
// and `rrswin ptx run` so that both run exactly the same inputs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli_options.hpp"
#include "model/texture_surface.hpp"
#include "model/weight_image.hpp"

namespace rrswin::cli {

struct FrameInputOptions {
  std::string weights_file, input_file, texture_file;
  std::string texture_raw, texture_shape;  // a raw RGBA16F texture dump (d4r's arg088) and its shape
  int ex = 40, ey = 23;
  int ox = 0, oy = 0;
  bool ex_given = false, ey_given = false, offset_given = false;
  bool stress = false;
  std::uint64_t seed = 1;
  // --weights, --input, --texture, --texture-raw, --texture-shape, --ex, --ey, --block-offset,
  // --stress, --seed: true when the cursor's option was one of them.
  bool handle_input(OptionCursor& cur);
};

inline constexpr const char* kFrameInputHelp =
    R"(  --weights FILE            weight image, 431136 bytes (default: the embedded synthetic image)
  --input FILE              input plane arena (param+8), 5*ey*ex*32 bytes (default: synthetic)
  --texture FILE.exr        RGBA HALF OpenEXR texture (param+88), at least ex x ey texels
                            (default: synthetic, ex x ey)
  --texture-raw FILE        a raw RGBA16F texture dump (d4r's ...-arg088-texture-...-fmt16.bin:
                            rows of pitch bytes, 4 little-endian f16 per texel), read and checked
                            exactly as rrswin replay reads a capture's texture
  --texture-shape WxH[-pitchP][-MODE]
                            its shape (pitch default 8*W; MODE clamp|border|wrap|mirror); not
                            needed when FILE carries a launch-dump name
  --ex N, --ey N            token-grid extents (param+0; default 40 and 23)
  --block-offset X,Y        block-origin offsets ox, oy (param+80/+82, u16; default 0,0)
  --stress                  use the stress variants of the synthetic assets
  --seed N                  seed of the synthetic assets (default 1)
)";

// The assets: files replace the synthetic ones one by one. Throws InputError on a bad file.
struct FrameInputs {
  WeightImage loaded_weights;
  bool default_weights = false;
  std::string weights_what, input_what, texture_what;
  std::vector<std::uint8_t> input;
  Texture texture;
  const WeightImage& weights() const;
};
FrameInputs load_frame_inputs(const FrameInputOptions& a);

}  // namespace rrswin::cli
