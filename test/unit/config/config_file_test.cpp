// Reading the config file before any YAML: only regular files, at most kMaxConfigBytes, and the
// OS's reason for every failure. A loader that blocks or reads forever fails here, not hangs.
#include "config/config_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/config_loader.hpp"

namespace braid::config {
namespace {

constexpr const char* kMinimal = R"(ports:
  - name: p0
    device: net_null0
  - name: p1
    device: net_null1
cross_connect:
  - [p0, p1]
)";

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "braid-config-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string path = (path_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// load_config_file's error, run in a child process so that a loader that blocks (a FIFO) or
// reads forever (/dev/zero) fails the test after `limit` instead of hanging it. "" when the file
// loaded; "TIMEOUT" when the child had to be killed.
std::string load_error_within(const std::string& path,
                              std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string message;
    try {
      load_config_file(path);
    } catch (const ConfigError& error) {
      message = error.what();
    }
    [[maybe_unused]] const ssize_t written = ::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool done = false;
  while (!done) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd readable{pipe_fds[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) == 0) {
      ::kill(child, SIGKILL);
      message = "TIMEOUT";
      break;
    }
    char chunk[512];
    const ssize_t got = ::read(pipe_fds[0], chunk, sizeof chunk);
    if (got <= 0) {
      done = true;
    } else {
      message.append(chunk, static_cast<std::size_t>(got));
    }
  }
  ::close(pipe_fds[0]);
  ::waitpid(child, nullptr, 0);
  return message;
}

TEST(ConfigFile, ReadsARegularFile) {
  const TempDir dir;
  const std::string path = dir.file("ok.yaml", kMinimal);
  EXPECT_EQ(read_config_file(path), kMinimal);
  EXPECT_EQ(load_config_file(path).ports.size(), 2u);
}

TEST(ConfigFile, MissingFileGivesTheOsReasonAndThePath) {
  EXPECT_EQ(load_error_within("/nonexistent/braid.yaml"),
            "config: /nonexistent/braid.yaml: cannot open file: No such file or directory");
  EXPECT_EQ(load_error_within("/etc/passwd/braid.yaml"),
            "config: /etc/passwd/braid.yaml: cannot open file: Not a directory");
}

TEST(ConfigFile, FifoIsRefusedWithoutWaitingForAWriter) {
  const TempDir dir;
  const std::string path = (dir / "fifo.yaml").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(load_error_within(path),
            "config: " + path + ": is a FIFO, not a regular file: give --config the path of a " +
                "YAML file");
}

TEST(ConfigFile, DirectoryIsNotAnEmptyFile) {
  const TempDir dir;
  const std::string path = (dir / "").string();
  EXPECT_EQ(load_error_within(path), "config: " + path +
                                         ": is a directory, not a regular file: give --config "
                                         "the path of a YAML file");
}

TEST(ConfigFile, DeviceIsNotReadForever) {
  // A loader that reads /dev/zero grows by about a GiB a second: two seconds prove the point.
  EXPECT_EQ(load_error_within("/dev/zero", std::chrono::seconds(2)),
            "config: /dev/zero: is a character device, not a regular file: give --config the "
            "path of a YAML file");
}

TEST(ConfigFile, FileOverTheLimitIsRefusedWithTheLimit) {
  const TempDir dir;
  // A valid config padded with a comment to one byte over the limit.
  std::string text = kMinimal;
  text += "#" + std::string(kMaxConfigBytes - text.size() - 2, 'x') + "\n";
  ASSERT_EQ(text.size(), kMaxConfigBytes);
  const std::string at_limit = dir.file("at-limit.yaml", text);
  EXPECT_EQ(load_error_within(at_limit), "");
  text += "\n";
  const std::string over = dir.file("over.yaml", text);
  EXPECT_EQ(load_error_within(over),
            "config: " + over +
                ": 1048577 bytes is more than a config file may have (1048576 bytes, 1 MiB): is it "
                "the right file?");
}

}  // namespace
}  // namespace braid::config
