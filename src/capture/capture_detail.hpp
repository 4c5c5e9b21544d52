// What the capture files share inside src/capture (not a public interface): the small parsers of
// names and manifests, the checks every capture passes, and the launch-dump folder reader that the
// replay-capture reader (results/) and load_captures use. capture.hpp is the public one.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/capture.hpp"

namespace rrswin::capture::detail {

namespace fs = std::filesystem;

// dump_name.cpp
bool parse_u64(std::string_view s, std::uint64_t& v, int base = 10);
std::vector<std::string> split(const std::string& s, char sep);
std::string hex(std::uint64_t v);
const char* mode_name(AddressMode m);
bool parse_mode(const std::string& s, AddressMode& m);

// capture.cpp
// The image limits (docs/captures.md): width and height in 1..kMaxImageSide texels.
inline constexpr std::uint64_t kMaxImageSide = 65536;
void set_image_geometry(ImageArg& a, std::uint64_t w, std::uint64_t h, std::optional<std::uint64_t> pitch, const std::string& file,
                        std::uint64_t offset);
void validate(const LaunchCapture& c);
std::string capture_file(const fs::path& dir, const std::string& name, const std::string& from, std::uint64_t offset);

// launch_dump.cpp
struct DumpFile {
  DumpName name;
  fs::path path;
};
std::vector<DumpFile> dump_files(const fs::path& dir);
std::vector<LaunchCapture> load_launch_dumps(const fs::path& dir, const std::vector<DumpFile>& files, const LoadOptions& opt);

}  // namespace rrswin::capture::detail
