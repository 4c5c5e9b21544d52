// Symbolic links (docs/captures.md "Files stay inside the capture", docs/formats.md "Outputs"): no
// link inside a capture or a sequence is followed — it is refused, naming it — and no output folder
// ever receives one. This header is the one place that rule lives; every reader of captures and
// sequences (capture/, `rrswin diff`, `rrswin run --sequence`, `rrswin ptx run --capture`) and every
// writer that carries a capture's files into an output folder uses it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rrswin {

// Throws InputError naming `path` and the link's target when `path` itself is a symbolic link
// (lstat: the last component; the folders above are the caller's to check). Nothing when it
// does not exist (the reader then says it cannot open it).
void refuse_link(const std::string& path);
// refuse_link for every component of `rel` below `dir` (dir/a, dir/a/b, …): `dir` itself is what
// the user named and may be a link.
void refuse_links_below(const std::string& dir, const std::string& rel);
// read_file_bytes for a file of a capture: a symbolic link is refused (O_NOFOLLOW, so no link can
// be swapped in between a check and the open).
std::vector<std::uint8_t> read_file_no_link(const std::string& path);
// dst gets src's bytes as a regular file: a hard link to src where the file system allows (src is
// never a symbolic link: it is refused), else a copy; through a temporary name and a rename, so no
// partial file. Never creates a symbolic link.
void link_or_copy_file(const std::string& src, const std::string& dst);

}  // namespace rrswin
