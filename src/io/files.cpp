#include "io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/errors.hpp"
#include "io/checked_size.hpp"
#include "io/links.hpp"

namespace rrswin {

namespace {
constexpr std::uint64_t kMaxStreamBytes = 1ull << 30;
}  // namespace

namespace {

std::vector<std::uint8_t> read_file(const std::string& path, bool follow_links) {
  // POSIX reads, so that a directory, a pipe or a device is told apart from a file: a directory is
  // refused by name, a pipe or terminal is read as a stream up to kMaxBufferBytes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) {
    if (!follow_links && errno == ELOOP) refuse_link(path);  // names the link and its target
    throw InputError(path, 0, "a readable file", std::string("cannot open (") + std::strerror(errno) + ")");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(path, 0, "a readable file", std::string("cannot stat (") + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path, 0, "a file", "a directory");
  std::vector<std::uint8_t> bytes;
  if (S_ISREG(st.st_mode)) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > kMaxBufferBytes)
      throw InputError(path, 0, "a file of at most " + std::to_string(kMaxBufferBytes) + " bytes (16 GiB, enc5's limit for one buffer)",
                       std::to_string(size) + " bytes");
    bytes.resize(static_cast<std::size_t>(size));
  }
  // Regular files: exactly st_size bytes (a file that shrinks while read is a short read). Pipes
  // and other streams: until end of file.
  std::size_t got = 0;
  while (true) {
    if (got == bytes.size()) {
      if (S_ISREG(st.st_mode)) break;
      if (bytes.size() >= kMaxStreamBytes)
        throw InputError(path, got,
                         "a stream (pipe) of at most " + std::to_string(kMaxStreamBytes) + " bytes (1 GiB; give a file for more)", "more");
      bytes.resize(std::min<std::uint64_t>(kMaxStreamBytes, std::max<std::size_t>(65536, 2 * bytes.size())));
    }
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, got, "a readable file", std::string("a read error (") + std::strerror(errno) + ")");
    }
    if (n == 0) {
      if (S_ISREG(st.st_mode)) throw InputError(path, got, std::to_string(bytes.size()) + " bytes", "a short read (the file shrank)");
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::string& path) { return read_file(path, true); }
std::vector<std::uint8_t> read_file_no_link(const std::string& path) { return read_file(path, false); }

void refuse_link(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return;
  std::error_code ec;
  const std::string target = std::filesystem::read_symlink(path, ec).string();
  throw InputError(path, 0, "a file or folder that is not a symbolic link (rrswin follows no link inside a capture or a sequence)",
                   "a symbolic link" + (ec ? std::string() : " to " + target));
}

void refuse_links_below(const std::string& dir, const std::string& rel) {
  std::filesystem::path p(dir);
  for (const auto& part : std::filesystem::path(rel)) {
    p /= part;
    refuse_link(p.string());
  }
}

void link_or_copy_file(const std::string& src, const std::string& dst) {
  namespace fs = std::filesystem;
  refuse_link(src);
  std::error_code ec;
  // Already that file (e.g. -o CAPTURE); a link at dst is replaced, never kept.
  if (!fs::is_symlink(fs::symlink_status(dst, ec)) && fs::exists(dst, ec) && fs::equivalent(src, dst, ec)) return;
  const std::string tmp = dst + ".tmp." + std::to_string(::getpid());
  fs::remove(tmp, ec);
  // link(2) does not follow a link either: with src checked above, dst is src's regular file.
  fs::create_hard_link(src, tmp, ec);
  if (!ec) fs::rename(tmp, dst, ec);
  if (ec) {
    fs::remove(tmp, ec);
    write_file_atomic(dst, read_file_no_link(src));
  }
}

void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot create " + tmp + " (" + std::strerror(errno) + ")");
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename the temporary file into place (" + why + ")");
  }
}

void check_output_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st) && !fs::is_directory(st))
    throw std::runtime_error(dir + ": the output folder is an existing " + std::string(fs::is_regular_file(st) ? "file" : "non-folder") +
                             " (give a folder name, or remove it)");
  // The folder itself, or the nearest existing folder above it (where create_directories will
  // start), must take a new file: a probe file is created and removed (access(2) misses read-only
  // mounts and ACLs). Nothing is created when the check passes, so a failed run leaves no folder.
  fs::path probe_dir = dir;
  while (!fs::exists(fs::status(probe_dir, ec))) {
    const fs::path up = probe_dir.has_parent_path() ? probe_dir.parent_path() : fs::path(".");
    if (up == probe_dir) break;
    probe_dir = up;
  }
  if (probe_dir.empty()) probe_dir = ".";
  if (!fs::is_directory(probe_dir, ec))
    throw std::runtime_error(dir + ": cannot create the output folder (" + probe_dir.string() + " is not a folder)");
  const std::string probe = (probe_dir / (".rrswin-probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw std::runtime_error(dir + ": " +
                             (probe_dir == fs::path(dir) ? std::string("the output folder is not writable")
                                                         : "cannot create the output folder in " + probe_dir.string()) +
                             " (" + std::strerror(errno) + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_text_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace rrswin
