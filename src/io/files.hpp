// File helpers. Outputs are written to a temporary file in the same folder and renamed into place,
// so a failed run never leaves a partial output file.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rrswin {

// Reads a whole file; throws InputError (offset 0) when it cannot be opened or read, names a
// directory as such, refuses files over kMaxBufferBytes (io/checked_size.hpp), and reads pipes and
// other streams to their end (at most 1 GiB).
std::vector<std::uint8_t> read_file_bytes(const std::string& path);
// Writes path atomically (temp file + rename); throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes);
void write_text_atomic(const std::string& path, const std::string& text);
// Checks, before any work, that outputs can be written to `dir` (created later when missing):
// throws std::runtime_error naming the folder when it is an existing file, cannot be created or is
// not writable. Creates nothing.
void check_output_dir(const std::string& dir);

}  // namespace rrswin
