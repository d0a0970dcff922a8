#include "config/config_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config/config.hpp"

namespace braid::config {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ConfigError("config: " + path + ": " + what);
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

void check_regular(const std::string& path, const struct stat& status) {
  if (S_ISREG(status.st_mode)) {
    if (static_cast<std::uintmax_t>(status.st_size) > kMaxConfigBytes) {
      fail(path, std::to_string(status.st_size) + " bytes is more than a config file may have (" +
                     std::to_string(kMaxConfigBytes) + " bytes, 1 MiB): is it the right file?");
    }
    return;
  }
  fail(path, std::string("is ") + kind_of(status.st_mode) +
                 ", not a regular file: give --config the path of a YAML file");
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { ::close(fd_); }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_config_file(const std::string& path) {
  // stat() first, so that a device or a FIFO is refused without being opened at all (opening a
  // FIFO for reading waits for a writer; opening some devices has side effects).
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    fail(path, std::string("cannot open file: ") + std::strerror(errno));
  }
  check_regular(path, status);
  // O_NONBLOCK: should the path have become a FIFO since stat(), open() still returns at once
  // and fstat() below refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  const FileDescriptor file(fd);
  if (::fstat(file.get(), &status) != 0) {
    fail(path, std::string("cannot read file: ") + std::strerror(errno));
  }
  check_regular(path, status);

  // Read one byte past the limit so that a file that grew since fstat() is still refused.
  std::string text(kMaxConfigBytes + 1, '\0');
  std::size_t length = 0;
  while (length < text.size()) {
    const ssize_t got = ::read(file.get(), text.data() + length, text.size() - length);
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(path, std::string("cannot read file: ") + std::strerror(errno));
    }
    if (got == 0) break;
    length += static_cast<std::size_t>(got);
  }
  if (length > kMaxConfigBytes) {
    fail(path, "grew past the " + std::to_string(kMaxConfigBytes) +
                   " bytes (1 MiB) a config file may have while braid read it");
  }
  text.resize(length);
  return text;
}

}  // namespace braid::config
