#include "engine/resume_state.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/runtime_lock.hpp"

namespace braid::engine {

std::string resume_file_path(const std::string& file_prefix) {
  return dpdk_runtime_dir(file_prefix) + "/lacp-resume";
}

void write_resume_file(const std::string& path, const lacp::SavedLacpState& state) {
  const std::string text = lacp::encode_resume_file(state);
  const std::string temporary = path + ".new";
  const auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw std::runtime_error(std::string("cannot ") + what + " " + temporary + ": " + reason);
  };
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("create");
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail("write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("fsync");
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail("rename");
}

ResumeFileRead take_resume_file(const std::string& path, std::uint64_t now_unix_ms,
                                std::uint64_t max_age_ms) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  in.close();
  ::unlink(path.c_str());  // one moment, used once
  ResumeFileRead read;
  try {
    lacp::SavedLacpState state = lacp::decode_resume_file(text.str());
    if (state.saved_unix_ms > now_unix_ms + 1000) {
      read.note = path + ": written in the future (clock changed?); not used, LACP starts cold";
      return read;
    }
    const std::uint64_t age_ms =
        now_unix_ms > state.saved_unix_ms ? now_unix_ms - state.saved_unix_ms : 0;
    if (age_ms > max_age_ms) {
      read.note = path + ": written " + std::to_string(age_ms / 1000) +
                  " s ago, longer than any partner waits (" + std::to_string(max_age_ms / 1000) +
                  " s); not used, LACP starts cold";
      return read;
    }
    std::size_t members = 0;
    for (const lacp::SavedBond& bond : state.bonds)
      members += bond.members.size();
    read.note = path + ": LACP state of " + std::to_string(members) +
                " member(s) saved by the previous braid " + std::to_string(age_ms) +
                " ms ago; resuming where it matches";
    read.state = std::move(state);
  } catch (const lacp::ResumeFileError& error) {
    read.note = path + ": " + error.what() + "; not used, LACP starts cold";
  }
  return read;
}

}  // namespace braid::engine
