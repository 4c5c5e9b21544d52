// File helpers. Outputs are written to a temporary file in the same folder and renamed into place,
// so a failed run never leaves a partial output file.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace enc5 {

// Reads a whole file; throws InputError (offset 0) when it cannot be opened or read.
std::vector<std::uint8_t> read_file_bytes(const std::string& path);
// Writes path atomically (temp file + rename); throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes);
void write_text_atomic(const std::string& path, const std::string& text);

}  // namespace enc5
